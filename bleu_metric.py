"""BLEU for the Hugging Face `evaluate` library: exact, offline, fast, hard to misuse.

Load it with `evaluate.load("path/to/bleu_metric.py")`, or `bleukit.load()` where the package is
installed. This script is the card text, the features and a `_compute` that hands over: the code
is the installed `bleukit` package, imported as a library (as evaluate's `sacrebleu` metric imports
`sacrebleu`); the comment on its import line is evaluate's install hint for a user without it.
"""

import datasets
import evaluate
from bleukit.evaluate_module import TOKEN_IDS_CONFIG, BleuMetricMethods  # From: bleukit

_CITATION = """\
@inproceedings{papineni-etal-2002-bleu,
    title = "{B}leu: a Method for Automatic Evaluation of Machine Translation",
    author = "Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing",
    booktitle = "Proceedings of the 40th Annual Meeting of the Association for Computational Linguistics",
    year = "2002",
    address = "Philadelphia, Pennsylvania, USA",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/P02-1040",
    doi = "10.3115/1073083.1073135",
    pages = "311--318",
}
@inproceedings{post-2018-call,
    title = "A Call for Clarity in Reporting {BLEU} Scores",
    author = "Post, Matt",
    booktitle = "Proceedings of the Third Conference on Machine Translation: Research Papers",
    year = "2018",
    address = "Brussels, Belgium",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/W18-6319",
    pages = "186--191",
}
@inproceedings{chen-cherry-2014-systematic,
    title = "A Systematic Comparison of Smoothing Techniques for Sentence-Level {BLEU}",
    author = "Chen, Boxing and Cherry, Colin",
    booktitle = "Proceedings of the Ninth Workshop on Statistical Machine Translation",
    year = "2014",
    address = "Baltimore, Maryland, USA",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/W14-3346",
    pages = "362--367",
}
"""

_DESCRIPTION = """\
BLEU (Bilingual Evaluation Understudy, Papineni et al. 2002) scores machine-generated text
against one or more human references. For each n-gram order up to max_order it counts the
hypothesis n-grams that also occur in a reference, clipping each n-gram's count at the largest
number of times it occurs in any single reference (modified precision). BLEU is the weighted
geometric mean of these precisions times a brevity penalty, exp(1 - r/c) when the total
hypothesis length c is below the effective reference length r, where r sums, per segment, the
reference length closest to the hypothesis length (ties to the shorter). Scores are between 0
and 1; counts are summed over the whole corpus before dividing, so corpus BLEU is not the mean
of sentence BLEU. By default this module reproduces sacreBLEU's corpus BLEU (13a tokenization,
closest reference length) and reports a reproducibility signature with the score.
"""

_KWARGS_DESCRIPTION = """
Computes BLEU of predictions against references.

Args:
    predictions (`list` of `str`): the texts to score, one per segment. Or lists of integer token
        ids (references then hold id lists too): they are the tokens, no tokenizer runs, and the
        signature says `tok:ids`; such scores compare only within one tokenizer. The default
        config detects ids; `evaluate.load(path, config_name="token_ids")` accepts only ids.
        Any non-string sequence serves as the list: a tuple, NumPy array, pandas Series, Arrow
        array, a `datasets` column (`ds["prediction"]`) or a generator.
    references (`list` of `str`, or `list` of `list` of `str`): one reference per prediction,
        or a non-empty list of references per prediction (their number may vary; a None pads a
        missing one, as in sacreBLEU).
    tokenizer (`str` or callable, default `"auto"`): `"auto"` is sacreBLEU's choice for
        `target_language` (`"ja-mecab"`, `"ko-mecab"` or `"zh"`), else `"13a"`. `"13a"`
        (mteval-v13a, as sacreBLEU), `"none"` (split on whitespace), `"intl"` (mteval-v14
        international), `"zh"` (Chinese), `"char"` (characters), `"ja-mecab"` (Japanese, MeCab),
        `"ko-mecab"` (Korean, MeCab-ko), `"flores101"`, `"flores200"`, `"spBLEU-1K"` (spBLEU:
        SentencePiece models; `"spm"` is the old name of flores101), a SentencePiece model file's
        path, a transformers tokenizer (its `tokenize`), or any callable from a string to a list
        of token strings.
    lowercase (`bool`, default `False`): lowercase predictions and references first.
    max_order (`int`, default `4`): the highest n-gram order.
    weights (sequence of `float`, default uniform `1/max_order`): one non-negative weight per
        order; given alone, its length sets max_order.
    smooth (`bool` or `str`, default `False`): `False` or `"none"`: no smoothing. `True`: the
        add-one of `evaluate`'s legacy `bleu` on every order. sacreBLEU's `"floor"`, `"add-k"`,
        `"exp"`; Chen & Cherry (2014) `"method1"` ... `"method7"` as in NLTK.
    smooth_value (`float`, default per method): epsilon of `"floor"` (0.1) and `"method1"`
        (0.1), k of `"add-k"` (1) and `"method4"`/`"method7"` (5), alpha of `"method6"` (5).
    ref_length (`str`, default `"closest"`): `"closest"`, the paper's best match length, ties to
        the shorter (sacreBLEU, NLTK); `"shortest"`, as `evaluate`'s legacy `bleu`.
    effective_order (`bool`, default `False`): leave out orders the hypothesis is too short to
        have (sacreBLEU's option for sentence-level BLEU).
    target_language (`str`, default `None`): the predictions' language code ("ja", "ko-KR",
        "zho_Hans", ...); with tokenizer="auto" it picks sacreBLEU's recommended tokenizer, and a
        tokenizer named instead gets sacreBLEU's warning when the language has a better one.
    return_sentence_scores (`bool`, default `False`): add `sentence_bleu`, one score per prediction.
    bootstrap_samples (`int`, default `0`): with N > 0, add a 95% confidence interval from N
        bootstrap resamples of the segments (sacreBLEU's scheme).
    bootstrap_seed (`int` or `None`, default `12345`): seed of the resampling.
    ignore_ids (collection of `int`, token ids only): ids dropped from predictions and references
        before counting, wherever they stand, besides the negative ids (-100 padding), which are
        always dropped. See `bleukit.token_ids` for the rule.
    pad_id (`int`, token ids only): an alias of `ignore_ids` for one id (`pad_id=0` is
        `ignore_ids=[0]`).
    num_workers (`int` or `"auto"`, default `"auto"`): processes that tokenize and count. `"auto"`
        forks one per core only for large inputs (20,000 segments and more, on Linux, called from
        the main thread and not in a pool's worker process, with this module's tokenizers); `1`:
        this process alone; `n`: n forked processes. The numbers are the same whatever it is
        (docs/scaling.md).
    sacreBLEU's names work too: tokenize=, smooth_method=, max_ngram_order= and (evaluate's
    `sacrebleu`) use_effective_order=. Options given to `evaluate.load(path, ...)` become the
    metric's defaults, which a call's options override.

Returns:
    bleu (`float`): the BLEU score, between 0 and 1 (above 1 only with the smoothing settings
        listed under Limitations on the card).
    precisions (`list` of `float`): the (smoothed) modified precision of each order.
    brevity_penalty (`float`): between 0 and 1.
    length_ratio (`float`): translation_length / reference_length (0.0 when the latter is 0).
    translation_length (`int`): total number of hypothesis tokens.
    reference_length (`int`): total effective reference length.
    signature (`str`): the options that produced the score, e.g.
        `nrefs:1|case:mixed|eff:no|tok:13a|smooth:none|reflen:closest|order:4|version:bleu_metric-1.0.0`.
    sentence_bleu (`list` of `float`): only with return_sentence_scores=True.
    bleu_ci_low, bleu_ci_high, bleu_bootstrap_mean (`float`): only with bootstrap_samples > 0.

Examples:
    >>> import evaluate
    >>> bleu = evaluate.load("bleu_metric.py")
    >>> predictions = ["the cat the cat on the mat"]
    >>> references = [["the cat is on the mat", "there is a cat on the mat"]]
    >>> result = bleu.compute(predictions=predictions, references=references)
    >>> round(result["bleu"], 4), result["precisions"][0]
    (0.4671, 0.7142857142857143)
"""


def _features(config_name: str) -> list:
    """Text features, then token-id features (one reference, or a list of them, per prediction).

    The default config accepts both and `evaluate` picks the set that fits the first example;
    the `token_ids` config (`evaluate.load(path, config_name="token_ids")`) accepts only ids.
    """
    text = datasets.Value("string", id="sequence")
    ids = datasets.Sequence(datasets.Value("int64"))
    text_features = [
        datasets.Features({"predictions": text, "references": datasets.Sequence(text, id="references")}),
        datasets.Features({"predictions": text, "references": text}),
    ]
    id_features = [
        datasets.Features({"predictions": ids, "references": datasets.Sequence(ids)}),
        datasets.Features({"predictions": ids, "references": ids}),
    ]
    return id_features if config_name == TOKEN_IDS_CONFIG else text_features + id_features


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BleuMetric(BleuMetricMethods, evaluate.Metric):
    """BLEU with sacreBLEU's defaults, a signature, and no network access. The options given to
    `evaluate.load` become its defaults, and every method (compute, trainer_compute_metrics,
    reward_function, compare, statistics, pairwise, mbr, ...) is `BleuMetricMethods`'."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_features(self.config_name),
            codebase_urls=["https://github.com/mjpost/sacrebleu"],
            reference_urls=["https://aclanthology.org/P02-1040", "https://aclanthology.org/W18-6319"],
        )

    def _compute(self, predictions, references, **kwargs):
        return self.compute_from_cache(predictions, references, **kwargs)

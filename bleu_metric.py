"""BLEU for the Hugging Face `evaluate` library: exact, offline, fast, hard to misuse.

Load it with `evaluate.load("path/to/bleu_metric.py")`. The class below is deliberately thin:
it checks raw inputs before `evaluate` casts them, and hands everything else to `bleu_core`.
"""

from typing import Any, Dict, Optional, Sequence

import datasets
import evaluate

# evaluate.load copies only the sibling modules this file imports itself (one per line, relative,
# at column 0), and not their imports: so every helper module is imported here. Never put a
# comment on these lines: evaluate reads the text after '#' on an import line as a download URL.
from .bleu_batches import result_from_statistics_table
from .bleu_compare import compare
from .bleu_core import DEFAULT_BOOTSTRAP_SEED, RUN_OPTION_NAMES, check_run_options, compute_bleu
from .bleu_diversity import most_similar_pairs, pairwise, self_bleu
from .bleu_inputs import TOKEN_IDS, as_list, validate_inputs
from .bleu_mbr import mbr
from .bleu_ray import corpus_bleu as ray_corpus_bleu
from .bleu_reward import BleuReward, make_reward_function
from .bleu_options import (
    OPTION_NAMES, SACREBLEU_OPTION_NAMES, canonical_options, init_keywords, resolve_options, split_load_keywords,
)
from .bleu_pair_stats import resolve_many
from .bleu_pairs import order_columns
from .bleu_parallel import forked_rows
from .bleu_scoring import score_statistics
from .bleu_significance import TestScorer
from .bleu_spark import corpus_bleu as spark_corpus_bleu
from .bleu_stats import ngram_statistics
from .bleu_streaming import BleuAccumulator, score_from_statistics, statistics
from .bleu_tensor import corpus_bleu as tensor_corpus_bleu, sentence_bleu as tensor_sentence_bleu, statistics as tensor_statistics
from .bleu_tensor_pairs import tensor_pair_matches
from .bleu_token_ids import TOKEN_ID_OPTION_NAMES, token_id_rule
from .bleu_tokenizer_base import BaseTokenizer
from .bleu_tokenizer_13a import Tokenizer13a
from .bleu_tokenizer_regex import TokenizerIntl
from .bleu_tokenizer_memo import MemoizedTokenizer
from .bleu_tokenizer_mecab import TokenizerJaMecab
from .bleu_tokenizer_spm import TokenizerSPM
from .bleu_tokenizers import get_tokenizer
from .bleu_trainer import BleuComputeMetrics, make_compute_metrics
from .bleu_trainer_batches import eval_prediction_ids
from .bleu_trainer_gather import GatheredRows

# Used through bleu_core, bleu_compare, bleu_trainer, bleu_diversity and bleu_mbr, or imported by users
# (bleu_spark, bleu_ray over bleu_batches); imported here so that evaluate.load copies their modules.
HELPERS = (
    score_statistics, TestScorer, ngram_statistics, get_tokenizer, BaseTokenizer, Tokenizer13a, TokenizerIntl,
    MemoizedTokenizer, TokenizerJaMecab, TokenizerSPM, eval_prediction_ids, GatheredRows, resolve_many,
    order_columns, tensor_pair_matches, result_from_statistics_table, spark_corpus_bleu, ray_corpus_bleu,
    forked_rows,
)

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
        always dropped. See `bleu_token_ids` for the rule.
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



def _check_option_names(kwargs: Dict[str, Any]) -> None:
    unknown = sorted(set(kwargs) - set(OPTION_NAMES) - set(RUN_OPTION_NAMES) - set(TOKEN_ID_OPTION_NAMES))
    if unknown:
        raise TypeError(
            f"unknown option(s) {unknown}; BLEU takes {list(OPTION_NAMES + RUN_OPTION_NAMES + TOKEN_ID_OPTION_NAMES)} "
            f"(sacreBLEU's names {sorted(SACREBLEU_OPTION_NAMES)} work too)"
        )


# The options that apply to text only, left out of the defaults of the token-id methods.
_TEXT_ONLY_OPTIONS = ("tokenizer", "lowercase")


def _load_time_defaults(options: Dict[str, Any]) -> Dict[str, Any]:
    """`evaluate.load(path, smooth="exp", ...)`: the metric's options given at load time, checked now
    (an error names the keyword), to be its defaults. evaluate itself would drop them silently."""
    unknown = sorted(set(options) - set(OPTION_NAMES) - set(RUN_OPTION_NAMES))
    if unknown:
        raise TypeError(
            f"evaluate.load(...) got unknown keyword(s) {unknown}; at load time BLEU takes its options "
            f"{list(OPTION_NAMES + RUN_OPTION_NAMES)} (they become its defaults), with_signature, and evaluate's "
            f"own {list(init_keywords(evaluate.EvaluationModule))}"
        )
    resolve_options(**{k: v for k, v in options.items() if k in OPTION_NAMES})
    check_run_options(
        options.get("return_sentence_scores", False),
        options.get("bootstrap_samples", 0),
        options.get("bootstrap_seed", DEFAULT_BOOTSTRAP_SEED),
        options.get("num_workers", "auto"),
    )
    return options


def _materialized(predictions: Any, references: Any) -> tuple:
    """Both inputs as lists (a `datasets` Column, Arrow array or generator read once), so the
    checks and `evaluate`'s cache see the same items; a missing one stays None for the checks."""
    return tuple(None if value is None else as_list(value, name)
                 for value, name in ((predictions, "predictions"), (references, "references")))


TOKEN_IDS_CONFIG = "token_ids"


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
class BleuMetric(evaluate.Metric):
    """BLEU with sacreBLEU's defaults, a signature, and no network access."""

    def __init__(self, *args: Any, with_signature: bool = True, **kwargs: Any) -> None:
        """`evaluate.load(path, with_signature=False)` leaves the signature string out of the result
        dict (for `evaluate.evaluator(...)`'s bootstrap, which resamples every key of the result);
        it stays readable as `metric.signature` after each compute.

        `evaluate.load(path, smooth="exp", tokenizer="intl", ...)`: the options given at load time
        become this metric's defaults (`default_options`), for compute and every method; an option
        passed to a call overrides them. An unknown keyword is an error, never dropped."""
        if not isinstance(with_signature, bool):
            raise TypeError(f"with_signature must be True or False, not {with_signature!r}")
        self.with_signature = with_signature
        self.signature: Optional[str] = None  # the signature of the last result
        settings, options = split_load_keywords(kwargs, evaluate.EvaluationModule)
        self.default_options = _load_time_defaults(options)
        super().__init__(*args, **settings)

    def _options(self, options: Dict[str, Any], token_ids: bool = False, run: bool = False) -> Dict[str, Any]:
        """A call's options over the load-time defaults, under this module's names. `run`: the
        per-call options of compute too; `token_ids`: without the text-only options."""
        defaults = {k: v for k, v in self.default_options.items()
                    if (run or k in OPTION_NAMES) and not (token_ids and k in _TEXT_ONLY_OPTIONS)}
        return {**defaults, **canonical_options(options)}

    def _with_signature_as_asked(self, result: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
        if result is None:  # the processes other than 0 in evaluate's distributed mode
            return None
        self.signature = result["signature"]
        if not self.with_signature:
            result = {key: value for key, value in result.items() if key != "signature"}
        return result

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_features(self.config_name),
            codebase_urls=["https://github.com/mjpost/sacrebleu"],
            reference_urls=["https://aclanthology.org/P02-1040", "https://aclanthology.org/W18-6319"],
        )

    @property
    def _input_kind(self) -> Optional[str]:
        """`token_ids` under the token_ids config; None (detect from the input) otherwise."""
        return TOKEN_IDS if self.config_name == TOKEN_IDS_CONFIG else None

    def compute(self, *, predictions=None, references=None, **kwargs) -> Optional[Dict[str, Any]]:
        """Check the inputs and options as the user gave them, then compute BLEU.

        Checking happens before `evaluate` casts the inputs to the declared features, so a
        malformed input gets an error that names it instead of a silently different score.
        """
        kwargs = self._options(kwargs, run=True)
        _check_option_names(kwargs)
        if predictions is not None and references is not None and self.num_process == 1 and self.writer is None:
            # All the data in this one call: score it directly. Going through evaluate's Arrow
            # cache would only copy it (docs/performance.md has the numbers);
            # streaming (add_batch) and distributed runs (num_process > 1) take evaluate's path.
            return self._with_signature_as_asked(
                compute_bleu(predictions, references, kind=self._input_kind, **kwargs)
            )
        resolve_options(**{k: v for k, v in kwargs.items() if k in OPTION_NAMES})
        token_id_rule(**{k: v for k, v in kwargs.items() if k in TOKEN_ID_OPTION_NAMES})
        check_run_options(
            kwargs.get("return_sentence_scores", False),
            kwargs.get("bootstrap_samples", 0),
            kwargs.get("bootstrap_seed", DEFAULT_BOOTSTRAP_SEED),
            kwargs.get("num_workers", "auto"),
        )
        if predictions is not None or references is not None:
            predictions, references = _materialized(predictions, references)
            validate_inputs(predictions, references, self._input_kind)
        return self._with_signature_as_asked(
            super().compute(predictions=predictions, references=references, **kwargs)
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs) -> None:
        """Check one batch as the user gave it, then add it to the evaluation cache."""
        predictions, references = _materialized(predictions, references)
        validate_inputs(predictions, references, self._input_kind)
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs) -> None:
        """Check one example as the user gave it, then add it to the evaluation cache."""
        validate_inputs([prediction], [reference], self._input_kind)
        super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(self, predictions, references, **kwargs) -> Dict[str, Any]:
        return compute_bleu(predictions, references, kind=self._input_kind, **kwargs)

    def trainer_compute_metrics(
        self,
        hf_tokenizer: Any = None,
        /,
        *,
        scale: float = 1,
        with_signature: bool = False,
        eval_examples: Optional[int] = None,
        token_ids: bool = False,
        ignore_ids: Sequence[int] = (),
        pad_id: Optional[int] = None,
        **options: Any,
    ) -> BleuComputeMetrics:
        """A `compute_metrics` for transformers' (Seq2Seq)Trainer, streaming-ready; see `bleu_trainer`.

        `hf_tokenizer` decodes predictions and labels (a transformers tokenizer passed as
        `tokenizer=` alone is taken as it); `scale` is 1 (BLEU in 0..1) or 100; `with_signature`
        adds the signature string to the metrics; `eval_examples=len(eval_dataset)` drops the padding
        duplicates of a multi-process evaluation; the options are this metric's (tokenizer="13a",
        lowercase, max_order, smooth, ...). `token_ids=True` scores the generated ids against the
        label ids without decoding (the token-id rule: negative ids and `ignore_ids`, alias `pad_id`,
        dropped, the tokenizer's special ids among them; signature `tok:ids`):
        a fast in-training signal, never comparable with text BLEU.
        """
        return make_compute_metrics(
            hf_tokenizer, scale=scale, with_signature=with_signature, eval_examples=eval_examples,
            token_ids=token_ids, ignore_ids=ignore_ids, pad_id=pad_id, **self._options(options, token_ids=token_ids),
        )

    def reward_function(self, *, reference_column: str = "reference", scale: float = 1, **options: Any) -> BleuReward:
        """Sentence BLEU as a TRL reward function (`GRPOTrainer(reward_funcs=...)`); see `bleu_reward`.

        References come from the dataset column `reference_column`; the options are this metric's,
        over the reward defaults smooth="exp", effective_order=True; `token_ids=True` (with
        `ignore_ids`, alias `pad_id`) scores `completion_ids` against references of token ids.
        """
        return make_reward_function(reference_column=reference_column, scale=scale,
                                    **self._options(options, token_ids=bool(options.get("token_ids"))))

    def statistics(self, predictions: Any, references: Any, per_segment: bool = False, **options: Any):
        """BLEU's additive statistics (an int64 row, or one row per segment); see `bleu_streaming`."""
        return statistics(predictions, references, per_segment=per_segment, **self._options(options))

    def score_from_statistics(self, totals: Any, num_refs: Any = None, **options: Any) -> Dict[str, Any]:
        """The result dict from summed (or per-segment) statistics and the same options;
        `num_refs` (an int, or one count per segment) for the signature, else `nrefs:?`."""
        return score_from_statistics(totals, num_refs=num_refs, **self._options(options))

    def accumulator(self, **options: Any) -> BleuAccumulator:
        """Running statistics in constant memory: `.add(predictions, references)`, `.result()`."""
        return BleuAccumulator(**self._options(options))

    def compare(self, systems: Any, references: Any, **kwargs: Any) -> Dict[str, Any]:
        """Paired significance tests of systems against a baseline, as sacreBLEU runs them.

        `compare({"A": predictions_a, "B": predictions_b}, references, method="bootstrap" or "ar",
        baseline="A", bootstrap_samples=None, trials=None, seed=12345, count_ties=False, **options)`
        (the older samples= and confidence_samples= still work): one dict per
        system (bleu, p_value against the baseline, bootstrap mean and 95% half-width ci, ...),
        the baseline first. Pass smooth="exp" for sacreBLEU's numbers; see `bleu_compare`.
        """
        return compare(systems, references, **self._options(kwargs))

    def tensor_statistics(self, predictions: Any, references: Any, *, per_segment: bool = False, **options: Any):
        """Statistics of padded torch.long id tensors, int64 on their device (all-reducible); see
        `bleu_tensor`. Name the padding: `ignore_ids=(pad_token_id,)` (alias `pad_id=`), or
        `ignore_ids=()` when -100 is the only padding."""
        return tensor_statistics(predictions, references, per_segment=per_segment, **self._options(options, token_ids=True))

    def tensor_sentence_bleu(self, predictions: Any, references: Any, **options: Any):
        """Sentence BLEU of padded torch.long id tensors: float64 (B,) on their device; see `bleu_tensor`."""
        return tensor_sentence_bleu(predictions, references, **self._options(options, token_ids=True))

    def tensor_corpus_bleu(self, predictions: Any, references: Any, **options: Any) -> Dict[str, Any]:
        """The result dict (signature tok:ids) of padded torch.long id tensors; see `bleu_tensor`."""
        return tensor_corpus_bleu(predictions, references, **self._options(options, token_ids=True))

    def pairwise(self, texts_a: Any, texts_b: Any = None, **options: Any) -> Dict[str, Any]:
        """Sentence BLEU of every text of `texts_a` against every text of `texts_b` (default: `texts_a`)
        as its one reference: {"bleu": (len(a), len(b)) float64 array, "signature"}; see `bleu_diversity`.
        Defaults are sacreBLEU's sentence_bleu (smooth="exp", effective_order=True)."""
        return pairwise(texts_a, texts_b, **self._options(options))

    def self_bleu(self, texts: Any, **options: Any) -> Dict[str, Any]:
        """Each text against all the others of its set as references: self_bleu (the mean),
        sentence_bleu, corpus_bleu, fairseq's pairwise_bleu, signature; `convention="nltk"` gives
        NLTK's (Texygen's, fast-bleu's) numbers; see `bleu_diversity`."""
        return self_bleu(texts, **self._options(options))

    def most_similar_pairs(self, texts: Any, top: int = 10, **options: Any) -> Dict[str, Any]:
        """The `top` most similar pairs of a set by sentence BLEU (either direction); see `bleu_diversity`."""
        return most_similar_pairs(texts, top, **self._options(options))

    def mbr(self, candidates: Any, pseudo_references: Any = None, **options: Any) -> Dict[str, Any]:
        """Minimum Bayes risk decoding with sentence BLEU: chosen, best, expected_bleu (and matrix with
        return_matrix=True) for one source or a batch, lists or torch tensors (name their padding with
        ignore_ids, alias pad_id); token ids follow compute's token-id rule; see `bleu_mbr`."""
        return mbr(candidates, pseudo_references, **self._options(options))

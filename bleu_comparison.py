"""BLEU significance test of two systems as an `evaluate` comparison module.

Load it with `evaluate.load("path/to/bleu_comparison.py", module_type="comparison")`, then
`compute(predictions1=..., predictions2=..., references=...)`. Like the metric, the class is thin:
it checks raw inputs before `evaluate` casts them and hands the test to `bleu_compare.compare`.
"""

from typing import Any, Dict, Optional

import datasets
import evaluate

# evaluate.load copies only the sibling modules this file imports itself (one per line, relative,
# at column 0), and not their imports: so every helper module the test needs is imported here.
# Never put a comment on these lines: evaluate reads the text after '#' on an import line as a URL.
from .bleu_compare import COUNT_NAMES, check_compare_options, check_systems, compare
from .bleu_core import DEFAULT_BOOTSTRAP_SEED
from .bleu_inputs import TOKEN_IDS
from .bleu_options import OPTION_NAMES, SACREBLEU_OPTION_NAMES, canonical_options, init_keywords, split_load_keywords
from .bleu_parallel import forked_rows
from .bleu_scoring import score_rows
from .bleu_significance import TestScorer
from .bleu_stats import ngram_statistics
from .bleu_token_ids import DEFAULT_RULE
from .bleu_tokenizer_base import BaseTokenizer
from .bleu_tokenizer_13a import Tokenizer13a
from .bleu_tokenizer_regex import TokenizerIntl
from .bleu_tokenizer_memo import MemoizedTokenizer
from .bleu_tokenizer_mecab import TokenizerJaMecab
from .bleu_tokenizer_spm import TokenizerSPM
from .bleu_tokenizers import get_tokenizer

# Used through bleu_compare (TestScorer: bleu_significance); imported here so that evaluate.load copies their modules.
HELPERS = (TOKEN_IDS, score_rows, TestScorer, ngram_statistics, DEFAULT_RULE, get_tokenizer, BaseTokenizer, Tokenizer13a,
           TokenizerIntl, MemoizedTokenizer, TokenizerJaMecab, TokenizerSPM, forked_rows)

_CITATION = """\
@inproceedings{koehn-2004-statistical,
    title = "Statistical Significance Tests for Machine Translation Evaluation",
    author = "Koehn, Philipp",
    booktitle = "Proceedings of the 2004 Conference on Empirical Methods in Natural Language Processing",
    year = "2004",
    address = "Barcelona, Spain",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/W04-3250",
    pages = "388--395",
}
@inproceedings{riezler-maxwell-2005-pitfalls,
    title = "On Some Pitfalls in Automatic Evaluation and Significance Testing for {MT}",
    author = "Riezler, Stefan and Maxwell, John T.",
    booktitle = "Proceedings of the {ACL} Workshop on Intrinsic and Extrinsic Evaluation Measures for Machine Translation and/or Summarization",
    year = "2005",
    address = "Ann Arbor, Michigan",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/W05-0908",
    pages = "57--64",
}
"""

_DESCRIPTION = """\
Is the BLEU difference between two systems on the same test set real, or could it be chance?
This comparison scores both systems and runs sacreBLEU's paired significance test: paired
bootstrap resampling (Koehn 2004; the default, 1,000 resamples) or approximate randomization
(Riezler & Maxwell 2005; 10,000 trials). The p-value estimates how often a difference at least as
large as the observed one appears when the systems are in fact equally good; small values (e.g.
below 0.05) mean the difference is unlikely to be chance. With the same seed (12345 by default)
the draws, and so the numbers, are sacreBLEU's.
"""

_KWARGS_DESCRIPTION = """
Tests the BLEU difference between two systems' predictions on the same references.

Args:
    predictions1 (`list` of `str`): the first (baseline) system's outputs, one per segment.
    predictions2 (`list` of `str`): the second system's outputs, one per segment.
    references (`list` of `str`, or `list` of `list` of `str`): one reference, or a list of them,
        per segment. (Lists of token ids are accepted for all three, as by the BLEU metric.)
    method (`str`, default `"bootstrap"`): `"bootstrap"` (paired bootstrap resampling) or `"ar"`
        (approximate randomization; `"approximate_randomization"` also works).
    bootstrap_samples (`int`, default 1,000 for the bootstrap): bootstrap resamples (the metric's
        name for them): the bootstrap test's, or, with method="ar", those of each system's mean
        and ci (default 0: none).
    trials (`int`, default 10,000): approximate randomization's trials.
    samples, confidence_samples: the older names (the test's resamples or trials; ar's interval
        resamples), still accepted.
    seed (`int` or `None`, default `12345`, sacreBLEU's): None draws fresh randomness.
    count_ties (`bool`, default `False`): count the trials that tie the observed difference as at
        least as extreme (the conservative p-value); False counts only larger ones, as sacreBLEU.
    tokenizer, lowercase, max_order, weights, smooth, smooth_value, ref_length, effective_order:
        the BLEU metric's scoring options (pass smooth="exp" for sacreBLEU's default numbers).

Returns:
    bleu1, bleu2 (`float`): each system's corpus BLEU, between 0 and 1.
    difference (`float`): bleu2 - bleu1.
    p_value (`float`): the test's p-value, (trials with a larger difference + 1) / (trials + 1),
        the ties counted too with count_ties=True.
    ties (`int`): trials whose difference equals the observed one exactly (many when the two
        systems differ in a few segments; then the strict p-value is small for almost equal systems).
    mean1, ci1, mean2, ci2 (`float` or `None`): each system's bootstrap mean and the half-width of
        its 95% interval (sacreBLEU's "mean ± ci"); None for ar without bootstrap_samples.
    method (`str`), samples (`int`: the test's resamples or trials), seed (`int` or `None`),
        count_ties (`bool`): the test that ran.
    signature (`str`): BLEU's signature plus the test, e.g. `...|version:bleu_metric-1.0.0|test:bs|n:1000|seed:12345`.

Examples:
    >>> import evaluate
    >>> comparison = evaluate.load("bleu_comparison.py", module_type="comparison")
    >>> references = ["the cat is on the mat", "there is a dog in the garden", "it rains today"]
    >>> result = comparison.compute(
    ...     predictions1=["the cat on the mat", "a dog is in a garden", "it rains"],
    ...     predictions2=["the cat is on the mat", "there is a dog in the garden", "it rains today"],
    ...     references=references, bootstrap_samples=100)
    >>> result["bleu2"], result["p_value"] <= 1
    (1.0, True)
"""


def _features() -> list:
    """Text features, then token-id features (one reference, or a list of them, per segment)."""
    text = datasets.Value("string", id="sequence")
    ids = datasets.Sequence(datasets.Value("int64"))
    return [
        datasets.Features({"predictions1": text, "predictions2": text,
                           "references": datasets.Sequence(text, id="references")}),
        datasets.Features({"predictions1": text, "predictions2": text, "references": text}),
        datasets.Features({"predictions1": ids, "predictions2": ids, "references": datasets.Sequence(ids)}),
        datasets.Features({"predictions1": ids, "predictions2": ids, "references": ids}),
    ]


def _pair(result: Dict[str, Any]) -> Dict[str, Any]:
    """compare's result for two systems in the flat shape evaluate's comparisons return."""
    first, second = result["systems"]
    return {
        "bleu1": first["bleu"],
        "bleu2": second["bleu"],
        "difference": second["bleu"] - first["bleu"],
        "p_value": second["p_value"],
        "ties": second["ties"],
        "mean1": first["mean"],
        "ci1": first["ci"],
        "mean2": second["mean"],
        "ci2": second["ci"],
        "method": result["method"],
        "samples": result["samples"],
        "seed": result["seed"],
        "count_ties": result["count_ties"],
        "signature": result["signature"],
    }


# The test's settings (beside the scoring options).
SETTINGS = ("method", "bootstrap_samples", "trials", "seed", "count_ties", "samples", "confidence_samples")


def _check_settings(kwargs: Dict[str, Any], evaluate_settings: Optional[Dict[str, Any]] = None) -> None:
    unknown = sorted(set(kwargs) - set(SETTINGS) - set(OPTION_NAMES))
    if unknown:
        if evaluate_settings is not None:  # at load time
            raise TypeError(f"evaluate.load(...) got unknown keyword(s) {unknown}; at load time the comparison takes "
                            f"{list(SETTINGS + OPTION_NAMES)} (they become its defaults) and evaluate's own "
                            f"{list(init_keywords(evaluate.EvaluationModule))}")
        raise TypeError(f"unknown option(s) {unknown}; the comparison takes {list(SETTINGS + OPTION_NAMES)} "
                        f"(sacreBLEU's names {sorted(SACREBLEU_OPTION_NAMES)} work too)")
    check_compare_options(
        kwargs.get("method", "bootstrap"), {name: kwargs.get(name) for name in COUNT_NAMES},
        kwargs.get("seed", DEFAULT_BOOTSTRAP_SEED), {k: v for k, v in kwargs.items() if k in OPTION_NAMES},
        kwargs.get("count_ties", False),
    )


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BleuComparison(evaluate.Comparison):
    """Paired significance test of two systems' BLEU, sacreBLEU's test, offline."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """`evaluate.load(path, module_type="comparison", method="ar", smooth="exp", ...)`: the test's
        settings and scoring options given at load time become its defaults (`default_options`),
        checked now; an unknown keyword is an error, never dropped."""
        settings, defaults = split_load_keywords(kwargs, evaluate.EvaluationModule)
        _check_settings(defaults, evaluate_settings=settings)
        self.default_options = defaults
        super().__init__(*args, **settings)

    def _info(self) -> evaluate.ComparisonInfo:
        return evaluate.ComparisonInfo(
            module_type="comparison",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_features(),
            codebase_urls=["https://github.com/mjpost/sacrebleu"],
            reference_urls=["https://aclanthology.org/W04-3250", "https://aclanthology.org/W05-0908"],
        )

    def compute(self, *, predictions1=None, predictions2=None, references=None, **kwargs) -> Optional[Dict[str, Any]]:
        """Check the inputs and options as the user gave them, then run the test.

        Checking happens before `evaluate` casts the inputs to the declared features, so a
        malformed input gets an error that names it instead of a silently different result.
        """
        kwargs = {**self.default_options, **canonical_options(kwargs)}
        _check_settings(kwargs)
        given = (predictions1, predictions2, references)
        if all(value is not None for value in given) and self.num_process == 1 and self.writer is None:
            # All the data in this call: test it directly (evaluate's Arrow cache would only copy it).
            return _pair(compare({"predictions1": predictions1, "predictions2": predictions2}, references, **kwargs))
        if any(value is not None for value in given):
            check_systems({"predictions1": predictions1, "predictions2": predictions2}, references)
        return super().compute(predictions1=predictions1, predictions2=predictions2, references=references, **kwargs)

    def add_batch(self, *, predictions1=None, predictions2=None, references=None, **kwargs) -> None:
        """Check one batch as the user gave it, then add it to the evaluation cache."""
        check_systems({"predictions1": predictions1, "predictions2": predictions2}, references)
        super().add_batch(predictions1=predictions1, predictions2=predictions2, references=references, **kwargs)

    def _compute(self, predictions1, predictions2, references, **kwargs) -> Dict[str, Any]:
        return _pair(compare({"predictions1": predictions1, "predictions2": predictions2}, references, **kwargs))

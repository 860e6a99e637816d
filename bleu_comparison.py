"""BLEU significance test of two systems as an `evaluate` comparison module.

Load it with `evaluate.load("path/to/bleu_comparison.py", module_type="comparison")` (or
`bleukit.load_comparison()`), then `compute(predictions1=..., predictions2=..., references=...)`.
Like the metric, this script is its card text, its features and a `_compute` that hands over to the
installed `bleukit` package (`bleukit.significance`); the import line's comment is evaluate's
install hint.
"""

import datasets
import evaluate
from bleukit.evaluate_module import BleuComparisonMethods  # From: bleukit

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


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BleuComparison(BleuComparisonMethods, evaluate.Comparison):
    """Paired significance test of two systems' BLEU, sacreBLEU's test, offline."""

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

    def _compute(self, predictions1, predictions2, references, **kwargs):
        return self.compare_from_cache(predictions1, predictions2, references, **kwargs)

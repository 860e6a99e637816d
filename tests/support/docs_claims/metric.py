"""docs/metric.md's claims: the worked example, the intervals, WMT17's uedin-nmt, the smoothing comments."""

from __future__ import annotations

from typing import List

from docs_numbers import REPO, Claim

from .common import CAT, REFERENCE, WMT17_SYSTEMS, Code, fractions


CLAIMS: List[Claim] = [
    Claim("docs/metric.md", "has modified precisions {}/{}, {}/{}, {}/{} and {}/{}", lambda code: fractions(worked_example(code))),
    Claim("docs/metric.md", "reference, so three `the`s clip to {}). c = {}, the closest reference has {} words, BP = {}, and",
          lambda code: [max(r.split().count("the") for r in CAT), (r := worked_example(code))["translation_length"],
                        r["reference_length"], r["brevity_penalty"]]),
    Claim("docs/metric.md", "BLEU = ({}/{} · {}/{} · {}/{} · {}/{})^¼ = {} (as `compute` prints it)",
          lambda code: [*fractions(r := worked_example(code)), r["bleu"]]),
    Claim("docs/metric.md", "for about the same interval ({_}–{_} and {}–{})",
          lambda code: [(r := code.compute(list(code.lines("uedin-nmt.4722.de"))[:500],
                                                        list(code.lines(REFERENCE))[:500],
                                                        bootstrap_samples=200))["bleu_ci_low"], r["bleu_ci_high"]]),
    Claim("docs/metric.md", "for about the same interval ({}–{} and {_}–{_})", lambda code: scipy_interval(code), slow=True),
    Claim("docs/metric.md", "uedin-nmt: {} on the 0–100 scale, `bleu = {}` here (the test suite checks all {} systems",
          lambda code: [100 * code.system("uedin-nmt.4722.de", smooth="exp")["bleu"],
                        code.system("uedin-nmt.4722.de")["bleu"], len(WMT17_SYSTEMS)]),
    Claim("docs/metric.md", "# bleu {}: no bigram matches",
          lambda code: [code.compute(["the the the the the the the the"], [CAT], tokenizer="none")["bleu"]]),
    Claim("docs/metric.md", "# current NLTK's method7; {} without smoothing",
          lambda code: [code.compute(["you are ready ?"], [["are you ready ?"]], tokenizer="none")["bleu"]]),
    Claim("docs/metric.md", "the closest reference has {} tokens, so `length_ratio` is {} and `reference_length` {}, as",
          lambda code: [(r := code.compute(["A bold, full-flavored coffee with a slightly bitter aftertaste."],
                                           [["A bold, flavorful coffee with a slightly bitter aftertaste.",
                                             "A rich, full-bodied coffee with a smooth finish."]]))["reference_length"],
                        r["length_ratio"], r["reference_length"]]),
]


def worked_example(code: Code) -> dict:
    return code.compute(["the cat the cat on the mat"], [CAT], tokenizer="none")


def scipy_interval(code: Code) -> List[float]:
    """bench/evaluator_bootstrap.py's scipy interval: evaluate's evaluator, strategy="bootstrap", on the
    first 500 segments of uedin-nmt (about a minute on 2 cores)."""
    import warnings

    import evaluate
    import numpy as np
    from evaluate.evaluator import TranslationEvaluator

    metric = evaluate.load(str(REPO / "bleu_metric.py"), with_signature=False)
    evaluator = TranslationEvaluator.__new__(TranslationEvaluator)
    inputs = {"predictions": list(code.lines("uedin-nmt.4722.de"))[:500], "references": list(code.lines(REFERENCE))[:500]}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        result = evaluator.compute_metric(metric, inputs, strategy="bootstrap", n_resamples=200, random_state=0)
    return list(result["bleu"]["confidence_interval"])

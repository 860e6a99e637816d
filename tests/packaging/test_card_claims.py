"""The claims of the card (README.md) and the manual (docs/), each checked on the example that once
contradicted it (issue 11, item 9).

Each number has its oracle beside it: sacreBLEU, NLTK or bleuscore (evaluate's legacy `bleu`).
"""

from __future__ import annotations

import pytest
import sacrebleu
from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu

from bleukit.core import compute_bleu


def test_scores_above_1_with_floor_and_method1_values_above_1():
    # README, Limitations: a smoothing value above 1 makes a smoothed precision above 1.
    ours = compute_bleu(["a a"], [["a"]], tokenizer="none", max_order=2, smooth="floor", smooth_value=7)
    sacre = sacrebleu.metrics.BLEU(tokenize="none", max_ngram_order=2, smooth_method="floor", smooth_value=7)
    assert ours["bleu"] == pytest.approx(sacre.corpus_score(["a a"], [["a"]]).score / 100, rel=1e-12)
    assert ours["bleu"] == pytest.approx(1.8708286933869707, rel=1e-12)
    method1 = compute_bleu(["a a"], [["a"]], tokenizer="none", max_order=2, smooth="method1", smooth_value=7)
    nltk = corpus_bleu([[["a"]]], [["a", "a"]], weights=(0.5, 0.5), smoothing_function=SmoothingFunction(epsilon=7).method1)
    assert method1["bleu"] == pytest.approx(nltk, rel=1e-12) == pytest.approx(1.8708286933869707, rel=1e-12)


def test_scores_above_1_with_method4_small_k_and_method6_default_alpha():
    ours = compute_bleu(["a b c x"], [["a b c d"]], tokenizer="none", smooth="method4", smooth_value=0.1)["bleu"]
    nltk = corpus_bleu([[["a", "b", "c", "d"]]], [["a", "b", "c", "x"]], smoothing_function=SmoothingFunction(k=0.1).method4)
    assert ours == pytest.approx(nltk, rel=1e-12) == pytest.approx(1.147337972816676, rel=1e-12)
    hypothesis, references = "a b c d e a", ["a b c d", "b c d e a"]
    ours = compute_bleu([hypothesis], [references], tokenizer="none", smooth="method6")["bleu"]
    nltk = corpus_bleu([[r.split() for r in references]], [hypothesis.split()], smoothing_function=SmoothingFunction().method6)
    assert ours == pytest.approx(nltk, rel=1e-12) == pytest.approx(1.015073553943278, rel=1e-12)


def test_shortest_reference_length_differs_from_legacy_on_a_trailing_hyphen_and_newline():
    """The legacy 13a does not strip trailing whitespace and deletes '-\\n' (mteval's line-break join),
    so its reference 'r-\\n' becomes 'r'; this module (as sacreBLEU) strips first and keeps 'r-'."""
    import bleuscore

    legacy = bleuscore.compute(predictions=["r"], references=[["r-\n"]], max_order=1, smooth=False)
    ours = compute_bleu(["r"], [["r-\n"]], ref_length="shortest", max_order=1)
    assert (legacy["precisions"], ours["precisions"]) == ([1.0], [0.0])
    assert ours["bleu"] == sacrebleu.corpus_bleu(["r"], [["r-\n"]], force=True).score / 100 == 0.0
    # Without the newline both agree.
    legacy = bleuscore.compute(predictions=["r"], references=[["r-"]], max_order=1, smooth=False)
    assert compute_bleu(["r"], [["r-"]], ref_length="shortest", max_order=1)["precisions"] == legacy["precisions"] == [0.0]


def test_nltk_method4_uses_corpus_hypothesis_length_and_method6_differs_through_the_last_hypothesis():
    hypotheses, references = ["a b c x y", "p q r s t u v w"], [["a b c d e"], ["p q z s t u v z"]]
    nltk_refs, nltk_hyps = [[r.split() for r in group] for group in references], [h.split() for h in hypotheses]
    method4 = corpus_bleu(nltk_refs, nltk_hyps, smoothing_function=SmoothingFunction().method4)
    assert compute_bleu(hypotheses, references, tokenizer="none", smooth="method4")["bleu"] == pytest.approx(
        method4, rel=1e-12) == pytest.approx(0.3661926362999429, rel=1e-12)
    method6 = corpus_bleu(nltk_refs, nltk_hyps, smoothing_function=SmoothingFunction().method6)
    ours = compute_bleu(hypotheses, references, tokenizer="none", smooth="method6")["bleu"]
    assert method6 == pytest.approx(0.4802005876206782, rel=1e-12) and ours == pytest.approx(0.40125120256279256, rel=1e-12)


def test_huge_weights_that_overflow_get_a_value_error():
    with pytest.raises(OverflowError):  # NLTK, the oracle: math.exp overflows
        corpus_bleu([[list("abcdef")]], [list("abcdef")], weights=[2000.0] * 4,
                    smoothing_function=SmoothingFunction().method5)
    with pytest.raises(ValueError, match="beyond the largest float.*weights that sum to 1"):
        compute_bleu(["a b c d e f"], [["a b c d e f"]], tokenizer="none", weights=[2000.0] * 4, smooth="method5")
    with pytest.raises(ValueError, match="beyond the largest float"):
        compute_bleu(["a b c d e f"], [["a b c d e f"]], tokenizer="none", weights=[2000.0] * 4, smooth="method5",
                     return_sentence_scores=True)
    # Large weights whose score fits stay a finite float; with precisions <= 1 they only shrink it.
    big = compute_bleu(["a b c d e f"], [["a b c d e f"]], tokenizer="none", weights=[200.0] * 4, smooth="method5")
    assert big["bleu"] == pytest.approx(2.311349240193915e38, rel=1e-9)
    assert compute_bleu(["a b c x"], [["a b c d"]], tokenizer="none", weights=[2000.0] * 4)["bleu"] == 0.0


def test_nltk_method6_raises_index_error_below_order_3_where_this_module_is_unsmoothed():
    hypothesis, references = "a b c d e a".split(), ["a b c d".split(), "b c d e a".split()]
    with pytest.raises(IndexError):
        corpus_bleu([references], [hypothesis], weights=(0.5, 0.5), smoothing_function=SmoothingFunction().method6)
    ours = compute_bleu([" ".join(hypothesis)], [[" ".join(r) for r in references]], tokenizer="none", max_order=2,
                        smooth="method6")["bleu"]
    unsmoothed = corpus_bleu([references], [hypothesis], weights=(0.5, 0.5))
    assert ours == pytest.approx(unsmoothed, rel=1e-12) == pytest.approx(0.9128709291752769, rel=1e-12)


def test_the_card_states_what_the_tests_above_show():
    """Each claim on the page where it now lives (the card, README.md, or a docs/ page)."""
    from conftest import REPO

    def page(name: str) -> str:
        return " ".join((REPO / name).read_text(encoding="utf-8").split())

    for name, claim in [
        ("README.md", "`\"floor\"` and `\"method1\"` with a `smooth_value` above 1"),
        ("README.md", "`\"method6\"` at its default alpha"),
        ("README.md", "`\"method4\"` with a small k"),
        ("docs/differences.md", "its reference `r-\\n` is `r`"),
        ("docs/differences.md", "its method 4 takes the corpus hypothesis length"),
        ("docs/differences.md", "IndexError when max_order < 3"),
        ("README.md", "get a `ValueError` that says so"),
    ]:
        assert claim in page(name), (name, claim)
    pages = ["README.md", *(f"docs/{path.name}" for path in sorted((REPO / "docs").glob("*.md")))]
    everything = " ".join(page(name) for name in pages)
    assert "every other setting stays within 0 to 1" not in everything
    assert "its methods 4–7 use only the last hypothesis" not in everything


def test_the_manuals_worked_numbers_are_the_ones_the_code_prints():
    """docs/metric.md's worked example said 0.4671379777282001 and docs/differences.md 0.3265309055565624
    for this module, which prints ...20015 and ...56233: every digit quoted is the printed repr."""
    import re
    from pathlib import Path

    from nltk.translate.bleu_score import sentence_bleu

    docs = Path(__file__).resolve().parents[2] / "docs"
    metric, differences = (docs / "metric.md").read_text(encoding="utf-8"), (docs / "differences.md").read_text(encoding="utf-8")
    worked = compute_bleu(["the cat the cat on the mat"], [["the cat is on the mat", "there is a cat on the mat"]])
    assert re.search(r"\^¼ = ([0-9.]+)", metric).group(1) == repr(worked["bleu"])
    method7 = compute_bleu(["you are ready ?"], [["are you ready ?"]], tokenizer="none", smooth="method7")["bleu"]
    nltk = sentence_bleu([["are", "you", "ready", "?"]], ["you", "are", "ready", "?"],
                         smoothing_function=SmoothingFunction().method7)
    assert f"Current NLTK gives {nltk!r} and this module {method7!r}" in differences.replace("\n  ", " ")
    assert f"{method7!r}        # current NLTK's method7" in metric

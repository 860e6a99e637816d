"""Paired tests on near-identical systems: the p-values are sacreBLEU's exactly, and ties are reported.

When two systems differ in a few segments, many resamples or trials rebuild the observed
statistics and tie the observed difference; sacreBLEU's strict count leaves them out. Whether a
tie is a tie must not depend on the last bit of a logarithm: the oracle is sacreBLEU's own
`PairedTest` on the same systems with the same seed, and the p-values must be equal, not within a
trial. The number of ties is checked against the differences sacreBLEU itself computes.
"""

from __future__ import annotations

import logging
import random

import numpy as np
import pytest

import bleukit.significance.paired as bleu_significance
from bleukit.significance.compare import compare
from conftest import wmt17_lines
from synthetic_systems import checkpoints, random_sentence

ONE_SEGMENT = ({"A": ["sat the sat on cat a the sat"], "B": ["the sat mat mat the"]},
               ["on is is ran mat the mat cat dog"])


def sacrebleu_test(systems, reference, method, samples, smooth="exp", monkeypatch=None):
    """sacreBLEU's PairedTest on two or more systems and one reference stream: per system after the
    baseline, (p-value, ties), the ties counted in the very differences sacreBLEU compares."""
    import sacrebleu.significance as significance
    from sacrebleu.metrics import BLEU

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    compared = []
    original = significance._compute_p_value

    def recording(stats, real_difference):
        compared.append(int(np.sum(stats == real_difference)))
        return original(stats, real_difference)

    monkeypatch.setattr(significance, "_compute_p_value", recording)
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    metric = BLEU(references=[reference], smooth_method=smooth)
    _, scores = significance.PairedTest(list(systems.items()), {"BLEU": metric}, None, test_type=method,
                                        n_samples=samples)()
    return [(result.p_value, tied) for result, tied in zip(scores["BLEU"][1:], compared, strict=True)]


def ours(systems, reference, method, samples, smooth="exp", **kwargs):
    result = compare(systems, reference, method="bootstrap" if method == "bs" else "ar", samples=samples,
                     smooth=smooth, **kwargs)
    return [(system["p_value"], system["ties"]) for system in result["systems"][1:]]


def issue_pairs(count: int = 60):
    """The issue's reproduction: 60 random segments from a 40-word vocabulary; system B is system A
    with 1 to 6 segments drawn again."""
    vocabulary = [f"w{k}" for k in range(40)]
    for k in range(count):
        rng = random.Random(k)
        reference = [random_sentence(rng, vocabulary) for _ in range(60)]
        first = [random_sentence(rng, vocabulary) for _ in range(60)]
        second = list(first)
        for index in rng.sample(range(60), rng.randint(1, 6)):
            second[index] = random_sentence(rng, vocabulary)
        yield {"A": first, "B": second}, reference


def test_the_issues_sixty_pairs_equal_sacrebleu(monkeypatch):
    """AR with 2,000 trials and exp smoothing: in 2 of these 60 pairs the p-value was 1.0 where
    sacreBLEU's is about 0.5 (NumPy's log in the trials, the C library's in the observed difference)."""
    tied = 0
    for systems, reference in issue_pairs():
        expected = sacrebleu_test(systems, reference, "ar", 2000, monkeypatch=monkeypatch)
        assert ours(systems, reference, "ar", 2000) == expected
        tied += expected[0][1] > 0
    assert tied == 60  # every pair has trials that rebuild the observed split


@pytest.mark.parametrize("changed", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("smooth", ["exp", "none"])
@pytest.mark.parametrize("method,samples", [("ar", 3000), ("bs", 1000)])
def test_checkpoints_differing_in_a_few_segments_equal_sacrebleu(changed, smooth, method, samples, monkeypatch):
    for seed in range(3):
        systems, reference = checkpoints(changed, seed)
        expected = sacrebleu_test(systems, reference, method, samples, smooth, monkeypatch)
        assert ours(systems, reference, method, samples, smooth) == expected
        if changed == 0:  # identical systems: every statistic ties a difference of 0
            assert expected == [(1 / (samples + 1), samples)]
        if method == "ar" and changed:
            assert expected[0][1] > 0


def test_the_issues_one_segment_example(monkeypatch):
    """One segment: every trial either swaps it or not, so every trial ties the observed difference.
    sacreBLEU's strict count reports 0.0001; this module reported 1.0."""
    systems, reference = ONE_SEGMENT
    assert sacrebleu_test(systems, reference, "ar", 10000, monkeypatch=monkeypatch) == [(1 / 10001, 10000)]
    result = compare(systems, reference, method="ar", smooth="exp")
    assert (result["systems"][1]["p_value"], result["systems"][1]["ties"]) == (1 / 10001, 10000)
    conservative = compare(systems, reference, method="ar", smooth="exp", count_ties=True)
    assert conservative["systems"][1]["p_value"] == 1.0
    assert conservative["count_ties"] is True and "|test:ar|n:10000|ties:counted|seed:12345" in conservative["signature"]


def test_the_conservative_count_adds_the_ties():
    """AR on systems differing in two segments; the bootstrap on identical systems (its centred
    statistic ties only there: every resample's difference is 0, as is the observed one)."""
    for method, samples, changed in (("ar", 2000, 2), ("bs", 500, 0)):
        systems, reference = checkpoints(changed, seed=5)
        (strict, ties), = ours(systems, reference, method, samples)
        (conservative, same_ties), = ours(systems, reference, method, samples, count_ties=True)
        assert ties == same_ties and ties > 0
        assert round(conservative * (samples + 1)) == round(strict * (samples + 1)) + ties


def test_the_counts_do_not_depend_on_numpys_last_bits(monkeypatch):
    """Another CPU's NumPy may round its log and exp differently in the last place. Simulated here by
    moving every vectorised score by up to two units in the last place: the counts stay sacreBLEU's,
    because whatever such a difference could decide is recomputed with the C library's functions."""
    wobble = np.random.default_rng(0)
    original = bleu_significance.TestScorer.__call__

    def another_cpu(self, rows, resampled=False, libm=False):
        scores = original(self, rows, resampled, libm)
        if libm:
            return scores
        return scores * (1 + wobble.integers(-2, 3, size=scores.shape) * np.finfo(float).eps)

    pairs = [checkpoints(changed, seed=changed) for changed in (1, 2, 3, 6)] + [ONE_SEGMENT]
    expected = [(sacrebleu_test(s, r, "ar", 2000, monkeypatch=monkeypatch),
                 sacrebleu_test(s, r, "bs", 500, monkeypatch=monkeypatch)) for s, r in pairs]
    monkeypatch.setattr(bleu_significance.TestScorer, "__call__", another_cpu)
    for (systems, reference), (ar, bootstrap) in zip(pairs, expected):
        assert ours(systems, reference, "ar", 2000) == ar
        assert ours(systems, reference, "bs", 500) == bootstrap


def test_several_systems_near_and_far_from_the_baseline(monkeypatch):
    """Several systems in one call (they share the draws): each system's p-value and ties are those
    of sacreBLEU's test, near-identical and clearly different systems alike."""
    systems, reference = checkpoints(0, seed=9)
    base = systems["A"]
    rng = random.Random(3)
    variants = {"base": base}
    for changed in (1, 3, 40):
        lines = list(base)
        for index in rng.sample(range(len(base)), changed):
            lines[index] = " ".join(reversed(lines[index].split()))
        variants[f"changed {changed}"] = lines
    for method, samples in (("ar", 2000), ("bs", 1000)):
        assert ours(variants, reference, method, samples) == sacrebleu_test(variants, reference, method, samples,
                                                                            monkeypatch=monkeypatch)


@pytest.mark.parametrize("method,samples", [("ar", 1000), ("bs", 300)])
def test_wmt17_systems_and_a_near_copy_equal_sacrebleu(method, samples, monkeypatch):
    """WMT17 systems (different throughout) and a copy of the baseline with three segments replaced."""
    reference = wmt17_lines("newstest2017-ende.ref.de")[:600]
    baseline = wmt17_lines("online-B.0.de")[:600]
    near = list(baseline)
    other = wmt17_lines("uedin-nmt.4722.de")[:600]
    for index in (10, 200, 401):
        near[index] = other[index]
    systems = {"online-B": baseline, "near copy": near, "uedin": other, "KIT": wmt17_lines("KIT.4950.de")[:600]}
    assert ours(systems, reference, method, samples) == sacrebleu_test(systems, reference, method, samples,
                                                                       monkeypatch=monkeypatch)


def test_the_comparing_pages_example_numbers(monkeypatch):
    """docs/comparing.md: B is A with 6 (then 3) of 80 segments rewritten, AR with 10,000 trials."""
    for changed, strict, ties, conservative in ((6, 0.0679, 1838, 0.2517), (3, 0.4994, 5007, 1.0)):
        systems, reference = checkpoints(changed, 0)
        assert sacrebleu_test(systems, reference, "ar", 10000, monkeypatch=monkeypatch) == ours(
            systems, reference, "ar", 10000)
        (p_value, tied), = ours(systems, reference, "ar", 10000)
        (counted, _), = ours(systems, reference, "ar", 10000, count_ties=True)
        assert (round(p_value, 4), tied, round(counted, 4)) == (strict, ties, conservative)


@pytest.mark.parametrize("max_order", [1, 2, 4, 5])
@pytest.mark.parametrize("smooth,value", [("none", None), ("exp", None), ("floor", None), ("floor", 0.3),
                                          ("add-k", None), ("add-k", 0.5)])
@pytest.mark.parametrize("effective_order", [False, True])
def test_the_test_statistic_rounds_exactly_as_sacrebleus_score(max_order, smooth, value, effective_order):
    """sacrebleu_rows against sacreBLEU's own scoring of the same statistics, bit for bit: from Python
    integers (its observed scores), int64 rows (its AR trials) and float32 rows (its bootstrap
    resamples); NumPy's log and exp within 1e-12. Short, empty, unmatched and large rows included."""
    from sacrebleu.metrics import BLEU

    from bleukit.scoring import RESAMPLED_PRECISION_DTYPE, sacrebleu_rows

    rng = np.random.default_rng(max_order)
    count = 150
    hyp_len, ref_len = rng.integers(0, 60, count), rng.integers(0, 60, count)
    totals = np.maximum(hyp_len[:, None] - np.arange(max_order)[None, :], 0)
    totals[rng.random((count, max_order)) < 0.05] = 0
    matches = (totals * rng.random((count, max_order)) ** 2).astype(np.int64)
    matches[rng.random((count, max_order)) < 0.2] = 0
    large = np.where(rng.random(count) < 0.3, 997, 1)[:, None]  # corpus-sized sums
    stats = np.concatenate([hyp_len[:, None], ref_len[:, None], matches, totals], axis=1) * large
    metric = BLEU(max_ngram_order=max_order, smooth_method=smooth, smooth_value=value, effective_order=effective_order)
    for dtype, as_sacrebleu_has_it in ((np.float64, lambda row: row.tolist()), (np.float64, lambda row: row.copy()),
                                       (RESAMPLED_PRECISION_DTYPE, lambda row: row.astype(np.float32))):
        exact = sacrebleu_rows(stats, max_order, smooth, value, effective_order, dtype, libm=True)
        fast = sacrebleu_rows(stats, max_order, smooth, value, effective_order, dtype, libm=False)
        for row, mine in zip(stats, exact.tolist()):
            given = as_sacrebleu_has_it(row)
            if isinstance(given, np.ndarray) and given.dtype == np.int64 and smooth == "add-k" and value is not None:
                continue  # sacreBLEU's AR trials truncate a non-integer k into int64 counts
            assert mine == metric._compute_score_from_stats(given).score, (row, dtype)
        assert np.allclose(fast, exact, rtol=1e-12, atol=0)

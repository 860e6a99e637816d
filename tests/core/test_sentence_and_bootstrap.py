"""Per-segment scores and bootstrap confidence intervals, against sacreBLEU.

What is compared:
- `sentence_bleu` (compute(..., return_sentence_scores=True)) against sacreBLEU's
  `BLEU(...).sentence_score(h, [r])` for every segment, with smoothing and effective order:
  relative 1e-10 (same integer statistics; float formulas written independently).
- scoring many rows at once (`bleu_core.bleu_rows`, behind sentence scores and the bootstrap)
  against scoring each row alone (`bleu_core.score`), for every smoothing method.
- The bootstrap against sacreBLEU's `corpus_score(..., n_bootstrap=1000)`: with the same seed both
  draw the same resamples (numpy's default_rng(seed).choice), so the mean of the resample scores
  and the 95% half-width (sacreBLEU's `_mean`, `_ci`) must agree closely. sacreBLEU scores the
  resamples from float32 statistics (NumPy 2 keeps float32 through its arithmetic), so agreement
  is to 1e-6 relative, not to the last bit.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bleukit.core as bleu_core
import bleukit.resampling as resampling
from bleukit.options import resolve_options
from conftest import wmt17_lines

SMOOTHING = ["none", "floor", "add-k", "exp", True, "method1", "method2", "method3", "method4", "method5",
             "method6", "method7"]


@pytest.fixture(scope="module")
def wmt17_system():
    """The first 1,000 segments of one WMT17 system and the reference (skips without the data)."""
    hypotheses = wmt17_lines("uedin-nmt.4722.de")[:1000]
    references = wmt17_lines("newstest2017-ende.ref.de")[:1000]
    return hypotheses, references


def sacrebleu_sentences(hypotheses, references, smooth, effective_order, smooth_value=None):
    from sacrebleu.metrics import BLEU

    metric = BLEU(smooth_method=smooth, smooth_value=smooth_value, effective_order=effective_order)
    return [metric.sentence_score(h, [r]).score / 100 for h, r in zip(hypotheses, references)]


def assert_close_lists(ours, theirs, rel):
    assert len(ours) == len(theirs)
    for index, (a, b) in enumerate(zip(ours, theirs)):
        assert math.isclose(a, b, rel_tol=rel, abs_tol=0.0), (index, a, b)


@pytest.mark.parametrize(
    "smooth, smooth_value, effective_order",
    [("exp", None, True), ("floor", None, True), ("floor", 0.3, False), ("add-k", 2.0, True), ("none", None, False)],
)
def test_sentence_bleu_equals_sacrebleu_sentence_score_per_segment(bleu, wmt17_system, smooth, smooth_value,
                                                                    effective_order):
    hypotheses, references = wmt17_system
    result = bleu.compute(predictions=hypotheses, references=references, return_sentence_scores=True,
                          smooth=smooth, smooth_value=smooth_value, effective_order=effective_order)
    expected = sacrebleu_sentences(hypotheses, references, smooth, effective_order, smooth_value)
    assert_close_lists(result["sentence_bleu"], expected, 1e-10)
    # corpus BLEU is not their mean (counts are summed first), and the result says the corpus one
    assert not math.isclose(result["bleu"], sum(expected) / len(expected), rel_tol=1e-3)


words = st.sampled_from(["the", "cat", "sat", "on", "mat", "a", "dog", ".", ",", "3.5", "-"])
segment = st.lists(words, max_size=9).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(segment, segment), min_size=1, max_size=12),
       smooth=st.sampled_from(["exp", "floor", "add-k", "none"]), effective_order=st.booleans())
def test_sentence_bleu_equals_sacrebleu_on_generated_segments(bleu, pairs, smooth, effective_order):
    hypotheses, references = [h for h, _ in pairs], [r for _, r in pairs]
    result = bleu.compute(predictions=hypotheses, references=references, return_sentence_scores=True,
                          smooth=smooth, effective_order=effective_order)
    expected = sacrebleu_sentences(hypotheses, references, smooth, effective_order)
    assert_close_lists(result["sentence_bleu"], expected, 1e-10)


@pytest.mark.parametrize("smooth", SMOOTHING)
@pytest.mark.parametrize("effective_order", [False, True])
@pytest.mark.parametrize("shape", [{}, {"max_order": 2}, {"weights": [0.5, 0.5, 0.0, 0.0]}])
def test_many_rows_at_once_equal_one_row_at_a_time(wmt17_system, smooth, effective_order, shape):
    hypotheses, references = wmt17_system
    options = resolve_options(smooth=smooth, effective_order=effective_order, **shape)
    stats = bleu_core.segment_statistics(hypotheses[:300], [[r] for r in references[:300]], options)
    # plus an all-zero row, and rows with few matches (short and partial)
    stats = np.concatenate([stats, np.zeros((1, stats.shape[1]), np.int64), stats[:20] // 3])
    expected = [bleu_core.score(row, options).bleu for row in stats]
    assert_close_lists(bleu_core.bleu_rows(stats, options).tolist(), expected, 1e-12)


def test_bootstrap_agrees_with_sacrebleu_confidence(bleu, wmt17_system):
    from sacrebleu.metrics import BLEU

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    hypotheses, references = wmt17_system
    result = bleu.compute(predictions=hypotheses, references=references, bootstrap_samples=1000)
    theirs = BLEU().corpus_score(hypotheses, [references], n_bootstrap=1000)  # SACREBLEU_SEED: 12345
    assert math.isclose(result["bleu_bootstrap_mean"], theirs._mean / 100, rel_tol=1e-6)
    half_width = (result["bleu_ci_high"] - result["bleu_ci_low"]) / 2
    assert math.isclose(half_width, theirs._ci / 100, rel_tol=1e-5)
    assert result["bleu_ci_low"] < result["bleu"] < result["bleu_ci_high"]
    assert math.isclose(result["bleu"], theirs.score / 100, rel_tol=1e-10)


def test_bootstrap_seed_is_sacrebleus_seed(bleu, wmt17_system, monkeypatch):
    from sacrebleu.metrics import BLEU

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    hypotheses, references = wmt17_system
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    theirs = BLEU().corpus_score(hypotheses[:300], [references[:300]], n_bootstrap=200)
    ours = bleu.compute(predictions=hypotheses[:300], references=references[:300], bootstrap_samples=200,
                        bootstrap_seed=7)
    assert math.isclose(ours["bleu_bootstrap_mean"], theirs._mean / 100, rel_tol=1e-6)
    other = bleu.compute(predictions=hypotheses[:300], references=references[:300], bootstrap_samples=200,
                         bootstrap_seed=8)
    assert other["bleu_bootstrap_mean"] != ours["bleu_bootstrap_mean"]


def test_bootstrap_blocks_draw_the_same_resamples(monkeypatch):
    """Drawing a few resamples at a time continues the generator's stream exactly."""
    options = resolve_options()
    stats = np.random.default_rng(0).integers(0, 30, size=(257, 10))
    stats[:, 6:] += stats[:, 2:6]  # totals >= matches
    whole = bleu_core.bootstrap_scores(stats, options, 100, seed=3)
    monkeypatch.setattr(resampling, "_BOOTSTRAP_BLOCK", 257 * 3)  # 3 resamples per block
    assert bleu_core.bootstrap_scores(stats, options, 100, seed=3).tolist() == whole.tolist()
    # and they are sacreBLEU's draws: choice(n, (samples, n)) summed row by row
    draws = np.random.default_rng(3).choice(len(stats), size=(100, len(stats)), replace=True)
    expected = [bleu_core.score(stats[row].sum(axis=0), options).bleu for row in draws]
    assert_close_lists(whole.tolist(), expected, 1e-12)


@pytest.mark.parametrize("processes", [2, 3, 5])
def test_bootstrap_resamples_in_worker_processes_draw_sacrebleus_stream(monkeypatch, processes):
    """Issue 28: the resampling in worker processes. Each process replays the generator's stream
    and keeps its own blocks, so the sums are the one-process sums draw for draw (sacreBLEU's
    resamples), whichever process took which block, and the caller's generator ends where one
    process leaves it (an AR test's intervals draw on after its swap masks)."""
    monkeypatch.setattr(resampling, "_BOOTSTRAP_BLOCK", 257 * 7)  # 7 resamples per draw block
    stats = np.random.default_rng(5).integers(0, 40, size=(257, 10))
    stats[:, 6:] += stats[:, 2:6]
    one_rng, many_rng = np.random.default_rng(11), np.random.default_rng(11)
    one = resampling.bootstrap_sums(stats, 300, one_rng)
    many = resampling.bootstrap_sums(stats, 300, many_rng, num_workers=processes)
    assert many.dtype == np.int64 and np.array_equal(many, one)
    assert many_rng.bit_generator.state == one_rng.bit_generator.state
    assert many_rng.integers(0, 10**9) == one_rng.integers(0, 10**9)
    draws = np.random.default_rng(11).choice(len(stats), size=(300, len(stats)), replace=True)
    assert np.array_equal(one, np.stack([stats[row].sum(axis=0) for row in draws]))


def test_compute_and_compare_resample_in_their_workers(monkeypatch):
    """compute's interval and compare's paired bootstrap and AR intervals, with num_workers=2: the
    numbers of one process (the resampling forks once, besides the counting)."""
    import bleukit.counting.parallel as bleu_parallel
    from bleukit.core import compute_bleu
    from bleukit.significance.compare import compare

    monkeypatch.setattr(resampling, "DRAWS_PER_SEGMENT", 1)  # small inputs weigh enough to fork
    forks, original = [], bleu_parallel.forked_columns

    def recording(outputs, columns_of, processes, *private):
        forks.append(outputs[0][0])
        return original(outputs, columns_of, processes, *private)

    monkeypatch.setattr(bleu_parallel, "forked_columns", recording)
    hypotheses = [f"w{i % 7} w{i % 5} w{i % 3} w{i % 11} x" for i in range(600)]
    other = [f"w{i % 7} w{i % 4} w{i % 3} w{i % 13} x" for i in range(600)]
    references = [f"w{i % 7} w{i % 5} w{i % 2} w{i % 11} x" for i in range(600)]
    one = compute_bleu(hypotheses, references, bootstrap_samples=200, num_workers=1)
    assert compute_bleu(hypotheses, references, bootstrap_samples=200, num_workers=2) == one
    assert forks == [(600, 10), (200, 10)]  # the counting, then the resampling
    assert one["bleu_ci_low"] < one["bleu"] < one["bleu_ci_high"]
    for method, extra in (("bootstrap", {}), ("ar", {"confidence_samples": 100})):
        alone = compare({"base": hypotheses, "other": other}, references, method=method, samples=150,
                        num_workers=1, **extra)
        del forks[:]
        assert compare({"base": hypotheses, "other": other}, references, method=method, samples=150,
                       num_workers=2, **extra) == alone
        assert forks[1:] == ([(150, 20)] if method == "bootstrap" else [(100, 10), (100, 10)])

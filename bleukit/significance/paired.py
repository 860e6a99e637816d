"""sacreBLEU's paired significance tests on statistics rows: the draws, one test statistic, exact counts.

A test counts the resamples (bootstrap) or trials (approximate randomization) whose score
difference exceeds the observed one. When two systems differ in a few segments, many trials
rebuild the observed statistics exactly and so tie the observed difference; whether a tie counts
must not be decided by the last bit of a logarithm. So every score of a test, the observed
systems' and every resampled or randomized one, goes through one function (`TestScorer`), which
rounds exactly as sacreBLEU's own scoring does (see `bleukit.scoring.sacrebleu_rows`): what ties
there ties here, on any machine, and the counts are sacreBLEU's.

For speed the many resampled scores are first computed with NumPy's vectorised log and exp,
which differ from the C library's by a few units in the last place; any comparison that such a
difference could decide (within `RECHECK_MARGIN` of the observed difference) is recomputed with
the C library's, as sacreBLEU computes it, before it is counted. Ties are counted too: the
p-value is sacreBLEU's strict one by default, or the conservative one where ties count.

The draws are sacreBLEU's for the same seed (`numpy.random.default_rng(seed)`): every system
sees the same resamples, or the same swaps, as it does there, and all systems are resampled by
one matrix product per block of draws, in bounded memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, List, Optional, Tuple

import numpy as np

from bleukit.resampling import bootstrap_sums, confidence_interval, exact_float_dtype
from bleukit.options import BleuOptions
from bleukit.scoring import RESAMPLED_PRECISION_DTYPE, sacrebleu_arithmetic, sacrebleu_rows, score_rows

# NumPy's log and exp are within a few units in the last place of the C library's (about 1e-15
# relative, measured up to 5 units); a difference within this fraction of the largest score of
# the comparison from the observed difference is recomputed with the C library's before it counts.
RECHECK_MARGIN = 1e-9
# Swap masks are drawn in blocks of about this many bits (a block is a multiple of 32 trials).
_MASK_BLOCK_BITS = 1 << 22


@dataclass(frozen=True)
class TestScorer:
    """The one function that scores every statistic of a test: the observed systems' totals and
    each resample's or trial's.

    With options sacreBLEU has (uniform weights; none, floor, add-k or exp smoothing) the scores
    are sacreBLEU's own, on its 0-100 scale (`scale` 100); with others (weights, Chen & Cherry's
    methods, add-one) this module's `score_rows`, on 0-1. `resampled`: the rows are bootstrap
    resamples, whose precisions sacreBLEU computes in float32 (`RESAMPLED_PRECISION_DTYPE`).
    `libm`: the C library's log and exp (as sacreBLEU) instead of NumPy's.
    """

    options: BleuOptions

    @property
    def as_sacrebleu(self) -> bool:
        return sacrebleu_arithmetic(self.options.max_order, self.options.weights, self.options.smooth)

    @property
    def scale(self) -> float:
        return 100.0 if self.as_sacrebleu else 1.0

    def __call__(self, rows: np.ndarray, resampled: bool = False, libm: bool = False) -> np.ndarray:
        o = self.options
        if self.as_sacrebleu:
            dtype = RESAMPLED_PRECISION_DTYPE if resampled else np.float64
            return sacrebleu_rows(rows, o.max_order, o.smooth, o.smooth_value, o.effective_order, dtype, libm)
        return score_rows(rows, o.max_order, o.weights, o.smooth, o.smooth_value, o.effective_order, libm=libm).bleu

    def exact(self, rows: np.ndarray, resampled: bool = False) -> np.ndarray:
        """The C library's scores of `rows`, each distinct row scored once (rows that rebuild the
        observed statistics repeat many times)."""
        distinct, inverse = np.unique(np.atleast_2d(rows), axis=0, return_inverse=True)
        return self(distinct, resampled, libm=True)[inverse.ravel()]

    def observed_differences(self, stats: List[np.ndarray]) -> np.ndarray:
        """|system - baseline| of the corpus scores, per system after the baseline (sacreBLEU's
        statistic: the C library's log and exp, float64 precisions)."""
        scores = self.exact(np.stack([rows.sum(axis=0) for rows in stats]))
        return np.abs(scores[1:] - scores[0])


@dataclass
class TestCounts:
    """Per system after the baseline: resamples or trials beyond the observed difference, and
    ties (exactly equal to it)."""

    beyond: np.ndarray
    ties: np.ndarray

    def p_values(self, samples: int, count_ties: bool) -> List[Optional[float]]:
        """None for the baseline, then per system (count + 1) / (samples + 1); the count is the
        trials beyond the observed difference, plus the ties when `count_ties` (the conservative
        convention of Noreen 1989 and Riezler & Maxwell 2005). The +1 keeps a test from claiming
        more than its trials can show."""
        count = self.beyond + (self.ties if count_ties else 0)
        return [None] + ((count + 1) / (samples + 1)).tolist()


def swap_masks(rng: np.random.Generator, samples: int, count: int) -> Iterator[np.ndarray]:
    """sacreBLEU's swap masks, `rng.integers(2, size=(samples, count), dtype=bool)`, in blocks.

    NumPy fills a boolean array from 32-bit words, one bit per element, lowest bit first; the same
    words as bytes (`rng.bytes`) unpacked little-endian give the same mask, far faster. A block is
    a multiple of 32 trials so that it ends on a word boundary, and the last block draws the same
    partial word, so the generator is left exactly where sacreBLEU's is.
    """
    per_block = max(32, (_MASK_BLOCK_BITS // max(count, 1)) // 32 * 32)
    for start in range(0, samples, per_block):
        block = min(per_block, samples - start)
        bits = block * count
        words = -(-bits // 32)
        raw = np.frombuffer(rng.bytes(4 * words), dtype=np.uint8)
        yield np.unpackbits(raw, bitorder="little", count=bits).reshape(block, count)


def confidence(scores: np.ndarray, scale: float) -> Tuple[float, float]:
    """Mean and half-width of the 95% interval of resampled scores (as sacreBLEU reports them),
    from the test's scale to 0-1."""
    interval = confidence_interval(scores)
    half = 0.5 * (interval["bleu_ci_high"] - interval["bleu_ci_low"])
    return interval["bleu_bootstrap_mean"] / scale, half / scale


def _tolerance(baseline: np.ndarray, system: np.ndarray) -> float:
    """How far NumPy's log and exp could move a (centred) difference of these scores, generously."""
    return RECHECK_MARGIN * max(float(np.abs(baseline).max(initial=0.0)), float(np.abs(system).max(initial=0.0)))


def _centred_counts(baseline: np.ndarray, system: np.ndarray, observed: float, exact: bool) -> Optional[Tuple[int, int]]:
    """Resamples whose centred difference, |system - baseline| minus its mean over the resamples,
    exceeds the observed difference, and ties; None when NumPy's scores cannot decide it."""
    differences = np.abs(system - baseline)
    centred = differences - differences.mean()
    if not exact and np.any(np.abs(centred - observed) <= _tolerance(baseline, system)):
        return None
    ties = int(np.count_nonzero(centred == observed)) if exact else 0
    return int(np.count_nonzero(centred > observed)), ties


def bootstrap_test(
    stats: List[np.ndarray], scorer: TestScorer, samples: int, seed: Optional[int], num_workers: Any = 1
) -> Tuple[TestCounts, List[Tuple[float, float]]]:
    """Paired bootstrap: the same resamples for every system (sacreBLEU re-seeds per system),
    resampled in `num_workers` processes (`bleukit.resampling.bootstrap_sums`).

    Returns the counts and each system's bootstrap mean and half-width of the 95% interval.
    """
    width, systems = stats[0].shape[1], len(stats)
    sums = bootstrap_sums(np.concatenate(stats, axis=1), samples, np.random.default_rng(seed), num_workers)
    sums = sums.reshape(samples, systems, width)
    scores = scorer(sums.reshape(-1, width), resampled=True).reshape(samples, systems)
    observed = scorer.observed_differences(stats)
    beyond, ties, exact_baseline = [], [], None
    for k in range(1, systems):
        counts = _centred_counts(scores[:, 0], scores[:, k], float(observed[k - 1]), exact=False)
        if counts is None:
            if exact_baseline is None:
                exact_baseline = scorer.exact(sums[:, 0], resampled=True)
            exact_system = scorer.exact(sums[:, k], resampled=True)
            counts = _centred_counts(exact_baseline, exact_system, float(observed[k - 1]), exact=True)
        beyond.append(counts[0])
        ties.append(counts[1])
    intervals = [confidence(scores[:, k], scorer.scale) for k in range(systems)]
    return TestCounts(np.array(beyond, dtype=np.int64), np.array(ties, dtype=np.int64)), intervals


def randomization_test(
    stats: List[np.ndarray], scorer: TestScorer, samples: int, seed: Optional[int]
) -> Tuple[TestCounts, np.random.Generator]:
    """Approximate randomization: the same swaps for every system (sacreBLEU re-seeds per system).

    A trial's first pseudo-system takes the baseline's rows where the mask is set and the system's
    elsewhere: system total + mask @ (baseline - system); the second gets the rest of both totals.
    Returns the counts and the generator, left where sacreBLEU's is after the masks.
    """
    baseline, others = stats[0], stats[1:]
    width, systems = baseline.shape[1], len(others)
    differences = np.concatenate([baseline - system for system in others], axis=1)
    dtype = exact_float_dtype(float(np.abs(differences).sum(axis=0).max(initial=0)))
    differences = differences.astype(dtype)
    system_totals = np.concatenate([system.sum(axis=0) for system in others])
    both_totals = np.tile(baseline.sum(axis=0), systems) + system_totals
    observed = scorer.observed_differences(stats)
    rng = np.random.default_rng(seed)
    beyond = np.zeros(systems, dtype=np.int64)
    ties = np.zeros(systems, dtype=np.int64)
    for mask in swap_masks(rng, samples, len(baseline)):
        first = system_totals + np.rint(mask.astype(dtype) @ differences).astype(np.int64)
        second = both_totals - first
        scores = scorer(np.concatenate([first, second]).reshape(-1, width)).reshape(2, len(mask), systems)
        trial_differences = np.abs(scores[0] - scores[1])
        near = np.abs(trial_differences - observed) <= RECHECK_MARGIN * np.abs(scores).max(axis=(0, 1))
        beyond += np.count_nonzero((trial_differences > observed) & ~near, axis=0)
        if near.any():  # decided by the C library's scores, as in sacreBLEU
            trials, system = np.nonzero(near)
            exact = np.abs(scorer.exact(first.reshape(len(mask), systems, width)[trials, system])
                           - scorer.exact(second.reshape(len(mask), systems, width)[trials, system]))
            beyond += np.bincount(system, weights=exact > observed[system], minlength=systems).astype(np.int64)
            ties += np.bincount(system, weights=exact == observed[system], minlength=systems).astype(np.int64)
    return TestCounts(beyond, ties), rng


def bootstrap_intervals(
    stats: List[np.ndarray], scorer: TestScorer, samples: int, seed: Optional[int], rng: np.random.Generator,
    num_workers: Any = 1,
) -> List[Tuple[float, float]]:
    """Each system's bootstrap mean and interval beside an AR test, drawn as sacreBLEU draws them:
    the baseline's resamples from a fresh generator, each system's from its test's generator after
    the swap masks (the same for every system)."""
    width = stats[0].shape[1]
    baseline_sums = bootstrap_sums(stats[0], samples, np.random.default_rng(seed), num_workers)
    system_sums = bootstrap_sums(np.concatenate(stats[1:], axis=1), samples, rng, num_workers)
    scores = scorer(np.concatenate([baseline_sums, system_sums.reshape(-1, width)]), resampled=True)
    per_system = np.concatenate([scores[:samples, None], scores[samples:].reshape(samples, -1)], axis=1)
    return [confidence(per_system[:, k], scorer.scale) for k in range(len(stats))]

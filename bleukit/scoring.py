"""From sufficient statistics to a BLEU score: precisions, smoothing, brevity penalty.

Everything here works on statistics rows (see `bleukit.counting.stats`): a segment's, a batch's, a
bootstrap resample's or a whole corpus's sum, many rows at once as NumPy arrays. The formulas live
only here; corpus scores (`score_statistics`, one row), sentence scores and bootstrap resamples
(`score_rows`, many rows) all come through the same code.

BLEU = BP * exp(sum_n w_n * log p_n), with BP = 1 if c >= r, exp(1 - r / c) if 0 < c < r, and
0 if c = 0 (c: hypothesis length, r: effective reference length). A zero precision on an order
with positive weight makes BLEU 0 (sacreBLEU's convention; the log of 0 is taken as -infinity).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from bleukit.counting.stats import HYP_LEN, REF_LEN, matches_of, totals_of

# Smoothing names and their default value (None: the method takes no value).
SACREBLEU_SMOOTHING = {"none": None, "floor": 0.1, "add-k": 1.0, "exp": None}
CHEN_CHERRY_SMOOTHING = {
    "method1": 0.1,  # epsilon
    "method2": None,
    "method3": None,
    "method4": 5.0,  # k
    "method5": None,
    "method6": 5.0,  # alpha
    "method7": 5.0,  # k, through method 4
}
LEGACY_ADD_ONE = "add-one"  # `smooth=True` in evaluate's legacy `bleu` (tensorflow/nmt)
SMOOTHING_DEFAULTS: Dict[str, Optional[float]] = {
    **SACREBLEU_SMOOTHING,
    **CHEN_CHERRY_SMOOTHING,
    LEGACY_ADD_ONE: None,
}
# Methods that look one order beyond max_order (method 5 averages with the next order).
NEEDS_NEXT_ORDER = frozenset({"method5", "method7"})


def statistics_orders(max_order: int, smooth: str) -> int:
    """How many n-gram orders the statistics must count for this max_order and smoothing."""
    return max_order + 1 if smooth in NEEDS_NEXT_ORDER else max_order


def _elementwise(function, values: np.ndarray) -> np.ndarray:
    """Apply math.exp or math.log per element: NumPy's vectorised exp and log may differ from the C
    library's in the last bit, and sacreBLEU and NLTK use the C library's."""
    return np.fromiter(map(function, values.ravel().tolist()), dtype=np.float64, count=values.size).reshape(values.shape)


def brevity_penalties(hyp_len: np.ndarray, ref_len: np.ndarray, libm: bool = True) -> np.ndarray:
    """Per row: 1 when the hypothesis is at least as long as the reference, exp(1 - r/c) below, 0 when empty.

    `libm=False`: NumPy's vectorised exp (see `score_rows`)."""
    hyp_len = np.asarray(hyp_len, dtype=np.float64)
    ref_len = np.asarray(ref_len, dtype=np.float64)
    shorter = (hyp_len < ref_len) & (hyp_len > 0)
    penalty = np.where(hyp_len >= ref_len, 1.0, 0.0)
    exponents = 1.0 - ref_len[shorter] / hyp_len[shorter]
    penalty[shorter] = _elementwise(math.exp, exponents) if libm else np.exp(exponents)
    return penalty


def brevity_penalty(hyp_len: int, ref_len: int) -> float:
    """The brevity penalty of one hypothesis length against one effective reference length."""
    return float(brevity_penalties(np.array([hyp_len]), np.array([ref_len]))[0])


@dataclass(frozen=True)
class BleuScore:
    """A score with everything that produced it."""

    bleu: float
    precisions: List[float]
    brevity_penalty: float
    length_ratio: float
    translation_length: int
    reference_length: int
    matches: List[int]
    totals: List[int]

    def as_dict(self) -> Dict[str, object]:
        """The six documented keys of the metric's result."""
        return {
            "bleu": self.bleu,
            "precisions": list(self.precisions),
            "brevity_penalty": self.brevity_penalty,
            "length_ratio": self.length_ratio,
            "translation_length": self.translation_length,
            "reference_length": self.reference_length,
        }


@dataclass(frozen=True)
class RowScores:
    """BLEU of many statistics rows at once (segments, batches or bootstrap resamples)."""

    bleu: np.ndarray  # (rows,)
    precisions: np.ndarray  # (rows, max_order)
    brevity_penalty: np.ndarray  # (rows,)
    length_ratio: np.ndarray  # (rows,)


def _smoothed_precisions(
    matches: np.ndarray, totals: np.ndarray, smooth: str, value: Optional[float], hyp_len: np.ndarray,
    next_precision: np.ndarray,
) -> Tuple[np.ndarray, np.ndarray]:
    """Precisions per row and order after smoothing, and per row how many orders have n-grams.

    Orders from the first one without hypothesis n-grams on stay at 0; with `effective_order`
    the caller leaves them out of the mean.
    """
    rows, max_order = matches.shape
    order = np.arange(max_order)
    if smooth == LEGACY_ADD_ONE:
        # tensorflow/nmt: (m + 1) / (t + 1) on every order, unigrams included.
        return (matches + 1.0) / (totals + 1.0), (totals > 0).sum(axis=1)
    if smooth in ("add-k", "method2"):
        added = value if smooth == "add-k" else 1.0
        matches, totals = matches.copy(), totals.copy()
        matches[:, 1:] += added
        totals[:, 1:] += added
    available = np.cumprod(totals > 0, axis=1).sum(axis=1)
    counted = order[None, :] < available[:, None]
    matched = counted & (matches > 0)
    unmatched = counted & ~matched
    precisions = np.zeros((rows, max_order))
    precisions[matched] = matches[matched] / totals[matched]
    # The exponential decay of mteval's smoothing (sacreBLEU exp, Chen & Cherry 3 and 4): the
    # k-th order without a match gets 1 / 2^k of a match.
    halvings = np.cumsum(unmatched, axis=1)
    if smooth in ("exp", "method3"):
        precisions[unmatched] = 1.0 / (2.0 ** halvings[unmatched] * totals[unmatched])
    elif smooth in ("floor", "method1"):
        precisions[unmatched] = value / totals[unmatched]
    elif smooth in ("method4", "method7"):
        decayed = unmatched & (hyp_len[:, None] > 1)
        log_length = np.log(np.broadcast_to(hyp_len[:, None], decayed.shape)[decayed])
        precisions[decayed] = 1.0 / (2.0 ** halvings[decayed] * value / log_length) / totals[decayed]
    if smooth in ("method5", "method7"):
        # Average each order with its smoothed predecessor and its (unsmoothed) successor; the
        # successor of the last order is order max_order + 1, counted only when all orders are.
        following = np.concatenate(
            [precisions[:, 1:], np.where(available == max_order, next_precision, 0.0)[:, None]], axis=1
        )
        previous = precisions[:, 0] + 1.0
        for n in range(max_order):
            averaged = (previous + precisions[:, n] + following[:, n]) / 3.0
            precisions[:, n] = np.where(counted[:, n], averaged, precisions[:, n])
            previous = precisions[:, n]
    elif smooth == "method6":
        # Interpolate with the geometric extrapolation p_{n-1}^2 / p_{n-2}, from trigrams on.
        for n in range(2, max_order):
            before_last = precisions[:, n - 2]
            safe = np.where(before_last == 0, 1.0, before_last)
            extrapolated = np.where(before_last == 0, 0.0, precisions[:, n - 1] ** 2 / safe)
            interpolated = (matches[:, n] + value * extrapolated) / (totals[:, n] + value)
            precisions[:, n] = np.where(counted[:, n], interpolated, precisions[:, n])
    return precisions, available


def _row_weights(weights: Sequence[float], used: np.ndarray) -> np.ndarray:
    """Per row, the weights of its first `used` orders, rescaled to keep their total (effective order)."""
    weights = np.asarray(weights, dtype=np.float64)
    if np.all(used == len(weights)):  # every order used (always, without effective order)
        return np.broadcast_to(weights, (len(used), len(weights)))
    kept = np.concatenate([[0.0], np.cumsum(weights)])[used][:, None]
    full = np.broadcast_to(weights, (len(used), len(weights)))
    rescaled = np.divide(full * sum(weights.tolist()), kept, out=np.zeros(full.shape), where=kept > 0)
    chosen = np.where((used == len(weights))[:, None], full, rescaled)
    return chosen * (np.arange(len(weights))[None, :] < used[:, None])


# The largest x whose exp is a finite float (about 709.78).
_LOG_FLOAT_MAX = math.log(sys.float_info.max)


def _check_representable(log_sum: np.ndarray, zero: np.ndarray, weights: Sequence[float]) -> None:
    """A ValueError (not math's OverflowError) when a score would exceed the largest float.

    Only smoothed precisions above 1 (methods 1/floor, 4, 5, 6, 7 can give them) raised to large
    weights get there, e.g. weights=[2000] * 4 with method5 on an exact match.
    """
    overflowing = ~zero & (log_sum > _LOG_FLOAT_MAX)
    if overflowing.any():
        raise ValueError(
            f"with weights summing to {sum(weights):g}, BLEU is exp({float(log_sum[overflowing].max()):.6g}), "
            "beyond the largest float: some smoothed precisions exceed 1 and the weights magnify them. "
            "Pass weights that sum to 1 (the default), or a smoothing whose precisions stay <= 1"
        )


def score_rows(
    stats: np.ndarray,
    max_order: int,
    weights: Sequence[float],
    smooth: str = "none",
    smooth_value: Optional[float] = None,
    effective_order: bool = False,
    libm: bool = True,
) -> RowScores:
    """BLEU of every statistics row: `stats` has shape (rows, 2 + 2 * orders).

    The rows may count one order more than `max_order` (for the methods in NEEDS_NEXT_ORDER).
    `smooth_value` None means the method's default. `libm=False` takes logs and exponentials
    with NumPy's vectorised functions, which may differ from the C library's (sacreBLEU's) in
    the last bit but are many times faster: for the many rows of a significance test.
    """
    stats = np.atleast_2d(np.asarray(stats, dtype=np.int64))
    orders = (stats.shape[1] - 2) // 2
    hyp_len = stats[:, HYP_LEN].astype(np.float64)
    ref_len = stats[:, REF_LEN].astype(np.float64)
    all_matches = matches_of(stats, orders).astype(np.float64)
    all_totals = totals_of(stats, orders).astype(np.float64)
    matches, totals = all_matches[:, :max_order], all_totals[:, :max_order]
    value = SMOOTHING_DEFAULTS[smooth] if smooth_value is None else smooth_value
    next_precision = np.zeros(len(stats))
    if orders > max_order:
        np.divide(all_matches[:, max_order], all_totals[:, max_order], out=next_precision,
                  where=all_totals[:, max_order] > 0)
    precisions, available = _smoothed_precisions(matches, totals, smooth, value, hyp_len, next_precision)

    used = available if effective_order else np.full(len(stats), max_order)
    row_weights = _row_weights(weights, used)
    weighted = row_weights > 0
    logs = np.where(weighted & (precisions > 0), precisions, 1.0)
    logs = _elementwise(math.log, logs) if libm else np.log(logs)
    log_sum = np.zeros(len(stats))
    for n in range(max_order):  # order by order, as a scalar sum would add them
        log_sum += row_weights[:, n] * logs[:, n]
    # A zero precision on a weighted order makes BLEU 0, as does having no order to average.
    zero = (weighted & (precisions <= 0)).any(axis=1) | (used == 0)
    _check_representable(log_sum, zero, weights)
    exponent = np.where(zero, 0.0, log_sum)
    geometric_mean = np.where(zero, 0.0, _elementwise(math.exp, exponent) if libm else np.exp(exponent))
    penalty = brevity_penalties(hyp_len, ref_len, libm)
    bleu = penalty * geometric_mean
    # Nothing to score (an empty output), or no n-gram matches at all: 0 whatever the smoothing
    # (sacreBLEU and NLTK agree; the legacy add-one would otherwise give an empty output 1.0).
    # sacreBLEU then reports every precision as 0, smoothed or not; so do we.
    bleu[hyp_len == 0] = 0.0
    if smooth != LEGACY_ADD_ONE:
        nothing_matched = ~(matches > 0).any(axis=1)
        bleu[nothing_matched] = 0.0
        precisions[nothing_matched] = 0.0
    ratio = np.divide(hyp_len, ref_len, out=np.zeros_like(hyp_len), where=ref_len > 0)
    return RowScores(bleu=bleu, precisions=precisions, brevity_penalty=penalty, length_ratio=ratio)


def score_statistics(
    stats: Sequence[int],
    max_order: int,
    weights: Sequence[float],
    smooth: str = "none",
    smooth_value: Optional[float] = None,
    effective_order: bool = False,
) -> BleuScore:
    """BLEU from one statistics row (a segment's, a batch's or a corpus's sum)."""
    row = np.asarray(stats, dtype=np.int64)
    scores = score_rows(row[None, :], max_order, weights, smooth, smooth_value, effective_order)
    orders = (len(row) - 2) // 2
    return BleuScore(
        bleu=float(scores.bleu[0]),
        precisions=[float(p) for p in scores.precisions[0]],
        brevity_penalty=float(scores.brevity_penalty[0]),
        length_ratio=float(scores.length_ratio[0]),
        translation_length=int(row[HYP_LEN]),
        reference_length=int(row[REF_LEN]),
        matches=[int(x) for x in matches_of(row, orders)[:max_order]],
        totals=[int(x) for x in totals_of(row, orders)[:max_order]],
    )


# sacreBLEU's log of a zero precision (its `my_log`): so large a negative number that exp() of the
# mean of the logs is 0.
_SACREBLEU_LOG_OF_ZERO = -9999999999
# The precision dtype of sacreBLEU's bootstrap resamples: it sums float32 statistics and computes
# `100. * matches / totals` from them, which NumPy 2 keeps in float32 (a Python float with a
# float32 stays float32) and NumPy 1 promoted to float64. Its other scores start from integers
# and compute in float64.
RESAMPLED_PRECISION_DTYPE = type(100.0 * np.float32(1.0))


def sacrebleu_arithmetic(max_order: int, weights: Sequence[float], smooth: str) -> bool:
    """Whether sacreBLEU has these options (uniform weights and one of its smoothing methods),
    so that `sacrebleu_rows` can score them as it does."""
    uniform = all(math.isclose(w, 1.0 / max_order, rel_tol=1e-12) for w in weights)
    return uniform and len(weights) == max_order and smooth in SACREBLEU_SMOOTHING


def sacrebleu_rows(
    stats: np.ndarray,
    max_order: int,
    smooth: str = "none",
    smooth_value: Optional[float] = None,
    effective_order: bool = False,
    precision_dtype: type = np.float64,
    libm: bool = True,
) -> np.ndarray:
    """BLEU of every statistics row on sacreBLEU's 0-100 scale, computed with sacreBLEU's own arithmetic.

    A significance test counts the trials whose score difference exceeds the observed one, and a
    trial that rebuilds the observed statistics ties it only if both are computed the same way.
    To count exactly as sacreBLEU does, these scores round exactly as sacreBLEU's: precisions
    `100 * matches / totals` (smoothed as there) in `precision_dtype`, the logs of the orders
    added in order (a zero precision's log is -9999999999) and divided by their number, exp,
    times the brevity penalty exp(1 - r/c) of the integer lengths. `score_rows` is the same
    formula on the 0-1 scale with weights; the two agree to the last bits, not always in them.

    `libm=True`: the C library's log and exp and Python's sum, row by row, as sacreBLEU (bit for
    bit); `libm=False`: NumPy's vectorised log and exp, within a few units in the last place of
    those and many times faster (significance tests recompute with `libm=True` whatever that
    difference could decide).
    """
    stats = np.atleast_2d(np.asarray(stats, dtype=np.int64))
    orders = (stats.shape[1] - 2) // 2
    dtype = np.dtype(precision_dtype).type
    any_match = (matches_of(stats, orders)[:, :max_order] > 0).any(axis=1)
    matches = matches_of(stats, orders)[:, :max_order].astype(dtype)
    totals = totals_of(stats, orders)[:, :max_order].astype(dtype)
    value = SACREBLEU_SMOOTHING[smooth] if smooth_value is None else smooth_value
    if smooth == "add-k":  # k added to the counts of the orders above 1, in the precision's dtype
        matches[:, 1:] += dtype(value)
        totals[:, 1:] += dtype(value)
    # Orders count up to the first without hypothesis n-grams; with effective_order only those.
    available = np.cumprod(totals > 0, axis=1).sum(axis=1)
    counted = np.arange(max_order)[None, :] < available[:, None]
    matched = counted & (matches > 0)
    unmatched = counted & ~matched
    precisions = np.zeros(matches.shape, dtype=dtype)
    precisions[matched] = dtype(100.0) * matches[matched] / totals[matched]
    if smooth == "exp":  # the k-th order without a match: 100 / (2^k * totals)
        halvings = np.cumsum(unmatched, axis=1)[unmatched]
        precisions[unmatched] = dtype(100.0) / (np.power(2.0, halvings).astype(dtype) * totals[unmatched])
    elif smooth == "floor":
        precisions[unmatched] = dtype(100.0 * value) / totals[unmatched]
    # effective_order: the orders counted (all of them when not even unigrams are, as in sacreBLEU).
    used = np.where(effective_order & (available > 0), available, max_order)
    hyp_len, ref_len = stats[:, HYP_LEN], stats[:, REF_LEN]
    if libm:
        scores = np.zeros(len(stats))
        rows = zip(precisions.tolist(), used.tolist(), hyp_len.tolist(), ref_len.tolist(), any_match.tolist())
        for index, (row, count, c, r, scored) in enumerate(rows):
            if scored:
                log_sum = sum([math.log(p) if p else _SACREBLEU_LOG_OF_ZERO for p in row[:count]])
                penalty = 1.0 if c >= r else (math.exp(1 - r / c) if c > 0 else 0.0)
                scores[index] = penalty * math.exp(log_sum / count)
        return scores
    values = precisions.astype(np.float64)
    logs = np.full(values.shape, float(_SACREBLEU_LOG_OF_ZERO))
    np.log(values, out=logs, where=values > 0)
    log_sum = np.zeros(len(stats))
    for n in range(max_order):  # in order, as Python's sum adds them
        log_sum = np.where(n < used, log_sum + logs[:, n], log_sum)
    geometric_mean = np.exp(log_sum / np.maximum(used, 1))
    penalty = np.where(hyp_len < ref_len, 0.0, 1.0)
    shorter = (hyp_len < ref_len) & (hyp_len > 0)
    penalty[shorter] = np.exp(1.0 - ref_len[shorter] / hyp_len[shorter])
    return np.where(any_match, penalty * geometric_mean, 0.0)


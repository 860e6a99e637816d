"""From sufficient statistics to a BLEU score: precisions, smoothing, brevity penalty.

Everything here takes one statistics row (see `bleu_stats`): a segment's, a batch's or a whole
corpus's sum. The formulas live only here; the metric, the CLI, the Trainer hook and the demo
all come through `score_statistics`.

BLEU = BP * exp(sum_n w_n * log p_n), with BP = 1 if c >= r, exp(1 - r / c) if 0 < c < r, and
0 if c = 0 (c: hypothesis length, r: effective reference length). A zero precision on an order
with positive weight makes BLEU 0 (sacreBLEU's convention; the log of 0 is taken as -infinity).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

try:  # inside the package `evaluate.load` builds
    from .bleu_stats import HYP_LEN, REF_LEN, matches_of, totals_of
except ImportError:  # imported from the repository root (CLI, demo, tests)
    from bleu_stats import HYP_LEN, REF_LEN, matches_of, totals_of

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


def brevity_penalty(hyp_len: int, ref_len: int) -> float:
    """1 when the hypothesis is at least as long as the reference, exp(1 - r/c) below, 0 when empty."""
    if hyp_len >= ref_len:
        return 1.0
    if hyp_len == 0:
        return 0.0
    return math.exp(1.0 - ref_len / hyp_len)


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


def _smoothed_precisions(
    matches: List[float], totals: List[float], smooth: str, value: Optional[float], hyp_len: int,
    next_precision: float,
) -> Tuple[List[float], int]:
    """Precisions per order after smoothing, and how many orders have n-grams at all.

    Orders past the first one without hypothesis n-grams stay at 0; with `effective_order` the
    caller leaves them out of the mean.
    """
    max_order = len(matches)
    precisions = [0.0] * max_order
    if smooth == LEGACY_ADD_ONE:
        # tensorflow/nmt: (m + 1) / (t + 1) on every order, unigrams included.
        available = sum(1 for t in totals if t > 0)
        return [(m + 1.0) / (t + 1.0) for m, t in zip(matches, totals)], available
    if smooth == "add-k":
        matches = [m if n == 0 else m + value for n, m in enumerate(matches)]
        totals = [t if n == 0 else t + value for n, t in enumerate(totals)]
    elif smooth == "method2":
        matches = [m if n == 0 else m + 1 for n, m in enumerate(matches)]
        totals = [t if n == 0 else t + 1 for n, t in enumerate(totals)]
    available = 0
    for t in totals:
        if t <= 0:
            break
        available += 1
    doubling = 1.0  # the exponential decay of mteval's smoothing (sacreBLEU exp, Chen & Cherry 3)
    for n in range(available):
        m, t = matches[n], totals[n]
        if m > 0:
            precisions[n] = m / t
        elif smooth in ("exp", "method3"):
            doubling *= 2.0
            precisions[n] = 1.0 / (doubling * t)
        elif smooth in ("floor", "method1"):
            precisions[n] = value / t
        elif smooth in ("method4", "method7") and hyp_len > 1:
            doubling *= 2.0
            precisions[n] = 1.0 / (doubling * value / math.log(hyp_len)) / t
    if smooth in ("method5", "method7"):
        # Average each order with its smoothed predecessor and its (unsmoothed) successor.
        following = precisions[1:available] + [next_precision if available == max_order else 0.0]
        previous = precisions[0] + 1.0
        for n in range(available):
            precisions[n] = (previous + precisions[n] + following[n]) / 3.0
            previous = precisions[n]
    elif smooth == "method6":
        # Interpolate with the geometric extrapolation p_{n-1}^2 / p_{n-2}, from trigrams on.
        for n in range(2, available):
            before_last = precisions[n - 2]
            extrapolated = 0.0 if before_last == 0 else precisions[n - 1] ** 2 / before_last
            precisions[n] = (matches[n] + value * extrapolated) / (totals[n] + value)
    return precisions, available


def score_statistics(
    stats: Sequence[int],
    max_order: int,
    weights: Sequence[float],
    smooth: str = "none",
    smooth_value: Optional[float] = None,
    effective_order: bool = False,
) -> BleuScore:
    """BLEU from one statistics row (a segment's, a batch's or a corpus's).

    `stats` may hold one order more than `max_order` (for the methods in NEEDS_NEXT_ORDER).
    `smooth_value` None means the method's default.
    """
    stats = np.asarray(stats, dtype=np.int64)
    orders = (len(stats) - 2) // 2
    hyp_len, ref_len = int(stats[HYP_LEN]), int(stats[REF_LEN])
    all_matches = [int(x) for x in matches_of(stats, orders)]
    all_totals = [int(x) for x in totals_of(stats, orders)]
    matches, totals = all_matches[:max_order], all_totals[:max_order]
    value = SMOOTHING_DEFAULTS[smooth] if smooth_value is None else smooth_value
    bp = brevity_penalty(hyp_len, ref_len)
    ratio = hyp_len / ref_len if ref_len > 0 else 0.0

    next_precision = 0.0
    if orders > max_order and all_totals[max_order] > 0:
        next_precision = all_matches[max_order] / all_totals[max_order]
    precisions, available = _smoothed_precisions(
        matches, totals, smooth, value, hyp_len, next_precision
    )
    if smooth != LEGACY_ADD_ONE and not any(matches):
        # No n-gram matches at all: 0 whatever the smoothing (sacreBLEU and NLTK agree here), and
        # sacreBLEU reports every precision as 0 then, smoothed or not; so do we.
        bleu = 0.0
        precisions = [0.0] * max_order
    elif hyp_len == 0:
        bleu = 0.0  # an empty output scores 0 even under the legacy add-one (which would give 1.0)
    else:
        used = available if effective_order else max_order
        bleu = bp * _weighted_geometric_mean(precisions[:used], _weights_for(weights, used))
    return BleuScore(
        bleu=bleu,
        precisions=precisions,
        brevity_penalty=bp,
        length_ratio=ratio,
        translation_length=hyp_len,
        reference_length=ref_len,
        matches=matches,
        totals=totals,
    )


def _weights_for(weights: Sequence[float], used: int) -> List[float]:
    """The weights of the first `used` orders, rescaled to keep their total (effective order)."""
    if used == len(weights):
        return list(weights)
    kept = sum(weights[:used])
    if kept <= 0:
        return [0.0] * used
    return [w * sum(weights) / kept for w in weights[:used]]


def _weighted_geometric_mean(precisions: Sequence[float], weights: Sequence[float]) -> float:
    if not precisions:
        return 0.0
    log_sum = 0.0
    for p, w in zip(precisions, weights):
        if w == 0:
            continue
        if p <= 0:
            return 0.0
        log_sum += w * math.log(p)
    return math.exp(log_sum)

"""Why one segment scores what it scores: its n-grams, their clipped counts, and the arithmetic.

The demo's explain mode shows, for a chosen segment, the tables the BLEU paper and the seed
tutorials draw by hand: each distinct hypothesis n-gram with its count, the most times any single
reference contains it, and the clipped count min(count, max reference count). The column sums give
the modified precision's numerator and denominator for each order.

The tables are counted here with plain `Counter`s, on the same tokens the core uses (the same
lowercasing and the same tokenizer object), so a reader can follow them. They are a second, slow
count of what `bleukit.counting.stats` counts fast, and `explain_segment` checks that the two agree: every
order's clipped sum and total must equal the core's statistics row for that segment. Precisions,
brevity penalty and BLEU are never recomputed here; they come from `bleukit.core.score` on that row.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from bleukit.core import score, segment_statistics, segment_tokens
from bleukit.inputs import validate_inputs
from bleukit.options import BleuOptions
from bleukit.scoring import BleuScore
from bleukit.counting.stats import HYP_LEN, REF_LEN, matches_of, totals_of

Ngram = Tuple[str, ...]


@dataclass(frozen=True)
class NgramCount:
    """One distinct hypothesis n-gram and how much of it the references allow."""

    ngram: Ngram
    count: int  # times in the hypothesis
    max_ref_count: int  # most times in any single reference
    clipped: int  # min(count, max_ref_count): what it contributes to the matches

    @property
    def text(self) -> str:
        return " ".join(self.ngram)


@dataclass(frozen=True)
class OrderTable:
    """All hypothesis n-grams of one order, with the modified precision they add up to."""

    order: int
    rows: List[NgramCount]  # in order of first appearance in the hypothesis
    clipped_total: int  # sum of clipped counts: the matches
    total: int  # hypothesis n-grams of this order (with repeats)
    precision: Optional[float]  # the core's p_n (after smoothing); None for an order only smoothing looks at


@dataclass(frozen=True)
class SegmentExplanation:
    """Everything explain mode shows for one segment."""

    prediction_tokens: List[str]
    reference_tokens: List[List[str]]
    tables: List[OrderTable]
    hypothesis_length: int  # c
    effective_reference_length: int  # r, chosen by the options' ref_length policy
    options: BleuOptions
    row: np.ndarray  # the core's statistics row for this segment
    score: BleuScore  # bleukit.core.score(row, options)
    counted: bool = True  # False: too long to count per n-gram; the tables hold only the core's sums

    @property
    def reference_lengths(self) -> List[int]:
        return [len(tokens) for tokens in self.reference_tokens]


def ngram_counts(tokens: Sequence[str], order: int) -> Counter:
    """How often each n-gram of `order` occurs in `tokens` (first-appearance order kept)."""
    return Counter(tuple(tokens[start : start + order]) for start in range(len(tokens) - order + 1))


def order_table(hypothesis: Sequence[str], references: Sequence[Sequence[str]], order: int) -> List[NgramCount]:
    """The clipping table of one order: per distinct hypothesis n-gram, count, max ref count, clipped."""
    reference_counts = [ngram_counts(reference, order) for reference in references]
    rows = []
    for ngram, count in ngram_counts(hypothesis, order).items():
        max_ref = max((counts[ngram] for counts in reference_counts), default=0)
        rows.append(NgramCount(ngram, count, max_ref, min(count, max_ref)))
    return rows


def tokenize_segment(prediction: str, references: Sequence[str], options: BleuOptions) -> List[List[str]]:
    """The tokens the core scores: prediction first, then each reference (lowercased if asked)."""
    return [segment_tokens(line, options) for line in [prediction, *references]]


# Past this many tokens (prediction plus references) the per-n-gram tables are not counted: no
# page can show them, and counting them costs seconds; the sums then are the core's row alone.
MAX_TOKENS_COUNTED = 50_000


def explain_segment(
    prediction: str, references: Sequence[str], options: BleuOptions, row: Optional[Sequence[int]] = None
) -> SegmentExplanation:
    """Explain one text segment; `row` is its core statistics row (computed here when not given).

    Raises ValueError/TypeError with the core's message for bad input, and RuntimeError if the
    tables ever disagree with the core's statistics (that would be a bug worth reporting). For a
    segment longer than MAX_TOKENS_COUNTED tokens the tables have no rows (`counted` is False)
    and their sums are the core's.
    """
    preds, refs, _ = validate_inputs([prediction], [list(references)], kind="text")
    if row is None:
        row = segment_statistics(preds, refs, options)[0]
    row = np.asarray(row, dtype=np.int64)
    hypothesis, *reference_tokens = tokenize_segment(preds[0], refs[0], options)
    core_matches = matches_of(row, options.orders)
    core_totals = totals_of(row, options.orders)
    result = score(row, options)
    tables = []
    counted = len(hypothesis) + sum(len(tokens) for tokens in reference_tokens) <= MAX_TOKENS_COUNTED
    for order in range(1, options.orders + 1):
        if not counted:
            precision = result.precisions[order - 1] if order <= options.max_order else None
            tables.append(OrderTable(order, [], int(core_matches[order - 1]), int(core_totals[order - 1]), precision))
            continue
        rows = order_table(hypothesis, reference_tokens, order)
        clipped_total = sum(r.clipped for r in rows)
        total = sum(r.count for r in rows)
        if clipped_total != core_matches[order - 1] or total != core_totals[order - 1]:
            raise RuntimeError(
                f"explain mode counted {clipped_total}/{total} {order}-grams but the core counted "
                f"{core_matches[order - 1]}/{core_totals[order - 1]}; please report this segment"
            )
        precision = result.precisions[order - 1] if order <= options.max_order else None
        tables.append(OrderTable(order, rows, clipped_total, total, precision))
    lengths = [len(tokens) for tokens in reference_tokens]
    if len(hypothesis) != row[HYP_LEN] or int(row[REF_LEN]) not in lengths:
        raise RuntimeError(
            f"explain mode found c={len(hypothesis)} and reference lengths {lengths}, but the core has "
            f"c={row[HYP_LEN]}, r={row[REF_LEN]}; please report this segment"
        )
    return SegmentExplanation(
        prediction_tokens=hypothesis,
        reference_tokens=reference_tokens,
        tables=tables,
        hypothesis_length=int(row[HYP_LEN]),
        effective_reference_length=int(row[REF_LEN]),
        options=options,
        row=row,
        score=result,
        counted=counted,
    )


def _number(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".") if value not in (0.0, 1.0) else f"{value:g}"


def precision_arithmetic(table: OrderTable) -> str:
    """E.g. `p2 = 4/6 = 0.6667`, noting when smoothing changed the raw ratio."""
    ratio = f"{table.clipped_total}/{table.total}"
    if table.precision is None:
        return f"{table.order}-grams: {ratio} (counted only for the smoothing of the order before)"
    raw = table.clipped_total / table.total if table.total else 0.0
    if table.total and abs(raw - table.precision) <= 1e-12 * max(1.0, raw):
        return f"p{table.order} = {ratio} = {_number(table.precision)}"
    return f"p{table.order} = {ratio} → {_number(table.precision)} after smoothing"


def reference_length_choice(explanation: SegmentExplanation) -> str:
    """Which reference length r is, and why (closest to c, or shortest)."""
    lengths = ", ".join(str(n) for n in explanation.reference_lengths)
    c, r = explanation.hypothesis_length, explanation.effective_reference_length
    if len(explanation.reference_lengths) == 1:
        return f"r = {r} (the reference's length)"
    if explanation.options.ref_length == "shortest":
        return f"r = {r}: the shortest of the reference lengths {lengths}"
    return f"r = {r}: of the reference lengths {lengths}, the closest to c = {c} (the shorter on a tie)"


def brevity_penalty_arithmetic(explanation: SegmentExplanation) -> str:
    """The brevity penalty with c and r filled in; its value is the core's."""
    c, r = explanation.hypothesis_length, explanation.effective_reference_length
    bp = explanation.score.brevity_penalty
    if c >= r:
        return f"c = {c} ≥ r = {r}, so BP = 1 (no penalty)"
    if c == 0:
        return "c = 0: an empty hypothesis gets BP = 0"
    return f"c = {c} < r = {r}, so BP = exp(1 − r/c) = exp(1 − {r}/{c}) = {_number(bp)}"


def bleu_arithmetic(explanation: SegmentExplanation) -> str:
    """BLEU = BP × p1^w1 × … with the numbers filled in; the result is the core's."""
    options = explanation.options
    result = explanation.score
    used = [
        (n, p, w)
        for n, (p, w) in enumerate(zip(result.precisions, options.weights), start=1)
        if w > 0
    ]
    symbols = " × ".join(f"p{n}^{_number(w)}" for n, _, w in used)
    numbers = " × ".join(f"{_number(p)}^{_number(w)}" for _, p, w in used)
    text = f"BLEU = BP × {symbols} = {_number(result.brevity_penalty)} × {numbers} = {result.bleu:.4f}"
    if options.smooth != "add-one" and not any(result.matches):
        return text + "  (no n-gram matches at all: BLEU is 0 whatever the smoothing)"
    if options.effective_order and any(t.total == 0 for t in explanation.tables[: options.max_order]):
        return text + "  (effective order: orders without n-grams are left out and the weights rescaled)"
    if result.bleu == 0.0 and any(p == 0 for _, p, _ in used):
        return text + "  (a zero precision makes the geometric mean 0; smoothing avoids that)"
    return text

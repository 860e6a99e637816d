"""Clipped n-gram matches between many texts at once: the counting behind pairwise BLEU, self-BLEU and MBR.

The clipped matches of order n between texts a and b are the sum over n-grams g of
min(count_a(g), count_b(g)), and min(x, y) = sum over k >= 1 of [x >= k][y >= k]. So every n-gram
occurrence gets a *column* (g, k), k for the k-th occurrence of g in its text: a text holds the
column (g, k) iff it has g at least k times, and matches(a, b) is the number of columns a and b
both hold, an entry of the product A @ B.T of two 0/1 indicator matrices (texts x columns).
Integers throughout, so exact. Two sums over a column's holders follow without any product:
- a text's matches against *all the others as references* (clipped by the largest count among
  them) are the number of its columns that some other text also holds (self-BLEU: linear);
- the matches summed over every ordered pair of different texts are sum over columns of
  holders * (holders - 1) (fairseq's pairwise BLEU: linear).

Texts come in groups (the candidates of one source in MBR; a single group for a pairwise matrix)
and only texts of one group are paired. For the full product, each column goes the cheaper way:
one that many texts of its group hold joins a dense product (BLAS on float32 0/1 matrices, exact
while a count stays below 2**24), batched over groups; the others are counted from the column
lists, each adding 1 to every (a, b) pair that holds it, in one `bincount`, at the cost of the
product's non-zero terms. Counts come a block of A's texts at a time (about PAIRS_PER_BLOCK
pairs), so memory stays bounded however many texts there are.

Higher orders only look at n-grams whose (n-1)-gram prefix two texts share, as `bleukit.counting.stats` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, List, Tuple

import numpy as np

from bleukit.counting.stats import INT64_KEY_BOUND, sort_order, sorted_codes

# Pairs per block of counts: (orders x pairs) int32 counts and the pairs' statistics rows stay
# within a few tens of MB.
PAIRS_PER_BLOCK = 1 << 18
# A column joins the dense product when the pairs it adds to (holders in A x holders in B) are at
# least 1/DENSE_RATIO of its group's pairs: a BLAS multiply-add costs about that much less than
# one counted pair.
DENSE_RATIO = 64


@dataclass(frozen=True)
class PairLayout:
    """Which texts are paired. Texts are numbered A's first (`num_a` of them), then B's; with
    `same`, B is A itself (the pairs of a set with itself) and only A's texts exist. `groups`
    gives each text's group, non-decreasing along each side; pairs are (a, b) of one group."""

    lengths: np.ndarray
    groups: np.ndarray
    num_a: int
    num_groups: int
    same: bool

    @property
    def b_start(self) -> int:
        return 0 if self.same else self.num_a

    @property
    def num_b(self) -> int:
        return len(self.lengths) - self.b_start

    def a_counts(self) -> np.ndarray:
        return np.bincount(self.groups[: self.num_a], minlength=self.num_groups)

    def b_counts(self) -> np.ndarray:
        return np.bincount(self.groups[self.b_start :], minlength=self.num_groups)


def make_layout(lengths: np.ndarray, groups: np.ndarray, num_a: int, same: bool) -> PairLayout:
    groups = np.asarray(groups, dtype=np.int64)
    num_groups = int(groups.max(initial=-1)) + 1
    for side in (groups[:num_a], groups[(0 if same else num_a) :]):
        if np.any(np.diff(side) < 0):
            raise ValueError("texts must come group by group on each side")
    return PairLayout(np.asarray(lengths, dtype=np.int64), groups, num_a, num_groups, same)


@dataclass(frozen=True)
class OrderColumns:
    """The columns of one n-gram order: per occurrence (in position order, so text by text), its
    text and its column; columns are numbered 0..num_columns-1 and never span two groups."""

    texts: np.ndarray
    columns: np.ndarray
    num_columns: int

    def holders(self, mask: np.ndarray | None = None) -> np.ndarray:
        """How many texts hold each column (each text holds a column at most once)."""
        columns = self.columns if mask is None else self.columns[mask]
        return np.bincount(columns, minlength=self.num_columns)


def _occurrence_ranks(texts: np.ndarray, codes: np.ndarray, num_codes: int) -> np.ndarray:
    """For each occurrence, how many occurrences of the same n-gram come before it in its text."""
    order, ordered = sort_order(texts * num_codes + codes)
    run_start = np.empty(len(ordered), dtype=bool)
    run_start[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=run_start[1:])
    index = np.arange(len(ordered))
    ranks = np.empty(len(ordered), dtype=np.int64)
    ranks[order] = index - np.maximum.accumulate(np.where(run_start, index, 0))
    return ranks


def order_columns(ids: np.ndarray, layout: PairLayout, orders: int) -> List[OrderColumns]:
    """The columns of every order 1..`orders` for dense int64 token ids (all texts concatenated,
    in the layout's order). An n-gram's code starts from its group and its first token and adds
    one token per order (sorted into dense codes each time), so equal n-grams of one group share
    a code and n-grams of different groups never do."""
    ids = np.asarray(ids, dtype=np.int64)
    lengths = layout.lengths
    vocabulary = max(int(ids.max(initial=-1)) + 1, 1)
    if max(len(ids), layout.num_groups) * vocabulary >= INT64_KEY_BOUND:
        raise ValueError("too many tokens for 64-bit n-gram keys; pass fewer texts at once")
    texts = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    ends = np.repeat(np.cumsum(lengths), lengths)
    positions = np.arange(len(ids), dtype=np.int64)
    on_a = texts < layout.num_a
    prefix = layout.groups[texts]
    shared = np.zeros(0, dtype=bool)  # per code of the previous order: do two texts share it
    result: List[OrderColumns] = []
    for order in range(1, orders + 1):
        if order > 1:  # n-grams that fit in their text, and whose prefix two texts share
            kept = np.flatnonzero(shared[prefix] & (ends >= positions + order))
            texts, ends, positions, on_a, prefix = texts[kept], ends[kept], positions[kept], on_a[kept], prefix[kept]
        codes, distinct = sorted_codes(prefix * vocabulary + ids[positions + order - 1])
        num_codes = len(distinct)
        ranks = _occurrence_ranks(texts, codes, num_codes)
        columns = codes.copy()
        repeated = np.flatnonzero(ranks > 0)
        num_columns = num_codes
        if repeated.size:  # (g, k) for k >= 2: columns after the codes' own
            extra, distinct_extra = sorted_codes(codes[repeated] * (int(ranks.max()) + 1) + ranks[repeated])
            columns[repeated] = num_codes + extra
            num_columns += len(distinct_extra)
        result.append(OrderColumns(texts, columns, num_columns))
        first = ranks == 0  # one occurrence per (text, n-gram): counts texts holding an n-gram
        if layout.same:
            shared = np.bincount(codes[first], minlength=num_codes) >= 2
        else:
            shared = (np.bincount(codes[first & on_a], minlength=num_codes) > 0) & (
                np.bincount(codes[first & ~on_a], minlength=num_codes) > 0
            )
        prefix = codes
    return result


def matches_against_others(layout: PairLayout, columns: List[OrderColumns]) -> np.ndarray:
    """(texts, orders): each text's clipped matches against all the other texts of its group as
    its references (clipped by the largest count among them): its columns that another holds."""
    matches = np.zeros((len(layout.lengths), len(columns)), dtype=np.int64)
    for n, order in enumerate(columns):
        held_by_another = order.holders()[order.columns] >= 2
        matches[:, n] = np.bincount(order.texts[held_by_another], minlength=len(layout.lengths))
    return matches


def matches_over_ordered_pairs(layout: PairLayout, columns: List[OrderColumns]) -> np.ndarray:
    """(groups, orders): the clipped matches summed over every ordered pair of different texts of
    each group (a set paired with itself): sum over its columns of holders * (holders - 1)."""
    sums = np.zeros((layout.num_groups, len(columns)), dtype=np.int64)
    for n, order in enumerate(columns):
        holders = order.holders()
        group_of_column = np.zeros(order.num_columns, dtype=np.int64)
        group_of_column[order.columns] = layout.groups[order.texts]
        sums[:, n] = np.bincount(group_of_column, weights=holders * (holders - 1), minlength=layout.num_groups)
    return sums


@dataclass(frozen=True)
class _OrderPlan:
    """One order's columns arranged for the product. Dense columns are numbered within their
    group (a bit in each holder's bit set); the holders of the other columns are listed column by
    column on B's side. Occurrences stay text by text, so a block of texts is a slice."""

    a_sparse_texts: np.ndarray  # A's occurrences on sparse columns: text and column
    a_sparse_columns: np.ndarray
    b_by_column: np.ndarray  # B's holders of sparse columns (local index), column by column
    b_column_start: np.ndarray  # where each column's holders start in b_by_column (num_columns + 1)
    a_dense_texts: np.ndarray  # A's occurrences on dense columns: text and the column's bit
    a_dense_bits: np.ndarray
    b_dense_texts: np.ndarray  # B's occurrences on dense columns: text and the column's bit
    b_dense_bits: np.ndarray
    dense_per_group: np.ndarray


def _plan(layout: PairLayout, order: OrderColumns, a_counts: np.ndarray, b_counts: np.ndarray,
          b_local: np.ndarray) -> _OrderPlan:
    on_a = order.texts < layout.num_a
    on_b = np.ones(len(order.texts), dtype=bool) if layout.same else ~on_a
    holders_a = order.holders(on_a)
    holders_b = holders_a if layout.same else order.holders(on_b)
    group_of_column = np.zeros(order.num_columns, dtype=np.int64)
    group_of_column[order.columns] = layout.groups[order.texts]
    # A column matters if it pairs two different texts: held on both sides (by two texts when B is A).
    kept = (holders_a >= 2) if layout.same else (holders_a > 0) & (holders_b > 0)
    pairs_in_group = (a_counts * b_counts)[group_of_column]
    dense = kept & (holders_a * holders_b * DENSE_RATIO >= pairs_in_group)
    sparse = kept & ~dense
    dense_columns = np.flatnonzero(dense)
    dense_groups = group_of_column[dense_columns]
    by_group = np.argsort(dense_groups, kind="stable")
    dense_per_group = np.bincount(dense_groups, minlength=layout.num_groups)
    first_of_group = np.cumsum(dense_per_group) - dense_per_group
    bit = np.zeros(order.num_columns, dtype=np.int64)
    bit[dense_columns[by_group]] = np.arange(len(dense_columns)) - first_of_group[dense_groups[by_group]]
    on_dense, on_sparse = dense[order.columns], sparse[order.columns]
    a_dense, b_dense, a_sparse = on_a & on_dense, on_b & on_dense, on_a & on_sparse
    b_sparse = np.flatnonzero(on_b & on_sparse)
    by_column = b_sparse[np.argsort(order.columns[b_sparse], kind="stable")]
    column_sizes = np.bincount(order.columns[b_sparse], minlength=order.num_columns)
    return _OrderPlan(
        a_sparse_texts=order.texts[a_sparse], a_sparse_columns=order.columns[a_sparse],
        b_by_column=b_local[order.texts[by_column]], b_column_start=np.concatenate([[0], np.cumsum(column_sizes)]),
        a_dense_texts=order.texts[a_dense], a_dense_bits=bit[order.columns[a_dense]],
        b_dense_texts=order.texts[b_dense], b_dense_bits=bit[order.columns[b_dense]],
        dense_per_group=dense_per_group,
    )


def _bit_sets(sets: int, words: int, owners: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """(words, sets) uint64: bit `bits[k]` set in set `owners[k]`, word by word."""
    flags = np.zeros((sets, words * 64), dtype=bool)
    flags[owners, bits] = True
    return np.ascontiguousarray(np.packbits(flags, axis=-1, bitorder="little").view(np.uint64).T)


_BYTE_POPCOUNT = np.array([bin(byte).count("1") for byte in range(256)], dtype=np.uint8)


def _popcount(words: np.ndarray) -> np.ndarray:
    """Set bits per uint64 (NumPy 2's bitwise_count; a byte table before it)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    return _BYTE_POPCOUNT[words.view(np.uint8)].reshape(words.shape + (8,)).sum(axis=-1)


def _block_counts(layout: PairLayout, plan: _OrderPlan, lo: int, hi: int, counts: np.ndarray,
                  a_first: np.ndarray, b_first: np.ndarray, b_local: np.ndarray) -> None:
    """Write into `counts` ((hi - lo, b_width) int32) one order's matches of A's texts lo..hi-1
    against the B texts of their group."""
    rows, b_width = counts.shape
    # Sparse columns: each A occurrence pairs with every B holder of its column.
    start, stop = np.searchsorted(plan.a_sparse_texts, [lo, hi])
    texts, columns = plan.a_sparse_texts[start:stop], plan.a_sparse_columns[start:stop]
    first = plan.b_column_start[columns]
    sizes = plan.b_column_start[columns + 1] - first
    owner = np.repeat(np.arange(len(columns)), sizes)
    within = np.arange(len(owner)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    pair_index = (texts[owner] - lo) * b_width + plan.b_by_column[first[owner] + within]
    counts[:] = np.bincount(pair_index, minlength=rows * b_width).reshape(rows, b_width)
    # Dense columns: per group of the block, each text's columns as a bit set; a pair's matches
    # are the bits both of its sets hold.
    low_group, high_group = int(layout.groups[lo]), int(layout.groups[hi - 1])
    width = int(plan.dense_per_group[low_group : high_group + 1].max(initial=0))
    if width == 0:
        return
    words, group_count = -(-width // 64), high_group - low_group + 1
    block_groups = layout.groups[lo:hi] - low_group
    slot_of = np.arange(lo, hi) - np.maximum(lo, a_first[layout.groups[lo:hi]])
    slots = int(slot_of.max()) + 1
    start, stop = np.searchsorted(plan.a_dense_texts, [lo, hi])
    texts = plan.a_dense_texts[start:stop] - lo
    a_bits = _bit_sets(group_count * slots, words, block_groups[texts] * slots + slot_of[texts],
                       plan.a_dense_bits[start:stop]).reshape(words, group_count, slots)
    b_low, b_high = b_first[low_group] + layout.b_start, b_first[high_group + 1] + layout.b_start
    start, stop = np.searchsorted(plan.b_dense_texts, [b_low, b_high])
    texts = plan.b_dense_texts[start:stop]
    b_bits = _bit_sets(group_count * b_width, words, (layout.groups[texts] - low_group) * b_width + b_local[texts],
                       plan.b_dense_bits[start:stop]).reshape(words, group_count, b_width)
    shared = np.zeros((group_count, slots, b_width), dtype=np.int32)
    both = np.empty((group_count, slots, b_width), dtype=np.uint64)
    for word in range(words):
        np.bitwise_and(a_bits[word][:, :, None], b_bits[word][:, None, :], out=both)
        shared += _popcount(both)
    counts += shared[block_groups, slot_of]


def pair_matches(layout: PairLayout, columns: List[OrderColumns]) -> Iterator[Tuple[int, int, np.ndarray]]:
    """Blocks (lo, hi, matches): `matches[n, i, j]` (int32, shape (orders, hi - lo, b_width)) is the
    clipped (n+1)-gram matches of A's text lo + i against the j-th B text of its group (0 past the
    group's B texts); b_width is the largest group's number of B texts. With `same`, the diagonal
    (a text against itself) is its own n-gram count."""
    a_counts, b_counts = layout.a_counts(), layout.b_counts()
    a_first = np.cumsum(a_counts) - a_counts
    b_first = np.concatenate([[0], np.cumsum(b_counts)])
    b_local = np.zeros(len(layout.lengths), dtype=np.int64)
    b_texts = np.arange(layout.b_start, len(layout.lengths))
    b_local[b_texts] = b_texts - layout.b_start - b_first[layout.groups[b_texts]]
    b_width = int(b_counts.max(initial=0))
    plans = [_plan(layout, order, a_counts, b_counts, b_local) for order in columns]
    rows_per_block = max(1, PAIRS_PER_BLOCK // max(b_width, 1))
    for lo in range(0, layout.num_a, rows_per_block):
        hi = min(layout.num_a, lo + rows_per_block)
        matches = np.empty((len(plans), hi - lo, b_width), dtype=np.int32)
        for plan, counts in zip(plans, matches):
            _block_counts(layout, plan, lo, hi, counts, a_first, b_first, b_local)
        if layout.same:
            rows = np.arange(lo, hi)
            own = np.maximum(layout.lengths[rows, None] - np.arange(len(columns))[None, :], 0)
            matches[:, rows - lo, b_local[rows]] = own.T
        yield lo, hi, matches

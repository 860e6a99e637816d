"""BLEU's sufficient statistics: per segment, integers that add up across any split of a corpus.

One row per segment, `2 + 2 * orders` int64 columns:

    [hypothesis length, effective reference length,
     clipped matches of order 1 .. orders, hypothesis n-grams of order 1 .. orders]

Corpus statistics are the column sums of the rows; so are the statistics of a batch, a shard, a
process or a bootstrap resample. Every score this module reports is computed from such a sum
(see `bleu_scoring`), which is why streaming, distributed and per-segment scoring agree exactly.

The counting works on integer token ids with NumPy, without a Python loop per segment: each
order's n-gram ids are built from the previous order's ids, and counting and clipping are
hash-based groupings over (segment, n-gram) keys.
"""

from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np
import pyarrow as pa

HYP_LEN = 0
REF_LEN = 1
REF_LENGTH_POLICIES = ("closest", "shortest")

_INT64_SAFE = 2**62


def stat_width(orders: int) -> int:
    """Number of columns of a statistics row for n-grams of order 1 .. `orders`."""
    return 2 + 2 * orders


def matches_of(stats: np.ndarray, orders: int) -> np.ndarray:
    """Clipped n-gram matches per order (last axis)."""
    return stats[..., 2 : 2 + orders]


def totals_of(stats: np.ndarray, orders: int) -> np.ndarray:
    """Hypothesis n-gram counts per order (last axis)."""
    return stats[..., 2 + orders : 2 + 2 * orders]


def arrow_integers(values: np.ndarray) -> pa.Array:
    """An Arrow array over a NumPy integer array's buffer. `pa.array` would import pandas (a third
    of a second, more than scoring a small file takes) to ask whether the input is a pandas object."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def numpy_integers(array: pa.Array) -> np.ndarray:
    """A read-only NumPy view of an Arrow integer array without nulls (`to_numpy` imports pandas)."""
    dtype = np.dtype(f"{'u' if array.type.id in _ARROW_UNSIGNED else 'i'}{array.type.bit_width // 8}")
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


_ARROW_UNSIGNED = {pa.uint8().id, pa.uint16().id, pa.uint32().id, pa.uint64().id}


def dense_codes(values: np.ndarray, bound: int | None = None) -> Tuple[np.ndarray, np.ndarray]:
    """(codes, uniques): equal values get equal codes 0..U-1 in order of first occurrence.

    A hash grouping; Arrow's is about 1.6x faster than pandas' on int64 keys here, and faster
    again on 32-bit keys, which non-negative keys below 2**31 are hashed as. `bound`, if given,
    promises 0 <= values < bound.
    """
    if bound is None and values.dtype == np.int64 and len(values):
        bound = int(values.max()) + 1 if values.min() >= 0 else None
    if values.dtype == np.int64 and bound is not None and bound <= 2**31:
        values = values.astype(np.int32)
    encoded = arrow_integers(values).dictionary_encode()
    return numpy_integers(encoded.indices).astype(np.int64), numpy_integers(encoded.dictionary).astype(np.int64)


def encode_tokens(tokens: Sequence) -> np.ndarray:
    """Map tokens (strings or integers) to dense int64 ids 0..V-1; equal tokens get equal ids."""
    if len(tokens) == 0:
        return np.zeros(0, dtype=np.int64)
    if isinstance(tokens, np.ndarray) and tokens.dtype.kind in "iu":
        return dense_codes(tokens)[0]
    import pandas as pd  # only string tokens need it; loading pandas takes longer than scoring a small file

    codes, _ = pd.factorize(np.asarray(tokens, dtype=object) if isinstance(tokens, list) else tokens)
    return codes.astype(np.int64, copy=False)


def effective_reference_lengths(
    hyp_lengths: np.ndarray, ref_lengths: np.ndarray, ref_owner: np.ndarray, policy: str
) -> np.ndarray:
    """The reference length each segment's brevity penalty uses.

    `closest` is the paper's best match length: the reference length nearest to the hypothesis
    length, the shorter one on a tie (as sacreBLEU and NLTK). `shortest` is the shortest reference
    (tensorflow/nmt and `evaluate`'s legacy `bleu`).
    """
    num_segments = len(hyp_lengths)
    if policy not in REF_LENGTH_POLICIES:
        raise ValueError(f"unknown ref_length {policy!r}; pass one of {list(REF_LENGTH_POLICIES)}")
    if len(ref_owner) == num_segments and np.array_equal(ref_owner, np.arange(num_segments)):
        return ref_lengths.astype(np.int64, copy=True)  # one reference each: nothing to choose
    if policy == "shortest":
        key = ref_lengths
    else:  # closest: distance first, then the length itself breaks ties toward the shorter one
        span = int(ref_lengths.max(initial=0)) + 1
        key = np.abs(ref_lengths - hyp_lengths[ref_owner]) * span + ref_lengths
    best = np.full(num_segments, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(best, ref_owner, key)
    return best if policy == "shortest" else best % span


def reference_ranks(ref_owner: np.ndarray, num_segments: int) -> np.ndarray:
    """For each reference, how many references of the same segment come before it."""
    num_refs = len(ref_owner)
    ranks = np.empty(num_refs, dtype=np.int64)
    by_owner = np.argsort(ref_owner, kind="stable")
    first_of_owner = np.searchsorted(ref_owner[by_owner], np.arange(num_segments))
    ranks[by_owner] = np.arange(num_refs) - first_of_owner[ref_owner[by_owner]]
    return ranks


def ngram_statistics(
    ids: np.ndarray,
    lengths: np.ndarray,
    num_segments: int,
    ref_owner: np.ndarray,
    orders: int,
    ref_length: str = "closest",
) -> np.ndarray:
    """Statistics rows for `num_segments` hypotheses and their references.

    Args:
        ids: dense int64 token ids (see `encode_tokens`) of all sequences, concatenated: the
            `num_segments` hypotheses first, then every reference.
        lengths: the token count of each sequence, in the same order.
        num_segments: how many of the sequences are hypotheses.
        ref_owner: for each reference, the index of the hypothesis it belongs to. Every
            hypothesis needs at least one reference.
        orders: the highest n-gram order to count.
        ref_length: `closest` or `shortest` (see `effective_reference_lengths`).

    How: every n-gram occurrence gets a key that names its segment and its n-gram, as a dense
    integer: (segment, token) for unigrams, then (key of the (n-1)-gram at the same position,
    next token) for each next order, densified by hashing. Counting the keys on the hypothesis
    side and on each reference side gives the clipped matches per key, summed per segment.
    An n-gram can only match if the (n-1)-gram it starts with occurs on both sides of its
    segment, so only those positions go on to the next order; the rest cannot add a match.
    """
    ids = np.asarray(ids, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    ref_owner = np.asarray(ref_owner, dtype=np.int64)
    hyp_lengths = lengths[:num_segments]
    stats = np.zeros((num_segments, stat_width(orders)), dtype=np.int64)
    if num_segments == 0:
        return stats
    stats[:, HYP_LEN] = hyp_lengths
    stats[:, REF_LEN] = effective_reference_lengths(hyp_lengths, lengths[num_segments:], ref_owner, ref_length)
    order_range = np.arange(1, orders + 1)
    totals_of(stats, orders)[:] = np.maximum(hyp_lengths[:, None] - order_range[None, :] + 1, 0)

    total_tokens = len(ids)
    vocabulary = int(ids.max(initial=-1)) + 1
    if max(total_tokens, num_segments) * max(vocabulary, 1) >= _INT64_SAFE:
        raise ValueError("batch too large for 64-bit n-gram keys; score it in smaller chunks")
    hyp_tokens = int(hyp_lengths.sum())
    ranks = reference_ranks(ref_owner, num_segments)
    max_refs = int(ranks.max(initial=0)) + 1
    ref_rank_at = np.repeat(ranks, lengths[num_segments:]) if max_refs > 1 else None

    sequence_end = np.cumsum(lengths)
    end_at = np.repeat(sequence_end, lengths)  # where the sequence of each position ends
    positions = np.arange(total_tokens, dtype=np.int64)  # n-gram start positions still in play
    segment_of_sequence = np.concatenate([np.arange(num_segments, dtype=np.int64), ref_owner])
    keys = np.repeat(segment_of_sequence, lengths) * vocabulary + ids
    # Carried from one order to the next: the prefix keys, their count, and which occur on both sides.
    segment_of_key = codes = on_both_sides = None
    num_keys = 0
    matches = matches_of(stats, orders)
    for order in range(1, orders + 1):
        if order > 1:
            in_play = on_both_sides[codes] & (end_at >= positions + order)
            if ref_rank_at is not None:
                ref_rank_at = ref_rank_at[in_play[len(in_play) - len(ref_rank_at) :]]
            in_play = np.flatnonzero(in_play)
            positions, codes, end_at = positions[in_play], codes[in_play], end_at[in_play]
            if positions.size == 0:
                break
            keys = codes * vocabulary + ids[positions + order - 1]
        codes, uniques = dense_codes(keys, (num_segments if order == 1 else num_keys) * vocabulary)
        num_keys = len(uniques)
        # The segment of each key: unigram keys hold it; longer keys hold their prefix's key.
        segment_of_key = uniques // vocabulary if order == 1 else segment_of_key[uniques // vocabulary]
        hyp_side = int(np.searchsorted(positions, hyp_tokens))
        hyp_count = np.bincount(codes[:hyp_side], minlength=num_keys)
        ref_codes = codes[hyp_side:]
        if ref_rank_at is None:
            ref_max = np.bincount(ref_codes, minlength=num_keys)
        else:
            ref_max = np.zeros(num_keys, dtype=np.int64)
            for rank in range(max_refs):
                np.maximum(ref_max, np.bincount(ref_codes[ref_rank_at == rank], minlength=num_keys), out=ref_max)
        clipped = np.minimum(hyp_count, ref_max)
        matches[:, order - 1] = np.bincount(segment_of_key, weights=clipped, minlength=num_segments)
        on_both_sides = (hyp_count > 0) & (ref_max > 0)
    return stats

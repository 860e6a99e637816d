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

from typing import Sequence

import numpy as np
import pandas as pd

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


def encode_tokens(tokens: Sequence) -> np.ndarray:
    """Map tokens (strings or integers) to dense int64 ids 0..V-1; equal tokens get equal ids."""
    if len(tokens) == 0:
        return np.zeros(0, dtype=np.int64)
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
    if policy == "shortest":
        key = ref_lengths
    elif policy == "closest":
        # Distance first, then the length itself breaks ties toward the shorter reference.
        span = int(ref_lengths.max(initial=0)) + 1
        key = np.abs(ref_lengths - hyp_lengths[ref_owner]) * span + ref_lengths
    else:
        raise ValueError(f"unknown ref_length {policy!r}; pass one of {list(REF_LENGTH_POLICIES)}")
    best = np.full(num_segments, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(best, ref_owner, key)
    return best if policy == "shortest" else best % span


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

    # Which segment, and which side (0 = hypothesis, k = the segment's k-th reference), each
    # sequence belongs to.
    num_refs = len(ref_owner)
    ref_rank = np.empty(num_refs, dtype=np.int64)
    by_owner = np.argsort(ref_owner, kind="stable")
    first_of_owner = np.searchsorted(ref_owner[by_owner], np.arange(num_segments))
    ref_rank[by_owner] = np.arange(num_refs) - first_of_owner[ref_owner[by_owner]]
    sides = int(ref_rank.max(initial=0)) + 2
    segment_of_sequence = np.concatenate([np.arange(num_segments, dtype=np.int64), ref_owner])
    side_of_sequence = np.concatenate([np.zeros(num_segments, dtype=np.int64), ref_rank + 1])

    total_tokens = len(ids)
    vocabulary = int(ids.max(initial=-1)) + 1
    if total_tokens * max(vocabulary, 1) >= _INT64_SAFE or num_segments * max(total_tokens, 1) * sides >= _INT64_SAFE:
        raise ValueError("batch too large for 64-bit n-gram keys; score it in smaller chunks")
    sequence_start = np.cumsum(lengths) - lengths
    position = np.arange(total_tokens, dtype=np.int64) - np.repeat(sequence_start, lengths)
    tokens_left = np.repeat(lengths, lengths) - position  # tokens from this position to the end
    segment_at = np.repeat(segment_of_sequence, lengths)
    side_at = np.repeat(side_of_sequence, lengths)

    starts = np.arange(total_tokens, dtype=np.int64)  # n-gram start positions valid for order n
    ngram_id = ids.copy()  # ids of the n-grams starting at each position (valid at `starts`)
    ngram_kinds = vocabulary
    matches = matches_of(stats, orders)
    for order in range(1, orders + 1):
        if order > 1:
            starts = starts[tokens_left[starts] >= order]
            if starts.size == 0:
                break
            extended = ngram_id[starts] * vocabulary + ids[starts + order - 1]
            codes, uniques = pd.factorize(extended)
            ngram_id[starts] = codes
            ngram_kinds = len(uniques)
        if starts.size == 0:
            break
        matches[:, order - 1] = _clipped_matches(
            segment_at[starts], side_at[starts], ngram_id[starts], ngram_kinds, sides, num_segments
        )
    return stats


def _clipped_matches(
    segment: np.ndarray, side: np.ndarray, ngram: np.ndarray, ngram_kinds: int, sides: int, num_segments: int
) -> np.ndarray:
    """Per segment: sum over its hypothesis n-grams of min(count, max count in any one reference)."""
    key = segment * ngram_kinds + ngram
    labels, distinct = pd.factorize(key * sides + side)
    counts = np.bincount(labels)
    distinct_key = distinct // sides
    distinct_side = distinct % sides
    groups, group_keys = pd.factorize(distinct_key)
    in_hyp = distinct_side == 0
    hyp_count = np.bincount(groups[in_hyp], weights=counts[in_hyp], minlength=len(group_keys))
    if sides == 2:  # one reference per segment: its count is the maximum
        ref_max = np.bincount(groups[~in_hyp], weights=counts[~in_hyp], minlength=len(group_keys))
    else:
        ref_max = np.zeros(len(group_keys), dtype=np.float64)
        np.maximum.at(ref_max, groups[~in_hyp], counts[~in_hyp])
    clipped = np.minimum(hyp_count, ref_max)
    return np.bincount(group_keys // ngram_kinds, weights=clipped, minlength=num_segments).astype(np.int64)

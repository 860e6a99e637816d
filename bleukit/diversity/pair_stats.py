"""Options, inputs and statistics rows for BLEU between many texts (pairwise, self-BLEU, MBR).

Every number these calls report is a sentence BLEU (or a sum of sentence statistics) scored by
`bleukit.core` from ordinary statistics rows, so it is what `compute` gives for the same pair:

    pair (a, b):            [len a, len b, matches(a, b) per order, n-grams of a per order]
    text vs the others:     [len t, closest length among the others, matches against the
                             others (clipped by their largest count), n-grams of t per order]

Defaults: sentence BLEU as sacreBLEU's `sentence_bleu` computes it (smooth="exp",
effective_order=True), the reward's defaults too; every option of `compute` can be passed.
`convention="nltk"` scores as NLTK's `sentence_bleu` (so Texygen and fast-bleu): smoothing
`method1` by default, and an order the hypothesis is too short for counts one n-gram that never
matches (NLTK's modified precision divides by max(1, count)); no effective order.

Token ids follow the one rule of `bleukit.token_ids`, as in `compute`: every negative id (-100
padding) and every id in `ignore_ids` (alias `pad_id`) is dropped before counting, so each entry
equals `compute` on the same ids with the same `ignore_ids`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from bleukit.core import bleu_rows, options_for_token_ids
from bleukit.counting.chunks import encode_sequences
from bleukit.inputs import TEXT, TOKEN_IDS, as_list, detect_input_kind
from bleukit.options import BleuOptions, resolve_options
from bleukit.counting.pairs import PairLayout
from bleukit.scoring import brevity_penalties
from bleukit.counting.stats import encode_tokens, length_of_key, reference_length_key, stat_width
from bleukit.token_ids import DEFAULT_RULE, TokenIdRule, refuse_for_text, split_token_id_options, token_id_rule

SENTENCE_DEFAULTS = {"smooth": "exp", "effective_order": True}
NLTK_DEFAULTS = {"smooth": "method1", "effective_order": False}
CONVENTIONS = ("sacrebleu", "nltk")


@dataclass(frozen=True)
class ManyOptions:
    """The BLEU options of a many-text call, its counting convention, and the token-id rule
    (`bleukit.token_ids`; None when neither `ignore_ids` nor `pad_id` was given)."""

    bleu: BleuOptions
    convention: str = "sacrebleu"
    rule: Optional[TokenIdRule] = None

    def signature(self, num_refs: Any) -> str:
        signature = self.bleu.signature(num_refs)
        return signature if self.convention == "sacrebleu" else signature + f"|conv:{self.convention}"


def resolve_many(convention: str = "sacrebleu", **options: Any) -> ManyOptions:
    """The options over the sentence defaults (or NLTK's), checked as `compute` checks them;
    `ignore_ids` and `pad_id` make the token-id rule, as for `compute`."""
    rule_keywords, options = split_token_id_options(options)
    rule = token_id_rule(**rule_keywords)
    if convention not in CONVENTIONS:
        raise ValueError(f"unknown convention {convention!r}; pass 'sacrebleu' (the default) or 'nltk'")
    defaults = SENTENCE_DEFAULTS if convention == "sacrebleu" else NLTK_DEFAULTS
    resolved = resolve_options(**{**defaults, **options})
    if convention == "nltk":
        if resolved.smooth != "method1":
            raise ValueError(
                f"convention='nltk' reproduces NLTK's sentence_bleu with SmoothingFunction().method1 (as "
                f"Texygen and fast-bleu use it), not smooth={options.get('smooth')!r}; leave smooth out "
                "(or pass 'method1', with smooth_value for another epsilon), or drop convention='nltk'"
            )
        if resolved.effective_order:
            raise ValueError("convention='nltk' has no effective order (NLTK has none); leave effective_order out")
    return ManyOptions(resolved, convention, rule)


INT64_MAX = np.iinfo(np.int64).max


def _id_sequence(item: Any, where: str) -> np.ndarray:
    """One text of token ids as int64, unchanged: the rule drops ids later, in `encode`."""
    array = np.asarray(item.detach().cpu() if hasattr(item, "detach") else item)
    if array.ndim == 1 and array.size and array.dtype.kind in "fO" and all(
        isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in item
    ):  # integers NumPy could not hold in int64 or uint64 (or a mix of 2**63 and a negative id)
        raise ValueError(f"{where} holds an id outside 64-bit integers; token ids must be below 2**63")
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise TypeError(f"{where} is {type(item).__name__} {item!r:.60}; with token ids, pass a list of integers")
    if array.size and array.dtype.kind == "u" and int(array.max()) > INT64_MAX:  # would wrap to a negative id
        raise ValueError(f"{where} holds {int(array.max())}; token ids must be below 2**63")
    return array.astype(np.int64)


def check_texts(values: Any, name: str, kind: str | None = None, minimum: int = 1) -> Tuple[list, str]:
    """(the texts as a list, their kind): strings, or lists of token ids (`kind` requires one)."""
    items = as_list(values, name)
    if len(items) < minimum:
        raise ValueError(f"{name} has {len(items)} texts; pass at least {minimum}")
    kind = kind or detect_input_kind(items)
    if kind == TEXT:
        for index, item in enumerate(items):
            if not isinstance(item, str):
                raise TypeError(
                    f"{name}[{index}] is {type(item).__name__} {item!r:.60}; pass strings (use '' for an "
                    "empty text)" + (", or token ids for every text" if index else "")
                )
        return items, TEXT
    return [_id_sequence(item, f"{name}[{index}]") for index, item in enumerate(items)], TOKEN_IDS


def options_for_kind(options: ManyOptions, kind: str) -> ManyOptions:
    """Token ids have no tokenizer (signature tok:ids), as in `compute`; `ignore_ids` with text is
    an error, as in `compute`."""
    if kind == TOKEN_IDS:
        return ManyOptions(options_for_token_ids(options.bleu), options.convention, options.rule)
    refuse_for_text(options.rule)
    return options


def encode(texts: Sequence[Any], options: ManyOptions, kind: str) -> Tuple[np.ndarray, np.ndarray]:
    """(dense token ids, tokens per text) of all texts, tokenized as `compute` tokenizes them; token
    ids without the ids the rule drops (negative ones and `ignore_ids`), as `compute` counts them."""
    if kind == TOKEN_IDS:  # already checked arrays: concatenate without a Python loop per token
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        flat = np.concatenate(texts) if texts else np.zeros(0, dtype=np.int64)
        flat, lengths = (options.rule or DEFAULT_RULE).drop(flat, lengths)
        return encode_tokens(flat), lengths
    return encode_sequences(texts, options.bleu, kind)


def ngram_totals(lengths: np.ndarray, orders: int, convention: str) -> np.ndarray:
    """(texts, orders): the hypothesis n-grams of each order, max(1, ...) under NLTK's convention."""
    totals = np.maximum(np.asarray(lengths)[:, None] - np.arange(orders)[None, :], 0)
    return np.maximum(totals, 1) if convention == "nltk" else totals


def closest_other_lengths(lengths: np.ndarray, groups: np.ndarray, policy: str) -> np.ndarray:
    """Per text, the effective reference length among the *other* texts of its group: the
    closest (ties to the shorter) or the shortest, as `bleukit.counting.stats.effective_reference_lengths`
    chooses among references. Every group needs two texts."""
    order = np.lexsort((lengths, groups))
    ordered, ordered_groups = lengths[order], groups[order]
    count = len(lengths)
    far = np.iinfo(np.int64).max // 4  # no neighbour on that side within the group
    new_group = ordered_groups[1:] != ordered_groups[:-1]
    previous = np.full(count, -far)
    previous[1:] = np.where(new_group, -far, ordered[:-1])
    following = np.full(count, far)
    following[:-1] = np.where(new_group, far, ordered[1:])
    if policy == "shortest":  # the group's shortest, or its second shortest for the shortest text
        first = np.flatnonzero(np.concatenate([[True], new_group]))
        shortest = np.repeat(ordered[first], np.diff(np.append(first, count)))
        chosen = np.where(previous == -far, following, shortest)
    else:  # closest: the sorted neighbour with the smaller key (the one rule; a tie goes to the shorter)
        span = int(ordered.max(initial=0)) + 1
        keys = [np.where(present, reference_length_key(ordered, np.where(present, side, 0), policy, span), far)
                for side, present in ((previous, previous != -far), (following, following != far))]
        chosen = length_of_key(np.minimum(*keys), policy, span)
    result = np.empty(count, dtype=np.int64)
    result[order] = chosen
    return result


def against_others_statistics(lengths: np.ndarray, groups: np.ndarray, matches: np.ndarray,
                              options: ManyOptions) -> np.ndarray:
    """Statistics rows of each text against all the others of its group as references."""
    stats = np.empty((len(lengths), stat_width(options.bleu.orders)), dtype=np.int64)
    stats[:, 0] = lengths
    stats[:, 1] = closest_other_lengths(lengths, groups, options.bleu.ref_length)
    orders = options.bleu.orders
    stats[:, 2 : 2 + orders] = matches
    stats[:, 2 + orders :] = ngram_totals(lengths, orders, options.convention)
    return stats


def _rows(hyp_lengths: np.ndarray, ref_lengths: np.ndarray, matches: np.ndarray, options: ManyOptions) -> np.ndarray:
    """Statistics rows from (rows,) lengths and (rows, orders) matches, one reference each."""
    orders = options.bleu.orders
    stats = np.empty((len(hyp_lengths), stat_width(orders)), dtype=np.int64)
    stats[:, 0], stats[:, 1], stats[:, 2 : 2 + orders] = hyp_lengths, ref_lengths, matches
    stats[:, 2 + orders :] = ngram_totals(hyp_lengths, orders, options.convention)
    return stats


def score_pair_block(layout: PairLayout, lo: int, hi: int, matches: np.ndarray,
                     options: ManyOptions) -> Tuple[np.ndarray, np.ndarray]:
    """(BLEU (hi - lo, width), valid (hi - lo, width)) for a block of `pair_matches`: A's texts
    lo..hi-1 each against the B texts of its group as its one reference (so the reference
    length is that text's length); `valid` is False (and BLEU 0) past a group's B texts.

    `score_rows` computes BLEU as the brevity penalty times the rest (the smoothed geometric
    mean, 0 without a match), and only the penalty reads the reference length. A row with the
    reference length set to the hypothesis length has penalty 1.0, so its score *is* the rest,
    exactly. Pairs repeat the same hypothesis length and matches often, so each distinct
    (length, matches) is scored once that way, each distinct (length, reference length) gets
    its penalty from `bleukit.scoring.brevity_penalties`, and their product is the number
    `score_rows` gives for the pair's own row, bit for bit (the tests check it).
    """
    orders, width = matches.shape[0], matches.shape[2]
    b_counts = layout.b_counts()
    b_first = np.cumsum(b_counts) - b_counts
    groups = layout.groups[lo:hi]
    local = np.arange(width)[None, :]
    valid = local < b_counts[groups][:, None]
    b_texts = layout.b_start + np.where(valid, b_first[groups][:, None] + local, 0)
    hyp_lengths = np.broadcast_to(layout.lengths[lo:hi, None], valid.shape)
    ref_lengths = np.where(valid, layout.lengths[b_texts], 0)
    bits = max(int(layout.lengths.max(initial=0)).bit_length(), 1)
    if bits * (1 + orders) > 63:  # too long to pack: score every row
        stats = _rows(hyp_lengths.ravel(), ref_lengths.ravel(), matches.reshape(orders, -1).T, options)
        return np.where(valid, bleu_rows(stats, options.bleu).reshape(valid.shape), 0.0), valid
    keys = hyp_lengths.astype(np.int64)
    for order in range(orders):
        keys = (keys << bits) | matches[order]
    distinct, inverse = np.unique(keys.ravel(), return_inverse=True)
    fields = (distinct[:, None] >> (bits * np.arange(orders, -1, -1))[None, :]) & ((1 << bits) - 1)
    without_penalty = bleu_rows(_rows(fields[:, 0], fields[:, 0], fields[:, 1:], options), options.bleu)
    length_keys = (hyp_lengths.astype(np.int64) << bits) | ref_lengths
    length_pairs, length_inverse = np.unique(length_keys.ravel(), return_inverse=True)
    penalties = brevity_penalties(length_pairs >> bits, length_pairs & ((1 << bits) - 1))
    scores = penalties[length_inverse] * without_penalty[inverse]
    return np.where(valid, scores.reshape(valid.shape), 0.0), valid


def check_top(top: Any) -> int:
    if isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 0:
        raise ValueError(f"top must be an integer >= 0, not {top!r}")
    return int(top)

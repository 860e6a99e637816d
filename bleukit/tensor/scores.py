"""BLEU of padded token-id tensors, counted on the tensors' own device (a GPU in a training loop).

    rows = statistics(predictions, references, ignore_ids=(0,), per_segment=True)  # int64, same device
    scores = sentence_bleu(predictions, references, ignore_ids=(0,))               # float64 (B,), same device
    result = corpus_bleu(predictions, references, ignore_ids=(0,))                 # the metric's result dict

predictions: (B, L) torch.long; references: (B, L2) for one reference each, or (B, R, L2) for up to
R (a reference row that is all padding is absent, so the number may vary per segment). Padding is
the token-id rule's (`bleukit.token_ids`): every negative id and every id in `ignore_ids` (alias
`pad_id`) is dropped wherever it stands, so left- and right-padded batches give the same numbers. The statistics rows are those of `bleukit.counting.stats` (and `bleukit.streaming.statistics`
on the same ids), so they can be all-reduced across processes without leaving the device; the
scores come from `bleukit.scoring` on those rows, the same formulas as every other path.

The counting mirrors `bleukit.counting.stats.ngram_statistics` in torch: every n-gram occurrence gets a key
naming its segment and its n-gram, built order by order from the (n-1)-gram's dense code times the
vocabulary plus the next token (packed into one int64; large ids are renumbered first), so it is
exact for any vocabulary. Hypothesis and reference keys are sorted together, and that sorted
run is the batch's n-gram dictionary (an n-gram's code is the rank of its run); one scatter-add
counts each code per source (the hypothesis, each reference rank), and clipping takes the
minimum of the hypothesis count and the references' maximum. Every shape is known in advance
(no `torch.unique`, whose output size the host must wait for), so the counting waits for the
device once, for the largest id, and the kernels of all orders are queued back to back. No
Python loop runs over sentences or n-grams, only over the orders. CPU tensors are counted by
`bleukit.counting.stats` itself (NumPy's grouping is several times faster than torch's there).

torch is optional for the package: it is imported inside the functions here.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Dict, List, Tuple

import numpy as np

from bleukit.core import bleu_rows, options_for_token_ids, result_from_statistics
from bleukit.options import BleuOptions, resolve_options
from bleukit.counting.stats import (
    HYP_LEN, INT64_KEY_BOUND, REF_LEN, encode_tokens, length_of_key, ngram_statistics, reference_length_key, stat_width,
)
from bleukit.token_ids import PADDING, TokenIdRule, token_id_rule

if TYPE_CHECKING:  # pragma: no cover
    import torch


def _torch():
    try:
        import torch
    except ImportError as error:  # pragma: no cover - the environment decides
        raise ImportError(
            "bleukit.tensor needs PyTorch for tensor inputs; install torch, or pass lists of token ids "
            "to the metric's compute instead"
        ) from error
    return torch


def _resolve(options: Dict[str, Any]) -> BleuOptions:
    """The metric's options for token ids (signature tok:ids); a tokenizer makes no sense here."""
    if "tokenizer" in options:
        raise ValueError(
            f"tokenizer={options['tokenizer']!r} applies to text, but tensor inputs are token ids "
            "(they are the tokens); leave tokenizer out"
        )
    return options_for_token_ids(resolve_options(**options))


def _first_row(mask: "torch.Tensor") -> Tuple[int, ...]:
    """The index of the first True entry of `mask`, as a tuple (for an error message)."""
    return tuple(int(i) for i in mask.nonzero()[0].tolist())


def check_inputs(
    predictions: Any, references: Any, rule: TokenIdRule, require_references: bool = True
) -> Tuple["torch.Tensor", "torch.Tensor"]:
    """(predictions (B, L), references (B, R, L2)) with every id the rule drops replaced by
    PADDING (see `bleukit.token_ids`), or a TypeError/ValueError naming what is wrong.

    Everything is checked before any counting, with one device synchronisation in the good case.
    A segment of a (B, R, L2) tensor whose reference rows are all padding has no reference: an
    error, unless not `require_references` (see `segments_without_reference`). In (B, L2) each
    row is the segment's one reference, empty if it is all padding.
    """
    torch = _torch()
    for name, value in (("predictions", predictions), ("references", references)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(
                f"{name} is {type(value).__name__}; pass a torch.long tensor of padded token ids "
                "(or use the metric's compute for lists)"
            )
        if value.dtype != torch.long:
            raise TypeError(f"{name} has dtype {value.dtype}; pass token ids as torch.long ({name}.long())")
    if predictions.dim() != 2:
        raise ValueError(
            f"predictions has shape {tuple(predictions.shape)}; pass a 2-D (batch, length) tensor"
        )
    if references.dim() not in (2, 3):
        raise ValueError(
            f"references has shape {tuple(references.shape)}; pass (batch, length) for one reference "
            "per segment or (batch, references, length) for several"
        )
    if references.shape[0] != predictions.shape[0]:
        raise ValueError(
            f"predictions has {predictions.shape[0]} rows but references has {references.shape[0]}; "
            "pass one row (or one group of reference rows) per prediction"
        )
    if predictions.device != references.device:
        raise ValueError(
            f"predictions are on {predictions.device} but references on {references.device}; move "
            "both to one device"
        )
    if predictions.shape[0] == 0:
        raise ValueError("predictions is empty; pass at least one prediction")
    several = references.dim() == 3
    predictions, references = rule.padded(predictions), rule.padded(references)
    if not several:
        return predictions, references.unsqueeze(1)
    if require_references:
        missing = segments_without_reference(references)
        if bool(missing.any()):
            row = _first_row(missing)[0]
            listed = f" or in ignore_ids={sorted(rule.ignore_ids)}" if rule.ignore_ids else ""
            raise ValueError(
                f"segment {row} has no reference: every reference row of references[{row}] is all padding "
                f"(negative ids{listed}); pass at least one reference row with a token per segment"
            )
    return predictions, references


def segments_without_reference(references: "torch.Tensor") -> "torch.Tensor":
    """For padded (B, R, L2) references, True where a segment has no row with a token."""
    return ~(references >= 0).flatten(1).any(dim=1)


def _compacted(ids: "torch.Tensor", pad_id: int = PADDING) -> Tuple["torch.Tensor", "torch.Tensor"]:
    """(ids with the padding (every position equal to `pad_id`) removed and the gaps closed,
    left-aligned along the last dimension, and the lengths). Positions at or past a row's length
    hold 0; no device synchronisation."""
    torch = _torch()
    kept = ids != pad_id
    width = ids.shape[-1]
    target = torch.where(kept, kept.cumsum(dim=-1) - 1, width)  # every pad to a spare last column
    spare = torch.zeros(ids.shape[:-1] + (width + 1,), dtype=ids.dtype, device=ids.device)
    return spare.scatter_(-1, target, ids.masked_fill(~kept, 0))[..., :width], kept.sum(dim=-1)


def _effective_reference_lengths(hyp_len: "torch.Tensor", ref_lens: "torch.Tensor", policy: str, bound: int):
    """Per segment, the reference length its brevity penalty uses, as `bleukit.counting.stats`
    .effective_reference_lengths: `closest` (ties to the shorter) or `shortest`, over the present
    references (`ref_lens`: (R, B), 0 for an absent one); 0 for a segment without any (its one
    reference is empty). `bound` exceeds every length."""
    torch = _torch()
    absent = ref_lens == 0
    span = bound + 1
    key = reference_length_key(hyp_len[None, :], ref_lens, policy, span)
    best = length_of_key(key.masked_fill(absent, torch.iinfo(torch.int64).max).amin(dim=0), policy, span)
    return best.masked_fill(absent.all(dim=0), 0)


def _stacked(predictions: "torch.Tensor", references: "torch.Tensor") -> "torch.Tensor":
    """One (B x (1 + R), W) tensor of id rows: the B predictions, then the B references of rank 0,
    of rank 1, ... (W, the wider of the two, is filled with PADDING)."""
    segments, ranks, ref_width = references.shape
    width = max(predictions.shape[1], ref_width)
    rows = predictions.new_full((segments * (1 + ranks), width), PADDING)
    rows[:segments, : predictions.shape[1]] = predictions
    rows[segments:, :ref_width] = references.transpose(0, 1).reshape(segments * ranks, ref_width)
    return rows


def segment_statistics(
    predictions: "torch.Tensor", references: "torch.Tensor", orders: int, ref_length: str = "closest"
) -> "torch.Tensor":
    """Statistics rows (B, 2 + 2 * orders) int64 on the inputs' device, for checked inputs
    (predictions (B, L), references (B, R, L2), padding negative; see `check_inputs`).

    As `bleukit.counting.stats.ngram_statistics`: each n-gram occurrence's key names its segment and its
    n-gram, (segment, token) for unigrams, then (code of the (n-1)-gram at the same position, next
    token), packed into one int64. Hypothesis and reference rows are stacked and their keys
    sorted together: that sorted run is the batch's n-gram dictionary, and an n-gram's code is the
    rank of its run (what `torch.unique` would number it). One scatter-add counts every code per
    source (the hypothesis, each reference rank); clipping takes the minimum of the hypothesis
    count and the references' maximum. Every shape is known before the work starts (there are at
    most as many codes as positions; a position past its row's n-grams gets a sentinel key, one
    for hypotheses and another for references, so it never matches), so the orders queue their
    kernels without waiting for the device: the counting synchronises once, for the largest id.
    """
    torch = _torch()
    device = predictions.device
    segments, ranks = references.shape[0], references.shape[1]
    stats = torch.zeros((segments, stat_width(orders)), dtype=torch.int64, device=device)
    ids, lengths = _compacted(_stacked(predictions, references))  # (B(1+R), W), (B(1+R),)
    hyp_len, ref_lens = lengths[:segments], lengths[segments:].view(ranks, segments)  # 0: absent reference
    stats[:, HYP_LEN] = hyp_len
    stats[:, REF_LEN] = _effective_reference_lengths(hyp_len, ref_lens, ref_length, references.shape[2])
    order_offsets = torch.arange(orders, device=device)
    stats[:, 2 + orders :] = (hyp_len[:, None] - order_offsets[None, :]).clamp(min=0)
    longest = min(predictions.shape[1], references.shape[2])  # no n-gram above this can match
    if longest == 0:
        return stats

    rows, width = ids.shape
    # The counting's one synchronisation (two when huge ids are renumbered): the largest id
    # decides the packing.
    vocabulary = int(ids.max()) + 1
    # Codes of (n-1)-grams are ranks among at most rows x width positions, and the unigram prefix
    # is the segment; a prefix below `prefix_bound` keeps every key below the sentinels.
    prefix_bound = max(segments, rows * width)
    if prefix_bound * vocabulary >= INT64_KEY_BOUND:  # huge ids: number them 0..V-1
        values, ids = torch.unique(ids, return_inverse=True)
        vocabulary = values.numel()
    if prefix_bound * vocabulary + 2 >= INT64_KEY_BOUND:
        raise ValueError("batch too large for 64-bit n-gram keys; score it in smaller chunks")
    row_index = torch.arange(rows, device=device)
    # Past its row's n-grams a position gets a sentinel key, one for hypothesis rows and another
    # for reference rows, so no sentinel's run counts on both sides (and none clips a match).
    sentinels = (prefix_bound * vocabulary + (row_index < segments))[:, None]
    remaining = lengths[:, None] - torch.arange(width, device=device)[None, :]  # position p is in an n-gram iff >= n
    ones = torch.ones(rows * width, dtype=torch.int64, device=device)
    prefix = (row_index % segments)[:, None]
    for order in range(1, min(orders, longest) + 1):
        starts = width - order + 1
        keys = torch.where(remaining[:, :starts] >= order, prefix * vocabulary + ids[:, order - 1 :], sentinels)
        sorted_keys, where_from = torch.sort(keys.reshape(-1))
        positions = sorted_keys.numel()
        sorted_codes = torch.nn.functional.pad((sorted_keys[1:] != sorted_keys[:-1]).cumsum(0), (1, 0))
        # Counts per code: source 0 is the hypothesis, source 1 + r reference rank r.
        source = torch.div(where_from, segments * starts, rounding_mode="floor")
        counts = torch.zeros((1 + ranks) * positions, dtype=torch.int64, device=device)
        counts.index_add_(0, source * positions + sorted_codes, ones[:positions])
        counts = counts.view(1 + ranks, positions)
        clipped = torch.minimum(counts[0], counts[1:].amax(dim=0))
        segment = torch.div(where_from, starts, rounding_mode="floor") % segments
        segment_of_code = torch.zeros(positions, dtype=torch.int64, device=device).scatter_(0, sorted_codes, segment)
        stats[:, 2 + order - 1].index_add_(0, segment_of_code, clipped)
        codes = torch.empty_like(sorted_codes).scatter_(0, where_from, sorted_codes)
        prefix = codes.view(rows, starts)[:, :-1]
    return stats


def segment_statistics_numpy(
    predictions: "torch.Tensor", references: "torch.Tensor", orders: int, ref_length: str = "closest"
) -> "torch.Tensor":
    """The same rows for CPU tensors, counted by `bleukit.counting.stats.ngram_statistics` (NumPy) on the
    tensors' memory: on a CPU it beats the torch counting (3-6x at 256 x 256 tokens, see
    bench/bench_tensor.py), so CPU tensors take this way and other devices the torch one."""
    import numpy as np

    torch = _torch()
    hyps, refs = predictions.numpy(), references.numpy()
    segments, ranks = refs.shape[0], refs.shape[1]
    hyp_kept = hyps >= 0
    by_rank = refs.transpose(1, 0, 2)  # rank-major, as bleukit.core orders references
    ref_kept = by_rank >= 0
    ref_lengths = ref_kept.sum(axis=2).reshape(-1)
    present = ref_lengths > 0  # an all-padding row is no reference ...
    present[:segments] |= ~present.reshape(ranks, segments).any(axis=0)  # ... unless it is the only one
    ids = np.concatenate([hyps[hyp_kept], by_rank[ref_kept]])
    lengths = np.concatenate([hyp_kept.sum(axis=1), ref_lengths[present]])
    owner = np.tile(np.arange(segments, dtype=np.int64), ranks)[present]
    if max(len(ids), segments) * (int(ids.max(initial=0)) + 1) >= INT64_KEY_BOUND:  # huge ids: number them 0..V-1
        ids = encode_tokens(ids)
    rows = ngram_statistics(ids, lengths, segments, owner, orders, ref_length)
    return torch.from_numpy(rows)


def count_rows(
    predictions: "torch.Tensor", references: "torch.Tensor", orders: int, ref_length: str = "closest"
) -> "torch.Tensor":
    """Statistics rows for checked inputs on the inputs' device: NumPy on a CPU, torch elsewhere."""
    counter = segment_statistics_numpy if predictions.device.type == "cpu" else segment_statistics
    return counter(predictions, references, orders, ref_length)


def _rows_and_options(predictions: Any, references: Any, ignore_ids: Any, pad_id: Any, options: Dict[str, Any]):
    resolved = _resolve(options)
    rule = token_id_rule(ignore_ids, pad_id, required="bleukit.tensor")
    predictions, references = check_inputs(predictions, references, rule)
    rows = count_rows(predictions, references, resolved.orders, resolved.ref_length)
    return rows, references, resolved


def statistics(
    predictions: "torch.Tensor",
    references: "torch.Tensor",
    *,
    ignore_ids: Any = None,
    pad_id: Any = None,
    per_segment: bool = False,
    **options: Any,
) -> "torch.Tensor":
    """BLEU statistics as int64 on the inputs' device: the column sums (1-D, `2 + 2 * K` entries),
    or with `per_segment=True` one row per segment. The same rows as `bleukit.streaming.statistics`
    on the same ids, so `torch.distributed.all_reduce` can add them across processes and
    `bleukit.streaming.score_from_statistics` (same options) scores the sum.

    `ignore_ids` (alias `pad_id`): the ids to drop besides the negative ones (see `bleukit.token_ids`);
    one of them is required, `ignore_ids=()` when -100 is the only padding.

    Like every statistics of token ids, each row ends with three columns that say so (1, r and
    r * r for a segment with r references; see `bleukit.streaming`): they add up with the rest, so
    the scored sum signs `tok:ids` and its `nrefs`, however it was summed."""
    if not isinstance(per_segment, bool):
        raise TypeError(f"per_segment must be True or False, not {per_segment!r}")
    rows, grouped, _ = _rows_and_options(predictions, references, ignore_ids, pad_id, options)
    refs = _reference_counts(grouped).to(rows.device)
    rows = _torch().cat([rows, _torch().stack([_torch().ones_like(refs), refs, refs * refs], dim=1)], dim=1)
    return rows if per_segment else rows.sum(dim=0)


def sentence_bleu(
    predictions: "torch.Tensor", references: "torch.Tensor", *, ignore_ids: Any = None, pad_id: Any = None, **options: Any
) -> "torch.Tensor":
    """BLEU of each segment (0..1), a float64 tensor of shape (B,) on the inputs' device; float32
    on a device without float64 (Apple's MPS), rounded from the same float64 scores.

    The rows are scored by `bleukit.scoring` on the CPU (one copy of B small rows), so every
    smoothing method gives exactly the text path's number.
    """
    rows, _, resolved = _rows_and_options(predictions, references, ignore_ids, pad_id, options)
    scores = bleu_rows(rows.cpu().numpy(), resolved)
    if not has_float64(rows.device):
        scores = scores.astype(np.float32)
    return _torch().from_numpy(scores).to(rows.device)


def has_float64(device: Any) -> bool:
    """Whether `device` holds float64 tensors (Apple's MPS does not: it raises a TypeError)."""
    torch = _torch()
    try:
        torch.zeros((), dtype=torch.float64, device=device)
    except (TypeError, RuntimeError):
        return False
    return True


def _reference_counts(references: "torch.Tensor") -> "torch.Tensor":
    """References per segment of checked (B, R, L2) references (int64, on their device): the rows
    with a token, or 1 where none has one (from (B, L2): the segment's one reference, empty)."""
    return (references != PADDING).any(dim=2).sum(dim=1).clamp(min=1)


def reference_counts(references: "torch.Tensor") -> List[int]:
    """References per segment of checked references, for the signature."""
    return _reference_counts(references).tolist()


def corpus_bleu(
    predictions: "torch.Tensor", references: "torch.Tensor", *, ignore_ids: Any = None, pad_id: Any = None, **options: Any
) -> Dict[str, Any]:
    """The metric's result dict (bleu, precisions, brevity penalty, lengths, signature with tok:ids)
    of the whole batch."""
    rows, grouped, resolved = _rows_and_options(predictions, references, ignore_ids, pad_id, options)
    return result_from_statistics(rows.cpu().numpy(), resolved, reference_counts(grouped))

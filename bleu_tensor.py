"""BLEU of padded token-id tensors, counted on the tensors' own device (a GPU in a training loop).

    rows = statistics(predictions, references, pad_id=0, per_segment=True)  # int64, same device
    scores = sentence_bleu(predictions, references, pad_id=0)               # float64 (B,), same device
    result = corpus_bleu(predictions, references, pad_id=0)                 # the metric's result dict

predictions: (B, L) torch.long; references: (B, L2) for one reference each, or (B, R, L2) for up to
R (a reference row that is all padding is absent, so the number may vary per segment). Every
position equal to `pad_id` is padding wherever it stands, so left- and right-padded batches give
the same numbers. The statistics rows are those of `bleu_stats` (and `bleu_streaming.statistics`
on the same ids), so they can be all-reduced across processes without leaving the device; the
scores come from `bleu_scoring` on those rows, the same formulas as every other path.

The counting mirrors `bleu_stats.ngram_statistics` in torch: every n-gram occurrence gets a dense
key naming its segment and its n-gram, built order by order from the (n-1)-gram's key and the next
token (packed into one int64 when the product fits, re-densified by a one-dimensional
`torch.unique`), so it is exact for any vocabulary; counts per side (hypothesis, reference rank
1..R) come from one bincount, clipping uses each key's maximum over the references, and only
positions whose prefix occurs on both sides of its segment go on to the next order. No Python
loop runs over sentences or n-grams, only over the orders.

torch is optional for the package: it is imported inside the functions here.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Dict, List, Tuple

try:  # inside the package `evaluate.load` builds
    from .bleu_core import bleu_rows, options_for_token_ids, result_from_statistics
    from .bleu_options import BleuOptions, resolve_options
    from .bleu_stats import HYP_LEN, REF_LEN, REF_LENGTH_POLICIES, stat_width
except ImportError:  # imported from the repository root (CLI, demo, tests)
    from bleu_core import bleu_rows, options_for_token_ids, result_from_statistics
    from bleu_options import BleuOptions, resolve_options
    from bleu_stats import HYP_LEN, REF_LEN, REF_LENGTH_POLICIES, stat_width

if TYPE_CHECKING:  # pragma: no cover
    import torch

# Packed keys stay below this bound, so (prefix key * bound + token) never overflows int64.
_INT64_SAFE = 2**62


def _torch():
    try:
        import torch
    except ImportError as error:  # pragma: no cover - the environment decides
        raise ImportError(
            "bleu_tensor needs PyTorch for tensor inputs; install torch, or pass lists of token ids "
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


def check_inputs(predictions: Any, references: Any, pad_id: Any) -> Tuple["torch.Tensor", "torch.Tensor"]:
    """(predictions (B, L), references (B, R, L2)) or a TypeError/ValueError naming what is wrong.

    Everything is checked before any counting, with one device synchronisation in the good case.
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
    if isinstance(pad_id, bool) or not isinstance(pad_id, numbers.Integral):
        raise TypeError(f"pad_id must be an integer (e.g. tokenizer.pad_token_id or -100), not {pad_id!r}")
    pad_id = int(pad_id)
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
    if references.dim() == 2:
        references = references.unsqueeze(1)
    bad_prediction = (predictions < 0) & (predictions != pad_id)
    bad_reference = (references < 0) & (references != pad_id)
    no_reference = ~(references != pad_id).flatten(1).any(dim=1)
    problems = torch.stack([bad_prediction.any(), bad_reference.any(), no_reference.any()]).tolist()
    if problems[0]:
        where = _first_row(bad_prediction)
        raise ValueError(
            f"predictions[{where[0]}, {where[1]}] is {int(predictions[where])}, a negative id that is not "
            f"pad_id={pad_id}; token ids must be >= 0, and pad_id marks the padding"
        )
    if problems[1]:
        where = _first_row(bad_reference)
        raise ValueError(
            f"references[{', '.join(map(str, where))}] is {int(references[where])}, a negative id that "
            f"is not pad_id={pad_id}; token ids must be >= 0, and pad_id marks the padding"
        )
    if problems[2]:
        row = _first_row(no_reference)[0]
        raise ValueError(
            f"segment {row} has no reference: every reference row of references[{row}] is all padding "
            f"(pad_id={pad_id}); pass at least one non-padding reference per segment"
        )
    return predictions, references


def _densify(
    prefix: "torch.Tensor", prefix_bound: int, token: "torch.Tensor", token_bound: int
) -> Tuple["torch.Tensor", "torch.Tensor"]:
    """Dense codes 0..U-1 of the pairs (prefix, token), and the prefix of each code.

    The pair is packed into one int64 when prefix_bound * token_bound fits (a 1-D unique); else
    it is grouped as rows of two (exact, slower).
    """
    torch = _torch()
    if prefix_bound * token_bound < _INT64_SAFE:
        uniques, codes = torch.unique(prefix * token_bound + token, return_inverse=True)
        return codes, torch.div(uniques, token_bound, rounding_mode="floor")
    uniques, codes = torch.unique(torch.stack([prefix, token], dim=1), dim=0, return_inverse=True)
    return codes, uniques[:, 0]


def _effective_reference_lengths(hyp_len: "torch.Tensor", ref_lens: "torch.Tensor", policy: str, bound: int):
    """Per segment, the reference length its brevity penalty uses, as `bleu_stats`
    .effective_reference_lengths: `closest` (ties to the shorter) or `shortest`, over the present
    references (`ref_lens`: (R, B), 0 for an absent one). `bound` exceeds every length."""
    torch = _torch()
    if policy not in REF_LENGTH_POLICIES:
        raise ValueError(f"unknown ref_length {policy!r}; pass one of {list(REF_LENGTH_POLICIES)}")
    absent = ref_lens == 0
    if policy == "shortest":
        return ref_lens.masked_fill(absent, torch.iinfo(torch.int64).max).amin(dim=0)
    span = bound + 1  # distance first, then the length itself breaks ties toward the shorter one
    key = (ref_lens - hyp_len[None, :]).abs() * span + ref_lens
    return key.masked_fill(absent, torch.iinfo(torch.int64).max).amin(dim=0) % span


def segment_statistics(
    predictions: "torch.Tensor", references: "torch.Tensor", pad_id: int, orders: int, ref_length: str = "closest"
) -> "torch.Tensor":
    """Statistics rows (B, 2 + 2 * orders) int64 on the inputs' device, for checked inputs
    (predictions (B, L), references (B, R, L2); see `check_inputs`)."""
    torch = _torch()
    device = predictions.device
    segments, ranks = references.shape[0], references.shape[1]
    stats = torch.zeros((segments, stat_width(orders)), dtype=torch.int64, device=device)
    hyp_kept = predictions != pad_id
    by_rank = references.transpose(0, 1)  # (R, B, L2): rank-major, each rank a contiguous block
    ref_kept = by_rank != pad_id
    hyp_len = hyp_kept.sum(dim=1)
    ref_lens = ref_kept.sum(dim=2)  # (R, B); 0 for an absent reference
    stats[:, HYP_LEN] = hyp_len
    stats[:, REF_LEN] = _effective_reference_lengths(hyp_len, ref_lens, ref_length, references.shape[2])
    order_offsets = torch.arange(orders, device=device)
    stats[:, 2 + orders :] = (hyp_len[:, None] - order_offsets[None, :]).clamp(min=0)

    # Every kept token in one flat vector: the hypotheses, then rank 1's references, rank 2's ...
    tokens = torch.cat([predictions[hyp_kept], by_rank[ref_kept]])
    total = tokens.numel()
    lengths = torch.cat([hyp_len, ref_lens.reshape(-1)])
    segment_of_sequence = torch.arange(segments, device=device).repeat(ranks + 1)
    side_of_sequence = torch.arange(ranks + 1, device=device).repeat_interleave(segments)  # 0: hypothesis
    end_at = torch.repeat_interleave(torch.cumsum(lengths, 0), lengths, output_size=total)
    segment_at = torch.repeat_interleave(segment_of_sequence, lengths, output_size=total)
    side_at = torch.repeat_interleave(side_of_sequence, lengths, output_size=total)
    positions = torch.arange(total, device=device)

    vocabulary = int(tokens.max()) + 1
    if max(total, segments) * vocabulary >= _INT64_SAFE:  # huge ids: number the distinct ones 0..V-1
        values, tokens = torch.unique(tokens, return_inverse=True)
        vocabulary = values.numel()

    matches = stats[:, 2 : 2 + orders]
    codes = segment_of_key = on_both_sides = None
    num_keys = 0
    for order in range(1, orders + 1):
        if order == 1:
            codes, segment_of_key = _densify(segment_at, segments, tokens, vocabulary)
        else:
            in_play = torch.nonzero(on_both_sides[codes] & (end_at >= positions + order)).squeeze(1)
            if in_play.numel() == 0:
                break
            positions, codes, end_at, side_at = positions[in_play], codes[in_play], end_at[in_play], side_at[in_play]
            codes, prefix_of_key = _densify(codes, num_keys, tokens[positions + order - 1], vocabulary)
            segment_of_key = segment_of_key[prefix_of_key]
        num_keys = segment_of_key.numel()
        counts = torch.bincount(side_at * num_keys + codes, minlength=(ranks + 1) * num_keys).view(ranks + 1, num_keys)
        hyp_count, ref_max = counts[0], counts[1:].amax(dim=0)
        clipped = torch.minimum(hyp_count, ref_max)
        matches[:, order - 1] = torch.zeros(segments, dtype=torch.int64, device=device).index_add_(0, segment_of_key, clipped)
        on_both_sides = (hyp_count > 0) & (ref_max > 0)
    return stats


def _rows_and_options(predictions: Any, references: Any, pad_id: Any, options: Dict[str, Any]):
    resolved = _resolve(options)
    predictions, references = check_inputs(predictions, references, pad_id)
    rows = segment_statistics(predictions, references, int(pad_id), resolved.orders, resolved.ref_length)
    return rows, references, resolved


def statistics(
    predictions: "torch.Tensor", references: "torch.Tensor", *, pad_id: int, per_segment: bool = False, **options: Any
) -> "torch.Tensor":
    """BLEU statistics as int64 on the inputs' device: the column sums (1-D, `2 + 2 * K` entries),
    or with `per_segment=True` one row per segment. The same rows as `bleu_streaming.statistics`
    on the same ids, so `torch.distributed.all_reduce` can add them across processes and
    `bleu_streaming.score_from_statistics` (same options) scores the sum."""
    if not isinstance(per_segment, bool):
        raise TypeError(f"per_segment must be True or False, not {per_segment!r}")
    rows, _, _ = _rows_and_options(predictions, references, pad_id, options)
    return rows if per_segment else rows.sum(dim=0)


def sentence_bleu(predictions: "torch.Tensor", references: "torch.Tensor", *, pad_id: int, **options: Any) -> "torch.Tensor":
    """BLEU of each segment (0..1), a float64 tensor of shape (B,) on the inputs' device.

    The rows are scored by `bleu_scoring` on the CPU (one copy of B small rows), so every
    smoothing method gives exactly the text path's number.
    """
    rows, _, resolved = _rows_and_options(predictions, references, pad_id, options)
    scores = bleu_rows(rows.cpu().numpy(), resolved)
    return _torch().from_numpy(scores).to(rows.device)


def reference_counts(references: "torch.Tensor", pad_id: int) -> List[int]:
    """References per segment (reference rows that are not all padding), for the signature."""
    if references.dim() == 2:
        return [1] * references.shape[0]
    return (references != pad_id).any(dim=2).sum(dim=1).tolist()


def corpus_bleu(predictions: "torch.Tensor", references: "torch.Tensor", *, pad_id: int, **options: Any) -> Dict[str, Any]:
    """The metric's result dict (bleu, precisions, brevity penalty, lengths, signature with tok:ids)
    of the whole batch."""
    rows, grouped, resolved = _rows_and_options(predictions, references, pad_id, options)
    return result_from_statistics(rows.cpu().numpy(), resolved, reference_counts(grouped, int(pad_id)))

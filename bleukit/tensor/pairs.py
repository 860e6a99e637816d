"""Clipped n-gram matches between every candidate and every pseudo-reference of a source, for
padded token-id tensors (B sources x N candidates x L tokens): MBR inside a generation loop.

The counting is `bleukit.counting.pairs`'s: an n-gram occurrence's column is (n-gram, k) for the k-th
occurrence in its row, and a pair's matches are the columns both rows hold, a product of 0/1
indicator matrices. CPU tensors are counted by `bleukit.counting.pairs` itself (NumPy). On other devices
torch does it with shapes known in advance, so nothing waits for the device until the end:
- an n-gram's code ranks (prefix code, next token) lexicographically by two stable sorts (no
  packing, so no read-back of the largest id); a position past its row's n-grams gets a key
  of its own, below every real one, and holds no column;
- the occurrence rank is the position in its run of equal (row, code), and the column the
  dense rank of (code, rank); a source's columns are one run of codes, at most its rows x L;
- one float64 batched product per order counts every pair of a source (float64: exact, and no
  TF32 rounding whatever the matmul precision settings).
The matches and the row lengths come back in one copy to the host,
where `bleukit.core` scores them, as every other path; or (`device_pair_matches`) they stay on the
device, for `bleukit.tensor.pair_scores` to score there (what `mbr` does on a GPU). Sources are
processed in chunks that keep the indicator matrices within CHUNK_BYTES. A device without float64
(Apple's MPS) multiplies float32 indicators instead: exact too, as every count is at most a row's
length, far below 2**24.

Padding is the token-id rule's (`bleukit.token_ids`), as in `bleukit.tensor.scores`: `check_tensors` replaces
every negative id and every id in `ignore_ids` (alias `pad_id`) with PADDING, and the counting
drops every PADDING wherever it stands; an all-padding pseudo-reference row is absent, an
all-padding candidate an empty text.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from bleukit.counting.pairs import make_layout, order_columns, pair_matches
from bleukit.counting.stats import encode_tokens
from bleukit.tensor.scores import _compacted
from bleukit.token_ids import PADDING, TokenIdRule

# The indicator matrices of one chunk of sources stay below this many bytes.
CHUNK_BYTES = 1 << 30


def check_tensors(candidates: Any, references: Any, rule: TokenIdRule):
    """(candidates (B, N, L), references (B, M, L2) or None, whether one source was given as
    (N, L)), with every id the rule drops replaced by PADDING, or a TypeError/ValueError saying
    what to pass."""
    import torch

    for name, value in (("candidates", candidates), ("pseudo_references", references)):
        if value is None and name == "pseudo_references":
            continue
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} is {type(value).__name__}; with tensor candidates, pass a torch.long tensor")
        if value.dtype != torch.long:
            raise TypeError(f"{name} has dtype {value.dtype}; pass token ids as torch.long ({name}.long())")
    single = candidates.dim() == 2
    if candidates.dim() not in (2, 3):
        raise ValueError(
            f"candidates has shape {tuple(candidates.shape)}; pass (N, L) for one source or (B, N, L) for a batch"
        )
    if single:
        candidates = candidates.unsqueeze(0)
        references = None if references is None else references.unsqueeze(0)
    if candidates.shape[0] == 0 or candidates.shape[1] < (2 if references is None else 1):
        need = "two candidates (the others are the pseudo-references)" if references is None else "one candidate"
        raise ValueError(f"candidates has shape {tuple(candidates.shape)}; each source needs at least {need}")
    if references is not None:
        if references.dim() != 3 or references.shape[0] != candidates.shape[0] or references.shape[1] == 0:
            expected = "(M, L2)" if single else f"({candidates.shape[0]}, M, L2)"
            raise ValueError(
                f"pseudo_references has shape {tuple(references.shape)}; pass {expected} with M >= 1, like candidates"
            )
        if references.device != candidates.device:
            raise ValueError(
                f"candidates are on {candidates.device} but pseudo_references on {references.device}; "
                "move both to one device"
            )
    return rule.padded(candidates), None if references is None else rule.padded(references), single


def _numpy_matches(candidates, references, orders: int):
    """The CPU way: `bleukit.counting.pairs` on the tensors' memory (padding: PADDING, see `check_tensors`)."""
    sources, count = candidates.shape[0], candidates.shape[1]
    arrays = [candidates.numpy().reshape(sources * count, candidates.shape[2])]
    if references is not None:
        arrays.append(references.numpy().reshape(sources * references.shape[1], references.shape[2]))
    kept = [array != PADDING for array in arrays]
    lengths = np.concatenate([mask.sum(axis=1) for mask in kept])
    ids = encode_tokens(np.concatenate([array[mask] for array, mask in zip(arrays, kept)]))
    width = count if references is None else references.shape[1]
    groups = np.repeat(np.arange(sources), count)
    if references is not None:
        groups = np.concatenate([groups, np.repeat(np.arange(sources), width)])
    layout = make_layout(lengths, groups, sources * count, references is None)
    matches = np.zeros((orders, sources * count, width), dtype=np.int64)
    for lo, hi, block in pair_matches(layout, order_columns(ids, layout, orders)):
        matches[:, lo:hi] = block
    return matches, lengths


def _lexicographic_codes(first, second):
    """Dense codes ranking the pairs (first, second), by two stable sorts (no packing)."""
    import torch

    by_second = torch.argsort(second, stable=True)
    order = by_second[torch.argsort(first[by_second], stable=True)]
    return _codes_of_sorted(order, first[order], second[order])


def _codes_of_sorted(order, *sorted_keys):
    """Codes 0.. for positions sorted by `order` (a new code where any sorted key changes)."""
    import torch

    change = torch.zeros_like(order, dtype=torch.bool)
    for keys in sorted_keys:
        change[1:] |= keys[1:] != keys[:-1]
    return torch.empty_like(order).scatter_(0, order, change.long().cumsum(0))


def _torch_chunk(ids, lengths, groups: int, count: int, width: int, same: bool, orders: int, dtype=None):
    """(orders, groups * count, width) int64 matches for one chunk of sources, on the device.
    `ids` (R, W) compacted rows: the chunk's candidates (count per source), then its
    pseudo-references (width per source) unless `same`. `dtype`: the indicators' (float64, or
    float32 on a device without float64)."""
    import torch

    dtype = torch.float64 if dtype is None else dtype

    device = ids.device
    rows, row_width = ids.shape
    num_a = groups * count
    row_group = torch.cat([torch.arange(groups, device=device).repeat_interleave(count)]
                          + ([] if same else [torch.arange(groups, device=device).repeat_interleave(width)]))
    row_slot = torch.cat([torch.arange(count, device=device).repeat(groups)]
                         + ([] if same else [torch.arange(width, device=device).repeat(groups)]))
    matches = torch.zeros((orders, groups, count, width), dtype=torch.int64, device=device)
    prefix = row_group[:, None]
    for order in range(1, min(orders, row_width) + 1):
        starts = row_width - order + 1
        positions = rows * starts
        valid = (lengths[:, None] - torch.arange(starts, device=device)[None, :] >= order).reshape(-1)
        own_key = -1 - torch.arange(positions, device=device)  # below every real key, one per position
        first = torch.where(valid, prefix.expand(rows, starts).reshape(-1), own_key)
        second = torch.where(valid, ids[:, order - 1 : order - 1 + starts].reshape(-1), 0)
        codes = _lexicographic_codes(first, second)
        # The occurrence rank: the position within the run of equal (row, code).
        row_of = torch.arange(rows, device=device).repeat_interleave(starts)
        run_keys, by_run = torch.sort(row_of * positions + codes)
        index = torch.arange(positions, device=device)
        run_start = torch.ones(positions, dtype=torch.bool, device=device)
        run_start[1:] = run_keys[1:] != run_keys[:-1]
        run_first = torch.cummax(torch.where(run_start, index, 0), dim=0).values
        rank = torch.empty_like(index).scatter_(0, by_run, index - run_first)
        column_keys, by_column = torch.sort(codes * starts + rank)
        columns = _codes_of_sorted(by_column, column_keys)
        # A source's columns are one run: number them from its first.
        group_of = row_group.repeat_interleave(starts)
        first_column = torch.full((groups,), positions, dtype=torch.int64, device=device)
        first_column.scatter_reduce_(0, group_of, torch.where(valid, columns, positions), "amin")
        bound = (count if same else count + width) * starts  # columns per source, at most
        local = torch.where(valid, columns - first_column[group_of], bound)
        slot_of = row_slot.repeat_interleave(starts)
        on_a = row_of < num_a
        holders = torch.zeros(1 if same else 2, groups, max(count, width), bound + 1, dtype=dtype, device=device)
        side = torch.zeros_like(row_of) if same else (~on_a).long()
        holders.view(-1).scatter_(0, ((side * groups + group_of) * holders.shape[2] + slot_of) * (bound + 1) + local, 1.0)
        a_side = holders[0, :, :count, :bound]
        b_side = holders[0 if same else 1, :, :width, :bound]
        matches[order - 1] = torch.bmm(a_side, b_side.transpose(1, 2)).round().long()
        prefix = codes.view(rows, starts)[:, :-1]
    return matches.view(orders, num_a, width)


def _torch_matches(candidates, references, orders: int) -> Tuple[np.ndarray, np.ndarray]:
    """The way for other devices (what the module docstring describes): (matches, lengths) as
    NumPy arrays after one copy back to the host; any device works (the tests run it on a CPU)."""
    import torch

    matches, lengths = device_pair_matches(candidates, references, orders)
    packed = torch.cat([matches.reshape(-1), lengths]).cpu().numpy()  # the one copy back
    split = matches.numel()
    return packed[:split].reshape(matches.shape), packed[split:]


def device_pair_matches(candidates, references, orders: int):
    """(matches (orders, B * N, width) int64, lengths of every row (candidates, then
    pseudo-references)) as tensors on the tensors' device, counted the torch way, with nothing
    read back (checked tensors, see `check_tensors`)."""
    import torch

    from bleukit.tensor import scores as tensor_scores

    dtype = torch.float64 if tensor_scores.has_float64(candidates.device) else torch.float32
    sources, count = candidates.shape[0], candidates.shape[1]
    same = references is None
    width = count if same else references.shape[1]
    row_width = max(candidates.shape[2], 0 if same else references.shape[2])
    sides = 1 if same else 2
    per_source = sides * max(count, width) * ((count if same else count + width) * row_width + 1) * 8
    chunk = max(1, CHUNK_BYTES // max(per_source, 1))
    pieces, chunk_lengths = [], []
    for start in range(0, sources, chunk):
        stop = min(sources, start + chunk)
        blocks = [candidates[start:stop].reshape((stop - start) * count, candidates.shape[2])]
        if not same:
            blocks.append(references[start:stop].reshape((stop - start) * width, references.shape[2]))
        rows = candidates.new_full((sum(block.shape[0] for block in blocks), row_width), PADDING)
        offset = 0
        for block in blocks:
            rows[offset : offset + block.shape[0], : block.shape[1]] = block
            offset += block.shape[0]
        ids, lengths = _compacted(rows, PADDING)
        pieces.append(_torch_chunk(ids, lengths, stop - start, count, width, same, orders, dtype))
        chunk_lengths.append(lengths)
    in_layout_order = _chunked_row_order(sources, chunk, count, width, same).to(candidates.device)
    lengths = torch.cat(chunk_lengths)[in_layout_order]
    return torch.cat(pieces, dim=1), lengths


def tensor_pair_matches(
    candidates, references, orders: int, rule: Optional[TokenIdRule] = None
) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """(matches (orders, B * N, width) int64, lengths of every row (candidates, then
    pseudo-references), which pseudo-references are present (None without them)), as NumPy
    arrays, for checked tensors (see `check_tensors`; `rule` only names the ids in a message):
    NumPy on a CPU, torch elsewhere."""
    counter = _numpy_matches if candidates.device.type == "cpu" else _torch_matches
    matches, lengths = counter(candidates, references, orders)
    if references is None:
        return matches, lengths, None
    sources, width = references.shape[0], references.shape[1]
    present = lengths[sources * candidates.shape[1] :] > 0
    missing = np.flatnonzero(~present.reshape(sources, width).any(axis=1))
    if missing.size:
        listed = f" or in ignore_ids={sorted(rule.ignore_ids)}" if rule is not None and rule.ignore_ids else ""
        raise ValueError(
            f"source {int(missing[0])} has no pseudo-reference: every row of pseudo_references[{int(missing[0])}] "
            f"is padding (negative ids{listed}); pass at least one row with a token per source"
        )
    return matches, lengths, present


def _chunked_row_order(sources: int, chunk: int, count: int, width: int, same: bool):
    """Indices that put the chunks' row lengths (each chunk: its candidates, then its
    pseudo-references) in the layout's order (all candidates, then all pseudo-references)."""
    import torch

    candidate_rows, reference_rows, offset = [], [], 0
    for start in range(0, sources, chunk):
        size = min(sources, start + chunk) - start
        candidate_rows.append(torch.arange(offset, offset + size * count))
        offset += size * count
        if not same:
            reference_rows.append(torch.arange(offset, offset + size * width))
            offset += size * width
    return torch.cat(candidate_rows + reference_rows)

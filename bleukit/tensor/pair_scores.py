"""Sentence BLEU of every candidate pair, each candidate's expected BLEU and the MBR choice, on
the tensors' own device (torch, float64): what `bleukit.diversity.mbr` does for tensors on a GPU, so
that only what the caller asked for is ever read back.

The formulas are `bleukit.scoring.score_rows`'s, step for step and operation for operation (the
same additions, products and divisions in the same order, each correctly rounded in IEEE float64
on every device; a division by a number is a tensor division, never torch's reciprocal-times
shortcut), and `bleukit.diversity.pair_stats.score_pair_block`'s (BLEU = brevity penalty times the
smoothed geometric mean); every smoothing method and option `score_rows` takes is here. The
logarithms and exponentials are the host's own: the C library's `math.log` and `math.exp` (NumPy's
`np.log` for method 4's log of the length) of each *distinct* argument (`libm_values`: the
arguments are unique'd on the device, only those few numbers cross, twice per chunk), gathered back
on the device. So each pair's BLEU is the host's bit for bit (the tests check every smoothing
method), not merely within an ulp, and nothing of size pairs is read back.

A candidate's expected BLEU is the host's `_expected`: its counted BLEU values sorted, summed in
NumPy's pairwise order (`pairwise_sum`, the same additions NumPy's `sum` makes) and divided by
their number; duplicates (the same multiset of BLEU values) tie bit for bit, and the choice is
the first maximum (`torch.argmax`, as NumPy's). A safety net for hardware where some operation
would round differently after all: where two different candidates of a source come within a few
ulp of each other at the top (`near_ties`, rare), the caller rescores that source on the host, so
the chosen index is the host's on every input.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

import numpy as np

from bleukit.diversity.pair_stats import ManyOptions
from bleukit.scoring import _LOG_FLOAT_MAX, LEGACY_ADD_ONE, SMOOTHING_DEFAULTS

# Pairs scored at once: the (sources, N, width) float64 temporaries of a chunk stay within a few
# hundred MiB.
PAIRS_PER_CHUNK = 1 << 22
# NumPy's pairwise summation: blocks of at most this many values, 8 partial sums each.
_PW_BLOCKSIZE = 128


def default_device_scoring(device: Any) -> bool:
    """Whether `mbr` scores on the device when not told: on every device but the CPU (where the
    NumPy counting and scoring are the fast way) that holds float64."""
    from bleukit.tensor import scores as tensor_scores

    return device.type != "cpu" and tensor_scores.has_float64(device)


def pair_bleu(matches, hyp_lengths, ref_lengths, options: ManyOptions, longest: int):
    """(BLEU (B, N, W) float64, the largest finite-candidate log sum (a 0-d tensor)) of every pair:
    `matches` (orders, B, N, W) int64 clipped matches of candidate n of source b against its
    pseudo-reference w, `hyp_lengths` (B, N), `ref_lengths` (B, W), all on one device; `longest`
    bounds the candidates' lengths (their padded width). Each value
    is `score_pair_block`'s for that pair (see the module docstring for the last bits). The log
    sum is for `bleukit.scoring._check_representable` (-inf when every score is 0)."""
    import torch

    bleu = options.bleu
    max_order, smooth = bleu.max_order, bleu.smooth
    weights = np.asarray(bleu.weights, dtype=np.float64).tolist()  # as `_row_weights` reads them
    value = SMOOTHING_DEFAULTS[smooth] if bleu.smooth_value is None else bleu.smooth_value
    orders = matches.shape[0]
    device, f64 = matches.device, torch.float64
    shape = tuple(matches.shape[1:])
    hyp_int = hyp_lengths[:, :, None]
    hyp = hyp_int.to(f64).expand(shape)
    ref = ref_lengths[:, None, :].to(f64).expand(shape)

    def total(n: int):  # `ngram_totals`
        count = (hyp_int - n).clamp(min=0)
        if options.convention == "nltk":
            count = count.clamp(min=1)
        return count.to(f64).expand(shape)

    all_matches = [matches[n].to(f64) for n in range(orders)]
    all_totals = [total(n) for n in range(orders)]
    original = all_matches[:max_order]
    m, t = list(original), all_totals[:max_order]
    zeros = torch.zeros(shape, dtype=f64, device=device)
    next_precision = zeros
    if orders > max_order:
        following_total = all_totals[max_order]
        next_precision = torch.where(following_total > 0, all_matches[max_order] / following_total, zeros)
    powers = torch.tensor([2.0 ** k for k in range(max_order + 1)], dtype=f64, device=device)
    if smooth in ("method4", "method7"):  # `_smoothed_precisions` takes NumPy's log of the length
        table = torch.from_numpy(np.log(np.arange(1, longest + 1, dtype=np.float64)))
        table = torch.cat([torch.tensor([-math.inf], dtype=f64), table]).to(device)
        log_length = table[hyp_int.clamp(max=table.numel() - 1)].expand(shape)

    # `_smoothed_precisions`
    if smooth == LEGACY_ADD_ONE:
        p = [(m[n] + 1.0) / (t[n] + 1.0) for n in range(max_order)]
        available = sum((t[n] > 0).long() for n in range(max_order))
        counted = [torch.full(shape, n, device=device) < available for n in range(max_order)]
    else:
        if smooth in ("add-k", "method2"):
            added = value if smooth == "add-k" else 1.0
            m = [m[0]] + [x + added for x in m[1:]]
            t = [t[0]] + [x + added for x in t[1:]]
        counted, running = [], torch.ones(shape, dtype=torch.bool, device=device)
        for n in range(max_order):
            running = running & (t[n] > 0)
            counted.append(running)
        available = sum(c.long() for c in counted)
        p, halvings = [], torch.zeros(shape, dtype=torch.long, device=device)
        for n in range(max_order):
            matched = counted[n] & (m[n] > 0)
            unmatched = counted[n] & ~matched
            precision = torch.where(matched, m[n] / t[n], zeros)
            halvings = halvings + unmatched.long()
            if smooth in ("exp", "method3"):
                precision = torch.where(unmatched, _over(1.0, powers[halvings] * t[n]), precision)
            elif smooth in ("floor", "method1"):
                precision = torch.where(unmatched, _over(value, t[n]), precision)
            elif smooth in ("method4", "method7"):
                decayed = unmatched & (hyp > 1)
                smoothed = _over(1.0, powers[halvings] * value / log_length) / t[n]
                precision = torch.where(decayed, smoothed, precision)
            p.append(precision)
        if smooth in ("method5", "method7"):
            following = p[1:] + [torch.where(available == max_order, next_precision, zeros)]
            previous = p[0] + 1.0
            for n in range(max_order):
                averaged = torch.div(previous + p[n] + following[n], torch.full_like(previous, 3.0))
                p[n] = torch.where(counted[n], averaged, p[n])
                previous = p[n]
        elif smooth == "method6":
            for n in range(2, max_order):
                before_last = p[n - 2]
                safe = torch.where(before_last == 0, 1.0, before_last)
                extrapolated = torch.where(before_last == 0, 0.0, (p[n - 1] * p[n - 1]) / safe)
                interpolated = (m[n] + value * extrapolated) / (t[n] + value)
                p[n] = torch.where(counted[n], interpolated, p[n])

    # `score_rows`
    used = available if bleu.effective_order else torch.full(shape, max_order, device=device)
    kept = torch.from_numpy(np.concatenate([[0.0], np.cumsum(np.asarray(weights))])).to(device)
    kept_of_row = kept[used]
    total_weight = sum(weights)
    log_sum = zeros
    zero = used == 0
    log_inputs, weights_of = [], []
    for n in range(max_order):
        rescaled = torch.where(kept_of_row > 0, _over(weights[n] * total_weight, kept_of_row), zeros)
        weight = torch.where(used == max_order, weights[n], rescaled)
        weight = torch.where(used > n, weight, zeros)
        weighted = weight > 0
        log_inputs.append(torch.where(weighted & (p[n] > 0), p[n], 1.0))
        weights_of.append(weight)
        zero = zero | (weighted & (p[n] <= 0))
    # `brevity_penalties`' exponents, with the logs: one trip for the C library's values
    shorter = (hyp < ref) & (hyp > 0)
    exponents = 1.0 - ref / torch.where(shorter, hyp, 1.0)
    logs_and_exps = libm_values(torch.stack(log_inputs + [torch.where(shorter, exponents, 0.0)]),
                                [math.log] * len(log_inputs) + [math.exp])
    for n in range(max_order):
        log_sum = log_sum + weights_of[n] * logs_and_exps[n]
    largest = torch.where(zero, -math.inf, log_sum).max()
    beyond = log_sum > _LOG_FLOAT_MAX  # the caller raises `_check_representable`'s error from `largest`
    exponent = torch.where(zero | beyond, zeros, log_sum)
    geometric_mean = torch.where(zero, zeros, libm_values(exponent[None], [math.exp])[0])
    # bleu_rows on the row with the reference length set to the hypothesis's: penalty 1.0
    nothing = hyp == 0
    if smooth != LEGACY_ADD_ONE:
        nothing = nothing | ~torch.stack([x > 0 for x in original]).any(dim=0)
    without_penalty = torch.where(nothing, zeros, geometric_mean)
    penalty = torch.where(hyp >= ref, 1.0, zeros)
    penalty = torch.where(shorter, logs_and_exps[-1], penalty)
    return penalty * without_penalty, largest


def _over(numerator: float, denominator):
    """numerator / denominator, correctly rounded: torch computes `scalar / tensor` as the
    reciprocal times the scalar (two roundings), NumPy as one division."""
    import torch

    return torch.div(torch.full_like(denominator, numerator), denominator)


def libm_values(values, functions):
    """functions[k] (the C library's `math.log` or `math.exp`, as `bleukit.scoring` takes them) of
    every value of values[k], bit for bit: each distinct argument is sent to the host once (few:
    precisions and log sums repeat across pairs), and the results gathered back on the device."""
    import torch

    parts = []
    for row, function in zip(values, functions):
        distinct, inverse = torch.unique(row, return_inverse=True)
        parts.append((distinct, inverse, function))
    host = torch.cat([distinct for distinct, _, _ in parts]).cpu().numpy().tolist()
    results, offset = [], 0
    for distinct, _, function in parts:
        size = distinct.numel()
        results.append(list(map(function, host[offset : offset + size])))
        offset += size
    mapped = torch.tensor([value for chunk in results for value in chunk], dtype=torch.float64).to(values.device)
    out, offset = [], 0
    for distinct, inverse, _ in parts:
        out.append(mapped[offset : offset + distinct.numel()][inverse])
        offset += distinct.numel()
    return out


def _leaves(start: int, size: int, out: List[Tuple[int, int]]):
    """NumPy's pairwise split of `size` values from `start`: a nested tuple of leaf indices into
    `out`, where each leaf (start, size) is summed by 8 running sums."""
    if size <= _PW_BLOCKSIZE:
        out.append((start, size))
        return len(out) - 1
    half = size // 2
    half -= half % 8
    return (_leaves(start, half, out), _leaves(start + half, size - half, out))


def _leaf_sum(x):
    """NumPy's `pairwise_sum` of at most 128 values, along the last dimension."""
    import torch

    size = x.shape[-1]
    if size < 8:
        result = torch.zeros(x.shape[:-1], dtype=x.dtype, device=x.device)
        for i in range(size):
            result = result + x[..., i]
        return result
    whole = size - size % 8
    r = x[..., 0:8]
    for i in range(8, whole, 8):
        r = r + x[..., i : i + 8]
    result = ((r[..., 0] + r[..., 1]) + (r[..., 2] + r[..., 3])) + ((r[..., 4] + r[..., 5]) + (r[..., 6] + r[..., 7]))
    for i in range(whole, size):
        result = result + x[..., i]
    return result


def pairwise_sum(x):
    """The sum along the last dimension with NumPy's additions (`np.sum` of a contiguous float64
    row: pairwise halves down to blocks of 128, 8 running sums in each), so that it is bit for bit
    NumPy's. The leaves of one size are summed together (a few dozen kernels in all)."""
    import torch

    leaves: List[Tuple[int, int]] = []
    tree = _leaves(0, x.shape[-1], leaves)
    sums: List[Any] = [None] * len(leaves)
    by_size: dict = {}
    for index, (start, size) in enumerate(leaves):
        by_size.setdefault(size, []).append(index)
    for size, indices in by_size.items():
        stacked = torch.stack([x[..., leaves[i][0] : leaves[i][0] + size] for i in indices], dim=-2)
        summed = _leaf_sum(stacked)
        for position, index in enumerate(indices):
            sums[index] = summed[..., position]

    def combine(node):
        return sums[node] if isinstance(node, int) else combine(node[0]) + combine(node[1])

    return combine(tree)


def expected_bleu(scores, counted):
    """(B, N) expected BLEU from (B, N, W) scores and the pairs that count: `_expected`'s sorted,
    NumPy-ordered sum over the counted values, divided by their number."""
    import torch

    ordered = torch.sort(torch.where(counted, scores, torch.zeros_like(scores)), dim=-1).values
    return pairwise_sum(ordered) / counted.sum(dim=-1).to(torch.float64)


def near_ties(expected, width: int):
    """(B,) True where a source's best expected BLEU and another candidate's differ, but by no
    more than the device and host computations of them could (a generous bound: 4 ulp per pair,
    plus a rounding per addition, on both candidates), so the host should decide."""
    import torch

    best = expected.max(dim=-1, keepdim=True).values
    bound = best * (2.0 ** -50 * (2 * width + 8))
    gap = best - expected
    return ((gap > 0) & (gap <= bound)).any(dim=-1)


def score_on_device(matches, hyp_lengths, ref_lengths, present, same: bool, options: ManyOptions,
                    keep_matrix: bool, longest: int):
    """(expected (B, N), chosen (B,), matrix (B, N, W) or None, near ties (B,), largest log sum) on
    the device, in chunks of sources of at most PAIRS_PER_CHUNK pairs. `matches` (orders, B, N, W);
    `present` (B, W) bool, the pseudo-references with a token (None: the candidates themselves,
    without the diagonal)."""
    import torch

    sources, count, width = matches.shape[1], matches.shape[2], matches.shape[3]
    chunk = max(1, PAIRS_PER_CHUNK // max(count * width, 1))
    expected, matrices, largest = [], [], []
    eye = torch.eye(count, width, dtype=torch.bool, device=matches.device) if same else None
    for start in range(0, sources, chunk):
        stop = min(sources, start + chunk)
        scores, top = pair_bleu(matches[:, start:stop], hyp_lengths[start:stop], ref_lengths[start:stop], options,
                               longest)
        largest.append(top.reshape(1))
        if same:
            counted = ~eye.expand(stop - start, count, width)
        else:
            counted = present[start:stop, None, :].expand(stop - start, count, width)
        expected.append(expected_bleu(scores, counted))
        if keep_matrix:
            matrices.append(scores if same else torch.where(counted, scores, math.nan))
    expected_all = torch.cat(expected)
    chosen = torch.argmax(expected_all, dim=1)  # the first maximum
    matrix = torch.cat(matrices) if keep_matrix else None
    return expected_all, chosen, matrix, near_ties(expected_all, width), torch.cat(largest).max()


def rescored(host_scores, matches, lengths, flagged: np.ndarray, sources: int, count: int, width: int,
             same: bool) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """The host's (expected (k * N,), matrix) for the flagged sources (k of them): their matches
    and lengths read back and scored by `host_scores(matches, lengths, k)`."""
    import torch

    rows = torch.from_numpy(flagged).to(matches.device)
    picked = matches.view(matches.shape[0], sources, count, width)[:, rows]
    candidate_lengths = lengths[: sources * count].view(sources, count)[rows].reshape(-1)
    parts = [picked.reshape(-1), candidate_lengths]
    if not same:
        parts.append(lengths[sources * count :].view(sources, width)[rows].reshape(-1))
    packed = torch.cat(parts).cpu().numpy()
    split = picked.numel()
    return host_scores(packed[:split].reshape(matches.shape[0], len(flagged) * count, width), packed[split:], len(flagged))

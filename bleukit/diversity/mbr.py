"""Minimum Bayes risk (MBR) decoding with BLEU as the utility: pick the candidate with the
highest expected BLEU against the pseudo-references.

    mbr(candidates)                        # one source: a list of candidate texts
    mbr([cands_1, cands_2, ...])           # a batch: one list of candidates per source
    mbr(candidates, pseudo_references)     # expected BLEU against other samples
    mbr(ids, ignore_ids=(pad_token_id,))   # torch.long (N, L) or (B, N, L) token ids, any device

The expected BLEU of candidate i is the mean of its sentence BLEU against each pseudo-reference
(default: the *other* candidates of its source; a duplicate of i is another candidate and
counts). The chosen candidate has the highest expected BLEU; ties go to the lowest index. A
candidate's BLEU values are summed in sorted order, so two candidates with the same values
(duplicates) get bit-identical expectations and the tie rule decides, not rounding.

Every BLEU is the sentence BLEU `compute` (or sacreBLEU's `sentence_bleu`, with the default
options smooth="exp", effective_order=True) gives for that pair; token ids (lists or tensors)
follow the one token-id rule (`bleukit.token_ids`): every negative id and every id in `ignore_ids`
(alias `pad_id`) is dropped before counting, as `compute` drops them; the pairs are counted all at
once by `bleukit.counting.pairs` (text and lists of ids) or `bleukit.tensor.pairs` (tensors on a GPU),
and scored by `bleukit.core`; tensors on a GPU are scored there by `bleukit.tensor.pair_scores`
(the same formulas in torch float64, within 2 ulp, the same choice; see `mbr`'s `device_scoring`).
"""

from __future__ import annotations

import numbers
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from bleukit.inputs import as_list, is_tensor
from bleukit.diversity.pair_stats import ManyOptions, check_texts, encode, options_for_kind, resolve_many, score_pair_block
from bleukit.counting.pairs import PAIRS_PER_BLOCK, PairLayout, make_layout, order_columns, pair_matches
from bleukit.tensor import pair_scores
from bleukit.tensor.pairs import check_tensors, device_pair_matches, tensor_pair_matches
from bleukit.token_ids import token_id_rule


def _is_single_text(item: Any) -> bool:
    """A text: a string, or a flat sequence of integer ids (a list, an array, a 1-D tensor)."""
    if isinstance(item, str):
        return True
    if is_tensor(item):
        return item.dim() == 1
    if isinstance(item, np.ndarray):
        return item.ndim == 1
    if isinstance(item, (list, tuple)):
        return not item or isinstance(item[0], (numbers.Integral, np.integer))
    return False


def _sources(values: Any, name: str) -> Tuple[List[list], bool]:
    """(one list of texts per source, whether one source was given as a flat list)."""
    items = as_list(values, name)
    if not items:
        raise ValueError(f"{name} is empty; pass a list of texts (one source) or a list of such lists (a batch)")
    if _is_single_text(items[0]):
        return [items], True
    return [as_list(item, f"{name}[{index}]") for index, item in enumerate(items)], False


def _expected(scores: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """Per row, the mean of the counted scores, summed in sorted order (duplicates tie exactly)."""
    summed = np.sort(np.where(counted, scores, 0.0), axis=1).sum(axis=1)
    return summed / counted.sum(axis=1)


def _utilities(layout: PairLayout, blocks, options: ManyOptions, counted_refs: Optional[np.ndarray],
               keep_matrix: bool) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """(expected BLEU per candidate, the (candidates, width) BLEU matrix if asked) from blocks of
    pair matches. A pair counts if it is valid, not a candidate against itself (`same`), and its
    pseudo-reference is present (`counted_refs` (num_b,), for tensors' all-padding rows)."""
    expected = np.empty(layout.num_a)
    matrix = None
    b_counts = layout.b_counts()
    b_first = np.cumsum(b_counts) - b_counts
    a_first = np.cumsum(layout.a_counts()) - layout.a_counts()
    for lo, hi, matches in blocks:
        scores, valid = score_pair_block(layout, lo, hi, matches, options)
        counted = valid.copy()
        groups = layout.groups[lo:hi]
        if layout.same:
            counted[np.arange(hi - lo), np.arange(lo, hi) - a_first[groups]] = False
        if counted_refs is not None:
            local = np.arange(valid.shape[1])[None, :]
            counted &= counted_refs[np.where(valid, b_first[groups][:, None] + local, 0)]
        expected[lo:hi] = _expected(scores, counted)
        if keep_matrix:
            if matrix is None:
                matrix = np.empty((layout.num_a, valid.shape[1]))
            matrix[lo:hi] = np.where(valid, scores, np.nan)
    return expected, matrix


def _chosen(expected: np.ndarray, sizes: Sequence[int]) -> List[int]:
    """Per source, the index of its highest expected BLEU (the first one on a tie)."""
    bounds = np.cumsum([0] + list(sizes))
    return [int(np.argmax(expected[bounds[k] : bounds[k + 1]])) for k in range(len(sizes))]


def mbr(candidates: Any, pseudo_references: Any = None, *, return_matrix: bool = False,
        convention: str = "sacrebleu", device_scoring: Optional[bool] = None, **options: Any) -> Dict[str, Any]:
    """MBR decoding with sentence BLEU as the utility; see the module docstring.

    Returns, for one source (a flat list of candidates):
      chosen: the index of the chosen candidate; best: that candidate;
      expected_bleu: each candidate's mean BLEU against the pseudo-references (0..1);
      matrix (with return_matrix=True): (candidates, pseudo-references) sentence BLEU, each
        candidate as the hypothesis (by default the pseudo-references are the candidates: the
        diagonal, a candidate against itself, is left out of the expectation);
      signature.
    For a batch (a list of candidate lists), `chosen` and `best` are lists, `expected_bleu` a
    list of lists, `matrix` a list of arrays. Token ids (lists, or tensors) drop every negative id
    and every id in `ignore_ids` (alias `pad_id`) before counting, as `compute` does. Torch tensors
    must name their padding, as in `bleukit.tensor.scores` (`ignore_ids=(pad_token_id,)`, or `ignore_ids=()`
    when -100 is the only padding): candidates (N, L) or (B, N, L), pseudo-references (M, L2) or
    (B, M, L2), where an all-padding pseudo-reference row is absent (an all-padding candidate is an
    empty text); the results are tensors on the candidates' device.

    Tensors are scored where they are (`device_scoring`, tensors only): by default, on a GPU (any
    device but the CPU that holds float64), the pairs are scored there in float64 by
    `bleukit.tensor.pair_scores` and only the results stay, on the device: each pair's BLEU within
    2 ulp of the host's (torch's log and exp against the C library's), the expected BLEU summed as
    the host sums it, the same chosen index (duplicates tie bit for bit and go to the lowest index;
    a source whose top two differ by less than the rounding could explain is rescored on the
    host). On the CPU (NumPy counts there) and with `device_scoring=False`, the matches are read
    back and scored on the host by NumPy; `device_scoring=True` scores on the device, the CPU
    included (the torch counting and scoring a GPU runs). A device without float64 (Apple's MPS)
    always falls back to the host: counted there in float32 (exact), the matches read back and
    scored in float64 on the host, `expected_bleu` and `matrix` rounded to float32 on the device.
    """
    if not isinstance(return_matrix, bool):
        raise TypeError(f"return_matrix must be True or False, not {return_matrix!r}")
    if device_scoring is not None and not isinstance(device_scoring, bool):
        raise TypeError(f"device_scoring must be None, True or False, not {device_scoring!r}")
    resolved = resolve_many(convention, **options)
    if is_tensor(candidates):
        return _mbr_tensors(candidates, pseudo_references, resolved, return_matrix, device_scoring)
    sources, single = _sources(candidates, "candidates")
    same = pseudo_references is None
    if not same:
        refs, refs_single = _sources(pseudo_references, "pseudo_references")
        if refs_single != single or len(refs) != len(sources):
            raise ValueError(
                "pseudo_references must have the shape of candidates: "
                f"{'one list of texts' if single else f'{len(sources)} lists'}, "
                f"one per source; got {'one list' if refs_single else f'{len(refs)} lists'}"
            )
    kind = None
    flat: List[Any] = []
    for index, group in enumerate(sources):
        where = "candidates" if single else f"candidates[{index}]"
        texts, kind = check_texts(group, where, kind, minimum=2 if same else 1)
        flat.extend(texts)
    sizes = [len(group) for group in sources]
    ref_sizes: List[int] = []
    if not same:
        for index, group in enumerate(refs):
            texts, _ = check_texts(group, "pseudo_references" if single else f"pseudo_references[{index}]", kind)
            flat.extend(texts)
            ref_sizes.append(len(texts))
    resolved = options_for_kind(resolved, kind)
    ids, lengths = encode(flat, resolved, kind)
    groups = np.concatenate([np.repeat(np.arange(len(sizes)), sizes), np.repeat(np.arange(len(ref_sizes)), ref_sizes)])
    layout = make_layout(lengths, groups, sum(sizes), same)
    blocks = pair_matches(layout, order_columns(ids, layout, resolved.bleu.orders))
    expected, matrix = _utilities(layout, blocks, resolved, None, return_matrix)
    chosen = _chosen(expected, sizes)
    bounds = np.cumsum([0] + sizes).tolist()
    per_source = [expected[bounds[k] : bounds[k + 1]].tolist() for k in range(len(sizes))]
    result: Dict[str, Any] = {
        "chosen": chosen,
        "best": [sources[k][index] for k, index in enumerate(chosen)],
        "expected_bleu": per_source,
    }
    if return_matrix:
        widths = sizes if same else ref_sizes
        result["matrix"] = [matrix[bounds[k] : bounds[k + 1], : widths[k]] for k in range(len(sizes))]
    if single:
        result = {key: value[0] for key, value in result.items()}
    result["signature"] = resolved.signature(1)
    return result


def _host_scores(matches: np.ndarray, lengths: np.ndarray, present: Optional[np.ndarray], sources: int,
                 count: int, width: int, options: ManyOptions, return_matrix: bool):
    """(expected (sources * count,), matrix (sources, count, width) or None) scored on the host from
    the matches and lengths of `tensor_pair_matches` (NumPy), absent pseudo-references NaN."""
    same = present is None
    groups = np.concatenate([np.repeat(np.arange(sources), count), [] if same else np.repeat(np.arange(sources), width)])
    layout = make_layout(lengths, groups.astype(np.int64), sources * count, same)
    rows = max(1, PAIRS_PER_BLOCK // max(width, 1))
    blocks = ((lo, min(lo + rows, layout.num_a), matches[:, lo : lo + rows]) for lo in range(0, layout.num_a, rows))
    expected, matrix = _utilities(layout, blocks, options, present, return_matrix)
    if return_matrix:
        if not same:  # absent pseudo-references: NaN, as past a group's end
            matrix = np.where(present.reshape(sources, 1, width), matrix.reshape(sources, count, width), np.nan)
        matrix = np.ascontiguousarray(matrix).reshape(sources, count, width)
    return expected, matrix


def _mbr_tensors(candidates: Any, pseudo_references: Any, options: ManyOptions,
                 return_matrix: bool, device_scoring: Optional[bool] = None) -> Dict[str, Any]:
    """MBR of padded token-id tensors: counted on their device, then scored there
    (`bleukit.tensor.pair_scores`) or read back once and scored here; see `mbr`."""
    import torch

    from bleukit.tensor import scores as tensor_scores

    options = options_for_kind(options, "token_ids")
    rule = options.rule or token_id_rule(required="mbr on padded tensors")  # tensors must name their padding
    originals = candidates if candidates.dim() != 2 else candidates.unsqueeze(0)
    candidates, references, single = check_tensors(candidates, pseudo_references, rule)
    device = candidates.device
    wanted = pair_scores.default_device_scoring(device) if device_scoring is None else device_scoring
    float64 = tensor_scores.has_float64(device)
    if wanted and float64:
        result = _scored_on_device(candidates, references, options, return_matrix, rule)
    else:  # the host scores (float64 there; a device without float64 gets float32 results)
        result = _scored_on_host(candidates, references, options, return_matrix, rule, float64)
    chosen_tensor = result["chosen"]
    result["best"] = originals[torch.arange(candidates.shape[0], device=device), chosen_tensor]  # as given
    result = {key: result[key] for key in ("chosen", "best", "expected_bleu", "matrix") if key in result}
    if single:
        result = {key: value[0] for key, value in result.items()}
    result["signature"] = options.signature(1)
    return result


def _scored_on_host(candidates, references, options: ManyOptions, return_matrix: bool, rule, float64: bool):
    import torch

    sources, count = candidates.shape[0], candidates.shape[1]
    width = count if references is None else references.shape[1]
    matches, lengths, present = tensor_pair_matches(candidates, references, options.bleu.orders, rule)
    expected, matrix = _host_scores(matches, lengths, present, sources, count, width, options, return_matrix)
    chosen = _chosen(expected, [count] * sources)
    device = candidates.device
    dtype = torch.float64 if float64 else torch.float32
    result: Dict[str, Any] = {
        "chosen": torch.tensor(chosen, dtype=torch.long).to(device),
        "expected_bleu": torch.from_numpy(expected.reshape(sources, count)).to(dtype).to(device),
    }
    if return_matrix:
        result["matrix"] = torch.from_numpy(matrix).to(dtype).to(device)
    return result


def _scored_on_device(candidates, references, options: ManyOptions, return_matrix: bool, rule):
    """Counted and scored on the device; one small read-back (per source: whether it has a
    pseudo-reference and whether its top is a near tie; the largest log sum), and the host
    rescores only the sources with a near tie (`pair_scores.near_ties`)."""
    import torch

    from bleukit.scoring import _LOG_FLOAT_MAX, _check_representable

    sources, count = candidates.shape[0], candidates.shape[1]
    same = references is None
    width = count if same else references.shape[1]
    orders = options.bleu.orders
    matches, lengths = device_pair_matches(candidates, references, orders)
    hyp_lengths = lengths[: sources * count].view(sources, count)
    ref_lengths = hyp_lengths if same else lengths[sources * count :].view(sources, width)
    present = None if same else ref_lengths > 0
    expected, chosen, matrix, near, largest = pair_scores.score_on_device(
        matches.view(orders, sources, count, width), hyp_lengths, ref_lengths, present, same, options, return_matrix,
        candidates.shape[2],
    )
    missing = torch.zeros_like(near) if same else ~present.any(dim=1)
    flags = torch.cat([near.double(), missing.double(), largest.double().reshape(1)]).cpu().numpy()  # the one read-back
    if flags[sources : 2 * sources].any():
        first = int(np.flatnonzero(flags[sources : 2 * sources])[0])
        listed = f" or in ignore_ids={sorted(rule.ignore_ids)}" if rule.ignore_ids else ""
        raise ValueError(
            f"source {first} has no pseudo-reference: every row of pseudo_references[{first}] "
            f"is padding (negative ids{listed}); pass at least one row with a token per source"
        )
    if flags[-1] > _LOG_FLOAT_MAX:
        _check_representable(flags[-1:], np.array([False]), options.bleu.weights)
    flagged = np.flatnonzero(flags[:sources])
    if flagged.size:  # the host decides near ties, so the choice is the host's
        def host_scores(host_matches, host_lengths, k):
            host_present = None if same else host_lengths[k * count :] > 0
            return _host_scores(host_matches, host_lengths, host_present, k, count, width, options, return_matrix)

        fixed, fixed_matrix = pair_scores.rescored(host_scores, matches, lengths, flagged, sources, count, width, same)
        rows = torch.from_numpy(flagged).to(expected.device)
        expected[rows] = torch.from_numpy(fixed.reshape(len(flagged), count)).to(expected.device)
        chosen[rows] = torch.tensor(_chosen(fixed, [count] * len(flagged)), dtype=torch.long).to(expected.device)
        if return_matrix:
            matrix[rows] = torch.from_numpy(fixed_matrix).to(expected.device)
    result: Dict[str, Any] = {"chosen": chosen, "expected_bleu": expected}
    if return_matrix:
        result["matrix"] = matrix
    return result

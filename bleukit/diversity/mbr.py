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
once by `bleukit.counting.pairs` (text and lists of ids) or `bleukit.tensor.pairs` (tensors on a GPU, read back
once per call), and scored by `bleukit.core`.
"""

from __future__ import annotations

import numbers
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from bleukit.inputs import as_list, is_tensor
from bleukit.diversity.pair_stats import ManyOptions, check_texts, encode, options_for_kind, resolve_many, score_pair_block
from bleukit.counting.pairs import PAIRS_PER_BLOCK, PairLayout, make_layout, order_columns, pair_matches
from bleukit.tensor.pairs import check_tensors, tensor_pair_matches
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
        convention: str = "sacrebleu", **options: Any) -> Dict[str, Any]:
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
    """
    if not isinstance(return_matrix, bool):
        raise TypeError(f"return_matrix must be True or False, not {return_matrix!r}")
    resolved = resolve_many(convention, **options)
    if is_tensor(candidates):
        return _mbr_tensors(candidates, pseudo_references, resolved, return_matrix)
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


def _mbr_tensors(candidates: Any, pseudo_references: Any, options: ManyOptions,
                 return_matrix: bool) -> Dict[str, Any]:
    """MBR of padded token-id tensors: counted on their device, read back once, scored here."""
    import torch

    options = options_for_kind(options, "token_ids")
    rule = options.rule or token_id_rule(required="mbr on padded tensors")  # tensors must name their padding
    originals = candidates if candidates.dim() != 2 else candidates.unsqueeze(0)
    candidates, references, single = check_tensors(candidates, pseudo_references, rule)
    sources, count = candidates.shape[0], candidates.shape[1]
    same = references is None
    width = count if same else references.shape[1]
    matches, lengths, present = tensor_pair_matches(candidates, references, options.bleu.orders, rule)
    groups = np.concatenate([np.repeat(np.arange(sources), count), [] if same else np.repeat(np.arange(sources), width)])
    layout = make_layout(lengths, groups.astype(np.int64), sources * count, same)
    rows = max(1, PAIRS_PER_BLOCK // max(width, 1))
    blocks = ((lo, min(lo + rows, layout.num_a), matches[:, lo : lo + rows]) for lo in range(0, layout.num_a, rows))
    expected, matrix = _utilities(layout, blocks, options, None if same else present, return_matrix)
    chosen = _chosen(expected, [count] * sources)
    device = candidates.device
    chosen_tensor = torch.tensor(chosen, dtype=torch.long).to(device)
    result: Dict[str, Any] = {
        "chosen": chosen_tensor,
        "best": originals[torch.arange(sources, device=device), chosen_tensor],  # as given, padding and all
        "expected_bleu": torch.from_numpy(expected.reshape(sources, count)).to(device),
    }
    if return_matrix:
        if not same:  # absent pseudo-references: NaN, as past a group's end
            matrix = np.where(present.reshape(sources, 1, width), matrix.reshape(sources, count, width), np.nan)
        result["matrix"] = torch.from_numpy(np.ascontiguousarray(matrix).reshape(sources, count, width)).to(device)
    if single:
        result = {key: value[0] for key, value in result.items()}
    result["signature"] = options.signature(1)
    return result

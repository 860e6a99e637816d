"""BLEU between the texts of a set: the pairwise matrix, self-BLEU, and fairseq's pairwise BLEU.

    pairwise(texts_a, texts_b=None)  # sentence BLEU of every a_i against b_j as its one reference
    self_bleu(texts)                 # each text against all the others as references
    most_similar_pairs(texts, top)   # the pairs of a set with the highest BLEU

Sentence BLEU as sacreBLEU's `sentence_bleu` computes it by default (smooth="exp",
effective_order=True); every option of `compute` can be passed, and `convention="nltk"` gives
NLTK's `sentence_bleu` (Texygen's and fast-bleu's self-BLEU; see `bleukit.diversity.pair_stats`).

Self-BLEU (Zhu et al. 2018, Texygen) and fairseq's pairwise BLEU (Shen et al. 2019) are linear
here, not quadratic: a text's matches against all the others count its n-gram occurrences that
another text also has (see `bleukit.counting.pairs`), and the closest other length comes from the sorted
lengths. The pairwise matrix is quadratic by nature; it is counted a block of rows at a time.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from bleukit.core import bleu_rows, score
from bleukit.inputs import as_list
from bleukit.diversity.pair_stats import (ManyOptions, against_others_statistics, check_texts, check_top, encode,
                             ngram_totals, options_for_kind, resolve_many, score_pair_block)
from bleukit.counting.pairs import make_layout, matches_against_others, matches_over_ordered_pairs, order_columns, pair_matches
from bleukit.counting.stats import stat_width

# The command line and the Space search the most similar pairs of at most this many texts (the
# search is quadratic: 10,000 texts are about 50 million pairs, some 15 s here).
PAIR_SEARCH_LIMIT = 10_000


def _pair_blocks(texts_a: Any, texts_b: Any, convention: str, options: Dict[str, Any]):
    """Check and count the inputs of a pairwise call: (options, len(a), len(b), blocks of
    (lo, hi, scores (hi - lo, len(b))))."""
    resolved = resolve_many(convention, **options)
    a, kind = check_texts(texts_a, "texts_a")
    b, _ = (a, kind) if texts_b is None else check_texts(texts_b, "texts_b", kind)
    resolved = options_for_kind(resolved, kind)
    same = texts_b is None
    ids, lengths = encode(a if same else a + b, resolved, kind)
    groups = np.zeros(len(lengths), dtype=np.int64)
    layout = make_layout(lengths, groups, len(a), same)
    columns = order_columns(ids, layout, resolved.bleu.orders)

    def blocks():
        for lo, hi, matches in pair_matches(layout, columns):
            yield lo, hi, score_pair_block(layout, lo, hi, matches, resolved)[0]

    return resolved, len(a), len(b), blocks()


def pairwise(texts_a: Any, texts_b: Any = None, *, convention: str = "sacrebleu", **options: Any) -> Dict[str, Any]:
    """Sentence BLEU of every text of `texts_a` against every text of `texts_b` as its single
    reference (`texts_b` None: `texts_a` against itself; the diagonal is then each text against
    itself, 1.0 unless it is empty).

    Returns {"bleu": float64 array (len(texts_a), len(texts_b)), "signature": str}; entry
    [i, j] equals `compute(predictions=[a_i], references=[b_j], **same options)["bleu"]` (and
    sacreBLEU's `sentence_bleu(a_i, [b_j]).score / 100` with the default options). The counts
    go a block of rows at a time, so the only quadratic memory is the matrix returned.
    """
    resolved, num_a, num_b, blocks = _pair_blocks(texts_a, texts_b, convention, options)
    matrix = np.empty((num_a, num_b))
    for lo, hi, scores in blocks:
        matrix[lo:hi] = scores
    return {"bleu": matrix, "signature": resolved.signature(1)}


def _text_sets(texts: Any) -> Tuple[List[Any], List[int], bool]:
    """(all texts flat, the size of each set, whether several sets were given)."""
    items = as_list(texts, "texts")
    nested = bool(items) and not isinstance(items[0], str) and any(
        isinstance(item, (list, tuple)) and item and not isinstance(item[0], (int, np.integer)) for item in items[:1]
    )
    if not nested:
        return items, [len(items)], False
    sets = [as_list(item, f"texts[{index}]") for index, item in enumerate(items)]
    return [text for group in sets for text in group], [len(group) for group in sets], True


def self_bleu(texts: Any, *, convention: str = "sacrebleu", **options: Any) -> Dict[str, Any]:
    """Each text against all the other texts of its set as references (self-BLEU, Zhu et al. 2018).

    `texts`: one set (a list of strings or of token-id lists), or several sets (a list of such
    lists, e.g. the samples drawn for each prompt: each text's references are the others of its
    own set). Returns:
      self_bleu: the mean of the per-text values (what Texygen and most papers report);
      sentence_bleu: each text's BLEU against the others (a list, or a list per set);
      corpus_bleu: corpus BLEU of the same statistics summed (every text as a hypothesis);
      pairwise_bleu: fairseq's pairwise BLEU (Shen et al. 2019), corpus BLEU over every ordered
        pair of different texts of a set (one as the hypothesis, the other as its reference);
      signature.
    Higher means less diverse. With sacreBLEU's `sentence_bleu(t, others)` per text (defaults),
    or NLTK's `sentence_bleu(others, t, weights, SmoothingFunction().method1)` with
    convention="nltk", the same numbers.
    """
    resolved = resolve_many(convention, **options)
    flat, sizes, nested = _text_sets(texts)
    for index, size in enumerate(sizes):
        if size < 2:
            where = f"texts[{index}]" if nested else "texts"
            raise ValueError(
                f"{where} has {size} text(s); self-BLEU scores each text against the others, so pass at least 2"
            )
    flat, kind = check_texts(flat, "texts")
    resolved = options_for_kind(resolved, kind)
    ids, lengths = encode(flat, resolved, kind)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    layout = make_layout(lengths, groups, len(flat), same=True)
    columns = order_columns(ids, layout, resolved.bleu.orders)
    stats = against_others_statistics(lengths, groups, matches_against_others(layout, columns), resolved)
    sentence = bleu_rows(stats, resolved.bleu).tolist()
    per_set: Any = sentence
    if nested:
        bounds = np.cumsum([0] + sizes).tolist()
        per_set = [sentence[bounds[k] : bounds[k + 1]] for k in range(len(sizes))]
    num_refs = sorted({size - 1 for size in sizes})
    return {
        "self_bleu": math.fsum(sentence) / len(sentence),
        "sentence_bleu": per_set,
        "corpus_bleu": score(stats.sum(axis=0), resolved.bleu).bleu,
        "pairwise_bleu": score(_ordered_pairs_row(layout, columns, resolved), resolved.bleu).bleu,
        "signature": resolved.signature(num_refs[0] if len(num_refs) == 1 else [num_refs[0], num_refs[-1]]),
    }


def _ordered_pairs_row(layout, columns, options: ManyOptions) -> np.ndarray:
    """The statistics summed over every ordered pair (hypothesis t, reference u) of different
    texts of a set: each text is a hypothesis (size - 1) times and a reference as often."""
    orders = options.bleu.orders
    times = (layout.b_counts() - 1)[layout.groups]
    row = np.zeros(stat_width(orders), dtype=np.int64)
    row[0] = row[1] = int((times * layout.lengths).sum())
    row[2 : 2 + orders] = matches_over_ordered_pairs(layout, columns).sum(axis=0)
    row[2 + orders :] = (times[:, None] * ngram_totals(layout.lengths, orders, options.convention)).sum(axis=0)
    return row


def most_similar_pairs(texts: Any, top: int = 10, *, convention: str = "sacrebleu", **options: Any) -> Dict[str, Any]:
    """The `top` pairs of different texts of one set with the highest BLEU, in either direction.

    Returns {"pairs": [{"i", "j", "bleu": max of the two, "bleu_ij": BLEU(t_i | t_j),
    "bleu_ji": BLEU(t_j | t_i)} with i < j, highest first, ties by (i, j)], "signature"}.
    The whole matrix is scored a block at a time and never held: memory stays linear.
    """
    top = check_top(top)
    resolved, count, _, blocks = _pair_blocks(texts, None, convention, options)
    if count < 2:
        raise ValueError(f"texts has {count} text(s); pass at least 2 to find similar pairs")
    keep = min(2 * top, count * (count - 1))
    best: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None
    for lo, hi, scores in blocks:
        rows, cols = np.divmod(np.arange(scores.size), count)
        rows += lo
        off_diagonal = rows != cols
        candidates = (scores.ravel()[off_diagonal], rows[off_diagonal], cols[off_diagonal])
        if best is not None:
            candidates = tuple(np.concatenate([old, new]) for old, new in zip(best, candidates))
        best = _top_entries(*candidates, keep)
    scores, rows, cols = best if best is not None else (np.zeros(0), np.zeros(0, int), np.zeros(0, int))
    pairs: Dict[Tuple[int, int], Dict[str, float]] = {}
    for value, i, j in zip(scores.tolist(), rows.tolist(), cols.tolist()):
        pair = pairs.setdefault((min(i, j), max(i, j)), {})
        pair["bleu_ij" if i < j else "bleu_ji"] = value
    listed = [(i, j) for i, j in pairs]
    missing = [pair for pair in listed if len(pairs[pair]) < 2]
    if missing:  # the other direction of a pair whose best direction made the cut
        items = as_list(texts, "texts")
        needed = [("bleu_ji", j, i) if "bleu_ij" in pairs[(i, j)] else ("bleu_ij", i, j) for i, j in missing]
        other = pairwise([items[h] for _, h, _ in needed], [items[r] for _, _, r in needed],
                         convention=convention, **options)["bleu"].diagonal()
        for (i, j), (key, _, _), value in zip(missing, needed, other.tolist()):
            pairs[(i, j)][key] = value
    ranked = sorted(listed, key=lambda pair: (-max(pairs[pair].values()), pair))[:top]
    return {
        "pairs": [{"i": i, "j": j, "bleu": max(pairs[(i, j)].values()), "bleu_ij": pairs[(i, j)]["bleu_ij"],
                   "bleu_ji": pairs[(i, j)]["bleu_ji"]} for i, j in ranked],
        "signature": resolved.signature(1),
    }


def _top_entries(scores: np.ndarray, rows: np.ndarray, cols: np.ndarray, keep: int):
    """The `keep` highest scores (ties: lowest row, then column), with their rows and columns."""
    if len(scores) > keep:
        order = np.lexsort((cols, rows, -scores))[:keep]
        scores, rows, cols = scores[order], rows[order], cols[order]
    return scores, rows, cols

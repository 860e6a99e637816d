"""The one path from predictions and references to a BLEU result.

    inputs --(bleu_inputs)--> checked lists --(bleu_tokenizers)--> tokens --(bleu_stats)-->
    per-segment statistics --(sum)--> corpus statistics --(bleu_scoring)--> result

The metric module, the CLI, the Trainer hook and the demo all call `compute_bleu` (or the
statistics functions below it, for streaming and distributed use). Work is done in chunks of
segments so memory stays bounded however large the corpus: the statistics of the chunks add up.
"""

from __future__ import annotations

import dataclasses
from itertools import chain
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

try:  # inside the package `evaluate.load` builds
    from .bleu_inputs import TEXT, TOKEN_IDS, reference_counts, validate_inputs
    from .bleu_options import BleuOptions, resolve_options
    from .bleu_scoring import LEGACY_ADD_ONE, BleuScore, score_statistics
    from .bleu_stats import HYP_LEN, REF_LEN, encode_tokens, matches_of, ngram_statistics, stat_width, totals_of
    from .bleu_tokenizers import TokenIds
except ImportError:  # imported from the repository root (CLI, demo, tests)
    from bleu_inputs import TEXT, TOKEN_IDS, reference_counts, validate_inputs
    from bleu_options import BleuOptions, resolve_options
    from bleu_scoring import LEGACY_ADD_ONE, BleuScore, score_statistics
    from bleu_stats import HYP_LEN, REF_LEN, encode_tokens, matches_of, ngram_statistics, stat_width, totals_of
    from bleu_tokenizers import TokenIds

# Segments per chunk: large enough to amortise NumPy calls, small enough to bound memory.
CHUNK_SEGMENTS = 8192
# sacreBLEU's default seed for bootstrap resampling (SACREBLEU_SEED).
DEFAULT_BOOTSTRAP_SEED = 12345


def _prepared_lines(lines: Sequence[str], lowercase: bool) -> List[str]:
    # sacreBLEU lowercases, then strips trailing whitespace, before tokenizing.
    return [line.lower().rstrip() for line in lines] if lowercase else [line.rstrip() for line in lines]


def _references_by_rank(references: Sequence[Sequence[Any]]) -> Tuple[List[Any], np.ndarray]:
    """Every reference in one list, first references first, then second ones, ...; and owners.

    Rank-major order keeps each rank a contiguous block; with one reference per segment (the
    common case) it is simply the references in segment order.
    """
    counts = np.fromiter(map(len, references), dtype=np.int64, count=len(references))
    if counts.size and counts.max() == 1:
        return [group[0] for group in references], np.arange(len(references), dtype=np.int64)
    flat: List[Any] = []
    owners = []
    for rank in range(int(counts.max(initial=0))):
        members = np.flatnonzero(counts > rank)
        flat.extend(references[i][rank] for i in members.tolist())
        owners.append(members)
    return flat, (np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64))


def _chunk_statistics_text(
    predictions: Sequence[str], references: Sequence[Sequence[str]], options: BleuOptions
) -> np.ndarray:
    flat_references, owner = _references_by_rank(references)
    lines = _prepared_lines(predictions, options.lowercase)
    lines.extend(_prepared_lines(flat_references, options.lowercase))
    ids, lengths = options.tokenizer.encode_flat(lines)
    return ngram_statistics(ids, lengths, len(predictions), owner, options.orders, options.ref_length)


def _chunk_statistics_ids(
    predictions: Sequence[Sequence[int]], references: Sequence[Sequence[Sequence[int]]], options: BleuOptions
) -> np.ndarray:
    flat_references, owner = _references_by_rank(references)
    sequences = list(predictions) + flat_references
    lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))
    flat = np.fromiter(chain.from_iterable(sequences), dtype=np.int64, count=int(lengths.sum()))
    return ngram_statistics(
        encode_tokens(flat), lengths, len(predictions), owner, options.orders, options.ref_length
    )


def options_for_token_ids(options: BleuOptions) -> BleuOptions:
    """The options with no tokenizer (signature `tok:ids`); lowercasing has no meaning for ids."""
    if options.lowercase:
        raise ValueError(
            "lowercase=True applies to text, but the inputs are token ids; lowercase the text "
            "before encoding it, or pass lowercase=False"
        )
    return dataclasses.replace(options, tokenizer=TokenIds())


def segment_statistics(
    predictions: Sequence[Any],
    references: Sequence[Sequence[Any]],
    options: BleuOptions,
    kind: str = TEXT,
    chunk_segments: int = CHUNK_SEGMENTS,
) -> np.ndarray:
    """Statistics rows (see `bleu_stats`) for checked inputs: one row per prediction."""
    chunk = _chunk_statistics_text if kind == TEXT else _chunk_statistics_ids
    parts = [
        chunk(predictions[start : start + chunk_segments], references[start : start + chunk_segments], options)
        for start in range(0, len(predictions), chunk_segments)
    ]
    if not parts:
        return np.zeros((0, stat_width(options.orders)), dtype=np.int64)
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def score(totals: Sequence[int], options: BleuOptions) -> BleuScore:
    """The BLEU score of one statistics row (a segment's, or a sum of rows)."""
    return score_statistics(
        totals, options.max_order, options.weights, options.smooth, options.smooth_value, options.effective_order
    )


# Smoothing methods whose per-row arithmetic `bleu_rows` reproduces with array operations; the
# others (Chen & Cherry 4-7, which chain orders) are scored row by row through `score`.
_ARRAY_SMOOTHING = frozenset({"none", "floor", "add-k", "exp", "method1", "method2", "method3", LEGACY_ADD_ONE})


def bleu_rows(stats: np.ndarray, options: BleuOptions) -> np.ndarray:
    """BLEU of every statistics row (segments, or bootstrap resamples), as one float array.

    Equal to `score(row, options).bleu` for each row (tests/test_sentence_and_bootstrap.py
    checks every smoothing method); the common methods run as array operations, which is what
    makes per-segment scores and bootstrap resampling cheap, and the rest go row by row.
    """
    stats = np.atleast_2d(np.asarray(stats, dtype=np.int64))
    if options.smooth not in _ARRAY_SMOOTHING:
        return np.array([score(row, options).bleu for row in stats], dtype=np.float64)
    orders, max_order = (stats.shape[1] - 2) // 2, options.max_order
    hyp_len, ref_len = stats[:, HYP_LEN].astype(np.float64), stats[:, REF_LEN].astype(np.float64)
    raw_matches = matches_of(stats, orders)[:, :max_order].astype(np.float64)
    matches, totals = raw_matches.copy(), totals_of(stats, orders)[:, :max_order].astype(np.float64)
    smooth, value = options.smooth, options.smooth_value
    order_index = np.arange(max_order)
    if smooth == LEGACY_ADD_ONE:
        precisions = (matches + 1.0) / (totals + 1.0)
        available = (totals > 0).sum(axis=1)
    else:
        if smooth in ("add-k", "method2"):
            added = value if smooth == "add-k" else 1.0
            matches[:, 1:] += added
            totals[:, 1:] += added
        available = np.cumprod(totals > 0, axis=1).sum(axis=1)
        counted = order_index < available[:, None]
        precisions = np.zeros_like(matches)
        matched = counted & (matches > 0)
        precisions[matched] = matches[matched] / totals[matched]
        unmatched = counted & ~(matches > 0)
        if smooth in ("exp", "method3"):
            halvings = np.cumsum(unmatched, axis=1)
            precisions[unmatched] = 1.0 / ((2.0 ** halvings[unmatched]) * totals[unmatched])
        elif smooth in ("floor", "method1"):
            precisions[unmatched] = value / totals[unmatched]
    used = available if options.effective_order else np.full(len(stats), max_order)
    weights = np.asarray(options.weights, dtype=np.float64)
    kept = np.concatenate([[0.0], np.cumsum(weights)])[used]
    with np.errstate(divide="ignore", invalid="ignore"):
        rescaled = np.where(kept[:, None] > 0, weights * weights.sum() / kept[:, None], 0.0)
    row_weights = np.where((used == max_order)[:, None], weights, rescaled) * (order_index < used[:, None])
    weighted = row_weights != 0
    log_sum = (row_weights * np.log(np.where(weighted & (precisions > 0), precisions, 1.0))).sum(axis=1)
    bleu = np.exp(log_sum)
    bleu[(weighted & (precisions <= 0)).any(axis=1) | (used == 0)] = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):  # hyp_len 0: overridden just below
        brevity = np.where(hyp_len >= ref_len, 1.0, np.exp(1.0 - ref_len / hyp_len))
    bleu *= np.where(hyp_len == 0, 0.0, brevity)
    if smooth != LEGACY_ADD_ONE:
        bleu[~raw_matches.any(axis=1)] = 0.0
    return bleu


def sentence_scores(stats: np.ndarray, options: BleuOptions) -> List[float]:
    """One BLEU per segment, from that segment's own statistics row."""
    return bleu_rows(stats, options).tolist()


# Bootstrap draws are made in blocks of about this many segment indices, to bound memory.
_BOOTSTRAP_BLOCK = 1 << 22


def bootstrap_scores(
    stats: np.ndarray, options: BleuOptions, samples: int, seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED
) -> np.ndarray:
    """Corpus BLEU of `samples` resamples of the segments, drawn with replacement.

    The draws are sacreBLEU's (`numpy.random.default_rng(seed).choice(n, (samples, n))`), so the
    same seed resamples the same segments. They are made a block of resamples at a time (the
    generator's stream is the same either way) and each resample's statistics are a weighted
    sum of rows, so memory stays bounded by the block.
    """
    count = len(stats)
    rng = np.random.default_rng(seed)
    rows = stats.astype(np.float64)
    per_block = max(1, _BOOTSTRAP_BLOCK // max(count, 1))
    sums = []
    for start in range(0, samples, per_block):
        block = min(per_block, samples - start)
        draws = rng.integers(0, count, size=(block, count), dtype=np.int32)
        resample_of_draw = np.arange(block, dtype=np.int64)[:, None] * count
        weights = np.bincount((draws + resample_of_draw).ravel(), minlength=block * count).reshape(block, count)
        sums.append(np.rint(weights.astype(np.float64) @ rows).astype(np.int64))
    return bleu_rows(np.concatenate(sums), options) if sums else np.zeros(0)


def confidence_interval(scores: np.ndarray) -> Dict[str, float]:
    """The 95% interval of bootstrap scores, read as sacreBLEU reads it (1/40 from each end)."""
    ordered = np.sort(scores)
    low_index = len(ordered) // 40
    return {
        "bleu_ci_low": float(ordered[low_index]),
        "bleu_ci_high": float(ordered[len(ordered) - low_index - 1]),
        "bleu_bootstrap_mean": float(ordered.mean()),
    }


def result_from_statistics(
    stats: np.ndarray,
    options: BleuOptions,
    num_refs: Sequence[int] | int,
    return_sentence_scores: bool = False,
    bootstrap_samples: int = 0,
    bootstrap_seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
) -> Dict[str, Any]:
    """The metric's result dict from per-segment statistics rows."""
    result: Dict[str, Any] = score(stats.sum(axis=0), options).as_dict()
    result["signature"] = options.signature(num_refs)
    if return_sentence_scores:
        result["sentence_bleu"] = sentence_scores(stats, options)
    if bootstrap_samples:
        result.update(confidence_interval(bootstrap_scores(stats, options, bootstrap_samples, bootstrap_seed)))
    return result


def check_run_options(return_sentence_scores: Any, bootstrap_samples: Any, bootstrap_seed: Any) -> None:
    if not isinstance(return_sentence_scores, bool):
        raise TypeError(f"return_sentence_scores must be True or False, not {return_sentence_scores!r}")
    if isinstance(bootstrap_samples, bool) or not isinstance(bootstrap_samples, (int, np.integer)) or bootstrap_samples < 0:
        raise ValueError(f"bootstrap_samples must be an integer >= 0 (0 turns it off), not {bootstrap_samples!r}")
    if bootstrap_seed is not None and (isinstance(bootstrap_seed, bool) or not isinstance(bootstrap_seed, (int, np.integer))):
        raise TypeError(f"bootstrap_seed must be an integer or None, not {bootstrap_seed!r}")


def compute_bleu(
    predictions: Any,
    references: Any,
    return_sentence_scores: bool = False,
    bootstrap_samples: int = 0,
    bootstrap_seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
    **options: Any,
) -> Dict[str, Any]:
    """BLEU of predictions against references; the options are those of `resolve_options`."""
    return compute_bleu_for(
        None, predictions, references, return_sentence_scores, bootstrap_samples, bootstrap_seed, **options
    )


def compute_bleu_for(
    kind: Optional[str],
    predictions: Any,
    references: Any,
    return_sentence_scores: bool = False,
    bootstrap_samples: int = 0,
    bootstrap_seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
    **options: Any,
) -> Dict[str, Any]:
    """`compute_bleu` for inputs of a required kind (`text` or `token_ids`; None detects it)."""
    check_run_options(return_sentence_scores, bootstrap_samples, bootstrap_seed)
    resolved = resolve_options(**options)
    preds, refs, kind = validate_inputs(predictions, references, kind)
    if kind == TOKEN_IDS:
        resolved = options_for_token_ids(resolved)
    stats = segment_statistics(preds, refs, resolved, kind)
    return result_from_statistics(
        stats, resolved, reference_counts(refs), return_sentence_scores, bootstrap_samples, bootstrap_seed
    )

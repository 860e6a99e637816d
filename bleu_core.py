"""The one path from predictions and references to a BLEU result.

    inputs --(bleu_inputs)--> checked lists --(bleu_tokenizers)--> tokens --(bleu_stats)-->
    per-segment statistics --(sum)--> corpus statistics --(bleu_scoring)--> result

The metric module, the CLI, the Trainer hook and the demo all call `compute_bleu` (or the
statistics functions below it, for streaming and distributed use). Work is done in chunks of
segments so memory stays bounded however large the corpus: the statistics of the chunks add up.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

try:  # inside the package `evaluate.load` builds
    from .bleu_inputs import TEXT, reference_counts, validate_inputs
    from .bleu_options import BleuOptions, resolve_options
    from .bleu_scoring import BleuScore, score_statistics
    from .bleu_stats import encode_tokens, ngram_statistics, stat_width
except ImportError:  # imported from the repository root (CLI, demo, tests)
    from bleu_inputs import TEXT, reference_counts, validate_inputs
    from bleu_options import BleuOptions, resolve_options
    from bleu_scoring import BleuScore, score_statistics
    from bleu_stats import encode_tokens, ngram_statistics, stat_width

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


def sentence_scores(stats: np.ndarray, options: BleuOptions) -> List[float]:
    """One BLEU per segment, from that segment's own statistics row."""
    return [score(row, options).bleu for row in stats]


def bootstrap_scores(
    stats: np.ndarray, options: BleuOptions, samples: int, seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED
) -> np.ndarray:
    """Corpus BLEU of `samples` resamples of the segments, drawn with replacement.

    The draws are sacreBLEU's (`numpy.random.default_rng(seed).choice(n, (samples, n))`), so the
    same seed resamples the same segments; each resample's statistics are a weighted sum of rows.
    """
    count = len(stats)
    rng = np.random.default_rng(seed)
    draws = rng.choice(count, size=(samples, count), replace=True)
    weights = np.bincount((draws + (np.arange(samples) * count)[:, None]).ravel(), minlength=samples * count)
    resampled = weights.reshape(samples, count).astype(np.float64) @ stats.astype(np.float64)
    return np.array([score(np.rint(row).astype(np.int64), options).bleu for row in resampled])


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
    stats = segment_statistics(preds, refs, resolved, kind)
    return result_from_statistics(
        stats, resolved, reference_counts(refs), return_sentence_scores, bootstrap_samples, bootstrap_seed
    )

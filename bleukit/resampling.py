"""Resampling the segments' statistics rows: bootstrap sums with sacreBLEU's draws, and the
interval read off bootstrap scores. The rows are additive, so a resample's statistics are a
weighted sum of rows (how often each was drawn), one matrix product for many resamples.
"""

from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy as np

from bleukit.counting.parallel import counted_columns, process_count

# sacreBLEU's default seed for bootstrap resampling (SACREBLEU_SEED).
DEFAULT_BOOTSTRAP_SEED = 12345

# Resampling draws are made in blocks of about this many segment indices, to bound memory.
_BOOTSTRAP_BLOCK = 1 << 22
# For num_workers="auto": a resample of this many segments costs about what counting one segment
# does (6.5 ns a segment drawn, weighed and summed against 9 us a segment counted), so 1,000
# resamples of 48,064 segments weigh as 34,000 segments: enough to fork for.
DRAWS_PER_SEGMENT = 1400
# Below this, float32 sums of integers are exact (24-bit significand), and its matmul is faster.
_FLOAT32_EXACT = 1 << 24


def exact_float_dtype(bound: float) -> type:
    """float32 when every partial sum stays below 2**24 in magnitude (then exact), else float64."""
    return np.float32 if bound < _FLOAT32_EXACT else np.float64


def _draw_sums(rows: np.ndarray, rng: np.random.Generator, samples: int, per_block: int) -> np.ndarray:
    """The int64 column sums of the next `samples` resamples of `rows` drawn from `rng`."""
    count = len(rows)
    sums = []
    for start in range(0, samples, per_block):
        block = min(per_block, samples - start)
        draws = rng.integers(0, count, size=(block, count), dtype=np.int32)
        # Row r's draws become r * count + index, one bincount for the block (int32 is enough:
        # a block holds about 2**22 draws).
        draws += np.arange(0, block * count, count, dtype=np.int32)[:, None]
        weights = np.bincount(draws.ravel(), minlength=block * count).reshape(block, count)
        sums.append(np.rint(weights.astype(rows.dtype) @ rows).astype(np.int64))
    return np.concatenate(sums) if sums else np.zeros((0, rows.shape[1]), dtype=np.int64)


def _skip(rng: np.random.Generator, count: int, samples: int, per_block: int) -> None:
    """Draw and drop `samples` resamples: the generator then stands where drawing them leaves it."""
    for start in range(0, samples, per_block):
        rng.integers(0, count, size=(min(per_block, samples - start), count), dtype=np.int32)


def bootstrap_sums(stats: np.ndarray, samples: int, rng: np.random.Generator, num_workers: Any = 1) -> np.ndarray:
    """Column sums of `samples` resamples of the rows of `stats`, drawn with replacement: int64.

    The draws are sacreBLEU's (`rng.choice(n, (samples, n))`), made a block of resamples at a time
    (the generator's stream is the same either way). Each resample is a weight per row (how often
    it was drawn) times the rows, so one matrix product sums every column at once: `stats` may
    hold several systems' rows side by side, and all of them see the same draws.

    `num_workers` (see `bleukit.counting.parallel`): the resamples in worker processes. The draws
    are one stream, and a bounded integer is drawn by rejection, so no process can start the
    stream midway; each process (forked with the generator as it stands) replays it, drawing and
    dropping the resamples before its blocks (the draws are about a third of the time; the
    weights and the product, the rest, are its own blocks'). The caller's generator ends where
    one process would leave it.
    """
    count = len(stats)
    if samples <= 0:
        return np.zeros((0, stats.shape[1]), dtype=np.int64)
    dtype = exact_float_dtype(float(count) * float(np.abs(stats).max(initial=0)))
    rows = stats.astype(dtype)
    per_block = max(1, _BOOTSTRAP_BLOCK // max(count, 1))
    processes = process_count(num_workers, samples, lines=max(1, count // DRAWS_PER_SEGMENT))
    if processes == 1:
        return _draw_sums(rows, rng, samples, per_block)
    drawn = [0]  # resamples this process's copy of the generator has drawn

    def sums_of(start: int, stop: int) -> Tuple[np.ndarray]:
        _skip(rng, count, start - drawn[0], per_block)  # the blocks other processes took
        drawn[0] = stop
        return (_draw_sums(rows, rng, stop - start, per_block),)

    (sums,) = counted_columns([((samples, stats.shape[1]), np.int64)], sums_of, processes, 1, samples)
    _skip(rng, count, samples - drawn[0], per_block)
    return sums


def confidence_interval(scores: np.ndarray) -> Dict[str, float]:
    """The 95% interval of bootstrap scores, read as sacreBLEU reads it (1/40 from each end)."""
    ordered = np.sort(scores)
    low_index = len(ordered) // 40
    return {
        "bleu_ci_low": float(ordered[low_index]),
        "bleu_ci_high": float(ordered[len(ordered) - low_index - 1]),
        "bleu_bootstrap_mean": float(ordered.mean()),
    }

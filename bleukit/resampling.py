"""Resampling the segments' statistics rows: bootstrap sums with sacreBLEU's draws, and the
interval read off bootstrap scores. The rows are additive, so a resample's statistics are a
weighted sum of rows (how often each was drawn), one matrix product for many resamples.
"""

from __future__ import annotations

from typing import Dict

import numpy as np

# sacreBLEU's default seed for bootstrap resampling (SACREBLEU_SEED).
DEFAULT_BOOTSTRAP_SEED = 12345

# Resampling draws are made in blocks of about this many segment indices, to bound memory.
_BOOTSTRAP_BLOCK = 1 << 22
# Below this, float32 sums of integers are exact (24-bit significand), and its matmul is faster.
_FLOAT32_EXACT = 1 << 24


def exact_float_dtype(bound: float) -> type:
    """float32 when every partial sum stays below 2**24 in magnitude (then exact), else float64."""
    return np.float32 if bound < _FLOAT32_EXACT else np.float64


def bootstrap_sums(stats: np.ndarray, samples: int, rng: np.random.Generator) -> np.ndarray:
    """Column sums of `samples` resamples of the rows of `stats`, drawn with replacement: int64.

    The draws are sacreBLEU's (`rng.choice(n, (samples, n))`), made a block of resamples at a time
    (the generator's stream is the same either way). Each resample is a weight per row (how often
    it was drawn) times the rows, so one matrix product sums every column at once: `stats` may
    hold several systems' rows side by side, and all of them see the same draws.
    """
    count = len(stats)
    if samples <= 0:
        return np.zeros((0, stats.shape[1]), dtype=np.int64)
    dtype = exact_float_dtype(float(count) * float(np.abs(stats).max(initial=0)))
    rows = stats.astype(dtype)
    per_block = max(1, _BOOTSTRAP_BLOCK // max(count, 1))
    sums = []
    for start in range(0, samples, per_block):
        block = min(per_block, samples - start)
        draws = rng.integers(0, count, size=(block, count), dtype=np.int32)
        # Row r's draws become r * count + index, one bincount for the block (int32 is enough:
        # a block holds about 2**22 draws).
        draws += np.arange(0, block * count, count, dtype=np.int32)[:, None]
        weights = np.bincount(draws.ravel(), minlength=block * count).reshape(block, count)
        sums.append(np.rint(weights.astype(dtype) @ rows).astype(np.int64))
    return np.concatenate(sums)


def confidence_interval(scores: np.ndarray) -> Dict[str, float]:
    """The 95% interval of bootstrap scores, read as sacreBLEU reads it (1/40 from each end)."""
    ordered = np.sort(scores)
    low_index = len(ordered) // 40
    return {
        "bleu_ci_low": float(ordered[low_index]),
        "bleu_ci_high": float(ordered[len(ordered) - low_index - 1]),
        "bleu_bootstrap_mean": float(ordered.mean()),
    }

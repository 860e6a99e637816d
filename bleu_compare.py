"""Is system B really better than system A? Paired significance tests on BLEU, as sacreBLEU runs them.

`compare` scores several systems on the same references and tests each against a baseline:

- paired bootstrap ("bootstrap"): resample the segments with replacement; for every resample score
  the baseline and the system on the same segments. The p-value is the share of resamples whose
  centred score difference, |system - baseline| minus its mean over resamples, exceeds the real
  difference: how often a difference this large appears when nothing but the sample varies.
  The same resamples give each system's mean and 95% interval.
- approximate randomization ("ar"): for every trial swap the two systems' outputs on a random half
  of the segments; the p-value is the share of trials whose |difference| exceeds the real one:
  how often chance, with the labels shuffled, makes a gap this large.

Both add one to the count and to the number of trials, so a p-value is never 0. The draws are
sacreBLEU's for the same seed (`numpy.random.default_rng(seed)`): every system sees the same
resamples, or the same swaps, as it does there. Everything works on the per-segment statistics
rows (see `bleu_stats`): a resample or a trial is a weighted sum of rows, so all systems are
resampled by one matrix product per block of draws, in bounded memory.
"""

from __future__ import annotations

import numbers
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import numpy as np

try:  # inside the package `evaluate.load` builds
    from .bleu_core import (
        DEFAULT_BOOTSTRAP_SEED,
        bleu_rows,
        bootstrap_sums,
        confidence_interval,
        exact_float_dtype,
        garbage_collection_paused,
        options_for_token_ids,
        score,
        systems_statistics,
    )
    from .bleu_inputs import TOKEN_IDS, reference_counts, validate_inputs, validate_predictions
    from .bleu_options import OPTION_NAMES, BleuOptions, resolve_options
except ImportError:  # imported from the repository root (CLI, demo, tests)
    from bleu_core import (
        DEFAULT_BOOTSTRAP_SEED,
        bleu_rows,
        bootstrap_sums,
        confidence_interval,
        exact_float_dtype,
        garbage_collection_paused,
        options_for_token_ids,
        score,
        systems_statistics,
    )
    from bleu_inputs import TOKEN_IDS, reference_counts, validate_inputs, validate_predictions
    from bleu_options import OPTION_NAMES, BleuOptions, resolve_options

BOOTSTRAP = "bootstrap"
APPROXIMATE_RANDOMIZATION = "ar"
# The names `method` accepts, and what each means.
METHOD_NAMES = {
    "bootstrap": BOOTSTRAP,
    "bs": BOOTSTRAP,
    "ar": APPROXIMATE_RANDOMIZATION,
    "approximate_randomization": APPROXIMATE_RANDOMIZATION,
}
# sacreBLEU's defaults: 1,000 bootstrap resamples, 10,000 randomization trials.
DEFAULT_SAMPLES = {BOOTSTRAP: 1000, APPROXIMATE_RANDOMIZATION: 10000}
# The test's name in the signature (sacreBLEU's abbreviations).
SIGNATURE_NAMES = {BOOTSTRAP: "bs", APPROXIMATE_RANDOMIZATION: "ar"}
# Swap masks are drawn in blocks of about this many bits (a block is a multiple of 32 trials).
_MASK_BLOCK_BITS = 1 << 22


def _check_count(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}, not {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, not {value}")
    return int(value)


def _resolve_method(method: Any) -> str:
    if isinstance(method, str) and method.lower() in METHOD_NAMES:
        return METHOD_NAMES[method.lower()]
    raise ValueError(
        f"unknown method {method!r}; pass 'bootstrap' (paired bootstrap resampling) or 'ar' "
        "(approximate randomization)"
    )


def _named_systems(systems: Any) -> List[Tuple[str, Any]]:
    """(name, predictions) pairs from a dict (its keys are the names) or a list of prediction lists."""
    if isinstance(systems, Mapping):
        pairs = list(systems.items())
        for name, _ in pairs:
            if not isinstance(name, str):
                raise TypeError(f"system names must be strings, not {name!r}; pass {{'name': predictions, ...}}")
    elif isinstance(systems, (list, tuple)):
        pairs = [(f"system {k}", predictions) for k, predictions in enumerate(systems, start=1)]
    else:
        raise TypeError(
            f"systems must be a dict {{name: predictions}} or a list of prediction lists, not "
            f"{type(systems).__name__}"
        )
    if len(pairs) < 2:
        raise ValueError(
            f"compare needs at least two systems (a baseline and one to test), got {len(pairs)}; "
            "to score one system, use compute"
        )
    return pairs


def _checked_systems(
    pairs: List[Tuple[str, Any]], references: Any
) -> Tuple[List[Tuple[str, list]], List[list], str]:
    """Every system's predictions checked against the references, errors naming the system.

    The first system is checked with the references (which come back grouped); the others
    against those, so the references are checked once however many systems there are.
    """
    checked: List[Tuple[str, list]] = []
    refs: Any = None
    kind: Optional[str] = None
    for name, predictions in pairs:
        try:
            if refs is None:
                preds, refs, kind = validate_inputs(predictions, references)
            else:
                preds = validate_predictions(predictions, refs, kind)
        except (TypeError, ValueError) as error:
            raise type(error)(f"system {name!r}: {error}") from None
        checked.append((name, preds))
    return checked, refs, kind


def check_compare_options(
    method: Any, samples: Any, seed: Any, confidence_samples: Any, options: Dict[str, Any]
) -> Tuple[str, int, int, BleuOptions]:
    """The test's settings and the scoring options checked: (method, samples, confidence_samples,
    options), or a ValueError/TypeError that says what to pass instead."""
    method = _resolve_method(method)
    samples = DEFAULT_SAMPLES[method] if samples is None else _check_count("samples", samples, 1)
    confidence_samples = _check_count("confidence_samples", confidence_samples, 0)
    if confidence_samples and method == BOOTSTRAP:
        raise ValueError(
            "confidence_samples applies to method='ar'; the bootstrap reports each system's mean and "
            "interval from its own resamples, so pass confidence_samples=0 (or samples=N)"
        )
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise TypeError(f"seed must be an integer or None (fresh randomness), not {seed!r}")
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise TypeError(f"unknown option(s) {unknown}; compare takes the scoring options {list(OPTION_NAMES)}")
    return method, samples, confidence_samples, resolve_options(**options)


def check_systems(systems: Dict[str, Any], references: Any) -> None:
    """Check every system's predictions against the references (errors name the system)."""
    _checked_systems(list(systems.items()), references)


def _swap_masks(rng: np.random.Generator, samples: int, count: int) -> Iterator[np.ndarray]:
    """sacreBLEU's swap masks, `rng.integers(2, size=(samples, count), dtype=bool)`, in blocks.

    NumPy fills a boolean array from 32-bit words, one bit per element, lowest bit first; the same
    words as bytes (`rng.bytes`) unpacked little-endian give the same mask, far faster. A block is
    a multiple of 32 trials so that it ends on a word boundary, and the last block draws the same
    partial word, so the generator is left exactly where sacreBLEU's is.
    """
    per_block = max(32, (_MASK_BLOCK_BITS // max(count, 1)) // 32 * 32)
    for start in range(0, samples, per_block):
        block = min(per_block, samples - start)
        bits = block * count
        words = -(-bits // 32)
        raw = np.frombuffer(rng.bytes(4 * words), dtype=np.uint8)
        yield np.unpackbits(raw, bitorder="little", count=bits).reshape(block, count)


def _confidence(scores: np.ndarray) -> Tuple[float, float]:
    """Mean and half-width of the 95% interval of resampled scores, as sacreBLEU reports them."""
    interval = confidence_interval(scores)
    return interval["bleu_bootstrap_mean"], 0.5 * (interval["bleu_ci_high"] - interval["bleu_ci_low"])


def _p_values(beaten: np.ndarray, trials: int) -> List[Optional[float]]:
    """None for the baseline, then per system (trials beating the observed difference + 1) /
    (trials + 1): the +1 keeps a test from claiming more than its trials can show."""
    return [None] + ((beaten + 1) / (trials + 1)).tolist()


def _bootstrap_test(
    stats: List[np.ndarray], options: BleuOptions, samples: int, seed: Optional[int], bleu: np.ndarray
) -> Tuple[List[Optional[float]], List[Tuple[float, float]]]:
    """Paired bootstrap: the same resamples for every system (sacreBLEU re-seeds per system)."""
    width = stats[0].shape[1]
    sums = bootstrap_sums(np.concatenate(stats, axis=1), samples, np.random.default_rng(seed))
    scores = bleu_rows(sums.reshape(-1, width), options, libm=False).reshape(samples, len(stats))
    differences = np.abs(scores[:, 1:] - scores[:, :1])
    centred = differences - differences.mean(axis=0)
    beaten = np.count_nonzero(centred > np.abs(bleu[1:] - bleu[0]), axis=0)
    return _p_values(beaten, samples), [_confidence(scores[:, k]) for k in range(len(stats))]


def _randomization_test(
    stats: List[np.ndarray], options: BleuOptions, samples: int, seed: Optional[int], bleu: np.ndarray
) -> Tuple[List[Optional[float]], np.random.Generator]:
    """Approximate randomization: the same swaps for every system (sacreBLEU re-seeds per system).

    A trial's first pseudo-system takes the baseline's rows where the mask is set and the system's
    elsewhere: system total + mask @ (baseline - system); the second gets the rest of both totals.
    Returns the p-values and the generator, left where sacreBLEU's is after the masks.
    """
    baseline, others = stats[0], stats[1:]
    width = baseline.shape[1]
    differences = np.concatenate([baseline - system for system in others], axis=1)
    dtype = exact_float_dtype(float(np.abs(differences).sum(axis=0).max(initial=0)))
    differences = differences.astype(dtype)
    system_totals = np.concatenate([system.sum(axis=0) for system in others])
    both_totals = np.tile(baseline.sum(axis=0), len(others)) + system_totals
    observed = np.abs(bleu[1:] - bleu[0])
    rng = np.random.default_rng(seed)
    beaten = np.zeros(len(others), dtype=np.int64)
    for mask in _swap_masks(rng, samples, len(baseline)):
        first = system_totals + np.rint(mask.astype(dtype) @ differences).astype(np.int64)
        second = both_totals - first
        rows = np.concatenate([first, second]).reshape(-1, width)
        scores = bleu_rows(rows, options, libm=False).reshape(2, len(mask), len(others))
        beaten += np.count_nonzero(np.abs(scores[0] - scores[1]) > observed, axis=0)
    return _p_values(beaten, samples), rng


def _signature(options: BleuOptions, num_refs: Sequence[int], method: str, samples: int,
               confidence_samples: int, seed: Optional[int]) -> str:
    test = f"|test:{SIGNATURE_NAMES[method]}|n:{samples}"
    if confidence_samples:
        test += f"|conf:{confidence_samples}"
    return options.signature(num_refs) + test + f"|seed:{'none' if seed is None else seed}"


def compare(
    systems: Any,
    references: Any,
    *,
    baseline: Optional[str] = None,
    method: str = BOOTSTRAP,
    samples: Optional[int] = None,
    seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
    confidence_samples: int = 0,
    **options: Any,
) -> Dict[str, Any]:
    """Score systems on the same references and test each against the baseline (sacreBLEU's tests).

    `systems`: {name: predictions} in report order, or a list of prediction lists ("system 1", ...).
    `baseline`: a system's name (default the first). `method`: "bootstrap" (1,000 resamples by
    default) or "ar" (approximate randomization, 10,000 trials). `seed`: 12345 is sacreBLEU's
    default; None draws fresh randomness. `confidence_samples` (ar only): bootstrap resamples for
    each system's mean and interval. `options`: compute's scoring options (pass smooth="exp" for
    sacreBLEU's default numbers). Returns the test, its signature and one dict per system, the
    baseline first; see the README's "Comparing systems".
    """
    method, samples, confidence_samples, resolved = check_compare_options(
        method, samples, seed, confidence_samples, options
    )
    pairs = _named_systems(systems)
    names = [name for name, _ in pairs]
    if baseline is None:
        baseline = names[0]
    if baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {names}; pass one of their names")
    pairs.sort(key=lambda pair: pair[0] != baseline)  # stable: the baseline first, the rest in order

    with garbage_collection_paused():  # checking builds a small list per segment
        checked, refs, kind = _checked_systems(pairs, references)
        if kind == TOKEN_IDS:
            resolved = options_for_token_ids(resolved)
        stats = systems_statistics([preds for _, preds in checked], refs, resolved, kind)
        num_refs = reference_counts(refs)
        del checked, refs

    results = [score(rows.sum(axis=0), resolved).as_dict() for rows in stats]
    bleu = np.array([result["bleu"] for result in results])
    no_interval = (None, None)
    if method == BOOTSTRAP:
        p_values, intervals = _bootstrap_test(stats, resolved, samples, seed, bleu)
    else:
        p_values, rng = _randomization_test(stats, resolved, samples, seed, bleu)
        intervals = [no_interval] * len(stats)
        if confidence_samples:
            # sacreBLEU draws the baseline's resamples from a fresh generator, and each system's
            # from its test's generator after the swap masks: the same for every system.
            width = stats[0].shape[1]
            baseline_sums = bootstrap_sums(stats[0], confidence_samples, np.random.default_rng(seed))
            system_sums = bootstrap_sums(np.concatenate(stats[1:], axis=1), confidence_samples, rng)
            all_sums = np.concatenate([baseline_sums, system_sums.reshape(-1, width)])
            scores = bleu_rows(all_sums, resolved, libm=False)
            per_system = np.concatenate(
                [scores[:confidence_samples, None], scores[confidence_samples:].reshape(confidence_samples, -1)],
                axis=1,
            )
            intervals = [_confidence(per_system[:, k]) for k in range(len(stats))]

    systems_out = []
    for (name, _), result, p_value, (mean, ci) in zip(pairs, results, p_values, intervals):
        systems_out.append({"name": name, "bleu": result["bleu"], "p_value": p_value, "mean": mean, "ci": ci,
                            **{key: value for key, value in result.items() if key != "bleu"}})
    return {
        "method": method,
        "samples": samples,
        "seed": None if seed is None else int(seed),
        "confidence_samples": confidence_samples,
        "baseline": baseline,
        "signature": _signature(resolved, num_refs, method, samples, confidence_samples, seed),
        "systems": systems_out,
    }

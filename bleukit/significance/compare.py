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

Both add one to the count and to the number of trials, so a p-value is never 0. Trials that tie
the real difference (common when two systems differ in a few segments) are counted and reported;
sacreBLEU's p-value leaves them out, `count_ties=True` counts them in. This module checks the
inputs and options, counts the statistics and assembles the result; the tests themselves (the
draws, the one function that scores every statistic, the exact counts) are `bleukit.significance.paired`'s.
"""

from __future__ import annotations

import numbers
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from bleukit.core import checked_systems, count_systems, score
from bleukit.resampling import DEFAULT_BOOTSTRAP_SEED
from bleukit.counting.parallel import AUTO, check_num_workers
from bleukit.options import OPTION_NAMES, BleuOptions, canonical_options, check_option_names, resolve_options
from bleukit.significance.paired import TestScorer, bootstrap_intervals, bootstrap_test, randomization_test

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
# How many draws a test makes: `bootstrap_samples` (bootstrap resamples, as compute names them:
# the bootstrap test's, or those of each system's interval beside an AR test) and `trials` (AR);
# the older names kept as aliases: `samples` (either, by method), `confidence_samples` (AR's
# interval resamples).
COUNT_NAMES = ("bootstrap_samples", "trials", "samples", "confidence_samples")
# The test's name in the signature (sacreBLEU's abbreviations).
SIGNATURE_NAMES = {BOOTSTRAP: "bs", APPROXIMATE_RANDOMIZATION: "ar"}


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


def _given_once(given: Dict[str, Any], name: str, older: str, meaning: str) -> Optional[Tuple[str, Any]]:
    """(name, value) of a count given under its name or its older one; both is a TypeError."""
    if name in given and older in given:
        raise TypeError(f"{older}= is the older name of {name}= ({meaning}); pass one of them")
    for key in (name, older):
        if key in given:
            return key, given[key]
    return None


def _test_counts(method: str, counts: Dict[str, Any]) -> Tuple[int, int]:
    """(the test's resamples or trials, bootstrap resamples for an AR test's intervals) from the
    count keywords given (see COUNT_NAMES), or an error that says what to pass."""
    given = {name: value for name, value in counts.items() if value is not None}
    if method == BOOTSTRAP:
        if "trials" in given:
            raise ValueError("trials= counts approximate randomization's trials (method='ar'); the bootstrap "
                             "takes bootstrap_samples=N")
        if given.get("confidence_samples"):
            _check_count("confidence_samples", given["confidence_samples"], 0)
            raise ValueError(
                "confidence_samples applies to method='ar'; the bootstrap reports each system's mean and "
                "interval from its own resamples, so pass confidence_samples=0 (or bootstrap_samples=N)"
            )
        test = _given_once(given, "bootstrap_samples", "samples", "the bootstrap's resamples")
        intervals = None
    else:
        test = _given_once(given, "trials", "samples", "the randomization trials")
        intervals = _given_once(given, "bootstrap_samples", "confidence_samples",
                                "bootstrap resamples for each system's mean and interval")
    draws = DEFAULT_SAMPLES[method] if test is None else _check_count(*test, 1)
    return draws, 0 if intervals is None else _check_count(*intervals, 0)


def check_compare_options(
    method: Any, counts: Dict[str, Any], seed: Any, options: Dict[str, Any], count_ties: Any = False,
) -> Tuple[str, int, int, BleuOptions]:
    """The test's settings and the scoring options checked: (method, samples, confidence_samples,
    options), or a ValueError/TypeError that says what to pass instead. `counts`: the count
    keywords as given (COUNT_NAMES, None where not given)."""
    method = _resolve_method(method)
    if not isinstance(count_ties, bool):
        raise TypeError(f"count_ties must be True (ties count as at least as extreme) or False "
                        f"(sacreBLEU's strict count), not {count_ties!r}")
    samples, confidence_samples = _test_counts(method, counts)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise TypeError(f"seed must be an integer or None (fresh randomness), not {seed!r}")
    options = canonical_options(options)
    check_option_names(options, OPTION_NAMES, "compare takes the scoring options")
    return method, samples, confidence_samples, resolve_options(**options)


def check_systems(systems: Dict[str, Any], references: Any) -> None:
    """Check every system's predictions against the references (errors name the system)."""
    checked_systems(list(systems.items()), references)


def _signature(options: BleuOptions, num_refs: Sequence[int], method: str, samples: int,
               confidence_samples: int, seed: Optional[int], count_ties: bool) -> str:
    test = f"|test:{SIGNATURE_NAMES[method]}|n:{samples}"
    if confidence_samples:
        test += f"|conf:{confidence_samples}"
    if count_ties:
        test += "|ties:counted"
    return options.signature(num_refs) + test + f"|seed:{'none' if seed is None else seed}"


def compare(
    systems: Any,
    references: Any,
    *,
    baseline: Optional[str] = None,
    method: str = BOOTSTRAP,
    bootstrap_samples: Optional[int] = None,
    trials: Optional[int] = None,
    seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
    count_ties: bool = False,
    samples: Optional[int] = None,
    confidence_samples: Optional[int] = None,
    num_workers: Any = AUTO,
    **options: Any,
) -> Dict[str, Any]:
    """Score systems on the same references and test each against the baseline (sacreBLEU's tests).

    `systems`: {name: predictions} in report order, or a list of prediction lists ("system 1", ...).
    `baseline`: a system's name (default the first). `method`: "bootstrap" (`bootstrap_samples`
    resamples, 1,000 by default) or "ar" (approximate randomization, `trials` trials, 10,000 by
    default; with `bootstrap_samples=N`, each system's mean and interval from N resamples too).
    The older names: `samples` (the test's resamples or trials), `confidence_samples` (ar's
    interval resamples). `seed`: 12345 is sacreBLEU's default; None draws fresh randomness. `count_ties`: False counts only the trials beyond the observed
    difference (sacreBLEU's p-value); True counts the ties too (the conservative p-value); each
    system's `ties` says how many there were. `options`: compute's scoring options (pass
    smooth="exp" for sacreBLEU's default numbers). Returns the test, its signature and one dict per
    system, the baseline first; see docs/comparing.md. `num_workers`: processes counting the
    statistics, as for compute (see `bleukit.counting.parallel`); the numbers do not depend on it.
    """
    check_num_workers(num_workers)
    counts = dict(bootstrap_samples=bootstrap_samples, trials=trials, samples=samples,
                  confidence_samples=confidence_samples)
    method, samples, confidence_samples, resolved = check_compare_options(method, counts, seed, options, count_ties)
    pairs = _named_systems(systems)
    names = [name for name, _ in pairs]
    if baseline is None:
        baseline = names[0]
    if baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {names}; pass one of their names")
    pairs.sort(key=lambda pair: pair[0] != baseline)  # stable: the baseline first, the rest in order

    _, stats, num_refs, resolved = count_systems(pairs, references, resolved, num_workers)

    results = [score(rows.sum(axis=0), resolved).as_dict() for rows in stats]
    scorer = TestScorer(resolved)
    if method == BOOTSTRAP:
        counts, intervals = bootstrap_test(stats, scorer, samples, seed, num_workers)
    else:
        counts, rng = randomization_test(stats, scorer, samples, seed)
        intervals = [(None, None)] * len(stats)
        if confidence_samples:
            intervals = bootstrap_intervals(stats, scorer, confidence_samples, seed, rng, num_workers)
    p_values = counts.p_values(samples, count_ties)
    ties = [None] + counts.ties.tolist()

    systems_out = []
    for (name, _), result, p_value, tied, (mean, ci) in zip(pairs, results, p_values, ties, intervals):
        systems_out.append({"name": name, "bleu": result["bleu"], "p_value": p_value, "ties": tied, "mean": mean,
                            "ci": ci, **{key: value for key, value in result.items() if key != "bleu"}})
    return {
        "method": method,
        "samples": samples,
        "seed": None if seed is None else int(seed),
        "confidence_samples": confidence_samples,
        "count_ties": count_ties,
        "baseline": baseline,
        "signature": _signature(resolved, num_refs, method, samples, confidence_samples, seed, count_ties),
        "systems": systems_out,
    }

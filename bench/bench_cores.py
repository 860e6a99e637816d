"""Every core of one machine: `num_workers` processes against one process, at 48k and 480k segments.

The corpus is bench/benchmark.py's (the 16 WMT17 en-de systems, each copy's lines prefixed so no
cache helps; synthetic when ../shared/data is absent), scored end to end by `bleukit.core`: checks,
13a tokenizing, counting, scoring. Rows, for each size:

- `1 thread`: one process on one thread (num_workers=1 with bleu_parallel.MAX_THREADS = 1): one core;
- `1`: one process, chunks on threads as the module did before num_workers (num_workers=1);
- `2` ... `--max-workers` (default: every usable core): that many processes;
- `auto`: what the default chooses here (1 below its threshold).

Columns: corpus BLEU (`compute`), with sentence scores (`return_sentence_scores=True`), and the
statistics of a comparison (`systems_statistics`, the part of `compare` that workers share:
16 systems on a tenth of the segments each, so as many lines), each as the best of --repeat wall
times and as speed-up over `1 thread` (x) and over `1` (x threads). The configurations take turns within each repeat, so a burst of
another program's load spreads over all of them; the load average is printed before and after.
Every result is checked equal to the one-process result (exact: the statistics are integers).

    python bench/bench_cores.py                      # 48k and 480k, 2 .. all cores
    python bench/bench_cores.py --max-workers 16 --repeat 7
    python bench/bench_cores.py --sizes 48064        # one size
    python bench/bench_cores.py --serial-only        # the parent process's (serial) time at 480,640

The last table splits the largest size's wall time into the parallel window and the parent's own
(serial) time, with a 16-core estimate from it.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from benchmark import _machine, build_corpus  # noqa: E402
from bleukit.core import compute_bleu, systems_statistics  # noqa: E402
from bleukit.inputs import validate_inputs  # noqa: E402
from bleukit.options import resolve_options  # noqa: E402
import bleukit.counting.parallel as bleu_parallel  # noqa: E402
from bleukit.counting import forking  # noqa: E402
from bleukit.counting.parallel import AUTO, process_count, usable_cores  # noqa: E402

SYSTEMS = 16
ONE_THREAD = "1 thread"


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def workloads(segments: int) -> Dict[str, Callable[[Any], Any]]:
    """name -> run(num_workers), each returning what must not depend on num_workers."""
    hypotheses, references, _ = build_corpus(segments)
    per_system = segments // SYSTEMS
    systems = [hypotheses[k * per_system : (k + 1) * per_system] for k in range(SYSTEMS)]
    checked_refs = validate_inputs(systems[0], references[:per_system])[1]
    options = resolve_options()

    def corpus(workers: Any) -> Any:
        return compute_bleu(hypotheses, references, num_workers=workers)

    def sentences(workers: Any) -> Any:
        return compute_bleu(hypotheses, references, return_sentence_scores=True, num_workers=workers)

    def comparison(workers: Any) -> Any:
        return np.stack(systems_statistics(systems, checked_refs, options, num_workers=workers))

    return {"compute": corpus, "sentence scores": sentences, "compare statistics": comparison}


def same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and bool((a == b).all())
    return a == b


def measure(segments: int, configurations: List[Any], repeat: int) -> Dict[Any, Dict[str, float]]:
    runs = workloads(segments)
    expected = {name: run(1) for name, run in runs.items()}  # also warms imports and caches
    best: Dict[Any, Dict[str, float]] = {config: {name: float("inf") for name in runs} for config in configurations}
    for _ in range(repeat):
        for name, run in runs.items():
            for config in configurations:
                saved = bleu_parallel.MAX_THREADS
                bleu_parallel.MAX_THREADS = 1 if config == ONE_THREAD else saved
                start = time.perf_counter()
                result = run(1 if config == ONE_THREAD else config)
                elapsed = time.perf_counter() - start
                bleu_parallel.MAX_THREADS = saved
                if not same(result, expected[name]):
                    raise AssertionError(f"{name} with num_workers={config} differs from one process")
                best[config][name] = min(best[config][name], elapsed)
    return best


class ParentClock:
    """Splits a call's wall time into the parallel window (this process counting its share of the
    blocks, then waiting for the workers' outcomes) and the rest: the serial part, which no
    number of cores shortens (checks the parent makes, forking, summing, scoring, lists). The
    forks are timed apart too, for the estimate on more cores."""

    def __init__(self) -> None:
        self.parallel = self.forks = 0.0
        self.patched = []

    def _timed(self, module: Any, name: str, field: str) -> None:
        original = getattr(module, name)
        parent = os.getpid()

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                if os.getpid() == parent:  # the workers run the same function
                    setattr(self, field, getattr(self, field) + time.perf_counter() - start)

        self.patched.append((module, name, original))
        setattr(module, name, timed)

    def __enter__(self) -> "ParentClock":
        self._timed(bleu_parallel, "_count_blocks", "parallel")
        self._timed(forking, "outcome", "parallel")
        self._timed(forking, "start_workers", "forks")
        return self

    def __exit__(self, *exc: Any) -> None:
        for module, name, original in self.patched:
            setattr(module, name, original)


def serial_tail(segments: int, workers: int, repeat: int) -> None:
    """The parent process's time at `segments` (issue 28: goal 0.1 s here), best of `repeat`, and
    the 16-core estimate from it."""
    hypotheses, references, _ = build_corpus(segments)
    print(f"\nParent process at {segments:,} segments, num_workers={workers} (best of {repeat}; load {load()}):")
    print("| call | wall s | parallel window s | parent (serial) s | of which forks s |")
    print("|---|---:|---:|---:|---:|")
    one_thread = {}
    for sentences in (False, True):
        name = "compute" + (", sentence scores" if sentences else "")
        compute_bleu(hypotheses[:2000], references[:2000], return_sentence_scores=sentences)  # warm
        best = None
        for _ in range(repeat):
            with ParentClock() as clock:
                start = time.perf_counter()
                compute_bleu(hypotheses, references, return_sentence_scores=sentences, num_workers=workers)
                wall = time.perf_counter() - start
            row = (wall, clock.parallel, wall - clock.parallel, clock.forks)
            best = row if best is None or row[2] < best[2] else best
        print(f"| {name} | {best[0]:.3f} | {best[1]:.3f} | {best[2]:.3f} | {best[3]:.4f} |")
        saved, bleu_parallel.MAX_THREADS = bleu_parallel.MAX_THREADS, 1
        start = time.perf_counter()
        compute_bleu(hypotheses, references, return_sentence_scores=sentences, num_workers=1)
        one_thread[name] = (time.perf_counter() - start, best)
        bleu_parallel.MAX_THREADS = saved
    print("\n16-core estimate: the parent's serial part as here (its forks are two, as there), plus the "
          "one-thread time here spread over 16 processes, plus the last worker's later start (four "
          "forks deep, at the cost of one fork here):")
    for name, (alone, (_, _, serial, forks)) in one_thread.items():
        per_fork = forks / min(2, max(1, workers - 1))
        estimate = serial + alone / 16 + 4 * per_fork
        print(f"  {name}: {serial:.3f} + {alone:.3f} / 16 + 4 x {per_fork:.4f} = {estimate:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[48064, 480640], help="segments (default: 48064 480640)")
    parser.add_argument("--max-workers", type=int, default=usable_cores(), help="default: every usable core")
    parser.add_argument("--repeat", type=int, default=5, help="best of this many runs (default 5)")
    parser.add_argument("--serial-only", action="store_true", help="only the parent process's time at 480k")
    args = parser.parse_args()
    if args.serial_only:
        print(f"{_machine()}; {usable_cores()} usable cores; {platform.system()}")
        serial_tail(480640, args.max_workers, args.repeat)
        return
    print(f"{_machine()}; {usable_cores()} usable cores; {platform.system()}")
    print(f"corpus: {build_corpus(1)[2]}; best of {args.repeat}; load average before: {load()}")
    configurations: List[Any] = [ONE_THREAD, 1, *range(2, args.max_workers + 1), AUTO]
    for segments in args.sizes:
        best = measure(segments, configurations, args.repeat)
        names = list(best[1])
        print(f"\n{segments:,} segments (auto: {process_count(AUTO, segments)} process(es) here; load {load()})")
        print("| num_workers | " + " | ".join(f"{name} s | x | x threads" for name in names) + " |")
        print("|---|" + "---:|---:|---:|" * len(names))
        for config in configurations:
            cells = [f"{best[config][name]:.3f} | {best[ONE_THREAD][name] / best[config][name]:.2f} | "
                     f"{best[1][name] / best[config][name]:.2f}" for name in names]
            print(f"| {config} | " + " | ".join(cells) + " |")
    serial_tail(max(args.sizes), args.max_workers, args.repeat)
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()

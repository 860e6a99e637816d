"""What Python's cyclic garbage collector costs while this module checks and counts a large corpus.

Scoring builds per-segment containers while it checks the inputs; whatever survives of them is
walked by every collection of the oldest generation, so the collector's share grows with the
corpus. This script measures it directly, in a fresh interpreter per run: wall and CPU time of
`bleu_core.compute_bleu` (best of --repeat), how many collections of each generation ran, and the
thread CPU time spent inside them (from `gc.callbacks`, so a busy machine inflates it less than
wall time). `--collector off` switches the collector off around the call, as this module once did
for the whole process; the default leaves it as the process has it. Workloads: the WMT17 corpus
of `bench/benchmark.py` (16 systems, each line prefixed per copy) with one reference, with two
(the reference and another system), and as lists of token ids (whitespace tokens numbered).

    python bench/bench_gc.py                       # 48k and 480k segments, every workload
    python bench/bench_gc.py --collector off       # the same with the collector off around the call
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

WORKLOADS = ("text", "text-2refs", "ids")


def build(workload: str, segments: int):
    from benchmark import build_corpus

    hypotheses, references, _ = build_corpus(segments)
    if workload == "text":
        return hypotheses, references
    if workload == "text-2refs":
        others, _, _ = build_corpus(segments + 3004)  # another system's line for each segment
        return hypotheses, [[reference, other] for reference, other in zip(references, others[3004:])]
    vocabulary: Dict[str, int] = {}
    number = lambda line: [vocabulary.setdefault(token, len(vocabulary)) for token in line.split()]  # noqa: E731
    return [number(line) for line in hypotheses], [number(line) for line in references]


def worker(workload: str, segments: int, repeat: int, collector: str) -> Dict[str, Any]:
    import bleukit.core as bleu_core

    predictions, references = build(workload, segments)
    bleu_core.compute_bleu(predictions[:2000], references[:2000])  # imports and first calls out of the timing
    collections = [0, 0, 0]
    inside = [0.0]
    started = [0.0]

    def watch(phase: str, info: Dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.thread_time()
        else:
            inside[0] += time.thread_time() - started[0]
            collections[info["generation"]] += 1

    walls, cpus, result = [], [], None
    for run in range(repeat):
        gc.collect()
        if run == repeat - 1:
            gc.callbacks.append(watch)  # the last run: count what the collector does
        if collector == "off":
            gc.disable()
        wall, cpu = time.perf_counter(), time.process_time()
        result = bleu_core.compute_bleu(predictions, references)
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
        gc.enable()
    gc.callbacks.remove(watch)
    return {"workload": workload, "segments": segments, "collector": collector, "wall": min(walls),
            "cpu": min(cpus), "collections": collections, "gc_seconds": inside[0], "bleu": result["bleu"],
            "tracked": len(gc.get_objects())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, nargs="+", default=[48064, 480640])
    parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    parser.add_argument("--collector", choices=("as-is", "off"), default="as-is")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", nargs=2, metavar=("WORKLOAD", "SEGMENTS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker[0], int(args.worker[1]), args.repeat, args.collector)))
        return
    print(f"load average at start: {os.getloadavg()[0]:.2f}; collector: {args.collector}")
    print(f"{'workload':>10} {'segments':>9} {'wall s':>7} {'cpu s':>7} {'vs 10x fewer':>12} "
          f"{'collections (gen 0/1/2)':>24} {'in gc s':>8}  BLEU")
    for workload in args.workloads:
        previous: Dict[int, float] = {}
        for segments in args.segments:
            command = [sys.executable, __file__, "--worker", workload, str(segments), "--repeat", str(args.repeat),
                       "--collector", args.collector]
            completed = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
            if completed.returncode != 0:
                raise SystemExit(completed.stderr[-3000:])
            row = json.loads(completed.stdout.strip().splitlines()[-1])
            ratio = f"{row['cpu'] / previous[segments // 10]:.1f}x" if segments // 10 in previous else ""
            previous[segments] = row["cpu"]
            collections: List[int] = row["collections"]
            print(f"{workload:>10} {segments:>9,} {row['wall']:7.2f} {row['cpu']:7.2f} {ratio:>12} "
                  f"{'/'.join(map(str, collections)):>24} {row['gc_seconds']:8.3f}  {row['bleu']:.12f}")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

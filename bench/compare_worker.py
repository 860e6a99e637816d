"""One `compare` command as a user runs it, for `benchmark.py --compare` to time in a fresh interpreter.

    python bench/compare_worker.py METHOD REPEAT REFERENCE SYSTEM...

Imports only what such a command needs (this module, the standard library's json), so that the
process time the benchmark reports is Python's start, the module's imports and the call, not the
benchmark's own harness (argparse, subprocess, tempfile, ... cost about 40 ms). Prints one JSON
line: the call's walls (reading the files included), the import time, the result and peak memory.
"""

import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _read_lines(path: str) -> list:
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def main() -> None:
    method, repeat, reference, systems = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    started = time.perf_counter()
    from bleukit.significance.compare import compare

    imported = time.perf_counter() - started
    walls, result = [], None
    for _ in range(repeat):
        wall = time.perf_counter()
        named = {Path(path).name: _read_lines(path) for path in systems}
        result = compare(named, _read_lines(reference), method=method, smooth="exp")
        walls.append(time.perf_counter() - wall)
    print(json.dumps({"walls": walls, "wall": min(walls), "import": imported, "result": result,
                      "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main()

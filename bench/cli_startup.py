"""Wall time of the CLI on the bundled example, and how much of it is start-up (imports).

    python bench/cli_startup.py [--runs 15]

Each run is a fresh `python -m bleukit` process; the script prints the median and best wall time
beside a bare `python -c pass` and `python -c "import numpy, pyarrow"` (the floor the CLI cannot go
under), the ratio to each, and the sacreBLEU CLI on the same example for comparison.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = ["bleukit/cli/example/hypotheses.txt", "-r", "bleukit/cli/example/references.1.txt", "bleukit/cli/example/references.2.txt"]
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import numpy, pyarrow": [sys.executable, "-c", "import numpy, pyarrow"],
    "bleukit/cli/main.py (example)": [sys.executable, "bleukit/cli/main.py"],
    "bleukit/cli/main.py HYP -r REF REF": [sys.executable, "bleukit/cli/main.py", *EXAMPLE],
    "sacrebleu CLI (example)": [sys.executable, "-m", "sacrebleu", "bleukit/cli/example/references.1.txt",
                                "bleukit/cli/example/references.2.txt", "-i", "bleukit/cli/example/hypotheses.txt", "-f", "text"],
}


def wall_times(command: list, runs: int) -> list:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    results = {name: wall_times(command, args.runs) for name, command in COMMANDS.items()}
    cli = statistics.median(results["bleukit/cli/main.py (example)"])
    print(f"{'command':30} {'median s':>9} {'best s':>8} {'CLI / this':>11}")
    for name, times in results.items():
        median = statistics.median(times)
        print(f"{name:30} {median:9.3f} {min(times):8.3f} {cli / median:11.2f}")


if __name__ == "__main__":
    main()

"""Corpus BLEU of synthetic WMT17 pairs through Spark local[2] and Ray (2 CPUs), against one process.

    python bench/bench_engines.py --rows 10000000      # the issue's size (about 5 minutes on 2 busy cores)
    python bench/bench_engines.py --rows 1000000 --engines compute,spark,ray

Row i pairs system (i mod 16)'s line (i div 16) mod 3004 of WMT17 en-de with the reference line:
the 48,064 real pairs, repeated (nothing caches tokens between chunks, so a repeat costs what the
first did). Inside Spark and Ray the rows are made by the engine itself from an index (a range
dataset mapped to Arrow batches), so no file is read; one-process `compute` gets the same lists,
made before the clock starts. Each engine runs two jobs on the same generated rows:

- bleu: generate, statistics per batch, one row per partition or batch, the sum, the score;
- no-op: generate, then count the rows of each batch instead of scoring them (same shape of job).

The no-op job's time is the engine's own cost (scheduling, Python workers, Arrow transfer, the
generation); its fraction of the bleu job is printed as overhead. Rows per second are of the
whole job. The result must equal compute's exactly (checked on every run with compute).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bleukit.core import compute_bleu  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "wmt17-en-de"
REFERENCE = "newstest2017-ende.ref.de"


def wmt17() -> tuple:
    systems = sorted(path for path in DATA.glob("*.de") if path.name != REFERENCE)
    lines = [path.read_text(encoding="utf-8").split("\n")[:-1] for path in systems]
    return np.array(lines, dtype=object), np.array(DATA.joinpath(REFERENCE).read_text(encoding="utf-8").split("\n")[:-1],
                                                   dtype=object)


HYPOTHESES, REFERENCES = wmt17()


def pairs(start: int, stop: int) -> pa.Table:
    """Rows start..stop-1 of the synthetic corpus, built in bulk from the index."""
    index = np.arange(start, stop)
    systems, segments = len(HYPOTHESES), len(REFERENCES)
    line = (index // systems) % segments
    return pa.table({"prediction": pa.array(HYPOTHESES[index % systems, line], pa.string()),
                     "references": pa.array(REFERENCES[line], pa.string())})


def pairs_of_ids(batch: pa.RecordBatch) -> pa.RecordBatch:
    ids = batch.column(0).to_numpy()
    return pairs(int(ids[0]), int(ids[-1]) + 1).to_batches()[0] if len(ids) else pa.RecordBatch.from_pylist(
        [], schema=pairs(0, 0).schema)


def run_compute(rows: int) -> tuple:
    table = pairs(0, rows)
    predictions, references = table.column(0).to_pylist(), table.column(1).to_pylist()
    started = time.perf_counter()
    result = compute_bleu(predictions, references)
    return time.perf_counter() - started, result


def run_spark(rows: int, partitions: int) -> tuple:
    from pyspark.sql import SparkSession

    import bleukit.engines.spark as bleu_spark

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")

    def generate(batches):
        for batch in batches:
            yield pairs_of_ids(batch)

    def noop(batches):
        yield pa.RecordBatch.from_pydict({"rows": [sum(batch.num_rows for batch in batches)]})

    df = spark.range(0, rows, numPartitions=partitions).mapInArrow(generate, "prediction string, references string")
    spark.range(0, 1000, numPartitions=2).mapInArrow(noop, "rows bigint").collect()  # workers warm
    started = time.perf_counter()
    counted = sum(row["rows"] for row in df.mapInArrow(noop, "rows bigint").collect())
    noop_s = time.perf_counter() - started
    assert counted == rows
    started = time.perf_counter()
    result = bleu_spark.corpus_bleu(df)
    bleu_s = time.perf_counter() - started
    version = spark.version
    spark.stop()
    return bleu_s, noop_s, result, f"pyspark {version}"


def run_ray(rows: int, partitions: int) -> tuple:
    import ray
    import ray.data

    import bleukit.engines.ray as bleu_ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False

    def generate(table: pa.Table) -> pa.Table:
        return pa.Table.from_batches([pairs_of_ids(table.combine_chunks().to_batches()[0])])

    def dataset():
        return ray.data.range(rows, override_num_blocks=partitions).map_batches(generate, batch_format="pyarrow")

    ray.data.range(1000, override_num_blocks=2).map_batches(lambda t: t, batch_format="pyarrow").count()  # warm
    started = time.perf_counter()
    counts = dataset().map_batches(lambda table: pa.table({"rows": [table.num_rows]}), batch_format="pyarrow")
    counted = sum(sum(batch.column("rows").to_pylist()) for batch in counts.iter_batches(
        batch_format="pyarrow", batch_size=None))
    noop_s = time.perf_counter() - started
    assert counted == rows
    started = time.perf_counter()
    result = bleu_ray.corpus_bleu(dataset())
    bleu_s = time.perf_counter() - started
    ray.shutdown()
    return bleu_s, noop_s, result, f"ray {ray.__version__}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--partitions", type=int, default=0, help="partitions/blocks (default: one per 50,000 rows)")
    parser.add_argument("--engines", default="compute,spark,ray")
    args = parser.parse_args()
    partitions = args.partitions or max(2, args.rows // 50_000)
    print(f"{args.rows:,} rows, {partitions} partitions; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs; load before: {os.getloadavg()[0]:.2f}; Python {platform.python_version()}")
    import pyarrow
    print(f"pyarrow {pyarrow.__version__}, numpy {np.__version__}")
    print(f"{'engine':<32} {'seconds':>8} {'rows/s':>10} {'vs compute':>10} {'no-op s':>8} {'overhead':>9}")
    baseline, expected = None, None
    for engine in args.engines.split(","):
        if engine == "compute":
            seconds, expected = run_compute(args.rows)
            baseline = seconds
            print(f"{'one-process compute':<32} {seconds:8.1f} {args.rows / seconds:10,.0f} {'1.00x':>10} {'-':>8} {'-':>9}")
            continue
        seconds, noop, result, version = (run_spark if engine == "spark" else run_ray)(args.rows, partitions)
        if expected is not None:
            assert result == expected, (result, expected)
        ratio = f"{baseline / seconds:.2f}x" if baseline else "-"
        label = ("Spark local[2]" if engine == "spark" else "Ray, 2 CPUs") + f" ({version})"
        print(f"{label:<32} {seconds:8.1f} {args.rows / seconds:10,.0f} {ratio:>10} {noop:8.1f} {noop / seconds:9.0%}")
    print(f"load after: {os.getloadavg()[0]:.2f}; results equal compute's exactly: {expected is not None}")


if __name__ == "__main__":
    main()

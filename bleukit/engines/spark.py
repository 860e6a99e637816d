"""BLEU of a Spark DataFrame: sentence BLEU as a column, corpus BLEU as a map of statistics and one sum.

Spark's `mapInArrow` hands each Python worker its partition as Arrow batches; `bleukit.engines.arrow` counts
them in bulk (no Python loop over rows) and either appends a `sentence_bleu` column or reduces the
partition to one int64 statistics row. The driver adds one row per partition and scores the sum:
exactly `compute`'s result (the same options, the same signature). The options are checked on the
driver before any job starts. pyspark is imported only inside these functions (`pip install
"bleu-metric[spark]"`); the workers need this module's files and pyarrow (Spark ships the
functions pickled; on a cluster, add the files with `spark.sparkContext.addPyFile` or install the
package on every node).

    scored = sentence_bleu_column(df, smooth="exp", effective_order=True)   # lazy, a new column
    kept = scored.filter("sentence_bleu >= 0.2")
    result = corpus_bleu(df, tokenizer="13a")                              # one job, a dict
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, Optional

from bleukit.engines.arrow import (
    SENTENCE_BLEU, check_bootstrap, check_columns, engine_options, result_from_statistics_table,
    sentence_bleu_batch, statistics_batch, sum_statistics,
)
from bleukit.resampling import DEFAULT_BOOTSTRAP_SEED

# The statistics rows' Spark schema (bleukit.engines.arrow.STATISTICS_SCHEMA).
STATISTICS_DDL = "bleu_statistics array<bigint>, segments bigint, min_refs bigint, max_refs bigint"


def sentence_bleu_column(
    df: Any,
    prediction: str = "prediction",
    references: str = "references",
    column: str = SENTENCE_BLEU,
    kind: Optional[str] = None,
    **options: Any,
) -> Any:
    """`df` with a float64 column of sentence BLEU per row (lazy: nothing runs until an action).

    The numbers of `compute(..., return_sentence_scores=True)["sentence_bleu"]` with the same
    options; for filtering, sacreBLEU's sentence_bleu is smooth="exp", effective_order=True.
    `prediction`: a string column (or array<int> of token ids); `references`: array<string> (one
    or more per row) or string (or arrays of ids)."""
    from pyspark.sql.types import DoubleType, StructField, StructType

    options = engine_options(options, kind)
    check_columns(df.columns, prediction, references)
    if column in df.columns:
        raise ValueError(f"df already has a column {column!r}; pass column= another name")
    schema = StructType(df.schema.fields + [StructField(column, DoubleType(), False)])

    def score(batches: Iterator[Any]) -> Iterator[Any]:
        for batch in batches:
            yield sentence_bleu_batch(batch, prediction, references, column, kind, **options)

    return df.mapInArrow(score, schema)


def statistics_frame(
    df: Any,
    prediction: str = "prediction",
    references: str = "references",
    per_segment: bool = False,
    kind: Optional[str] = None,
    **options: Any,
) -> Any:
    """The statistics rows of `df` as a DataFrame (`STATISTICS_DDL`): one per partition (summed),
    or one per row in the DataFrame's order with `per_segment=True`. Lazy."""
    options = engine_options(options, kind)
    check_columns(df.columns, prediction, references)

    def count(batches: Iterator[Any]) -> Iterator[Any]:
        if per_segment:
            for batch in batches:
                yield statistics_batch(batch, prediction, references, True, kind, **options)
            return
        total = sum_statistics(statistics_batch(batch, prediction, references, False, kind, **options)
                               for batch in batches)
        if total.num_rows:  # an empty partition adds nothing
            yield total

    return df.select(prediction, references).mapInArrow(count, STATISTICS_DDL)


def _collect_arrow(frame: Any) -> Any:
    """The rows on the driver as an Arrow table, in partition order (pyspark 4's toArrow)."""
    import pyarrow as pa

    if hasattr(frame, "toArrow"):
        return frame.toArrow()
    return pa.Table.from_batches(frame._collect_as_arrow())  # pyspark 3.x


def corpus_bleu(
    df: Any,
    prediction: str = "prediction",
    references: str = "references",
    bootstrap_samples: int = 0,
    bootstrap_seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
    kind: Optional[str] = None,
    return_sentence_scores: bool = False,
    **options: Any,
) -> Dict[str, Any]:
    """Corpus BLEU of a DataFrame: `compute`'s result dict, the same options and signature.

    Each partition sums its statistics to one row; the driver adds those (a few hundred bytes per
    partition). With `bootstrap_samples` the driver instead collects one row per segment, in the
    DataFrame's order, to draw sacreBLEU's resamples: 2 + 2K int64 (80 bytes for max_order=4) per
    row, plus Arrow's offsets, so about 1 GB per 10 million rows."""
    check_bootstrap(bootstrap_samples, bootstrap_seed, return_sentence_scores)
    frame = statistics_frame(df, prediction, references, per_segment=bool(bootstrap_samples), kind=kind, **options)
    table = _collect_arrow(frame)
    if not bootstrap_samples:
        table = sum_statistics(table)
    return result_from_statistics_table(table, bootstrap_samples, bootstrap_seed, **options)

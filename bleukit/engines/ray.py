"""BLEU of a Ray Dataset: sentence BLEU as a column, corpus BLEU as a map of statistics and one sum.

Ray Data's `map_batches(batch_format="pyarrow")` hands each task Arrow tables; `bleukit.engines.arrow`
counts them in bulk (no Python loop over rows) and either appends a `sentence_bleu` column or
reduces the batch to one int64 statistics row. The driver adds one row per batch and scores the
sum: exactly `compute`'s result (the same options, the same signature). The options are checked on
the driver before anything runs. ray is imported only inside these functions (`pip install
"bleu-metric[ray]"`); on a cluster the workers need this module's files (a `runtime_env` with
`py_modules`, or the package installed on every node).

    scored = sentence_bleu_column(ds, smooth="exp", effective_order=True)   # lazy, a new column
    kept = scored.filter(expr="sentence_bleu >= 0.2")
    result = corpus_bleu(ds, tokenizer="13a")                              # runs, a dict
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Dict, Iterator, Optional, Union

from bleukit.engines.arrow import (
    SENTENCE_BLEU, check_bootstrap, check_columns, engine_options, result_from_statistics_table,
    sentence_bleu_batch, statistics_batch, sum_statistics,
)
from bleukit.resampling import DEFAULT_BOOTSTRAP_SEED

BatchSize = Union[int, None, str]


def _known_columns(ds: Any, *wanted: str) -> list:
    """The columns when Ray knows them without running anything (then checked); else []: a pipeline
    whose schema is unknown until it runs is not run twice, and a missing column fails in the job."""
    columns = ds.columns(fetch_if_missing=False) or []
    if columns:
        check_columns(columns, *wanted)
    return columns


def sentence_bleu_column(
    ds: Any,
    prediction: str = "prediction",
    references: str = "references",
    column: str = SENTENCE_BLEU,
    kind: Optional[str] = None,
    batch_size: BatchSize = None,
    **options: Any,
) -> Any:
    """`ds` with a float64 column of sentence BLEU per row (lazy, as every Ray Data transform).

    The numbers of `compute(..., return_sentence_scores=True)["sentence_bleu"]` with the same
    options; for filtering, sacreBLEU's sentence_bleu is smooth="exp", effective_order=True.
    `batch_size`: rows per call (None: whole blocks), as `map_batches` takes it."""
    options = engine_options(options, kind)
    columns = _known_columns(ds, prediction, references)
    if column in columns:
        raise ValueError(f"the dataset already has a column {column!r}; pass column= another name")
    return ds.map_batches(sentence_bleu_batch, batch_format="pyarrow", batch_size=batch_size,
                          fn_args=(prediction, references, column, kind), fn_kwargs=options)


def statistics_dataset(
    ds: Any,
    prediction: str = "prediction",
    references: str = "references",
    per_segment: bool = False,
    kind: Optional[str] = None,
    batch_size: BatchSize = None,
    **options: Any,
) -> Any:
    """The statistics rows of `ds` (`bleukit.engines.arrow.STATISTICS_SCHEMA`): one per batch (summed), or
    one per row with `per_segment=True`. Lazy."""
    options = engine_options(options, kind)
    _known_columns(ds, prediction, references)
    return ds.select_columns([prediction, references]).map_batches(
        statistics_batch, batch_format="pyarrow", batch_size=batch_size,
        fn_args=(prediction, references, per_segment, kind), fn_kwargs=options,
    )


@contextmanager
def _order_preserved(on: bool) -> Iterator[None]:
    """Ray Data may finish blocks out of order; a bootstrap needs the input's order."""
    from ray.data import DataContext

    settings = DataContext.get_current().execution_options
    before = settings.preserve_order
    settings.preserve_order = before or on
    try:
        yield
    finally:
        settings.preserve_order = before


def corpus_bleu(
    ds: Any,
    prediction: str = "prediction",
    references: str = "references",
    bootstrap_samples: int = 0,
    bootstrap_seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
    kind: Optional[str] = None,
    return_sentence_scores: bool = False,
    batch_size: BatchSize = None,
    **options: Any,
) -> Dict[str, Any]:
    """Corpus BLEU of a Dataset: `compute`'s result dict, the same options and signature.

    Each batch sums its statistics to one row, and the driver adds them as they stream in. With
    `bootstrap_samples` the driver instead collects one row per segment in the dataset's order
    (Ray's preserve_order, for this call): 2 + 2K int64 (80 bytes for max_order=4) per row, plus
    Arrow's offsets, so about 1 GB per 10 million rows."""
    import pyarrow as pa

    check_bootstrap(bootstrap_samples, bootstrap_seed, return_sentence_scores)
    rows = statistics_dataset(ds, prediction, references, bool(bootstrap_samples), kind, batch_size, **options)
    with _order_preserved(bool(bootstrap_samples)):
        batches = rows.iter_batches(batch_format="pyarrow", batch_size=None)
        if bootstrap_samples:
            table = pa.concat_tables(list(batches))
        else:  # a running sum: memory stays one row however many batches arrive
            table = sum_statistics([])
            for batch in batches:
                table = sum_statistics([table, *batch.to_batches()])
    return result_from_statistics_table(table, bootstrap_samples, bootstrap_seed, **options)

"""BLEU on Arrow batches: the engine-neutral half of the Spark and Ray recipes (`bleukit.engines.spark`, `bleukit.engines.ray`).

A data engine (Spark's `mapInArrow`, Ray Data's `map_batches`, `datasets`' batched `map`) hands a
worker one Arrow batch at a time. The functions here turn such a batch into

- its statistics rows (`statistics_batch`): BLEU's additive int64 rows (see `bleukit.streaming`), in
  the columns of `STATISTICS_SCHEMA`, one row per segment, or one summed row per batch;
- or the batch with a `sentence_bleu` float64 column appended (`sentence_bleu_batch`), for filtering.

Summed rows add up again (`sum_statistics`), so a partition, a node and the whole job reduce the
same way, and `result_from_statistics_table` turns what the driver collected into exactly the dict
`compute` returns (signature, and the bootstrap interval when the rows are per segment and in the
input's order). Counting is `bleukit.core`'s, in bulk over the batch; no formula is written here.

A statistics row has four columns: `bleu_statistics` (list<int64>: 2 + 2K counts, three more for
token ids, as `bleukit.streaming.statistics` writes them), `segments` (how many segments it sums),
`min_refs` and `max_refs` (the range of references per segment, for the signature's `nrefs`).
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Mapping, Optional, Tuple, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from bleukit.core import (
    bleu_rows, check_run_options, options_for_token_ids, result_from_statistics, statistics_of_inputs,
)
from bleukit.resampling import DEFAULT_BOOTSTRAP_SEED
from bleukit.inputs import TOKEN_IDS
from bleukit.options import OPTION_NAMES, canonical_options, check_option_names, resolve_options
from bleukit.streaming import check_statistics, with_provenance
from bleukit.token_ids import TOKEN_ID_OPTION_NAMES, split_token_id_options, token_id_rule
from bleukit.tokenizers.registry import TokenIds

STATISTICS, SEGMENTS, MIN_REFS, MAX_REFS = "bleu_statistics", "segments", "min_refs", "max_refs"
STATISTICS_SCHEMA = pa.schema([
    pa.field(STATISTICS, pa.list_(pa.int64())), pa.field(SEGMENTS, pa.int64()),
    pa.field(MIN_REFS, pa.int64()), pa.field(MAX_REFS, pa.int64()),
])
SENTENCE_BLEU = "sentence_bleu"
KINDS = (None, "text", TOKEN_IDS)

Batch = Union[pa.RecordBatch, pa.Table, Mapping[str, Any]]


def engine_options(options: Mapping[str, Any], kind: Optional[str] = None) -> Dict[str, Any]:
    """The BLEU options of an engine call, checked once on the driver before any job starts: the
    same names as `compute` (sacreBLEU's too), the same errors for a bad value. Returns them under
    this module's names, as the workers receive them (a tokenizer given by name is made on each
    worker; a callable one travels pickled)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)} (None detects it per batch), not {kind!r}")
    options = canonical_options(options)
    check_option_names(options, OPTION_NAMES + TOKEN_ID_OPTION_NAMES, "BLEU takes")
    rule_options, bleu_options = split_token_id_options(options)
    token_id_rule(**rule_options)
    resolve_options(**bleu_options)
    return options


def check_bootstrap(bootstrap_samples: Any, bootstrap_seed: Any, return_sentence_scores: Any = False) -> None:
    """compute's checks of its per-call options; sentence scores come as a column here instead."""
    check_run_options(return_sentence_scores, bootstrap_samples, bootstrap_seed)
    if return_sentence_scores:
        raise ValueError(
            "return_sentence_scores=True would collect one float per row on the driver; add the scores "
            "as a column with sentence_bleu_column(...) instead (then filter, or collect what you need)"
        )


def check_columns(names: Iterable[str], *wanted: str) -> None:
    """An error naming the missing column and the ones there are, before any job starts."""
    names = list(names)
    for name in wanted:
        if name not in names:
            raise ValueError(f"no column {name!r} here; the columns are {names}: pass prediction=/references= by name")


def _column_values(batch: Batch, name: str) -> list:
    if isinstance(batch, (pa.RecordBatch, pa.Table)):
        if name not in batch.schema.names:
            raise ValueError(f"no column {name!r} in this batch; its columns are {batch.schema.names}")
        return batch.column(name).to_pylist()
    values = batch[name]
    return values.to_pylist() if hasattr(values, "to_pylist") else list(values)


def _segment_rows(batch: Batch, prediction: str, references: str, kind: Optional[str],
                  options: Mapping[str, Any]) -> Tuple[np.ndarray, np.ndarray, Any]:
    """(per-segment statistics rows (with the provenance columns for token ids), references per
    segment, the options as they applied) of one non-empty batch: bleukit.core's counting, in bulk, in
    this worker process alone (the engine spreads the batches over the cores; a Spark or Ray worker,
    with its RPC threads, is no process to fork)."""
    rule_options, bleu_options = split_token_id_options(dict(options))
    rows, counts, used = statistics_of_inputs(
        _column_values(batch, prediction), _column_values(batch, references), resolve_options(**bleu_options),
        kind, token_id_rule(**rule_options), num_workers=1,
    )
    if isinstance(used.tokenizer, TokenIds):
        rows = with_provenance(rows, counts)
    return rows, np.asarray(counts, dtype=np.int64), used


def _num_rows(batch: Batch, prediction: str) -> int:
    if isinstance(batch, (pa.RecordBatch, pa.Table)):
        return batch.num_rows
    return len(batch[prediction])


def _rows_batch(rows: np.ndarray, segments: np.ndarray, low: np.ndarray, high: np.ndarray) -> pa.RecordBatch:
    offsets = pa.array(np.arange(len(rows) + 1, dtype=np.int64) * rows.shape[1], pa.int32())
    values = pa.ListArray.from_arrays(offsets, pa.array(rows.ravel(), pa.int64()))
    return pa.RecordBatch.from_arrays(
        [values, pa.array(segments, pa.int64()), pa.array(low, pa.int64()), pa.array(high, pa.int64())],
        schema=STATISTICS_SCHEMA,
    )


def statistics_batch(batch: Batch, prediction: str = "prediction", references: str = "references",
                     per_segment: bool = True, kind: Optional[str] = None, **options: Any) -> Union[pa.RecordBatch, pa.Table]:
    """The statistics rows (`STATISTICS_SCHEMA`) of one batch: one per segment, in order (what a
    bootstrap interval needs), or with `per_segment=False` one summed row (none for an empty batch).

    `batch` is an Arrow RecordBatch or Table, or a dict of columns (a `datasets` batch); the
    prediction column holds strings (or token-id lists), the references column a list of strings per
    row or one string (or id lists). The options are `compute`'s, checked by `engine_options`.
    A Table (Ray's batches) gives a Table; a RecordBatch (Spark's) or a dict gives a RecordBatch."""
    if _num_rows(batch, prediction) == 0:
        out = pa.RecordBatch.from_pylist([], schema=STATISTICS_SCHEMA)
    else:
        rows, counts, _ = _segment_rows(batch, prediction, references, kind, options)
        if per_segment:
            out = _rows_batch(rows, np.ones(len(rows), np.int64), counts, counts)
        else:
            out = _rows_batch(rows.sum(axis=0)[None, :], np.array([len(rows)]), counts.min(keepdims=True),
                              counts.max(keepdims=True))
    return pa.Table.from_batches([out]) if isinstance(batch, pa.Table) else out


def sentence_bleu_batch(batch: Batch, prediction: str = "prediction", references: str = "references",
                        column: str = SENTENCE_BLEU, kind: Optional[str] = None, **options: Any) -> Batch:
    """The batch with a float64 column of sentence BLEU, one per row: the numbers of
    `compute(..., return_sentence_scores=True)["sentence_bleu"]` with the same options (pass
    smooth="exp", effective_order=True for sacreBLEU's sentence_bleu). Same type as given."""
    if _num_rows(batch, prediction) == 0:
        scores = np.zeros(0)
    else:
        rows, _, used = _segment_rows(batch, prediction, references, kind, options)
        scores = bleu_rows(check_statistics(rows, used)[0], used)
    if isinstance(batch, (pa.RecordBatch, pa.Table)):
        return batch.append_column(pa.field(column, pa.float64(), nullable=False), pa.array(scores, pa.float64()))
    return {**batch, column: scores.tolist()}


def _as_table(batches: Union[pa.Table, pa.RecordBatch, Iterable[Union[pa.RecordBatch, pa.Table]]]) -> pa.Table:
    if isinstance(batches, (pa.RecordBatch, pa.Table)):
        batches = [batches]
    # RecordBatches and Tables alike; an engine may hand back large_list or other integer widths.
    parts = [pa.Table.from_batches([part]) if isinstance(part, pa.RecordBatch) else part for part in batches]
    return pa.concat_tables([part.cast(STATISTICS_SCHEMA) for part in parts] or [STATISTICS_SCHEMA.empty_table()])


def statistics_matrix(table: Union[pa.Table, pa.RecordBatch, Iterable[pa.RecordBatch]]) -> Tuple[np.ndarray, pa.Table]:
    """(the `bleu_statistics` column as a 2-D int64 array, the rows as one table); an error when
    the rows differ in width (text mixed with token ids, or different options)."""
    table = _as_table(table)
    values = table.column(STATISTICS).combine_chunks()
    if len(values) == 0:
        return np.zeros((0, 0), np.int64), table
    lengths = values.value_lengths().to_numpy(zero_copy_only=False)
    if lengths.min() != lengths.max():
        raise ValueError(
            f"statistics rows of different widths ({sorted(set(lengths.tolist()))}): text (2 + 2K columns) "
            "and token ids (3 more) count different tokens, and so do different max_order/smooth options; "
            "score each kind with its own call, with the same options everywhere"
        )
    return values.flatten().to_numpy().astype(np.int64, copy=False).reshape(len(values), int(lengths[0])), table


def sum_statistics(batches: Union[pa.Table, pa.RecordBatch, Iterable[pa.RecordBatch]]) -> pa.RecordBatch:
    """Statistics rows added up into one (none when there are none): the reduce of every engine,
    associative, so per partition first and then on the driver is the same sum."""
    rows, table = statistics_matrix(batches)
    if len(rows) == 0:
        return pa.RecordBatch.from_pylist([], schema=STATISTICS_SCHEMA)
    return _rows_batch(
        rows.sum(axis=0)[None, :], np.array([pc.sum(table.column(SEGMENTS)).as_py()]),
        np.array([pc.min(table.column(MIN_REFS)).as_py()]),
        np.array([pc.max(table.column(MAX_REFS)).as_py()]),
    )


def result_from_statistics_table(
    table: Union[pa.Table, pa.RecordBatch, Iterable[pa.RecordBatch]],
    bootstrap_samples: int = 0,
    bootstrap_seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
    **options: Any,
) -> Dict[str, Any]:
    """`compute`'s result dict from collected statistics rows and the same options.

    With `bootstrap_samples` the rows must be one per segment, in the input's order (sacreBLEU's
    draws for a seed index segments by position); otherwise any rows (sums) will do."""
    check_run_options(False, bootstrap_samples, bootstrap_seed)
    rows, table = statistics_matrix(table)
    segments = pc.sum(table.column(SEGMENTS)).as_py() or 0
    if segments == 0:
        raise ValueError("predictions is empty; pass at least one prediction (the data has no rows)")
    if bootstrap_samples and segments != len(rows):
        raise ValueError(
            f"a bootstrap interval resamples segments, but these {len(rows)} rows sum {segments} segments; "
            "collect statistics_batch(..., per_segment=True) rows, in the input's order"
        )
    _, bleu_options = split_token_id_options(engine_options(options))
    used = resolve_options(**bleu_options)
    counts, provenance = check_statistics(rows, used)
    if provenance is not None:
        used = options_for_token_ids(used)
    num_refs = [pc.min(table.column(MIN_REFS)).as_py(), pc.max(table.column(MAX_REFS)).as_py()]
    if not bootstrap_samples:
        counts = counts.sum(axis=0)[None, :]
    return result_from_statistics(counts, used, num_refs, False, bootstrap_samples, bootstrap_seed)

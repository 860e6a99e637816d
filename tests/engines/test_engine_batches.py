"""bleukit.engines.arrow without an engine, and `datasets` beyond one process on a streaming IterableDataset.

The Arrow batch functions are what Spark and Ray workers run; here they are checked against
one-process compute directly (splits of every kind, sums in any grouping), and the streaming recipe
of docs/scaling.md runs as written: local JSON shards read lazily, one summed statistics row per
batch, two DataLoader worker processes, the rows added up with BleuAccumulator.add_statistics.
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

from bleukit.engines.arrow import (
    STATISTICS_SCHEMA, engine_options, result_from_statistics_table, sentence_bleu_batch, statistics_batch,
    sum_statistics,
)
from bleukit.core import compute_bleu
from bleukit.streaming import BleuAccumulator, statistics
from engine_data import id_pairs, wmt17_pairs


def test_batch_rows_are_the_public_statistics_rows():
    predictions, references = wmt17_pairs(300)
    rows = statistics_batch(pa.table({"prediction": predictions, "references": references}))
    assert rows.schema == STATISTICS_SCHEMA
    matrix = np.array(rows.column("bleu_statistics").to_pylist())
    assert np.array_equal(matrix, statistics(predictions, references, per_segment=True))
    assert rows.column("min_refs").to_pylist() == [len(group) for group in references]


@pytest.mark.parametrize("cuts", [[0, 1, 2, 150, 300], [0, 0, 300], [0, 299, 300]])
def test_sums_of_any_split_score_as_compute(cuts):
    predictions, references = wmt17_pairs(300)
    table = pa.table({"prediction": predictions, "references": references})
    parts = [statistics_batch(table.slice(a, b - a), per_segment=False) for a, b in zip(cuts, cuts[1:])]
    assert [part.num_rows for part in parts] == [int(b > a) for a, b in zip(cuts, cuts[1:])]
    total = sum_statistics([sum_statistics(parts[:2]), sum_statistics(parts[2:])])
    assert total.num_rows == 1
    assert result_from_statistics_table(total, smooth="floor") == compute_bleu(predictions, references, smooth="floor")


def test_sentence_batch_and_bootstrap_from_rows_equal_compute():
    predictions, references = id_pairs(200)
    batch = pa.RecordBatch.from_pydict({"prediction": predictions, "references": references})
    expected = compute_bleu(predictions, references, bootstrap_samples=100, return_sentence_scores=True)
    assert sentence_bleu_batch(batch).column("sentence_bleu").to_pylist() == expected.pop("sentence_bleu")
    assert result_from_statistics_table(statistics_batch(batch), bootstrap_samples=100) == expected
    with pytest.raises(ValueError, match="rows sum 200 segments"):
        result_from_statistics_table(statistics_batch(batch, per_segment=False), bootstrap_samples=100)


def test_text_and_token_id_rows_do_not_mix():
    text = statistics_batch({"prediction": ["a b c"], "references": [["a b c"]]})
    ids = statistics_batch({"prediction": [[1, 2, 3]], "references": [[[1, 2, 3]]]})
    with pytest.raises(ValueError, match=r"different widths \(\[10, 13\]\)"):
        sum_statistics([text, ids])


def test_engine_options_are_computes():
    assert engine_options({"tokenize": "intl", "smooth_method": "exp"}) == {"tokenizer": "intl", "smooth": "exp"}
    with pytest.raises(ValueError, match="kind must be one of"):
        engine_options({}, kind="ids")
    with pytest.raises(ValueError) as expected:
        compute_bleu(["a"], ["a"], smooth="nope")
    with pytest.raises(ValueError) as raised:
        engine_options({"smooth": "nope"})
    assert str(raised.value) == str(expected.value)


def summed(batch: dict) -> dict:
    """One statistics row per batch (the docs' recipe)."""
    return statistics_batch(batch, per_segment=False).to_pydict()


def test_streaming_iterable_dataset_in_two_worker_processes(tmp_path):
    """The docs' recipe: a streaming dataset too large for memory, read shard by shard by two
    DataLoader workers, each batch reduced to one statistics row; the sum equals compute."""
    datasets = pytest.importorskip("datasets")
    torch = pytest.importorskip("torch")
    predictions, references = wmt17_pairs()
    files = []
    for shard, start in enumerate(range(0, len(predictions), 700)):
        path = tmp_path / f"shard-{shard}.jsonl"
        path.write_text("".join(json.dumps({"prediction": p, "references": r}) + "\n" for p, r in
                                zip(predictions[start:start + 700], references[start:start + 700])), encoding="utf-8")
        files.append(str(path))
    stream = datasets.load_dataset("json", data_files=files, split="train", streaming=True)
    assert isinstance(stream, datasets.IterableDataset) and stream.num_shards == 3
    rows = stream.map(summed, batched=True, batch_size=256, remove_columns=["prediction", "references"])
    loader = torch.utils.data.DataLoader(rows, batch_size=None, num_workers=2)
    accumulator = BleuAccumulator()
    for row in loader:
        accumulator.add_statistics(row["bleu_statistics"], num_refs=[row["min_refs"], row["max_refs"]],
                                   segments=row["segments"])
    assert accumulator.segments == len(predictions)
    assert accumulator.result() == compute_bleu(predictions, references)


def test_a_worker_counts_its_batch_in_its_own_process(monkeypatch):
    """Spark and Ray spread the batches over the cores; a batch large enough for num_workers="auto"
    must still be counted in the engine's worker itself (no fork of a process with RPC threads)."""
    import bleukit.counting.parallel as bleu_parallel

    monkeypatch.setattr(bleu_parallel, "PROCESS_MIN_SEGMENTS", 10)
    monkeypatch.setattr(bleu_parallel, "PROCESS_SECONDS", 1e-9)
    monkeypatch.setattr(bleu_parallel, "usable_cores", lambda: 2)
    assert bleu_parallel.process_count("auto", 300) == 2  # compute would fork for this batch here

    def no_fork(*args, **kwargs):
        raise AssertionError("an engine's worker forked")

    monkeypatch.setattr(bleu_parallel, "forked_columns", no_fork)
    monkeypatch.setattr(bleu_parallel, "forked_rows", no_fork)
    predictions, references = wmt17_pairs(300)
    table = pa.table({"prediction": predictions, "references": references})
    rows = statistics_batch(table)
    assert np.array_equal(np.array(rows.column("bleu_statistics").to_pylist()),
                          statistics(predictions, references, per_segment=True, num_workers=1))
    scored = sentence_bleu_batch(table, smooth="exp")
    expected = compute_bleu(predictions, references, return_sentence_scores=True, smooth="exp", num_workers=1)
    assert scored.column("sentence_bleu").to_pylist() == expected["sentence_bleu"]

"""Beyond one process: evaluate's distributed mode, torch.distributed all-reduce of the statistics,
and datasets.Dataset.map(num_proc=2) over per-segment statistics, each run by real separate
processes and each equal to the one-process result exactly."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from bleukit.streaming import score_from_statistics, statistics
from conftest import WMT17, WMT17_REFERENCE
from distributed_runs import run_workers

WORDS = "the a cat dog sat ran on under mat log red blue big small old new Haus und der die".split()


def synthetic_corpus(count: int, seed: int):
    """Noisy copies of random sentences, with 1 to 3 references each (the count varies)."""
    rng = random.Random(seed)
    predictions, references = [], []
    for _ in range(count):
        reference = rng.choices(WORDS, k=rng.randint(1, 14))
        hypothesis = [w if rng.random() < 0.8 else rng.choice(WORDS) for w in reference]
        if rng.random() < 0.3:
            del hypothesis[rng.randrange(len(hypothesis))]
        predictions.append(" ".join(hypothesis))
        group = [" ".join(reference)]
        for _ in range(rng.randint(0, 2)):
            group.append(" ".join(w if rng.random() < 0.7 else rng.choice(WORDS) for w in reference))
        references.append(group)
    return predictions, references


def write_data(tmp_path: Path, predictions, references, options) -> Path:
    path = tmp_path / "data.json"
    path.write_text(json.dumps({"predictions": predictions, "references": references, "options": options}))
    return path


def test_evaluate_distributed_mode_gives_the_single_process_result_on_process_0(tmp_path, bleu):
    predictions, references = synthetic_corpus(2001, seed=7)
    options = {"smooth": "floor"}
    data = write_data(tmp_path, predictions, references, options)
    answers = run_workers(tmp_path, "evaluate", 2, [str(tmp_path / "metric_cache"), "bleu-exp-1", str(data)])
    assert answers[1] is None  # evaluate returns the result on process 0 only
    expected = bleu.compute(predictions=predictions, references=references, **options)
    assert answers[0] == expected  # exact: every float, every count, the signature
    assert expected["signature"].startswith("nrefs:var|")
    assert 0.2 < expected["bleu"] < 0.9


def test_torch_distributed_all_reduce_of_statistics_equals_one_process(tmp_path, bleu):
    pytest.importorskip("torch.distributed")
    predictions, references = synthetic_corpus(3001, seed=11)
    options = {"lowercase": True, "max_order": 3}
    data = write_data(tmp_path, predictions, references, options)
    answers = run_workers(tmp_path, "torch", 2, [str(tmp_path / "gloo_rendezvous"), str(data)])
    whole = statistics(predictions, references, **options)
    half = len(predictions) // 2 + 1  # the worker's contiguous split: 1501 + 1500
    first = statistics(predictions[:half], references[:half], **options)
    assert (first != whole).any()  # each rank really held only a part
    for answer in answers:  # all-reduce leaves the sum on every rank
        assert answer["totals"] == whole.tolist()
    expected = bleu.compute(predictions=predictions, references=references, **options)
    assert answers[0]["result"] == expected
    assert answers[1]["result"] == expected


def large_corpus():
    """All 16 WMT17 en-de systems against the reference (48,064 segments; tests/data)."""
    systems = [path for path in sorted(WMT17.glob("*.de")) if path != WMT17_REFERENCE]
    assert len(systems) == 16
    reference = WMT17_REFERENCE.read_text(encoding="utf-8").split("\n")[:-1]
    predictions, references = [], []
    for path in systems:
        lines = path.read_text(encoding="utf-8").split("\n")[:-1]
        assert len(lines) == len(reference), path
        predictions.extend(lines)
        references.extend([r] for r in reference)
    return predictions, references


def test_dataset_map_num_proc_2_per_segment_statistics_equal_one_process(tmp_path, bleu):
    datasets = pytest.importorskip("datasets")
    from distributed_workers import segment_rows

    predictions, references = large_corpus()
    assert len(predictions) >= 40000
    corpus = datasets.Dataset.from_dict({"prediction": predictions, "references": references})
    mapped = corpus.map(
        segment_rows, batched=True, batch_size=4096, num_proc=2, fn_kwargs={"options": {}},
        remove_columns=corpus.column_names, cache_file_name=str(tmp_path / "stats.arrow"),
        desc=None,
    )
    rows = np.asarray(mapped.with_format("numpy")["stats"], dtype=np.int64)
    assert rows.shape == (len(predictions), 10)
    assert len(list(tmp_path.glob("stats_*.arrow"))) == 2  # two worker processes wrote a shard each
    expected = bleu.compute(predictions=predictions, references=references)
    num_refs = [len(group) for group in references]  # only the signature needs it
    assert score_from_statistics(rows.sum(axis=0), num_refs=num_refs) == expected

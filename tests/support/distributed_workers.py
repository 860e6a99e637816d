"""Worker processes for tests/test_distributed.py, run as real separate Python processes.

    python tests/distributed_workers.py evaluate RANK WORLD CACHE_DIR EXPERIMENT_ID DATA_JSON OUT_JSON
    python tests/distributed_workers.py torch    RANK WORLD INIT_FILE DATA_JSON OUT_JSON
    python tests/distributed_workers.py tensor   RANK WORLD INIT_FILE DATA_JSON OUT_JSON

`evaluate`: evaluate's own distributed mode; each process adds its contiguous shard of the data
through a shared cache_dir, and process 0 gets the result (the others get None).
`torch`: each process computes its shard's BLEU statistics, torch.distributed (gloo) all-reduces
them, and rank 0 scores the sum.
`tensor`: each process counts its rows of a padded token-id batch with bleukit.tensor.scores (statistics as
int64 tensors) and all-reduces them (tests/test_tensor.py).

Also `segment_rows`, the function the datasets.Dataset.map test runs in its worker processes.
"""

from __future__ import annotations

import faulthandler
import json
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any, Dict, List

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def shard(items: List[Any], rank: int, world: int) -> List[Any]:
    """The rank-th of `world` contiguous, nearly equal parts."""
    size, extra = divmod(len(items), world)
    start = rank * size + min(rank, extra)
    return items[start : start + size + (1 if rank < extra else 0)]


def segment_rows(batch: Dict[str, list], options: Dict[str, Any]) -> Dict[str, list]:
    """Dataset.map function: one statistics row per segment (runs inside map's worker processes)."""
    from bleukit.streaming import statistics

    rows = statistics(batch["prediction"], batch["references"], per_segment=True, **options)
    return {"stats": rows.tolist()}


def run_evaluate(rank: int, world: int, cache_dir: str, experiment_id: str, data: dict) -> Any:
    import evaluate

    metric = evaluate.load(
        str(REPO / "bleu_metric.py"), num_process=world, process_id=rank, cache_dir=cache_dir,
        experiment_id=experiment_id, timeout=120,
    )
    predictions, references = shard(data["predictions"], rank, world), shard(data["references"], rank, world)
    for start in range(0, len(predictions), 500):  # several add_batch calls, as an eval loop would
        metric.add_batch(predictions=predictions[start : start + 500], references=references[start : start + 500])
    return metric.compute(**data["options"])


def run_torch(rank: int, world: int, init_file: str, data: dict) -> Any:
    import torch
    import torch.distributed as dist

    from bleukit.streaming import score_from_statistics, statistics

    dist.init_process_group(
        "gloo", init_method=f"file://{init_file}", rank=rank, world_size=world, timeout=timedelta(seconds=60)
    )
    try:
        predictions, references = shard(data["predictions"], rank, world), shard(data["references"], rank, world)
        totals = torch.from_numpy(statistics(predictions, references, **data["options"]))
        num_refs = torch.tensor([min(map(len, references)), -max(map(len, references))], dtype=torch.int64)
        dist.all_reduce(totals, op=dist.ReduceOp.SUM)
        dist.all_reduce(num_refs, op=dist.ReduceOp.MIN)
        low, high = int(num_refs[0]), -int(num_refs[1])
        result = score_from_statistics(totals, num_refs=[low, high], **data["options"])
        return {"rank": rank, "totals": totals.tolist(), "result": result}
    finally:
        dist.destroy_process_group()


def run_tensor(rank: int, world: int, init_file: str, data: dict) -> Any:
    """Each rank counts its rows of a padded id batch with bleukit.tensor.scores, then all-reduces the sum."""
    import torch
    import torch.distributed as dist

    from bleukit.streaming import score_from_statistics
    from bleukit.tensor.scores import statistics

    dist.init_process_group(
        "gloo", init_method=f"file://{init_file}", rank=rank, world_size=world, timeout=timedelta(seconds=60)
    )
    try:
        predictions = torch.tensor(shard(data["predictions"], rank, world), dtype=torch.long)
        references = torch.tensor(shard(data["references"], rank, world), dtype=torch.long)
        totals = statistics(predictions, references, ignore_ids=[data["pad_id"]], **data["options"])
        shard_totals = totals.tolist()
        dist.all_reduce(totals, op=dist.ReduceOp.SUM)
        scored = score_from_statistics(totals, **data["options"])  # the sum still says tok:ids, and its nrefs
        return {"rank": rank, "shard": shard_totals, "totals": totals.tolist(), "dtype": str(totals.dtype),
                "bleu": scored["bleu"], "signature": scored["signature"]}
    finally:
        dist.destroy_process_group()


def main(argv: List[str]) -> None:
    faulthandler.dump_traceback_later(90, exit=True)  # a hung rendezvous shows where, then exits
    mode, rank, world = argv[0], int(argv[1]), int(argv[2])
    if mode == "evaluate":
        cache_dir, experiment_id, data_path, out_path = argv[3:7]
        data = json.loads(Path(data_path).read_text(encoding="utf-8"))
        answer = run_evaluate(rank, world, cache_dir, experiment_id, data)
    elif mode == "torch":
        init_file, data_path, out_path = argv[3:6]
        data = json.loads(Path(data_path).read_text(encoding="utf-8"))
        answer = run_torch(rank, world, init_file, data)
    elif mode == "tensor":
        init_file, data_path, out_path = argv[3:6]
        data = json.loads(Path(data_path).read_text(encoding="utf-8"))
        answer = run_tensor(rank, world, init_file, data)
    else:
        raise SystemExit(f"unknown mode {mode!r}; use 'evaluate', 'torch' or 'tensor'")
    Path(out_path).write_text(json.dumps(answer), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])

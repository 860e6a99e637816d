"""Real separate worker processes for the distributed tests (tests/support/distributed_workers.py is
what each one runs): their environment, and starting a world of them at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

WORKERS = Path(__file__).resolve().parent / "distributed_workers.py"


def worker_env(tmp_path: Path, rank: int) -> dict:
    env = dict(os.environ)
    env.update(
        HF_HOME=str(tmp_path / "hf_home"),
        HF_MODULES_CACHE=str(tmp_path / f"modules_{rank}"),  # each process builds its own module copy
        HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", HF_EVALUATE_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="1",
    )
    if Path("/sys/class/net/lo").exists():
        env["GLOO_SOCKET_IFNAME"] = "lo"  # keep gloo on the loopback device
    return env


def run_workers(tmp_path: Path, mode: str, world: int, extra_args) -> list:
    """Start `world` worker processes at once, wait for all, return their JSON answers by rank."""
    outputs = [tmp_path / f"{mode}_out_{rank}.json" for rank in range(world)]
    processes = [
        subprocess.Popen(
            [sys.executable, str(WORKERS), mode, str(rank), str(world), *extra_args, str(outputs[rank])],
            env=worker_env(tmp_path, rank), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        for rank in range(world)
    ]
    logs = []
    try:
        for process in processes:
            try:
                logs.append(process.communicate(timeout=150)[0])
            except subprocess.TimeoutExpired:
                process.kill()
                logs.append(process.communicate()[0] + "\n[killed after 150 s]")
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
    for rank, process in enumerate(processes):
        assert process.returncode == 0, f"worker {rank} failed:\n{logs[rank][-3000:]}"
    return [json.loads(path.read_text(encoding="utf-8")) for path in outputs]

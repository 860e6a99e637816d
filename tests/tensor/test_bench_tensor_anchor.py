"""bench/bench_tensor.py survives its TensorBLEU-style anchor: the anchor runs in a process of its own per size
and is skipped where its offset bincount would need more than 2^31 - 1 bins (on an H200 the 1024 x 1024 x 4 size
crashed with an illegal memory access that poisoned the CUDA context and ended the run, 2026-11-26). On the CPU,
with tiny sizes: the anchor's process is made to raise, to die and to be skipped, and every row still prints."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("nltk")

from conftest import REPO  # noqa: E402

SCRIPT = REPO / "bench" / "bench_tensor.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_tensor_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rows(output: str) -> dict:
    """label -> the table's row, for the lines after the header's rule."""
    lines = output.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("-----"))
    return {line.split("|")[0].strip(): line for line in lines[rule + 1:] if "|" in line}


@pytest.mark.slow  # starts the anchor's processes (pytest.ini: slow)
def test_every_size_prints_a_row_when_the_anchor_dies_or_is_skipped():
    sizes = ["4x16x1", "3x8x1", "8x16x2", "5x12x1@70%"]
    env = dict(os.environ, BENCH_TENSOR_ANCHOR_FAIL="3x8x1:abort")  # its process dies, as a poisoned GPU's would
    # 8 x 16 x 2 needs 8 x 242 = 1,936 bins (4-grams); the others at most 355: a limit of 1,000 skips it alone.
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--device", "cpu", "--sizes", *sizes, "--repeats", "1",
         "--nltk-sentences", "3", "--threads", "1", "--anchor-max-bins", "1000"],
        capture_output=True, text=True, timeout=120, env=env, cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    table = rows(done.stdout)
    assert list(table) == ["4 x 16 x 1", "3 x 8 x 1", "8 x 16 x 2", "5 x 12 x 1 @70%"], done.stdout
    ok, killed, skipped, shared = table.values()
    for row in (ok, shared):  # the anchor ran, agreed with ours, and gave its time and ratio
        cells = [cell.strip() for cell in row.split("|")]
        assert "anchor" not in row and cells[-1] == "yes", row
        assert float(cells[3]) > 0 and float(cells[5]) > 0
    assert "anchor failed: process killed by SIGABRT" in killed
    assert "anchor skipped: 1.9e3 bins > 1.0e3" in skipped
    for row in (killed, skipped):
        cells = [cell.strip() for cell in row.split("|")]
        assert float(cells[1]) > 0  # the project's time is there
        assert cells[3] == "-" and cells[5] == "-"  # no anchor time, no ratio
        assert cells[-1].startswith("yes  (anchor ")  # ours still checked against NLTK


@pytest.mark.slow  # starts the anchor's processes (pytest.ini: slow)
def test_an_error_inside_the_anchor_is_reported_on_its_row(bench, capfd, monkeypatch):
    monkeypatch.setenv(bench.ANCHOR_FAIL_ENV, "4x8x2:raise")
    bench.run(torch.device("cpu"), [bench.parse_size("4x8x2")], repeats=1, nltk_sentences=2, threads=1,
              anchor_timeout=60)
    table = rows(capfd.readouterr().out)
    assert list(table) == ["4 x 8 x 2"]
    assert table["4 x 8 x 2"].endswith("| yes  (anchor failed: RuntimeError: simulated anchor failure "
                                        "(BENCH_TENSOR_ANCHOR_FAIL))")


@pytest.mark.slow  # starts the anchor's processes (pytest.ini: slow)
def test_an_anchor_that_hangs_is_stopped_by_its_timeout(bench, monkeypatch):
    monkeypatch.setenv(bench.ANCHOR_FAIL_ENV, "2x6x1:hang")
    spec = {"batch": 2, "length": 6, "refs": 1, "replaced": 0.2, "device": "cpu", "repeats": 1, "threads": 1}
    assert bench.run_anchor(spec, timeout=0.5) == (None, None, "anchor failed: timed out after 0.5 s")


def test_the_bin_count_is_the_anchors_own_and_the_check_skips_past_2_31(bench, monkeypatch):
    predictions, references = bench.make_batch(6, 12, 3, torch.device("cpu"))
    asked = []  # the bins tensorbleu_style's offset bincounts ask for
    bincount = torch.bincount
    monkeypatch.setattr(torch, "bincount", lambda *a, **k: asked.append(k["minlength"]) or bincount(*a, **k))
    bench.tensorbleu_style(predictions, references)
    monkeypatch.setattr(torch, "bincount", bincount)
    assert bench.anchor_bins(predictions, references) == max(asked) == 1086
    # Ids too large to pack n of them into one int64 take the unique(dim=0) path, with the same answer.
    huge = torch.where(predictions > 0, predictions + 2**40, predictions)
    huge_refs = torch.where(references > 0, references + 2**40, references)
    assert bench.anchor_bins(huge, huge_refs) == 1086
    assert bench.anchor_skip_reason(2**31 - 1) is None
    assert bench.anchor_skip_reason(2**31) == "anchor skipped: 2.1e9 bins > 2^31"
    # 1024 x 1024 x 4 on the full grid, where the H200 run crashed, needs about 3.7e9 bins.
    assert bench.anchor_skip_reason(int(3.7e9)) == "anchor skipped: 3.7e9 bins > 2^31"
    assert bench.anchor_skip_reason(1086, limit=1000) == "anchor skipped: 1.1e3 bins > 1.0e3"

"""evaluate.load works with the network cut off, and never tries to reach it.

A fresh interpreter refuses every socket connection and DNS lookup (and records each attempt),
points every Hugging Face cache at an empty temporary directory, and does NOT set
HF_HUB_OFFLINE or similar: the module must not need to be told it is offline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from conftest import METRIC_PATH

SCRIPT = textwrap.dedent(
    """
    import json, socket, sys

    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(repr(args[1:] or args)[:80])
        raise ConnectionRefusedError("network is cut off in this test")

    socket.socket.connect = lambda self, address: refuse(self, address)
    socket.socket.connect_ex = lambda self, address: refuse(self, address)
    socket.create_connection = refuse
    socket.getaddrinfo = refuse

    import evaluate

    bleu = evaluate.load(sys.argv[1])
    result = bleu.compute(
        predictions=["the cat the cat on the mat"],
        references=[["the cat is on the mat", "there is a cat on the mat"]],
        tokenizer="none",
    )
    print(json.dumps({"attempts": attempts, "bleu": result["bleu"], "signature": result["signature"]}))
    """
)


def test_load_and_compute_with_every_connection_refused(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE", "TRANSFORMERS"))}
    env.update(
        HF_HOME=str(tmp_path / "hf"),
        HF_MODULES_CACHE=str(tmp_path / "modules"),
        HF_DATASETS_CACHE=str(tmp_path / "datasets"),
        HF_EVALUATE_CACHE=str(tmp_path / "evaluate"),
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
    )
    completed = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(METRIC_PATH)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert report["attempts"] == []
    assert report["bleu"] == 0.4671379777282001 or abs(report["bleu"] - 0.4671379777282001) < 1e-15
    assert report["signature"].startswith("nrefs:2|case:mixed|eff:no|tok:none|")
    # The module was copied into the empty modules cache: it really was loaded from scratch.
    assert any(path.name == "bleu_metric.py" for path in (tmp_path / "modules").rglob("*.py"))


def test_the_metric_script_never_asks_evaluate_to_download():
    """evaluate reads the text after '#' on an import line of the script as a URL to download, and
    parses one module per line: no comment and no comma on any import line of bleu_metric.py."""
    for line in METRIC_PATH.read_text(encoding="utf-8").splitlines():
        if line.startswith(("import ", "from ")):
            assert "#" not in line, line
            assert "," not in line.split(" import ")[0], f"several modules on one line: {line}"

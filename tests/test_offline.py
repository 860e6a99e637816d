"""evaluate.load works with the network cut off, and never tries to reach it.

A fresh interpreter refuses every socket connection and DNS lookup (and records each attempt),
points every Hugging Face cache at an empty temporary directory, and does NOT set
HF_HUB_OFFLINE or similar: the module must not need to be told it is offline.
"""

from __future__ import annotations

from conftest import METRIC_PATH, assert_import_lines_safe_for_evaluate, run_with_network_refused

SCRIPT = """
import evaluate

bleu = evaluate.load(sys.argv[1])
result = bleu.compute(
    predictions=["the cat the cat on the mat"],
    references=[["the cat is on the mat", "there is a cat on the mat"]],
    tokenizer="none",
)
report = {"bleu": result["bleu"], "signature": result["signature"]}
"""


def test_load_and_compute_with_every_connection_refused(tmp_path):
    report = run_with_network_refused(tmp_path, SCRIPT, str(METRIC_PATH))
    assert report["attempts"] == []
    assert report["bleu"] == 0.4671379777282001 or abs(report["bleu"] - 0.4671379777282001) < 1e-15
    assert report["signature"].startswith("nrefs:2|case:mixed|eff:no|tok:none|")
    # The module was copied into the empty modules cache: it really was loaded from scratch.
    assert any(path.name == "bleu_metric.py" for path in (tmp_path / "modules").rglob("*.py"))


def test_the_metric_script_never_asks_evaluate_to_download():
    """evaluate reads the text after '#' on an import line of the script as a URL to download, and
    parses one module per line: no comment and no comma on any import line of bleu_metric.py."""
    assert_import_lines_safe_for_evaluate(METRIC_PATH)


def local_imports(path) -> set:
    """The sibling modules (bleu_*.py) a module imports, relatively or not, anywhere in its text."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and (path.parent / f"{node.module}.py").exists():
            names.add(node.module)
    return names


def test_every_helper_module_is_imported_by_each_module_script():
    """evaluate.load copies only the modules a script imports itself, not their imports: so every
    module reachable from bleu_metric.py (and bleu_comparison.py) is imported there, at column 0."""
    for script in (METRIC_PATH, METRIC_PATH.parent / "bleu_comparison.py"):
        direct = {line.split()[1][1:] for line in script.read_text(encoding="utf-8").splitlines()
                  if line.startswith("from .")}
        reachable, todo = set(), list(direct)
        while todo:
            module = todo.pop()
            if module not in reachable:
                reachable.add(module)
                todo.extend(local_imports(script.parent / f"{module}.py"))
        assert reachable <= direct, f"{script.name} must import {sorted(reachable - direct)} itself"

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
    """evaluate reads the text after '# From:' on a relative import line as a URL to download: the
    script imports only libraries, the package among them, with its install hint."""
    assert_import_lines_safe_for_evaluate(METRIC_PATH)


MISSING_PACKAGE = """
import builtins, evaluate
real_import = builtins.__import__
def without_bleukit(name, *args, **kwargs):
    if name == "bleukit" or name.startswith("bleukit."):
        raise ImportError(f"No module named {name!r}")
    return real_import(name, *args, **kwargs)
builtins.__import__ = without_bleukit
try:
    evaluate.load(sys.argv[1])
    report = {"error": None}
except ImportError as error:
    report = {"error": str(error)}
"""


def test_without_the_package_evaluate_says_what_to_install(tmp_path):
    """A Hub user who loads the script without the package gets evaluate's install hint, from the
    import line's `# From: bleukit`, and no download is tried."""
    report = run_with_network_refused(tmp_path, MISSING_PACKAGE, str(METRIC_PATH))
    assert report["attempts"] == []
    assert "pip install bleukit" in report["error"], report


def test_the_loaded_metric_and_the_package_share_every_class(bleu):
    """One identity per class: the loaded metric runs the installed package's modules, not copies, so
    a tokenizer object made from the package signs its own name (the flat layout copied the modules
    into evaluate's cache: `tok:custom:TokenizerIntl`), and no module lives twice."""
    import sys

    from bleukit.tokenizers.base import BaseTokenizer
    from bleukit.tokenizers.regex import TokenizerIntl

    result = bleu.compute(predictions=["a b c, d"], references=["a b c , d"], tokenizer=TokenizerIntl())
    assert "|tok:intl|" in result["signature"]
    assert type(bleu).__mro__[1].__module__ == "bleukit.evaluate_module"
    assert isinstance(bleu.accumulator().options.tokenizer, BaseTokenizer)
    flat = [name for name in sys.modules if name.startswith("bleu_") and name not in ("bleu_metric", "bleu_comparison")]
    copies = [name for name in sys.modules if ".bleukit" in name]  # bleukit copied under another package
    assert flat == [] and copies == []


def test_the_shipped_wmt17_data_is_the_shared_data_byte_for_byte():
    """tests/data ships the WMT17 files the tests read, xz-compressed, so that a clone without
    ../shared runs every test; where ../shared is beside the clone, they are the same bytes."""
    from conftest import SHARED_WMT17, WMT17

    names = sorted(path.name for path in WMT17.glob("*.de"))
    assert len(names) == 17 and "newstest2017-ende.ref.de" in names
    assert len(WMT17.joinpath("newstest2017-ende.ref.de").read_text(encoding="utf-8").splitlines()) == 3004
    if SHARED_WMT17.is_dir():
        assert names == sorted(path.name for path in SHARED_WMT17.glob("*.de"))
        for name in names:
            assert (WMT17 / name).read_bytes() == (SHARED_WMT17 / name).read_bytes(), name

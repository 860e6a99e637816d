"""Shared fixtures: the repository root, the metric loaded as users load it, the WMT17 data."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
METRIC_PATH = REPO / "bleu_metric.py"
WMT17 = REPO.parent / "shared" / "data" / "wmt17-en-de"
WMT17_REFERENCE = WMT17 / "newstest2017-ende.ref.de"


def wmt17_lines(name: str) -> list:
    """The lines of one WMT17 file, or skip the test where ../shared/data is absent."""
    path = WMT17 / name
    if not path.exists():
        pytest.skip(f"{path} is absent (it is only beside developer and CI checkouts)")
    return path.read_text(encoding="utf-8").split("\n")[:-1]


@pytest.fixture(scope="session")
def bleu():
    """The metric exactly as users get it: evaluate.load on the script path."""
    import evaluate

    return evaluate.load(str(METRIC_PATH))

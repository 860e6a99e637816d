"""Shared fixtures: the repository root, the metric loaded as users load it, the WMT17 data."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
METRIC_PATH = REPO / "bleu_metric.py"
# The WMT17 en-de data the tests score ships with the repository, xz-compressed (tests/data/README.md
# names its source); it is unpacked once, here, so that tests can hand real file paths around.
WMT17_PACKED = REPO / "tests" / "data" / "wmt17-en-de"
SHARED_WMT17 = REPO.parent / "shared" / "data" / "wmt17-en-de"


def unpacked_wmt17() -> Path:
    import lzma

    folder = WMT17_PACKED / "unpacked"
    folder.mkdir(exist_ok=True)
    for packed in sorted(WMT17_PACKED.glob("*.de.xz")):
        target = folder / packed.name[: -len(".xz")]
        if not target.exists():
            partial = target.with_suffix(".partial")
            partial.write_bytes(lzma.decompress(packed.read_bytes()))
            partial.replace(target)
    return folder


WMT17 = unpacked_wmt17()
WMT17_REFERENCE = WMT17 / "newstest2017-ende.ref.de"


# Markers by folder and file (declared in pytest.ini): CI runs everything; the quick loop leaves the
# marked ones out.
MARKERS_BY_PATH = {
    "engines/": "engines",
    "space/test_app_browser": "browser",
    "integrations/test_trainer": "slow",
    "integrations/test_grpo": "slow",
    "integrations/test_reward": "slow",
    "integrations/test_distributed": "slow",
    "integrations/test_ecosystem": "slow",
    "packaging/test_packaging": "slow",
    "packaging/test_offline": "slow",
    "cli/test_cli": "slow",
    "cli/test_error_hints": "slow",
    "space/test_app_api": "slow",
    "space/test_app_sessions": "slow",
}


def pytest_collection_modifyitems(items):
    for item in items:
        path = Path(str(item.fspath)).resolve().relative_to(REPO / "tests").as_posix()
        for prefix, marker in MARKERS_BY_PATH.items():
            if path.startswith(prefix):
                item.add_marker(marker)
        if "cuda" in item.name.lower() or "cuda" in item.nodeid.lower():
            item.add_marker("gpu")


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    """The demo served as users run it (`python app.py --port N` on 127.0.0.1, no analytics): one
    server for every Space test of the session (starting it costs about 20 s)."""
    from app_server import serve_app

    yield from serve_app(tmp_path_factory)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium driven by Playwright, one for the session (the browser tests skip where
    either is missing)."""
    from browser_support import launch_chromium

    yield from launch_chromium()


def wmt17_lines(name: str) -> list:
    """The lines of one WMT17 file (tests/data, unpacked)."""
    return (WMT17 / name).read_text(encoding="utf-8").split("\n")[:-1]


@pytest.fixture(scope="session")
def bleu():
    """The metric exactly as users get it: evaluate.load on the script path."""
    import evaluate

    return evaluate.load(str(METRIC_PATH))


class Oracles:
    """The reference implementations the parity tests compare against, answering in our units:
    BLEU and precisions as fractions in 0..1, references grouped per prediction."""

    @staticmethod
    def sacrebleu(predictions, references, tokenizer="13a", lowercase=False, smooth="none",
                  smooth_value=None, max_order=4, effective_order=False) -> dict:
        """sacreBLEU's corpus_score. It takes references as parallel streams; a prediction with
        fewer references than the widest group gets None in the remaining streams (sacreBLEU
        drops None; it keeps '' as a reference of length 0)."""
        import logging

        from sacrebleu.metrics import BLEU

        logging.getLogger("sacrebleu").setLevel(logging.ERROR)  # zh/intl language hints
        width = max(map(len, references))
        streams = [[group[k] if k < len(group) else None for group in references] for k in range(width)]
        metric = BLEU(tokenize=tokenizer, lowercase=lowercase, smooth_method=smooth, smooth_value=smooth_value,
                      max_ngram_order=max_order, effective_order=effective_order)
        score = metric.corpus_score(list(predictions), streams)
        return {"bleu": score.score / 100, "precisions": [p / 100 for p in score.precisions],
                "brevity_penalty": score.bp, "translation_length": score.sys_len, "reference_length": score.ref_len}

    @staticmethod
    def legacy(predictions, references, max_order=4, smooth=False) -> dict:
        """bleuscore, which reproduces evaluate's legacy `bleu` (13a tokens, shortest reference),
        without the keys it defines differently (see tests/test_parity_legacy.py): length_ratio
        when the reference length is 0 (inf or nan there), bleu when the translation is empty."""
        import bleuscore

        result = bleuscore.compute(references=[list(g) for g in references], predictions=list(predictions),
                                   max_order=max_order, smooth=smooth, ref_len_method="shortest")
        if result["reference_length"] == 0:
            del result["length_ratio"]
        if result["translation_length"] == 0:
            del result["bleu"]
        return result

    @staticmethod
    def nltk(hypotheses, references, weights, method, value=None, sentence=False):
        """NLTK's corpus_bleu on token lists (sentence_bleu of the only hypothesis if `sentence`);
        `value` is the method's epsilon (1), k (4, 7) or alpha (6). None where NLTK defines the
        number differently from us (the divergences listed in tests/test_parity_nltk.py)."""
        import warnings

        from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu, modified_precision, sentence_bleu

        max_order = len(weights)

        def matched(order: int) -> bool:
            return sum(modified_precision(g, h, order).numerator for h, g in zip(hypotheses, references)) > 0

        if (
            min(map(len, hypotheses)) < max_order  # max(1, count) denominators
            or (method >= 4 and not sentence)  # corpus level: last hypothesis only
            or (method in (5, 7) and max_order != 4)  # always reads 5-grams
            or (method == 6 and (max_order < 3 or not matched(3)))  # asserts trigram matches
            or (method == 0 and not all(matched(n) for n in range(1, max_order + 1)))  # float_info.min
        ):
            return None
        default = {1: 0.1, 4: 5.0, 6: 5.0, 7: 5.0}.get(method)
        v = default if value is None else value
        smoothing = getattr(SmoothingFunction(epsilon=v or 0.1, alpha=v or 5, k=v or 5), f"method{method}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if sentence:
                (hypothesis,), (group,) = hypotheses, references
                return sentence_bleu(group, hypothesis, weights=tuple(weights), smoothing_function=smoothing)
            return corpus_bleu(references, hypotheses, weights=tuple(weights), smoothing_function=smoothing)

    @staticmethod
    def assert_same(ours: dict, expected: dict, rel: float = 1e-10) -> None:
        """Every key of `expected` equal in `ours`: integers exactly, floats to relative `rel`
        (so 0 only equals 0), precisions order by order."""
        import math

        for key, want in expected.items():
            got = ours[key]
            pairs = list(zip(got, want)) if key == "precisions" else [(got, want)]
            assert len(pairs) == (len(want) if key == "precisions" else 1), (key, got, want)
            for g, w in pairs:
                ok = g == w if isinstance(w, int) else math.isclose(g, w, rel_tol=rel, abs_tol=0.0)
                assert ok, f"{key}: ours {got!r}, oracle {want!r}"


@pytest.fixture(scope="session")
def oracles() -> Oracles:
    """sacreBLEU, bleuscore (evaluate's legacy bleu) and NLTK, called in our units."""
    return Oracles()


# A fresh interpreter with the network cut off: every socket connect and DNS lookup is refused and
# recorded (in `attempts`), and nothing tells the libraries they are offline.
_NETWORK_REFUSED = """
import json, socket, sys

attempts = []

def refuse(*args, **kwargs):
    attempts.append(repr(args[1:] or args)[:80])
    raise ConnectionRefusedError("network is cut off in this test")

socket.socket.connect = lambda self, address: refuse(self, address)
socket.socket.connect_ex = lambda self, address: refuse(self, address)
socket.create_connection = refuse
socket.getaddrinfo = refuse
"""


def run_with_network_refused(tmp_path: Path, body: str, *args: str) -> dict:
    """Run `body` after the network-refusing prelude, with every Hugging Face cache pointed at an
    empty folder under tmp_path; `body` prints one JSON object, returned here with `attempts` added."""
    import json
    import os
    import subprocess
    import sys
    import textwrap

    script = _NETWORK_REFUSED + textwrap.dedent(body) + (
        "\nprint(json.dumps({**report, 'attempts': attempts}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE", "TRANSFORMERS"))}
    env.update(
        HF_HOME=str(tmp_path / "hf"),
        HF_MODULES_CACHE=str(tmp_path / "modules"),
        HF_DATASETS_CACHE=str(tmp_path / "datasets"),
        HF_EVALUATE_CACHE=str(tmp_path / "evaluate"),
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
    )
    completed = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def assert_import_lines_safe_for_evaluate(path: Path) -> None:
    """What evaluate's own parser (`get_imports`) reads in a module script: library imports only
    (a relative import is a file to copy or, with a URL comment, to download: never), one module per
    line, and the package's line carrying its install hint (`# From: bleukit` becomes evaluate's
    "pip install bleukit" where the package is missing)."""
    from evaluate.loading import get_imports

    imports = get_imports(str(path))
    assert {kind for kind, *_ in imports} == {"library"}, imports
    assert {(name, hint) for _, name, hint, _ in imports} == {("datasets", "datasets"), ("evaluate", "evaluate"),
                                                               ("bleukit", "bleukit")}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(("import ", "from ")):
            assert "," not in line.split(" import ")[0], f"several modules on one line: {line}"
            assert "#" not in line or line.endswith("# From: bleukit"), line


@pytest.fixture(scope="session")
def spm_home(tmp_path_factory):
    """A $SACREBLEU folder whose models/ holds a small SentencePiece model under each of sacreBLEU's
    file names (trained here, once for the session; None without sentencepiece). Used by the
    tokenizer, CLI and Space tests of sacreBLEU's language tokenizers."""
    from language_models import train_spm_models

    return train_spm_models(tmp_path_factory)


@pytest.fixture
def models_here(spm_home, monkeypatch):
    """Point this module ($SACREBLEU) and sacreBLEU (its SACREBLEU_DIR, read at import) at the models."""
    from language_models import point_at_models

    point_at_models(spm_home, monkeypatch)
    return spm_home

"""What the claims of several pages share: the WMT17 files and the card's example, `Code` (what the
claims ask of the code, each computed once per session), and readers of the code's constants and defaults."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from conftest import WMT17, wmt17_lines
from docs_numbers import REPO
from docs_pages import Doc

WMT17_SYSTEMS = sorted(path.name for path in WMT17.glob("*.de") if not path.name.startswith("newstest"))
REFERENCE = "newstest2017-ende.ref.de"
# The card's first example (README "How to Use"), which docs/metric.md reuses.
CARD_PREDICTIONS = ["the cat the cat on the mat", "you are ready ?"]
CARD_REFERENCES = [["the cat is on the mat", "there is a cat on the mat"], ["are you ready ?"]]
CAT = ["the cat is on the mat", "there is a cat on the mat"]


def constant(path: str, name: str) -> Any:
    """A module-level constant of the code, read from its source (nothing imported): in `path`, or, where
    it has moved since (others edit the code), in any module of the same top folder, if they all agree."""
    import ast

    def defined(file: Path) -> list:
        tree = ast.parse(file.read_text(encoding="utf-8"))
        return [eval(compile(ast.Expression(node.value), str(file), "eval"), {}) for node in tree.body
                if any(isinstance(t, ast.Name) and t.id == name for t in
                       (node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []))]

    found = defined(REPO / path) if (REPO / path).exists() else []
    if not found and (REPO / path).parts[-1].endswith(".py") and path.split("/")[0] in ("bleukit", "space"):
        found = [value for file in sorted((REPO / path.split("/")[0]).rglob("*.py")) for value in defined(file)]
    if not found or any(value != found[0] for value in found):
        raise LookupError(f"{path} (or its package) has no single constant {name}: {found}")
    return found[0]


class Code:
    """What the claims ask of the code, each computed once per session."""

    def __init__(self, bleu, folder: Path):
        self.bleu = bleu
        self.folder = folder  # the WMT17 files and the console blocks' files, for the CLI

    @staticmethod
    def compute(predictions, references, **options) -> dict:
        from bleukit.core import compute_bleu

        return compute_bleu(predictions, references, **options)

    @staticmethod
    @lru_cache(maxsize=None)
    def lines(name: str) -> Tuple[str, ...]:
        return tuple(wmt17_lines(name))

    def system(self, name: str, **options) -> dict:
        return self.compute(list(self.lines(name)), list(self.lines(REFERENCE)), **options)

    def cli(self, *args: str, stdin: Optional[str] = None, cwd: Optional[Path] = None) -> str:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SACREBLEU")}
        completed = subprocess.run([sys.executable, "-m", "bleukit", *args], input=stdin, capture_output=True,
                                   text=True, timeout=300, cwd=cwd or self.folder, env=env)
        assert completed.returncode == 0, completed.stderr[-2000:]
        return completed.stdout

    def file(self, name: str, lines: Sequence[str]) -> str:
        (self.folder / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return name

    def status(self, *args: str, stdin: Optional[str] = None) -> int:
        """The exit status of the command (run in the WMT17 folder)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("SACREBLEU")}
        return subprocess.run([sys.executable, "-m", "bleukit", *args], input=stdin, capture_output=True, text=True,
                              timeout=300, cwd=self.folder, env=env).returncode

    def columns(self, count: Optional[int] = None) -> str:
        """`paste online-B LIUM-NMT` (docs/cli.md), its first `count` lines."""
        pairs = list(zip(self.lines("online-B.0.de"), self.lines("LIUM-NMT.4900.de")))[:count]
        return "".join(f"{a}\t{b}\n" for a, b in pairs)

    @cached_property
    def pasted(self) -> list:
        """`paste online-B LIUM-NMT | bleu newstest2017-ende.ref.de -b` (docs/cli.md)."""
        return json_of(self.cli(REFERENCE, "-b", stdin=self.columns()))

    @cached_property
    def wmt17_comparison(self) -> Dict[str, dict]:
        """docs/comparing.md's benchmark: the 16 systems and a hybrid, baseline online-B, both tests."""
        from bleukit.significance.compare import compare

        systems = {name: list(self.lines(name)) for name in WMT17_SYSTEMS}
        half = len(self.lines(REFERENCE)) // 2
        systems["hybrid-SYSTRAN+xmu.de"] = list(self.lines("SYSTRAN.4847.de"))[:half] + list(self.lines("xmu.4910.de"))[half:]
        references = list(self.lines(REFERENCE))
        return {method: {s["name"]: s for s in compare(systems, references, method=method, baseline="online-B.0.de",
                                                       smooth="exp")["systems"]}
                for method in ("bootstrap", "ar")}

    def doc(self, page: str) -> Doc:
        return Doc(page)


def card_names(code: Code) -> dict:
    """The names every page's blocks assume (the card's example); docs_claims/__init__.py's SETUP adds a page's own."""
    import evaluate

    return {"evaluate": evaluate, "bleu": code.bleu, "predictions": list(CARD_PREDICTIONS),
            "references": [list(group) for group in CARD_REFERENCES]}


def default_order(code: Code) -> int:
    """The order a call without max_order scores, as its signature says."""
    return int(code.compute(["a"], ["a"])["signature"].split("order:")[1].split("|")[0])


def smoothing(name: str) -> float:
    from bleukit.scoring import SMOOTHING_DEFAULTS

    return SMOOTHING_DEFAULTS[name]


def nltk_bleu(hypothesis: str, references: Sequence[str], method: int, **parameters) -> float:
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # method 0's "the hypothesis contains 0 counts of 2-gram overlaps"
        return sentence_bleu([r.split() for r in references], hypothesis.split(),
                             smoothing_function=getattr(SmoothingFunction(**parameters), f"method{method}"))


def fractions(result: dict) -> List[int]:
    """matches and totals of each order, read back from the precisions and the hypothesis length."""
    out = []
    for order, precision in enumerate(result["precisions"]):
        total = result["translation_length"] - order
        out += [round(precision * total), total]
    return out


def default_of(name: str) -> Any:
    import inspect

    from bleukit.core import compute_bleu

    return inspect.signature(compute_bleu).parameters[name].default


def json_of(text: str) -> Any:
    import json

    return json.loads(text)


def table_cell(page: str, after: str, row: str, column: int) -> float:
    """A cell of the first Markdown table after the words `after` whose first cells match `row`."""
    lines = Doc(page).lines
    start = next(i for i, line in enumerate(lines) if after in line)
    for line in lines[start:]:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.match(row, " | ".join(cells)):
            return float(cells[column].rstrip("x"))
    raise LookupError(f"{page}: no row {row!r} after {after!r}")


def compare_of(code: Code, systems=(("a b c d",), ("a b c x",)), references=("a b c d",), **options) -> dict:
    from bleukit.significance.compare import compare

    return compare([list(s) for s in systems], list(references), **options)


def signature_of_test(code: Code, **options) -> str:
    signature = compare_of(code, **options)["signature"]
    return signature[signature.index("|test"):]

"""A page's numbers checked against the code, for tests/packaging/test_docs_numbers.py: its claims
(docs_claims), its `>>>` examples, its console blocks (run in a fresh process), and the global rules.
`check_page` returns (numbers compared, problems as 'page:line: ...')."""

from __future__ import annotations

import os
import re
import shlex
import warnings
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

from conftest import WMT17
from docs_blocks import out_for_line, run_doctest, run_python
from docs_claims import CLAIMS, GLOBAL_RULES, SETUP, Code
from docs_claims.cli import CONSOLE_FILES
from docs_numbers import REPO, AtMost, Claim, agrees, as_shown, numbers_in, printed, shows
from docs_pages import Doc

# The paths a page writes for the reader's clone, and the device it names, as this machine has them.
PATHS = [(f'"{prefix}{name}"', repr(str(REPO / name))) for prefix in ("path/to/", "")
         for name in ("bleu_metric.py", "bleu_comparison.py")]
# docs/rewards.md's tensors are on "cuda": on a machine without one they are made on the CPU (the
# numbers are the same on every device: tests/tensor checks that).
DEVICE = "cuda" if __import__("importlib").util.find_spec("torch") and __import__("torch").cuda.is_available() else "cpu"
PATHS.append(('device="cuda"', f'device="{DEVICE}"'))


class Runs:
    """Each block run once, statement by statement."""

    def __init__(self, code: Code):
        self.code = code
        self.done: Dict[Tuple[str, int], dict] = {}

    def outs(self, doc: Doc, block) -> dict:
        key = (doc.page, block.first)
        if key not in self.done:
            self.done[key] = run_python(block, SETUP[doc.page](self.code), replace=PATHS)
        return self.done[key]


def describe(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return printed(value)
    return repr(value)


def check_claims(code: Code, runs: Runs, doc: Doc, claims: Sequence[Claim]) -> Tuple[int, List[str]]:
    compared, problems = 0, []
    for claim in claims:
        places = doc.find(claim.template)
        if not places:
            problems.append(f"{doc.page}: a claim's words are no longer on the page (update the claim): {claim.template!r}")
        elif len(places) > 1:
            problems.append(f"{doc.page}: a claim's words stand in {len(places)} places (make them unique): {claim.template!r}")
        for start, holes in places:
            checked = [hole for hole in holes if hole.kind != "{_}"]
            where = doc.line_of(checked[0].start if checked else start)
            try:
                if claim.line:
                    out = out_for_line(runs.outs(doc, doc.block_at(where)), where)
                    values = list(claim.values(code, out))
                else:
                    values = list(claim.values(code))
            except Exception as error:  # the page's example no longer runs
                problems.append(f"{doc.page}:{where}: computing {claim.template!r} raised {type(error).__name__}: {error}")
                continue
            if len(values) != len(checked):
                problems.append(f"{doc.page}:{where}: {len(checked)} numbers shown, {len(values)} computed: {claim.template!r}")
                continue
            wrong = []
            for hole, value in zip(checked, values):
                compared += 1
                if not agrees(hole, value):
                    rounded = as_shown(hole.text, value) if hole.kind == "{}" and not isinstance(value, (str, AtMost)) else None
                    note = f" ({rounded} to the digits shown)" if rounded and rounded != describe(value) else ""
                    wrong.append(f"{doc.page}:{doc.line_of(hole.start)}: shown {hole.text}, the code gives {describe(value)}{note}")
            if claim.reported and wrong:
                warnings.warn(f"reported, not yet fixed ({claim.reported}): " + "; ".join(wrong))
            elif claim.reported:
                problems.append(f"{doc.page}:{where}: the page is right now: drop the claim's `reported` mark ({claim.reported})")
            problems += [] if claim.reported else wrong
    return compared, problems


def console_commands(block) -> List[Tuple[int, str, List[str]]]:
    """(doc line, command, the output lines shown under it) of a console block."""
    commands = []
    for index, line in enumerate(block.lines):
        if line.startswith("$ "):
            commands.append((block.first + index, line[2:], []))
        elif commands:
            commands[-1][2].append(line)
    return commands


def check_console(code: Code, doc: Doc, tmp: Path) -> Tuple[int, List[str]]:
    """Each `$ command` of a console block, run as written (`python -m bleukit` in a fresh process, in a
    folder with the WMT17 files and the files its comment spells out as `name: content`), prints
    exactly the lines shown under it."""
    compared, problems = 0, []
    for block in (b for b in doc.blocks if b.lang == "console"):
        for line, command, shown in console_commands(block):
            command, _, comment = command.partition("  #")
            folder = tmp / f"{doc.page.replace('/', '_')}_{line}"
            folder.mkdir(exist_ok=True)
            for name in os.listdir(WMT17):
                if not (folder / name).exists():
                    (folder / name).symlink_to(WMT17 / name)
            for name, content in CONSOLE_FILES.items():
                (folder / name).write_text(content, encoding="utf-8")
            for name, content in re.findall(r"(\S+\.\w+): (\S+)", comment):
                (folder / name).write_text(content + "\n", encoding="utf-8")
            argv = shlex.split(command)
            assert argv[:3] == ["python", "-m", "bleukit"] or argv[:1] == ["bleu"], command
            args = argv[3:] if argv[0] == "python" else argv[1:]
            try:
                output = code.cli(*args, cwd=folder).rstrip("\n").split("\n")
            except AssertionError as error:
                problems.append(f"{doc.page}:{line}: `{command}` failed: {error}")
                continue
            shown_text = "\n".join(l.rstrip() for l in shown).rstrip("\n")
            compared += len(numbers_in(shown_text))
            for index, (want, got) in enumerate(zip(shown_text.split("\n") + [""] * len(output),
                                                    [l.rstrip() for l in output] + [""] * len(shown))):
                if want != got:
                    problems.append(f"{doc.page}:{line + 1 + index}: shown {want!r}, the command prints {got!r}")
    return compared, problems


def check_doctests(code: Code, doc: Doc) -> Tuple[int, List[str]]:
    compared, problems = 0, []
    for block in (b for b in doc.blocks if b.doctest):
        ns = SETUP[doc.page](code)
        count, found = run_doctest(block, ns)
        compared, problems = compared + count, problems + found
    return compared, problems


def check_rules(code: Code, doc: Doc) -> Tuple[int, List[str]]:
    compared, problems = 0, []
    for rule in GLOBAL_RULES:
        if not re.fullmatch(rule.pages, doc.page) or not re.search(rule.pattern, doc.text):
            continue
        expected = rule.values(code)
        for match in re.finditer(rule.pattern, doc.text):
            for group in range(1, (match.lastindex or 0) + 1):
                if match.group(group) is None:
                    continue
                compared += 1
                value = expected[0] if len(expected) == 1 else expected[group - 1]
                if not (match.group(group) == value if isinstance(value, str) else shows(match.group(group), value)):
                    problems.append(f"{doc.page}:{doc.line_of(match.start(group))}: shown {match.group(group)}, "
                                    f"the code gives {describe(value)} ({rule.what})")
    return compared, problems


def check_page(code: Code, runs: Runs, doc: Doc, tmp: Path, slow: bool = False) -> Tuple[int, List[str]]:
    claims = [claim for claim in CLAIMS if claim.page == doc.page and claim.slow == slow]
    results = [check_claims(code, runs, doc, claims)]
    if not slow:
        results += [check_doctests(code, doc), check_console(code, doc, tmp), check_rules(code, doc)]
    return sum(r[0] for r in results), [problem for r in results for problem in r[1]]

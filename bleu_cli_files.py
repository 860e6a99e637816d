"""Reading the command line's files: one segment per line, every file line-aligned with the others."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict, List, Tuple

from bleu_cli_request import SACREBLEU, STDIN, Roles, display


def read_segments(path: str | Path) -> List[str]:
    """One segment per line. Only '\\n' (or '\\r\\n') ends a line: form feeds and other
    separators that `str.splitlines` would split on stay inside their segment."""
    if str(path) == STDIN:
        text = sys.stdin.read()
    else:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def load(roles: Roles) -> Tuple[Dict[str, List[str]], List[List[str]]]:
    """Hypotheses by file name, and the references grouped per segment; all files line-aligned."""
    systems = {path: read_segments(path) for path in roles.hypotheses}
    if systems.get(STDIN) == [] and roles.grammar == SACREBLEU and not roles.example:
        raise ValueError(
            f"no hypotheses on stdin: read as sacreBLEU's grammar, {', '.join(roles.references)} are reference files "
            "and the hypotheses come from stdin or -i. To score a file against references, write HYP -r REF [REF ...]"
        )
    streams = [read_segments(path) for path in roles.references]
    first = roles.hypotheses[0]
    for path, lines in list(systems.items()) + list(zip(roles.references, streams)):
        if len(lines) != len(systems[first]):
            raise ValueError(
                f"{display(path)} has {len(lines)} lines but {display(first)} has {len(systems[first])}; "
                "reference files must be line-aligned with the hypotheses and every system must have as many lines"
                f" ({roles.describe()})"
            )
    return systems, [list(group) for group in zip(*streams)]

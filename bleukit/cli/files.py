"""Reading the command line's files: one segment per line, every file line-aligned with the others.

In sacreBLEU's grammar, hypotheses on stdin may hold several systems, one per tab-separated
column (`paste sysA sysB | bleu REF`), and `-nr N` reads N tab-separated references per
line of one reference file; both are read as sacreBLEU reads them (each line stripped of trailing
whitespace, then split at tabs; every line must have as many fields as the first).
"""

from __future__ import annotations

import os
import select
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List

from bleukit.cli.parser import command_name
from bleukit.cli.request import OURS, SACREBLEU, STDIN, Request, Roles, display


@dataclass
class Inputs:
    """The systems' hypotheses by name, the references (one per segment, or grouped per segment
    when there are several), and notes for stderr."""

    systems: Dict[str, List[str]]
    references: List[Any]
    notes: List[str] = field(default_factory=list)


def stdin_holds_text(stream=None, wait_s: float = 0.05) -> bool:
    """Whether stdin holds text, asked without waiting on it: a terminal, /dev/null, an empty file
    or pipe hold none; a pipe with nothing ready after `wait_s` counts as empty (a harness that
    never writes must not hang the command). May consume stdin's first byte: ask only when stdin
    will not be read (no file named)."""
    stream = sys.stdin if stream is None else stream
    try:
        if stream is None or stream.isatty():
            return False
        descriptor = stream.fileno()
        mode = os.fstat(descriptor).st_mode
    except (AttributeError, OSError, ValueError):  # closed, or replaced by an object without a descriptor
        return False
    if stat.S_ISREG(mode):
        return os.fstat(descriptor).st_size > os.lseek(descriptor, 0, os.SEEK_CUR)
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return False
    ready, _, _ = select.select([descriptor], [], [], wait_s)
    return bool(ready) and os.read(descriptor, 1) != b""


def _read_text(path: str | Path, encoding: str) -> str:
    if str(path) == STDIN:
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream put in place of stdin (tests)
            return sys.stdin.read()
        return stream.read().decode(encoding)
    with open(path, encoding=encoding, newline="") as handle:
        return handle.read()


def split_lines(text: str) -> List[str]:
    """One segment per line. Only '\\n' (or '\\r\\n') ends a line: form feeds and other
    separators that `str.splitlines` would split on stay inside their segment."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" not in text:  # the common case, without a pass over every line
        return lines
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def read_segments(path: str | Path, encoding: str = "utf-8") -> List[str]:
    """The lines of a file ('-': stdin), one segment each."""
    return split_lines(_read_text(path, encoding))


def tab_fields(lines: List[str], expected: int, what: str) -> List[List[str]]:
    """Each line stripped of trailing whitespace and split at tabs, as sacreBLEU does; `expected`
    fields per line (0: as many as the first line has)."""
    rows = [line.rstrip().split("\t") for line in lines]
    expected = expected or (len(rows[0]) if rows else 1)
    for number, fields in enumerate(rows, start=1):
        if len(fields) != expected:
            raise ValueError(
                f"line {number} of {what} has {len(fields)} tab-separated field(s) but {expected} are expected "
                "(trailing whitespace is stripped first, as sacreBLEU does, so an empty last field vanishes)"
            )
    return rows


def _stdin_columns(lines: List[str], paired: bool) -> Dict[str, List[str]]:
    """sacreBLEU's systems on stdin: one per tab-separated column, named System 1, System 2, ...
    (with a paired test: Baseline, System 1, ...)."""
    columns = [list(column) for column in zip(*tab_fields(lines, 0, "stdin"))]
    names = (["Baseline"] + [f"System {k}" for k in range(1, len(columns))] if paired
             else [f"System {k}" for k in range(1, len(columns) + 1)])
    return dict(zip(names, columns))


def _reference_streams(request: Request) -> List[List[str]]:
    roles = request.roles
    streams = [read_segments(path, request.encoding) for path in roles.references]
    if request.num_refs > 1:
        rows = tab_fields(streams[0], request.num_refs, display(roles.references[0]))
        streams = [list(stream) for stream in zip(*rows)] or [[] for _ in range(request.num_refs)]
    return streams


def load(request: Request) -> Inputs:
    """Hypotheses by system name, and the references grouped per segment; all files line-aligned."""
    roles = request.roles
    notes = []
    if roles.columns:
        lines = read_segments(STDIN, request.encoding)
        systems = _stdin_columns(lines, request.paired is not None) if lines else {STDIN: []}
    else:
        systems = {path: read_segments(path, request.encoding) for path in roles.hypotheses}
    if systems.get(STDIN) == [] and roles.grammar == SACREBLEU and not roles.example:
        raise ValueError(
            f"no hypotheses on stdin: read as sacreBLEU's grammar, {', '.join(roles.references)} are reference files "
            "and the hypotheses come from stdin or -i. To score a file against references, write HYP -r REF [REF ...]"
        )
    if roles.grammar == OURS and systems.get(STDIN) and all("\t" in line for line in systems[STDIN]):
        notes.append(f"{command_name()}: note: every line on stdin holds a tab; this grammar scores each line as one "
                     "hypothesis. To score tab-separated columns as systems, use sacreBLEU's grammar: "
                     f"paste A B | {command_name()} REF")
    streams = _reference_streams(request)
    first = next(iter(systems))
    for name, lines in list(systems.items()) + list(zip(roles.references * request.num_refs, streams)):
        if len(lines) != len(systems[first]):
            raise ValueError(
                f"{display(name)} has {len(lines)} lines but {display(first)} has {len(systems[first])}; "
                "reference files must be line-aligned with the hypotheses and every system must have as many lines"
                f" ({roles.describe()})"
            )
    # One reference stream stays one flat list (one reference per segment): the core reads it
    # without a container per segment (480,640 WMT segments: 0.7 s of checks saved).
    references = streams[0] if len(streams) == 1 else [list(group) for group in zip(*streams)]
    return Inputs(systems, references, notes)

"""A page of the docs (README.md or docs/*.md) cut into units, for tests/packaging/test_docs_numbers.py.

- `Doc`: one page, cut into units (paragraphs, tables, headings, fenced blocks); `Doc.numbers()` finds
  every number written on it (docs_numbers.NUMBER), with its line; `Doc.find(template)`: where a
  claim's words stand, and its holes;
- `Block`: a fenced block, each line's parts told apart: code (inputs of the example), comments
  (claims, to be checked like prose) and output (what the example prints).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from docs_numbers import MEASUREMENT, REPO, Number, numbers_in


@dataclass
class Unit:
    """A paragraph (or list item), a table, a heading or a fenced block, as lines first..last (1-based)."""

    kind: str
    first: int
    last: int
    text: str
    lang: str = ""

    @property
    def cites_measurement(self) -> bool:
        return bool(MEASUREMENT.search(self.text))


@dataclass
class Block:
    """A fenced block: its content lines (doc line numbers) split into code, comment and output parts."""

    page: str
    lang: str
    first: int  # doc line of the first content line
    lines: List[str]
    parts: List[List[Tuple[str, int, int]]] = field(default_factory=list)  # per line: (kind, col, end)

    @property
    def doctest(self) -> bool:
        return any(line.lstrip().startswith(">>>") for line in self.lines)

    def kind_at(self, line: int, col: int) -> str:
        for kind, start, end in self.parts[line - self.first]:
            if start <= col < end:
                return kind
        return "code"


def _comment_start(line: str) -> Optional[int]:
    """Where a `#` comment starts on a line of Python or shell, outside quotes (None: no comment)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            if char == "\\":
                continue
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1] in " \t"):
            return index
    return None


def _split_parts(lang: str, lines: List[str], doctest: bool) -> List[List[Tuple[str, int, int]]]:
    parts = []
    for line in lines:
        stripped = line.lstrip()
        if lang in ("python", "py", "bash", "sh", "shell", "console"):
            command = not (lang == "console" and not stripped.startswith("$ ")) and not (
                doctest and not stripped.startswith((">>>", "...")))
            comment = _comment_start(line)
            if command:
                code_end = len(line) if comment is None else comment
                parts.append([("code", 0, code_end)] + ([("comment", comment, len(line))] if comment is not None else []))
            elif comment is not None and lang != "console":
                parts.append([("output", 0, comment), ("comment", comment, len(line))])
            else:
                parts.append([("output", 0, len(line))])
        else:
            parts.append([("output", 0, len(line))])
    return parts


class Doc:
    """One page of the docs: its text, lines, units and fenced blocks."""

    def __init__(self, page: str, text: Optional[str] = None):
        self.page = page
        self.text = (REPO / page).read_text(encoding="utf-8") if text is None else text
        self.lines = self.text.split("\n")
        self.line_starts = [0]
        for line in self.lines:
            self.line_starts.append(self.line_starts[-1] + len(line) + 1)
        self.units: List[Unit] = []
        self.blocks: List[Block] = []
        self._parse()

    def line_of(self, offset: int) -> int:
        low, high = 0, len(self.line_starts) - 1
        while low < high - 1:
            middle = (low + high) // 2
            if self.line_starts[middle] <= offset:
                low = middle
            else:
                high = middle
        return low + 1

    def _parse(self) -> None:
        lines, index = self.lines, 0
        front = 0
        if self.page == "README.md" and lines and lines[0] == "---":
            front = lines.index("---", 1) + 1
            self.units.append(Unit("front matter", 1, front, "\n".join(lines[:front])))
            index = front
        paragraph: List[int] = []

        def close_paragraph() -> None:
            if paragraph:
                kind = "table" if lines[paragraph[0]].lstrip().startswith("|") else "prose"
                self.units.append(Unit(kind, paragraph[0] + 1, paragraph[-1] + 1,
                                       "\n".join(lines[i] for i in paragraph)))
                paragraph.clear()

        while index < len(lines):
            line = lines[index]
            fence = re.match(r"^(\s*)(```+|~~~+)\s*([\w-]*)", line)
            if fence:
                close_paragraph()
                marker, lang = fence.group(2), fence.group(3)
                end = index + 1
                while end < len(lines) and not lines[end].strip().startswith(marker):
                    end += 1
                content = lines[index + 1:end]
                block = Block(self.page, lang, index + 2, content)
                block.parts = _split_parts(lang, content, block.doctest)
                self.blocks.append(block)
                self.units.append(Unit("fence", index + 1, end + 1, "\n".join(content), lang))
                index = end + 1
                continue
            if not line.strip():
                close_paragraph()
            elif line.startswith("#"):
                close_paragraph()
                self.units.append(Unit("heading", index + 1, index + 1, line))
            else:
                is_table = line.lstrip().startswith("|")
                if paragraph and is_table != lines[paragraph[0]].lstrip().startswith("|"):
                    close_paragraph()
                # a list item starts a unit of its own
                if paragraph and re.match(r"^\s*(?:[-*]|\d+\.) ", line) and not is_table:
                    close_paragraph()
                paragraph.append(index)
            index += 1
        close_paragraph()

    def unit_at(self, line: int) -> Unit:
        for unit in self.units:
            if unit.first <= line <= unit.last:
                return unit
        raise LookupError(f"{self.page}:{line} is in no unit")

    def block_at(self, line: int) -> Optional[Block]:
        for block in self.blocks:
            if block.first <= line < block.first + len(block.lines):
                return block
        return None

    def numbers(self) -> List[Number]:
        return [Number(self.page, self.line_of(start), start, end, text) for start, end, text in numbers_in(self.text)]

    def part_of(self, number: Number) -> str:
        """"code", "comment" or "output" inside a fenced block, else the unit's kind ("prose", "table", ...)."""
        block = self.block_at(number.line)
        if block is None:
            return self.unit_at(number.line).kind
        return block.kind_at(number.line, number.start - self.line_starts[number.line - 1])

    def find(self, template: str) -> List[Tuple[int, List["Hole"]]]:
        """Every place the template's words stand (any run of whitespace matches any run, line breaks
        included): (start, [the holes]) for each."""
        pattern, kinds = template_pattern(template)
        found = []
        for match in pattern.finditer(self.text):
            holes = [Hole(kind, match.start(g + 1), match.end(g + 1), match.group(g + 1)) for g, kind in enumerate(kinds)]
            found.append((match.start(), holes))
        return found


@dataclass(frozen=True)
class Hole:
    kind: str  # "{}": a number checked, "{*}": a text checked, "{_}": a number this claim leaves alone
    start: int
    end: int
    text: str


NUMBER_HOLE = r"(-?\d[\d,]*(?:\.\d+)*(?:e[-+]?\d+)?)"


def template_pattern(template: str) -> Tuple[re.Pattern, List[str]]:
    pieces, kinds = [], []
    for index, piece in enumerate(re.split(r"(\{\}|\{\*\}|\{_\})", template)):
        if index % 2:
            kinds.append(piece)
            pieces.append(r"([^\n]*?)" if piece == "{*}" else NUMBER_HOLE)
        else:
            pieces.append(r"\s+".join(re.escape(word) for word in re.split(r"\s+", piece)))
    if kinds and kinds[-1] == "{*}" and template.endswith("{*}"):
        pieces[-2] = r"([^\n]*)"
    return re.compile("".join(pieces)), kinds

"""The numbers of the docs (README.md and docs/*.md): found, and compared with what the code prints.

tests/packaging/test_docs_numbers.py checks every number the docs write. Its helpers, by job:

- here: `NUMBER`, a number as the docs write one, and `numbers_in(text)`; `MEASUREMENT`, words that
  name a measurement (a date, the machine, the card); `shows(shown, value)`: whether a number as written
  is the value as the code prints it (every digit of the repr when it is written with 15 or more
  significant digits, else the value rounded to the decimals shown); `Claim`: words of a page with holes
  (`{}`) where numbers stand, and how to compute them; `agrees`: a hole against its value;
- docs_pages.py: `Doc`, a page cut into units (paragraphs, tables, headings, fenced blocks), the
  numbers on it with their lines, and where a claim's words stand on it;
- docs_blocks.py: `run_doctest` and `run_python`, a fenced block executed statement by statement, its
  values and prints kept per line, and `compare_literal`: a shown repr (dicts, lists, strings with
  `...`) against the value;
- docs_claims/: what each page claims (one module per page) and the code that makes those numbers;
- docs_checks.py: a page's numbers checked (its claims, `>>>` examples, console blocks, global rules);
- docs_allowed.py and docs_accounting.py: every number on a page accounted for (checked, an input,
  measured, or allowed with a reason).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, List, Tuple

if TYPE_CHECKING:
    from docs_pages import Hole


REPO = Path(__file__).resolve().parents[2]
PAGES = ["README.md", *(f"docs/{path.name}" for path in sorted((REPO / "docs").glob("*.md")))]

# A number as the docs write one: digits with thousands commas, decimals, more dots (a version), an
# exponent, a date; a minus only where it cannot be a range's dash. Not a number: digits inside a word
# or a dotted name (wmt17, float64, uedin-nmt.4722.de, 8218c26); a number may end in a unit (1.8x, 0.40s,
# 32k, 50ms, 3px).
NUMBER = re.compile(
    r"(?<![\w.])(?:\d{4}-\d\d-\d\d(?![\d-])|(?<![\w)\]])-?\d+(?:,\d{3})*(?:\.\d+)*(?:e[-+]?\d+)?)"
    r"(?=(?:x|s|k|ms|us|px|MB|GB|GiB|MiB)?(?![\w]))"
)
# Written with digits but not numbers: web addresses, link targets, Unicode code points.
NOT_NUMBERS = re.compile(r"https?://[^\s)>\]`'\"]+|\]\([^)]*\)|U\+[0-9A-Fa-f]{4,6}")
MEASUREMENT = re.compile(
    r"\b20\d\d-\d\d-\d\d\b|shared/measurements/|\b\d+-core\b|\b\d+\s+(?:CPU\s+)?cores\b|\b\d+\s+CPUs\b|\bH[12]00\b|"
    r"NVIDIA|development\s+machine|\b(?:this|same)\s+(?:\S+\s+)?machine\b"
)


@dataclass(frozen=True)
class Number:
    page: str
    line: int
    start: int  # offsets in the page's text
    end: int
    text: str

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def numbers_in(text: str) -> List[Tuple[int, int, str]]:
    """(start, end, text) of every number in `text`."""
    hidden = NOT_NUMBERS.sub(lambda match: " " * len(match.group()), text)
    return [(match.start(), match.end(), match.group()) for match in NUMBER.finditer(hidden)]


def _significant_digits(shown: str) -> int:
    mantissa = shown.lstrip("-").split("e")[0].replace(",", "").replace(".", "")
    return len(mantissa.lstrip("0")) or 1


def printed(value: Any) -> str:
    """A number as the code prints it (repr of a float, str of an int)."""
    if hasattr(value, "item"):  # NumPy and torch scalars
        value = value.item()
    return repr(value)


def shows(shown: str, value: Any) -> bool:
    """Whether the number written as `shown` is `value`: an int exactly; a float written with 15 or more
    significant digits must be its printed repr, every digit; a shorter one is the value rounded to the
    decimals shown (`0.4671` for 0.46713797772820015), in the same notation (`1.288e-231`)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, bool) or value is None:
        return False
    text = shown.replace(",", "")
    if isinstance(value, int):
        return text == str(value)
    if _significant_digits(shown) >= 15:
        return text == repr(float(value)).replace("e+", "e")
    if "e" in text:
        mantissa, exponent = text.split("e")
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        formatted = f"{float(value):.{decimals}e}"
        m, e = formatted.split("e")
        return (m, int(e)) == (mantissa, int(exponent))
    decimals = len(text.split(".")[1]) if "." in text else 0
    formatted = f"{float(value):.{decimals}f}"
    return formatted == text or (formatted == f"-{text}" and float(value) == 0)


# --------------------------------------------------------------------------------------------- claims

@dataclass
class Claim:
    """Numbers in the docs' words, and the code that makes them.

    `template`: the page's words, with `{}` where a number stands that `values` gives, `{*}` where a
    text stands (a signature, a printed line) that `values` gives character for character, and `{_}`
    where a number stands that this claim does not check (accounted for otherwise). The words must
    be on the page: if they change, update the claim. `values(code)` returns one value per `{}` and
    `{*}`: a number (compared with `shows`), a str (equal to the text), or a bound (`AtMost`). With
    `line=True` the template is a comment in a fenced block: the block runs, and `values(code, out)`
    gets the statement the comment describes (`out.value`, `out.stdout`, `out.ns`). `slow=True`: run only
    by the slow test.
    """

    page: str
    template: str
    values: Callable[..., Iterable[Any]]
    line: bool = False
    slow: bool = False
    # On a page this project's docs owners edit elsewhere: a number known to be wrong there, reported to them
    # (the words of the report). The check still runs: it warns while the number is wrong, and fails once the
    # page is right, so that the mark is removed.
    reported: str = ""


@dataclass(frozen=True)
class AtMost:
    """A rounded-down summary: the shown number is at most this ("30x faster" where 34x was measured)."""

    value: float


def as_shown(shown: str, value: Any) -> str:
    """The value written the way `shown` is (its decimals, or its notation): what `shows` compared."""
    try:
        number = float(value.item() if hasattr(value, "item") else value)
    except (TypeError, ValueError):
        return repr(value)
    text = shown.replace(",", "").lstrip("-")
    if "e" in text:
        mantissa = text.split("e")[0]
        return f"{number:.{len(mantissa.split('.')[1]) if '.' in mantissa else 0}e}"
    return f"{number:.{len(text.split('.')[1]) if '.' in text else 0}f}"


def agrees(hole: "Hole", value: Any) -> bool:
    if isinstance(value, AtMost):
        return float(hole.text.replace(",", "")) <= value.value
    if isinstance(value, str):
        return hole.text == value
    return shows(hole.text, value)

"""The tokenizers that apply their rules one line at a time: intl, zh and char (as sacreBLEU's)."""

from __future__ import annotations

import re
from typing import List

from bleukit.tokenizers.mteval import SYMBOLS_13A
from bleukit.tokenizers.base import BaseTokenizer


class TokenizerIntl(BaseTokenizer):
    """mteval-v14 international: split Unicode punctuation (except between digits) and symbols."""

    name = "intl"

    def __init__(self) -> None:
        import regex  # Unicode property classes (\\p{P}, \\p{S}) that `re` lacks.

        self._rules = [
            (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
            (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
            (regex.compile(r"(\p{S})"), r" \1 "),
        ]

    def __call__(self, line: str) -> List[str]:
        for pattern, replacement in self._rules:
            line = pattern.sub(replacement, line)
        return line.split()


# The 13a rules in sacreBLEU's form, as regular-expression substitutions (`zh` applies them after
# padding the CJK characters): every ASCII symbol is split off; period and comma are split unless
# they sit between digits; a hyphen is split after a digit.
_SPLIT_SYMBOLS = str.maketrans({c: f" {c} " for c in SYMBOLS_13A if c != " "})
_PERIOD_COMMA_AFTER_NON_DIGIT = re.compile(r"([^0-9])([\.,])")
_PERIOD_COMMA_BEFORE_NON_DIGIT = re.compile(r"([\.,])([^0-9])")
_DASH_AFTER_DIGIT = re.compile(r"([0-9])(-)")


# Code point ranges that sacreBLEU's `zh` tokenizer treats as Chinese characters, inclusive.
# Two of sacreBLEU's ranges are written with five hex digits after \\u, which Python reads as a
# four-digit escape plus a digit; compared against single characters they become
# U+2001..U+2A6D and U+2F81..U+2FA1. We reproduce the ranges as they behave, not as meant.
_ZH_RANGES = (
    (0x3400, 0x4DB5), (0x4E00, 0x9FA5), (0x9FA6, 0x9FBB), (0xF900, 0xFA2D), (0xFA30, 0xFA6A),
    (0xFA70, 0xFAD9), (0x2001, 0x2A6D), (0x2F81, 0x2FA1), (0xFF00, 0xFFEF), (0x2E80, 0x2EFF),
    (0x3000, 0x303F), (0x31C0, 0x31EF), (0x2F00, 0x2FDF), (0x2FF0, 0x2FFF), (0x3100, 0x312F),
    (0x31A0, 0x31BF), (0xFE10, 0xFE1F), (0xFE30, 0xFE4F), (0x2600, 0x26FF), (0x2700, 0x27BF),
    (0x3200, 0x32FF), (0x3300, 0x33FF),
)
_ZH_CHAR_CLASS = re.compile(
    "([" + "".join(f"\\U{start:08x}-\\U{end:08x}" for start, end in _ZH_RANGES) + "])"
)


class TokenizerZh(BaseTokenizer):
    """Chinese: every CJK character is a token; the rest follows the 13a rules (unpadded)."""

    name = "zh"

    def __call__(self, line: str) -> List[str]:
        line = _ZH_CHAR_CLASS.sub(r" \1 ", line.strip())
        line = _PERIOD_COMMA_AFTER_NON_DIGIT.sub(r"\1 \2 ", line.translate(_SPLIT_SYMBOLS))
        line = _PERIOD_COMMA_BEFORE_NON_DIGIT.sub(r" \1 \2", line)
        return _DASH_AFTER_DIGIT.sub(r"\1 \2 ", line).split()


class TokenizerChar(BaseTokenizer):
    """Characters: every non-whitespace character is a token."""

    name = "char"

    def __call__(self, line: str) -> List[str]:
        return [c for c in line if not c.isspace()]

"""Tokenizers for BLEU: each turns one segment into a list of token strings.

Each tokenizer is a small class with a `signature()` (the name that goes into the score's
reproducibility signature) and two entry points: `__call__` for one segment and
`tokenize_flat` for a whole batch, which returns every token of every segment in one flat list
plus the number of tokens per segment. The flat form is what the n-gram statistics consume, and
it lets the default `13a` tokenizer run its rules once over a joined chunk of text instead of
once per line.

The rules reproduce sacreBLEU's tokenizers of the same names (mteval-v13a, mteval-v14
international, the Chinese tokenizer, characters), which the tests check token for token.
"""

from __future__ import annotations

import re
from itertools import chain
from typing import Callable, List, Sequence, Tuple, Union

import numpy as np

# One flat list of tokens plus the token count of each segment, in segment order.
FlatTokens = Tuple[List[str], np.ndarray]

# mteval-v13a splits off every ASCII symbol below: space..&, (..+, /, :..@, [..`, {..~.
# Apostrophe, hyphen, comma and period are not in the set; the context rules handle them.
_13A_SYMBOLS = ' !"#$%&()*+/:;<=>?@[\\]^_`{|}~'
_13A_SPLIT_SYMBOLS = str.maketrans({c: f" {c} " for c in _13A_SYMBOLS if c != " "})
# Period and comma are split unless they sit between digits; a hyphen is split after a digit.
_13A_PERIOD_COMMA_AFTER_NON_DIGIT = re.compile(r"([^0-9])([\.,])")
_13A_PERIOD_COMMA_BEFORE_NON_DIGIT = re.compile(r"([\.,])([^0-9])")
_13A_DASH_AFTER_DIGIT = re.compile(r"([0-9])(-)")

# A private-use character marks segment boundaries in the joined text: no 13a rule touches it
# and it is not whitespace, so it survives as a token of its own.
_SEGMENT_MARK = "\ue000"


def _counts_to_array(token_lists: Sequence[Sequence[str]]) -> np.ndarray:
    return np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))


class BaseTokenizer:
    """A tokenizer maps one segment (str) to a list of token strings."""

    name = "base"

    def signature(self) -> str:
        return self.name

    def __call__(self, line: str) -> List[str]:
        raise NotImplementedError

    def tokenize_flat(self, lines: Sequence[str]) -> FlatTokens:
        """Tokenize many segments: all tokens in one list, and each segment's token count."""
        token_lists = [self(line) for line in lines]
        return list(chain.from_iterable(token_lists)), _counts_to_array(token_lists)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class TokenizerNone(BaseTokenizer):
    """No tokenization: split on whitespace only (sacreBLEU's `none`)."""

    name = "none"

    def __call__(self, line: str) -> List[str]:
        return line.split()

    def tokenize_flat(self, lines: Sequence[str]) -> FlatTokens:
        return _split_joined(list(lines), transform=None)


def _normalize_13a(line: str) -> str:
    """mteval-v13a's line-level clean-up: drop <skipped>, join hyphenated line breaks, unescape."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return line


def _apply_13a_rules(text: str) -> str:
    """The 13a rules on padded text; every rule is local, so any number of padded lines may be joined."""
    text = text.translate(_13A_SPLIT_SYMBOLS)
    if "." in text or "," in text:
        text = _13A_PERIOD_COMMA_AFTER_NON_DIGIT.sub(r"\1 \2 ", text)
        text = _13A_PERIOD_COMMA_BEFORE_NON_DIGIT.sub(r" \1 \2", text)
    if "-" in text:
        text = _13A_DASH_AFTER_DIGIT.sub(r"\1 \2 ", text)
    return text


def _split_joined(lines: List[str], transform: Callable[[str], str] | None) -> FlatTokens:
    """Join padded lines with a boundary token, transform the whole text once, split once.

    Falls back to one line at a time when a line already contains the boundary mark.
    """
    if not lines:
        return [], np.zeros(0, dtype=np.int64)
    separator = f" {_SEGMENT_MARK} "
    joined = separator.join(lines)
    if joined.count(_SEGMENT_MARK) != len(lines) - 1:
        token_lists = [(transform(f" {line} ") if transform else line).split() for line in lines]
        return list(chain.from_iterable(token_lists)), _counts_to_array(token_lists)
    text = f" {joined} "
    if transform is not None:
        text = transform(text)
    tokens = text.split()
    tokens.append(_SEGMENT_MARK)
    marks = np.flatnonzero(np.fromiter((t == _SEGMENT_MARK for t in tokens), dtype=bool, count=len(tokens)))
    counts = np.diff(marks, prepend=-1) - 1
    del tokens[-1]
    if len(marks) > 1:
        tokens = [t for t in tokens if t != _SEGMENT_MARK]
    return tokens, counts.astype(np.int64)


class Tokenizer13a(BaseTokenizer):
    """mteval-v13a, the WMT standard and sacreBLEU's default."""

    name = "13a"

    def __call__(self, line: str) -> List[str]:
        return _apply_13a_rules(f" {_normalize_13a(line)} ").split()

    def tokenize_flat(self, lines: Sequence[str]) -> FlatTokens:
        lines = list(lines)
        joined_check = "".join(lines)
        if "\n" in joined_check or "&" in joined_check or "<skipped>" in joined_check:
            lines = [_normalize_13a(line) for line in lines]
        return _split_joined(lines, transform=_apply_13a_rules)


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
        line = _13A_PERIOD_COMMA_AFTER_NON_DIGIT.sub(r"\1 \2 ", line.translate(_13A_SPLIT_SYMBOLS))
        line = _13A_PERIOD_COMMA_BEFORE_NON_DIGIT.sub(r" \1 \2", line)
        return _13A_DASH_AFTER_DIGIT.sub(r"\1 \2 ", line).split()


class TokenizerChar(BaseTokenizer):
    """Characters: every non-whitespace character is a token."""

    name = "char"

    def __call__(self, line: str) -> List[str]:
        return [c for c in line if not c.isspace()]


class CallableTokenizer(BaseTokenizer):
    """Wraps a user function from a string to a list of token strings, checking what it returns."""

    def __init__(self, function: Callable[[str], List[str]]) -> None:
        self.function = function
        self.name = getattr(function, "__name__", type(function).__name__)

    def signature(self) -> str:
        return f"custom:{self.name}"

    def __call__(self, line: str) -> List[str]:
        tokens = self.function(line)
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise TypeError(
                f"the tokenizer {self.name!r} must return a list of token strings, but for {line!r} "
                f"it returned {type(tokens).__name__} {tokens!r:.80}; wrap it, e.g. "
                f"tokenizer=lambda s: list(map(str, {self.name}(s)))"
            )
        return tokens

    def __repr__(self) -> str:
        return f"CallableTokenizer({self.name})"


TOKENIZERS = {
    "13a": Tokenizer13a,
    "none": TokenizerNone,
    "intl": TokenizerIntl,
    "zh": TokenizerZh,
    "char": TokenizerChar,
}

TokenizerSpec = Union[str, Callable[[str], List[str]], BaseTokenizer]


def get_tokenizer(spec: TokenizerSpec) -> BaseTokenizer:
    """Resolve a tokenizer name, a tokenizer instance, or a callable into a tokenizer object."""
    if isinstance(spec, BaseTokenizer):
        return spec
    if isinstance(spec, str):
        if spec not in TOKENIZERS:
            raise ValueError(
                f"unknown tokenizer {spec!r}; pass one of {sorted(TOKENIZERS)} "
                "or a callable from a string to a list of token strings"
            )
        return TOKENIZERS[spec]()
    if callable(spec):
        return CallableTokenizer(spec)
    raise TypeError(
        f"tokenizer must be a name ({', '.join(sorted(TOKENIZERS))}) or a callable from a string "
        f"to a list of token strings, not {type(spec).__name__}"
    )

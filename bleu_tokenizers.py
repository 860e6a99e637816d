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
from typing import Any, Callable, List, Sequence, Tuple, Union

import numpy as np

try:  # inside the package `evaluate.load` builds
    from .bleu_stats import dictionary_encode, encode_tokens, numpy_integers
except ImportError:  # imported from the repository root (CLI, demo, tests)
    from bleu_stats import dictionary_encode, encode_tokens, numpy_integers

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

# Whitespace as `str.split()` sees it. Outside ASCII it is a few dozen code points, all in the
# Basic Multilingual Plane (tests/test_tokenizer_batch.py checks all of Unicode), each two or
# three bytes long in UTF-8.
_ASCII_SPACES = "".join(chr(c) for c in range(128) if chr(c).isspace())
_UNICODE_SPACE_BYTES = [c.encode() for c in map(chr, range(128, 0x10000)) if c.isspace()]
_UNICODE_SPACE_CODES2 = np.array(sorted(int.from_bytes(b, "big") for b in _UNICODE_SPACE_BYTES if len(b) == 2))
_UNICODE_SPACE_CODES3 = np.array(sorted(int.from_bytes(b, "big") for b in _UNICODE_SPACE_BYTES if len(b) == 3))

# Byte classes for the joined, UTF-8 encoded text. Every 13a rule looks only at ASCII bytes, and
# in UTF-8 an ASCII byte is always a whole character, so the rules can be read off the bytes.
# _LEAD marks the first byte of the multi-byte whitespace characters (and of their neighbours).
# Odd classes are whitespace; classes from _NEWLINE up are the few bytes the rules look at.
_OTHER, _SPACE, _DIGIT, _NEWLINE, _PUNCT, _SYMBOL, _HYPHEN, _LEAD = 0, 1, 2, 3, 4, 6, 8, 10
_BYTE_CLASS = np.full(256, _OTHER, dtype=np.uint8)
for _c in _ASCII_SPACES:
    _BYTE_CLASS[ord(_c)] = _SPACE
_BYTE_CLASS[ord("\n")] = _NEWLINE  # whitespace too, and the line separator of the joined text
for _c in "0123456789":
    _BYTE_CLASS[ord(_c)] = _DIGIT
_BYTE_CLASS[ord(".")] = _BYTE_CLASS[ord(",")] = _PUNCT
for _c in _13A_SYMBOLS.strip():
    _BYTE_CLASS[ord(_c)] = _SYMBOL
_BYTE_CLASS[ord("-")] = _HYPHEN
for _b in _UNICODE_SPACE_BYTES:
    _BYTE_CLASS[_b[0]] = _LEAD
_BYTE_CLASS_TABLE = _BYTE_CLASS.tobytes()
_ASCII_SPACE_BYTES = _ASCII_SPACES.encode()


class _Cut:
    """Tokens of many lines found in one pass: concatenated token bytes, token offsets, counts."""

    __slots__ = ("data", "offsets", "counts")

    def __init__(self, data: np.ndarray, offsets: np.ndarray, counts: np.ndarray) -> None:
        self.data, self.offsets, self.counts = data, offsets, counts

    def encode(self) -> Tuple[np.ndarray, Any]:
        """Dense ids (equal tokens, equal ids, in order of first occurrence) and the Arrow vocabulary."""
        import pyarrow as pa  # always present: `datasets` stores its tables with it

        if len(self.offsets) == 1:
            return np.zeros(0, dtype=np.int64), []
        offset_type = np.int32 if self.offsets[-1] < 2**31 else np.int64
        array = pa.Array.from_buffers(
            pa.binary() if offset_type is np.int32 else pa.large_binary(),
            len(self.offsets) - 1,
            [None, pa.py_buffer(self.offsets.astype(offset_type)), pa.py_buffer(self.data)],
        )
        encoded = dictionary_encode(array)
        ids = numpy_integers(encoded.indices).astype(np.int64)
        return ids, encoded.dictionary

    def tokens(self) -> List[str]:
        ids, dictionary = self.encode()
        vocabulary = np.array(
            [token.decode("utf-8", "surrogatepass") for token in dictionary.to_pylist()] if len(ids) else [],
            dtype=object,
        )
        return vocabulary[ids].tolist()


def _cut_joined(joined: str, num_lines: int, apply_13a: bool) -> _Cut:
    """Tokenize `num_lines` lines, joined by newlines (none inside a line), in one pass.

    The joined text is encoded to UTF-8 (surrogates passed through). A token is a maximal run of
    non-space bytes, further cut wherever the 13a rules would insert a space. sacreBLEU applies
    those rules as regular-expression substitutions; their effect reduces to where spaces go:
    - an ASCII symbol is cut off on both sides;
    - a hyphen after a digit is cut off on both sides;
    - in a run of periods and commas, every mark is cut off on both sides, except that the last
      mark stays attached to a digit that follows it when the run has an odd number of marks and
      follows a digit, or an even number and follows anything else (the pairing of the
      left-to-right, non-overlapping matches); a single mark between two digits stays attached to
      both ("3.5", "1,000").
    tests/test_tokenizer_batch.py checks this against sacreBLEU on every WMT17 line and on
    generated text.
    """
    if num_lines == 0:
        return _Cut(np.zeros(0, dtype=np.uint8), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64))
    # Spaces around the text give the first and last byte neighbours (and room to look ahead).
    raw = b" " + joined.encode("utf-8", "surrogatepass") + b"   "
    data = np.frombuffer(raw, dtype=np.uint8)
    classes = np.frombuffer(raw.translate(_BYTE_CLASS_TABLE), dtype=np.uint8)  # faster than a NumPy lookup
    space = (classes & 1).astype(bool)
    special = np.flatnonzero(classes >= _NEWLINE)
    kinds = classes[special]
    unicode_spaces = _mark_unicode_spaces(data, special[kinds == _LEAD], space)
    cut_before = np.zeros(len(data) + 1, dtype=bool)  # a token boundary just before byte i
    if apply_13a:
        cut_around = special[kinds == _SYMBOL]
        hyphens = special[kinds == _HYPHEN]
        cut_around = np.concatenate([cut_around, hyphens[classes[hyphens - 1] == _DIGIT]])
        cut_before[cut_around] = True
        cut_before[cut_around + 1] = True
        marks = special[kinds == _PUNCT]
        if len(marks):
            digit_before = classes[marks - 1] == _DIGIT
            digit_after = classes[marks + 1] == _DIGIT
            # Runs of consecutive marks: where each run starts, and each mark's position in it.
            run_start = np.ones(len(marks), dtype=bool)
            run_start[1:] = marks[1:] != marks[:-1] + 1
            first_of_run = marks[run_start][np.cumsum(run_start) - 1]
            run_length = marks - first_of_run + 1  # at the last mark of a run: the run's length
            pairs_up_with_digit = (classes[first_of_run - 1] == _DIGIT) == (run_length % 2 == 1)
            keep_right = digit_after & pairs_up_with_digit
            keep_left = digit_before & digit_after
            cut_before[marks[~keep_left]] = True
            cut_before[marks[~keep_right] + 1] = True
    kept = ~space
    starts = kept.copy()
    starts[1:] &= space[:-1] | cut_before[1:-1]
    ends = kept.copy()
    ends[:-1] &= space[1:] | cut_before[1:-1]
    token_starts = np.flatnonzero(starts)
    offsets = np.zeros(len(token_starts) + 1, dtype=np.int64)
    np.cumsum(np.flatnonzero(ends) - token_starts + 1, out=offsets[1:])
    separators = special[kinds == _NEWLINE]
    tokens_before = np.searchsorted(token_starts, separators)
    counts = np.diff(tokens_before, prepend=0, append=len(token_starts))
    # The token bytes: every byte but whitespace (bytes.translate deletes ASCII whitespace fast).
    token_bytes = data[kept] if unicode_spaces else np.frombuffer(raw.translate(None, _ASCII_SPACE_BYTES), np.uint8)
    return _Cut(token_bytes, offsets, counts.astype(np.int64))


def _mark_unicode_spaces(data: np.ndarray, leads: np.ndarray, space: np.ndarray) -> bool:
    """Mark the bytes of non-ASCII whitespace characters (U+00A0, U+3000, ...) as space; any found?"""
    if not len(leads):
        return False
    marked = False
    codes = (data[leads].astype(np.int64) << 16) | (data[leads + 1].astype(np.int64) << 8) | data[leads + 2]
    for width, known in ((2, _UNICODE_SPACE_CODES2), (3, _UNICODE_SPACE_CODES3)):
        found = leads[np.isin(codes >> (8 * (3 - width)), known)]
        for offset in range(width):
            space[found + offset] = True
        marked = marked or bool(len(found))
    return marked


def _counts_to_array(token_lists: Sequence[Sequence[str]]) -> np.ndarray:
    return np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))


class BaseTokenizer:
    """A tokenizer maps one segment (str) to a list of token strings."""

    name = "base"
    # Whether `encode_flat` spends its time in NumPy and Arrow calls (which release the GIL), so
    # that chunks can be tokenized on several threads at once.
    releases_gil = False

    def signature(self) -> str:
        return self.name

    def __call__(self, line: str) -> List[str]:
        raise NotImplementedError

    def tokenize_flat(self, lines: Sequence[str]) -> FlatTokens:
        """Tokenize many segments: all tokens in one list, and each segment's token count."""
        token_lists = [self(line) for line in lines]
        return list(chain.from_iterable(token_lists)), _counts_to_array(token_lists)

    def encode_flat(self, lines: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        """Tokenize many segments straight to dense token ids (equal tokens, equal ids) and counts."""
        tokens, counts = self.tokenize_flat(lines)
        return encode_tokens(tokens), counts

    def encode_flat_rstripped(self, lines: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        """`encode_flat` of the lines with trailing whitespace stripped (as sacreBLEU's BLEU does)."""
        return self.encode_flat([line.rstrip() for line in lines])

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class _JoinedTokenizer(BaseTokenizer):
    """A tokenizer whose rules run once over a whole batch of lines (see `_cut_joined`)."""

    apply_13a = False
    releases_gil = True

    def _clean_line(self, line: str) -> str:
        """One line's clean-up; a newline inside a line is whitespace, so it becomes a space."""
        return line.replace("\n", " ")

    def _clean_joined(self, joined: str) -> str:
        """The clean-up of lines joined by newlines (none inside a line): for `none`, nothing."""
        return joined

    def _cut(self, lines: Sequence[str], rstrip: bool = False) -> _Cut:
        """Join and clean the lines, then tokenize them in one pass.

        The clean-up's replacements never match across a newline, so they run once on the joined
        text, unless a line holds a newline itself: then each line is cleaned on its own (and
        right-stripped first if asked; without a newline, trailing whitespace changes no token).
        """
        lines = list(lines)
        joined = "\n".join(lines)
        if joined.count("\n") != len(lines) - 1:
            stripped = (line.rstrip() for line in lines) if rstrip else lines
            joined = "\n".join(map(self._clean_line, stripped))
        else:
            joined = self._clean_joined(joined)
        return _cut_joined(joined, len(lines), self.apply_13a)

    def __call__(self, line: str) -> List[str]:
        return self._cut([line]).tokens()

    def tokenize_flat(self, lines: Sequence[str]) -> FlatTokens:
        cut = self._cut(lines)
        return cut.tokens(), cut.counts

    def encode_flat(self, lines: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        cut = self._cut(lines)
        return cut.encode()[0], cut.counts

    def encode_flat_rstripped(self, lines: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        cut = self._cut(lines, rstrip=True)
        return cut.encode()[0], cut.counts


class TokenizerNone(_JoinedTokenizer):
    """No tokenization: split on whitespace only (sacreBLEU's `none`)."""

    name = "none"


_13A_ENTITY = re.compile("&(?:quot|amp|lt|gt);")


def _unescape_13a(text: str) -> str:
    return text.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")


def _normalize_13a(line: str) -> str:
    """mteval-v13a's line-level clean-up: drop <skipped>, join hyphenated line breaks, unescape."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    return _unescape_13a(line) if "&" in line else line


class Tokenizer13a(_JoinedTokenizer):
    """mteval-v13a, the WMT standard and sacreBLEU's default."""

    name = "13a"
    apply_13a = True

    def _clean_line(self, line: str) -> str:
        return _normalize_13a(line)

    def _clean_joined(self, joined: str) -> str:
        if "<skipped>" in joined:
            joined = joined.replace("<skipped>", "")
        if "&" in joined and _13A_ENTITY.search(joined):  # one scan, not four, when "&" is plain
            joined = _unescape_13a(joined)
        return joined


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


class TokenIds(BaseTokenizer):
    """Stands for "no tokenizer" when the inputs are token ids: they are the tokens already.

    Scores on ids compare only with scores made from the same tokenizer's ids (signature `tok:ids`).
    """

    name = "ids"

    def __call__(self, line: str) -> List[str]:
        raise TypeError("token ids are scored as given; there is no text to tokenize")


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

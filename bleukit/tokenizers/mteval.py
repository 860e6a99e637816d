"""The 13a and none tokenizers, which tokenize a whole batch of lines in one pass over its bytes.

`13a` is mteval-v13a (the WMT standard and sacreBLEU's default); `none` splits on whitespace only.
Instead of running the rules once per line, `_cut_joined` joins a chunk of lines and finds every
token boundary of the chunk with NumPy over the UTF-8 bytes. The rules reproduce sacreBLEU's
tokenizers of the same names, which tests/test_tokenizer_batch.py checks token for token.
"""

from __future__ import annotations

import re
from typing import Any, List, Sequence, Tuple

import numpy as np

from bleukit.counting.stats import dictionary_encode, numpy_integers
from bleukit.tokenizers.base import BaseTokenizer, FlatTokens

# mteval-v13a splits off every ASCII symbol below: space..&, (..+, /, :..@, [..`, {..~.
# Apostrophe, hyphen, comma and period are not in the set; the context rules handle them.
SYMBOLS_13A = ' !"#$%&()*+/:;<=>?@[\\]^_`{|}~'

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
for _c in SYMBOLS_13A.strip():
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

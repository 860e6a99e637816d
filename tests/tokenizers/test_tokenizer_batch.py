"""The batch tokenizers equal sacreBLEU's per-line tokenizers, token for token, line for line.

`13a` and `none` tokenize a whole chunk of lines in one pass over the bytes of the joined text
(bleu_tokenizer_13a._cut_joined), with the 13a rules reduced to where token boundaries fall. The
oracle is sacreBLEU's own tokenizer applied to each line separately (then split on whitespace),
on every line of the WMT17 data and on generated text full of the cases the rules single out.
"""

from __future__ import annotations

from itertools import chain
from typing import List

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleukit.tokenizers.mteval as bleu_tokenizer_13a
from bleukit.tokenizers.registry import Tokenizer13a, TokenizerNone
from conftest import WMT17, wmt17_lines


def sacrebleu_13a_lines(lines: List[str]) -> List[List[str]]:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a as SacreTokenizer13a

    tokenize = SacreTokenizer13a()
    return [tokenize(line).split() for line in lines]


def assert_batch_equals(tokenizer, lines: List[str], expected: List[List[str]]) -> None:
    """The flat tokens, the per-line counts and the ids all say the same as per-line `expected`."""
    tokens, counts = tokenizer.tokenize_flat(lines)
    assert counts.tolist() == [len(e) for e in expected]
    assert tokens == list(chain.from_iterable(expected))
    ids, id_counts = tokenizer.encode_flat(lines)
    assert id_counts.tolist() == counts.tolist()
    # ids are a dense relabelling: equal tokens <=> equal ids
    assert len(ids) == len(tokens)
    if tokens:
        pairs = set(zip(tokens, ids.tolist()))
        assert len(pairs) == len(set(tokens)) == len(set(ids.tolist())) == int(ids.max()) + 1


def wmt17_all_lines() -> List[str]:
    files = sorted(path.name for path in WMT17.glob("*.de"))
    assert len(files) == 17  # the reference and 16 systems (tests/data)
    return list(chain.from_iterable(wmt17_lines(name) for name in files))


def test_13a_joined_pass_equals_sacrebleu_on_every_wmt17_line():
    lines = wmt17_all_lines()
    assert len(lines) == 17 * 3004  # 16 systems and the reference
    assert_batch_equals(Tokenizer13a(), lines, sacrebleu_13a_lines(lines))


def test_none_joined_pass_equals_whitespace_split_on_every_wmt17_line():
    lines = wmt17_all_lines()
    assert_batch_equals(TokenizerNone(), lines, [line.split() for line in lines])


# The cases the 13a rules single out: periods and commas next to digits and to each other, hyphens
# after digits, every ASCII symbol, the entities and <skipped> that the clean-up rewrites, newlines
# (hyphenated line breaks), the private-use mark U+E000, whitespace outside ASCII, characters whose
# UTF-8 starts with the same byte as a whitespace character (’ « €), a lone surrogate, and letters.
PIECES = [
    "a", "Z", "ü", "ß", "東", "0", "5", "9", ".", ",", "..", ".,", "-", "--", "'", " ", "  ", "\t",
    "&amp;", "&quot;", "&lt;", "&gt;", "&", ";", "<skipped>", "<", ">", "\n", "-\n", "\ue000", "\xa0",
    "\u2009", "\u3000", "\x85", "\u2028", "\x1c", "\r", "’", "«", "€", "\u1680", "\ud800",
    *'!"#$%()*+/:=?@[\\]^_`{|}~',
]
line_strategy = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)
batch_strategy = st.lists(st.one_of(line_strategy, st.text(max_size=20)), min_size=1, max_size=8)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=batch_strategy)
def test_13a_batch_equals_sacrebleu_per_line_on_generated_text(lines):
    expected = sacrebleu_13a_lines(lines)
    assert_batch_equals(Tokenizer13a(), lines, expected)
    assert [Tokenizer13a()(line) for line in lines] == expected  # one line at a time: same path


@settings(max_examples=150, deadline=None)
@given(lines=batch_strategy, trailing=st.lists(st.sampled_from([" ", "\t", "\n", "-\n", "\xa0", "\r\n", ""]), max_size=3))
def test_rstripped_batches_equal_batches_of_rstripped_lines(lines, trailing):
    """bleukit.core hands raw lines to encode_flat_rstripped, which strips only where it matters."""
    lines = [line + "".join(trailing) for line in lines]
    stripped = [line.rstrip() for line in lines]
    for tokenizer in (Tokenizer13a(), TokenizerNone()):
        ids, counts = tokenizer.encode_flat_rstripped(lines)
        expected_ids, expected_counts = tokenizer.encode_flat(stripped)
        assert ids.tolist() == expected_ids.tolist() and counts.tolist() == expected_counts.tolist()
    expected = sacrebleu_13a_lines(stripped)
    assert Tokenizer13a().encode_flat_rstripped(lines)[1].tolist() == [len(e) for e in expected]


@settings(max_examples=200, deadline=None)
@given(lines=batch_strategy)
def test_none_batch_equals_whitespace_split_on_generated_text(lines):
    assert_batch_equals(TokenizerNone(), lines, [line.split() for line in lines])


@pytest.mark.parametrize(
    "line, tokens",
    [
        ("3.5 and 1,000.50", ["3.5", "and", "1,000.50"]),  # a mark between digits stays
        ("a..5", ["a", ".", ".5"]),  # even run after a non-digit: the last mark stays with the digit
        ("5.,.7", ["5", ".", ",", ".7"]),  # odd run after a digit: the same
        ("5..7", ["5", ".", ".", "7"]),  # even run after a digit: every mark alone
        (".5", [".", "5"]),
        ("5--3", ["5", "-", "-3"]),  # a hyphen after a digit is split off, the next one is not
        ("x&amp;y ab-\ncd", ["x", "&", "y", "abcd"]),
        ("a\xa0b\u3000c", ["a", "b", "c"]),
    ],
)
def test_named_cases(line, tokens):
    assert sacrebleu_13a_lines([line]) == [tokens]  # the oracle says so too
    assert Tokenizer13a()(line) == tokens


def test_the_whitespace_table_is_pythons_whole_unicode_whitespace():
    """str.split() splits on these; the byte pass must know every one of them (all of Unicode)."""
    expected = [chr(c).encode() for c in range(0x80, 0x110000) if chr(c).isspace()]
    assert bleu_tokenizer_13a._UNICODE_SPACE_BYTES == expected
    assert {len(b) for b in expected} <= {2, 3}
    ascii_spaces = [chr(c) for c in range(0x80) if chr(c).isspace()]
    assert sorted(bleu_tokenizer_13a._ASCII_SPACES) == sorted(ascii_spaces)


def test_empty_batches_and_lines():
    for tokenizer in (Tokenizer13a(), TokenizerNone()):
        tokens, counts = tokenizer.tokenize_flat([])
        assert tokens == [] and counts.tolist() == []
        ids, counts = tokenizer.encode_flat(["", "  ", ""])
        assert ids.tolist() == [] and counts.tolist() == [0, 0, 0]
        assert ids.dtype == np.int64 and counts.dtype == np.int64

"""Parity with evaluate's legacy `bleu` (tensorflow/nmt), through bleuscore, which reproduces it.

Our settings for it: ref_length="shortest", smooth=False (no smoothing) or True (add-one on every
order), 13a tokens. The oracle is `Oracles.legacy` (tests/conftest.py): bleuscore.compute.

What the oracle does on degenerate input (checked with bleuscore 0.2.0), and what we compare there:
- no predictions at all: bleuscore panics (pyo3 PanicException); we raise a ValueError, tested elsewhere;
- reference length 0: its length_ratio is inf (or nan when the translation is empty too), where
  evaluate's legacy code divides by zero; ours is 0.0. length_ratio is not compared there;
- translation length 0: BLEU 0 in both, except under add-one with reference length 0 as well, where
  bleuscore gives 1.0 (every precision (0+1)/(0+1), brevity penalty 1) and we give 0 for an empty
  output. BLEU is not compared when the translation is empty; everything else is. (`Oracles.legacy`
  leaves those keys out.)
Two differences in tokens, both outside what we compare with it:
- a line ending in "-\n" (plus any whitespace): the legacy 13a tokenizer deletes "-\n" (joining a
  hyphenated line break) on the raw line, where we, as sacreBLEU, strip trailing whitespace first
  and keep the "-" as a token (tested below against sacreBLEU);
- \x1c-\x1f: Python's str.split (ours, sacreBLEU's, evaluate's) splits there, bleuscore's Rust
  split_whitespace does not.
"""

from __future__ import annotations

import itertools
import math

import pytest

from bleukit.core import compute_bleu

PREDICTIONS = [
    "It is a guide to action which ensures that the military always obeys the commands of the party.",
    "The meeting was postponed until next Tuesday, 3 p.m.",
    "He bought 1,000 shares at $3.50 each -- a bargain!",
    "",
    "the the the the the the the",
    "Temperatures will reach 25-30 degrees on the weekend.",
    "\"Don't worry,\" she said & smiled.",
]
# One to four references per prediction, in varying numbers.
REFERENCES = [
    ["It is a guide to action that ensures that the military will forever heed Party commands.",
     "It is the guiding principle which guarantees the military forces always being under the command of the Party.",
     "It is the practical guide for the army always to heed the directions of the party."],
    ["The meeting has been postponed to next Tuesday at 3 p.m."],
    ["He bought 1,000 shares for $3.50 each - a bargain.", "He purchased a thousand shares at 3.50 dollars apiece!",
     "1,000 shares at $3.50: a bargain", "A bargain!"],
    ["There was no answer.", ""],
    ["the cat is on the mat", "there is a cat on the mat"],
    ["On the weekend temperatures will reach 25-30 degrees.", "Temperatures of 25 to 30 degrees are expected at the weekend."],
    ["&quot;Don't worry,&quot; she said and smiled.", "She smiled: \"Don't worry.\""],
]


def assert_same_as_legacy(oracles, predictions, references, **options) -> None:
    expected = oracles.legacy(predictions, references, **options)  # the comparable keys only
    ours = compute_bleu(predictions, references, ref_length="shortest", **options)
    oracles.assert_same(ours, expected)


@pytest.mark.parametrize("smooth", [False, True], ids=["unsmoothed", "add-one"])
@pytest.mark.parametrize("max_order", range(1, 7))
def test_corpus_matches_legacy_bleu(oracles, max_order, smooth):
    assert_same_as_legacy(oracles, PREDICTIONS, REFERENCES, max_order=max_order, smooth=smooth)


@pytest.mark.parametrize("smooth", [False, True], ids=["unsmoothed", "add-one"])
def test_every_prefix_of_the_corpus_and_each_segment_match_legacy_bleu(oracles, smooth):
    for end, max_order in itertools.product(range(1, len(PREDICTIONS) + 1), [2, 4]):
        assert_same_as_legacy(oracles, PREDICTIONS[:end], REFERENCES[:end], max_order=max_order, smooth=smooth)
    for index, max_order in itertools.product(range(len(PREDICTIONS)), [1, 4, 6]):
        segment = slice(index, index + 1)
        assert_same_as_legacy(oracles, PREDICTIONS[segment], REFERENCES[segment], max_order=max_order, smooth=smooth)


@pytest.mark.parametrize("smooth", [False, True], ids=["unsmoothed", "add-one"])
def test_shortest_reference_is_the_legacy_reference_length(oracles, smooth):
    """The closest reference (6 tokens) and the shortest (2) differ; legacy bleu takes the shortest."""
    preds, refs = ["the cat sat on the mat"], [["the cat sat on a mat", "a cat"]]
    expected = oracles.legacy(preds, refs, smooth=smooth)
    assert expected["reference_length"] == 2 and expected["brevity_penalty"] == 1.0
    assert_same_as_legacy(oracles, preds, refs, smooth=smooth)
    assert compute_bleu(preds, refs, smooth=smooth)["reference_length"] == 6  # the default, closest


def test_empty_translation_and_empty_reference_cases(oracles):
    """The degenerate cases the module docstring lists, with the keys that stay comparable."""
    cases = [([""], [["a b"]]), (["a b"], [[""]]), ([""], [[""]]), (["a b", ""], [["a b"], [""]])]
    for (preds, refs), smooth in itertools.product(cases, [False, True]):
        assert_same_as_legacy(oracles, preds, refs, smooth=smooth)
    import bleuscore

    assert math.isinf(bleuscore.compute(references=[[""]], predictions=["a b"])["length_ratio"])  # the divergence
    assert compute_bleu(["a b"], [[""]], ref_length="shortest")["length_ratio"] == 0.0


def test_hyphen_before_a_final_newline_follows_sacrebleu_not_the_legacy_tokenizer(oracles):
    preds, refs = ["the end -\n"], [["the end -"]]
    assert oracles.legacy(preds, refs, max_order=1)["translation_length"] == 2  # "-\n" deleted
    ours = compute_bleu(preds, refs, max_order=1, ref_length="shortest")
    assert ours["translation_length"] == 3 and ours["bleu"] == 1.0
    oracles.assert_same(ours, oracles.sacrebleu(preds, refs, max_order=1))

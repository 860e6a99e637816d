"""Parity with NLTK's bleu_score: corpus_bleu (custom weights, methods 0-3) and sentence_bleu (methods 1-7).

NLTK scores token lists; ours scores the same tokens joined by spaces with tokenizer="none".
The oracle is `Oracles.nltk` (tests/conftest.py).

Known, intended divergences, which these tests stay clear of (read in nltk/translate/bleu_score.py):
- modified_precision divides by max(1, count): a hypothesis shorter than n adds 1 to order n's
  denominator; we count 0 there, as sacreBLEU and the paper. So every hypothesis here has at
  least max_order tokens (methods 5 and 7 also read 5-grams: both sides give 0 below 5 tokens).
- method0 turns a zero precision into sys.float_info.min (BLEU ~1e-231 instead of our 0): method0
  is compared only where every order has a match.
- the final mean drops orders whose smoothed precision is 0 (method4 for a 1-token hypothesis,
  method6 when the bigram precision is 0), where we score 0; method6 asserts a non-zero trigram
  precision, where we compute the formula. Those cases are not compared.
- at corpus level, methods 4-7 read their extra statistics from the last hypothesis only (we use
  corpus totals), so they are compared on one-prediction corpora (sentence_bleu) only.
- method5 always reads 5-grams, whatever the order; ours reads order max_order + 1: methods 5 and
  7 are compared at max_order 4 only.
Weights are used as given by both (they need not sum to 1). `Oracles.nltk` returns None in those
cases.
"""

from __future__ import annotations

import itertools

import pytest

from bleukit.core import compute_bleu

# Tokenized sentence pairs with one to four references (German and English news-like text, some
# numbers, punctuation as tokens, repeated words). Every hypothesis has at least 6 tokens.
SEGMENTS = [
    ("the cat sat on the mat .".split(),
     ["the cat is on the mat .".split(), "there is a cat on the mat".split()]),
    ("die Regierung hat am Montag 3,5 Milliarden Euro bewilligt .".split(),
     ["die Regierung bewilligte am Montag 3,5 Milliarden Euro .".split(),
      "am Montag hat die Regierung 3,5 Mrd. Euro freigegeben .".split(),
      "Regierung bewilligt Milliarden".split()]),
    ("he said that the plan was naive and left quickly".split(),
     ["he said the plan was naïve and left in a hurry".split()]),
    ("the the the the the the the".split(),
     ["the cat is on the mat".split(), "the the cat".split(), "a cat is on the mat".split(),
      "on the mat the cat sat".split()]),
    ("prices rose by 3.5 % between 1990 and 2000 , economists said".split(),
     ["economists said prices rose 3.5 % from 1990 to 2000".split(),
      "between 1990 and 2000 , prices went up by 3.5 % , economists said".split()]),
    ("Straße gesperrt : Unfall auf der A 9 bei München".split(),
     ["Unfall auf der A 9 bei München : Straße gesperrt".split()]),
]
HYPOTHESES = [hypothesis for hypothesis, _ in SEGMENTS]
REFERENCES = [group for _, group in SEGMENTS]
WEIGHTS = [
    (1.0,),
    (0.5, 0.5),
    (0.2, 0.3, 0.5),
    (0.25, 0.25, 0.25, 0.25),
    (0.5, 0.5, 0.5, 0.5),  # not normalized
    (0.4, 0.0, 0.3, 0.3),  # an order switched off
    (0.1, 0.2, 0.3, 0.2, 0.2),
    (1 / 6,) * 6,
]


def ours(hypotheses, references, weights, method, value=None) -> float:
    return compute_bleu(
        [" ".join(h) for h in hypotheses], [[" ".join(r) for r in group] for group in references],
        tokenizer="none", weights=weights, smooth=f"method{method}", smooth_value=value,
    )["bleu"]


@pytest.mark.parametrize("method", [0, 1, 2, 3])
@pytest.mark.parametrize("weights", WEIGHTS, ids=lambda w: "w" + "-".join(f"{x:g}" for x in w))
def test_corpus_bleu_matches_nltk(oracles, weights, method):
    """Every run of consecutive segments as a corpus."""
    compared = 0
    for start, end in itertools.combinations(range(len(SEGMENTS) + 1), 2):
        hyps, refs = HYPOTHESES[start:end], REFERENCES[start:end]
        expected = oracles.nltk(hyps, refs, weights, method)
        if expected is None:  # method0 with an order without matches
            continue
        assert ours(hyps, refs, weights, method) == pytest.approx(expected, rel=1e-10, abs=0)
        compared += 1
    assert compared >= 3


@pytest.mark.parametrize("epsilon", [0.01, 0.5, 2.0])
def test_corpus_bleu_method1_epsilon_matches_nltk(oracles, epsilon):
    for end, weights in itertools.product(range(1, len(SEGMENTS) + 1), WEIGHTS):
        hyps, refs = HYPOTHESES[:end], REFERENCES[:end]
        expected = oracles.nltk(hyps, refs, weights, 1, value=epsilon)
        assert ours(hyps, refs, weights, 1, value=epsilon) == pytest.approx(expected, rel=1e-10, abs=0)


METHOD_VALUES = [(m, None) for m in range(1, 8)] + [(m, v) for m in (1, 4, 6, 7) for v in (0.5, 3.0)]


@pytest.mark.parametrize("method, value", METHOD_VALUES)
def test_sentence_bleu_matches_nltk_on_one_prediction_corpora(oracles, method, value):
    compared = 0
    for (hypothesis, references), weights in itertools.product(SEGMENTS, WEIGHTS):
        expected = oracles.nltk([hypothesis], [references], weights, method, value=value, sentence=True)
        if expected is None:  # one of the divergences in the module docstring
            continue
        got = ours([hypothesis], [references], weights, method, value=value)
        assert got == pytest.approx(expected, rel=1e-10, abs=0), (hypothesis, weights)
        compared += 1
    assert compared >= 6

"""pairwise and most_similar_pairs against loops: sacreBLEU's sentence_bleu for every pair, our own
`compute` bit for bit, and the n-gram counting of `bleukit.counting.pairs` against Counter arithmetic.

The corpora are random (seeded) and include empty texts, whitespace-only texts, exact
duplicates, case and punctuation variants, and texts long enough that a group's shared columns
fill more than one 64-bit word of the bit sets.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest

import bleukit.counting.pairs as bleu_pairs
from bleukit.core import compute_bleu
from bleukit.diversity.pairwise import most_similar_pairs, pairwise
from text_sets import random_texts, relative_difference


def sacrebleu_sentence(hypothesis: str, reference: str, **options) -> float:
    from sacrebleu.metrics import BLEU

    return BLEU(**options).sentence_score(hypothesis, [reference]).score / 100


# (our options, the same options in sacreBLEU's words)
SACREBLEU_OPTIONS = [
    ({}, {"effective_order": True}),  # the defaults: sacreBLEU's sentence_bleu
    ({"smooth": "none", "effective_order": False}, {"smooth_method": "none"}),
    ({"smooth": "floor", "smooth_value": 0.2}, {"smooth_method": "floor", "smooth_value": 0.2, "effective_order": True}),
    ({"smooth": "add-k"}, {"smooth_method": "add-k", "effective_order": True}),
    ({"tokenizer": "none", "lowercase": True}, {"tokenize": "none", "lowercase": True, "effective_order": True}),
    ({"tokenizer": "intl", "max_order": 2}, {"tokenize": "intl", "max_ngram_order": 2, "effective_order": True}),
    ({"tokenizer": "char", "max_order": 6}, {"tokenize": "char", "max_ngram_order": 6, "effective_order": True}),
]


@pytest.mark.parametrize("ours, theirs", SACREBLEU_OPTIONS, ids=lambda o: str(o))
def test_every_entry_is_sacrebleus_sentence_bleu(ours, theirs):
    rng = random.Random(str(ours))
    worst = 0.0
    for _ in range(6):
        texts_a = random_texts(rng, rng.randint(1, 7))
        texts_b = None if rng.random() < 0.5 else random_texts(rng, rng.randint(1, 5))
        matrix = pairwise(texts_a, texts_b, **ours)["bleu"]
        others = texts_a if texts_b is None else texts_b
        assert matrix.shape == (len(texts_a), len(others))
        for (i, a), (j, b) in itertools.product(enumerate(texts_a), enumerate(others)):
            worst = max(worst, relative_difference(matrix[i, j], sacrebleu_sentence(a, b, **theirs)))
    assert worst <= 1e-12


OPTIONS = [
    {},
    {"smooth": "none", "effective_order": False},
    {"smooth": "method1", "smooth_value": 0.3},
    {"smooth": "method2"},
    {"smooth": "method3", "lowercase": True},
    {"smooth": "method4", "effective_order": False},
    {"smooth": "method5"},  # reads order max_order + 1
    {"smooth": "method6", "effective_order": False},
    {"smooth": "method7", "max_order": 3},
    {"smooth": True},  # evaluate's legacy add-one
    {"weights": (0.5, 0.0, 0.5), "smooth": "exp"},
    {"max_order": 1},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: str(o))
def test_every_entry_is_computes_sentence_score_bit_for_bit(options):
    """Same options, same number as `compute` on the one pair (the scoring factors the brevity
    penalty out of distinct rows; this checks the product is the score, to the last bit)."""
    rng = random.Random(str(options))
    texts_a, texts_b = random_texts(rng, 9), random_texts(rng, 6)
    full = {"smooth": "exp", "effective_order": True, **options}
    for matrix, others in ((pairwise(texts_a, texts_b, **options)["bleu"], texts_b),
                           (pairwise(texts_a, **options)["bleu"], texts_a)):
        for (i, a), (j, b) in itertools.product(enumerate(texts_a), enumerate(others)):
            assert matrix[i, j] == compute_bleu([a], [b], **full)["bleu"], (a, b)


def test_token_ids_are_scored_as_compute_scores_them():
    rng = random.Random(7)
    ids = [[rng.randint(0, 6) for _ in range(rng.randint(0, 12))] for _ in range(8)]
    result = pairwise(ids)
    assert "tok:ids" in result["signature"]
    for (i, a), (j, b) in itertools.product(enumerate(ids), enumerate(ids)):
        expected = compute_bleu([a], [b], smooth="exp", effective_order=True, kind="token_ids")["bleu"] if a else 0.0
        assert result["bleu"][i, j] == expected


def test_the_diagonal_and_the_signature():
    result = pairwise(["the cat sat on the mat", "", "a dog"])
    assert result["bleu"].diagonal().tolist() == [1.0, 0.0, 1.0]
    assert result["signature"] == "nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|reflen:closest|order:4|version:bleu_metric-1.0.0"
    assert pairwise(["a b"], ["a b", "c"])["bleu"].tolist() == [[1.0, 0.0]]


def ngrams(tokens, order):
    return Counter(tuple(tokens[i : i + order]) for i in range(len(tokens) - order + 1))


def clipped(a, b, order):
    count_b = ngrams(b, order)
    return sum(min(count, count_b[gram]) for gram, count in ngrams(a, order).items())


@pytest.mark.parametrize("dense_ratio", [0, 64, 10**9], ids=["all-column-lists", "default-split", "all-bit-sets"])
@pytest.mark.parametrize("pairs_per_block", [1, 5, bleu_pairs.PAIRS_PER_BLOCK])
def test_pair_counting_against_counters(monkeypatch, dense_ratio, pairs_per_block):
    """Every (a, b) of every group, every order, both ways of multiplying, any block size."""
    monkeypatch.setattr(bleu_pairs, "DENSE_RATIO", dense_ratio)
    monkeypatch.setattr(bleu_pairs, "PAIRS_PER_BLOCK", pairs_per_block)
    rng = random.Random(dense_ratio * 7 + pairs_per_block)
    for trial in range(25):
        same, orders = trial % 2 == 0, rng.randint(1, 5)
        groups = rng.randint(1, 4)
        side_a = [(g, [rng.randint(0, 4) for _ in range(rng.choice([0, 2, 6, 90]))])
                  for g in range(groups) for _ in range(rng.randint(1, 6))]
        side_b = [] if same else [(g, [rng.randint(0, 4) for _ in range(rng.randint(0, 9))])
                                  for g in range(groups) for _ in range(rng.randint(0, 4))]
        texts = side_a + side_b
        layout = bleu_pairs.make_layout([len(t) for _, t in texts], [g for g, _ in texts], len(side_a), same)
        ids = np.array([token for _, tokens in texts for token in tokens], dtype=np.int64)
        columns = bleu_pairs.order_columns(ids, layout, orders)
        against = side_a if same else side_b
        for lo, hi, matches in bleu_pairs.pair_matches(layout, columns):
            for i in range(lo, hi):
                group, a = side_a[i]
                others = [b for g, b in against if g == group]
                expected = [[clipped(a, b, n + 1) for b in others] for n in range(orders)]
                assert matches[:, i - lo, : len(others)].tolist() == expected
                assert not matches[:, i - lo, len(others) :].any()


def test_most_similar_pairs_are_the_best_of_the_matrix():
    rng = random.Random(11)
    texts = random_texts(rng, 30, longest=6)
    matrix = pairwise(texts)["bleu"]
    expected = sorted(
        ((max(matrix[i, j], matrix[j, i]), i, j) for i in range(len(texts)) for j in range(i + 1, len(texts))),
        key=lambda item: (-item[0], item[1], item[2]),
    )[:12]
    found = most_similar_pairs(texts, top=12)["pairs"]
    assert [(p["bleu"], p["i"], p["j"]) for p in found] == expected
    for pair in found:
        assert (pair["bleu_ij"], pair["bleu_ji"]) == (matrix[pair["i"], pair["j"]], matrix[pair["j"], pair["i"]])


def test_most_similar_pairs_blockwise(monkeypatch):
    monkeypatch.setattr(bleu_pairs, "PAIRS_PER_BLOCK", 3)
    texts = ["a b c d e", "x y", "a b c d e f", "x y", "q r s"]
    pairs = most_similar_pairs(texts, top=2)["pairs"]
    # The duplicates first; then the prefix pair, in its better direction: "a b c d e" against
    # "a b c d e f" has every n-gram matched but pays the brevity penalty exp(1 - 6/5).
    assert [(p["i"], p["j"], p["bleu"]) for p in pairs] == [(1, 3, 1.0), (0, 2, pytest.approx(np.exp(-0.2), rel=1e-15))]
    assert pairs[1]["bleu_ij"] == pairs[1]["bleu"] > pairs[1]["bleu_ji"]


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: pairwise([]), ValueError, "texts_a has 0 texts"),
        (lambda: pairwise(["a", 3]), TypeError, r"texts_a\[1\] is int"),
        (lambda: pairwise(["a"], [[1, 2]]), TypeError, r"texts_b\[0\] is list"),
        (lambda: pairwise("a b"), TypeError, "texts_a is a single string"),
        (lambda: pairwise(["a"], smoth="exp"), TypeError, "smoth"),
        (lambda: pairwise(["a"], convention="texygen"), ValueError, "unknown convention"),
        (lambda: pairwise(["a"], convention="nltk", smooth="exp"), ValueError, "method1"),
        (lambda: pairwise([[1, 2**63]]), ValueError, r"texts_a\[0\] holds an id outside 64-bit integers"),
        (lambda: most_similar_pairs(["a"]), ValueError, "at least 2"),
        (lambda: most_similar_pairs(["a", "b"], top=-1), ValueError, "top must be"),
    ],
)
def test_errors_say_what_to_pass(call, error, message):
    with pytest.raises(error, match=message):
        call()

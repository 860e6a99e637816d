"""self_bleu against loops: sacreBLEU's sentence_bleu(text, others) and corpus_score, NLTK's
sentence_bleu(others, text) with method1 (Texygen's loop), fast-bleu's SelfBLEU, fairseq's
pairwise BLEU (sacreBLEU's corpus_bleu over every ordered pair), and `compute` bit for bit.

fast-bleu reads one reference length past the end of its array when it scores a text against
the others (self_bleu.cpp passes the number of all texts, not of the others, to its
closest_ref_length), so for a text whose length no other text has, an undefined length can win
and its brevity penalty differs from NLTK's. Its comparisons therefore use texts whose length
another text shares (where the extra length cannot be closer), and fast-bleu's float32 weights
(1/3 is 0.3333333432674408 there) are passed to ours as such.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from bleukit.core import compute_bleu
from bleukit.diversity.pairwise import self_bleu
from conftest import wmt17_lines
from text_sets import random_texts, relative_difference

WORDS = "the a cat dog sat on mat . , is was".split()


def others(texts, index):
    return texts[:index] + texts[index + 1 :]


@pytest.mark.parametrize("seed", range(8))
def test_each_text_is_sacrebleus_sentence_bleu_against_the_others(seed):
    from sacrebleu.metrics import BLEU

    rng = random.Random(seed)
    texts = random_texts(rng, rng.randint(2, 12))
    result = self_bleu(texts)
    metric = BLEU(effective_order=True)  # sacreBLEU's sentence_bleu settings
    expected = [metric.sentence_score(text, others(texts, i)).score / 100 for i, text in enumerate(texts)]
    assert max(map(relative_difference, result["sentence_bleu"], expected)) <= 1e-12
    assert result["self_bleu"] == pytest.approx(math.fsum(expected) / len(texts), rel=1e-12, abs=0)


@pytest.mark.parametrize("options", [
    {}, {"smooth": "none", "effective_order": False}, {"ref_length": "shortest"}, {"smooth": "method4"},
    {"tokenizer": "char", "max_order": 2}, {"smooth": "method7", "lowercase": True},
], ids=str)
def test_sentence_and_corpus_values_are_computes_bit_for_bit(options):
    rng = random.Random(str(options))
    texts = random_texts(rng, 9)
    result = self_bleu(texts, **options)
    full = {"smooth": "exp", "effective_order": True, **options}
    references = [others(texts, i) for i in range(len(texts))]
    for i, text in enumerate(texts):
        assert result["sentence_bleu"][i] == compute_bleu([text], [references[i]], **full)["bleu"]
    assert result["corpus_bleu"] == compute_bleu(texts, references, **full)["bleu"]
    assert result["signature"].startswith(f"nrefs:{len(texts) - 1}|")


def test_corpus_value_is_sacrebleus_corpus_score(oracles):
    rng = random.Random(3)
    texts = random_texts(rng, 10)
    references = [others(texts, i) for i in range(len(texts))]
    expected = oracles.sacrebleu(texts, references, smooth="exp")["bleu"]
    assert self_bleu(texts, smooth="exp", effective_order=False)["corpus_bleu"] == pytest.approx(expected, rel=1e-12, abs=0)


@pytest.mark.parametrize("seed", range(6))
def test_pairwise_bleu_is_fairseqs(seed):
    """fairseq (examples/translation_moe/score.py): sacreBLEU corpus_bleu, tokenize="none", of
    s[j] against s[i] for every i != j of every input's outputs."""
    import sacrebleu

    rng = random.Random(seed)
    sets = [random_texts(rng, rng.randint(2, 5)) for _ in range(rng.randint(1, 4))]
    hypotheses = [group[j] for group in sets for i in range(len(group)) for j in range(len(group)) if i != j]
    references = [group[i] for group in sets for i in range(len(group)) for j in range(len(group)) if i != j]
    expected = sacrebleu.corpus_bleu(hypotheses, [references], tokenize="none").score / 100
    ours = self_bleu(sets, tokenizer="none", smooth="exp", effective_order=False)["pairwise_bleu"]
    assert ours == pytest.approx(expected, rel=1e-12, abs=0)


def test_several_sets_are_scored_each_on_its_own():
    sets = [["the cat sat", "the cat sat on the mat", "a dog"], ["x y z", "x y", "x y z w", ""]]
    together = self_bleu(sets)
    apart = [self_bleu(group) for group in sets]
    assert together["sentence_bleu"] == [result["sentence_bleu"] for result in apart]
    flat = [value for result in apart for value in result["sentence_bleu"]]
    assert together["self_bleu"] == math.fsum(flat) / len(flat)
    assert together["signature"].startswith("nrefs:var|")


def nltk_self_bleu(token_lists, weights, epsilon=0.1):
    """Texygen's loop (utils/metrics/SelfBleu.py): NLTK sentence_bleu of each text against the others."""
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    smoothing = SmoothingFunction(epsilon=epsilon).method1
    return [sentence_bleu(others(token_lists, i), tokens, weights, smoothing_function=smoothing)
            for i, tokens in enumerate(token_lists)]


@pytest.mark.parametrize("seed", range(8))
def test_nltk_convention_is_nltks_and_texygens_loop(seed):
    """Short texts included: NLTK counts max(1, n-grams) per order, so a 2-token text still has
    a (smoothed) trigram precision."""
    rng = random.Random(seed)
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 9))) for _ in range(rng.randint(2, 9))]
    tokens = [text.split() for text in texts]
    for order, epsilon in ((2, 0.1), (3, 0.1), (4, 0.5)):
        weights = (1 / order,) * order
        expected = nltk_self_bleu(tokens, weights, epsilon)
        ours = self_bleu(texts, convention="nltk", tokenizer="none", weights=weights, smooth_value=epsilon)
        assert max(map(relative_difference, ours["sentence_bleu"], expected)) <= 1e-12
        assert ours["self_bleu"] == pytest.approx(sum(expected) / len(expected), rel=1e-12, abs=0)
        assert ours["signature"].endswith("|conv:nltk") and "smooth:method1" in ours["signature"]


def fast_bleu_scores(token_lists, order):
    from fast_bleu import SelfBLEU

    return SelfBLEU(token_lists, {"w": (1 / order,) * order}).get_score()["w"]


def float32_weights(order):
    return [float(np.float32(1 / order))] * order


@pytest.mark.parametrize("seed", range(6))
def test_nltk_convention_is_fast_bleus(seed):
    rng = random.Random(seed)
    texts = []
    for _ in range(rng.randint(1, 6)):  # two texts of each length (see the module docstring)
        length = rng.randint(1, 10)
        texts += [" ".join(rng.choice(WORDS) for _ in range(length)) for _ in range(2)]
    rng.shuffle(texts)
    tokens = [text.split() for text in texts]
    for order in (2, 3, 4):
        ours = self_bleu(texts, convention="nltk", tokenizer="none", weights=float32_weights(order))
        assert max(map(relative_difference, ours["sentence_bleu"], fast_bleu_scores(tokens, order))) <= 1e-12


def test_nltk_convention_is_fast_bleus_on_wmt17():
    texts = wmt17_lines("uedin-nmt.4722.de")[:1000]
    tokens = [text.split() for text in texts]
    lengths = [len(t) for t in tokens]
    shared = [i for i, length in enumerate(lengths) if lengths.count(length) > 1]
    assert len(shared) > 950
    ours = self_bleu(texts, convention="nltk", tokenizer="none", weights=float32_weights(3))["sentence_bleu"]
    theirs = fast_bleu_scores(tokens, 3)
    assert max(relative_difference(ours[i], theirs[i]) for i in shared) <= 1e-12


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: self_bleu(["only one"]), "at least 2"),
        (lambda: self_bleu([["a", "b"], ["c"]]), r"texts\[1\] has 1 text"),
        (lambda: self_bleu(["a", "b"], convention="nltk", smooth="exp"), "method1"),
        (lambda: self_bleu(["a", "b"], convention="nltk", effective_order=True), "no effective order"),
    ],
)
def test_errors_say_what_to_pass(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_docs_example():
    from conftest import REPO

    texts = ["the cat sat on the mat", "the cat sat on a mat", "a dog barked", "the cat sat on the mat"]
    result = self_bleu(texts)
    page = (REPO / "docs" / "diversity.md").read_text(encoding="utf-8")
    assert f'result["self_bleu"]       # {result["self_bleu"]:.4f}: the mean' in page
    assert f"{result['signature'].split('|version')[0]}|version:..." in page
    assert result["sentence_bleu"][0] == result["sentence_bleu"][3] == 1.0  # the duplicates

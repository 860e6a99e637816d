"""The worked examples of the five seed documents (../shared/seeds), as named tests.

Each test quotes the seed's example and its number; an oracle (NLTK, sacreBLEU, or the seed's own
fractions worked by hand) stands beside each claim. Where a seed disagrees with a trusted
implementation, the test pins down why (also written in docs/differences.md, "Where the sources disagree").
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
import sacrebleu
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

from bleukit.core import compute_bleu
from bleukit.scoring import brevity_penalty

CAT_REFERENCES = ["the cat is on the mat", "there is a cat on the mat"]
PAPER_REFERENCES = [
    "It is a guide to action that ensures that the military will forever heed Party commands.",
    "It is the guiding principle which guarantees the military forces always being under the command of the Party.",
    "It is the practical guide for the army always to heed the directions of the party.",
]


def words(text: str) -> list:
    """The paper counts words, ignoring punctuation (and, with lowercase=True, capitalization)."""
    return re.findall(r"\w+", text)


def as_fractions(precisions, denominators):
    return [Fraction(round(p * d), d) for p, d in zip(precisions, denominators)]


class TestSeed000CatOnTheMat:
    """Seed 000: BLEU explained step by step, with NLTK beside every number."""

    def test_example_1_precisions_and_score(self, bleu):
        result = bleu.compute(
            predictions=["the cat the cat on the mat"], references=[CAT_REFERENCES], tokenizer="none"
        )
        assert result["precisions"] == [5 / 7, 4 / 6, 2 / 5, 1 / 4]
        assert (result["translation_length"], result["reference_length"], result["brevity_penalty"]) == (7, 7, 1.0)
        nltk_score = sentence_bleu([r.split() for r in CAT_REFERENCES], "the cat the cat on the mat".split())
        assert nltk_score == 0.4671379777282001  # the seed's printed value
        assert result["bleu"] == pytest.approx(0.4671379777282001, rel=1e-15)
        assert result["bleu"] == pytest.approx((5 / 7 * 4 / 6 * 2 / 5 * 1 / 4) ** 0.25, rel=1e-15)

    def test_example_2_the_the_the(self, bleu):
        result = bleu.compute(
            predictions=["the the the the the the the the"], references=[CAT_REFERENCES], tokenizer="none"
        )
        assert result["precisions"] == [2 / 8, 0.0, 0.0, 0.0]
        assert (result["translation_length"], result["reference_length"]) == (8, 7)
        assert result["brevity_penalty"] == 1.0
        assert result["bleu"] == 0.0
        # NLTK reports 1.2882297539194154e-231, not 0: it replaces a zero precision with
        # sys.float_info.min. sacreBLEU, like this module, reports exactly 0.
        assert sacrebleu.corpus_bleu(["the the the the the the the the"], [[CAT_REFERENCES[0]], [CAT_REFERENCES[1]]],
                                     tokenize="none", smooth_method="none").score == 0.0

    def test_caveat_you_are_ready_unsmoothed_is_zero(self, bleu):
        result = bleu.compute(predictions=["you are ready ?"], references=[["are you ready ?"]], tokenizer="none")
        assert result["precisions"] == [1.0, 1 / 3, 0.0, 0.0]
        assert result["bleu"] == 0.0

    def test_caveat_you_are_ready_method7_equals_current_nltk(self, bleu):
        result = bleu.compute(
            predictions=["you are ready ?"], references=[["are you ready ?"]], tokenizer="none", smooth="method7"
        )
        nltk_score = sentence_bleu(
            ["are you ready ?".split()], "you are ready ?".split(), smoothing_function=SmoothingFunction().method7
        )
        assert result["bleu"] == pytest.approx(nltk_score, rel=1e-12)
        assert result["bleu"] == pytest.approx(0.3265309055565624, rel=1e-12)
        # The seed printed 0.4002926439114545: NLTK 3.5 and older computed method 4 without dividing
        # by the n-gram count, so its smoothed precisions could exceed 1. Current NLTK divides.
        assert not math.isclose(result["bleu"], 0.4002926439114545, rel_tol=1e-3)

    def test_best_match_length_ties_to_the_shorter_reference(self, bleu):
        """'three references with lengths 12, 14, and 17 words and the candidate ... 13 words ... 12'."""
        references = [" ".join(["w"] * n) for n in (12, 14, 17)]
        result = bleu.compute(predictions=[" ".join(["w"] * 13)], references=[references], tokenizer="none")
        assert result["reference_length"] == 12
        assert result["brevity_penalty"] == 1.0


class TestSeed001Paper:
    """Seed 001: the paper's own examples (Papineni et al. 2002), which ignore case and punctuation."""

    def test_candidate_1_modified_unigram_and_bigram_precision(self):
        candidate = "It is a guide to action which ensures that the military always obeys the commands of the party."
        result = compute_bleu([candidate], [PAPER_REFERENCES], tokenizer=words, lowercase=True)
        assert as_fractions(result["precisions"][:2], [18, 17]) == [Fraction(17, 18), Fraction(10, 17)]
        assert result["precisions"][:2] == [17 / 18, 10 / 17]

    def test_candidate_2_modified_unigram_and_bigram_precision(self):
        candidate = "It is to insure the troops forever hearing the activity guidebook that party direct."
        result = compute_bleu([candidate], [PAPER_REFERENCES], tokenizer=words, lowercase=True)
        assert result["precisions"][:2] == [8 / 14, 1 / 13]

    def test_example_2_clipping_the_seven_thes(self):
        references = ["The cat is on the mat.", "There is a cat on the mat."]
        result = compute_bleu(["the the the the the the the."], [references], tokenizer=words, lowercase=True)
        assert result["precisions"][0] == 2 / 7
        # With the default 13a tokenizer the final '.' is a token of its own and matches, so p1 = 3/8.
        with_13a = compute_bleu(["the the the the the the the."], [references], lowercase=True)
        assert with_13a["precisions"][0] == 3 / 8
        assert sacrebleu.corpus_bleu(["the the the the the the the."], [[references[0]], [references[1]]],
                                     lowercase=True, smooth_method="none").precisions[0] == pytest.approx(100 * 3 / 8)

    def test_example_3_of_the_is_precise_but_short(self):
        result = compute_bleu(["of the"], [PAPER_REFERENCES], tokenizer=words, lowercase=True)
        assert result["precisions"][:2] == [1.0, 1.0]  # "2/2" and "1/1" in the paper
        # The closest reference has 16 words: BP = exp(1 - 16/2).
        assert result["reference_length"] == 16
        assert result["brevity_penalty"] == pytest.approx(math.exp(1 - 16 / 2), rel=1e-15)
        assert result["bleu"] == 0.0  # no trigrams at all

    def test_example_4_recall_is_not_needed(self):
        references = ["I always do.", "I invariably do.", "I perpetually do."]
        long_one = compute_bleu(["I always invariably perpetually do."], [references], tokenizer=words)
        short_one = compute_bleu(["I always do."], [references], tokenizer=words, effective_order=True)
        assert long_one["precisions"][:2] == [1.0, 2 / 4]
        assert short_one["bleu"] == 1.0
        assert long_one["bleu"] < short_one["bleu"]

    def test_sentence_brevity_penalty_is_one_when_a_reference_has_the_same_length(self):
        """'references with lengths 12, 15, and 17 words and the candidate ... 12 words'."""
        references = [" ".join(["w"] * n) for n in (12, 15, 17)]
        result = compute_bleu([" ".join(["w"] * 12)], [references], tokenizer="none")
        assert (result["reference_length"], result["brevity_penalty"]) == (12, 1.0)


class TestSeed002Intuition:
    """Seed 002: precision, modified precision, geometric mean, brevity penalty."""

    def test_plain_versus_modified_precision(self):
        result = compute_bleu(["the the cat the the the the the"], ["the cat is on the mat"], tokenizer="none")
        assert result["precisions"][0] == 3 / 8  # 'the' clipped to 2, 'cat' 1; plain precision is 8/8

    def test_unigrams_miss_word_order_bigrams_see_it(self):
        right = compute_bleu(["the cat is on the mat"], ["the cat is on the mat"], tokenizer="none")
        swapped = compute_bleu(["the mat is on the cat"], ["the cat is on the mat"], tokenizer="none")
        assert right["precisions"][0] == swapped["precisions"][0] == 1.0
        # 'mat is' is the only bigram not in the reference; 'is on the' the only trigram in it.
        assert swapped["precisions"][1:3] == [4 / 5, 1 / 4]
        assert swapped["bleu"] < right["bleu"] == 1.0

    def test_brevity_penalty_separates_the_short_translation(self):
        short = compute_bleu(["the cat"], ["the cat is on the mat"], tokenizer="none", max_order=2)
        assert short["precisions"] == [1.0, 1.0]
        assert short["brevity_penalty"] == pytest.approx(math.exp(1 - 6 / 2), rel=1e-15)

    def test_the_seeds_brevity_penalty_uses_the_shortest_reference(self):
        """The seed's code takes min(reference lengths); that is ref_length="shortest", not the paper's."""
        references = ["a b c", "a b c d e f"]
        closest = compute_bleu(["a b c d e"], [references], tokenizer="none", max_order=1)
        shortest = compute_bleu(["a b c d e"], [references], tokenizer="none", max_order=1, ref_length="shortest")
        assert (closest["reference_length"], shortest["reference_length"]) == (6, 3)


class TestSeed003Coffee:
    """Seed 003: the evaluate documentation's coffee example and the Hunger Games n-grams."""

    COFFEE_REFERENCES = [[
        "A bold, flavorful coffee with a slightly bitter aftertaste.",
        "A rich, full-bodied coffee with a smooth finish.",
    ]]
    COFFEE_PREDICTION = ["A bold, full-flavored coffee with a slightly bitter aftertaste."]
    DOCUMENTED = {
        "bleu": 0.7016879391277371,
        "precisions": [0.9090909090909091, 0.8, 0.6666666666666666, 0.5],
        "brevity_penalty": 1.0,
        "length_ratio": 1.1,
        "translation_length": 11,
        "reference_length": 10,
    }

    def test_coffee_reproduces_the_documented_dict_with_shortest(self, bleu):
        result = bleu.compute(
            predictions=self.COFFEE_PREDICTION, references=self.COFFEE_REFERENCES, ref_length="shortest"
        )
        assert {k: result[k] for k in self.DOCUMENTED} == self.DOCUMENTED

    def test_coffee_with_the_papers_closest_length(self, bleu):
        """The closest reference has 11 tokens, so the paper (and sacreBLEU) report ratio 1.0."""
        result = bleu.compute(predictions=self.COFFEE_PREDICTION, references=self.COFFEE_REFERENCES)
        assert (result["reference_length"], result["length_ratio"]) == (11, 1.0)
        oracle = sacrebleu.corpus_bleu(self.COFFEE_PREDICTION, [[r] for r in self.COFFEE_REFERENCES[0]], smooth_method="none")
        assert result["bleu"] == pytest.approx(oracle.score / 100, rel=1e-12)

    def test_hunger_games_ngrams(self):
        result = compute_bleu(
            ["I really loved reading the Hunger Games."], ["I loved reading the Hunger Games."], tokenizer="none"
        )
        assert result["precisions"][:2] == [6 / 7, 4 / 6]

    def test_clipped_bigrams_of_the_cat_example(self):
        """'p2 = (1 + 0 + 1 + 1 + 1) / (2 + 1 + 1 + 1 + 1) = 4/6'."""
        result = compute_bleu(
            ["The cat the cat on the mat"], [["The cat is on the mat.", "There is a cat on the mat."]], lowercase=True
        )
        assert result["precisions"][1] == 4 / 6


class TestSeed004Implementation:
    """Seed 004: a from-scratch implementation's demonstrations."""

    def test_gaming_attempt_clipped(self):
        result = compute_bleu(["the the the the the the the"], ["the cat sat on the mat"], tokenizer="none")
        assert result["precisions"][0] == 2 / 7

    def test_normal_translation_precisions(self):
        result = compute_bleu(["the cat on the mat"], ["the cat sat on the mat"], tokenizer="none", max_order=3)
        assert result["precisions"] == [5 / 5, 3 / 4, 1 / 3]

    @pytest.mark.parametrize(
        "hypothesis_length, expected",
        [(2, math.exp(-4)), (5, math.exp(-1)), (8, math.exp(-0.25)), (10, 1.0), (12, 1.0), (15, 1.0), (20, 1.0)],
    )
    def test_brevity_penalty_table(self, hypothesis_length, expected):
        """The seed's table for reference length 10: 0.0183, 0.3679, 0.7788, then 1."""
        assert brevity_penalty(hypothesis_length, 10) == pytest.approx(expected, rel=1e-15)

    def test_corpus_bleu_sums_statistics_before_dividing(self):
        pairs = [
            ("the cat sat on the mat", "the cat sat on the mat"),
            ("the dog runs quickly", "the dog ran fast"),
            ("she is happy", "she seems happy"),
            ("it is cold today", "today is cold"),
        ]
        hypotheses, references = [h for h, _ in pairs], [r for _, r in pairs]
        result = compute_bleu(hypotheses, references)
        oracle = sacrebleu.corpus_bleu(hypotheses, [references], smooth_method="none")
        assert result["bleu"] == pytest.approx(oracle.score / 100, rel=1e-12)
        assert result["precisions"] == [13 / 17, 7 / 13, 4 / 9, 3 / 5]
        # Corpus BLEU is not the mean of sentence BLEU: two of the four sentences score 0 alone.
        sentences = compute_bleu(hypotheses, references, return_sentence_scores=True)["sentence_bleu"]
        assert sentences[0] == 1.0 and sentences[2] == sentences[3] == 0.0
        assert result["bleu"] != pytest.approx(sum(sentences) / 4)

    def test_signature_names_what_the_seed_says_to_report(self):
        """The seed's format is sacreBLEU 1.x's (BLEU+case.mixed+numrefs.1+tok.13a+v.1.4.14); this module
        writes sacreBLEU 2.x's key:value form and adds what else changes the number."""
        signature = compute_bleu(["a b c d"], ["a b c d"])["signature"]
        assert signature == "nrefs:1|case:mixed|eff:no|tok:13a|smooth:none|reflen:closest|order:4|version:bleu_metric-1.0.0"

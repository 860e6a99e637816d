"""docs/differences.md's claims: where this module and sacreBLEU, NLTK, bleuscore and the paper differ."""

from __future__ import annotations

import re
from typing import List

from docs_numbers import Claim

from .common import CAT, default_order, fractions, nltk_bleu


PAPER_REFERENCES = [  # Papineni et al. 2002, as tests/core/test_seeds.py has them
    "It is a guide to action that ensures that the military will forever heed Party commands.",
    "It is the guiding principle which guarantees the military forces always being under the command of the Party.",
    "It is the practical guide for the army always to heed the directions of the party.",
]


CLAIMS: List[Claim] = [
    Claim("docs/differences.md", "| empty text | {} | ZeroDivisionError | {} |",
          lambda code: [code.compute([""], [["a b"]])["bleu"], sacrebleu_score([""], [["a b"]]) / 100]),
    Claim("docs/differences.md", "where this one returns {} (empty predictions or references)",
          lambda code: [code.compute([""], [["a b"]])["bleu"]]),
    Claim("docs/differences.md", "(`['r']` against `[['r-\\n']]`: unigram precision {} there, {} here)",
          lambda code: [__import__("bleuscore").compute(predictions=["r"], references=[["r-\n"]], max_order=1)["precisions"][0],
                        code.compute(["r"], [["r-\n"]], max_order=1)["precisions"][0]]),
    Claim("docs/differences.md", "Current NLTK gives {} and this module {}: one unit in the last place",
          lambda code: [nltk_bleu("you are ready ?", ["are you ready ?"], 7),
                        code.compute(["you are ready ?"], [["are you ready ?"]], tokenizer="none", smooth="method7")["bleu"]]),
    Claim("docs/differences.md", "The seed's NLTK score {} for `the the the …`** is NLTK's `method0`",
          lambda code: [nltk_bleu("the the the the the the the the", CAT, 0)]),
    Claim("docs/differences.md", "sacreBLEU and this module report exactly {}.",
          lambda code: [code.compute(["the the the the the the the the"], [CAT], tokenizer="none")["bleu"]]),
    Claim("docs/differences.md", "The paper's {}/{} for `the the the the the the the.`",
          lambda code: fractions_of(code.compute(["the the the the the the the."], [["The cat is on the mat.", "There is a cat on the mat."]],
                                                 tokenizer=words, lowercase=True), 1)),
    Claim("docs/differences.md", "this module gives {}/{}, and the paper's {}/{}, {}/{}, {}/{} and {}/{}; with the default 13a",
          lambda code: [*fractions_of(code.compute(["the the the the the the the."], [["The cat is on the mat.", "There is a cat on the mat."]],
                                                   tokenizer=words, lowercase=True), 1),
                        *fractions_of(code.compute(["It is a guide to action which ensures that the military always obeys the commands of the party."],
                                                   [PAPER_REFERENCES], tokenizer=words, lowercase=True), 2),
                        *fractions_of(code.compute(["It is to insure the troops forever hearing the activity guidebook that party direct."],
                                                   [PAPER_REFERENCES], tokenizer=words, lowercase=True), 2)]),
    Claim("docs/differences.md", "the final `.` is a token that matches, so p1 = {}/{}.",
          lambda code: fractions_of(code.compute(["the the the the the the the."], [["The cat is on the mat.", "There is a cat on the mat."]],
                                                 lowercase=True), 1)),
    Claim("docs/differences.md", "so a hypothesis shorter than n adds one n-gram to order n's denominator (here: {}, as in sacreBLEU)",
          lambda code: [int(__import__("bleukit").statistics(["a"], [["a"]], tokenizer="none")[2 + 4 + 1])]),  # order 2's n-grams
    Claim("docs/differences.md", "(the same thing at the default order {})", lambda code: [default_order(code)]),
    Claim("docs/differences.md", "(e.g. method 4 on a one-token hypothesis) where this module scores {};",
          lambda code: [code.compute(["a"], [["a b"]], tokenizer="none", smooth="method4")["bleu"]]),
]


def words(text: str) -> list:
    return re.findall(r"\w+", text)


def fractions_of(result: dict, orders: int) -> List[int]:
    return fractions(result)[: 2 * orders]


def sacrebleu_score(predictions, references) -> float:
    import sacrebleu

    streams = [list(stream) for stream in zip(*references)]
    return sacrebleu.corpus_bleu(predictions, streams, smooth_method="none").score

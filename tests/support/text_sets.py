"""Random sets of texts for the many-text tests (pairwise, self-BLEU, MBR): seeded, with empty and
whitespace-only texts, exact duplicates, case and punctuation variants."""

from __future__ import annotations

import random

WORDS = "the a cat dog sat on mat . , The Cat is was ! 3.5 -- don't".split()


def random_texts(rng: random.Random, count: int, longest: int = 14) -> list:
    texts: list = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.08:
            texts.append("")
        elif roll < 0.12:
            texts.append("   ")
        elif roll < 0.25 and texts:
            texts.append(rng.choice(texts))  # a duplicate
        else:
            texts.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, longest))))
    return texts


def relative_difference(ours: float, theirs: float) -> float:
    """|ours - theirs| / |theirs|, or |ours| where theirs is 0 (so 0 only equals 0)."""
    return abs(ours - theirs) / abs(theirs) if theirs else abs(ours)

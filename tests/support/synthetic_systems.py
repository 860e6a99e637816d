"""Generated systems to compare (always present, seeded): a corpus whose systems differ by various
margins, and two checkpoints of one model that differ in a few segments (the near ties of
tests/significance/test_compare_near_ties.py and docs/comparing.md)."""

from __future__ import annotations

import random


def synthetic_corpus(segments=400, seed=7):
    """A reference, a second reference and five systems that corrupt it at different rates, so
    some differences are significant and some are not. Always present (generated here)."""
    rng = random.Random(seed)
    vocabulary = [f"w{k}" for k in range(150)]
    reference, second = [], []
    for _ in range(segments):
        words = [rng.choice(vocabulary) for _ in range(rng.randint(4, 22))]
        reference.append(" ".join(words))
        second.append(" ".join(w if rng.random() > 0.2 else rng.choice(vocabulary) for w in words))

    def system(rate, system_seed):
        noise = random.Random(system_seed)
        lines = []
        for line in reference:
            words = [w if noise.random() > rate else noise.choice(vocabulary) for w in line.split()]
            if noise.random() < 0.15:
                words = words[: max(1, len(words) - 3)]
            lines.append(" ".join(words))
        return lines

    base, other, worse = system(0.30, 1), system(0.30, 2), system(0.40, 4)
    half = segments // 2
    systems = {"base": base,
               "close": [o if k % 5 == 0 else b for k, (b, o) in enumerate(zip(base, other))],
               "closer": [o if k % 7 == 3 else b for k, (b, o) in enumerate(zip(base, other))],
               "worse": worse, "better": system(0.25, 5), "mixed": base[:half] + worse[half:]}
    return systems, reference, second


def random_sentence(rng: random.Random, vocabulary: list) -> str:
    return " ".join(rng.choice(vocabulary) for _ in range(rng.randint(3, 12)))


def checkpoints(changed: int, seed: int, segments: int = 80):
    """Two checkpoints of one model: noisy copies of the reference (4-gram matches, so unsmoothed BLEU
    is not 0) that differ in `changed` segments."""
    rng = random.Random(seed)
    vocabulary = [f"w{k}" for k in range(30)]
    reference = [random_sentence(rng, vocabulary) for _ in range(segments)]

    def noisy(line: str) -> str:
        return " ".join(word if rng.random() > 0.25 else rng.choice(vocabulary) for word in line.split())

    first = [noisy(line) for line in reference]
    second = list(first)
    for index in rng.sample(range(segments), changed):
        second[index] = noisy(reference[index])
    return {"A": first, "B": second}, reference

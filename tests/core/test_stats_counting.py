"""bleukit.counting.stats' counting (n-gram keys grouped by a sort) against Counter arithmetic: one or several
systems sharing references, several references per segment, empty hypotheses and references,
and every text empty (where a comparison of systems once failed on the empty sort)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from bleukit.significance.compare import compare
from bleukit.counting.stats import ngram_statistics, sort_order, sorted_codes


def counted_row(hypothesis, references, orders, policy):
    """One statistics row the slow way."""
    def grams(tokens, n):
        return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))

    lengths = [len(r) for r in references]
    if policy == "closest":
        ref_length = min(lengths, key=lambda length: (abs(length - len(hypothesis)), length))
    else:
        ref_length = min(lengths)
    matches, totals = [], []
    for n in range(1, orders + 1):
        most = Counter()
        for reference in references:
            for gram, count in grams(reference, n).items():
                most[gram] = max(most[gram], count)
        matches.append(sum(min(count, most[gram]) for gram, count in grams(hypothesis, n).items()))
        totals.append(max(len(hypothesis) - n + 1, 0))
    return [len(hypothesis), ref_length, *matches, *totals]


@pytest.mark.parametrize("seed", range(6))
def test_rows_are_counters_for_one_or_several_systems(seed):
    rng = random.Random(seed)
    for _ in range(40):
        systems, segments = rng.randint(1, 4), rng.randint(1, 5)
        longest = rng.choice([0, 3, 9])
        hypotheses = [[rng.randint(0, 3) for _ in range(rng.randint(0, longest))] for _ in range(systems * segments)]
        references, owner = [], []
        for segment in range(segments):
            for _ in range(rng.randint(1, 3)):
                references.append([rng.randint(0, 3) for _ in range(rng.randint(0, longest))])
                owner.append(segment)
        sequences = hypotheses + references
        lengths = np.array([len(s) for s in sequences])
        ids = np.array([t for s in sequences for t in s], dtype=np.int64)
        for orders, policy in ((1, "closest"), (4, "closest"), (5, "shortest")):
            rows = ngram_statistics(ids, lengths, segments, np.array(owner), orders, policy, systems)
            for index, hypothesis in enumerate(hypotheses):
                group = [r for r, o in zip(references, owner) if o == index % segments]
                assert rows[index].tolist() == counted_row(hypothesis, group, orders, policy)


def test_a_comparison_of_empty_systems():
    result = compare({"a": ["", ""], "b": ["", ""]}, [[""], [""]], samples=10)
    assert [system["bleu"] for system in result["systems"]] == [0.0, 0.0]


def test_sorted_codes_and_sort_order():
    values = np.array([5, 3, 5, 0, 3, 9], dtype=np.int64)
    codes, distinct = sorted_codes(values)
    assert codes.tolist() == [2, 1, 2, 0, 1, 3] and distinct.tolist() == [0, 3, 5, 9]
    order, ordered = sort_order(values)
    assert order.tolist() == [3, 1, 4, 0, 2, 5] and ordered.tolist() == [0, 3, 3, 5, 5, 9]  # stable
    big = np.array([2**62, -1, 2**62, 7], dtype=np.int64)  # too wide to pack: the argsort way
    assert sorted_codes(big)[0].tolist() == [2, 0, 2, 1]
    assert sort_order(big)[0].tolist() == [1, 3, 0, 2]
    assert sorted_codes(np.zeros(0, dtype=np.int64))[0].size == 0

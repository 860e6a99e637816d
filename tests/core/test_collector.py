"""Scoring leaves Python's garbage collector alone (the Space scores in threads, and switching the
collector off is process-wide), and still leaves it nothing per segment to walk, which is what kept
large corpora linear (bench/bench_gc.py measures the time)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import bleukit.core as bleu_core
from bleukit.significance.compare import compare
from bleukit.inputs import SingleReferences, validate_inputs
from bleukit.streaming import BleuAccumulator, statistics

SEGMENTS = 20_000


def corpora():
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(50)]
    lines = [" ".join(rng.choice(words, size=int(rng.integers(3, 12)))) for _ in range(SEGMENTS)]
    ids = [rng.integers(0, 500, size=int(rng.integers(3, 12))).tolist() for _ in range(SEGMENTS)]
    return {
        "text, one reference each": (lines, lines[::-1]),
        "text, lists of two": (lines, [[a, b] for a, b in zip(lines[::-1], lines)]),
        "ids, one reference each": (ids, ids[::-1]),
        "ids, lists of two": (ids, [[a, b] for a, b in zip(ids[::-1], ids)]),
        "ids as NumPy arrays": ([np.asarray(i) for i in ids], [np.asarray(i) for i in ids[::-1]]),
        "ids with -100 padding": ([i + [-100, -100] for i in ids], ids[::-1]),
    }


@pytest.mark.parametrize("name", list(corpora()))
def test_checking_leaves_nothing_per_segment_for_the_collector(name):
    predictions, references = corpora()[name]
    gc.collect()
    before = len(gc.get_objects())
    checked = validate_inputs(predictions, references)
    gc.collect()  # tuples of ints or strings are untracked here
    assert len(gc.get_objects()) - before < 50, "a container per segment survives the checks"
    preds, refs, _ = checked
    assert len(preds) == len(refs) == SEGMENTS
    if "one reference" in name:
        assert isinstance(refs, SingleReferences) and refs[7] == (references[7],) and len(refs[5:9]) == 4


def test_scoring_never_switches_the_collector_off(monkeypatch, bleu):
    switched = []
    monkeypatch.setattr(gc, "disable", lambda: switched.append("disable"))
    monkeypatch.setattr(gc, "freeze", lambda: switched.append("freeze"))
    lines = corpora()["text, one reference each"]
    ids = corpora()["ids, lists of two"]
    assert gc.isenabled()
    results = [
        bleu_core.compute_bleu(*lines, bootstrap_samples=10),
        bleu.compute(predictions=ids[0], references=ids[1]),
        statistics(*lines),
        compare({"a": lines[0][:500], "b": lines[1][:500]}, lines[1][:500], samples=20),
    ]
    running = BleuAccumulator()
    running.add(*lines)
    assert switched == [] and gc.isenabled() and results[0]["bleu"] == running.result()["bleu"]


def test_the_single_reference_view_scores_like_lists_of_one():
    lines, _ = corpora()["text, one reference each"]
    references = [line.rsplit(" ", 1)[0] for line in lines]  # each line without its last word
    view = bleu_core.compute_bleu(lines, references, return_sentence_scores=True)
    wrapped = bleu_core.compute_bleu(lines, [[r] for r in references], return_sentence_scores=True)
    assert view == wrapped and 0 < view["bleu"] < 1

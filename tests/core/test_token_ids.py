"""Token ids in, no text: the same core scores them, through evaluate.load as well.

The oracle is the text path itself: map each 13a token to an integer (any one-to-one map), and
BLEU on the ids must equal BLEU on the text, every key, because both count the same n-grams.
"""

from __future__ import annotations

import math

import pytest

import bleukit.core as bleu_core
from bleukit.tokenizers.registry import Tokenizer13a
from conftest import METRIC_PATH, wmt17_lines

KEYS = ("bleu", "precisions", "brevity_penalty", "length_ratio", "translation_length", "reference_length")


def to_ids(lines, vocabulary):
    """13a tokens as integers, numbered in order of first appearance (a made-up tokenizer)."""
    tokenize = Tokenizer13a()
    return [[vocabulary.setdefault(token, len(vocabulary) * 7 + 3) for token in tokenize(line)] for line in lines]


@pytest.fixture(scope="module")
def corpus():
    """200 WMT17 segments with two references each: the reference and another system's output."""
    hypotheses = wmt17_lines("uedin-nmt.4722.de")[:200]
    references = [list(pair) for pair in zip(wmt17_lines("newstest2017-ende.ref.de")[:200],
                                             wmt17_lines("online-B.0.de")[:200])]
    vocabulary: dict = {}
    hyp_ids = to_ids(hypotheses, vocabulary)
    ref_ids = [to_ids(group, vocabulary) for group in references]
    return hypotheses, references, hyp_ids, ref_ids


def assert_same_scores(ours, expected):
    for key in KEYS:
        got, want = ours[key], expected[key]
        pairs = zip(got, want) if key == "precisions" else [(got, want)]
        for g, w in pairs:
            assert math.isclose(g, w, rel_tol=1e-12, abs_tol=0.0), (key, got, want)


@pytest.mark.parametrize("options", [{}, {"smooth": "exp", "effective_order": True}, {"max_order": 2},
                                     {"ref_length": "shortest", "smooth": True}])
def test_ids_score_like_the_text_they_encode(corpus, options):
    hypotheses, references, hyp_ids, ref_ids = corpus
    text = bleu_core.compute_bleu(hypotheses, references, return_sentence_scores=True, **options)
    ids = bleu_core.compute_bleu(hyp_ids, ref_ids, return_sentence_scores=True, **options)
    assert_same_scores(ids, text)
    assert ids["sentence_bleu"] == pytest.approx(text["sentence_bleu"], rel=1e-12, abs=0)
    # one reference each, given bare
    single_text = bleu_core.compute_bleu(hypotheses, [g[0] for g in references], **options)
    single_ids = bleu_core.compute_bleu(hyp_ids, [g[0] for g in ref_ids], **options)
    assert_same_scores(single_ids, single_text)
    assert single_ids["signature"].split("|")[3] == "tok:ids"


def test_through_evaluate_load_with_the_token_ids_config(corpus):
    import evaluate

    hypotheses, references, hyp_ids, ref_ids = corpus
    expected = bleu_core.compute_bleu(hypotheses, references)
    metric = evaluate.load(str(METRIC_PATH), config_name="token_ids")
    assert_same_scores(metric.compute(predictions=hyp_ids, references=ref_ids), expected)
    # streaming goes through evaluate's Arrow cache with the int64 features
    for start in range(0, len(hyp_ids), 64):
        metric.add_batch(predictions=hyp_ids[start : start + 64], references=ref_ids[start : start + 64])
    assert_same_scores(metric.compute(), expected)
    with pytest.raises(TypeError, match=r"predictions\[0\] is str; with token ids, pass a list of integers"):
        metric.compute(predictions=hypotheses, references=references)


def test_through_evaluate_load_default_config_detects_ids(bleu, corpus):
    hypotheses, references, hyp_ids, ref_ids = corpus
    expected = bleu_core.compute_bleu(hypotheses, references)
    assert_same_scores(bleu.compute(predictions=hyp_ids, references=ref_ids), expected)
    bleu.add_batch(predictions=hyp_ids[:100], references=ref_ids[:100])
    bleu.add_batch(predictions=hyp_ids[100:], references=ref_ids[100:])
    assert_same_scores(bleu.compute(), expected)
    single = bleu_core.compute_bleu(hypotheses, [g[0] for g in references])
    for prediction, group in zip(hyp_ids, ref_ids):
        bleu.add(prediction=prediction, reference=group[0])
    assert_same_scores(bleu.compute(), single)


def test_ids_path_with_numpy_arrays_and_a_tensor_batch(corpus):
    import numpy as np
    import torch

    _, _, hyp_ids, ref_ids = corpus
    expected = bleu_core.compute_bleu(hyp_ids[:20], [g[0] for g in ref_ids[:20]])
    as_arrays = bleu_core.compute_bleu([np.array(h, dtype=np.int64) for h in hyp_ids[:20]],
                                       [np.array(g[0], dtype=np.int32) for g in ref_ids[:20]])
    assert_same_scores(as_arrays, expected)
    # an unpadded 2-D tensor (equal lengths) is a list of id lists too
    short = [h[:3] for h in hyp_ids[:20]]
    refs = [g[0][:4] for g in ref_ids[:20]]
    assert_same_scores(bleu_core.compute_bleu(torch.tensor(short), torch.tensor(refs)),
                       bleu_core.compute_bleu(short, refs))


def test_lowercase_is_refused_for_ids():
    with pytest.raises(ValueError, match="lowercase=True applies to text"):
        bleu_core.compute_bleu([[1, 2, 3]], [[1, 2, 3]], lowercase=True)

"""bleukit.tensor.scores (BLEU of padded token-id tensors) against the text path, sacreBLEU and the list-of-ids
statistics: random batches with left, right and scattered padding, 1 to 4 references per segment
(some reference rows all padding), every smoothing method, orders 1..6, small and huge ids. The
padding is named as everywhere else (`ignore_ids`, see bleukit.token_ids; `pad_id` is its alias)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import bleukit.tensor.scores as bleu_tensor  # noqa: E402
from bleukit.core import compute_bleu  # noqa: E402
from bleukit.options import SMOOTH_NAMES  # noqa: E402
from bleukit.integrations.reward import make_reward_function  # noqa: E402
from bleukit.streaming import score_from_statistics  # noqa: E402
from bleukit.streaming import PROVENANCE, with_provenance  # noqa: E402
from bleukit.streaming import statistics as list_statistics  # noqa: E402
from bleukit.token_ids import TokenIdRule  # noqa: E402
from conftest import REPO  # noqa: E402
from devices import DeviceWithoutFloat64  # noqa: E402

HUGE_IDS = 2**40  # beyond int32 (and far beyond any product of the ids that int64 could hold)


def make_batch(seed: int, segments: int, length: int, max_refs: int, pool, pad_id: int, padding: str,
               two_dims: bool = False):
    """A padded batch and the same ids as lists: (predictions (B, L), references (B, R, L) or (B, L)
    when `two_dims`, prediction id lists, reference groups without the all-padding rows).

    Hypotheses are noisy copies of their first reference, so higher orders match too; `pool` holds
    the ids to draw from (a few values: many repeats). `padding` is right, left or scattered (pad
    positions anywhere in the row)."""
    rng = np.random.default_rng(seed)
    placer = np.random.default_rng(seed + 1)  # its own stream: the tokens do not depend on the padding
    pool = np.asarray(pool, dtype=np.int64)
    refs_per_row = 1 if two_dims else max_refs
    predictions = np.full((segments, length), pad_id, dtype=np.int64)
    references = np.full((segments, refs_per_row, length), pad_id, dtype=np.int64)
    hyp_lists, ref_groups = [], []

    def place(row: np.ndarray, tokens: np.ndarray) -> None:
        count = len(tokens)
        if padding == "right":
            row[:count] = tokens
        elif padding == "left":
            row[length - count:] = tokens
        else:
            row[np.sort(placer.choice(length, size=count, replace=False))] = tokens

    for segment in range(segments):
        present = 1 if two_dims else int(rng.integers(1, max_refs + 1))
        slots = np.sort(rng.choice(refs_per_row, size=present, replace=False))  # absent rows in between
        group = []
        for slot in slots:
            tokens = rng.choice(pool, size=int(rng.integers(1, length + 1)))
            place(references[segment, slot], tokens)
            group.append(tokens.tolist())
        hypothesis = np.array(group[0])
        noisy = rng.random(len(hypothesis)) < 0.3
        hypothesis[noisy] = rng.choice(pool, size=int(noisy.sum()))
        hypothesis = hypothesis[: int(rng.integers(0, length + 1))]  # sometimes empty, often shorter
        place(predictions[segment], hypothesis)
        hyp_lists.append(hypothesis.tolist())
        ref_groups.append(group)
    refs = references[:, 0] if two_dims else references
    return torch.from_numpy(predictions), torch.from_numpy(refs), hyp_lists, ref_groups


def as_text(hyp_lists, ref_groups):
    """The ids as space-joined text, for tokenizer="none"."""
    join = lambda ids: " ".join(map(str, ids))  # noqa: E731
    return [join(h) for h in hyp_lists], [[join(r) for r in group] for group in ref_groups]


SMALL = list(range(1, 5))  # 4 ids: many repeated n-grams, many ties
LARGE = [HUGE_IDS + 3, HUGE_IDS * 7 + 1, 2**62 + 5, 2**63 - 2, 0, 12, 2**31, 2**32 + 1]  # pad_id -100 here
BATCHES = {
    "small-right-1ref-2d": dict(seed=1, segments=40, length=12, max_refs=1, pool=SMALL, pad_id=0, padding="right", two_dims=True),
    "small-left-4refs": dict(seed=2, segments=40, length=14, max_refs=4, pool=SMALL, pad_id=0, padding="left"),
    "small-scattered-3refs": dict(seed=3, segments=40, length=10, max_refs=3, pool=SMALL[:3], pad_id=7, padding="scattered"),
    "large-right-2refs": dict(seed=4, segments=40, length=16, max_refs=2, pool=LARGE, pad_id=-100, padding="right"),
    "large-left-4refs": dict(seed=5, segments=30, length=20, max_refs=4, pool=LARGE[:4], pad_id=-100, padding="left"),
}


@pytest.fixture(scope="module", params=sorted(BATCHES))
def batch(request):
    spec = BATCHES[request.param]
    return spec, make_batch(**spec)


@pytest.mark.parametrize("max_order", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("ref_length", ["closest", "shortest"])
def test_statistics_equal_the_list_path_rows_and_sum(batch, max_order, ref_length):
    spec, (predictions, references, hyp_lists, ref_groups) = batch
    options = dict(max_order=max_order, ref_length=ref_length)
    expected = list_statistics(hyp_lists, ref_groups, per_segment=True, **options)
    rows = bleu_tensor.statistics(predictions, references, ignore_ids=[spec["pad_id"]], per_segment=True, **options)
    assert rows.dtype == torch.int64 and rows.device == predictions.device
    assert rows.shape == expected.shape
    np.testing.assert_array_equal(rows.numpy(), expected)
    totals = bleu_tensor.statistics(predictions, references, ignore_ids=[spec["pad_id"]], **options)
    np.testing.assert_array_equal(totals.numpy(), expected.sum(axis=0))
    assert expected[:, 2 + max_order - 1].sum() > 0 or max_order > 3  # the batches really match n-grams


def torch_rows(predictions, references, pad_id, orders, ref_length="closest"):
    """The torch counting (what runs on a GPU), run here on the CPU tensors, with the three columns
    every row of token-id statistics ends with (1, r, r * r; see bleukit.streaming)."""
    checked = bleu_tensor.check_inputs(predictions, references, TokenIdRule(frozenset({pad_id})))
    rows = bleu_tensor.segment_statistics(*checked, orders, ref_length)
    return torch.from_numpy(with_provenance(rows.numpy(), bleu_tensor.reference_counts(checked[1])))


@pytest.mark.parametrize("orders", [1, 2, 4, 6])
@pytest.mark.parametrize("ref_length", ["closest", "shortest"])
def test_the_torch_counting_gives_the_same_rows(batch, orders, ref_length):
    spec, (predictions, references, hyp_lists, ref_groups) = batch
    expected = list_statistics(hyp_lists, ref_groups, per_segment=True, max_order=orders, ref_length=ref_length)
    rows = torch_rows(predictions, references, spec["pad_id"], orders, ref_length)
    assert rows.dtype == torch.int64
    np.testing.assert_array_equal(rows.numpy(), expected)


@pytest.mark.parametrize("extra_prediction_columns, extra_reference_columns", [(0, 7), (9, 0), (3, 1)])
def test_the_torch_counting_is_unchanged_by_extra_padding_columns(batch, extra_prediction_columns,
                                                                  extra_reference_columns):
    """Predictions and references of different widths (the counting stacks them in one tensor as
    wide as the wider): padding columns on the left of one side and the right of the other change
    no row."""
    spec, (predictions, references, hyp_lists, ref_groups) = batch
    pad_id = spec["pad_id"]
    wider_predictions = torch.nn.functional.pad(predictions, (extra_prediction_columns, 0), value=pad_id)
    wider_references = torch.nn.functional.pad(references, (0, extra_reference_columns), value=pad_id)
    expected = list_statistics(hyp_lists, ref_groups, per_segment=True, max_order=5)
    rows = torch_rows(wider_predictions, wider_references, pad_id, 5)
    np.testing.assert_array_equal(rows.numpy(), expected)


def test_the_torch_counting_refuses_keys_that_would_overflow_int64(monkeypatch):
    """Ids are renumbered 0..V-1 when they are large (the LARGE batches go through that); keys of
    (n-1)-gram code x V that could still overflow are refused, as bleukit.counting.stats refuses them."""
    import bleukit.counting.stats as bleu_stats

    assert bleu_tensor.INT64_KEY_BOUND is bleu_stats.INT64_KEY_BOUND == 2**62  # one bound, defined once
    monkeypatch.setattr(bleu_tensor, "INT64_KEY_BOUND", 1)
    with pytest.raises(ValueError, match="batch too large for 64-bit n-gram keys"):
        torch_rows(PREDICTIONS, REFERENCES, 0, 4)
    monkeypatch.setattr(bleu_stats, "INT64_KEY_BOUND", 1)  # and the NumPy counting of lists and CPU tensors
    with pytest.raises(ValueError, match="batch too large for 64-bit n-gram keys"):
        compute_bleu([[4, 5, 6]], [[4, 5, 6]])


@pytest.mark.parametrize("smooth", SMOOTH_NAMES)
@pytest.mark.parametrize("effective_order", [False, True])
def test_every_smoothing_method_equals_the_text_path(batch, smooth, effective_order):
    spec, (predictions, references, hyp_lists, ref_groups) = batch
    ref_length = "closest" if spec["seed"] % 2 else "shortest"
    options = dict(smooth=smooth, effective_order=effective_order, ref_length=ref_length)
    text_predictions, text_references = as_text(hyp_lists, ref_groups)
    text = compute_bleu(text_predictions, text_references, tokenizer="none", return_sentence_scores=True, **options)
    scores = bleu_tensor.sentence_bleu(predictions, references, ignore_ids=[spec["pad_id"]], **options)
    assert scores.dtype == torch.float64 and scores.shape == (len(hyp_lists),)
    assert scores.tolist() == pytest.approx(text["sentence_bleu"], rel=1e-12, abs=0)
    assert 0 < max(text["sentence_bleu"]) and min(text["sentence_bleu"]) < 1  # scores spread out
    result = bleu_tensor.corpus_bleu(predictions, references, ignore_ids=[spec["pad_id"]], **options)
    ids = compute_bleu(hyp_lists, ref_groups, **options)  # the list-of-ids path: same signature, tok:ids
    assert result == ids
    assert "|tok:ids|" in result["signature"]
    for key in ("bleu", "brevity_penalty", "length_ratio", "translation_length", "reference_length"):
        assert result[key] == pytest.approx(text[key], rel=1e-12, abs=0), key
    assert result["precisions"] == pytest.approx(text["precisions"], rel=1e-12, abs=0)


@pytest.mark.parametrize("smooth", ["none", "floor", "add-k", "exp"])
@pytest.mark.parametrize("effective_order", [False, True])
@pytest.mark.parametrize("max_order", [2, 4, 6])
def test_sentence_and_corpus_scores_equal_sacrebleu(smooth, effective_order, max_order):
    from sacrebleu.metrics import BLEU

    spec = BATCHES["large-left-4refs" if max_order == 4 else "small-left-4refs"]
    predictions, references, hyp_lists, ref_groups = make_batch(**spec)
    text_predictions, text_references = as_text(hyp_lists, ref_groups)
    metric = BLEU(tokenize="none", smooth_method=smooth, max_ngram_order=max_order, effective_order=effective_order)
    options = dict(smooth=smooth, max_order=max_order, effective_order=effective_order)
    scores = bleu_tensor.sentence_bleu(predictions, references, ignore_ids=[spec["pad_id"]], **options)
    expected = [metric.sentence_score(h, refs).score / 100 for h, refs in zip(text_predictions, text_references)]
    assert scores.tolist() == pytest.approx(expected, rel=1e-12, abs=0)
    width = max(map(len, text_references))
    streams = [[group[k] if k < len(group) else None for group in text_references] for k in range(width)]
    corpus = metric.corpus_score(text_predictions, streams)
    result = bleu_tensor.corpus_bleu(predictions, references, ignore_ids=[spec["pad_id"]], **options)
    assert result["bleu"] == pytest.approx(corpus.score / 100, rel=1e-12, abs=0)
    assert (result["translation_length"], result["reference_length"]) == (corpus.sys_len, corpus.ref_len)


def test_left_right_and_scattered_padding_give_the_same_scores():
    scores = []
    for padding in ("right", "left", "scattered"):
        predictions, references, _, _ = make_batch(11, 30, 15, 3, SMALL, 0, padding)
        rows = bleu_tensor.statistics(predictions, references, ignore_ids=[0], per_segment=True, smooth="method5")
        assert torch.equal(torch_rows(predictions, references, 0, 5), rows)  # method 5 counts 5-grams
        scores.append((rows, bleu_tensor.sentence_bleu(predictions, references, ignore_ids=[0], smooth="method5")))
    for rows, sentence in scores[1:]:
        assert torch.equal(rows, scores[0][0])
        assert torch.equal(sentence, scores[0][1])
    assert 0 < float(scores[0][1].mean()) < 1


def test_a_two_dimensional_reference_equals_one_reference_of_three():
    predictions, references, _, _ = make_batch(**BATCHES["small-right-1ref-2d"])
    flat = bleu_tensor.sentence_bleu(predictions, references, ignore_ids=[0])
    grouped = bleu_tensor.sentence_bleu(predictions, references[:, None, :], ignore_ids=[0])
    assert torch.equal(flat, grouped)
    assert bleu_tensor.corpus_bleu(predictions, references, ignore_ids=[0])["signature"].startswith("nrefs:1|")


def test_known_numbers_on_a_hand_made_batch():
    """Pad 0: [5 6 7 8] against [5 6 7 9] and [5 6 7 8 . . .]: the second matches exactly."""
    predictions = torch.tensor([[5, 6, 7, 8, 0, 0], [0, 0, 3, 3, 3, 3]])
    references = torch.tensor([[[5, 6, 7, 9, 0, 0, 0], [5, 6, 7, 8, 1, 2, 0]],
                               [[3, 3, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0]]])
    rows = bleu_tensor.statistics(predictions, references, ignore_ids=[0], per_segment=True)
    assert torch.equal(torch_rows(predictions, references, 0, 4), rows)
    # [hyp_len, ref_len, matches 1..4, totals 1..4, then 1, r, r * r for r references]; closest of 4
    # and 6 to 4 is 4; 3 3 3 3 clips at 2.
    assert rows.tolist() == [[4, 4, 4, 3, 2, 1, 4, 3, 2, 1, 1, 2, 4], [4, 2, 2, 1, 0, 0, 4, 3, 2, 1, 1, 1, 1]]
    scores = bleu_tensor.sentence_bleu(predictions, references, ignore_ids=[0], smooth="exp")
    assert scores[0].item() == 1.0
    assert scores[1].item() == pytest.approx(math.exp(sum(map(math.log, [2 / 4, 1 / 3, 1 / (2 * 2), 1 / (4 * 1)])) / 4))
    assert bleu_tensor.corpus_bleu(predictions, references, ignore_ids=[0])["signature"].startswith("nrefs:var|")


@pytest.mark.parametrize("predictions, references, hyp_lists, ref_groups", [
    (torch.zeros((3, 5), dtype=torch.long), torch.tensor([[1, 2, 0], [0, 3, 3], [4, 0, 0]]),
     [[], [], []], [[[1, 2]], [[3, 3]], [[4]]]),  # every prediction empty
    (torch.tensor([[9, 9, 9, 9, 9, 9, 9]]), torch.tensor([[[0, 9], [9, 9], [0, 0]]]),
     [[9] * 7], [[[9], [9, 9]]]),  # one segment; references shorter than the prediction row
    (torch.tensor([[0, 0, 8]]), torch.tensor([[[5, 6, 7, 0]]]), [[8]], [[[5, 6, 7]]]),  # nothing matches
])
def test_edge_batches_equal_the_list_path_in_both_countings(predictions, references, hyp_lists, ref_groups):
    expected = list_statistics(hyp_lists, ref_groups, per_segment=True)
    np.testing.assert_array_equal(bleu_tensor.statistics(predictions, references, ignore_ids=[0], per_segment=True).numpy(), expected)
    np.testing.assert_array_equal(torch_rows(predictions, references, 0, 4).numpy(), expected)
    scores = bleu_tensor.sentence_bleu(predictions, references, ignore_ids=[0], smooth="exp", effective_order=True)
    assert scores.tolist() == compute_bleu(hyp_lists, ref_groups, smooth="exp", effective_order=True,
                                           return_sentence_scores=True)["sentence_bleu"]


def test_statistics_score_through_the_streaming_api_and_keep_saying_they_count_ids():
    predictions, references, hyp_lists, ref_groups = make_batch(**BATCHES["small-left-4refs"])
    totals = bleu_tensor.statistics(predictions, references, ignore_ids=[0], smooth="method7")
    expected = compute_bleu(hyp_lists, ref_groups, smooth="method7")
    assert expected["signature"].startswith("nrefs:var|") and "|tok:ids|" in expected["signature"]
    # Given the counts or not, one signature: the sum records that they vary, as compute saw (1 to 4).
    assert score_from_statistics(totals, num_refs=[len(g) for g in ref_groups], smooth="method7") == expected
    alone = score_from_statistics(totals, smooth="method7")
    assert alone == expected and 0 < alone["bleu"] < 1
    one_each = bleu_tensor.statistics(predictions, references[:, 0], ignore_ids=[0])
    assert score_from_statistics(one_each)["signature"] == compute_bleu(hyp_lists, [g[:1] for g in ref_groups])["signature"]


def test_all_reduce_of_tensor_statistics_across_two_gloo_processes(tmp_path):
    pytest.importorskip("torch.distributed")
    from distributed_runs import run_workers

    spec = BATCHES["large-left-4refs"]
    predictions, references, hyp_lists, ref_groups = make_batch(**spec)
    options = {"max_order": 3, "smooth": "method5"}  # rows of 2 + 2 * 4 (method 5 reads one order more)
    data = tmp_path / "data.json"
    data.write_text(json.dumps({"predictions": predictions.tolist(), "references": references.tolist(),
                                "pad_id": spec["pad_id"], "options": options}))
    answers = run_workers(tmp_path, "tensor", 2, [str(tmp_path / "gloo_rendezvous"), str(data)])
    whole = bleu_tensor.statistics(predictions, references, ignore_ids=[spec["pad_id"]], **options)
    assert whole.tolist() == list_statistics(hyp_lists, ref_groups, **options).tolist()
    assert answers[0]["shard"] != whole.tolist()  # each rank really held only a part
    expected = compute_bleu(hyp_lists, ref_groups, **options)
    for answer in answers:
        assert answer["dtype"] == "torch.int64"
        assert answer["totals"] == whole.tolist()
        # The all-reduced sum still signs tok:ids, and that the number of references varies (1 to 4).
        assert answer["signature"] == expected["signature"] and expected["signature"].startswith("nrefs:var|")
        assert "|tok:ids|" in answer["signature"] and answer["bleu"] == expected["bleu"]


PREDICTIONS = torch.tensor([[4, 5, 6, 0], [7, 8, 0, 0]])
REFERENCES = torch.tensor([[[4, 5, 6, 0], [0, 0, 0, 0]], [[7, 8, 9, 0], [7, 0, 0, 0]]])


@pytest.mark.parametrize(
    "predictions, references, padding, error, message",
    [
        ([[4, 5]], REFERENCES, {"ignore_ids": [0]}, TypeError, "predictions is list"),
        (PREDICTIONS.int(), REFERENCES, {"ignore_ids": [0]}, TypeError, "predictions has dtype torch.int32"),
        (PREDICTIONS, REFERENCES.float(), {"ignore_ids": [0]}, TypeError, "references has dtype torch.float32"),
        (PREDICTIONS[0], REFERENCES, {"ignore_ids": [0]}, ValueError, "predictions has shape (4,)"),
        (PREDICTIONS, REFERENCES[:, :, :, None], {"ignore_ids": [0]}, ValueError, "references has shape (2, 2, 4, 1)"),
        (PREDICTIONS, REFERENCES[:1], {"ignore_ids": [0]}, ValueError, "predictions has 2 rows but references has 1"),
        (PREDICTIONS, REFERENCES, {}, TypeError, "bleukit.tensor needs to know which ids are padding: pass ignore_ids="),
        (PREDICTIONS, REFERENCES, {"ignore_ids": 0}, TypeError, "ignore_ids must be a collection of integer token ids"),
        (PREDICTIONS, REFERENCES, {"ignore_ids": [0.0]}, TypeError, "ignore_ids must hold integer token ids"),
        (PREDICTIONS, REFERENCES, {"pad_id": 0.0}, TypeError, "pad_id must be an integer"),
        (PREDICTIONS, REFERENCES, {"pad_id": True}, TypeError, "pad_id must be an integer"),
        (PREDICTIONS, torch.tensor([[[4, 0], [0, 0]], [[0, 0], [0, 0]]]), {"ignore_ids": [0]}, ValueError,
         "segment 1 has no reference: every reference row of references[1] is all padding (negative ids or in ignore_ids=[0])"),
        (PREDICTIONS, torch.tensor([[[4, 0], [0, 0]], [[2, -100], [-1, 0]]]), {"ignore_ids": [0, 2]}, ValueError,
         "segment 1 has no reference"),  # </s> alone is no reference in a (B, R, L) tensor
        (PREDICTIONS[:0], REFERENCES[:0], {"ignore_ids": [0]}, ValueError, "predictions is empty"),
    ],
)
def test_bad_inputs_are_named_before_any_work(predictions, references, padding, error, message):
    for function in (bleu_tensor.statistics, bleu_tensor.sentence_bleu, bleu_tensor.corpus_bleu):
        with pytest.raises(error) as raised:
            function(predictions, references, **padding)
        assert message in str(raised.value)


def test_negative_ids_are_padding_and_pad_id_is_an_alias_of_ignore_ids():
    """The token-id rule: every negative id is dropped wherever it stands, whatever else is named."""
    scattered = torch.tensor([[4, -3, 5, 6, 0], [-1, 7, 8, 0, -7]])
    references = torch.tensor([[[4, 5, 6, -2], [-100, 0, 0, 0]], [[7, 8, 9, 0], [7, 0, -5, 0]]])
    expected = bleu_tensor.statistics(PREDICTIONS, REFERENCES, ignore_ids=[0], per_segment=True)
    for padding in ({"ignore_ids": [0]}, {"ignore_ids": (0,)}, {"pad_id": 0}, {"pad_id": 0, "ignore_ids": [0]},
                    {"ignore_ids": torch.tensor([0])}):
        assert torch.equal(bleu_tensor.statistics(scattered, references, per_segment=True, **padding), expected), padding
        assert torch.equal(torch_rows(scattered, references, 0, 4), expected)
    # The hand count: [4 5 6] against [4 5 6]; [7 8] against [7 8 9] and [7].
    assert expected.tolist() == [[3, 3, 3, 2, 1, 0, 3, 2, 1, 0, 1, 1, 1], [2, 1, 2, 1, 0, 0, 2, 1, 0, 0, 1, 2, 4]]
    # pad_id and ignore_ids together drop both.
    both = bleu_tensor.statistics(PREDICTIONS, REFERENCES, pad_id=0, ignore_ids=[8], per_segment=True)
    assert both[1].tolist()[:3] == [1, 1, 1]  # [7] alone, against the reference [7]


def test_a_two_dimensional_reference_row_of_padding_is_one_empty_reference():
    """In (B, L2) each row is the segment's one reference: all padding is an empty reference, as an
    empty list is for bleu.compute on lists (and '' for sacreBLEU)."""
    from sacrebleu.metrics import BLEU

    predictions = torch.tensor([[4, 5, 6, 0], [7, 8, 0, 0], [9, 0, 0, 0]])
    references = torch.tensor([[4, 5, 6, 0], [-100, -100, 0, -100], [9, 9, 0, 0]])
    hyp_lists, ref_lists = [[4, 5, 6], [7, 8], [9]], [[4, 5, 6], [], [9, 9]]
    rows = bleu_tensor.statistics(predictions, references, ignore_ids=[0], per_segment=True)
    np.testing.assert_array_equal(rows.numpy(), list_statistics(hyp_lists, ref_lists, per_segment=True))
    np.testing.assert_array_equal(torch_rows(predictions, references, 0, 4).numpy(), rows.numpy())
    assert rows[1].tolist() == [2, 0, 0, 0, 0, 0, 2, 1, 0, 0, 1, 1, 1]
    result = bleu_tensor.corpus_bleu(predictions, references, ignore_ids=[0], smooth="floor")
    assert result["signature"].startswith("nrefs:1|") and result["reference_length"] == 5
    text = [" ".join(map(str, ids)) for ids in hyp_lists], [" ".join(map(str, ids)) for ids in ref_lists]
    sacre = BLEU(tokenize="none", smooth_method="floor").corpus_score(text[0], [text[1]])
    assert result["bleu"] == pytest.approx(sacre.score / 100, rel=1e-12) and (sacre.sys_len, sacre.ref_len) == (6, 5)


def test_pad_id_minus_100_accepts_the_labels_padding():
    predictions = PREDICTIONS.masked_fill(PREDICTIONS == 0, -100)  # with pad_id=-100, 0 is a token
    labels = torch.tensor([[-100, 4, 5, 6], [7, 8, 9, -100]])
    scores = bleu_tensor.sentence_bleu(predictions, labels, ignore_ids=[-100], smooth="floor", effective_order=True)
    expected = bleu_tensor.sentence_bleu(PREDICTIONS, REFERENCES[:, 0], ignore_ids=[0], smooth="floor", effective_order=True)
    assert torch.equal(scores, expected)
    # [4 5 6] equals its reference; [7 8] matches 2 of 2 unigrams and 1 of 1 bigram of [7 8 9]: BP exp(1 - 3/2)
    assert scores.tolist() == [1.0, pytest.approx(math.exp(1 - 3 / 2), rel=1e-15)]
    with_zero = bleu_tensor.sentence_bleu(PREDICTIONS, labels, ignore_ids=[-100], smooth="floor", effective_order=True)
    assert (with_zero < scores).all()  # the 0s now count as (unmatched) tokens


@pytest.mark.parametrize("options, message", [
    ({"tokenizer": "13a"}, "tokenizer='13a' applies to text"),
    ({"lowercase": True}, "lowercase=True applies to text"),
    ({"smooth": "method9"}, "unknown smooth 'method9'"),
    ({"per_segment": 1}, "per_segment must be True or False"),
])
def test_options_that_do_not_apply_to_ids_are_rejected(options, message):
    with pytest.raises((TypeError, ValueError)) as raised:
        bleu_tensor.statistics(PREDICTIONS, REFERENCES, ignore_ids=[0], **options)
    assert message in str(raised.value)


def test_the_package_imports_and_scores_without_torch():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import bleukit.tensor, bleukit.streaming\n"
        "print(bleukit.streaming.statistics([[1, 2, 3]], [[1, 2, 3]]).tolist())\n"
        "try:\n    bleukit.tensor.statistics([[1]], [[1]], ignore_ids=[0])\n"
        "except ImportError as error:\n    print(error)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["[3, 3, 3, 2, 1, 0, 3, 2, 1, 0, 1, 1, 1]",
                                       "bleukit.tensor needs PyTorch for tensor inputs; install torch, or pass lists "
                                       "of token ids to the metric's compute instead"]


def test_predictions_and_references_on_different_devices_are_rejected():
    meta = torch.empty((2, 4), dtype=torch.long, device="meta")
    with pytest.raises(ValueError, match="predictions are on cpu but references on meta"):
        bleu_tensor.statistics(PREDICTIONS, meta, ignore_ids=[0])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_on_cuda_everything_stays_on_the_device_and_equals_the_cpu_numbers():
    spec = BATCHES["large-left-4refs"]
    predictions, references, _, _ = make_batch(**spec)
    gpu_predictions, gpu_references = predictions.cuda(), references.cuda()
    rows = bleu_tensor.statistics(gpu_predictions, gpu_references, ignore_ids=[spec["pad_id"]], per_segment=True)
    scores = bleu_tensor.sentence_bleu(gpu_predictions, gpu_references, ignore_ids=[spec["pad_id"]], smooth="exp")
    assert rows.is_cuda and rows.dtype == torch.int64
    assert scores.is_cuda and scores.dtype == torch.float64
    pad_id = spec["pad_id"]
    assert torch.equal(rows.cpu(), bleu_tensor.statistics(predictions, references, ignore_ids=[pad_id], per_segment=True))
    assert torch.equal(scores.cpu(), bleu_tensor.sentence_bleu(predictions, references, ignore_ids=[pad_id], smooth="exp"))
    with pytest.raises(ValueError, match="predictions are on cuda:0 but references on cpu"):
        bleu_tensor.statistics(gpu_predictions, references, ignore_ids=[spec["pad_id"]])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_on_cuda_the_counting_waits_for_the_device_once():
    """Only the largest id (it decides the key packing) is read back while counting; the orders
    queue their kernels without waiting, which is what keeps small batches fast on a GPU. (Small
    ids: the huge ids of the LARGE batches are renumbered first, a second wait.)"""
    import warnings

    spec = BATCHES["small-left-4refs"]
    predictions, references, _, _ = make_batch(**spec)
    checked = bleu_tensor.check_inputs(predictions.cuda(), references.cuda(), TokenIdRule(frozenset({spec["pad_id"]})))
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rows = bleu_tensor.segment_statistics(*checked, 4)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    waits = [str(w.message) for w in caught if "synchroniz" in str(w.message)]
    assert len(waits) == 1, waits
    assert torch.equal(rows.cpu(), torch_rows(predictions, references, spec["pad_id"], 4)[:, : -len(PROVENANCE)])


def test_the_metric_loaded_by_evaluate_exposes_the_tensor_functions(bleu):
    predictions, references, hyp_lists, ref_groups = make_batch(**BATCHES["small-left-4refs"])
    expected = bleu.compute(predictions=hyp_lists, references=ref_groups, smooth="exp", return_sentence_scores=True)
    scores = bleu.tensor_sentence_bleu(predictions, references, ignore_ids=[0], smooth="exp")
    assert scores.tolist() == expected.pop("sentence_bleu")
    assert bleu.tensor_corpus_bleu(predictions, references, ignore_ids=[0], smooth="exp") == expected
    rows = bleu.tensor_statistics(predictions, references, ignore_ids=[0], per_segment=True)
    assert rows.tolist() == bleu.statistics(hyp_lists, ref_groups, per_segment=True).tolist()


def test_on_a_device_without_float64_sentence_scores_come_back_as_float32():
    spec = BATCHES["small-left-4refs"]
    predictions, references, hyp_lists, ref_groups = make_batch(**spec)
    expected = compute_bleu(hyp_lists, ref_groups, smooth="exp", return_sentence_scores=True)
    reward = make_reward_function(reference_column="references", token_ids=True, ignore_ids=[0], smooth="exp",
                                  effective_order=False)
    with DeviceWithoutFloat64():
        assert not bleu_tensor.has_float64(predictions.device)
        scores = bleu_tensor.sentence_bleu(predictions, references, ignore_ids=[0], smooth="exp")
        result = bleu_tensor.corpus_bleu(predictions, references, ignore_ids=[0], smooth="exp")
        rows = bleu_tensor.statistics(predictions, references, ignore_ids=[0], per_segment=True)
        rewards = reward(completion_ids=predictions, references=references)  # the TRL reward on such tensors
    assert rewards == expected["sentence_bleu"]
    assert scores.dtype == torch.float32 and scores.device == predictions.device
    assert scores.tolist() == np.float32(expected.pop("sentence_bleu")).tolist()  # the float64 scores, rounded once
    assert result == expected and rows.dtype == torch.int64
    assert bleu_tensor.has_float64(predictions.device)  # outside the stand-in, the CPU has float64 ...
    assert bleu_tensor.sentence_bleu(predictions, references, ignore_ids=[0]).dtype == torch.float64  # ... and gets it

"""One rule for token ids (bleukit.token_ids), the same at every entry point: every negative id and
every id in `ignore_ids` is dropped wherever it stands, before counting.

One raw batch, as a training loop has it (a decoder start, <s> and <pad> inside rows, </s>, -100
label padding, left and right padding, a label that is only </s>), goes through every entry point
with the same keyword; the oracle is sacreBLEU with tokenize="none" on the ids stripped by hand and
joined by spaces."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import BLEU

torch = pytest.importorskip("torch")

import bleukit.tensor.scores as bleu_tensor  # noqa: E402
from bleukit.streaming import BleuAccumulator, score_from_statistics, statistics  # noqa: E402
from tiny_seq2seq import make_tokenizer  # noqa: E402

# <pad> 0, <s> 1, </s> 2, <unk> 3 (tests/tiny_seq2seq.py); words from 4.
SPECIALS = [0, 1, 2, 3]
PREDICTIONS = [
    [2, 1, 4, 5, 0, 6, 2, 0],  # decoder start, <s>, a <pad> inside, </s>, right padding
    [0, 0, 7, 8, 9, 2, -100, -100],  # left padding, and the -100 a Trainer pads gathered batches with
    [4, 4, 4, 2, 0, 0, 0, 0],
    [2, 10, 11, 12, 13, 2, 0, 0],
]
LABELS = [
    [4, 5, 7, 6, 2, -100, -100],
    [7, 8, 9, 2, -100, -100, -100],
    [4, 5, 2, -100, -100, -100, -100],
    [2, -100, -100, -100, -100, -100, -100],  # an empty target: only </s>
]
STRIPPED_PREDICTIONS = [[4, 5, 6], [7, 8, 9], [4, 4, 4], [10, 11, 12, 13]]
STRIPPED_LABELS = [[4, 5, 7, 6], [7, 8, 9], [4, 5], []]
OPTIONS = {"max_order": 2}  # so that the short rows match at every order


def joined(rows):
    return [" ".join(map(str, row)) for row in rows]


@pytest.fixture(scope="module")
def oracle():
    """sacreBLEU on the hand-stripped ids: corpus score, and the reward's sentence scores."""
    hypotheses, references = joined(STRIPPED_PREDICTIONS), joined(STRIPPED_LABELS)
    corpus = BLEU(tokenize="none", max_ngram_order=2).corpus_score(hypotheses, [references])
    sentence = BLEU(tokenize="none", effective_order=True)  # the reward's defaults: smooth exp, effective order
    return {
        "bleu": corpus.score / 100, "lengths": (corpus.sys_len, corpus.ref_len),
        "sentence_bleu": [sentence.sentence_score(h, [r]).score / 100 for h, r in zip(hypotheses, references)],
    }


def assert_corpus(result, oracle):
    assert result["bleu"] == pytest.approx(oracle["bleu"], rel=1e-12)
    assert (result["translation_length"], result["reference_length"]) == oracle["lengths"] == (13, 9)
    assert "|tok:ids|" in result["signature"]


def test_the_oracle_numbers(oracle):
    """Row 1 is an exact copy; row 3's reference is empty (nothing matches, brevity penalty 1)."""
    assert oracle["bleu"] == pytest.approx(0.4236592728681617, rel=1e-12)
    assert oracle["sentence_bleu"] == pytest.approx([0.4513864405503390, 1.0, 0.2751606040745522, 0.0], rel=1e-12)


def test_compute_on_id_lists(bleu, oracle):
    result = bleu.compute(predictions=PREDICTIONS, references=LABELS, ignore_ids=SPECIALS, **OPTIONS)
    assert_corpus(result, oracle)
    assert result == bleu.compute(predictions=STRIPPED_PREDICTIONS, references=STRIPPED_LABELS, **OPTIONS)
    # Through evaluate's cache (add_batch), with the rule given at compute.
    bleu.add_batch(predictions=PREDICTIONS[:2], references=LABELS[:2])
    bleu.add_batch(predictions=PREDICTIONS[2:], references=LABELS[2:])
    assert bleu.compute(ignore_ids=SPECIALS, **OPTIONS) == result
    # pad_id is an alias of one id: with only the padding named, </s> and <s> count as tokens.
    only_pad = bleu.compute(predictions=PREDICTIONS, references=LABELS, pad_id=0, **OPTIONS)
    assert only_pad == bleu.compute(predictions=PREDICTIONS, references=LABELS, ignore_ids=[0], **OPTIONS)
    assert only_pad["translation_length"] == 13 + 7  # six </s> (decoder starts among them) and one <s>


def test_statistics_and_the_accumulator(bleu, oracle):
    rows = statistics(PREDICTIONS, LABELS, per_segment=True, ignore_ids=SPECIALS, **OPTIONS)
    np.testing.assert_array_equal(rows, statistics(STRIPPED_PREDICTIONS, STRIPPED_LABELS, per_segment=True, **OPTIONS))
    assert score_from_statistics(rows.sum(axis=0), **OPTIONS)["bleu"] == pytest.approx(oracle["bleu"], rel=1e-12)
    running = BleuAccumulator(ignore_ids=SPECIALS, **OPTIONS)
    running.add(PREDICTIONS[:3], LABELS[:3])
    running.add(PREDICTIONS[3:], LABELS[3:])
    assert_corpus(running.result(), oracle)
    through_the_metric = bleu.accumulator(pad_id=0, ignore_ids=SPECIALS, **OPTIONS)
    through_the_metric.add(PREDICTIONS, LABELS)
    assert through_the_metric.result() == running.result()


def test_bleu_tensor(oracle):
    predictions, labels = torch.tensor(PREDICTIONS), torch.tensor(LABELS)
    result = bleu_tensor.corpus_bleu(predictions, labels, ignore_ids=SPECIALS, **OPTIONS)
    assert_corpus(result, oracle)
    assert result["signature"].startswith("nrefs:1|")
    rows = bleu_tensor.statistics(predictions, labels, ignore_ids=SPECIALS, per_segment=True, **OPTIONS)
    np.testing.assert_array_equal(rows.numpy(), statistics(STRIPPED_PREDICTIONS, STRIPPED_LABELS, per_segment=True, **OPTIONS))
    checked = bleu_tensor.check_inputs(predictions, labels, bleu_tensor.token_id_rule(SPECIALS))
    counted = bleu_tensor.segment_statistics(*checked, 2).numpy()  # the GPU counting, without the provenance columns
    np.testing.assert_array_equal(counted, rows.numpy()[:, :-3])


def test_the_trainer_hook_drops_its_tokenizer_special_ids(bleu, oracle):
    tokenizer = make_tokenizer()
    assert sorted(tokenizer.all_special_ids) == SPECIALS
    expected = bleu.compute(predictions=STRIPPED_PREDICTIONS, references=STRIPPED_LABELS, **OPTIONS)
    hook = bleu.trainer_compute_metrics(tokenizer, token_ids=True, **OPTIONS)
    for batch in ((np.array(PREDICTIONS), np.array(LABELS)), (torch.tensor(PREDICTIONS), torch.tensor(LABELS))):
        flat = hook(batch)
        assert flat["bleu"] == expected["bleu"] and flat["reference_length"] == 9.0
        assert flat["bleu"] == pytest.approx(oracle["bleu"], rel=1e-12)
    # ignore_ids adds to the special ids, as everywhere: here the word 4 goes too.
    more = bleu.trainer_compute_metrics(tokenizer, token_ids=True, ignore_ids=[4], **OPTIONS)((np.array(PREDICTIONS), np.array(LABELS)))
    assert more["bleu"] == bleu.compute(predictions=PREDICTIONS, references=LABELS, ignore_ids=SPECIALS + [4], **OPTIONS)["bleu"]
    alias = bleu.trainer_compute_metrics(tokenizer, token_ids=True, pad_id=4, **OPTIONS)((np.array(PREDICTIONS), np.array(LABELS)))
    assert alias == more and more["translation_length"] == 13 - 4  # the four 4s are gone


def test_the_reward_on_lists_and_tensors(bleu, oracle):
    reward = bleu.reward_function(reference_column="reference_ids", token_ids=True, ignore_ids=SPECIALS)
    logged = []
    on_lists = reward(completion_ids=PREDICTIONS, reference_ids=LABELS, log_metric=lambda name, value: logged.append(value))
    assert on_lists == pytest.approx(oracle["sentence_bleu"], rel=1e-12)
    on_tensors = reward(completion_ids=torch.tensor(PREDICTIONS), reference_ids=torch.tensor(LABELS))
    assert on_tensors == on_lists
    expected = bleu.compute(predictions=STRIPPED_PREDICTIONS, references=STRIPPED_LABELS, smooth="exp",
                            effective_order=True, return_sentence_scores=True)
    assert on_lists == expected["sentence_bleu"] and logged == [expected["bleu"]]
    # The reward's alias works the same way.
    assert bleu.reward_function(reference_column="reference_ids", token_ids=True, pad_id=0, ignore_ids=SPECIALS)(
        completion_ids=PREDICTIONS, reference_ids=LABELS) == on_lists


def test_ignore_ids_with_text_is_an_error_everywhere(bleu, tmp_path):
    message = r"ignore_ids=\[2\] applies to token ids"
    with pytest.raises(ValueError, match=message):
        bleu.compute(predictions=["a b"], references=["a b"], ignore_ids=[2])
    with pytest.raises(ValueError, match=message):
        statistics(["a b"], ["a b"], ignore_ids=[2])
    with pytest.raises(ValueError, match=message):
        BleuAccumulator(pad_id=2).add(["a b"], ["a b"])
    with pytest.raises(ValueError, match=message):
        bleu.trainer_compute_metrics(make_tokenizer(), ignore_ids=[2])
    with pytest.raises(ValueError, match=message):
        bleu.reward_function(pad_id=2)
    with pytest.raises(TypeError, match="ignore_ids must be a collection of integer token ids"):
        bleu.compute(predictions=[[1]], references=[[1]], ignore_ids=2)


# ---------------------------------------------------------------- statistics of token ids say so


def test_token_id_statistics_sign_tok_ids_and_nrefs_however_they_are_summed(bleu):
    """The provenance is in the numbers (three more columns: 1, r, r * r per segment), so every way
    of adding rows keeps it: NumPy, torch, shards, an all-reduce (tests/test_tensor.py), plain ints."""
    rows = statistics(PREDICTIONS, LABELS, per_segment=True, ignore_ids=SPECIALS, **OPTIONS)
    assert rows.shape == (4, 2 + 2 * 2 + 3) and rows[:, -3:].tolist() == [[1, 1, 1]] * 4
    expected = bleu.compute(predictions=STRIPPED_PREDICTIONS, references=STRIPPED_LABELS, **OPTIONS)
    assert expected["signature"].startswith("nrefs:1|") and "|tok:ids|" in expected["signature"]
    tensors = torch.tensor(PREDICTIONS), torch.tensor(LABELS)
    sums = {
        "rows": rows, "numpy sum": rows.sum(axis=0), "two shards": rows[:1].sum(axis=0) + rows[1:].sum(axis=0),
        "torch sum": torch.from_numpy(rows).sum(dim=0), "python ints": [int(v) for v in rows.sum(axis=0)],
        "bleu_tensor": bleu_tensor.statistics(*tensors, ignore_ids=SPECIALS, **OPTIONS),
        "bleukit.tensor.scores rows, summed by hand": bleu_tensor.statistics(*tensors, ignore_ids=SPECIALS, per_segment=True, **OPTIONS).sum(0),
        "the metric's methods": bleu.statistics(PREDICTIONS, LABELS, ignore_ids=SPECIALS, **OPTIONS),
    }
    for name, totals in sums.items():
        assert score_from_statistics(totals, **OPTIONS) == expected, name
    assert bleu.score_from_statistics(sums["bleu_tensor"], num_refs=1, ignore_ids=SPECIALS, **OPTIONS) == expected
    # Text statistics are as before: 2 + 2K columns, the tokenizer of the options, nrefs unknown.
    text = statistics(joined(STRIPPED_PREDICTIONS), joined(STRIPPED_LABELS), **OPTIONS)
    assert text.shape == (6,) and score_from_statistics(text, **OPTIONS)["signature"].startswith("nrefs:?|")
    assert "|tok:13a|" in score_from_statistics(text, **OPTIONS)["signature"]


def test_a_varying_number_of_references_is_recorded_as_var():
    predictions, references = [[1, 2, 3], [4, 5]], [[[1, 2, 3]], [[4, 5], [4, 6], [5]]]
    totals = statistics(predictions, references)
    assert totals[-3:].tolist() == [2, 1 + 3, 1 + 9]  # segments, references, squared references
    result = score_from_statistics(totals)
    assert result["signature"].startswith("nrefs:var|") and "|tok:ids|" in result["signature"]
    assert score_from_statistics(totals, num_refs=[1, 3])["signature"].startswith("nrefs:var|")
    assert score_from_statistics(totals, num_refs="var") == result
    with pytest.raises(ValueError, match="contradicts these token-id statistics, which record a varying number"):
        score_from_statistics(totals, num_refs=[2, 2])
    two_each = statistics(predictions, [[[1, 2, 3], [9]], [[4, 5], [4, 6]]])
    assert score_from_statistics(two_each)["signature"].startswith("nrefs:2|")  # 2 + 2 of 4 squares 8: constant
    assert score_from_statistics(two_each + totals)["signature"].startswith("nrefs:var|")


def test_text_and_token_id_statistics_cannot_be_added_or_mixed_up():
    ids = statistics(STRIPPED_PREDICTIONS, STRIPPED_LABELS)
    text = statistics(joined(STRIPPED_PREDICTIONS), joined(STRIPPED_LABELS))
    with pytest.raises(ValueError, match="could not be broadcast"):
        ids + text
    with pytest.raises(RuntimeError, match="must match the size"):
        torch.from_numpy(ids) + torch.from_numpy(text)
    with pytest.raises(ValueError, match=r"contradicts these token-id statistics, which record 1 reference\(s\)"):
        score_from_statistics(ids, num_refs=2)
    with pytest.raises(ValueError, match="statistics are of token ids .* leave tokenizer='13a' out"):
        score_from_statistics(ids, tokenizer="13a")
    with pytest.raises(ValueError, match="need rows of 10 integers .13 for token ids"):
        score_from_statistics(ids[:-1])
    with pytest.raises(ValueError, match="are not the segments, references, squared references"):
        score_from_statistics(np.concatenate([ids[:-3], [4, 2, 9]]))
    running = BleuAccumulator()
    running.add(joined(STRIPPED_PREDICTIONS), joined(STRIPPED_LABELS))
    with pytest.raises(ValueError, match="holds statistics of text, but this batch is token ids"):
        running.add_statistics(ids)


def test_the_accumulator_takes_token_id_statistics_with_what_they_record(bleu):
    expected = bleu.compute(predictions=STRIPPED_PREDICTIONS * 2, references=STRIPPED_LABELS * 2)
    running = BleuAccumulator()
    running.add_statistics(statistics(PREDICTIONS, LABELS, ignore_ids=SPECIALS))
    running.add_statistics(bleu_tensor.statistics(torch.tensor(PREDICTIONS), torch.tensor(LABELS), ignore_ids=SPECIALS))
    assert running.kind == "token_ids" and running.segments == 8
    assert running.result() == expected
    running.add(STRIPPED_PREDICTIONS, [[r, r] for r in STRIPPED_LABELS])  # lists with two references each
    assert running.result()["signature"].startswith("nrefs:var|")

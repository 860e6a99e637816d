"""The Trainer hook and the statistics API, first on hand-built batches, then in a real
Seq2SeqTrainer: a tiny BART trained on a copy task (CPU, no downloads, seconds)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from bleukit.streaming import BleuAccumulator, score_from_statistics, statistics  # noqa: E402
from bleukit.integrations.trainer import BleuComputeMetrics, clean_text, decode_ids  # noqa: E402
from tiny_seq2seq import copy_dataset, make_model, make_tokenizer  # noqa: E402

FLAT_KEYS = {
    "bleu", "precision_1", "precision_2", "precision_3", "precision_4",
    "brevity_penalty", "length_ratio", "translation_length", "reference_length",
}


@pytest.fixture(scope="module")
def tok():
    return make_tokenizer()


def ids_of(tok, sentences, width, pad):
    """Token ids of `sentences` (with </s>), right-padded with `pad` to `width` columns."""
    rows = tok(sentences)["input_ids"]
    return np.array([row + [pad] * (width - len(row)) for row in rows], dtype=np.int64)


def oracle_decode(tok, ids):
    """The usual hand-written decode, made safe: -100 -> pad id, skip specials, strip."""
    ids = np.where(np.asarray(ids) < 0, tok.pad_token_id, ids)
    return [text.strip() for text in tok.batch_decode(ids, skip_special_tokens=True)]


PREDICTIONS = ["the cat sat on the mat", "a dog ran", "big red bird flew over the tree", "old log"]
REFERENCES = ["the cat sat on a mat", "a quick dog ran", "big red bird flew over a tree", "the old log"]


# ---------------------------------------------------------------- decoding what the Trainer hands over


def test_hand_written_decode_overflows_on_minus_100_and_the_hook_does_not(tok, bleu):
    labels = ids_of(tok, REFERENCES, 9, -100)
    generated = ids_of(tok, PREDICTIONS, 9, tok.pad_token_id)
    generated[:, -1] = -100  # the Trainer pads generated batches of different widths with -100
    # tokenizers < 0.22 says "out of range integral type conversion attempted"; 0.23 says this:
    with pytest.raises(OverflowError, match="out of range integral type conversion|number too small to fit"):
        tok.batch_decode(labels, skip_special_tokens=True)
    hook = BleuComputeMetrics(tok)
    assert hook.decode((generated, labels)) == (PREDICTIONS, REFERENCES)
    expected = bleu.compute(predictions=PREDICTIONS, references=REFERENCES)
    result = hook((generated, labels))
    assert result["bleu"] == expected["bleu"] and result["bleu"] > 0.3
    assert [result[f"precision_{n}"] for n in range(1, 5)] == expected["precisions"]


def test_special_tokens_and_stray_whitespace_are_removed(tok):
    bos, eos, pad = tok.bos_token_id, tok.eos_token_id, tok.pad_token_id
    cat, sat = tok.convert_tokens_to_ids(["cat", "sat"])
    ids = np.array([[eos, bos, cat, sat, eos, pad, -100], [pad, pad, pad, pad, pad, -100, -100]])
    assert decode_ids(tok, ids) == ["cat sat", ""]
    assert clean_text("  the   cat \t sat \n") == "the cat sat"


def test_tuple_predictions_use_their_first_item(tok):
    labels = ids_of(tok, REFERENCES, 9, -100)
    generated = ids_of(tok, PREDICTIONS, 8, tok.pad_token_id)
    plain = BleuComputeMetrics(tok)((generated, labels))
    encoder_states = np.zeros((4, 8, 16), dtype=np.float32)
    assert BleuComputeMetrics(tok)(((generated, encoder_states), labels)) == plain


def test_logits_are_argmaxed_masked_by_labels_and_warned_about_once(tok):
    labels = ids_of(tok, REFERENCES, 9, -100)
    generated = ids_of(tok, PREDICTIONS, 9, tok.pad_token_id)
    # Teacher-forced logits predict garbage (token "cat") where the label is padding; the
    # Trainer also pads logits of shorter batches with -100 along the length axis.
    cat = tok.convert_tokens_to_ids("cat")
    generated_at_padding = np.where(labels == -100, cat, generated)
    logits = np.eye(len(tok), dtype=np.float32)[generated_at_padding]
    logits = np.concatenate([logits, np.full((4, 2, len(tok)), -100, np.float32)], axis=1)
    labels_padded = np.concatenate([labels, np.full((4, 2), -100)], axis=1)
    hook = BleuComputeMetrics(tok)
    with pytest.warns(UserWarning, match="predict_with_generate=True") as record:
        first = hook((logits, labels_padded))
        second = hook((torch.from_numpy(logits), torch.from_numpy(labels_padded)))
    assert len([w for w in record if "logits" in str(w.message)]) == 1
    expected = BleuComputeMetrics(tok)((np.where(labels == -100, -100, generated), labels))
    assert first == second == expected
    assert hook.decode((logits, labels_padded))[0] == oracle_decode(tok, np.where(labels == -100, -100, generated))


# ---------------------------------------------------------------- result shape and scale


def test_flat_float_result_in_both_scales_equals_the_metric(tok, bleu, oracles):
    labels = ids_of(tok, REFERENCES, 10, -100)
    generated = ids_of(tok, PREDICTIONS, 10, tok.pad_token_id)
    unit = bleu.trainer_compute_metrics(tok)((generated, labels))
    percent = bleu.trainer_compute_metrics(tok, scale=100)((generated, labels))
    assert set(unit) == set(percent) == FLAT_KEYS
    assert all(type(v) is float for v in unit.values())
    expected = bleu.compute(predictions=PREDICTIONS, references=REFERENCES)
    assert unit["bleu"] == expected["bleu"]
    assert percent["bleu"] == expected["bleu"] * 100
    assert percent["precision_2"] == expected["precisions"][1] * 100
    for key in ("brevity_penalty", "length_ratio", "translation_length", "reference_length"):
        assert unit[key] == percent[key] == expected[key]
    # Independent oracle: sacreBLEU on the same text (13a tokens: 6+3+7+2 and 6+4+7+3).
    sacre = oracles.sacrebleu(PREDICTIONS, [[r] for r in REFERENCES])
    assert unit["bleu"] == pytest.approx(sacre["bleu"], rel=1e-12)
    assert (unit["translation_length"], unit["reference_length"]) == (18.0, 20.0)
    assert (sacre["translation_length"], sacre["reference_length"]) == (18, 20)


def test_compute_options_pass_through_and_the_metric_keeps_working(tok, bleu):
    labels = ids_of(tok, REFERENCES, 10, -100)
    generated = ids_of(tok, PREDICTIONS, 10, tok.pad_token_id)
    hook = bleu.trainer_compute_metrics(tok, tokenizer="char", max_order=2, smooth="floor")
    result = hook((generated, labels))
    assert set(result) == FLAT_KEYS - {"precision_3", "precision_4"}
    expected = bleu.compute(predictions=PREDICTIONS, references=REFERENCES, tokenizer="char", max_order=2, smooth="floor")
    assert result["bleu"] == expected["bleu"]
    assert hook.signature == expected["signature"]
    # The metric object still computes normally, with its default options, after the hook ran.
    again = bleu.compute(predictions=["the cat sat on the mat"], references=[["the cat sat on a mat"]])
    assert again["bleu"] == pytest.approx(0.537284965911771, rel=1e-12)  # sacreBLEU: 53.7285
    bleu.add_batch(predictions=PREDICTIONS, references=REFERENCES)
    assert bleu.compute()["bleu"] == bleu.compute(predictions=PREDICTIONS, references=REFERENCES)["bleu"]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"scale": 10}, ValueError, "scale must be 1"),
        ({"scale": True}, ValueError, "scale must be 1"),
        ({"bootstrap_samples": 100}, ValueError, "bleu.compute"),
        ({"return_sentence_scores": True}, ValueError, "corpus-level floats"),
        ({"num_workers": 2}, ValueError, "num_workers is compute's"),
        ({"max_ordr": 3}, TypeError, "unknown option"),
        ({"smooth": "method9"}, ValueError, "unknown smooth"),
    ],
)
def test_bad_hook_arguments_say_what_to_pass(tok, kwargs, error, match):
    with pytest.raises(error, match=match):
        BleuComputeMetrics(tok, **kwargs)


def test_bad_inputs_say_what_to_pass(tok):
    with pytest.raises(TypeError, match="no batch_decode"):
        BleuComputeMetrics("13a")
    hook = BleuComputeMetrics(tok)
    with pytest.raises(ValueError, match="no labels"):
        hook((np.zeros((2, 3), np.int64), None))
    with pytest.raises(ValueError, match=r"shape \(2, 3, 4, 5\)"):
        hook((np.zeros((2, 3, 4, 5), np.float32), np.zeros((2, 3), np.int64)))
    with pytest.raises(ValueError, match="2 predictions but 3 label rows"):
        hook((np.zeros((2, 3), np.int64), np.zeros((3, 3), np.int64)))


# ---------------------------------------------------------------- streaming


def test_streaming_batches_equal_one_shot_exactly_and_start_over(tok):
    sentences = PREDICTIONS * 3 + ["the the the", "cat"]
    references = REFERENCES * 3 + ["the cat", "the cat sat"]
    hook = BleuComputeMetrics(tok, scale=100)
    one_shot = hook((ids_of(tok, sentences, 12, -100), ids_of(tok, references, 12, -100)))
    bounds = [(0, 5), (5, 6), (6, 14)]
    streamed = []
    for number, (start, stop) in enumerate(bounds):
        width = 2 + max(len(s.split()) for s in sentences[start:stop] + references[start:stop])
        batch = (torch.tensor(ids_of(tok, sentences[start:stop], width, tok.pad_token_id)),
                 torch.tensor(ids_of(tok, references[start:stop], width, -100)))
        streamed.append(hook(batch, compute_result=number == len(bounds) - 1))
    assert streamed[:2] == [{}, {}]
    assert streamed[2] == one_shot  # exact, every key
    assert 0 < one_shot["bleu"] < 100
    # The statistics started over: the same evaluation again gives the same, not a doubled, result.
    assert hook.accumulator.segments == 0 and not hook.accumulator.totals.any()
    assert hook((ids_of(tok, sentences, 12, -100), ids_of(tok, references, 12, -100))) == one_shot


def test_accumulator_memory_is_one_row_however_many_batches():
    accumulator = BleuAccumulator()
    for _ in range(500):
        accumulator.add(PREDICTIONS, REFERENCES)
    assert accumulator.totals.shape == (10,) and accumulator.segments == 2000
    single = statistics(PREDICTIONS, REFERENCES)
    assert (accumulator.totals == 500 * single).all()
    assert accumulator.result()["bleu"] == pytest.approx(score_from_statistics(single)["bleu"], rel=1e-12)


# ---------------------------------------------------------------- the public statistics API


def test_statistics_of_shards_add_up_to_the_whole(bleu):
    whole = statistics(PREDICTIONS, REFERENCES)
    rows = statistics(PREDICTIONS, REFERENCES, per_segment=True)
    assert rows.shape == (4, 10) and rows.dtype == np.int64
    assert (rows.sum(axis=0) == whole).all()
    assert (statistics(PREDICTIONS[:1], REFERENCES[:1]) + statistics(PREDICTIONS[1:], REFERENCES[1:]) == whole).all()
    # Hand count for segment 0: 6 tokens each side; matches 5,3,2,1 of 6,5,4,3 n-grams.
    assert rows[0].tolist() == [6, 6, 5, 3, 2, 1, 6, 5, 4, 3]
    expected = bleu.compute(predictions=PREDICTIONS, references=REFERENCES)
    assert score_from_statistics(whole, num_refs=1) == expected
    assert score_from_statistics(rows, num_refs=[1, 1, 1, 1]) == expected
    assert score_from_statistics(torch.from_numpy(whole), num_refs=1) == expected
    assert bleu.score_from_statistics(bleu.statistics(PREDICTIONS, REFERENCES), num_refs=1) == expected
    # Statistics do not record how many references there were: unless told, the signature says so.
    unknown = score_from_statistics(whole)
    assert unknown["signature"] == expected["signature"].replace("nrefs:1|", "nrefs:?|")
    assert {k: v for k, v in unknown.items() if k != "signature"} == {k: v for k, v in expected.items() if k != "signature"}


def test_score_from_statistics_rejects_statistics_of_other_options():
    whole = statistics(PREDICTIONS, REFERENCES)
    with pytest.raises(ValueError, match="need rows of 6 integers"):
        score_from_statistics(whole, max_order=2)
    with pytest.raises(ValueError, match="non-negative"):
        score_from_statistics(-whole)
    with pytest.raises(ValueError, match="integer counts"):
        score_from_statistics(whole + 0.5)


# ---------------------------------------------------------------- the real Seq2SeqTrainer

TRAIN_STEPS = 120  # phase 1: partly learnt (BLEU between 0.03 and 0.9, depending on the seed)
PHASE_2_STEPS = 100  # phase 2: learnt (BLEU 1.0 for seeds 0-4 after 200 steps)
EVAL_SIZE = 60  # batches of 16, 16, 16 and 12
EVAL_BATCH = 16


class RecordingHook:
    """Passes calls through to the hook and records each compute_result flag."""

    def __init__(self, hook):
        self.hook, self.flags = hook, []

    def __call__(self, eval_prediction, compute_result: bool = True):
        self.flags.append(compute_result)
        return self.hook(eval_prediction, compute_result=compute_result)


def make_trainer(model, tok, train, evaluation, output_dir, compute_metrics, **overrides):
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

    settings = dict(
        output_dir=str(output_dir), per_device_train_batch_size=32, per_device_eval_batch_size=EVAL_BATCH,
        max_steps=TRAIN_STEPS, learning_rate=3e-3, warmup_steps=0, seed=0, use_cpu=True,
        predict_with_generate=True, report_to="none", disable_tqdm=True, logging_strategy="no",
        save_strategy="no", dataloader_num_workers=0,
    )
    settings.update(overrides)
    return Seq2SeqTrainer(
        model=model, args=Seq2SeqTrainingArguments(**settings), train_dataset=train, eval_dataset=evaluation,
        data_collator=DataCollatorForSeq2Seq(tok, model=model), processing_class=tok,
        compute_metrics=compute_metrics,
    )


@pytest.fixture(scope="module")
def trained(tok, bleu, tmp_path_factory):
    """Train in two phases. Before training and after phase 1 (BLEU somewhere in 0..1, outputs of
    uneven length): evaluate one-shot, with batch_eval_metrics, and on logits; predict. Phase 2
    evaluates inside the training loop (eval_strategy="steps") until the copy task is learnt."""
    from transformers import set_seed

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny model: one thread is fastest, and immune to a busy CI machine
    try:
        return _train_and_evaluate(tok, bleu, tmp_path_factory.mktemp("trainer"), set_seed)
    finally:
        torch.set_num_threads(threads)


def _train_and_evaluate(tok, bleu, out, set_seed):
    set_seed(0)
    model = make_model(tok, seed=0)
    train, evaluation = copy_dataset(tok, 512, seed=1), copy_dataset(tok, EVAL_SIZE, seed=2)
    trainer = make_trainer(model, tok, train, evaluation, out / "one_shot", bleu.trainer_compute_metrics(tok))
    before = trainer.evaluate()
    trainer.train()
    after = trainer.evaluate()
    prediction = trainer.predict(evaluation)
    streaming_hook = RecordingHook(bleu.trainer_compute_metrics(tok))
    streaming = make_trainer(model, tok, train, evaluation, out / "streaming", streaming_hook, batch_eval_metrics=True)
    after_streaming = streaming.evaluate()
    logits_trainer = make_trainer(model, tok, train, evaluation, out / "logits", bleu.trainer_compute_metrics(tok),
                                  predict_with_generate=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        after_logits = logits_trainer.evaluate()
        logits_prediction = logits_trainer.predict(evaluation)
    phase_2 = make_trainer(model, tok, train, evaluation, out / "phase_2", bleu.trainer_compute_metrics(tok),
                           max_steps=PHASE_2_STEPS, eval_strategy="steps", eval_steps=PHASE_2_STEPS // 2)
    phase_2.train()
    in_loop = [entry for entry in phase_2.state.log_history if "eval_bleu" in entry]
    return dict(before=before, after=after, prediction=prediction, after_streaming=after_streaming,
                flags=streaming_hook.flags, after_logits=after_logits, logits_prediction=logits_prediction,
                logits_warnings=[w for w in caught if "compute_metrics got logits" in str(w.message)],
                in_loop=in_loop, final=phase_2.evaluate())


def test_trainer_logs_flat_eval_metrics(trained):
    after = trained["after"]
    assert {f"eval_{key}" for key in FLAT_KEYS} <= set(after)
    assert all(isinstance(after[f"eval_{key}"], float) for key in FLAT_KEYS)


def test_copy_task_bleu_rises_with_training(trained):
    before, final = trained["before"]["eval_bleu"], trained["final"]["eval_bleu"]
    assert final >= before + 0.5, (before, final)
    assert trained["final"]["eval_loss"] < trained["after"]["eval_loss"] < trained["before"]["eval_loss"]


def test_hook_runs_inside_the_training_loop(trained):
    in_loop = trained["in_loop"]
    assert [entry["step"] for entry in in_loop] == [PHASE_2_STEPS // 2, PHASE_2_STEPS]
    assert {f"eval_{key}" for key in FLAT_KEYS} <= set(in_loop[-1])
    assert in_loop[-1]["eval_bleu"] == trained["final"]["eval_bleu"]


def test_logged_bleu_equals_the_metric_on_decoded_text_one_shot(trained, tok, bleu, oracles):
    prediction = trained["prediction"]
    hypotheses = oracle_decode(tok, prediction.predictions)
    references = oracle_decode(tok, prediction.label_ids)
    assert len(hypotheses) == EVAL_SIZE and (prediction.label_ids == -100).any()
    expected = bleu.compute(predictions=hypotheses, references=references)
    after = trained["after"]
    assert 0 < expected["precisions"][0] and expected["bleu"] < 1
    assert after["eval_bleu"] == expected["bleu"]
    assert [after[f"eval_precision_{n}"] for n in range(1, 5)] == expected["precisions"]
    assert after["eval_translation_length"] == expected["translation_length"]
    assert after["eval_bleu"] == pytest.approx(oracles.sacrebleu(hypotheses, [[r] for r in references])["bleu"], rel=1e-12)
    assert prediction.metrics["test_bleu"] == expected["bleu"]


def test_streaming_trainer_calls_per_batch_and_logs_the_one_shot_result(trained, tok, bleu):
    assert trained["flags"] == [False, False, False, True]
    streamed, one_shot = trained["after_streaming"], trained["after"]
    prediction = trained["prediction"]
    decoded = oracle_decode(tok, prediction.predictions), oracle_decode(tok, prediction.label_ids)
    assert streamed["eval_bleu"] == bleu.compute(predictions=decoded[0], references=decoded[1])["bleu"]
    for key in FLAT_KEYS:
        assert streamed[f"eval_{key}"] == one_shot[f"eval_{key}"], key


def test_logits_without_generate_score_their_argmax_and_warn_once(trained, tok, bleu):
    assert len(trained["logits_warnings"]) == 1  # one warning across an evaluate and a predict
    prediction = trained["logits_prediction"]
    logits = prediction.predictions[0]  # (logits, encoder_last_hidden_state): a tuple
    labels = prediction.label_ids
    ids = np.where(labels == -100, -100, logits.argmax(-1))
    expected = bleu.compute(predictions=oracle_decode(tok, ids), references=oracle_decode(tok, labels))
    assert trained["after_logits"]["eval_bleu"] == expected["bleu"]
    assert 0 < expected["precisions"][0] <= 1

"""The Trainer hook's opt-in token-id mode (`token_ids=True`): generated ids scored against label
ids without decoding, on hand-built batches (NumPy, torch CPU, streaming, trimming) and in a real
Seq2SeqTrainer. Oracles: `bleu.compute` on the same ids with the specials and -100 removed (the
metric's token-id input), and sacreBLEU with tokenize="none" on the ids joined by spaces."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from bleukit.integrations.trainer import BleuComputeMetrics  # noqa: E402
from tiny_seq2seq import copy_dataset, make_model, make_tokenizer  # noqa: E402

FLAT_KEYS = {
    "bleu", "precision_1", "precision_2", "precision_3", "precision_4",
    "brevity_penalty", "length_ratio", "translation_length", "reference_length",
}
IDS_SIGNATURE = "nrefs:1|case:mixed|eff:no|tok:ids|smooth:none|reflen:closest|order:4|version:bleu_metric-1.0.0"

PREDICTIONS = ["the cat sat on the mat", "a dog ran", "big red bird flew over the tree", "old log",
               "the the the", "cat"]
REFERENCES = ["the cat sat on a mat", "a quick dog ran", "big red bird flew over a tree", "the old log",
              "the cat", "the cat sat"]


@pytest.fixture(scope="module")
def tok():
    return make_tokenizer()


def generated_ids(tok, sentences, width):
    """As `generate` returns them: the decoder start (</s> for BART) first, </s> last, right-padded
    with <pad>; a <s> and a <pad> inside the first row, and the last row left-padded."""
    start, bos, pad = tok.eos_token_id, tok.bos_token_id, tok.pad_token_id
    rows = [[start] + ids for ids in tok(sentences)["input_ids"]]
    rows[0] = rows[0][:2] + [bos, pad] + rows[0][2:]
    rows[-1] = [pad, pad] + rows[-1]
    return np.array([row + [pad] * (width - len(row)) for row in rows], dtype=np.int64)


def label_ids(tok, sentences, width):
    """Labels as the collator pads them: ids with </s>, then -100."""
    rows = tok(sentences)["input_ids"]
    return np.array([row + [-100] * (width - len(row)) for row in rows], dtype=np.int64)


def stripped(tok, ids, extra=()):
    """The oracle's inputs: each row's ids without -100, the special ids and `extra`."""
    dropped = set(tok.all_special_ids) | set(extra)
    return [[int(i) for i in row if i >= 0 and i not in dropped] for row in np.asarray(ids)]


def expected_flat(bleu, hypotheses, references, scale=1, **options):
    result = bleu.compute(predictions=hypotheses, references=references, **options)
    flat = {"bleu": result["bleu"] * scale}
    flat.update({f"precision_{n}": p * scale for n, p in enumerate(result["precisions"], start=1)})
    flat.update({key: float(result[key]) for key in ("brevity_penalty", "length_ratio",
                                                     "translation_length", "reference_length")})
    return flat, result


def sacrebleu_on_ids(oracles, hypotheses, references):
    joined = [" ".join(map(str, row)) for row in hypotheses]
    return oracles.sacrebleu(joined, [[" ".join(map(str, row))] for row in references], tokenizer="none")


# ---------------------------------------------------------------- hand-built batches


def test_numpy_and_torch_ids_equal_the_metric_on_stripped_ids_and_sacrebleu(tok, bleu, oracles):
    generated, labels = generated_ids(tok, PREDICTIONS, 14), label_ids(tok, REFERENCES, 12)
    hypotheses, references = stripped(tok, generated), stripped(tok, labels)
    # Hand check of the oracle's input: row 0 is "the cat sat on the mat" without <s>, <pad>, </s>.
    assert tok.convert_ids_to_tokens(hypotheses[0]) == PREDICTIONS[0].split()
    expected, result = expected_flat(bleu, hypotheses, references)
    assert result["signature"] == IDS_SIGNATURE
    hook = bleu.trainer_compute_metrics(tok, token_ids=True)
    on_numpy = hook((generated, labels))
    on_torch = hook((torch.from_numpy(generated), torch.from_numpy(labels)))
    assert on_numpy == on_torch == expected  # exact, every key
    assert set(on_numpy) == FLAT_KEYS and all(type(v) is float for v in on_numpy.values())
    assert hook.signature == IDS_SIGNATURE
    assert BleuComputeMetrics(tokenizer=tok, token_ids=True)((generated, labels)) == expected  # keyword form
    sacre = sacrebleu_on_ids(oracles, hypotheses, references)
    assert on_numpy["bleu"] == pytest.approx(sacre["bleu"], rel=1e-12) and 0 < on_numpy["bleu"] < 1
    assert (on_numpy["translation_length"], on_numpy["reference_length"]) == (22.0, 25.0)
    assert (sacre["translation_length"], sacre["reference_length"]) == (22, 25)
    # One word to a word-level tokenizer is one id, so here ids and 13a text agree; the modes
    # still differ in their signature, which is what keeps them apart in a log.
    text = bleu.trainer_compute_metrics(tok)((generated, labels))
    assert text["bleu"] == pytest.approx(on_numpy["bleu"], rel=1e-12)


def test_options_scale_ignore_ids_and_signature_combine(tok, bleu):
    generated, labels = generated_ids(tok, PREDICTIONS, 14), label_ids(tok, REFERENCES, 12)
    the = tok.convert_tokens_to_ids("the")
    hook = BleuComputeMetrics(tok, token_ids=True, ignore_ids=[the], scale=100, with_signature=True,
                              max_order=2, smooth="add-k")
    result = hook((torch.from_numpy(generated), torch.from_numpy(labels)))
    expected, raw = expected_flat(bleu, stripped(tok, generated, [the]), stripped(tok, labels, [the]), scale=100,
                                  max_order=2, smooth="add-k")
    assert result.pop("signature") == raw["signature"] == hook.signature
    assert "tok:ids" in hook.signature and "order:2" in hook.signature
    assert result == expected
    assert expected["translation_length"] == 22 - 6  # the six "the" of the predictions are gone


def test_int32_and_other_negative_ids_are_accepted_like_in_text_mode(tok, bleu):
    generated, labels = generated_ids(tok, PREDICTIONS, 14), label_ids(tok, REFERENCES, 12)
    hook = BleuComputeMetrics(tok, token_ids=True)
    expected = hook((generated, labels))
    other_padding = np.where(labels == -100, -1, labels).astype(np.int32)
    assert hook((torch.from_numpy(generated.astype(np.int32)), torch.from_numpy(other_padding))) == expected
    assert hook((generated.astype(np.int32), other_padding)) == expected


def test_a_label_of_specials_only_is_an_empty_reference_as_in_the_metric(tok, bleu, oracles):
    generated, labels = generated_ids(tok, PREDICTIONS, 14), label_ids(tok, REFERENCES, 12)
    labels[2] = -100
    labels[2, 0] = tok.eos_token_id  # an empty target: only </s>
    hypotheses, references = stripped(tok, generated), stripped(tok, labels)
    assert references[2] == []
    expected, result = expected_flat(bleu, hypotheses, [[r] for r in references])
    for ids in ((generated, labels), (torch.from_numpy(generated), torch.from_numpy(labels))):
        assert BleuComputeMetrics(tok, token_ids=True)(ids) == expected
    assert expected["reference_length"] == 25 - 7
    assert expected["bleu"] == pytest.approx(sacrebleu_on_ids(oracles, hypotheses, references)["bleu"], rel=1e-12)
    # Every reference empty: BLEU 0, as the metric says.
    labels[:] = -100
    empty = BleuComputeMetrics(tok, token_ids=True)((generated, labels))
    assert empty == expected_flat(bleu, hypotheses, [[[]] for _ in hypotheses])[0]
    assert empty["reference_length"] == 0 and empty["bleu"] == 0


def test_streaming_batches_equal_one_shot_and_start_over(tok):
    generated, labels = generated_ids(tok, PREDICTIONS, 14), label_ids(tok, REFERENCES, 12)
    hook = BleuComputeMetrics(tok, token_ids=True, scale=100)
    one_shot = hook((generated, labels))
    streamed = []
    bounds = [(0, 2), (2, 3), (3, 6)]
    for number, (start, stop) in enumerate(bounds):
        # The Trainer hands each batch over as tensors, each as wide as its own longest row.
        width = int((generated[start:stop] != tok.pad_token_id).sum(axis=1).max()) + 2
        batch = (torch.from_numpy(generated[start:stop, :width]), torch.from_numpy(labels[start:stop]))
        streamed.append(hook(batch, compute_result=number == len(bounds) - 1))
    assert streamed[:2] == [{}, {}]
    assert streamed[2] == one_shot and 0 < one_shot["bleu"] < 100
    assert hook.accumulator.segments == 0 and not hook.accumulator.totals.any()
    assert hook((generated, labels)) == one_shot


def test_eval_examples_drops_the_padding_duplicates(tok, monkeypatch):
    import bleukit.integrations.trainer_gather as bleu_trainer_gather

    monkeypatch.setattr(bleu_trainer_gather, "world_size", lambda: 2)  # copies exist only under several processes
    generated, labels = generated_ids(tok, PREDICTIONS, 14), label_ids(tok, REFERENCES, 12)
    alone = BleuComputeMetrics(tok, token_ids=True)((generated[:4], labels[:4]))
    # Four examples, gathered from two processes with the first two repeated to fill the last step.
    padded = (np.concatenate([generated[:4], generated[:2]]), np.concatenate([labels[:4], labels[:2]]))
    trimmed = BleuComputeMetrics(tok, token_ids=True, eval_examples=4)
    assert trimmed(padded) == alone
    streamed = BleuComputeMetrics(tok, token_ids=True, eval_examples=4)
    assert streamed((torch.from_numpy(padded[0][:3]), torch.from_numpy(padded[1][:3])), compute_result=False) == {}
    assert streamed((torch.from_numpy(padded[0][3:]), torch.from_numpy(padded[1][3:]))) == alone
    assert BleuComputeMetrics(tok, token_ids=True)(padded) != alone


def test_logits_are_argmaxed_on_their_device_and_warned_about(tok):
    generated, labels = generated_ids(tok, PREDICTIONS, 12), label_ids(tok, REFERENCES, 12)
    logits = torch.from_numpy(np.eye(len(tok), dtype=np.float32)[generated])
    hook = BleuComputeMetrics(tok, token_ids=True)
    with pytest.warns(UserWarning, match="predict_with_generate=True"):
        result = hook((logits, torch.from_numpy(labels)))
    assert hook.ids((logits, torch.from_numpy(labels)))[0].dtype == torch.int64
    masked = np.where(labels == -100, -100, generated)
    assert result == BleuComputeMetrics(tok, token_ids=True)((masked, labels))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_on_cuda_the_ids_are_counted_there_and_equal_the_cpu_numbers(tok):
    generated, labels = generated_ids(tok, PREDICTIONS, 14), label_ids(tok, REFERENCES, 12)
    hook = BleuComputeMetrics(tok, token_ids=True)
    rows = hook.token_id_statistics(torch.from_numpy(generated).cuda(), torch.from_numpy(labels).cuda())
    assert rows.device.type == "cuda"
    assert hook((torch.from_numpy(generated).cuda(), torch.from_numpy(labels).cuda())) == hook((generated, labels))


class DecoderWithoutSpecials:
    def batch_decode(self, rows, skip_special_tokens=True):
        return [" ".join(map(str, row)) for row in rows]


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        ((), {"token_ids": True}, TypeError, "no transformers tokenizer"),
        ((DecoderWithoutSpecials(),), {"token_ids": True}, TypeError, "all_special_ids"),
        (("tok",), {"token_ids": True, "tokenizer": "13a"}, ValueError, "no BLEU tokenizer applies"),
        (("tok",), {"token_ids": True, "lowercase": True}, ValueError, "lowercase=True applies to text"),
        (("tok",), {"token_ids": "yes"}, TypeError, "token_ids must be True or False"),
        (("tok",), {"ignore_ids": [5]}, ValueError, "pass token_ids=True"),
        (("tok",), {"token_ids": True, "ignore_ids": ["the"]}, TypeError, "integer token ids"),
        (("tok",), {"token_ids": True, "ignore_ids": 5}, TypeError, "collection of integer"),
        (("tok",), {"token_ids": True, "ignore_id": [5]}, TypeError, "unknown option.*ignore_ids"),
        (("tok",), {"token_ids": True, "bootstrap_samples": 10}, ValueError, "corpus-level floats"),
    ],
)
def test_bad_arguments_say_what_to_pass(tok, args, kwargs, error, match):
    args = tuple(tok if arg == "tok" else arg for arg in args)
    with pytest.raises(error, match=match):
        BleuComputeMetrics(*args, **kwargs)


def test_bad_batches_say_what_to_pass(tok):
    hook = BleuComputeMetrics(tok, token_ids=True)
    with pytest.raises(ValueError, match="no labels"):
        hook((torch.zeros((2, 3), dtype=torch.long), None))
    with pytest.raises(ValueError, match="2 predictions but 3 label rows"):
        hook((torch.zeros((2, 3), dtype=torch.long), torch.zeros((3, 3), dtype=torch.long)))
    with pytest.raises(ValueError, match=r"shape \(2, 3, 4, 5\)"):
        hook((torch.zeros((2, 3, 4, 5)), torch.zeros((2, 3), dtype=torch.long)))
    with pytest.raises(ValueError, match="dtype torch.bool"):
        hook((torch.zeros((2, 3), dtype=torch.bool), torch.zeros((2, 3), dtype=torch.long)))


# ---------------------------------------------------------------- a real Seq2SeqTrainer

TRAIN_STEPS = 120  # partly learnt: BLEU strictly between 0 and 1, outputs of uneven length
EVAL_SIZE = 60  # batches of 16, 16, 16 and 12


@pytest.fixture(scope="module")
def trained(tok, bleu, tmp_path_factory):
    """Train a tiny BART briefly, then evaluate with token_ids=True one-shot and streaming
    (batch_eval_metrics: tensors per batch) and predict, to have the ids the hook scored."""
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments, set_seed

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("token_ids")
    try:
        set_seed(0)
        model = make_model(tok, seed=0)
        train, evaluation = copy_dataset(tok, 512, seed=1), copy_dataset(tok, EVAL_SIZE, seed=2)

        def trainer(name, compute_metrics, **overrides):
            settings = dict(
                output_dir=str(out / name), per_device_train_batch_size=32, per_device_eval_batch_size=16,
                max_steps=TRAIN_STEPS, learning_rate=3e-3, warmup_steps=0, seed=0, use_cpu=True,
                predict_with_generate=True, report_to="none", disable_tqdm=True, logging_strategy="no",
                save_strategy="no", dataloader_num_workers=0,
            )
            settings.update(overrides)
            return Seq2SeqTrainer(
                model=model, args=Seq2SeqTrainingArguments(**settings), train_dataset=train,
                eval_dataset=evaluation, data_collator=DataCollatorForSeq2Seq(tok, model=model),
                processing_class=tok, compute_metrics=compute_metrics,
            )

        one_shot = trainer("one_shot", bleu.trainer_compute_metrics(tok, token_ids=True, with_signature=True))
        one_shot.train()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scalar-only loggers are off; nothing to warn about here
            after = one_shot.evaluate()
        prediction = one_shot.predict(evaluation)
        hook, handed = bleu.trainer_compute_metrics(tok, token_ids=True), []

        def recording(eval_prediction, compute_result=True):
            handed.append((type(eval_prediction.predictions).__name__, compute_result))
            return hook(eval_prediction, compute_result=compute_result)

        streaming = trainer("streaming", recording, batch_eval_metrics=True)
        after_streaming = streaming.evaluate()
        text = trainer("text", bleu.trainer_compute_metrics(tok)).evaluate()
        return dict(after=after, prediction=prediction, after_streaming=after_streaming, handed=handed, text=text)
    finally:
        torch.set_num_threads(threads)


def test_trainer_logs_token_id_bleu_equal_to_the_oracle_on_its_predictions(trained, tok, bleu, oracles):
    prediction = trained["prediction"]
    hypotheses, references = stripped(tok, prediction.predictions), stripped(tok, prediction.label_ids)
    assert len(hypotheses) == EVAL_SIZE and (prediction.label_ids == -100).any()
    expected, result = expected_flat(bleu, hypotheses, references)
    assert 0 < expected["bleu"] < 1
    after = trained["after"]
    assert {key: after[f"eval_{key}"] for key in FLAT_KEYS} == expected
    assert after["eval_signature"] == result["signature"] == IDS_SIGNATURE
    assert after["eval_bleu"] == pytest.approx(sacrebleu_on_ids(oracles, hypotheses, references)["bleu"], rel=1e-12)
    assert prediction.metrics["test_bleu"] == expected["bleu"]


def test_streaming_trainer_hands_tensors_and_logs_the_one_shot_numbers(trained):
    assert trained["handed"] == [("Tensor", False)] * 3 + [("Tensor", True)]
    streamed, one_shot = trained["after_streaming"], trained["after"]
    for key in FLAT_KEYS:
        assert streamed[f"eval_{key}"] == one_shot[f"eval_{key}"], key
    # The word-level tokenizer makes one id per word, so text BLEU (13a) is the same number here;
    # with a subword tokenizer it is not, which is why the signature tells them apart.
    assert trained["text"]["eval_bleu"] == pytest.approx(one_shot["eval_bleu"], rel=1e-12)

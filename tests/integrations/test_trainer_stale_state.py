"""The Trainer hook and accelerate's process-wide dataloader state: a dataloader that an earlier
loop left registered (a training stopped at `max_steps`, the training loop around an
`eval_strategy="epoch"` evaluation, an interrupted evaluation) must never make the hook drop real
rows. Oracle: `bleu.compute` on the texts the hook decoded, and the hook itself with no state left.

Only evidence that belongs to the evaluation being scored drops rows, and only under several
processes (simulated here by `world_size`; tests/test_trainer_torchrun.py runs two real ones).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
accelerate = pytest.importorskip("accelerate")

import bleukit.integrations.trainer_gather as bleu_trainer_gather  # noqa: E402
from accelerate.data_loader import prepare_data_loader  # noqa: E402
from accelerate.state import GradientState  # noqa: E402
from bleukit.integrations.trainer import BleuComputeMetrics  # noqa: E402
from tiny_seq2seq import copy_dataset, make_model, make_tokenizer  # noqa: E402

SENTENCES = ["the cat sat on the mat", "a dog ran", "big red bird flew over the tree", "old log", "the the the"] * 3
REFERENCES = ["the cat sat on a mat", "a quick dog ran", "big red bird flew over a tree", "the old log", "the cat"] * 3


@pytest.fixture(scope="module")
def tok():
    return make_tokenizer()


def ids_of(tok, sentences, width=12, pad=-100):
    rows = tok(sentences)["input_ids"]
    return np.array([row + [pad] * (width - len(row)) for row in rows], dtype=np.int64)


class Unfinished:
    """A dataloader an earlier run started and never exhausted, as accelerate keeps it registered."""

    end_of_dataloader = True
    remainder = 4
    total_dataset_length = 100


@pytest.fixture
def stale_state():
    """Registers an earlier run's unfinished dataloader in accelerate's GradientState, as it
    stays there while anything holds it; removed afterwards."""
    held = Unfinished()
    state = GradientState()
    state._add_dataloader(held)
    yield held
    state._remove_dataloader(held)


@pytest.fixture
def two_processes(monkeypatch):
    """The hook sees a world of two processes (torchrun), without starting them."""
    monkeypatch.setattr(bleu_trainer_gather, "world_size", lambda: 2)


def test_a_stale_dataloader_changes_no_one_shot_number(tok, bleu, stale_state):
    expected = bleu.compute(predictions=SENTENCES, references=REFERENCES)
    assert GradientState().end_of_dataloader and GradientState().remainder == 4  # what main trusted
    result = BleuComputeMetrics(tok)((ids_of(tok, SENTENCES), ids_of(tok, REFERENCES)))
    assert result["translation_length"] == expected["translation_length"] == 63
    assert result["reference_length"] == expected["reference_length"]
    assert result["bleu"] == expected["bleu"]


def test_a_stale_dataloader_changes_no_streaming_number(tok, bleu, stale_state):
    expected = bleu.compute(predictions=SENTENCES, references=REFERENCES)
    hook = BleuComputeMetrics(tok)
    for start, stop in ((0, 5), (5, 10)):
        assert hook((ids_of(tok, SENTENCES[start:stop]), ids_of(tok, REFERENCES[start:stop])), compute_result=False) == {}
    result = hook((ids_of(tok, SENTENCES[10:]), ids_of(tok, REFERENCES[10:])))  # 5 rows: main kept 4
    assert (result["translation_length"], result["bleu"]) == (expected["translation_length"], expected["bleu"])


def test_under_several_processes_a_stale_dataloader_is_no_evidence_and_the_warning_stands(
    tok, bleu, stale_state, two_processes
):
    expected = bleu.compute(predictions=SENTENCES, references=REFERENCES)
    hook = BleuComputeMetrics(tok)
    with pytest.warns(UserWarning, match="several processes"):
        result = hook((ids_of(tok, SENTENCES), ids_of(tok, REFERENCES)))
    assert result["translation_length"] == expected["translation_length"]
    hook = BleuComputeMetrics(tok)  # streaming: the stale loader was already at its end at the first batch
    hook((ids_of(tok, SENTENCES[:10]), ids_of(tok, REFERENCES[:10])), compute_result=False)
    with pytest.warns(UserWarning, match="several processes"):
        result = hook((ids_of(tok, SENTENCES[10:]), ids_of(tok, REFERENCES[10:])))
    assert result["translation_length"] == expected["translation_length"]


def test_under_several_processes_the_evaluated_dataloader_drops_its_padding(tok, bleu, two_processes):
    """A real accelerate dataloader, sharded for 2 processes x 4: 15 examples become 16 rows, the
    last one a copy of the first. The streaming hook keeps the 15, read off that dataloader while
    it is evaluated; with a stale loader registered beside it, the same."""
    examples = list(range(len(SENTENCES)))
    base = torch.utils.data.DataLoader(examples, batch_size=4)
    other = list(prepare_data_loader(base, num_processes=2, process_index=1, put_on_device=False))
    live = prepare_data_loader(base, num_processes=2, process_index=0, put_on_device=False)
    expected = bleu.compute(predictions=SENTENCES, references=REFERENCES)
    for stale in (False, True):
        held = Unfinished()
        if stale:
            GradientState()._add_dataloader(held)
        try:
            hook, results, rows = BleuComputeMetrics(tok), [], []
            for step, (mine, theirs) in enumerate(zip(live, other)):
                gathered = torch.cat([mine, theirs]).tolist()  # what accelerator.gather hands over
                rows.append(len(gathered))
                last = step == len(other) - 1
                with warnings.catch_warnings():
                    warnings.simplefilter("error")  # evidence: no warning
                    results.append(hook((ids_of(tok, [SENTENCES[i] for i in gathered]),
                                         ids_of(tok, [REFERENCES[i] for i in gathered])), compute_result=last))
        finally:
            GradientState()._remove_dataloader(held)
        assert sum(rows) == 16
        assert results[-1]["translation_length"] == expected["translation_length"]
        assert results[-1]["bleu"] == expected["bleu"]


def test_eval_examples_applies_under_several_processes_only(tok, bleu, two_processes, monkeypatch):
    padded = SENTENCES + SENTENCES[:1], REFERENCES + REFERENCES[:1]
    expected = bleu.compute(predictions=SENTENCES, references=REFERENCES)
    trimmed = BleuComputeMetrics(tok, eval_examples=15)((ids_of(tok, padded[0]), ids_of(tok, padded[1])))
    assert trimmed["translation_length"] == expected["translation_length"]
    monkeypatch.setattr(bleu_trainer_gather, "world_size", lambda: 1)
    # One process has no copies: the 16th row is a real example (a different eval_dataset=, say).
    whole = BleuComputeMetrics(tok, eval_examples=15)((ids_of(tok, padded[0]), ids_of(tok, padded[1])))
    assert whole["translation_length"] == bleu.compute(predictions=padded[0], references=padded[1])["translation_length"]


# ---------------------------------------------------------------- real Seq2SeqTrainer runs


class Recording:
    """The hook, recording the texts it decoded and the metrics it returned, per evaluation."""

    def __init__(self, tok, raise_on_result=False):
        self.hook, self.raise_on_result = BleuComputeMetrics(tok), raise_on_result
        self.predictions, self.references, self.results = [], [], []

    def __call__(self, eval_prediction, compute_result=True):
        predictions, references = self.hook.decode(eval_prediction)
        self.predictions += predictions
        self.references += references
        if compute_result and self.raise_on_result:
            raise KeyboardInterrupt("interrupted at the last batch")
        result = self.hook(eval_prediction, compute_result=compute_result)
        if compute_result:
            self.results.append((self.predictions, self.references, result))
            self.predictions, self.references = [], []
        return result


def make_trainer(tok, model, out, hook, train_size=100, **overrides):
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

    settings = dict(output_dir=str(out), per_device_train_batch_size=32, per_device_eval_batch_size=16,
                    max_steps=4, learning_rate=3e-3, seed=0, use_cpu=True, predict_with_generate=True,
                    report_to="none", disable_tqdm=True, logging_strategy="no", save_strategy="no")
    settings.update(overrides)
    return Seq2SeqTrainer(model=model, args=Seq2SeqTrainingArguments(**settings),
                          train_dataset=copy_dataset(tok, train_size, seed=1), eval_dataset=copy_dataset(tok, 60, seed=2),
                          data_collator=DataCollatorForSeq2Seq(tok, model=model), processing_class=tok,
                          compute_metrics=hook)


def assert_each_evaluation_is_the_metric_on_its_texts(recording, bleu, evaluations):
    assert len(recording.results) == evaluations
    for predictions, references, result in recording.results:
        assert len(references) == 60
        expected = bleu.compute(predictions=predictions, references=references)
        assert result["reference_length"] == expected["reference_length"]
        assert result["translation_length"] == expected["translation_length"]
        assert result["bleu"] == expected["bleu"]


@pytest.fixture
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_evaluate_after_training_stopped_at_max_steps(tok, bleu, tmp_path, one_thread):
    """100 training examples in batches of 32: max_steps=4 stops at the epoch's last batch, whose
    dataloader stays registered with remainder 4; main kept 4 of the 60 evaluation rows."""
    recording = Recording(tok)
    trainer = make_trainer(tok, make_model(tok, seed=0), tmp_path, recording)
    trainer.train()
    assert GradientState().end_of_dataloader and GradientState().remainder == 4
    trainer.evaluate()
    assert_each_evaluation_is_the_metric_on_its_texts(recording, bleu, 1)


def test_eval_strategy_epoch_inside_the_training_loop(tok, bleu, tmp_path, one_thread):
    """The commonest setup: every epoch-end evaluation runs while the training dataloader sits at
    its last batch; each logged eval_bleu is the metric on that evaluation's texts."""
    recording = Recording(tok)
    trainer = make_trainer(tok, make_model(tok, seed=0), tmp_path, recording, max_steps=8, eval_strategy="epoch")
    trainer.train()
    assert_each_evaluation_is_the_metric_on_its_texts(recording, bleu, 2)
    logged = [entry["eval_reference_length"] for entry in trainer.state.log_history if "eval_bleu" in entry]
    assert logged == [recording.results[0][2]["reference_length"]] * 2


def test_evaluate_after_a_second_trainers_interrupted_evaluation(tok, bleu, tmp_path, one_thread):
    model = make_model(tok, seed=0)
    interrupted = make_trainer(tok, model, tmp_path / "a", Recording(tok, raise_on_result=True),
                               batch_eval_metrics=True)
    with pytest.raises(KeyboardInterrupt):
        interrupted.evaluate()
    assert GradientState().end_of_dataloader and GradientState().remainder == 60 % 16  # left behind
    for streaming in (False, True):
        recording = Recording(tok)
        make_trainer(tok, model, tmp_path / f"b{streaming}", recording, batch_eval_metrics=streaming).evaluate()
        assert_each_evaluation_is_the_metric_on_its_texts(recording, bleu, 1)

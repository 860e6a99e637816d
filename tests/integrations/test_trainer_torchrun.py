"""The Trainer recipe of docs/training.md under `torchrun --nproc_per_node=2` (gloo, CPU) with an evaluation set
that does not divide evenly: the distributed eval_bleu must equal the one-process score.

Where the difference came from: the eval sampler pads the last batch with the first examples again
(60 = 32 + 28 with 2 x 16 per step, so 4 duplicates), and Seq2SeqTrainer.evaluate/predict set
`gather_function = accelerator.gather`, not `gather_for_metrics`, so nothing drops them and
transformers 5 no longer truncates to num_samples before compute_metrics.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("torch.distributed")

from tiny_seq2seq import copy_dataset, make_model, make_tokenizer  # noqa: E402

WORKER = Path(__file__).resolve().parents[1] / "support" / "trainer_torchrun_worker.py"
EVAL_SIZE = 60  # docs/training.md's evaluation set: not a multiple of 2 processes x 16
TRAIN_STEPS = 120  # partly learnt: a score strictly between 0 and 1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def partly_trained(tmp_path_factory, bleu):
    """A briefly trained tiny model, saved, and its one-process eval_bleu through docs/training.md's recipe."""
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments, set_seed

    out = tmp_path_factory.mktemp("torchrun")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        set_seed(0)
        tok = make_tokenizer()
        model = make_model(tok, seed=0)
        args = Seq2SeqTrainingArguments(str(out / "train"), max_steps=TRAIN_STEPS, learning_rate=3e-3,
                                        per_device_train_batch_size=32, per_device_eval_batch_size=16, seed=0,
                                        predict_with_generate=True, report_to="none", use_cpu=True,
                                        disable_tqdm=True, save_strategy="no", logging_strategy="no")
        evaluation = copy_dataset(tok, EVAL_SIZE, seed=2)
        trainer = Seq2SeqTrainer(model=model, args=args, train_dataset=copy_dataset(tok, 512, seed=1),
                                 eval_dataset=evaluation, data_collator=DataCollatorForSeq2Seq(tok, model=model),
                                 processing_class=tok, compute_metrics=bleu.trainer_compute_metrics(tok))
        trainer.train()
        one_process = trainer.evaluate()
        prediction = trainer.predict(evaluation)
        model.save_pretrained(out / "model")
    finally:
        torch.set_num_threads(threads)
    return out, tok, one_process, prediction


def run_torchrun(out: Path, world: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false", HF_DATASETS_OFFLINE="1",
               HF_HUB_OFFLINE="1", HF_EVALUATE_OFFLINE="1", HF_HOME=str(out / "hf_home"))
    if Path("/sys/class/net/lo").exists():
        env["GLOO_SOCKET_IFNAME"] = "lo"
    output = out / "torchrun.json"
    command = [sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={world}",
               f"--master_port={free_port()}", str(WORKER), str(out / "model"), str(EVAL_SIZE), str(output)]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=150)
    except subprocess.TimeoutExpired as expired:
        pytest.fail(f"torchrun did not finish in 150 s:\n{(expired.stdout or '')[-3000:]}")
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return json.loads(output.read_text(encoding="utf-8"))


def test_two_processes_give_the_one_process_score(partly_trained, bleu, oracles):
    out, tok, one_process, prediction = partly_trained
    # The one-process score is the metric on the decoded text, and sacreBLEU agrees.
    hypotheses = [" ".join(t.split()) for t in tok.batch_decode(
        [[i for i in row if i >= 0] for row in prediction.predictions.tolist()], skip_special_tokens=True)]
    references = [" ".join(t.split()) for t in tok.batch_decode(
        [[i for i in row if i >= 0] for row in prediction.label_ids.tolist()], skip_special_tokens=True)]
    expected = one_process["eval_bleu"]
    assert expected == bleu.compute(predictions=hypotheses, references=references)["bleu"]
    assert expected == pytest.approx(oracles.sacrebleu(hypotheses, [[r] for r in references])["bleu"], rel=1e-12)
    assert 0.05 < expected < 0.95, expected  # non-trivial: neither untrained nor learnt

    runs = run_torchrun(out, 2)
    assert {run["world"] for run in runs.values()} == {2}
    # The hook is handed 64 rows: the last batch is padded with the first 4 examples again.
    assert sum(runs["one_shot_unadjusted"]["rows"]) == 64 and runs["streaming"]["rows"] == [32, 32]
    assert runs["one_shot_with_eval_examples"]["bleu"] == expected
    assert runs["streaming"]["bleu"] == expected
    assert runs["streaming"]["translation_length"] == one_process["eval_translation_length"]
    # Without either, the duplicates count, and the hook says so.
    assert runs["one_shot_unadjusted"]["warned"] and not runs["one_shot_with_eval_examples"]["warned"]
    assert runs["one_shot_unadjusted"]["translation_length"] > one_process["eval_translation_length"]
    # token_ids=True trims the same way: its oracle is the metric on the one-process ids, with
    # -100 and the special ids removed (here one id per word, so it is also the text number).
    special = set(tok.all_special_ids)
    hypothesis_ids, reference_ids = ([[i for i in row if i >= 0 and i not in special] for row in ids.tolist()]
                                     for ids in (prediction.predictions, prediction.label_ids))
    on_ids = bleu.compute(predictions=hypothesis_ids, references=reference_ids)
    assert on_ids["signature"].count("tok:ids") == 1 and on_ids["bleu"] == pytest.approx(expected, rel=1e-12)
    for name in ("ids_one_shot_with_eval_examples", "ids_streaming"):
        assert runs[name]["bleu"] == on_ids["bleu"], name
        assert (runs[name]["translation_length"], runs[name]["reference_length"]) == (
            on_ids["translation_length"], on_ids["reference_length"]), name

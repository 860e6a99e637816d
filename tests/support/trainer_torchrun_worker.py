"""Run by `torchrun --nproc_per_node=N` from tests/test_trainer_torchrun.py: the Trainer recipe of
docs/training.md (Seq2SeqTrainer, predict_with_generate) evaluating a saved tiny model on an evaluation set
that does not divide evenly by N processes. Rank 0 writes the metrics of each way of evaluating.

    python -m torch.distributed.run --nproc_per_node=2 trainer_torchrun_worker.py MODEL_DIR SIZE OUT_JSON
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]


def main(model_dir: str, size: int, output: str) -> None:
    import torch
    from tiny_seq2seq import copy_dataset, make_tokenizer
    from transformers import BartForConditionalGeneration, DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

    from bleukit.integrations.trainer import make_compute_metrics

    torch.set_num_threads(1)
    tokenizer = make_tokenizer()
    model = BartForConditionalGeneration.from_pretrained(model_dir)
    evaluation = copy_dataset(tokenizer, size, seed=2)
    results = {}
    ways = {
        "one_shot_with_eval_examples": ({}, dict(eval_examples=len(evaluation))),
        "streaming": ({"batch_eval_metrics": True}, {}),
        "one_shot_unadjusted": ({}, {}),
        "ids_one_shot_with_eval_examples": ({}, dict(token_ids=True, eval_examples=len(evaluation))),
        "ids_streaming": ({"batch_eval_metrics": True}, dict(token_ids=True)),
    }
    for name, (arguments, hook_options) in ways.items():
        args = Seq2SeqTrainingArguments(
            str(Path(output).parent / name), predict_with_generate=True, per_device_eval_batch_size=16,
            report_to="none", use_cpu=True, disable_tqdm=True, **arguments,
        )
        rows = []
        hook = make_compute_metrics(tokenizer, **hook_options)

        def recording(prediction, compute_result=True, hook=hook, rows=rows):
            rows.append(len(prediction.label_ids))
            return hook(prediction, compute_result=compute_result)

        trainer = Seq2SeqTrainer(model=model, args=args, eval_dataset=evaluation, processing_class=tokenizer,
                                 data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
                                 compute_metrics=recording)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            metrics = trainer.evaluate()
        results[name] = dict(bleu=metrics["eval_bleu"], translation_length=metrics["eval_translation_length"],
                             reference_length=metrics["eval_reference_length"],
                             rows=rows, world=trainer.accelerator.num_processes,
                             warned=any("several processes" in str(w.message) for w in caught))
    if os.environ.get("RANK", "0") == "0":
        Path(output).write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])

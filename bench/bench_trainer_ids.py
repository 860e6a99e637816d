"""The Trainer hook on one evaluation: text BLEU (decode, then 13a) against token-id BLEU
(`token_ids=True`, no decoding), the same batches, on NumPy arrays and on torch tensors.

Run from the repository root:

    python bench/bench_trainer_ids.py                      # 2,000 rows of 48 ids, batches of 64, CPU
    python bench/bench_trainer_ids.py --rows 8000 --device cuda

The batches: the tiny word-level tokenizer of tests/tiny_seq2seq.py (one id per word, so both modes
score the same tokens and must give the same BLEU, which is checked), labels right-padded with
-100 and generated ids starting with the decoder start id and padded with <pad>; each prediction
is its reference with 20% of the words replaced. The hook is called as with
`batch_eval_metrics=True` (compute_result=False per batch, True on the last). Best of `--repeats`
runs; the ratio is text time over ids time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bleukit.integrations.trainer import BleuComputeMetrics  # noqa: E402
from tiny_seq2seq import SPECIALS, make_tokenizer  # noqa: E402


def batches(tok, rows: int, length: int, batch: int, seed: int):
    rng = np.random.default_rng(seed)
    first_word, vocabulary = len(SPECIALS), len(tok)
    lengths = rng.integers(length // 2, length - 1, size=rows)
    references = np.full((rows, length), -100, dtype=np.int64)
    generated = np.full((rows, length + 1), tok.pad_token_id, dtype=np.int64)
    generated[:, 0] = tok.eos_token_id  # BART's decoder start
    for row, size in enumerate(lengths):
        words = rng.integers(first_word, vocabulary, size=size)
        references[row, :size], references[row, size] = words, tok.eos_token_id
        changed = np.where(rng.random(size) < 0.2, rng.integers(first_word, vocabulary, size=size), words)
        generated[row, 1 : size + 1], generated[row, size + 1] = changed, tok.eos_token_id
    return [(generated[i : i + batch], references[i : i + batch]) for i in range(0, rows, batch)]


def evaluate_once(hook, evaluation, to_device):
    start = time.perf_counter()
    for number, (generated, labels) in enumerate(evaluation):
        result = hook((to_device(generated), to_device(labels)), compute_result=number == len(evaluation) - 1)
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--length", type=int, default=48)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    tok = make_tokenizer()
    evaluation = batches(tok, args.rows, args.length, args.batch, seed=0)
    inputs = {"numpy": lambda a: a, f"torch ({args.device})": lambda a: torch.from_numpy(a).to(args.device)}
    print(f"{args.rows} rows x up to {args.length} ids, batches of {args.batch}, best of {args.repeats}")
    print(f"{'input':<16} {'text (s)':>9} {'ids (s)':>9} {'text/ids':>9}  same bleu?")
    for name, to_device in inputs.items():
        times, results = {}, {}
        for mode, hook in (("text", BleuComputeMetrics(tok)), ("ids", BleuComputeMetrics(tok, token_ids=True))):
            evaluate_once(hook, evaluation[:2], to_device)  # warm up (and reset by the last batch)
            runs = [evaluate_once(hook, evaluation, to_device) for _ in range(args.repeats)]
            times[mode], results[mode] = min(t for t, _ in runs), runs[0][1]
        same = abs(results["text"]["bleu"] - results["ids"]["bleu"]) <= 1e-12 * results["ids"]["bleu"]
        print(f"{name:<16} {times['text']:>9.3f} {times['ids']:>9.3f} {times['text'] / times['ids']:>8.1f}x  "
              f"{same} ({results['ids']['bleu']:.6f})")


if __name__ == "__main__":
    main()

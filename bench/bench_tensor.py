"""Sentence BLEU of padded token-id tensors: bleukit.tensor.scores against a TensorBLEU-style implementation
and an NLTK sentence_bleu loop, on CPU or GPU.

Run from the repository root:

    python bench/bench_tensor.py                   # the device picks the grid: full on CUDA, reduced on CPU
    python bench/bench_tensor.py --device cuda     # the full grid: batch 32..1024 x length 64..1024, 1 and 4 refs
    python bench/bench_tensor.py --device cpu --grid full --nltk-sentences 16

The batches: vocabulary 32,000 (id 0 is padding), references of random length between half and
all of the row, right-padded; each hypothesis is its first reference with 20% of the tokens
replaced, so every order up to 4 has matches. After the grid, batches whose hypotheses share
only 70% of their tokens with the reference (30% replaced; marked `@70%`), where fewer n-grams
drop out early and the counting does the most work per token. All three compute sentence BLEU with 4-grams,
closest reference length and Chen & Cherry's method 1 (epsilon 0.1 for an order without a
match; sacreBLEU's `floor`), in float64.

What is timed:
- ours: `bleu_tensor.sentence_bleu` from device tensors to a float64 tensor on the device (the
  statistics are counted on the device, the B rows are scored on the CPU by bleukit.scoring).
- tensorbleu-style: written here from the TensorBLEU paper's description (Filipek 2025): per order,
  `unfold` the n-grams, `torch.unique(dim=0)` over all of the batch's n-grams, an offset bincount
  gives per-sentence counts (B x unique n-grams), clipping by the maximum over the references,
  then the score in torch on the device.
- nltk: `nltk.translate.bleu_score.sentence_bleu` in a Python loop, including moving the ids to
  the CPU as lists. It is slow, so it runs on the first `--nltk-sentences` sentences of the batch
  and its time is scaled linearly to the batch (marked `*` in the table).

On CUDA the clock is read after `torch.cuda.synchronize()`; every method runs once to warm up and
the table reports the best of `--repeats` runs (the least disturbed by other work on the machine;
the NLTK loop: the best of at most 3).
On a CPU, `ours` counts with bleukit.counting.stats (NumPy and Arrow) and the extra column `torch-count` times
the torch counting that runs on GPUs (the same numbers, checked). `agree?` checks ours against NLTK (rel 1e-12, on
the sentences NLTK scored) and against tensorbleu-style (abs 1e-9) on every sentence.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Callable, List, Tuple

import torch

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import bleukit.tensor.scores as bleu_tensor  # noqa: E402

VOCABULARY = 32000
PAD_ID = 0
MAX_ORDER = 4
EPSILON = 0.1  # method 1 / floor
FULL_GRID = ([32, 128, 256, 512, 1024], [64, 256, 1024], [1, 4])
REDUCED_GRID = ([32, 256], [64, 256], [1, 4])
# (batch, length, references) of the batches whose hypotheses share 70% of their reference's tokens.
SHARED_70 = [(256, 256, 1), (256, 256, 4)]


def make_batch(batch: int, length: int, refs: int, device: torch.device, seed: int = 0,
               replaced: float = 0.2) -> Tuple[torch.Tensor, torch.Tensor]:
    """(predictions (B, L), references (B, R, L)), right-padded with PAD_ID; each prediction is its
    first reference with about `replaced` of its tokens drawn anew."""
    generator = torch.Generator().manual_seed(seed)
    references = torch.randint(1, VOCABULARY, (batch, refs, length), generator=generator)
    ref_lengths = torch.randint(length // 2, length + 1, (batch, refs), generator=generator)
    references[torch.arange(length)[None, None, :] >= ref_lengths[:, :, None]] = PAD_ID
    predictions = references[:, 0].clone()
    drawn = (torch.rand((batch, length), generator=generator) < replaced) & (predictions != PAD_ID)
    predictions[drawn] = torch.randint(1, VOCABULARY, (int(drawn.sum()),), generator=generator)
    return predictions.to(device), references.to(device)


# ----------------------------------------------------------------------------- the three methods


def ours(predictions: torch.Tensor, references: torch.Tensor) -> torch.Tensor:
    return bleu_tensor.sentence_bleu(predictions, references, ignore_ids=[PAD_ID], smooth="method1")


def torch_counting(predictions: torch.Tensor, references: torch.Tensor) -> torch.Tensor:
    """The statistics rows by the torch counting (what `ours` runs on a GPU), here on the CPU."""
    checked = bleu_tensor.check_inputs(predictions, references, bleu_tensor.token_id_rule([PAD_ID]))
    return bleu_tensor.segment_statistics(*checked, MAX_ORDER)


def tensorbleu_style(predictions: torch.Tensor, references: torch.Tensor) -> torch.Tensor:
    """TensorBLEU's algorithm as the paper describes it (written here, not copied): n-grams by
    unfold, a batch-wide dictionary by torch.unique(dim=0), counts by one offset bincount."""
    batch, refs = references.shape[0], references.shape[1]
    hyp_len = (predictions != PAD_ID).sum(1)
    ref_len = (references != PAD_ID).sum(2)  # (B, R)
    clipped = torch.zeros((batch, MAX_ORDER), dtype=torch.float64, device=predictions.device)
    totals = torch.zeros_like(clipped)
    for n in range(1, MAX_ORDER + 1):
        if predictions.shape[1] < n or references.shape[2] < n:
            break
        hyp_ngrams = predictions.unfold(1, n, 1)  # (B, Lh - n + 1, n)
        ref_ngrams = references.unfold(2, n, 1)  # (B, R, Lr - n + 1, n)
        hyp_valid = torch.arange(hyp_ngrams.shape[1], device=predictions.device)[None, :] < (hyp_len - n + 1)[:, None]
        ref_valid = torch.arange(ref_ngrams.shape[2], device=predictions.device)[None, None, :] < (ref_len - n + 1)[:, :, None]
        flat = torch.cat([hyp_ngrams.reshape(-1, n), ref_ngrams.reshape(-1, n)])
        unique, inverse = torch.unique(flat, dim=0, return_inverse=True)
        num_unique = unique.shape[0]
        hyp_ids = inverse[: hyp_ngrams.shape[0] * hyp_ngrams.shape[1]].view(batch, -1)
        ref_ids = inverse[hyp_ngrams.shape[0] * hyp_ngrams.shape[1] :].view(batch, refs, -1)
        offsets = torch.arange(batch, device=predictions.device) * num_unique
        hyp_counts = torch.bincount((hyp_ids + offsets[:, None])[hyp_valid], minlength=batch * num_unique)
        hyp_counts = hyp_counts.view(batch, num_unique)
        ref_max = torch.zeros_like(hyp_counts)
        for r in range(refs):
            counts = torch.bincount((ref_ids[:, r] + offsets[:, None])[ref_valid[:, r]], minlength=batch * num_unique)
            ref_max = torch.maximum(ref_max, counts.view(batch, num_unique))
        clipped[:, n - 1] = torch.minimum(hyp_counts, ref_max).sum(1).double()
        totals[:, n - 1] = hyp_valid.sum(1).double()
    # Closest reference length, ties to the shorter; absent (empty) references never chosen.
    span = references.shape[2] + 1
    key = (ref_len - hyp_len[:, None]).abs() * span + ref_len
    closest = (key.masked_fill(ref_len == 0, torch.iinfo(torch.int64).max).amin(1) % span).double()
    floor = torch.where(totals > 0, EPSILON / totals.clamp(min=1), torch.zeros_like(totals))
    precisions = torch.where(clipped > 0, clipped / totals.clamp(min=1), floor)
    log_mean = torch.where(precisions > 0, precisions, torch.ones_like(precisions)).log().mean(1)
    geometric = torch.where((precisions > 0).all(1), log_mean.exp(), torch.zeros_like(log_mean))
    length = hyp_len.double()
    penalty = torch.where(length >= closest, torch.ones_like(length),
                          torch.exp(1 - closest / length.clamp(min=1)))
    bleu = penalty * geometric
    return torch.where((hyp_len > 0) & (clipped[:, 0] > 0), bleu, torch.zeros_like(bleu))


def nltk_loop(predictions: torch.Tensor, references: torch.Tensor, count: int) -> List[float]:
    """NLTK sentence_bleu over the first `count` sentences, from device tensors to Python floats."""
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    smoothing = SmoothingFunction(epsilon=EPSILON).method1
    hyps = predictions[:count].tolist()
    groups = references[:count].tolist()
    scores = []
    for hyp, group in zip(hyps, groups):
        hyp = [t for t in hyp if t != PAD_ID]
        refs = [[t for t in r if t != PAD_ID] for r in group]
        scores.append(sentence_bleu([r for r in refs if r], hyp, smoothing_function=smoothing))
    return scores


# ----------------------------------------------------------------------------- timing


def timed(function: Callable[[], object], device: torch.device, repeats: int) -> Tuple[float, object]:
    """Best wall milliseconds of `repeats` runs after one warm-up run, and the last result."""
    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    result = function()  # warm-up
    sync()
    times = []
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        result = function()
        sync()
        times.append((time.perf_counter() - start) * 1000)
    return min(times), result


def run(device: torch.device, grid, repeats: int, nltk_sentences: int) -> None:
    batches, lengths, ref_counts = grid
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU ({torch.get_num_threads()} threads)"
    on_cpu = device.type == "cpu"
    print(f"device: {name}; torch {torch.__version__}; vocabulary {VOCABULARY}; best of {repeats} after a warm-up")
    print(f"nltk: {nltk_sentences} sentences timed per size (best of {min(repeats, 3)}), scaled linearly to the batch (*)")
    extra = f" {'torch-count ms':>14} |" if on_cpu else ""
    header = (f"{'size (B x L x refs)':>20} | {'ours ms':>9} |{extra} {'tb-style ms':>11} | {'nltk ms':>10} | "
              f"{'tb/ours':>7} | {'nltk/ours':>9} | agree?")
    print(header)
    print("-" * len(header))
    sizes = [(batch, length, refs, 0.2) for refs in ref_counts for batch in batches for length in lengths]
    sizes += [(batch, length, refs, 0.3) for batch, length, refs in SHARED_70]
    for batch, length, refs, replaced in sizes:
        predictions, references = make_batch(batch, length, refs, device, replaced=replaced)
        ours_ms, ours_scores = timed(lambda: ours(predictions, references), device, repeats)
        extra_text, extra_agree = "", True
        if on_cpu:
            torch_ms, torch_rows = timed(lambda: torch_counting(predictions, references), device, repeats)
            extra_text = f" {torch_ms:14.1f} |"
            public_rows = bleu_tensor.statistics(predictions, references, ignore_ids=[PAD_ID], per_segment=True)
            extra_agree = torch.equal(torch_rows, public_rows[:, : torch_rows.shape[1]])  # less its provenance columns
        try:
            tb_ms, tb_scores = timed(lambda: tensorbleu_style(predictions, references), device, repeats)
            tb_text, tb_ratio = f"{tb_ms:11.1f}", f"{tb_ms / ours_ms:7.1f}"
            tb_agree = torch.allclose(tb_scores, ours_scores, rtol=0, atol=1e-9)
        except torch.OutOfMemoryError:
            tb_text, tb_ratio, tb_agree = f"{'OOM':>11}", f"{'-':>7}", True
            tb_scores = None
            torch.cuda.empty_cache()
        count = min(batch, nltk_sentences)
        nltk_ms, nltk_scores = timed(lambda: nltk_loop(predictions, references, count), device, min(repeats, 3))
        nltk_ms *= batch / count
        nltk_agree = all(
            math.isclose(a, b, rel_tol=1e-12, abs_tol=0) or a == b
            for a, b in zip(nltk_scores, ours_scores[:count].tolist())
        )
        mark = "*" if count < batch else " "
        label = f"{batch} x {length} x {refs}" + (" @70%" if replaced == 0.3 else "")
        print(
            f"{label:>20} | {ours_ms:9.1f} |{extra_text} {tb_text} | {nltk_ms:9.0f}{mark} | "
            f"{tb_ratio} | {nltk_ms / ours_ms:9.1f} | {'yes' if nltk_agree and tb_agree and extra_agree else 'NO'}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                        help="auto: cuda when available, else cpu")
    parser.add_argument("--grid", default="auto", choices=["auto", "full", "reduced"],
                        help="auto: full on cuda, reduced on cpu (the NLTK loop and the CPU are slow)")
    parser.add_argument("--repeats", type=int, default=None, help="timed runs per method (default 10 cuda, 3 cpu)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    parser.add_argument("--nltk-sentences", type=int, default=None,
                        help="sentences the NLTK loop is timed on, then scaled (default 64 cuda, 32 cpu)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda but torch.cuda.is_available() is False")
    device = torch.device("cuda" if args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available()) else "cpu")
    on_gpu = device.type == "cuda"
    grid = FULL_GRID if args.grid == "full" or (args.grid == "auto" and on_gpu) else REDUCED_GRID
    repeats = args.repeats or (10 if on_gpu else 3)
    nltk_sentences = args.nltk_sentences or (64 if on_gpu else 32)
    run(device, grid, repeats, nltk_sentences)


if __name__ == "__main__":
    main()

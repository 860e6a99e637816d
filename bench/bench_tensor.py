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

The TensorBLEU-style anchor runs, size by size, in a process of its own (this script re-invoked with a hidden
`--anchor-child` option, under `--anchor-timeout` seconds), which sends back its time and scores. Its offset
bincount has batch x distinct n-grams bins; past 2^31 (1024 x 1024 x 4 on the full grid) it crashed a GPU with an
illegal memory access, which poisons the CUDA context of the process it runs in. So a size whose bin count
(computed first, as the anchor would: `anchor_bins`) exceeds 2^31 - 1 is skipped, and an anchor that fails, dies or
runs out of time costs only its own process: every row of the grid prints, with the project's time and a note
("anchor skipped: 3.7e9 bins > 2^31", "anchor failed: <short reason>") in place of the anchor's numbers.
`--sizes 32x64x1 256x256x1@70% ...` replaces the grid (and the @70% rows) with the sizes given. For the tests,
BENCH_TENSOR_ANCHOR_FAIL=BxLxR[@70%]:raise|abort|hang makes the anchor's process fail in that way at that size.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, List, Optional, Tuple

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
# The anchor's offset bincount indexes batch x distinct n-grams bins; past this it crashed a GPU.
ANCHOR_MAX_BINS = 2**31 - 1
ANCHOR_TIMEOUT_S = 600.0
ANCHOR_FAIL_ENV = "BENCH_TENSOR_ANCHOR_FAIL"  # "BxLxR[@70%]:raise|abort|hang", for the tests
RESULT_MARK = "ANCHOR-RESULT "


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


# ----------------------------------------------------------------------------- the anchor, in its own process


def size_label(batch: int, length: int, refs: int, replaced: float) -> str:
    return f"{batch} x {length} x {refs}" + (" @70%" if replaced == 0.3 else "")


def anchor_bins(predictions: torch.Tensor, references: torch.Tensor) -> int:
    """The most bins the anchor's offset bincount asks for at any order: batch x the distinct n-grams of the
    batch (padding included, as `tensorbleu_style` counts them)."""
    batch = predictions.shape[0]
    largest = 0
    top = int(max(predictions.max(), references.max())) + 1 if predictions.numel() else 1
    for n in range(1, MAX_ORDER + 1):
        if predictions.shape[1] < n or references.shape[2] < n:
            break
        flat = torch.cat([predictions.unfold(1, n, 1).reshape(-1, n), references.unfold(2, n, 1).reshape(-1, n)])
        if top ** n < 2**63:  # one int64 key per n-gram: a 1-D unique, much cheaper than unique(dim=0)
            powers = torch.tensor([top ** k for k in range(n - 1, -1, -1)], dtype=torch.int64, device=flat.device)
            distinct = torch.unique((flat.long() * powers).sum(1)).numel()
        else:
            distinct = torch.unique(flat, dim=0).shape[0]
        largest = max(largest, batch * distinct)
    return largest


def anchor_skip_reason(bins: int, limit: int = ANCHOR_MAX_BINS) -> Optional[str]:
    """None when the anchor can run, else the note for the table."""
    if bins <= limit:
        return None
    limit_text = "2^31" if limit == ANCHOR_MAX_BINS else short_number(limit)
    return f"anchor skipped: {short_number(bins)} bins > {limit_text}"


def short_number(value: int) -> str:
    """3733906432 -> "3.7e9"."""
    mantissa, _, exponent = f"{value:.1e}".partition("e")
    return f"{mantissa}e{int(exponent)}"


def short_reason(text: str, width: int = 80) -> str:
    """The first line of an error, at most `width` characters."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[0] if lines else text.strip()
    return line if len(line) <= width else line[: width - 3] + "..."


def anchor_child(spec: dict) -> None:
    """In the anchor's own process: time `tensorbleu_style` on the spec's batch, print its time and scores."""
    if spec.get("threads"):
        torch.set_num_threads(spec["threads"])
    device = torch.device(spec["device"])
    label = size_label(spec["batch"], spec["length"], spec["refs"], spec["replaced"])
    fail = os.environ.get(ANCHOR_FAIL_ENV, "")
    where, _, how = fail.rpartition(":")
    simulated = bool(fail) and where.replace(" ", "") == label.replace(" ", "")
    if simulated and how == "abort":
        os.abort()  # dies as a segfault or a fatal CUDA error would: no result, nothing to catch
    if simulated and how == "hang":
        time.sleep(3600)
    predictions, references = make_batch(spec["batch"], spec["length"], spec["refs"], device,
                                         replaced=spec["replaced"])
    try:
        if simulated:
            raise RuntimeError(f"simulated anchor failure ({ANCHOR_FAIL_ENV})")
        ms, scores = timed(lambda: tensorbleu_style(predictions, references), device, spec["repeats"])
        result = {"ms": ms, "scores": scores.cpu().tolist()}
    except torch.OutOfMemoryError:
        result = {"error": "out of memory"}
    except Exception as error:  # noqa: BLE001  (reported to the parent, which goes on with the grid)
        result = {"error": f"{type(error).__name__}: {error}"}
    print(RESULT_MARK + json.dumps(result), flush=True)
    sys.stdout.flush()
    os._exit(0)  # no teardown of a CUDA context that may be poisoned


def run_anchor(spec: dict, timeout: float) -> Tuple[Optional[float], Optional[torch.Tensor], Optional[str]]:
    """(milliseconds, float64 scores, None) from the anchor's own process, or (None, None, "anchor failed: ...")."""
    command = [sys.executable, str(Path(__file__).resolve()), "--anchor-child", json.dumps(spec)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, f"anchor failed: timed out after {timeout:g} s"
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(RESULT_MARK):
            result = json.loads(line[len(RESULT_MARK):])
            if "error" in result:
                return None, None, "anchor failed: " + short_reason(result["error"])
            return result["ms"], torch.tensor(result["scores"], dtype=torch.float64), None
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        reason = f"process killed by {name}"
    else:
        reason = f"process exited with {done.returncode}"
    last = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    if last:  # an uncaught error's last line says what it was
        reason = f"{last[-1]} ({reason})"
    return None, None, "anchor failed: " + short_reason(reason, width=100)


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


def grid_sizes(grid) -> List[Tuple[int, int, int, float]]:
    """(batch, length, references, replaced) of every row: the grid, then the @70% batches."""
    batches, lengths, ref_counts = grid
    sizes = [(batch, length, refs, 0.2) for refs in ref_counts for batch in batches for length in lengths]
    return sizes + [(batch, length, refs, 0.3) for batch, length, refs in SHARED_70]


def parse_size(text: str) -> Tuple[int, int, int, float]:
    """"BxLxR" or "BxLxR@70%" -> (batch, length, references, replaced)."""
    shape, _, shared = text.replace(" ", "").lower().partition("@")
    if shared not in ("", "70%", "70"):
        raise argparse.ArgumentTypeError(f"{text!r}: only @70% is known")
    try:
        batch, length, refs = (int(part) for part in shape.split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not BxLxR (e.g. 32x64x1 or 256x256x4@70%)") from None
    if min(batch, length, refs) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: every dimension must be at least 1")
    return batch, length, refs, 0.3 if shared else 0.2


def run(device: torch.device, sizes, repeats: int, nltk_sentences: int, threads: Optional[int] = None,
        anchor_timeout: float = ANCHOR_TIMEOUT_S, anchor_max_bins: int = ANCHOR_MAX_BINS) -> None:
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU ({torch.get_num_threads()} threads)"
    on_cpu = device.type == "cpu"
    print(f"device: {name}; torch {torch.__version__}; vocabulary {VOCABULARY}; best of {repeats} after a warm-up")
    print(f"nltk: {nltk_sentences} sentences timed per size (best of {min(repeats, 3)}), scaled linearly to the batch (*)")
    print(f"tb-style: in a process of its own per size (timeout {anchor_timeout:g} s), "
          f"skipped where batch x distinct n-grams > {anchor_max_bins}")
    extra = f" {'torch-count ms':>14} |" if on_cpu else ""
    header = (f"{'size (B x L x refs)':>20} | {'ours ms':>9} |{extra} {'tb-style ms':>11} | {'nltk ms':>10} | "
              f"{'tb/ours':>7} | {'nltk/ours':>9} | agree?")
    print(header)
    print("-" * len(header))
    for batch, length, refs, replaced in sizes:
        predictions, references = make_batch(batch, length, refs, device, replaced=replaced)
        ours_ms, ours_scores = timed(lambda: ours(predictions, references), device, repeats)
        extra_text, extra_agree = "", True
        if on_cpu:
            torch_ms, torch_rows = timed(lambda: torch_counting(predictions, references), device, repeats)
            extra_text = f" {torch_ms:14.1f} |"
            public_rows = bleu_tensor.statistics(predictions, references, ignore_ids=[PAD_ID], per_segment=True)
            extra_agree = torch.equal(torch_rows, public_rows[:, : torch_rows.shape[1]])  # less its provenance columns
        note = anchor_skip_reason(anchor_bins(predictions, references), anchor_max_bins)
        tb_ms = tb_scores = None
        if note is None:
            if device.type == "cuda":
                torch.cuda.empty_cache()  # leave the anchor's process the memory this one does not use
            spec = {"batch": batch, "length": length, "refs": refs, "replaced": replaced, "device": str(device),
                    "repeats": repeats, "threads": threads}
            tb_ms, tb_scores, note = run_anchor(spec, anchor_timeout)
        if tb_ms is not None:
            tb_text, tb_ratio = f"{tb_ms:11.1f}", f"{tb_ms / ours_ms:7.1f}"
            tb_agree = tb_scores.shape == ours_scores.shape and torch.allclose(
                tb_scores, ours_scores.detach().cpu().double(), rtol=0, atol=1e-9)
        else:
            tb_text, tb_ratio, tb_agree = f"{'-':>11}", f"{'-':>7}", True
        count = min(batch, nltk_sentences)
        nltk_ms, nltk_scores = timed(lambda: nltk_loop(predictions, references, count), device, min(repeats, 3))
        nltk_ms *= batch / count
        nltk_agree = all(
            math.isclose(a, b, rel_tol=1e-12, abs_tol=0) or a == b
            for a, b in zip(nltk_scores, ours_scores[:count].tolist())
        )
        mark = "*" if count < batch else " "
        label = size_label(batch, length, refs, replaced)
        print(
            f"{label:>20} | {ours_ms:9.1f} |{extra_text} {tb_text} | {nltk_ms:9.0f}{mark} | "
            f"{tb_ratio} | {nltk_ms / ours_ms:9.1f} | {'yes' if nltk_agree and tb_agree and extra_agree else 'NO'}"
            + (f"  ({note})" if note else ""),
            flush=True,
        )


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--anchor-child":  # the anchor's own process (see run_anchor)
        anchor_child(json.loads(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                        help="auto: cuda when available, else cpu")
    parser.add_argument("--grid", default="auto", choices=["auto", "full", "reduced"],
                        help="auto: full on cuda, reduced on cpu (the NLTK loop and the CPU are slow)")
    parser.add_argument("--sizes", nargs="+", type=parse_size, default=None, metavar="BxLxR[@70%]",
                        help="these sizes instead of the grid and its @70%% rows (e.g. 32x64x1 256x256x4@70%%)")
    parser.add_argument("--repeats", type=int, default=None, help="timed runs per method (default 10 cuda, 3 cpu)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    parser.add_argument("--nltk-sentences", type=int, default=None,
                        help="sentences the NLTK loop is timed on, then scaled (default 64 cuda, 32 cpu)")
    parser.add_argument("--anchor-timeout", type=float, default=ANCHOR_TIMEOUT_S,
                        help="seconds the TensorBLEU-style anchor's process may take per size (default %(default)g)")
    parser.add_argument("--anchor-max-bins", type=int, default=ANCHOR_MAX_BINS,
                        help="skip the anchor where batch x distinct n-grams exceeds this (default 2^31 - 1)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda but torch.cuda.is_available() is False")
    device = torch.device("cuda" if args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available()) else "cpu")
    on_gpu = device.type == "cuda"
    grid = FULL_GRID if args.grid == "full" or (args.grid == "auto" and on_gpu) else REDUCED_GRID
    sizes = args.sizes or grid_sizes(grid)
    repeats = args.repeats or (10 if on_gpu else 3)
    nltk_sentences = args.nltk_sentences or (64 if on_gpu else 32)
    run(device, sizes, repeats, nltk_sentences, threads=args.threads, anchor_timeout=args.anchor_timeout,
        anchor_max_bins=args.anchor_max_bins)


if __name__ == "__main__":
    main()

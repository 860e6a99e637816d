"""MBR on padded token-id tensors (B sources x N candidates x L tokens): the device-scoring path
(`bleukit.tensor.pair_scores`, the default on a GPU), the host-scoring path on the same tensors
(`device_scoring=False`: every pair's matches read back and scored by NumPy), the same call on CPU
tensors, and a sacreBLEU `sentence_bleu` loop (timed on a sample of pairs, scaled to all of them).

    python bench/bench_mbr.py --device cuda
    python bench/bench_mbr.py --device cpu --quick

`equal`: whether the device path's chosen indices, expected BLEU and matrix equal the host
path's and the CPU call's bit for bit.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from bleukit.diversity.mbr import mbr

SIZES = [(8, 64, 128), (32, 64, 128), (4, 256, 128), (1, 1024, 64)]
QUICK = [(2, 16, 32), (8, 16, 24), (1, 64, 16)]
PAD = 0


def samples(sources: int, count: int, length: int, seed: int = 0) -> torch.Tensor:
    """Candidates like a sampler's: per source a base sequence, each candidate a copy with ~20% of
    its tokens resampled, a random length (the rest padding), some exact duplicates."""
    generator = torch.Generator().manual_seed(seed)
    base = torch.randint(1, 2000, (sources, 1, length), generator=generator).expand(sources, count, length)
    noise = torch.randint(1, 2000, (sources, count, length), generator=generator)
    ids = torch.where(torch.rand((sources, count, length), generator=generator) < 0.2, noise, base).clone()
    lengths = torch.randint(max(1, length // 2), length + 1, (sources, count, 1), generator=generator)
    ids[torch.arange(length)[None, None, :] >= lengths] = PAD
    ids[:, 1::7] = ids[:, :1]  # duplicates of the first candidate
    return ids


def timed(function, device: torch.device, repeats: int):
    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize()

    result = function()  # warm-up
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def sacrebleu_loop_seconds(ids: torch.Tensor, sample: int = 2000) -> float:
    """sentence_bleu over a sample of the (candidate, other candidate) pairs, scaled to all of them."""
    from sacrebleu.metrics import BLEU

    metric = BLEU(effective_order=True, tokenize="none")
    texts = [[" ".join(str(t) for t in row if t != PAD) for row in source] for source in ids.tolist()]
    sources, count = ids.shape[0], ids.shape[1]
    pairs = [(b, i, j) for b in range(sources) for i in range(count) for j in range(count) if i != j]
    step = max(1, len(pairs) // sample)
    chosen = pairs[::step][:sample]
    start = time.perf_counter()
    for b, i, j in chosen:
        metric.sentence_score(texts[b][i], [texts[b][j]])
    return (time.perf_counter() - start) * len(pairs) / len(chosen)


def same(a: dict, b: dict) -> bool:
    return all(torch.equal(a[key].cpu().nan_to_num(-1), b[key].cpu().nan_to_num(-1))
               for key in ("chosen", "expected_bleu", "matrix"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--quick", action="store_true", help="small sizes, fewer repeats")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args()
    device = torch.device(args.device)
    sizes = QUICK if args.quick else SIZES
    repeats = args.repeats or (2 if args.quick else 5)
    cpu = torch.device("cpu")
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else device.type
    print(f"mbr on padded tensors, device {name}, torch {torch.__version__}, median of {repeats}")
    print(f"{'B x N x L':>14} {'device scoring':>15} {'host scoring':>13} {'CPU tensors':>12} "
          f"{'sacreBLEU loop':>15} {'equal':>6}")
    for sources, count, length in sizes:
        ids = samples(sources, count, length)
        on_device = ids.to(device)
        kw = dict(pad_id=PAD, return_matrix=True)
        device_s, device_result = timed(lambda: mbr(on_device, device_scoring=True, **kw), device, repeats)
        host_s, host_result = timed(lambda: mbr(on_device, device_scoring=False, **kw), device, repeats)
        cpu_s, cpu_result = timed(lambda: mbr(ids, **kw), cpu, repeats)
        loop_s = sacrebleu_loop_seconds(ids, 300 if args.quick else 2000)
        equal = same(device_result, host_result) and same(device_result, cpu_result)
        print(f"{f'{sources} x {count} x {length}':>14} {device_s * 1e3:12.1f} ms {host_s * 1e3:10.1f} ms "
              f"{cpu_s * 1e3:9.1f} ms {loop_s * 1e3:12.0f} ms {str(equal):>6}")


if __name__ == "__main__":
    main()

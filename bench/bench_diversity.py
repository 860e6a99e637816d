"""BLEU between many texts: self-BLEU against fast-bleu (and an NLTK loop), MBR against a sacreBLEU
loop (and mbrs), ratios side by side in one run.

Run from the repository root:

    python bench/bench_diversity.py                                # everything (a few minutes)
    python bench/bench_diversity.py --quick                        # self-BLEU up to 10,000 texts
    python bench/bench_diversity.py --mbrs-python /path/to/python  # also time mbrs' BLEU utility

Self-BLEU: the first N lines of the 16 WMT17 en-de system outputs in ../shared/data/wmt17-en-de,
concatenated (3,004 per system), each against all the others. fast-bleu (C++, multithreaded,
NLTK's sentence_bleu with method1) is given the lines split on whitespace, BLEU-4; this module
the same tokens (`tokenizer="none"`) with `convention="nltk"` and fast-bleu's float32 weights, so
the numbers are the same ones (`agree` counts the texts within 1e-12; fast-bleu's reference
length is undefined for a text whose length no other text has, see tests/test_self_bleu.py).
The NLTK loop (Texygen's) is timed on the first 20 hypotheses, each against all N - 1 others,
and scaled to N (`*`). `ours (13a)` is the default call: sacreBLEU's sentence_bleu settings.

MBR: 100 sources x 64 candidates. Candidate k of source s is system (k mod 16)'s output for
segment s, perturbed (seeded): each word dropped with probability 0.05 or replaced by a random
corpus word with 0.10, and one adjacent pair swapped with probability 0.3. Each candidate's
expected BLEU against the other 63 (sacreBLEU's sentence_bleu settings). The sacreBLEU loop is
`BLEU(effective_order=True).sentence_score(c_i, [c_j])` for every ordered pair, timed on the
first 10 sources and scaled to 100 (`*`); `agree` compares the chosen indices. mbrs
(`DecoderMBR` with `MetricBLEU`, its default: the candidates as pseudo-references, itself
included, scores in float32) runs in the Python given by --mbrs-python, as it does not install
beside this module's dependencies (it pins transformers, numpy 1.26 and COMET); this module is
then timed on the same task (pseudo_references = the candidates). `ids (torch, CPU)` is the same
MBR on a (100, 64, L) tensor of token ids (13a tokens numbered), through `bleukit.tensor.pairs`.

Times are wall seconds, best of --repeats for this module (best of 1 for the others); the load
average is printed before and after, as the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Tuple

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data" / "wmt17-en-de"
sys.path.insert(0, str(REPO))

from bleukit.diversity.pairwise import self_bleu  # noqa: E402
from bleukit.diversity.mbr import mbr  # noqa: E402

SELF_BLEU_SIZES = [1000, 3004, 10000, 30000]
SOURCES, CANDIDATES, LOOP_SOURCES = 100, 64, 10


def system_outputs() -> List[List[str]]:
    paths = sorted(path for path in DATA.glob("*.de") if "ref" not in path.name)
    if not paths:
        sys.exit(f"{DATA} is absent: the benchmark needs the WMT17 system outputs")
    return [path.read_text(encoding="utf-8").split("\n")[:3004] for path in paths]


def best_of(function: Callable[[], object], repeats: int) -> Tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


# ----------------------------------------------------------------------------- self-BLEU


def fast_bleu_self_bleu(tokens: List[List[str]]) -> List[float]:
    from fast_bleu import SelfBLEU

    return SelfBLEU(tokens, {4: (0.25,) * 4}).get_score()[4]


def nltk_loop_seconds(tokens: List[List[str]], hypotheses: int) -> float:
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    smoothing = SmoothingFunction().method1
    start = time.perf_counter()
    for i in range(hypotheses):
        sentence_bleu(tokens[:i] + tokens[i + 1 :], tokens[i], (0.25,) * 4, smoothing_function=smoothing)
    return (time.perf_counter() - start) * len(tokens) / hypotheses


def self_bleu_table(lines: List[str], sizes: List[int], repeats: int) -> None:
    print(f"\nself-BLEU of N WMT17 system lines, BLEU-4 (load {load()})")
    header = (f"{'N':>7} | {'ours nltk s':>11} | {'ours 13a s':>10} | {'fast-bleu s':>11} | {'nltk loop s':>11} | "
              f"{'fast/ours':>9} | {'nltk/ours':>9} | agree")
    print(header)
    print("-" * len(header))
    float32_quarter = [float(np.float32(0.25))] * 4
    for size in sizes:
        texts = lines[:size]
        tokens = [text.split() for text in texts]
        ours_s, ours = best_of(lambda: self_bleu(texts, convention="nltk", tokenizer="none",
                                                 weights=float32_quarter)["sentence_bleu"], repeats)
        default_s, _ = best_of(lambda: self_bleu(texts), repeats)
        fast_s, theirs = best_of(lambda: fast_bleu_self_bleu(tokens), 1)
        nltk_s = nltk_loop_seconds(tokens, 20) if size <= 3004 else float("nan")
        agree = sum(math.isclose(a, b, rel_tol=1e-12, abs_tol=0) or a == b for a, b in zip(ours, theirs))
        nltk_text = f"{nltk_s:10.1f}*" if nltk_s == nltk_s else f"{'-':>11}"
        nltk_ratio = f"{nltk_s / ours_s:9.0f}" if nltk_s == nltk_s else f"{'-':>9}"
        print(f"{size:7d} | {ours_s:11.3f} | {default_s:10.3f} | {fast_s:11.2f} | {nltk_text} | "
              f"{fast_s / ours_s:9.1f} | {nltk_ratio} | {agree}/{size}", flush=True)


# ----------------------------------------------------------------------------- MBR


def perturbed_candidates(outputs: List[List[str]]) -> List[List[str]]:
    rng = random.Random(17)
    vocabulary = " ".join(outputs[0]).split()

    def perturb(line: str) -> str:
        words = []
        for word in line.split():
            roll = rng.random()
            if roll < 0.05:
                continue
            words.append(rng.choice(vocabulary) if roll < 0.15 else word)
        if len(words) > 3 and rng.random() < 0.3:
            i = rng.randrange(len(words) - 1)
            words[i], words[i + 1] = words[i + 1], words[i]
        return " ".join(words)

    return [[perturb(outputs[k % len(outputs)][s]) for k in range(CANDIDATES)] for s in range(SOURCES)]


def sacrebleu_loop(sources: List[List[str]], with_itself: bool = False) -> List[int]:
    from sacrebleu.metrics import BLEU

    metric = BLEU(effective_order=True)
    chosen = []
    for candidates in sources:
        expected = []
        for i, candidate in enumerate(candidates):
            scores = [metric.sentence_score(candidate, [other]).score for j, other in enumerate(candidates)
                      if with_itself or j != i]
            expected.append(math.fsum(scores) / len(scores))
        chosen.append(max(range(len(expected)), key=lambda i: (expected[i], -i)))
    return chosen


def token_id_tensor(sources: List[List[str]]):
    import torch

    from bleukit.options import resolve_options

    tokenizer = resolve_options().tokenizer
    flat = [candidate for candidates in sources for candidate in candidates]
    ids, lengths = tokenizer.encode_flat_rstripped(flat)
    tensor = torch.zeros((len(flat), int(lengths.max())), dtype=torch.long)
    rows = np.repeat(np.arange(len(flat)), lengths)
    columns = np.arange(len(ids)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    tensor[torch.from_numpy(rows), torch.from_numpy(columns)] = torch.from_numpy(ids + 1)  # 0 is padding
    return tensor.view(len(sources), len(sources[0]), -1)


MBRS_WORKER = """
import json, sys, time
from mbrs.decoders import DecoderMBR
from mbrs.metrics import MetricBLEU
sources = json.load(open(sys.argv[1]))
metric = MetricBLEU(MetricBLEU.Config(tokenize="13a", num_workers=int(sys.argv[2])))
decoder = DecoderMBR(DecoderMBR.Config(), metric)
start = time.perf_counter()
chosen = [int(decoder.decode(candidates, candidates, nbest=1).idx[0]) for candidates in sources]
print(json.dumps({"seconds": time.perf_counter() - start, "chosen": chosen}))
"""


def mbrs_run(python: str, sources: List[List[str]], workers: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "sources.json"
        data.write_text(json.dumps(sources), encoding="utf-8")
        done = subprocess.run([python, "-c", MBRS_WORKER, str(data), str(workers)], capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def mbr_table(outputs: List[List[str]], repeats: int, mbrs_python: str | None) -> None:
    sources = perturbed_candidates(outputs)
    pairs = SOURCES * CANDIDATES * (CANDIDATES - 1)
    print(f"\nMBR: {SOURCES} sources x {CANDIDATES} candidates ({pairs:,} ordered pairs), expected sentence BLEU "
          f"(load {load()})")
    ours_s, ours = best_of(lambda: mbr(sources), repeats)
    tensor = token_id_tensor(sources)
    ids_s, on_ids = best_of(lambda: mbr(tensor, ignore_ids=(0,)), repeats)
    loop_s, loop_chosen = best_of(lambda: sacrebleu_loop(sources[:LOOP_SOURCES]), 1)
    loop_s *= SOURCES / LOOP_SOURCES
    agree = sum(a == b for a, b in zip(ours["chosen"], loop_chosen))
    header = f"{'method':>30} | {'seconds':>9} | {'/ ours':>8} | chosen agree"
    print(header)
    print("-" * len(header))
    print(f"{'ours (text)':>30} | {ours_s:9.3f} | {1.0:8.1f} |")
    print(f"{'ours (ids, torch CPU tensor)':>30} | {ids_s:9.3f} | {ids_s / ours_s:8.2f} | "
          f"{int((on_ids['chosen'].numpy() == np.array(ours['chosen'])).sum())}/{SOURCES} with text")
    print(f"{'sacreBLEU loop':>30} | {loop_s:8.1f}* | {loop_s / ours_s:8.0f} | {agree}/{LOOP_SOURCES}")
    if mbrs_python is None:
        print(f"{'mbrs MetricBLEU':>30} | not run (pass --mbrs-python: a Python with mbrs installed)")
        return
    with_itself_s, with_itself = best_of(lambda: mbr(sources, sources), repeats)
    for workers in (1, 2):
        result = mbrs_run(mbrs_python, sources, workers)
        if "error" in result:
            print(f"{f'mbrs ({workers} worker)':>30} | failed: {result['error']}")
            continue
        agree = sum(a == b for a, b in zip(with_itself["chosen"], result["chosen"]))
        print(f"{f'mbrs MetricBLEU, {workers} worker(s)':>30} | {result['seconds']:9.1f} | "
              f"{result['seconds'] / with_itself_s:8.0f} | {agree}/{SOURCES} with ours incl. itself "
              f"({with_itself_s:.3f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="self-BLEU up to 10,000 texts")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of this module (best of)")
    parser.add_argument("--mbrs-python", default=None, help="a Python interpreter that has mbrs installed")
    args = parser.parse_args()
    outputs = system_outputs()
    lines = [line for output in outputs for line in output]
    print(f"load average before: {load()}; {os.cpu_count()} cores; numpy {np.__version__}")
    sizes = [size for size in SELF_BLEU_SIZES if not args.quick or size <= 10000]
    self_bleu_table(lines, sizes, args.repeats)
    mbr_table(outputs, args.repeats, args.mbrs_python)
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()

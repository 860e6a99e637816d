"""Side-by-side BLEU benchmark: this module against sacreBLEU, bleuscore, NLTK and the legacy algorithm.

Run from the repository root:

    python bench/benchmark.py            # everything (a few minutes on 2 cores)
    python bench/benchmark.py --quick    # smaller scaling table, fewer repeats
    python bench/benchmark.py --compare  # only the significance tests (compare) against sacreBLEU's CLI

The corpus is the issue's: the 16 WMT17 en-de systems in ../shared/data/wmt17-en-de concatenated
(48,064 segments, one reference), each copy's hypothesis and reference lines prefixed with a
distinct token (`c0 `, `c1 `, ...) so that no per-line cache can help. Without that folder a
synthetic corpus of the same shape is generated. Each measurement runs in a fresh subprocess:
wall time with time.perf_counter (best of the repeats), CPU time (the process and its worker processes), and peak resident
memory (ru_maxrss) next to the memory the loaded corpus alone takes. Every implementation's
score is checked against this module's (relative 1e-10). Timing stays out of the test suite.

The last section compares 17 systems (the 16 WMT17 systems and a hybrid of two of them, so that
not every p-value is tiny) with paired bootstrap and approximate randomization: this module's
`compare`, end to end from the text files in a fresh interpreter, against the sacreBLEU command
line (`--paired-bs` / `--paired-ar`, `-j 2`), and checks that every number agrees.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data" / "wmt17-en-de"
REFERENCE_FILE = "newstest2017-ende.ref.de"
SYSTEM_LINES = 3004
SYSTEMS = 16
CORPUS_SEGMENTS = SYSTEM_LINES * SYSTEMS  # 48,064

sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))


# ----------------------------------------------------------------------------- the corpus


def _read_lines(path: Path) -> List[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _wmt_systems() -> Tuple[List[List[str]], List[str]] | None:
    if not (DATA / REFERENCE_FILE).exists():
        return None
    reference = _read_lines(DATA / REFERENCE_FILE)
    systems = [_read_lines(path) for path in sorted(DATA.glob("*.de")) if path.name != REFERENCE_FILE]
    return systems, reference


def _synthetic_systems() -> Tuple[List[List[str]], List[str]]:
    """16 systems x 3,004 lines shaped like news translations: Zipfian words, numbers, punctuation."""
    rng = random.Random(2017)
    vocabulary = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyzäöüß") for _ in range(rng.randint(1, 12)))
                  for _ in range(30000)]
    weights = [1.0 / (rank + 1) for rank in range(len(vocabulary))]
    extras = [",", ".", "-", "„", "“", "(", ")", "3.5", "1,000", "2017", "&amp;", ":", "?"]

    def sentence() -> List[str]:
        words = rng.choices(vocabulary, weights, k=max(1, int(rng.gauss(22, 10))))
        return [w if rng.random() > 0.12 else rng.choice(extras) for w in words]

    reference_words = [sentence() for _ in range(SYSTEM_LINES)]
    systems = []
    for _ in range(SYSTEMS):
        lines = []
        for words in reference_words:
            out = [w if rng.random() > 0.35 else rng.choice(vocabulary[:2000]) for w in words]
            if rng.random() < 0.3:
                out = out[: max(1, len(out) - rng.randint(1, 4))]
            lines.append(" ".join(out).replace(" ,", ",").replace(" .", "."))
        systems.append(lines)
    reference = [" ".join(w).replace(" ,", ",").replace(" .", ".") for w in reference_words]
    return systems, reference


def build_corpus(segments: int) -> Tuple[List[str], List[str], str]:
    """`segments` (hypothesis, reference) pairs: the 16 systems, copy after copy, all prefixed."""
    loaded = _wmt_systems()
    source = "WMT17 en-de, 16 systems" if loaded else "synthetic (../shared/data absent), 16 systems x 3,004"
    systems, reference = loaded or _synthetic_systems()
    hypotheses: List[str] = []
    references: List[str] = []
    copy = 0
    while len(hypotheses) < segments:
        system = systems[copy % len(systems)]
        prefix = f"c{copy} "
        hypotheses.extend(prefix + line for line in system)
        references.extend(prefix + line for line in reference)
        copy += 1
    return hypotheses[:segments], references[:segments], source


# ----------------------------------------------------------------------------- implementations


def _ours(hypotheses: List[str], references: List[str]) -> Callable[[], Dict[str, Any]]:
    import evaluate

    metric = evaluate.load(str(REPO / "bleu_metric.py"))
    return lambda: metric.compute(predictions=hypotheses, references=references)


def _ours_arrow(hypotheses: List[str], references: List[str]) -> Callable[[], Dict[str, Any]]:
    """The same module through evaluate's cache: add_batch, then compute() (the Arrow round trip)."""
    import evaluate

    metric = evaluate.load(str(REPO / "bleu_metric.py"))

    def run() -> Dict[str, Any]:
        metric.add_batch(predictions=hypotheses, references=references)
        return metric.compute()

    return run


def _sacrebleu(hypotheses: List[str], references: List[str]) -> Callable[[], Dict[str, Any]]:
    from sacrebleu.metrics import BLEU

    def run() -> Dict[str, Any]:
        score = BLEU().corpus_score(hypotheses, [references])
        return {"bleu": score.score / 100}

    return run


def _bleuscore(hypotheses: List[str], references: List[str]) -> Callable[[], Dict[str, Any]]:
    import bleuscore

    grouped = [[r] for r in references]
    return lambda: bleuscore.compute(predictions=hypotheses, references=grouped, max_order=4, smooth=False)


def _nltk(hypotheses: List[str], references: List[str]) -> Callable[[], Dict[str, Any]]:
    """NLTK's corpus_bleu, on 13a tokens made by sacreBLEU's tokenizer (tokenizing is timed too)."""
    from nltk.translate.bleu_score import corpus_bleu
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    def run() -> Dict[str, Any]:
        tokenize = Tokenizer13a()
        hyp_tokens = [tokenize(line.rstrip()).split() for line in hypotheses]
        ref_tokens = [[tokenize(line.rstrip()).split()] for line in references]
        return {"bleu": corpus_bleu(ref_tokens, hyp_tokens)}

    return run


def _legacy(hypotheses: List[str], references: List[str]) -> Callable[[], Dict[str, Any]]:
    from legacy_nmt_bleu import legacy_bleu

    grouped = [[r] for r in references]
    return lambda: legacy_bleu(hypotheses, grouped)


def _ours_sentences(hypotheses: List[str], references: List[str]) -> Callable[[], Dict[str, Any]]:
    import evaluate

    metric = evaluate.load(str(REPO / "bleu_metric.py"))
    return lambda: metric.compute(predictions=hypotheses, references=references, return_sentence_scores=True,
                                  smooth="exp", effective_order=True)


def _sacrebleu_sentences(hypotheses: List[str], references: List[str]) -> Callable[[], Dict[str, Any]]:
    from sacrebleu.metrics import BLEU

    def run() -> Dict[str, Any]:
        metric = BLEU(smooth_method="exp", effective_order=True)
        return {"sentence_bleu": [metric.sentence_score(h, [r]).score / 100 for h, r in zip(hypotheses, references)]}

    return run


def _ours_bootstrap(hypotheses: List[str], references: List[str]) -> Callable[[], Dict[str, Any]]:
    import evaluate

    metric = evaluate.load(str(REPO / "bleu_metric.py"))

    def run() -> Dict[str, Any]:
        result = metric.compute(predictions=hypotheses, references=references, bootstrap_samples=1000)
        return {"mean": result["bleu_bootstrap_mean"], "half_width": (result["bleu_ci_high"] - result["bleu_ci_low"]) / 2}

    return run


def _sacrebleu_bootstrap(hypotheses: List[str], references: List[str]) -> Callable[[], Dict[str, Any]]:
    import logging

    from sacrebleu.metrics import BLEU

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)

    def run() -> Dict[str, Any]:
        score = BLEU().corpus_score(hypotheses, [references], n_bootstrap=1000)
        return {"mean": score._mean / 100, "half_width": score._ci / 100}

    return run


IMPLEMENTATIONS = {
    "ours": _ours,
    "ours-arrow": _ours_arrow,
    "sacrebleu": _sacrebleu,
    "bleuscore": _bleuscore,
    "nltk": _nltk,
    "legacy": _legacy,
    "ours-sentences": _ours_sentences,
    "sacrebleu-sentences": _sacrebleu_sentences,
    "ours-bootstrap": _ours_bootstrap,
    "sacrebleu-bootstrap": _sacrebleu_bootstrap,
}


def cpu_seconds() -> float:
    """CPU time of this process (all threads) and of its ended worker processes (num_workers forks
    them; `time.process_time` alone would leave their work out)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def worker(name: str, segments: int, repeat: int) -> Dict[str, Any]:
    """Runs in a fresh interpreter: build the corpus, set up, time `repeat` calls, report memory."""
    hypotheses, references, source = build_corpus(segments)
    corpus_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    setup_start = time.perf_counter()
    run = IMPLEMENTATIONS[name](hypotheses, references)
    setup_seconds = time.perf_counter() - setup_start
    setup_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), cpu_seconds()
        result = run()
        cpus.append(cpu_seconds() - cpu)
        walls.append(time.perf_counter() - wall)
    kept = {k: v for k, v in result.items() if k in ("bleu", "sentence_bleu", "mean", "half_width")}
    return {
        "name": name, "segments": segments, "source": source, "wall": min(walls), "cpu": min(cpus),
        "walls": walls, "setup": setup_seconds, "corpus_mib": corpus_kib / 1024, "setup_mib": setup_kib / 1024,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "result": kept,
    }


def measure(name: str, segments: int, repeat: int) -> Dict[str, Any]:
    command = [sys.executable, __file__, "--worker", name, "--segments", str(segments), "--repeat", str(repeat)]
    completed = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    if completed.returncode != 0:
        raise RuntimeError(f"{name} at {segments} segments failed:\n{_repository_relative(completed.stderr[-3000:])}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def try_evaluate_bleu() -> str:
    """Whether evaluate's own `bleu` loads with no network (it is fetched from the Hub)."""
    code = "import evaluate; evaluate.load('bleu'); print('loaded')"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1"}
    try:
        completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    except subprocess.TimeoutExpired:
        return "evaluate.load('bleu') did not finish in 120 s offline"
    if "loaded" in completed.stdout:
        return "evaluate.load('bleu') loaded offline (from a local cache)"
    last = (completed.stderr.strip().splitlines() or ["no output"])[-1]
    return f"evaluate.load('bleu') does not load offline: {_repository_relative(last)[:160]}"


# ----------------------------------------------------------------------------- comparing systems

# The comparison's baseline, and a hybrid system: the first half of one system's lines joined to
# the second half of another's. Several systems score within half a point of this baseline, so
# not every p-value is the smallest possible.
COMPARE_BASELINE = "online-B.0.de"
COMPARE_HYBRID = ("SYSTRAN.4847.de", "xmu.4910.de")
COMPARE_TESTS = {"bootstrap": ("--paired-bs", 1000), "ar": ("--paired-ar", 10000)}


def comparison_files(folder: Path) -> Tuple[Path, List[Path], str]:
    """(reference, systems with the baseline first, source): WMT17's files plus the hybrid written
    to `folder`; or, without ../shared/data, 17 synthetic systems written there."""
    loaded = _wmt_systems()
    if loaded is None:
        systems, reference = _synthetic_systems()
        paths = []
        for k, lines in enumerate(systems + [systems[0][: SYSTEM_LINES // 2] + systems[1][SYSTEM_LINES // 2 :]]):
            paths.append(folder / f"synthetic-{k}.txt")
            paths[-1].write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        reference_path = folder / "reference.txt"
        reference_path.write_text("".join(line + "\n" for line in reference), encoding="utf-8")
        return reference_path, paths, "synthetic (../shared/data absent), 17 systems x 3,004"
    names = [path.name for path in sorted(DATA.glob("*.de")) if path.name != REFERENCE_FILE]
    ordered = [DATA / COMPARE_BASELINE] + [DATA / name for name in names if name != COMPARE_BASELINE]
    first, second = (_read_lines(DATA / name) for name in COMPARE_HYBRID)
    hybrid = folder / f"hybrid-{'+'.join(name.split('.')[0] for name in COMPARE_HYBRID)}.de"
    half = len(first) // 2
    hybrid.write_text("".join(line + "\n" for line in first[:half] + second[half:]), encoding="utf-8")
    return DATA / REFERENCE_FILE, ordered + [hybrid], "WMT17 en-de: 16 systems + 1 hybrid"


def _run_compare_worker(method: str, reference: Path, systems: List[Path], repeat: int) -> Dict[str, Any]:
    # A separate small script: the process pays only what a user's compare command pays.
    command = [sys.executable, str(Path(__file__).resolve().parent / "compare_worker.py"), method, str(repeat),
               str(reference), *map(str, systems)]
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    process_wall = time.perf_counter() - started
    if completed.returncode != 0:
        raise RuntimeError(f"compare ({method}) failed:\n{_repository_relative(completed.stderr[-3000:])}")
    row = json.loads(completed.stdout.strip().splitlines()[-1])
    # One call's share of the process: startup and imports plus one end-to-end call.
    row["process"] = process_wall - sum(row["walls"]) + row["wall"]
    return row


def _run_sacrebleu_cli(method: str, reference: Path, systems: List[Path]) -> Dict[str, Any]:
    flag, _ = COMPARE_TESTS[method]
    command = [str(Path(sys.executable).parent / "sacrebleu"), str(reference), "-i", *map(str, systems),
               flag, "-j", "2", "-f", "json"]
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        raise RuntimeError(f"sacrebleu {flag} failed:\n{_repository_relative(completed.stderr[-3000:])}")
    return {"wall": wall, "systems": [entry["BLEU"] for entry in json.loads(completed.stdout)]}


def _comparison_agreement(ours: Dict[str, Any], theirs: List[Dict[str, Any]]) -> Tuple[float, float, float]:
    """Largest relative BLEU difference, largest relative mean/ci difference, and the largest
    p-value difference in trials (ours on the 0..1 scale, sacreBLEU's on 0..100)."""
    bleu = interval = trials = 0.0
    samples = ours["samples"]
    for mine, other in zip(ours["systems"], theirs, strict=True):
        bleu = max(bleu, _relative(100 * mine["bleu"], other["score"]))
        if other["mean"] is not None:
            interval = max(interval, _relative(100 * mine["mean"], other["mean"]), _relative(100 * mine["ci"], other["ci"]))
        if other["p_value"] is not None:
            trials = max(trials, abs(mine["p_value"] - other["p_value"]) * (samples + 1))
    return bleu, interval, trials


def _p(value: Any) -> str:
    return "" if value is None else f"{value:.4f}"


def _best_compare_worker(
    method: str, reference: Path, systems: List[Path], repeat: int, processes: int
) -> Dict[str, Any]:
    """The fastest of `processes` fresh interpreters (the machine is shared: best-of, as elsewhere),
    with the best call over all of them."""
    rows = [_run_compare_worker(method, reference, systems, repeat) for _ in range(processes)]
    best = min(rows, key=lambda row: row["process"])
    best["wall"] = min(row["wall"] for row in rows)
    return best


def compare_section(repeat: int, processes: int = 3) -> None:
    with tempfile.TemporaryDirectory(prefix="bleu-compare-") as folder:
        reference, systems, source = comparison_files(Path(folder))
        print(f"\nComparing systems ({source}; {len(systems)} systems, baseline {systems[0].name}, "
              "smooth exp as sacreBLEU): this module's compare, end to end from the text files, against "
              "the sacreBLEU command line with 2 worker processes (-j 2):")
        print(f"{'test':42s} {'ours s':>7s} {'ours+start s':>13s} {'sacreBLEU s':>12s} {'x call':>7s} "
              f"{'x process':>10s} {'peak MiB':>9s}  agreement with sacreBLEU")
        results = {}
        for method, (flag, samples) in COMPARE_TESTS.items():
            ours = _best_compare_worker(method, reference, systems, repeat, processes)
            theirs = _run_sacrebleu_cli(method, reference, systems)
            results[method] = (ours, theirs)
            bleu, interval, trials = _comparison_agreement(ours["result"], theirs["systems"])
            ok = bleu <= 1e-10 and interval <= 1e-12 and trials == 0  # p-values equal, not close
            agreement = (f"{'yes' if ok else 'NO'}: BLEU rel {bleu:.0e}, mean/ci rel {interval:.0e}, "
                         f"p-values within {trials:.0f} trial(s)")
            label = f"{method} ({samples:,} {'resamples' if method == 'bootstrap' else 'trials'}, {flag})"
            print(f"{label:42s} {ours['wall']:7.2f} {ours['process']:13.2f} {theirs['wall']:12.2f} "
                  f"{theirs['wall'] / ours['wall']:7.1f} {theirs['wall'] / ours['process']:10.1f} "
                  f"{ours['peak_mib']:9.0f}  {agreement}")
        print(f"(ours s: best of {repeat} calls in each of {processes} interpreters, reading the files included; "
              "ours+start s: the fastest interpreter's start, imports and best call; x call / x process: sacreBLEU's time "
              "over each)")
        print(f"\n{'system':42s} {'BLEU':>7s} {'bs p':>7s} {'sacreBLEU':>9s} {'ar p':>7s} {'sacreBLEU':>9s}  "
              "mean ± ci (bootstrap)")
        (bs_ours, bs_theirs), (ar_ours, ar_theirs) = results["bootstrap"], results["ar"]
        rows = zip(bs_ours["result"]["systems"], bs_theirs["systems"], ar_ours["result"]["systems"], ar_theirs["systems"])
        for mine, theirs, mine_ar, theirs_ar in rows:
            print(f"{mine['name']:42s} {100 * mine['bleu']:7.2f} {_p(mine['p_value']):>7s} "
                  f"{_p(theirs['p_value']):>9s} {_p(mine_ar['p_value']):>7s} {_p(theirs_ar['p_value']):>9s}  "
                  f"{100 * mine['mean']:.2f} ± {100 * mine['ci']:.2f}")


# ----------------------------------------------------------------------------- the report


def _repository_relative(text: str) -> str:
    """The text with this machine's absolute paths of the repository written relative to it."""
    return text.replace(str(REPO) + os.sep, "").replace(str(REPO), ".")


def _machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    import numpy
    import pandas
    import pyarrow

    return (f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {numpy.__version__}, "
            f"pandas {pandas.__version__}, pyarrow {pyarrow.__version__}")


def _relative(a: float, b: float) -> float:
    return abs(a - b) / abs(b) if b else abs(a - b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="scaling up to 48k segments, fewer repeats")
    parser.add_argument("--compare", action="store_true", help="only the significance tests against sacreBLEU's CLI")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--segments", type=int, default=CORPUS_SEGMENTS, help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.segments, args.repeat)))
        return
    if args.compare:
        print(f"Machine: {_machine()}; load average at start {os.getloadavg()[0]:.1f}")
        compare_section(repeat=3)
        return

    fast_repeat = 2 if args.quick else 3
    print(f"Machine: {_machine()}; load average at start {os.getloadavg()[0]:.1f}")
    rows = [(name, measure(name, CORPUS_SEGMENTS, repeat)) for name, repeat in (
        ("ours", fast_repeat), ("ours-arrow", fast_repeat), ("bleuscore", fast_repeat),
        ("sacrebleu", 1), ("legacy", 1), ("nltk", 1))]
    ours = rows[0][1]
    print(f"Corpus: {CORPUS_SEGMENTS:,} segments ({ours['source']}), 13a tokenizer, one reference; "
          f"the loaded corpus alone: {ours['corpus_mib']:.0f} MiB resident")
    labels = {
        "ours": "this module: evaluate.load(...).compute(...)",
        "ours-arrow": "this module via evaluate's cache (add_batch+compute)",
        "bleuscore": "bleuscore 0.2 (Rust, multithreaded)",
        "sacrebleu": "sacreBLEU corpus_score",
        "legacy": "legacy tensorflow/nmt algorithm (bench/legacy_nmt_bleu.py)",
        "nltk": "NLTK corpus_bleu (on sacreBLEU 13a tokens)",
    }
    print("(wall: best of the repeats; cpu: CPU time of that process (all threads) and its worker processes; x ours: wall / ours; "
          "peak: the calling process's peak RSS, corpus and libraries included; worker processes share its pages)")
    print(f"\n{'implementation':60s} {'wall s':>7s} {'cpu s':>7s} {'x ours':>7s} {'peak MiB':>9s}  BLEU, agrees?")
    for name, row in rows:
        bleu = row["result"]["bleu"]
        difference = _relative(bleu, ours["result"]["bleu"])
        agrees = "yes" if difference <= 1e-10 else f"NO, {difference:.1e}"
        if name == "nltk" and difference > 1e-10:
            agrees += " (by design: NLTK counts max(1, n) n-grams for hypotheses shorter than n)"
        print(f"{labels[name]:60s} {row['wall']:7.2f} {row['cpu']:7.2f} {row['wall'] / ours['wall']:7.1f} "
              f"{row['peak_mib']:9.0f}  {bleu:.12f} {agrees}")
    arrow = rows[1][1]["wall"] - ours["wall"]
    print(f"evaluate's Arrow round trip costs {arrow:.2f} s here ({arrow / ours['wall']:.0%} of the direct call), "
          "so compute(predictions=..., references=...) skips it; add_batch streaming and num_process > 1 use it.")
    print(try_evaluate_bleu())

    print(f"\nThe {SYSTEM_LINES:,}-segment test set (one system), end to end:")
    small = {name: measure(name, SYSTEM_LINES, repeat) for name, repeat in (
        ("ours", 10), ("legacy", 1), ("sacrebleu", 1), ("ours-sentences", 10), ("sacrebleu-sentences", 2),
        ("ours-bootstrap", 5), ("sacrebleu-bootstrap", 1))}
    print(f"  corpus BLEU: this module {small['ours']['wall'] * 1000:.0f} ms, legacy algorithm "
          f"{small['legacy']['wall'] * 1000:.0f} ms ({small['legacy']['wall'] / small['ours']['wall']:.0f}x; "
          f"evaluate's bleu adds its Arrow round trip on top), sacreBLEU {small['sacrebleu']['wall'] * 1000:.0f} ms")
    ours_sentences = small["ours-sentences"]["result"]["sentence_bleu"]
    their_sentences = small["sacrebleu-sentences"]["result"]["sentence_bleu"]
    worst = max(_relative(a, b) for a, b in zip(ours_sentences, their_sentences))
    print(f"  sentence BLEU (smooth exp, effective order), all {SYSTEM_LINES:,}: this module "
          f"{small['ours-sentences']['wall'] * 1000:.0f} ms, sacreBLEU sentence_score loop "
          f"{small['sacrebleu-sentences']['wall'] * 1000:.0f} ms "
          f"({small['sacrebleu-sentences']['wall'] / small['ours-sentences']['wall']:.0f}x); "
          f"largest relative difference {worst:.1e}")
    ob, sb = small["ours-bootstrap"], small["sacrebleu-bootstrap"]
    print(f"  bootstrap, 1,000 resamples, seed 12345: this module {ob['wall'] * 1000:.0f} ms, sacreBLEU "
          f"{sb['wall'] * 1000:.0f} ms; mean {ob['result']['mean']:.10f} vs {sb['result']['mean']:.10f}, "
          f"95% half-width {ob['result']['half_width']:.10f} vs {sb['result']['half_width']:.10f} "
          "(sacreBLEU scores resamples in float32)")

    sizes = [3004, 30040, 48064] + ([] if args.quick else [300400, 480640])
    print("\nScaling (this module, end to end; RSS after building the corpus, after loading the libraries "
          "and the metric, and the peak during compute):")
    print(f"{'segments':>9s} {'wall s':>8s} {'cpu s':>8s} {'vs 10x fewer':>13s} {'corpus MiB':>11s} "
          f"{'loaded MiB':>11s} {'peak MiB':>9s} {'compute adds':>13s}")
    scaled: Dict[int, Dict[str, Any]] = {}
    for size in sizes:
        row = measure("ours", size, 2 if size > 100000 else 2 * fast_repeat)
        scaled[size] = row
        tenth = scaled.get(size // 10)
        ratio = f"{row['wall'] / tenth['wall']:.1f}x" if tenth else ""
        print(f"{size:9,d} {row['wall']:8.2f} {row['cpu']:8.2f} {ratio:>13s} {row['corpus_mib']:11.0f} "
              f"{row['setup_mib']:11.0f} {row['peak_mib']:9.0f} {row['peak_mib'] - row['setup_mib']:13.0f}")

    compare_section(repeat=2 if args.quick else 3)


if __name__ == "__main__":
    main()

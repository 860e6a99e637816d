"""ja-mecab, ko-mecab and the SentencePiece tokenizers: this module's corpus BLEU against sacreBLEU's.

Run from the repository root (needs the optional tokenizer packages of requirements-test.txt):

    python bench/bench_tokenizers.py            # 3,000 and 30,000 segments, best of 3
    python bench/bench_tokenizers.py --quick    # 3,000 segments, best of 2

For each tokenizer and size it times, in this process, best of the repeats:
- cold: a new tokenizer with an empty memo, tokenizer creation included, on both sides
  (sacreBLEU: `BLEU(tokenize=...)` after clearing its per-line lru_cache; then `corpus_score`);
- again: the same references with new hypotheses, as a training run's next evaluation: this module
  through its shared tokenizer (its memo holds the references), sacreBLEU reusing its BLEU object
  (its best case: its lru_cache of 2**16 lines holds what fits).
Every score is checked against sacreBLEU's (relative 1e-10), and the ratio printed.

The text is generated from the hand-written sentences of tests/cjk_corpus.py (no corpus is
downloaded): each segment joins two or three of them, numbered so that every line is distinct (no
cache helps within a run); the hypothesis takes the machine-like phrasing, the reference a human
one. The SentencePiece tokenizers use sacreBLEU's model files when $SACREBLEU/models (or
~/.sacrebleu/models) has them; otherwise one unigram model trained here on the generated text (as
many pieces as that text yields, about 1,400; flores200's has 256,000) stands in for the missing
ones, so their rows time the same model, and the output says which model each row used.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from cjk_corpus import JAPANESE, KOREAN  # noqa: E402

LANGUAGE = {"ja-mecab": JAPANESE, "ko-mecab": KOREAN, "flores101": JAPANESE + KOREAN,
            "flores200": JAPANESE + KOREAN, "spBLEU-1K": JAPANESE + KOREAN}


def segments(corpus, count: int, seed: int) -> Tuple[List[str], List[str]]:
    """`count` distinct (hypothesis, reference) lines built from the corpus' sentences."""
    rng = random.Random(seed)
    usable = [(p, refs) for p, refs in corpus if p]
    hypotheses, references = [], []
    for index in range(count):
        parts = rng.sample(usable, rng.randint(2, 3))
        marker = f"{index + seed * 1_000_000}"
        hypotheses.append(marker + " " + " ".join(p for p, _ in parts))
        references.append(marker + " " + " ".join(rng.choice(refs) for _, refs in parts))
    return hypotheses, references


def best_of(repeats: int, run: Callable[[], float]) -> Tuple[float, float]:
    """(best wall time, the score) over the repeats; `run` prepares its own cold state."""
    times, score = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        score = run()
        times.append(time.perf_counter() - start)
    return min(times), score


def prepare_models(folder: Path) -> Dict[str, str]:
    """Which SentencePiece models are sacreBLEU's real files, and a stand-in for the others."""
    from bleukit.tokenizers.spm import SPM_MODELS, default_model_path

    found = {name: "sacreBLEU's model" for name in SPM_MODELS if os.path.isfile(default_model_path(name))}
    missing = [name for name in SPM_MODELS if name not in found]
    if missing:
        import sentencepiece

        lines = [line for corpus in (JAPANESE, KOREAN) for seed in (1, 2) for pair in zip(*segments(corpus, 3000, seed))
                 for line in pair]
        (folder / "models").mkdir()
        stand_in = folder / "stand-in.model"
        with open(stand_in, "wb") as model:
            sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, vocab_size=8000,
                                                     hard_vocab_limit=False, character_coverage=0.9995, minloglevel=2)
        pieces = sentencepiece.SentencePieceProcessor(model_file=str(stand_in)).get_piece_size()
        real = os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))
        for name in SPM_MODELS:  # one folder with every file: the real ones copied, the stand-in for the rest
            target = folder / "models" / SPM_MODELS[name].file_name
            if not target.exists():
                source = Path(real) / "models" / SPM_MODELS[name].file_name if name in found else stand_in
                target.write_bytes(source.read_bytes())
        os.environ["SACREBLEU"] = str(folder)
        import sacrebleu.tokenizers.tokenizer_spm as sacrebleu_spm

        sacrebleu_spm.SACREBLEU_DIR = str(folder)
        for name in missing:
            found[name] = f"stand-in model ({pieces:,} pieces, unigram, trained here on the generated text)"
    return found


def time_tokenizer(name: str, size: int, repeats: int) -> Dict[str, float]:
    from sacrebleu.metrics import BLEU
    from sacrebleu.metrics.bleu import _get_tokenizer

    from bleukit.core import compute_bleu
    from bleukit.tokenizers.registry import TOKENIZERS, get_tokenizer

    hypotheses, references = segments(LANGUAGE[name], size, seed=7)
    new_hypotheses, _ = segments(LANGUAGE[name], size, seed=8)
    new_hypotheses = [h.split(" ", 1)[1] for h in new_hypotheses]
    sacrebleu_call = _get_tokenizer(name).__call__

    def ours_cold() -> float:
        return compute_bleu(hypotheses, references, tokenizer=TOKENIZERS[name](), smooth="exp")["bleu"]

    def theirs_cold() -> float:
        sacrebleu_call.cache_clear()
        return BLEU(tokenize=name).corpus_score(hypotheses, [references]).score / 100

    ours_cold_s, ours_score = best_of(repeats, ours_cold)
    theirs_cold_s, theirs_score = best_of(repeats, theirs_cold)
    assert abs(ours_score - theirs_score) <= 1e-10 * abs(theirs_score), (name, ours_score, theirs_score)

    shared = get_tokenizer(name)
    compute_bleu(hypotheses, references, tokenizer=shared, smooth="exp")  # the first evaluation
    sacrebleu_call.cache_clear()
    metric = BLEU(tokenize=name)
    metric.corpus_score(hypotheses, [references])
    ours_again_s, ours_again = best_of(1, lambda: compute_bleu(new_hypotheses, references, tokenizer=shared,
                                                               smooth="exp")["bleu"])
    theirs_again_s, theirs_again = best_of(1, lambda: metric.corpus_score(new_hypotheses, [references]).score / 100)
    assert abs(ours_again - theirs_again) <= 1e-10 * abs(theirs_again), (name, ours_again, theirs_again)
    return {"ours_cold": ours_cold_s, "theirs_cold": theirs_cold_s, "ours_again": ours_again_s,
            "theirs_again": theirs_again_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3,000 segments only, best of 2")
    parser.add_argument("--tokenizers", nargs="*", default=list(LANGUAGE))
    args = parser.parse_args()
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    sizes, repeats = ([3000], 2) if args.quick else ([3000, 30000], 3)
    import sacrebleu

    print(f"python {platform.python_version()}, sacreBLEU {sacrebleu.__version__}, {os.cpu_count()} CPUs, "
          f"load average {' '.join(open('/proc/loadavg').read().split()[:3]) if os.path.exists('/proc/loadavg') else '?'}")
    with tempfile.TemporaryDirectory() as folder:
        models = prepare_models(Path(folder)) if any(n not in ("ja-mecab", "ko-mecab") for n in args.tokenizers) else {}
        print(f"{'tokenizer':<11} {'segments':>8} | {'cold: ours':>10} {'sacreBLEU':>10} {'ratio':>6} | "
              f"{'again: ours':>11} {'sacreBLEU':>10} {'ratio':>6}")
        for name in args.tokenizers:
            for size in sizes:
                t = time_tokenizer(name, size, repeats)
                print(f"{name:<11} {size:>8,} | {t['ours_cold']:>9.2f}s {t['theirs_cold']:>9.2f}s "
                      f"{t['theirs_cold'] / t['ours_cold']:>5.1f}x | {t['ours_again']:>10.2f}s "
                      f"{t['theirs_again']:>9.2f}s {t['theirs_again'] / t['ours_again']:>5.1f}x", flush=True)
        for name, what in models.items():
            if name in args.tokenizers:
                print(f"  {name}: {what}")
    print(f"load average after: {' '.join(open('/proc/loadavg').read().split()[:3])}")


if __name__ == "__main__":
    main()

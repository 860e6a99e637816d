"""Confidence intervals two ways, on the first N WMT17 segments (uedin-nmt against the reference):

- `evaluate`'s evaluator, `strategy="bootstrap"`: scipy's bootstrap calls `metric.compute` once per
  resample and per key of the result (six keys with `with_signature=False`);
- this module's `bootstrap_samples`: sacreBLEU's draws, each resample a weighted sum of the
  per-segment statistics, all in one pass.

    python bench/evaluator_bootstrap.py [N] [RESAMPLES]
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "wmt17-en-de"


def main(count: int = 500, resamples: int = 200) -> None:
    import evaluate
    from evaluate.evaluator import TranslationEvaluator

    hypotheses = (DATA / "uedin-nmt.4722.de").read_text(encoding="utf-8").splitlines()[:count]
    references = (DATA / "newstest2017-ende.ref.de").read_text(encoding="utf-8").splitlines()[:count]
    metric = evaluate.load(str(ROOT / "bleu_metric.py"), with_signature=False)
    evaluator = TranslationEvaluator.__new__(TranslationEvaluator)  # its pipeline is not needed here
    inputs = {"predictions": hypotheses, "references": references}
    start = time.perf_counter()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        theirs = evaluator.compute_metric(metric, inputs, strategy="bootstrap", n_resamples=resamples, random_state=0)
    evaluator_seconds = time.perf_counter() - start
    start = time.perf_counter()
    ours = metric.compute(**inputs, bootstrap_samples=resamples)
    ours_seconds = time.perf_counter() - start
    print(f"{count} segments, {resamples} resamples")
    print(f"evaluator strategy='bootstrap' (scipy, BCa): {evaluator_seconds:8.3f} s  "
          f"bleu 95% CI {theirs['bleu']['confidence_interval'][0]:.4f}-{theirs['bleu']['confidence_interval'][1]:.4f}")
    print(f"compute(bootstrap_samples=...)  (one pass):   {ours_seconds:8.3f} s  "
          f"bleu 95% CI {ours['bleu_ci_low']:.4f}-{ours['bleu_ci_high']:.4f}")
    print(f"ratio: {evaluator_seconds / ours_seconds:.0f}x")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]))

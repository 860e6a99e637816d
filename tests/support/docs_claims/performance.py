"""docs/performance.md's claims: the benchmark corpus, the bootstrap's numbers, the chunks and threads.

Others edit docs/performance.md: wrong numbers there are reported (Claim.reported), not fixed here."""

from __future__ import annotations

from typing import List, Tuple

from docs_numbers import Claim

from .common import REFERENCE, WMT17_SYSTEMS, Code, constant


CLAIMS: List[Claim] = [
    Claim("docs/performance.md", "The corpus is the {} WMT17 en-de systems in `../shared/data/wmt17-en-de` concatenated ({}\nsegments, one reference)",
          lambda code: [len(WMT17_SYSTEMS), len(WMT17_SYSTEMS) * len(code.lines(REFERENCE))]),
    Claim("docs/performance.md", "bootstrap, 1,000 resamples, seed 12345: this module {_} ms, sacreBLEU {_} ms; mean {} vs {_}, "
          "95% half-width {} vs {_}",
          lambda code: [(r := code.compute(*benchmark_corpus(code, 3004), bootstrap_samples=1000))["bleu_bootstrap_mean"],
                        (r["bleu_ci_high"] - r["bleu_ci_low"]) / 2]),
    Claim("docs/performance.md", "`13a` and `none` tokenize up to {} segments in one pass",
          lambda code: [constant("bleukit/core.py", "CHUNK_SEGMENTS")]),
    Claim("docs/performance.md", "Chunks run on up to {} threads", lambda code: [constant("bleukit/counting/parallel.py", "MAX_THREADS")]),
    Claim("docs/performance.md", "(`num_workers=\"auto\"`: {} segments and more)",
          lambda code: [constant("bleukit/counting/parallel.py", "PROCESS_MIN_SEGMENTS")]),
]


def benchmark_corpus(code: Code, segments: int) -> Tuple[List[str], List[str]]:
    """bench/benchmark.py's corpus: the 16 systems copy after copy, each copy's lines prefixed `c0 `, `c1 `..."""
    hypotheses, references, copy = [], [], 0
    while len(hypotheses) < segments:
        prefix = f"c{copy} "
        hypotheses += [prefix + line for line in code.lines(WMT17_SYSTEMS[copy % len(WMT17_SYSTEMS)])]
        references += [prefix + line for line in code.lines(REFERENCE)]
        copy += 1
    return hypotheses[:segments], references[:segments]

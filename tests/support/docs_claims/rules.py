"""Numbers that mean one thing wherever they stand, on any page: each occurrence is checked."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, List

from .common import constant
from .performance import benchmark_corpus


@dataclass
class Rule:
    pattern: str  # one group per number
    values: Callable[..., List[Any]]  # values(code)
    what: str
    pages: str = ".*"


GLOBAL_RULES = [
    Rule(r"version:bleu_metric-(\d+\.\d+\.\d+)", lambda code: [__import__("bleukit.version").version.__version__],
         "the signature's version is bleukit's"),
    Rule(r"(?<![\w.])(-100)(?![\d.])", lambda code: [constant("bleukit/integrations/trainer_batches.py", "IGNORE_INDEX")],
         "-100 is transformers' label padding"),
    Rule(r"ja-mecab-(\d[\d.]*)-IPA", lambda code: [tokenizer_name("ja-mecab").split("-")[2]], "ja-mecab's signature name"),
    Rule(r"ko-mecab-(\d[\d.]*)/ko-(\d[\d.]*)-KO", lambda code: re.findall(r"(\d[\d.]*\d)", tokenizer_name("ko-mecab")),
         "ko-mecab's signature name"),
    Rule(r"(0\.\d{12}) yes", lambda code: [code.compute(*benchmark_corpus(code, 48064))["bleu"]],
         "the benchmark corpus' BLEU (bench/benchmark.py)", "docs/performance.md"),
]


def tokenizer_name(name: str) -> str:
    from bleukit.options import resolve_options

    return resolve_options(tokenizer=name).signature(1).split("tok:")[1].split("|")[0]

"""README.md's claims: the card's example, its options' defaults, its summaries of the measured pages."""

from __future__ import annotations

import re
from typing import List

from docs_numbers import AtMost, Claim
from docs_pages import Doc

from .common import (CARD_PREDICTIONS, CARD_REFERENCES, Code, constant, default_of, default_order, nltk_bleu, smoothing,
                     table_cell)


CLAIMS: List[Claim] = [
    Claim("README.md", 'references=references)\nprint(result["bleu"], result["signature"])\n# {*}', lambda code, out: [out.stdout.strip()], line=True),
    Claim("README.md", "counts the n-grams (orders 1 to {} by default)", lambda code: [default_order(code)]),
    Claim("README.md", "| `max_order` | `{}` |", lambda code: [default_order(code)]),
    Claim("README.md", "| `bootstrap_samples` | `{}` |", lambda code: [default_of("bootstrap_samples")]),
    Claim("README.md", "| `bootstrap_seed` | `{}` |", lambda code: [default_of("bootstrap_seed")]),
    Claim("README.md", 'epsilon of `"floor"` ({}) and `"method1"` ({}); k of `"add-k"` ({}) and of `"method4"`/`"method7"` ({}); '
          'alpha of `"method6"` ({})',
          lambda code: [smoothing("floor"), smoothing("method1"), smoothing("add-k"), smoothing("method4"), smoothing("method6")]),
    Claim("README.md", "for large inputs only ({} segments and more",
          lambda code: [constant("bleukit/counting/parallel.py", "PROCESS_MIN_SEGMENTS")]),
    Claim("README.md", "`translation_length / reference_length`; {} when the reference length is {} |",
          lambda code: [(r := code.compute(["a b"], [[""]]))["length_ratio"], r["reference_length"]]),
    Claim("README.md", "every option that changes the number, e.g. `{*}` |",
          lambda code: [signature_line(code.compute(["a"], [["a"]])["signature"])]),
    Claim("README.md", "`nrefs` (references per prediction, `{*}` when it varies)",
          lambda code: [card(code)["signature"].split("nrefs:")[1].split("|")[0]]),
    Claim("README.md", "(NLTK gives {} for a six-word exact match with method {})",
          lambda code: [nltk_bleu("a b c d e f", ["a b c d e f"], 5), 5]),
    Claim("README.md", "(`['a a']` against `[['a']]`, `tokenizer=\"none\"`, `max_order={}`, `smooth_value={}`: {}, as sacreBLEU)",
          lambda code: [2, 7, code.compute(["a a"], [["a"]], tokenizer="none", max_order=2, smooth="floor", smooth_value=7)["bleu"]]),
    Claim("README.md", "small k (k = {}: {} for `a b c x` against `a b c d`, as NLTK)",
          lambda code: [0.1, code.compute(["a b c x"], [["a b c d"]], tokenizer="none", smooth="method4", smooth_value=0.1)["bleu"]]),
    Claim("README.md", '(`["a b c d e a"]` against `[["a b c d", "b c d e a"]]`, `tokenizer="none"`: {}, as NLTK)',
          lambda code: [code.compute(["a b c d e a"], [["a b c d", "b c d e a"]], tokenizer="none", smooth="method6")["bleu"]]),
    Claim("README.md", "and all-empty corpora score {}, with no", lambda code: [code.compute([""], [[""]])["bleu"]]),
    # the card's summaries of the measured pages, each no more than the page measured
    Claim("README.md", "with its p-values exactly, {}x faster",
          lambda code: [AtMost(min(float(row[4]) for row in text_rows("docs/comparing.md", r"(bootstrap|ar) \(")))]),
    Claim("README.md", "self-BLEU, {}x a sacreBLEU loop for MBR",
          lambda code: [AtMost(float(next(line for line in Doc("docs/diversity.md").lines
                                          if re.match(r"\s+sacreBLEU loop \|", line)).split("|")[2]))]),
    Claim("README.md", "(`num_workers`, {}x on 2 cores and {}x on 16 cores at 480k segments)",
          lambda code: [table_cell("docs/scaling.md", "**Measured**", r"480,640 \| 2 \(= auto\)", 3),
                        table_cell("docs/scaling.md", "480,640 segments (auto chose 16", r"auto", 2)]),
    Claim("README.md", "(on an H200, 2026-11-26: {}-{}x a TensorBLEU-style implementation, {}-{}x an NLTK loop)",
          lambda code: [*tensor_gpu_ratios(4), *tensor_gpu_ratios(5)]),
]


def card(code: Code) -> dict:
    return code.compute(CARD_PREDICTIONS, CARD_REFERENCES)


def signature_line(signature: str) -> str:
    return signature.replace("|", "\\|")  # as a Markdown table writes it


def text_rows(page: str, first: str) -> List[List[str]]:
    """The rows of a page's measured text tables whose first column matches `first`, cut at runs of
    two or more spaces (for the card's summaries of them)."""
    return [re.split(r"\s{2,}", line.strip()) for line in Doc(page).lines if re.match(first, line)]


def tensor_gpu_ratios(column: int) -> List[float]:
    """The smallest and largest ratio of docs/rewards.md's H200 table (tb/ours: column 4, nltk/ours: 5)."""
    lines = Doc("docs/rewards.md").lines
    start = next(i for i, line in enumerate(lines) if line.startswith("**GPU, measured on"))
    values = []
    for line in lines[start:]:
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) == 7 and re.fullmatch(r"[\d.]+", cells[column]):
            values.append(float(cells[column]))
        if values and line.strip() == "```":
            break
    return [min(values), max(values)]

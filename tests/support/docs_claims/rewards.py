"""docs/rewards.md's claims: the TRL reward's scores, the token-id tensors' example, its CPU and H200 tables."""

from __future__ import annotations

import re
from typing import Dict, List

from docs_numbers import Claim
from docs_pages import Doc

from .common import Code, card_names, constant, smoothing


REWARD_COMPLETIONS = ["the cat sat", "a cat sat on a mat", "a cat", "the dog sat on the log"]


CLAIMS: List[Claim] = [
    Claim("docs/rewards.md", '"a cat" and "the dog sat on the log"\n  all score {} unsmoothed; with the defaults they score {}, {}, {} and {}.',
          lambda code: [max(rewards(code, smooth="none", effective_order=False)), *rewards(code)]),
    Claim("docs/rewards.md", "`smooth=\"floor\"` (`smooth_value`, default {}, matches", lambda code: [smoothing("floor")]),
    Claim("docs/rewards.md", "# float64 (B,) on cuda: [{}, {}]", lambda code, out: out.value.tolist(), line=True),
    Claim("docs/rewards.md", "so the number of references may vary per segment (here {}, then {})",
          lambda code: [int(row[-2]) for row in tensor_rows()]),
    Claim("docs/rewards.md", "(e.g. `segment {} has no reference: every reference row of references[{}] is\n"
          "  all padding (negative ids or in ignore_ids=[{}])`)", lambda code: missing_reference_message()),
    Claim("docs/rewards.md", "(there it is {}-{}x faster than the torch counting alone, the `torch-count` column below)",
          lambda code: torch_count_ratios()),
    Claim("docs/rewards.md", "at least 2x the\nTensorBLEU-style code at every size is **not** met: {} of the {} sizes measured are at {}x to {}x "
          "(the small\nones, where ours takes 3 to 4 ms), and it is {}x to {}x at the other {} ({}x at 1024 x 256 x 4)",
          lambda code: gpu_goal()),
    Claim("docs/rewards.md", "at\nleast 200x the NLTK loop at 256 x 1024 is met ({}x with one reference, {}x with four)",
          lambda code: [gpu_row("256 x 1024 x 1")["nltk/ours"], gpu_row("256 x 1024 x 4")["nltk/ours"]]),
    Claim("docs/rewards.md", "(with `--anchor-timeout`, {} s by default)", lambda code: [constant("bench/bench_tensor.py", "ANCHOR_TIMEOUT_S")]),
]


def rewards(code: Code, **options) -> List[float]:
    """docs/rewards.md's four completions against "the cat sat on the mat", through the TRL reward."""
    reward = code.bleu.reward_function(reference_column="reference", **options)
    return reward(prompts=[""] * 4, completions=REWARD_COMPLETIONS, reference=["the cat sat on the mat"] * 4)


def tensor_example():
    """docs/rewards.md's padded tensors (pad 0)."""
    import torch

    predictions = torch.tensor([[5, 6, 7, 8, 0, 0], [0, 0, 3, 3, 3, 3]])
    references = torch.tensor([[[5, 6, 7, 9, 0, 0, 0], [5, 6, 7, 8, 1, 2, 0]], [[3, 3, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0]]])
    return predictions, references


def tensor_rows():
    """The example's statistics rows: a token-id row ends with 1, r, r * r for r references."""
    import bleukit.tensor.scores as scores

    return scores.statistics(*tensor_example(), ignore_ids=[0], per_segment=True).tolist()


def missing_reference_message() -> List[int]:
    import bleukit.tensor.scores as scores

    predictions, references = tensor_example()
    references[1] = 0
    try:
        scores.sentence_bleu(predictions, references, ignore_ids=[0])
    except ValueError as error:
        found = re.match(r"segment (\d+) has no reference: every reference row of references\[(\d+)\] is all padding "
                         r"\(negative ids or in ignore_ids=\[(\d+)\]\)", str(error))
        return [int(n) for n in found.groups()] if found else [str(error)] * 3
    return ["no error"] * 3


def torch_count_ratios() -> List[float]:
    """docs/rewards.md's CPU table: the torch counting's time over ours, smallest and largest."""
    rows = [[cell.strip().rstrip("*") for cell in line.split("|")] for line in Doc("docs/rewards.md").lines
            if re.match(r"\s+\d+ x \d+ x \d+ \|", line) and line.count("|") == 7]
    ratios = [float(row[2]) / float(row[1]) for row in rows]
    return [min(ratios), max(ratios)]


def gpu_row(size: str) -> Dict[str, float]:
    """A row of docs/rewards.md's H200 table, by its columns' names."""
    lines = Doc("docs/rewards.md").lines
    start = next(i for i, line in enumerate(lines) if line.startswith("**GPU, measured on"))
    for line in lines[start:]:
        cells = [cell.strip().rstrip("*") for cell in line.split("|")]
        if cells[0] == size:
            return dict(zip(["ours", "tb", "nltk", "tb/ours", "nltk/ours"], map(float, cells[1:6])))
    raise LookupError(size)


def gpu_goal() -> list:
    """The H200 table's tb/ours column against the goal of 2x: how many sizes miss it, their range, the rest's."""
    lines = Doc("docs/rewards.md").lines
    start = next(i for i, line in enumerate(lines) if line.startswith("**GPU, measured on"))
    ratios = []
    for line in lines[start:]:
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) == 7 and re.fullmatch(r"[\d.]+", cells[4]):
            ratios.append(float(cells[4]))
        if ratios and line.strip() == "```":
            break
    below, above = [r for r in ratios if r < 2], [r for r in ratios if r >= 2]
    return [len(below), len(ratios), min(below), max(below), min(above), max(above), len(above),
            gpu_row("1024 x 256 x 4")["tb/ours"]]


def rewards_names(code: Code) -> dict:
    """The names docs/rewards.md's blocks assume."""
    import torch

    return {**card_names(code), "torch": torch}

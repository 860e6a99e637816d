"""docs/diversity.md's claims: self-BLEU, pairwise BLEU, the MBR summary of its GPU table."""

from __future__ import annotations

from typing import List

from docs_numbers import Claim

from .common import Code, card_names, table_cell


CLAIMS: List[Claim] = [
    Claim("docs/diversity.md", 'result["self_bleu"]       # {}:', lambda code, out: [out.value], line=True),
    Claim("docs/diversity.md", 'result["signature"]       # {*}|version:...', lambda code, out: [out.value.split("|version")[0]],
          line=True),
    Claim("docs/diversity.md", "own). {} when every text has a copy", lambda code: [code.bleu.self_bleu(["a b c d", "a b c d"])["self_bleu"]]),
    Claim("docs/diversity.md", "({}/{} is\n  {} there)", lambda code: [1, 3, float(__import__("numpy").float32(1 / 3))]),
    Claim("docs/diversity.md", 'result["signature"]   # {*}|...', lambda code, out: [out.value.split("|")[0]], line=True),
    Claim("docs/diversity.md", "the diagonal is each text against itself ({}, or {} for an empty text)",
          lambda code: list(__import__("numpy").diag(code.bleu.pairwise(["a b c d", ""])["bleu"]))),
    Claim("docs/diversity.md", "([below](#mbr-on-a-gpu)): {}x to\n{}x the same call on CPU tensors",
          lambda code: [min(cells := [table_cell("docs/diversity.md", "### MBR on a GPU", size, 3)
                                      for size in ("8 x 64", "32 x 64", "4 x 256", "1 x 1024")]), max(cells)]),
]


def diversity_names(code: Code) -> dict:
    """The names docs/diversity.md's blocks assume."""
    return {**card_names(code), "texts_a": ["the cat sat on the mat", "a dog ran"], "texts_b": ["the cat sat on a mat"],
            "texts": ["the cat sat on the mat", "the cat sat on a mat", "a dog ran"]}

"""The small corpora the engine tests (Spark, Ray, datasets streaming) score: real WMT17 lines."""

from __future__ import annotations

import zlib

from conftest import wmt17_lines

ROWS = 2000


def wmt17_pairs(rows: int = ROWS) -> tuple:
    """(predictions, references): uedin-nmt's first `rows` lines against the reference, every third
    one with online-B's line as a second reference, so the signature says nrefs:var."""
    hypotheses = wmt17_lines("uedin-nmt.4722.de")[:rows]
    reference = wmt17_lines("newstest2017-ende.ref.de")[:rows]
    other = wmt17_lines("online-B.0.de")[:rows]
    references = [[ref, alt] if k % 3 == 0 else [ref] for k, (ref, alt) in enumerate(zip(reference, other))]
    return hypotheses, references


def id_pairs(rows: int = 300) -> tuple:
    """Token ids made from the same lines (a CRC of each whitespace word, the same in every process)."""
    hypotheses, references = wmt17_pairs(rows)
    ids = lambda line: [zlib.crc32(word.encode()) % 50000 for word in line.split()]  # noqa: E731
    return [ids(line) for line in hypotheses], [[ids(ref) for ref in group] for group in references]


def without_bootstrap(result: dict) -> dict:
    return {key: value for key, value in result.items() if not key.startswith("bleu_ci") and key != "bleu_bootstrap_mean"}

"""Running our command line beside sacreBLEU's (`python -m bleukit` and `python -m sacrebleu`, in a fresh
interpreter, sacreBLEU's environment variables unset), the small corpus both score, and the checks that
two outputs are the same: text, JSON and the paired tests' JSON, signatures compared on the fields both
write (ours names our version and adds `reflen` and `order`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import REPO

SHARED_FIELDS = ("nrefs", "#", "case", "c", "eff", "e", "tok", "smooth", "s", "bs", "seed")
HYPOTHESES = [
    "The cat sat on the mat .",
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "It is a guide to action which ensures that the military always obeys the commands of the party.",
    "He read the book because he was interested in world history",
    "you are ready ?",
    "The U.S. economy grew 3.5% in Q3, analysts said.",
    "no match here at all",
    "A short one.",
    "Prices rose by $1,200 (about 4%) -- the largest jump since 2008!",
    "She said: \"I'll be there at 5 p.m.\"",
    "the the the the the the the",
    "Numbers like 1,000.5 and 2-3 stay together",
]
REFERENCES_1 = [
    "The cat is on the mat.",
    "Der schnelle braune Fuchs sprang über den faulen Hund .",
    "It is a guide to action that ensures that the military will forever heed Party commands.",
    "He was interested in world history because he read the book",
    "are you ready ?",
    "The US economy grew by 3.5 % in the third quarter, analysts said.",
    "something else entirely",
    "A short sentence.",
    "Prices rose $1,200 (roughly 4 %), the biggest jump since 2008!",
    "She said: \"I will be there at 5 pm.\"",
    "The cat is on the mat.",
    "Numbers such as 1,000.5 and 2-3 stay together.",
]
REFERENCES_2 = [
    "There is a cat on the mat .",
    "Der flinke braune Fuchs springt über den faulen Hund.",
    "It is the guiding principle which guarantees the military forces always being under the command of the Party.",
    "Because he read the book, he became interested in world history",
    "you are ready ?",
    "Analysts said the American economy grew 3.5% in Q3.",
    "no match at all here",
    "One short sentence.",
    "Prices went up by $1,200 (about 4%): the largest jump since 2008.",
    "\"I'll be there at 5 p.m.,\" she said.",
    "There is a cat on the mat.",
    "Numbers like 1,000.5 and 2-3 are kept together",
]


def run(program: list, *args: str, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """The program with sacreBLEU's environment variables unset, then set as `env` gives them."""
    environment = {k: v for k, v in os.environ.items() if k not in ("SACREBLEU_SEED", "SACREBLEU_FORMAT")}
    environment.update(env or {})
    completed = subprocess.run(
        [sys.executable, *program, *map(str, args)], input=stdin, capture_output=True, text=True, timeout=120, cwd=REPO,
        env=environment,
    )
    return completed


def ours(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return run(["-m", "bleukit"], *args, stdin=stdin)


def sacrebleu_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return run(["-m", "sacrebleu"], *args, stdin=stdin)


def signature_fields(signature: str) -> dict:
    """The fields both signatures write; a smoothing value compared as a number (ours writes
    `floor[0.2]`, sacreBLEU `floor[0.20]`)."""
    fields = dict(field.split(":", 1) for field in signature.split("|"))
    shared = {key: value for key, value in fields.items() if key in SHARED_FIELDS}
    for key in ("smooth", "s"):
        method = re.fullmatch(r"([\w-]+)\[([\d.]+)\]", shared.get(key, ""))
        if method:
            shared[key] = (method.group(1), float(method.group(2)))
    return shared


def assert_same_text(mine: str, theirs: str) -> None:
    """`BLEU|SIGNATURE = SCORE DETAILS`: the same after the signature, shared signature fields equal."""
    pattern = re.compile(r"^BLEU\|(\S+) = (.*)$")
    mine_match, theirs_match = pattern.match(mine.strip()), pattern.match(theirs.strip())
    assert mine_match and theirs_match, (mine, theirs)
    assert mine_match.group(2) == theirs_match.group(2)
    assert signature_fields(mine_match.group(1)) == signature_fields(theirs_match.group(1))
    assert "version:bleu_metric-1." in mine_match.group(1) or "v:bleu_metric-1." in mine_match.group(1)


def assert_same_json(mine: str, theirs: str) -> None:
    mine_dict, theirs_dict = json.loads(mine), json.loads(theirs)
    assert signature_fields(mine_dict.pop("signature")) == signature_fields(theirs_dict.pop("signature"))
    for extra in ("reflen", "order", "version"):
        mine_dict.pop(extra, None)
        theirs_dict.pop(extra, None)
    assert mine_dict == theirs_dict


def assert_same_paired_json(mine: str, theirs: str) -> None:
    mine_rows, theirs_rows = json.loads(mine), json.loads(theirs)
    assert [row["system"] for row in mine_rows] == [row["system"] for row in theirs_rows]
    for mine_row, theirs_row in zip(mine_rows, theirs_rows):
        assert mine_row["BLEU"]["p_value"] == theirs_row["BLEU"]["p_value"]
        assert mine_row["BLEU"]["score"] == pytest.approx(theirs_row["BLEU"]["score"], rel=1e-12)
        for key in ("mean", "ci"):  # sums of resampled scores: equal to about 1e-7 (float rounding order)
            if theirs_row["BLEU"][key] is None:
                assert mine_row["BLEU"][key] is None
            else:
                assert mine_row["BLEU"][key] == pytest.approx(theirs_row["BLEU"][key], abs=1e-6)

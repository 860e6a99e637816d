"""sacreBLEU's command-line grammar: the same command prints what the real `sacrebleu` CLI prints.

Every claim runs the real CLI (`python -m sacrebleu`) beside ours on the same files. The outputs
differ only in the signature: ours names our version and adds `reflen` and `order`; the fields both
write (nrefs, case, eff, tok, smooth, bs, seed) must agree too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import REPO, WMT17, WMT17_REFERENCE

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


@pytest.fixture()
def files(tmp_path):
    hyp, ref1, ref2 = tmp_path / "hyp.txt", tmp_path / "ref1.txt", tmp_path / "ref2.txt"
    for path, lines in ((hyp, HYPOTHESES), (ref1, REFERENCES_1), (ref2, REFERENCES_2)):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return hyp, ref1, ref2


@pytest.mark.parametrize(
    "options",
    [
        ["-f", "text"],
        ["-f", "text", "-lc", "-tok", "intl"],
        ["-f", "text", "-tok", "none", "-s", "floor", "-sv", "0.2", "--short"],
        ["-f", "text", "-w", "3", "-s", "none"],
        ["-f", "latex", "-tok", "char"],
        ["-m", "bleu", "-ci", "--confidence-n", "200", "-f", "text", "-w", "2"],
    ],
    ids=["text", "lc-intl", "floor-short", "width-none", "latex-char", "confidence"],
)
def test_text_output_is_sacrebleus(files, options):
    hyp, ref1, ref2 = files
    mine, theirs = ours(ref1, ref2, "-i", hyp, *options), sacrebleu_cli(ref1, ref2, "-i", hyp, *options)
    assert mine.returncode == 0 == theirs.returncode, mine.stderr + theirs.stderr
    assert_same_text(mine.stdout, theirs.stdout)


@pytest.mark.parametrize("options", [[], ["-ci", "--confidence-n", "100", "-w", "3"], ["-lc", "-w", "4"]],
                         ids=["default", "confidence", "lc-width"])
def test_json_output_is_sacrebleus(files, options):
    """sacreBLEU's default format is JSON: name, score, signature and its fields, verbose score, confidence."""
    hyp, ref1, ref2 = files
    mine, theirs = ours(ref1, ref2, "-i", hyp, *options), sacrebleu_cli(ref1, ref2, "-i", hyp, *options)
    assert mine.returncode == 0 == theirs.returncode, mine.stderr + theirs.stderr
    assert_same_json(mine.stdout, theirs.stdout)


def test_score_only_and_width_print_the_same_number(files):
    hyp, ref1, _ = files
    for options in (["-b"], ["-b", "-w", "4"], ["-b", "-ci", "--confidence-n", "50"]):
        mine, theirs = ours(ref1, "-i", hyp, *options), sacrebleu_cli(ref1, "-i", hyp, *options)
        assert mine.returncode == 0, mine.stderr
        assert mine.stdout == theirs.stdout
    assert re.fullmatch(r"\d+\.\d{4}\n", ours(ref1, "-i", hyp, "-b", "-w", "4").stdout)


def test_hypotheses_on_stdin(files):
    """`cat hyp | sacrebleu ref`: the positional files are references, the hypotheses come from stdin."""
    hyp, ref1, ref2 = files
    text = hyp.read_text(encoding="utf-8")
    mine, theirs = ours(ref1, ref2, "-f", "text", stdin=text), sacrebleu_cli(ref1, ref2, "-f", "text", stdin=text)
    assert mine.returncode == 0, mine.stderr
    assert_same_text(mine.stdout, theirs.stdout)
    assert mine.stdout == ours(ref1, ref2, "-i", hyp, "-f", "text").stdout


def test_tok_is_the_tokenizer_option_not_t_ok(files):
    """`-tok intl` once read as `-t ok`; in both grammars it now names the tokenizer."""
    hyp, ref1, _ = files
    completed = ours(hyp, "-r", ref1, "-tok", "intl", "--json")
    assert completed.returncode == 0, completed.stderr
    assert "|tok:intl|" in json.loads(completed.stdout)["signature"]
    assert json.loads(completed.stdout) == json.loads(ours(hyp, "-r", ref1, "--tokenizer", "intl", "--json").stdout)


def test_each_grammar_keeps_its_defaults(tmp_path):
    """Same files, both grammars: sacreBLEU's smooths with exp, this module's with none (0-1 scale).
    No 4-gram matches, so the two smoothings give different numbers."""
    hyp, ref1 = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("you are ready ?\n", encoding="utf-8")
    ref1.write_text("are you ready ?\n", encoding="utf-8")
    theirs = json.loads(ours(ref1, "-i", hyp, "-w", "6").stdout)
    mine = json.loads(ours(hyp, "-r", ref1, "--json").stdout)
    mine_exp = json.loads(ours(hyp, "-r", ref1, "--json", "-s", "exp").stdout)
    assert theirs["smooth"] == "exp" and "smooth:none" in mine["signature"]
    assert theirs["score"] == round(100 * mine_exp["bleu"], 6)
    assert mine["bleu"] == 0.0 and mine_exp["bleu"] > 0


def test_wmt17_system_equals_sacrebleu_cli_with_confidence():
    system = WMT17 / "uedin-nmt.4722.de"
    for options in (["-f", "text", "-w", "2"], ["-ci", "--confidence-n", "100"]):
        mine, theirs = ours(WMT17_REFERENCE, "-i", system, *options), sacrebleu_cli(WMT17_REFERENCE, "-i", system, *options)
        assert mine.returncode == 0 == theirs.returncode, mine.stderr + theirs.stderr
        if "-ci" in options:
            assert_same_json(mine.stdout, theirs.stdout)
        else:
            assert_same_text(mine.stdout, theirs.stdout)


def test_two_systems_without_a_test_print_a_table_of_both(files, tmp_path):
    hyp, ref1, _ = files
    other = tmp_path / "other.txt"
    other.write_text("\n".join(REFERENCES_2) + "\n", encoding="utf-8")
    mine = ours(ref1, "-i", hyp, other, "-f", "json")
    theirs = sacrebleu_cli(ref1, "-i", hyp, other, "-f", "json")
    assert mine.returncode == 0, mine.stderr
    assert json.loads(mine.stdout) == json.loads(theirs.stdout)
    table = ours(ref1, "-i", hyp, other, "-f", "text").stdout
    for entry in json.loads(theirs.stdout):
        assert re.search(rf"│ +{re.escape(entry['system'])} │ +{re.escape(entry['BLEU'])} +│", table)

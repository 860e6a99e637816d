"""sacreBLEU's command-line grammar: the same command prints what the real `sacrebleu` CLI prints.

Every claim runs the real CLI (`python -m sacrebleu`) beside ours on the same files. The outputs
differ only in the signature: ours names our version and adds `reflen` and `order`; the fields both
write (nrefs, case, eff, tok, smooth, bs, seed) must agree too.
"""

from __future__ import annotations

import json
import re

import pytest

from cli_runs import HYPOTHESES, REFERENCES_1, REFERENCES_2, assert_same_json, assert_same_text, ours, sacrebleu_cli
from conftest import WMT17, WMT17_REFERENCE


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

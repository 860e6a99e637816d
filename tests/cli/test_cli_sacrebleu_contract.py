"""sacreBLEU's whole input and command-line contract, each claim beside the real `sacrebleu` CLI.

Systems as stdin's tab-separated columns, SACREBLEU_SEED and SACREBLEU_FORMAT, the multi-system
and paired tables in text and LaTeX, -sl, -nr, -e, -l, and the test-set options (refused with a
message, since nothing is downloaded here). Outputs must be sacreBLEU's, signature aside: the
signature lines are compared on the fields both write.
"""

from __future__ import annotations

import json
import re

import pytest

from cli_runs import (
    HYPOTHESES, REFERENCES_1, REFERENCES_2, assert_same_json, assert_same_text, ours, run, sacrebleu_cli,
    signature_fields,
)
from conftest import REPO, WMT17, WMT17_REFERENCE

CLI = ["-m", "bleukit"]
SIGNATURE_LINE = re.compile(r"^ - BLEU {7}(\S+)$", flags=re.M)
OTHER = [
    "The cat is sitting on the mat .",
    "Der schnelle braune Fuchs sprang über den faulen Hund.",
    "It is a guide to action which ensures that the military will always obey the party.",
    "He read the book because he was interested in history",
    "are you ready ?",
    "The US economy grew 3.5% in the third quarter, analysts said.",
    "nothing matches here",
    "A short sentence.",
    "Prices rose by $1,200 (about 4%), the largest jump since 2008!",
    "She said: \"I will be there at 5 p.m.\"",
    "the cat the cat the cat",
    "Numbers like 1,000.5 and 2-3 are kept together",
]


def assert_same_tables(mine: str, theirs: str) -> None:
    """Everything but the signatures identical; the signatures equal on the fields both write."""
    mine_signatures, theirs_signatures = SIGNATURE_LINE.findall(mine), SIGNATURE_LINE.findall(theirs)
    assert len(mine_signatures) == len(theirs_signatures) == 1, (mine, theirs)
    assert signature_fields(mine_signatures[0]) == signature_fields(theirs_signatures[0])
    assert SIGNATURE_LINE.sub("SIGNATURE", mine) == SIGNATURE_LINE.sub("SIGNATURE", theirs)


@pytest.fixture()
def files(tmp_path):
    paths = {}
    for name, lines in (("hyp.txt", HYPOTHESES), ("other.txt", OTHER), ("ref1.txt", REFERENCES_1),
                        ("ref2.txt", REFERENCES_2), ("third.txt", REFERENCES_2[:6] + HYPOTHESES[6:])):
        paths[name] = tmp_path / name
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


def columns(*systems: list) -> str:
    return "".join("\t".join(fields) + "\n" for fields in zip(*systems))


@pytest.mark.parametrize("options", [["-b"], ["-f", "text"], ["-f", "json"], ["-f", "latex", "-w", "2"],
                                     ["-pbs", "--paired-bs-n", "200", "-f", "text"], ["-par", "--paired-ar-n", "300"]],
                         ids=["score-only", "text", "json", "latex", "paired-bs", "paired-ar"])
def test_stdin_columns_are_systems_as_in_sacrebleu(files, options):
    """`paste A B C | sacrebleu REF`: each tab-separated column is a system (System 1, ...; with a
    paired test Baseline, System 1, ...)."""
    stdin = columns(HYPOTHESES, OTHER, REFERENCES_2[:6] + HYPOTHESES[6:])
    mine = ours(files["ref1.txt"], *options, stdin=stdin)
    theirs = sacrebleu_cli(files["ref1.txt"], *options, "-q", stdin=stdin)
    assert mine.returncode == 0 == theirs.returncode, mine.stderr + theirs.stderr
    if theirs.stdout[:1] in "[{":  # JSON, sacreBLEU's default format
        mine_rows, theirs_rows = json.loads(mine.stdout), json.loads(theirs.stdout)
        assert [row["system"] for row in mine_rows] == [row["system"] for row in theirs_rows]
        if options[0] == "-par":
            assert [row["BLEU"]["p_value"] for row in mine_rows] == [row["BLEU"]["p_value"] for row in theirs_rows]
        else:
            assert mine_rows == theirs_rows
    else:
        assert_same_tables(mine.stdout, theirs.stdout)


def test_the_issues_wmt17_paste_scores_each_column():
    """`paste online-B LIUM-NMT | bleukit/cli/main.py REF -b` printed one number, 15.5, for the joined
    lines; sacreBLEU prints a table of two systems, 26.7 and 26.6."""
    read = lambda name: (WMT17 / name).read_text(encoding="utf-8").split("\n")[:-1]  # noqa: E731
    stdin = columns(read("online-B.0.de"), read("LIUM-NMT.4900.de"))
    mine, theirs = ours(WMT17_REFERENCE, "-b", stdin=stdin), sacrebleu_cli(WMT17_REFERENCE, "-b", "-q", stdin=stdin)
    assert mine.returncode == 0, mine.stderr
    assert json.loads(mine.stdout) == json.loads(theirs.stdout) == [{"system": "System 1", "BLEU": "26.7"},
                                                                    {"system": "System 2", "BLEU": "26.6"}]
    table = ours(WMT17_REFERENCE, "-b", "-f", "text", stdin=stdin)
    assert_same_tables(table.stdout, sacrebleu_cli(WMT17_REFERENCE, "-b", "-f", "text", "-q", stdin=stdin).stdout)


def test_columns_that_differ_in_number_are_an_error(files):
    completed = ours(files["ref1.txt"], stdin="a\tb\n" + "c\n" * (len(REFERENCES_1) - 1))
    assert completed.returncode == 2 and completed.stdout == ""
    assert "line 2 of stdin has 1 tab-separated field(s) but 2 are expected" in completed.stderr
    theirs = sacrebleu_cli(files["ref1.txt"], stdin="a\tb\n" + "c\n" * (len(REFERENCES_1) - 1))
    assert theirs.returncode != 0  # sacreBLEU refuses it too


def test_this_grammar_reads_stdin_as_one_file_and_says_so_when_it_has_columns(files):
    stdin = columns(HYPOTHESES, OTHER)
    completed = ours("-r", files["ref1.txt"], "-b", stdin=stdin)
    assert completed.returncode == 0, completed.stderr
    assert "every line on stdin holds a tab" in completed.stderr and "paste A B | python -m bleukit REF" in completed.stderr


@pytest.mark.parametrize("seed", ["7", "none", "NONE"])
def test_sacrebleu_seed_is_honoured_in_sacrebleus_grammar(files, seed):
    hyp, ref = files["hyp.txt"], files["ref1.txt"]
    environment = {"SACREBLEU_SEED": seed}
    mine = run(CLI, ref, "-i", hyp, "-ci", "--confidence-n", "200",
               env=environment)
    theirs = run(["-m", "sacrebleu"], ref, "-i", hyp, "-ci", "--confidence-n", "200", env=environment)
    assert mine.returncode == 0 == theirs.returncode, mine.stderr + theirs.stderr
    if seed == "7":
        assert_same_json(mine.stdout, theirs.stdout)
    mine_json, theirs_json = json.loads(mine.stdout), json.loads(theirs.stdout)
    assert mine_json["seed"] == theirs_json["seed"] == seed.lower() and mine_json["bs"] == "200"
    assert mine_json["score"] == theirs_json["score"]
    if seed != "7":  # fresh randomness: a second run draws other resamples
        again = run(CLI, ref, "-i", hyp, "-ci", "--confidence-n", "200",
                    "-w", "6", env=environment)
        third = run(CLI, ref, "-i", hyp, "-ci", "--confidence-n", "200",
                    "-w", "6", env=environment)
        assert json.loads(again.stdout)["confidence"] != json.loads(third.stdout)["confidence"]


def test_seed_option_none_and_paired_seed_from_the_environment(files):
    hyp, other, ref = files["hyp.txt"], files["other.txt"], files["ref1.txt"]
    mine = json.loads(ours(ref, "-i", hyp, "-ci", "--seed", "none").stdout)
    assert mine["seed"] == "none"
    environment = {"SACREBLEU_SEED": "2024"}
    for flag in ("-pbs", "-par"):
        mine = run(CLI, ref, "-i", hyp, other, flag, env=environment)
        theirs = run(["-m", "sacrebleu"], ref, "-i", hyp, other, flag, env=environment)
        p_values = [[row["BLEU"]["p_value"] for row in json.loads(out.stdout)] for out in (mine, theirs)]
        assert p_values[0] == p_values[1] and p_values[0][1] is not None
        text = run(CLI, ref, "-i", hyp, other, flag, "-f", "text", env=environment).stdout
        assert "seed:2024" in SIGNATURE_LINE.search(text).group(1)
    assert run(CLI, ref, "-i", hyp, "--seed", "abc", env={}).returncode == 2
    bad = run(CLI, ref, "-i", hyp, "-ci", env={"SACREBLEU_SEED": "abc"})
    assert bad.returncode == 2 and "SACREBLEU_SEED" in bad.stderr


def test_sacrebleu_format_overrides_the_format_as_in_sacrebleu(files):
    hyp, ref = files["hyp.txt"], files["ref1.txt"]
    mine = run(CLI, ref, "-i", hyp, "-f", "json", env={"SACREBLEU_FORMAT": "text"})
    theirs = run(["-m", "sacrebleu"], ref, "-i", hyp, "-f", "json", env={"SACREBLEU_FORMAT": "text"})
    assert_same_text(mine.stdout, theirs.stdout)
    ignored = run(CLI, hyp, "-r", ref, "--json", env={"SACREBLEU_FORMAT": "text"})
    assert json.loads(ignored.stdout)["signature"]  # this module's grammar keeps its own format


@pytest.mark.parametrize("options", [
    ["-f", "text"], ["-f", "latex"], ["-f", "text", "-w", "3", "--short"], ["-b"], ["-f", "json"],
    ["-pbs", "--paired-bs-n", "300", "-f", "text"], ["-pbs", "--paired-bs-n", "300", "-f", "latex"],
    ["-par", "--paired-ar-n", "500", "-f", "text", "-w", "2"], ["-par", "--paired-ar-n", "500", "-f", "latex"],
    ["-par", "--paired-ar-n", "500", "-f", "text", "-lc", "-tok", "intl", "-s", "floor"],
], ids=["text", "latex", "width-short", "score-only", "json", "bs-text", "bs-latex", "ar-text", "ar-latex", "ar-options"])
def test_several_systems_and_paired_tests_print_sacrebleus_layout(files, options):
    """Three systems named by -i: sacreBLEU 2.6's table, explanation and signatures block."""
    arguments = [files["ref1.txt"], files["ref2.txt"], "-i", files["hyp.txt"], files["other.txt"], files["third.txt"],
                 *options]
    mine, theirs = ours(*arguments), sacrebleu_cli(*arguments, "-q")
    assert mine.returncode == 0 == theirs.returncode, mine.stderr + theirs.stderr
    if theirs.stdout[:1] in "[{":  # JSON, sacreBLEU's default format
        assert json.loads(mine.stdout) == json.loads(theirs.stdout)
    else:
        assert_same_tables(mine.stdout, theirs.stdout)


def test_wmt17_paired_table_is_sacrebleus():
    systems = [WMT17 / name for name in ("online-B.0.de", "KIT.4950.de", "uedin-nmt.4722.de")]
    for flag in ("-pbs", "-par"):
        arguments = [WMT17_REFERENCE, "-i", *systems, flag, "--paired-bs-n" if flag == "-pbs" else "--paired-ar-n",
                     "200", "-f", "text"]
        mine, theirs = ours(*arguments), sacrebleu_cli(*arguments, "-q")
        assert mine.returncode == 0, mine.stderr
        assert_same_tables(mine.stdout, theirs.stdout)


def test_sentence_level_lines_are_sacrebleus(files):
    for options in ([], ["-b", "-w", "2"], ["-f", "json", "-s", "floor"]):
        arguments = [files["ref1.txt"], files["ref2.txt"], "-i", files["hyp.txt"], "-sl", *options]
        mine, theirs = ours(*arguments), sacrebleu_cli(*arguments, "-q")
        assert mine.returncode == 0 == theirs.returncode, mine.stderr + theirs.stderr
        mine_lines, theirs_lines = mine.stdout.splitlines(), theirs.stdout.splitlines()
        assert len(mine_lines) == len(theirs_lines) == len(HYPOTHESES)
        for mine_line, theirs_line in zip(mine_lines, theirs_lines):
            if "-b" in options:
                assert mine_line == theirs_line
            else:
                assert_same_text(mine_line, theirs_line)
    refused = ours(files["ref1.txt"], "-i", files["hyp.txt"], "-sl", "-ci")
    assert refused.returncode == 2 and "no confidence interval" in refused.stderr


def test_tab_separated_references_with_num_refs(files, tmp_path):
    both = tmp_path / "both.tsv"
    both.write_text(columns(REFERENCES_1, REFERENCES_2), encoding="utf-8")
    mine = ours("-nr", "2", both, "-i", files["hyp.txt"], "-f", "text")
    theirs = sacrebleu_cli("-nr", "2", both, "-i", files["hyp.txt"], "-f", "text")
    assert mine.returncode == 0, mine.stderr
    assert_same_text(mine.stdout, theirs.stdout)
    assert mine.stdout.replace("nrefs:2", "") == ours(files["ref1.txt"], files["ref2.txt"], "-i", files["hyp.txt"],
                                                       "-f", "text").stdout.replace("nrefs:2", "")
    ragged = tmp_path / "ragged.tsv"
    ragged.write_text(columns(REFERENCES_1, REFERENCES_2).replace("\tThere is a cat on the mat .", ""), encoding="utf-8")
    completed = ours("-nr", "2", ragged, "-i", files["hyp.txt"])
    assert completed.returncode == 2 and "line 1 of" in completed.stderr and "2 are expected" in completed.stderr
    two_files = ours("-nr", "2", files["ref1.txt"], files["ref2.txt"], "-i", files["hyp.txt"])
    assert two_files.returncode == 2 and "from one file" in two_files.stderr


def test_encoding_option_reads_other_encodings(files, tmp_path):
    hyp, ref = tmp_path / "hyp.latin1", tmp_path / "ref.latin1"
    hyp.write_text("\n".join(HYPOTHESES[:2]) + "\n", encoding="latin-1")
    ref.write_text("\n".join(REFERENCES_1[:2]) + "\n", encoding="latin-1")
    mine = ours(ref, "-i", hyp, "-e", "latin-1", "-f", "text")
    theirs = sacrebleu_cli(ref, "-i", hyp, "-e", "latin-1", "-f", "text")
    assert mine.returncode == 0, mine.stderr
    assert_same_text(mine.stdout, theirs.stdout)
    misread = ours(ref, "-i", hyp, "-f", "text")  # read as utf-8: 'ü' in latin-1 is not valid UTF-8
    assert misread.returncode == 2 and "utf-8" in misread.stderr


def test_effective_order_has_its_own_short_flag(files):
    plain = ours(files["hyp.txt"], "-r", files["ref1.txt"], "--json", "-eff")
    assert plain.returncode == 0 and "eff:yes" in json.loads(plain.stdout)["signature"]


@pytest.mark.parametrize("arguments", [["-t", "wmt17", "-l", "en-de"], ["-t", "wmt17"], ["--list"],
                                       ["-t", "wmt17", "-l", "en-de", "--echo", "ref"], ["--download", "wmt17"],
                                       ["{ref}", "-i", "{hyp}", "-d"], ["{ref}", "-i", "{hyp}", "-ol", "en"]])
def test_test_set_options_say_test_sets_are_not_downloaded(files, arguments):
    names = {"ref": files["ref1.txt"], "hyp": files["hyp.txt"]}
    completed = ours(*(argument.format(**names) for argument in arguments), stdin="x\n")
    assert completed.returncode == 2 and completed.stdout == ""
    assert "test sets are not downloaded here" in completed.stderr and "invalid choice" not in completed.stderr
    assert "Pass the test set's files instead" in completed.stderr


def test_the_suggested_commands_are_for_the_test_set_asked_for(files):
    """`-t wmt20 -l cs-en` suggested the wmt17 en-de commands (previous main)."""
    completed = ours(files["hyp.txt"], "-t", "wmt20", "-l", "cs-en", stdin="x\n")
    assert completed.returncode == 2
    assert "python -m bleukit wmt20.cs-en.ref -i hypotheses.txt" in completed.stderr
    assert "sacrebleu -t wmt20 -l cs-en --echo ref > wmt20.cs-en.ref" in completed.stderr
    assert "wmt17" not in completed.stderr and "en-de" not in completed.stderr


def test_t_with_a_tokenizer_name_points_to_tok(files):
    completed = ours(files["hyp.txt"], "-r", files["ref1.txt"], "-t", "intl")
    assert completed.returncode == 2 and "to choose the tokenizer, write -tok intl" in completed.stderr


def test_language_pair_without_a_test_set_is_kept_and_picks_sacrebleus_tokenizer(files):
    arguments = [files["ref1.txt"], "-i", files["hyp.txt"], "-f", "text"]
    for pair in ("en-de", "de-zh"):
        mine, theirs = ours(*arguments, "-l", pair), sacrebleu_cli(*arguments, "-l", pair)
        assert mine.returncode == 0 == theirs.returncode, mine.stderr + theirs.stderr
        assert_same_text(mine.stdout, theirs.stdout)
    assert "|tok:zh|" in ours(*arguments, "-l", "de-zh").stdout
    assert "|tok:intl|" in ours(*arguments, "-l", "de-zh", "-tok", "intl").stdout  # -tok wins, as in sacreBLEU
    for pair, chosen in (("en-ja", "ja-mecab"), ("en-ko", "ko-mecab")):
        completed, theirs = ours(*arguments, "-l", pair), sacrebleu_cli(*arguments, "-l", pair)
        assert completed.returncode == 0 == theirs.returncode, completed.stderr + theirs.stderr
        assert_same_text(completed.stdout, theirs.stdout)
        assert f"|tok:{chosen}-0.996" in completed.stdout
    bad = ours(*arguments, "-l", "english")
    assert bad.returncode == 2 and "-l takes a language pair SRC-TGT" in bad.stderr


def test_language_pair_is_kept_on_the_request():
    from bleukit.cli.main import build_parser
    from bleukit.cli.request import request_from_args

    request = request_from_args(build_parser().parse_args(["ref.txt", "-i", "hyp.txt", "-l", "en-de"]),
                                stdin_is_terminal=True, environ={})
    assert (request.language_pair, request.target_language) == ("en-de", "de")
    assert (request.options["tokenizer"], request.options["target_language"]) == ("auto", "de")  # 13a for de


def test_sacrebleus_no_op_options_are_accepted(files):
    arguments = [files["ref1.txt"], "-i", files["hyp.txt"], "-f", "text"]
    plain = ours(*arguments).stdout
    for extra in (["-q"], ["-nc"], ["--force"], ["-j", "2"], ["--no-color", "--quiet"]):
        completed = ours(*arguments, *extra)
        assert completed.returncode == 0 and completed.stdout == plain, extra


def test_short_signature_is_left_out_of_json_as_in_sacrebleu(files):
    arguments = [files["ref1.txt"], "-i", files["hyp.txt"], "--short", "-ci", "--confidence-n", "50"]
    assert_same_json(ours(*arguments).stdout, sacrebleu_cli(*arguments).stdout)
    text = [files["ref1.txt"], "-i", files["hyp.txt"], "--short", "-ci", "--confidence-n", "50", "-f", "text"]
    assert_same_text(ours(*text).stdout, sacrebleu_cli(*text).stdout)
    assert "|rs:12345|" in ours(*text).stdout  # sacreBLEU's short name for the seed

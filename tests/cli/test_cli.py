"""The command-line job: the bundled example, files, options, JSON, and errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
import sacrebleu

from bleukit.cli.main import (
    EXAMPLE_HYPOTHESES, EXAMPLE_REFERENCES, UsageError, build_parser, main, read_segments, resolve_roles,
)
from bleukit.core import compute_bleu
from conftest import REPO


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bleukit", *args], input=stdin, capture_output=True, text=True,
        timeout=120, cwd=REPO,
    )


def run_from_a_terminal(command: list, cwd) -> subprocess.CompletedProcess:
    """The command with a terminal (a pseudo-terminal) as stdin, as typed in a shell; nothing typed."""
    import pty

    main_end, terminal = pty.openpty()
    try:
        return subprocess.run(command, stdin=terminal, capture_output=True, text=True, timeout=120, cwd=cwd)
    finally:
        os.close(terminal)
        os.close(main_end)


def test_no_arguments_scores_the_bundled_example_and_says_so():
    completed = run_from_a_terminal([sys.executable, "-m", "bleukit"], REPO)
    assert completed.returncode == 0, completed.stderr
    assert "scoring the bundled example" in completed.stdout
    hypotheses = read_segments(EXAMPLE_HYPOTHESES)
    streams = [read_segments(path) for path in EXAMPLE_REFERENCES]
    oracle = sacrebleu.corpus_bleu(hypotheses, streams, smooth_method="none")
    assert f"BLEU             {oracle.score / 100:.4f}  ({oracle.score:.2f} on the 0-100 scale)" in completed.stdout
    assert "signature        nrefs:2|case:mixed|eff:no|tok:13a|smooth:none|reflen:closest|order:4|version:" in completed.stdout


@pytest.mark.parametrize("how", ["empty pipe", "devnull"])
def test_no_arguments_from_a_script_scores_the_bundled_example(how):
    """A script or CI (stdin an empty pipe or /dev/null) runs the README's quick start as typed."""
    command = [sys.executable, "-m", "bleukit", "--json"]
    if how == "devnull":
        completed = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, cwd=REPO)
    else:
        completed = run_cli("--json")
    assert completed.returncode == 0, completed.stderr
    hypotheses = read_segments(EXAMPLE_HYPOTHESES)
    streams = [read_segments(path) for path in EXAMPLE_REFERENCES]
    expected = sacrebleu.corpus_bleu(hypotheses, streams, smooth_method="none").score / 100
    assert json.loads(completed.stdout)["bleu"] == pytest.approx(expected, rel=1e-12)


def test_hypotheses_piped_in_without_references_are_a_usage_error():
    """Piped hypotheses with no reference named were once ignored and the bundled example's score
    printed (-b: 0.5870) as theirs: now a usage error that says what to pass."""
    stdin = "the cat sat on the mat\n"
    for args in ((), ("-b",)):
        completed = run_cli(*args, stdin=stdin)
        assert completed.returncode == 2 and completed.stdout == "" and "Traceback" not in completed.stderr
        assert "python -m bleukit: error: no files given (text on stdin: hypotheses piped in need reference files" in completed.stderr
        assert ("python -m bleukit HYPOTHESES -r REFERENCES [REFERENCES ...], or pipe the hypotheses and name the "
                "references: cat HYPOTHESES | python -m bleukit REFERENCES") in completed.stderr
    # Named, the same stdin is scored: the hypotheses piped in, against the references named.
    references = read_segments(EXAMPLE_REFERENCES[0])
    piped = run_cli("-r", str(EXAMPLE_REFERENCES[0]), "--json", stdin=stdin * len(references))
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout) == compute_bleu([stdin.strip()] * len(references), references)


def test_a_file_redirected_to_stdin_without_references_is_a_usage_error(tmp_path):
    hypotheses = tmp_path / "hyp.txt"
    hypotheses.write_text("the cat sat on the mat\n", encoding="utf-8")
    with open(hypotheses, encoding="utf-8") as stdin:
        completed = subprocess.run([sys.executable, "-m", "bleukit"], stdin=stdin, capture_output=True,
                                   text=True, timeout=120, cwd=REPO)
    assert completed.returncode == 2 and "text on stdin" in completed.stderr


def test_a_pipe_that_stays_open_and_silent_does_not_hang_the_example():
    """A harness that keeps stdin open and never writes: the probe waits 50 ms, then the example."""
    process = subprocess.Popen([sys.executable, "-m", "bleukit", "-b"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        process.wait(timeout=120)  # stdin stays open, unwritten, the whole time
        out = process.stdout.read()
    finally:
        process.stdin.close()
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0 and out.strip() == "0.5870"


def test_json_output_equals_the_metric(bleu):
    completed = run_cli("--json", str(EXAMPLE_HYPOTHESES), "-r", *map(str, EXAMPLE_REFERENCES), "-s", "exp", "-lc")
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    hypotheses = read_segments(EXAMPLE_HYPOTHESES)
    references = [list(group) for group in zip(*(read_segments(p) for p in EXAMPLE_REFERENCES))]
    assert result == bleu.compute(predictions=hypotheses, references=references, smooth="exp", lowercase=True)


def test_options_reach_the_core(tmp_path, capsys):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("you are ready ?\nthe cat the cat on the mat\n", encoding="utf-8")
    ref.write_text("are you ready ?\nthe cat is on the mat\n", encoding="utf-8")
    code = main([str(hyp), "-r", str(ref), "-tok", "none", "-s", "method1", "--smooth-value", "0.2",
                 "--ref-length", "shortest", "--max-order", "3", "--sentence-scores", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    expected = compute_bleu(
        ["you are ready ?", "the cat the cat on the mat"], ["are you ready ?", "the cat is on the mat"],
        tokenizer="none", smooth="method1", smooth_value=0.2, ref_length="shortest", max_order=3,
        return_sentence_scores=True,
    )
    assert result == expected  # JSON round-trips floats exactly
    assert "smooth:method1[0.2]|reflen:shortest|order:3" in result["signature"]


def test_a_form_feed_stays_inside_its_segment(tmp_path):
    """str.splitlines would split at the form feed and misalign the files; only newlines end a segment."""
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("a b\fc d\r\ne f g h\n", encoding="utf-8")
    ref.write_text("a b c d\ne f g h\n", encoding="utf-8")
    assert read_segments(hyp) == ["a b\fc d", "e f g h"]
    completed = run_cli(str(hyp), "-r", str(ref), "--json")
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["translation_length"] == 8


def test_misaligned_files_are_an_error_not_a_score(tmp_path):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("one\ntwo\n", encoding="utf-8")
    ref.write_text("one\n", encoding="utf-8")
    completed = run_cli(str(hyp), "-r", str(ref))
    assert completed.returncode == 2
    assert "has 1 lines but" in completed.stderr and "line-aligned" in completed.stderr
    assert completed.stdout == ""


def test_a_lone_file_with_nothing_on_stdin_is_a_usage_error():
    """Read as sacreBLEU's grammar (the file is a reference, hypotheses on stdin); with nothing on
    stdin the message says so and shows the other grammar."""
    completed = run_cli(str(EXAMPLE_HYPOTHESES))
    assert completed.returncode == 2
    assert "no hypotheses on stdin" in completed.stderr and "HYP -r REF" in completed.stderr
    assert completed.stdout == ""


def test_bad_option_value_is_reported(tmp_path):
    completed = run_cli(str(EXAMPLE_HYPOTHESES), "-r", str(EXAMPLE_REFERENCES[0]), "--weights", "0.5", "-1")
    assert completed.returncode == 2
    assert "weights[1]" in completed.stderr


def test_every_file_has_one_role_and_the_output_names_it(tmp_path):
    """`S1 -r R S2` reads S2 as a second reference (every file after -r is one): the report says so,
    and with --json, where the dict must stay the metric's, stderr does."""
    hyp, ref, other = (str(path) for path in (EXAMPLE_HYPOTHESES, *EXAMPLE_REFERENCES))
    report = run_cli(hyp, "-r", ref, other)
    assert report.returncode == 0, report.stderr
    assert f"hypotheses       {hyp}\nreferences       {ref}, {other}\n" in report.stdout
    as_json = run_cli(hyp, "-r", ref, other, "--json")
    assert f"hypotheses: {hyp}; references: {ref}, {other}" in as_json.stderr
    assert json.loads(as_json.stdout)["signature"].startswith("nrefs:2|")


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["{ref}", "-i", "{hyp}", "-r", "{ref}"], "give files opposite roles"),
        (["{hyp}", "-r", "{hyp}"], "named both as a hypothesis and as a reference"),
        (["{hyp}", "-r", "{ref}", "-lc", "{ref2}"], "unrecognized arguments"),
        (["-", "-r", "-"], "stdin ('-') can hold one file only"),
        (["-i", "{hyp}"], "give the reference files before it"),
        (["{hyp}", "-r", "{ref}", "--bootstrap", "10", "-ci"], "give one"),
        (["{hyp}", "-r", "{ref}", "-w", "-1"], "--width must be >= 0"),
    ],
    ids=["i-and-r", "hyp-is-ref", "file-after-options", "stdin-twice", "i-without-refs", "two-intervals", "width"],
)
def test_what_cannot_be_read_one_way_is_rejected(arguments, message):
    names = {"hyp": EXAMPLE_HYPOTHESES, "ref": EXAMPLE_REFERENCES[0], "ref2": EXAMPLE_REFERENCES[1]}
    completed = run_cli(*(argument.format(**names) for argument in arguments), stdin="a\n")
    assert completed.returncode == 2
    assert message in completed.stderr
    assert completed.stdout == ""


def test_stdin_from_a_terminal_is_a_usage_error_not_a_hang():
    parser = build_parser()
    for argv in (["-r", "ref.txt"], ["ref.txt"], ["-", "-r", "ref.txt"]):
        with pytest.raises(UsageError):
            resolve_roles(parser.parse_args(argv), stdin_is_terminal=True)
    roles = resolve_roles(parser.parse_args(["ref.txt"]), stdin_is_terminal=False)
    assert (roles.grammar, roles.hypotheses, roles.references) == ("sacrebleu", ["-"], ["ref.txt"])


def test_hypotheses_on_stdin_in_this_grammar_width_and_score_only():
    references = [str(path) for path in EXAMPLE_REFERENCES]
    piped = run_cli("-r", *references, "--json", stdin=EXAMPLE_HYPOTHESES.read_text(encoding="utf-8"))
    named = run_cli(str(EXAMPLE_HYPOTHESES), "-r", *references, "--json")
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout) == json.loads(named.stdout)
    score = json.loads(named.stdout)["bleu"]
    assert run_cli(str(EXAMPLE_HYPOTHESES), "-r", *references, "--score-only").stdout == f"{score:.4f}\n"


def test_width_counts_digits_of_the_0_to_100_score_as_in_sacrebleu():
    """-w 2 prints 54.54 (sacreBLEU's -w: digits of a 0-100 score), never 0.55: the score loses no
    digit. The oracle is sacreBLEU's CLI with the same (unsmoothed) options."""
    references = [str(path) for path in EXAMPLE_REFERENCES]
    theirs = subprocess.run([sys.executable, "-m", "sacrebleu", *references, "-i", str(EXAMPLE_HYPOTHESES), "-s", "none",
                             "-b", "-w", "2"], capture_output=True, text=True, timeout=120, cwd=REPO)
    mine = run_cli(str(EXAMPLE_HYPOTHESES), "-r", *references, "-b", "-w", "2")
    assert mine.stdout == theirs.stdout and re.fullmatch(r"\d+\.\d\d\n", mine.stdout)
    report = run_cli(str(EXAMPLE_HYPOTHESES), "-r", *references, "-w", "2").stdout
    score = float(mine.stdout)
    assert f"BLEU             {score:.2f}  (" in report and "on the 0-1 scale)" in report


def test_piped_into_head_the_command_stops_quietly(tmp_path):
    """`bleukit/cli/main.py ... | head` exits like other Unix tools: no traceback, no error message when
    head stops reading (the output here, 20,000 sentence scores, outgrows the pipe's buffer)."""
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat on the mat\n" * 20000, encoding="utf-8")
    ref.write_text("the cat is on the mat\n" * 20000, encoding="utf-8")
    for options in (["--json", "--sentence-scores"], ["--sentence-scores"]):
        command = (f"{sys.executable} -m bleukit {hyp} -r {ref} -q {' '.join(options)} | head -c 100; "
                   "echo \" ${PIPESTATUS[0]}\"")
        completed = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
        assert completed.stderr == "", completed.stderr
        output, status = completed.stdout.rsplit(" ", 1)
        assert len(output) == 100 and status.strip() in ("0", "141")  # 141: ended by SIGPIPE, as sacreBLEU

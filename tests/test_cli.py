"""The command-line job: the bundled example, files, options, JSON, and errors."""

from __future__ import annotations

import json
import subprocess
import sys

import sacrebleu

from bleu_cli import EXAMPLE_HYPOTHESES, EXAMPLE_REFERENCES, main, read_segments
from bleu_core import compute_bleu
from conftest import REPO


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(REPO / "bleu_cli.py"), *args], input=stdin, capture_output=True, text=True,
        timeout=120, cwd=REPO,
    )


def test_no_arguments_scores_the_bundled_example_and_says_so():
    completed = run_cli()
    assert completed.returncode == 0, completed.stderr
    assert "scoring the bundled example" in completed.stdout
    hypotheses = read_segments(EXAMPLE_HYPOTHESES)
    streams = [read_segments(path) for path in EXAMPLE_REFERENCES]
    oracle = sacrebleu.corpus_bleu(hypotheses, streams, smooth_method="none")
    assert f"BLEU             {oracle.score / 100:.4f}  ({oracle.score:.2f} on the 0-100 scale)" in completed.stdout
    assert "signature        nrefs:2|case:mixed|eff:no|tok:13a|smooth:none|reflen:closest|order:4|version:" in completed.stdout


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
    code = main([str(hyp), "-r", str(ref), "-t", "none", "-s", "method1", "--smooth-value", "0.2",
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

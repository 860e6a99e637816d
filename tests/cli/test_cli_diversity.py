"""The command line's Diversity view: `bleukit/cli/main.py --self-bleu FILE` reports what self_bleu and
most_similar_pairs compute, with 1-based line numbers, and refuses what it cannot do."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import bleukit.cli.diversity as bleu_cli_diversity
from bleukit.cli.main import main
from bleukit.diversity.pairwise import most_similar_pairs, self_bleu
from conftest import REPO

LINES = ["the cat sat on the mat", "the cat sat on a mat", "a dog barked loudly", "the cat sat on the mat", ""]


@pytest.fixture
def generations(tmp_path):
    path = tmp_path / "generations.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


def test_json_is_self_bleu_and_the_pairs(generations, capsys):
    assert main(["--self-bleu", str(generations), "--json", "--top", "3", "--sentence-scores"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = self_bleu(LINES)
    assert {key: printed[key] for key in expected} == expected
    assert printed["texts"] == 5 and printed["file"] == str(generations)
    pairs = most_similar_pairs(LINES, 3)["pairs"]
    assert printed["pairs"] == [{"lines": [p["i"] + 1, p["j"] + 1], "bleu": p["bleu"], "bleu_ij": p["bleu_ij"],
                                 "bleu_ji": p["bleu_ji"]} for p in pairs]
    assert printed["pairs"][0]["lines"] == [1, 4] and printed["pairs"][0]["bleu"] == 1.0


def test_the_report_in_a_fresh_process(generations):
    completed = subprocess.run([sys.executable, "-m", "bleukit", "--self-bleu", str(generations)],
                               capture_output=True, text=True, timeout=120, cwd=REPO)
    assert completed.returncode == 0, completed.stderr
    result = self_bleu(LINES)
    line = f"self-BLEU        {result['self_bleu']:.4f}  (mean sentence BLEU of each line against the other 4;"
    assert line in completed.stdout
    assert f"pairwise BLEU    {result['pairwise_bleu']:.4f}" in completed.stdout
    assert "  1.0000  lines 1 and 4  (identical)\n          1: the cat sat on the mat\n" in completed.stdout


def test_options_reach_self_bleu(generations, capsys):
    assert main(["--self-bleu", str(generations), "--convention", "nltk", "-tok", "none", "--max-order", "3", "-b"]) == 0
    value = float(capsys.readouterr().out)
    expected = self_bleu(LINES, convention="nltk", tokenizer="none", max_order=3)["self_bleu"]
    assert value == round(expected, 4)
    assert main(["--self-bleu", str(generations), "-s", "floor", "-eff", "--json", "--top", "0"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert "pairs" not in printed and "smooth:floor[0.1]" in printed["signature"]


def test_width_means_what_it_means_for_corpus_bleu(generations, tmp_path, capsys):
    """-w N: N digits on sacreBLEU's 0-100 scale, as the corpus command (-w 2: 54.54, never 0.55);
    without it, 0-1 with 4 digits. Oracle: sacreBLEU's sentence_bleu of each line against the others."""
    from sacrebleu.metrics import BLEU

    metric = BLEU(effective_order=True)
    sentence = [metric.sentence_score(line, LINES[:i] + LINES[i + 1 :]).score for i, line in enumerate(LINES)]
    mean = sum(sentence) / len(sentence)  # sacreBLEU's 0-100 scale
    assert main(["--self-bleu", str(generations), "-w", "2", "-b"]) == 0
    assert capsys.readouterr().out.strip() == f"{mean:.2f}"
    assert main(["--self-bleu", str(generations), "-b"]) == 0
    assert capsys.readouterr().out.strip() == f"{mean / 100:.4f}"
    assert main(["--self-bleu", str(generations), "-w", "1", "--top", "1", "--sentence-scores"]) == 0
    report = capsys.readouterr().out
    assert f"self-BLEU        {mean:.1f}  (on the 0-100 scale; mean sentence BLEU" in report
    assert "sentence BLEU    " + " ".join(f"{value:.1f}" for value in sentence) in report
    assert "  100.0  lines 1 and 4  (identical)" in report
    # The corpus command, for the same meaning of -w.
    reference = tmp_path / "reference.txt"
    reference.write_text("\n".join(LINES[1:] + LINES[:1]) + "\n", encoding="utf-8")
    assert main([str(generations), "-r", str(reference), "-w", "2", "-b"]) == 0
    corpus = BLEU(smooth_method="none").corpus_score(LINES, [LINES[1:] + LINES[:1]]).score  # our grammar: no smoothing
    assert capsys.readouterr().out.strip() == f"{corpus:.2f}"


def test_large_files_skip_the_pair_search(generations, capsys, monkeypatch):
    monkeypatch.setattr(bleu_cli_diversity, "PAIR_SEARCH_LIMIT", 4)
    assert main(["--self-bleu", str(generations)]) == 0
    assert "most similar pairs: not searched, 5 lines make 10 pairs (searched up to 4 lines" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra, message",
    [
        (["-r", "ref.txt"], "drop hypothesis or reference files"),
        (["--paired-bs"], "drop --paired-bs/--paired-ar"),
        (["--top", "-1"], "--top must be >= 0"),
    ],
)
def test_usage_errors(generations, capsys, extra, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["--self-bleu", str(generations), *extra])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_bad_files_exit_2(tmp_path, capsys):
    one = tmp_path / "one.txt"
    one.write_text("a single line\n", encoding="utf-8")
    assert main(["--self-bleu", str(one)]) == 2
    assert "at least 2" in capsys.readouterr().err
    assert main(["--self-bleu", str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt" in capsys.readouterr().err

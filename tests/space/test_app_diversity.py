"""The Space's Diversity tab, without a browser: its numbers are self_bleu's and most_similar_pairs',
pasted or uploaded, and bad input gets a message in the status line."""

from __future__ import annotations

import html
import re

import pandas as pd
import pytest

from bleukit.diversity.pairwise import most_similar_pairs, self_bleu
from conftest import wmt17_lines
from space import diversity_view, inputs, layout
from space.render import both_scales

TEXTS = ["the cat sat on the mat", "the cat sat on a mat", "a dog barked loudly", "the cat sat on the mat"]
FORM = ("13a", False, 4, "sacrebleu")  # tokenizer, lowercase, max order, convention


def measure(pasted=None, upload=None, form=FORM):
    source = inputs.SOURCE_TEXT if upload is None else inputs.SOURCE_FILES
    names = ["status", "summary", "signature", "caption", "pairs"]
    shown = dict(zip(names, diversity_view.run_diversity(source, pasted, upload, *form)))
    shown["pairs"] = pairs_frame(shown["pairs"])
    return shown


def pairs_frame(view: str) -> pd.DataFrame:
    """The pairs list's rows: line numbers, the three BLEU values (their HTML, both scales) and the texts."""
    rows = re.findall(r'<li class="diff-row pair-row">(.*?)</li>', view)
    return pd.DataFrame([{
        "i": re.search(r"<b>lines ([\d,]+) and", row).group(1), "j": re.search(r"and ([\d,]+)</b>", row).group(1),
        "BLEU": re.search(r'<span class="diff-delta pair-bleu">(.*?</span>)</span>', row).group(1),
        "BLEU(i | j)": re.search(r'<span class="pair-ij">(.*?</span>)</span>', row).group(1),
        "BLEU(j | i)": re.search(r'<span class="pair-ji">(.*?</span>)</span>', row).group(1),
        "text i": html.unescape(re.findall(r'<span class="diff-label">line [\d,]+</span>(.*?)</div>', row)[0]),
        "text j": html.unescape(re.findall(r'<span class="diff-label">line [\d,]+</span>(.*?)</div>', row)[1]),
    } for row in rows])


def test_the_card_and_the_pairs_are_the_modules():
    shown = measure("\n".join(TEXTS) + "\n\n")  # trailing blank lines are pasting, not texts
    result = self_bleu(TEXTS)
    assert shown["status"].visible is False
    assert f'data-self-bleu="{result["self_bleu"]!r}"' in shown["summary"]
    assert both_scales(result["pairwise_bleu"]) in shown["summary"] and both_scales(result["corpus_bleu"]) in shown["summary"]
    assert shown["signature"] == result["signature"]
    pairs = most_similar_pairs(TEXTS, diversity_view.PAIRS_SHOWN)["pairs"]
    assert shown["pairs"]["BLEU"].tolist() == [both_scales(p["bleu"]) for p in pairs]
    assert shown["pairs"]["BLEU(j | i)"].tolist() == [both_scales(p["bleu_ji"]) for p in pairs]
    assert shown["pairs"][["i", "j"]].values.tolist() == [[str(p["i"] + 1), str(p["j"] + 1)] for p in pairs]
    assert shown["pairs"]["text j"].iloc[0] == "(identical)"


def test_every_score_is_on_both_scales_with_the_score_tabs_meaning():
    """One meaning of the scale on the page and in the CLI: 0–1 with 4 digits, or 0–100 with 2 (the
    CLI's -w 2: 54.54, never 0.55); the page's toggle shows one. WMT17 lines: self-BLEU, corpus and
    pairwise BLEU and every pair's values in the card and the table, each as both spans."""
    lines = wmt17_lines("uedin-nmt.4722.de")[:60] + wmt17_lines("uedin-nmt.4722.de")[:2]
    shown = measure("\n".join(lines))
    result = self_bleu(lines)
    value = result["self_bleu"]
    assert both_scales(value) == (f'<span class="scale-unit">{value:.4f}</span>'
                                  f'<span class="scale-percent">{100 * value:.2f}</span>')
    assert f'<div class="bleu-value" id="diversity-value">{both_scales(value)}</div>' in shown["summary"]
    assert f"{100 * value:.2f} on the 0–100 scale" in shown["summary"] and f"{value:.4f} on the 0–1 scale" in shown["summary"]
    pairs = most_similar_pairs(lines, diversity_view.PAIRS_SHOWN)["pairs"]
    assert shown["pairs"]["BLEU(i | j)"].tolist() == [both_scales(p["bleu_ij"]) for p in pairs]
    assert shown["pairs"]["BLEU"].iloc[0] == both_scales(1.0) == ('<span class="scale-unit">1.0000</span>'
                                                                 '<span class="scale-percent">100.00</span>')
    # The toggle's views: the Score tab's card and both of this tab's outputs, one choice for the page.
    from space.render import SCALE_HOLDER, SCALE_JS

    assert SCALE_HOLDER == "#page-tabs" and SCALE_HOLDER in SCALE_JS
    demo = layout.build_demo()
    ids = {getattr(block, "elem_id", None) for block in demo.blocks.values()}
    assert {"page-tabs", "scale-toggle", "diversity-scale-toggle", "diversity-summary", "diversity-pairs"} <= ids


def test_an_uploaded_file_and_the_nltk_convention(tmp_path):
    path = tmp_path / "samples.txt"
    path.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    shown = measure(upload=str(path), form=("none", True, 3, "nltk"))
    expected = self_bleu(TEXTS, tokenizer="none", lowercase=True, max_order=3, convention="nltk")
    assert f'data-self-bleu="{expected["self_bleu"]!r}"' in shown["summary"]
    assert shown["signature"] == expected["signature"] and shown["signature"].endswith("|conv:nltk")


def test_a_large_set_skips_the_pair_search(monkeypatch):
    monkeypatch.setattr(diversity_view, "PAIR_SEARCH_LIMIT", 3)
    shown = measure("\n".join(TEXTS))
    assert shown["pairs"].empty and "4 texts make 6 pairs" in shown["caption"]


def test_wmt17_lines_through_the_tab():
    lines = wmt17_lines("uedin-nmt.4722.de")[:300]
    shown = measure("\n".join(lines))
    assert f'data-self-bleu="{self_bleu(lines)["self_bleu"]!r}"' in shown["summary"]
    assert len(shown["pairs"]) == diversity_view.PAIRS_SHOWN


@pytest.mark.parametrize(
    "pasted, form, message",
    [
        ("only one line", FORM, "at least 2"),
        ("", FORM, "at least 2"),
        ("a\nb", ("13a", False, 0, "sacrebleu"), "order"),
        ("x" * (inputs.MAX_PASTED_CHARS + 1), FORM, "Upload a file"),
    ],
)
def test_bad_input_says_what_to_do(pasted, form, message):
    shown = measure(pasted, form=form)
    assert shown["status"].visible is True and "Cannot measure diversity" in shown["status"].value
    assert message in shown["status"].value


def test_no_file_uploaded():
    status = diversity_view.run_diversity(inputs.SOURCE_FILES, "", None, *FORM)[0]
    assert "no file uploaded" in status.value


def test_the_page_has_the_tab():
    demo = layout.build_demo()
    ids = {getattr(block, "elem_id", None) for block in demo.blocks.values()}
    assert {"diversity-tab", "diversity-texts", "diversity-button", "diversity-summary", "diversity-pairs"} <= ids
    assert "diversity" in {dependency.get("api_name") for dependency in demo.config["dependencies"]}

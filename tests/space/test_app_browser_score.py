"""Issue 20 on the Score tab, in headless Chromium at 1280x900 and 390x844: what a visitor meets.

1. An example may set the options, but then the form shows them, the panel's title states them, the
   score card says which options made the number, and Reset brings the defaults back (the issue:
   "Bigram BLEU, weights 0.5 0.5, lowercased" then uedin-nmt scored 0.4609 under a title that read
   "13a, order 4, no smoothing unless changed").
2. The score card fits a phone: no 1 px wide labels, no values off-screen, a short card.
3. Explain and Per segment show one number per segment (segment 1245: 0.0925 in both), and the
   corpus options' number beside it is labelled.
5. The bootstrap is sacreBLEU's: blank seed is 12345, the card shows μ ± ci, the summary line is the
   one sacreBLEU prints, the signature names the resamples and the seed.
8. Score's focus ring passes 3:1 in dark mode too.
Oracles: `bleukit.core.compute_bleu` (the metric's path) and sacreBLEU.
"""

from __future__ import annotations

import pytest
import sacrebleu

from browser_support import (
    ARTIFACTS,
    FOCUS_INDICATOR_JS,
    VIEWPORTS,
    axe_violations,
    score_and_wait,
    shown_bleu,
    needs_axe,
    no_horizontal_overflow,
    open_page,
    upload,
)
from bleukit.core import compute_bleu
from conftest import WMT17, WMT17_REFERENCE, wmt17_lines

UEDIN = "uedin-nmt.4722.de"


def options_title(page, panel: str = "#options") -> str:
    return page.locator(f"{panel} > button.label-wrap > span").first.inner_text().strip()


def upload_uedin(page) -> tuple:
    hypothesis, reference = wmt17_lines(UEDIN), wmt17_lines("newstest2017-ende.ref.de")
    page.get_by_role("tab", name="Upload files").click()
    upload(page, "#hypothesis-file", WMT17 / UEDIN)
    upload(page, "#reference-files", [WMT17_REFERENCE])
    return hypothesis, reference


@VIEWPORTS
def test_an_example_sets_options_that_the_page_states_and_the_next_score_uses(app_url, browser, viewport):
    page = open_page(browser, app_url, viewport)
    assert options_title(page) == "Options: tokenizer 13a, order 4, no smoothing (the defaults)"
    page.get_by_text("Bigram BLEU, weights 0.5 0.5, lowercased").click()
    page.wait_for_selector("#bleu-score")
    page.wait_for_function("() => document.querySelector('#options > button.label-wrap').innerText.includes('lowercased')")
    # The title states the example's options, the panel is open and the form shows them.
    assert options_title(page) == "Options: tokenizer 13a, order 2, no smoothing, lowercased (changed from the defaults)"
    assert page.locator("#weights textarea, #weights input").first.is_visible()
    assert page.locator("#weights textarea, #weights input").first.input_value() == "0.5, 0.5"
    assert page.locator("#lowercase input").is_checked()
    assert "Scored with: tokenizer 13a, order 2, no smoothing, lowercased (not the defaults)" in (
        page.locator("#bleu-options").inner_text())

    # The visitor's own data next: scored with those options, and the card says so.
    hypothesis, reference = upload_uedin(page)
    score_and_wait(page)
    bigram = compute_bleu(hypothesis, reference, lowercase=True, weights=[0.5, 0.5])
    assert shown_bleu(page) == bigram["bleu"] and round(bigram["bleu"], 4) == 0.4609  # the number
    assert "lowercased (not the defaults)" in page.locator("#bleu-options").inner_text()
    assert "lowercased" in options_title(page)
    page.screenshot(path=str(ARTIFACTS / f"options-after-example-{viewport['width']}.png"), full_page=True)

    # Reset: the defaults, stated; the same files score sacreBLEU's 28.30.
    page.locator("#reset-options").click()
    page.wait_for_function("() => document.querySelector('#options > button.label-wrap').innerText.includes('(the defaults)')")
    score_and_wait(page)
    assert shown_bleu(page) == compute_bleu(hypothesis, reference)["bleu"]
    assert round(100 * shown_bleu(page), 2) == 28.30
    assert page.locator("#bleu-options").inner_text().strip() == "Scored with: tokenizer 13a, order 4, no smoothing"
    assert no_horizontal_overflow(page)
    page.close()


@VIEWPORTS
def test_an_example_on_the_score_tab_leaves_the_compare_tab_s_options_alone(app_url, browser, viewport):
    """The issue: a Compare run after the cat example used tok:none."""
    page = open_page(browser, app_url, viewport)
    page.get_by_text("the cat the cat on the mat → 0.467").click()
    page.wait_for_selector("#bleu-score")
    assert "tokenizer none" in options_title(page)
    page.get_by_role("tab", name="Compare", exact=True).click()
    assert options_title(page, "#compare-options") == "Options: tokenizer 13a, order 4, no smoothing (the defaults)"
    page.locator("#compare-systems textarea").fill("the cat sat on the mat\na dog\n===\nthe cat sat\na dog ran")
    page.locator("#compare-references textarea").fill("the cat sat on the mat\na dog ran")
    page.locator("#compare-button").click()
    page.wait_for_selector("#compare-plot")
    caption = page.locator("#compare-caption").inner_text()
    assert "|tok:13a|" in caption and "Options: tokenizer 13a, order 4, no smoothing." in caption
    page.close()


@VIEWPORTS
def test_the_score_card_fits_the_screen(app_url, browser, viewport):
    """The issue: at 390 px every label of the facts grid was 1 px wide and the card 1,511 px tall."""
    page = open_page(browser, app_url, viewport)
    page.get_by_text("you are ready ? → 0 unsmoothed").click()  # a one-line example
    page.wait_for_selector("#bleu-score")
    card = page.locator("#bleu-score").bounding_box()
    assert card["height"] < (600 if viewport["width"] < 600 else 400), card
    for fact in page.locator(".bleu-facts > div > span").all():
        box = fact.bounding_box()
        assert box["width"] >= 60, (fact.inner_text(), box)  # a label is a word wide, not a letter
    for element in page.locator("#bleu-score *").all():
        box = element.bounding_box()
        if box:
            assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 0.5, element.inner_text()
    assert no_horizontal_overflow(page)
    page.locator("#bleu-score").screenshot(path=str(ARTIFACTS / f"card-{viewport['width']}.png"))
    page.close()


@VIEWPORTS
def test_explain_and_per_segment_show_the_same_number(app_url, browser, viewport):
    """The issue: segment 1245 read 0.0925 in the table and 0.0000 in Explain."""
    page = open_page(browser, app_url, viewport)
    hypothesis, reference = upload_uedin(page)
    score_and_wait(page)
    page.get_by_role("tab", name="Per segment").click()
    page.locator("#segments-page input").fill("25")  # segments 1,201-1,250
    page.locator("#segments-page input").press("Enter")
    page.wait_for_function("() => document.querySelector('#segments-caption').innerText.includes('1,201')")
    # The table draws the rows in view: scroll it to its end, where row 45 of the page is.
    page.evaluate("""() => { for (const e of document.querySelectorAll('#segments *'))
        if (e.scrollHeight > e.clientHeight + 4) e.scrollTop = e.scrollHeight; }""")
    row = page.locator('#segments [data-testid="cell-44-0"]')
    assert row.inner_text().strip() == "1245"
    table_bleu = page.locator('#segments [data-testid="cell-44-1"]').inner_text().strip()
    oracle = sacrebleu.BLEU(effective_order=True).sentence_score(hypothesis[1244], [reference[1244]]).score / 100
    assert table_bleu == f"{oracle:.4f}" == "0.0925"
    page.locator('#segments [data-testid="cell-44-4"]').click()  # the row's prediction: explain it
    page.wait_for_function("() => document.querySelector('#explain-view')?.innerText.includes('Segment 1245')")
    assert page.locator("#explain-bleu").inner_text().strip() == table_bleu
    corpus = page.locator("#explain-corpus-bleu")
    assert corpus.inner_text().strip() == f"{compute_bleu([hypothesis[1244]], [reference[1244]])['bleu']:.4f}" == "0.0000"
    label = page.locator(".explain-corpus").inner_text()
    assert "the Per segment table's number" in label and "With the corpus options" in label
    assert no_horizontal_overflow(page)
    page.screenshot(path=str(ARTIFACTS / f"explain-1245-{viewport['width']}.png"))
    page.close()


@VIEWPORTS
def test_the_bootstrap_interval_is_sacrebleus(app_url, browser, viewport):
    page = open_page(browser, app_url, viewport)
    hypothesis, reference = upload_uedin(page)
    page.locator("#bootstrap").get_by_text("Confidence interval").click()
    assert page.locator("#bootstrap-seed textarea, #bootstrap-seed input").first.input_value() == "12345"
    page.locator("#bootstrap-samples input").fill("1000")
    page.locator("#bootstrap-seed textarea, #bootstrap-seed input").first.fill("")  # blank: 12345 too
    score_and_wait(page)
    sacre = sacrebleu.BLEU()
    score = sacre.corpus_score(hypothesis, [reference], n_bootstrap=1000)  # SACREBLEU_SEED's default 12345
    assert page.locator("#sacrebleu-line textarea, #sacrebleu-line input").first.input_value() == str(score)
    assert str(score).startswith("BLEU = 28.30 (μ = 28.31 ± 0.68)")
    signature = page.locator("#signature textarea, #signature input").first.input_value()
    assert signature.split("|")[:3] == sacre.get_signature().format().split("|")[:3] == ["nrefs:1", "bs:1000", "seed:12345"]
    assert page.locator("#bleu-interval").inner_text().strip() == f"μ = {score._mean / 100:.4f} ± {score._ci / 100:.4f}"
    assert "bootstrap, 1,000 resamples, seed 12345" in page.locator("#bleu-score").text_content()
    for fact in page.locator(".bleu-facts > div > span").all():
        assert fact.bounding_box()["width"] >= 60
    assert no_horizontal_overflow(page)
    page.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_scores_focus_ring_is_visible_against_the_page_in_both_colour_schemes(app_url, browser, scheme):
    """The issue: Score's focus ring at 2.07:1 (dark mode: the light-mode indigo on a near-black page)."""
    page = open_page(browser, app_url, color_scheme=scheme)
    page.locator("#references textarea").focus()
    page.keyboard.press("Tab")
    page.wait_for_function("() => document.activeElement.id === 'score-button' && "
                           "document.activeElement.getAnimations().length === 0")
    focus = page.evaluate(FOCUS_INDICATOR_JS)
    assert focus["visible"] and focus["width"] >= 2 and focus["contrast"] >= 3, focus
    page.close()


@needs_axe
def test_axe_finds_no_contrast_violations_in_dark_mode(app_url, browser):
    page = open_page(browser, app_url, color_scheme="dark")
    page.get_by_text("Bigram BLEU, weights 0.5 0.5, lowercased").click()
    page.wait_for_selector("#bleu-score")
    assert axe_violations(page, ["color-contrast"]) == []
    page.close()

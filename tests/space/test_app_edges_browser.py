"""The edges of tests/space/test_app_edges.py in headless Chromium, against `python app.py` (the
shared `app_url` server, with the API's door of space/api_guard.py in front):

1. Floor with 0.2, then method4: the value box empties, its placeholder's default is stated and
   scored (it was k = 0.2: BLEU 1.0002).
2. Text cut inside an emoji (a lone surrogate, typed into the box by the page's own script) is
   scored: a number, no Error badge.
3. An example scores with the Resamples box the visitor set (sacreBLEU's μ ± ci line).
4. The page still works through its own channels (queue/join, and /run/<name> for its unqueued
   events): every such request here is answered 200.
Oracles: `bleukit.core.compute_bleu` and sacreBLEU.
"""

from __future__ import annotations

import json

import pytest
import sacrebleu

from browser_support import open_page, score_and_wait, shown_bleu
from bleukit.core import compute_bleu

pytestmark = pytest.mark.browser

CUT = ["caf\ud83d is open until late tonight", "we met at the caf\ud83d and talked"]
CUT_REFS = ["caf\u00e9 is open until late tonight", "we met at the caf\ud83d and talked \U0001F600"]


def watch_page_calls(page) -> list:
    """(route, status) of every call the page makes to the server's event routes."""
    seen = []
    page.on("response", lambda response: seen.append((response.url, response.status))
            if "/gradio_api/run/" in response.url or "/gradio_api/queue/join" in response.url else None)
    return seen


def type_into(page, elem_id: str, text: str) -> None:
    """Set a text box as typing does, from a JS string literal (so a lone surrogate reaches the box:
    Playwright's own fill goes through UTF-8 and would turn it into U+FFFD first)."""
    page.evaluate(f"""() => {{
      const box = document.querySelector('#{elem_id} textarea, #{elem_id} input');
      box.value = {json.dumps(text)};
      box.dispatchEvent(new Event('input', {{bubbles: true}}));
    }}""")


def choose(page, elem_id: str, option: str) -> None:
    """Pick `option` in a Gradio dropdown, as a visitor does."""
    page.locator(f"#{elem_id} input").click()
    page.get_by_role("option", name=option, exact=True).click()
    page.wait_for_function("([id, value]) => document.querySelector(`#${id} input`).value === value", arg=[elem_id, option])


def options_title(page) -> str:
    return page.locator("#options > button.label-wrap > span").first.inner_text().strip()


def error_badges(page) -> list:
    """Visible "Error" badges and error toasts (what the page showed for text cut inside an emoji)."""
    return page.evaluate("""() => [...document.querySelectorAll('body *')].filter((e) => e.offsetParent !== null
      && e.childElementCount === 0 && e.textContent.trim() === 'Error').map((e) => e.outerHTML)
      .concat([...document.querySelectorAll('.toast-body.error')].map((e) => e.outerHTML))""")


def test_choosing_a_method_empties_the_value_box_and_scores_its_default(app_url, browser):
    page = open_page(browser, app_url)
    calls = watch_page_calls(page)
    page.locator("#predictions textarea").fill("you are ready ?")
    page.locator("#references textarea").fill("are you ready ?")
    page.locator("#options > button.label-wrap").click()
    choose(page, "smooth", "floor (sacreBLEU)")
    value = page.locator("#smooth-value textarea, #smooth-value input").first
    page.wait_for_function("() => !document.querySelector('#smooth-value textarea, #smooth-value input').disabled")
    value.fill("0.2")
    page.wait_for_function("() => document.querySelector('#options > button.label-wrap').innerText.includes('floor 0.2')")
    choose(page, "smooth", "method4 (Chen & Cherry)")
    page.wait_for_function("() => document.querySelector('#smooth-value textarea, #smooth-value input').value === ''")
    page.wait_for_function("() => document.querySelector('#smooth-value textarea, #smooth-value input').placeholder "
                           "=== 'blank = default 5'")
    page.wait_for_function("() => document.querySelector('#options > button.label-wrap').innerText.includes('method4 5')")
    assert options_title(page) == "Options: tokenizer 13a, order 4, smoothing method4 5 (changed from the defaults)"
    score_and_wait(page)
    expected = compute_bleu(["you are ready ?"], [["are you ready ?"]], smooth="method4")
    stale = compute_bleu(["you are ready ?"], [["are you ready ?"]], smooth="method4", smooth_value=0.2)
    assert shown_bleu(page) == expected["bleu"] and round(expected["bleu"], 4) == 0.2000
    assert round(stale["bleu"], 4) == 1.0002  # what the page scored before
    # The page's own calls went through: its unqueued events by name (with their fn_index and session),
    # Score through the queue.
    assert any("/gradio_api/run/" in url for url, _ in calls) and any("queue/join" in url for url, _ in calls)
    assert [call for call in calls if call[1] != 200] == []
    page.close()


def test_the_score_tab_scores_text_cut_inside_an_emoji(app_url, browser):
    page = open_page(browser, app_url)
    type_into(page, "predictions", "\n".join(CUT))
    type_into(page, "references", "\n".join(CUT_REFS))
    assert page.evaluate("() => document.querySelector('#predictions textarea').value.charCodeAt(3)") == 0xD83D
    score_and_wait(page)
    expected = compute_bleu(CUT, [[reference] for reference in CUT_REFS])
    sacre = sacrebleu.metrics.BLEU(smooth_method="none").corpus_score(CUT, [CUT_REFS])
    assert shown_bleu(page) == expected["bleu"] and round(expected["bleu"], 4) == round(sacre.score / 100, 4) == 0.8280
    page.wait_for_timeout(500)  # an error would come with the same update
    assert error_badges(page) == []
    page.close()


def test_an_example_scores_with_the_resamples_box(app_url, browser):
    """The issue: Resamples showing 1000, an example clicked, no interval."""
    page = open_page(browser, app_url)
    page.locator("#bootstrap").get_by_text("Confidence interval").click()
    page.locator("#bootstrap-samples input").fill("1000")
    page.locator("#bootstrap-samples input").press("Tab")
    page.get_by_text("Paper: Candidate 1 vs 2").click()
    page.wait_for_selector("#bleu-interval")
    from space.examples import EXAMPLES

    _, row = next(item for item in EXAMPLES if item[0].startswith("Paper: Candidate 1 vs 2"))
    predictions = row[0].split("\n")
    streams = [block.strip().split("\n") for block in row[1].split("\n---\n")]
    sacre = sacrebleu.metrics.BLEU(tokenize="none", lowercase=True, smooth_method="none").corpus_score(
        predictions, streams, n_bootstrap=1000)  # "BLEU = 30.44 (μ = 28.03 ± 25.23) 78.1/36.7/25.0/15.4 ..."
    expected = compute_bleu(predictions, [list(group) for group in zip(*streams)], tokenizer="none", lowercase=True,
                            bootstrap_samples=1000)
    assert shown_bleu(page) == expected["bleu"]
    assert page.locator("#sacrebleu-line textarea, #sacrebleu-line input").first.input_value() == str(sacre)
    assert "bs:1000|seed:12345" in page.locator("#signature textarea, #signature input").first.input_value()
    page.close()

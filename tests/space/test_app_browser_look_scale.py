"""The page's one Scale toggle (0–1 or 0–100), in headless Chromium (Debian's): every number that is a
BLEU score or a precision follows it, on every view, and it survives a new score.

The toggle switched two views only (the score card's big number and the Diversity tab); the card's
precisions, the chart, the per-segment table, explain mode and the whole Compare tab stayed put. Each
test reads each view on both scales, scores again on 0–100, reads again, and goes back to 0–1.
Oracles: `bleukit.core.compute_bleu`, `bleukit.significance.compare.compare`,
`bleukit.diversity.pairwise.self_bleu` and `most_similar_pairs`; the formats are the card's
(0–1 with 4 digits, 0–100 with 2; the precisions on 0–100 with sacreBLEU's 1).
"""

from __future__ import annotations

import re

from browser_support import ARTIFACTS, compare_and_wait, open_page, set_scale
from bleukit.core import compute_bleu
from conftest import wmt17_lines

UEDIN, KIT = wmt17_lines("uedin-nmt.4722.de"), wmt17_lines("KIT.4950.de")
REFERENCE = wmt17_lines("newstest2017-ende.ref.de")


def unit(value: float) -> str:
    return f"{value:.4f}"


def percent(value: float) -> str:
    return f"{100 * value:.2f}"


def text(page, selector: str) -> str:
    return page.locator(selector).first.inner_text().strip()


def texts(page, selector: str) -> list:
    return [t.strip() for t in page.locator(selector).all_inner_texts()]


# ------------------------------------------------------------------ the Score tab: card, chart, table, explain

SEGMENT_BLEU_JS = """(rows) => {
  const table = document.querySelector('#segments');
  const header = [...table.querySelectorAll('[data-heading]')].find((h) => h.title === 'sentence BLEU');
  const column = header.dataset.heading;
  return [...Array(rows).keys()].map((row) =>
    table.querySelector(`[data-testid="cell-${row}-${column}"]`).innerText.trim());
}"""


def score(page, lines: int) -> dict:
    """Paste `lines` segments of uedin-nmt and its reference, with a 100-resample interval, and score;
    returns what the metric computes for them (the card's oracle, and the per-segment one)."""
    page.get_by_role("tab", name="Score", exact=True).click()
    page.locator("#predictions textarea").fill("\n".join(UEDIN[:lines]))
    page.locator("#references textarea").fill("\n".join(REFERENCE[:lines]))
    before = page.evaluate("() => document.querySelector('#bleu-score')?.outerHTML || ''")
    page.locator("#score-button").click()
    page.wait_for_function("(before) => (document.querySelector('#bleu-score')?.outerHTML || before) !== before",
                           arg=before)
    hypotheses, references = UEDIN[:lines], [[r] for r in REFERENCE[:lines]]
    expected = compute_bleu(hypotheses, references, bootstrap_samples=100, bootstrap_seed=12345,
                            return_sentence_scores=True)
    expected["per_segment"] = compute_bleu(hypotheses, references, smooth="exp", effective_order=True,
                                           return_sentence_scores=True)["sentence_bleu"]
    return expected


def check_score_tab(page, expected: dict, scale: str) -> None:
    """The card, the chart, the per-segment table and explain mode, each on `scale`."""
    on = unit if scale == "0–1" else percent
    page.get_by_role("tab", name="Score", exact=True).click()
    page.get_by_role("tab", name="Overview").click()
    assert text(page, "#bleu-value") == on(expected["bleu"])
    precisions = " / ".join(unit(p) if scale == "0–1" else f"{100 * p:.1f}" for p in expected["precisions"])
    assert text(page, "#bleu-precisions") == precisions
    half = (expected["bleu_ci_high"] - expected["bleu_ci_low"]) / 2
    assert text(page, "#bleu-interval") == f"μ = {on(expected['bleu_bootstrap_mean'])} ± {on(half)}"
    bars = texts(page, "#chart .bar-row")  # the four precisions follow; the brevity penalty is a factor
    assert [re.split(r"\s+", bar)[-1] for bar in bars] == [on(p) for p in expected["precisions"]] + [
        unit(expected["brevity_penalty"])]

    page.get_by_role("tab", name="Per segment").click()
    page.wait_for_selector('#segments [data-testid="cell-2-0"]')
    want = [on(s) for s in expected["per_segment"][:3]]
    page.wait_for_function("([js, want]) => JSON.stringify(eval(js)(3)) === JSON.stringify(want)",
                           arg=[SEGMENT_BLEU_JS, want], timeout=5000)

    page.get_by_role("tab", name="Explain").click()
    page.wait_for_selector("#explain-view")
    head = text(page, "#explain-view .explain-head")
    assert f"sentence BLEU {on(expected['per_segment'][0])} " in head + " ", head
    corpus = text(page, "#explain-view .explain-corpus")
    assert f"scores {on(expected['sentence_bleu'][0])}" in corpus, corpus
    steps = texts(page, "#explain-view .explain-steps > div")
    assert steps[-1].endswith(f"= {on(expected['per_segment'][0])}") or f"= {on(expected['per_segment'][0])}  (" in steps[-1], steps
    precision_lines = texts(page, "#explain-view .ngram-precision") + [steps[0]]
    for line in precision_lines:  # "p1 = 12/19 = 0.6316" on 0–1, "p1 = 12/19 = 63.16%" on 0–100
        values = re.findall(r"(?:=|→) (\d+(?:\.\d+)?%?)(?=\s|$)", line)
        assert values and all(v.endswith("%") == (scale == "0–100") for v in values), (scale, line)


def test_the_scale_toggle_moves_every_score_tab_view_and_survives_a_new_score(app_url, browser):
    page = open_page(browser, app_url)
    page.locator("#bootstrap").get_by_text("Confidence interval").click()
    page.locator("#bootstrap-samples input").fill("100")
    expected = score(page, 40)
    check_score_tab(page, expected, "0–1")
    set_scale(page, "0–100")
    check_score_tab(page, expected, "0–100")
    page.screenshot(path=str(ARTIFACTS / "look-scale-score-percent.png"), full_page=True)
    expected = score(page, 60)  # a new score keeps the scale
    assert page.locator("#scale-toggle").get_by_label("0–100").is_checked()
    check_score_tab(page, expected, "0–100")
    set_scale(page, "0–1")
    check_score_tab(page, expected, "0–1")
    page.close()


# ------------------------------------------------------------------ the Compare tab: table, plot, differences


def compare(page, lines: int) -> dict:
    from bleukit.significance.compare import compare as oracle

    page.get_by_role("tab", name="Compare", exact=True).click()
    page.locator("#compare-systems textarea").fill("\n".join(UEDIN[:lines]) + "\n===\n" + "\n".join(KIT[:lines]))
    page.locator("#compare-references textarea").fill("\n".join(REFERENCE[:lines]))
    compare_and_wait(page)
    result = oracle({"system 1": UEDIN[:lines], "system 2": KIT[:lines]}, [[r] for r in REFERENCE[:lines]])
    from bleukit.core import compute_bleu as bleu

    sentence = [bleu(system[:lines], [[r] for r in REFERENCE[:lines]], smooth="exp", effective_order=True,
                     return_sentence_scores=True)["sentence_bleu"] for system in (UEDIN, KIT)]
    gaps = [b - a for a, b in zip(*sentence)]
    result["top_gap"] = max(gaps, key=abs)
    return result


def check_compare_tab(page, result: dict, scale: str) -> None:
    on = unit if scale == "0–1" else percent
    page.get_by_role("tab", name="Compare", exact=True).click()
    rows = [row.split("\t") for row in page.locator("#compare-results tbody tr").all_inner_texts()]
    labels = texts(page, "#compare-plot .ci-label")
    for cells, label, system in zip(rows, labels, result["systems"]):
        interval = f"{on(system['mean'])} ± {on(system['ci'])}"
        assert cells[1:3] == [on(system["bleu"]), interval], (scale, cells)
        assert label == f"{on(system['bleu'])} (μ = {interval})", (scale, label)
    ticks = [float(t) for t in texts(page, "#compare-plot .ci-tick")]
    assert all((t < 1) == (scale == "0–1") for t in ticks), (scale, ticks)
    assert ("(0–1)" if scale == "0–1" else "(0–100)") in text(page, "#compare-plot .ci-caption")
    delta = text(page, "#compare-diff-list .diff-delta")
    assert delta == (f"{result['top_gap']:+.4f}" if scale == "0–1" else f"{100 * result['top_gap']:+.2f}"), delta
    scores = text(page, "#compare-diff-list .diff-scores")
    assert re.findall(r"\d\.\d{4}" if scale == "0–1" else r"\d\.\d{2}(?!\d)", scores) and (
        scale == "0–1" or not re.findall(r"\d\.\d{4}", scores)), scores


def test_the_scale_toggle_moves_the_compare_tab_and_survives_a_new_comparison(app_url, browser):
    page = open_page(browser, app_url)
    result = compare(page, 30)
    check_compare_tab(page, result, "0–1")
    set_scale(page, "0–100", back_to="Compare")
    check_compare_tab(page, result, "0–100")
    page.screenshot(path=str(ARTIFACTS / "look-scale-compare-percent.png"), full_page=True)
    result = compare(page, 45)
    check_compare_tab(page, result, "0–100")
    set_scale(page, "0–1", back_to="Compare")
    check_compare_tab(page, result, "0–1")
    page.close()


# ------------------------------------------------------------------ the Diversity tab: summary and pairs


def measure(page, texts_in: list) -> dict:
    from bleukit.diversity.pairwise import most_similar_pairs, self_bleu

    page.get_by_role("tab", name="Diversity", exact=True).click()
    page.locator("#diversity-texts textarea").fill("\n".join(texts_in))
    before = page.evaluate("() => document.querySelector('#diversity-card')?.outerHTML || ''")
    page.locator("#diversity-button").click()
    page.wait_for_function("(before) => (document.querySelector('#diversity-card')?.outerHTML || before) !== before",
                           arg=before)
    return {**self_bleu(texts_in), "pair": most_similar_pairs(texts_in, 1)["pairs"][0]}


def check_diversity_tab(page, result: dict, scale: str) -> None:
    on = unit if scale == "0–1" else percent
    page.get_by_role("tab", name="Diversity", exact=True).click()
    assert page.locator("#diversity-scale-toggle").get_by_label(scale, exact=True).is_checked()
    assert text(page, "#diversity-value") == on(result["self_bleu"])
    facts = texts(page, "#diversity-card .bleu-facts b")
    assert facts[1:] == [on(result["corpus_bleu"]), on(result["pairwise_bleu"])], facts
    pair = result["pair"]
    assert [text(page, f"#diversity-pairs .{name}") for name in ("pair-bleu", "pair-ij", "pair-ji")] == [
        on(pair["bleu"]), on(pair["bleu_ij"]), on(pair["bleu_ji"])]


def test_the_scale_toggle_moves_the_diversity_tab_and_survives_a_new_measure(app_url, browser):
    page = open_page(browser, app_url)
    result = measure(page, UEDIN[:30])
    check_diversity_tab(page, result, "0–1")
    page.locator("#diversity-scale-toggle").get_by_label("0–100").check()
    check_diversity_tab(page, result, "0–100")
    result = measure(page, KIT[:40])
    check_diversity_tab(page, result, "0–100")
    page.locator("#diversity-scale-toggle").get_by_label("0–1", exact=True).check()
    check_diversity_tab(page, result, "0–1")
    page.close()

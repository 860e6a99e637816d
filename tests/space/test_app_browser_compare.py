"""Issue 20 on the Compare systems tab, in headless Chromium at 1280x900 and 390x844.

4. Readable: the interval plot's axis is fitted to the systems, with ticks, and the 95% bars show
   around the score; the baseline is chosen; the segments that differ most show the difference, the
   reference and both systems' outputs on screen; a second upload replaces the files.
5. The samples and seed boxes show what the test uses (1,000 resamples or 10,000 trials; 12345); the
   table shows each system's ties, and the Count ties box (issue 16's conservative p-value) reaches the test.
8. axe-core: no nested-interactive upload fields, no unfocusable scrolling region, contrast; the test
   menu's label is not clipped.
Oracles: `bleukit.significance.compare.compare` (itself checked against sacreBLEU's paired tests) and sacreBLEU's
sentence_score for the differences.
"""

from __future__ import annotations

import sacrebleu

from browser_support import (
    ARTIFACTS,
    VIEWPORTS,
    axe_violations,
    compare_and_wait,
    needs_axe,
    no_horizontal_overflow,
    open_page,
    upload,
)
from conftest import WMT17, WMT17_REFERENCE, wmt17_lines

FOUR = ["uedin-nmt.4722.de", "online-B.0.de", "KIT.4950.de", "LIUM-NMT.4900.de"]


def choose(page, elem_id: str, option: str) -> None:
    """Pick `option` in a Gradio dropdown."""
    page.locator(f"#{elem_id} input").click()
    page.get_by_role("option", name=option, exact=True).click()
    page.wait_for_function("([id, value]) => document.querySelector(`#${id} input`).value === value", arg=[elem_id, option])


def open_compare(page) -> None:
    page.get_by_role("tab", name="Compare", exact=True).click()
    page.get_by_role("tab", name="Upload system files").click()


@VIEWPORTS
def test_compare_is_readable_with_a_chosen_baseline(app_url, browser, viewport):
    from bleukit.significance.compare import compare

    systems = {name: wmt17_lines(name) for name in FOUR}  # skips where ../shared/data is absent
    reference = wmt17_lines("newstest2017-ende.ref.de")
    page = open_page(browser, app_url, viewport)
    page.locator("#scale-toggle").get_by_label("0–100").check()  # the page's scale: sacreBLEU's, as --paired-bs prints
    open_compare(page)
    upload(page, "#compare-system-files", [WMT17 / name for name in FOUR])
    upload(page, "#compare-reference-files", [WMT17_REFERENCE])
    # The baseline menu lists the uploads (the first one chosen); pick another.
    page.wait_for_function("(names) => names.includes(document.querySelector('#compare-baseline input').value)", arg=FOUR)
    choose(page, "compare-baseline", "online-B.0.de")
    compare_and_wait(page)

    rows = page.locator("#compare-results tbody tr").all_inner_texts()
    names = [row.split("\t")[0] for row in rows]  # the baseline first, then the others as uploaded
    assert names[0] == "online-B.0.de" and sorted(names) == sorted(FOUR) and rows[0].split("\t")[-2] == "baseline"
    expected = compare({name: systems[name] for name in names}, reference, baseline="online-B.0.de")
    for text, row in zip(rows, expected["systems"]):
        cells = text.split("\t")
        assert cells == [row["name"], f"{100 * row['bleu']:.2f}", f"{100 * row['mean']:.2f} ± {100 * row['ci']:.2f}",
                         "baseline" if row["p_value"] is None else f"{row['p_value']:.4f}",
                         "—" if row["ties"] is None else f"{row['ties']:,}"]
    assert "4 systems, 3,004 segments; baseline online-B.0.de" in page.locator("#compare-caption").inner_text()

    # The plot: an axis fitted to the systems (26.08-28.30 here, not 0-100), ticks, bars that show.
    ticks = [float(t) for t in page.locator("#compare-plot .ci-tick").all_inner_texts()]
    assert len(ticks) >= 3 and 20 < ticks[0] and ticks[-1] < 32
    dots = {name.strip(): page.locator(".ci-dot").nth(i).bounding_box()
            for i, name in enumerate(page.locator("#compare-plot .ci-name").all_inner_texts())}
    assert abs(dots["KIT.4950.de"]["x"] - dots["LIUM-NMT.4900.de"]["x"]) >= 15  # 26.08 and 26.60: told apart
    for bar in page.locator("#compare-plot .ci-bar").all():
        box = bar.bounding_box()
        assert box["width"] >= 25 and box["height"] >= 8, box  # μ ± ci visible around the 3 px tick

    # The segments where the first of the others differs most from the baseline: on screen.
    other = names[1]
    assert page.locator("#compare-against input").input_value() == other
    baseline_scores = [sacrebleu.BLEU(effective_order=True).sentence_score(h, [r]).score / 100
                       for h, r in zip(systems["online-B.0.de"], reference)]
    other_scores = [sacrebleu.BLEU(effective_order=True).sentence_score(h, [r]).score / 100
                    for h, r in zip(systems[other], reference)]
    gaps = [b - a for a, b in zip(baseline_scores, other_scores)]
    top = max(range(len(gaps)), key=lambda i: (abs(gaps[i]), -i))
    first = page.locator("#compare-diff-list .diff-row").first
    head = first.locator(".diff-head").inner_text()
    assert f"segment {top + 1:,}" in head and f"{100 * gaps[top]:+.2f}" in head  # on the page's 0–100
    labels = first.locator(".diff-label").all_inner_texts()
    texts = first.locator(".diff-text").evaluate_all("rows => rows.map(row => row.lastChild.textContent)")
    assert [label.lower() for label in labels] == ["reference", "online-b.0.de", other.lower()]
    assert texts == [reference[top], systems["online-B.0.de"][top], systems[other][top]]
    for part in [first.locator(".diff-delta"), *first.locator(".diff-text").all()]:
        box = part.bounding_box()
        assert box["x"] + box["width"] <= viewport["width"] + 0.5  # nothing pushed off-screen
    choose(page, "compare-against", names[2])
    page.wait_for_function("(name) => document.querySelector('#compare-diff-list .diff-caption').innerText.includes(name)",
                           arg=names[2])
    assert no_horizontal_overflow(page)
    page.screenshot(path=str(ARTIFACTS / f"compare-{viewport['width']}.png"))

    # A second upload replaces the systems (it once made "5 systems"); the baseline menu follows.
    upload(page, "#compare-system-files", [WMT17 / "xmu.4910.de", WMT17 / "SYSTRAN.4847.de", WMT17 / "C-3MA.4959.de"])
    third = ["xmu.4910.de", "SYSTRAN.4847.de", "C-3MA.4959.de"]
    page.wait_for_function("(names) => names.includes(document.querySelector('#compare-baseline input').value)", arg=third)
    compare_and_wait(page)
    caption = page.locator("#compare-caption").inner_text()
    assert "3 systems, 3,004 segments; baseline " in caption
    assert sorted(row.split("\t")[0] for row in page.locator("#compare-results tbody tr").all_inner_texts()) == sorted(third)
    page.close()


@VIEWPORTS
def test_compare_boxes_show_the_samples_and_seed_the_test_uses(app_url, browser, viewport):
    page = open_page(browser, app_url, viewport)
    page.get_by_role("tab", name="Compare", exact=True).click()
    assert page.locator("#compare-samples input").input_value() == "1000"
    assert page.locator("#compare-seed textarea, #compare-seed input").first.input_value() == "12345"
    choose(page, "compare-method", "approximate randomization")
    page.wait_for_function("() => document.querySelector('#compare-samples input').value === '10000'")
    method = page.locator("#compare-method input")  # the menu's text fits its box (was "paired bootstra")
    assert method.evaluate("e => e.scrollWidth <= e.clientWidth")
    choose(page, "compare-method", "paired bootstrap")
    assert method.evaluate("e => e.scrollWidth <= e.clientWidth")
    page.wait_for_function("() => document.querySelector('#compare-samples input').value === '1000'")
    # One segment: the p-value comes with its warning. Count ties (off by default) reaches the test.
    page.locator("#compare-systems textarea").fill("a b c\n===\na b d")
    page.locator("#compare-references textarea").fill("a b c")
    ties_box = page.locator("#compare-count-ties input")
    assert ties_box.is_visible() and not ties_box.is_checked()
    ties_box.check()
    compare_and_wait(page)
    warning = page.locator("#compare-status").inner_text()
    assert "Only 1 segment" in warning and "0.0010" in warning
    caption = page.locator("#compare-caption").inner_text()
    assert "|ties:counted" in caption and "count ties as at least as large" in caption
    page.close()


@needs_axe
@VIEWPORTS
def test_axe_finds_no_violations_on_the_compare_tab_with_results(app_url, browser, viewport):
    page = open_page(browser, app_url, viewport)
    open_compare(page)
    upload(page, "#compare-system-files", [WMT17 / name for name in FOUR[:2]])
    upload(page, "#compare-reference-files", [WMT17_REFERENCE])
    compare_and_wait(page)
    rules = ["color-contrast", "nested-interactive", "scrollable-region-focusable", "aria-prohibited-attr",
             "aria-allowed-attr", "button-name"]
    assert axe_violations(page, rules) == []
    page.get_by_role("tab", name="Score", exact=True).click()
    page.get_by_role("tab", name="Upload files").click()
    upload(page, "#reference-files", [WMT17_REFERENCE])
    assert axe_violations(page, ["nested-interactive", "button-name"]) == []
    page.close()

"""The page's look, measured in headless Chromium (Debian's): boxes, computed styles, glyphs.

1. Compare plot, desktop (1024, 1280, 1600 px): the axis row and the bar rows were laid out as separate
   grids, the axis about 15 px wider than the tracks, so 52.16 read as 50.6 against it. The value read
   off the axis at each tick, bar end and score mark must equal the printed one within 0.5% of the span.
2. Compare table on a phone (390 px): no number or name wraps inside ("52.1 / 6", "baseli / ne").
3. Score tab at 1280x800: the placeholder says "click an example below": the first example is on the
   first screen, below the paste box.
4. Diversity tab: the tokenizer menu's value and options read whole ("13a (WMT defa" was cut) at 1280
   and 390 px, no word broken across lines.
6. The body font draws E as E: Gradio's bundled "Montserrat-Regular.woff2" is Montserrat Alternates
   (its name table says so), whose E is an epsilon ("BLƐU").
The Scale toggle (point 5) is test_app_browser_look_scale.py. Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import re

import pytest

from browser_support import (
    ARTIFACTS, PHONE, SCALES, compare_and_wait, no_horizontal_overflow, open_page, set_scale, upload,
)
from conftest import WMT17_REFERENCE, wmt17_lines

SYSTEMS = ["uedin-nmt.4722.de", "KIT.4950.de", "LIUM-NMT.4900.de"]
def paste_and_compare(page, names=SYSTEMS, lines: int = 200) -> None:
    """Paste `lines` segments of each WMT17 system and the reference on the Compare tab, and compare."""
    page.get_by_role("tab", name="Compare", exact=True).click()
    page.locator("#compare-systems textarea").fill("\n===\n".join("\n".join(wmt17_lines(n)[:lines]) for n in names))
    page.locator("#compare-references textarea").fill("\n".join(wmt17_lines("newstest2017-ende.ref.de")[:lines]))
    compare_and_wait(page)


# ------------------------------------------------------------------ 1. the plot's axis

PLOT_JS = """() => {
  const center = (e) => { const r = e.getBoundingClientRect(); return r.left + r.width / 2; };
  const rows = [...document.querySelectorAll('#compare-plot .ci-row:not(.ci-axis-row)')].map((row) => {
    const bar = row.querySelector('.ci-bar')?.getBoundingClientRect();
    const track = row.querySelector('.ci-track').getBoundingClientRect();
    return {label: row.querySelector('.ci-label').innerText, dot: center(row.querySelector('.ci-dot')),
            bar: bar ? [bar.left, bar.right] : null, track: [track.left, track.right]};
  });
  const ticks = [...document.querySelectorAll('#compare-plot .ci-tick')].map((t) => [t.innerText.trim(), center(t)]);
  const axis = document.querySelector('#compare-plot .ci-axis').getBoundingClientRect();
  return {rows, ticks, axis: [axis.left, axis.right]};
}"""


def axis_reading(plot):
    """The axis as its ticks draw it: pixel x -> value (least squares through the ticks' centres)."""
    points = [(x, float(text)) for text, x in plot["ticks"]]
    n = len(points)
    mean_x, mean_v = sum(x for x, _ in points) / n, sum(v for _, v in points) / n
    slope = sum((x - mean_x) * (v - mean_v) for x, v in points) / sum((x - mean_x) ** 2 for x, _ in points)
    return lambda x: mean_v + slope * (x - mean_x)


@pytest.mark.parametrize("width", [1024, 1280, 1600])
def test_compare_plot_reads_the_printed_values_off_its_axis(app_url, browser, width):
    page = open_page(browser, app_url, {"width": width, "height": 900})
    paste_and_compare(page)
    worst = {}
    for scale in SCALES:
        set_scale(page, scale, back_to="Compare")
        plot = page.evaluate(PLOT_JS)
        assert len(plot["rows"]) == 3 and len(plot["ticks"]) >= 3, plot
        value_at = axis_reading(plot)
        span = value_at(plot["axis"][1]) - value_at(plot["axis"][0])
        errors = []
        for row in plot["rows"]:
            # "27.57 (μ = 27.56 ± 2.43)" or "0.2757 (μ = 0.2756 ± 0.0243)": the score, then μ and ci.
            bleu, mean, ci = (float(v) for v in re.findall(r"\d+\.\d+", row["label"]))
            errors.append(abs(value_at(row["dot"]) - bleu) / span)
            errors += [abs(value_at(row["bar"][0]) - (mean - ci)) / span, abs(value_at(row["bar"][1]) - (mean + ci)) / span]
        worst[scale] = max(errors)
        assert worst[scale] <= 0.005, (scale, worst[scale], plot)
        for row in plot["rows"]:  # one grid column for the tracks and the axis
            assert row["track"] == pytest.approx(plot["axis"], abs=0.5), (row, plot["axis"])
    page.locator("#compare-plot").screenshot(path=str(ARTIFACTS / f"look-compare-plot-{width}.png"))
    print(f"{width} px: worst reading error {worst} of the axis span")
    page.close()


# ------------------------------------------------------------------ 2. the table on a phone

# Each cell's text as lines: the distinct line boxes its text's rectangles sit on.
CELL_LINES_JS = """() => [...document.querySelectorAll('#compare-results th, #compare-results td')].map((cell) => {
  const range = document.createRange();
  range.selectNodeContents(cell);
  const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
  const lines = [];
  for (const r of rects) if (!lines.some((top) => Math.abs(top - r.top) < r.height / 2)) lines.push(r.top);
  return [cell.innerText.trim(), lines.length];
})"""


def test_compare_table_keeps_numbers_and_names_on_one_line_on_a_phone(app_url, browser, tmp_path):
    files = []  # the first 300 segments of each system, uploaded under the system's file name
    for name in [*SYSTEMS, WMT17_REFERENCE.name]:
        files.append(tmp_path / name)
        files[-1].write_text("".join(line + "\n" for line in wmt17_lines(name)[:300]), encoding="utf-8")
    page = open_page(browser, app_url, PHONE)
    page.get_by_role("tab", name="Compare", exact=True).click()
    page.get_by_role("tab", name="Upload system files").click()
    upload(page, "#compare-system-files", files[:-1])
    upload(page, "#compare-reference-files", files[-1:])
    compare_and_wait(page)
    for scale in SCALES:
        set_scale(page, scale, back_to="Compare")
        cells = page.evaluate(CELL_LINES_JS)
        assert len(cells) == 5 * (len(SYSTEMS) + 1)
        wrapped = [(text, lines) for text, lines in cells if lines != 1]
        assert wrapped == [], f"{scale}: cells on more than one line: {wrapped}"
        assert {text for text, _ in cells} >= set(SYSTEMS) | {"baseline"}
        assert no_horizontal_overflow(page)  # the table scrolls in its own box, not the page
        page.locator("#compare-table").screenshot(path=str(ARTIFACTS / f"look-compare-table-390-{SCALES[scale]}.png"))
    page.close()


# ------------------------------------------------------------------ 3. the examples on the first screen


def test_the_first_example_is_on_the_first_screen_at_1280x800(app_url, browser):
    from space.examples import EXAMPLES

    page = open_page(browser, app_url, {"width": 1280, "height": 800})
    page.evaluate("() => document.fonts.ready.then(() => true)")
    box = page.locator("#predictions textarea")
    assert "click an example below" in box.get_attribute("placeholder")
    first = page.get_by_text(EXAMPLES[0][0], exact=True).bounding_box()
    paste = box.bounding_box()
    assert page.evaluate("() => window.scrollY") == 0
    assert first["y"] >= paste["y"] + paste["height"], "the example is not below the paste box"
    assert first["y"] + first["height"] <= 800, f"the first example ends at {first['y'] + first['height']:.0f} px"
    page.screenshot(path=str(ARTIFACTS / "look-first-screen-1280x800.png"))
    page.close()


# ------------------------------------------------------------------ 4. the Diversity tab's tokenizer menu

# Every option of the open menu: on screen, not clipped, and no word split across two lines (a line may
# end after a hyphen, as text does: "spbleu-" / "1k_tokenizer_spm.model").
OPTIONS_JS = """() => [...document.querySelectorAll('[role=option]')].filter((o) => o.offsetParent).map((option) => {
  const box = option.getBoundingClientRect();
  const split = [];
  const walker = document.createTreeWalker(option, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const match of node.data.matchAll(/[^\\s-]+-?/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) split.push(match[0]);
    }
  }
  return {text: option.innerText.replace('✓', '').trim(), left: box.left, right: box.right,
          clipped: option.scrollWidth > option.clientWidth + 1, split};
})"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 800}, PHONE], ids=["1280", "390"])
def test_the_diversity_tokenizer_menu_reads_whole(app_url, browser, viewport):
    from space.options import TOKENIZER_CHOICES

    page = open_page(browser, app_url, viewport)
    page.get_by_role("tab", name="Diversity", exact=True).click()
    menu = page.locator('#diversity-tab input[role=combobox][aria-label="Tokenizer"]')
    menu.scroll_into_view_if_needed()
    assert menu.input_value() == "13a (WMT default)"
    assert menu.evaluate("e => e.scrollWidth <= e.clientWidth"), "the chosen value is cut"
    menu.click()
    page.wait_for_selector("[role=option]")
    options = page.evaluate(OPTIONS_JS)
    assert [o["text"] for o in options] == [label for label, _ in TOKENIZER_CHOICES]
    for option in options:
        assert option["left"] >= 0 and option["right"] <= viewport["width"] + 0.5, option
        assert not option["clipped"] and option["split"] == [], option
    page.screenshot(path=str(ARTIFACTS / f"look-diversity-menu-{viewport['width']}.png"))
    page.locator("#diversity-help").click()  # closes the menu
    # Every tokenizer the machine has, once chosen, reads whole in the box (a missing one's label carries
    # the reason, which may be longer than a phone's line; it reads whole in the menu above).
    for label, _ in TOKENIZER_CHOICES:
        if " — " in label:
            continue
        menu.click()
        page.get_by_role("option", name=label, exact=True).click()
        page.wait_for_function("([e, v]) => e.value === v", arg=[menu.element_handle(), label])
        assert menu.evaluate("e => e.scrollWidth <= e.clientWidth"), f"{label!r} is cut in the box"
    page.close()


# ------------------------------------------------------------------ 6. the body font's E

# How much of the glyph's height has ink in its leftmost eighth: E's stem fills it (about 1.0),
# an epsilon-shaped E (Montserrat Alternates) touches it only at its bowls.
LEFT_STEM_JS = """async ([font, text]) => {
  await document.fonts.load(font, text);
  const size = 320, canvas = document.createElement('canvas');
  canvas.width = canvas.height = size;
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, size, size);
  ctx.fillStyle = '#000'; ctx.font = font; ctx.fillText(text, 60, 240);
  const data = ctx.getImageData(0, 0, size, size).data;
  const ink = (x, y) => data[(y * size + x) * 4] < 128;
  let left = size, right = -1, top = size, bottom = -1;
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++)
    if (ink(x, y)) { left = Math.min(left, x); right = Math.max(right, x); top = Math.min(top, y); bottom = Math.max(bottom, y); }
  const band = Math.max(2, Math.round((right - left + 1) / 8));
  let rows = 0, inked = 0;
  for (let y = top + 2; y <= bottom - 2; y++) {
    rows++;
    for (let x = left; x < left + band; x++) if (ink(x, y)) { inked++; break; }
  }
  return inked / rows;
}"""


def platform_fonts(page, selector: str):
    """The fonts Chromium drew `selector`'s own text with (DevTools' CSS.getPlatformFontsForNode)."""
    session = page.context.new_cdp_session(page)
    session.send("DOM.enable")
    session.send("CSS.enable")
    root = session.send("DOM.getDocument")["root"]["nodeId"]
    node = session.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    return [font["familyName"] for font in session.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]]


def test_the_body_font_draws_e_as_e(app_url, browser):
    page = open_page(browser, app_url)
    page.evaluate("() => document.fonts.ready.then(() => true)")
    # The intro's regular text and the title's bold: neither is drawn with Montserrat Alternates.
    for selector in ("#title p", "#title h1"):
        used = platform_fonts(page, selector)
        assert used and not any("Alternates" in name for name in used), (selector, used)
    family = page.evaluate("() => getComputedStyle(document.querySelector('#title p')).fontFamily")
    # The measure tells the two shapes apart: a reference sans draws E with a stem, and Ɛ (U+0190) has none.
    assert page.evaluate(LEFT_STEM_JS, ["400 200px 'Liberation Sans'", "E"]) > 0.97
    assert page.evaluate(LEFT_STEM_JS, [f"400 200px {family}", "Ɛ"]) < 0.8
    for weight in (400, 700):
        stem = page.evaluate(LEFT_STEM_JS, [f"{weight} 200px {family}", "E"])
        assert stem > 0.97, f"E at weight {weight} in {family} has ink in its left eighth on {stem:.0%} of its height"
    # Each face draws all of a line: the semibold monospace of explain mode's precision lines (Gradio's
    # 600 file is a subset without digits, so they came out half in a fallback font) and the labels.
    page.evaluate("""() => { for (const [id, family, weight] of [['probe-mono', 'var(--font-mono)', 600],
                                                              ['probe-sans', 'var(--font)', 600]]) {
        const probe = document.createElement('span');
        probe.id = id; probe.textContent = 'p1 = 7/11 = 63.64% BLEU 0.4671';
        probe.style.fontFamily = family; probe.style.fontWeight = weight;
        document.querySelector('#title p').append(probe); } }""")
    page.evaluate("() => document.fonts.ready.then(() => true)")
    for probe in ("#probe-mono", "#probe-sans"):
        used = platform_fonts(page, probe)
        assert len(used) == 1 and "Alternates" not in used[0], (probe, used)
    page.close()

"""What the browser tests share: the demo served as users run it (`python app.py`), Debian's Chromium
driven by Playwright, the two viewports, and measuring helpers (what is on screen, the JS heap,
axe-core, the focus indicator). The server and the browser are session fixtures:
one of each for every Space test (tests/conftest.py). Skips when Chromium or Playwright is missing; CI has both.
"""

from __future__ import annotations

from pathlib import Path

import pytest


CHROMIUM = Path("/usr/bin/chromium")
# Screenshots land here (gitignored), so they outlive pytest's rotating temporary directories.
TESTS = Path(__file__).resolve().parents[1]
ARTIFACTS = TESTS / "artifacts"
ARTIFACTS.mkdir(exist_ok=True)
AXE = TESTS / "js" / "node_modules" / "axe-core" / "axe.min.js"  # tests/install.sh
REPO = TESTS.parent
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
needs_axe = pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed (tests/install.sh runs npm install in tests/js)")

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is absent (apt-get install chromium)", allow_module_level=True)


def launch_chromium():
    """Debian's Chromium under Playwright, for the whole session (tests/space/conftest.py's `browser`)."""
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def open_page(browser, url, viewport=DESKTOP, **options):
    """A new page on the demo, ready (its Score button drawn); `options` go to Playwright's new_page
    (e.g. color_scheme="dark")."""
    page = browser.new_page(viewport=viewport, **options)
    page.set_default_timeout(30000)
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector("#score-button")
    return page


def in_viewport(page, selector) -> bool:
    """Whether the element's box overlaps the visible part of the page (some of it is on screen)."""
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] < size["height"] and box["y"] + box["height"] > 0 and box["x"] < size["width"]


def js_heap_mb(page) -> float:
    """The page's used JS heap, from Chromium's DevTools protocol."""
    session = page.context.new_cdp_session(page)
    session.send("HeapProfiler.collectGarbage")
    session.send("Performance.enable")
    metrics = {m["name"]: m["value"] for m in session.send("Performance.getMetrics")["metrics"]}
    return metrics["JSHeapUsedSize"] / 2**20


def axe_violations(page, rules):
    """axe-core's violations of `rules` on the page once it is still (axe injected from the local npm copy).

    Gradio fades a component while an event updates it and fades it back in: contrast measured
    mid-fade is the fade's, not the page's, so the check waits for running transitions to end."""
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running' "
                           "|| a.effect?.getTiming().iterations === Infinity)", timeout=10000)
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        "async (rules) => (await axe.run(document, {runOnly: {type: 'rule', values: rules}})).violations", rules
    )
    return [(v["id"], [node["target"] for node in v["nodes"]]) for v in found]


# The focused element's indicator: outline style, width, and its contrast with what lies behind it
# (the outline sits outside the element, so the nearest opaque ancestor's background).
FOCUS_INDICATOR_JS = """() => {
  const element = document.activeElement;
  const style = getComputedStyle(element);
  const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => {
    const channel = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  };
  let behind = parseFloat(style.outlineOffset) < 0 ? element : element.parentElement, background = [255, 255, 255];
  for (; behind; behind = behind.parentElement) {
    const parts = rgb(getComputedStyle(behind).backgroundColor);
    if (parts.length === 3 || (parts.length === 4 && parts[3] === 1)) { background = parts.slice(0, 3); break; }
  }
  const [light, dark] = [luminance(rgb(style.outlineColor)), luminance(background)].sort((a, b) => b - a);
  return {tag: element.tagName, id: element.id, text: (element.innerText || element.placeholder || '').slice(0, 40),
          outline: style.outlineStyle, width: parseFloat(style.outlineWidth),
          contrast: (light + 0.05) / (dark + 0.05), visible: element.matches(':focus-visible')};
}"""


def upload(page, selector: str, paths) -> None:
    """Set a file field's files and wait until the page lists every one of them."""
    paths = [str(path) for path in (paths if isinstance(paths, (list, tuple)) else [paths])]
    page.locator(f"{selector} input[type=file]").first.set_input_files(paths)
    page.wait_for_function(
        "([selector, count]) => (document.querySelector(selector)?.innerText.match(/⇣/g) || []).length === count",
        arg=[selector, len(paths)])


def no_horizontal_overflow(page) -> bool:
    """The page does not scroll sideways (nothing sticks out past the viewport's right edge)."""
    return page.evaluate("() => document.scrollingElement.scrollWidth <= window.innerWidth + 1")


# The page's two scales: the Scale toggle's label -> the data-bleu-scale it sets.
SCALES = {"0–1": "unit", "0–100": "percent"}


def compare_and_wait(page) -> None:
    """Press Compare systems and wait for the new caption (the test is done)."""
    before = page.evaluate("() => document.querySelector('#compare-caption')?.innerText || ''")
    page.locator("#compare-button").click()
    page.wait_for_function("(before) => { const c = document.querySelector('#compare-caption');"
                           " const busy = !c.querySelector('[data-testid=\"status-tracker\"]').classList.contains('hide');"
                           " return !busy && c.innerText !== before && c.innerText.includes('Signature'); }",
                           arg=before, timeout=90000)


def set_scale(page, scale: str, back_to: str | None = None) -> None:
    """Flip the page's Scale toggle (on the Score tab) to `scale`, then open the tab `back_to`."""
    page.get_by_role("tab", name="Score", exact=True).click()
    page.locator("#scale-toggle").get_by_label(scale, exact=True).check()
    page.wait_for_function("(p) => (document.querySelector('#page-tabs').dataset.bleuScale || 'unit') === p",
                           arg=SCALES[scale])
    if back_to:
        page.get_by_role("tab", name=back_to, exact=True).click()


def shown_bleu(page) -> float:
    return float(page.locator("#bleu-score").get_attribute("data-bleu"))


def score_and_wait(page) -> None:
    """Press Score and wait for the new card (the old one is replaced, so wait for a change)."""
    before = page.evaluate("() => document.querySelector('#bleu-score')?.outerHTML || ''")
    page.locator("#score-button").click()
    page.wait_for_function("(before) => (document.querySelector('#bleu-score')?.outerHTML || '') !== before "
                           "&& !!document.querySelector('#bleu-score')", arg=before)

"""A large paste on the page, in headless Chromium: how long the paste, the Score click and the two
together take, and where the browser spends the paste.

Why: a 200,000-line paste was reported at 33-37 s on the page against 0.6-2 s through the API. This
starts `python app.py` from --app-dir (pass an export of another commit to compare), pastes --lines
one-word lines into each box as Chromium pastes (the `paste` event, then the editing command unless
the page's guard took it: space/paste_guard.py), times each paste until the page paints and runs a
task again, clicks Score and waits for the score card. DevTools' `Performance.getMetrics` splits the
first paste into layout, style and script time; a bare `<textarea>` on an empty page, filled the
same way, shows what Chromium itself costs. Prints the load average with the numbers (a shared
machine slows all of it).

    python bench/app_paste.py [--lines 200000] [--repeat 2] [--app-dir DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Dict, Optional, Sequence

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
import app_load  # noqa: E402  (starting and stopping app.py)

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
# A paste as Chromium does it (as tests/space/test_app_browser.py does): the text is handed to the
# page first, so sending megabytes over DevTools does not count.
PASTE_JS = """async ([selector]) => {
  const text = window.__pasteText; const box = document.querySelector(selector); box.focus();
  const started = performance.now();
  const data = new DataTransfer(); data.setData('text/plain', text);
  const event = new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true});
  if (box.dispatchEvent(event)) document.execCommand('insertText', false, text);
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  delete window.__pasteText;
  return (performance.now() - started) / 1000;
}"""
BARE_JS = """async () => {
  const box = document.createElement('textarea'); box.rows = 5; box.style.width = '600px';
  document.body.appendChild(box); box.focus();
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  const started = performance.now();
  box.setRangeText(window.__pasteText, 0, 0, 'end');
  box.dispatchEvent(new Event('input', {bubbles: true}));
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  return (performance.now() - started) / 1000;
}"""
METRICS = ("LayoutDuration", "LayoutCount", "RecalcStyleDuration", "ScriptDuration", "TaskDuration")


def texts(lines: int) -> tuple:
    words = "the a cat dog sat on mat ran big red".split()
    rng = random.Random(1)
    return tuple("\n".join(rng.choice(words) for _ in range(lines)) for _ in range(2))


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--app-dir", type=Path, default=app_load.REPO)
    args = parser.parse_args(argv)
    hypothesis, reference = texts(args.lines)
    port = app_load.free_port()
    server = app_load.start_server(args.app_dir, port)
    print(f"{args.app_dir}: {args.lines:,} one-word lines per box ({len(hypothesis):,} characters); "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            for _ in range(args.repeat):
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.set_default_timeout(600_000)
                page.goto(f"http://127.0.0.1:{port}/")
                page.wait_for_selector("#score-button")
                devtools = page.context.new_cdp_session(page)
                devtools.send("Performance.enable")

                def metrics() -> Dict[str, float]:
                    return {m["name"]: m["value"] for m in devtools.send("Performance.getMetrics")["metrics"]}

                pastes, split = [], {}
                for selector, text in (("#predictions textarea", hypothesis), ("#references textarea", reference)):
                    page.evaluate("(text) => { window.__pasteText = text; }", text)
                    before = metrics()
                    pastes.append(page.evaluate(PASTE_JS, [selector]))
                    if not split:
                        after = metrics()
                        split = {name: after[name] - before[name] for name in METRICS}
                started = time.monotonic()
                page.locator("#score-button").click()
                page.wait_for_selector("#bleu-score")
                scored = time.monotonic() - started
                print(f"paste {pastes[0]:.2f} s + {pastes[1]:.2f} s, click -> score {scored:.2f} s, in all "
                      f"{sum(pastes) + scored:.2f} s; load average {os.getloadavg()[0]:.2f}", flush=True)
                print(f"  the first paste: layout {split['LayoutDuration']:.2f} s in {split['LayoutCount']:.0f} passes, "
                      f"style {split['RecalcStyleDuration']:.2f} s, script {split['ScriptDuration']:.2f} s, "
                      f"tasks {split['TaskDuration']:.2f} s", flush=True)
                page.close()
            bare = browser.new_page()
            bare.set_content("<html><body></body></html>")
            bare.evaluate("(text) => { window.__pasteText = text; }", hypothesis)
            print(f"a bare <textarea> on an empty page: {bare.evaluate(BARE_JS):.2f} s", flush=True)
            browser.close()
    finally:
        app_load.stop_server(server)


if __name__ == "__main__":
    main()

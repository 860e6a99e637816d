"""Click-to-result times and memory of the Space demo, in headless Chromium (Debian's).

Starts `python app.py` from --app-dir (default: this checkout; pass an export of another commit to
compare), uploads each input as files, clicks Score and waits for the score card, then opens
Explain. Prints seconds, the page's JS heap (DevTools `Performance.getMetrics`) and the server's
peak resident memory (VmHWM). Inputs: WMT17 uedin-nmt (3,004 segments), the 16 WMT17 systems
concatenated with the reference repeated (48,064), and one 5 MB single-line segment.

    python bench/app_browser.py [--app-dir DIR] [--only 3004,48064,5mb]
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parent.parent
WMT17 = REPO.parent / "shared" / "data" / "wmt17-en-de"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def inputs(folder: Path):
    reference = (WMT17 / "newstest2017-ende.ref.de").read_text(encoding="utf-8").splitlines()
    systems = sorted(p for p in WMT17.glob("*.de") if "ref" not in p.name)
    yield "3004", WMT17 / "uedin-nmt.4722.de", WMT17 / "newstest2017-ende.ref.de"
    hyp, ref = folder / "all16.hyp", folder / "all16.ref"
    hyp.write_text("".join(p.read_text(encoding="utf-8") for p in systems), encoding="utf-8")
    ref.write_text("\n".join(reference * len(systems)) + "\n", encoding="utf-8")
    yield f"{len(systems) * len(reference)}", hyp, ref
    rng = random.Random(0)
    words = (WMT17 / "uedin-nmt.4722.de").read_text(encoding="utf-8").split()
    long_hyp, long_ref = folder / "long.hyp", folder / "long.ref"
    long_hyp.write_text(" ".join(rng.choice(words) for _ in range(800_000))[:5_000_000] + "\n", encoding="utf-8")
    long_ref.write_text(" ".join(rng.choice(words) for _ in range(800_000))[:5_000_000] + "\n", encoding="utf-8")
    yield "5mb", long_hyp, long_ref


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def heap_mb(page) -> float:
    session = page.context.new_cdp_session(page)
    session.send("HeapProfiler.collectGarbage")
    session.send("Performance.enable")
    metrics = {m["name"]: m["value"] for m in session.send("Performance.getMetrics")["metrics"]}
    return metrics["JSHeapUsedSize"] / 2**20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--app-dir", type=Path, default=REPO)
    parser.add_argument("--only", default="3004,48064,5mb")
    args = parser.parse_args()
    wanted = set(args.only.split(","))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"}
    server = subprocess.Popen([sys.executable, "app.py", "--port", str(port)], cwd=args.app_dir, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except OSError:
                time.sleep(0.3)
        with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            for name, hyp, ref in inputs(Path(folder)):
                if name not in wanted:
                    continue
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.set_default_timeout(180_000)
                page.goto(url)
                page.wait_for_selector("#score-button")
                page.get_by_role("tab", name="Upload files").click()
                page.locator("#hypothesis-file input[type=file]").set_input_files(str(hyp))
                page.locator("#reference-files input[type=file]").set_input_files([str(ref)])
                page.wait_for_selector('#hypothesis-file :text("B ⇣")')
                page.wait_for_selector('#reference-files :text("B ⇣")')
                start = time.monotonic()
                page.locator("#score-button").click()
                page.wait_for_selector("#bleu-score")
                scored = time.monotonic() - start
                page.get_by_role("tab", name="Explain").click()
                page.wait_for_selector("#explain-view")
                explained = time.monotonic() - start
                print(f"{name:>6} segments: click->score {scored:5.2f} s, ->explain {explained:5.2f} s, "
                      f"JS heap {heap_mb(page):6.1f} MB, server peak RSS {peak_rss_mb(server.pid):6.0f} MB", flush=True)
                page.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=15)


if __name__ == "__main__":
    main()

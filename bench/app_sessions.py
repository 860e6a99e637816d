"""The Space server's memory over many sessions: resident memory (RSS) after every N sessions.

Each session is what one visitor's Score click is: a fresh session, the page's own Score event
(found in the page's config by the button's elem_id, called through Gradio's queue as the browser
calls it, with the page's default options), on WMT17 uedin-nmt pasted (3,004 segments; a generated
corpus of the same size where ../shared/data is absent). Sessions are never closed, as API callers
never close theirs: what a session leaves behind stays until its state expires. Starts
`python app.py` from --app-dir (default: this checkout; pass an export of another commit to compare).

    python bench/app_sessions.py [--sessions 200] [--every 25] [--app-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
WMT17 = REPO.parent / "shared" / "data" / "wmt17-en-de"


def corpus() -> tuple:
    hypothesis, reference = WMT17 / "uedin-nmt.4722.de", WMT17 / "newstest2017-ende.ref.de"
    if hypothesis.exists() and reference.exists():
        return hypothesis.read_text(encoding="utf-8"), reference.read_text(encoding="utf-8"), "WMT17 uedin-nmt"
    lines = [f"Satz {i}: die Regierung hat am Montag angekündigt, dass sie {i % 97} neue Vorschläge vorlegen werde."
             for i in range(3004)]
    return "\n".join(lines), "\n".join(reversed(lines)), "generated"


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def score_event(config: dict) -> tuple:
    """The Score button's click event: its fn_index, trigger id and the page's value for each input."""
    components = {c["id"]: c for c in config["components"]}
    button = next(c["id"] for c in components.values() if c.get("props", {}).get("elem_id") == "score-button")
    for index, dependency in enumerate(config["dependencies"]):
        if [button, "click"] in [list(target) for target in dependency["targets"]]:
            return dependency.get("id", index), button, dependency["inputs"], components
    raise SystemExit("no click event on #score-button in the page's config")


def call(client: httpx.Client, base: str, fn_index: int, trigger: int, data: list, session: str) -> dict:
    """One event through Gradio's queue, as the browser sends it; returns the completed message."""
    joined = client.post(f"{base}gradio_api/queue/join", json={
        "data": data, "event_data": None, "fn_index": fn_index, "trigger_id": trigger, "session_hash": session})
    joined.raise_for_status()
    with client.stream("GET", f"{base}gradio_api/queue/data", params={"session_hash": session}, timeout=300) as stream:
        for line in stream.iter_lines():
            if not line.startswith("data:"):
                continue
            message = json.loads(line[5:])
            if message.get("msg") == "process_completed":
                if not message.get("success"):
                    raise SystemExit(f"the Score event failed: {message}")
                return message
    raise SystemExit("the queue closed before the event completed")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--every", type=int, default=25)
    parser.add_argument("--app-dir", type=Path, default=REPO)
    args = parser.parse_args()
    hypothesis, reference, source = corpus()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"}
    server = subprocess.Popen([sys.executable, "app.py", "--port", str(port)], cwd=args.app_dir, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/"
    try:
        with httpx.Client(timeout=60) as client:
            for _ in range(300):
                try:
                    if client.get(base).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.3)
            config = client.get(f"{base}config").json()
            fn_index, trigger, input_ids, components = score_event(config)
            data = []
            for component_id in input_ids:
                props = components[component_id].get("props", {})
                elem_id = props.get("elem_id")
                if elem_id == "predictions":
                    data.append(hypothesis)
                elif elem_id == "references":
                    data.append(reference)
                else:
                    data.append(props.get("value"))
            print(f"{args.app_dir}: {args.sessions} sessions, each scoring {source} pasted ({hypothesis.count(chr(10)):,} "
                  f"lines); load average {os.getloadavg()[0]:.2f}")
            fresh = rss_mb(server.pid)
            print(f"{'sessions':>8}  {'RSS MB':>7}  {'per session MB':>14}  {'s per session':>13}", flush=True)
            print(f"{0:>8}  {fresh:>7.0f}", flush=True)
            started = time.monotonic()
            for number in range(1, args.sessions + 1):
                call(client, base, fn_index, trigger, data, uuid.uuid4().hex[:11])
                if number % args.every == 0 or number == args.sessions:
                    now = rss_mb(server.pid)
                    print(f"{number:>8}  {now:>7.0f}  {(now - fresh) / number:>14.2f}  "
                          f"{(time.monotonic() - started) / number:>13.2f}", flush=True)
            print(f"peak RSS {rss_mb(server.pid, 'VmHWM'):.0f} MB; load average {os.getloadavg()[0]:.2f}")
    finally:
        server.terminate()
        server.wait(timeout=15)


if __name__ == "__main__":
    main()

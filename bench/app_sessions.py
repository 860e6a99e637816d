"""The Space server's memory over many sessions: resident memory (RSS) after every N sessions, and
what is left once they have all closed.

Each session is what one visitor's Score click is: a fresh session, the page's own Score event
(found in the page's config by the button's elem_id, called through Gradio's queue as the browser
calls it, with the page's default options) on pasted text. With `--close` (the default) each session
also holds the heartbeat connection a browser tab holds (`/gradio_api/heartbeat/<session>`) from
before its Score until after it, and then drops it, as a closing tab does: Gradio then runs the
page's unload events. `--keep-open` never closes a session (as the API's callers never did before
issue 20's store; what a session leaves then stays until its state expires); `--api` makes each
session one `/score` call, as a `gradio_client.Client` makes it (through the queue, in its session).

Inputs: `--lines 3004` (the default) is WMT17 uedin-nmt against newstest2017 (a generated corpus
of the same size where ../shared/data is absent); any other count is built from WMT17's sentences,
each cut to its first words so that the paste boxes' 1,000,000-character limit holds (50,000 lines
of about 15 characters).

After the last session the benchmark waits --settle seconds, then prints the server's RSS against
its RSS before the first session, and the files left in the page's temporary folders (the stored
texts, the downloads, and Gradio's own cache: the server runs with a TMPDIR of its own, so only its
files count, and only those that appeared after its start).
`--check-growth-mb M` exits 1 when RSS grew by more than M MB or a file is left (the bounded test
runs it small). Starts `python app.py` from --app-dir (default: this checkout; pass an export of
another commit to compare). On a shared machine print the load average with the numbers (it is).

    python bench/app_sessions.py [--sessions 200] [--every 25] [--lines 3004|50000] [--keep-open | --api]
                                 [--settle 5] [--check-growth-mb 150] [--app-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import app_load  # noqa: E402  (starting and stopping app.py)

REPO = Path(__file__).resolve().parent.parent
WMT17 = REPO.parent / "shared" / "data" / "wmt17-en-de"
PASTE_LIMIT = 1_000_000  # space.inputs.MAX_PASTED_CHARS (not imported: --app-dir may be another commit)


def corpus(lines: int = 3004) -> Tuple[str, str, str]:
    """(predictions, references, what they are), each one segment per line."""
    hypothesis, reference = WMT17 / "uedin-nmt.4722.de", WMT17 / "newstest2017-ende.ref.de"
    if hypothesis.exists() and reference.exists():
        hyp_lines = hypothesis.read_text(encoding="utf-8").splitlines()
        ref_lines = reference.read_text(encoding="utf-8").splitlines()
        source = "WMT17 uedin-nmt"
    else:
        ref_lines = [f"Satz {i}: die Regierung hat am Montag angekündigt, dass sie {i % 97} neue Vorschläge "
                     "vorlegen werde." for i in range(3004)]
        hyp_lines = [line.replace("Montag", "Dienstag") for line in ref_lines]
        source = "generated"
    if lines == len(hyp_lines):
        return "\n".join(hyp_lines) + "\n", "\n".join(ref_lines) + "\n", f"{source} ({lines:,} lines)"
    budget = PASTE_LIMIT // lines - 1  # characters per line, so the box stays within the paste limit

    def short(line: str, salt: int) -> str:
        words, kept = line.split(), []
        for word in words[salt % 3:]:
            if len(" ".join(kept + [word])) > budget:
                break
            kept.append(word)
        return " ".join(kept) or words[0][:budget]

    hyp = [short(hyp_lines[i % len(hyp_lines)], i // len(hyp_lines)) for i in range(lines)]
    ref = [short(ref_lines[i % len(ref_lines)], i // len(ref_lines)) for i in range(lines)]
    return "\n".join(hyp) + "\n", "\n".join(ref) + "\n", f"{source}, {lines:,} lines cut to <= {budget} characters"


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


class Heartbeat:
    """A tab's heartbeat connection for one session (`GET /gradio_api/heartbeat/<session>`, the
    stream the page keeps open): open while the tab is, dropped to close it, as a closing tab drops
    it (a plain socket, so closing it is immediate)."""

    def __init__(self, base: str, session: str):
        url = httpx.URL(base)
        self._socket = socket.create_connection((url.host, url.port), timeout=30)
        request = (f"GET {url.path}gradio_api/heartbeat/{session} HTTP/1.1\r\nHost: {url.host}:{url.port}\r\n"
                   "Accept: text/event-stream\r\n\r\n")
        self._socket.sendall(request.encode())
        received = b""
        while b"ALIVE" not in received:  # the server has the session's heartbeat
            chunk = self._socket.recv(4096)
            if not chunk:
                raise SystemExit("the heartbeat connection closed at once")
            received += chunk

    def close(self) -> None:
        self._socket.close()


def temp_files(folders: Sequence[Path]) -> Set[Path]:
    found: Set[Path] = set()
    for folder in folders:
        if folder.exists():
            found.update(path for path in folder.rglob("*") if path.is_file())
    return found


def api_event(config: dict, hypothesis: str, reference: str) -> tuple:
    """The /score endpoint as gradio_client calls it (through the queue, by fn_index, in the client's
    session): its fn_index and its data (the texts, every other argument its default)."""
    components = {c["id"]: c for c in config["components"]}
    for index, dependency in enumerate(config["dependencies"]):
        if dependency.get("api_name") == "score":
            data = [components.get(i, {}).get("props", {}).get("value") for i in dependency["inputs"]]
            data[0], data[1] = hypothesis, reference
            return dependency.get("id", index), data
    raise SystemExit("no /score endpoint in the page's config")


def page_data(input_ids: List[int], components: Dict[int, dict], hypothesis: str, reference: str) -> list:
    data = []
    for component_id in input_ids:
        props = components[component_id].get("props", {})
        elem_id = props.get("elem_id")
        data.append(hypothesis if elem_id == "predictions" else reference if elem_id == "references"
                    else props.get("value"))
    return data


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--every", type=int, default=25)
    parser.add_argument("--lines", type=int, default=3004)
    parser.add_argument("--keep-open", action="store_true", help="never close a session (no heartbeat)")
    parser.add_argument("--api", action="store_true",
                        help="each session one /score API call, as a gradio_client Client makes it (never closed)")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds to wait after the last session")
    parser.add_argument("--check-growth-mb", type=float, help="exit 1 if RSS grew more than this, or files are left")
    parser.add_argument("--app-dir", type=Path, default=REPO)
    args = parser.parse_args(argv)
    hypothesis, reference, source = corpus(args.lines)
    port = app_load.free_port()
    # The server's own temporary folder (TMPDIR, and Gradio's cache inside it): other programs' files
    # in /tmp do not count, and every file the run leaves is the server's.
    private = Path(tempfile.mkdtemp(prefix="app-sessions-"))
    temp, gradio_cache = private, private / "gradio"
    folders = [temp]
    server = app_load.start_server(args.app_dir, port, {"TMPDIR": str(temp), "GRADIO_TEMP_DIR": str(gradio_cache)})
    base = f"http://127.0.0.1:{port}/"
    failed = False
    try:
        with httpx.Client(timeout=120) as client:
            config = client.get(f"{base}config").json()
            fn_index, trigger, input_ids, components = score_event(config)
            data = page_data(input_ids, components, hypothesis, reference)
            if args.api:
                fn_index, data = api_event(config, hypothesis, reference)
                trigger, args.keep_open = None, True
            mode = ("each one /score API call" if args.api else "each kept open" if args.keep_open
                    else "each closed after its Score, as a tab closes")
            print(f"{args.app_dir}: {args.sessions} sessions, {mode}, each scoring {source} pasted "
                  f"({len(hypothesis):,} + {len(reference):,} characters); load average {os.getloadavg()[0]:.2f}")
            before_files = temp_files(folders)
            fresh = rss_mb(server.pid)
            print(f"{'sessions':>8}  {'RSS MB':>7}  {'per session MB':>14}  {'s per session':>13}", flush=True)
            print(f"{0:>8}  {fresh:>7.0f}", flush=True)
            started = time.monotonic()
            for number in range(1, args.sessions + 1):
                session = uuid.uuid4().hex[:11]
                heartbeat = None if args.keep_open else Heartbeat(base, session)
                call(client, base, fn_index, trigger, data, session)
                if heartbeat is not None:
                    heartbeat.close()
                if number % args.every == 0 or number == args.sessions:
                    now = rss_mb(server.pid)
                    print(f"{number:>8}  {now:>7.0f}  {(now - fresh) / number:>14.2f}  "
                          f"{(time.monotonic() - started) / number:>13.2f}", flush=True)
            time.sleep(args.settle)
            settled = rss_mb(server.pid)
            left = sorted(temp_files(folders) - before_files)
            print(f"after {args.settle:g} s idle: RSS {settled:.0f} MB ({settled - fresh:+.0f} MB from the start); "
                  f"peak RSS {rss_mb(server.pid, 'VmHWM'):.0f} MB; load average {os.getloadavg()[0]:.2f}")
            kinds = {"texts": temp / "bleu-space-texts", "downloads": temp / "bleu-space-downloads",
                     "Gradio's cache": gradio_cache}
            counts = {name: sum(1 for path in left if folder in path.parents) for name, folder in kinds.items()}
            print(f"files left in the server's temporary folder: {len(left)} "
                  f"({', '.join(f'{name} {count}' for name, count in counts.items())})")
            for path in left[:5]:
                print(f"  {path.relative_to(temp)}")
            if args.check_growth_mb is not None and (settled - fresh > args.check_growth_mb or left):
                print(f"FAIL: RSS grew {settled - fresh:.0f} MB (limit {args.check_growth_mb:g}) and/or {len(left)} "
                      "file(s) left")
                failed = True
            elif args.check_growth_mb is not None:
                print(f"goal met: RSS grew {settled - fresh:.0f} MB (limit {args.check_growth_mb:g}), no file left")
    finally:
        app_load.stop_server(server)
        shutil.rmtree(private, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

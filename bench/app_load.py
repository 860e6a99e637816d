"""The Space's API under load: 16 clients at once, each scoring about 1,000 segments through /score.

Why: a request alone takes about 0.1 s, but Gradio runs each event one at a time by default
(concurrency_limit 1), so 16 clients at once queued behind each other (p95 up to 9.7 s on 2 cores).
This starts `python app.py` on a free port (from --app-dir: pass an export of another commit to
compare), sends one warm-up request, then runs --clients threads, each sending --requests requests
back to back (a closed loop: a client sends its next request when the last one answered). Each
client scores its own 1,000-line slice of WMT17 (newstest2017 en-de: a system's output against the
reference; generated text of the same shape where ../shared/data is absent).

Prints each request's latency as p50 / p95 / max, the requests per second, the server's CPU seconds
(its own and its worker processes') per request, and the load average before and after: on a
shared machine other jobs change the numbers, so measure more than once.

    python bench/app_load.py [--clients 16] [--requests 8] [--segments 1000] [--client http|gradio_client]
                             [--app-dir DIR] [--check-p95 SECONDS]

`--client http` posts to Gradio's HTTP API (/gradio_api/call/v2/score, then reads the event's
stream); `--client gradio_client` calls `Client.predict(..., api_name="/score")`, as the docs show
(the clients' own CPU then competes with the server's on a small machine). `--check-p95` exits
with status 1 when the p95 is above it (the bounded test uses it).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import httpx

REPO = Path(__file__).resolve().parent.parent
WMT17 = REPO.parent / "shared" / "data" / "wmt17-en-de"
SYSTEMS = ["uedin-nmt.4722.de", "KIT.4950.de", "LIUM-NMT.4900.de", "online-B.0.de", "xmu.4910.de", "FBK.4870.de",
           "C-3MA.4959.de", "online-A.0.de"]


def corpus_slices(clients: int, segments: int) -> Tuple[List[Tuple[str, str]], str]:
    """One (predictions, references) text pair per client, each `segments` lines long."""
    reference_path = WMT17 / "newstest2017-ende.ref.de"
    if reference_path.exists():
        references = reference_path.read_text(encoding="utf-8").splitlines()
        systems = [(WMT17 / name).read_text(encoding="utf-8").splitlines() for name in SYSTEMS
                   if (WMT17 / name).exists()]
        source = "WMT17 en-de"
    else:
        references = [f"Satz {i}: die Regierung hat am Montag angekündigt, dass sie {i % 97} neue Vorschläge vorlegen "
                      "werde." for i in range(3004)]
        systems = [[line.replace("Montag", "Dienstag") for line in references]]
        source = "generated"
    pairs = []
    for client in range(clients):
        system = systems[client % len(systems)]
        start = (client * segments) % max(1, len(references) - segments)
        lines = [(start + i) % len(references) for i in range(segments)]
        pairs.append(("\n".join(system[i] for i in lines), "\n".join(references[i] for i in lines)))
    return pairs, source


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(app_dir: Path, port: int, env: Optional[Dict[str, str]] = None) -> subprocess.Popen:
    """`python app.py --port N` on 127.0.0.1, no analytics; returns once it answers."""
    environment = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "GRADIO_SERVER_NAME": "127.0.0.1", **(env or {})}
    server = subprocess.Popen([sys.executable, "app.py", "--port", str(port)], cwd=app_dir, env=environment,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"app.py exited with {server.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    server.kill()
    raise SystemExit("app.py did not answer within 120 s")


def stop_server(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def cpu_seconds(pid: int) -> float:
    """CPU time of a process and of its children (worker processes), live ones included."""
    ticks = os.sysconf("SC_CLK_TCK")

    def own(p: int) -> float:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / ticks

    total = own(pid)
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    for child in children:
        total += own(int(child))  # utime + stime (+ its own reaped children's)
    return total


def uploaded(base: str, predictions: str, references: str) -> dict:
    """The /score arguments for these texts as uploaded files (the API's way for more than a paste box)."""
    files = [("files", ("hyp.txt", predictions.encode())), ("files", ("ref.txt", references.encode()))]
    paths = httpx.post(f"{base}gradio_api/upload", files=files, timeout=300).json()
    data = [{"path": path, "meta": {"_type": "gradio.FileData"}, "orig_name": name}
            for path, name in zip(paths, ("hyp.txt", "ref.txt"))]
    return {"hypothesis_file": data[0], "reference_files": [data[1]]}


def http_caller(base: str) -> Callable[..., dict]:
    """A /score call through Gradio's HTTP API: post the arguments, read the event's stream."""
    client = httpx.Client(timeout=300)

    def call(predictions: str = "", references: str = "", **arguments: object) -> dict:
        body = arguments or {"predictions": predictions, "references": references}
        posted = client.post(f"{base}gradio_api/call/v2/score", json=body)
        posted.raise_for_status()
        event_id = posted.json()["event_id"]
        event = None
        with client.stream("GET", f"{base}gradio_api/call/v2/score/{event_id}") as stream:
            for line in stream.iter_lines():
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:") and event in ("complete", "error"):
                    data = json.loads(line[5:])
                    if event == "error":
                        raise RuntimeError(f"/score failed: {data}")
                    return data[0] if isinstance(data, list) else data
        raise RuntimeError("the event's stream closed before it completed")

    return call


def gradio_client_caller(base: str) -> Callable[[str, str], dict]:
    from gradio_client import Client

    client = Client(base, verbose=False)
    return lambda predictions, references: client.predict(predictions=predictions, references=references,
                                                          api_name="/score")


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def _client_process(base: str, kind: str, pair: Tuple[str, str], requests: int, barrier: object, out: object) -> None:
    """One client in a process of its own: connect and warm up, wait for the others, then time."""
    call = (http_caller if kind == "http" else gradio_client_caller)(base)
    call(*pair)
    barrier.wait()  # type: ignore[attr-defined]
    latencies, cpu = [], time.process_time()
    try:
        for _ in range(requests):
            began = time.perf_counter()
            assert 0 <= call(*pair)["bleu"] <= 1
            latencies.append(time.perf_counter() - began)
    finally:
        out.put((latencies, time.process_time() - cpu))  # type: ignore[attr-defined]


def run_load_in_processes(base: str, pairs: List[Tuple[str, str]], requests: int, kind: str) -> Tuple[List[float], float, float]:
    """As run_load, each client a process of its own (as separate programs are: 16 gradio_client
    Clients in one process share its GIL, and each call costs its client about 50 ms of CPU, mostly
    building a new SSL context per HTTP request); also returns the clients' CPU seconds."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    barrier, out = context.Barrier(len(pairs) + 1), context.Queue()
    processes = [context.Process(target=_client_process, args=(base, kind, pair, requests, barrier, out), daemon=True)
                 for pair in pairs]
    for process in processes:
        process.start()
    barrier.wait(timeout=300)
    began = time.perf_counter()
    results = [out.get(timeout=600) for _ in processes]
    wall = time.perf_counter() - began
    for process in processes:
        process.join(timeout=30)
    latencies = [value for values, _ in results for value in values]
    if len(latencies) != len(pairs) * requests:
        raise SystemExit(f"{len(pairs) * requests - len(latencies)} request(s) failed (see the clients' errors above)")
    return latencies, wall, sum(cpu for _, cpu in results)


def run_load(base: str, pairs: List[Tuple[str, str]], requests: int, kind: str,
             big: Optional[Tuple[str, str]] = None, big_latencies: Optional[List[float]] = None) -> Tuple[List[float], float]:
    """Every client's latencies (seconds) and the wall time of the whole run. With `big`, one more
    client sends that large request back to back until the others are done (its latencies go to
    `big_latencies`)."""
    make = http_caller if kind == "http" else gradio_client_caller
    callers = [make(base) for _ in pairs]
    latencies: List[float] = []
    errors: List[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(len(pairs) + 1)
    done = threading.Event()

    def big_client() -> None:
        call = http_caller(base)
        arguments = uploaded(base, *big)
        while not done.is_set():
            began = time.perf_counter()
            try:
                call(**arguments)
            except BaseException as error:  # noqa: BLE001
                with lock:
                    errors.append(error)
                return
            if big_latencies is not None:
                big_latencies.append(time.perf_counter() - began)

    if big is not None:
        threading.Thread(target=big_client, daemon=True).start()
        time.sleep(1.0)  # the large request is running when the small ones start

    def client(index: int) -> None:
        call, (predictions, references) = callers[index], pairs[index]
        start.wait()
        for _ in range(requests):
            began = time.perf_counter()
            try:
                result = call(predictions, references)
                assert 0 <= result["bleu"] <= 1
            except BaseException as error:  # noqa: BLE001  (reported after the run)
                with lock:
                    errors.append(error)
                return
            with lock:
                latencies.append(time.perf_counter() - began)

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(len(pairs))]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    done.set()
    if errors:
        raise SystemExit(f"{len(errors)} request(s) failed; first: {errors[0]!r}")
    return latencies, time.perf_counter() - began


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=8, help="requests per client, back to back")
    parser.add_argument("--segments", type=int, default=1000)
    parser.add_argument("--client", choices=["http", "gradio_client"], default="http")
    parser.add_argument("--app-dir", type=Path, default=REPO)
    parser.add_argument("--url", help="an already running server instead of starting app.py")
    parser.add_argument("--big-lines", type=int, default=0,
                        help="one more client sends a request of this many lines back to back meanwhile")
    parser.add_argument("--processes", choices=["auto", "yes", "no"], default="auto",
                        help="each client in a process of its own (auto: for gradio_client, not for http)")
    parser.add_argument("--check-p95", type=float, help="exit 1 when the p95 latency is above this (seconds)")
    args = parser.parse_args(argv)
    in_processes = args.processes == "yes" or (args.processes == "auto" and args.client == "gradio_client")
    if in_processes and args.big_lines:
        parser.error("--big-lines runs with a thread per client: add --processes no")
    pairs, source = corpus_slices(args.clients, args.segments)
    big = None
    if args.big_lines:
        lines = [(pairs[i % len(pairs)][0].split("\n"), pairs[i % len(pairs)][1].split("\n")) for i in range(len(pairs))]
        hyp = [line for h, _ in lines for line in h][: args.big_lines]
        ref = [line for _, r in lines for line in r][: args.big_lines]
        while len(hyp) < args.big_lines:
            hyp, ref = hyp + hyp[: args.big_lines - len(hyp)], ref + ref[: args.big_lines - len(ref)]
        big = ("\n".join(hyp), "\n".join(ref))
    big_latencies: List[float] = []
    server = None
    if args.url:
        base = args.url.rstrip("/") + "/"
    else:
        port = free_port()
        server = start_server(args.app_dir, port)
        base = f"http://127.0.0.1:{port}/"
    try:
        call = http_caller(base) if args.client == "http" else gradio_client_caller(base)
        began = time.perf_counter()
        call(*pairs[0])
        alone = time.perf_counter() - began
        began = time.perf_counter()
        call(*pairs[0])
        alone = min(alone, time.perf_counter() - began)
        load_before = os.getloadavg()
        cpu_before = cpu_seconds(server.pid) if server else float("nan")
        own_before = time.process_time()
        if in_processes:
            latencies, wall, own = run_load_in_processes(base, pairs, args.requests, args.client)
        else:
            latencies, wall = run_load(base, pairs, args.requests, args.client, big, big_latencies)
            own = time.process_time() - own_before
        cpu = (cpu_seconds(server.pid) - cpu_before) if server else float("nan")
        load_after = os.getloadavg()
    finally:
        if server is not None:
            stop_server(server)
    p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
    print(f"{args.app_dir if not args.url else base}: {args.clients} clients x {args.requests} requests, "
          f"{args.segments:,} segments each ({source}), {args.client} "
          f"({'a process per client' if in_processes else 'a thread per client'}); {os.cpu_count()} CPUs")
    print(f"one request alone {alone:.3f} s")
    print(f"latency p50 {p50:.2f} s  p95 {p95:.2f} s  max {max(latencies):.2f} s  mean {statistics.mean(latencies):.2f} s")
    print(f"{len(latencies) / wall:.1f} requests/s over {wall:.1f} s; CPU per request: server {cpu / len(latencies):.3f} s, "
          f"clients {own / len(latencies):.3f} s")
    if big is not None:
        print(f"meanwhile {len(big_latencies)} request(s) of {args.big_lines:,} lines done, "
              f"{statistics.mean(big_latencies) if big_latencies else float('nan'):.2f} s each")
    print(f"load average before {load_before[0]:.2f} {load_before[1]:.2f}, after {load_after[0]:.2f} {load_after[1]:.2f}")
    if args.check_p95 is not None and p95 > args.check_p95:
        print(f"FAIL: p95 {p95:.2f} s > {args.check_p95:.2f} s")
        return 1
    if args.check_p95 is not None:
        print(f"goal met: p95 {p95:.2f} s <= {args.check_p95:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

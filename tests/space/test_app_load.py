"""The Space's API under concurrent clients (docs/demo.md, "Sessions and memory").

16 clients at once saw p95 latencies of 4.6-9.7 s on 2 shared cores where one request took 0.14 s:
Gradio runs one call of an event at a time by default, so a large corpus held up every small call
behind it, and each call paid for a copy of the page's config and for Gradio's monitoring summary.
Checked here: the endpoints run calls side by side (a small /score finishes while a large one is
still scoring), app.py's server settings, and a bounded run of `python bench/app_load.py`.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time

import pytest

from conftest import REPO

httpx = pytest.importorskip("httpx")
sys.path.insert(0, str(REPO / "bench"))
import app_load  # noqa: E402  (the benchmark's HTTP API client)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served():
    from app_server import free_port
    from space.layout import build_demo
    from space.session_memory import manage_sessions

    demo = manage_sessions(build_demo())
    port = free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        yield demo, f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


def test_the_api_endpoints_take_calls_side_by_side(served):
    demo, _ = served
    limits = {fn.api_name: fn.concurrency_limit for fn in demo.fns.values() if fn.api_name in ("score", "compare", "diversity")}
    assert len(limits) == 3 and all(isinstance(limit, int) and limit >= 2 for limit in limits.values()), limits


def test_a_small_score_is_not_held_up_by_a_large_one(served):
    _, base = served
    pairs, _ = app_load.corpus_slices(2, 1000)
    lines = 150_000
    hypothesis = "\n".join((pairs[0][0].split("\n") * (lines // 1000 + 1))[:lines])
    reference = "\n".join((pairs[0][1].split("\n") * (lines // 1000 + 1))[:lines])
    large_arguments = app_load.uploaded(base, hypothesis, reference)
    finished = {}

    def large() -> None:
        app_load.http_caller(base)(**large_arguments)
        finished["large"] = time.monotonic()

    worker = threading.Thread(target=large)
    worker.start()
    time.sleep(0.3)  # the large call is scoring
    small = app_load.http_caller(base)
    result = small(*pairs[1])
    finished["small"] = time.monotonic()
    worker.join(timeout=300)
    assert 0 < result["bleu"] < 1 and "large" in finished
    assert finished["small"] < finished["large"], "the small call waited for the large one"


def test_app_py_serves_with_the_collectors_walks_and_the_monitoring_summary_cut():
    import app

    assert os.environ["GRADIO_ANALYTICS_CACHE_FREQUENCY"] == "100"
    before = gc.get_freeze_count()
    try:
        demo = app.build_app()
        assert gc.get_freeze_count() > before  # the page's own objects are no longer walked
        assert any(target[1] == "unload" for fn in demo.fns.values() for target in fn.targets)
        assert demo._queue.default_concurrency_limit == app.PAGE_CONCURRENCY >= 2
    finally:
        gc.unfreeze()


def test_the_load_benchmark_bounded():
    """bench/app_load.py's check, small: 8 clients at once, 3 requests of 500 segments each, p95 within
    3 s on this 2-core machine (before these changes, 16 clients of 1,000 segments saw 4.6-9.7 s)."""
    assert app_load.main(["--clients", "8", "--requests", "3", "--segments", "500", "--check-p95", "3"]) == 0

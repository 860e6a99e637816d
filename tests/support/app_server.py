"""The demo served as users run it (`python app.py --port N` on 127.0.0.1, no analytics), for the
tests that talk to it: the browser tests and the gradio_client test."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Tuple

import pytest

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve_app(tmp_path_factory):
    """Start the demo as users do (`python app.py --port N`) and stop it afterwards."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("app") / "app.log"
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_ANALYTICS_ENABLED": "False"}
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "app.py", "--port", str(port)], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None:
                pytest.fail(f"app.py exited with {process.returncode}:\n{log_path.read_text()}")
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"app.py did not answer on {url} within 90 s:\n{log_path.read_text()}")
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def served_in_process(demo) -> Iterator[Tuple[object, str]]:
    """(demo, its URL): `demo` served by this process on a free port, so that a test can look at its
    store and Gradio's sessions; closed afterwards."""
    from space.session_memory import SESSION_CAPACITY

    port = free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                state_session_capacity=SESSION_CAPACITY)
    try:
        yield demo, f"http://127.0.0.1:{port}/"
    finally:
        demo.close()

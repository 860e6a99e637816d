"""Issue 20, point 7: what one session leaves on the server (the page served in this process).

A Score click with a pasted WMT17 system leaves a key in the session's state, numbers in the page's
store and the texts on disk; Gradio's own per-session copy of the pasted text is blanked; a closed
session releases its result. `bench/app_sessions.py` measures the server's RSS over 200 sessions.
"""

from __future__ import annotations

import sys
import uuid

import pytest

from conftest import REPO, wmt17_lines

httpx = pytest.importorskip("httpx")
sys.path.insert(0, str(REPO / "bench"))
import app_sessions  # noqa: E402  (the benchmark's way of calling the page's Score event)


@pytest.fixture(scope="module")
def served():
    from app_server import free_port
    from space.layout import build_demo
    from space.session_memory import SESSION_CAPACITY

    demo = build_demo()
    port = free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                state_session_capacity=SESSION_CAPACITY)
    try:
        yield demo, f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


def test_a_session_keeps_a_key_and_forgets_the_pasted_text(served):
    from space.store import STORE

    demo, base = served
    hypothesis, reference = "\n".join(wmt17_lines("uedin-nmt.4722.de")), "\n".join(wmt17_lines("newstest2017-ende.ref.de"))
    session = uuid.uuid4().hex[:11]
    with httpx.Client(timeout=120) as client:
        config = client.get(f"{base}config").json()
        fn_index, trigger, input_ids, components = app_sessions.score_event(config)
        by_elem = {components[i].get("props", {}).get("elem_id"): i for i in input_ids}
        data = [hypothesis if i == by_elem["predictions"] else reference if i == by_elem["references"]
                else components[i].get("props", {}).get("value") for i in input_ids]
        app_sessions.call(client, base, fn_index, trigger, data, session)
    state = demo.state_holder.session_data[session]
    assert state.config_values[by_elem["predictions"]]["props"]["value"] == ""
    assert state.config_values[by_elem["references"]]["props"]["value"] == ""
    keys = [value for value in state.state_data.values() if isinstance(value, str) and STORE.get(value) is not None]
    assert len(keys) == 1
    scored = STORE.get(keys[0])
    assert len(scored) == 3004 and scored.texts.path.exists()
    demo.state_holder.delete_state(session)  # what Gradio does when the tab closes or the state expires
    assert STORE.get(keys[0]) is None and not scored.texts.path.exists()

"""Issue 20, point 7: what a session leaves on the server.

A Score click leaves a key in the session's state, numbers in the page's store (bounded, least
recently used out first) and the texts on disk; Gradio's own per-session copy of the pasted text is
blanked (checked on the page served in this process); a closed session releases its result.
`bench/app_sessions.py` measures the server's RSS over 200 sessions.
"""

from __future__ import annotations

import sys
import uuid

import pytest

from conftest import REPO, wmt17_lines
from space import handlers, scoring, store
from space_calls import CAT, CAT_REFS, NONE_FORM, score_text, stored

httpx = pytest.importorskip("httpx")
sys.path.insert(0, str(REPO / "bench"))
import app_sessions  # noqa: E402  (the benchmark's way of calling the page's Score event)


@pytest.fixture(scope="module")
def served():
    from app_server import served_in_process
    from space.layout import build_demo

    with served_in_process(build_demo()) as served_demo:
        yield served_demo


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


def test_scoring_does_not_render_explain_mode_and_state_is_released():
    out = score_text(CAT, "\n---\n".join(CAT_REFS), NONE_FORM)
    assert "Pick a segment" in out["explain"]
    key = out["state"]
    texts = stored(key).texts.path
    assert isinstance(key, str) and texts.exists()  # the session holds a key; the texts are on disk
    handlers.release_state(key)
    assert store.STORE.get(key) is None and not texts.exists()
    assert store.EXPIRED in handlers.run_explain(key, 1) and handlers.run_page(key, 1, "segment")[1] == store.EXPIRED
    handlers.release_state(None)


def test_a_session_keeps_statistics_rows_not_texts():
    hypothesis = wmt17_lines("uedin-nmt.4722.de")
    reference = wmt17_lines("newstest2017-ende.ref.de")
    scored = stored(score_text("\n".join(hypothesis), "\n".join(reference))["state"])
    assert not any(isinstance(value, (list, str)) for value in vars(scored).values())
    assert store.memory_bytes(scored) < 400_000  # 3,004 segments: rows and offsets, about 0.35 MB
    assert scored.texts.disk_bytes == sum(len(line.encode()) for line in hypothesis + reference)
    assert scored.segment(1244) == (hypothesis[1244], [reference[1244]])


def test_the_store_is_bounded_and_drops_the_least_recently_used():
    bounded = store.ResultStore(max_memory=3 * store.ENTRY_OVERHEAD_BYTES + 3000, max_disk=10**9)
    entries = [scoring.score_corpus([f"a b {i}"], [[f"a b {i}"]], {"tokenizer": "13a"}) for i in range(5)]
    keys = [bounded.put(entry) for entry in entries]
    assert len(bounded) == 3 and bounded.memory <= bounded.max_memory
    assert bounded.get(keys[0]) is None and not entries[0].texts.path.exists()  # dropped, file deleted
    assert bounded.get(keys[2]) is entries[2]  # touched: now the most recent
    bounded.put(scoring.score_corpus(["x"], [["x"]], {"tokenizer": "13a"}))
    assert bounded.get(keys[3]) is None and bounded.get(keys[2]) is entries[2]
    by_disk = store.ResultStore(max_memory=10**9, max_disk=10)
    first = by_disk.put(scoring.score_corpus(["aaaa"], [["bbbb"]], {}))
    by_disk.put(scoring.score_corpus(["cccc"], [["dddd"]], {}))
    assert by_disk.get(first) is None and len(by_disk) == 1 and by_disk.disk == 8

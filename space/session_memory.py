"""Keeping what Gradio holds per session small, and giving it back when the session ends.

Gradio 6 keeps one `SessionState` per session hash (a page load, or a `gradio_client.Client`) in
`StateHolder.session_data`, up to `launch(state_session_capacity=...)` sessions. Three things about
it cost this page memory and time (measured: bench/app_sessions.py, bench/app_load.py; numbers in
docs/demo.md, "Sessions and memory"):

- **A closed tab keeps its results for an hour.** When the browser's heartbeat connection drops,
  Gradio runs the page's `unload` events and marks the session closed, but a closed session's
  `gr.State` values (here: keys into `store.STORE`) are only deleted an hour later, so the store
  held every closed tab's result. `manage_sessions` registers an unload event that releases the
  session at once: every state's `delete_callback`, every result the session put in the store (one
  still being scored when the tab closed included), and the `SessionState` itself.
- **Every new session copied the whole page's config** (`config_values`: about 280 KB and 7 ms of
  CPU on the event loop for this page's 194 blocks), read only by Gradio's deep links, which this
  page does not use. Every API call through `gradio_client` or the HTTP API is a new session, so
  this was a third of the server's CPU under load. `light_session_states` makes a new session
  start with an empty `config_values`: Gradio fills in an entry when an event writes a component's
  value, as it already does for components it has not seen.
- **Each session kept a copy of its last inputs and outputs** (the pasted text, an API call's whole
  corpus). `forget_inputs` blanks the paste boxes' copies after Score; `forget_session_after`
  drops an API call's session when the call ends (the API keeps nothing in the session).

These reach into Gradio internals (`SessionState`, `StateHolder`); each step checks for the
attributes it uses and does nothing when a Gradio release changes them (the page keeps working;
tests/space/test_app_memory.py and the benchmarks would show the memory or time coming back).
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable, Iterable, Optional, TypeVar

import gradio as gr

from .store import STORE, trim_memory_soon

# Sessions Gradio keeps (its default is 10,000). Past this the least recently used session's page
# state is dropped: that visitor's next click on a result asks to score again.
SESSION_CAPACITY = 1000

_patch_lock = threading.Lock()
Function = TypeVar("Function", bound=Callable[..., Any])


def _session_state(request: Any) -> Optional[Any]:
    try:
        blocks = request.request.app.get_blocks()
        return blocks.state_holder.session_data.get(request.session_hash)
    except AttributeError:
        return None


def forget_inputs(request: Any, component_ids: Iterable[int]) -> None:
    """Blank the session's stored copy of these input components' values (after they were read)."""
    state = _session_state(request) if request is not None else None
    if state is None:
        return
    for component_id in component_ids:
        config = getattr(state, "config_values", {}).get(component_id)
        if isinstance(config, dict) and isinstance(config.get("props"), dict) and "value" in config["props"]:
            config["props"]["value"] = ""


class _WithoutBlocks:
    """What `SessionState.__init__` reads of the Blocks, with no blocks to copy the config of: its
    `config_values` comprehension keeps only keys in `blocks.blocks`, so it copies nothing. Any other
    attribute a later Gradio reads comes from the real Blocks."""

    def __init__(self, blocks: Any):
        self._blocks = blocks
        self.blocks: dict = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._blocks, name)


def light_session_states() -> bool:
    """New sessions start with an empty `config_values` (see the module's docstring); returns whether
    Gradio's SessionState is now so (False when this Gradio has no such class or attribute)."""
    try:
        from gradio.state_holder import SessionState
    except ImportError:
        return False
    with _patch_lock:
        if getattr(SessionState.__init__, "_bleu_light", False):
            return True
        original = SessionState.__init__

        @functools.wraps(original)
        def light_init(self: Any, blocks: Any) -> None:
            original(self, _WithoutBlocks(blocks))

        light_init._bleu_light = True  # type: ignore[attr-defined]
        SessionState.__init__ = light_init
    return True


def atomic_session_creation() -> bool:
    """A session's SessionState made once, however many of its first events arrive at once.

    Gradio's `StateHolder.__getitem__` checks for the session and then makes its state without a
    lock, so two first events of one tab running at once (an upload's change and a tab's select,
    both unqueued, or two queued events with a concurrency limit above 1) can each make one: the
    later replaces the earlier, and a state the earlier event wrote (the Compare tab's source: files)
    is lost. The Compare tab then read the pasted text ("found 0" systems) now and then under load.
    Returns whether this Gradio's StateHolder is now so (False where it has no such method or lock)."""
    try:
        from gradio.state_holder import SessionState, StateHolder
    except ImportError:
        return False
    with _patch_lock:
        original = StateHolder.__getitem__
        if getattr(original, "_bleu_atomic", False):
            return True

        @functools.wraps(original)
        def getitem(self: Any, session_id: str) -> Any:
            lock, data = getattr(self, "lock", None), getattr(self, "session_data", None)
            if lock is not None and data is not None and session_id not in data:
                with lock:
                    if session_id not in data:
                        data[session_id] = SessionState(self.blocks)
            return original(self, session_id)

        getitem._bleu_atomic = True  # type: ignore[attr-defined]
        StateHolder.__getitem__ = getitem
    return True


def release_session(blocks: Any, session_hash: Optional[str]) -> None:
    """Everything the server holds for one session, released now: its states' delete callbacks (the
    store's entries they name), any other entry the session put in the store, Gradio's SessionState."""
    if not isinstance(session_hash, str):
        return
    holder = getattr(blocks, "state_holder", None)
    STORE.close_owner(session_hash)
    session_data = getattr(holder, "session_data", None)
    if holder is None or session_data is None:
        return
    if session_hash in session_data:
        try:
            holder.delete_state(session_hash)  # runs each gr.State's delete_callback
        except Exception:  # noqa: BLE001  (a callback's failure must not keep the rest)
            pass
    with getattr(holder, "lock", threading.Lock()):
        session_data.pop(session_hash, None)
        getattr(holder, "time_last_used", {}).pop(session_hash, None)
    trim_memory_soon()


def manage_sessions(demo: Any) -> Any:
    """Wire the page's session memory rules into `demo` (once, after it is built; app.py does it):
    light session states made once each, and release a session when its tab closes. Returns the demo."""
    light_session_states()
    atomic_session_creation()
    if getattr(demo, "_bleu_sessions_managed", False):
        return demo

    def release_closed_tab(request: gr.Request) -> None:
        """The tab closed (its heartbeat connection dropped): release what its session holds."""
        release_session(demo, getattr(request, "session_hash", None))

    demo.unload(release_closed_tab)
    demo._bleu_sessions_managed = True
    return demo


def forget_session_after(fn: Function) -> Function:
    """`fn` as an API endpoint that drops its caller's session when it returns: the API keeps nothing
    in the session, and Gradio would otherwise keep the call's inputs (a whole corpus) and output in
    it until the client disconnects. The signature, type hints and docstring stay `fn`'s (gr.api reads
    them through `__wrapped__`)."""

    @functools.wraps(fn)
    def endpoint(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        finally:
            _drop_current_session()

    return endpoint  # type: ignore[return-value]


def _drop_current_session() -> None:
    try:
        from gradio.context import LocalContext

        request = LocalContext.request.get(None)
        blocks = LocalContext.blocks.get(None)
    except (ImportError, AttributeError, LookupError):
        return
    session_hash = getattr(request, "session_hash", None)
    holder = getattr(blocks, "state_holder", None)
    session_data = getattr(holder, "session_data", None)
    if not isinstance(session_hash, str) or session_data is None:
        return
    state = session_data.get(session_hash)
    if state is not None and not getattr(state, "state_data", None):  # a page's session keeps its states
        with getattr(holder, "lock", threading.Lock()):
            session_data.pop(session_hash, None)
            getattr(holder, "time_last_used", {}).pop(session_hash, None)

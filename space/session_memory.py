"""Keeping what Gradio holds per session small.

Gradio keeps a copy of every input's last value in each session (`SessionState.config_values`, read
only by its deep-link feature, which this page does not use), for as many sessions as
`launch(state_session_capacity=...)` allows. For the paste boxes that is the whole pasted test set,
about 1.5 MB of text per session for a WMT17 system: most of what the server grew per session. Once
a handler has read the pasted text, `forget_inputs` blanks those copies. If a Gradio release changes
these internals, it does nothing (the page keeps working; the memory benchmark would show it).
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

# Sessions Gradio keeps (its default is 10,000). Past this the least recently used session's page
# state is dropped: that visitor's next click on a result asks to score again.
SESSION_CAPACITY = 1000


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

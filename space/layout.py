"""The page: a title, one tab per job, and the named API endpoints.

Each tab is built by its own module (`score_tab`, `compare_tab`, `diversity_view`) and owns its options panel, so an
example clicked on one tab never changes what another scores with. A new job is a new module with a
`build_...()` function and one line in TABS below.
"""

from __future__ import annotations

import gradio as gr

from .api import add_api_endpoints
from .compare_tab import build_compare_tab
from .diversity_view import build_diversity_tab
from .paste_guard import PASTE_GUARD_JS
from .scales import SEGMENT_TABLE_SCALE_JS
from .score_tab import build_score_tab
from .store import remove_stale_texts

# Uploaded files older than an hour are deleted, checked every 10 minutes.
UPLOAD_CACHE_SECONDS = (600, 3600)

INTRO = """
# BLEU — score translations, and see why
Corpus BLEU with every option of the metric, per-segment scores, and an **explain mode** that opens the
clipping tables the BLEU paper draws by hand. Same numbers as `evaluate.load("bleu_metric.py")` and sacreBLEU.
"""

# (tab label, element id, builder): the page's jobs, in order.
TABS = [
    ("Score", "score", build_score_tab),
    ("Compare", "compare", build_compare_tab),
    ("Diversity", "diversity", build_diversity_tab),
]


def build_demo() -> gr.Blocks:
    """The page; nothing is launched here, so tests can build it cheaply."""
    remove_stale_texts()
    built = {}
    with gr.Blocks(title="BLEU — score and explain", delete_cache=UPLOAD_CACHE_SECONDS) as demo:
        gr.Markdown(INTRO, elem_id="title")
        with gr.Tabs(selected=TABS[0][1], elem_id="page-tabs"):
            for label, tab_id, build in TABS:
                with gr.Tab(label, id=tab_id, elem_id=f"{tab_id}-tab"):
                    built[tab_id] = build()
        # One scale for the page: a toggle on the Score and Diversity tabs, each kept in step with the other
        # (on a visitor's input only, so the two never update each other in a loop), restored on load.
        scales = [built["score"], built["diversity"]]
        demo.load(None, None, scales, js="() => { const s = localStorage.getItem('bleu-scale') || '0–1'; return [s, s]; }")
        for toggle, other in (scales, scales[::-1]):
            toggle.input(None, toggle, other, js="(scale) => scale", api_visibility="private", queue=False)
        demo.load(None, None, None, js=PASTE_GUARD_JS)  # big pastes: refused above the limit, else one step
        # The per-segment table (Gradio's Dataframe) follows the scale in the browser (space/scales.py).
        demo.load(None, None, None, js=SEGMENT_TABLE_SCALE_JS)
        add_api_endpoints()
    return demo

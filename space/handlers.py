"""What each click of the Score tab does: read the form, score through the core, return the outputs.

The session's state is a key into `store.STORE`; every handler that needs the scored corpus looks it
up, and says "score again" when the store has dropped it.
"""

from __future__ import annotations

from typing import Any, Dict, Tuple

import gradio as gr
import pandas as pd

from .downloads import write_downloads
from .inputs import INPUT_ERRORS, SOURCE_TEXT, load_inputs, option_kwargs, parse_bootstrap
from .options import is_default, options_header
from .render import explain_number, placeholder_html, precision_chart_html, sacrebleu_line, score_html
from .scoring import metric_result, page_count, precision_frame, score_corpus, segments_page
from .store import EXPIRED, STORE

EXPLAIN_PROMPT = placeholder_html("Pick a segment: type its number and press Explain, or click a row of Per segment.")
# run_score's outputs, in the order of the page's output components (layout wires them by name).
SCORE_OUTPUTS = ("status", "score_view", "chart", "signature", "segments", "json", "state", "segment_number",
                 "explain", "segments_caption", "page", "sort", "max_order", "summary_line", "downloads", "options")


def run_score(previous, source, predictions_text, references_text, hypothesis_file, reference_files, *form):
    """Score button: every output of the page, or the core's message in the status line.

    `previous` is the session's last stored result, dropped now (one per session). `form` is the 8
    options of `option_kwargs`, then optionally bootstrap resamples and seed. Explain mode is not
    rendered here (only when its tab or a table row is opened), so scoring a huge segment costs no
    explain HTML. The max-order box is set to the order actually used; the options panel's title
    states the options used.
    """
    STORE.discard(previous)
    options, bootstrap = form[:8], form[8:10]
    try:
        predictions, references = load_inputs(source, predictions_text, references_text, hypothesis_file,
                                              reference_files)
        samples, seed = parse_bootstrap(*bootstrap) if bootstrap else (0, None)
        scored = score_corpus(predictions, references, option_kwargs(*options), samples, seed)
    except INPUT_ERRORS as error:
        return (
            gr.Markdown(f"⚠️ **Cannot score:** {error}", visible=True),
            placeholder_html("No score: fix the input and press Score again."),
            gr.HTML("", visible=False), "", pd.DataFrame(), {}, None, 1,
            placeholder_html("No segment to explain yet."), "", 1, "segment", gr.Number(), "",
            gr.File(None, visible=False), gr.Accordion(label=options_header(*options)),
        )
    downloads = gr.File(write_downloads(scored, predictions, references), visible=True)
    frame, caption = segments_page(scored, 1, "segment")
    return (
        gr.Markdown("", visible=False),
        score_html(scored),
        gr.HTML(precision_chart_html(precision_frame(scored)), visible=True),
        scored.signature,
        frame,
        metric_result(scored),
        STORE.put(scored),
        1,
        EXPLAIN_PROMPT,
        caption,
        1,
        "segment",
        scored.options.max_order,
        sacrebleu_line(scored.result),
        downloads,
        gr.Accordion(label=options_header(*options)),
    )


def named(outputs: Tuple[Any, ...]) -> Dict[str, Any]:
    """run_score's outputs by name (tests and the example handler read them so)."""
    return dict(zip(SCORE_OUTPUTS, outputs))


def run_example(previous, predictions_text, references_text, *form):
    """An example (already loaded into the form by its click): switch to the text tab and score it
    with every option the tab shows: the 8 of `option_kwargs`, then the bootstrap resamples and seed
    boxes (the example leaves those as they are, so a Resamples box showing 1000 gives an interval).
    When its options are not the defaults, the options panel opens, so the form shows them."""
    outputs = run_score(previous, SOURCE_TEXT, predictions_text, references_text, None, None, *form)
    stored = named(outputs)["state"]
    scored = STORE.get(stored)
    if scored is not None and not is_default(scored.options):
        outputs = outputs[:-1] + (gr.Accordion(label=options_header(*form[:8]), open=True),)
    return (gr.Tabs(selected=SOURCE_TEXT), SOURCE_TEXT) + outputs


def run_page(key, page, sort):
    """Another page, or another order, of the per-segment table (sorted over all segments)."""
    scored = STORE.get(key)
    if scored is None:
        return pd.DataFrame(), EXPIRED if key else "Score something first.", 1
    number = min(max(1, int(page or 1)), page_count(scored))
    frame, caption = segments_page(scored, number, sort)
    return frame, caption, number


def run_explain(key, segment_number):
    scored = STORE.get(key)
    if scored is None and key:
        return placeholder_html(EXPIRED)
    try:
        return explain_number(scored, segment_number)
    except (ValueError, TypeError) as error:
        return placeholder_html(f"Cannot explain: {error}")


def pick_segment(key, event: gr.SelectData):
    """Clicking a row of the per-segment table explains that segment."""
    row = event.row_value if event.row_value else None
    number = int(row[0]) if row else int(event.index[0]) + 1
    return number, run_explain(key, number), gr.Tabs(selected="explain")


def release_state(key) -> None:
    """Gradio's delete_callback for the session's state (its tab closed, or an hour passed)."""
    STORE.discard(key)

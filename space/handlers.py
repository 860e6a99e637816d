"""What each button and click does: read the form, score through the core, return the outputs."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from bleu_scoring import SMOOTHING_DEFAULTS
from bleu_tokenizers import TokenizerSetupError

from .inputs import SOURCE_TEXT, load_inputs, option_kwargs, parse_bootstrap
from .downloads import write_downloads
from .render import explain_number, placeholder_html, precision_chart_html, sacrebleu_line, score_html
from .scoring import metric_result, page_count, precision_frame, score_corpus, segments_page

EXPLAIN_PROMPT = placeholder_html("Pick a segment: type its number and press Explain, or click a row of Per segment.")


def run_score(source, predictions_text, references_text, hypothesis_file, reference_files, *form):
    """Score button: every output of the page, or the core's message in the status line.

    Explain mode is not rendered here (it is rendered when its tab or a table row is opened), so
    scoring a huge segment costs no explain HTML. `form` is the 8 options of `option_kwargs`, then
    optionally bootstrap samples and seed. The max-order box is set to the order actually used.
    """
    options, bootstrap = form[:8], form[8:10]
    try:
        predictions, references = load_inputs(
            source, predictions_text, references_text, hypothesis_file, reference_files
        )
        samples, seed = parse_bootstrap(*bootstrap) if bootstrap else (0, None)
        scored = score_corpus(predictions, references, option_kwargs(*options), samples, seed)
    except (ValueError, TypeError, OSError, ImportError, TokenizerSetupError) as error:
        message = f"⚠️ **Cannot score:** {error}"
        return (
            gr.Markdown(message, visible=True), placeholder_html("No score: fix the input and press Score again."),
            gr.HTML("", visible=False), "", pd.DataFrame(), {}, None, 1,
            placeholder_html("No segment to explain yet."), "", 1, "segment", gr.Number(), "", gr.File(None, visible=False),
        )
    frame, caption = segments_page(scored, 1, "segment")
    return (
        gr.Markdown("", visible=False),
        score_html(scored),
        gr.HTML(precision_chart_html(precision_frame(scored)), visible=True),
        scored.result["signature"],
        frame,
        metric_result(scored),
        scored,
        1,
        EXPLAIN_PROMPT,
        caption,
        1,
        "segment",
        scored.options.max_order,
        sacrebleu_line(scored.result),
        downloads_component(scored),
    )


def downloads_component(scored) -> gr.File:
    """The download files. Gradio copies them into its cache (cleaned by Blocks(delete_cache=...))
    after this returns; `write_downloads` removes our own folders once they are an hour old."""
    return gr.File(write_downloads(scored), visible=True)


def run_page(scored, page, sort):
    """Another page, or another order, of the per-segment table (sorted over all segments)."""
    if scored is None:
        return pd.DataFrame(), "Score something first.", 1
    number = min(max(1, int(page or 1)), page_count(scored))
    frame, caption = segments_page(scored, number, sort)
    return frame, caption, number


def run_example(predictions_text, references_text, *options):
    """An example row: switch to the text tab and score it."""
    return (gr.Tabs(selected=SOURCE_TEXT), SOURCE_TEXT) + run_score(
        SOURCE_TEXT, predictions_text, references_text, None, None, *options
    )


def run_explain(scored, segment_number):
    try:
        return explain_number(scored, segment_number)
    except (ValueError, TypeError) as error:
        return placeholder_html(f"Cannot explain: {error}")


def pick_segment(scored, event: gr.SelectData):
    """Clicking a row of the per-segment table explains that segment."""
    row = event.row_value if event.row_value else None
    number = int(row[0]) if row else int(event.index[0]) + 1
    return number, run_explain(scored, number), gr.Tabs(selected="explain")


SENTENCE_LEVEL_SMOOTHERS = {"method5", "method7"}


def smooth_value_hint(method: str):
    """The value box follows the method (editable with its default shown, or locked), and the
    sentence-level smoothers say what they do to a corpus score."""
    default = SMOOTHING_DEFAULTS.get(method)
    if default is None:
        value_box = gr.Textbox(value="", interactive=False, placeholder=f"{method} takes no value")
    else:
        value_box = gr.Textbox(interactive=True, placeholder=f"blank = default {default:g}")
    if method in SENTENCE_LEVEL_SMOOTHERS:
        note = gr.Markdown(
            f"⚠️ **{method} is a sentence-level smoother** (Chen & Cherry 2014): it rewrites the n-gram counts "
            "from neighbouring orders, and on a whole corpus it raises BLEU well above the unsmoothed score "
            "(uedin-nmt on WMT17: 0.2830 → 0.3714). For corpus BLEU use none, as sacreBLEU does.",
            visible=True,
        )
    else:
        note = gr.Markdown("", visible=False)
    return value_box, note


def release_state(scored) -> None:
    """Gradio's delete_callback for the session's scored corpus: free its texts and arrays."""
    if scored is not None:
        scored.release()

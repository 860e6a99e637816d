"""The Score a system tab: inputs, examples and options on the left, the score and its views on the right."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from .examples import EXAMPLES, EXAMPLES_DIR
from .handlers import SCORE_OUTPUTS, pick_segment, release_state, run_example, run_explain, run_page, run_score
from .inputs import DEFAULT_SEED, MAX_FILE_MB, MAX_PASTED_CHARS, REFERENCE_SET_SEPARATOR, SOURCE_FILES, SOURCE_TEXT
from .options import options_panel
from .render import MAX_NGRAM_ROWS_SHOWN, MAX_TOKENS_SHOWN, SCALE_JS, SCALE_PERCENT, SCALE_UNIT, placeholder_html
from .scoring import PAGE_ROWS, SORT_CHOICES
from .session_memory import forget_inputs
from .uploads import replace_on_upload

# A scored corpus stays in the store for an hour at most, and is released when the tab closes.
STATE_SECONDS = 3600
# The scale toggle is the browser's alone (render.SCALE_JS): it switches which of the two scales the
# card (and the Diversity tab's numbers) show, and is remembered in localStorage.
SCROLL_TO_RESULT_JS = """() => { setTimeout(() => {
  const status = document.querySelector('#status');
  const shown = status && status.offsetParent !== null && status.innerText.trim();
  const target = shown ? status : document.querySelector('#score-view');
  if (target) target.scrollIntoView({block: 'nearest'});
}, 60); }"""

LIMITS_HELP = f"""
**Limits.** Paste up to {MAX_PASTED_CHARS:,} characters per box (a few thousand lines); for larger test sets
use *Upload files* (up to {MAX_FILE_MB} MB per file). Explain mode shows the first {MAX_TOKENS_SHOWN} tokens of
each side and the first {MAX_NGRAM_ROWS_SHOWN} rows of each n-gram table (its sums count everything).
"""

SEGMENTS_HELP = f"""
**Sentence BLEU** of each segment alone, with sacreBLEU's sentence-level settings (order 4, `exp`
smoothing, effective order, closest reference length) on the same tokens as the corpus score; it does not follow the
corpus options' order, weights or smoothing. Explain shows the same number. Sorting covers all segments;
{PAGE_ROWS} rows per page. Click a row to explain it.
"""

FORMAT_HELP = f"""
**Format.** Predictions: one segment per line. References: one line per segment; for several references per
segment, paste several *reference sets* separated by a line holding only `{REFERENCE_SET_SEPARATOR}`
(like several reference files). Files: one hypothesis file and one or more reference files, UTF-8, one segment per line.
"""

PRIVATE = dict(api_visibility="private")  # the page's own events; the API is space/api.py


def build_score_tab() -> gr.Radio:
    """The tab's widgets and events; returns the scale toggle, which the page restores on load."""
    stored = gr.State(None, time_to_live=STATE_SECONDS, delete_callback=release_state)
    source = gr.State(SOURCE_TEXT)
    with gr.Row(equal_height=False):
        with gr.Column(scale=5, min_width=360) as input_column:
            with gr.Tabs(selected=SOURCE_TEXT) as input_tabs:
                with gr.Tab("Paste text", id=SOURCE_TEXT) as text_tab:
                    predictions_box = gr.Textbox(
                        label="Predictions (one segment per line)", lines=5, max_lines=14, elem_id="predictions",
                        placeholder="Paste your system's output here, one segment per line (or click an example below)",
                    )
                    references_box = gr.Textbox(
                        label=f"References (one line per segment; reference sets separated by {REFERENCE_SET_SEPARATOR})",
                        lines=6, max_lines=18, elem_id="references",
                        placeholder=f"Paste the references here, one line per segment; separate reference sets with a line {REFERENCE_SET_SEPARATOR}",
                    )
                with gr.Tab("Upload files", id=SOURCE_FILES) as files_tab:
                    hypothesis_file = gr.File(label="Hypothesis file (one prediction per line)", height=110,
                                              elem_id="hypothesis-file")
                    reference_files = gr.File(label="Reference files (one or more; a new upload replaces them)",
                                              file_count="multiple", height=230, elem_id="reference-files")
                    gr.Examples(
                        examples=[[str(EXAMPLES_DIR / "paper_candidates.txt"),
                                   [str(EXAMPLES_DIR / f"paper_reference{i}.txt") for i in (1, 2, 3)]]],
                        inputs=[hypothesis_file, reference_files],
                        example_labels=["Paper: 2 candidates, 3 reference files"],
                        label="Example files", api_visibility="private",
                    )
            score_button = gr.Button("Score", variant="primary", size="lg", elem_id="score-button")
            gr.Markdown(LIMITS_HELP, elem_id="limits")
            examples_slot = gr.Column()
            options = options_panel("")
            with gr.Accordion("Confidence interval (sacreBLEU's bootstrap)", open=False, elem_id="bootstrap"):
                with gr.Row():
                    bootstrap_samples = gr.Number(0, label="Bootstrap resamples (0 = no interval)", precision=None,
                                                  info="sacreBLEU's --confidence uses 1000", elem_id="bootstrap-samples")
                    bootstrap_seed = gr.Textbox(str(DEFAULT_SEED), label="Bootstrap seed", elem_id="bootstrap-seed",
                                                info="12345 is sacreBLEU's; none = fresh randomness")
        with gr.Column(scale=7, min_width=420):
            status = gr.Markdown("", visible=False, elem_id="status")
            scale = gr.Radio([SCALE_UNIT, SCALE_PERCENT], value=SCALE_UNIT, label="Scale", elem_id="scale-toggle",
                             info="0–1 as evaluate returns it, or 0–100 as sacreBLEU and papers print it (remembered)")
            score_view = gr.HTML(placeholder_html("Paste text or pick an example, then press Score."),
                                 elem_id="score-view", js_on_load=None)
            with gr.Tabs(selected="overview", elem_id="result-tabs") as result_tabs:
                with gr.Tab("Overview", id="overview"):
                    # Plain HTML bars: no Vega-Lite (its version and scale warnings), nothing empty.
                    chart = gr.HTML("", elem_id="chart", visible=False)
                    signature = gr.Textbox(label="Signature (put it next to the score)", interactive=False,
                                           buttons=["copy"], elem_id="signature")
                    summary_line = gr.Textbox(label="sacreBLEU's summary line", interactive=False,
                                              buttons=["copy"], elem_id="sacrebleu-line")
                    downloads = gr.File(label="Downloads: every segment (CSV), the result (JSON), a Markdown/LaTeX line",
                                        file_count="multiple", interactive=False, elem_id="downloads", visible=False)
                with gr.Tab("Per segment", id="segments"):
                    gr.Markdown(SEGMENTS_HELP, elem_id="segments-help")
                    with gr.Row():
                        sort = gr.Dropdown(SORT_CHOICES, value="segment", label="Sort all segments by", scale=3,
                                           elem_id="segments-sort")
                        page = gr.Number(1, label="Page", precision=0, scale=1, elem_id="segments-page")
                    segments_caption = gr.Markdown("", elem_id="segments-caption")
                    segments = gr.Dataframe(pd.DataFrame(), interactive=False, max_height=420, elem_id="segments",
                                            wrap=False, show_search="none")
                with gr.Tab("Explain", id="explain", elem_id="explain-tab") as explain_tab:
                    with gr.Row():
                        segment_number = gr.Number(1, label="Segment #", precision=0, scale=1, elem_id="segment-number")
                        explain_button = gr.Button("Explain this segment", scale=2, elem_id="explain-button")
                    explain_view = gr.HTML(placeholder_html("Score something first, then pick a segment to explain."),
                                           elem_id="explain-html", js_on_load=None)
                with gr.Tab("JSON", id="json"):
                    result_json = gr.JSON(label="Metric result (as evaluate returns it)", open=True)

    by_name = dict(status=status, score_view=score_view, chart=chart, signature=signature, segments=segments,
                   json=result_json, state=stored, segment_number=segment_number, explain=explain_view,
                   segments_caption=segments_caption, page=page, sort=sort, max_order=options.max_order,
                   summary_line=summary_line, downloads=downloads, options=options.accordion)
    score_outputs = [by_name[name] for name in SCORE_OUTPUTS]
    with examples_slot:  # right below the Score button, on the first screen
        examples = gr.Examples(
            examples=[row for _, row in EXAMPLES], example_labels=[label for label, _ in EXAMPLES],
            inputs=[predictions_box, references_box, *options.inputs],
            label="Examples from the BLEU tutorials: one click loads and scores (with the options it shows)",
            examples_per_page=8, api_visibility="private",
        )
    # Every option the tab shows, the bootstrap boxes included: an example scores as Score would.
    examples.load_input_event.then(run_example, [stored, predictions_box, references_box, *options.inputs,
                                                 bootstrap_samples, bootstrap_seed],
                                   [input_tabs, source, *score_outputs], **PRIVATE)
    with input_column:
        gr.Markdown(FORMAT_HELP, elem_id="format-help")

    replace_on_upload(reference_files)
    text_tab.select(lambda: SOURCE_TEXT, None, source, queue=False, **PRIVATE)
    files_tab.select(lambda: SOURCE_FILES, None, source, queue=False, **PRIVATE)
    score_inputs = [stored, source, predictions_box, references_box, hypothesis_file, reference_files,
                    *options.inputs, bootstrap_samples, bootstrap_seed]
    pasted = [predictions_box._id, references_box._id]

    def score_click(request: gr.Request, *inputs):
        """Score, then drop Gradio's per-session copy of the pasted text (space/session_memory.py)."""
        outputs = run_score(*inputs)
        forget_inputs(request, pasted)
        return outputs

    score_button.click(score_click, score_inputs, score_outputs, **PRIVATE)
    explain_button.click(run_explain, [stored, segment_number], explain_view, **PRIVATE)
    segment_number.submit(run_explain, [stored, segment_number], explain_view, **PRIVATE)
    segments.select(pick_segment, stored, [segment_number, explain_view, result_tabs], **PRIVATE)
    explain_tab.select(run_explain, [stored, segment_number], explain_view, **PRIVATE)
    page_outputs = [segments, segments_caption, page]
    page.submit(run_page, [stored, page, sort], page_outputs, **PRIVATE)
    sort.input(lambda key, order: run_page(key, 1, order), [stored, sort], page_outputs, **PRIVATE)
    scale.change(None, scale, None, js=SCALE_JS)
    # The result (or the error) is brought into view after Score and after an example click.
    status.change(None, None, None, js=SCROLL_TO_RESULT_JS)
    score_view.change(None, None, None, js=SCROLL_TO_RESULT_JS)
    return scale

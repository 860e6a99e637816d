"""The Blocks page: inputs and options on the left, the score and its views on the right."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from bleu_scoring import SMOOTHING_DEFAULTS
from bleu_tokenizers import RULE_TOKENIZERS, TOKENIZERS, unavailable_reason

from .compare_view import COMPARE_HELP, METHOD_CHOICES, SYSTEM_SEPARATOR, run_compare
from .examples import EXAMPLES, EXAMPLES_DIR
from .paste_guard import PASTE_GUARD_JS
from .handlers import pick_segment, release_state, run_example, run_explain, run_page, run_score, smooth_value_hint
from .inputs import MAX_FILE_MB, MAX_PASTED_CHARS, REFERENCE_SET_SEPARATOR, SOURCE_FILES, SOURCE_TEXT
from .render import MAX_NGRAM_ROWS_SHOWN, MAX_TOKENS_SHOWN, SCALE_PERCENT, SCALE_UNIT, placeholder_html
from .scoring import PAGE_ROWS, SORT_CHOICES

# A scored corpus stays in its session for an hour at most, and is released when the tab closes.
STATE_SECONDS = 3600
# Uploaded files older than an hour are deleted, checked every 10 minutes.
UPLOAD_CACHE_SECONDS = (600, 3600)
# The scale toggle is the browser's alone: it switches which of the two scales the card shows, and
# is remembered in localStorage.
SCALE_JS = """(scale) => {
  localStorage.setItem('bleu-scale', scale);
  const view = document.querySelector('#score-view');
  if (view) view.dataset.bleuScale = scale === '0–100' ? 'percent' : 'unit';
}"""
SCROLL_TO_RESULT_JS = """() => { setTimeout(() => {
  const status = document.querySelector('#status');
  const shown = status && status.offsetParent !== null && status.innerText.trim();
  const target = shown ? status : document.querySelector('#score-view');
  if (target) target.scrollIntoView({block: 'nearest'});
}, 60); }"""

def _tokenizer_choice(label: str, name: str) -> tuple:
    """A menu entry; one whose optional package or model file is missing says so (choosing it shows
    the error with the pip line or the model's source)."""
    reason = unavailable_reason(name)
    return (label if reason is None else f"{label} — {reason}", name)


TOKENIZER_CHOICES = [
    ("13a (WMT default)", "13a"),
    ("none (spaces only)", "none"),
    ("intl (Unicode)", "intl"),
    ("zh (Chinese)", "zh"),
    ("char (characters)", "char"),
    _tokenizer_choice("ja-mecab (Japanese, MeCab)", "ja-mecab"),
    _tokenizer_choice("ko-mecab (Korean, MeCab-ko)", "ko-mecab"),
    _tokenizer_choice("flores101 (spBLEU, FLORES-101)", "flores101"),
    _tokenizer_choice("flores200 (spBLEU, FLORES-200)", "flores200"),
    _tokenizer_choice("spBLEU-1K (spBLEU, 1K languages)", "spBLEU-1K"),
]
# Every sacreBLEU name but "spm", flores101's old name.
assert {value for _, value in TOKENIZER_CHOICES} == set(TOKENIZERS) - {"spm"}
SMOOTH_CHOICES = [
    ("none", "none"),
    ("floor (sacreBLEU)", "floor"),
    ("add-k (sacreBLEU)", "add-k"),
    ("exp (sacreBLEU / mteval)", "exp"),
    *[(f"{name} (Chen & Cherry)", name) for name in sorted(n for n in SMOOTHING_DEFAULTS if n.startswith("method"))],
    ("add-one (legacy evaluate smooth=True)", "add-one"),
]
assert {value for _, value in SMOOTH_CHOICES} == set(SMOOTHING_DEFAULTS)


INTRO = """
# BLEU — score translations, and see why
Corpus BLEU with every option of the metric, per-segment scores, and an **explain mode** that opens the
clipping tables the BLEU paper draws by hand. Same numbers as `evaluate.load("bleu_metric.py")` and sacreBLEU.
"""

LIMITS_HELP = f"""
**Limits.** Paste up to {MAX_PASTED_CHARS:,} characters per box (a few thousand lines); for larger test sets
use *Upload files* (up to {MAX_FILE_MB} MB per file). Explain mode shows the first {MAX_TOKENS_SHOWN} tokens of
each side and the first {MAX_NGRAM_ROWS_SHOWN} rows of each n-gram table (its sums count everything).
"""

SEGMENTS_HELP = f"""
**Sentence BLEU** of each segment alone, with sacreBLEU's sentence-level settings (order 4, `exp`
smoothing, effective order, closest reference length) on the same tokens as the corpus score; it does not follow the
corpus options' order, weights or smoothing. Sorting covers all segments; {PAGE_ROWS} rows per page. Click a row to explain it.
"""

FORMAT_HELP = f"""
**Format.** Predictions: one segment per line. References: one line per segment; for several references per
segment, paste several *reference sets* separated by a line holding only `{REFERENCE_SET_SEPARATOR}`
(like several reference files). Files: one hypothesis file and one or more reference files, UTF-8, one segment per line.
"""


def build_demo() -> gr.Blocks:
    """The page; nothing is launched here, so tests can build it cheaply."""
    with gr.Blocks(title="BLEU — score and explain", delete_cache=UPLOAD_CACHE_SECONDS) as demo:
        gr.Markdown(INTRO, elem_id="title")
        with gr.Tabs(selected="score", elem_id="page-tabs"):
            with gr.Tab("Score a system", id="score"):
                scored_state = gr.State(None, time_to_live=STATE_SECONDS, delete_callback=release_state)
                source_state = gr.State(SOURCE_TEXT)
                with gr.Row(equal_height=False):
                    with gr.Column(scale=5, min_width=360) as input_column:
                        with gr.Tabs(selected=SOURCE_TEXT) as input_tabs:
                            with gr.Tab("Paste text", id=SOURCE_TEXT) as text_tab:
                                predictions_box = gr.Textbox(
                                    label="Predictions (one segment per line)", lines=5, max_lines=14,
                                    placeholder="Paste your system's output here, one segment per line (or click an example below)", elem_id="predictions",
                                )
                                references_box = gr.Textbox(
                                    label=f"References (one line per segment; reference sets separated by {REFERENCE_SET_SEPARATOR})",
                                    lines=6, max_lines=18, elem_id="references",
                                    placeholder=f"Paste the references here, one line per segment; separate reference sets with a line {REFERENCE_SET_SEPARATOR}",
                                )
                            with gr.Tab("Upload files", id=SOURCE_FILES) as files_tab:
                                hypothesis_file = gr.File(label="Hypothesis file (one prediction per line)", height=110, elem_id="hypothesis-file")
                                reference_files = gr.File(
                                    label="Reference files (one or more)",
                                    file_count="multiple", height=230, elem_id="reference-files",
                                )
                                gr.Examples(
                                    examples=[[str(EXAMPLES_DIR / "paper_candidates.txt"),
                                               [str(EXAMPLES_DIR / f"paper_reference{i}.txt") for i in (1, 2, 3)]]],
                                    inputs=[hypothesis_file, reference_files],
                                    example_labels=["Paper: 2 candidates, 3 reference files"],
                                    label="Example files",
                                )
                        score_button = gr.Button("Score", variant="primary", size="lg", elem_id="score-button")
                        gr.Markdown(LIMITS_HELP, elem_id="limits")
                        examples_slot = gr.Column()
                        with gr.Accordion("Options (13a, order 4, no smoothing unless changed)", open=False, elem_id="options"):
                            with gr.Row():
                                tokenizer = gr.Dropdown(TOKENIZER_CHOICES, value="13a", label="Tokenizer")
                                ref_length = gr.Radio(
                                    [("closest", "closest"), ("shortest", "shortest")], value="closest",
                                    label="Reference length", info="closest to c (paper) or shortest",
                                )
                            with gr.Row():
                                max_order = gr.Number(4, label="Max n-gram order (1–8)", precision=None, elem_id="max-order",
                                                      info="what was scored is shown here after Score")
                                weights = gr.Textbox(
                                    label="Weights (optional)", placeholder="e.g. 0.5, 0.5",
                                    info="blank = uniform 1/N; their count sets the order",
                                )
                            with gr.Row():
                                smooth = gr.Dropdown(SMOOTH_CHOICES, value="none", label="Smoothing", elem_id="smooth")
                                smooth_value = gr.Textbox(
                                    "", label="Smoothing value", placeholder="none takes no value", interactive=False,
                                )
                            smooth_note = gr.Markdown("", visible=False, elem_id="smooth-note")
                            with gr.Row():
                                bootstrap_samples = gr.Number(0, label="Bootstrap samples (95% interval)", precision=None,
                                                              info="0 = no interval; sacreBLEU uses 1000", elem_id="bootstrap-samples")
                                bootstrap_seed = gr.Textbox("", label="Bootstrap seed", placeholder="blank = the metric's default",
                                                            elem_id="bootstrap-seed")
                            with gr.Row():
                                lowercase = gr.Checkbox(False, label="Lowercase")
                                effective_order = gr.Checkbox(False, label="Effective order (sentence-level)")
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
                                                    file_count="multiple", interactive=False, elem_id="downloads",
                                                    visible=False)
                            with gr.Tab("Per segment", id="segments"):
                                gr.Markdown(SEGMENTS_HELP, elem_id="segments-help")
                                with gr.Row():
                                    sort = gr.Dropdown(SORT_CHOICES, value="segment", label="Sort all segments by", scale=3,
                                                       elem_id="segments-sort")
                                    page = gr.Number(1, label="Page", precision=0, scale=1, elem_id="segments-page")
                                segments_caption = gr.Markdown("", elem_id="segments-caption")
                                segments = gr.Dataframe(
                                    pd.DataFrame(), interactive=False, max_height=420, elem_id="segments",
                                    wrap=False, show_search="none",
                                )
                            with gr.Tab("Explain", id="explain", elem_id="explain-tab") as explain_tab:
                                with gr.Row():
                                    segment_number = gr.Number(1, label="Segment #", precision=0, scale=1, elem_id="segment-number")
                                    explain_button = gr.Button("Explain this segment", scale=2, elem_id="explain-button")
                                explain_view = gr.HTML(placeholder_html("Score something first, then pick a segment to explain."),
                                                       elem_id="explain-html", js_on_load=None)
                            with gr.Tab("JSON", id="json"):
                                result_json = gr.JSON(label="Metric result (as evaluate returns it)", open=True)

                option_inputs = [tokenizer, lowercase, max_order, weights, smooth, smooth_value, ref_length, effective_order]
                score_outputs = [status, score_view, chart, signature, segments, result_json, scored_state,
                                 segment_number, explain_view, segments_caption, page, sort, max_order,
                                 summary_line, downloads]
                with examples_slot:  # right below the Score button, on the first screen
                    gr.Examples(
                        examples=[row for _, row in EXAMPLES],
                        example_labels=[label for label, _ in EXAMPLES],
                        inputs=[predictions_box, references_box, *option_inputs],
                        outputs=[input_tabs, source_state, *score_outputs],
                        fn=run_example, run_on_click=True, cache_examples=False,
                        label="Examples from the BLEU tutorials: one click loads and scores", examples_per_page=8,
                    )
                with input_column:
                    gr.Markdown(FORMAT_HELP, elem_id="format-help")

                text_tab.select(lambda: SOURCE_TEXT, None, source_state)
                files_tab.select(lambda: SOURCE_FILES, None, source_state)
                smooth.change(smooth_value_hint, smooth, [smooth_value, smooth_note])
                score_inputs = [source_state, predictions_box, references_box, hypothesis_file, reference_files, *option_inputs,
                                bootstrap_samples, bootstrap_seed]
                score_button.click(run_score, score_inputs, score_outputs, api_name="score")
                explain_button.click(run_explain, [scored_state, segment_number], explain_view)
                segment_number.submit(run_explain, [scored_state, segment_number], explain_view)
                segments.select(pick_segment, scored_state, [segment_number, explain_view, result_tabs])
                explain_tab.select(run_explain, [scored_state, segment_number], explain_view)
                page_outputs = [segments, segments_caption, page]
                page.submit(run_page, [scored_state, page, sort], page_outputs)
                sort.input(lambda scored, order: run_page(scored, 1, order), [scored_state, sort], page_outputs)
                scale.change(None, scale, None, js=SCALE_JS)
                demo.load(None, None, scale, js="() => localStorage.getItem('bleu-scale') || '0–1'")
                demo.load(None, None, None, js=PASTE_GUARD_JS)  # big pastes: refused above the limit, else one step
                # The result (or the error) is brought into view after Score and after an example click.
                status.change(None, None, None, js=SCROLL_TO_RESULT_JS)
                score_view.change(None, None, None, js=SCROLL_TO_RESULT_JS)
            with gr.Tab("Compare systems", id="compare", elem_id="compare-tab"):
                gr.Markdown(COMPARE_HELP)
                compare_source = gr.State(SOURCE_TEXT)
                with gr.Row(equal_height=False):
                    with gr.Column(scale=5, min_width=320):
                        with gr.Tabs():
                            with gr.Tab("Paste systems", id="compare-text") as compare_text_tab:
                                systems_box = gr.Textbox(label=f"Systems (separated by {SYSTEM_SEPARATOR})", lines=6,
                                                         max_lines=14, elem_id="compare-systems",
                                                         placeholder=f"first system's lines\n{SYSTEM_SEPARATOR}\nsecond system's lines")
                                compare_references = gr.Textbox(label="References", lines=4, max_lines=12,
                                                                elem_id="compare-references")
                            with gr.Tab("Upload system files", id="compare-files") as compare_files_tab:
                                system_files = gr.File(label="System files (two or more)", file_count="multiple",
                                                       height=200, elem_id="compare-system-files")
                                compare_reference_files = gr.File(label="Reference files", file_count="multiple",
                                                                  height=140, elem_id="compare-reference-files")
                        with gr.Row():
                            method = gr.Dropdown(METHOD_CHOICES, value="bootstrap", label="Test")
                            compare_samples = gr.Number(None, label="Samples (blank = the test's default)", precision=0)
                            compare_seed = gr.Textbox("", label="Seed", placeholder="blank = 12345 (sacreBLEU's)")
                        compare_button = gr.Button("Compare systems", variant="primary", elem_id="compare-button")
                    with gr.Column(scale=7, min_width=320):
                        compare_status = gr.Markdown("", visible=False, elem_id="compare-status")
                        compare_table = gr.Dataframe(pd.DataFrame(), interactive=False, elem_id="compare-table")
                        compare_plot = gr.HTML("", elem_id="compare-plot-view")
                        compare_caption = gr.Markdown("", elem_id="compare-caption")
                        differences = gr.Dataframe(pd.DataFrame(), interactive=False, max_height=420, wrap=False,
                                                   elem_id="compare-differences")
                compare_text_tab.select(lambda: SOURCE_TEXT, None, compare_source)
                compare_files_tab.select(lambda: SOURCE_FILES, None, compare_source)
                compare_button.click(
                    run_compare,
                    [compare_source, systems_box, compare_references, system_files, compare_reference_files, method,
                     compare_samples, compare_seed, *option_inputs],
                    [compare_status, compare_table, compare_plot, differences, compare_caption],
                )
    return demo

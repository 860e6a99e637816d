"""The Compare systems tab: its widgets and what each of its clicks does (the work is `compare_view`)."""

from __future__ import annotations

import gradio as gr

from bleukit.significance.compare import DEFAULT_SAMPLES

from .compare_view import (
    COMPARE_HELP,
    METHOD_CHOICES,
    SYSTEM_SEPARATOR,
    compare_caption,
    compare_systems,
    comparison_frame,
    comparison_html,
    differences_html,
    few_segments_warning,
    interval_html,
    parse_test_samples,
    read_systems,
    system_names,
)
from .inputs import INPUT_ERRORS, DEFAULT_SEED, SOURCE_FILES, SOURCE_TEXT, option_kwargs, parse_seed
from .options import options_panel
from .session_memory import forget_inputs
from .store import EXPIRED, STORE
from .uploads import replace_on_upload

COMPARE_OUTPUTS = ("status", "table", "plot", "against", "differences", "caption", "state")


def run_compare(previous, source, systems_text, references_text, system_files, reference_files, baseline, method,
                samples, seed, count_ties, *form):
    """Compare systems button: the outputs named in COMPARE_OUTPUTS (the test's message on bad input)."""
    STORE.discard(previous)
    try:
        systems, references = read_systems(source, systems_text, references_text, system_files, reference_files)
        kwargs = option_kwargs(*form)
        count = len(references)
        result, compared = compare_systems(systems, references, kwargs, baseline or None, method,
                                           parse_test_samples(samples, method), parse_seed(seed), bool(count_ties))
    except INPUT_ERRORS as error:
        return (gr.Markdown(f"⚠️ **Cannot compare:** {error}", visible=True), "", "",
                gr.Dropdown(choices=[], value=None), "", "", None)
    others = compared.names[1:]
    warning = few_segments_warning(count, result)
    return (gr.Markdown(warning, visible=bool(warning)), comparison_html(comparison_frame(result)), interval_html(result),
            gr.Dropdown(choices=others, value=others[0]), differences_html(compared, others[0]),
            compare_caption(result, count, kwargs), STORE.put(compared))


def show_differences(key, system):
    compared = STORE.get(key)
    if compared is None:
        return f'<p class="diff-caption">{EXPIRED}</p>' if key else ""
    return differences_html(compared, system)


def baseline_choices(source, systems_text, system_files, current):
    """The baseline menu lists the systems the form holds now; it keeps its choice while that is one."""
    try:
        names = system_names(source, systems_text, system_files)
    except (ValueError, OSError):
        names = []
    return gr.Dropdown(choices=names, value=current if current in names else (names[0] if names else None))


def default_samples(method):
    """The samples box shows the number the test will use: 1,000 resamples or 10,000 trials."""
    return DEFAULT_SAMPLES[method]


def build_compare_tab() -> None:
    gr.Markdown(COMPARE_HELP)
    source = gr.State(SOURCE_TEXT)
    stored = gr.State(None, time_to_live=3600, delete_callback=STORE.discard)
    with gr.Row(equal_height=False):
        with gr.Column(scale=5, min_width=320):
            with gr.Tabs():
                with gr.Tab("Paste systems", id="compare-text") as text_tab:
                    systems_box = gr.Textbox(label=f"Systems (separated by {SYSTEM_SEPARATOR})", lines=6, max_lines=14,
                                             elem_id="compare-systems",
                                             placeholder=f"first system's lines\n{SYSTEM_SEPARATOR}\nsecond system's lines")
                    references_box = gr.Textbox(label="References", lines=4, max_lines=12, elem_id="compare-references")
                with gr.Tab("Upload system files", id="compare-files") as files_tab:
                    system_files = gr.File(label="System files (two or more; a new upload replaces them)",
                                           file_count="multiple", height=200, elem_id="compare-system-files")
                    reference_files = gr.File(label="Reference files (a new upload replaces them)",
                                              file_count="multiple", height=140, elem_id="compare-reference-files")
            baseline = gr.Dropdown([], value=None, label="Baseline (the others are tested against it)",
                                   elem_id="compare-baseline", allow_custom_value=False)
            method = gr.Dropdown(METHOD_CHOICES, value="bootstrap", label="Test", elem_id="compare-method")
            with gr.Row():
                samples = gr.Number(DEFAULT_SAMPLES["bootstrap"], label="Resamples / trials", precision=0, minimum=1,
                                    elem_id="compare-samples", info="bootstrap 1,000 and AR 10,000 are sacreBLEU's")
                seed = gr.Textbox(str(DEFAULT_SEED), label="Seed", elem_id="compare-seed",
                                  info="12345 is sacreBLEU's; none = fresh randomness")
            count_ties = gr.Checkbox(False, label="Count ties (the conservative p-value)", elem_id="compare-count-ties",
                                     info="off: sacreBLEU's p-value, which leaves out the resamples or trials that tie "
                                          "the observed difference")
            options = options_panel("compare-")
            button = gr.Button("Compare systems", variant="primary", elem_id="compare-button")
        with gr.Column(scale=7, min_width=320):
            status = gr.Markdown("", visible=False, elem_id="compare-status")
            table = gr.HTML("", elem_id="compare-table")
            plot = gr.HTML("", elem_id="compare-plot-view")
            caption = gr.Markdown("", elem_id="compare-caption")
            against = gr.Dropdown([], value=None, label="Segments that differ most from the baseline, for",
                                  elem_id="compare-against")
            differences = gr.HTML("", elem_id="compare-differences")
    replace_on_upload(system_files)
    replace_on_upload(reference_files)
    text_tab.select(lambda: SOURCE_TEXT, None, source, api_visibility="private", queue=False)
    files_tab.select(lambda: SOURCE_FILES, None, source, api_visibility="private", queue=False)
    menu = dict(fn=baseline_choices, inputs=[source, systems_box, system_files, baseline], outputs=baseline,
                api_visibility="private", queue=False)
    systems_box.blur(**menu)
    system_files.change(**menu)
    source.change(**menu)
    method.change(default_samples, method, samples, api_visibility="private", queue=False)
    pasted = [systems_box._id, references_box._id]

    def compare_click(request: gr.Request, *inputs):
        """Compare, then drop Gradio's per-session copy of the pasted text (space/session_memory.py)."""
        outputs = run_compare(*inputs)
        forget_inputs(request, pasted)
        return outputs

    button.click(compare_click, [stored, source, systems_box, references_box, system_files, reference_files, baseline,
                                 method, samples, seed, count_ties, *options.inputs],
                 [status, table, plot, against, differences, caption, stored], api_visibility="private")
    against.input(show_differences, [stored, against], differences, api_visibility="private")

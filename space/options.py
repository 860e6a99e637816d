"""The scoring options as a panel of widgets, built once per tab, and what they say in words.

Each tab that scores builds its own panel (`options_panel`), so an example clicked on one tab never
changes what another tab scores with. The panel's header always states the options in force (it
is rewritten whenever one changes, by a click, an example or the Reset button), and the score card
repeats them, so a number is never shown without the options that made it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Tuple

import gradio as gr

from bleukit.options import BleuOptions, resolve_options
from bleukit.scoring import SMOOTHING_DEFAULTS
from bleukit.tokenizers.registry import TOKENIZERS, unavailable_reason

from .inputs import INPUT_ERRORS, option_kwargs

# Labels for the tokenizer menu; a tokenizer without one is listed by its name, so a new tokenizer in
# bleukit.tokenizers.registry.TOKENIZERS appears in the menu without touching this file. "spm" is flores101's old
# name, left out of the menu. An entry whose optional package or model file is missing here says so
# (choosing it shows the error, with the pip line or the model's source).
TOKENIZER_LABELS = {
    "13a": "13a (WMT default)",
    "none": "none (spaces only)",
    "intl": "intl (Unicode)",
    "zh": "zh (Chinese)",
    "char": "char (characters)",
    "ja-mecab": "ja-mecab (Japanese, MeCab)",
    "ko-mecab": "ko-mecab (Korean, MeCab-ko)",
    "flores101": "flores101 (spBLEU, FLORES-101)",
    "flores200": "flores200 (spBLEU, FLORES-200)",
    "spBLEU-1K": "spBLEU-1K (spBLEU, 1K languages)",
}
MENU_LEFT_OUT = {"spm"}


def _tokenizer_choice(name: str) -> Tuple[str, str]:
    label = TOKENIZER_LABELS.get(name, name)
    reason = unavailable_reason(name)
    return (label if reason is None else f"{label} — {reason}", name)


TOKENIZER_CHOICES: List[Tuple[str, str]] = [_tokenizer_choice(name) for name in TOKENIZERS if name not in MENU_LEFT_OUT]
SMOOTH_CHOICES = [
    ("none", "none"),
    ("floor (sacreBLEU)", "floor"),
    ("add-k (sacreBLEU)", "add-k"),
    ("exp (sacreBLEU / mteval)", "exp"),
    *[(f"{name} (Chen & Cherry)", name) for name in sorted(n for n in SMOOTHING_DEFAULTS if n.startswith("method"))],
    ("add-one (legacy evaluate smooth=True)", "add-one"),
]
assert {value for _, value in SMOOTH_CHOICES} == set(SMOOTHING_DEFAULTS)

# The form's values for the metric's defaults, in option_kwargs' order:
# tokenizer, lowercase, max order, weights, smooth, smooth value, ref length, effective order.
DEFAULT_FORM: Tuple[Any, ...] = ("13a", False, 4, "", "none", "", "closest", False)
DEFAULTS = resolve_options(**option_kwargs(*DEFAULT_FORM))
SENTENCE_LEVEL_SMOOTHERS = {"method5", "method7"}


def describe(options: BleuOptions) -> str:
    """The options in words, the metric's defaults first: `13a, order 4, no smoothing`, then what differs."""
    parts = [f"tokenizer {options.tokenizer.signature()}"]
    if options.weights != tuple([1.0 / options.max_order] * options.max_order):
        parts.append("weights " + " ".join(f"{w:g}" for w in options.weights) + f" (order {options.max_order})")
    else:
        parts.append(f"order {options.max_order}")
    if options.smooth == "none":
        parts.append("no smoothing")
    else:
        value = "" if options.smooth_value is None else f" {options.smooth_value:g}"
        parts.append(f"smoothing {options.smooth}{value}")
    if options.lowercase:
        parts.append("lowercased")
    if options.ref_length != DEFAULTS.ref_length:
        parts.append(f"{options.ref_length} reference length")
    if options.effective_order:
        parts.append("effective order")
    return ", ".join(parts)


def is_default(options: BleuOptions) -> bool:
    return options.signature(1) == DEFAULTS.signature(1)


def options_header(*form: Any) -> str:
    """The panel's title for the form's current values (or what is wrong with them)."""
    try:
        options = resolve_options(**option_kwargs(*form))
    except INPUT_ERRORS as error:
        return f"Options: ⚠️ {error}"
    if is_default(options):
        return f"Options: {describe(options)} (the defaults)"
    return f"Options: {describe(options)} (changed from the defaults)"


def smooth_value_hint(method: str) -> Tuple[gr.Textbox, gr.Markdown]:
    """The value box follows the method (editable with its default shown, or locked), and the
    sentence-level smoothers say what they do to a corpus score. Run on every change of method
    (a click, an example, Reset), it leaves an editable box's value alone, so an example's own value
    stays; a visitor's own choice of method also empties the box (`method_chosen`)."""
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


def method_chosen(method: str) -> gr.Textbox:
    """A visitor chose a smoothing method: the value box is emptied, so the placeholder's default
    ("blank = default 5") is what is shown and what is scored. Why: a value typed for one method
    (floor's 0.2) means something else to another (method4's k = 0.2 gave BLEU 1.0002)."""
    default = SMOOTHING_DEFAULTS.get(method)
    if default is None:
        return gr.Textbox(value="", interactive=False, placeholder=f"{method} takes no value")
    return gr.Textbox(value="", interactive=True, placeholder=f"blank = default {default:g}")


@dataclass
class OptionsPanel:
    """One tab's option widgets; `inputs` is their order for `option_kwargs`."""

    accordion: gr.Accordion
    tokenizer: gr.Dropdown
    lowercase: gr.Checkbox
    max_order: gr.Number
    weights: gr.Textbox
    smooth: gr.Dropdown
    smooth_value: gr.Textbox
    ref_length: gr.Radio
    effective_order: gr.Checkbox
    reset: gr.Button

    @property
    def inputs(self) -> list:
        return [self.tokenizer, self.lowercase, self.max_order, self.weights, self.smooth, self.smooth_value,
                self.ref_length, self.effective_order]


def reset_form():
    """The Reset button: every option back to the metric's default (the header follows)."""
    return DEFAULT_FORM


def options_panel(prefix: str) -> OptionsPanel:
    """The options in a collapsed panel whose title states them; `prefix` keeps element ids unique."""
    with gr.Accordion(options_header(*DEFAULT_FORM), open=False, elem_id=f"{prefix}options",
                      elem_classes=["options-panel"]) as accordion:
        with gr.Row():
            tokenizer = gr.Dropdown(TOKENIZER_CHOICES, value=DEFAULT_FORM[0], label="Tokenizer",
                                    elem_id=f"{prefix}tokenizer")
            ref_length = gr.Radio(
                [("closest", "closest"), ("shortest", "shortest")], value=DEFAULT_FORM[6],
                label="Reference length", info="closest to c (paper) or shortest", elem_id=f"{prefix}ref-length",
            )
        with gr.Row():
            max_order = gr.Number(DEFAULT_FORM[2], label="Max n-gram order (1–8)", precision=None,
                                  elem_id=f"{prefix}max-order", info="what was scored is shown here after Score")
            weights = gr.Textbox(label="Weights (optional)", placeholder="e.g. 0.5, 0.5", elem_id=f"{prefix}weights",
                                 info="blank = uniform 1/N; their count sets the order")
        with gr.Row():
            smooth = gr.Dropdown(SMOOTH_CHOICES, value=DEFAULT_FORM[4], label="Smoothing", elem_id=f"{prefix}smooth")
            smooth_value = gr.Textbox("", label="Smoothing value", placeholder="none takes no value",
                                      interactive=False, elem_id=f"{prefix}smooth-value")
        smooth_note = gr.Markdown("", visible=False, elem_id=f"{prefix}smooth-note")
        with gr.Row():
            lowercase = gr.Checkbox(DEFAULT_FORM[1], label="Lowercase", elem_id=f"{prefix}lowercase")
            effective_order = gr.Checkbox(DEFAULT_FORM[7], label="Effective order (sentence-level)",
                                          elem_id=f"{prefix}effective-order")
            reset = gr.Button("Reset options", size="sm", elem_id=f"{prefix}reset-options", scale=0)
    panel = OptionsPanel(accordion, tokenizer, lowercase, max_order, weights, smooth, smooth_value, ref_length,
                         effective_order, reset)
    smooth.change(smooth_value_hint, smooth, [smooth_value, smooth_note], api_visibility="private")
    smooth.input(method_chosen, smooth, smooth_value, api_visibility="private", queue=False)
    for widget in panel.inputs:  # the header follows every change, whoever made it
        widget.change(lambda *form: gr.Accordion(label=options_header(*form)), panel.inputs, accordion,
                      api_visibility="private", queue=False)
    reset.click(reset_form, None, panel.inputs, api_visibility="private", queue=False)
    return panel


def panel_update(form: Dict[str, Any] | Tuple[Any, ...], open_panel: bool) -> gr.Accordion:
    """The panel's title for `form`, opened when an example changed the options from the defaults."""
    header = options_header(*form)
    return gr.Accordion(label=header, open=True) if open_panel else gr.Accordion(label=header)

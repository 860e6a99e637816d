"""The Hugging Face Space demo: score a corpus with BLEU and see why a segment scores what it does.

Run `python app.py` (serves http://127.0.0.1:7860; `--port N` or GRADIO_SERVER_PORT picks another
port, GRADIO_SERVER_NAME another address, as on Spaces). Everything BLEU goes through `bleu_core`
(scores and statistics) and `bleu_explain` (the clipping tables); this file only reads inputs and
lays out the page.

Text input format: predictions one segment per line; references one line per segment, and for
several references per segment, several reference sets separated by a line holding only `---`.
"""

from __future__ import annotations

import argparse
import html
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

# Set before gradio is imported: no usage analytics, no version check over the network.
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

import gradio as gr  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from bleu_core import result_from_statistics, statistics_of_inputs  # noqa: E402
from bleu_explain import (  # noqa: E402
    SegmentExplanation,
    bleu_arithmetic,
    brevity_penalty_arithmetic,
    explain_segment,
    precision_arithmetic,
    reference_length_choice,
)
from bleu_inputs import reference_counts  # noqa: E402
from bleu_options import BleuOptions, resolve_options  # noqa: E402
from bleu_scoring import SMOOTHING_DEFAULTS  # noqa: E402
from bleu_tokenizers import TOKENIZERS  # noqa: E402

REFERENCE_SET_SEPARATOR = "---"
SOURCE_TEXT, SOURCE_FILES = "text", "files"
EXAMPLES_DIR = Path(__file__).resolve().parent / "examples" / "app"
# Rows of the per-segment table sent to the browser: enough for any test set, bounded for huge ones.
MAX_TABLE_ROWS = 20000

TOKENIZER_CHOICES = [
    ("13a (WMT default)", "13a"),
    ("none (spaces only)", "none"),
    ("intl (Unicode)", "intl"),
    ("zh (Chinese)", "zh"),
    ("char (characters)", "char"),
]
assert {value for _, value in TOKENIZER_CHOICES} == set(TOKENIZERS)
SMOOTH_CHOICES = [
    ("none", "none"),
    ("floor (sacreBLEU)", "floor"),
    ("add-k (sacreBLEU)", "add-k"),
    ("exp (sacreBLEU / mteval)", "exp"),
    *[(f"{name} (Chen & Cherry)", name) for name in sorted(n for n in SMOOTHING_DEFAULTS if n.startswith("method"))],
    ("add-one (legacy evaluate smooth=True)", "add-one"),
]
assert {value for _, value in SMOOTH_CHOICES} == set(SMOOTHING_DEFAULTS)


# ---------------------------------------------------------------- reading inputs


def split_lines(text: Optional[str]) -> List[str]:
    """Lines of pasted text; trailing blank lines (an artefact of pasting) are dropped."""
    lines = (text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def parse_reference_sets(text: Optional[str]) -> List[List[str]]:
    """Reference sets from the text box: blocks of lines separated by a line holding only `---`."""
    sets: List[List[str]] = [[]]
    for line in (text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line.strip() == REFERENCE_SET_SEPARATOR:
            sets.append([])
        else:
            sets[-1].append(line)
    sets = [split_lines("\n".join(block)) for block in sets]
    return [block for block in sets if block]


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def references_per_segment(reference_sets: Sequence[Sequence[str]], num_segments: int) -> List[List[str]]:
    """Turn reference sets (one line per segment each) into one list of references per segment."""
    if not reference_sets:
        raise ValueError(
            "references are empty; paste one reference line per prediction (several reference sets "
            f"separated by a line with only {REFERENCE_SET_SEPARATOR})"
        )
    for number, block in enumerate(reference_sets, start=1):
        if len(block) != num_segments:
            raise ValueError(
                f"reference set {number} has {_lines(len(block))} but there are {num_segments} predictions; "
                f"every reference set needs one line per prediction (separate sets with a line "
                f"holding only {REFERENCE_SET_SEPARATOR})"
            )
    return [list(group) for group in zip(*reference_sets)]


def read_lines_file(path: Any, what: str) -> List[str]:
    """One segment per line of an uploaded UTF-8 text file (a final newline ends the last line)."""
    name = getattr(path, "name", path)
    try:
        text = Path(name).read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{what} {Path(name).name!r} is not UTF-8 text (byte {error.start}); save it as UTF-8 plain text"
        ) from None
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def load_inputs(
    source: str, predictions_text: str, references_text: str, hypothesis_file: Any, reference_files: Any
) -> Tuple[List[str], List[List[str]]]:
    """Predictions and per-segment reference lists from the pasted text or the uploaded files."""
    if source == SOURCE_FILES:
        if not hypothesis_file:
            raise ValueError("no hypothesis file uploaded; upload one file with one prediction per line")
        if not reference_files:
            raise ValueError("no reference file uploaded; upload one or more files, one reference per line each")
        files = reference_files if isinstance(reference_files, (list, tuple)) else [reference_files]
        predictions = read_lines_file(hypothesis_file, "hypothesis file")
        sets = [read_lines_file(path, f"reference file {i}") for i, path in enumerate(files, start=1)]
    else:
        predictions = split_lines(predictions_text)
        sets = parse_reference_sets(references_text)
    if not predictions:
        raise ValueError("predictions are empty; paste one prediction per line (or upload a hypothesis file)")
    return predictions, references_per_segment(sets, len(predictions))


def parse_weights(text: Optional[str]) -> Optional[List[float]]:
    """`0.5, 0.5` or `0.5 0.5` -> [0.5, 0.5]; blank -> None (uniform weights over max order)."""
    items = (text or "").replace(",", " ").split()
    if not items:
        return None
    try:
        return [float(item) for item in items]
    except ValueError:
        raise ValueError(
            f"weights {text.strip()!r} are not numbers; write one number per order, e.g. 0.5, 0.5"
        ) from None


def option_kwargs(
    tokenizer: str,
    lowercase: bool,
    max_order: Any,
    weights_text: str,
    smooth: str,
    smooth_value: Any,
    ref_length: str,
    effective_order: bool,
) -> Dict[str, Any]:
    """The metric's keyword options from the form: weights, when given, set the order."""
    weights = parse_weights(weights_text)
    kwargs: Dict[str, Any] = {
        "tokenizer": tokenizer,
        "lowercase": bool(lowercase),
        "smooth": smooth,
        "ref_length": ref_length,
        "effective_order": bool(effective_order),
    }
    if weights is not None:
        kwargs["weights"] = weights
    else:
        kwargs["max_order"] = int(max_order)
    value_text = "" if smooth_value is None else str(smooth_value).strip()
    if value_text:
        try:
            kwargs["smooth_value"] = float(value_text)
        except ValueError:
            raise ValueError(
                f"smoothing value {value_text!r} is not a number; write e.g. 0.1, or leave it blank for the default"
            ) from None
    return kwargs


# ---------------------------------------------------------------- scoring


@dataclass
class ScoredCorpus:
    """A scored corpus, kept between clicks so explain mode can reuse its statistics."""

    predictions: List[str]
    references: List[List[str]]
    options: BleuOptions
    stats: np.ndarray
    result: Dict[str, Any]  # the metric's result, with sentence_bleu


def score_corpus(predictions: Sequence[str], references: Sequence[Sequence[str]], kwargs: Dict[str, Any]) -> ScoredCorpus:
    """Score through the core: the same statistics and result the metric module returns."""
    preds, refs = list(predictions), [list(r) for r in references]
    stats, num_refs, options = statistics_of_inputs(preds, refs, resolve_options(**kwargs), kind="text")
    result = result_from_statistics(stats, options, num_refs, return_sentence_scores=True)
    return ScoredCorpus(preds, refs, options, stats, result)


def metric_result(scored: ScoredCorpus) -> Dict[str, Any]:
    """What `evaluate.load(...).compute(...)` returns for these inputs (no per-segment list)."""
    return {key: value for key, value in scored.result.items() if key != "sentence_bleu"}


def precision_frame(scored: ScoredCorpus) -> pd.DataFrame:
    """Bars for the chart: one per n-gram precision, one for the brevity penalty."""
    result = scored.result
    rows = [(f"{n}-gram precision", p, "precision") for n, p in enumerate(result["precisions"], start=1)]
    rows.append(("brevity penalty", result["brevity_penalty"], "brevity penalty"))
    return pd.DataFrame(rows, columns=["measure", "value", "kind"])


def segments_frame(scored: ScoredCorpus) -> pd.DataFrame:
    """The per-segment table: sentence BLEU, lengths and text, sortable in the page."""
    count = min(len(scored.predictions), MAX_TABLE_ROWS)
    stats = scored.stats[:count]
    return pd.DataFrame(
        {
            "#": np.arange(1, count + 1),
            "BLEU": np.round(scored.result["sentence_bleu"][:count], 4),
            "hyp len": stats[:, 0],
            "ref len": stats[:, 1],
            "prediction": scored.predictions[:count],
            "reference 1": [group[0] for group in scored.references[:count]],
        }
    )


# ---------------------------------------------------------------- rendering


def _format(value: float, digits: int = 4) -> str:
    return f"{value:.{digits}f}"


def score_html(scored: ScoredCorpus) -> str:
    """The headline: BLEU large, with the numbers it is made of beneath."""
    result = scored.result
    bleu = result["bleu"]
    num_refs = reference_counts(scored.references)
    refs = str(num_refs[0]) if min(num_refs) == max(num_refs) else f"{min(num_refs)}–{max(num_refs)}"
    segments = len(scored.predictions)
    width = max(0.0, min(1.0, bleu)) * 100
    return f"""
<div class="bleu-card" id="bleu-score" data-bleu="{bleu!r}">
  <div class="bleu-head">
    <div>
      <div class="bleu-caption">BLEU</div>
      <div class="bleu-value" id="bleu-value">{_format(bleu)}</div>
      <div class="bleu-scale">{bleu * 100:.2f} on sacreBLEU's 0–100 scale</div>
    </div>
    <div class="bleu-facts">
      <div><span>segments</span><b>{segments:,}</b></div>
      <div><span>references / segment</span><b>{refs}</b></div>
      <div><span>brevity penalty</span><b>{_format(result["brevity_penalty"])}</b></div>
      <div><span>length ratio c/r</span><b>{_format(result["length_ratio"])}</b></div>
      <div><span>hypothesis length c</span><b>{result["translation_length"]:,}</b></div>
      <div><span>reference length r</span><b>{result["reference_length"]:,}</b></div>
    </div>
  </div>
  <div class="bleu-meter"><div style="width:{width:.2f}%"></div></div>
</div>"""


def placeholder_html(message: str) -> str:
    return f'<div class="bleu-card bleu-empty">{html.escape(message)}</div>'


def _tokens_html(tokens: Sequence[str]) -> str:
    if not tokens:
        return '<span class="tok-empty">(empty)</span>'
    return "".join(f'<span class="tok">{html.escape(t)}</span>' for t in tokens)


def _order_table_html(table, weight: Optional[float]) -> str:
    rows = []
    for item in table.rows:
        css = "clip-full" if item.clipped == item.count else ("clip-none" if item.clipped == 0 else "clip-part")
        rows.append(
            f'<tr class="{css}"><td class="ng">{html.escape(item.text)}</td><td>{item.count}</td>'
            f"<td>{item.max_ref_count}</td><td><b>{item.clipped}</b></td></tr>"
        )
    if not rows:
        rows.append('<tr><td colspan="4" class="tok-empty">no n-grams of this order</td></tr>')
    weight_note = "" if weight is None else f' <span class="weight">w = {weight:g}</span>'
    return f"""
<div class="ngram-table">
  <div class="ngram-title">{table.order}-grams{weight_note}</div>
  <table>
    <thead><tr><th>n-gram</th><th title="times in the prediction">count</th><th title="most times in any one reference">max ref</th><th title="min(count, max ref)">clipped</th></tr></thead>
    <tbody>{''.join(rows)}</tbody>
    <tfoot><tr><td>sum</td><td>{table.total}</td><td></td><td><b>{table.clipped_total}</b></td></tr></tfoot>
  </table>
  <div class="ngram-precision">{html.escape(precision_arithmetic(table))}</div>
</div>"""


def explanation_html(explanation: SegmentExplanation, segment_number: int) -> str:
    """Explain mode: tokens, one clipping table per order, then precisions, BP and BLEU."""
    options = explanation.options
    references = "".join(
        f'<div class="tok-line"><span class="tok-label">reference {i} ({len(tokens)})</span>{_tokens_html(tokens)}</div>'
        for i, tokens in enumerate(explanation.reference_tokens, start=1)
    )
    tables = []
    for table in explanation.tables:
        if table.precision is None and table.total == 0:
            continue
        weight = options.weights[table.order - 1] if table.order <= options.max_order else None
        tables.append(_order_table_html(table, weight))
    steps = [precision_arithmetic(t) for t in explanation.tables[: options.max_order]]
    return f"""
<div class="explain" id="explain-view">
  <div class="explain-head">Segment {segment_number}: sentence BLEU
    <b id="explain-bleu">{explanation.score.bleu:.4f}</b>
    <span class="explain-sig">tokenizer {html.escape(options.tokenizer.signature())}{', lowercased' if options.lowercase else ''}</span>
  </div>
  <div class="tok-line"><span class="tok-label">prediction ({len(explanation.prediction_tokens)})</span>{_tokens_html(explanation.prediction_tokens)}</div>
  {references}
  <p class="explain-help">Each n-gram of the prediction counts at most as many times as it appears in the one
  reference that has it most often: clipped = min(count, max ref count). The clipped sum over the
  prediction's n-gram total is the modified precision p<sub>n</sub>.
  <span class="legend"><span class="clip-full">fully matched</span><span class="clip-part">clipped</span><span class="clip-none">no match</span></span></p>
  <div class="ngram-grid">{''.join(tables)}</div>
  <div class="explain-steps">
    <div><span>1 · modified precisions</span>{html.escape('   '.join(steps))}</div>
    <div><span>2 · reference length</span>{html.escape(reference_length_choice(explanation))}</div>
    <div><span>3 · brevity penalty</span>{html.escape(brevity_penalty_arithmetic(explanation))}</div>
    <div><span>4 · BLEU</span>{html.escape(bleu_arithmetic(explanation))}</div>
  </div>
</div>"""


def explain_number(scored: Optional[ScoredCorpus], segment_number: Any) -> str:
    """Explain segment `segment_number` (1-based) of the last scored corpus, as HTML."""
    if scored is None:
        return placeholder_html("Score something first, then pick a segment to explain.")
    try:
        number = int(segment_number)
    except (TypeError, ValueError):
        number = 0
    if not 1 <= number <= len(scored.predictions):
        return placeholder_html(f"Pick a segment between 1 and {len(scored.predictions)}.")
    index = number - 1
    explanation = explain_segment(
        scored.predictions[index], scored.references[index], scored.options, row=scored.stats[index]
    )
    return explanation_html(explanation, number)


# ---------------------------------------------------------------- event handlers



def run_score(source, predictions_text, references_text, hypothesis_file, reference_files, *options):
    """Score button: every output of the page, or the core's message in the status line."""
    try:
        predictions, references = load_inputs(
            source, predictions_text, references_text, hypothesis_file, reference_files
        )
        scored = score_corpus(predictions, references, option_kwargs(*options))
        explained = explain_number(scored, 1)
    except (ValueError, TypeError, OSError) as error:
        message = f"⚠️ **Cannot score:** {error}"
        return (
            gr.Markdown(message, visible=True), placeholder_html("No score: fix the input above."),
            None, "", pd.DataFrame(), {}, None, 1,
            placeholder_html("No segment to explain yet."),
        )
    top = max(1.0, *scored.result["precisions"])
    return (
        gr.Markdown("", visible=False),
        score_html(scored),
        gr.BarPlot(precision_frame(scored), y_lim=[0, top]),
        scored.result["signature"],
        segments_frame(scored),
        metric_result(scored),
        scored,
        1,
        explained,
    )


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


def smooth_value_hint(method: str):
    """The value box follows the method: editable with its default shown, or locked."""
    default = SMOOTHING_DEFAULTS.get(method)
    if default is None:
        return gr.Textbox(value="", interactive=False, placeholder=f"{method} takes no value")
    return gr.Textbox(interactive=True, placeholder=f"blank = default {default:g}")


# ---------------------------------------------------------------- examples

SEED_REFS = "the cat is on the mat\n---\nthere is a cat on the mat"
PAPER_REFS = (
    "It is a guide to action that ensures that the military will forever heed Party commands\n"
    "It is a guide to action that ensures that the military will forever heed Party commands\n---\n"
    "It is the guiding principle which guarantees the military forces always being under the command of the Party\n"
    "It is the guiding principle which guarantees the military forces always being under the command of the Party\n---\n"
    "It is the practical guide for the army always to heed the directions of the party\n"
    "It is the practical guide for the army always to heed the directions of the party"
)
# predictions, references, tokenizer, lowercase, max order, weights, smooth, smooth value, ref length, effective order
EXAMPLES: List[Tuple[str, list]] = [
    ("the cat the cat on the mat → 0.467 (clipping)",
     ["the cat the cat on the mat", SEED_REFS, "none", False, 4, "", "none", "", "closest", False]),
    ("the the the … → p1 = 2/8, BLEU 0",
     ["the the the the the the the the", SEED_REFS, "none", False, 4, "", "none", "", "closest", False]),
    ("Paper: Candidate 1 vs 2 (p1 17/18 vs 8/14)",
     ["It is a guide to action which ensures that the military always obeys the commands of the party\n"
      "It is to insure the troops forever hearing the activity guidebook that party direct",
      PAPER_REFS, "none", True, 4, "", "none", "", "closest", False]),
    ("evaluate docs: coffee, shortest ref → 0.7017",
     ["A bold, full-flavored coffee with a slightly bitter aftertaste.",
      "A bold, flavorful coffee with a slightly bitter aftertaste.\n---\nA rich, full-bodied coffee with a smooth finish.",
      "13a", False, 4, "", "none", None, "shortest", False]),
    ("you are ready ? → 0 unsmoothed",
     ["you are ready ?", "are you ready ?", "none", False, 4, "", "none", "", "closest", False]),
    ("you are ready ? with method7 smoothing",
     ["you are ready ?", "are you ready ?", "none", False, 4, "", "method7", "", "closest", False]),
    ("Too short: brevity penalty exp(1 − 6/5)",
     ["the cat sat on the", "the cat sat on the mat", "none", False, 4, "", "none", "", "closest", False]),
    ("Bigram BLEU, weights 0.5 0.5, lowercased",
     ["I really loved reading the Hunger Games.", "I loved reading the Hunger Games.",
      "13a", True, 4, "0.5, 0.5", "none", "", "closest", False]),
]


# ---------------------------------------------------------------- page

CSS = """
#title h1 { font-size: 2.1rem; margin-bottom: 0.1rem; }
#title p { color: var(--body-text-color-subdued); margin-top: 0.2rem; }
#status { border-left: 4px solid #dc2626; background: rgba(220,38,38,0.08); padding: 0.6rem 0.9rem; border-radius: 6px; }
.bleu-card { border: 1px solid var(--border-color-primary); border-radius: 14px; padding: 1.1rem 1.4rem;
  background: linear-gradient(135deg, rgba(99,102,241,0.10), rgba(16,185,129,0.06)); }
.bleu-empty { color: var(--body-text-color-subdued); text-align: center; padding: 2.2rem 1rem; font-size: 1.05rem; }
.bleu-head { display: flex; gap: 2rem; align-items: center; flex-wrap: wrap; }
.bleu-caption { font-size: 0.85rem; letter-spacing: 0.18em; font-weight: 700; color: var(--body-text-color-subdued); }
.bleu-value { font-size: 4.2rem; line-height: 1.05; font-weight: 800; color: #4f46e5; font-variant-numeric: tabular-nums; }
.dark .bleu-value { color: #a5b4fc; }
.bleu-scale { color: var(--body-text-color-subdued); font-size: 0.9rem; }
.bleu-facts { display: grid; grid-template-columns: repeat(3, minmax(120px, 1fr)); gap: 0.5rem 1.2rem; flex: 1; }
.bleu-facts div { display: flex; flex-direction: column; }
.bleu-facts span { font-size: 0.75rem; color: var(--body-text-color-subdued); text-transform: uppercase; letter-spacing: 0.04em; }
.bleu-facts b { font-size: 1.15rem; font-variant-numeric: tabular-nums; }
.bleu-meter { margin-top: 0.9rem; height: 8px; border-radius: 4px; background: rgba(99,102,241,0.15); overflow: hidden; }
.bleu-meter div { height: 100%; background: linear-gradient(90deg, #6366f1, #10b981); }
.explain { font-size: 0.95rem; }
.explain-head { font-size: 1.15rem; margin-bottom: 0.6rem; }
.explain-head b { font-size: 1.5rem; color: #4f46e5; margin: 0 0.4rem; }
.dark .explain-head b { color: #a5b4fc; }
.explain-sig { font-size: 0.8rem; color: var(--body-text-color-subdued); }
.tok-line { margin: 0.25rem 0; line-height: 2; }
.tok-label { display: inline-block; min-width: 9.5rem; font-size: 0.8rem; color: var(--body-text-color-subdued); }
.tok { display: inline-block; padding: 0 0.45rem; margin: 0 0.15rem; border-radius: 5px; line-height: 1.6;
  background: var(--background-fill-secondary); border: 1px solid var(--border-color-primary); font-family: var(--font-mono); font-size: 0.85rem; }
.tok-empty { color: var(--body-text-color-subdued); font-style: italic; }
.explain-help { color: var(--body-text-color-subdued); font-size: 0.88rem; margin: 0.6rem 0; }
.legend span { margin-left: 0.6rem; padding: 0.05rem 0.45rem; border-radius: 4px; }
.ngram-grid { display: flex; flex-wrap: wrap; gap: 0.9rem; align-items: flex-start; }
.ngram-grid > .ngram-table { flex: 1 1 auto; min-width: 250px; max-width: 100%; }
.ngram-table { border: 1px solid var(--border-color-primary); border-radius: 10px; padding: 0.6rem 0.7rem; background: var(--background-fill-primary); }
.ngram-title { font-weight: 700; margin-bottom: 0.3rem; }
.ngram-title .weight { font-weight: 400; font-size: 0.8rem; color: var(--body-text-color-subdued); margin-left: 0.4rem; }
.ngram-table { overflow-x: auto; }
.ngram-table table { width: 100%; border-collapse: collapse; font-size: 0.85rem; margin: 0; border: none !important; }
.ngram-table thead, .ngram-table tbody, .ngram-table tfoot, .ngram-table tr, .ngram-table th, .ngram-table td { border: none !important; }
.ngram-table th { text-align: right; font-weight: 600; font-size: 0.72rem; color: var(--body-text-color-subdued); padding: 0.15rem 0.3rem; white-space: nowrap; }
.ngram-table th:first-child, .ngram-table td.ng { text-align: left; }
.ngram-table td { text-align: right; padding: 0.15rem 0.4rem; border-top: 1px solid var(--border-color-primary) !important; font-variant-numeric: tabular-nums; }
.ngram-table td.ng { font-family: var(--font-mono); font-size: 0.8rem; white-space: nowrap; width: 99%; }
.ngram-table th:not(:first-child), .ngram-table td:not(.ng) { width: 1%; white-space: nowrap; }
.ngram-table tfoot td { font-weight: 600; border-top: 2px solid var(--border-color-primary) !important; }
.clip-full { background: rgba(16,185,129,0.13); }
.clip-part { background: rgba(245,158,11,0.18); }
.clip-none { background: rgba(220,38,38,0.10); }
.ngram-precision { margin-top: 0.4rem; font-weight: 600; font-family: var(--font-mono); font-size: 0.85rem; }
.explain-steps { margin-top: 1rem; display: flex; flex-direction: column; gap: 0.45rem; font-family: var(--font-mono); font-size: 0.86rem; }
.explain-steps div { padding: 0.45rem 0.7rem; border-radius: 8px; background: var(--background-fill-secondary); white-space: pre-wrap; }
.explain-steps span { display: block; font-family: var(--font-sans); font-size: 0.72rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--body-text-color-subdued); }
#score-button { font-size: 1.1rem; }
"""

INTRO = """
# BLEU — score translations, and see why
Corpus BLEU with every option of the metric, per-segment scores, and an **explain mode** that opens the
clipping tables the BLEU paper draws by hand. Same numbers as `evaluate.load("bleu_metric.py")` and sacreBLEU.
"""

FORMAT_HELP = f"""
**Format.** Predictions: one segment per line. References: one line per segment; for several references per
segment, paste several *reference sets* separated by a line holding only `{REFERENCE_SET_SEPARATOR}`
(like several reference files). Files: one hypothesis file and one or more reference files, UTF-8, one segment per line.
"""


def build_demo() -> gr.Blocks:
    """The page; nothing is launched here, so tests can build it cheaply."""
    with gr.Blocks(title="BLEU — score and explain") as demo:
        gr.Markdown(INTRO, elem_id="title")
        scored_state = gr.State(None)
        source_state = gr.State(SOURCE_TEXT)
        with gr.Row(equal_height=False):
            with gr.Column(scale=5, min_width=360) as input_column:
                with gr.Tabs(selected=SOURCE_TEXT) as input_tabs:
                    with gr.Tab("Paste text", id=SOURCE_TEXT) as text_tab:
                        predictions_box = gr.Textbox(
                            label="Predictions (one segment per line)", lines=5, max_lines=14,
                            placeholder="the cat the cat on the mat", elem_id="predictions",
                        )
                        references_box = gr.Textbox(
                            label=f"References (one line per segment; reference sets separated by {REFERENCE_SET_SEPARATOR})",
                            lines=6, max_lines=18, elem_id="references",
                            placeholder=f"the cat is on the mat\n{REFERENCE_SET_SEPARATOR}\nthere is a cat on the mat",
                        )
                    with gr.Tab("Upload files", id=SOURCE_FILES) as files_tab:
                        hypothesis_file = gr.File(label="Hypothesis file (one prediction per line)", height=110, elem_id="hypothesis-file")
                        reference_files = gr.File(
                            label="Reference files (one or more)",
                            file_count="multiple", height=140, elem_id="reference-files",
                        )
                        gr.Examples(
                            examples=[[str(EXAMPLES_DIR / "paper_candidates.txt"),
                                       [str(EXAMPLES_DIR / f"paper_reference{i}.txt") for i in (1, 2, 3)]]],
                            inputs=[hypothesis_file, reference_files],
                            example_labels=["Paper: 2 candidates, 3 reference files"],
                            label="Example files",
                        )
                with gr.Accordion("Options", open=True):
                    with gr.Row():
                        tokenizer = gr.Dropdown(TOKENIZER_CHOICES, value="13a", label="Tokenizer")
                        ref_length = gr.Radio(
                            [("closest", "closest"), ("shortest", "shortest")], value="closest",
                            label="Reference length", info="closest to c (paper) or shortest",
                        )
                    with gr.Row():
                        max_order = gr.Slider(1, 8, value=4, step=1, label="Max n-gram order")
                        weights = gr.Textbox(
                            label="Weights (optional)", placeholder="e.g. 0.5, 0.5",
                            info="blank = uniform 1/N; their count sets the order",
                        )
                    with gr.Row():
                        smooth = gr.Dropdown(SMOOTH_CHOICES, value="none", label="Smoothing")
                        smooth_value = gr.Textbox(
                            "", label="Smoothing value", placeholder="none takes no value", interactive=False,
                        )
                    with gr.Row():
                        lowercase = gr.Checkbox(False, label="Lowercase")
                        effective_order = gr.Checkbox(False, label="Effective order (sentence-level)")
                score_button = gr.Button("Score", variant="primary", size="lg", elem_id="score-button")
            with gr.Column(scale=7, min_width=420):
                status = gr.Markdown("", visible=False, elem_id="status")
                score_view = gr.HTML(placeholder_html("Paste text or pick an example, then press Score."),
                                     elem_id="score-view", js_on_load=None)
                with gr.Tabs(selected="overview") as result_tabs:
                    with gr.Tab("Overview", id="overview"):
                        chart = gr.BarPlot(
                            None, x="measure", y="value", color="kind", y_lim=[0, 1], height=260, color_title="",
                            color_map={"precision": "#6366f1", "brevity penalty": "#10b981"},
                            x_title=" ", y_title=" ", label="Modified n-gram precisions and brevity penalty",
                            sort=None, x_label_angle=0, elem_id="chart",
                        )
                        signature = gr.Textbox(label="Signature (put it next to the score)", interactive=False,
                                               buttons=["copy"], elem_id="signature")
                    with gr.Tab("Per segment", id="segments"):
                        gr.Markdown("Sort with a column's ⋮ menu (e.g. lowest BLEU first); click a row to explain that segment.")
                        segments = gr.Dataframe(
                            pd.DataFrame(), interactive=False, max_height=420, elem_id="segments",
                            datatype=["number", "number", "number", "number", "str", "str"], wrap=False,
                            show_search="search", column_widths=["64px", "84px", "80px", "80px", "40%", "40%"],
                        )
                    with gr.Tab("Explain", id="explain", elem_id="explain-tab"):
                        with gr.Row():
                            segment_number = gr.Number(1, label="Segment #", precision=0, minimum=1, scale=1)
                            explain_button = gr.Button("Explain this segment", scale=2, elem_id="explain-button")
                        explain_view = gr.HTML(placeholder_html("Score something first, then pick a segment to explain."),
                                               elem_id="explain-html", js_on_load=None)
                    with gr.Tab("JSON", id="json"):
                        result_json = gr.JSON(label="Metric result (as evaluate returns it)", open=True)

        option_inputs = [tokenizer, lowercase, max_order, weights, smooth, smooth_value, ref_length, effective_order]
        score_outputs = [status, score_view, chart, signature, segments, result_json, scored_state,
                         segment_number, explain_view]
        with input_column:  # below the Score button, one click away
            gr.Examples(
                examples=[row for _, row in EXAMPLES],
                example_labels=[label for label, _ in EXAMPLES],
                inputs=[predictions_box, references_box, *option_inputs],
                outputs=[input_tabs, source_state, *score_outputs],
                fn=run_example, run_on_click=True, cache_examples=False,
                label="Examples from the BLEU tutorials: one click loads and scores", examples_per_page=8,
            )
            gr.Markdown(FORMAT_HELP, elem_id="format-help")

        text_tab.select(lambda: SOURCE_TEXT, None, source_state)
        files_tab.select(lambda: SOURCE_FILES, None, source_state)
        smooth.change(smooth_value_hint, smooth, smooth_value)
        score_inputs = [source_state, predictions_box, references_box, hypothesis_file, reference_files, *option_inputs]
        score_button.click(run_score, score_inputs, score_outputs, api_name="score")
        explain_button.click(run_explain, [scored_state, segment_number], explain_view)
        segment_number.submit(run_explain, [scored_state, segment_number], explain_view)
        segments.select(pick_segment, scored_state, [segment_number, explain_view, result_tabs])
    return demo


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the BLEU demo.")
    parser.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    args = parser.parse_args(argv)
    build_demo().launch(
        server_name=args.host, server_port=args.port, share=False, show_error=False,
        theme=gr.themes.Soft(primary_hue="indigo", secondary_hue="emerald"), css=CSS,
        footer_links=["gradio"],
    )


if __name__ == "__main__":
    main()

"""HTML for the score card and explain mode; every number comes from the core or space.explain."""

from __future__ import annotations

import html
from typing import AbstractSet, Any, Optional, Sequence

from space.explain import (
    MAX_TOKENS_COUNTED,
    SegmentExplanation,
    bleu_arithmetic,
    brevity_penalty_arithmetic,
    explain_segment,
    precision_arithmetic,
    reference_length_choice,
)
from bleukit.core import score

from .options import describe, is_default
from .scoring import ScoredCorpus, sentence_options


def _format(value: float, digits: int = 4) -> str:
    return f"{value:.{digits}f}"


SCALE_UNIT, SCALE_PERCENT = "0–1", "0–100"
# The page's scale toggle (one choice, on the Score and Diversity tabs, remembered in localStorage): every
# score is written on both scales, and data-bleu-scale on the page's tabs (always in the page, where a
# tab's own elements appear only once it is opened) picks one for every view (CSS in style.py).
SCALE_HOLDER = "#page-tabs"
SCALE_JS = """(scale) => {
  localStorage.setItem('bleu-scale', scale);
  const page = document.querySelector('%s');
  if (page) page.dataset.bleuScale = scale === '0–100' ? 'percent' : 'unit';
}""" % SCALE_HOLDER


def both_scales(value: float) -> str:
    """A score on both scales, as the CLI prints them: 0–1 with 4 digits, or 0–100 with 2 (sacreBLEU's
    -w 2); the page's scale toggle (data-bleu-scale on SCALE_HOLDER) shows one."""
    return f'<span class="scale-unit">{_format(value)}</span><span class="scale-percent">{100 * value:.2f}</span>'


def the_other_scale(value: float, percent_name: str = "the 0–100 scale") -> str:
    """A card's line under its large number: the same score on the scale the toggle does not show."""
    return (f'<span class="scale-unit">{100 * value:.2f} on {percent_name}</span>'
            f'<span class="scale-percent">{_format(value)} on the 0–1 scale</span>')


def bootstrap_mean_ci(result: dict) -> Optional[tuple]:
    """sacreBLEU's numbers for a bootstrap: the resamples' mean and the half-width of their 95%
    interval (`μ = mean ± ci`), or None without a bootstrap."""
    if "bleu_bootstrap_mean" not in result:
        return None
    return result["bleu_bootstrap_mean"], 0.5 * (result["bleu_ci_high"] - result["bleu_ci_low"])


def sacrebleu_line(result: dict) -> str:
    """sacreBLEU's one-line summary, e.g. `BLEU = 28.30 59.9/34.0/21.8/14.4 (BP = 1.000 ratio = 1.026 ...)`,
    with `(μ = 28.31 ± 0.68)` after the score when a bootstrap was drawn, as `str(corpus_score(...,
    n_bootstrap=N))` prints it."""
    precisions = "/".join(f"{100 * p:.1f}" for p in result["precisions"])
    interval = ""
    mean_ci = bootstrap_mean_ci(result)
    if mean_ci is not None and mean_ci[0] > 0:  # sacreBLEU prints it only for a positive mean
        interval = f" (μ = {100 * mean_ci[0]:.2f} ± {100 * mean_ci[1]:.2f})"
    return (
        f"BLEU = {100 * result['bleu']:.2f}{interval} {precisions} (BP = {result['brevity_penalty']:.3f} "
        f"ratio = {result['length_ratio']:.3f} hyp_len = {result['translation_length']:d} "
        f"ref_len = {result['reference_length']:d})"
    )


def _mean_ci_both_scales(mean: float, ci: float) -> str:
    return (f'<span class="scale-unit">μ = {mean:.4f} ± {ci:.4f}</span>'
            f'<span class="scale-percent">μ = {100 * mean:.2f} ± {100 * ci:.2f}</span>')


def score_html(scored: ScoredCorpus) -> str:
    """The headline: BLEU large on the chosen scale (0–1 or sacreBLEU's 0–100), the options that made
    it, and its parts beneath."""
    result = scored.result
    bleu = result["bleu"]
    shown = both_scales
    other = the_other_scale(bleu, "sacreBLEU's 0–100 scale")
    num_refs = scored.reference_counts
    refs = str(num_refs[0]) if num_refs.min() == num_refs.max() else f"{num_refs.min()}–{num_refs.max()}"
    width = max(0.0, min(1.0, bleu)) * 100
    interval = ""
    mean_ci = bootstrap_mean_ci(result)
    if mean_ci is not None:
        samples, seed = scored.bootstrap
        interval = (f'<div class="fact-wide"><span>bootstrap, {samples:,} resamples, seed {"none" if seed is None else seed}'
                    f'</span><b id="bleu-interval" title="95% interval {_format(result["bleu_ci_low"])}–'
                    f'{_format(result["bleu_ci_high"])}">{_mean_ci_both_scales(*mean_ci)}</b></div>')
    precisions = " / ".join(f"{100 * p:.1f}" for p in result["precisions"])
    changed = "" if is_default(scored.options) else ' <em class="options-changed">(not the defaults)</em>'
    return f"""
<div class="bleu-card" id="bleu-score" data-bleu="{bleu!r}">
  <div class="bleu-head">
    <div class="bleu-main">
      <div class="bleu-caption">BLEU</div>
      <div class="bleu-value" id="bleu-value">{shown(bleu)}</div>
      <div class="bleu-scale">{other}</div>
    </div>
    <div class="bleu-facts">
      <div><span>segments</span><b>{len(scored):,}</b></div>
      <div><span>references / segment</span><b>{refs}</b></div>
      <div class="fact-wide"><span>n-gram precisions (%)</span><b id="bleu-precisions">{precisions}</b></div>
      <div><span>brevity penalty</span><b>{_format(result["brevity_penalty"])}</b></div>
      <div><span>length ratio c/r</span><b>{_format(result["length_ratio"])}</b></div>
      <div><span>hypothesis length c</span><b>{result["translation_length"]:,}</b></div>
      <div><span>reference length r</span><b>{result["reference_length"]:,}</b></div>
      {interval}
    </div>
  </div>
  <div class="bleu-options" id="bleu-options">Scored with: {html.escape(describe(scored.options))}{changed}</div>
  <div class="bleu-meter"><div style="width:{width:.2f}%"></div></div>
</div>"""


def precision_chart_html(frame) -> str:
    """Bars for the modified precisions and the brevity penalty (a `precision_frame`), 0 to 1
    (up to the largest value when smoothing lifts one past 1)."""
    top = max(1.0, float(frame["value"].max()))
    bars = "".join(
        f'<div class="bar-row"><span class="bar-name">{html.escape(measure)}</span>'
        f'<div class="bar-track"><div class="bar bar-{"bp" if kind == "brevity penalty" else "p"}" '
        f'style="width:{100 * max(0.0, value) / top:.2f}%"></div></div><b class="bar-value">{value:.4f}</b></div>'
        for measure, value, kind in frame.itertuples(index=False)
    )
    return f'<div class="bar-chart" role="img" aria-label="Modified n-gram precisions and brevity penalty"><div class="bar-caption">Modified n-gram precisions and brevity penalty</div>{bars}</div>'


def placeholder_html(message: str) -> str:
    return f'<div class="bleu-card bleu-empty">{html.escape(message)}</div>'


# Explain mode shows at most this much of one segment, so the page stays small for any input
# (a 5 MB single-line segment would otherwise be hundreds of MB of HTML); the sums count everything.
MAX_TOKENS_SHOWN = 300
MAX_NGRAM_ROWS_SHOWN = 40


def _hidden_note(hidden: int, what: str) -> str:
    return f'<span class="hidden-note">… {hidden:,} more {what} not shown</span>' if hidden > 0 else ""


def _tokens_html(tokens: Sequence[str], matched: AbstractSet[str] = frozenset()) -> str:
    """The first MAX_TOKENS_SHOWN tokens; those the other side also has are marked as matched."""
    if not tokens:
        return '<span class="tok-empty">(empty)</span>'
    shown = "".join(
        f'<span class="tok{" tok-match" if token in matched else ""}">{html.escape(token)}</span>'
        for token in tokens[:MAX_TOKENS_SHOWN]
    )
    return shown + _hidden_note(len(tokens) - MAX_TOKENS_SHOWN, "tokens")


def _order_table_html(table, weight: Optional[float], counted: bool = True) -> str:
    rows = []
    if not counted:
        rows.append(
            f'<tr><td colspan="4" class="hidden-note">n-grams not listed: the segment is longer than '
            f"{MAX_TOKENS_COUNTED:,} tokens; the sums are the core's counts</td></tr>"
        )
    for item in table.rows[:MAX_NGRAM_ROWS_SHOWN]:
        css = "clip-full" if item.clipped == item.count else ("clip-none" if item.clipped == 0 else "clip-part")
        rows.append(
            f'<tr class="{css}"><td class="ng">{html.escape(item.text)}</td><td>{item.count}</td>'
            f"<td>{item.max_ref_count}</td><td><b>{item.clipped}</b></td></tr>"
        )
    if not rows and counted:
        rows.append('<tr><td colspan="4" class="tok-empty">no n-grams of this order</td></tr>')
    hidden = len(table.rows) - MAX_NGRAM_ROWS_SHOWN
    if hidden > 0:
        rows.append(
            f'<tr><td colspan="4" class="hidden-note">showing {MAX_NGRAM_ROWS_SHOWN} of {len(table.rows):,} distinct '
            f"{table.order}-grams ({hidden:,} hidden); the sums below count them all</td></tr>"
        )
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


def explanation_html(explanation: SegmentExplanation, segment_number: int, corpus_line: str = "") -> str:
    """Explain mode: tokens, one clipping table per order, then precisions, BP and BLEU."""
    options = explanation.options
    hypothesis_words = set(explanation.prediction_tokens)
    reference_words = set().union(*explanation.reference_tokens)
    matched_words = hypothesis_words & reference_words
    references = "".join(
        f'<div class="tok-line"><span class="tok-label">reference {i} ({len(tokens):,})</span>'
        f"{_tokens_html(tokens, matched_words)}</div>"
        for i, tokens in enumerate(explanation.reference_tokens, start=1)
    )
    tables = []
    for table in explanation.tables:
        if table.precision is None and table.total == 0:
            continue
        weight = options.weights[table.order - 1] if table.order <= options.max_order else None
        tables.append(_order_table_html(table, weight, explanation.counted))
    steps = [precision_arithmetic(t) for t in explanation.tables[: options.max_order]]
    return f"""
<div class="explain" id="explain-view">
  <div class="explain-head">Segment {segment_number}: sentence BLEU
    <b id="explain-bleu">{explanation.score.bleu:.4f}</b>
    <span class="explain-sig">{html.escape(describe(options))}</span>
  </div>
  {corpus_line}
  <div class="tok-line"><span class="tok-label">prediction ({len(explanation.prediction_tokens):,})</span>{_tokens_html(explanation.prediction_tokens, matched_words)}</div>
  <p class="explain-help">Highlighted tokens appear on the other side (unigram matches).</p>
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


def corpus_options_line(scored: ScoredCorpus, index: int, sentence_bleu: float) -> str:
    """The segment's score under the corpus options, labelled so that it is not read as a second,
    contradicting sentence score."""
    alone = score(scored.stats[index], scored.options).bleu
    same = abs(alone - sentence_bleu) <= 1e-12 * max(1.0, abs(alone))
    return (
        f'<p class="explain-help explain-corpus">This is the Per segment table\'s number: sacreBLEU\'s '
        f"sentence-level settings (order 4, exp smoothing, effective order) on the corpus options' tokens. "
        f'With the corpus options ({html.escape(describe(scored.options))}) this segment alone scores '
        f'<b id="explain-corpus-bleu">{alone:.4f}</b>{" (the same)" if same else ""}; corpus BLEU adds up every '
        "segment's counts before dividing, so it is not an average of either number.</p>"
    )


def explain_number(scored: Optional[ScoredCorpus], segment_number: Any) -> str:
    """Explain segment `segment_number` (1-based) of a scored corpus, as HTML: the arithmetic of the
    Per segment table's sentence BLEU, and the segment's score under the corpus options beside it."""
    if scored is None:
        return placeholder_html("Score something first, then pick a segment to explain.")
    try:
        number = int(segment_number)
    except (TypeError, ValueError):
        number = 0
    if not 1 <= number <= len(scored):
        return placeholder_html(f"Pick a segment between 1 and {len(scored):,}.")
    index = number - 1
    prediction, references = scored.segment(index)
    options = sentence_options(scored.options)
    same_rows = options.orders == scored.options.orders and options.ref_length == scored.options.ref_length
    explanation = explain_segment(prediction, references, options, row=scored.stats[index] if same_rows else None)
    return explanation_html(explanation, number, corpus_options_line(scored, index, explanation.score.bleu))

"""HTML for the score card and explain mode; every number comes from the core or space.explain.

Every BLEU score and precision is written on both scales (space.scales), so the page's one toggle
shows all of them on 0–1 or on 0–100, this card and explain mode included.
"""

from __future__ import annotations

import html
import re
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
# The scale's names stay importable from here too (score_tab and the tests import them from render).
from .scales import SCALE_HOLDER, SCALE_JS, SCALE_PERCENT, SCALE_UNIT, both_scales, scaled, the_other_scale  # noqa: F401
from .scoring import ScoredCorpus, sentence_options


def _format(value: float, digits: int = 4) -> str:
    return f"{value:.{digits}f}"


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
    return scaled(f"μ = {mean:.4f} ± {ci:.4f}", f"μ = {100 * mean:.2f} ± {100 * ci:.2f}")


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
        low, high = result["bleu_ci_low"], result["bleu_ci_high"]
        interval = (f'<div class="fact-wide"><span>bootstrap, {samples:,} resamples, seed {"none" if seed is None else seed}'
                    f'</span><b id="bleu-interval" title="95% interval {_format(low)}–{_format(high)} '
                    f'({100 * low:.2f}–{100 * high:.2f})">{_mean_ci_both_scales(*mean_ci)}</b></div>')
    # On 0–100 with sacreBLEU's one digit (its summary line's 59.9/34.0/...), on 0–1 as evaluate returns them.
    precisions = scaled(" / ".join(_format(p) for p in result["precisions"]),
                        " / ".join(f"{100 * p:.1f}" for p in result["precisions"]))
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
      <div class="fact-wide"><span>n-gram precisions{scaled("", " (%)")}</span><b id="bleu-precisions">{precisions}</b></div>
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


def _bar_value(value: float, kind: str) -> str:
    """A bar's number: a precision on both scales (the 0–1 one first, as `bar-value`), the brevity
    penalty, a factor, as it is."""
    percent = "" if kind == "brevity penalty" else f'<b class="bar-percent">{100 * value:.2f}</b>'
    return f'<b class="bar-value">{value:.4f}</b>{percent}'


def precision_chart_html(frame) -> str:
    """Bars for the modified precisions and the brevity penalty (a `precision_frame`), 0 to 1
    (up to the largest value when smoothing lifts one past 1)."""
    top = max(1.0, float(frame["value"].max()))
    bars = "".join(
        f'<div class="bar-row"><span class="bar-name">{html.escape(measure)}</span>'
        f'<div class="bar-track"><div class="bar bar-{"bp" if kind == "brevity penalty" else "p"}" '
        f'style="width:{100 * max(0.0, value) / top:.2f}%"></div></div>{_bar_value(value, kind)}</div>'
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
    precision = html.escape(precision_arithmetic(table))
    if table.precision is not None:
        precision = scaled(precision, html.escape(_on_percent(precision_arithmetic(table), table.precision)))
    return f"""
<div class="ngram-table">
  <div class="ngram-title">{table.order}-grams{weight_note}</div>
  <table>
    <thead><tr><th>n-gram</th><th title="times in the prediction">count</th><th title="most times in any one reference">max ref</th><th title="min(count, max ref)">clipped</th></tr></thead>
    <tbody>{''.join(rows)}</tbody>
    <tfoot><tr><td>sum</td><td>{table.total}</td><td></td><td><b>{table.clipped_total}</b></td></tr></tfoot>
  </table>
  <div class="ngram-precision">{precision}</div>
</div>"""


_LAST_NUMBER = re.compile(r"\d+(?:\.\d+)?(?=\D*$)")


def _on_percent(line: str, precision: float) -> str:
    """explain's `p2 = 4/6 = 0.6667` (or `… → 0.1667 after smoothing`) with its precision, the line's last
    number, on 0–100: `p2 = 4/6 = 66.67%`."""
    return _LAST_NUMBER.sub(f"{100 * precision:.2f}%", line, count=1)


def _short(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".") if value not in (0.0, 1.0) else f"{value:g}"


def _percent_bleu_arithmetic(explanation: SegmentExplanation) -> str:
    """explain's `BLEU = BP × p1^w1 × … = 0.4671` on 0–100. With weights summing to 1 (the usual case),
    100·BLEU = BP × Π (100·p_n)^w_n, so the precisions are written on 0–100 too; other weights keep the
    fractions and multiply by 100. The note after the sum, if any, is explain's."""
    unit = bleu_arithmetic(explanation)
    note = unit[unit.index("  ("):] if "  (" in unit else ""
    result = explanation.score
    used = [(n, p, w) for n, (p, w) in enumerate(zip(result.precisions, explanation.options.weights), start=1) if w > 0]
    symbols = " × ".join(f"p{n}^{_short(w)}" for n, _, w in used)
    bp, value = _short(result.brevity_penalty), f"{100 * result.bleu:.2f}"
    if abs(sum(w for _, _, w in used) - 1.0) < 1e-9:
        numbers = " × ".join(f"{100 * p:.2f}^{_short(w)}" for _, p, w in used)
        return f"BLEU = BP × {symbols} = {bp} × {numbers} = {value}{note}"
    numbers = " × ".join(f"{_short(p)}^{_short(w)}" for _, p, w in used)
    return f"BLEU = 100 × BP × {symbols} = 100 × {bp} × {numbers} = {value}{note}"


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
    orders = explanation.tables[: options.max_order]
    steps = scaled(html.escape("   ".join(precision_arithmetic(t) for t in orders)),
                   html.escape("   ".join(precision_arithmetic(t) if t.precision is None
                                          else _on_percent(precision_arithmetic(t), t.precision) for t in orders)))
    bleu = explanation.score.bleu
    return f"""
<div class="explain" id="explain-view">
  <div class="explain-head">Segment {segment_number}: sentence BLEU
    <b class="scale-unit" id="explain-bleu">{bleu:.4f}</b><b class="scale-percent">{100 * bleu:.2f}</b>
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
    <div><span class="step-label">1 · modified precisions</span>{steps}</div>
    <div><span class="step-label">2 · reference length</span>{html.escape(reference_length_choice(explanation))}</div>
    <div><span class="step-label">3 · brevity penalty</span>{html.escape(brevity_penalty_arithmetic(explanation))}</div>
    <div><span class="step-label">4 · BLEU</span>{scaled(html.escape(bleu_arithmetic(explanation)),
                                                        html.escape(_percent_bleu_arithmetic(explanation)))}</div>
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
        f'<b class="scale-unit" id="explain-corpus-bleu">{alone:.4f}</b><b class="scale-percent">{100 * alone:.2f}</b>'
        f'{" (the same)" if same else ""}; corpus BLEU adds up every '
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

"""The page's theme and CSS.

The theme is Gradio's Soft with indigo/emerald, darkened where its defaults miss WCAG's 4.5:1
contrast (grey help text, label chips, tabs, the Score button, links); axe-core checks it in
tests/test_app_browser.py.
"""

import gradio as gr

THEME = gr.themes.Soft(primary_hue="indigo", secondary_hue="emerald").set(
    color_accent="*primary_700",
    body_text_color_subdued="*neutral_600",
    block_label_text_color="*primary_800",
    block_title_text_color="*primary_800",
    button_primary_background_fill="*primary_700",
    button_primary_background_fill_hover="*primary_800",
    button_primary_background_fill_dark="*primary_600",
    link_text_color="*secondary_800",
    link_text_color_hover="*secondary_900",
    checkbox_label_background_fill_selected="*primary_700",
)

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
.paste-note { border-left: 4px solid #dc2626; background: rgba(220,38,38,0.08); padding: 0.5rem 0.8rem; border-radius: 6px; margin: 0.4rem 0 0; }
"""

# Phones (390 px wide): the score card's facts wrap instead of running off the edge, the n-gram
# tables wrap long n-grams so the clipped column stays on screen, and the result tabs fit in one row.
CSS += """
.bleu-facts { grid-template-columns: repeat(auto-fit, minmax(104px, 1fr)); min-width: 0; }
.bleu-facts div { min-width: 0; }
.bleu-facts span { overflow-wrap: anywhere; }
.hidden-note { color: var(--body-text-color-subdued); font-style: italic; font-size: 0.8rem; }
.tok-match { background: rgba(16,185,129,0.22); border-color: rgba(16,185,129,0.6); }
@media (max-width: 600px) {
  .bleu-card { padding: 0.9rem 0.9rem; }
  .bleu-value { font-size: 3.2rem; }
  .bleu-head { gap: 0.8rem; }
  .bleu-facts { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .ngram-grid > .ngram-table { min-width: 0; width: 100%; }
  .ngram-table td.ng { white-space: normal; overflow-wrap: anywhere; }
  .tok-label { min-width: 0; display: block; }
  #result-tabs .tab-container button { padding-left: 0.4rem; padding-right: 0.4rem; font-size: 0.85rem; }
}
"""

# The scale toggle: both scales are in the card; data-bleu-scale="percent" on #score-view shows 0–100.
# (Gradio prefixes every rule with its container, so the attribute sits on an element inside it.)
CSS += """
.scale-percent { display: none; }
#score-view[data-bleu-scale="percent"] .scale-percent { display: inline; }
#score-view[data-bleu-scale="percent"] .scale-unit { display: none; }
#sacrebleu-line textarea, #sacrebleu-line input { font-family: var(--font-mono); }
"""

# Contrast (axe-core, 4.5:1): tab labels, the examples' label, and the placeholder-grey parts of the page.
CSS += """
.tab-container button, .tab-wrapper button { color: var(--neutral-700); }
.tab-container button.selected { color: var(--primary-800); }
.label, .gallery .label { color: var(--primary-800); }
.bleu-value { color: #4338ca; }
.json-node .key { color: #9a3412; }
.json-node .value, .json-node .number, .json-node .string, .json-node .bool, .json-node .null { color: #155e75; }
*:focus-visible { outline: 3px solid #4338ca !important; outline-offset: 2px; }
"""

# The Compare systems tab's interval plot.
CSS += """
.ci-plot { border: 1px solid var(--border-color-primary); border-radius: 10px; padding: 0.6rem 0.8rem; }
.ci-caption { font-size: 0.85rem; color: var(--body-text-color-subdued); margin-bottom: 0.4rem; }
.ci-row { display: grid; grid-template-columns: minmax(90px, 22%) 1fr minmax(150px, auto); gap: 0.6rem; align-items: center; margin: 0.3rem 0; }
.ci-name { font-family: var(--font-mono); font-size: 0.85rem; overflow-wrap: anywhere; }
.ci-track { position: relative; height: 14px; background: var(--background-fill-secondary); border-radius: 7px; }
.ci-bar { position: absolute; top: 3px; height: 8px; background: rgba(67,56,202,0.45); border-radius: 4px; }
.ci-dot { position: absolute; top: 1px; width: 12px; height: 12px; margin-left: -6px; border-radius: 50%; background: #4338ca; }
.ci-label { font-variant-numeric: tabular-nums; font-size: 0.85rem; }
@media (max-width: 600px) { .ci-row { grid-template-columns: 1fr; } }
"""

# The precision chart (plain HTML bars).
CSS += """
.bar-chart { border: 1px solid var(--border-color-primary); border-radius: 10px; padding: 0.6rem 0.8rem; }
.bar-caption { font-size: 0.85rem; color: var(--body-text-color-subdued); margin-bottom: 0.4rem; }
.bar-row { display: grid; grid-template-columns: minmax(110px, 28%) 1fr 4.5rem; gap: 0.6rem; align-items: center; margin: 0.25rem 0; }
.bar-name { font-size: 0.85rem; }
.bar-track { height: 14px; background: var(--background-fill-secondary); border-radius: 7px; overflow: hidden; }
.bar { height: 100%; border-radius: 7px; }
.bar-p { background: #4f46e5; }
.bar-bp { background: #047857; }
.bar-value { font-variant-numeric: tabular-nums; text-align: right; font-size: 0.9rem; }
"""

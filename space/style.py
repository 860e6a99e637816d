"""The page's theme and CSS.

The theme is Gradio's Soft with indigo/emerald, darkened where its defaults miss WCAG's 4.5:1
contrast (grey help text, label chips, tabs, the Score button, links); axe-core checks it in
tests/test_app_browser.py.

The body font is IBM Plex Sans, regular and bold, from Gradio's own static files (served with the page,
offline), not Soft's Montserrat: Gradio ships Montserrat Alternates under the name
static/fonts/Montserrat/Montserrat-Regular.woff2 (its name table says "Montserrat Alternates"), whose
E is an epsilon, so all regular text read "BLƐU"; only the bold file is Montserrat. Gradio's 600
("SemiBold") files of IBM Plex Sans and Mono are small subsets (no digits or % in the mono one: explain
mode's precision lines came out in two fonts), so only 400 and 700 are declared, and 600 (labels, those
lines) is drawn with the full 700.
"""

import gradio as gr

BODY_FONT = (gr.themes.LocalFont("IBM Plex Sans", weights=(400, 700)), "ui-sans-serif", "system-ui", "sans-serif")
MONO_FONT = (gr.themes.LocalFont("IBM Plex Mono", weights=(400, 700)), "ui-monospace", "Consolas", "monospace")

THEME = gr.themes.Soft(primary_hue="indigo", secondary_hue="emerald", font=BODY_FONT, font_mono=MONO_FONT).set(
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
.bleu-facts > div > span { font-size: 0.75rem; color: var(--body-text-color-subdued); text-transform: uppercase; letter-spacing: 0.04em; }
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
.explain-steps .step-label { display: block; font-family: var(--font-sans); font-size: 0.72rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--body-text-color-subdued); }
#score-button { font-size: 1.1rem; }
.paste-note { border-left: 4px solid #dc2626; background: rgba(220,38,38,0.08); padding: 0.5rem 0.8rem; border-radius: 6px; margin: 0.4rem 0 0; }
"""

# The score card's facts: a grid that wraps below the big number when the two do not fit side by side
# (on phones, and in narrow columns), never squeezed beside it (that made every label 1 px wide);
# the precisions and the interval take a whole row.
CSS += """
.bleu-main { flex: 0 0 auto; }
.bleu-facts { flex: 1 1 320px; min-width: 0; grid-template-columns: repeat(auto-fill, minmax(118px, 1fr)); }
.bleu-facts div { min-width: 0; }
.bleu-facts .fact-wide { grid-column: 1 / -1; }
.bleu-facts span, .bleu-facts b { overflow-wrap: anywhere; }
.bleu-options { margin-top: 0.8rem; font-size: 0.9rem; }
.options-changed { color: #9a3412; font-style: normal; font-weight: 600; }
.hidden-note { color: var(--body-text-color-subdued); font-style: italic; font-size: 0.8rem; }
.tok-match { background: rgba(16,185,129,0.22); border-color: rgba(16,185,129,0.6); }
@media (max-width: 600px) {
  .bleu-card { padding: 0.9rem 0.9rem; }
  .bleu-value { font-size: 3.2rem; }
  .bleu-head { gap: 0.8rem; }
  .bleu-facts { flex-basis: 100%; grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .ngram-grid > .ngram-table { min-width: 0; width: 100%; }
  .ngram-table td.ng { white-space: normal; overflow-wrap: anywhere; }
  .tok-label { min-width: 0; display: block; }
  #result-tabs .tab-container button { padding-left: 0.4rem; padding-right: 0.4rem; font-size: 0.85rem; }
}
"""

# The scale toggle: both scales are in each view; data-bleu-scale="percent" on the page's tabs
# (render.SCALE_HOLDER) shows 0–100 in all of them. (Gradio prefixes every rule with its container, so
# the attribute sits on an element inside it.)
CSS += """
.scale-percent { display: none; }
[data-bleu-scale="percent"] .scale-percent { display: inline; }
[data-bleu-scale="percent"] .scale-unit { display: none; }
.bar-percent { display: none; }
[data-bleu-scale="percent"] .bar-percent { display: block; }
[data-bleu-scale="percent"] .bar-value:has(+ .bar-percent) { display: none; }
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

# Dark mode (the visitor's system setting): the light-mode colours above are too dark on Gradio's dark
# page (the focus ring was 2.4:1, tab labels 1.9:1); these pass 4.5:1 for text and 3:1 for the ring.
CSS += """
.dark *:focus-visible { outline-color: #a5b4fc !important; }
.dark .tab-container button, .dark .tab-wrapper button { color: var(--neutral-300); }
.dark .tab-container button.selected { color: var(--primary-300); }
.dark .label, .dark .gallery .label { color: var(--primary-300); }
.dark .options-changed { color: #fdba74; }
.dark .diff-delta { color: #a5b4fc; }
.dark .ci-dot { background: #e5e7eb; }
"""

# The Compare systems tab: the interval plot (an axis fitted to the systems, with ticks; the bar is
# sacreBLEU's μ ± ci and stays visible around the score's tick), the differences list, the signature.
CSS += """
.ci-plot { border: 1px solid var(--border-color-primary); border-radius: 10px; padding: 0.6rem 0.8rem; }
.ci-caption { font-size: 0.85rem; color: var(--body-text-color-subdued); margin-bottom: 0.4rem; }
.ci-grid { display: grid; grid-template-columns: minmax(90px, 22%) minmax(0, 1fr) max-content; gap: 0.6rem;
  align-items: center; }
.ci-row { display: contents; }
.ci-name { font-family: var(--font-mono); font-size: 0.85rem; overflow-wrap: anywhere; }
.ci-track { position: relative; height: 18px; background: var(--background-fill-secondary); border-radius: 4px; }
.ci-bar { position: absolute; top: 4px; height: 10px; background: rgba(67,56,202,0.35); border: 1px solid #4338ca; border-radius: 3px; box-sizing: border-box; }
.ci-dot { position: absolute; top: 0; width: 3px; height: 18px; margin-left: -1.5px; background: #111827; }
.ci-label { font-variant-numeric: tabular-nums; font-size: 0.85rem; }
.ci-axis { position: relative; height: 1.3rem; border-top: 1px solid var(--body-text-color-subdued); margin-top: -0.3rem; }
.ci-tick { position: absolute; top: 0; transform: translateX(-50%); font-size: 0.75rem; font-variant-numeric: tabular-nums; color: var(--body-text-color-subdued); padding-top: 2px; }
.ci-tick::before { content: ""; position: absolute; top: -1px; left: 50%; height: 5px; border-left: 1px solid var(--body-text-color-subdued); }
@media (max-width: 600px) {
  .ci-grid { grid-template-columns: minmax(0, 1fr); row-gap: 0.15rem; }
  .ci-name { margin-top: 0.45rem; }
  .ci-axis-row > span { display: none; }
}
.compare-signature { font-family: var(--font-mono); font-size: 0.8rem; overflow-wrap: anywhere; }
.diff-caption { font-size: 0.9rem; }
.diff-scroll { list-style: none; padding: 0 0.3rem 0 0; margin: 0; max-height: 640px; overflow-y: auto; }
.compare-scroll { max-width: 100%; overflow-x: auto; }
.compare-results { width: 100%; border-collapse: collapse; font-size: 0.9rem; font-variant-numeric: tabular-nums; }
.compare-results th { text-align: left; font-size: 0.8rem; color: var(--body-text-color-subdued); border-bottom: 2px solid var(--border-color-primary); padding: 0.3rem; }
.compare-results td { border-bottom: 1px solid var(--border-color-primary); padding: 0.3rem; }
.compare-results th, .compare-results td { white-space: nowrap; }
@media (max-width: 600px) { .compare-results { font-size: 0.85rem; } .compare-results td:first-child { font-size: 0.8rem; } }
.compare-results td:first-child { font-family: var(--font-mono); font-size: 0.85rem; }
.diff-row { border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 0.45rem 0.65rem; margin: 0.45rem 0; }
.diff-head { display: flex; flex-wrap: wrap; gap: 0.3rem 0.8rem; align-items: baseline; }
.diff-delta { font-weight: 700; font-variant-numeric: tabular-nums; color: #4338ca; }
.diff-scores { font-size: 0.85rem; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.diff-text { margin-top: 0.25rem; font-size: 0.9rem; overflow-wrap: anywhere; }
.diff-label { display: inline-block; min-width: 6.5rem; margin-right: 0.5rem; font-size: 0.75rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--body-text-color-subdued); overflow-wrap: anywhere; }
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
.bar-value, .bar-percent { font-variant-numeric: tabular-nums; text-align: right; font-size: 0.9rem; }
"""

# Gradio's "upload more" button on a file field that already holds files is a button inside a button
# (axe: nested-interactive, serious) labelled with an untranslated key, and it appends to the list. It is
# hidden: a field's x clears it, and the next upload replaces the files (space/uploads.py).
CSS += """
.icon-button-wrapper .icon-button:has(.upload-container) { display: none; }
"""

# The Score tab's first screen: the examples come right under the Score button (the paste box's placeholder
# says "click an example below"; at 1280x800 they started below the fold), the limits and the format help
# after the options. Visual order only: none of them holds a control, so the focus order is unchanged.
CSS += """
#limits, #format-help { order: 1; }
"""

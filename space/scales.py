"""One scale for the whole page: every BLEU score and precision on 0–1 or on 0–100, as the visitor picks.

The toggle (on the Score and Diversity tabs, remembered in localStorage) sets data-bleu-scale on the
page's tabs (SCALE_HOLDER: always in the page, where a tab's own elements appear only once it is
opened). Server-made HTML carries every number on both scales (`both_scales`, `scaled`) and the CSS in
style.py shows one, so a new score, comparison or measure comes out on the chosen scale with no round
trip. The per-segment table is Gradio's Dataframe, whose cells are not ours to write twice: its
sentence BLEU column is switched in the browser by moving the decimal point (SEGMENT_TABLE_SCALE_JS),
which is exact because 0–1 with 4 digits and 0–100 with 2 are the same digits.

The formats are the CLI's: 0–1 with 4 digits, 0–100 with 2 (sacreBLEU's -w 2); the score card's
precisions on 0–100 keep sacreBLEU's 1 digit (`59.9/34.0/...`).
"""

from __future__ import annotations

SCALE_UNIT, SCALE_PERCENT = "0–1", "0–100"
SCALE_HOLDER = "#page-tabs"
SCALE_JS = """(scale) => {
  localStorage.setItem('bleu-scale', scale);
  const page = document.querySelector('%s');
  if (page) page.dataset.bleuScale = scale === '0–100' ? 'percent' : 'unit';
}""" % SCALE_HOLDER


def scaled(unit_html: str, percent_html: str) -> str:
    """The same thing written on both scales; the page's toggle shows one (style.py)."""
    return f'<span class="scale-unit">{unit_html}</span><span class="scale-percent">{percent_html}</span>'


def both_scales(value: float, signed: bool = False) -> str:
    """A score on both scales, as the CLI prints them: 0–1 with 4 digits, or 0–100 with 2 (sacreBLEU's
    -w 2); `signed` writes the sign (a difference of two scores)."""
    sign = "+" if signed else ""
    return scaled(f"{value:{sign}.4f}", f"{100 * value:{sign}.2f}")


def scale_caption(what: str = "BLEU") -> str:
    """`BLEU (0–1)` or `BLEU (0–100)`, whichever the page shows."""
    return scaled(f"{what} ({SCALE_UNIT})", f"{what} ({SCALE_PERCENT})")


def the_other_scale(value: float, percent_name: str = "the 0–100 scale") -> str:
    """A card's line under its large number: the same score on the scale the toggle does not show."""
    return scaled(f"{100 * value:.2f} on {percent_name}", f"{value:.4f} on the 0–1 scale")


# The per-segment table (Gradio's Dataframe, rendered in the browser): its "sentence BLEU" column comes from
# the server on 0–1 with 4 digits; on 0–100 each cell's text node is rewritten in place ("0.0925" <->
# "9.25", moving the decimal point two places), so the Dataframe keeps its own node and its data (copy,
# sorting, row clicks) stays on 0–1. One observer, installed on load, redoes it after every change of
# the table (a new page, a new score, rows scrolled into view) and of the toggle.
SEGMENT_TABLE_SCALE_JS = """() => {
  const holder = () => document.querySelector('%s');
  const toPercent = (t) => { const m = /^(\\d+)\\.(\\d\\d)(\\d\\d)$/.exec(t);
    return m ? `${Number(m[1]) * 100 + Number(m[2])}.${m[3]}` : t; };
  const toUnit = (t) => { const m = /^(\\d+)\\.(\\d\\d)$/.exec(t); if (!m) return t;
    const whole = Number(m[1]); return `${Math.floor(whole / 100)}.${String(whole %% 100).padStart(2, '0')}${m[2]}`; };
  const apply = () => {
    const table = document.querySelector('#segments');
    if (!table) return;
    const header = [...table.querySelectorAll('[data-heading]')].find((h) => h.title === 'sentence BLEU');
    if (!header) return;
    const convert = holder()?.dataset.bleuScale === 'percent' ? toPercent : toUnit;
    for (const cell of table.querySelectorAll(`[data-col="${header.dataset.heading}"]`)) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.data.trim();
        if (!text) continue;
        const next = convert(text);
        if (next !== text) node.data = node.data.replace(text, next);
      }
    }
  };
  new MutationObserver(apply).observe(document.body, {subtree: true, childList: true, characterData: true,
                                                     attributes: true, attributeFilter: ['data-bleu-scale']});
  apply();
}""" % SCALE_HOLDER

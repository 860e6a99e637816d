"""The Diversity tab: one set of texts in (pasted or a file, one per line), self-BLEU out, and the
most similar pairs shown, through `bleukit.diversity.pairwise.self_bleu` and `most_similar_pairs`.

The numbers are sentence BLEU as sacreBLEU's `sentence_bleu` computes it (exp smoothing, effective
order) or, with the NLTK convention, as NLTK's `sentence_bleu` with method1 (Texygen's and
fast-bleu's self-BLEU); the tab has its own options because the Score tab's are corpus BLEU's.
Every score is written on both scales, as the Score tab's card (0–1 with 4 digits, or 0–100 with 2,
the CLI's `-w 2`), and the page's one scale toggle (on both tabs, remembered) picks which is shown.
"""

from __future__ import annotations

import html
from typing import Any, Dict, List, Tuple

from bleukit.diversity.pairwise import PAIR_SEARCH_LIMIT, most_similar_pairs, self_bleu
from .inputs import INPUT_ERRORS, SOURCE_FILES, check_pasted_size, parse_max_order, read_lines_file, split_lines
from .options import TOKENIZER_CHOICES
from .scales import SCALE_JS, SCALE_PERCENT, SCALE_UNIT, both_scales, the_other_scale
from .scoring import cut as cut_cell

PAIRS_SHOWN = 10
CONVENTION_CHOICES = [
    ("sacreBLEU sentence_bleu (exp smoothing, effective order)", "sacrebleu"),
    ("NLTK sentence_bleu, method1 (Texygen, fast-bleu)", "nltk"),
]

DIVERSITY_HELP = f"""
**Self-BLEU** (Zhu et al. 2018): each text against all the others as references; the mean of those
sentence BLEU scores is the set's self-BLEU. Higher means less diverse (1.0: every text has a copy).
Paste generated texts, one per line, or upload a file. The {PAIRS_SHOWN} most similar pairs are listed
for up to {PAIR_SEARCH_LIMIT:,} texts (the search compares every pair).
"""


def read_texts(source: str, pasted: str | None, upload: Any) -> List[str]:
    """The texts, one per line, from the paste box or the uploaded file."""
    if source == SOURCE_FILES:
        if not upload:
            raise ValueError("no file uploaded; upload a UTF-8 text file with one text per line")
        return read_lines_file(upload, "file")
    check_pasted_size("texts", pasted, "Upload a file")
    return split_lines(pasted)


def pairs_html(texts: List[str], pairs: List[Dict[str, Any]]) -> str:
    """The most similar pairs as a list that reads on a phone (the Compare tab's differences layout):
    per pair its line numbers (1-based), its BLEU and both directions' (each on both scales), then
    the two texts, labelled."""
    items = []
    for pair in pairs:
        i, j = pair["i"], pair["j"]
        text_j = texts[j] if texts[j] != texts[i] else "(identical)"
        lines = "".join(f'<div class="diff-text"><span class="diff-label">line {number:,}</span>{html.escape(cut_cell(text))}'
                        f"</div>" for number, text in ((i + 1, texts[i]), (j + 1, text_j)))
        items.append(
            f'<li class="diff-row pair-row"><div class="diff-head"><b>lines {i + 1:,} and {j + 1:,}</b>'
            f'<span class="diff-delta pair-bleu">{both_scales(pair["bleu"])}</span>'
            f'<span class="diff-scores">BLEU(i | j) <span class="pair-ij">{both_scales(pair["bleu_ij"])}</span>, '
            f'BLEU(j | i) <span class="pair-ji">{both_scales(pair["bleu_ji"])}</span></span></div>{lines}</li>'
        )
    # A scrolling region: focusable, so keyboard users can scroll it too (axe: scrollable-region-focusable).
    return (f'<div class="diff-list"><ol class="diff-scroll" tabindex="0" aria-label="most similar pairs">'
            f'{"".join(items)}</ol></div>')


def summary_html(count: int, result: Dict[str, Any]) -> str:
    """The card, in the Score tab's classes: self-BLEU large, the corpus and pairwise values beside it,
    every score on both scales (the page's toggle shows one)."""
    value = result["self_bleu"]
    other = the_other_scale(value)
    return f"""
<div class="bleu-card" id="diversity-card" data-self-bleu="{value!r}">
  <div class="bleu-head">
    <div>
      <div class="bleu-caption">SELF-BLEU</div>
      <div class="bleu-value" id="diversity-value">{both_scales(value)}</div>
      <div class="bleu-scale">{other}</div>
    </div>
    <div class="bleu-facts">
      <div><span>texts</span><b>{count:,}</b></div>
      <div><span>corpus BLEU</span><b>{both_scales(result['corpus_bleu'])}</b></div>
      <div><span>pairwise BLEU (fairseq)</span><b>{both_scales(result['pairwise_bleu'])}</b></div>
    </div>
  </div>
  <p class="bleu-scale">The mean sentence BLEU of each text against the other {count - 1:,}: higher means less diverse.
  Corpus BLEU sums the same statistics; pairwise BLEU scores every ordered pair of different texts.</p>
</div>"""


def options_of(tokenizer: str, lowercase: bool, max_order: Any, convention: str) -> Dict[str, Any]:
    """The form's options as self_bleu's keyword arguments (the tokenizer is checked by the core)."""
    return {"tokenizer": tokenizer, "lowercase": bool(lowercase), "max_order": parse_max_order(max_order),
            "convention": convention}


def run_diversity(source, pasted, upload, tokenizer, lowercase, max_order, convention) -> Tuple:
    """Measure diversity button: (status, summary card, signature, pairs caption, pairs table)."""
    import gradio as gr

    try:
        texts = read_texts(source, pasted, upload)
        options = options_of(tokenizer, lowercase, max_order, convention)
        result = self_bleu(texts, **options)
        pairs = most_similar_pairs(texts, PAIRS_SHOWN, **options)["pairs"] if len(texts) <= PAIR_SEARCH_LIMIT else None
    except INPUT_ERRORS as error:
        return (gr.Markdown(f"⚠️ **Cannot measure diversity:** {html.escape(str(error))}", visible=True), "", "", "", "")
    if pairs is None:
        caption = (f"{len(texts):,} texts make {len(texts) * (len(texts) - 1) // 2:,} pairs: the pair search runs for up "
                   f"to {PAIR_SEARCH_LIMIT:,} texts here (in Python, `bleu.most_similar_pairs` has no limit).")
        table = ""
    else:
        caption = (f"The {len(pairs)} most similar pairs by sentence BLEU (the higher of the two directions; "
                   "i and j are line numbers; BLEU(i | j) scores line i against line j as its reference).")
        table = pairs_html(texts, pairs)
    return (gr.Markdown("", visible=False), summary_html(len(texts), result), result["signature"], caption, table)


def build_diversity_tab() -> "gr.Radio":
    """The tab's components and its button, inside the caller's `gr.Tab`; returns its scale toggle,
    which the page keeps in step with the Score tab's (one choice, remembered)."""
    import gradio as gr

    from .inputs import SOURCE_TEXT

    gr.Markdown(DIVERSITY_HELP, elem_id="diversity-help")
    source = gr.State(SOURCE_TEXT)
    with gr.Row(equal_height=False):
        with gr.Column(scale=5, min_width=320):
            with gr.Tabs():
                with gr.Tab("Paste texts", id="diversity-text") as text_tab:
                    pasted = gr.Textbox(label="Texts (one per line)", lines=8, max_lines=16, elem_id="diversity-texts",
                                        placeholder="Paste generated texts here, one per line")
                with gr.Tab("Upload a file", id="diversity-file") as file_tab:
                    upload = gr.File(label="Text file (one text per line)", height=110, elem_id="diversity-file")
            # The menu on a row of its own: beside two more boxes it was 110 px wide ("13a (WMT defa", and
            # options broken mid-word); its labels are the Score tab's, the longest over 500 px.
            tokenizer = gr.Dropdown(TOKENIZER_CHOICES, value="13a", label="Tokenizer", elem_id="diversity-tokenizer")
            with gr.Row():
                max_order = gr.Number(4, label="Max n-gram order (1–8)", precision=None)
                lowercase = gr.Checkbox(False, label="Lowercase")
            convention = gr.Radio(CONVENTION_CHOICES, value="sacrebleu", label="Sentence BLEU as")
            button = gr.Button("Measure diversity", variant="primary", elem_id="diversity-button")
        with gr.Column(scale=7, min_width=320):
            status = gr.Markdown("", visible=False, elem_id="diversity-status")
            scale = gr.Radio([SCALE_UNIT, SCALE_PERCENT], value=SCALE_UNIT, label="Scale", elem_id="diversity-scale-toggle",
                             info="the same choice as on the Score tab: 0–1 as evaluate returns it, or 0–100 as "
                                  "sacreBLEU and papers print it (remembered)")
            summary = gr.HTML("", elem_id="diversity-summary")
            signature = gr.Textbox(label="Signature", interactive=False, buttons=["copy"], elem_id="diversity-signature")
            caption = gr.Markdown("", elem_id="diversity-caption")
            pairs = gr.HTML("", elem_id="diversity-pairs")
    text_tab.select(lambda: SOURCE_TEXT, None, source, api_visibility="private", queue=False)
    file_tab.select(lambda: SOURCE_FILES, None, source, api_visibility="private", queue=False)
    button.click(run_diversity, [source, pasted, upload, tokenizer, lowercase, max_order, convention],
                 [status, summary, signature, caption, pairs], api_visibility="private")
    scale.change(None, scale, None, js=SCALE_JS)
    return scale

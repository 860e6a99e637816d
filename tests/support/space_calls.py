"""Calling the Space's handlers as the page does, for the tests without a browser: a Score click, a
Compare click, the stored result a session's state names, the HTML tables as frames."""

from __future__ import annotations

import html
import re

import pandas as pd

from space import compare_tab, handlers, inputs, store

CAT = "the cat the cat on the mat"
CAT_REFS = ["the cat is on the mat", "there is a cat on the mat"]
# tokenizer, lowercase, max order, weights, smooth, smooth value, ref length, effective order
DEFAULT_FORM = ("13a", False, 4, "", "none", "", "closest", False)
NONE_FORM = ("none", False, 4, "", "none", "", "closest", False)


def score_text(predictions_text, references_text, form=DEFAULT_FORM, bootstrap=()):
    """run_score's outputs by name (a fresh session: no earlier result)."""
    outputs = handlers.run_score(None, inputs.SOURCE_TEXT, predictions_text, references_text, None, None, *form, *bootstrap)
    return handlers.named(outputs)


def stored(key):
    """The scored corpus a session's state names."""
    scored = store.STORE.get(key)
    assert scored is not None
    return scored


def run_compare(systems_text, references_text, method="bootstrap", samples=None, seed="", form=DEFAULT_FORM, baseline=None,
                count_ties=False):
    """The Compare tab's outputs by name, for pasted systems."""
    outputs = compare_tab.run_compare(None, inputs.SOURCE_TEXT, systems_text, references_text, None, None, baseline,
                                      method, samples, seed, count_ties, *form)
    named = dict(zip(compare_tab.COMPARE_OUTPUTS, outputs))
    named["table"] = html_table(named["table"])
    return named


def html_table(page):
    """The rows of an HTML table as a DataFrame of its cell texts (a score written on both scales reads on
    sacreBLEU's 0–100: the cell's 0–1 copy is left out)."""
    import pandas as pd

    def text(cell):
        return html.unescape(re.sub(r"<[^>]+>", "", re.sub(r'<span class="scale-unit">.*?</span>', "", cell)))

    def cells(row, tag):
        return [text(cell) for cell in re.findall(rf"<{tag}>(.*?)</{tag}>", row)]

    rows = re.findall(r"<tr>(.*?)</tr>", page)
    return pd.DataFrame([cells(row, "td") for row in rows[1:]], columns=cells(rows[0], "th")) if rows else pd.DataFrame()

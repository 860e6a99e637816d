"""Explain mode (space/explain.py and its page): the seeds' clipping tables and arithmetic, checked
against the core's statistics rows, and its number, the Per segment table's (issue 20, point 3).

Oracles: `bleukit.core.compute_bleu` (the metric's own path, itself checked against sacreBLEU, NLTK
and evaluate's legacy bleu elsewhere), the core's statistics rows, and the numbers the seed
documents print: 0.4671379777282001 and p1..p4 = 5/7, 4/6, 2/5, 1/4 for "the cat the cat on the
mat" (seed 000), 17/18 and 8/14 for the paper's Candidates 1 and 2 (seed 001), 0.7016879391277371
for the evaluate docs' coffee example (seed 003).
"""

from __future__ import annotations

import random

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from space import examples, handlers, layout, options, render, scoring, store
import space.explain as bleu_explain
from bleukit.core import compute_bleu, segment_statistics
from bleukit.options import resolve_options
from bleukit.counting.stats import matches_of, totals_of
from bleukit.tokenizers.registry import unavailable_reason
from conftest import wmt17_lines
from space_calls import CAT, CAT_REFS, score_text, stored


# ------------------------------------------------------------------ explain mode


def seed_explanation(**options):
    return bleu_explain.explain_segment(CAT, CAT_REFS, resolve_options(tokenizer="none", **options))


def test_explain_table_is_the_seeds_clipping_table():
    explanation = seed_explanation()
    unigrams = {row.text: (row.count, row.max_ref_count, row.clipped) for row in explanation.tables[0].rows}
    # seed 000: the 3 -> clipped to 2, cat 2 -> 1, on 1, mat 1.
    assert unigrams == {"the": (3, 2, 2), "cat": (2, 1, 1), "on": (1, 1, 1), "mat": (1, 1, 1)}
    assert [(t.clipped_total, t.total) for t in explanation.tables] == [(5, 7), (4, 6), (2, 5), (1, 4)]
    assert [t.precision for t in explanation.tables] == [5 / 7, 4 / 6, 2 / 5, 1 / 4]
    assert [bleu_explain.precision_arithmetic(t) for t in explanation.tables] == [
        "p1 = 5/7 = 0.7143", "p2 = 4/6 = 0.6667", "p3 = 2/5 = 0.4", "p4 = 1/4 = 0.25"]
    assert explanation.reference_lengths == [6, 7] and explanation.effective_reference_length == 7
    assert bleu_explain.brevity_penalty_arithmetic(explanation) == "c = 7 ≥ r = 7, so BP = 1 (no penalty)"
    assert bleu_explain.bleu_arithmetic(explanation).endswith("= 0.4671")
    assert explanation.score.bleu == compute_bleu([CAT], [CAT_REFS], tokenizer="none")["bleu"]


def test_explain_brevity_penalty_and_shortest_reference_arithmetic():
    short = bleu_explain.explain_segment("the cat sat on the", ["the cat sat on the mat"], resolve_options(tokenizer="none"))
    assert bleu_explain.brevity_penalty_arithmetic(short) == "c = 5 < r = 6, so BP = exp(1 − r/c) = exp(1 − 6/5) = 0.8187"
    shortest = seed_explanation(ref_length="shortest")
    assert bleu_explain.reference_length_choice(shortest) == "r = 6: the shortest of the reference lengths 6, 7"


def test_explain_the_papers_candidates_gives_the_papers_fractions():
    _, row = next(item for item in examples.EXAMPLES if item[0].startswith("Paper"))
    predictions_text, references_text, *form = row
    outputs = handlers.run_example(None, predictions_text, references_text, *form)
    scored = stored(handlers.named(outputs[2:])["state"])
    first = bleu_explain.explain_segment(*scored.segment(0), scored.options)
    second = bleu_explain.explain_segment(*scored.segment(1), scored.options)
    # seed 001: modified unigram precision 17/18 vs 8/14, bigram 10/17 vs 1/13.
    assert [(t.clipped_total, t.total) for t in first.tables[:2]] == [(17, 18), (10, 17)]
    assert [(t.clipped_total, t.total) for t in second.tables[:2]] == [(8, 14), (1, 13)]
    the = next(r for r in first.tables[0].rows if r.text == "the")
    assert (the.count, the.max_ref_count, the.clipped) == (3, 4, 3)


def test_explain_notes_smoothing_and_the_extra_order_method7_reads():
    explanation = bleu_explain.explain_segment("you are ready ?", ["are you ready ?"], resolve_options(smooth="method7"))
    assert len(explanation.tables) == 5 and explanation.tables[4].precision is None
    assert bleu_explain.precision_arithmetic(explanation.tables[2]).startswith("p3 = 0/2 → ")
    assert explanation.score.bleu == compute_bleu(["you are ready ?"], ["are you ready ?"], smooth="method7")["bleu"]


def test_explain_refuses_a_row_that_disagrees_with_its_tables():
    options = resolve_options(tokenizer="none")
    row = segment_statistics([CAT], [CAT_REFS], options)[0].copy()
    bleu_explain.explain_segment(CAT, CAT_REFS, options, row=row)
    matches_of(row, options.orders)[1] += 1
    with pytest.raises(RuntimeError, match="explain mode counted 4/6 2-grams but the core counted 5/6"):
        bleu_explain.explain_segment(CAT, CAT_REFS, options, row=row)


def assert_tables_match_core(prediction, references, options):
    row = segment_statistics([prediction], [references], options)[0]
    explanation = bleu_explain.explain_segment(prediction, references, options)
    assert [t.clipped_total for t in explanation.tables] == matches_of(row, options.orders).tolist()
    assert [t.total for t in explanation.tables] == totals_of(row, options.orders).tolist()
    assert explanation.hypothesis_length == row[0] and explanation.effective_reference_length == row[1]
    for table in explanation.tables:
        for item in table.rows:
            assert item.clipped == min(item.count, item.max_ref_count)


WORDS = st.sampled_from(["the", "cat", "mat", "on", "a", "is", "The", "cat.", "1,000", "-", "猫", "!"])
SENTENCE = st.lists(WORDS, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(
    prediction=SENTENCE,
    references=st.lists(SENTENCE, min_size=1, max_size=3),
    tokenizer=st.sampled_from(sorted(v for _, v in options.TOKENIZER_CHOICES if unavailable_reason(v) is None)),
    lowercase=st.booleans(),
    max_order=st.integers(1, 5),
    smooth=st.sampled_from(["none", "method5", "method7"]),
    ref_length=st.sampled_from(["closest", "shortest"]),
)
def test_explain_tables_equal_the_cores_statistics_row(prediction, references, tokenizer, lowercase, max_order, smooth, ref_length):
    options = resolve_options(tokenizer=tokenizer, lowercase=lowercase, max_order=max_order, smooth=smooth,
                              ref_length=ref_length)
    assert_tables_match_core(prediction, references, options)


def test_explain_tables_equal_the_core_on_real_wmt17_segments():
    hypothesis = wmt17_lines("uedin-nmt.4722.de")
    reference = wmt17_lines("newstest2017-ende.ref.de")
    picks = random.Random(7).sample(range(len(hypothesis)), 150)
    for tokenizer in ("13a", "intl"):
        options = resolve_options(tokenizer=tokenizer)
        stats = segment_statistics(hypothesis, [[r] for r in reference], options)
        for index in picks:
            explanation = bleu_explain.explain_segment(hypothesis[index], [reference[index]], options, row=stats[index])
            assert [t.clipped_total for t in explanation.tables] == matches_of(stats[index], 4).tolist()


def test_explain_view_html_escapes_text_and_handles_out_of_range_segments():
    scored = scoring.score_corpus(["<b>bold</b> & co"], [["<b>bold</b>"]], {"tokenizer": "none"})
    page = render.explain_number(scored, 1)
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold</b>" not in page
    # The headline is the Per segment table's number (sacreBLEU's sentence_bleu); the corpus options' is labelled.
    oracle = sacrebleu.BLEU(tokenize="none", effective_order=True).sentence_score("<b>bold</b> & co", ["<b>bold</b>"])
    assert f'id="explain-bleu">{oracle.score / 100:.4f}<' in page and f"{scored.sentence_bleu[0]:.4f}" in page
    assert 'id="explain-corpus-bleu">0.0000<' in page  # no bigram matches, unsmoothed
    assert "Pick a segment between 1 and 1" in render.explain_number(scored, 5)
    assert "Pick a segment between 1 and 1" in render.explain_number(scored, 0)
    assert "Score something first" in render.explain_number(None, 1)


def test_clicking_a_table_row_explains_that_segment_even_after_sorting():
    import gradio as gr

    scored = scoring.score_corpus(["a b c d", "x y"], [["a b c d"], ["x z"]], {"tokenizer": "none"})
    # A sorted table: the clicked row sits at position 0 but is segment 2.
    event = gr.SelectData(None, {"index": [0, 1], "value": 0.0, "row_value": [2, 0.0, 2, 2, "x y", "x z"]})
    number, page, tabs = handlers.pick_segment(store.STORE.put(scored), event)
    assert number == 2 and "Segment 2" in page and tabs.selected == "explain"


def test_the_page_builds_with_its_components():
    demo = layout.build_demo()
    ids = {getattr(block, "elem_id", None) for block in demo.blocks.values()}
    assert {"predictions", "references", "score-button", "score-view", "explain-html", "signature", "segments"} <= ids

# ------------------------------------------------------------------ explain (issue 20, point 3)


def test_explain_shows_the_per_segment_number_and_labels_the_corpus_options_one():
    hypothesis = wmt17_lines("uedin-nmt.4722.de")
    reference = wmt17_lines("newstest2017-ende.ref.de")
    out = score_text("\n".join(hypothesis), "\n".join(reference))
    scored = stored(out["state"])
    for number in (1245, 1, 17, 3004):
        page = handlers.run_explain(out["state"], number)
        table = scored.sentence_bleu[number - 1]
        oracle = sacrebleu.BLEU(effective_order=True).sentence_score(hypothesis[number - 1], [reference[number - 1]])
        assert table == pytest.approx(oracle.score / 100, rel=1e-12)
        assert f'id="explain-bleu">{table:.4f}<' in page
        alone = compute_bleu([hypothesis[number - 1]], [reference[number - 1]])["bleu"]
        assert f'id="explain-corpus-bleu">{alone:.4f}<' in page and "the Per segment table's number" in page
    # Segment 1245: 0.0925 in the table, 0.0000 under the corpus options (the report), both labelled.
    page = handlers.run_explain(out["state"], 1245)
    assert 'id="explain-bleu">0.0925<' in page and 'id="explain-corpus-bleu">0.0000<' in page

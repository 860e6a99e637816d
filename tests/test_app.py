"""The Space demo's functions (app.py) and explain mode (bleu_explain.py), without a browser.

Oracles: `bleu_core.compute_bleu` (the metric's own path, itself checked against sacreBLEU, NLTK
and evaluate's legacy bleu elsewhere), the core's statistics rows, and the numbers the seed
documents print: 0.4671379777282001 and p1..p4 = 5/7, 4/6, 2/5, 1/4 for "the cat the cat on the
mat" (seed 000), 17/18 and 8/14 for the paper's Candidates 1 and 2 (seed 001), 0.7016879391277371
for the evaluate docs' coffee example (seed 003).
"""

from __future__ import annotations

import math
import random

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from space import compare_view, examples, handlers, inputs, layout, render, scoring
import bleu_explain
from bleu_core import compute_bleu, segment_statistics
from bleu_options import resolve_options
from bleu_stats import matches_of, totals_of
from conftest import wmt17_lines

CAT = "the cat the cat on the mat"
CAT_REFS = ["the cat is on the mat", "there is a cat on the mat"]
# tokenizer, lowercase, max order, weights, smooth, smooth value, ref length, effective order
DEFAULT_FORM = ("13a", False, 4, "", "none", "", "closest", False)
NONE_FORM = ("none", False, 4, "", "none", "", "closest", False)


def score_text(predictions_text, references_text, form=DEFAULT_FORM):
    """run_score's outputs by name."""
    names = ["status", "score_html", "chart", "signature", "segments", "json", "state", "segment", "explain",
             "segments_caption", "page", "sort", "max_order", "summary_line", "downloads"]
    return dict(zip(names, handlers.run_score(inputs.SOURCE_TEXT, predictions_text, references_text, None, None, *form)))


# ------------------------------------------------------------------ reading inputs


def test_split_lines_drops_trailing_blank_lines_but_keeps_inner_empty_segments():
    assert inputs.split_lines("a\r\n\nb\n\n  \n") == ["a", "", "b"]
    assert inputs.split_lines("") == [] and inputs.split_lines(None) == []


def test_reference_sets_are_separated_by_dash_lines_and_transposed_per_segment():
    sets = inputs.parse_reference_sets("r1 a\nr1 b\n---\nr2 a\nr2 b\n")
    assert sets == [["r1 a", "r1 b"], ["r2 a", "r2 b"]]
    assert inputs.references_per_segment(sets, 2) == [["r1 a", "r2 a"], ["r1 b", "r2 b"]]
    assert inputs.parse_reference_sets("only\n  ---  \n\n---\n") == [["only"]]  # empty sets ignored
    # Blank lines around a separator are layout (issue 12): both sets still have two lines.
    assert inputs.parse_reference_sets("a\nb\n\n---\n\nc\nd\n") == [["a", "b"], ["c", "d"]]
    assert inputs.parse_reference_sets("a\n\nb\n---\nc\n\nd") == [["a", "", "b"], ["c", "", "d"]]  # inner blanks stay


def test_reference_set_of_the_wrong_length_names_the_set_and_the_fix():
    with pytest.raises(ValueError, match=r"reference set 2 has 1 line but there are 2 predictions.*---"):
        inputs.references_per_segment([["a", "b"], ["c"]], 2)
    with pytest.raises(ValueError, match="references are empty"):
        inputs.references_per_segment([], 1)


def test_uploaded_files_give_the_same_segments_as_pasted_text(tmp_path):
    hypothesis = tmp_path / "hyp.txt"
    hypothesis.write_text("a b c\n\nd e\n", encoding="utf-8")
    reference_1 = tmp_path / "ref1.txt"
    reference_1.write_text("a b\r\nx\r\nd e\r\n", encoding="utf-8")
    reference_2 = tmp_path / "ref2.txt"
    reference_2.write_text("\ufeffa c\ny\nd\n", encoding="utf-8")  # BOM dropped
    from_files = inputs.load_inputs(inputs.SOURCE_FILES, "", "", str(hypothesis), [str(reference_1), str(reference_2)])
    assert from_files == (["a b c", "", "d e"], [["a b", "a c"], ["x", "y"], ["d e", "d"]])
    # The pasted form of the same data; the empty middle prediction stays a segment.
    pasted = inputs.load_inputs(inputs.SOURCE_TEXT, "a b c\n\nd e", "a b\nx\nd e\n---\na c\ny\nd", None, None)
    assert pasted == from_files


def test_bad_files_give_clear_messages(tmp_path):
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"'latin1.txt' is not UTF-8 text"):
        inputs.load_inputs(inputs.SOURCE_FILES, "", "", str(latin), [str(latin)])
    with pytest.raises(ValueError, match="no hypothesis file uploaded"):
        inputs.load_inputs(inputs.SOURCE_FILES, "x", "x", None, None)
    with pytest.raises(ValueError, match="no reference file uploaded"):
        inputs.load_inputs(inputs.SOURCE_FILES, "", "", str(latin), [])


def test_form_options_become_the_metrics_keyword_arguments():
    assert inputs.parse_weights(" 0.5, 0.3 0.2 ") == [0.5, 0.3, 0.2]
    assert inputs.parse_weights("  ") is None
    with pytest.raises(ValueError, match="not numbers"):
        inputs.parse_weights("half half")
    kwargs = inputs.option_kwargs("none", True, 3, "", "floor", " 0.2 ", "shortest", True)
    assert kwargs == {"tokenizer": "none", "lowercase": True, "max_order": 3, "smooth": "floor",
                      "smooth_value": 0.2, "ref_length": "shortest", "effective_order": True}
    # Given weights set the order, so the slider cannot contradict them.
    assert "max_order" not in inputs.option_kwargs("13a", False, 4, "0.5 0.5", "none", "", "closest", False)
    with pytest.raises(ValueError, match="smoothing value 'abc' is not a number"):
        inputs.option_kwargs("13a", False, 4, "", "floor", "abc", "closest", False)


@pytest.mark.parametrize("value", [9, 0, 2.5, "x", None, -1])
def test_an_order_outside_the_form_range_is_refused_not_rounded(value):
    with pytest.raises(ValueError, match="max n-gram order .* is not a whole number from 1 to 8"):
        inputs.option_kwargs("13a", False, value, "", "none", "", "closest", False)
    out = score_text("a b", "a b", ("13a", False, value, "", "none", "", "closest", False))
    assert "is not a whole number from 1 to 8" in out["status"].value


def test_the_order_box_shows_the_order_the_weights_set():
    out = score_text("a b c", "a b c", ("13a", False, 4, "0.5, 0.5", "none", "", "closest", False))
    assert out["max_order"] == 2 and "|order:2|" in out["signature"]
    assert score_text("a b c", "a b c", ("13a", False, 3.0, "", "none", "", "closest", False))["max_order"] == 3


def test_bootstrap_options_give_the_metrics_confidence_interval():
    hypothesis = wmt17_lines("uedin-nmt.4722.de")[:400]
    reference = wmt17_lines("newstest2017-ende.ref.de")[:400]
    outputs = handlers.run_score(inputs.SOURCE_TEXT, "\n".join(hypothesis), "\n".join(reference), None, None,
                                 *DEFAULT_FORM, 200, "7")
    expected = compute_bleu(hypothesis, [[r] for r in reference], bootstrap_samples=200, bootstrap_seed=7)
    assert outputs[5] == expected and "bleu_ci_low" in expected
    assert inputs.parse_bootstrap(0, "") == (0, None) and inputs.parse_bootstrap("1000", 12) == (1000, 12)
    for samples, seed, message in [(1.5, "", "bootstrap samples 1.5"), (10, "abc", "bootstrap seed 'abc'"),
                                   (10**6, "", "more than the page allows")]:
        with pytest.raises(ValueError, match=message):
            inputs.parse_bootstrap(samples, seed)


def test_sentence_level_smoothers_warn_where_they_are_chosen():
    for method in ("method5", "method7"):
        value_box, note = handlers.smooth_value_hint(method)
        assert note.visible is True and "sentence-level smoother" in note.value and "0.3714" in note.value
    assert handlers.smooth_value_hint("exp")[1].visible is False
    assert handlers.smooth_value_hint("none")[0].interactive is False


def test_every_tokenizer_and_smoothing_in_the_form_is_one_the_core_accepts():
    """Every one that can be made here (a tokenizer whose package or model file is missing says so in
    its label, and tests/test_app_languages.py checks the message it gives)."""
    from bleu_tokenizers import unavailable_reason

    for label, tokenizer in layout.TOKENIZER_CHOICES:
        if unavailable_reason(tokenizer) is not None:
            assert label.endswith(unavailable_reason(tokenizer))
            continue
        for _, smooth in layout.SMOOTH_CHOICES:
            resolve_options(**inputs.option_kwargs(tokenizer, False, 4, "", smooth, "", "closest", False))


# ------------------------------------------------------------------ scoring through the page


def test_score_equals_the_module_and_the_seed():
    out = score_text(CAT, "\n---\n".join(CAT_REFS), NONE_FORM)
    expected = compute_bleu([CAT], [CAT_REFS], tokenizer="none")
    assert out["json"] == expected
    assert out["json"]["bleu"] == pytest.approx(0.4671379777282001, rel=1e-12)  # seed 000
    assert f'data-bleu="{expected["bleu"]!r}"' in out["score_html"] and ">0.4671<" in out["score_html"]
    assert out["signature"] == expected["signature"]
    assert out["status"].visible is False


def test_chart_and_segment_table_hold_the_cores_numbers():
    predictions = ["the cat sat on the mat", "a dog", "the the the"]
    references = [["the cat sat on the mat"], ["the dog barked"], ["the cat"]]
    scored = scoring.score_corpus(predictions, references, {"tokenizer": "13a", "smooth": "floor"})
    expected = compute_bleu(predictions, references, smooth="floor")
    chart = scoring.precision_frame(scored)
    assert chart["value"].tolist() == expected["precisions"] + [expected["brevity_penalty"]]
    assert chart["measure"].tolist()[-1] == "brevity penalty"
    bars = render.precision_chart_html(chart)
    assert bars.count('class="bar-row"') == 5 and f"<b class=\"bar-value\">{expected['precisions'][0]:.4f}</b>" in bars
    table, caption = scoring.segments_page(scored)
    assert table["#"].tolist() == [1, 2, 3]
    # Per-segment scores are sacreBLEU's sentence BLEU whatever the corpus smoothing (here floor).
    oracle = [sacrebleu.BLEU(effective_order=True).sentence_score(p, r).score / 100 for p, r in zip(predictions, references)]
    assert scored.sentence_bleu.tolist() == pytest.approx(oracle, rel=1e-12)
    assert table["sentence BLEU"].tolist() == [f"{b:.4f}" for b in oracle]
    assert table["hyp len"].tolist() == [6, 2, 3] and table["ref len"].tolist() == [6, 3, 2]
    assert "of **3**" in caption
    assert scoring.metric_result(scored) == expected


def test_segment_table_pages_and_sorts_over_all_segments_and_shows_every_reference():
    hypothesis = wmt17_lines("uedin-nmt.4722.de")[:130]
    reference = wmt17_lines("newstest2017-ende.ref.de")[:130]
    other = wmt17_lines("online-B.0.de")[:130]
    scored = scoring.score_corpus(hypothesis, [[r, o] for r, o in zip(reference, other)], {"tokenizer": "13a"})
    oracle = [sacrebleu.BLEU(effective_order=True).sentence_score(h, [r, o]).score / 100
              for h, r, o in zip(hypothesis, reference, other)]
    assert scored.sentence_bleu.tolist() == pytest.approx(oracle, rel=1e-9)
    last, caption = scoring.segments_page(scored, 3, "segment")
    assert last["#"].tolist() == list(range(101, 131)) and "Segments 101–130 of **130** (page 3 of 3)" in caption
    assert last["reference 2"].tolist()[0] == other[100]
    lowest, _ = scoring.segments_page(scored, 1, "bleu-asc")
    assert lowest["#"].iloc[0] == 1 + min(range(130), key=lambda i: (oracle[i], i))
    highest, _ = scoring.segments_page(scored, 99, "bleu-desc")  # past the end: the last page
    assert len(highest) == 30
    with pytest.raises(ValueError, match="unknown sort"):
        scoring.sorted_order(scored, "nonsense")


def test_long_text_is_cut_in_the_table_and_explain_mode_stays_small():
    words = [f"w{i % 997}" for i in range(20000)]
    line, reference = " ".join(words), " ".join(reversed(words))
    scored = scoring.score_corpus([line], [[reference]], {"tokenizer": "none"})
    table, _ = scoring.segments_page(scored)
    assert len(table["prediction"].iloc[0]) < scoring.MAX_CELL_CHARS + 40 and "chars)" in table["prediction"].iloc[0]
    page = render.explain_number(scored, 1)
    assert len(page) < 200_000  # bounded whatever the segment's length
    assert "19,700 more tokens not shown" in page
    assert f"showing {render.MAX_NGRAM_ROWS_SHOWN} of 997 distinct 1-grams" in page
    expected = segment_statistics([line], [[reference]], resolve_options(tokenizer="none"))[0]
    assert f"p1 = {expected[2]}/{expected[6]}" in page  # the sums still count every n-gram


def test_a_segment_too_long_to_count_shows_the_cores_sums_without_tables():
    words = [f"w{i % 5003}" for i in range(40000)]
    line, reference = " ".join(words), " ".join(words[1:] + words[:1])
    options = resolve_options(tokenizer="none")
    expected = segment_statistics([line], [[reference]], options)[0]
    explanation = bleu_explain.explain_segment(line, [reference], options)
    assert explanation.counted is False and all(not table.rows for table in explanation.tables)
    assert [t.clipped_total for t in explanation.tables] == matches_of(expected, 4).tolist()
    assert explanation.score.bleu == compute_bleu([line], [reference], tokenizer="none")["bleu"]
    scored = scoring.score_corpus([line], [[reference]], {"tokenizer": "none"})
    page = render.explain_number(scored, 1)
    assert "n-grams not listed" in page and f"p1 = {expected[2]}/{expected[6]}" in page and len(page) < 200_000


def test_scoring_does_not_render_explain_mode_and_state_is_released():
    out = score_text(CAT, "\n---\n".join(CAT_REFS), NONE_FORM)
    assert "Pick a segment" in out["explain"]
    scored = out["state"]
    handlers.release_state(scored)
    assert scored.predictions == [] and len(scored.stats) == 0
    handlers.release_state(None)


def test_a_paste_past_the_limit_points_to_upload():
    big = "a\n" * (inputs.MAX_PASTED_CHARS // 2 + 1)
    out = score_text(big, big)
    assert "use the Upload files tab" in out["status"].value and "1,000,000" in out["status"].value
    status = compare_view.run_compare(inputs.SOURCE_TEXT, big + "===\n" + big, "a", None, None, "bootstrap", None, "",
                                      *DEFAULT_FORM)[0]
    assert f"the pasted systems are {len(big) * 2 + 4:,} characters" in status.value
    assert "use the Upload system files tab" in status.value


def test_the_browser_paste_guard_uses_the_servers_limit_on_every_paste_box():
    from space import paste_guard

    demo = layout.build_demo()
    guard = [dep["js"] for dep in demo.config["dependencies"] if dep.get("js") == paste_guard.PASTE_GUARD_JS]
    assert len(guard) == 1  # run once on page load
    assert f"LIMIT = {inputs.MAX_PASTED_CHARS}," in guard[0]
    boxes = {block.elem_id for block in demo.blocks.values() if isinstance(block, layout.gr.Textbox) and block.lines >= 4}
    assert boxes == set(paste_guard.GUARDED_BOXES) == {"predictions", "references", "compare-systems", "compare-references"}
    assert paste_guard.paste_limit_message(1_234_567, "Upload files") == (
        "Not pasted: the box would hold 1,234,567 characters, more than the 1,000,000 a paste box takes. "
        "Use the Upload files tab (up to 50 MB per file).")


@pytest.mark.parametrize(
    "predictions_text, references_text, form, message",
    [
        ("a\nb", "a", DEFAULT_FORM, "reference set 1 has 1 line but there are 2 predictions"),
        ("", "a", DEFAULT_FORM, "predictions are empty"),
        ("a", "a", ("13a", False, 4, "", "none", "0.5", "closest", False), "takes no smooth_value"),
        ("a", "a", ("13a", False, 4, "1, -1", "none", "", "closest", False), "every weight must be a finite number >= 0"),
        ("a", "a", ("13a", False, 4, "", "floor", "-2", "closest", False), "smooth_value must be a finite number > 0"),
    ],
)
def test_bad_input_shows_the_modules_message_in_the_status_line(predictions_text, references_text, form, message):
    out = score_text(predictions_text, references_text, form)
    assert out["status"].visible is True
    assert out["status"].value.startswith("⚠️ **Cannot score:**") and message in out["status"].value
    assert out["json"] == {} and out["state"] is None and out["chart"].visible is False
    assert "Traceback" not in out["status"].value


@pytest.mark.parametrize("label, row", examples.EXAMPLES, ids=[label for label, _ in examples.EXAMPLES])
def test_every_example_scores_as_the_module_does(label, row):
    predictions_text, references_text, *form = row
    outputs = handlers.run_example(predictions_text, references_text, *form)
    assert outputs[1] == inputs.SOURCE_TEXT  # switched to the text tab
    result = outputs[2 + 5]
    predictions = inputs.split_lines(predictions_text)
    references = inputs.references_per_segment(inputs.parse_reference_sets(references_text), len(predictions))
    assert result == compute_bleu(predictions, references, **inputs.option_kwargs(*form))


def test_examples_reproduce_the_seed_numbers():
    results = {label: handlers.run_example(*row)[7] for label, row in examples.EXAMPLES}
    by_start = lambda start: next(v for k, v in results.items() if k.startswith(start))  # noqa: E731
    assert by_start("the cat the cat")["bleu"] == pytest.approx(0.4671379777282001, rel=1e-12)
    the_the = by_start("the the the")
    assert the_the["bleu"] == 0.0 and the_the["precisions"][0] == 2 / 8
    assert by_start("evaluate docs: coffee")["bleu"] == pytest.approx(0.7016879391277371, rel=1e-12)
    assert by_start("you are ready ? →")["bleu"] == 0.0
    assert by_start("you are ready ? with method7")["bleu"] > 0.0
    assert by_start("Too short")["brevity_penalty"] == pytest.approx(math.exp(1 - 6 / 5), rel=1e-12)


def test_example_files_exist_and_match_the_paper_example():
    hypothesis = examples.EXAMPLES_DIR / "paper_candidates.txt"
    references = [examples.EXAMPLES_DIR / f"paper_reference{i}.txt" for i in (1, 2, 3)]
    predictions, grouped = inputs.load_inputs(inputs.SOURCE_FILES, "", "", str(hypothesis), [str(r) for r in references])
    assert len(predictions) == 2 and all(len(group) == 3 for group in grouped)
    assert predictions[0].startswith("It is a guide to action which ensures")


def test_wmt17_system_scores_through_the_page_as_the_module_does():
    hypothesis = wmt17_lines("uedin-nmt.4722.de")
    reference = wmt17_lines("newstest2017-ende.ref.de")
    out = score_text("\n".join(hypothesis), "\n".join(reference))
    assert out["json"] == compute_bleu(hypothesis, [[r] for r in reference])
    assert "of **3,004**" in out["segments_caption"] and len(out["segments"]) == scoring.PAGE_ROWS


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
    outputs = handlers.run_example(predictions_text, references_text, *form)
    scored = outputs[2 + 6]
    first = bleu_explain.explain_segment(scored.predictions[0], scored.references[0], scored.options)
    second = bleu_explain.explain_segment(scored.predictions[1], scored.references[1], scored.options)
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
    tokenizer=st.sampled_from(sorted(layout.RULE_TOKENIZERS)),
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
    assert 'id="explain-bleu">0.0000<' in page  # no bigram matches, unsmoothed
    assert "Pick a segment between 1 and 1" in render.explain_number(scored, 5)
    assert "Pick a segment between 1 and 1" in render.explain_number(scored, 0)
    assert "Score something first" in render.explain_number(None, 1)


def test_clicking_a_table_row_explains_that_segment_even_after_sorting():
    import gradio as gr

    scored = scoring.score_corpus(["a b c d", "x y"], [["a b c d"], ["x z"]], {"tokenizer": "none"})
    # A sorted table: the clicked row sits at position 0 but is segment 2.
    event = gr.SelectData(None, {"index": [0, 1], "value": 0.0, "row_value": [2, 0.0, 2, 2, "x y", "x z"]})
    number, page, tabs = handlers.pick_segment(scored, event)
    assert number == 2 and "Segment 2" in page and tabs.selected == "explain"


def test_the_page_builds_with_its_components():
    demo = layout.build_demo()
    ids = {getattr(block, "elem_id", None) for block in demo.blocks.values()}
    assert {"predictions", "references", "score-button", "score-view", "explain-html", "signature", "segments"} <= ids


# ------------------------------------------------------------------ MT-native output


def test_summary_line_is_sacrebleus_own_on_a_wmt17_system():
    import subprocess
    import sys

    from conftest import WMT17, WMT17_REFERENCE

    hypothesis = wmt17_lines("uedin-nmt.4722.de")
    reference = wmt17_lines("newstest2017-ende.ref.de")
    out = score_text("\n".join(hypothesis), "\n".join(reference))
    line = out["summary_line"]
    assert line == str(sacrebleu.corpus_bleu(hypothesis, [reference]))  # the Python API's format, width 2
    assert line == "BLEU = 28.30 59.9/34.0/21.8/14.4 (BP = 1.000 ratio = 1.026 hyp_len = 62873 ref_len = 61287)"
    cli = subprocess.run([sys.executable, "-m", "sacrebleu", str(WMT17_REFERENCE), "-i", str(WMT17 / "uedin-nmt.4722.de"),
                          "-m", "bleu", "-f", "text", "-w", "2"], capture_output=True, text=True, check=True).stdout
    assert cli.strip().split(" = ", 1)[1] == line.split(" = ", 1)[1]  # the CLI's line after its signature


def test_downloads_hold_every_segment_the_result_and_a_citation_line():
    import csv
    import json

    predictions = ["the cat sat on the mat", "a dog"]
    references = [["the cat sat on the mat", "a cat sat"], ["the dog barked", "a dog"]]
    out = score_text("\n".join(predictions), "the cat sat on the mat\nthe dog barked\n---\na cat sat\na dog")
    segments_path, result_path, citation_path = [item["path"] for item in out["downloads"].value]
    with open(segments_path, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["prediction"] for row in rows] == predictions
    assert [[row["reference_1"], row["reference_2"]] for row in rows] == references
    oracle = [sacrebleu.BLEU(effective_order=True).sentence_score(p, r).score / 100 for p, r in zip(predictions, references)]
    assert [float(row["sentence_bleu"]) for row in rows] == pytest.approx(oracle, rel=1e-12)
    with open(result_path, encoding="utf-8") as handle:
        assert json.load(handle) == compute_bleu(predictions, references)
    citation = open(citation_path, encoding="utf-8").read()
    expected = compute_bleu(predictions, references)
    assert f"BLEU **{100 * expected['bleu']:.2f}** (`{expected['signature']}`)" in citation
    assert "\\footnote{\\texttt{nrefs:2\\textbar{}case:mixed" in citation


def test_score_card_carries_both_scales_precisions_and_the_interval():
    hypothesis = wmt17_lines("uedin-nmt.4722.de")[:300]
    reference = wmt17_lines("newstest2017-ende.ref.de")[:300]
    scored = scoring.score_corpus(hypothesis, [[r] for r in reference], {"tokenizer": "13a"}, 100, 3)
    expected = compute_bleu(hypothesis, [[r] for r in reference], bootstrap_samples=100, bootstrap_seed=3)
    card = render.score_html(scored)
    assert f'<span class="scale-unit">{expected["bleu"]:.4f}</span><span class="scale-percent">{100 * expected["bleu"]:.2f}</span>' in card
    assert " / ".join(f"{100 * p:.1f}" for p in expected["precisions"]) in card
    assert f'{100 * expected["bleu_ci_low"]:.2f}</span>' in card and "95% bootstrap interval" in card


# ------------------------------------------------------------------ Compare systems


def test_compare_tab_gives_bleu_compare_numbers_and_the_segments_that_differ_most():
    from bleu_compare import compare

    from space import compare_view

    reference = wmt17_lines("newstest2017-ende.ref.de")[:200]
    first, second = wmt17_lines("uedin-nmt.4722.de")[:200], wmt17_lines("online-B.0.de")[:200]
    status, table, plot, differences, caption = compare_view.run_compare(
        inputs.SOURCE_TEXT, "\n".join(first) + "\n\n===\n\n" + "\n".join(second), "\n".join(reference), None, None,
        "bootstrap", 200, "7", *DEFAULT_FORM)
    expected = compare({"system 1": first, "system 2": second}, [[r] for r in reference], samples=200, seed=7)
    assert status.visible is False
    assert table["BLEU"].tolist() == [f"{100 * row['bleu']:.2f}" for row in expected["systems"]]
    assert table["p-value"].tolist() == ["baseline", f"{expected['systems'][1]['p_value']:.4f}"]
    assert f"{100 * expected['systems'][1]['ci']:.2f}" in table["95% interval (μ ± ci)"].iloc[1]
    assert plot.count('class="ci-row"') == 2 and expected["signature"] in caption
    oracle = [sacrebleu.BLEU(effective_order=True).sentence_score(h, [r]).score / 100 for h, r in zip(second, reference)]
    oracle_first = [sacrebleu.BLEU(effective_order=True).sentence_score(h, [r]).score / 100 for h, r in zip(first, reference)]
    gaps = [b - a for a, b in zip(oracle_first, oracle)]
    top = differences["#"].iloc[0] - 1
    assert abs(gaps[top]) == pytest.approx(max(abs(g) for g in gaps), abs=1e-12)
    assert float(differences["system 2 − system 1"].iloc[0]) == pytest.approx(gaps[top], abs=1e-4)


def test_compare_tab_explains_bad_input():
    from space import compare_view

    status = compare_view.run_compare(inputs.SOURCE_TEXT, "a b", "a b", None, None, "bootstrap", None, "", *DEFAULT_FORM)[0]
    assert status.visible is True and "paste two or more systems" in status.value
    status = compare_view.run_compare(inputs.SOURCE_TEXT, "a\n===\nb\nc", "a", None, None, "ar", None, "", *DEFAULT_FORM)[0]
    assert "Cannot compare" in status.value and "system 'system 2'" in status.value

"""The Space demo's functions (app.py) and explain mode (bleu_explain.py), without a browser.

Oracles: `bleu_core.compute_bleu` (the metric's own path, itself checked against sacreBLEU, NLTK
and evaluate's legacy bleu elsewhere), the core's statistics rows, and the numbers the seed
documents print: 0.4671379777282001 and p1..p4 = 5/7, 4/6, 2/5, 1/4 for "the cat the cat on the
mat" (seed 000), 17/18 and 8/14 for the paper's Candidates 1 and 2 (seed 001), 0.7016879391277371
for the evaluate docs' coffee example (seed 003).
"""

from __future__ import annotations

import html
import math
import random
import re

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from space import compare_tab, compare_view, examples, handlers, inputs, layout, options, render, scoring, store
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


def score_text(predictions_text, references_text, form=DEFAULT_FORM, bootstrap=()):
    """run_score's outputs by name (a fresh session: no earlier result)."""
    outputs = handlers.run_score(None, inputs.SOURCE_TEXT, predictions_text, references_text, None, None, *form, *bootstrap)
    return handlers.named(outputs)


def stored(key):
    """The scored corpus a session's state names."""
    scored = store.STORE.get(key)
    assert scored is not None
    return scored


def run_compare(systems_text, references_text, method="bootstrap", samples=None, seed="", form=DEFAULT_FORM, baseline=None):
    """The Compare tab's outputs by name, for pasted systems."""
    outputs = compare_tab.run_compare(None, inputs.SOURCE_TEXT, systems_text, references_text, None, None, baseline,
                                      method, samples, seed, *form)
    named = dict(zip(compare_tab.COMPARE_OUTPUTS, outputs))
    named["table"] = html_table(named["table"])
    return named


def html_table(page):
    """The rows of an HTML table as a DataFrame of its cell texts."""
    import pandas as pd

    def cells(row, tag):
        return [html.unescape(cell) for cell in re.findall(rf"<{tag}>(.*?)</{tag}>", row)]

    rows = re.findall(r"<tr>(.*?)</tr>", page)
    return pd.DataFrame([cells(row, "td") for row in rows[1:]], columns=cells(rows[0], "th")) if rows else pd.DataFrame()


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
    outputs = score_text("\n".join(hypothesis), "\n".join(reference), bootstrap=(200, "7"))
    expected = compute_bleu(hypothesis, [[r] for r in reference], bootstrap_samples=200, bootstrap_seed=7)
    assert outputs["json"] == expected and "bleu_ci_low" in expected
    # One meaning per box, on both tabs: blank seed is sacreBLEU's 12345 (the metric's default), `none` is fresh.
    assert inputs.parse_bootstrap(0, "") == (0, 12345) and inputs.parse_bootstrap("1000", 12) == (1000, 12)
    assert inputs.parse_bootstrap("", " None ") == (0, None) and inputs.parse_bootstrap(None, "12345") == (0, 12345)
    blank = score_text("\n".join(hypothesis), "\n".join(reference), bootstrap=(200, ""))
    assert blank["json"] == compute_bleu(hypothesis, [[r] for r in reference], bootstrap_samples=200)
    for samples, seed, message in [(1.5, "", "bootstrap resamples 1.5"), (10, "abc", "seed 'abc'"),
                                   (10**6, "", "more than the page allows")]:
        with pytest.raises(ValueError, match=message):
            inputs.parse_bootstrap(samples, seed)


def test_sentence_level_smoothers_warn_where_they_are_chosen():
    for method in ("method5", "method7"):
        value_box, note = options.smooth_value_hint(method)
        assert note.visible is True and "sentence-level smoother" in note.value and "0.3714" in note.value
    assert options.smooth_value_hint("exp")[1].visible is False
    assert options.smooth_value_hint("none")[0].interactive is False


def test_every_tokenizer_and_smoothing_in_the_form_is_one_the_core_accepts():
    from bleu_tokenizers import TOKENIZERS

    assert [value for _, value in options.TOKENIZER_CHOICES] == list(TOKENIZERS)  # a new tokenizer is listed
    for _, tokenizer in options.TOKENIZER_CHOICES:
        for _, smooth in options.SMOOTH_CHOICES:
            resolve_options(**inputs.option_kwargs(tokenizer, False, 4, "", smooth, "", "closest", False))


# ------------------------------------------------------------------ scoring through the page


def test_score_equals_the_module_and_the_seed():
    out = score_text(CAT, "\n---\n".join(CAT_REFS), NONE_FORM)
    expected = compute_bleu([CAT], [CAT_REFS], tokenizer="none")
    assert out["json"] == expected
    assert out["json"]["bleu"] == pytest.approx(0.4671379777282001, rel=1e-12)  # seed 000
    assert f'data-bleu="{expected["bleu"]!r}"' in out["score_view"] and ">0.4671<" in out["score_view"]
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
    key = out["state"]
    texts = stored(key).texts.path
    assert isinstance(key, str) and texts.exists()  # the session holds a key; the texts are on disk
    handlers.release_state(key)
    assert store.STORE.get(key) is None and not texts.exists()
    assert store.EXPIRED in handlers.run_explain(key, 1) and handlers.run_page(key, 1, "segment")[1] == store.EXPIRED
    handlers.release_state(None)


def test_a_paste_past_the_limit_points_to_upload():
    big = "a\n" * (inputs.MAX_PASTED_CHARS // 2 + 1)
    out = score_text(big, big)
    assert "use the Upload files tab" in out["status"].value and "1,000,000" in out["status"].value
    status = run_compare(big + "===\n" + big, "a")["status"]
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
        ("", "a", DEFAULT_FORM, "the predictions box is empty"),
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
    outputs = handlers.run_example(None, predictions_text, references_text, *form)
    assert outputs[1] == inputs.SOURCE_TEXT  # switched to the text tab
    result = handlers.named(outputs[2:])["json"]
    predictions = inputs.split_lines(predictions_text)
    references = inputs.references_per_segment(inputs.parse_reference_sets(references_text), len(predictions))
    assert result == compute_bleu(predictions, references, **inputs.option_kwargs(*form))


def test_examples_reproduce_the_seed_numbers():
    results = {label: handlers.named(handlers.run_example(None, *row)[2:])["json"] for label, row in examples.EXAMPLES}
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
    tokenizer=st.sampled_from(sorted(v for _, v in options.TOKENIZER_CHOICES)),
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
    # sacreBLEU's numbers: μ = the resamples' mean ± half the 95% interval's width; the interval's ends in the title.
    half = (expected["bleu_ci_high"] - expected["bleu_ci_low"]) / 2
    assert f"μ = {100 * expected['bleu_bootstrap_mean']:.2f} ± {100 * half:.2f}" in card
    assert f"μ = {expected['bleu_bootstrap_mean']:.4f} ± {half:.4f}" in card
    assert f"95% interval {expected['bleu_ci_low']:.4f}–{expected['bleu_ci_high']:.4f}" in card
    assert "bootstrap, 100 resamples, seed 3" in card


# ------------------------------------------------------------------ Compare systems


def test_compare_tab_gives_bleu_compare_numbers_and_the_segments_that_differ_most():
    from bleu_compare import compare

    reference = wmt17_lines("newstest2017-ende.ref.de")[:200]
    first, second = wmt17_lines("uedin-nmt.4722.de")[:200], wmt17_lines("online-B.0.de")[:200]
    out = run_compare("\n".join(first) + "\n\n===\n\n" + "\n".join(second), "\n".join(reference), samples=200,
                      seed="7", baseline="system 2")
    expected = compare({"system 1": first, "system 2": second}, [[r] for r in reference], samples=200, seed=7,
                       baseline="system 2")
    assert out["status"].visible is False
    table = out["table"]
    assert table["system"].tolist() == ["system 2", "system 1"]  # the chosen baseline first
    assert table["BLEU"].tolist() == [f"{100 * row['bleu']:.2f}" for row in expected["systems"]]
    assert table["p-value"].tolist() == ["baseline", f"{expected['systems'][1]['p_value']:.4f}"]
    assert table["μ ± ci (95%)"].iloc[1] == f"{100 * expected['systems'][1]['mean']:.2f} ± {100 * expected['systems'][1]['ci']:.2f}"
    assert out["plot"].count('class="ci-row"') == 2 and expected["signature"] in out["caption"]
    # The differences: system 1 against the baseline, largest first, with the reference and both outputs.
    oracle = {name: [sacrebleu.BLEU(effective_order=True).sentence_score(h, [r]).score / 100 for h, r in zip(lines, reference)]
              for name, lines in (("system 1", first), ("system 2", second))}
    gaps = [a - b for a, b in zip(oracle["system 1"], oracle["system 2"])]
    assert out["against"].choices == [("system 1", "system 1")] and out["against"].value == "system 1"
    compared = stored(out["state"])
    frame = compare_view.differences_frame(compared, "system 1")
    top = int(frame["#"].iloc[0]) - 1
    assert abs(gaps[top]) == pytest.approx(max(abs(g) for g in gaps), abs=1e-12)
    assert frame["difference"].iloc[0] == pytest.approx(gaps[top], abs=1e-12)
    assert frame["references"].iloc[0] == [reference[top]]
    assert (frame["output system 2"].iloc[0], frame["output system 1"].iloc[0]) == (second[top], first[top])
    view = out["differences"]
    assert view.index(f"segment {top + 1:,}") < view.index(f"{gaps[top]:+.4f}") < view.index(html.escape(reference[top]))
    assert html.escape(first[top]) in view and html.escape(second[top]) in view
    assert compare_tab.show_differences(out["state"], "system 1") == view


def test_compare_tab_explains_bad_input():
    status = run_compare("a b", "a b")["status"]
    assert status.visible is True and "paste two or more systems" in status.value
    status = run_compare("a\n===\nb\nc", "a", method="ar")["status"]
    assert "Cannot compare" in status.value and "system 'system 2'" in status.value
    status = run_compare("a\n===\nb", "a", baseline="system 9")["status"]
    assert "baseline 'system 9' is not one of the systems" in status.value
    for samples, message in [(0, "samples 0 is not a whole number >= 1"), (10**6, "more than the page allows")]:
        assert message in run_compare("a\n===\nb", "a", samples=samples)["status"].value


def test_compare_samples_and_seed_boxes_mean_what_they_show():
    """Issue 20, point 5: the samples box shows the number used (1,000 resamples, 10,000 trials), the seed
    box 12345 (blank is the same), `none` draws fresh randomness; as sacreBLEU's CLI."""
    from bleu_compare import compare

    assert compare_tab.default_samples("bootstrap") == 1000 and compare_tab.default_samples("ar") == 10000
    assert compare_view.parse_test_samples(None, "ar") == 10000 and compare_view.parse_test_samples("", "bootstrap") == 1000
    reference = wmt17_lines("newstest2017-ende.ref.de")[:120]
    first, second = wmt17_lines("uedin-nmt.4722.de")[:120], wmt17_lines("KIT.4950.de")[:120]
    pasted = "\n".join(first) + "\n===\n" + "\n".join(second)
    expected = compare({"system 1": first, "system 2": second}, [[r] for r in reference], method="ar")
    for seed in ("", "12345"):
        out = run_compare(pasted, "\n".join(reference), method="ar", samples=10000, seed=seed)
        assert out["table"]["p-value"].iloc[1] == f"{expected['systems'][1]['p_value']:.4f}"
        assert "approximate randomization, 10,000 trials, seed 12345" in out["caption"]
    fresh = run_compare(pasted, "\n".join(reference), samples=50, seed="none")
    assert "seed none" in fresh["caption"] and "|seed:none" in fresh["caption"]


def test_a_paired_test_on_few_segments_is_shown_with_a_warning():
    one = run_compare("a b c\n===\na b d", "a b c")
    assert one["status"].visible is True and "Only 1 segment" in one["status"].value
    assert "0.0010 here is only the smallest the test can report" in one["status"].value
    assert "1 segment;" in one["caption"] and "1 segments" not in one["caption"] + one["differences"]
    assert "The 1 segment where" in one["differences"]
    reference = wmt17_lines("newstest2017-ende.ref.de")[:40]
    few = run_compare("\n".join(wmt17_lines("uedin-nmt.4722.de")[:40]) + "\n===\n" + "\n".join(reference[::-1]),
                      "\n".join(reference))
    assert "Only 40 segments" in few["status"].value and "rough" in few["status"].value
    many = run_compare("\n".join(wmt17_lines("uedin-nmt.4722.de")[:100]) + "\n===\n" + "\n".join(wmt17_lines("KIT.4950.de")[:100]),
                       "\n".join(wmt17_lines("newstest2017-ende.ref.de")[:100]))
    assert many["status"].visible is False


def test_interval_plot_fits_its_axis_to_the_systems_and_has_ticks():
    """Issue 20, point 4: four systems at 26.0-26.6 were 5 px apart on a 0-based axis, their bars hidden."""
    rows = [{"name": n, "bleu": b, "mean": b, "ci": 0.0065, "p_value": None}
            for n, b in [("A", 0.2600), ("B", 0.2620), ("C", 0.2640), ("D", 0.2660)]]
    plot = compare_view.interval_html({"systems": rows})
    ticks = [float(value) for value in re.findall(r'class="ci-tick" style="left:[\d.]+%">([\d.]+)<', plot)]
    assert len(ticks) >= 3 and ticks[0] > 20 and ticks[-1] < 30  # not 0 to 100
    dots = [float(x) for x in re.findall(r'class="ci-dot" style="left:([\d.]+)%"', plot)]
    assert dots == sorted(dots) and min(b - a for a, b in zip(dots, dots[1:])) > 8  # 0.2 apart: 8% of the track
    assert all(0 <= x <= 100 for x in dots)
    assert compare_view.nice_ticks(25.2, 27.4) == [25.5, 26.0, 26.5, 27.0]


def test_baseline_menu_follows_the_systems_in_the_form(tmp_path):
    menu = compare_tab.baseline_choices(inputs.SOURCE_TEXT, "a\n===\nb\n===\nc", None, None)
    assert [value for _, value in menu.choices] == ["system 1", "system 2", "system 3"] and menu.value == "system 1"
    assert compare_tab.baseline_choices(inputs.SOURCE_TEXT, "a\n===\nb\n===\nc", None, "system 3").value == "system 3"
    files = []
    for name in ("uedin.txt", "kit.txt"):
        (tmp_path / name).write_text("x\n", encoding="utf-8")
        files.append(str(tmp_path / name))
    menu = compare_tab.baseline_choices(inputs.SOURCE_FILES, "", files, "system 3")
    assert [value for _, value in menu.choices] == ["uedin.txt", "kit.txt"] and menu.value == "uedin.txt"


def test_a_new_upload_replaces_the_files_in_the_browser_without_a_request():
    """Issue 20, point 4: Gradio appends a second upload to a multiple-file field (5 systems, not 3). The
    replacement runs in the browser (a JS-only event), so Score right after an upload does not wait for
    the server; the browser tests upload twice."""
    from space.uploads import KEEP_LATEST_JS

    demo = layout.build_demo()
    by_elem = {getattr(block, "elem_id", None): block._id for block in demo.blocks.values()}
    for field in ("reference-files", "compare-system-files", "compare-reference-files"):
        uploads = [d for d in demo.config["dependencies"] if [by_elem[field], "upload"] in [list(x) for x in d["targets"]]]
        assert len(uploads) == 1 and uploads[0]["backend_fn"] is False and "list.slice(before.length)" in uploads[0]["js"]
    assert "FIELD" in KEEP_LATEST_JS


# ------------------------------------------------------------------ options (issue 20, point 1)


def test_the_options_header_states_the_options_in_force():
    assert options.options_header(*options.DEFAULT_FORM) == "Options: tokenizer 13a, order 4, no smoothing (the defaults)"
    bigram = ("13a", True, 4, "0.5, 0.5", "none", "", "closest", False)
    assert options.options_header(*bigram) == (
        "Options: tokenizer 13a, order 2, no smoothing, lowercased (changed from the defaults)")
    assert options.options_header("none", False, 3, "", "floor", "0.2", "shortest", True) == (
        "Options: tokenizer none, order 3, smoothing floor 0.2, shortest reference length, effective order "
        "(changed from the defaults)")
    assert options.options_header("13a", False, 9, "", "none", "", "closest", False).startswith("Options: ⚠️ max n-gram order")
    assert options.reset_form() == options.DEFAULT_FORM


def test_an_example_with_its_own_options_opens_them_and_the_card_states_them():
    label, row = next(item for item in examples.EXAMPLES if item[0].startswith("Bigram BLEU"))
    outputs = handlers.named(handlers.run_example(None, *row)[2:])
    assert outputs["options"].open is True and "lowercased" in outputs["options"].label
    assert "Scored with: tokenizer 13a, order 2, no smoothing, lowercased" in outputs["score_view"]
    assert "(not the defaults)" in outputs["score_view"]
    _, plain = next(item for item in examples.EXAMPLES if item[0].startswith("evaluate docs: coffee"))
    coffee = handlers.named(handlers.run_example(None, *plain)[2:])
    assert coffee["options"].open is True  # shortest reference length is not the default either
    _, cat = examples.EXAMPLES[0]
    cat_outputs = handlers.named(handlers.run_example(None, *cat)[2:])
    assert cat_outputs["options"].open is True  # tokenizer none is not the default either
    default = score_text("a b c d", "a b c d")
    assert "Scored with: tokenizer 13a, order 4, no smoothing" in default["score_view"]
    assert "not the defaults" not in default["score_view"]


def test_each_tab_scores_with_its_own_options():
    """An example on the Score tab sets the Score tab's options only: Compare reads its own panel."""
    demo = layout.build_demo()
    blocks = demo.blocks
    by_elem = {getattr(block, "elem_id", None): block._id for block in blocks.values()}
    dependencies = demo.config["dependencies"]
    def inputs_of(button):
        return next(d["inputs"] for d in dependencies if [by_elem[button], "click"] in [list(x) for x in d["targets"]])
    score_options = {by_elem[name] for name in ("tokenizer", "lowercase", "max-order", "weights", "smooth")}
    compare_options = {by_elem["compare-" + name] for name in ("tokenizer", "lowercase", "max-order", "weights", "smooth")}
    assert score_options <= set(inputs_of("score-button")) and not score_options & set(inputs_of("compare-button"))
    assert compare_options <= set(inputs_of("compare-button"))


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


# ------------------------------------------------------------------ memory (issue 20, point 7)


def test_a_session_keeps_statistics_rows_not_texts():
    hypothesis = wmt17_lines("uedin-nmt.4722.de")
    reference = wmt17_lines("newstest2017-ende.ref.de")
    scored = stored(score_text("\n".join(hypothesis), "\n".join(reference))["state"])
    assert not any(isinstance(value, (list, str)) for value in vars(scored).values())
    assert store.memory_bytes(scored) < 400_000  # 3,004 segments: rows and offsets, about 0.35 MB
    assert store.disk_bytes(scored) == sum(len(line.encode()) for line in hypothesis + reference)
    assert scored.segment(1244) == (hypothesis[1244], [reference[1244]])


def test_the_store_is_bounded_and_drops_the_least_recently_used():
    bounded = store.ResultStore(max_memory=3 * store.ENTRY_OVERHEAD_BYTES + 3000, max_disk=10**9)
    entries = [scoring.score_corpus([f"a b {i}"], [[f"a b {i}"]], {"tokenizer": "13a"}) for i in range(5)]
    keys = [bounded.put(entry) for entry in entries]
    assert len(bounded) == 3 and bounded.memory <= bounded.max_memory
    assert bounded.get(keys[0]) is None and not entries[0].texts.path.exists()  # dropped, file deleted
    assert bounded.get(keys[2]) is entries[2]  # touched: now the most recent
    bounded.put(scoring.score_corpus(["x"], [["x"]], {"tokenizer": "13a"}))
    assert bounded.get(keys[3]) is None and bounded.get(keys[2]) is entries[2]
    by_disk = store.ResultStore(max_memory=10**9, max_disk=10)
    first = by_disk.put(scoring.score_corpus(["aaaa"], [["bbbb"]], {}))
    by_disk.put(scoring.score_corpus(["cccc"], [["dddd"]], {}))
    assert by_disk.get(first) is None and len(by_disk) == 1 and by_disk.disk == 8


# ------------------------------------------------------------------ smaller points (issue 20, point 8)


def test_empty_inputs_name_what_is_empty(tmp_path):
    empty, reference, two = tmp_path / "hyp.txt", tmp_path / "ref.txt", tmp_path / "two.txt"
    empty.write_text("", encoding="utf-8")
    reference.write_text("a\n", encoding="utf-8")
    two.write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(ValueError, match="^the hypothesis file 'hyp.txt' is empty; upload a file with one prediction per line$"):
        inputs.load_inputs(inputs.SOURCE_FILES, "", "", str(empty), [str(reference)])
    with pytest.raises(ValueError, match=r"reference file 1 \('ref.txt'\) has 1 line but there are 2 predictions"):
        inputs.load_inputs(inputs.SOURCE_FILES, "", "", str(two), [str(reference)])
    assert "or upload a hypothesis file" not in score_text("", "a")["status"].value
    assert scoring.plural(1, "segment") == "1 segment" and scoring.plural(3004, "segment") == "3,004 segments"
    assert [label for label, _ in compare_view.METHOD_CHOICES] == ["paired bootstrap", "approximate randomization"]

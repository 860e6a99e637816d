"""The Space demo's Score tab without a browser: reading the inputs, scoring through the page, the
MT-native output (summary line, downloads, the card), the examples and issue 20's smaller points.

Oracles: `bleukit.core.compute_bleu` (the metric's own path, itself checked against sacreBLEU, NLTK
and evaluate's legacy bleu elsewhere), the core's statistics rows, and the numbers the seed
documents print: 0.4671379777282001 and p1..p4 = 5/7, 4/6, 2/5, 1/4 for "the cat the cat on the
mat" (seed 000), 17/18 and 8/14 for the paper's Candidates 1 and 2 (seed 001), 0.7016879391277371
for the evaluate docs' coffee example (seed 003).
"""

from __future__ import annotations

import math

import pytest
import sacrebleu

from space import compare_view, examples, handlers, inputs, layout, options, render, scoring
import space.explain as bleu_explain
from bleukit.core import compute_bleu, segment_statistics
from bleukit.options import resolve_options
from bleukit.counting.stats import matches_of
from conftest import wmt17_lines
from space_calls import CAT, CAT_REFS, DEFAULT_FORM, NONE_FORM, score_text, run_compare


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
    assert boxes == set(paste_guard.GUARDED_BOXES) == {"predictions", "references", "compare-systems", "compare-references", "diversity-texts"}
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

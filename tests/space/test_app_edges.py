"""Edges of the Space's page, called as the page calls them (no server, no browser):

1. A change of smoothing method resets the value box (floor 0.2 then method4 scored k = 0.2: BLEU
   1.0002 under a placeholder promising 5), on both tabs' panels; a value the metric refuses for the
   method is refused with the range it takes and what to write instead.
2. Text with a lone surrogate (cut inside an emoji: "caf\\ud83d") is scored on every tab and by every
   reader (pasted, uploaded, examples), and nothing the page sends back holds a surrogate (Gradio's
   JSON encoder refuses them: Error badges, a lost connection).
3. An example scores with the tab's Resamples and seed boxes.
Oracles: sacreBLEU, `bleukit.core.compute_bleu`, `bleukit.significance.compare.compare`,
`bleukit.diversity.pairwise.self_bleu`, each on the raw text (as the API scored it).
"""

from __future__ import annotations

import orjson
import pandas as pd
import pytest
import sacrebleu

from bleukit.core import compute_bleu
from space import api, diversity_view, examples, handlers, inputs, layout, options
from space_calls import DEFAULT_FORM, run_compare, score_text

# ------------------------------------------------------------------ 1. smoothing value


def _triggered_by(demo, elem_id: str, event: str):
    """The page's function run on `event` of the component `elem_id`."""
    block = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == elem_id)
    return next(fn for fn in demo.fns.values() if (block._id, event) in [tuple(t) for t in fn.targets]), block


@pytest.mark.parametrize("prefix", ["", "compare-"])
def test_choosing_a_method_empties_the_value_box_so_its_default_is_scored(prefix):
    """The issue: floor with 0.2, then method4 scored with k = 0.2 (BLEU 1.0002), the placeholder
    saying 5. Now a visitor's choice of method empties the box (on the Score and Compare panels), and
    the emptied form scores method4's default."""
    demo = layout.build_demo()
    chosen, _ = _triggered_by(demo, f"{prefix}smooth", "input")
    value_box = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == f"{prefix}smooth-value")
    assert [output._id for output in chosen.outputs] == [value_box._id]
    box = chosen.fn("method4")
    assert box.value == "" and box.placeholder == "blank = default 5" and box.interactive is True
    assert chosen.fn("exp").value == "" and chosen.fn("exp").interactive is False

    prediction, reference = "you are ready ?", "are you ready ?"
    stale = compute_bleu([prediction], [[reference]], smooth="method4", smooth_value=0.2)
    default = compute_bleu([prediction], [[reference]], smooth="method4")
    assert round(stale["bleu"], 4) == 1.0002 and round(default["bleu"], 4) == 0.2000
    form = ("13a", False, 4, "", "method4", box.value, "closest", False)
    assert score_text(prediction, reference, form)["json"] == default
    assert options.options_header(*form) == "Options: tokenizer 13a, order 4, smoothing method4 5 (changed from the defaults)"
    # An example's own value is left alone by the lock/unlock that follows any change of method.
    assert options.smooth_value_hint("floor")[0].value is None


@pytest.mark.parametrize("method, value, why, fix", [
    ("method4", "-1", "> 0, not -1.0", "leave the box blank for method4's default 5"),
    ("floor", "0", "> 0, not 0.0", "leave the box blank for floor's default 0.1"),
    ("method6", "nan", "> 0, not nan", "leave the box blank for method6's default 5"),
    ("add-k", "inf", "> 0, not inf", "leave the box blank for add-k's default 1"),
    ("none", "0.2", "takes no smooth_value", "clear the box (none takes no value)"),
    ("exp", "0.5", "takes no smooth_value", "clear the box (exp takes no value)"),
])
def test_a_value_the_method_does_not_take_is_refused_with_the_range(method, value, why, fix):
    """The rule is the metric's (bleukit.options.resolve_options); the page says it, and what to write."""
    form = ("13a", False, 4, "", method, value, "closest", False)
    with pytest.raises(ValueError) as refused:
        inputs.option_kwargs(*form)
    message = str(refused.value)
    assert message.startswith(f"smoothing value {value} is refused for {method}: ") and why in message and fix in message
    assert score_text("you are ready ?", "are you ready ?", form)["status"].value == f"⚠️ **Cannot score:** {message}"
    compared = run_compare("a b c\n===\na b d", "a b c", form=form)
    assert compared["status"].value == f"⚠️ **Cannot compare:** {message}"
    assert options.options_header(*form) == f"Options: ⚠️ {message}"


def test_a_value_the_method_takes_is_scored():
    """floor 0.2 on "you are ready ?": sacreBLEU's floor with smooth_value 0.2 gives 28.57."""
    form = ("none", False, 4, "", "floor", " 0.2 ", "closest", False)
    result = score_text("you are ready ?", "are you ready ?", form)["json"]
    sacre = sacrebleu.metrics.BLEU(tokenize="none", smooth_method="floor", smooth_value=0.2)
    assert result["bleu"] == pytest.approx(sacre.corpus_score(["you are ready ?"], [["are you ready ?"]]).score / 100,
                                           abs=1e-12)
    assert round(result["bleu"], 4) == 0.2857


# ------------------------------------------------------------------ 2. lone surrogates

CUT = ["caf\ud83d is open until late tonight", "we met at the caf\ud83d and talked"]  # an emoji cut in two
CUT_REFS = ["caf\u00e9 is open until late tonight", "we met at the caf\ud83d and talked \U0001F600"]


def sendable(value) -> bytes:
    """What Gradio would send of a handler's outputs: every string in them through orjson, which
    refuses a lone surrogate as Gradio's encoder does."""
    def strings(item):
        if isinstance(item, str):
            yield item
        elif isinstance(item, pd.DataFrame):
            yield from strings(item.astype(str).values.tolist())
        elif isinstance(item, dict):
            for key, entry in item.items():
                yield from strings(key)
                yield from strings(entry)
        elif isinstance(item, (list, tuple)):
            for entry in item:
                yield from strings(entry)
        elif hasattr(item, "get_config"):  # a component update: its value and label
            yield from strings(getattr(item, "value", None))
            yield from strings(getattr(item, "label", None))

    return orjson.dumps(list(strings(value)))


def _expected():
    result = compute_bleu(CUT, [[reference] for reference in CUT_REFS])
    sacre = sacrebleu.metrics.BLEU(smooth_method="none").corpus_score(CUT, [CUT_REFS])
    assert round(result["bleu"], 4) == round(sacre.score / 100, 4) == 0.8280
    return result


def test_the_score_tab_scores_pasted_text_cut_inside_an_emoji():
    expected = _expected()
    outputs = score_text("\n".join(CUT), "\n".join(CUT_REFS))
    assert outputs["status"].visible is False and outputs["json"] == expected
    sendable([outputs[name] for name in handlers.SCORE_OUTPUTS if name != "downloads"])
    explained = handlers.run_explain(outputs["state"], 1)
    assert "caf\ufffd" in sendable(explained).decode()
    assert api.score(predictions="\n".join(CUT), references="\n".join(CUT_REFS)) == expected  # the API's number


def test_an_example_path_scores_text_cut_inside_an_emoji():
    outputs = handlers.named(handlers.run_example(None, "\n".join(CUT), "\n".join(CUT_REFS), *DEFAULT_FORM)[2:])
    assert outputs["json"] == _expected()
    sendable([outputs[name] for name in handlers.SCORE_OUTPUTS if name != "downloads"])


def test_uploaded_files_with_a_lone_surrogate_are_read_and_cut_bytes_are_refused(tmp_path):
    """A lone surrogate written to a file (Python's surrogatepass, WTF-8) is read like pasted text;
    bytes cut inside a character are not UTF-8, and say so."""
    hypothesis, reference = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hypothesis.write_bytes("\n".join(CUT).encode("utf-8", "surrogatepass") + b"\n")
    reference.write_bytes("\n".join(CUT_REFS).encode("utf-8", "surrogatepass") + b"\n")
    outputs = handlers.named(handlers.run_score(None, inputs.SOURCE_FILES, "", "", str(hypothesis), [str(reference)],
                                                *DEFAULT_FORM))
    assert outputs["status"].visible is False and outputs["json"] == _expected()
    sendable([outputs[name] for name in handlers.SCORE_OUTPUTS if name != "downloads"])
    assert inputs.read_lines_file(str(hypothesis), "hypothesis file")[0] == "caf\ufffd is open until late tonight"
    cut_bytes = tmp_path / "cut.txt"
    cut_bytes.write_bytes("caf\U0001F600".encode("utf-8")[:5] + b"\n")
    with pytest.raises(ValueError, match=r"hypothesis file 'cut.txt' is not UTF-8 text \(byte 3\)"):
        inputs.read_lines_file(str(cut_bytes), "hypothesis file")


def test_the_compare_tab_compares_systems_cut_inside_an_emoji():
    from bleukit.significance.compare import compare

    other = [line.replace("tonight", "today") for line in CUT]
    outputs = run_compare("\n".join(CUT) + "\n===\n" + "\n".join(other), "\n".join(CUT_REFS), samples=1000)
    expected = compare({"system 1": CUT, "system 2": other}, CUT_REFS, samples=1000)["systems"]
    sacre = [sacrebleu.metrics.BLEU(smooth_method="none").corpus_score(system, [CUT_REFS]).score for system in (CUT, other)]
    assert [round(row["bleu"], 4) for row in expected] == [round(s / 100, 4) for s in sacre] == [0.8280, 0.7292]
    table = outputs["table"]
    # The cell shows 0-1 with 4 digits and/or 0-100 with 2 (the page's scale toggle picks one).
    assert all(f"{row['bleu']:.4f}" in cell or f"{100 * row['bleu']:.2f}" in cell
               for row, cell in zip(expected, table["BLEU"]))
    assert table["p-value"].tolist() == ["baseline", f"{expected[1]['p_value']:.4f}"] == ["baseline", "0.2667"]
    assert "caf\ufffd" in sendable(list(outputs.values())).decode()


def test_the_diversity_tab_measures_texts_cut_inside_an_emoji():
    from bleukit.diversity.pairwise import self_bleu

    texts = CUT + CUT_REFS
    outputs = diversity_view.run_diversity(inputs.SOURCE_TEXT, "\n".join(texts), None, "13a", False, 4, "sacrebleu")
    expected = self_bleu(texts)
    assert round(expected["self_bleu"], 4) == 0.8490
    assert f'data-self-bleu="{expected["self_bleu"]!r}"' in outputs[1] and outputs[2] == expected["signature"]
    assert "caf\ufffd" in sendable(outputs).decode()  # the pairs list shows the texts
    assert api.diversity(texts="\n".join(texts))["self_bleu"] == expected["self_bleu"]


def test_the_readers_keep_every_other_character():
    """The page's and the API's readers: a lone surrogate becomes U+FFFD, a split pair its character."""
    assert inputs.split_lines("caf\ud83d\n\ude00x\ncaf\ud83d\ude00") == ["caf\ufffd", "\ufffdx", "caf\U0001F600"]
    assert inputs.parse_reference_sets("caf\ud83d\n---\ncafé") == [["caf\ufffd"], ["café"]]
    assert diversity_view.read_texts(inputs.SOURCE_TEXT, "caf\ud83d\nb", None) == ["caf\ufffd", "b"]
    text = "café 😀 日本語 \u0301 ascii"
    assert inputs.split_lines(text) == [text]


# ------------------------------------------------------------------ 3. examples and the Resamples box


def test_an_example_scores_with_the_tabs_resamples_and_seed():
    """The issue: Resamples showing 1000, an example clicked, no interval (the next Score used it)."""
    demo = layout.build_demo()
    example_run = next(fn for fn in demo.fns.values() if getattr(fn.fn, "__name__", "") == "run_example")
    ids = [getattr(block, "elem_id", None) for block in example_run.inputs]
    assert ids[-2:] == ["bootstrap-samples", "bootstrap-seed"]

    label, row = next(item for item in examples.EXAMPLES if item[0].startswith("Paper: Candidate 1 vs 2"))
    outputs = handlers.named(handlers.run_example(None, *row, 1000, "12345")[2:])
    predictions = row[0].split("\n")
    without = handlers.named(handlers.run_example(None, *row)[2:])
    expected = compute_bleu(predictions, inputs.references_per_segment(inputs.parse_reference_sets(row[1]), 2),
                            tokenizer="none", lowercase=True, bootstrap_samples=1000, bootstrap_seed=12345)
    assert outputs["json"] == expected and "bleu_ci_low" in expected
    assert "bleu_ci_low" not in without["json"]  # no Resamples box given (the 8 options only): no interval
    assert "bs:1000|seed:12345" in outputs["signature"]


# ------------------------------------------------------------------ 6. the API's resample cap is the page's


def test_the_api_caps_resamples_as_the_page_does():
    """100,000 resamples made a small /score wait 4.8 s; the page stops at 10,000 (the Compare tab at
    100,000 resamples or trials), and now the API stops at the same constants, saying so."""
    import gradio as gr

    from space.compare_view import MAX_TEST_SAMPLES

    assert (inputs.MAX_BOOTSTRAP_SAMPLES, MAX_TEST_SAMPLES) == (10_000, 100_000)
    with pytest.raises(ValueError, match=r"bootstrap resamples 10,001 is more than the page allows \(10,000\)"):
        inputs.parse_bootstrap(10_001, "")
    with pytest.raises(gr.Error, match=r"bootstrap_samples 10,001 is more than this Space's API allows \(10,000\); "
                                       r"pass at most 10,000"):
        api.score(predictions="\n".join(CUT), references="\n".join(CUT_REFS), bootstrap_samples=10_001)
    with pytest.raises(gr.Error, match=r"samples 100,001 is more than this Space's API allows \(100,000\)"):
        api.compare(systems="a b c\n===\na b d", references="a b c", samples=100_001)
    at_limit = api.score(predictions="\n".join(CUT), references="\n".join(CUT_REFS), bootstrap_samples=10_000)
    assert at_limit == compute_bleu(CUT, [[r] for r in CUT_REFS], bootstrap_samples=10_000)
    assert round(at_limit["bleu"], 4) == 0.8280 and "bleu_ci_low" in at_limit

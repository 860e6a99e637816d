"""The Space's options: the form's boxes become the metric's arguments (refused, never rounded, when
wrong), each tab has its own panel, and the panel's title and the score card state the options in
force, also after an example set them (issue 20, point 1).
"""

from __future__ import annotations

import pytest

from space import examples, handlers, inputs, layout, options
from bleukit.core import compute_bleu
from bleukit.options import resolve_options
from conftest import wmt17_lines
from space_calls import DEFAULT_FORM, score_text


# ------------------------------------------------------------------ the form


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
    """Every one that can be made here (a tokenizer whose package or model file is missing says so in
    its label, and tests/test_app_languages.py checks the message it gives)."""
    from bleukit.tokenizers.registry import TOKENIZERS, unavailable_reason

    # A new tokenizer is listed; "spm" is flores101's old name.
    assert [value for _, value in options.TOKENIZER_CHOICES] == [name for name in TOKENIZERS if name != "spm"]
    for label, tokenizer in options.TOKENIZER_CHOICES:
        if unavailable_reason(tokenizer) is not None:
            assert label.endswith(unavailable_reason(tokenizer))
            continue
        for _, smooth in options.SMOOTH_CHOICES:
            resolve_options(**inputs.option_kwargs(tokenizer, False, 4, "", smooth, "", "closest", False))

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

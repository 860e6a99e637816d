"""Bad input gets a ValueError or TypeError that says what and where; degenerate valid input gets numbers.

Every case goes through the metric as users load it, so the checks are proven to run before
`evaluate` casts the inputs (the cast would otherwise turn some mistakes into silent scores).
"""

from __future__ import annotations

import math

import pytest
import sacrebleu

from bleukit.core import compute_bleu

DOCUMENTED_KEYS = {"bleu", "precisions", "brevity_penalty", "length_ratio", "translation_length", "reference_length"}


def assert_all_finite(result: dict) -> None:
    numbers = [result[k] for k in ("bleu", "brevity_penalty", "length_ratio")] + list(result["precisions"])
    assert all(isinstance(x, float) and math.isfinite(x) for x in numbers), result


BAD_INPUTS = [
    # (what, kwargs, exception, words the message must contain)
    ("counts differ", dict(predictions=["a", "b"], references=["a"]), ValueError, ["2 predictions", "1 references"]),
    ("no predictions", dict(predictions=[], references=[]), ValueError, ["empty", "at least one"]),
    ("predictions missing", dict(predictions=None, references=["a"]), TypeError, ["predictions", "missing"]),
    ("bare prediction string", dict(predictions="a b", references=["a b"]), TypeError, ["single string", "list"]),
    ("None prediction", dict(predictions=["a", None], references=["a", "b"]), TypeError, ["predictions[1]", "string"]),
    ("int prediction", dict(predictions=[3], references=["a"]), TypeError, ["predictions[0]"]),
    ("number reference", dict(predictions=["a", "b"], references=[["a"], ["b", 3]]), TypeError,
     ["references[1][1]", "string", "None, which pads"]),
    ("only None references", dict(predictions=["a", "b"], references=[["a"], [None, None]]), ValueError,
     ["prediction 1 has no references", "only None"]),
    ("transposed references", dict(predictions=["a", "b"], references=[["a", "b"], ["c", None], ["d", "e"]]),
     ValueError, ["looks transposed", "3 lists of 2 references", "zip(*references)"]),
    ("no references", dict(predictions=["a", "b"], references=[["a"], []]), ValueError,
     ["prediction 1 has no references", "at least one"]),
    ("bare string beside lists", dict(predictions=["a", "b"], references=[["a"], "b"]), ValueError,
     ["references[1]", "bare string", "['b']"]),
    ("list beside strings", dict(predictions=["a", "b"], references=["a", ["b"]]), ValueError,
     ["references[1]", "mixes shapes"]),
]


@pytest.mark.parametrize("what, kwargs, error, words", BAD_INPUTS, ids=[case[0] for case in BAD_INPUTS])
def test_bad_inputs_get_clear_errors(bleu, what, kwargs, error, words):
    with pytest.raises(error) as raised:
        bleu.compute(**kwargs)
    for word in words:
        assert word in str(raised.value), (word, str(raised.value))


def test_bare_string_beside_lists_is_caught_before_the_cast(bleu):
    """Unchecked, evaluate's cast would turn the bare string 'b c' into references ['b', ' ', 'c']."""
    with pytest.raises(ValueError, match=r"references\[1\] is a bare string"):
        bleu.compute(predictions=["a", "b c"], references=[["a"], "b c"])


BAD_OPTIONS = [
    ("unknown tokenizer", dict(tokenizer="moses"), ValueError, ["unknown tokenizer 'moses'", "13a"]),
    ("tokenizer not callable", dict(tokenizer=3), TypeError, ["tokenizer must be"]),
    ("unknown smoothing", dict(smooth="laplace"), ValueError, ["unknown smooth 'laplace'", "method7"]),
    ("unknown ref_length", dict(ref_length="average"), ValueError, ["unknown ref_length 'average'", "closest"]),
    ("max_order 0", dict(max_order=0), ValueError, ["max_order", ">= 1"]),
    ("max_order float", dict(max_order=2.5), TypeError, ["max_order", "integer"]),
    ("max_order bool", dict(max_order=True), TypeError, ["max_order"]),
    ("weights too short", dict(max_order=4, weights=[0.5, 0.5]), ValueError, ["2 entries", "max_order is 4"]),
    ("negative weight", dict(weights=[0.5, -0.5]), ValueError, ["weights[1]", ">= 0"]),
    ("all-zero weights", dict(weights=[0, 0]), ValueError, ["all weights are 0"]),
    ("smooth_value without a value", dict(smooth="exp", smooth_value=0.5), ValueError, ["takes no smooth_value"]),
    ("negative smooth_value", dict(smooth="floor", smooth_value=-1), ValueError, ["smooth_value", "> 0"]),
    ("lowercase not bool", dict(lowercase="yes"), TypeError, ["lowercase"]),
    ("misspelt option", dict(smoth=True), TypeError, ["unknown option", "smoth", "smooth"]),
    ("bootstrap negative", dict(bootstrap_samples=-1), ValueError, ["bootstrap_samples"]),
]


@pytest.mark.parametrize("what, options, error, words", BAD_OPTIONS, ids=[case[0] for case in BAD_OPTIONS])
def test_bad_options_get_clear_errors(bleu, what, options, error, words):
    with pytest.raises(error) as raised:
        bleu.compute(predictions=["a b c d"], references=["a b c d"], **options)
    for word in words:
        assert word in str(raised.value), (word, str(raised.value))


@pytest.mark.parametrize(
    "tokenizer, returned",
    [(lambda s: s.split(" ") and tuple(s.split()), "tuple"), (lambda s: [len(w) for w in s.split()], "list")],
    ids=["tuple", "ints"],
)
def test_tokenizer_returning_something_else_is_named(bleu, tokenizer, returned):
    with pytest.raises(TypeError, match="must return a list of token strings") as raised:
        bleu.compute(predictions=["a b"], references=["a b"], tokenizer=tokenizer)
    assert returned in str(raised.value)


def test_add_batch_rejects_mixed_shapes():
    import evaluate

    from conftest import METRIC_PATH

    metric = evaluate.load(str(METRIC_PATH))
    with pytest.raises(ValueError, match=r"references\[1\] is a bare string"):
        metric.add_batch(predictions=["a", "b"], references=[["a"], "b"])
    with pytest.raises(TypeError, match=r"predictions\[0\]"):
        metric.add(prediction=None, reference="a")


# Degenerate but valid input: defined numbers, never ZeroDivisionError.
EDGE_CASES = [
    ("empty prediction", [""], [["the cat"]]),
    ("empty prediction and reference", [""], [[""]]),
    ("reference is a lone form feed", ["the cat"], [["\f"]]),
    ("all empty corpus", ["", "", ""], [[""], [""], [""]]),
    ("whitespace only", ["   ", "\t"], [["  "], ["\n"]]),
    ("one token, order 4", ["cat"], [["cat"]]),
]


@pytest.mark.parametrize("what, predictions, references", EDGE_CASES, ids=[case[0] for case in EDGE_CASES])
@pytest.mark.parametrize("smooth", [False, True, "floor", "add-k", "exp", "method1", "method4", "method5", "method6", "method7"])
def test_degenerate_inputs_score_without_errors(bleu, what, predictions, references, smooth):
    result = bleu.compute(predictions=predictions, references=references, smooth=smooth)
    assert DOCUMENTED_KEYS <= set(result)
    assert_all_finite(result)
    assert 0.0 <= result["bleu"] <= 1.0


def test_empty_everything_is_zero_with_zero_ratio(bleu):
    result = bleu.compute(predictions=["", ""], references=[["\f"], [""]])
    assert (result["bleu"], result["translation_length"], result["reference_length"]) == (0.0, 0, 0)
    assert result["length_ratio"] == 0.0
    assert result["precisions"] == [0.0, 0.0, 0.0, 0.0]


def test_empty_prediction_against_real_reference_matches_sacrebleu(bleu):
    result = bleu.compute(predictions=["", "the cat sat on the mat"], references=["a cat", "the cat sat on the mat"])
    oracle = sacrebleu.corpus_bleu(["", "the cat sat on the mat"], [["a cat", "the cat sat on the mat"]],
                                   smooth_method="none")
    assert result["bleu"] == pytest.approx(oracle.score / 100, rel=1e-12)
    assert result["brevity_penalty"] == pytest.approx(oracle.bp, rel=1e-12)


def test_legacy_add_one_on_an_empty_corpus_is_zero_not_an_error():
    """evaluate's legacy bleu raises ZeroDivisionError on both; add-one must not make them 1.0."""
    empty_both = compute_bleu([""], [[""]], smooth=True)
    assert (empty_both["bleu"], empty_both["brevity_penalty"], empty_both["length_ratio"]) == (0.0, 1.0, 0.0)
    empty_output = compute_bleu([""], [["the cat"]], smooth=True)
    assert (empty_output["bleu"], empty_output["brevity_penalty"], empty_output["length_ratio"]) == (0.0, 0.0, 0.0)


def test_references_may_vary_in_number(bleu):
    result = bleu.compute(
        predictions=["the cat sat", "a dog barked loudly"],
        references=[["the cat sat"], ["a dog barked", "the dog barked loudly", "a dog barked loudly"]],
    )
    assert result["bleu"] == 1.0
    assert result["signature"].startswith("nrefs:var|")


def test_tuples_and_one_string_per_prediction_are_accepted(bleu):
    as_lists = bleu.compute(predictions=["the cat sat on the mat"], references=[["the cat sat on a mat"]])
    as_tuples = bleu.compute(predictions=("the cat sat on the mat",), references=("the cat sat on a mat",))
    assert as_lists == as_tuples


def test_the_metric_instance_stays_usable_after_an_error(bleu):
    with pytest.raises(ValueError):
        bleu.compute(predictions=["a"], references=[["a"], ["b"]])
    assert bleu.compute(predictions=["a b c d"], references=["a b c d"])["bleu"] == 1.0


def test_ids_against_a_text_reference_name_what_is_wrong():
    """`predictions=[[1, 2]], references=["a b"]` said "references[0] is a list of id lists but
    references[0] is not" (previous main)."""
    from bleukit.core import compute_bleu

    with pytest.raises(TypeError, match=r"references\[0\] is str \('a b'\), but the predictions are token ids"):
        compute_bleu([[1, 2]], ["a b"])

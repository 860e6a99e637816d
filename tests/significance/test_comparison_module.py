"""The evaluate comparison module (bleu_comparison.py): loaded as users load it, offline, and
checked against sacreBLEU's PairedTest on the same two systems."""

from __future__ import annotations

import json
import math

import pytest

from bleukit.significance.compare import compare
from conftest import REPO, assert_import_lines_safe_for_evaluate, run_with_network_refused, wmt17_lines
from sacrebleu_oracles import assert_like_sacrebleu, sacrebleu_paired
from synthetic_systems import synthetic_corpus

COMPARISON_PATH = REPO / "bleu_comparison.py"


@pytest.fixture(scope="module")
def comparison():
    import evaluate

    return evaluate.load(str(COMPARISON_PATH), module_type="comparison")


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus()


def as_compare_result(pair: dict) -> dict:
    """The module's flat result in compare's shape, for the shared sacreBLEU check."""
    return {"systems": [
        {"name": "1", "bleu": pair["bleu1"], "p_value": None, "mean": pair["mean1"], "ci": pair["ci1"]},
        {"name": "2", "bleu": pair["bleu2"], "p_value": pair["p_value"], "mean": pair["mean2"], "ci": pair["ci2"]},
    ]}


@pytest.mark.parametrize("method,samples,confidence", [("bootstrap", 300, 0), ("ar", 1000, 0), ("ar", 500, 200)])
def test_two_systems_match_sacrebleu(comparison, corpus, method, samples, confidence, monkeypatch):
    systems, reference, _ = corpus
    result = comparison.compute(predictions1=systems["base"], predictions2=systems["closer"], references=reference,
                                method=method, samples=samples, confidence_samples=confidence, smooth="exp")
    expected = sacrebleu_paired([("base", systems["base"]), ("closer", systems["closer"])], reference,
                                "bs" if method == "bootstrap" else "ar", samples, confidence or -1,
                                monkeypatch=monkeypatch)
    assert_like_sacrebleu(as_compare_result(result), expected)
    assert result["difference"] == result["bleu2"] - result["bleu1"]
    assert 0.05 < result["p_value"] < 0.95  # close systems: not significant
    assert result["method"] == ("bootstrap" if method == "bootstrap" else "ar") and result["samples"] == samples


def test_wmt17_pair_matches_sacrebleu_with_both_methods(comparison, monkeypatch):
    reference = wmt17_lines("newstest2017-ende.ref.de")[:800]
    first, second = wmt17_lines("uedin-nmt.4722.de")[:800], wmt17_lines("KIT.4950.de")[:800]
    for method, samples in (("bs", 200), ("ar", 800)):
        result = comparison.compute(predictions1=first, predictions2=second, references=reference,
                                    method=method, samples=samples, smooth="exp")
        expected = sacrebleu_paired([("a", first), ("b", second)], reference, method, samples, monkeypatch=monkeypatch)
        assert_like_sacrebleu(as_compare_result(result), expected)


def test_streamed_batches_give_the_direct_result(comparison, corpus):
    """add_batch goes through evaluate's cache and cast; the numbers are those of one call."""
    systems, reference, second = corpus
    references = [[a, b] for a, b in zip(reference, second)]
    for start in range(0, len(reference), 128):
        end = start + 128
        comparison.add_batch(predictions1=systems["base"][start:end], predictions2=systems["worse"][start:end],
                             references=references[start:end])
    streamed = comparison.compute(method="ar", samples=300, confidence_samples=100)
    direct = compare({"a": systems["base"], "b": systems["worse"]}, references, method="ar", samples=300,
                     confidence_samples=100)
    assert streamed["bleu1"] == direct["systems"][0]["bleu"] and streamed["bleu2"] == direct["systems"][1]["bleu"]
    assert streamed["p_value"] == direct["systems"][1]["p_value"]
    assert (streamed["mean2"], streamed["ci2"]) == (direct["systems"][1]["mean"], direct["systems"][1]["ci"])
    assert streamed["signature"] == direct["signature"]


def test_the_docstring_example(comparison):
    references = ["the cat is on the mat", "there is a dog in the garden", "it rains today"]
    result = comparison.compute(
        predictions1=["the cat on the mat", "a dog is in a garden", "it rains"],
        predictions2=["the cat is on the mat", "there is a dog in the garden", "it rains today"],
        references=references, samples=100)
    assert result["bleu2"] == 1.0 and result["p_value"] <= 1
    assert "(1.0, True)" in comparison.inputs_description


@pytest.mark.parametrize(
    "inputs,options,error,message",
    [
        ({"predictions2": ["a b"]}, {}, ValueError, "system 'predictions2': got 1 predictions but 2 references"),
        ({"predictions1": ["a b", 7]}, {}, TypeError, "system 'predictions1': predictions[1] is int"),
        ({"references": ["a b", ["c d"]]}, {}, ValueError, "references mixes shapes"),
        ({}, {"method": "sign"}, ValueError, "unknown method 'sign'"),
        ({}, {"samples": 0}, ValueError, "samples must be an integer >= 1"),
        ({}, {"baseline": "predictions2"}, TypeError, "unknown option(s) ['baseline']"),
        ({}, {"smooth": "maybe"}, ValueError, "unknown smooth 'maybe'"),
    ],
)
def test_bad_input_is_named_before_evaluate_casts_it(comparison, inputs, options, error, message):
    given = {"predictions1": ["a b c", "d e"], "predictions2": ["a b", "d e f"], "references": ["a b c", "d e f"]}
    given.update(inputs)
    with pytest.raises(error) as caught:
        comparison.compute(**given, **options)
    assert message in str(caught.value)
    if inputs:  # the streaming path checks each batch before it reaches the cache
        with pytest.raises(error) as caught:
            comparison.add_batch(**given)
        assert message in str(caught.value)


OFFLINE_SCRIPT = """
import evaluate

comparison = evaluate.load(sys.argv[1], module_type="comparison")
inputs = json.loads(sys.argv[2])
report = {"result": comparison.compute(**inputs, method="ar", samples=500, smooth="exp")}
"""


def test_load_and_compute_with_every_connection_refused(tmp_path, corpus):
    systems, reference, _ = corpus
    inputs = {"predictions1": systems["base"], "predictions2": systems["closer"], "references": reference}
    report = run_with_network_refused(tmp_path, OFFLINE_SCRIPT, str(COMPARISON_PATH), json.dumps(inputs))
    assert report["attempts"] == []
    expected = compare({"1": systems["base"], "2": systems["closer"]}, reference, method="ar", samples=500,
                       smooth="exp")
    assert report["result"]["bleu1"] == expected["systems"][0]["bleu"]
    assert report["result"]["p_value"] == expected["systems"][1]["p_value"]
    assert report["result"]["signature"] == expected["signature"]
    # The script was copied into the empty modules cache (loaded from scratch); the code is the package's.
    copied = {path.name for path in (tmp_path / "modules").rglob("*.py")}
    assert "bleu_comparison.py" in copied and not {"compare.py", "core.py"} & copied


def test_the_comparison_script_never_asks_evaluate_to_download():
    """The same import-line rules as the metric's (see tests/test_offline.py)."""
    assert_import_lines_safe_for_evaluate(COMPARISON_PATH)


def test_p_value_is_a_probability_that_falls_as_the_gap_grows(comparison, corpus):
    systems, reference, _ = corpus
    close = comparison.compute(predictions1=systems["base"], predictions2=systems["closer"], references=reference,
                               samples=400)["p_value"]
    far = comparison.compute(predictions1=systems["base"], predictions2=systems["worse"], references=reference,
                             samples=400)["p_value"]
    assert math.isclose(far, 1 / 401) and close > 0.1

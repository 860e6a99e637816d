"""sacreBLEU's and evaluate's `sacrebleu` keyword names, and options given at load time.

A user moving from `sacrebleu.BLEU(tokenize=..., smooth_method=...)` or from evaluate's `sacrebleu`
metric (`use_effective_order=`) passes those names here: they mean the same options, wherever
options are accepted. The oracle is sacreBLEU given the very same keywords. Options given to
`evaluate.load` become the metric's defaults (evaluate itself drops them silently).
"""

from __future__ import annotations

import pytest
from sacrebleu.metrics import BLEU

from bleukit.significance.compare import compare
from bleukit.core import compute_bleu
from bleukit.options import resolve_options
from conftest import METRIC_PATH, REPO

PREDICTIONS = ["the cat sat on the mat", "you are ready ?", "It is a guide to action which ensures obedience."]
REFERENCES = [["the cat is on the mat", "a cat sat on the mat"], ["are you ready ?", "you are ready"],
              ["It is a guide to action that ensures that the military will forever heed Party commands.", None]]
SACREBLEU_KEYWORDS = [
    dict(tokenize="intl", smooth_method="floor", smooth_value=0.2, lowercase=True),
    dict(tokenize="none", smooth_method="add-k", max_ngram_order=3, effective_order=True),
    dict(tokenize="char", smooth_method="exp", max_ngram_order=6),
    dict(smooth_method="none", lowercase=True, tokenize=None),
    dict(trg_lang="zh", smooth_method="exp"),  # sacreBLEU picks its zh tokenizer for Chinese
]


def sacrebleu_score(keywords: dict) -> float:
    streams = [list(stream) for stream in zip(*REFERENCES)]
    return BLEU(**keywords).corpus_score(PREDICTIONS, streams).score / 100


@pytest.mark.parametrize("keywords", SACREBLEU_KEYWORDS, ids=lambda k: ",".join(k))
def test_sacrebleus_names_give_sacrebleus_score_everywhere(bleu, keywords):
    expected = sacrebleu_score(keywords)
    assert bleu.compute(predictions=PREDICTIONS, references=REFERENCES, **keywords)["bleu"] == pytest.approx(expected, rel=1e-12)
    assert compute_bleu(PREDICTIONS, REFERENCES, **keywords)["bleu"] == pytest.approx(expected, rel=1e-12)
    totals = bleu.statistics(PREDICTIONS, REFERENCES, **keywords)
    assert bleu.score_from_statistics(totals, **keywords)["bleu"] == pytest.approx(expected, rel=1e-12)
    accumulator = bleu.accumulator(**keywords)
    accumulator.add(PREDICTIONS, REFERENCES)
    assert accumulator.result()["bleu"] == pytest.approx(expected, rel=1e-12)
    compared = compare({"a": PREDICTIONS, "b": PREDICTIONS[::-1]}, REFERENCES, samples=20, **keywords)
    assert compared["systems"][0]["bleu"] == pytest.approx(expected, rel=1e-12)
    ours = {{"tokenize": "tokenizer", "smooth_method": "smooth", "max_ngram_order": "max_order",
             "trg_lang": "target_language"}.get(k, k): v
            for k, v in keywords.items() if v is not None}
    assert resolve_options(**keywords).signature(1) == resolve_options(**ours).signature(1)


def test_evaluates_sacrebleu_names(bleu):
    """evaluate's `sacrebleu` metric calls effective order `use_effective_order`."""
    keywords = dict(tokenize="13a", smooth_method="exp", use_effective_order=True, force=True)
    expected = BLEU(tokenize="13a", smooth_method="exp", effective_order=True).corpus_score(
        PREDICTIONS, [list(stream) for stream in zip(*REFERENCES)]).score / 100
    result = bleu.compute(predictions=PREDICTIONS, references=REFERENCES, **keywords)
    assert result["bleu"] == pytest.approx(expected, rel=1e-12) and "|eff:yes|" in result["signature"]


def test_the_trainer_hook_and_the_reward_take_them_too(bleu):
    from bleukit.integrations.reward import make_reward_function
    from bleukit.integrations.trainer import make_compute_metrics

    from tiny_seq2seq import make_tokenizer

    tokenizer = make_tokenizer()
    hook = make_compute_metrics(tokenizer, tokenize="intl", smooth_method="exp")
    assert "|tok:intl|smooth:exp|" in hook.signature
    reward = make_reward_function(tokenize="char", smooth_method="floor", smooth_value=0.5)
    assert "tok:char" in reward.options.signature(1) and reward.options.smooth == "floor"
    assert "|tok:char|" in bleu.trainer_compute_metrics(tokenizer, tokenize="char").signature


@pytest.mark.parametrize(
    "keywords, error, message",
    [
        (dict(tokenize="intl", tokenizer="13a"), TypeError, "tokenize= is sacreBLEU's name for tokenizer=; pass one of them"),
        (dict(smooth_method="exp", smooth="none"), TypeError, "smooth_method= is sacreBLEU's name for smooth="),
        (dict(trg_lang="ja", target_language="ko"), TypeError, "trg_lang= is sacreBLEU's name for target_language="),
        (dict(force="yes"), TypeError, "force must be True or False"),
        (dict(tokenise="intl"), TypeError, "sacreBLEU's names ['max_ngram_order', 'smooth_method', 'tokenize', "
                                           "'trg_lang', 'use_effective_order'] work too"),
        (dict(smooth_method="exponential"), ValueError, "unknown smooth 'exponential'"),
    ],
)
def test_mistakes_with_sacrebleus_names_say_what_to_pass(bleu, keywords, error, message):
    for call in (lambda: bleu.compute(predictions=PREDICTIONS, references=REFERENCES, **keywords),
                 lambda: compare({"a": PREDICTIONS, "b": PREDICTIONS}, REFERENCES, **keywords),
                 lambda: resolve_options(**keywords)):
        with pytest.raises(error) as raised:
            call()
        assert message in str(raised.value)


def test_options_at_load_time_become_the_defaults():
    """`evaluate.load(path, smooth="exp")` once dropped smooth silently (signature smooth:none)."""
    import evaluate

    metric = evaluate.load(str(METRIC_PATH), smooth="exp", tokenize="intl")
    expected = sacrebleu_score(dict(smooth_method="exp", tokenize="intl"))
    result = metric.compute(predictions=PREDICTIONS, references=REFERENCES)
    assert result["bleu"] == pytest.approx(expected, rel=1e-12)
    assert "|tok:intl|smooth:exp|" in result["signature"] and metric.default_options == {"smooth": "exp", "tokenizer": "intl"}
    override = metric.compute(predictions=PREDICTIONS, references=REFERENCES, smooth="none")
    assert override["bleu"] == pytest.approx(sacrebleu_score(dict(smooth_method="none", tokenize="intl")), rel=1e-12)
    metric.add_batch(predictions=PREDICTIONS, references=REFERENCES)  # evaluate's cached path too
    assert metric.compute() == result
    assert metric.compare({"a": PREDICTIONS, "b": PREDICTIONS[::-1]}, REFERENCES, samples=10)["signature"].startswith(
        result["signature"])
    from tiny_seq2seq import make_tokenizer

    assert "|tok:intl|smooth:exp|" in metric.trainer_compute_metrics(make_tokenizer()).signature
    with_run_options = evaluate.load(str(METRIC_PATH), bootstrap_samples=50, keep_in_memory=True)
    assert with_run_options.keep_in_memory and "bleu_ci_low" in with_run_options.compute(
        predictions=PREDICTIONS, references=REFERENCES)


@pytest.mark.parametrize("keywords, error, message", [
    (dict(smoth="exp"), TypeError, "evaluate.load(...) got unknown keyword(s) ['smoth']"),
    (dict(smooth="sideways"), ValueError, "unknown smooth 'sideways'"),
    (dict(max_order=0), ValueError, "max_order must be an integer >= 1"),
    (dict(bootstrap_samples=-1), ValueError, "bootstrap_samples must be an integer >= 0"),
])
def test_a_bad_option_at_load_time_is_an_error_naming_it(keywords, error, message):
    import evaluate

    with pytest.raises(error) as raised:
        evaluate.load(str(METRIC_PATH), **keywords)
    assert message in str(raised.value)


def test_the_comparison_module_takes_its_settings_at_load_time(monkeypatch):
    import evaluate

    comparison = evaluate.load(str(REPO / "bleu_comparison.py"), module_type="comparison", method="ar", samples=300,
                               smooth_method="exp")
    result = comparison.compute(predictions1=PREDICTIONS, predictions2=PREDICTIONS[::-1], references=REFERENCES)
    direct = compare({"1": PREDICTIONS, "2": PREDICTIONS[::-1]}, REFERENCES, method="ar", samples=300, smooth="exp")
    assert (result["method"], result["samples"], result["p_value"]) == ("ar", 300, direct["systems"][1]["p_value"])
    assert result["signature"] == direct["signature"]
    with pytest.raises(TypeError, match=r"got unknown keyword\(s\) \['trails'\]"):
        evaluate.load(str(REPO / "bleu_comparison.py"), module_type="comparison", trails=10)
    with pytest.raises(ValueError, match=r"trials= counts approximate randomization's trials"):
        evaluate.load(str(REPO / "bleu_comparison.py"), module_type="comparison", trials=10)

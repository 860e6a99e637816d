"""compare(): paired bootstrap and approximate randomization, checked against sacreBLEU's PairedTest.

The oracle is sacreBLEU's own test (`sacrebleu.significance.PairedTest`) on the same systems:
same seed, so the same draws. Scores agree to 1e-10 (both sum integers exactly); p-values are
equal, exactly (every statistic of a test is scored with sacreBLEU's own rounding, ties included);
bootstrap means and intervals to 1e-12 (the resampled scores use NumPy's log and exp).
"""

from __future__ import annotations

import numpy as np
import pytest

import bleukit.significance.compare as bleu_compare
import bleukit.core as bleu_core
import bleukit.significance.paired as bleu_significance
from bleukit.significance.compare import compare
from bleukit.core import bootstrap_sums
from conftest import wmt17_lines
from sacrebleu_oracles import assert_like_sacrebleu, sacrebleu_paired
from synthetic_systems import synthetic_corpus

WMT17_SYSTEMS = ["online-B.0.de", "uedin-nmt.4722.de", "KIT.4950.de", "xmu.4910.de"]


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus()


@pytest.mark.parametrize("method,samples,confidence", [("bs", 400, -1), ("ar", 1500, -1), ("ar", 800, 300)])
def test_synthetic_corpus_matches_sacrebleu(corpus, method, samples, confidence, monkeypatch):
    systems, reference, _ = corpus
    ours = compare(systems, reference, method=method, samples=samples, smooth="exp",
                   confidence_samples=max(confidence, 0))
    expected = sacrebleu_paired(systems.items(), reference, method, samples, confidence, monkeypatch=monkeypatch)
    assert_like_sacrebleu(ours, expected)
    p_values = [s["p_value"] for s in ours["systems"][1:]]
    # Not all trivially small or large: the close systems are not significantly different.
    assert any(0.05 < p < 0.95 for p in p_values), p_values
    assert any(p < 0.01 for p in p_values), p_values


def test_two_references_another_seed_and_baseline(corpus, monkeypatch):
    systems, reference, second = corpus
    references = [[a, b] for a, b in zip(reference, second)]
    ours = compare(systems, references, baseline="worse", method="bootstrap", samples=300, seed=2024, smooth="exp")
    order = ["worse"] + [name for name in systems if name != "worse"]
    assert [s["name"] for s in ours["systems"]] == order
    expected = sacrebleu_paired([(name, systems[name]) for name in order], references, "bs", 300, seed=2024,
                                monkeypatch=monkeypatch)
    assert_like_sacrebleu(ours, expected)
    assert ours["baseline"] == "worse" and ours["seed"] == 2024
    assert ours["signature"].startswith("nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|")
    assert ours["signature"].endswith("|test:bs|n:300|seed:2024")


def test_other_scoring_options_match_sacrebleu(corpus, monkeypatch):
    systems, reference, _ = corpus
    subset = {name: systems[name] for name in ("base", "close", "worse")}
    ours = compare(subset, reference, method="approximate_randomization", samples=500, smooth="floor",
                   lowercase=True, max_order=3, tokenizer="none")
    expected = sacrebleu_paired(subset.items(), reference, "ar", 500, monkeypatch=monkeypatch,
                                smooth_method="floor", lowercase=True, max_ngram_order=3, tokenize="none")
    assert_like_sacrebleu(ours, expected)
    assert ours["method"] == "ar" and ours["signature"].endswith("|test:ar|n:500|seed:12345")


@pytest.mark.parametrize("method,samples,confidence", [("bs", 200, -1), ("ar", 1000, 200)])
def test_wmt17_systems_match_sacrebleu(method, samples, confidence, monkeypatch):
    reference = wmt17_lines("newstest2017-ende.ref.de")[:1000]
    systems = {name: wmt17_lines(name)[:1000] for name in WMT17_SYSTEMS}
    ours = compare(systems, reference, method=method, samples=samples, smooth="exp",
                   confidence_samples=max(confidence, 0))
    expected = sacrebleu_paired(systems.items(), reference, method, samples, confidence, monkeypatch=monkeypatch)
    assert_like_sacrebleu(ours, expected)
    assert ours["signature"].endswith(
        "|test:bs|n:200|seed:12345" if method == "bs" else "|test:ar|n:1000|conf:200|seed:12345")


def test_result_shape_and_keys_match_compute(corpus):
    systems, reference, _ = corpus
    import bleukit.core as bleu_core

    ours = compare([systems["base"], systems["worse"]], reference, samples=50)
    assert set(ours) == {"method", "samples", "seed", "confidence_samples", "count_ties", "baseline", "signature",
                         "systems"}
    assert ours["method"] == "bootstrap" and ours["samples"] == 50 and ours["baseline"] == "system 1"
    assert [s["name"] for s in ours["systems"]] == ["system 1", "system 2"]
    for system, lines in zip(ours["systems"], (systems["base"], systems["worse"])):
        single = bleu_core.compute_bleu(lines, reference)
        assert {k: system[k] for k in single if k != "signature"} == {k: v for k, v in single.items() if k != "signature"}
        assert ours["signature"].startswith(single["signature"] + "|test:bs|n:50|")
    assert ours["systems"][0]["p_value"] is None
    # default sample counts: sacreBLEU's
    assert compare(systems, reference, method="ar", samples=None, max_order=1)["samples"] == 10000


def test_an_ar_test_without_confidence_reports_no_interval(corpus):
    systems, reference, _ = corpus
    ours = compare(systems, reference, method="ar", samples=64)
    assert all(s["mean"] is None and s["ci"] is None for s in ours["systems"])
    assert "conf:" not in ours["signature"]


def test_the_loaded_metric_delegates(bleu, corpus):
    systems, reference, _ = corpus
    assert bleu.compare(systems, reference, method="ar", samples=200, smooth="exp") == compare(
        systems, reference, method="ar", samples=200, smooth="exp")


def test_token_ids_compare_like_their_text(corpus):
    systems, reference, _ = corpus
    vocabulary = {}
    encode = lambda line: [vocabulary.setdefault(w, len(vocabulary)) for w in line.split()]  # noqa: E731
    as_ids = {name: [encode(line) for line in lines] for name, lines in list(systems.items())[:3]}
    text = compare({name: systems[name] for name in as_ids}, reference, samples=100, tokenizer="none")
    ids = compare(as_ids, [encode(line) for line in reference], samples=100)
    assert [s["bleu"] for s in ids["systems"]] == [s["bleu"] for s in text["systems"]]
    assert [s["p_value"] for s in ids["systems"]] == [s["p_value"] for s in text["systems"]]
    assert "tok:ids" in ids["signature"]


def test_seed_none_draws_fresh_randomness(corpus):
    systems, reference, _ = corpus
    first = compare(systems, reference, samples=200, seed=None)
    second = compare(systems, reference, samples=200, seed=None)
    assert first["seed"] is None and first["signature"].endswith("|seed:none")
    assert [s["mean"] for s in first["systems"]] != [s["mean"] for s in second["systems"]]
    fixed = [compare(systems, reference, samples=200)["systems"][1]["mean"] for _ in range(2)]
    assert fixed[0] == fixed[1]


def test_swap_masks_are_numpys_boolean_draws_in_any_block_size(monkeypatch):
    """The bytes trick gives rng.integers(2, dtype=bool)'s mask, and leaves the generator where
    that call leaves it (the AR interval's draws come next)."""
    for count, samples, block_bits in [(37, 101, 1 << 22), (37, 101, 64 * 37), (8, 96, 256), (3004, 70, 1)]:
        monkeypatch.setattr(bleu_significance, "_MASK_BLOCK_BITS", block_bits)
        ours = np.random.default_rng(99)
        mask = np.concatenate(list(bleu_significance.swap_masks(ours, samples, count)))
        theirs = np.random.default_rng(99)
        assert np.array_equal(mask.astype(bool), theirs.integers(2, size=(samples, count), dtype=bool))
        assert ours.integers(0, 1 << 30) == theirs.integers(0, 1 << 30)


@pytest.mark.parametrize("chunk", [1280, 97])
@pytest.mark.parametrize("tokenizer,lowercase", [("13a", False), ("intl", True), ("char", False)])
def test_systems_statistics_equal_each_systems_own(corpus, chunk, tokenizer, lowercase):
    """Tokenizing the references once for all systems changes no count (one and two references)."""
    from bleukit.core import segment_statistics, systems_statistics
    from bleukit.inputs import validate_inputs
    from bleukit.options import resolve_options

    systems, reference, second = corpus
    options = resolve_options(tokenizer=tokenizer, lowercase=lowercase, smooth="method7")
    for references in (reference, [[a, b] if k % 3 else [a] for k, (a, b) in enumerate(zip(reference, second))]):
        _, refs, _ = validate_inputs(systems["base"], references)
        together = systems_statistics(list(systems.values()), refs, options, chunk_segments=chunk)
        for lines, rows in zip(systems.values(), together, strict=True):
            assert np.array_equal(rows, segment_statistics(lines, refs, options))


def test_bootstrap_sums_are_exact_with_large_statistics():
    """Above 2**24 float32 would round: the sums switch to float64 and stay exact."""
    stats = np.array([[2**25 + 1, 3], [7, 2**24 + 3], [1, 1]], dtype=np.int64)
    sums = bootstrap_sums(stats, 50, np.random.default_rng(5))
    draws = np.random.default_rng(5).choice(3, size=(50, 3))
    assert np.array_equal(sums, stats[draws].sum(axis=1))


@pytest.mark.parametrize(
    "call,error,message",
    [
        (lambda s, r: compare(s, r, method="t-test"), ValueError, "unknown method 't-test'"),
        (lambda s, r: compare(s, r, samples=0), ValueError, "samples must be an integer >= 1"),
        (lambda s, r: compare(s, r, samples=2.5), TypeError, "samples must be an integer"),
        (lambda s, r: compare(s, r, seed="x"), TypeError, "seed must be an integer or None"),
        (lambda s, r: compare(s, r, confidence_samples=-1), ValueError, "confidence_samples must be"),
        (lambda s, r: compare(s, r, confidence_samples=10), ValueError, "confidence_samples applies to method='ar'"),
        (lambda s, r: compare(s, r, baseline="nobody"), ValueError, "baseline 'nobody' is not one of the systems"),
        (lambda s, r: compare({"a": s["a"]}, r), ValueError, "at least two systems"),
        (lambda s, r: compare("a b", r), TypeError, "systems must be a dict"),
        (lambda s, r: compare({1: s["a"], 2: s["b"]}, r), TypeError, "system names must be strings"),
        (lambda s, r: compare({**s, "short": s["a"][:2]}, r), ValueError, "system 'short': got 2 predictions but 3"),
        (lambda s, r: compare({**s, "odd": ["x", 3, "y"]}, r), TypeError, "system 'odd': predictions[1] is int"),
        (lambda s, r: compare(s, r, smooth="sideways"), ValueError, "unknown smooth 'sideways'"),
        (lambda s, r: compare(s, r, tokenise="13a"), TypeError, "unknown option(s) ['tokenise']"),
        (lambda s, r: compare(s, ["x", "y"]), ValueError, "system 'a': got 3 predictions but 2 references"),
    ],
)
def test_bad_input_names_the_problem(call, error, message):
    systems = {"a": ["a b c", "d e", "f"], "b": ["a b", "d e f", "g"]}
    with pytest.raises(error) as caught:
        call(systems, ["a b c", "d e f", "f g"])
    assert message in str(caught.value)


def test_bad_input_is_caught_before_any_counting(monkeypatch):
    calls = []
    monkeypatch.setattr(bleu_core, "systems_statistics", lambda *a, **k: calls.append(1))
    with pytest.raises(TypeError, match="system 'c'"):
        compare({"a": ["x"], "b": ["y"], "c": [None]}, ["x"])
    assert calls == []


def test_identical_systems_get_sacrebleus_smallest_p_value(corpus, monkeypatch):
    """A quirk kept for parity: with no difference at all, no trial beats it (the test counts
    strictly larger differences), so sacreBLEU reports 1/(trials+1). docs/comparing.md warns about it
    ("Ties")."""
    systems, reference, _ = corpus
    twins = {"a": systems["base"], "b": list(systems["base"])}
    for method in ("bs", "ar"):
        ours = compare(twins, reference, method=method, samples=99)
        assert ours["systems"][1]["p_value"] == 0.01
        assert_like_sacrebleu(ours, sacrebleu_paired(twins.items(), reference, method, 99, monkeypatch=monkeypatch,
                                                     smooth_method="none"))


def test_systems_statistics_with_empty_lines_and_an_empty_system():
    """Counting all systems in one pass: empty hypotheses, an all-empty system, a system with no
    word in common with the references, and two references, each row as that system alone gives."""
    from bleukit.core import segment_statistics, systems_statistics
    from bleukit.inputs import validate_inputs
    from bleukit.options import resolve_options

    rng = np.random.default_rng(3)
    words = ["a", "b", "c", "d", "e"]

    def line(length: int) -> str:
        return " ".join(rng.choice(words, size=length))

    references = [[line(rng.integers(0, 9)), line(rng.integers(1, 9))] for _ in range(40)]
    systems = [
        [line(rng.integers(0, 9)) for _ in range(40)],
        [""] * 40,
        ["x y z"] * 40,
        [refs[0] for refs in references],
    ]
    options = resolve_options(tokenizer="13a", smooth="exp")
    _, refs, _ = validate_inputs(systems[0], references)
    for chunk in (1280, 7):
        together = systems_statistics(systems, refs, options, chunk_segments=chunk)
        for lines, rows in zip(systems, together, strict=True):
            assert np.array_equal(rows, segment_statistics(lines, refs, options))
    assert together[1][:, 2:].sum() == 0 and together[2][:, 2:6].sum() == 0


def test_one_name_for_bootstrap_resamples_and_the_older_names_as_aliases(corpus):
    """`bootstrap_samples` counts bootstrap resamples as compute names them (the bootstrap test's,
    or each system's interval beside an AR test); `trials` counts AR's trials. The older `samples`
    and `confidence_samples` give the same results."""
    systems, reference, _ = corpus
    pair = {"base": systems["base"], "close": systems["close"]}
    assert compare(pair, reference, bootstrap_samples=300) == compare(pair, reference, samples=300)
    ar = compare(pair, reference, method="ar", trials=400, bootstrap_samples=200)
    assert ar == compare(pair, reference, method="ar", samples=400, confidence_samples=200)
    assert (ar["samples"], ar["confidence_samples"]) == (400, 200) and "|test:ar|n:400|conf:200|" in ar["signature"]
    # The same resamples as compute's interval for the same seed (their scores round differently:
    # compare's as sacreBLEU's, in float32 precisions).
    single = bleu_core.compute_bleu(systems["base"], reference, bootstrap_samples=300)
    baseline = compare(pair, reference, bootstrap_samples=300)["systems"][0]
    assert baseline["mean"] == pytest.approx(single["bleu_bootstrap_mean"], rel=1e-6)


@pytest.mark.parametrize("counts, error, message", [
    (dict(samples=10, bootstrap_samples=10), TypeError, "samples= is the older name of bootstrap_samples="),
    (dict(method="ar", samples=10, trials=10), TypeError, "samples= is the older name of trials="),
    (dict(method="ar", confidence_samples=5, bootstrap_samples=5), TypeError,
     "confidence_samples= is the older name of bootstrap_samples="),
    (dict(trials=10), ValueError, "trials= counts approximate randomization's trials (method='ar')"),
    (dict(bootstrap_samples=0), ValueError, "bootstrap_samples must be an integer >= 1"),
    (dict(method="ar", trials=2.5), TypeError, "trials must be an integer"),
])
def test_count_names_given_twice_or_for_the_other_test_are_named(counts, error, message):
    with pytest.raises(error) as raised:
        compare({"a": ["a b c"], "b": ["a b d"]}, ["a b c"], **counts)
    assert message in str(raised.value)

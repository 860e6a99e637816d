"""Parity with sacreBLEU's corpus_score: every tokenizer, casing, smoothing, order 1-6, 1-4 refs.

The oracle is `Oracles.sacrebleu` (tests/conftest.py): sacreBLEU 2.x `BLEU(...).corpus_score`,
divided by 100. Generated corpora are in tests/test_properties.py; here the corpora are fixed and
every option combination is compared on them.

Facts about the oracle that shape these tests (read in sacrebleu/metrics/{base,bleu}.py):
- references go in as parallel streams; a None entry drops that reference, '' is kept as a
  reference of length 0 (so '' takes part in the closest-length choice, as with us);
- with no n-gram match at all sacreBLEU returns BLEU 0 and every precision 0, smoothed or not.
"""

from __future__ import annotations

import itertools

import pytest

from bleukit.core import compute_bleu

# Machine-translation-like outputs with four references each: punctuation, numbers with
# separators, quotes and HTML entities (13a), German and Turkish letters, CJK (zh, intl),
# emoji, a repeated token, an empty prediction and empty references.
PREDICTIONS = [
    "The cat sat on the mat.",
    "Prices rose 3.5% between 1990-2000, reaching $1,000!",
    "Die Straße ist in der Nacht gesperrt worden.",
    "我们明天在北京见面。",
    "He said: \"It's a naïve plan\" & left (quickly).",
    "",
    "the the the the the the",
    "東京の天気は晴れです 🙂 今日",
    "İstanbul'da 23:30'da buluştuk; hava güzeldi?",
]
REFERENCES = [
    ["The cat is sitting on the mat.", "A cat sat on the mat .", "", "the cat sat on a mat"],
    ["Prices rose 3.5 % between 1990 and 2000, to $1,000.", "Between 1990-2000 prices rose by 3.5%!",
     "Prices climbed 3.5% in 1990-2000, reaching 1,000 dollars.", "prices rose"],
    ["Die Straße wurde in der Nacht gesperrt.", "Die Strasse ist nachts gesperrt worden.",
     "In der Nacht wurde die Straße gesperrt.", "Straße gesperrt"],
    ["我们明天在北京见。", "明天我们在北京见面。", "我们 明天 在 北京 见面 。", "明天北京见"],
    ["He said: &quot;It's a naive plan&quot; &amp; left quickly.", "\"It's a naïve plan,\" he said, and left.",
     "He said it was a naïve plan and left (fast).", "He left."],
    ["Nothing was said.", "", "Silence.", "No words"],
    ["the cat", "the the", "The cat is on the mat", "the"],
    ["東京の天気は晴れです 🙂", "今日の東京は晴れ", "東京 晴れ 🙂 今日", "晴れです"],
    ["İstanbul'da saat 23:30'da buluştuk; hava güzeldi.", "23:30'da İstanbul'da buluştuk, hava güzeldi!",
     "Istanbul'da buluştuk; hava güzel miydi?", "buluştuk"],
]

TOKENIZERS = ["13a", "none", "intl", "zh", "char"]
SMOOTHING = ["none", "floor", "add-k", "exp"]


def first_refs(count: int) -> list:
    return [group[:count] for group in REFERENCES]


@pytest.mark.parametrize("lowercase", [False, True], ids=["cased", "lowercased"])
@pytest.mark.parametrize("smooth", SMOOTHING)
@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_every_order_and_reference_count_matches_sacrebleu(oracles, tokenizer, smooth, lowercase):
    """Orders 1-6 x 1-4 references x effective order on and off, for one tokenizer/smoothing/casing."""
    for max_order, num_refs, effective_order in itertools.product(range(1, 7), range(1, 5), [False, True]):
        refs = first_refs(num_refs)
        options = dict(tokenizer=tokenizer, lowercase=lowercase, smooth=smooth, max_order=max_order,
                       effective_order=effective_order)
        expected = oracles.sacrebleu(PREDICTIONS, refs, **options)
        oracles.assert_same(compute_bleu(PREDICTIONS, refs, **options), expected)


@pytest.mark.parametrize("smooth, smooth_value", [("floor", 0.01), ("floor", 0.5), ("add-k", 0.5), ("add-k", 3)])
@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_smoothing_values_match_sacrebleu(oracles, tokenizer, smooth, smooth_value):
    # Sentence-level statistics (one prediction per corpus) so that zero-match orders, where the
    # smoothing value shows, are common.
    for index, max_order in itertools.product(range(len(PREDICTIONS)), [2, 4, 6]):
        preds, refs = PREDICTIONS[index : index + 1], REFERENCES[index : index + 1]
        options = dict(tokenizer=tokenizer, smooth=smooth, smooth_value=smooth_value, max_order=max_order)
        oracles.assert_same(compute_bleu(preds, refs, **options), oracles.sacrebleu(preds, refs, **options))


@pytest.mark.parametrize("smooth", SMOOTHING)
def test_each_segment_alone_matches_sacrebleu(oracles, smooth):
    """One-prediction corpora: the empty prediction, the empty reference, zero-match orders."""
    for index, num_refs in itertools.product(range(len(PREDICTIONS)), range(1, 5)):
        preds, refs = PREDICTIONS[index : index + 1], [REFERENCES[index][:num_refs]]
        for effective_order in (False, True):
            options = dict(smooth=smooth, effective_order=effective_order)
            oracles.assert_same(compute_bleu(preds, refs, **options), oracles.sacrebleu(preds, refs, **options))


@pytest.mark.parametrize("smooth", SMOOTHING)
def test_no_match_at_all_gives_zero_bleu_and_zero_precisions(oracles, smooth):
    preds, refs = ["completely different words here"], [["nothing in common at all"]]
    expected = oracles.sacrebleu(preds, refs, smooth=smooth)
    assert expected["bleu"] == 0.0 and expected["precisions"] == [0.0] * 4  # the oracle's convention
    oracles.assert_same(compute_bleu(preds, refs, smooth=smooth), expected)


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_empty_strings_match_sacrebleu(oracles, tokenizer):
    cases = [
        ([""], [[""]]),
        ([""], [["a reference"]]),
        (["a prediction"], [[""]]),
        (["a prediction", ""], [["a prediction", ""], ["", "x"]]),
        (["", "", "the end"], [[""], ["not empty"], ["the end", ""]]),
    ]
    for (preds, refs), smooth in itertools.product(cases, SMOOTHING):
        options = dict(tokenizer=tokenizer, smooth=smooth)
        oracles.assert_same(compute_bleu(preds, refs, **options), oracles.sacrebleu(preds, refs, **options))


def test_variable_reference_counts_match_sacrebleu(oracles):
    """sacreBLEU takes a varying number of references as None-padded streams; we take ragged lists."""
    refs = [group[: 1 + index % 4] for index, group in enumerate(REFERENCES)]
    for tokenizer, smooth in itertools.product(TOKENIZERS, SMOOTHING):
        options = dict(tokenizer=tokenizer, smooth=smooth)
        oracles.assert_same(compute_bleu(PREDICTIONS, refs, **options), oracles.sacrebleu(PREDICTIONS, refs, **options))


def test_none_padding_scores_as_sacrebleu(bleu):
    """sacreBLEU pads a missing reference with None (nrefs:var); so may the per-prediction lists here,
    through the direct path and through evaluate's cache (add_batch), where the cast keeps the None."""
    from sacrebleu.metrics import BLEU

    predictions = ["the cat sat on the mat", "a dog barked at the mailman", "it is raining"]
    references = [["the cat is on the mat", "a cat sat on the mat"], ["the dog barked at the postman", None],
                  [None, "it rains today"]]
    metric = BLEU()
    theirs = metric.corpus_score(predictions, [list(stream) for stream in zip(*references)])
    assert str(metric.get_signature()).startswith("nrefs:var|")
    direct = bleu.compute(predictions=predictions, references=references, smooth="exp")
    assert direct["bleu"] == pytest.approx(theirs.score / 100, rel=1e-12)
    assert direct["signature"].split("|")[0] == str(metric.get_signature()).split("|")[0] == "nrefs:var"
    bleu.add_batch(predictions=predictions, references=references)
    assert bleu.compute(smooth="exp") == direct
    dropped = [[reference for reference in group if reference is not None] for group in references]
    assert bleu.compute(predictions=predictions, references=dropped, smooth="exp") == direct


def test_transposed_references_are_named_and_the_suggested_fix_works():
    """sacreBLEU's reference streams passed as they are: the error says so, and its fix, pasted, scores
    what sacreBLEU scores from the streams."""
    from sacrebleu.metrics import BLEU

    predictions = ["the cat sat on the mat", "a dog barked at the mailman"]
    references = [["the cat is on the mat", "the dog barked at the postman"], ["a cat sat on the mat", None],
                  ["there is a cat on the mat", "a dog barks"]]
    with pytest.raises(ValueError, match="looks transposed") as raised:
        compute_bleu(predictions, references)
    fix = str(raised.value).split("Pass ", 1)[1].split(";", 1)[0]
    assert fix == "references=[list(group) for group in zip(*references)]"
    namespace = {"references": references}
    exec(fix, namespace)  # the hint, pasted as it is
    ours = compute_bleu(predictions, namespace["references"], smooth="exp")
    assert ours["bleu"] == pytest.approx(BLEU().corpus_score(predictions, references).score / 100, rel=1e-12)


@pytest.mark.parametrize(
    "system, options",
    [
        ("uedin-nmt.4722.de", dict()),
        ("online-A.0.de", dict(lowercase=True, smooth="exp")),
        ("PROMT-Rule-based.4735.de", dict(tokenizer="intl", max_order=6)),
        ("C-3MA.4959.de", dict(tokenizer="none", smooth="floor", effective_order=True)),
    ],
)
def test_wmt17_systems_match_sacrebleu(oracles, system, options):
    """Real WMT17 en-de outputs (3004 segments) against newstest2017 (tests/data)."""
    from conftest import wmt17_lines

    preds, refs = wmt17_lines(system), [[line] for line in wmt17_lines("newstest2017-ende.ref.de")]
    oracles.assert_same(compute_bleu(preds, refs, **options), oracles.sacrebleu(preds, refs, **options))

"""Property-based tests: generated multi-reference corpora against the oracles, plus invariants.

Corpora have 1-6 segments with 1-4 references each (a varying number per segment; sacreBLEU gets
them as None-padded streams). References are edits of a shared base sentence (tokens kept, dropped,
replaced or doubled) so higher-order n-grams match often; tokens mix words, punctuation, numbers
with separators, HTML entities, non-ASCII letters, CJK and emoji, and are joined by spaces, tabs or
nothing (so "cat." or "日本語。" reach the tokenizers whole). Empty segments come up on their own.
The oracles are in tests/conftest.py; their documented divergences are excluded there.
"""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from bleukit.core import compute_bleu, segment_statistics
from bleukit.options import resolve_options
from bleukit.counting.stats import matches_of
from bleukit.tokenizers.registry import RULE_TOKENIZERS, get_tokenizer

VOCABULARY = [
    "the", "The", "cat", "sat", "on", "mat", "a", "is", "und", "Haus",
    ".", ",", "!", "?", "-", "'", '"', "&", "(", ")", "%", "$", ":", "...",
    "3.5", "1,000", "1990-2000", "42", "23:30", "$12", "-7",
    "&amp;", "&quot;", "<skipped>", "\ue000", "Straße", "naïve", "İstanbul", "ΣΊΣΥΦΟΣ", "café",
    "日本語", "北京", "我", "。", "，", "🙂", "👍🏽",
]
# Spaces mostly; nothing (glued tokens); tabs, newlines and Unicode whitespace, which str.split()
# splits on (no-break, ideographic, thin, next-line, line separator, unit separator).
SEPARATORS = [" ", " ", " ", " ", " ", "", "", "  ", "\t", "\n", "\xa0", "\u3000", "\u2009", "\x85", "\u2028", "\x1f"]
# Two differences from the legacy oracle, so its text has neither \x1f nor \n: bleuscore splits on
# Rust's Unicode White_Space, which lacks Python's \x1c-\x1f (evaluate's legacy bleu, in Python,
# splits there as we do); and a "-\n" in trailing whitespace (see tests/test_parity_legacy.py).
LEGACY_SEPARATORS = [s for s in SEPARATORS if s not in ("\x1f", "\n")]
# 120 examples per test keeps the file near 15 s; BLEU_PROPERTY_EXAMPLES=5000 searches deeper.
SETTINGS = settings(
    max_examples=int(os.environ.get("BLEU_PROPERTY_EXAMPLES", "120")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

tokens = st.sampled_from(VOCABULARY)


@st.composite
def variants(draw, base: list, drops: bool = True) -> list:
    """The base tokens with each one kept (mostly), replaced, doubled or, if `drops`, dropped."""
    out = []
    for token in base:
        edit = draw(st.sampled_from("kkkkrd2" if drops else "kkkkr2"))
        if edit == "r":
            token = draw(tokens)
        if edit != "d":
            out.extend([token] * (2 if edit == "2" else 1))
    return out


@st.composite
def token_corpora(draw, min_tokens: int = 0, max_refs: int = 4, max_segments: int = 6) -> tuple:
    """(hypotheses, references) as token lists; every hypothesis has at least `min_tokens` tokens."""
    hypotheses, references = [], []
    for _ in range(draw(st.integers(1, max_segments))):
        base = draw(st.lists(tokens, min_size=min_tokens, max_size=12))
        hypotheses.append(draw(variants(base, drops=min_tokens == 0)))
        references.append([draw(variants(base)) for _ in range(draw(st.integers(1, max_refs)))])
    return hypotheses, references


@st.composite
def texts(draw, token_list: list, separators: list = SEPARATORS) -> str:
    separators = draw(st.lists(st.sampled_from(separators), min_size=len(token_list) + 1, max_size=len(token_list) + 1))
    return separators[0].strip(" ") + "".join(t + s for t, s in zip(token_list, separators[1:]))


@st.composite
def text_corpora(draw, max_refs: int = 4, separators: list = SEPARATORS) -> tuple:
    """(predictions, references) as strings, from `token_corpora`."""
    hypotheses, references = draw(token_corpora(max_refs=max_refs))
    predictions = [draw(texts(h, separators)) for h in hypotheses]
    return predictions, [[draw(texts(r, separators)) for r in group] for group in references]


def joined(hypotheses: list, references: list) -> tuple:
    """Token lists as the text our tokenizer="none" splits back into the same tokens."""
    return [" ".join(h) for h in hypotheses], [[" ".join(r) for r in group] for group in references]


sacrebleu_options = st.fixed_dictionaries(
    {
        "tokenizer": st.sampled_from(sorted(RULE_TOKENIZERS)),
        "lowercase": st.booleans(),
        "smooth": st.sampled_from(["none", "floor", "add-k", "exp"]),
        "max_order": st.integers(1, 6),
        "effective_order": st.booleans(),
    }
)


@SETTINGS
@given(corpus=text_corpora(), options=sacrebleu_options, value=st.sampled_from([None, 0.05, 0.5, 2.0]))
def test_generated_corpora_match_sacrebleu(oracles, corpus, options, value):
    predictions, references = corpus
    if options["smooth"] in ("floor", "add-k"):
        options = dict(options, smooth_value=value)
    expected = oracles.sacrebleu(predictions, references, **options)
    event("BLEU > 0" if expected["bleu"] > 0 else "BLEU 0")
    oracles.assert_same(compute_bleu(predictions, references, **options), expected)


@SETTINGS
@given(corpus=text_corpora(separators=LEGACY_SEPARATORS), max_order=st.integers(1, 6), smooth=st.booleans())
def test_generated_corpora_match_legacy_bleu(oracles, corpus, max_order, smooth):
    predictions, references = corpus
    expected = oracles.legacy(predictions, references, max_order=max_order, smooth=smooth)
    event("BLEU > 0" if expected.get("bleu", 0) > 0 else "BLEU 0 or not compared")
    ours = compute_bleu(predictions, references, max_order=max_order, smooth=smooth, ref_length="shortest")
    oracles.assert_same(ours, expected)


weight_lists = st.integers(1, 6).flatmap(
    lambda n: st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0, 2.0]), min_size=n, max_size=n).filter(any)
)


@SETTINGS
@given(data=st.data(), weights=weight_lists, method=st.integers(0, 3))
def test_generated_corpora_match_nltk_corpus_bleu(oracles, data, weights, method):
    hypotheses, references = data.draw(token_corpora(min_tokens=len(weights)))
    expected = oracles.nltk(hypotheses, references, weights, method)
    event("not comparable" if expected is None else "BLEU > 0" if expected > 0 else "BLEU 0")
    if expected is not None:
        ours = compute_bleu(*joined(hypotheses, references), tokenizer="none", weights=weights, smooth=f"method{method}")
        oracles.assert_same(ours, {"bleu": expected})


@SETTINGS
@given(data=st.data(), method=st.integers(1, 7), value=st.sampled_from([None, 0.5, 3.0]))
def test_generated_sentences_match_nltk_sentence_bleu(oracles, data, method, value):
    # NLTK's method5 (and 7) always reads 5-grams: order 4 only there.
    weights = data.draw(weight_lists.filter(lambda w: len(w) == 4) if method in (5, 7) else weight_lists)
    value = value if method in (1, 4, 6, 7) else None
    hypotheses, references = data.draw(token_corpora(min_tokens=len(weights), max_segments=1))
    expected = oracles.nltk(hypotheses, references, weights, method, value=value, sentence=True)
    event("not comparable" if expected is None else "BLEU > 0" if expected > 0 else "BLEU 0")
    if expected is not None:
        ours = compute_bleu(*joined(hypotheses, references), tokenizer="none", weights=weights,
                            smooth=f"method{method}", smooth_value=value)
        oracles.assert_same(ours, {"bleu": expected})


@SETTINGS
@given(line=st.lists(tokens, max_size=12).flatmap(texts), tokenizer=st.sampled_from(sorted(RULE_TOKENIZERS)))
def test_tokenizers_split_like_sacrebleu(line, tokenizer):
    """Token for token, one line and the batch path, so a parity failure points at its cause."""
    from sacrebleu.metrics.bleu import _get_tokenizer

    expected = _get_tokenizer(tokenizer)()(line.rstrip()).split()
    ours = get_tokenizer(tokenizer)
    assert ours(line.rstrip()) == expected
    flat, counts = ours.tokenize_flat(["x y", line.rstrip(), ""])
    assert flat[2 : 2 + counts[1]] == expected and list(counts) == [len(ours("x y")), len(expected), 0]


@st.composite
def corpora_with_identical_predictions(draw) -> tuple:
    """Text corpora where every prediction is one of its own references, at least 6 tokens long."""
    hypotheses, references = draw(token_corpora(min_tokens=6))
    predictions, grouped = [], []
    for hypothesis, group in zip(hypotheses, references):
        prediction = draw(texts(hypothesis))
        refs = [draw(texts(r)) for r in group]
        refs.insert(draw(st.integers(0, len(refs))), prediction)
        predictions.append(prediction)
        grouped.append(refs)
    return predictions, grouped


@SETTINGS
@given(corpus=corpora_with_identical_predictions(), tokenizer=st.sampled_from(sorted(RULE_TOKENIZERS)),
       max_order=st.integers(1, 6), lowercase=st.booleans())
def test_prediction_identical_to_a_reference_scores_one(corpus, tokenizer, max_order, lowercase):
    """Every n-gram matches and the closest reference is the prediction itself: BLEU 1, whatever the
    tokenizer, when every prediction has at least max_order tokens (13a drops "<skipped>", so a
    6-word prediction may have fewer)."""
    predictions, references = corpus
    split = get_tokenizer(tokenizer)
    assume(all(len(split((p.lower() if lowercase else p).rstrip())) >= max_order for p in predictions))
    result = compute_bleu(predictions, references, tokenizer=tokenizer, max_order=max_order, lowercase=lowercase)
    assert result["bleu"] == 1.0 and result["precisions"] == [1.0] * max_order
    assert result["brevity_penalty"] == 1.0 and result["translation_length"] == result["reference_length"]


@SETTINGS
@given(corpus=text_corpora(max_refs=3), extra=st.lists(tokens, max_size=12).flatmap(texts), data=st.data(),
       tokenizer=st.sampled_from(sorted(RULE_TOKENIZERS)), max_order=st.integers(1, 6))
def test_adding_a_reference_never_lowers_clipped_matches(corpus, extra, data, tokenizer, max_order):
    predictions, references = corpus
    where = data.draw(st.integers(0, len(predictions) - 1))
    more = [group + [extra] if index == where else group for index, group in enumerate(references)]
    options = resolve_options(tokenizer=tokenizer, max_order=max_order)
    before = matches_of(segment_statistics(predictions, references, options), max_order)
    after = matches_of(segment_statistics(predictions, more, options), max_order)
    assert (after >= before).all()
    assert np.array_equal(np.delete(after, where, axis=0), np.delete(before, where, axis=0))


@SETTINGS
@given(corpus=text_corpora(), tokenizer=st.sampled_from(sorted(RULE_TOKENIZERS)), chunk=st.integers(1, 4))
def test_statistics_do_not_depend_on_chunking(corpus, tokenizer, chunk):
    """Rows are per segment, so scoring in chunks of any size gives the same rows."""
    predictions, references = corpus
    options = resolve_options(tokenizer=tokenizer, max_order=5)
    whole = segment_statistics(predictions, references, options)
    assert np.array_equal(segment_statistics(predictions, references, options, chunk_segments=chunk), whole)

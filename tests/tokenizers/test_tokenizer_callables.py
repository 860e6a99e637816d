"""What users pass as their own tokenizer: transformers tokenizers, and functions with the wrong output.

A transformers tokenizer called on a string gives a BatchEncoding (ids and an attention mask); the
old error then suggested `lambda s: list(map(str, tok(s)))`, which iterates the mapping's keys and
scores every sentence as ['input_ids', 'attention_mask'], silently wrong. A transformers tokenizer
is now taken as a tokenizer (its `tokenize`), and every hint in the error is run here as pasted.
The oracle is sacreBLEU with tokenize="none" on the tokens joined by spaces.
"""

from __future__ import annotations

import math
import re

import pytest

from bleukit.core import compute_bleu

PREDICTIONS = ["the cat sat on the mat", "a dog ran under the red tree", "the quick bird flew"]
REFERENCES = [["the cat sat on a mat"], ["the dog ran under a big red tree"], ["a quick bird flew over the log"]]


def sacrebleu_on_tokens(tokenize, predictions=PREDICTIONS, references=REFERENCES) -> float:
    from sacrebleu.metrics import BLEU

    joined = [" ".join(tokenize(line)) for line in predictions]
    streams = [[" ".join(tokenize(group[0])) for group in references]]
    return BLEU(tokenize="none", smooth_method="none").corpus_score(joined, streams).score / 100


@pytest.fixture(scope="module")
def hf_tokenizer():
    pytest.importorskip("transformers", reason="transformers is a test dependency (requirements-test.txt)")
    from tiny_seq2seq import make_tokenizer

    return make_tokenizer()


def test_a_transformers_tokenizer_is_a_tokenizer(hf_tokenizer, bleu):
    """Its tokenize(): the words of this word-level tokenizer ('<unk>' for one out of its vocabulary), no
    '</s>'. The signature names it (by `name_or_path`, or its class for one built in memory)."""
    assert hf_tokenizer("the cat").keys() >= {"input_ids", "attention_mask"}  # calling it gives no tokens
    assert hf_tokenizer.tokenize("the zebra cat") == ["the", "<unk>", "cat"]
    result = bleu.compute(predictions=PREDICTIONS, references=REFERENCES, tokenizer=hf_tokenizer)
    expected = sacrebleu_on_tokens(hf_tokenizer.tokenize)
    assert math.isclose(result["bleu"], expected, rel_tol=1e-10) and 0 < expected < 1
    assert result == bleu.compute(predictions=PREDICTIONS, references=REFERENCES, tokenizer=hf_tokenizer.tokenize) | {
        "signature": result["signature"]
    }
    assert f"|tok:custom:transformers:{type(hf_tokenizer).__name__}|" in result["signature"]


def hint_of(error: Exception) -> str:
    match = re.search(r"tokenizer=(lambda s: .+?)(?:, where f is|$)", str(error))
    assert match, f"no pasteable hint in: {error}"
    return match.group(1)


def split_as_tuple(line):
    return tuple(line.split())


def word_ids(line):
    vocabulary = {}
    return [vocabulary.setdefault(word, len(vocabulary)) for word in line.split()]


def test_a_function_returning_a_string_gets_a_split_hint_that_works():
    """sacreBLEU's tokenizer objects return the tokens joined by spaces."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    f = Tokenizer13a()
    with pytest.raises(TypeError) as error:
        compute_bleu(PREDICTIONS, REFERENCES, tokenizer=f)
    assert "where f is what you passed as tokenizer" in str(error.value)
    fixed = eval(hint_of(error.value), {"f": f})  # the hint, as pasted
    assert math.isclose(compute_bleu(PREDICTIONS, REFERENCES, tokenizer=fixed)["bleu"],
                        sacrebleu_on_tokens(lambda s: f(s).split()), rel_tol=1e-10)


@pytest.mark.parametrize("function", [split_as_tuple, word_ids])
def test_a_function_returning_other_tokens_gets_a_conversion_hint_that_works(function):
    with pytest.raises(TypeError) as error:
        compute_bleu(PREDICTIONS, REFERENCES, tokenizer=function)
    hint = hint_of(error.value)
    assert f"{function.__name__}(s)" in hint  # a module-level function is called by its name
    fixed = eval(hint, {function.__name__: function})
    expected = sacrebleu_on_tokens(lambda s: [str(t) for t in function(s)])
    assert math.isclose(compute_bleu(PREDICTIONS, REFERENCES, tokenizer=fixed)["bleu"], expected, rel_tol=1e-10)


def test_a_function_returning_a_batch_encoding_is_told_to_pass_the_tokenizer(hf_tokenizer):
    with pytest.raises(TypeError, match="pass the transformers tokenizer itself") as error:
        compute_bleu(PREDICTIONS, REFERENCES, tokenizer=lambda s: hf_tokenizer(s))
    assert "lambda" not in str(error.value).split("not tokens;")[1]  # no wrapper that would iterate keys
    assert compute_bleu(PREDICTIONS, REFERENCES, tokenizer=hf_tokenizer)["bleu"] > 0


def test_a_function_returning_nothing_useful_gets_no_wrapper():
    with pytest.raises(TypeError, match="pass a function from a string to a list of token strings$"):
        compute_bleu(PREDICTIONS, REFERENCES, tokenizer=lambda s: None)


def test_a_transformers_encode_method_gets_a_hint_whose_score_is_right():
    """`tokenizer=tok.encode` returns ids with </s>; the old hint, [str(t) for t in f(s)], counted </s>
    as a word in every sentence and raised the score. The hint now names the tokenizer itself, and
    following it gives the tokenizer's own tokens' score."""
    pytest.importorskip("transformers")
    from tiny_seq2seq import make_tokenizer

    from bleukit.core import compute_bleu

    tok = make_tokenizer()
    predictions, references = ["the cat sat on the mat", "a dog ran"], ["the cat sat on a mat", "the dog ran fast"]
    with pytest.raises(TypeError, match="pass the transformers tokenizer itself") as raised:
        compute_bleu(predictions, references, tokenizer=tok.encode)
    assert "str(t) for t in" not in str(raised.value)
    followed = compute_bleu(predictions, references, tokenizer=tok)["bleu"]
    words = compute_bleu(predictions, references, tokenizer=lambda s: tok.tokenize(s))["bleu"]
    with_eos = compute_bleu(predictions, references, tokenizer=lambda s: [str(t) for t in tok.encode(s)])["bleu"]
    assert followed == words != with_eos

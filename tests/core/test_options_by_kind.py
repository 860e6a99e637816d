"""Options given at load time apply where they apply: the text-only ones (tokenizer, lowercase,
target_language) never reach token-id inputs, while the same option passed to the call itself still
errors; and one function in the package writes "unknown option" for every front-end.
Oracle: a metric loaded without the option, on the same inputs."""

from __future__ import annotations

import re

import evaluate
import pytest

from bleukit.core import compute_bleu
from conftest import METRIC_PATH, REPO

IDS = [[5, 6, 7, 8, 9], [5, 6, 8]]
ID_REFERENCES = [[5, 6, 7, 8, 10], [5, 6, 7, 8]]


@pytest.fixture(scope="module")
def plain():
    return evaluate.load(str(METRIC_PATH))


@pytest.mark.parametrize("defaults", [dict(lowercase=True), dict(tokenizer="char"), dict(tokenize="intl"),
                                      dict(target_language="ja"), dict(lowercase=True, smooth="exp")])
def test_text_only_load_time_defaults_leave_token_ids_alone(plain, defaults):
    """On the previous main, evaluate.load(path, lowercase=True) made every token-id call raise, and
    tokenize="char" made score_from_statistics refuse id statistics ("leave tokenizer='char' out")."""
    metric = evaluate.load(str(METRIC_PATH), **defaults)
    others = {k: v for k, v in defaults.items() if k == "smooth"}
    expected = plain.compute(predictions=IDS, references=ID_REFERENCES, **others)
    assert metric.compute(predictions=IDS, references=ID_REFERENCES) == expected
    assert "|tok:ids|" in expected["signature"]
    rows = metric.statistics(IDS, ID_REFERENCES)
    assert (rows == plain.statistics(IDS, ID_REFERENCES, **others)).all()
    assert metric.score_from_statistics(rows) == plain.score_from_statistics(rows, **others)
    metric.add_batch(predictions=IDS, references=ID_REFERENCES)  # evaluate's cache path
    assert metric.compute() == expected


def test_the_defaults_still_apply_to_text_and_the_call_still_errors(plain):
    metric = evaluate.load(str(METRIC_PATH), lowercase=True, tokenizer="char")
    text = metric.compute(predictions=["The Cat"], references=["the cat"])
    assert text == plain.compute(predictions=["The Cat"], references=["the cat"], lowercase=True, tokenizer="char")
    assert text["bleu"] == 1.0 and "|case:lc|" in text["signature"] and "|tok:char|" in text["signature"]
    with pytest.raises(ValueError, match="lowercase=True applies to text, but the inputs are token ids"):
        metric.compute(predictions=IDS, references=ID_REFERENCES, lowercase=True)
    with pytest.raises(ValueError, match="lowercase=True applies to text"):
        compute_bleu(IDS, ID_REFERENCES, lowercase=True)


def test_unknown_option_is_written_once_in_the_package():
    sources = [path for path in (REPO / "bleukit").rglob("*.py")]
    writers = [path.relative_to(REPO).as_posix() for path in sources
               if re.search(r"""["']unknown option""", path.read_text(encoding="utf-8"))]
    assert writers == ["bleukit/options.py"]


@pytest.mark.parametrize("call, who", [
    (lambda: compute_bleu(["a"], ["a"], smoth="exp"), "the scoring options are"),
    (lambda: __import__("bleukit").compare({"a": ["x"], "b": ["y"]}, ["x"], smoth="exp"), "compare takes"),
    (lambda: __import__("bleukit").pairwise(["a b"], smoth="exp"), "the scoring options are"),
])
def test_each_front_end_names_its_own_settings(call, who):
    with pytest.raises(TypeError, match=re.escape("unknown option(s) ['smoth']; " + who)):
        call()

"""Every error that suggests a fix is tested by running the fix, pasted as the message gives it.

`predictions=b"..."` once suggested `predictions=[b'...']`, which failed again. Each case below
makes the mistake, reads the code the message suggests, runs it in place of the mistake, and
checks that the call then works (with the score it should give).
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from bleukit.significance.compare import compare
from bleukit.core import compute_bleu
from bleukit.cli.request import EXAMPLE_HYPOTHESES as EXAMPLE_HYPOTHESES_PATH
from bleukit.cli.request import EXAMPLE_REFERENCES as EXAMPLE_REFERENCES_PATHS
from conftest import REPO


def message_of(call) -> str:
    with pytest.raises((TypeError, ValueError)) as raised:
        call()
    return str(raised.value)


def suggestion(message: str, pattern: str) -> str:
    found = re.search(pattern, message)
    assert found, (pattern, message)
    return found.group(1)


def run_pasted(code: str, call: str, **names) -> dict:
    """`call` with the pasted keyword `code` (e.g. "predictions=['a b']") in it, in a namespace
    holding the user's own variables."""
    namespace = {"compute_bleu": compute_bleu, "compare": compare, **names}
    exec(f"result = {call.format(code=code)}", namespace)
    return namespace["result"]


@pytest.mark.parametrize("given, expected", [("the cat sat on the mat", "the cat sat on the mat"),
                                             (b"the cat sat on the mat", "the cat sat on the mat"),
                                             ("für die Katze auf der Matte".encode(), "für die Katze auf der Matte")],
                         ids=["str", "bytes", "utf-8 bytes"])
def test_a_bare_string_or_bytes_suggests_a_list_that_works(given, expected):
    for name, other in (("predictions", "references=[{expected!r}]"), ("references", "predictions=[{expected!r}]")):
        arguments = {name: given, "references" if name == "predictions" else "predictions": [expected]}
        message = message_of(lambda: compute_bleu(**arguments))
        code = suggestion(message, rf"e\.g\. ({name}=\[.*\])$")
        result = run_pasted(code, "compute_bleu({code}, " + other.format(expected=expected) + ")")
        assert result["bleu"] == 1.0, (message, code)


@pytest.mark.parametrize("batch", [{"prediction": ["a b c d", "e f g h"], "reference": ["a b c d", "e f g h"]},
                                   {"prediction": "a b c d", "reference": "a b c d"}], ids=["batch", "one example"])
def test_a_dict_suggests_its_column(batch):
    message = message_of(lambda: compute_bleu(batch, batch["reference"]))
    code = suggestion(message, r"from a dict: (predictions=\S+),")
    references = batch["reference"] if isinstance(batch["reference"], list) else [batch["reference"]]
    assert run_pasted(code, "compute_bleu({code}, references=references)", batch=batch,
                      references=references)["bleu"] == 1.0


def test_a_bare_reference_beside_lists_suggests_its_wrapped_form():
    references = [["a b c d"], "e f g h"]
    message = message_of(lambda: compute_bleu(["a b c d", "e f g h"], references))
    wrapped = suggestion(message, r"wrap it as (\[.*?\]) so")
    fixed = list(references)
    fixed[1] = eval(wrapped)  # the pasted literal in place of references[1]
    assert compute_bleu(["a b c d", "e f g h"], fixed)["bleu"] == 1.0


def test_empty_weights_suggest_weights_that_work():
    message = message_of(lambda: compute_bleu(["a b"], ["a b"], weights=()))
    code = "weights=" + suggestion(message, r"e\.g\. (\(.*\))$")
    assert run_pasted(code, "compute_bleu(['a b'], ['a b'], {code})")["bleu"] == 1.0


def test_confidence_samples_with_the_bootstrap_suggests_what_works():
    systems = {"a": ["a b c d", "e f"], "b": ["a b c", "e f g"]}
    message = message_of(lambda: compare(systems, ["a b c d", "e f g"], confidence_samples=10))
    code = suggestion(message, r"pass (confidence_samples=0)")
    result = run_pasted(code, "compare(systems, ['a b c d', 'e f g'], samples=20, {code})", systems=systems)
    assert result["systems"][1]["mean"] is not None


def test_lowercase_with_token_ids_suggests_what_works():
    message = message_of(lambda: compute_bleu([[1, 2, 3]], [[1, 2, 3]], lowercase=True))
    code = suggestion(message, r"pass (lowercase=False)")
    assert run_pasted(code, "compute_bleu([[1, 2, 3]], [[1, 2, 3]], max_order=3, {code})")["bleu"] == 1.0


def test_mismatched_weights_and_max_order_suggest_leaving_max_order_out():
    message = message_of(lambda: compute_bleu(["a b c"], ["a b c"], weights=(0.5, 0.5), max_order=3))
    assert "leave max_order out" in message
    assert compute_bleu(["a b c"], ["a b c"], weights=(0.5, 0.5))["bleu"] == 1.0


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bleukit", *map(str, args)], input=stdin,
                          capture_output=True, text=True, timeout=120, cwd=REPO)


@pytest.mark.parametrize("mistake, pattern", [
    (["{hyp}", "-r", "{ref}", "-t", "intl"], r"write (-tok intl)\."),
    (["{ref}", "-i", "{hyp}", "-l", "english"], r"e\.g\. (-l en-de)$"),
])
def test_command_line_hints_work_when_pasted(mistake, pattern):
    names = {"hyp": EXAMPLE_HYPOTHESES_PATH, "ref": EXAMPLE_REFERENCES_PATHS[0]}
    arguments = [argument.format(**names) for argument in mistake]
    failed = cli(*arguments)
    assert failed.returncode == 2
    fix = suggestion(failed.stderr.strip(), pattern).split()
    fixed = cli(*arguments[:-2], *fix)
    assert fixed.returncode == 0, fixed.stderr


def test_command_line_hint_for_a_lone_file_works():
    """`bleukit/cli/main.py HYP` with nothing on stdin reads HYP as a reference; the message says to write
    HYP -r REF: done with the example's files, it scores."""
    failed = cli(EXAMPLE_HYPOTHESES_PATH)
    assert failed.returncode == 2 and "write HYP -r REF [REF ...]" in failed.stderr
    assert cli(EXAMPLE_HYPOTHESES_PATH, "-r", *EXAMPLE_REFERENCES_PATHS).returncode == 0

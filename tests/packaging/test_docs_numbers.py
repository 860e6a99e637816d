"""Every number in the docs (README.md and docs/*.md), checked against the code or accounted for.

The docs once quoted numbers the code does not print in their last digits (docs/metric.md's worked
example said 0.4671379777282001 where `compute` prints 0.46713797772820015). So here:

1. `test_the_numbers_are_the_ones_the_code_prints[page]` runs what each page shows and compares every
   shown number with what the code gives, as many digits as are shown (the full repr where a number is
   written with 15 or more significant digits; otherwise the value rounded the same way):
   - every `>>>` example (its repr, structure and every number; `...` stands for anything);
   - every `console` block (`$ command` then its output, run in a fresh process, line for line);
   - every claim in CLAIMS (tests/support/docs_claims/, one module per page): the page's words with a
     hole `{}` per number (and `{*}` for a text such as a signature), and the code that makes those
     numbers; a claim whose words are no longer on the page fails (update it with the page);
   - GLOBAL_RULES (docs_claims/rules.py): numbers that mean one thing wherever they stand (the
     signature's version, -100, MeCab's signature names, the benchmark corpus' BLEU).
   Claims on pages others own (demo, performance, scaling) that are known to be wrong carry `reported`:
   they warn until the page is fixed, then fail until the mark is dropped.
2. `test_every_number_is_accounted_for[page]` finds every number on the page (docs_numbers.NUMBER) and
   fails on one that is none of: checked above; an input of an example (the code of a fenced block, or
   inline code such as `max_order=2`); in a unit that names its measurement (a date, the machine or
   the card: MEASUREMENT in docs_numbers; a table or block whose lead-in names it; or MEASURED in
   docs_allowed, with the reason); or in ALLOWED (docs_allowed), each entry with its reason (versions,
   years, sizes of inputs...).
3. The self-tests at the end change one digit of a page in memory and see the check fail, and add a
   number nobody accounts for and see the accounting fail; `test_every_allowance_still_allows_something`
   keeps the allowlist from outliving the words it was written for.

The machinery is in tests/support: docs_numbers.py (numbers, and how a shown one is compared),
docs_pages.py (a page cut into units), docs_blocks.py (examples run), docs_checks.py (a page checked),
docs_accounting.py (every number accounted for); see docs_numbers.py's docstring.

Examples that need the WMT17 data use tests/data's copy (tests/conftest.py unpacks it); nothing is
downloaded. The Trainer example trains a tiny model on the CPU: marked slow, as is scipy's bootstrap.
"""
from __future__ import annotations

import os
import re
from typing import List

import pytest
from conftest import REPO, WMT17
from docs_accounting import accounting
from docs_allowed import ALLOWED
from docs_checks import Runs, check_page
from docs_claims import CLAIMS, Code
from docs_numbers import PAGES, numbers_in
from docs_pages import Doc

# The project's measurements (GPU and 16-core runs) the docs cite as ../shared/measurements/<file>; a copy
# ships in tests/data/measurements so that a clone without ../shared checks the tables too.
SHARED_MEASUREMENTS = REPO.parent / "shared" / "measurements"
MEASUREMENTS = REPO / "tests" / "data" / "measurements"


# ------------------------------------------------------------------------------------------------
# The tests
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def code(bleu, tmp_path_factory) -> Code:
    folder = tmp_path_factory.mktemp("wmt17")
    for name in os.listdir(WMT17):
        (folder / name).symlink_to(WMT17 / name)
    return Code(bleu, folder)


@pytest.fixture(scope="module")
def runs(code) -> Runs:
    return Runs(code)


def report(problems: List[str]) -> str:
    return "\n".join(["", *problems])


@pytest.mark.parametrize("page", PAGES)
def test_the_numbers_are_the_ones_the_code_prints(page, code, runs, tmp_path):
    compared, problems = check_page(code, runs, Doc(page), tmp_path)
    assert not problems, report(problems)


@pytest.mark.parametrize("page", PAGES)
def test_every_number_is_accounted_for(page):
    doc = Doc(page)
    _, missing = accounting(doc)
    assert not missing, report([f"{n.where}: {n.text} is neither checked, an input, measured nor allowed: "
                                f"{doc.lines[n.line - 1].strip()[:140]}" for n in missing])


def test_every_allowance_still_allows_something():
    """The allowlist stays short: an entry whose words left the pages goes too."""
    texts = {page: Doc(page).text for page in PAGES}
    unused = [entry for entry in ALLOWED
              if not any(re.search(entry.pattern, text) for page, text in texts.items() if re.fullmatch(entry.pages, page))]
    assert not unused, report([f"{entry.pages}: {entry.pattern!r} ({entry.reason})" for entry in unused])


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted({claim.page for claim in CLAIMS if claim.slow}))
def test_the_slow_numbers_are_the_ones_the_code_prints(page, code, runs, tmp_path, monkeypatch):
    """The Trainer example (a tiny BART trained for 200 steps on the CPU) and scipy's bootstrap interval."""
    monkeypatch.chdir(tmp_path)  # the Trainer example writes its checkpoints to "out"
    compared, problems = check_page(code, runs, Doc(page), tmp_path, slow=True)
    assert compared and not problems, report(problems)


def test_tables_copied_from_the_shared_measurements_are_copied_right():
    """A table or block whose lead-in cites ../shared/measurements/<file> holds only numbers of that file
    (the copy in tests/data/measurements, the same bytes as ../shared's where that is here)."""
    problems, seen = [], 0
    for page in PAGES:
        doc = Doc(page)
        for index, unit in enumerate(doc.units):
            cited = re.search(r"shared/measurements/([\w.-]+\.md)", unit.text)
            if not cited:
                continue
            copy = MEASUREMENTS / cited.group(1)
            assert copy.exists(), f"{page}: cites {cited.group(1)}, which tests/data/measurements lacks"
            if (SHARED_MEASUREMENTS / cited.group(1)).exists():
                assert copy.read_bytes() == (SHARED_MEASUREMENTS / cited.group(1)).read_bytes()
            source = {text.replace(",", "") for _, _, text in numbers_in(copy.read_text(encoding="utf-8"))}
            for follower in doc.units[index + 1:]:
                if follower.kind not in ("table", "fence"):
                    break
                for _, _, text in numbers_in(follower.text):
                    seen += 1
                    if text.replace(",", "") not in source:
                        problems.append(f"{page}:{follower.first}-{follower.last}: {text} is not in {cited.group(1)}")
    assert seen and not problems, report(problems)


# ------------------------------------------------------------------------------------------------
# The proof that these tests cannot pass silently: one digit changed on a page (in memory) fails them.
# ------------------------------------------------------------------------------------------------


DRIFTS = [
    ("docs/metric.md", "(5/7 · 4/6 · 2/5 · 1/4)^¼ = 0.46713797772820015", "(5/7 · 4/6 · 2/5 · 1/4)^¼ = 0.4671379777282001"),
    ("docs/metric.md", "{'bleu': 0.7016879391277371,", "{'bleu': 0.7016879391277372,"),
    ("docs/differences.md", "this module 0.32653090555656233: one unit", "this module 0.3265309055565624: one unit"),
    ("docs/diversity.md", "# 0.6659: the mean", "# 0.6658: the mean"),
    ("docs/cli.md", "self-BLEU        0.5318", "self-BLEU        0.5319"),
    ("docs/comparing.md", "p-value 0.068 with 1,838 ties", "p-value 0.068 with 1,839 ties"),
    ("README.md", "`smooth_value=7`: 1.8708, as sacreBLEU", "`smooth_value=7`: 1.8709, as sacreBLEU"),
]


@pytest.mark.parametrize("page,old,new", DRIFTS, ids=[f"{page}:{new[-12:]}" for page, _, new in DRIFTS])
def test_a_changed_digit_fails_the_check(page, old, new, code, tmp_path):
    doc = Doc(page)
    assert doc.text.count(old) == 1, f"{page} no longer says {old!r}: pick another number for this self-test"
    changed = Doc(page, doc.text.replace(old, new))
    _, problems = check_page(code, Runs(code), changed, tmp_path)
    assert problems and all(page in problem for problem in problems), problems


def test_a_number_nobody_accounts_for_fails_the_accounting():
    doc = Doc("docs/metric.md")
    paragraph = "Counts are summed over the whole corpus before dividing"
    changed = Doc("docs/metric.md", doc.text.replace(paragraph, "It takes 42 ms. " + paragraph))
    _, missing = accounting(changed)
    assert [number.text for number in missing] == ["42"]

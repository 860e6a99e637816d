"""What the pages of the docs claim, and the code that makes those numbers: one module per page.

A claim (docs_numbers.Claim) is the page's words with a hole per number: `{}` is a number the code makes
(compared with `shows`), `{*}` a text the code makes (equal, character for character), `{_}` a number that
claim leaves to another reason. A claim with line=True is a comment in a code block: its block runs (SETUP
gives the names the page assumes) and values(code, out) gets the statement it describes. The functions
that compute the values sit under the claims of their page, or in common.py where pages share them.
GLOBAL_RULES (rules.py): numbers that mean one thing wherever they stand.

A claim on a page whose words change fails: update it in its page's module.
"""

from __future__ import annotations

from typing import Callable, Dict, List

from docs_numbers import PAGES, Claim

from . import cli, comparing, demo, differences, diversity, metric, performance, readme, rewards, scaling, tokenizers, training
from .common import Code, card_names
from .rules import GLOBAL_RULES, Rule

__all__ = ["CLAIMS", "GLOBAL_RULES", "SETUP", "Code", "Rule"]

CLAIMS: List[Claim] = [
    *readme.CLAIMS,
    *metric.CLAIMS,
    *cli.CLAIMS,
    *comparing.CLAIMS,
    *diversity.CLAIMS,
    *rewards.CLAIMS,
    *tokenizers.CLAIMS,
    *training.CLAIMS,
    *demo.CLAIMS,
    *performance.CLAIMS,
    *scaling.CLAIMS,
    *differences.CLAIMS,
]

# The names a page's blocks assume: the card's example everywhere, and a page's own where it has some.
SETUP: Dict[str, Callable[[Code], dict]] = {**{page: card_names for page in PAGES}, "docs/comparing.md": comparing.comparing_names,
                                          "docs/diversity.md": diversity.diversity_names, "docs/rewards.md": rewards.rewards_names}

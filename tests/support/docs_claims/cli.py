"""docs/cli.md's claims: exit statuses, defaults of the options, the pasted systems; CONSOLE_FILES for its console blocks."""

from __future__ import annotations

from typing import Any, List

from docs_numbers import Claim

from .common import REFERENCE, compare_of, constant, json_of


CONSOLE_FILES = {
    # docs/cli.md's --self-bleu example: the five lines the page lists above its output
    "generations.txt": "the cat sat on the mat\nthe cat sat on a mat\na dog barked loudly\nthe cat sat on the mat\n\n",
}


CLAIMS: List[Claim] = [
    Claim("docs/cli.md", "are a usage error (exit {}) that says what to pass",
          lambda code: [code.status(stdin="the cat sat on the mat\n")]),
    Claim("docs/cli.md", "a pipe with nothing ready within {} ms counts as empty",
          lambda code: [1000 * default_arg("bleukit.cli.files", "stdin_holds_text", "wait_s")]),
    Claim("docs/cli.md", "bleu ref.txt` scores `System {}` and `System {}`",
          lambda code: [int(row["system"].split()[-1]) for row in code.pasted]),
    Claim("docs/cli.md", "(with a paired test, `Baseline`, `System\n  {}`, ...)",
          lambda code: [int(json_of(code.cli(code.file("ref50.de", list(code.lines(REFERENCE))[:50]), "-pbs", "--paired-bs-n", "10",
                                             stdin=code.columns(50)))[1]["system"].split()[-1])]),
    Claim("docs/cli.md", "bleu newstest2017-ende.ref.de -b` gives {} and {}, as\n  sacreBLEU (it once printed one number, {_},",
          lambda code: [row["BLEU"] for row in code.pasted]),
    Claim("docs/cli.md", "(`*` at\n  p <= {})", lambda code: [constant("bleukit/cli/sacrebleu_layouts.py", "SACREBLEU_THRESHOLD")]),
    Claim("docs/cli.md", "marked `*` below {}", lambda code: [constant("bleukit/cli/render.py", "SIGNIFICANCE_LEVEL")]),
    Claim("docs/cli.md", "`--seed S` the draws ({}, as sacreBLEU)", lambda code: [compare_of(code)["seed"]]),
    Claim("docs/cli.md", "exits with status {} and the message", lambda code: [code.status(REFERENCE, "-i", REFERENCE, "-l", "ja")]),
    Claim("docs/cli.md", "forks up to one per core for {} segments and more",
          lambda code: [constant("bleukit/counting/parallel.py", "PROCESS_MIN_SEGMENTS")]),
    Claim("docs/cli.md", "most similar pairs\n(default {}; {_}: none)", lambda code: [default_option("--top")]),
    Claim("docs/cli.md", "searched for files of up to {} lines", lambda code: [constant("bleukit/diversity/pairwise.py", "PAIR_SEARCH_LIMIT")]),
    Claim("docs/cli.md", "For a `generations.txt` of five lines, `{*}`,\n`{*}`, `{*}`, the first line again and an empty line:",
          lambda code: CONSOLE_FILES["generations.txt"].split("\n")[:3]),
]


def default_arg(module: str, function: str, name: str) -> Any:
    import importlib
    import inspect

    return inspect.signature(getattr(importlib.import_module(module), function)).parameters[name].default


def default_option(flag: str) -> Any:
    from bleukit.cli.parser import build_parser

    return next(action.default for action in build_parser()._actions if flag in action.option_strings)

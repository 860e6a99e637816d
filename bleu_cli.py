"""Score hypothesis files against reference files from the command line, in either of two grammars.

    python bleu_cli.py                                   # the bundled example in examples/, and says so
    python bleu_cli.py HYP [HYP ...] -r REF [REF ...]    # this module's grammar: files before -r are systems
    python bleu_cli.py REF [REF ...] -i HYP [HYP ...]    # sacreBLEU's grammar: files before -i are references
    cat HYP | python bleu_cli.py REF [REF ...]           # sacreBLEU's grammar, hypotheses on stdin
    cat HYP | python bleu_cli.py -r REF [REF ...]        # this module's grammar, hypotheses on stdin

Which grammar a command uses is decided by `-r` or `-i` (never both), so every file has one role.
sacreBLEU's grammar takes sacreBLEU's defaults (exp smoothing, JSON output, scores on 0-100) and
prints what sacreBLEU prints, with this module's signature; this module's grammar keeps the
metric's defaults (no smoothing, scores on 0-1) and its own report. With two or more hypothesis
files and `--paired-bs` or `--paired-ar`, each system is tested against the baseline (the first,
or `--baseline`) with `bleu_compare.compare`. The numbers come from the same core
(`bleu_core.compute_bleu`) as `evaluate.load("bleu_metric.py")`. Bad input exits 2 with a message
on stderr.

The command runs in four steps, each in its own module: the options (`bleu_cli_parser`), one
request from either grammar (`bleu_cli_request`), the files (`bleu_cli_files`), and every output
(`bleu_cli_render`, tables drawn by `bleu_cli_tables`). This file wires them together.
"""

from __future__ import annotations

import sys
from typing import Dict, List, Optional, Sequence

from bleu_cli_files import load, read_segments
from bleu_cli_parser import PROG, build_parser
from bleu_cli_render import Outcome, format_result, render
from bleu_cli_request import (
    EXAMPLE_DIR,
    EXAMPLE_HYPOTHESES,
    EXAMPLE_REFERENCES,
    OURS,
    Request,
    Roles,
    UsageError,
    request_from_args,
    resolve_roles,
)
from bleu_core import compute_bleu

__all__ = [
    "EXAMPLE_HYPOTHESES", "EXAMPLE_REFERENCES", "Roles", "UsageError", "build_parser", "format_result", "main",
    "read_segments", "resolve_roles",
]


def compute(request: Request, systems: Dict[str, List[str]], references: List[List[str]]) -> Outcome:
    """Score what the request asks for: one system, several, or a paired test of them."""
    if request.paired is not None:
        from bleu_compare import compare  # only this path needs it

        paired = request.paired
        return Outcome(comparison=compare(
            systems, references, baseline=paired.baseline, method=paired.method, samples=paired.samples,
            seed=request.seed, confidence_samples=paired.confidence_samples, **request.options,
        ))
    if len(systems) > 1:
        return Outcome(several={name: compute_bleu(hypotheses, references, **request.options)
                                for name, hypotheses in systems.items()})
    (hypotheses,) = systems.values()
    return Outcome(single=compute_bleu(
        hypotheses, references, **request.options, return_sentence_scores=request.sentence_scores,
        bootstrap_samples=request.bootstrap, bootstrap_seed=request.seed,
    ))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        request = request_from_args(args, stdin_is_terminal=sys.stdin is None or sys.stdin.isatty())
    except UsageError as error:
        parser.error(str(error))
    roles = request.roles
    if roles.example and request.output_format == "text" and not request.score_only:
        print(
            f"No files given: scoring the bundled example, {EXAMPLE_HYPOTHESES.relative_to(EXAMPLE_DIR.parent)} "
            f"against {len(EXAMPLE_REFERENCES)} reference files in examples/.\n"
            f"Score your own with: python {PROG} HYPOTHESES -r REFERENCES [REFERENCES ...]\n"
        )
    try:
        systems, references = load(roles)
        outcome = compute(request, systems, references)
    except (OSError, ValueError, TypeError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    if (roles.grammar == OURS and not roles.example and outcome.single is not None
            and (request.output_format != "text" or request.score_only)):
        print(f"{PROG}: {roles.describe()}", file=sys.stderr)  # the report names them; JSON and -b do not
    print(render(request, outcome))
    return 0


if __name__ == "__main__":
    sys.exit(main())

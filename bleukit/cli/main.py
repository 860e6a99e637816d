"""Score hypothesis files against reference files from the command line, in either of two grammars.

    python -m bleukit                                   # nothing piped in: the bundled example in examples/, says so
    python -m bleukit HYP [HYP ...] -r REF [REF ...]    # this module's grammar: files before -r are systems
    python -m bleukit REF [REF ...] -i HYP [HYP ...]    # sacreBLEU's grammar: files before -i are references
    cat HYP | python -m bleukit REF [REF ...]           # sacreBLEU's grammar, hypotheses on stdin
    paste A B | python -m bleukit REF [REF ...]         # sacreBLEU's grammar, one system per column
    cat HYP | python -m bleukit -r REF [REF ...]        # this module's grammar, hypotheses on stdin
    python -m bleukit --self-bleu FILE                  # diversity: self-BLEU of FILE's lines, similar pairs

Which grammar a command uses is decided by `-r` or `-i` (never both), so every file has one role.
sacreBLEU's grammar takes sacreBLEU's defaults (exp smoothing, JSON output, scores on 0-100) and
prints what sacreBLEU 2.6 prints, with this module's signature; this module's grammar keeps the
metric's defaults (no smoothing, scores on 0-1) and its own report. With two or more systems and
`--paired-bs` or `--paired-ar`, each system is tested against the baseline (the first, or
`--baseline`) with `bleukit.significance.compare.compare`. The numbers come from the same core
(`bleukit.core.compute_bleu`) as `evaluate.load("bleu_metric.py")`. Bad input exits 2 with a message
on stderr; piped into `head`, the command stops quietly like other Unix tools.

The command runs in four steps, each in its own module: the options (`bleukit.cli.parser`), one
request from either grammar (`bleukit.cli.request`), the files (`bleukit.cli.files`), and every output
(`bleukit.cli.render`; sacreBLEU's layouts in `bleukit.cli.sacrebleu_layouts`, tables drawn by
`bleukit.cli.tables`). This file wires them together. The Diversity view (`--self-bleu FILE`) is its
own command, in `bleukit.cli.diversity`.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Any, List, Optional, Sequence

from bleukit.cli.files import Inputs, load, read_segments, stdin_holds_text
from bleukit.cli.parser import build_parser, command_name
from bleukit.cli.render import Outcome, format_result, notes, render
from bleukit.cli.request import (
    EXAMPLE_DIR,
    EXAMPLE_HYPOTHESES,
    EXAMPLE_REFERENCES,
    SEVERAL_SYSTEMS_MESSAGE,
    Request,
    Roles,
    UsageError,
    request_from_args,
    resolve_roles,
)
from bleukit.core import compute_bleu, compute_systems, score, statistics_of_inputs
from bleukit.options import resolve_options
from bleukit.tokenizers.registry import TokenizerSetupError

__all__ = [
    "EXAMPLE_HYPOTHESES", "EXAMPLE_REFERENCES", "Roles", "UsageError", "build_parser", "format_result", "main",
    "read_segments", "resolve_roles",
]


def _per_segment(hypotheses: List[str], references: List[List[str]], options: dict, num_workers: Any) -> List[dict]:
    """One result dict per segment, each from its own statistics row (sacreBLEU's -sl)."""
    rows, num_refs, used = statistics_of_inputs(hypotheses, references, resolve_options(**options),
                                                num_workers=num_workers)
    signature = used.signature(num_refs)
    return [dict(score(row, used).as_dict(), signature=signature) for row in rows]


def compute(request: Request, inputs: Inputs) -> Outcome:
    """Score what the request asks for: one system, several, or a paired test of them."""
    systems, references = inputs.systems, inputs.references
    columns = request.roles.columns
    if len(systems) > 1 and request.paired is None and (request.bootstrap or request.sentence_scores
                                                        or request.sentence_level):
        raise UsageError(SEVERAL_SYSTEMS_MESSAGE)  # stdin's columns are counted only now
    if request.paired is not None:
        from bleukit.significance.compare import compare  # only this path needs it

        if len(systems) < 2:
            raise UsageError(f"a paired test compares two or more systems but stdin holds one column; write "
                             f"one system per tab-separated column (paste BASE SYS | {command_name()} REF -pbs) or use -i")
        paired = request.paired
        return Outcome(comparison=compare(
            systems, references, baseline=paired.baseline, method=paired.method, samples=paired.samples,
            seed=request.seed, confidence_samples=paired.confidence_samples, count_ties=paired.count_ties,
            num_workers=request.num_workers, **request.options,
        ), from_columns=columns)
    if len(systems) > 1:  # the references tokenized once, every system counted in the same workers
        return Outcome(several=compute_systems(systems, references, num_workers=request.num_workers,
                                               **request.options), from_columns=columns)
    (hypotheses,) = systems.values()
    if request.sentence_level:
        return Outcome(sentences=_per_segment(hypotheses, references, request.options, request.num_workers))
    return Outcome(single=compute_bleu(
        hypotheses, references, **request.options, return_sentence_scores=request.sentence_scores,
        bootstrap_samples=request.bootstrap, bootstrap_seed=request.seed, num_workers=request.num_workers,
    ))


def diversity(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """--self-bleu FILE: the Diversity view (see `bleukit.cli.diversity`)."""
    from bleukit.cli.diversity import check_arguments, run  # only this command needs it

    try:
        check_arguments(args)
    except UsageError as error:
        parser.error(str(error))
    try:
        print(run(args))
    except (OSError, ValueError, TypeError, ImportError, TokenizerSetupError) as error:
        print(f"{command_name()}: error: {error}", file=sys.stderr)
        return 2
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.self_bleu is not None:
        return diversity(parser, args)
    try:
        request = request_from_args(args, stdin_is_terminal=sys.stdin is None or sys.stdin.isatty(),
                                    stdin_has_text=stdin_holds_text)
    except UsageError as error:
        parser.error(str(error))
    roles = request.roles
    if roles.example and request.output_format == "text" and not request.score_only:
        print(
            f"No files given: scoring the bundled example, {EXAMPLE_HYPOTHESES.relative_to(EXAMPLE_DIR.parent)} "
            f"against {len(EXAMPLE_REFERENCES)} reference files in {EXAMPLE_DIR.name}/ (bleukit/cli).\n"
            f"Score your own with: {command_name()} HYPOTHESES -r REFERENCES [REFERENCES ...]\n"
        )
    try:
        inputs = load(request)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outcome = compute(request, inputs)
    except UsageError as error:
        parser.error(str(error))
    except (OSError, ValueError, TypeError, ImportError, TokenizerSetupError) as error:
        print(f"{command_name()}: error: {error}", file=sys.stderr)
        return 2
    said = [*request.warnings, *(str(warning.message) for warning in caught)]  # e.g. a tokenizer against -l
    for warning in [] if request.quiet else said:
        print(f"{command_name()}: warning: {warning}", file=sys.stderr)
    for line in ([] if request.quiet else inputs.notes) + notes(request, outcome):
        print(line, file=sys.stderr)
    print(render(request, outcome))
    return 0


def run_as_command() -> None:
    """`python -m bleukit` and the installed `bleu` command: main(), and when the reader of stdout goes
    away (`| head`), stop quietly as Unix tools do (sacreBLEU too): the default SIGPIPE action, where
    there is one."""
    try:
        import signal

        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    except (ImportError, AttributeError, ValueError):  # no SIGPIPE (Windows), or not the main thread
        pass
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # where SIGPIPE could not be restored: the same quiet stop
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    run_as_command()

"""One request from either command-line grammar: which files play which role, what to compute, how to print it.

`request_from_args` maps the parsed arguments of both grammars (see `bleu_cli_parser`) onto one
`Request`, raising `UsageError` for a command line that cannot be read one way only. Everything
after this point (reading the files, scoring, rendering) looks at the request, never at the
grammar's option names.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional

from bleu_compare import DEFAULT_SAMPLES

EXAMPLE_DIR = Path(__file__).resolve().parent / "examples"
EXAMPLE_HYPOTHESES = EXAMPLE_DIR / "hypotheses.txt"
EXAMPLE_REFERENCES = [EXAMPLE_DIR / "references.1.txt", EXAMPLE_DIR / "references.2.txt"]

STDIN = "-"
# The two grammars.
OURS = "ours"
SACREBLEU = "sacrebleu"
# Defaults that differ between the grammars: sacreBLEU smooths with exp, prints JSON, one digit.
GRAMMAR_DEFAULTS = {
    OURS: {"smooth": "none", "format": "text", "width": 4},
    SACREBLEU: {"smooth": "exp", "format": "json", "width": 1},
}


class UsageError(ValueError):
    """A command line that cannot be read one way only, or asks for something impossible."""


def display(path: str) -> str:
    """A file's name as messages and reports show it ('-' is stdin)."""
    return "<stdin>" if path == STDIN else str(path)


@dataclass
class Roles:
    """Which files are hypotheses (systems) and which are references, and in which grammar."""

    grammar: str
    hypotheses: List[str]
    references: List[str]
    example: bool = False

    def describe(self) -> str:
        hyps = ", ".join(display(path) for path in self.hypotheses)
        refs = ", ".join(display(path) for path in self.references)
        return f"hypotheses: {hyps}; references: {refs}"


@dataclass(frozen=True)
class PairedRequest:
    """A paired significance test of every system against the baseline."""

    method: str  # "bootstrap" or "ar"
    samples: int
    baseline: str
    confidence_samples: int  # ar only: bootstrap resamples for each system's mean and interval


@dataclass(frozen=True)
class Request:
    """Everything a command asks for, whichever grammar it was written in."""

    roles: Roles
    options: Dict[str, Any]  # the scoring options, as compute takes them
    output_format: str  # "text", "json" or "latex"
    width: int  # digits after the decimal point
    score_only: bool
    short: bool  # sacreBLEU's abbreviated signature keys
    sentence_scores: bool
    bootstrap: int  # resamples for one system's 95% interval (0: none)
    seed: Optional[int]
    paired: Optional[PairedRequest]

    @property
    def grammar(self) -> str:
        return self.roles.grammar

    @property
    def scale(self) -> float:
        """sacreBLEU's grammar prints scores on 0-100, this module's on 0-1."""
        return 100.0 if self.grammar == SACREBLEU else 1.0


def resolve_roles(args: argparse.Namespace, stdin_is_terminal: bool) -> Roles:
    """Decide the grammar and every file's role, or raise UsageError when that cannot be done one way."""
    if args.input and args.references:
        raise UsageError(
            "-i (sacreBLEU's grammar: REF ... -i HYP ...) and -r (HYP ... -r REF ...) give files opposite roles; "
            "use one of them"
        )
    if args.input:
        if not args.files:
            raise UsageError("-i names the hypotheses; give the reference files before it: REF [REF ...] -i HYP [HYP ...]")
        roles = Roles(SACREBLEU, list(args.input), list(args.files))
    elif args.references:
        roles = Roles(OURS, list(args.files) or [STDIN], list(args.references))
    elif args.files:
        if stdin_is_terminal:
            raise UsageError(
                f"no hypotheses: read as sacreBLEU's grammar, {', '.join(args.files)} are reference files and the "
                "hypotheses come from stdin or -i. Pipe them in, or write HYPOTHESES -r REFERENCES "
                "(at least one reference file after -r)"
            )
        roles = Roles(SACREBLEU, [STDIN], list(args.files))
    else:
        return Roles(OURS, [str(EXAMPLE_HYPOTHESES)], [str(path) for path in EXAMPLE_REFERENCES], example=True)
    named = roles.hypotheses + roles.references
    if STDIN in named and stdin_is_terminal:
        raise UsageError(f"{display(STDIN)} would be read from the terminal ({roles.describe()}); "
                         "pipe the file in or name it")
    if named.count(STDIN) > 1:
        raise UsageError("stdin ('-') can hold one file only; " + roles.describe())
    both = sorted(set(roles.hypotheses) & set(roles.references))
    if both:
        raise UsageError(f"{', '.join(both)} is named both as a hypothesis and as a reference file; " + roles.describe())
    repeated = sorted({path for path in roles.hypotheses if roles.hypotheses.count(path) > 1})
    if repeated:
        raise UsageError(f"hypothesis file {', '.join(repeated)} is given twice; name each system once")
    return roles


def paired_request(args: argparse.Namespace, roles: Roles) -> Optional[PairedRequest]:
    """The paired test asked for, or None."""
    counts = {"--paired-n": args.paired_n, "--paired-bs-n": args.paired_bs_n, "--paired-ar-n": args.paired_ar_n}
    if not (args.paired_bs or args.paired_ar):
        given = [name for name, value in counts.items() if value is not None]
        if given or args.baseline is not None:
            raise UsageError(f"{' and '.join(given + ['--baseline'] * (args.baseline is not None))} needs --paired-bs or --paired-ar")
        return None
    flag = "--paired-bs" if args.paired_bs else "--paired-ar"
    if len(roles.hypotheses) < 2:
        raise UsageError(
            f"{flag} compares two or more systems but got one hypothesis file ({roles.describe()}). "
            + ("Every file after -r is a reference: put the systems before -r (BASE SYS [SYS ...] -r REF)."
               if roles.grammar == OURS else "Give the systems after -i: REF -i BASE SYS [SYS ...].")
        )
    method = "bootstrap" if args.paired_bs else "ar"
    if (args.paired_bs and args.paired_ar_n is not None) or (args.paired_ar and args.paired_bs_n is not None):
        raise UsageError(f"{flag} was asked for, with the sample count of the other test")
    samples = args.paired_n if args.paired_n is not None else (args.paired_bs_n if args.paired_bs else args.paired_ar_n)
    baseline = roles.hypotheses[0] if args.baseline is None else args.baseline
    if baseline not in roles.hypotheses:
        raise UsageError(f"--baseline {baseline!r} is not one of the hypothesis files: {', '.join(roles.hypotheses)}")
    confidence = args.confidence_n if (args.confidence and method == "ar") else 0
    return PairedRequest(method, samples if samples is not None else DEFAULT_SAMPLES[method], baseline,
                         confidence)


def request_from_args(args: argparse.Namespace, stdin_is_terminal: bool) -> Request:
    """The one request both grammars map onto, or a UsageError naming what cannot be done."""
    roles = resolve_roles(args, stdin_is_terminal)
    paired = paired_request(args, roles)
    defaults = GRAMMAR_DEFAULTS[roles.grammar]
    width = defaults["width"] if args.width is None else args.width
    if width < 0:
        raise UsageError(f"--width must be >= 0, not {args.width}")
    if args.bootstrap is not None and args.confidence:
        raise UsageError("--bootstrap N and -ci/--confidence both ask for the interval; give one (-ci takes --confidence-n N)")
    bootstrap = args.bootstrap or (args.confidence_n if args.confidence else 0)
    if paired is not None:
        if bootstrap and paired.method == "bootstrap":
            raise UsageError("--paired-bs reports each system's mean and 95% interval already; drop -ci/--bootstrap")
        if args.sentence_scores:
            raise UsageError("--sentence-scores is for one system; paired tests report corpus scores")
    elif len(roles.hypotheses) > 1 and (bootstrap or args.sentence_scores):
        raise UsageError("confidence intervals and sentence scores are for one system; "
                         "for several, use --paired-bs (which reports each system's interval)")
    options = dict(
        tokenizer=args.tokenizer, lowercase=args.lowercase, max_order=args.max_order, weights=args.weights,
        smooth=args.smooth or defaults["smooth"], smooth_value=args.smooth_value, ref_length=args.ref_length,
        effective_order=args.effective_order,
    )
    return Request(
        roles=roles, options=options, output_format=args.format or defaults["format"], width=width,
        score_only=args.score_only, short=args.short, sentence_scores=args.sentence_scores, bootstrap=bootstrap,
        seed=args.seed, paired=paired,
    )


"""One request from either command-line grammar: which files play which role, what to compute, how to print it.

`request_from_args` maps the parsed arguments of both grammars (see `bleukit.cli.parser`) onto one
`Request`, raising `UsageError` for a command line that cannot be read one way only. Everything
after this point (reading the files, scoring, rendering) looks at the request, never at the
grammar's option names. sacreBLEU's grammar reads its environment as sacreBLEU does:
`SACREBLEU_SEED` (an integer, or none) and `SACREBLEU_FORMAT`.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from bleukit.cli.parser import FORMATS, TEST_SET_OPTIONS, command_name, seed_value
from bleukit.significance.compare import DEFAULT_SAMPLES
from bleukit.resampling import DEFAULT_BOOTSTRAP_SEED
from bleukit.tokenizers.registry import (
    AUTO, DEFAULT_TOKENIZER, SACREBLEU_LANGUAGE_TOKENIZERS, TOKENIZERS, tokenizer_for_language,
)

EXAMPLE_DIR = Path(__file__).resolve().parent / "example"
EXAMPLE_HYPOTHESES = EXAMPLE_DIR / "hypotheses.txt"
EXAMPLE_REFERENCES = [EXAMPLE_DIR / "references.1.txt", EXAMPLE_DIR / "references.2.txt"]

STDIN = "-"
# The two grammars.
OURS = "ours"
SACREBLEU = "sacrebleu"
# Defaults that differ between the grammars: sacreBLEU smooths with exp, prints JSON, one digit
# of a 0-100 score; this module prints 0-1 scores with four.
GRAMMAR_DEFAULTS = {
    OURS: {"smooth": "none", "format": "text", "width": 4, "scale": 1.0},
    SACREBLEU: {"smooth": "exp", "format": "json", "width": 1, "scale": 100.0},
}
TEST_SET_MESSAGE = (
    "test sets are not downloaded here ({option} is sacreBLEU's option for its downloadable test sets; this "
    "module never fetches data). Pass the test set's files instead: the reference file(s), then the hypotheses, "
    "e.g. {command} {reference} -i hypotheses.txt. On a machine with network access, sacreBLEU "
    "writes that reference with: sacrebleu -t {test_set} -l {pair} --echo ref > {reference}"
)


SEVERAL_SYSTEMS_MESSAGE = ("confidence intervals and sentence scores are for one system; "
                           "for several, use --paired-bs (which reports each system's interval)")


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

    @property
    def columns(self) -> bool:
        """sacreBLEU's grammar with the hypotheses on stdin: each tab-separated column is a system."""
        return self.grammar == SACREBLEU and self.hypotheses == [STDIN]


@dataclass(frozen=True)
class PairedRequest:
    """A paired significance test of every system against the baseline."""

    method: str  # "bootstrap" or "ar"
    samples: int
    baseline: Optional[str]  # a hypothesis file; None: the first system
    confidence_samples: int  # ar only: bootstrap resamples for each system's mean and interval
    count_ties: bool  # ties with the observed difference count as at least as extreme


@dataclass(frozen=True)
class Request:
    """Everything a command asks for, whichever grammar it was written in."""

    roles: Roles
    options: Dict[str, Any]  # the scoring options, as compute takes them
    output_format: str  # "text", "json" or "latex"
    width: int  # digits after the decimal point
    scale: float  # scores printed on 0-1 (1.0) or 0-100 (100.0)
    score_only: bool
    short: bool  # sacreBLEU's abbreviated signature keys
    sentence_scores: bool  # this module's report lists one BLEU per segment
    sentence_level: bool  # sacreBLEU's -sl: one line per segment
    bootstrap: int  # resamples for one system's 95% interval (0: none)
    seed: Optional[int]
    paired: Optional[PairedRequest]
    encoding: str = "utf-8"
    num_refs: int = 1  # tab-separated references per line of the one reference file
    language_pair: Optional[str] = None  # -l SRC-TRG
    quiet: bool = False
    warnings: Tuple[str, ...] = ()  # said on stderr (not with -q)
    num_workers: Any = "auto"  # processes that count (see bleukit.counting.parallel); no number depends on it

    @property
    def grammar(self) -> str:
        return self.roles.grammar

    @property
    def target_language(self) -> Optional[str]:
        """From --target-language, or -l's part after the first '-' (see `target_language` below)."""
        return self.options.get("target_language")


def no_files_message(why: str) -> str:
    """What to pass when no file is named, with the command as the user ran it."""
    command = command_name()
    return (f"no files given ({why}); pass the hypotheses and the references: {command} HYPOTHESES -r REFERENCES "
            f"[REFERENCES ...], or pipe the hypotheses and name the references: cat HYPOTHESES | {command} REFERENCES "
            f"(--self-bleu FILE scores one file's lines against each other)")


def _bundled_example(stdin_has_text: Callable[[], bool]) -> Roles:
    """No file named: the bundled example, unless that would hide a mistake. Text piped in without
    references is one (scoring the example instead printed a number that was not theirs): a usage
    error. A terminal, an empty pipe or /dev/null (a script, CI) score the example, as the README's
    quick start does. The example ships inside the package (bleukit/cli/example/), so the installed
    command scores it too; were its files missing, a usage error."""
    if stdin_has_text():
        raise UsageError(no_files_message("text on stdin: hypotheses piped in need reference files"))
    if not all(path.is_file() for path in [EXAMPLE_HYPOTHESES, *EXAMPLE_REFERENCES]):
        raise UsageError(no_files_message("the bundled example that scores with no arguments is missing from this install (bleukit/cli/example/)"))
    return Roles(OURS, [str(EXAMPLE_HYPOTHESES)], [str(path) for path in EXAMPLE_REFERENCES], example=True)


def resolve_roles(
    args: argparse.Namespace, stdin_is_terminal: bool, stdin_has_text: Callable[[], bool] = lambda: False
) -> Roles:
    """Decide the grammar and every file's role, or raise UsageError when that cannot be done one way.

    `stdin_has_text` is asked only when no file is named (it may read stdin's first byte)."""
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
        return _bundled_example(stdin_has_text)
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
        given += ["--baseline"] * (args.baseline is not None) + ["--count-ties"] * args.count_ties
        if given:
            raise UsageError(f"{' and '.join(given)} needs --paired-bs or --paired-ar")
        return None
    flag = "--paired-bs" if args.paired_bs else "--paired-ar"
    if len(roles.hypotheses) < 2 and not roles.columns:  # stdin columns are counted when read
        raise UsageError(
            f"{flag} compares two or more systems but got one hypothesis file ({roles.describe()}). "
            + ("Every file after -r is a reference: put the systems before -r (BASE SYS [SYS ...] -r REF)."
               if roles.grammar == OURS else "Give the systems after -i: REF -i BASE SYS [SYS ...].")
        )
    method = "bootstrap" if args.paired_bs else "ar"
    if (args.paired_bs and args.paired_ar_n is not None) or (args.paired_ar and args.paired_bs_n is not None):
        raise UsageError(f"{flag} was asked for, with the sample count of the other test")
    samples = args.paired_n if args.paired_n is not None else (args.paired_bs_n if args.paired_bs else args.paired_ar_n)
    if args.baseline is not None and args.baseline not in roles.hypotheses:
        raise UsageError(f"--baseline {args.baseline!r} is not one of the hypothesis files: {', '.join(roles.hypotheses)}")
    confidence = args.confidence_n if (args.confidence and method == "ar") else 0
    return PairedRequest(method, samples if samples is not None else DEFAULT_SAMPLES[method], args.baseline,
                         confidence, args.count_ties)


def target_language(args: argparse.Namespace) -> Optional[str]:
    """The target language from --target-language, or from sacreBLEU's -l SRC-TGT (the part after
    the first '-', as sacreBLEU reads it)."""
    from_pair = None
    if args.language_pair is not None:
        parts = args.language_pair.split("-")
        if len(parts) < 2 or not parts[1]:
            raise UsageError(f"-l takes a language pair SRC-TGT such as en-ja, not {args.language_pair!r} (its "
                             "target language, after '-', picks the tokenizer); write it as e.g. -l en-de")
        from_pair = parts[1]
    if from_pair is not None and args.target_language is not None and from_pair != args.target_language:
        raise UsageError(f"-l {args.language_pair} says the target language is {from_pair!r}, "
                         f"--target-language says {args.target_language!r}; give one")
    return args.target_language if args.target_language is not None else from_pair


def _refuse_test_sets(args: argparse.Namespace) -> None:
    given = [flag for name, flag in TEST_SET_OPTIONS.items() if getattr(args, name)]
    if given:
        test_set = args.test_set if isinstance(args.test_set, str) and args.test_set not in TOKENIZERS else "wmt17"
        pair = args.language_pair or "en-de"
        message = TEST_SET_MESSAGE.format(option=" and ".join(given), command=command_name(), test_set=test_set,
                                          pair=pair, reference=f"{test_set}.{pair}.ref")
        if args.test_set in TOKENIZERS:  # -t once named the tokenizer here
            message = f"-t is sacreBLEU's test set; to choose the tokenizer, write -tok {args.test_set}. " + message
        raise UsageError(message)


def _seed(args: argparse.Namespace, grammar: str, environ: Mapping[str, str]) -> Optional[int]:
    """--seed if given; in sacreBLEU's grammar $SACREBLEU_SEED (an integer, or none), as sacreBLEU reads it."""
    if hasattr(args, "seed"):  # given (absent otherwise, so that --seed none reads as given)
        return args.seed
    if grammar == SACREBLEU and "SACREBLEU_SEED" in environ:
        try:
            return seed_value(environ["SACREBLEU_SEED"])
        except argparse.ArgumentTypeError as error:
            raise UsageError(f"SACREBLEU_SEED: {error}") from None
    return DEFAULT_BOOTSTRAP_SEED


def _format(args: argparse.Namespace, grammar: str, environ: Mapping[str, str]) -> str:
    """-f if given, else the grammar's default; in sacreBLEU's grammar a valid $SACREBLEU_FORMAT
    overrides both, as it does in sacreBLEU."""
    chosen = args.format or GRAMMAR_DEFAULTS[grammar]["format"]
    if grammar == SACREBLEU and environ.get("SACREBLEU_FORMAT", "").lower() in FORMATS:
        chosen = environ["SACREBLEU_FORMAT"].lower()
    return chosen


def width_and_scale(width: Optional[int], grammar: str = OURS) -> Tuple[int, float]:
    """(digits, scale) of printed scores, one meaning for every command: -w counts digits of a
    0-100 score, as sacreBLEU's, so given in this module's grammar the scores print on 0-100 too
    (-w 2: 54.54, never 0.55); without it, the grammar's default (0-1 with 4 digits here)."""
    if width is None:
        return GRAMMAR_DEFAULTS[grammar]["width"], GRAMMAR_DEFAULTS[grammar]["scale"]
    if width < 0:
        raise UsageError(f"--width must be >= 0, not {width}")
    return width, 100.0


def _num_workers(args: argparse.Namespace) -> Any:
    """--num-workers, or sacreBLEU's -j N (its worker processes; 0, its own choice, is auto here)."""
    jobs = args.paired_jobs
    if jobs is None:
        return "auto" if args.num_workers is None else args.num_workers
    if jobs < 0:
        raise UsageError(f"-j/--paired-jobs must be >= 0 (0: auto), not {jobs}")
    if args.num_workers is not None:
        raise UsageError("-j/--paired-jobs is sacreBLEU's name of --num-workers; give one of them")
    return jobs or "auto"


def request_from_args(
    args: argparse.Namespace,
    stdin_is_terminal: bool,
    environ: Optional[Mapping[str, str]] = None,
    stdin_has_text: Callable[[], bool] = lambda: False,
) -> Request:
    """The one request both grammars map onto, or a UsageError naming what cannot be done."""
    environ = os.environ if environ is None else environ
    _refuse_test_sets(args)
    language_pair = args.language_pair
    roles = resolve_roles(args, stdin_is_terminal, stdin_has_text)
    paired = paired_request(args, roles)
    defaults = GRAMMAR_DEFAULTS[roles.grammar]
    width, scale = width_and_scale(args.width, roles.grammar)
    if args.bootstrap is not None and args.confidence:
        raise UsageError("--bootstrap N and -ci/--confidence both ask for the interval; give one (-ci takes --confidence-n N)")
    bootstrap = args.bootstrap or (args.confidence_n if args.confidence else 0)
    sentences = args.sentence_scores or args.sentence_level
    if paired is not None:
        if bootstrap and paired.method == "bootstrap":
            raise UsageError("--paired-bs reports each system's mean and 95% interval already; drop -ci/--bootstrap")
        if sentences:
            raise UsageError("--sentence-scores and -sl are for one system; paired tests report corpus scores")
    elif len(roles.hypotheses) > 1 and (bootstrap or sentences):
        raise UsageError(SEVERAL_SYSTEMS_MESSAGE)
    if args.sentence_level and bootstrap and roles.grammar == SACREBLEU:
        raise UsageError("-sl/--sentence-level gives no confidence interval (as in sacreBLEU); drop -ci")
    if args.num_refs < 1:
        raise UsageError(f"-nr/--num-refs must be >= 1, not {args.num_refs}")
    if args.num_refs > 1 and len(roles.references) != 1:
        raise UsageError(f"-nr {args.num_refs} reads {args.num_refs} tab-separated references from one file, "
                         f"but {len(roles.references)} reference files were given ({roles.describe()})")
    sentence_level = args.sentence_level and roles.grammar == SACREBLEU
    num_workers = _num_workers(args)
    tokenizer, language, said = language_rule(args.tokenizer, target_language(args), roles.grammar)
    options = dict(
        tokenizer=tokenizer, lowercase=args.lowercase, max_order=args.max_order, weights=args.weights,
        smooth=args.smooth or defaults["smooth"], smooth_value=args.smooth_value, ref_length=args.ref_length,
        effective_order=args.effective_order or sentence_level, target_language=language,
    )
    return Request(
        roles=roles, options=options, output_format=_format(args, roles.grammar, environ), width=width, scale=scale,
        score_only=args.score_only, short=args.short,
        sentence_scores=args.sentence_scores or (args.sentence_level and not sentence_level),
        sentence_level=sentence_level, bootstrap=bootstrap, seed=_seed(args, roles.grammar, environ), paired=paired,
        encoding=args.encoding, num_refs=args.num_refs, language_pair=language_pair, quiet=args.quiet,
        num_workers=num_workers, warnings=said,
    )


def language_rule(tokenizer: str, language: Optional[str], grammar: str) -> Tuple[str, Optional[str], Tuple[str, ...]]:
    """(tokenizer, target language, warnings) as each grammar reads -l. sacreBLEU's grammar follows
    sacreBLEU exactly: only ja, ko and zh pick a tokenizer, so `-l eng_Latn-jpn_Jpan` or `en-JA` score
    with 13a as sacreBLEU does, and a warning names the -tok that fits the language. This module's
    grammar reads the language as the API does (any case, ISO 639-2/3 codes: `tokenizer="auto"`)."""
    if grammar != SACREBLEU or language is None or language in SACREBLEU_LANGUAGE_TOKENIZERS:
        return tokenizer, language, ()
    fits = tokenizer_for_language(language)
    if fits == DEFAULT_TOKENIZER:
        return tokenizer, language, ()  # both rules agree (en, de, ...)
    if tokenizer != AUTO:
        return tokenizer, None, ()  # sacreBLEU says nothing of a tokenizer named against a code it does not know
    return DEFAULT_TOKENIZER, None, (
        f"target language {language!r}: sacreBLEU picks a tokenizer only for {', '.join(SACREBLEU_LANGUAGE_TOKENIZERS)} "
        f"exactly, so this scores with 13a as sacreBLEU does; -tok {fits} fits {language!r} (this module's "
        f"own grammar, with -r, picks it by itself)",
    )

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
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from bleu_core import compute_bleu
from bleu_options import SMOOTH_NAMES, __version__
from bleu_stats import REF_LENGTH_POLICIES
from bleu_tokenizers import TOKENIZERS

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
# sacreBLEU's --short abbreviations for the signature fields the two share.
SHORT_SIGNATURE_KEYS = {"nrefs": "#", "case": "c", "eff": "e", "smooth": "s", "version": "v"}
PAIRED_DEFAULT_SAMPLES = {"bootstrap": 1000, "ar": 10000}
SIGNIFICANCE_LEVEL = 0.05


class UsageError(ValueError):
    """A command line that cannot be read one way only, or asks for something impossible."""


@dataclass
class Roles:
    """Which files are hypotheses (systems) and which are references, and in which grammar."""

    grammar: str
    hypotheses: List[str]
    references: List[str]
    example: bool = False

    def describe(self) -> str:
        hyps = ", ".join(_display(path) for path in self.hypotheses)
        refs = ", ".join(_display(path) for path in self.references)
        return f"hypotheses: {hyps}; references: {refs}"


def _display(path: str) -> str:
    return "<stdin>" if path == STDIN else str(path)


def read_segments(path: str | Path) -> List[str]:
    """One segment per line. Only '\\n' (or '\\r\\n') ends a line: form feeds and other
    separators that `str.splitlines` would split on stay inside their segment."""
    if str(path) == STDIN:
        text = sys.stdin.read()
    else:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def build_parser() -> argparse.ArgumentParser:
    """One parser for both grammars: sacreBLEU's option names are aliases of this module's."""
    parser = argparse.ArgumentParser(
        prog="bleu_cli.py",
        allow_abbrev=False,  # `-tok` is the tokenizer option, never `-t ok`
        usage="%(prog)s [HYP ...] -r REF [REF ...] [options]\n"
        "       %(prog)s REF [REF ...] [-i HYP [HYP ...]] [options]   (sacreBLEU's grammar)\n"
        "       %(prog)s                                              (the bundled example)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Corpus BLEU (Papineni et al. 2002). With no arguments, scores the bundled example in examples/.\n\n"
        "  bleu_cli.py HYP [HYP ...] -r REF [REF ...]   files before -r are hypotheses (metric defaults, 0-1 scale)\n"
        "  bleu_cli.py REF [REF ...] -i HYP [HYP ...]   sacreBLEU's grammar: files before -i are references\n"
        "  cat HYP | bleu_cli.py REF [REF ...]          sacreBLEU's grammar, hypotheses on stdin\n\n"
        "sacreBLEU's grammar takes sacreBLEU's defaults (-s exp, -f json, -w 1, 0-100 scale) and prints what it prints.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="hypothesis files with -r; reference files with -i or with hypotheses on stdin ('-': stdin)")
    parser.add_argument("-r", "--references", nargs="+", action="extend", metavar="REF",
                        help="reference files, line-aligned with the hypotheses; every file after -r is a reference")
    parser.add_argument("-i", "--input", nargs="+", action="extend", metavar="HYP",
                        help="hypothesis files (sacreBLEU's grammar: the positional files are then references)")
    parser.add_argument("-t", "-tok", "--tokenize", "--tokenizer", dest="tokenizer", default="13a",
                        choices=sorted(TOKENIZERS), help="default: 13a")
    parser.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    parser.add_argument("-m", "--metrics", nargs="+", default=["bleu"], type=str.lower, choices=["bleu"],
                        help="accepted for sacreBLEU's grammar; BLEU is the only metric here")
    parser.add_argument("-s", "--smooth", "--smooth-method", dest="smooth", default=None, choices=SMOOTH_NAMES,
                        help="smoothing (default: none; exp in sacreBLEU's grammar; add-one is evaluate's legacy smooth=True)")
    parser.add_argument("-sv", "--smooth-value", type=float, default=None, help="epsilon, k or alpha of the smoothing method")
    parser.add_argument("--max-order", type=int, default=None, help="highest n-gram order (default: 4)")
    parser.add_argument("--weights", type=float, nargs="+", default=None, help="one weight per order (default: uniform)")
    parser.add_argument("--ref-length", default="closest", choices=list(REF_LENGTH_POLICIES), help="default: closest")
    parser.add_argument("-e", "--effective-order", action="store_true", help="skip orders the text is too short for")
    parser.add_argument("--sentence-scores", action="store_true", help="also print one BLEU per segment")
    parser.add_argument("--bootstrap", type=int, default=None, metavar="N", help="95%% confidence interval from N resamples")
    parser.add_argument("-ci", "--confidence", action="store_true", help="95%% confidence interval (--confidence-n resamples)")
    parser.add_argument("-cin", "--confidence-n", type=int, default=1000, metavar="N", help="default: 1000")
    paired = parser.add_mutually_exclusive_group()
    paired.add_argument("-pbs", "--paired-bs", action="store_true", help="paired bootstrap test of each system against the baseline")
    paired.add_argument("-par", "--paired-ar", action="store_true", help="paired approximate randomization test")
    parser.add_argument("--paired-n", type=int, default=None, metavar="N", help="resamples or trials of the paired test")
    parser.add_argument("-pbsn", "--paired-bs-n", type=int, default=None, metavar="N", help="default: 1000")
    parser.add_argument("-parn", "--paired-ar-n", type=int, default=None, metavar="N", help="default: 10000")
    parser.add_argument("--baseline", default=None, metavar="HYP", help="the baseline system's file (default: the first)")
    parser.add_argument("--seed", type=int, default=12345, help="resampling seed (default: 12345, as sacreBLEU)")
    parser.add_argument("-f", "--format", default=None, choices=["json", "text", "latex"],
                        help="default: text (json in sacreBLEU's grammar)")
    parser.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")
    parser.add_argument("-w", "--width", type=int, default=None, help="digits after the decimal point (default: 4; 1 in sacreBLEU's grammar)")
    parser.add_argument("-b", "--score-only", action="store_true", help="print only the score")
    parser.add_argument("-sh", "--short", action="store_true", help="abbreviated signature keys (sacreBLEU's --short)")
    parser.add_argument("--version", action="version", version=f"bleu_metric {__version__}")
    return parser


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
        raise UsageError(f"{_display(STDIN)} would be read from the terminal ({roles.describe()}); "
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


def paired_request(args: argparse.Namespace, roles: Roles) -> Optional[Dict[str, Any]]:
    """The paired test asked for (method, samples, baseline, confidence samples), or None."""
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
    return {"method": method, "samples": samples if samples is not None else PAIRED_DEFAULT_SAMPLES[method],
            "baseline": baseline, "confidence_samples": confidence}


def load(roles: Roles) -> tuple[Dict[str, List[str]], List[List[str]]]:
    """Hypotheses by file name, and the references grouped per segment; all files line-aligned."""
    systems = {path: read_segments(path) for path in roles.hypotheses}
    if systems.get(STDIN) == [] and roles.grammar == SACREBLEU and not roles.example:
        raise ValueError(
            f"no hypotheses on stdin: read as sacreBLEU's grammar, {', '.join(roles.references)} are reference files "
            "and the hypotheses come from stdin or -i. To score a file against references, write HYP -r REF [REF ...]"
        )
    streams = [read_segments(path) for path in roles.references]
    first = roles.hypotheses[0]
    for path, lines in list(systems.items()) + list(zip(roles.references, streams)):
        if len(lines) != len(systems[first]):
            raise ValueError(
                f"{_display(path)} has {len(lines)} lines but {_display(first)} has {len(systems[first])}; "
                "reference files must be line-aligned with the hypotheses and every system must have as many lines"
                f" ({roles.describe()})"
            )
    return systems, [list(group) for group in zip(*streams)]


# -- this module's report -------------------------------------------------------------------------------


def format_result(result: dict, roles: Optional[Roles] = None, width: int = 4) -> str:
    """The human-readable report: files and their roles, score, precisions, brevity penalty, signature."""
    precisions = " / ".join(f"{p:.{width}f}" for p in result["precisions"])
    lines = []
    if roles is not None:
        lines.append(f"hypotheses       {', '.join(_display(path) for path in roles.hypotheses)}")
        lines.append(f"references       {', '.join(_display(path) for path in roles.references)}")
    lines += [
        f"BLEU             {result['bleu']:.{width}f}  ({100 * result['bleu']:.{max(width - 2, 0)}f} on the 0-100 scale)",
        f"precisions       {precisions}",
        f"brevity penalty  {result['brevity_penalty']:.{width}f}  (length ratio {result['length_ratio']:.{width}f}: "
        f"{result['translation_length']} hypothesis / {result['reference_length']} reference tokens)",
    ]
    if "bleu_ci_low" in result:
        lines.append(f"95% interval     [{result['bleu_ci_low']:.{width}f}, {result['bleu_ci_high']:.{width}f}] (bootstrap)")
    lines.append(f"signature        {result['signature']}")
    if "sentence_bleu" in result:
        lines.append("sentence BLEU    " + " ".join(f"{s:.{width}f}" for s in result["sentence_bleu"]))
    return "\n".join(lines)


# -- sacreBLEU's report ---------------------------------------------------------------------------------


def short_signature(signature: str) -> str:
    """sacreBLEU's --short form: its one-letter keys for the fields it shares with this signature."""
    fields = (field.split(":", 1) for field in signature.split("|"))
    return "|".join(f"{SHORT_SIGNATURE_KEYS.get(key, key)}:{value}" for key, value in fields)


def with_bootstrap_fields(signature: str, samples: int, seed: int) -> str:
    """The signature with `bs:N|seed:S` after `nrefs`, where sacreBLEU writes them."""
    first, _, rest = signature.partition("|")
    return f"{first}|bs:{samples}|seed:{seed}|{rest}"


def sacrebleu_line(result: dict, signature: str, width: int, score_only: bool, as_json: bool) -> str:
    """One system's output exactly as sacreBLEU's CLI formats it (scores on 0-100)."""
    score = f"{100 * result['bleu']:.{width}f}"
    payload: Dict[str, Any] = {"name": "BLEU", "score": float(score), "signature": signature}
    if "bleu_bootstrap_mean" in result:
        mean = f"{100 * result['bleu_bootstrap_mean']:.{width}f}"
        half = f"{100 * 0.5 * (result['bleu_ci_high'] - result['bleu_ci_low']):.{width}f}"
        confidence = f"μ = {mean} ± {half}"
        score += f" ({confidence})"
        payload.update(confidence_mean=float(mean), confidence_var=float(half), confidence=confidence)
    if score_only:
        return score
    ref_length = result["reference_length"]
    ratio = result["translation_length"] / ref_length if ref_length else 0
    verbose = (
        "/".join(f"{100 * p:.1f}" for p in result["precisions"])
        + f" (BP = {result['brevity_penalty']:.3f} ratio = {ratio:.3f} "
        f"hyp_len = {result['translation_length']:d} ref_len = {ref_length:d})"
    )
    payload["verbose_score"] = verbose
    if as_json:
        payload.update(field.split(":", 1) for field in signature.split("|"))
        return json.dumps(payload, indent=1, ensure_ascii=False)
    return f"BLEU|{signature} = {score} {verbose}"


# -- tables (several systems) ---------------------------------------------------------------------------


def _centre(text: str, width: int) -> str:
    left = (width - len(text)) // 2
    return " " * left + text + " " * (width - len(text) - left)


def grid_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A box-drawn table in the style sacreBLEU prints: first column right-aligned, the rest centred;
    a cell may hold several lines."""
    split_rows = [[cell.split("\n") for cell in row] for row in rows]
    widths = [
        max([len(header[col]) + 2] + [len(line) for row in split_rows for line in row[col]])
        for col in range(len(header))
    ]

    def rule(left: str, fill: str, middle: str, right: str) -> str:
        return left + middle.join(fill * (width + 2) for width in widths) + right

    def line(cells: Sequence[str]) -> str:
        parts = [cells[0].rjust(widths[0])] + [_centre(cell, width) for cell, width in zip(cells[1:], widths[1:])]
        return "│ " + " │ ".join(parts) + " │"

    out = [rule("╒", "═", "╤", "╕"), line(header), rule("╞", "═", "╪", "╡")]
    for index, row in enumerate(split_rows):
        height = max(len(cell) for cell in row)
        for depth in range(height):
            out.append(line([cell[depth] if depth < len(cell) else "" for cell in row]))
        out.append(rule("├", "─", "┼", "┤") if index < len(split_rows) - 1 else rule("╘", "═", "╧", "╛"))
    return "\n".join(out)


def latex_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A booktabs tabular that pastes into a paper (needs \\usepackage{booktabs})."""
    def escape(text: str) -> str:
        return (text.replace("\\", "\\textbackslash{}").replace("&", "\\&").replace("%", "\\%")
                .replace("_", "\\_").replace("#", "\\#").replace("$", "\\$").replace("±", "$\\pm$")
                .replace("μ", "$\\mu$").replace("\n", " "))

    body = [" & ".join(escape(cell) for cell in row) + " \\\\" for row in rows]
    return "\n".join(
        ["\\begin{tabular}{l" + "r" * (len(header) - 1) + "}", "\\toprule",
         " & ".join(escape(cell) for cell in header) + " \\\\", "\\midrule", *body, "\\bottomrule", "\\end{tabular}"]
    )


def signatures_footer(signature: str) -> str:
    return f"\nSignature: BLEU {signature}"


# -- paired tests ---------------------------------------------------------------------------------------


def paired_rows(comparison: dict, scale: float, width: int, baseline_label: bool) -> List[List[str]]:
    """Rows of the paired-test table: system, BLEU, mean ± 95% CI, p-value (with * below 0.05)."""
    rows = []
    for system in comparison["systems"]:
        name = system["name"]
        if baseline_label and name == comparison["baseline"]:
            name = f"Baseline: {name}"
        interval = "" if system["mean"] is None else f"{scale * system['mean']:.{width}f} ± {scale * system['ci']:.{width}f}"
        p_value = system["p_value"]
        marked = "" if p_value is None else f"{p_value:.4f}" + ("*" if p_value < SIGNIFICANCE_LEVEL else "")
        rows.append([name, f"{scale * system['bleu']:.{width}f}", interval, marked])
    return rows


def paired_explanation(comparison: dict) -> str:
    test = ("paired bootstrap resampling" if comparison["method"] == "bootstrap" else "paired approximate randomization")
    what = "resamples" if comparison["method"] == "bootstrap" else "trials"
    return (
        f"\nEach system is tested against the baseline ({comparison['baseline']}) by {test} "
        f"({comparison['samples']} {what}, seed {comparison['seed']}).\n"
        + ("mean ± CI: the mean of the bootstrap scores and the half-width of their 95% interval.\n"
           if any(entry["mean"] is not None for entry in comparison["systems"]) else "")
        + f"p-value: how often chance alone gives a difference at least this large; * marks p < {SIGNIFICANCE_LEVEL}\n"
        + "(the difference is unlikely to be chance, which says nothing about which system is better)."
    )


def run_paired(systems: Dict[str, List[str]], references: List[List[str]], options: dict,
               request: Dict[str, Any], args: argparse.Namespace, roles: Roles, output_format: str,
               width: int) -> str:
    from bleu_compare import compare  # only this path needs it

    comparison = compare(
        systems, references, baseline=request["baseline"], method=request["method"], samples=request["samples"],
        seed=args.seed, confidence_samples=request["confidence_samples"], **options,
    )
    sacre = roles.grammar == SACREBLEU
    signature = short_signature(comparison["signature"]) if args.short else comparison["signature"]
    if output_format == "json":
        if not sacre:
            return json.dumps(comparison, indent=2, ensure_ascii=False)
        return json.dumps(
            [{"system": f"Baseline: {entry['name']}" if entry["name"] == comparison["baseline"] else entry["name"],
              "BLEU": {"score": 100 * entry["bleu"], "p_value": entry["p_value"],
                       "mean": None if entry["mean"] is None else 100 * entry["mean"],
                       "ci": None if entry["ci"] is None else 100 * entry["ci"]}}
             for entry in comparison["systems"]],
            indent=4, ensure_ascii=False,
        )
    scale = 100.0 if sacre else 1.0
    rows = paired_rows(comparison, scale, width, baseline_label=True)
    header = ["System", "BLEU", "mean ± 95% CI", "p-value"]
    if all(entry["mean"] is None for entry in comparison["systems"]):  # ar without confidence samples
        header, rows = header[:2] + header[3:], [row[:2] + row[3:] for row in rows]
    if output_format == "latex":
        return latex_table(header, rows) + "\n% " + signature
    return (grid_table(header, rows) + f"\nreferences: {', '.join(map(_display, roles.references))}\n"
            + paired_explanation(comparison) + "\n" + signatures_footer(signature))


# -- main -----------------------------------------------------------------------------------------------


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        roles = resolve_roles(args, stdin_is_terminal=sys.stdin is None or sys.stdin.isatty())
        request = paired_request(args, roles)
    except UsageError as error:
        parser.error(str(error))
    defaults = GRAMMAR_DEFAULTS[roles.grammar]
    output_format = args.format or defaults["format"]
    width = defaults["width"] if args.width is None else args.width
    if width < 0:
        parser.error(f"--width must be >= 0, not {args.width}")
    if args.bootstrap is not None and args.confidence:
        parser.error("--bootstrap N and -ci/--confidence both ask for the interval; give one (-ci takes --confidence-n N)")
    bootstrap = args.bootstrap or (args.confidence_n if args.confidence else 0)
    if roles.example and output_format == "text" and not args.score_only:
        print(
            f"No files given: scoring the bundled example, {EXAMPLE_HYPOTHESES.relative_to(EXAMPLE_DIR.parent)} "
            f"against {len(EXAMPLE_REFERENCES)} reference files in examples/.\n"
            "Score your own with: python bleu_cli.py HYPOTHESES -r REFERENCES [REFERENCES ...]\n"
        )
    options = dict(
        tokenizer=args.tokenizer, lowercase=args.lowercase, max_order=args.max_order, weights=args.weights,
        smooth=args.smooth or defaults["smooth"], smooth_value=args.smooth_value, ref_length=args.ref_length,
        effective_order=args.effective_order,
    )
    try:
        systems, references = load(roles)
        if request is not None:
            if bootstrap and request["method"] == "bootstrap":
                raise UsageError("--paired-bs reports each system's mean and 95% interval already; drop -ci/--bootstrap")
            if args.sentence_scores:
                raise UsageError("--sentence-scores is for one system; paired tests report corpus scores")
            print(run_paired(systems, references, options, request, args, roles, output_format, width))
            return 0
        if len(systems) > 1:
            if bootstrap or args.sentence_scores:
                raise UsageError("confidence intervals and sentence scores are for one system; "
                                 "for several, use --paired-bs (which reports each system's interval)")
            print(several_systems(systems, references, options, roles, output_format, width, args))
            return 0
        (hypotheses,) = systems.values()
        result = compute_bleu(
            hypotheses, references, **options, return_sentence_scores=args.sentence_scores,
            bootstrap_samples=bootstrap, bootstrap_seed=args.seed,
        )
    except UsageError as error:
        parser.error(str(error))
    except (OSError, ValueError, TypeError) as error:
        print(f"bleu_cli.py: error: {error}", file=sys.stderr)
        return 2
    if roles.grammar == OURS and not roles.example and (output_format != "text" or args.score_only):
        print(f"bleu_cli.py: {roles.describe()}", file=sys.stderr)  # the report names them; JSON and -b do not
    print(one_system(result, roles, output_format, width, bootstrap, args))
    return 0


def one_system(result: dict, roles: Roles, output_format: str, width: int, bootstrap: int,
               args: argparse.Namespace) -> str:
    if roles.grammar == SACREBLEU:
        signature = result["signature"]
        if bootstrap:
            signature = with_bootstrap_fields(signature, bootstrap, args.seed)
        if args.short:
            signature = short_signature(signature)
        return sacrebleu_line(result, signature, width, args.score_only, as_json=output_format == "json")
    if args.short:
        result = dict(result, signature=short_signature(result["signature"]))
    if args.score_only:
        return f"{result['bleu']:.{width}f}"
    if output_format == "json":
        return json.dumps(result, indent=2, ensure_ascii=False)
    return format_result(result, None if roles.example else roles, width)


def several_systems(systems: Dict[str, List[str]], references: List[List[str]], options: dict, roles: Roles,
                    output_format: str, width: int, args: argparse.Namespace) -> str:
    """Each system's corpus BLEU, in a table (sacreBLEU prints one too when -i names several files)."""
    results = {name: compute_bleu(hypotheses, references, **options) for name, hypotheses in systems.items()}
    scale = 100.0 if roles.grammar == SACREBLEU else 1.0
    signature = next(iter(results.values()))["signature"]
    if args.short:
        signature = short_signature(signature)
    if args.score_only:
        return "\n".join(f"{scale * result['bleu']:.{width}f}" for result in results.values())
    if output_format == "json":
        if roles.grammar == SACREBLEU:
            return json.dumps([{"system": name, "BLEU": f"{scale * result['bleu']:.{width}f}"}
                               for name, result in results.items()], indent=4, ensure_ascii=False)
        return json.dumps({name: result for name, result in results.items()}, indent=2, ensure_ascii=False)
    rows = [[name, f"{scale * result['bleu']:.{width}f}"] for name, result in results.items()]
    if output_format == "latex":
        return latex_table(["System", "BLEU"], rows) + "\n% " + signature
    return (grid_table(["System", "BLEU"], rows) + f"\nreferences: {', '.join(map(_display, roles.references))}"
            + signatures_footer(signature))


if __name__ == "__main__":
    sys.exit(main())

"""Every output of the command line, rendered from one place: `render(request, outcome)`, and
`notes(request, outcome)` for stderr.

One system, several systems, one score per segment, or a paired test. sacreBLEU's grammar prints
what sacreBLEU prints (`bleukit.cli.sacrebleu_layouts`); this module's grammar prints its report, its JSON
(the metric's and `compare`'s result dicts) or a LaTeX table, on 0-1 (or on 0-100 with `-w`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

import bleukit.cli.sacrebleu_layouts as sacrebleu_output
from bleukit.cli.parser import command_name
from bleukit.cli.request import OURS, SACREBLEU, Request, Roles, display
from bleukit.cli.sacrebleu_layouts import short_signature
from bleukit.cli.tables import grid_table, latex_table

SIGNIFICANCE_LEVEL = 0.05


@dataclass
class Outcome:
    """What a command computed: one system's result (and, for -sl, one result per segment),
    several systems' results, or a comparison; `from_columns`: the systems were stdin's columns."""

    single: Optional[Dict[str, Any]] = None
    sentences: Optional[List[Dict[str, Any]]] = None
    several: Optional[Dict[str, Dict[str, Any]]] = None
    comparison: Optional[Dict[str, Any]] = None
    from_columns: bool = False


def render(request: Request, outcome: Outcome) -> str:
    """The text the command prints on stdout."""
    if request.grammar == SACREBLEU:
        if outcome.comparison is not None:
            baseline = outcome.comparison["baseline"]
            labels = {} if outcome.from_columns else {baseline: f"Baseline: {baseline}"}
            return sacrebleu_output.paired_test(request, outcome.comparison, labels)
        if outcome.several is not None:
            return sacrebleu_output.several_systems(request, outcome.several)
        if outcome.sentences is not None:
            return sacrebleu_output.sentence_lines(request, outcome.sentences)
        return sacrebleu_output.one_system(request, outcome.single)
    if outcome.comparison is not None:
        return _paired(request, outcome.comparison)
    if outcome.several is not None:
        return _several(request, outcome.several)
    return _one(request, outcome.single)


def notes(request: Request, outcome: Outcome) -> List[str]:
    """Lines for stderr: what the output on stdout leaves out but a reader should know (none with -q)."""
    if request.quiet:
        return []
    lines = []
    roles = request.roles
    if (request.grammar == OURS and not roles.example and outcome.single is not None
            and (request.output_format != "text" or request.score_only)):
        lines.append(f"{command_name()}: {roles.describe()}")  # the report names them; JSON and -b do not
    if outcome.comparison is not None and (request.grammar == SACREBLEU or request.output_format != "text"):
        summary = ties_summary(outcome.comparison)
        if summary is not None:
            lines.append(f"{command_name()}: note: {summary}")
    return lines


def _signature(request: Request, signature: str) -> str:
    return short_signature(signature) if request.short else signature


def _number(request: Request, value: float) -> str:
    """A score as this grammar prints it: 0-1 with 4 digits, or 0-100 with -w's digits."""
    return f"{request.scale * value:.{request.width}f}"


# -- one system -----------------------------------------------------------------------------------------


def format_result(result: dict, roles: Optional[Roles] = None, width: int = 4, scale: float = 1.0) -> str:
    """The human-readable report: files and their roles, score, precisions, brevity penalty, signature.
    Scores (BLEU, precisions, interval, sentence BLEU) on 0-1, or on 0-100 with `scale` 100; `width`
    digits after the point for them, as many significant digits for the ratios."""
    ratio_width = width if scale == 1.0 else width + 2
    other = "on the 0-100 scale" if scale == 1.0 else "on the 0-1 scale"
    other_value = f"{(100 if scale == 1.0 else 1) * result['bleu']:.{max(width - 2, 0) if scale == 1.0 else width + 2}f}"
    lines = []
    if roles is not None:
        lines.append(f"hypotheses       {', '.join(display(path) for path in roles.hypotheses)}")
        lines.append(f"references       {', '.join(display(path) for path in roles.references)}")
    precisions = " / ".join(f"{scale * p:.{width}f}" for p in result["precisions"])
    lines += [
        f"BLEU             {scale * result['bleu']:.{width}f}  ({other_value} {other})",
        f"precisions       {precisions}",
        f"brevity penalty  {result['brevity_penalty']:.{ratio_width}f}  (length ratio "
        f"{result['length_ratio']:.{ratio_width}f}: {result['translation_length']} hypothesis / "
        f"{result['reference_length']} reference tokens)",
    ]
    if "bleu_ci_low" in result:
        lines.append(f"95% interval     [{scale * result['bleu_ci_low']:.{width}f}, "
                     f"{scale * result['bleu_ci_high']:.{width}f}] (bootstrap)")
    lines.append(f"signature        {result['signature']}")
    if "sentence_bleu" in result:
        lines.append("sentence BLEU    " + " ".join(f"{scale * s:.{width}f}" for s in result["sentence_bleu"]))
    return "\n".join(lines)


def _one(request: Request, result: dict) -> str:
    if request.short:
        result = dict(result, signature=short_signature(result["signature"]))
    if request.score_only:
        return _number(request, result["bleu"])
    if request.output_format == "json":
        return json.dumps(result, indent=2, ensure_ascii=False)
    return format_result(result, None if request.roles.example else request.roles, request.width, request.scale)


# -- several systems ------------------------------------------------------------------------------------


def _signatures_footer(signature: str) -> str:
    return f"\nSignature: BLEU {signature}"


def _references_line(roles: Roles) -> str:
    return f"\nreferences: {', '.join(map(display, roles.references))}"


def _several(request: Request, results: Dict[str, dict]) -> str:
    """Each system's corpus BLEU, in a table."""
    signature = _signature(request, next(iter(results.values()))["signature"])
    if request.score_only:
        return "\n".join(_number(request, result["bleu"]) for result in results.values())
    if request.output_format == "json":
        return json.dumps({name: result for name, result in results.items()}, indent=2, ensure_ascii=False)
    rows = [[name, _number(request, result["bleu"])] for name, result in results.items()]
    if request.output_format == "latex":
        return latex_table(["System", "BLEU"], rows) + "\n% " + signature
    return grid_table(["System", "BLEU"], rows) + _references_line(request.roles) + _signatures_footer(signature)


# -- paired tests ---------------------------------------------------------------------------------------


def paired_rows(comparison: dict, request: Request) -> List[List[str]]:
    """Rows of the paired-test table: system, BLEU, mean ± 95% CI, p-value (with * below 0.05)."""
    rows = []
    for system in comparison["systems"]:
        name = system["name"]
        if name == comparison["baseline"]:
            name = f"Baseline: {name}"
        interval = ("" if system["mean"] is None
                    else f"{_number(request, system['mean'])} ± {_number(request, system['ci'])}")
        p_value = system["p_value"]
        marked = "" if p_value is None else f"{p_value:.4f}" + ("*" if p_value < SIGNIFICANCE_LEVEL else "")
        rows.append([name, _number(request, system["bleu"]), interval, marked])
    return rows


def ties_summary(comparison: dict) -> Optional[str]:
    """Which systems had resamples or trials tying the observed difference, and how they counted; None without ties."""
    what = "resamples" if comparison["method"] == "bootstrap" else "trials"
    tied = [f"{entry['name']} {entry['ties']:,}" for entry in comparison["systems"] if entry.get("ties")]
    if not tied:
        return None
    counted = ("counted as at least as large (--count-ties: the conservative p-value)" if comparison["count_ties"]
               else "not counted (sacreBLEU's strict p-value; --count-ties counts them, the conservative p-value)")
    return (f"ties: {', '.join(tied)} of {comparison['samples']:,} {what} gave exactly the observed difference; "
            f"{counted}.")


def paired_explanation(comparison: dict) -> str:
    test = ("paired bootstrap resampling" if comparison["method"] == "bootstrap" else "paired approximate randomization")
    what = "resamples" if comparison["method"] == "bootstrap" else "trials"
    ties = ties_summary(comparison)
    return (
        f"\nEach system is tested against the baseline ({comparison['baseline']}) by {test} "
        f"({comparison['samples']} {what}, seed {comparison['seed']}).\n"
        + ("mean ± CI: the mean of the bootstrap scores and the half-width of their 95% interval.\n"
           if any(entry["mean"] is not None for entry in comparison["systems"]) else "")
        + f"p-value: how often chance alone gives a difference at least this large; * marks p < {SIGNIFICANCE_LEVEL}\n"
        + "(the difference is unlikely to be chance, which says nothing about which system is better)."
        + ("" if ties is None else "\n" + ties)
    )


def _paired(request: Request, comparison: dict) -> str:
    if request.output_format == "json":
        return json.dumps(comparison, indent=2, ensure_ascii=False)
    signature = _signature(request, comparison["signature"])
    rows = paired_rows(comparison, request)
    header = ["System", "BLEU", "mean ± 95% CI", "p-value"]
    if all(entry["mean"] is None for entry in comparison["systems"]):  # ar without confidence samples
        header, rows = header[:2] + header[3:], [row[:2] + row[3:] for row in rows]
    if request.output_format == "latex":
        return latex_table(header, rows) + "\n% " + signature
    return (grid_table(header, rows) + _references_line(request.roles) + "\n"
            + paired_explanation(comparison) + "\n" + _signatures_footer(signature))

"""Every output of the command line, rendered from one place: `render(request, outcome)`.

One system, several systems, or a paired test; in this module's report, its JSON (the metric's
result dict) or a LaTeX table, or, in sacreBLEU's grammar, what sacreBLEU prints (with this
module's signature).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from bleu_cli_request import SACREBLEU, Request, Roles, display
from bleu_cli_tables import grid_table, latex_table

# sacreBLEU's --short abbreviations for the signature fields the two share.
SHORT_SIGNATURE_KEYS = {"nrefs": "#", "case": "c", "eff": "e", "smooth": "s", "version": "v"}
SIGNIFICANCE_LEVEL = 0.05


@dataclass
class Outcome:
    """What a command computed: one system's result, several systems' results, or a comparison."""

    single: Optional[Dict[str, Any]] = None
    several: Optional[Dict[str, Dict[str, Any]]] = None
    comparison: Optional[Dict[str, Any]] = None


def render(request: Request, outcome: Outcome) -> str:
    """The text the command prints on stdout."""
    if outcome.comparison is not None:
        return _paired(request, outcome.comparison)
    if outcome.several is not None:
        return _several(request, outcome.several)
    return _one(request, outcome.single)


# -- signatures -----------------------------------------------------------------------------------------


def short_signature(signature: str) -> str:
    """sacreBLEU's --short form: its one-letter keys for the fields it shares with this signature."""
    fields = (field.split(":", 1) for field in signature.split("|"))
    return "|".join(f"{SHORT_SIGNATURE_KEYS.get(key, key)}:{value}" for key, value in fields)


def with_bootstrap_fields(signature: str, samples: int, seed: Optional[int]) -> str:
    """The signature with `bs:N|seed:S` after `nrefs`, where sacreBLEU writes them."""
    first, _, rest = signature.partition("|")
    return f"{first}|bs:{samples}|seed:{seed}|{rest}"


def _signature(request: Request, signature: str) -> str:
    return short_signature(signature) if request.short else signature


# -- one system -----------------------------------------------------------------------------------------


def format_result(result: dict, roles: Optional[Roles] = None, width: int = 4) -> str:
    """The human-readable report: files and their roles, score, precisions, brevity penalty, signature."""
    precisions = " / ".join(f"{p:.{width}f}" for p in result["precisions"])
    lines = []
    if roles is not None:
        lines.append(f"hypotheses       {', '.join(display(path) for path in roles.hypotheses)}")
        lines.append(f"references       {', '.join(display(path) for path in roles.references)}")
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


def _one(request: Request, result: dict) -> str:
    if request.grammar == SACREBLEU:
        signature = result["signature"]
        if request.bootstrap:
            signature = with_bootstrap_fields(signature, request.bootstrap, request.seed)
        return sacrebleu_line(result, _signature(request, signature), request.width, request.score_only,
                              as_json=request.output_format == "json")
    if request.short:
        result = dict(result, signature=short_signature(result["signature"]))
    if request.score_only:
        return f"{result['bleu']:.{request.width}f}"
    if request.output_format == "json":
        return json.dumps(result, indent=2, ensure_ascii=False)
    return format_result(result, None if request.roles.example else request.roles, request.width)


# -- several systems ------------------------------------------------------------------------------------


def _signatures_footer(signature: str) -> str:
    return f"\nSignature: BLEU {signature}"


def _references_line(roles: Roles) -> str:
    return f"\nreferences: {', '.join(map(display, roles.references))}"


def _several(request: Request, results: Dict[str, dict]) -> str:
    """Each system's corpus BLEU, in a table (sacreBLEU prints one too when -i names several files)."""
    scale, width = request.scale, request.width
    signature = _signature(request, next(iter(results.values()))["signature"])
    if request.score_only:
        return "\n".join(f"{scale * result['bleu']:.{width}f}" for result in results.values())
    if request.output_format == "json":
        if request.grammar == SACREBLEU:
            return json.dumps([{"system": name, "BLEU": f"{scale * result['bleu']:.{width}f}"}
                               for name, result in results.items()], indent=4, ensure_ascii=False)
        return json.dumps({name: result for name, result in results.items()}, indent=2, ensure_ascii=False)
    rows = [[name, f"{scale * result['bleu']:.{width}f}"] for name, result in results.items()]
    if request.output_format == "latex":
        return latex_table(["System", "BLEU"], rows) + "\n% " + signature
    return grid_table(["System", "BLEU"], rows) + _references_line(request.roles) + _signatures_footer(signature)


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


def _paired(request: Request, comparison: dict) -> str:
    sacre = request.grammar == SACREBLEU
    signature = _signature(request, comparison["signature"])
    if request.output_format == "json":
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
    rows = paired_rows(comparison, request.scale, request.width, baseline_label=True)
    header = ["System", "BLEU", "mean ± 95% CI", "p-value"]
    if all(entry["mean"] is None for entry in comparison["systems"]):  # ar without confidence samples
        header, rows = header[:2] + header[3:], [row[:2] + row[3:] for row in rows]
    if request.output_format == "latex":
        return latex_table(header, rows) + "\n% " + signature
    return (grid_table(header, rows) + _references_line(request.roles) + "\n"
            + paired_explanation(comparison) + "\n" + _signatures_footer(signature))

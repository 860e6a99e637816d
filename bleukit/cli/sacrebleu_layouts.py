"""What sacreBLEU 2.6's command line prints, for every output of sacreBLEU's grammar, signature aside.

One system: the `BLEU|signature = score details` line or its JSON; `-sl`: one such line per
segment; several systems: sacreBLEU's table (text or LaTeX) and its signatures block, or its JSON
list; a paired test: the table with `(p = ...)` lines, sacreBLEU's explanation of the test and the
signatures, or its JSON. Scores are on 0-100; the signature is this module's, with sacreBLEU's
test fields (`bs:`, `ar:`, `seed:`) after `nrefs` where sacreBLEU writes them. Nothing is coloured
(sacreBLEU's own output is the same once piped).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from bleukit.cli.request import Request
from bleukit.cli.tables import grid_table, tabulate_latex

# sacreBLEU's --short abbreviations for the signature fields the two share.
SHORT_SIGNATURE_KEYS = {"nrefs": "#", "case": "c", "eff": "e", "smooth": "s", "version": "v", "seed": "rs"}
# sacreBLEU marks p <= 0.05 with a star.
SACREBLEU_THRESHOLD = 0.05


def short_signature(signature: str) -> str:
    """sacreBLEU's --short form: its abbreviations for the keys it shares with this signature."""
    fields = (field.split(":", 1) for field in signature.split("|"))
    return "|".join(f"{SHORT_SIGNATURE_KEYS.get(key, key)}:{value}" for key, value in fields)


def with_test_fields(signature: str, **fields: Any) -> str:
    """The signature with sacreBLEU's test fields (`bs`, `ar`, `seed`, ...) after `nrefs`, where
    sacreBLEU writes them; a None value is left out, a seed of None is written `none`."""
    first, _, rest = signature.partition("|")
    extra = [f"{key}:{'none' if key == 'seed' and value is None else value}" for key, value in fields.items()
             if value is not None or key == "seed"]
    return "|".join([first, *extra, rest])


def _signature(request: Request, signature: str, json_output: bool = False) -> str:
    return short_signature(signature) if request.short and not json_output else signature


# -- one system ------------------------------------------------------------------------------------


def score_line(result: dict, signature: str, width: int, score_only: bool, as_json: bool) -> str:
    """One score exactly as sacreBLEU's CLI formats it (on 0-100)."""
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


def one_system(request: Request, result: dict) -> str:
    as_json = request.output_format == "json"
    signature = result["signature"]
    if request.bootstrap:
        signature = with_test_fields(signature, bs=request.bootstrap, seed=request.seed)
    return score_line(result, _signature(request, signature, as_json), request.width, request.score_only, as_json)


def sentence_lines(request: Request, results: List[dict]) -> str:
    """-sl: one line per segment, text whatever the format (as sacreBLEU)."""
    return "\n".join(score_line(result, _signature(request, result["signature"]), request.width,
                                request.score_only, as_json=False) for result in results)


# -- tables ----------------------------------------------------------------------------------------


def _signatures_block(signature: str) -> str:
    return f"-----------------\nMetric signatures\n-----------------\n - {'BLEU':<10} {signature}"


def _table(request: Request, header: List[str], rows: List[List[str]]) -> str:
    if request.output_format == "latex":
        return tabulate_latex(header, rows)
    return grid_table(header, rows)


def several_systems(request: Request, results: Dict[str, dict]) -> str:
    scores = {name: f"{100 * result['bleu']:.{request.width}f}" for name, result in results.items()}
    if request.output_format == "json":
        return json.dumps([{"system": name, "BLEU": score} for name, score in scores.items()], indent=4)
    signature = _signature(request, next(iter(results.values()))["signature"])
    table = _table(request, ["System", "BLEU"], [[name, score] for name, score in scores.items()])
    return f"{table}\n\n{_signatures_block(signature)}"


def _test_signature(comparison: dict) -> str:
    """compare's signature as sacreBLEU writes a paired test's: `bs:N` or `ar:N` (and `bs:M` for
    an AR test's intervals) and the seed after nrefs."""
    options, _, test = comparison["signature"].partition("|test:")
    fields = dict(field.split(":", 1) for field in ("test:" + test).split("|"))
    bootstrap = fields["n"] if fields["test"] == "bs" else fields.get("conf")
    trials = fields["n"] if fields["test"] == "ar" else None
    signature = with_test_fields(options, bs=bootstrap, ar=trials, seed=comparison["seed"])
    return signature + ("|ties:counted" if comparison["count_ties"] else "")


def _paired_cell(entry: dict, width: int, separator: str) -> str:
    text = f"{100 * entry['bleu']:.{width}f}"
    if entry["mean"] is not None:
        text += f" ({100 * entry['mean']:.{width}f} ± {100 * entry['ci']:.{width}f})"
    if entry["p_value"] is not None:
        text += separator + f"(p = {entry['p_value']:.4f})" + ("*" if entry["p_value"] <= SACREBLEU_THRESHOLD else "")
    return text


def _paired_explanation(comparison: dict, baseline_name: str) -> str:
    bootstrap = comparison["method"] == "bootstrap"
    test = "bootstrap resampling" if bootstrap else "approximate randomization"
    message = f"Paired {test} test with {comparison['samples']} {'resampling trials' if bootstrap else 'trials'}"
    rule = "-" * len(message)
    provided = ("Actual system score / bootstrap estimated true mean / 95% CI are provided for each metric."
                if bootstrap else "Actual system score is provided for each metric.")
    return "\n".join([
        rule, message, rule,
        f" - Each system is pairwise compared to {baseline_name}.",
        f"   {provided}",
        "",
        " - Null hypothesis: the system and the baseline translations are essentially",
        "   generated by the same underlying process. For a given system and the baseline,",
        "   the p-value is roughly the probability of the absolute score difference (delta)",
        "   or higher occurring due to chance, under the assumption that the null hypothesis is correct.",
        "",
        " - Assuming a significance threshold of 0.05, the null hypothesis can be rejected",
        "   for p-values < 0.05 (marked with \"*\"). This means that the delta is unlikely to be attributed",
        "   to chance, hence the system is significantly \"different\" than the baseline.",
        "   Otherwise, the p-values are highlighted in red.",
        "",
        " - NOTE: Significance does not tell whether a system is \"better\" than the baseline but rather",
        "   emphasizes the \"difference\" of the systems in terms of the replicability of the delta.",
        "",
    ])


def paired_test(request: Request, comparison: dict, labelled: Optional[Dict[str, str]] = None) -> str:
    """`labelled`: each system's name as sacreBLEU shows it (the baseline as `Baseline: NAME`)."""
    labelled = labelled or {}
    names = [labelled.get(entry["name"], entry["name"]) for entry in comparison["systems"]]
    if request.output_format == "json":
        return json.dumps(
            [{"system": name,
              "BLEU": {"score": 100 * entry["bleu"], "p_value": entry["p_value"],
                       "mean": None if entry["mean"] is None else 100 * entry["mean"],
                       "ci": None if entry["ci"] is None else 100 * entry["ci"]}}
             for name, entry in zip(names, comparison["systems"])],
            indent=4, ensure_ascii=False,
        )
    separator = " " if request.output_format == "latex" else "\n"
    rows = [[name, _paired_cell(entry, request.width, separator)] for name, entry in zip(names, comparison["systems"])]
    header = "BLEU (μ ± 95% CI)" if any(entry["mean"] is not None for entry in comparison["systems"]) else "BLEU"
    table = _table(request, ["System", header], rows)
    signature = _signature(request, _test_signature(comparison))
    # sacreBLEU names the baseline in its explanation only when its row says "Baseline: NAME" (so
    # not for stdin's columns, whose baseline is called "Baseline": "compared to .").
    named = names[0] if names[0].startswith("Baseline:") else ""
    return f"{table}\n\n{_paired_explanation(comparison, named)}\n{_signatures_block(signature)}"

"""The Compare systems tab: two or more systems on the same references, through
`bleu_compare.compare` (sacreBLEU's paired bootstrap or approximate randomization).

Shows the table (BLEU, 95% interval, p-value against the baseline), a plot of each system's
interval, and the segments where the systems differ most by sentence BLEU (the Per segment
tab's sentence-level settings).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np
import pandas as pd

from bleu_compare import compare
from bleu_core import bleu_rows, segment_statistics
from bleu_options import resolve_options
from bleu_tokenizers import TokenizerSetupError

from .inputs import (
    REFERENCE_SET_SEPARATOR,
    SOURCE_FILES,
    check_pasted_size,
    option_kwargs,
    parse_reference_sets,
    read_lines_file,
    references_per_segment,
    split_lines,
)
from .scoring import MAX_CELL_CHARS, sentence_options

SYSTEM_SEPARATOR = "==="
DIFFERENCE_ROWS = 100  # segments listed where the systems differ most
METHOD_CHOICES = [("paired bootstrap (1000 resamples)", "bootstrap"), ("approximate randomization (10000)", "ar")]


def parse_systems(text: str | None) -> Dict[str, List[str]]:
    """Pasted systems: blocks of lines (one prediction per line) separated by a line `===`."""
    blocks: List[List[str]] = [[]]
    for line in (text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line.strip() == SYSTEM_SEPARATOR:
            blocks.append([])
        else:
            blocks[-1].append(line)
    systems = {}
    for block in blocks:
        lines = split_lines("\n".join(block))
        while lines and not lines[0].strip():
            lines.pop(0)
        if lines:
            systems[f"system {len(systems) + 1}"] = lines
    return systems


def systems_from_files(files: Sequence[Any]) -> Dict[str, List[str]]:
    """One system per uploaded file, named by the file (a number added to repeated names)."""
    systems: Dict[str, List[str]] = {}
    for number, path in enumerate(files, start=1):
        name = Path(getattr(path, "name", path)).name
        unique = name if name not in systems else f"{name} ({number})"
        systems[unique] = read_lines_file(path, f"system file {number}")
    return systems


def _cut(text: str) -> str:
    return text if len(text) <= MAX_CELL_CHARS else text[:MAX_CELL_CHARS] + "…"


def interval_html(result: Dict[str, Any]) -> str:
    """Each system's BLEU (dot) and 95% interval (bar), on sacreBLEU's 0–100 scale."""
    rows = result["systems"]
    top = max(100 * ((row["mean"] or row["bleu"]) + (row["ci"] or 0.0)) for row in rows) * 1.1 or 1.0
    lines = []
    for row in rows:
        bleu = 100 * row["bleu"]
        if row["mean"] is not None:
            low, high = 100 * (row["mean"] - row["ci"]), 100 * (row["mean"] + row["ci"])
            bar = (f'<div class="ci-bar" style="left:{100 * low / top:.2f}%;width:{100 * (high - low) / top:.2f}%"></div>')
            label = f"{bleu:.2f} (μ = {100 * row['mean']:.2f} ± {100 * row['ci']:.2f})"
        else:
            bar, label = "", f"{bleu:.2f}"
        lines.append(
            f'<div class="ci-row"><span class="ci-name">{html.escape(row["name"])}</span>'
            f'<div class="ci-track">{bar}<div class="ci-dot" style="left:{100 * bleu / top:.2f}%"></div></div>'
            f'<span class="ci-label">{label}</span></div>'
        )
    return f'<div class="ci-plot" id="compare-plot"><div class="ci-caption">BLEU (0–100) and its 95% interval</div>{"".join(lines)}</div>'


def comparison_frame(result: Dict[str, Any]) -> pd.DataFrame:
    """The table sacreBLEU prints for --paired-bs/--paired-ar, on the 0–100 scale."""
    rows = []
    for row in result["systems"]:
        interval = "" if row["mean"] is None else f"{100 * row['mean']:.2f} ± {100 * row['ci']:.2f}"
        p_value = "baseline" if row["p_value"] is None else f"{row['p_value']:.4f}"
        rows.append({"system": row["name"], "BLEU": f"{100 * row['bleu']:.2f}", "95% interval (μ ± ci)": interval,
                     "p-value": p_value})
    return pd.DataFrame(rows)


def differences_frame(systems: Dict[str, List[str]], references: List[List[str]], kwargs: Dict[str, Any]) -> pd.DataFrame:
    """The segments where the systems' sentence BLEU differs most (two systems: second minus
    first; more: highest minus lowest), with each system's sentence BLEU."""
    options = sentence_options(resolve_options(**kwargs))
    scores = {name: bleu_rows(segment_statistics(predictions, references, options), options)
              for name, predictions in systems.items()}
    matrix = np.stack(list(scores.values()))
    names = list(scores)
    if len(names) == 2:
        difference, label = matrix[1] - matrix[0], f"{names[1]} − {names[0]}"
    else:
        difference, label = matrix.max(axis=0) - matrix.min(axis=0), "highest − lowest"
    order = np.argsort(-np.abs(difference), kind="stable")[:DIFFERENCE_ROWS]
    frame = {"#": order + 1}
    for name in names:
        frame[name] = [f"{value:.4f}" for value in scores[name][order]]
    frame[label] = [f"{value:+.4f}" for value in difference[order]]
    frame["reference 1"] = [_cut(references[i][0]) for i in order]
    return pd.DataFrame(frame)


def run_compare(source, systems_text, references_text, system_files, reference_files, method, samples, seed, *form):
    """Compare systems button: (status, table, interval plot, differences, caption)."""
    import gradio as gr

    try:
        if source == SOURCE_FILES:
            if not system_files or len(system_files) < 2:
                raise ValueError("upload two or more system files, one prediction per line each")
            if not reference_files:
                raise ValueError("no reference file uploaded; upload one or more files, one reference per line each")
            systems = systems_from_files(system_files)
            sets = [read_lines_file(path, f"reference file {i}") for i, path in enumerate(reference_files, start=1)]
        else:
            check_pasted_size("systems", systems_text, "Upload system files")
            check_pasted_size("references", references_text, "Upload system files")
            systems = parse_systems(systems_text)
            sets = parse_reference_sets(references_text)
            if len(systems) < 2:
                raise ValueError(f"paste two or more systems, separated by a line holding only {SYSTEM_SEPARATOR} "
                                 f"(found {len(systems)})")
        count = len(next(iter(systems.values())))
        references = references_per_segment(sets, count)
        kwargs = option_kwargs(*form)
        seed_text = "" if seed is None else str(seed).strip()
        result = compare(systems, references, method=method, samples=int(samples) if samples else None,
                         seed=int(seed_text) if seed_text else 12345, **kwargs)
        differences = differences_frame(systems, references, kwargs)
    except (ValueError, TypeError, OSError, ImportError, TokenizerSetupError) as error:
        return (gr.Markdown(f"⚠️ **Cannot compare:** {error}", visible=True), pd.DataFrame(), "", pd.DataFrame(), "")
    caption = (f"{len(systems)} systems, {count:,} segments; baseline **{html.escape(result['baseline'])}**. "
               f"Signature: `{result['signature']}`. Below: the {min(DIFFERENCE_ROWS, count)} segments where sentence BLEU "
               "differs most (sacreBLEU's sentence-level settings).")
    return (gr.Markdown("", visible=False), comparison_frame(result), interval_html(result), differences, caption)


COMPARE_HELP = f"""
Paste each system's output (one prediction per line), systems separated by a line holding only
`{SYSTEM_SEPARATOR}`, and the references as on the Score tab (reference sets separated by `{REFERENCE_SET_SEPARATOR}`);
or upload one file per system. The first system is the baseline. Uses the options of the Score tab.
"""

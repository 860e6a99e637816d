"""The Compare systems tab's work: two or more systems on the same references, through
`bleukit.significance.compare.compare` (sacreBLEU's paired bootstrap or approximate randomization).

Shows the table (BLEU, sacreBLEU's μ ± ci, p-value against the chosen baseline, and how many
resamples or trials tied the observed difference: sacreBLEU's strict p-value leaves them out, the
"count ties" box counts them in, the conservative p-value), a plot of each
system's interval on an axis fitted to the systems (with ticks), and, for a system chosen against
the baseline, the segments where their sentence BLEU differs most (the Per segment tab's
sentence-level settings) with the reference and both outputs. What the differences view needs is
kept in the page's store: sentence scores in memory, the texts on disk.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import pandas as pd

from bleukit.significance.compare import DEFAULT_SAMPLES, compare
from bleukit.core import bleu_rows, segment_statistics
from bleukit.options import resolve_options

from .inputs import (
    SOURCE_FILES,
    as_file_list,
    check_pasted_size,
    file_name,
    parse_reference_sets,
    read_lines_file,
    references_from_files,
    references_per_segment,
    split_lines,
    whole_number,
)
from .options import describe
from .scales import both_scales, scale_caption, scaled
from .scoring import cut, plural, sentence_options
from .store import SegmentTexts

SYSTEM_SEPARATOR = "==="
DIFFERENCE_ROWS = 100  # segments listed where a system differs most from the baseline
METHOD_CHOICES = [("paired bootstrap", "bootstrap"), ("approximate randomization", "ar")]
MAX_TEST_SAMPLES = 100_000
FEW_SEGMENTS = 100  # below this, a paired test's p-value is shown with a warning


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


def file_system_names(files: Sequence[Any]) -> List[str]:
    """One name per uploaded system file: the file's name (a number added to a repeated one)."""
    names: List[str] = []
    for number, path in enumerate(files, start=1):
        name = file_name(path)
        names.append(name if name not in names else f"{name} ({number})")
    return names


def systems_from_files(files: Sequence[Any]) -> Dict[str, List[str]]:
    return {name: read_lines_file(path, f"system file {number}")
            for number, (name, path) in enumerate(zip(file_system_names(files), files), start=1)}


def system_names(source: str, systems_text: Optional[str], system_files: Any) -> List[str]:
    """The systems the form holds now (for the baseline menu)."""
    if source == SOURCE_FILES:
        return file_system_names(as_file_list(system_files))
    return list(parse_systems(systems_text))


def parse_test_samples(samples: Any, method: str) -> int:
    """The samples box: resamples (bootstrap) or trials (ar), at least 1; blank is the test's default."""
    count = whole_number(samples, "samples", 1, f"{DEFAULT_SAMPLES.get(method, 1000)}")
    count = DEFAULT_SAMPLES.get(method, 1000) if count is None else count
    if count > MAX_TEST_SAMPLES:
        raise ValueError(f"samples {count:,} is more than the page allows ({MAX_TEST_SAMPLES:,}); use the CLI for more")
    return count


@dataclass
class ComparedSystems:
    """What the differences view needs after the test: sentence scores and the texts (on disk)."""

    names: List[str]  # the baseline first, as in the result
    sentence_bleu: np.ndarray  # (systems, segments)
    texts: SegmentTexts  # per segment: each system's output (in `names` order), then the references


def read_systems(source, systems_text, references_text, system_files, reference_files):
    """Systems {name: predictions} and per-segment references from the form, with clear messages."""
    if source == SOURCE_FILES:
        files = as_file_list(system_files)
        if len(files) < 2:
            raise ValueError("upload two or more system files, one prediction per line each")
        systems = systems_from_files(files)
        count = len(next(iter(systems.values())))
        return systems, references_from_files(reference_files, count)
    check_pasted_size("systems", systems_text, "Upload system files")
    check_pasted_size("references", references_text, "Upload system files")
    systems = parse_systems(systems_text)
    if len(systems) < 2:
        raise ValueError(f"paste two or more systems, separated by a line holding only {SYSTEM_SEPARATOR} "
                         f"(found {len(systems)})")
    count = len(next(iter(systems.values())))
    return systems, references_per_segment(parse_reference_sets(references_text), count)


def compare_systems(systems: Dict[str, List[str]], references: List[List[str]], kwargs: Dict[str, Any],
                    baseline: Optional[str], method: str, samples: int, seed: Optional[int], count_ties: bool = False):
    """The test (bleukit.significance.compare.compare) and what the differences view keeps."""
    result = compare(systems, references, baseline=baseline, method=method, samples=samples, seed=seed,
                     count_ties=bool(count_ties), **kwargs)
    names = [row["name"] for row in result["systems"]]
    options = sentence_options(resolve_options(**kwargs))
    scores = np.stack([bleu_rows(segment_statistics(systems[name], references, options), options) for name in names])
    texts = SegmentTexts.write([*(systems[name][i] for name in names), *group] for i, group in enumerate(references))
    return result, ComparedSystems(names, scores, texts)


def differences_frame(compared: ComparedSystems, system: str, rows: int = DIFFERENCE_ROWS) -> pd.DataFrame:
    """The segments where `system`'s sentence BLEU differs most from the baseline's: segment number,
    difference, both scores, then the references and both outputs (never cut here)."""
    index = compared.names.index(system)
    difference = compared.sentence_bleu[index] - compared.sentence_bleu[0]
    order = np.argsort(-np.abs(difference), kind="stable")[:rows]
    texts = compared.texts.rows(order)
    k = len(compared.names)
    baseline = compared.names[0]
    return pd.DataFrame({
        "#": order + 1,
        "difference": difference[order],
        baseline: compared.sentence_bleu[0][order],
        system: compared.sentence_bleu[index][order],
        "references": [row[k:] for row in texts],
        f"output {baseline}": [row[0] for row in texts],
        f"output {system}": [row[index] for row in texts],
    })


def differences_html(compared: Optional[ComparedSystems], system: Optional[str]) -> str:
    """The differences as a list that reads on a phone: per segment a line with its number, the
    difference and both scores, then the references and the two outputs, labelled."""
    if compared is None or system not in compared.names[1:]:
        return ""
    frame = differences_frame(compared, system)
    baseline = compared.names[0]
    items = []
    for row in frame.itertuples(index=False):
        number, difference, base_score, system_score, references, base_output, system_output = row
        lines = [(f"reference {i}" if len(references) > 1 else "reference", text)
                 for i, text in enumerate(references, start=1)]
        lines += [(baseline, base_output), (system, system_output)]
        texts = "".join(f'<div class="diff-text"><span class="diff-label">{html.escape(label)}</span>'
                        f"{html.escape(cut(text))}</div>" for label, text in lines)
        items.append(
            f'<li class="diff-row"><div class="diff-head"><b>segment {number:,}</b>'
            f'<span class="diff-delta">{both_scales(difference, signed=True)}</span>'
            f'<span class="diff-scores">{html.escape(baseline)} {both_scales(base_score)} → {html.escape(system)} '
            f"{both_scales(system_score)}</span></div>{texts}</li>"
        )
    title = (f"The {plural(len(frame), 'segment')} where sentence BLEU of <b>{html.escape(system)}</b> differs most "
             f"from the baseline <b>{html.escape(baseline)}</b> (sacreBLEU's sentence-level settings), largest first")
    # A scrolling region: focusable, so keyboard users can scroll it too (axe: scrollable-region-focusable).
    return (f'<div class="diff-list" id="compare-diff-list"><p class="diff-caption">{title}</p>'
            f'<ol class="diff-scroll" tabindex="0" aria-label="segments that differ most">{"".join(items)}</ol></div>')


def nice_ticks(low: float, high: float, count: int = 5) -> List[float]:
    """Round tick values covering [low, high] (steps of 1, 2 or 5 times a power of ten)."""
    span = max(high - low, 1e-9)
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step) * step
    return [round(first + i * step, 10) for i in range(int((high - first) / step + 1e-9) + 1)]


def interval_html(result: Dict[str, Any]) -> str:
    """Each system's BLEU (a tick) and sacreBLEU's μ ± ci (a bar) on an axis fitted to the systems, with
    tick marks, so systems a few tenths apart are told apart; every number on both scales (the page's
    toggle shows one).

    The rows and the axis are one CSS grid (`ci-grid`; each row's cells are its items, the rows
    `display: contents`), so the axis's track column is exactly as wide as the bars' tracks: as separate
    grids, the label column followed each row's text and the axis came out 15 px wider than the tracks
    (52.16 read as 50.6 against it)."""
    rows = result["systems"]
    ends = [100 * row["bleu"] for row in rows]
    for row in rows:
        if row["mean"] is not None:
            ends += [100 * (row["mean"] - row["ci"]), 100 * (row["mean"] + row["ci"])]
    low, high = min(ends), max(ends)
    pad = max(0.05 * (high - low), 0.05)
    ticks = nice_ticks(low - pad, high + pad)
    left, right = min(ticks[0], low - pad), max(ticks[-1], high + pad)

    def at(value: float) -> str:
        return f"{100 * (value - left) / (right - left):.2f}%"

    lines = []
    for row in rows:
        bleu = 100 * row["bleu"]
        if row["mean"] is not None:
            bar_low, bar_high = 100 * (row["mean"] - row["ci"]), 100 * (row["mean"] + row["ci"])
            bar = (f'<div class="ci-bar" style="left:{at(bar_low)};width:calc({at(bar_high)} - {at(bar_low)})"></div>')
            label = scaled(f"{row['bleu']:.4f} (μ = {row['mean']:.4f} ± {row['ci']:.4f})",
                           f"{bleu:.2f} (μ = {100 * row['mean']:.2f} ± {100 * row['ci']:.2f})")
        else:
            bar, label = "", both_scales(row["bleu"])
        lines.append(
            f'<div class="ci-row"><span class="ci-name">{html.escape(row["name"])}</span>'
            f'<div class="ci-track">{bar}<div class="ci-dot" style="left:{at(bleu)}"></div></div>'
            f'<span class="ci-label">{label}</span></div>'
        )
    axis = "".join(f'<span class="ci-tick" style="left:{at(tick)}">{scaled(f"{round(tick / 100, 10):g}", f"{tick:g}")}</span>'
                   for tick in ticks)
    return (f'<div class="ci-plot" id="compare-plot"><div class="ci-caption">{scale_caption()}: the tick is the score, '
            f'the bar sacreBLEU\'s μ ± ci (95%)</div><div class="ci-grid">{"".join(lines)}'
            f'<div class="ci-row ci-axis-row"><span></span><div class="ci-axis">{axis}</div><span></span></div></div></div>')


def comparison_frame(result: Dict[str, Any]) -> pd.DataFrame:
    """The table sacreBLEU prints for --paired-bs/--paired-ar, on the 0–100 scale, and each system's
    ties: the resamples or trials whose difference equalled the observed one."""
    rows = []
    for row in result["systems"]:
        interval = "" if row["mean"] is None else f"{100 * row['mean']:.2f} ± {100 * row['ci']:.2f}"
        p_value = "baseline" if row["p_value"] is None else f"{row['p_value']:.4f}"
        ties = "—" if row.get("ties") is None else f"{row['ties']:,}"  # the baseline has none
        rows.append({"system": row["name"], "BLEU": f"{100 * row['bleu']:.2f}", "μ ± ci (95%)": interval,
                     "p-value": p_value, "ties": ties})
    return pd.DataFrame(rows)


# sacreBLEU's table is on 0–100 with 2 digits; 0–1 with 4 is the same digits, the point moved two places.
_PERCENT_NUMBER = re.compile(r"\d+\.\d\d(?!\d)")
SCALED_COLUMNS = ("BLEU", "μ ± ci (95%)")


def _unit_of_percent(text: str) -> str:
    """`27.57 ± 0.68` -> `0.2757 ± 0.0068`: each 2-digit 0–100 number on 0–1 with 4 digits (exact)."""
    def unit(match) -> str:
        whole, digits = match.group().split(".")
        return f"{int(whole) // 100}.{int(whole) % 100:02d}{digits}"

    return _PERCENT_NUMBER.sub(unit, text)


def comparison_html(frame: pd.DataFrame) -> str:
    """The comparison table (`comparison_frame`), its scores on both scales (the page's toggle shows one).
    No number or name wraps inside a cell ("52.1 / 6", "baseli / ne" on a phone): the table scrolls
    sideways in its own box where it is wider than the screen (a focusable region, so keyboard users
    can scroll it; style.py)."""
    head = "".join(f"<th>{html.escape(column)}</th>" for column in frame.columns)

    def cell(column: str, value: Any) -> str:
        text = html.escape(str(value))
        return scaled(_unit_of_percent(text), text) if column in SCALED_COLUMNS and text else text

    body = "".join("<tr>" + "".join(f"<td>{cell(column, value)}</td>" for column, value in zip(frame.columns, row))
                   + "</tr>" for row in frame.itertuples(index=False))
    return (f'<div class="compare-scroll" role="region" aria-label="comparison table" tabindex="0">'
            f'<table class="compare-results" id="compare-results"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
            f"</table></div>")


def few_segments_warning(count: int, result: Dict[str, Any]) -> str:
    """A paired test on a handful of segments gives a p-value that means little; say so."""
    if count >= FEW_SEGMENTS:
        return ""
    smallest = 1 / (result["samples"] + 1)
    if count == 1:
        why = ("with one segment every resample is that segment, so the test cannot tell chance from a real "
               f"difference: a p-value of {smallest:.4f} here is only the smallest the test can report")
    else:
        why = (f"with {count} segments the resamples repeat the same few sentences, so the p-values are rough; "
               "test on a full test set (hundreds of segments or more)")
    return f"⚠️ **Only {plural(count, 'segment')}:** {why}."


def ties_note(result: Dict[str, Any]) -> str:
    """Which p-value the table shows, and the ties behind it (bleukit.significance.paired: a tie is a
    resample or trial whose difference equals the observed one exactly)."""
    what = "resamples" if result["method"] == "bootstrap" else "trials"
    tied = [f"{html.escape(row['name'])} {row['ties']:,}" for row in result["systems"] if row.get("ties")]
    if result["count_ties"]:
        counted = "p-values count ties as at least as large (the conservative p-value)"
    else:
        counted = "p-values leave ties out (sacreBLEU's strict p-value; tick *Count ties* for the conservative one)"
    if not tied:
        return f"No {what[:-1]} tied the observed difference; {counted}."
    return (f"**Ties:** {', '.join(tied)} of {result['samples']:,} {what} gave exactly the observed difference; "
            f"{counted}.")


def compare_caption(result: Dict[str, Any], count: int, kwargs: Dict[str, Any]) -> str:
    method = dict((v, k) for k, v in METHOD_CHOICES)[result["method"]]
    what = "resamples" if result["method"] == "bootstrap" else "trials"
    seed = "none (fresh randomness)" if result["seed"] is None else result["seed"]
    return (f"{plural(len(result['systems']), 'system')}, {plural(count, 'segment')}; baseline "
            f"**{html.escape(result['baseline'])}**; {method}, {result['samples']:,} {what}, seed {seed}. "
            f"Options: {html.escape(describe(resolve_options(**kwargs)))}.\n\n{ties_note(result)}\n\n"
            f"<span class=\"compare-signature\">Signature: {html.escape(result['signature'])}</span>")


COMPARE_HELP = f"""
Paste each system's output (one prediction per line), systems separated by a line holding only
`{SYSTEM_SEPARATOR}`, and the references as on the Score tab (reference sets separated by `---`);
or upload one file per system (a new upload replaces the list). Pick the baseline the others are tested
against. The options below are this tab's own. *Count ties* counts the resamples or trials that tie
the observed difference as at least as large (the conservative p-value); left off, the p-value is
sacreBLEU's. The table says how many tied.
"""


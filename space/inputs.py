"""Reading the form: pasted text or uploaded files into predictions and per-segment references,
and the option widgets into the metric's keyword arguments.

Text input format: predictions one segment per line; references one line per segment, and for
several references per segment, several reference sets separated by a line holding only `---`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

REFERENCE_SET_SEPARATOR = "---"
SOURCE_TEXT, SOURCE_FILES = "text", "files"
# A paste box holds at most this much: a browser text box slows down well before megabytes,
# so larger test sets go through file upload (app.py's launch caps each upload at MAX_FILE_MB).
MAX_PASTED_CHARS = 1_000_000
MAX_FILE_MB = 50


def split_lines(text: Optional[str]) -> List[str]:
    """Lines of pasted text; trailing blank lines (an artefact of pasting) are dropped."""
    lines = (text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def parse_reference_sets(text: Optional[str]) -> List[List[str]]:
    """Reference sets from the text box: blocks of lines separated by a line holding only `---`.

    Blank lines around a `---` (at the start or end of a block) are layout, not segments, so
    they are trimmed; blank lines inside a block stay empty references.
    """
    sets: List[List[str]] = [[]]
    for line in (text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line.strip() == REFERENCE_SET_SEPARATOR:
            sets.append([])
        else:
            sets[-1].append(line)
    trimmed = []
    for block in sets:
        lines = split_lines("\n".join(block))
        while lines and not lines[0].strip():
            lines.pop(0)
        if lines:
            trimmed.append(lines)
    return trimmed


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def references_per_segment(reference_sets: Sequence[Sequence[str]], num_segments: int) -> List[List[str]]:
    """Turn reference sets (one line per segment each) into one list of references per segment."""
    if not reference_sets:
        raise ValueError(
            "references are empty; paste one reference line per prediction (several reference sets "
            f"separated by a line with only {REFERENCE_SET_SEPARATOR})"
        )
    for number, block in enumerate(reference_sets, start=1):
        if len(block) != num_segments:
            raise ValueError(
                f"reference set {number} has {_lines(len(block))} but there are {num_segments} predictions; "
                f"every reference set needs one line per prediction (separate sets with a line "
                f"holding only {REFERENCE_SET_SEPARATOR})"
            )
    return [list(group) for group in zip(*reference_sets)]


def read_lines_file(path: Any, what: str) -> List[str]:
    """One segment per line of an uploaded UTF-8 text file (a final newline ends the last line)."""
    name = getattr(path, "name", path)
    try:
        text = Path(name).read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{what} {Path(name).name!r} is not UTF-8 text (byte {error.start}); save it as UTF-8 plain text"
        ) from None
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def check_pasted_size(what: str, text: Optional[str], upload_tab: str = "Upload files") -> None:
    """Refuse a paste box past MAX_PASTED_CHARS (the browser refuses such pastes too; this covers the API)."""
    if len(text or "") > MAX_PASTED_CHARS:
        raise ValueError(
            f"the pasted {what} are {len(text):,} characters, more than the {MAX_PASTED_CHARS:,} a paste box "
            f"takes; use the {upload_tab} tab (up to {MAX_FILE_MB} MB per file)"
        )


def load_inputs(
    source: str, predictions_text: str, references_text: str, hypothesis_file: Any, reference_files: Any
) -> Tuple[List[str], List[List[str]]]:
    """Predictions and per-segment reference lists from the pasted text or the uploaded files."""
    if source == SOURCE_FILES:
        if not hypothesis_file:
            raise ValueError("no hypothesis file uploaded; upload one file with one prediction per line")
        if not reference_files:
            raise ValueError("no reference file uploaded; upload one or more files, one reference per line each")
        files = reference_files if isinstance(reference_files, (list, tuple)) else [reference_files]
        predictions = read_lines_file(hypothesis_file, "hypothesis file")
        sets = [read_lines_file(path, f"reference file {i}") for i, path in enumerate(files, start=1)]
    else:
        check_pasted_size("predictions", predictions_text)
        check_pasted_size("references", references_text)
        predictions = split_lines(predictions_text)
        sets = parse_reference_sets(references_text)
    if not predictions:
        raise ValueError("predictions are empty; paste one prediction per line (or upload a hypothesis file)")
    return predictions, references_per_segment(sets, len(predictions))


def parse_weights(text: Optional[str]) -> Optional[List[float]]:
    """`0.5, 0.5` or `0.5 0.5` -> [0.5, 0.5]; blank -> None (uniform weights over max order)."""
    items = (text or "").replace(",", " ").split()
    if not items:
        return None
    try:
        return [float(item) for item in items]
    except ValueError:
        raise ValueError(
            f"weights {text.strip()!r} are not numbers; write one number per order, e.g. 0.5, 0.5"
        ) from None


MAX_ORDER_LIMIT = 8  # the form's range; the metric itself takes any order >= 1


def parse_max_order(value: Any) -> int:
    """The max-order box: a whole number from 1 to 8, never silently rounded or clamped."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not (number == number and number.is_integer() and 1 <= number <= MAX_ORDER_LIMIT):
        raise ValueError(f"max n-gram order {value!r} is not a whole number from 1 to {MAX_ORDER_LIMIT}; write e.g. 4")
    return int(number)


def parse_bootstrap(samples: Any, seed: Any) -> Tuple[int, Optional[int]]:
    """Bootstrap resamples (0 = no confidence interval) and seed (blank = the metric's default)."""
    def whole(value: Any, what: str, low: int) -> Optional[int]:
        if value is None or str(value).strip() == "":
            return None
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = float("nan")
        if not (number == number and number.is_integer() and number >= low):
            raise ValueError(f"{what} {value!r} is not a whole number >= {low}; write e.g. 1000 (or 0 for none)")
        return int(number)

    count = whole(samples, "bootstrap samples", 0) or 0
    if count > MAX_BOOTSTRAP_SAMPLES:
        raise ValueError(f"bootstrap samples {count:,} is more than the page allows ({MAX_BOOTSTRAP_SAMPLES:,}); "
                         "use the CLI or the metric for more")
    return count, whole(seed, "bootstrap seed", 0)


MAX_BOOTSTRAP_SAMPLES = 10000


def option_kwargs(
    tokenizer: str,
    lowercase: bool,
    max_order: Any,
    weights_text: str,
    smooth: str,
    smooth_value: Any,
    ref_length: str,
    effective_order: bool,
) -> Dict[str, Any]:
    """The metric's keyword options from the form: weights, when given, set the order."""
    weights = parse_weights(weights_text)
    kwargs: Dict[str, Any] = {
        "tokenizer": tokenizer,
        "lowercase": bool(lowercase),
        "smooth": smooth,
        "ref_length": ref_length,
        "effective_order": bool(effective_order),
    }
    if weights is not None:
        kwargs["weights"] = weights
    else:
        kwargs["max_order"] = parse_max_order(max_order)
    value_text = "" if smooth_value is None else str(smooth_value).strip()
    if value_text:
        try:
            kwargs["smooth_value"] = float(value_text)
        except ValueError:
            raise ValueError(
                f"smoothing value {value_text!r} is not a number; write e.g. 0.1, or leave it blank for the default"
            ) from None
    return kwargs

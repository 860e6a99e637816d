"""Reading the form: pasted text or uploaded files into predictions and per-segment references,
and the option widgets into the metric's keyword arguments.

Text input format: predictions one segment per line; references one line per segment, and for
several references per segment, several reference sets separated by a line holding only `---`.
"""

from __future__ import annotations

import numbers
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from bleukit.core import DEFAULT_BOOTSTRAP_SEED
from bleukit.options import resolve_options
from bleukit.scoring import SMOOTHING_DEFAULTS
from bleukit.tokenizers.registry import TokenizerSetupError

from .store import utf8_text

REFERENCE_SET_SEPARATOR = "---"
SOURCE_TEXT, SOURCE_FILES = "text", "files"
# A paste box holds at most this much: a browser text box slows down well before megabytes,
# so larger test sets go through file upload (app.py's launch caps each upload at MAX_FILE_MB).
MAX_PASTED_CHARS = 1_000_000
MAX_FILE_MB = 50
DEFAULT_SEED = DEFAULT_BOOTSTRAP_SEED  # 12345: sacreBLEU's SACREBLEU_SEED default, and the metric's
# What a visitor's input or choice can raise, shown as a message on the page: bad input (ValueError,
# TypeError, OSError), and a tokenizer whose optional package, model file or dictionary is missing
# here (ImportError with the pip line, TokenizerSetupError).
INPUT_ERRORS = (ValueError, TypeError, OSError, ImportError, TokenizerSetupError)
# Most resamples a bootstrap interval may ask for, on the page and through the API alike: 100,000
# made a small /score wait 4.8 s (sacreBLEU's --confidence uses 1,000).
MAX_BOOTSTRAP_SAMPLES = 10_000


def split_lines(text: Optional[str]) -> List[str]:
    """Lines of pasted text; trailing blank lines (an artefact of pasting) are dropped.

    Every reader here (pasted text, uploaded files, examples; the page and the API alike) hands its
    text on as UTF-8 can carry it (`store.utf8_text`: a lone surrogate, text cut inside an emoji
    "caf\\ud83d", becomes U+FFFD as a browser writes it). Why: the metric scores a lone surrogate, but
    Gradio cannot send one to the browser (red Error badges, a lost connection) nor a file hold it."""
    lines = utf8_text(text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
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
    """One segment per line of an uploaded UTF-8 text file (a final newline ends the last line).

    A lone surrogate written as UTF-8 bytes (Python's "surrogatepass", WTF-8) is read as pasted text
    is (`split_lines`); other bytes that are not UTF-8 are refused."""
    name = file_path(path)
    data = Path(name).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        try:
            text = utf8_text(data.decode("utf-8-sig", "surrogatepass"))
        except UnicodeDecodeError:
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
            f"takes; " + (f"use the {upload_tab} tab (up to {MAX_FILE_MB} MB per file)" if upload_tab != "file"
                          else f"pass a file instead (up to {MAX_FILE_MB} MB)")
        )


def file_name(path: Any) -> str:
    return Path(getattr(path, "name", None) or (path.get("path") if isinstance(path, dict) else path)).name


def file_path(path: Any) -> str:
    """An uploaded file's path: Gradio hands a path, a tempfile wrapper, or (through the API) a FileData dict."""
    if isinstance(path, dict):
        return path["path"]
    return getattr(path, "name", path)


def as_file_list(files: Any) -> List[Any]:
    if not files:
        return []
    return list(files) if isinstance(files, (list, tuple)) else [files]


def references_from_files(reference_files: Any, count: int) -> List[List[str]]:
    """Per-segment references from uploaded reference files, one reference set per file."""
    files = as_file_list(reference_files)
    if not files:
        raise ValueError("no reference file uploaded; upload one or more files, one reference per line each")
    sets = []
    for number, path in enumerate(files, start=1):
        lines = read_lines_file(path, f"reference file {number}")
        if len(lines) != count:
            raise ValueError(
                f"reference file {number} ({file_name(path)!r}) has {_lines(len(lines))} but there are {count:,} "
                "predictions; every reference file needs one line per prediction"
            )
        sets.append(lines)
    return [list(group) for group in zip(*sets)]


def load_inputs(
    source: str, predictions_text: str, references_text: str, hypothesis_file: Any, reference_files: Any
) -> Tuple[List[str], List[List[str]]]:
    """Predictions and per-segment reference lists from the pasted text or the uploaded files."""
    if source == SOURCE_FILES:
        if not hypothesis_file:
            raise ValueError("no hypothesis file uploaded; upload one file with one prediction per line")
        if not as_file_list(reference_files):
            raise ValueError("no reference file uploaded; upload one or more files, one reference per line each")
        predictions = read_lines_file(hypothesis_file, "hypothesis file")
        if not predictions:
            raise ValueError(f"the hypothesis file {file_name(hypothesis_file)!r} is empty; upload a file with "
                             "one prediction per line")
        return predictions, references_from_files(reference_files, len(predictions))
    check_pasted_size("predictions", predictions_text)
    check_pasted_size("references", references_text)
    predictions = split_lines(predictions_text)
    if not predictions:
        raise ValueError("the predictions box is empty; paste one prediction per line (or use the Upload files tab)")
    return predictions, references_per_segment(parse_reference_sets(references_text), len(predictions))


def corpus_from_text_or_files(
    predictions_text: Optional[str], references_text: Optional[str], hypothesis_file: Any, reference_files: Any
) -> Tuple[List[str], List[List[str]]]:
    """The API's reading: predictions as text or as a file (not both), references likewise."""
    if predictions_text and hypothesis_file:
        raise ValueError("give the predictions as text or as a hypothesis file, not both")
    if references_text and as_file_list(reference_files):
        raise ValueError("give the references as text or as reference files, not both")
    if hypothesis_file:
        predictions = read_lines_file(hypothesis_file, "hypothesis file")
        if not predictions:
            raise ValueError(f"the hypothesis file {file_name(hypothesis_file)!r} is empty; pass a file with "
                             "one prediction per line")
    else:
        check_pasted_size("predictions", predictions_text, "file")
        predictions = split_lines(predictions_text)
        if not predictions:
            raise ValueError("predictions are empty; pass predictions (one per line) or hypothesis_file")
    if as_file_list(reference_files):
        return predictions, references_from_files(reference_files, len(predictions))
    check_pasted_size("references", references_text, "file")
    return predictions, references_per_segment(parse_reference_sets(references_text), len(predictions))


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


def whole_number(value: Any, what: str, low: int, example: str) -> Optional[int]:
    """A box that holds a whole number >= low; blank is None (the box's stated default)."""
    if value is None or str(value).strip() == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not (number == number and number.is_integer() and number >= low):
        raise ValueError(f"{what} {value!r} is not a whole number >= {low}; write e.g. {example}")
    return int(number)


def parse_seed(value: Any) -> Optional[int]:
    """The seed box, the same on every tab: sacreBLEU's 12345 when blank, `none` for fresh randomness
    each run (sacreBLEU's SACREBLEU_SEED=None), else a whole number >= 0."""
    if isinstance(value, str) and value.strip().lower() == "none":
        return None
    seed = whole_number(value, "seed", 0, "12345 (sacreBLEU's), or none for fresh randomness")
    return DEFAULT_SEED if seed is None else seed


def check_resamples(count: Any, what: str = "bootstrap resamples", where: str = "the page",
                    limit: int = MAX_BOOTSTRAP_SAMPLES) -> Any:
    """Refuse more resamples than `limit` (the page's box and the API's argument share it); a count
    that is not a number is left to the metric, which says what it takes."""
    if isinstance(count, numbers.Real) and not isinstance(count, bool) and count > limit:
        raise ValueError(f"{what} {count:,} is more than {where} allows ({limit:,}); pass at most {limit:,}, "
                         "or use the CLI or the metric for more")
    return count


def parse_bootstrap(samples: Any, seed: Any) -> Tuple[int, Optional[int]]:
    """Bootstrap resamples for the confidence interval (0 or blank: no interval) and the seed."""
    count = whole_number(samples, "bootstrap resamples", 0, "1000 (or 0 for no interval)") or 0
    return check_resamples(count), parse_seed(seed)


def parse_smooth_value(smooth: str, value: Any) -> Optional[float]:
    """The smoothing-value box: blank is the method's default (None); a number is checked by the
    metric's own rule (bleukit.options.resolve_options), so the page refuses exactly what the metric
    refuses, with the range it accepts and what to write instead."""
    text = "" if value is None else str(value).strip()
    if not text:
        return None
    try:
        number = float(text)
    except ValueError:
        raise ValueError(
            f"smoothing value {text!r} is not a number; write e.g. 0.1, or leave it blank for the default"
        ) from None
    if smooth not in SMOOTHING_DEFAULTS:
        return number  # an unknown method: the metric names the methods it knows
    try:
        resolve_options(tokenizer="none", smooth=smooth, smooth_value=number)
    except ValueError as error:
        default = SMOOTHING_DEFAULTS[smooth]
        fix = (f"clear the box ({smooth} takes no value)" if default is None
               else f"write a number > 0, or leave the box blank for {smooth}'s default {default:g}")
        raise ValueError(f"smoothing value {text} is refused for {smooth}: {error}; {fix}") from None
    return number


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
    value = parse_smooth_value(smooth, smooth_value)
    if value is not None:
        kwargs["smooth_value"] = value
    return kwargs

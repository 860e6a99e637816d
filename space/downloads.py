"""Files to take away after scoring: every segment as CSV, the result as JSON, and a line to paste
into a paper (Markdown and LaTeX) with the score and its signature.

They are written to one temporary folder per scoring, which belongs to the scored result: the store
deletes it with the result (scored again, tab closed, an hour passed, or dropped to keep to the
budgets; `store.OwnedFolder`). Folders older than an hour are also removed whenever new files are
written, for any a crash left behind. The folder is one of Gradio's static paths, so Gradio serves
the files where they are: otherwise it copies every file it is handed into its own cache, one more
copy per result that outlived the result (until `delete_cache`'s hourly sweep).

Text is written as UTF-8 with the page's one rule for what UTF-8 cannot carry (`store.utf8_text`): a
lone surrogate (text cut in the middle of an emoji, "caf\\ud83d") is written as U+FFFD, so a
download is always valid UTF-8 (writing it strictly raised UnicodeEncodeError: a bare "Error" badge).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import List, Sequence

import gradio as gr
import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from .render import sacrebleu_line
from .scoring import ScoredCorpus
from .store import UTF8_ERRORS, OwnedFolder, utf8_text

DOWNLOADS_ROOT = Path(tempfile.gettempdir()) / "bleu-space-downloads"
KEEP_SECONDS = 3600
gr.set_static_paths([DOWNLOADS_ROOT])  # served in place (see above); only random per-result folders in it


def segments_table(scored: ScoredCorpus, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> pa.Table:
    """All segments (never cut): number, sentence BLEU, lengths, prediction, every reference. Text
    that UTF-8 cannot carry is written by the page's rule (`store.utf8_text`); Arrow refuses a lone
    surrogate, so such text is mended first (only then: checking every text would cost a
    200,000-line Score a tenth of a second)."""
    try:
        return _table(scored, predictions, references)
    except (UnicodeError, pa.ArrowException):
        return _table(scored, [utf8_text(text) for text in predictions],
                      [[utf8_text(text) for text in group] for group in references])


def _table(scored: ScoredCorpus, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> pa.Table:
    most_refs = max((len(group) for group in references), default=1)
    columns = {
        "segment": pa.array(np.arange(1, len(predictions) + 1, dtype=np.int64)),
        "sentence_bleu": pa.array(np.asarray(scored.sentence_bleu, dtype=np.float64)),
        "hyp_len": pa.array(np.asarray(scored.stats[:, 0], dtype=np.int64)),
        "ref_len": pa.array(np.asarray(scored.stats[:, 1], dtype=np.int64)),
        "prediction": pa.array(predictions, type=pa.large_string()),
    }
    for k in range(1, most_refs + 1):
        column = [group[k - 1] if k <= len(group) else "" for group in references]
        columns[f"reference_{k}"] = pa.array(column, type=pa.large_string())
    return pa.table(columns)


def write_segments_csv(path: Path, table: pa.Table) -> None:
    """The table as CSV (UTF-8, a header row, text quoted): Arrow's writer, 0.07 s for 200,000
    segments where pandas' `to_csv` took 0.65 s."""
    pacsv.write_csv(table, str(path))


def citation_text(scored: ScoredCorpus) -> str:
    """The score with its signature, as sacreBLEU prints it, in Markdown and in LaTeX."""
    result = scored.result
    signature = scored.signature
    latex_signature = signature.replace("|", r"\textbar{}").replace("_", r"\_")
    return (
        f"{sacrebleu_line(result)}\n\n"
        f"Markdown: BLEU **{100 * result['bleu']:.2f}** (`{signature}`)\n\n"
        f"LaTeX: BLEU ${100 * result['bleu']:.2f}$\\footnote{{\\texttt{{{latex_signature}}}}}\n"
    )


def _remove_old_folders(now: float) -> None:
    if not DOWNLOADS_ROOT.exists():
        return
    for folder in DOWNLOADS_ROOT.iterdir():
        try:
            if now - folder.stat().st_mtime > KEEP_SECONDS:
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            pass


def write_downloads(scored: ScoredCorpus, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> List[str]:
    """Write the three files for this result (the texts are the ones just scored); returns their paths.
    The folder is the result's (`scored.downloads`): it goes when the result goes."""
    now = time.time()
    _remove_old_folders(now)
    DOWNLOADS_ROOT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bleu-", dir=DOWNLOADS_ROOT))
    try:
        segments = folder / "bleu_segments.csv"
        write_segments_csv(segments, segments_table(scored, predictions, references))
        result = folder / "bleu_result.json"
        result.write_text(json.dumps(scored.result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8",
                          errors=UTF8_ERRORS)
        citation = folder / "bleu_citation.txt"
        citation.write_text(citation_text(scored), encoding="utf-8", errors=UTF8_ERRORS)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    if scored.downloads is not None:
        scored.downloads.delete()  # written again for the same result: the earlier files go
    scored.downloads = OwnedFolder(folder)
    return [str(segments), str(result), str(citation)]

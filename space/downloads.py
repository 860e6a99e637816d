"""Files to take away after scoring: every segment as CSV, the result as JSON, and a line to paste
into a paper (Markdown and LaTeX) with the score and its signature.

They are written to one temporary folder per scoring; folders older than an hour are removed
whenever new files are written, so a long-running Space does not fill its disk.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import List, Sequence

import pandas as pd

from .render import sacrebleu_line
from .scoring import ScoredCorpus

DOWNLOADS_ROOT = Path(tempfile.gettempdir()) / "bleu-space-downloads"
KEEP_SECONDS = 3600


def segments_csv_frame(scored: ScoredCorpus, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> pd.DataFrame:
    """All segments (never cut): number, sentence BLEU, lengths, prediction, every reference."""
    most_refs = max((len(group) for group in references), default=1)
    return pd.DataFrame(
        {
            "segment": range(1, len(predictions) + 1),
            "sentence_bleu": scored.sentence_bleu,
            "hyp_len": scored.stats[:, 0],
            "ref_len": scored.stats[:, 1],
            "prediction": predictions,
            **{
                f"reference_{k}": [group[k - 1] if k <= len(group) else "" for group in references]
                for k in range(1, most_refs + 1)
            },
        }
    )


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
    """Write the three files for this result (the texts are the ones just scored); returns their paths."""
    now = time.time()
    _remove_old_folders(now)
    DOWNLOADS_ROOT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bleu-", dir=DOWNLOADS_ROOT))
    segments = folder / "bleu_segments.csv"
    segments_csv_frame(scored, predictions, references).to_csv(segments, index=False)
    result = folder / "bleu_result.json"
    result.write_text(json.dumps(scored.result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    citation = folder / "bleu_citation.txt"
    citation.write_text(citation_text(scored), encoding="utf-8")
    return [str(segments), str(result), str(citation)]

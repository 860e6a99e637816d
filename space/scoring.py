"""One scored corpus, through `bleukit.core` only, and the frames the page draws from it.

Per-segment scores are sentence BLEU with sacreBLEU's sentence-level settings (`sentence_bleu`:
order 4, exp smoothing, effective order, closest reference length), on the corpus options' tokens
(same tokenizer and casing). They do not follow the corpus options' order, weights or smoothing:
unsmoothed order-4 BLEU of one sentence is 0 for most sentences and says nothing. Explain mode
shows the same number for a segment, with the corpus options' number beside it, labelled.

A scored corpus keeps numbers in memory (statistics rows, sentence scores, the result) and its
texts on disk (`store.SegmentTexts`); the per-segment table is paged and sorted here, on the
server, so the browser only ever holds one page whatever the corpus size. Its downloads folder, once
written (`downloads.write_downloads`), is its own too, and goes with it.

The inputs are scored as they come (no per-segment copies): copying 200,000 reference lists made
Python's cyclic collector walk the server's whole heap again and again (0.2-1.4 s of a 200k-line
Score, measured; app.py also freezes the page's own objects out of the collector's walks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from bleukit.cli.sacrebleu_layouts import with_test_fields
from bleukit.core import DEFAULT_BOOTSTRAP_SEED, bleu_rows, result_from_statistics, segment_statistics, statistics_of_inputs
from bleukit.options import BleuOptions, resolve_options

from .store import SegmentTexts, utf8_text

PAGE_ROWS = 50  # rows of the per-segment table on one page
MAX_CELL_CHARS = 300  # text longer than this is cut in the table (explain mode shows the tokens)
SORT_CHOICES = [
    ("segment #", "segment"),
    ("sentence BLEU, lowest first", "bleu-asc"),
    ("sentence BLEU, highest first", "bleu-desc"),
    ("hypothesis length, longest first", "hyp-desc"),
    ("length ratio hyp/ref, lowest first", "ratio-asc"),
]


def sentence_options(options: BleuOptions) -> BleuOptions:
    """sacreBLEU's sentence-BLEU settings on the corpus options' tokenizer and casing."""
    return resolve_options(tokenizer=options.tokenizer, lowercase=options.lowercase, smooth="exp", effective_order=True)


def plural(count: int, word: str, many: Optional[str] = None) -> str:
    """`1 segment`, `3,004 segments`."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


@dataclass
class ScoredCorpus:
    """A scored corpus, kept in the page's store between clicks (paging, explain mode).

    `texts` holds each segment's prediction then its references, on disk. `bootstrap` is the
    (samples, seed) of the confidence interval, or None without one.
    """

    texts: SegmentTexts
    options: BleuOptions
    stats: np.ndarray
    result: Dict[str, Any]  # the metric's result, as evaluate returns it
    sentence_bleu: np.ndarray  # per segment, with sentence_options(options)
    bootstrap: Optional[Tuple[int, Optional[int]]] = None
    downloads: Optional[Any] = None  # store.OwnedFolder of its download files, once written

    def __len__(self) -> int:
        return len(self.stats)

    def segment(self, index: int) -> Tuple[str, List[str]]:
        """The prediction and references of segment `index` (0-based)."""
        prediction, *references = self.texts.row(index)
        return prediction, references

    @property
    def reference_counts(self) -> np.ndarray:
        return np.diff(self.texts.row_starts) - 1

    @property
    def signature(self) -> str:
        """The result's signature, with sacreBLEU's `bs:N|seed:S` when an interval was drawn."""
        if self.bootstrap is None:
            return self.result["signature"]
        samples, seed = self.bootstrap
        return with_test_fields(self.result["signature"], bs=samples, seed=seed)


def score_corpus(
    predictions: Sequence[str],
    references: Sequence[Sequence[str]],
    kwargs: Dict[str, Any],
    bootstrap_samples: int = 0,
    bootstrap_seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
) -> ScoredCorpus:
    """Score through the core: the same statistics and result the metric module returns."""
    preds = predictions if isinstance(predictions, list) else list(predictions)
    refs = references if isinstance(references, list) else list(references)
    stats, num_refs, options = statistics_of_inputs(preds, refs, resolve_options(**kwargs), kind="text")
    extra = {} if not bootstrap_samples else {"bootstrap_samples": bootstrap_samples, "bootstrap_seed": bootstrap_seed}
    result = result_from_statistics(stats, options, num_refs, **extra)
    sentence = sentence_options(options)
    same_rows = options.orders == sentence.orders and options.ref_length == sentence.ref_length
    sentence_stats = stats if same_rows else segment_statistics(preds, refs, sentence)
    texts = SegmentTexts.from_columns(preds, refs)
    return ScoredCorpus(texts, options, stats, result, bleu_rows(sentence_stats, sentence),
                        (bootstrap_samples, bootstrap_seed) if bootstrap_samples else None)


def metric_result(scored: ScoredCorpus) -> Dict[str, Any]:
    """What `evaluate.load(...).compute(...)` returns for these inputs."""
    return dict(scored.result)


def precision_frame(scored: ScoredCorpus) -> pd.DataFrame:
    """Bars for the chart: one per n-gram precision, one for the brevity penalty."""
    result = scored.result
    rows = [(f"{n}-gram precision", p, "precision") for n, p in enumerate(result["precisions"], start=1)]
    rows.append(("brevity penalty", result["brevity_penalty"], "brevity penalty"))
    return pd.DataFrame(rows, columns=["measure", "value", "kind"])


def sorted_order(scored: ScoredCorpus, sort: str) -> np.ndarray:
    """Segment indices in the order `sort` names, over all segments (stable: ties by segment #)."""
    if sort == "bleu-asc":
        return np.argsort(scored.sentence_bleu, kind="stable")
    if sort == "bleu-desc":
        return np.argsort(-scored.sentence_bleu, kind="stable")
    if sort == "hyp-desc":
        return np.argsort(-scored.stats[:, 0], kind="stable")
    if sort == "ratio-asc":
        ratio = scored.stats[:, 0] / np.maximum(scored.stats[:, 1], 1)
        return np.argsort(ratio, kind="stable")
    if sort == "segment":
        return np.arange(len(scored))
    raise ValueError(f"unknown sort {sort!r}; pick one of {[value for _, value in SORT_CHOICES]}")


def cut(text: str) -> str:
    """A cell of the table: at most MAX_CELL_CHARS, in text the browser can be sent (`store.utf8_text`)."""
    text = utf8_text(text)
    return text if len(text) <= MAX_CELL_CHARS else text[:MAX_CELL_CHARS] + f"… (+{len(text) - MAX_CELL_CHARS:,} chars)"


def page_count(scored: ScoredCorpus) -> int:
    return max(1, -(-len(scored) // PAGE_ROWS))


def segments_page(scored: ScoredCorpus, page: Any = 1, sort: str = "segment") -> Tuple[pd.DataFrame, str]:
    """One page of the per-segment table (every reference in its own column) and its caption."""
    count = len(scored)
    pages = page_count(scored)
    try:
        number = min(max(1, int(page)), pages)
    except (TypeError, ValueError):
        number = 1
    indices = sorted_order(scored, sort)[(number - 1) * PAGE_ROWS : number * PAGE_ROWS]
    rows = scored.texts.rows(indices)
    most_refs = max((len(row) - 1 for row in rows), default=1)
    frame = pd.DataFrame(
        {
            "#": indices + 1,
            "sentence BLEU": [f"{value:.4f}" for value in scored.sentence_bleu[indices]],
            "hyp len": scored.stats[indices, 0],
            "ref len": scored.stats[indices, 1],
            "prediction": [cut(row[0]) for row in rows],
            **{f"reference {k}": [cut(row[k]) if k < len(row) else "" for row in rows] for k in range(1, most_refs + 1)},
        }
    )
    first = (number - 1) * PAGE_ROWS + 1
    shown = f"Segment {first:,}" if len(indices) == 1 else f"Segments {first:,}–{first + len(indices) - 1:,}"
    caption = (
        f"{shown} of **{count:,}** (page {number:,} of {pages:,}), "
        f"sorted by {dict((v, k) for k, v in SORT_CHOICES)[sort]}."
    )
    return frame, caption

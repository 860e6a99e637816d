"""One scored corpus, through `bleu_core` only, and the frames the page draws from it.

Per-segment scores are sentence BLEU with sacreBLEU's sentence-level settings (`sentence_bleu`:
order 4, exp smoothing, effective order, closest reference length), on the corpus options' tokens
(same tokenizer and casing). They do not follow the corpus options' order, weights or smoothing:
unsmoothed order-4 BLEU of one sentence is 0 for most sentences and says nothing.
The per-segment table is paged and sorted here, on the server, so the browser only ever holds one
page whatever the corpus size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np
import pandas as pd

from bleu_core import bleu_rows, result_from_statistics, segment_statistics, statistics_of_inputs
from bleu_options import BleuOptions, resolve_options

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


@dataclass
class ScoredCorpus:
    """A scored corpus, kept in the session between clicks (paging, explain mode)."""

    predictions: List[str]
    references: List[List[str]]
    options: BleuOptions
    stats: np.ndarray
    result: Dict[str, Any]  # the metric's result, as evaluate returns it
    sentence_bleu: np.ndarray  # per segment, with sentence_options(options)

    def release(self) -> None:
        """Drop the texts and arrays (Gradio calls this when the session's state expires)."""
        self.predictions, self.references = [], []
        self.stats = self.stats[:0]
        self.sentence_bleu = self.sentence_bleu[:0]


def score_corpus(
    predictions: Sequence[str],
    references: Sequence[Sequence[str]],
    kwargs: Dict[str, Any],
    bootstrap_samples: int = 0,
    bootstrap_seed: int | None = None,
) -> ScoredCorpus:
    """Score through the core: the same statistics and result the metric module returns."""
    preds, refs = list(predictions), [list(r) for r in references]
    stats, num_refs, options = statistics_of_inputs(preds, refs, resolve_options(**kwargs), kind="text")
    extra = {} if not bootstrap_samples else {"bootstrap_samples": bootstrap_samples, "bootstrap_seed": bootstrap_seed}
    result = result_from_statistics(stats, options, num_refs, **extra)
    sentence = sentence_options(options)
    same_rows = options.orders == sentence.orders and options.ref_length == sentence.ref_length
    sentence_stats = stats if same_rows else segment_statistics(preds, refs, sentence)
    return ScoredCorpus(preds, refs, options, stats, result, bleu_rows(sentence_stats, sentence))


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
    count = len(scored.predictions)
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
        return np.arange(count)
    raise ValueError(f"unknown sort {sort!r}; pick one of {[value for _, value in SORT_CHOICES]}")


def _cut(text: str) -> str:
    return text if len(text) <= MAX_CELL_CHARS else text[:MAX_CELL_CHARS] + f"… (+{len(text) - MAX_CELL_CHARS:,} chars)"


def page_count(scored: ScoredCorpus) -> int:
    return max(1, -(-len(scored.predictions) // PAGE_ROWS))


def segments_page(scored: ScoredCorpus, page: Any = 1, sort: str = "segment") -> Tuple[pd.DataFrame, str]:
    """One page of the per-segment table (every reference in its own column) and its caption."""
    count = len(scored.predictions)
    pages = page_count(scored)
    try:
        number = min(max(1, int(page)), pages)
    except (TypeError, ValueError):
        number = 1
    indices = sorted_order(scored, sort)[(number - 1) * PAGE_ROWS : number * PAGE_ROWS]
    most_refs = max((len(scored.references[i]) for i in indices), default=1)
    frame = pd.DataFrame(
        {
            "#": indices + 1,
            "sentence BLEU": [f"{value:.4f}" for value in scored.sentence_bleu[indices]],
            "hyp len": scored.stats[indices, 0],
            "ref len": scored.stats[indices, 1],
            "prediction": [_cut(scored.predictions[i]) for i in indices],
            **{
                f"reference {k}": [_cut(scored.references[i][k - 1]) if k <= len(scored.references[i]) else ""
                                   for i in indices]
                for k in range(1, most_refs + 1)
            },
        }
    )
    first = (number - 1) * PAGE_ROWS + 1
    caption = (
        f"Segments {first:,}–{first + len(indices) - 1:,} of **{count:,}** (page {number:,} of {pages:,}), "
        f"sorted by {dict((v, k) for k, v in SORT_CHOICES)[sort]}."
    )
    return frame, caption

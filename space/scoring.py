"""One scored corpus, through `bleu_core` only, and the frames the page draws from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Sequence

import numpy as np
import pandas as pd

from bleu_core import result_from_statistics, statistics_of_inputs
from bleu_options import BleuOptions, resolve_options

# Rows of the per-segment table sent to the browser: enough for any test set, bounded for huge ones.
MAX_TABLE_ROWS = 20000


@dataclass
class ScoredCorpus:
    """A scored corpus, kept between clicks so explain mode can reuse its statistics."""

    predictions: List[str]
    references: List[List[str]]
    options: BleuOptions
    stats: np.ndarray
    result: Dict[str, Any]  # the metric's result, with sentence_bleu


def score_corpus(predictions: Sequence[str], references: Sequence[Sequence[str]], kwargs: Dict[str, Any]) -> ScoredCorpus:
    """Score through the core: the same statistics and result the metric module returns."""
    preds, refs = list(predictions), [list(r) for r in references]
    stats, num_refs, options = statistics_of_inputs(preds, refs, resolve_options(**kwargs), kind="text")
    result = result_from_statistics(stats, options, num_refs, return_sentence_scores=True)
    return ScoredCorpus(preds, refs, options, stats, result)


def metric_result(scored: ScoredCorpus) -> Dict[str, Any]:
    """What `evaluate.load(...).compute(...)` returns for these inputs (no per-segment list)."""
    return {key: value for key, value in scored.result.items() if key != "sentence_bleu"}


def precision_frame(scored: ScoredCorpus) -> pd.DataFrame:
    """Bars for the chart: one per n-gram precision, one for the brevity penalty."""
    result = scored.result
    rows = [(f"{n}-gram precision", p, "precision") for n, p in enumerate(result["precisions"], start=1)]
    rows.append(("brevity penalty", result["brevity_penalty"], "brevity penalty"))
    return pd.DataFrame(rows, columns=["measure", "value", "kind"])


def segments_frame(scored: ScoredCorpus) -> pd.DataFrame:
    """The per-segment table: sentence BLEU, lengths and text, sortable in the page."""
    count = min(len(scored.predictions), MAX_TABLE_ROWS)
    stats = scored.stats[:count]
    return pd.DataFrame(
        {
            "#": np.arange(1, count + 1),
            "BLEU": np.round(scored.result["sentence_bleu"][:count], 4),
            "hyp len": stats[:, 0],
            "ref len": stats[:, 1],
            "prediction": scored.predictions[:count],
            "reference 1": [group[0] for group in scored.references[:count]],
        }
    )

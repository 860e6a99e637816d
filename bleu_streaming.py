"""BLEU's additive statistics as a public API: compute them anywhere, add them up, score the sum.

BLEU is not an average of per-batch scores, but its sufficient statistics are integers that add
up exactly (see `bleu_stats`): one int64 row per segment,

    [hypothesis length, effective reference length, matches of order 1..K, n-grams of order 1..K]

So a corpus can be split any way (batches of an evaluation loop, processes, dataset shards), each
part reduced to a row sum, and the sums added by whatever engine is at hand (`torch.distributed`
all-reduce, `datasets.Dataset.map`, a plain `+=`). `score_from_statistics` of the total equals
the one-shot score exactly. Use the same options when computing and when scoring.

    totals = statistics(predictions, references)            # 1-D int64 row (the sum)
    rows = statistics(predictions, references, per_segment=True)   # one row per segment
    result = score_from_statistics(totals)                  # the metric's result dict
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

try:  # inside the package `evaluate.load` builds
    from .bleu_core import result_from_statistics, statistics_of_inputs
    from .bleu_inputs import TEXT, as_list, detect_input_kind
    from .bleu_options import BleuOptions, resolve_options
    from .bleu_stats import stat_width
    from .bleu_token_ids import split_token_id_options, token_id_rule
except ImportError:  # imported from the repository root (CLI, demo, tests)
    from bleu_core import result_from_statistics, statistics_of_inputs
    from bleu_inputs import TEXT, as_list, detect_input_kind
    from bleu_options import BleuOptions, resolve_options
    from bleu_stats import stat_width
    from bleu_token_ids import split_token_id_options, token_id_rule


def statistics(predictions: Any, references: Any, per_segment: bool = False, **options: Any) -> np.ndarray:
    """BLEU statistics of predictions against references (text or token ids).

    Returns the column sums, a 1-D int64 array of `2 + 2 * K` entries, or with `per_segment=True`
    a `(len(predictions), 2 + 2 * K)` array with one row per prediction. The options are the
    metric's (tokenizer, lowercase, max_order, smooth, ref_length, ...), and for token ids
    `ignore_ids` (alias `pad_id`): ids dropped besides the negative ones (see `bleu_token_ids`).
    """
    rule_options, options = split_token_id_options(options)
    rows, _, _ = statistics_of_inputs(predictions, references, resolve_options(**options), rule=token_id_rule(**rule_options))
    return rows if per_segment else rows.sum(axis=0)


def check_statistics(totals: Any, options: BleuOptions) -> np.ndarray:
    """The statistics as a 2-D int64 array, or an error that says what shape the options need."""
    array = np.asarray(totals.cpu() if hasattr(totals, "cpu") else totals)
    width = stat_width(options.orders)
    if array.ndim not in (1, 2) or array.shape[-1] != width:
        raise ValueError(
            f"statistics have shape {array.shape}, but these options (max_order={options.max_order}, "
            f"smooth={options.smooth!r}) need rows of {width} integers; compute them with "
            "statistics(...) and the same options you score with"
        )
    if not np.issubdtype(array.dtype, np.integer):
        if not np.array_equal(array, np.round(array)):
            raise ValueError("statistics must be integer counts; pass what statistics(...) returned")
        array = array.astype(np.int64)
    if (array < 0).any():
        raise ValueError("statistics must be non-negative counts; pass what statistics(...) returned")
    return array.astype(np.int64, copy=False).reshape(-1, width)


def score_from_statistics(totals: Any, num_refs: Sequence[int] | int | None = None, **options: Any) -> Dict[str, Any]:
    """The metric's result dict (bleu in 0..1, precisions, brevity penalty, lengths, signature)
    from statistics: a summed row, or per-segment rows (summed here).

    `num_refs` (references per segment, an int or one count per segment) only enters the
    signature; statistics alone do not record it, so without it the signature says `nrefs:?`.
    """
    resolved = resolve_options(**options)
    return result_from_statistics(check_statistics(totals, resolved), resolved, num_refs)


class BleuAccumulator:
    """Running BLEU statistics in constant memory: add batches, read the corpus score at any time.

    `add` keeps only the summed row (and the range of reference counts for the signature), so an
    evaluation set of any size costs the same memory; `result()` equals one-shot scoring of all
    batches together exactly.
    """

    def __init__(self, **options: Any) -> None:
        rule_options, options = split_token_id_options(options)
        self.rule = token_id_rule(**rule_options)  # for token ids; see bleu_token_ids
        self._requested_options = resolve_options(**options)
        self.reset()

    def reset(self) -> None:
        """Forget everything added so far (the kind of input too)."""
        self.options = self._requested_options
        self.totals = np.zeros(stat_width(self.options.orders), dtype=np.int64)
        self.segments = 0
        self.kind: Optional[str] = None
        self._refs_range: Optional[Tuple[int, int]] = None
        self._refs_unknown = False

    def add(self, predictions: Any, references: Any) -> None:
        """Add a batch of predictions and references (text or token ids).

        The first batch fixes the kind: text and token ids count different tokens, so a later
        batch of the other kind is an error, not a silent mix of statistics.
        """
        predictions = as_list(predictions, "predictions")
        kind = detect_input_kind(predictions)
        if self.kind is not None and kind != self.kind:
            held, given = (("text", "token ids") if self.kind == TEXT else ("token ids", "text"))
            raise ValueError(
                f"this accumulator holds statistics of {held}, but this batch is {given}; the two count "
                f"different tokens and cannot be summed. Pass {held} here, or use a second accumulator "
                "(or reset() this one) for the other kind"
            )
        rows, counts, self.options = statistics_of_inputs(predictions, references, self.options, kind, self.rule)
        self.kind = kind
        self.totals += rows.sum(axis=0)
        self._note_refs(min(counts), max(counts))
        self.segments += len(rows)

    def add_statistics(self, totals: Any, num_refs: Optional[int] = None, segments: int = 0) -> None:
        """Add statistics computed elsewhere (another accumulator, process or shard).

        `num_refs` (references per segment there) only enters the signature; None: unknown (`nrefs:?`).
        """
        self.totals += check_statistics(totals, self.options).sum(axis=0)
        if num_refs is None:
            self._refs_unknown = True
        else:
            self._note_refs(num_refs, num_refs)
        self.segments += segments

    def _note_refs(self, low: int, high: int) -> None:
        if self._refs_range is None:
            self._refs_range = (low, high)
        else:
            self._refs_range = (min(self._refs_range[0], low), max(self._refs_range[1], high))

    @property
    def num_refs(self) -> Optional[Sequence[int]]:
        """The range of references per segment seen, or None when some statistics did not say."""
        if self._refs_unknown or self._refs_range is None:
            return None
        return list(self._refs_range)

    def result(self) -> Dict[str, Any]:
        """The metric's result dict for everything added so far."""
        return result_from_statistics(self.totals[None, :], self.options, self.num_refs)

"""BLEU's additive statistics as a public API: compute them anywhere, add them up, score the sum.

BLEU is not an average of per-batch scores, but its sufficient statistics are integers that add
up exactly (see `bleukit.counting.stats`): one int64 row per segment,

    [hypothesis length, effective reference length, matches of order 1..K, n-grams of order 1..K]

So a corpus can be split any way (batches of an evaluation loop, processes, dataset shards), each
part reduced to a row sum, and the sums added by whatever engine is at hand (`torch.distributed`
all-reduce, `datasets.Dataset.map`, a plain `+=`). `score_from_statistics` of the total equals
the one-shot score exactly. Use the same options when computing and when scoring.

    totals = statistics(predictions, references)            # 1-D int64 row (the sum)
    rows = statistics(predictions, references, per_segment=True)   # one row per segment
    result = score_from_statistics(totals)                  # the metric's result dict

Statistics of token ids say so, in the numbers themselves: their rows carry three more columns,
per segment 1, r and r * r (r: its references; see PROVENANCE). These add up like the others, so
any sum of such rows (a batch, a shard, an all-reduce, a sum a user makes) still says that it
counts token ids (the signature says `tok:ids`), over how many segments, and whether every segment
had the same number of references (`nrefs:r`) or not (`nrefs:var`). A text row has 2 + 2K columns
(an even number) and a token-id row 2 + 2K + 3 (odd), so the width alone tells them apart, and
adding a text row to a token-id row fails on the shapes instead of mixing the two.
"""

from __future__ import annotations

import numbers
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from bleukit.core import options_for_token_ids, result_from_statistics, statistics_of_inputs
from bleukit.inputs import TEXT, TOKEN_IDS, as_list, detect_input_kind
from bleukit.options import BleuOptions, resolve_by_kind, resolve_options
from bleukit.counting.parallel import AUTO, check_num_workers
from bleukit.counting.stats import stat_width
from bleukit.token_ids import split_token_id_options, token_id_rule
from bleukit.tokenizers.registry import TokenIds

# The columns a token-id statistics row carries after the 2 + 2K of every row: per segment 1, r
# and r * r, where r is its number of references.
PROVENANCE = ("segments", "references", "squared references")
NumRefs = Union[int, str, Sequence[int], None]  # a count, "var", one count per segment, or unknown


def with_provenance(rows: np.ndarray, num_refs: Sequence[int]) -> np.ndarray:
    """Token-id statistics rows with the three provenance columns appended (see PROVENANCE)."""
    refs = np.asarray(num_refs, dtype=np.int64)
    return np.concatenate([rows, np.stack([np.ones_like(refs), refs, refs * refs], axis=1)], axis=1)


def references_recorded(provenance: Sequence[int]) -> Union[int, str, None]:
    """References per segment as summed provenance columns record them: r when every segment had
    r (then n * sum(r * r) == sum(r) ** 2, and only then), "var" when they differ, None for none."""
    segments, references, squares = (int(value) for value in provenance)
    if segments == 0:
        return None
    return references // segments if references * references == segments * squares else "var"


def statistics(
    predictions: Any, references: Any, per_segment: bool = False, num_workers: Any = AUTO,
    text_defaults: Optional[Dict[str, Any]] = None, **options: Any
) -> np.ndarray:
    """BLEU statistics of predictions against references (text or token ids).

    Returns the column sums, a 1-D int64 array of `2 + 2 * K` entries, or with `per_segment=True`
    a `(len(predictions), 2 + 2 * K)` array with one row per prediction; for token ids three more
    columns say so (see the module docstring). The options are the metric's (tokenizer, lowercase,
    max_order, smooth, ref_length, ...), and for token ids `ignore_ids` (alias `pad_id`): ids
    dropped besides the negative ones (see `bleukit.token_ids`). `num_workers`: processes, as for
    compute (see `bleukit.counting.parallel`); the rows are the same whatever it is. `text_defaults`:
    as for compute, load-time defaults that apply to text only.
    """
    rule_options, options = split_token_id_options(options)
    check_num_workers(num_workers)
    for_text, for_ids = resolve_by_kind(options, text_defaults)
    rows, num_refs, used = statistics_of_inputs(
        predictions, references, for_text, rule=token_id_rule(**rule_options), num_workers=num_workers,
        id_options=for_ids,
    )
    if isinstance(used.tokenizer, TokenIds):
        rows = with_provenance(rows, num_refs)
    return rows if per_segment else rows.sum(axis=0)


def check_statistics(totals: Any, options: BleuOptions) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """(the statistics as a 2-D int64 array of 2 + 2K columns, the summed provenance columns of
    token-id statistics or None for text), or an error that says what shape the options need."""
    array = np.asarray(totals.cpu() if hasattr(totals, "cpu") else totals)
    width = stat_width(options.orders)
    if array.ndim not in (1, 2) or array.shape[-1] not in (width, width + len(PROVENANCE)):
        raise ValueError(
            f"statistics have shape {array.shape}, but these options (max_order={options.max_order}, "
            f"smooth={options.smooth!r}) need rows of {width} integers ({width + len(PROVENANCE)} for "
            "token ids); compute them with statistics(...) and the same options you score with"
        )
    if not np.issubdtype(array.dtype, np.integer):
        if not np.array_equal(array, np.round(array)):
            raise ValueError("statistics must be integer counts; pass what statistics(...) returned")
        array = array.astype(np.int64)
    if (array < 0).any():
        raise ValueError("statistics must be non-negative counts; pass what statistics(...) returned")
    array = array.astype(np.int64, copy=False).reshape(-1, array.shape[-1])
    if array.shape[1] == width:
        return array, None
    provenance = array[:, width:].sum(axis=0)
    segments, references, squares = (int(value) for value in provenance)
    if references < segments or references * references > segments * squares:
        raise ValueError(
            f"the last {len(PROVENANCE)} columns of these token-id statistics ({provenance.tolist()}) "
            f"are not the {', '.join(PROVENANCE)} that statistics(...) writes; pass what it returned"
        )
    return array[:, :width], provenance


def _agreeing(num_refs: NumRefs, recorded: Union[int, str, None]) -> NumRefs:
    """`num_refs` as given, checked against what token-id statistics recorded (or that, if none given)."""
    if num_refs is None or recorded is None:
        return recorded if num_refs is None else num_refs
    if isinstance(num_refs, str):
        varies, count = num_refs == "var", None
    elif not hasattr(num_refs, "__len__"):
        varies, count = False, num_refs
    elif len(num_refs) == 0:
        return recorded
    else:
        varies, count = min(num_refs) != max(num_refs), min(num_refs)
    if varies != (recorded == "var") or (not varies and count != recorded):
        said = "a varying number of references" if recorded == "var" else f"{recorded} reference(s)"
        raise ValueError(
            f"num_refs={num_refs!r} contradicts these token-id statistics, which record {said} per "
            "segment; leave num_refs out (the statistics say it)"
        )
    return num_refs


def score_from_statistics(
    totals: Any, num_refs: NumRefs = None, text_defaults: Optional[Dict[str, Any]] = None, **options: Any
) -> Dict[str, Any]:
    """The metric's result dict (bleu in 0..1, precisions, brevity penalty, lengths, signature)
    from statistics: a summed row, or per-segment rows (summed here).

    `num_refs` (references per segment, an int or one count per segment) only enters the
    signature. Text statistics do not record it, so without it the signature says `nrefs:?`;
    token-id statistics do (and say `tok:ids`), and a `num_refs` that contradicts them is an error.
    The options are those the statistics were computed with (`ignore_ids` is accepted and checked,
    but the ids were dropped when counting). `text_defaults`: as for compute, load-time defaults that
    apply to text statistics only.
    """
    rule_options, options = split_token_id_options(options)
    token_id_rule(**rule_options)
    resolved, for_ids = resolve_by_kind(options, text_defaults)
    rows, provenance = check_statistics(totals, resolved)
    if provenance is not None:
        resolved = _options_for_id_statistics(for_ids, options)
        num_refs = _agreeing(num_refs, references_recorded(provenance))
    return result_from_statistics(rows, resolved, num_refs)


def _options_for_id_statistics(resolved: BleuOptions, options: Dict[str, Any]) -> BleuOptions:
    if "tokenizer" in options:
        raise ValueError(
            f"these statistics are of token ids (they carry the {len(PROVENANCE)} provenance columns), so "
            f"no tokenizer applies; leave tokenizer={options['tokenizer']!r} out"
        )
    return options_for_token_ids(resolved)


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
        self._refs_vary = False  # token-id statistics recorded a varying number of references

    def _check_kind(self, kind: str) -> None:
        if self.kind is not None and kind != self.kind:
            held, given = (("text", "token ids") if self.kind == TEXT else ("token ids", "text"))
            raise ValueError(
                f"this accumulator holds statistics of {held}, but this batch is {given}; the two count "
                f"different tokens and cannot be summed. Pass {held} here, or use a second accumulator "
                "(or reset() this one) for the other kind"
            )

    def add(self, predictions: Any, references: Any) -> None:
        """Add a batch of predictions and references (text or token ids).

        The first batch fixes the kind: text and token ids count different tokens, so a later
        batch of the other kind is an error, not a silent mix of statistics.
        """
        predictions = as_list(predictions, "predictions")
        kind = detect_input_kind(predictions)
        self._check_kind(kind)
        rows, counts, self.options = statistics_of_inputs(predictions, references, self.options, kind, self.rule)
        self.kind = kind
        self.totals += rows.sum(axis=0)
        self._note_refs(int(counts.min()), int(counts.max()))
        self.segments += len(rows)

    def add_statistics(self, totals: Any, num_refs: NumRefs = None, segments: int = 0) -> None:
        """Add statistics computed elsewhere (another accumulator, process or shard).

        `num_refs` (references per segment there) only enters the signature; None: unknown
        (`nrefs:?`) for text statistics, what they record for token-id statistics, which also fix
        this accumulator's kind (and count their segments).
        """
        rows, provenance = check_statistics(totals, self.options)
        if provenance is not None:
            self._check_kind(TOKEN_IDS)
            self.options, self.kind = options_for_token_ids(self.options), TOKEN_IDS
            num_refs = _agreeing(num_refs, references_recorded(provenance))
            segments = segments or int(provenance[0])
        self.totals += rows.sum(axis=0)
        if num_refs is None:
            self._refs_unknown = True
        elif num_refs == "var":
            self._refs_vary = True
        elif isinstance(num_refs, numbers.Integral):
            self._note_refs(int(num_refs), int(num_refs))
        elif len(num_refs):
            self._note_refs(min(num_refs), max(num_refs))
        self.segments += segments

    def _note_refs(self, low: int, high: int) -> None:
        if self._refs_range is None:
            self._refs_range = (low, high)
        else:
            self._refs_range = (min(self._refs_range[0], low), max(self._refs_range[1], high))

    @property
    def num_refs(self) -> NumRefs:
        """The range of references per segment seen; "var" when token-id statistics recorded only
        that it varies; None when some statistics did not say."""
        if self._refs_unknown or (self._refs_range is None and not self._refs_vary):
            return None
        if self._refs_vary:
            return "var"
        return list(self._refs_range)

    def result(self) -> Dict[str, Any]:
        """The metric's result dict for everything added so far."""
        return result_from_statistics(self.totals[None, :], self.options, self.num_refs)

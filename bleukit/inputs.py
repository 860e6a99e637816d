"""Checking what the user passed as predictions and references, before anything converts it.

`evaluate` casts inputs to its declared features, and the cast silently changes some malformed
inputs (a bare reference string beside lists of references becomes a list of characters). So the
metric checks the raw Python objects here first, and every interface shares these checks.

Two input kinds are accepted:
- text: predictions are strings; references are one string per prediction or a non-empty list of
  strings per prediction (the number may vary from one prediction to the next, and a None in a
  list pads a missing reference, as in sacreBLEU);
- token ids: predictions are lists of integers; references are one such list per prediction, or a
  non-empty list of them per prediction. Negative ids are padding (see `bleukit.token_ids`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, List, Tuple

import numpy as np

TEXT = "text"
TOKEN_IDS = "token_ids"


class SingleReferences(Sequence):
    """One reference per segment, read as groups of one (`refs[i] == (reference,)`) without a
    container per segment: every container that outlives the checks is walked by each collection
    of the oldest generation of Python's garbage collector, which made large inputs cost more per
    segment than small ones (bench/bench_gc.py). Slices are views of the same kind."""

    __slots__ = ("references",)

    def __init__(self, references: Sequence[Any]) -> None:
        self.references = references

    def __len__(self) -> int:
        return len(self.references)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return SingleReferences(self.references[index])
        return (self.references[index],)

    def __repr__(self) -> str:
        return f"SingleReferences({self.references!r:.80})"


def _is_datasets_column(value: Any) -> bool:
    # datasets >= 4 returns a lazy `Column` for ds["name"]; slicing it reads the column in one call.
    return type(value).__name__ == "Column" and type(value).__module__.startswith("datasets")


def as_list(value: Any, name: str) -> list:
    """Any non-string sequence as a list, converted once and in bulk where the container allows.

    Lists, tuples, NumPy arrays, torch tensors, pandas Series, Arrow arrays and ChunkedArrays,
    `datasets` Columns and other sequences pass; a generator is read once. A bare string (or
    bytes), a dict and an unordered set are mistakes, so they get an error that says what to pass.
    A list comes back as itself, never modified by anything here: a copy would touch every item
    twice (its reference count, when made and when freed), at 480,640 segments about 30 ms of
    cache misses in the process that holds the input.
    """
    if isinstance(value, list):  # the common case first: no per-item work
        return value
    if value is None:
        raise TypeError(f"{name} is missing; pass it as a list with one entry per segment")
    if isinstance(value, str):
        raise TypeError(f"{name} is a single string; pass a list of strings, e.g. {name}=[{value[:40]!r}]")
    if isinstance(value, bytes):  # the example decoded, so that it works when pasted
        example = value[:40].decode("utf-8", errors="replace")
        raise TypeError(
            f"{name} is a single bytes object; pass a list of strings (decode bytes first, as text.decode('utf-8')), "
            f"e.g. {name}=[{example!r}]"
        )
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Mapping):
        column = name if name in value else next((key for key in value if isinstance(key, str)), None)
        pick = f"batch[{column!r}]"
        if column is not None and isinstance(value[column], (str, bytes)):  # one example, not a batch
            pick = f"[{pick}]"
        raise TypeError(
            f"{name} is a {type(value).__name__}; pass a list with one entry per segment"
            + ("" if column is None else f" (from a dict: {name}={pick}, with batch the dict you passed)")
        )
    if _is_datasets_column(value):
        return as_list(value[:], name)
    if callable(getattr(value, "to_pylist", None)):  # pyarrow Array and ChunkedArray
        return value.to_pylist()
    if callable(getattr(value, "tolist", None)):  # torch tensors, pandas Series
        return value.tolist()
    if isinstance(value, AbstractSet):
        raise TypeError(f"{name} is a {type(value).__name__}, which has no order; pass a list, one entry per segment")
    if isinstance(value, Iterable):  # other sequences, generators, map objects: read once
        return list(value)
    raise TypeError(f"{name} must be a list (or another sequence), not {type(value).__name__}")


def is_tensor(value: Any) -> bool:
    """A torch tensor, told by its methods so that torch is never imported to ask."""
    return hasattr(value, "detach") and hasattr(value, "cpu")


def _as_array_if_tensor(value: Any) -> Any:
    # A torch tensor (what a training loop has in hand) becomes a NumPy array.
    return value.detach().cpu().numpy() if is_tensor(value) else value


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple, np.ndarray)) or is_tensor(value)


def _is_id_sequence(value: Any) -> bool:
    value = _as_array_if_tensor(value)
    return isinstance(value, (list, tuple, np.ndarray)) and (
        len(value) == 0 or _is_int(value[0])
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def detect_input_kind(predictions: Any) -> str:
    """`token_ids` when the first prediction is a sequence of integers, else `text`."""
    items = as_list(predictions, "predictions")
    if items and not isinstance(items[0], str) and _is_id_sequence(items[0]):
        return TOKEN_IDS
    return TEXT


def _looks_like_streams(preds: list, refs: Sequence[Any]) -> bool:
    """References in sacreBLEU's layout: lists of reference strings (or None), each as long as the
    predictions, one list per reference stream instead of one per prediction."""
    return bool(refs) and all(
        isinstance(stream, (list, tuple)) and len(stream) == len(preds)
        and all(item is None or isinstance(item, str) for item in stream)
        for stream in refs
    )


def _check_counts(preds: list, refs: Sequence[Any], as_given: bool = True) -> None:
    """At least one prediction, and one reference entry (a string or a list) per prediction.
    `as_given`: `refs` are the user's (not yet grouped), so they may be sacreBLEU's streams."""
    if not preds:
        raise ValueError("predictions is empty; pass at least one prediction")
    if len(preds) != len(refs):
        if as_given and _looks_like_streams(preds, refs):
            raise ValueError(
                f"references looks transposed: it holds {len(refs)} lists of {len(preds)} references, sacreBLEU's "
                "layout (one list per reference stream), but this metric takes one entry per prediction (a string, "
                "or a list of that prediction's references). Pass "
                "references=[list(group) for group in zip(*references)]; a None pads a missing reference"
            )
        raise ValueError(
            f"got {len(preds)} predictions but {len(refs)} references; pass one reference "
            "(or one list of references) per prediction"
        )


def validate_inputs(predictions: Any, references: Any, kind: str | None = None) -> Tuple[list, List[Sequence], str]:
    """Return (predictions, references as one group per prediction, kind) or raise with a clear
    message. A group is the caller's own list (or tuple) of references, or a new tuple; token-id
    sequences are the caller's own lists or tuples (see `_check_ids` for why nothing is copied)."""
    preds, refs, layout = input_layout(predictions, references, kind)
    if layout.kind == TEXT:
        return _validate_text(preds, refs) + (TEXT,)
    return _validate_ids(preds, refs) + (TOKEN_IDS,)


class ItemCheckFailed(Exception):
    """A chunk's item checks failed (see `InputLayout.check_chunk`): the caller runs
    `validate_inputs` on the whole input, which names the first item at fault."""


@dataclass(frozen=True)
class InputLayout:
    """What `validate_inputs` decides from the first items (the kind, whether references come one
    per prediction), with the per-item checks left for later, a chunk at a time.

    Checking an item reads the object, and the items of a large input lie all over memory: at
    480,640 segments the type checks of predictions and references alone took about 0.12 s, all
    in the process that holds the input, before any worker could start. A chunk's checks instead
    run in the worker that counts it, on the items it reads anyway (`bleukit.core`).
    """

    kind: str
    single: bool  # one reference per prediction (a string, or one id list), read as groups of one

    def check_chunk(self, predictions: list, references: list) -> Tuple[list, Sequence[Sequence[Any]]]:
        """The chunk checked as `validate_inputs` checks it, or ItemCheckFailed (whose message is
        not the user's: `validate_inputs` on the whole input gives that one)."""
        try:
            preds, refs, _ = validate_inputs(predictions, references, self.kind)
        except (TypeError, ValueError) as error:
            raise ItemCheckFailed(str(error)) from None
        if isinstance(refs, SingleReferences) != self.single:  # a chunk that starts with another shape
            raise ItemCheckFailed("references mix shapes")
        return preds, refs


def input_layout(predictions: Any, references: Any, kind: str | None = None) -> Tuple[list, list, InputLayout]:
    """(predictions, references, their layout): the checks of `validate_inputs` that need no walk
    over the items (containers, counts, the kind, the references' shape from the first one)."""
    preds = as_list(predictions, "predictions")
    refs = as_list(references, "references")
    _check_counts(preds, refs)
    kind = kind or detect_input_kind(preds)
    single = isinstance(refs[0], str) if kind == TEXT else _one_id_reference_each(refs[0])
    return preds, refs, InputLayout(kind, single)


def _one_id_reference_each(first: Any) -> bool:
    """Whether token-id references come one id list per prediction, told by the first entry."""
    return _is_id_sequence(first) and not (isinstance(first, (list, tuple)) and first and _is_sequence(first[0]))


def validate_predictions(predictions: Any, references: Sequence[Sequence[Any]], kind: str) -> list:
    """Predictions checked against references that `validate_inputs` already checked (and grouped):
    the same checks and messages, without checking the references again (several systems, one
    set of references)."""
    preds = as_list(predictions, "predictions")
    _check_counts(preds, references, as_given=False)
    if kind == TEXT:
        _check_text_predictions(preds)
        return preds
    return [_check_ids(p, f"predictions[{i}]") for i, p in enumerate(preds)]


def _check_text_predictions(preds: list) -> None:
    if all(type(prediction) is str for prediction in preds):
        return
    for index, prediction in enumerate(preds):
        if not isinstance(prediction, str):
            raise TypeError(
                f"predictions[{index}] is {type(prediction).__name__} {prediction!r:.60}; every "
                "prediction must be a string (use '' for an empty output)"
            )


def _validate_text(preds: list, refs: list) -> Tuple[List[str], List[Sequence[str]]]:
    _check_text_predictions(preds)
    if isinstance(refs[0], str):
        if not all(type(reference) is str for reference in refs):
            for index, reference in enumerate(refs):
                if not isinstance(reference, str):
                    raise ValueError(
                        f"references mixes shapes: references[0] is a string but references[{index}] is "
                        f"{type(reference).__name__}; pass either one string per prediction or a list "
                        "of strings for every prediction"
                    )
        return preds, SingleReferences(refs)
    grouped: List[Sequence[str]] = []
    for index, reference in enumerate(refs):
        if isinstance(reference, str):
            raise ValueError(
                f"references mixes shapes: references[{index}] is a bare string but references[0] is "
                f"a list; wrap it as [{reference[:40]!r}] so every prediction has a list of references"
            )
        if reference is None or not isinstance(reference, (list, tuple, np.ndarray)):
            raise TypeError(
                f"references[{index}] is {type(reference).__name__}; pass a string or a list of strings"
            )
        if isinstance(reference, np.ndarray):
            reference = tuple(reference.tolist())
        if not len(reference):
            raise ValueError(
                f"prediction {index} has no references (references[{index}] is empty); pass at "
                "least one reference string for every prediction"
            )
        for position, item in enumerate(reference):
            if item is not None and not isinstance(item, str):
                raise TypeError(
                    f"references[{index}][{position}] is {type(item).__name__} {item!r:.60}; every "
                    "reference must be a string (or None, which pads a missing one)"
                )
        if None in reference:  # padding for fewer references here (sacreBLEU's variable references)
            reference = tuple(item for item in reference if item is not None)  # untracked by the collector
            if not reference:
                raise ValueError(
                    f"prediction {index} has no references (references[{index}] holds only None); pass at "
                    "least one reference string for every prediction"
                )
        grouped.append(reference)
    return preds, grouped


def _check_ids(sequence: Any, where: str) -> Sequence[int]:
    """The ids of one sequence (the caller's own list or tuple when it holds ints, else a tuple),
    checked in bulk; the slow per-token walk runs only to name an error. Negative ids pass: they
    are padding, dropped before counting (see `bleukit.token_ids`).

    Nothing here builds a list per sequence that outlives the check (see `SingleReferences`); the
    tuples it may build hold ints, which the collector untracks at its first look."""
    sequence = _as_array_if_tensor(sequence)
    if isinstance(sequence, str) or not isinstance(sequence, (list, tuple, np.ndarray)):
        raise TypeError(f"{where} is {type(sequence).__name__}; with token ids, pass a list of integers")
    if isinstance(sequence, np.ndarray):
        if sequence.dtype.kind in "iu" and sequence.ndim == 1:
            return tuple(sequence.tolist())
        values = sequence.tolist()
    else:
        if set(map(type, sequence)) <= {int}:
            return sequence
        values = sequence
    for position, token in enumerate(values):
        if not _is_int(token):
            raise TypeError(f"{where}[{position}] is {token!r}; token ids must be integers")
    return tuple(int(t) for t in values)


def _validate_ids(preds: list, refs: list) -> Tuple[List[Sequence[int]], List[Sequence[Sequence[int]]]]:
    checked_preds = [_check_ids(p, f"predictions[{i}]") for i, p in enumerate(preds)]
    if _one_id_reference_each(refs[0]):
        return checked_preds, SingleReferences([_check_ids(r, f"references[{index}]") for index, r in enumerate(refs)])
    grouped: List[Sequence[Sequence[int]]] = []
    for index, reference in enumerate(refs):
        if index == 0 and not isinstance(reference, (list, tuple, np.ndarray)):
            raise TypeError(
                f"references[0] is {type(reference).__name__} ({reference!r:.40}), but the predictions are token "
                "ids; pass a list of integers per prediction (its one reference) or a list of such lists "
                "(several), or text for both"
            )
        if not isinstance(reference, (list, tuple, np.ndarray)) or (
            len(reference) and _is_int(reference[0])
        ):
            raise ValueError(
                f"references mixes shapes: references[0] is a list of id lists but references[{index}] "
                "is not; pass one list of id lists for every prediction"
            )
        if len(reference) == 0:
            raise ValueError(
                f"prediction {index} has no references (references[{index}] is empty); pass at "
                "least one reference for every prediction"
            )
        checked = [_check_ids(r, f"references[{index}][{j}]") for j, r in enumerate(reference)]
        same = isinstance(reference, (list, tuple)) and all(mine is theirs for mine, theirs in zip(checked, reference))
        grouped.append(reference if same else tuple(checked))  # the caller's own group when nothing changed
    return checked_preds, grouped


def reference_counts(references: Sequence[Sequence[Any]]) -> np.ndarray:
    """References per segment (int64) of checked references."""
    if isinstance(references, SingleReferences):
        return np.ones(len(references), dtype=np.int64)
    return np.fromiter(map(len, references), dtype=np.int64, count=len(references))

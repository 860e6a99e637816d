"""What a Trainer hands to `compute_metrics`, turned into what BLEU scores: 2-D integer ids, or text.

Three small pieces, each for one thing hand-written hooks get wrong:
- `eval_prediction_ids`: an `EvalPrediction` (or a pair) to (predictions, labels) as 2-D integer
  ids, the first item of a tuple (models that return more than logits), torch tensors kept on their
  device or turned into NumPy arrays;
- `LogitsArgmax`: logits (`predict_with_generate=False`) to their argmax, positions the Trainer
  padded with -100 kept as padding, with one warning per hook;
- `decode_ids` and `clean_text`: ids to clean text, dropping the negative ids (-100) that make
  `batch_decode` raise and the special tokens, and collapsing whitespace runs.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, List, Tuple

import numpy as np

from bleukit.inputs import is_tensor

IGNORE_INDEX = -100  # transformers' padding value for labels and gathered predictions


def to_numpy(value: Any) -> np.ndarray:
    if is_tensor(value):  # torch tensors (batch_eval_metrics hands them over on device)
        value = value.detach().cpu().numpy()
    return np.asarray(value)


def first_if_tuple(value: Any) -> Any:
    # Models that return extra outputs (hidden states, past key values) arrive as a tuple.
    while isinstance(value, tuple):
        value = value[0]
    return value


def is_integer_array(array: Any) -> bool:
    if is_tensor(array):
        return not (array.is_floating_point() or array.is_complex() or str(array.dtype) == "torch.bool")
    return np.issubdtype(array.dtype, np.integer)


def is_floating_array(array: Any) -> bool:
    return array.is_floating_point() if is_tensor(array) else np.issubdtype(array.dtype, np.floating)


class LogitsArgmax:
    """Logits (batch, length, vocabulary) to ids (batch, length), warning once per instance that
    these are teacher-forced predictions, not generated text."""

    def __init__(self) -> None:
        self.warned = False

    def __call__(self, logits: Any, labels: Any) -> Any:
        if not self.warned:
            warnings.warn(
                "compute_metrics got logits, not generated ids: scoring their argmax (teacher-forced "
                "predictions). Set predict_with_generate=True for BLEU of generated text.",
                UserWarning,
                stacklevel=4,
            )
            self.warned = True
        ids = logits.argmax(-1)  # int64, as a NumPy array or a tensor on the logits' device
        ids[(logits == IGNORE_INDEX).all(-1)] = IGNORE_INDEX  # padding added across batches
        if tuple(labels.shape) == tuple(ids.shape):
            ids[labels == IGNORE_INDEX] = IGNORE_INDEX  # nothing to predict at padded label positions
        return ids


def eval_prediction_ids(
    eval_prediction: Any, keep_tensors: bool, logits_to_ids: Callable[[Any, Any], Any]
) -> Tuple[Any, Any]:
    """(predictions, labels) as 2-D integer ids from an `EvalPrediction` (or a pair): the first
    item of a tuple, `logits_to_ids` of logits. Torch tensors stay tensors on their device when
    `keep_tensors` (and both are tensors), and become NumPy arrays otherwise."""
    if isinstance(eval_prediction, (tuple, list)) and len(eval_prediction) == 2:
        predictions, labels = eval_prediction
    else:
        predictions, labels = eval_prediction.predictions, eval_prediction.label_ids
    if labels is None:
        raise ValueError("the evaluation batch has no labels; BLEU needs references (label_ids)")
    labels, predictions = first_if_tuple(labels), first_if_tuple(predictions)
    if not (keep_tensors and is_tensor(predictions) and is_tensor(labels)):
        labels, predictions = to_numpy(labels), to_numpy(predictions)
    if predictions.ndim == 3 and is_floating_array(predictions):
        predictions = logits_to_ids(predictions, labels)
    for name, array in (("predictions", predictions), ("label_ids", labels)):
        if array.ndim != 2 or not is_integer_array(array):
            raise ValueError(
                f"{name} has shape {tuple(array.shape)} and dtype {array.dtype}; pass token ids of shape "
                "(batch, length), or logits of shape (batch, length, vocabulary)"
            )
    if len(predictions) != len(labels):
        raise ValueError(f"got {len(predictions)} predictions but {len(labels)} label rows")
    return predictions, labels


def clean_text(text: str) -> str:
    """Strip the ends and collapse whitespace runs (decoders leave stray spaces around specials)."""
    return " ".join(text.split())


def decode_ids(tokenizer: Any, ids: Any) -> List[str]:
    """Decode a 2-D array of ids, dropping negative ids (-100 padding) and special tokens."""
    ids = to_numpy(ids)
    rows = [row[row >= 0].tolist() for row in ids]
    return [clean_text(text) for text in tokenizer.batch_decode(rows, skip_special_tokens=True)]

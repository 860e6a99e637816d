"""The one rule for token ids: which ids are dropped before counting, and the keyword that says so.

The rule. Before n-grams are counted, every negative id and every id in `ignore_ids` is dropped,
from predictions and references alike, wherever it stands (left, right or inside a row); the gaps
close, so the ids on either side become neighbours, as `batch_decode(..., skip_special_tokens=True)`
makes them. Negative ids are always padding: transformers pads labels (and gathered predictions)
with -100, and no tokenizer makes a negative id. Nothing else is dropped. A prediction with nothing
left is empty; a reference with nothing left is an empty reference (length 0), except in a
(batch, references, length) tensor, where a row with nothing left is an absent reference (padding
cannot tell the two apart there) and a segment needs at least one present reference.

The keyword. Every entry point that takes token ids takes `ignore_ids=` (a collection of ints):
`compute`, `statistics` and `accumulator` on lists of ids, the Trainer hook with `token_ids=True`,
the TRL reward with `token_ids=True`, `bleukit.tensor.scores`, and the calls between many texts
(`pairwise`, `self_bleu`, `most_similar_pairs`, `mbr`: lists of ids and, for `mbr`, tensors). `pad_id=` (the older
name in `bleukit.tensor.scores`) is kept as an alias: `pad_id=0` means `ignore_ids=(0,)`, and both together
mean their union. The Trainer hook adds its tokenizer's special ids (`all_special_ids`: pad, bos,
eos, unk, the decoder start, language codes) to `ignore_ids`, as decoding skips them; the reward
and the others have no tokenizer, so pass `ignore_ids=tokenizer.all_special_ids` there.

Padded tensors must say what their padding is: `bleukit.tensor.scores`, `mbr` and the reward's tensor path
refuse to guess, and take `ignore_ids=()` when -100 (or another negative id) is the only padding.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Optional, Tuple

import numpy as np

# Every dropped id becomes this value in a padded tensor before counting (any negative id would do).
PADDING = -1
# The keyword names of the rule, as the entry points accept them.
TOKEN_ID_OPTION_NAMES = ("ignore_ids", "pad_id")


@dataclass(frozen=True)
class TokenIdRule:
    """The ids dropped before counting: every negative id, and `ignore_ids`."""

    ignore_ids: FrozenSet[int] = frozenset()

    def dropped_numpy(self, ids: np.ndarray) -> np.ndarray:
        """A boolean mask of the ids (a NumPy integer array) that the rule drops."""
        dropped = ids < 0
        if self.ignore_ids:
            dropped |= np.isin(ids, np.fromiter(self.ignore_ids, dtype=np.int64, count=len(self.ignore_ids)))
        return dropped

    def drop(self, flat: np.ndarray, lengths: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """Concatenated sequences (`flat`, and each one's length) without the dropped ids."""
        dropped = self.dropped_numpy(flat)
        if not dropped.any():
            return flat, lengths
        owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        return flat[~dropped], lengths - np.bincount(owner[dropped], minlength=len(lengths))

    def padded(self, ids: Any) -> Any:
        """A torch int64 tensor with every dropped id replaced by PADDING (on the tensor's device)."""
        import torch

        dropped = ids < 0
        if self.ignore_ids:
            listed = torch.tensor(sorted(self.ignore_ids), dtype=ids.dtype, device=ids.device)
            dropped |= torch.isin(ids, listed)
        return ids.masked_fill(dropped, PADDING)


DEFAULT_RULE = TokenIdRule()  # negative ids only


def _integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def check_ignore_ids(ignore_ids: Any) -> FrozenSet[int]:
    """`ignore_ids` as a frozenset of ints, or an error that says what to pass."""
    if hasattr(ignore_ids, "tolist") and not isinstance(ignore_ids, (str, bytes)):  # a NumPy array or a tensor
        ignore_ids = ignore_ids.tolist()
    if isinstance(ignore_ids, (str, bytes, numbers.Number)) or not hasattr(ignore_ids, "__iter__"):
        raise TypeError(
            f"ignore_ids must be a collection of integer token ids, e.g. (tokenizer.pad_token_id, "
            f"tokenizer.eos_token_id) or tokenizer.all_special_ids, not {ignore_ids!r}"
        )
    ids = list(ignore_ids)
    if not all(_integer(i) for i in ids):
        raise TypeError(f"ignore_ids must hold integer token ids, not {ids!r}")
    return frozenset(int(i) for i in ids)


def token_id_rule(
    ignore_ids: Any = None, pad_id: Any = None, *, required: Optional[str] = None
) -> Optional[TokenIdRule]:
    """The rule from the keywords (`pad_id` is an alias: its id joins `ignore_ids`).

    None when neither was given, unless `required` (what needs them, for the message): padded
    tensors must name their padding, so there it is an error.
    """
    if ignore_ids is None and pad_id is None:
        if required:
            raise TypeError(
                f"{required} needs to know which ids are padding: pass ignore_ids=(tokenizer.pad_token_id,) "
                "(or every id to leave out, e.g. tokenizer.all_special_ids), or ignore_ids=() when the "
                "only padding is a negative id such as -100 (negative ids are always dropped)"
            )
        return None
    ids = check_ignore_ids(() if ignore_ids is None else ignore_ids)
    if pad_id is not None:
        if not _integer(pad_id):
            raise TypeError(f"pad_id must be an integer (e.g. tokenizer.pad_token_id or -100), not {pad_id!r}")
        ids |= {int(pad_id)}
    return TokenIdRule(ids)


def split_token_id_options(options: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """(the rule's keywords, the other options) from one dict of keyword arguments."""
    rule = {name: value for name, value in options.items() if name in TOKEN_ID_OPTION_NAMES}
    return rule, {name: value for name, value in options.items() if name not in TOKEN_ID_OPTION_NAMES}


def refuse_for_text(rule: Optional[TokenIdRule], what: str = "the inputs are text") -> None:
    """ignore_ids names token ids; with text it would be silently meaningless, so it is an error."""
    if rule is not None and rule.ignore_ids:
        raise ValueError(
            f"ignore_ids={sorted(rule.ignore_ids)} applies to token ids, but {what}; leave ignore_ids "
            "(and pad_id) out for text, or pass token ids"
        )


def special_ids(tokenizer: Any) -> FrozenSet[int]:
    """The ids `batch_decode(..., skip_special_tokens=True)` skips: pad, bos, eos, unk, the
    decoder start and language codes (they are among `all_special_ids`)."""
    special = getattr(tokenizer, "all_special_ids", None)
    if special is None:
        special = getattr(getattr(tokenizer, "tokenizer", None), "all_special_ids", None)  # a processor
    if special is None:
        raise TypeError(
            f"token_ids=True drops the tokenizer's special ids, but {type(tokenizer).__name__} has no "
            "all_special_ids; pass the transformers tokenizer that encodes the labels"
        )
    return frozenset(int(i) for i in special)

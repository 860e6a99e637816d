"""The duplicate-row policy of the Trainer hook: which gathered rows are real examples.

Under several processes the eval sampler pads the last batch with the first examples again, so
that every process gets a full batch. `Trainer` gathers with `accelerator.gather_for_metrics`,
which drops those copies; `Seq2SeqTrainer.evaluate` and `.predict` gather with
`accelerator.gather`, which keeps them, so `compute_metrics` would count them twice. The eval
sampler is sequential, so the copies are the last rows: the rows past `eval_examples`, or, on the
last batch of a streaming evaluation (`batch_eval_metrics=True`), past accelerate's remainder of
the dataloader. With neither to go by under several processes, a warning says so, once.
"""

from __future__ import annotations

import sys
import warnings
from typing import Optional


def last_batch_remainder() -> Optional[int]:
    """accelerate's count of real examples in the gathered last batch, while that batch is being
    evaluated; None outside it (or without accelerate)."""
    state_module = sys.modules.get("accelerate.state")
    if state_module is None or not getattr(state_module.GradientState, "_shared_state", None):
        return None
    state = state_module.GradientState()
    return state.remainder if state.end_of_dataloader and state.remainder > 0 else None


def world_size() -> int:
    distributed = getattr(sys.modules.get("torch"), "distributed", None)
    if distributed is None or not distributed.is_available() or not distributed.is_initialized():
        return 1
    return distributed.get_world_size()


def check_eval_examples(eval_examples: Optional[int]) -> Optional[int]:
    if eval_examples is not None and (
        isinstance(eval_examples, bool) or not isinstance(eval_examples, int) or eval_examples < 1
    ):
        raise ValueError(f"eval_examples must be a positive int (len(eval_dataset)) or None, not {eval_examples!r}")
    return eval_examples


class GatheredRows:
    """Counts the rows of one evaluation and says how many leading rows of each call to keep."""

    def __init__(self, eval_examples: Optional[int] = None) -> None:
        self.eval_examples = check_eval_examples(eval_examples)
        self.seen = 0  # rows handed over in this evaluation, padding duplicates included
        self._warned = False

    def keep(self, rows: int, compute_result: bool) -> int:
        """How many leading rows of this call (of `rows`) are real examples; then counts them as
        seen, and starts over after the last call of an evaluation (`compute_result`)."""
        keep = rows
        if self.eval_examples is not None:
            keep = max(0, min(rows, self.eval_examples - self.seen))
        remainder = last_batch_remainder()
        if compute_result and remainder is not None and 0 < remainder < keep:
            keep = remainder  # the last batch of a streaming evaluation (batch_eval_metrics)
        elif compute_result and self.seen == 0 and self.eval_examples is None and world_size() > 1:
            self._warn()
        self.seen = 0 if compute_result else self.seen + rows
        return keep

    def reset(self) -> None:
        """Forget the rows of an evaluation that stopped before its last batch."""
        self.seen = 0

    def _warn(self) -> None:
        if not self._warned:
            warnings.warn(
                "compute_metrics runs under several processes: Seq2SeqTrainer's evaluation pads the last "
                "batch with copies of the first examples when the evaluation set does not divide evenly, "
                "and the score then counts them twice. Pass eval_examples=len(eval_dataset) to the hook, "
                "or set batch_eval_metrics=True, for the one-process score.",
                UserWarning,
                stacklevel=3,
            )
            self._warned = True

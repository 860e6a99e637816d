"""The duplicate-row policy of the Trainer hook: which gathered rows are real examples.

Under several processes the eval sampler pads the last batch with the first examples again, so
that every process gets a full batch. `Trainer` gathers with `accelerator.gather_for_metrics`,
which drops those copies; `Seq2SeqTrainer.evaluate` and `.predict` gather with
`accelerator.gather`, which keeps them, so `compute_metrics` would count them twice. The eval
sampler is sequential, so the copies are the last rows: the rows past `eval_examples`, or, on the
last batch of a streaming evaluation (`batch_eval_metrics=True`), past the length of the
dataloader being evaluated. With neither to go by under several processes, a warning says so, once.

Only evidence that belongs to the evaluation being scored drops a row. accelerate's
`GradientState` is one object per process and describes whatever dataloader was registered last:
a training stopped at `max_steps`, an `eval_strategy="epoch"` evaluation (the training loop leaves
its dataloader registered, at its last batch, while it evaluates), an interrupted evaluation in a
notebook all leave a dataloader there that says "end of dataloader, remainder 4". So:
- with one process there are no copies, and nothing is ever dropped;
- a dataloader's word counts only in a streaming evaluation, for the dataloader that was active,
  mid-way, at this evaluation's first batch, and is at its end now, and only when its length
  minus the rows already seen fits in this last batch (and agrees with its remainder).
"""

from __future__ import annotations

import sys
import warnings
import weakref
from typing import Any, Callable, Optional


def active_dataloader() -> Any:
    """The dataloader accelerate registered last in this process (None without accelerate, or when
    none is being iterated). It may belong to another loop: see the module docstring."""
    state_module = sys.modules.get("accelerate.state")
    if state_module is None or not getattr(state_module.GradientState, "_shared_state", None):
        return None
    return state_module.GradientState().active_dataloader


def dataset_length(loader: Any) -> Optional[int]:
    """The number of examples a dataloader serves over all processes, or None when it has none
    (an iterable dataset)."""
    for read in (lambda: loader.total_dataset_length, lambda: len(loader.dataset)):
        try:
            length = read()
        except Exception:  # noqa: BLE001 - no length is an answer here, not an error
            continue
        if isinstance(length, int) and not isinstance(length, bool) and length >= 0:
            return length
    return None


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
        # The dataloader that was active, and not at its end, at this evaluation's first batch.
        self._loader: Optional[Callable[[], Any]] = None
        self._warned = False

    def keep(self, rows: int, compute_result: bool) -> int:
        """How many leading rows of this call (of `rows`) are real examples; then counts them as
        seen, and starts over after the last call of an evaluation (`compute_result`)."""
        keep = rows
        if world_size() > 1:  # one process: every row is a real example
            if self.eval_examples is not None:
                keep = max(0, min(rows, self.eval_examples - self.seen))
            if compute_result:
                real = self.real_rows_of_last_batch(rows)
                if real is not None:
                    keep = min(keep, real)
                elif self.eval_examples is None:
                    self._warn()
        if compute_result:
            self.reset()
        else:
            if self.seen == 0:
                self._loader = self._loader_of_first_batch()
            self.seen += rows
        return keep

    def real_rows_of_last_batch(self, rows: int) -> Optional[int]:
        """The real examples among the `rows` of a streaming evaluation's last batch, from the
        dataloader being evaluated; None where there is no such evidence (see the module)."""
        loader = active_dataloader()
        if self._loader is None or loader is None or self._loader() is not loader:
            return None
        if getattr(loader, "end_of_dataloader", False) is not True:
            return None
        length = dataset_length(loader)
        if length is None or not 0 < length - self.seen <= rows:
            return None
        real = length - self.seen
        remainder = getattr(loader, "remainder", -1)
        if isinstance(remainder, int) and remainder > 0 and remainder != real:
            return None
        return real

    @staticmethod
    def _loader_of_first_batch() -> Optional[Callable[[], Any]]:
        loader = active_dataloader()
        if loader is None or getattr(loader, "end_of_dataloader", False) is not False:
            return None  # none, or one already at its end: another loop's, left behind
        try:
            return weakref.ref(loader)
        except TypeError:
            return None

    def reset(self) -> None:
        """Forget the rows of an evaluation (after its result, or when it stopped before its last batch)."""
        self.seen = 0
        self._loader = None

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

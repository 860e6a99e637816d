"""Sentence BLEU as a reward function for TRL's GRPOTrainer (and any trainer with its contract).

    reward = bleu.reward_function(reference_column="reference")
    trainer = GRPOTrainer(model=..., reward_funcs=reward, train_dataset=dataset_with_prompt_and_reference, ...)

TRL calls a reward function as `f(prompts=..., completions=..., completion_ids=..., <every other
dataset column>=..., trainer_state=..., log_extra=..., log_metric=...)` and wants one float per
completion; it logs the rewards under the function's `__name__` (`rewards/bleu/mean`). So:
- the references are read from the keyword argument named by `reference_column` (one string, or a
  list of strings, per completion); the other keyword arguments are ignored;
- a completion is plain text, or a conversation (a list of messages) whose last assistant message
  is scored;
- each completion gets its sentence BLEU, from its own statistics row scored by `bleukit.core`
  (no formula here), times `scale`;
- a completion that cannot be scored (a conversation with no assistant message, an empty list of
  references, a reference that is not text) gets None, TRL's convention for "no reward": TRL turns
  it into NaN and leaves it out of the group's baseline and of every logged mean (its advantage is
  0). One bad row never stops a training run; the first one is named in a warning, once per reward
  function. What is not one row (a missing reference column, a column that is one string, a
  length mismatch) is a set-up error and raises;
- when TRL hands over `log_metric`, the corpus BLEU of the batch's scored completions (their rows
  summed, not the mean of the sentence scores) is logged as `rewards/bleu/corpus_bleu`. What TRL
  makes of it (TRL 1.x, `GRPOTrainer._log_metric` and `log`): each process logs its own batch's
  value; after each generation batch TRL averages the values over the processes, and at each
  logging step it averages those over the generation batches since the last log. So the logged
  number is a mean of per-process, per-batch corpus BLEU, not the corpus BLEU of every completion
  of the step (BLEU does not average); with one process and one generation batch per logging step
  (`logging_steps=1`, no gradient accumulation) it is exactly the batch's corpus BLEU. A batch
  with no completion to score logs nothing.

Defaults for a reward differ from the metric's: sentence BLEU without smoothing is 0 for any
completion that misses one 4-gram, so most completions of a group would tie at 0 and GRPO would
have no advantage to learn from. The reward therefore defaults to sacreBLEU's `sentence_bleu`
settings, `smooth="exp"` and `effective_order=True` (a completion shorter than 4 tokens is scored
on the orders it has); every option can still be overridden.

The reward is a callable object, not a closure, so that it pickles: TRL's asynchronous GRPO
forwards reward functions to a spawned process, which cannot receive a closure.

With `token_ids=True` it scores `completion_ids` (TRL passes them beside the text) against
references of token ids instead: no text tokenizer runs, and the token-id rule (`bleukit.token_ids`)
drops every negative id and every id in `ignore_ids` (padding, end of sequence) from both sides
first. Lists of ids go through `bleukit.core`; padded torch tensors (completion ids (B, L) and a
reference column (B, L2) or (B, R, L2)) are counted on their device by `bleukit.tensor.scores`.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

from bleukit.core import encode_sequences, options_for_token_ids, result_from_statistics, statistics_of_inputs
from bleukit.inputs import TEXT, TOKEN_IDS, is_tensor, validate_inputs
from bleukit.options import OPTION_NAMES, BleuOptions, canonical_options, check_option_names, resolve_options
from bleukit.tensor.scores import check_inputs, count_rows, reference_counts, segments_without_reference
from bleukit.token_ids import TokenIdRule, refuse_for_text, token_id_rule
from bleukit.integrations.trainer import SCALES

# sacreBLEU's sentence_bleu settings: smoothed, and scored on the orders a short completion has.
REWARD_DEFAULTS: Dict[str, Any] = {"smooth": "exp", "effective_order": True}
# The reward's own settings, beside BLEU's options.
REWARD_SETTINGS = ("reference_column", "scale", "token_ids", "ignore_ids", "pad_id")
REWARD_NAME = "bleu"
# Keyword arguments TRL passes beside the dataset columns (TRL 1.x GRPOTrainer._calculate_rewards).
TRAINER_ARGUMENTS = frozenset({"trainer_state", "log_extra", "log_metric", "environments"})


class Scored(NamedTuple):
    """A batch's result (None when no row could be scored), the rows it scores, and why the others cannot be."""

    result: Optional[Dict[str, Any]]
    rows: List[int]
    problems: Dict[int, str]


def completion_text(completion: Any, index: int) -> str:
    """The text to score: the completion itself, or the content of a conversation's last assistant message."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, (list, tuple)):
        for message in reversed(completion):
            if isinstance(message, dict) and message.get("role") == "assistant":
                return _message_text(message.get("content"), index)
        roles = [message.get("role") if isinstance(message, dict) else type(message).__name__ for message in completion]
        raise ValueError(
            f"completions[{index}] is a conversation with no assistant message (roles {roles}); pass "
            "plain-text completions, or messages like [{'role': 'assistant', 'content': '...'}]"
        )
    raise TypeError(
        f"completions[{index}] is {type(completion).__name__}; pass a string, or a list of messages "
        "like [{'role': 'assistant', 'content': '...'}]"
    )


def _message_text(content: Any, index: int) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks, as multimodal processors write them
        texts = [block.get("text") for block in content if isinstance(block, dict) and block.get("type") == "text"]
        if all(isinstance(text, str) for text in texts):
            return " ".join(texts)
    raise TypeError(
        f"completions[{index}]'s assistant content is {type(content).__name__}; it must be a string or "
        "a list of {'type': 'text', 'text': '...'} blocks"
    )


class BleuReward:
    """The reward: `reward(completions=..., <reference_column>=..., **anything) -> list of float`.

    Built by `make_reward_function` (or the metric's `reward_function`), which checks every option,
    so a misspelt option fails when the trainer is set up, not at its first step.
    """

    # TRL logs rewards under the function's name (rewards/bleu/mean); set `reward.__name__` on the
    # instance to tell two BLEU rewards apart (e.g. on two reference columns).
    __name__ = REWARD_NAME

    def __init__(
        self,
        reference_column: str,
        scale: float,
        options: BleuOptions,
        token_ids: bool = False,
        rule: Optional[TokenIdRule] = None,
    ) -> None:
        self.reference_column = reference_column
        self.scale = float(scale)
        self.options = options
        self.token_ids = token_ids
        self.rule = rule  # the token-id rule (bleukit.token_ids); None: ignore_ids not given
        self._warned = False  # about completions that cannot be scored: once per reward function

    @property
    def ignore_ids(self) -> frozenset:
        return self.rule.ignore_ids if self.rule is not None else frozenset()

    def __repr__(self) -> str:
        kind = "token ids" if self.token_ids else "text"
        return (f"<BLEU reward on {kind}: references from {self.reference_column!r}, scale {self.scale:g}, "
                f"{self.options.signature(1)}>")

    def references_of(self, columns: Dict[str, Any]) -> list:
        """The reference column from the keyword arguments, or an error naming what did arrive."""
        if self.reference_column not in columns:
            raise ValueError(
                f"the reward function reads references from the column {self.reference_column!r}, but got "
                f"the columns {sorted(set(columns) - TRAINER_ARGUMENTS)}; add a {self.reference_column!r} column to the "
                "dataset, or pass reference_column=<the column holding the references>"
            )
        references = columns[self.reference_column]
        if isinstance(references, str) or not hasattr(references, "__len__"):
            raise TypeError(
                f"column {self.reference_column!r} is {type(references).__name__}; the trainer passes one "
                "reference (or list of references) per completion"
            )
        return references if is_tensor(references) else list(references)

    def predictions_of(self, completions: Any, completion_ids: Any) -> Tuple[list, Dict[int, str]]:
        """(what to score for each completion, {index: why it cannot be scored})."""
        if self.token_ids:
            if completion_ids is None:
                raise TypeError("token_ids=True scores completion_ids, but none were passed; pass completion_ids=[[...], ...]")
            return [ids.tolist() if hasattr(ids, "tolist") else ids for ids in completion_ids], {}
        if completions is None:
            raise TypeError("completions is missing; pass completions=[...], one string or conversation per completion")
        texts, problems = [], {}
        for index, completion in enumerate(completions):
            try:
                texts.append(completion_text(completion, index))
            except (TypeError, ValueError) as error:
                texts.append("")
                problems[index] = str(error)
        return texts, problems

    def _check_lengths(self, predictions: Any, references: Any) -> None:
        if len(predictions) != len(references):
            raise ValueError(
                f"got {len(predictions)} completions but {len(references)} entries in the reference "
                f"column {self.reference_column!r}; pass one reference (or list of references) per completion"
            )

    def score_tensors(self, completion_ids: Any, references: Any) -> Scored:
        """The batch's result from padded id tensors, counted on their device by `bleukit.tensor.scores`; a
        segment of a (B, R, L2) column without any reference row is left out."""
        if self.rule is None:
            raise ValueError(
                "padded token-id tensors need their padding named: pass ignore_ids=(tokenizer.pad_token_id, ...) "
                "when building the reward (or ignore_ids=() when the only padding is -100)"
            )
        if not is_tensor(references):
            raise TypeError(
                f"completion_ids is a tensor but column {self.reference_column!r} is "
                f"{type(references).__name__}; pass the references as a padded torch.long tensor too, "
                "or both as lists of ids"
            )
        self._check_lengths(completion_ids, references)
        try:
            predictions, grouped = check_inputs(completion_ids, references, self.rule, require_references=False)
        except (TypeError, ValueError) as error:
            raise type(error)(f"BLEU reward (references from {self.reference_column!r}): {error}") from error
        problems: Dict[int, str] = {}
        if references.dim() == 3:
            missing = segments_without_reference(grouped).tolist()
            problems = {index: f"references[{index}] has no reference row with a token (all padding)"
                        for index, absent in enumerate(missing) if absent}
        kept = [index for index in range(len(predictions)) if index not in problems]
        if not kept:
            return Scored(None, kept, problems)
        if problems:
            rows_kept = completion_ids.new_tensor(kept)
            predictions, grouped = predictions[rows_kept], grouped[rows_kept]
        rows = count_rows(predictions, grouped, self.options.orders, self.options.ref_length)
        result = result_from_statistics(rows.cpu().numpy(), self.options, reference_counts(grouped), return_sentence_scores=True)
        return Scored(result, kept, problems)

    def score(self, predictions: list, references: list, problems: Optional[Dict[int, str]] = None) -> Scored:
        """The result for the batch, with `sentence_bleu`, from one set of statistics rows; the rows
        that cannot be scored (in `problems`, or found here) are left out."""
        self._check_lengths(predictions, references)
        kind = TOKEN_IDS if self.token_ids else TEXT
        if not problems:
            try:
                stats, num_refs, used = statistics_of_inputs(predictions, references, self.options, kind, self.rule)
                return Scored(result_from_statistics(stats, used, num_refs, return_sentence_scores=True),
                              list(range(len(predictions))), {})
            except (TypeError, ValueError):
                pass  # one row or more cannot be scored: check them one by one
        problems, kept, kept_predictions, groups = dict(problems or {}), [], [], []
        # For token ids, [] is an empty reference where each row holds one id list, and no
        # reference at all where rows hold lists of id lists.
        grouped_ids = kind == TOKEN_IDS and any(_holds_id_lists(reference) for reference in references)
        for index, (prediction, reference) in enumerate(zip(predictions, references)):
            if index in problems:
                continue
            try:
                if grouped_ids and not _holds_id_lists(reference):
                    raise ValueError(
                        f"prediction {index} has no list of references (references[{index}] is "
                        f"{reference!r:.60}, where the other rows hold lists of id lists)"
                    )
                (prediction,), (group,), _ = validate_inputs([prediction], [reference], kind)
                if kind == TOKEN_IDS:  # ids past 64 bits are found when counting: look for them now
                    encode_sequences([prediction, *group], self.options, kind)
            except (TypeError, ValueError) as error:
                problems[index] = _in_row(str(error), index)
                continue
            kept.append(index)
            kept_predictions.append(prediction)
            groups.append(group)
        if not kept:
            return Scored(None, kept, problems)
        stats, num_refs, used = statistics_of_inputs(kept_predictions, groups, self.options, kind, self.rule)
        return Scored(result_from_statistics(stats, used, num_refs, return_sentence_scores=True), kept, problems)

    def __call__(
        self,
        prompts: Any = None,
        completions: Any = None,
        completion_ids: Any = None,
        log_metric: Optional[Callable[[str, float], None]] = None,
        **columns: Any,
    ) -> List[Optional[float]]:
        """One reward per completion: its sentence BLEU times `scale`, or None for a completion that
        cannot be scored (TRL leaves None out of its means); logs the corpus BLEU of the rest."""
        references = self.references_of(columns)
        if self.token_ids and is_tensor(completion_ids):
            scored = self.score_tensors(completion_ids, references)
            count = len(completion_ids)
        else:
            predictions, problems = self.predictions_of(completions, completion_ids)
            scored = self.score(predictions, references, problems)
            count = len(predictions)
        rewards: List[Optional[float]] = [None] * count
        if scored.result is not None:
            for index, value in zip(scored.rows, scored.result["sentence_bleu"]):
                rewards[index] = value * self.scale
            if log_metric is not None:
                log_metric(f"rewards/{self.__name__}/corpus_bleu", scored.result["bleu"] * self.scale)
        if scored.problems:
            self._warn_once(scored.problems, count)
        return rewards

    def _warn_once(self, problems: Dict[int, str], count: int) -> None:
        if self._warned:
            return
        self._warned = True
        first = min(problems)
        warnings.warn(
            f"BLEU reward (references from {self.reference_column!r}): {len(problems)} of {count} completions "
            f"cannot be scored and get None, which TRL leaves out of its reward means and of their group's "
            f"baseline (their advantage is 0). The first, completion {first}: {problems[first]}. "
            "This warning is given once per reward function.",
            UserWarning,
            stacklevel=3,
        )


def _holds_id_lists(reference: Any) -> bool:
    """A reference column entry that is a non-empty list of id sequences (several references)."""
    reference = reference.tolist() if hasattr(reference, "tolist") else reference
    return isinstance(reference, (list, tuple)) and bool(reference) and isinstance(reference[0], (list, tuple))


def _in_row(message: str, index: int) -> str:
    """A message about a one-row check, with the row's index in the batch instead of 0."""
    message = re.sub(r"\b(predictions|references)\[0\]", lambda match: f"{match.group(1)}[{index}]", message)
    return message.replace("prediction 0 ", f"prediction {index} ")


def make_reward_function(
    *,
    reference_column: str = "reference",
    scale: float = 1,
    token_ids: bool = False,
    ignore_ids: Any = None,
    pad_id: Any = None,
    **options: Any,
) -> BleuReward:
    """A TRL reward function scoring sentence BLEU; see the module docstring.

    `options` are the metric's (tokenizer="13a", lowercase, max_order, weights, smooth,
    smooth_value, ref_length, effective_order) over the reward defaults `smooth="exp"`,
    `effective_order=True`. With `token_ids=True`, `ignore_ids` (alias `pad_id`) lists the ids
    dropped besides the negative ones (see `bleukit.token_ids`). They are checked here, once.
    """
    options = canonical_options(options)  # sacreBLEU's names too (tokenize=, smooth_method=, ...)
    if not isinstance(reference_column, str) or not reference_column:
        raise TypeError(f"reference_column must be the name of a dataset column (a string), not {reference_column!r}")
    if isinstance(scale, bool) or scale not in SCALES:
        raise ValueError(f"scale must be 1 (rewards in 0..1) or 100 (rewards in 0..100), not {scale!r}")
    if not isinstance(token_ids, bool):
        raise TypeError(f"token_ids must be True or False, not {token_ids!r}")
    check_option_names(options, REWARD_SETTINGS + OPTION_NAMES, "the BLEU reward takes")
    if token_ids and "tokenizer" in options:
        raise ValueError("token_ids=True scores token ids as they are, so no tokenizer applies; leave tokenizer out")
    rule = token_id_rule(ignore_ids, pad_id)
    if not token_ids:
        refuse_for_text(rule, "the reward scores text (pass token_ids=True to score completion_ids)")
    resolved = resolve_options(**{**REWARD_DEFAULTS, **options})
    if token_ids:
        resolved = options_for_token_ids(resolved)
    return BleuReward(reference_column, scale, resolved, token_ids, rule)

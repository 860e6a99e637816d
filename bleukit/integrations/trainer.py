"""A ready `compute_metrics` for transformers' `Seq2SeqTrainer` (and `Trainer`).

    compute_metrics = bleu.trainer_compute_metrics(tokenizer, scale=100)
    trainer = Seq2SeqTrainer(..., args=Seq2SeqTrainingArguments(..., predict_with_generate=True),
                             compute_metrics=compute_metrics)

Hand-written hooks break in the same places, so the hook handles them itself:
- `-100` in labels, and in generated predictions (the Trainer pads batches of different lengths
  with -100; `batch_decode` then fails with "OverflowError: out of range integral type conversion
  attempted", or in newer tokenizers "number too small to fit in target type"): negative ids are
  dropped before decoding;
- predictions that arrive as a tuple (models that return more than logits): the first item is used;
- logits instead of ids (`predict_with_generate=False`): the argmax is taken, positions whose
  label is -100 are masked, and a warning is given once;
- special tokens (pad, bos, eos) and stray whitespace: skipped when decoding, and whitespace runs
  are collapsed to one space with the ends stripped.

It returns a flat dict of floats, which the Trainer logs with its `eval_` prefix: `bleu`,
`precision_1` .. `precision_K`, `brevity_penalty`, `length_ratio`, `translation_length`,
`reference_length`. The signature is `hook.signature` after each evaluation; `with_signature=True`
also puts it in the metrics (the Trainer passes a str through to its log history, the console and
Weights & Biases; TensorBoard, MLflow and other scalar-only loggers skip it with a warning each
evaluation, which is why it is not there by default). `scale=1` (default) reports bleu and precisions in 0..1 like the metric,
`scale=100` in 0..100 like sacreBLEU; the brevity penalty and length ratio stay ratios.

Streaming: with `TrainingArguments(batch_eval_metrics=True)` the Trainer calls the hook once per
batch with `compute_result=False` and on the last batch with `compute_result=True`. The hook then
keeps only BLEU's additive statistics (one row of integers, see `bleukit.streaming`), so memory stays
constant however large the evaluation set, and the final result equals the one-shot result exactly.

Several processes (`torchrun`): `Seq2SeqTrainer` gathers with `accelerator.gather`, which keeps the
copies of the first examples that pad an uneven last batch; the hook drops them by itself when
streaming, and with `eval_examples=len(eval_dataset)` when called once (see `bleukit.integrations.trainer_gather`).

Token ids (`token_ids=True`, opt-in): no decoding; the generated ids are scored against the label
ids after the token-id rule (`bleukit.token_ids`, the same at every entry point): every negative id
(-100) and every id in `ignore_ids` is dropped wherever it stands, and the hook adds the
tokenizer's special ids (`all_special_ids`: pad, bos, eos, unk, decoder start, language codes, the
ids `batch_decode` skips) to `ignore_ids`. Torch tensors (what
`batch_eval_metrics=True` hands over) are counted on their own device by `bleukit.tensor.scores`, NumPy
arrays on the CPU by the same code; only the summed row is kept, as for text. The numbers equal
`bleu.compute` on the same ids with those dropped, and the signature says `tok:ids`: BLEU over
the model's own tokens, a fast signal during training that depends on the tokenizer, so it is
never comparable with text BLEU (report text BLEU, with its signature).

No BLEU formula lives here, and each job has its own piece: `bleukit.integrations.trainer_batches` reads what the
Trainer hands over (EvalPrediction, tuples, logits, decoding), `bleukit.integrations.trainer_gather` decides which
gathered rows are real examples, `bleukit.streaming`'s accumulator adds up the statistics (over
`bleukit.core`); for ids, `bleukit.tensor.scores` counts them. This module composes them and checks arguments.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from bleukit.core import RUN_OPTION_NAMES, options_for_token_ids
from bleukit.options import OPTION_NAMES, canonical_options, check_option_names, resolve_options
from bleukit.streaming import BleuAccumulator
from bleukit.tensor.scores import check_inputs, count_rows
from bleukit.token_ids import TokenIdRule, refuse_for_text, special_ids, token_id_rule
from bleukit.tokenizers.registry import TokenIds
from bleukit.integrations.trainer_batches import LogitsArgmax, clean_text, decode_ids, eval_prediction_ids
from bleukit.integrations.trainer_gather import GatheredRows

SCALES = (1, 100)
# The hook's own settings, beside BLEU's options.
HOOK_SETTINGS = ("scale", "with_signature", "eval_examples", "token_ids", "ignore_ids", "pad_id")
EXPORTED = (clean_text, decode_ids)  # importable from here, as before the hook was split


def _is_decoder(value: Any) -> bool:
    # A transformers tokenizer or processor: what decodes ids, never a BLEU tokenizer.
    return hasattr(value, "batch_decode")


def _decoder_and_options(decoder: Any, options: Dict[str, Any]) -> Tuple[Any, Dict[str, Any]]:
    """The transformers tokenizer that decodes, and BLEU's options.

    `tokenizer=` is BLEU's option (how text is split into words), but in transformers it names the
    object that decodes ids. So a tokenizer with `batch_decode` given as `tokenizer=` and nothing
    given positionally is taken as the decoder (BLEU then splits with its default, 13a).
    """
    bleu_tokenizer = options.get("tokenizer")
    if _is_decoder(bleu_tokenizer):
        if decoder is not None:
            raise TypeError(
                f"tokenizer={type(bleu_tokenizer).__name__} is a transformers tokenizer, but tokenizer= "
                "names BLEU's word splitting (\"13a\", \"none\", ... or a callable returning a list of "
                "strings); pass the transformers tokenizer once, as the first argument"
            )
        options = {name: value for name, value in options.items() if name != "tokenizer"}
        decoder = bleu_tokenizer
    if decoder is None:
        raise TypeError(
            "no transformers tokenizer to decode with (or, with token_ids=True, to read the special ids "
            "from); pass it first: trainer_compute_metrics(tokenizer, ...)"
        )
    if not _is_decoder(decoder):
        raise TypeError(
            f"tokenizer is {type(decoder).__name__}, which has no batch_decode; pass the "
            "transformers tokenizer (or processor) that encodes the labels"
        )
    return decoder, options


def _check_hook_options(scale: Any, with_signature: Any, token_ids: Any, compute_options: Dict[str, Any]) -> None:
    if not isinstance(token_ids, bool):
        raise TypeError(f"token_ids must be True or False, not {token_ids!r}")
    if isinstance(scale, bool) or scale not in SCALES:
        raise ValueError(f"scale must be 1 (BLEU in 0..1) or 100 (BLEU in 0..100), not {scale!r}")
    if not isinstance(with_signature, bool):
        raise TypeError(f"with_signature must be True or False, not {with_signature!r}")
    if "num_workers" in compute_options:
        raise ValueError(
            "num_workers is compute's: a Trainer hook counts each evaluation batch in the training process "
            "(far below the size at which worker processes pay); leave it out"
        )
    unsupported = sorted(set(compute_options) & set(RUN_OPTION_NAMES))
    if unsupported:
        raise ValueError(
            f"{unsupported} cannot go into a Trainer hook, which logs corpus-level floats; "
            "decode the predictions and call bleu.compute(...) for sentence scores or bootstrap"
        )
    check_option_names(compute_options, HOOK_SETTINGS + OPTION_NAMES, "the Trainer hook takes")


def flat_metrics(result: Dict[str, Any], scale: float) -> Dict[str, float]:
    """The metric's result as the flat dict of floats the Trainer logs."""
    flat = {"bleu": result["bleu"] * scale}
    for order, precision in enumerate(result["precisions"], start=1):
        flat[f"precision_{order}"] = precision * scale
    for key in ("brevity_penalty", "length_ratio", "translation_length", "reference_length"):
        flat[key] = float(result[key])
    return flat


class BleuComputeMetrics:
    """The Trainer hook: `hook(eval_prediction, compute_result=True) -> dict of floats`.

    Called once with everything (the default) or once per batch with `compute_result=False`
    and finally `True` (batch_eval_metrics); after a result is returned the statistics start
    over, so the same hook serves every evaluation of a training run.
    """

    def __init__(
        self,
        tokenizer: Any = None,
        /,
        *,
        scale: float = 1,
        with_signature: bool = False,
        eval_examples: int | None = None,
        token_ids: bool = False,
        ignore_ids: Sequence[int] | None = (),
        pad_id: int | None = None,
        **compute_options: Any,
    ) -> None:
        compute_options = canonical_options(compute_options)  # sacreBLEU's names too (tokenize=, ...)
        tokenizer, compute_options = _decoder_and_options(tokenizer, compute_options)
        _check_hook_options(scale, with_signature, token_ids, compute_options)
        ignore_ids = (token_id_rule(ignore_ids, pad_id) or TokenIdRule()).ignore_ids  # pad_id: an alias of one id
        if not token_ids:
            refuse_for_text(TokenIdRule(ignore_ids), "the hook decodes text (pass token_ids=True to score ids)")
        self.gathered = GatheredRows(eval_examples)  # the duplicate-row policy
        self.token_ids = token_ids
        # The token-id rule (bleukit.token_ids): every negative id, the tokenizer's special ids (which
        # decoding skips too) and `ignore_ids` are dropped. None when scoring decoded text.
        self.rule: TokenIdRule | None = None
        if token_ids:
            if "tokenizer" in compute_options:
                raise ValueError(
                    f"token_ids=True scores token ids as they are, so no BLEU tokenizer applies; leave "
                    f"tokenizer={compute_options['tokenizer']!r} out (or drop token_ids=True to score text)"
                )
            options_for_token_ids(resolve_options(**compute_options))  # lowercase=True is refused here
            compute_options = {**compute_options, "tokenizer": TokenIds()}  # signature tok:ids
            self.rule = TokenIdRule(special_ids(tokenizer) | ignore_ids)
        self.tokenizer = tokenizer
        self.scale = float(scale)
        self.with_signature = with_signature
        self.logits_to_ids = LogitsArgmax()
        self.accumulator = BleuAccumulator(**compute_options)
        # The signature of the last result (before any: the options with one reference each).
        self.signature = self.accumulator.options.signature(1)

    @property
    def eval_examples(self) -> int | None:
        return self.gathered.eval_examples

    def ids(self, eval_prediction: Any) -> Tuple[Any, Any]:
        """(predictions, labels) as 2-D integer ids from an `EvalPrediction` (or a pair): the first
        item of a tuple, the argmax of logits. Torch tensors stay tensors on their device when
        scoring ids, and become NumPy arrays when decoding."""
        return eval_prediction_ids(eval_prediction, keep_tensors=self.token_ids, logits_to_ids=self.logits_to_ids)

    def decode(self, eval_prediction: Any) -> Tuple[List[str], List[str]]:
        """Predictions and references as clean text, from an `EvalPrediction` (or a pair)."""
        predictions, labels = self.ids(eval_prediction)
        return decode_ids(self.tokenizer, predictions), decode_ids(self.tokenizer, labels)

    def __call__(self, eval_prediction: Any, compute_result: bool = True) -> Dict[str, float]:
        predictions, labels = self.ids(eval_prediction)
        keep = self.gathered.keep(len(predictions), compute_result)
        if keep:
            self.add(predictions[:keep], labels[:keep])
        if not compute_result:
            return {}
        return self.result()

    def add(self, predictions: Any, labels: Any) -> None:
        """Add a batch of 2-D ids (real examples only) to the running statistics."""
        if self.token_ids:
            rows = self.token_id_statistics(predictions, labels)
            self.accumulator.add_statistics(rows.sum(dim=0), num_refs=1, segments=len(predictions))
        else:
            self.accumulator.add(decode_ids(self.tokenizer, predictions), decode_ids(self.tokenizer, labels))

    def result(self) -> Dict[str, Any]:
        """The flat metrics of everything added since the last result; then starts over."""
        result = self.accumulator.result()
        self.accumulator.reset()
        self.signature = result["signature"]
        flat: Dict[str, Any] = self.flatten(result)
        if self.with_signature:
            flat["signature"] = self.signature  # logged as eval_signature; see the module docstring
        return flat

    def token_id_statistics(self, predictions: Any, labels: Any) -> Any:
        """Statistics rows (int64 tensor, one per example, on the ids' device) of generated ids
        against label ids, after the token-id rule (`self.rule`: negative ids, the tokenizer's
        special ids and `ignore_ids` dropped wherever they stand; a label with nothing left is
        one empty reference): the rows `bleu.compute` gives on the same ids. Counted by
        `bleukit.tensor.scores` (torch on an accelerator, NumPy and Arrow on a CPU)."""
        import torch

        predictions = torch.as_tensor(predictions).long()
        labels = torch.as_tensor(labels).long().to(predictions.device)
        options = self.accumulator.options
        return count_rows(*check_inputs(predictions, labels, self.rule), options.orders, options.ref_length)

    @property
    def padding_ids(self) -> frozenset:
        """The ids dropped besides the negative ones (empty when scoring text)."""
        return self.rule.ignore_ids if self.rule is not None else frozenset()

    def reset(self) -> None:
        """Drop the statistics of an evaluation that stopped before its last batch."""
        self.accumulator.reset()
        self.gathered.reset()

    def flatten(self, result: Dict[str, Any]) -> Dict[str, float]:
        """The metric's result as the flat dict of floats the Trainer logs."""
        return flat_metrics(result, self.scale)


def make_compute_metrics(
    tokenizer: Any = None,
    /,
    *,
    scale: float = 1,
    with_signature: bool = False,
    eval_examples: int | None = None,
    token_ids: bool = False,
    ignore_ids: Sequence[int] = (),
    pad_id: int | None = None,
    **compute_options: Any,
) -> BleuComputeMetrics:
    """A `compute_metrics` for (Seq2Seq)Trainer that decodes with `tokenizer` and scores BLEU.

    `compute_options` are the metric's options (tokenizer="13a", lowercase, max_order, smooth, ...);
    the first, positional argument is the transformers tokenizer used to decode (given as
    `tokenizer=` alone, a transformers tokenizer is taken as that). `with_signature=True` adds the
    signature (a string) to the metrics. `eval_examples=len(eval_dataset)` drops the padding
    duplicates a multi-process evaluation adds (see `BleuComputeMetrics._rows_to_keep`).
    `token_ids=True` scores ids without decoding (the token-id rule of `bleukit.token_ids`: negative
    ids and `ignore_ids` dropped, the tokenizer's special ids added to them; signature `tok:ids`),
    with the same two arguments as TRL's reward and `bleukit.tensor.scores`.
    """
    return BleuComputeMetrics(
        tokenizer, scale=scale, with_signature=with_signature, eval_examples=eval_examples,
        token_ids=token_ids, ignore_ids=ignore_ids, pad_id=pad_id, **compute_options,
    )

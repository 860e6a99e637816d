"""The one path from predictions and references to a BLEU result.

    inputs --(bleukit.inputs)--> checked lists --(bleukit.tokenizers.registry)--> tokens --(bleukit.counting.stats)-->
    per-segment statistics --(sum)--> corpus statistics --(bleukit.scoring)--> result

The metric module, the CLI, the Trainer hook and the demo all call `compute_bleu` (or the
statistics functions below it, for streaming and distributed use). Work is done in chunks of
segments so memory stays bounded however large the corpus: the statistics of the chunks add up.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from bleukit.inputs import (
    TOKEN_IDS, ItemCheckFailed, input_layout, reference_counts, validate_inputs, validate_predictions,
)
from bleukit.options import BleuOptions, resolve_by_kind, resolve_options
from bleukit.counting.chunks import (  # noqa: F401 (segment_statistics, encode_sequences: re-exported)
    CHUNK_SEGMENTS, chunk_statistics, encode_sequences, segment_statistics, systems_statistics, workers,
)
from bleukit.counting.parallel import AUTO, check_num_workers, counted_columns, forked_rows, process_count
from bleukit.resampling import (  # noqa: F401 (DEFAULT_BOOTSTRAP_SEED, bootstrap_sums: re-exported)
    DEFAULT_BOOTSTRAP_SEED, bootstrap_sums, confidence_interval,
)
from bleukit.scoring import BleuScore, score_rows, score_statistics
from bleukit.counting.stats import stat_width
from bleukit.token_ids import DEFAULT_RULE, TokenIdRule, refuse_for_text, token_id_rule
from bleukit.tokenizers.registry import TokenIds



def options_for_token_ids(options: BleuOptions) -> BleuOptions:
    """The options with no tokenizer (signature `tok:ids`); lowercasing has no meaning for ids."""
    if options.lowercase:
        raise ValueError(
            "lowercase=True applies to text, but the inputs are token ids; lowercase the text "
            "before encoding it, or pass lowercase=False"
        )
    return dataclasses.replace(options, tokenizer=TokenIds())


def score(totals: Sequence[int], options: BleuOptions) -> BleuScore:
    """The BLEU score of one statistics row (a segment's, or a sum of rows)."""
    return score_statistics(
        totals, options.max_order, options.weights, options.smooth, options.smooth_value, options.effective_order
    )


def bleu_rows(stats: np.ndarray, options: BleuOptions, libm: bool = True) -> np.ndarray:
    """BLEU of every statistics row (segments, or bootstrap resamples), as one float array.

    `libm=False`: NumPy's vectorised log and exp (see `score_rows`), for significance tests."""
    return score_rows(
        stats, options.max_order, options.weights, options.smooth, options.smooth_value, options.effective_order,
        libm=libm,
    ).bleu


def sentence_scores(stats: np.ndarray, options: BleuOptions, num_workers: Any = 1) -> List[float]:
    """One BLEU per segment, from that segment's own statistics row; in `num_workers` processes
    for many rows (each row's score is its own, so the pieces are the one-process scores)."""
    processes = process_count(num_workers, len(stats))
    if processes == 1:
        return bleu_rows(stats, options).tolist()
    scores = forked_rows((len(stats), 1), lambda a, b: bleu_rows(stats[a:b], options)[:, None], processes, np.float64)
    return scores.ravel().tolist()


def bootstrap_scores(
    stats: np.ndarray, options: BleuOptions, samples: int, seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
    num_workers: Any = 1,
) -> np.ndarray:
    """Corpus BLEU of `samples` resamples of the segments (sacreBLEU's draws for the same seed),
    resampled in `num_workers` processes (`bleukit.resampling.bootstrap_sums`)."""
    if samples <= 0:
        return np.zeros(0)
    return bleu_rows(bootstrap_sums(stats, samples, np.random.default_rng(seed), num_workers), options)


def result_from_statistics(
    stats: np.ndarray,
    options: BleuOptions,
    num_refs: Sequence[int] | int,
    return_sentence_scores: bool = False,
    bootstrap_samples: int = 0,
    bootstrap_seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
    num_workers: Any = 1,
    sentence_bleu: Optional[np.ndarray] = None,
) -> Dict[str, Any]:
    """The metric's result dict from per-segment statistics rows (sentence scores in `num_workers`
    processes, unless `sentence_bleu` brings them, scored where the rows were counted)."""
    result: Dict[str, Any] = score(stats.sum(axis=0), options).as_dict()
    result["signature"] = options.signature(num_refs)
    if return_sentence_scores:
        scores = sentence_scores(stats, options, num_workers) if sentence_bleu is None else sentence_bleu.tolist()
        result["sentence_bleu"] = scores
    if bootstrap_samples:
        result.update(confidence_interval(
            bootstrap_scores(stats, options, bootstrap_samples, bootstrap_seed, num_workers)))
    return result


def check_run_options(
    return_sentence_scores: Any = False, bootstrap_samples: Any = 0, bootstrap_seed: Any = DEFAULT_BOOTSTRAP_SEED,
    num_workers: Any = AUTO,
) -> None:
    if not isinstance(return_sentence_scores, bool):
        raise TypeError(f"return_sentence_scores must be True or False, not {return_sentence_scores!r}")
    if isinstance(bootstrap_samples, bool) or not isinstance(bootstrap_samples, (int, np.integer)) or bootstrap_samples < 0:
        raise ValueError(f"bootstrap_samples must be an integer >= 0 (0 turns it off), not {bootstrap_samples!r}")
    if bootstrap_seed is not None and (isinstance(bootstrap_seed, bool) or not isinstance(bootstrap_seed, (int, np.integer))):
        raise TypeError(f"bootstrap_seed must be an integer or None, not {bootstrap_seed!r}")
    check_num_workers(num_workers)


# The per-call options (beside the BLEU options), read off the function that checks them.
RUN_OPTION_NAMES = tuple(inspect.signature(check_run_options).parameters)


class CountedInputs(NamedTuple):
    """What `count_inputs` gives: the statistics rows, the references per segment (int64), the
    options as they applied (token ids: `tok:ids`), and the sentence scores when asked for."""

    stats: np.ndarray
    num_refs: np.ndarray
    options: BleuOptions
    sentence_bleu: Optional[np.ndarray] = None


def count_inputs(
    predictions: Any,
    references: Any,
    options: BleuOptions,
    kind: Optional[str] = None,
    rule: Optional[TokenIdRule] = None,
    num_workers: Any = AUTO,
    id_options: Optional[BleuOptions] = None,
    sentence_scores: bool = False,
    private: bool = True,
) -> CountedInputs:
    """Check raw inputs and count them, in one pass over chunks of segments that each worker
    makes alone: the chunk's item checks (see `bleukit.inputs.InputLayout`), its statistics
    rows, its references per segment and, with `sentence_scores`, its sentence BLEU. Only what
    needs no walk over the items is checked before, so nothing per segment runs in this
    process but its own share of chunks. A chunk that fails its checks has the whole input
    checked here, for the message that names the first item at fault.

    `kind` requires `text` or `token_ids` (None detects it); `id_options`, when given, are the
    options for token ids (the call's without the text-only load-time defaults). Token ids are
    counted after dropping the ids of `rule` (None: negative ids only; see `bleukit.token_ids`);
    a rule that lists ids is an error for text. `num_workers`: processes; `private=False` for a
    caller that drops the arrays before it could fork (see `bleukit.counting.parallel`).
    """
    preds, refs, layout = input_layout(predictions, references, kind)
    if layout.kind == TOKEN_IDS:
        options = options_for_token_ids(id_options or options)
    else:
        refuse_for_text(rule)
    rule = rule or DEFAULT_RULE
    count = len(preds)
    processes, threads = workers(options, layout.kind, count, num_workers)

    def columns_of(start: int, stop: int) -> Tuple[np.ndarray, ...]:
        chunk_preds, chunk_refs = layout.check_chunk(preds[start:stop], refs[start:stop])
        rows = chunk_statistics(chunk_preds, chunk_refs, options, layout.kind, rule)
        counts = reference_counts(chunk_refs)[:, None]
        return (rows, counts, bleu_rows(rows, options)[:, None]) if sentence_scores else (rows, counts)

    outputs = [((count, stat_width(options.orders)), np.int64), ((count, 1), np.int64)]
    if sentence_scores:
        outputs.append(((count, 1), np.float64))
    try:
        arrays = counted_columns(outputs, columns_of, processes, threads, CHUNK_SEGMENTS, private)
    except ItemCheckFailed as failed:
        validate_inputs(preds, refs, layout.kind)  # raises, naming the first item at fault
        raise ValueError(f"the inputs failed a check: {failed}") from None  # (a chunk's view of it)
    return CountedInputs(arrays[0], arrays[1][:, 0], options, arrays[2][:, 0] if sentence_scores else None)


def statistics_of_inputs(
    predictions: Any,
    references: Any,
    options: BleuOptions,
    kind: Optional[str] = None,
    rule: Optional[TokenIdRule] = None,
    num_workers: Any = AUTO,
    id_options: Optional[BleuOptions] = None,
) -> Tuple[np.ndarray, np.ndarray, BleuOptions]:
    """Check raw inputs and count them: (statistics rows, references per segment, options); see
    `count_inputs`."""
    counted = count_inputs(predictions, references, options, kind, rule, num_workers, id_options)
    return counted.stats, counted.num_refs, counted.options


def compute_bleu(
    predictions: Any,
    references: Any,
    return_sentence_scores: bool = False,
    bootstrap_samples: int = 0,
    bootstrap_seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
    kind: Optional[str] = None,
    ignore_ids: Any = None,
    pad_id: Any = None,
    num_workers: Any = AUTO,
    text_defaults: Optional[Dict[str, Any]] = None,
    **options: Any,
) -> Dict[str, Any]:
    """BLEU of predictions against references; the options are those of `resolve_options`.
    `text_defaults`: load-time defaults of text-only options (`options.split_text_defaults`), which
    apply where the inputs are text and never reach token ids.

    `kind` requires inputs of one kind (`text` or `token_ids`); None detects it. `ignore_ids`
    (alias `pad_id`) lists token ids to drop besides the negative ones (see `bleukit.token_ids`).
    `num_workers`: "auto" (processes for large inputs only), 1 (this process) or n processes;
    the numbers are the same whatever it is (see `bleukit.counting.parallel`).
    """
    check_run_options(return_sentence_scores, bootstrap_samples, bootstrap_seed, num_workers)
    rule = token_id_rule(ignore_ids, pad_id)
    for_text, for_ids = resolve_by_kind(options, text_defaults)
    counted = count_inputs(predictions, references, for_text, kind, rule, num_workers, for_ids, return_sentence_scores,
                           private=False)  # the rows are summed, scored and dropped here
    return result_from_statistics(
        counted.stats, counted.options, counted.num_refs, return_sentence_scores, bootstrap_samples, bootstrap_seed,
        num_workers, counted.sentence_bleu,
    )


def checked_systems(
    pairs: List[Tuple[str, Any]], references: Any
) -> Tuple[List[Tuple[str, list]], List[list], str]:
    """Every system's predictions checked against the references, errors naming the system.

    The first system is checked with the references (which come back grouped); the others
    against those, so the references are checked once however many systems there are.
    """
    checked: List[Tuple[str, list]] = []
    refs: Any = None
    kind: Optional[str] = None
    for name, predictions in pairs:
        try:
            if refs is None:
                preds, refs, kind = validate_inputs(predictions, references)
            else:
                preds = validate_predictions(predictions, refs, kind)
        except (TypeError, ValueError) as error:
            raise type(error)(f"system {name!r}: {error}") from None
        checked.append((name, preds))
    return checked, refs, kind


class CountedSystems(NamedTuple):
    """What `count_systems` gives: the systems' names in order, their statistics rows, the
    references per segment, and the options as they applied (token ids: `tok:ids`)."""

    names: List[str]
    stats: List[np.ndarray]
    num_refs: np.ndarray
    options: BleuOptions


def count_systems(pairs: List[Tuple[str, Any]], references: Any, options: BleuOptions,
                  num_workers: Any = AUTO) -> CountedSystems:
    """Several (name, predictions) against the same references, checked (errors name the system)
    and counted in one pass of the same workers, the references tokenized once
    (`bleukit.counting.chunks.systems_statistics`): what `compute_systems` and `compare` score."""
    checked, refs, kind = checked_systems(pairs, references)
    if kind == TOKEN_IDS:
        options = options_for_token_ids(options)
    stats = systems_statistics([preds for _, preds in checked], refs, options, kind, num_workers=num_workers)
    return CountedSystems([name for name, _ in checked], stats, reference_counts(refs), options)


def compute_systems(systems: Dict[str, Any], references: Any, num_workers: Any = AUTO,
                    **options: Any) -> Dict[str, Dict[str, Any]]:
    """The result dict of each of several systems against the same references, as `compute_bleu`
    gives it for each alone; but the references are checked and tokenized once, and every system
    counted in the same pass of the same workers.
    """
    counted = count_systems(list(systems.items()), references, resolve_options(**options), num_workers)
    return {name: result_from_statistics(rows, counted.options, counted.num_refs)
            for name, rows in zip(counted.names, counted.stats)}


def segment_tokens(line: str, options: BleuOptions) -> List[str]:
    """The tokens the core counts for one text segment: lowercased if asked, trailing whitespace
    stripped (sacreBLEU's order), then tokenized. The batch path does the same in bulk
    (`encode_flat_rstripped`); the explain view checks its recount against the batch rows."""
    return options.tokenizer((line.lower() if options.lowercase else line).rstrip())

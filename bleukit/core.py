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
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from itertools import chain
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from bleukit.inputs import (
    TEXT, TOKEN_IDS, ItemCheckFailed, SingleReferences, input_layout, reference_counts, validate_inputs,
)
from bleukit.options import BleuOptions, resolve_by_kind, resolve_options
from bleukit.counting.parallel import (
    AUTO, check_num_workers, counted_columns, counted_rows, forked_rows, process_count, thread_count,
)
from bleukit.scoring import BleuScore, score_rows, score_statistics
from bleukit.counting.stats import encode_tokens, ngram_statistics, stat_width
from bleukit.token_ids import DEFAULT_RULE, TokenIdRule, refuse_for_text, token_id_rule
from bleukit.tokenizers.registry import TokenIds

# Segments per chunk (at most): large enough to amortise NumPy calls, small enough to bound memory
# and to keep the chunk's arrays and hash tables in cache; 1,024 to 1,536 measured fastest here.
CHUNK_SEGMENTS = 1280
# Comparing systems, a chunk holds every system's lines of its segments and the references: about
# this many lines per chunk (17 systems: 284 segments) measured about 10% faster than 1,280 segments
# on two threads, smaller chunks sharing the cores more evenly.
SYSTEMS_CHUNK_LINES = 5120
# sacreBLEU's default seed for bootstrap resampling (SACREBLEU_SEED).
DEFAULT_BOOTSTRAP_SEED = 12345


def _prepared_lines(lines: Sequence[str], lowercase: bool) -> List[str]:
    # sacreBLEU lowercases, then strips trailing whitespace (encode_flat_rstripped), then tokenizes.
    return [line.lower() for line in lines] if lowercase else list(lines)


def encode_sequences(
    sequences: Sequence[Any], options: BleuOptions, kind: str = TEXT, rule: TokenIdRule = DEFAULT_RULE
) -> Tuple[np.ndarray, np.ndarray]:
    """(dense token ids of all sequences concatenated, tokens per sequence): texts lowercased if
    asked and tokenized (trailing whitespace stripped), or lists of token ids with the rule's ids
    dropped (see `bleukit.token_ids`) and renumbered densely."""
    if kind == TEXT:
        return options.tokenizer.encode_flat_rstripped(_prepared_lines(sequences, options.lowercase))
    return _flat_ids(sequences, rule)


def _references_by_rank(references: Sequence[Sequence[Any]]) -> Tuple[List[Any], np.ndarray]:
    """Every reference in one list, first references first, then second ones, ...; and owners.

    Rank-major order keeps each rank a contiguous block; with one reference per segment (the
    common case) it is simply the references in segment order.
    """
    if isinstance(references, SingleReferences):
        return list(references.references), np.arange(len(references), dtype=np.int64)
    counts = np.fromiter(map(len, references), dtype=np.int64, count=len(references))
    if counts.size and counts.max() == 1:
        return [group[0] for group in references], np.arange(len(references), dtype=np.int64)
    flat: List[Any] = []
    owners = []
    for rank in range(int(counts.max(initial=0))):
        members = np.flatnonzero(counts > rank)
        flat.extend(references[i][rank] for i in members.tolist())
        owners.append(members)
    return flat, (np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64))


def _chunk_statistics_text(
    predictions: Sequence[str], references: Sequence[Sequence[str]], options: BleuOptions
) -> np.ndarray:
    flat_references, owner = _references_by_rank(references)
    lines = _prepared_lines(predictions, options.lowercase)
    lines.extend(_prepared_lines(flat_references, options.lowercase))
    ids, lengths = options.tokenizer.encode_flat_rstripped(lines)
    return ngram_statistics(ids, lengths, len(predictions), owner, options.orders, options.ref_length)


def _flat_ids(sequences: Sequence[Sequence[int]], rule: TokenIdRule) -> Tuple[np.ndarray, np.ndarray]:
    """Id sequences concatenated, the rule's ids dropped (see `bleukit.token_ids`), densely
    renumbered: (ids, each sequence's length)."""
    lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))
    try:
        flat = np.fromiter(chain.from_iterable(sequences), dtype=np.int64, count=int(lengths.sum()))
    except OverflowError:
        raise ValueError("a token id is outside 64-bit integers; token ids must be below 2**63") from None
    flat, lengths = rule.drop(flat, lengths)
    return encode_tokens(flat), lengths


def _chunk_statistics_ids(
    predictions: Sequence[Sequence[int]],
    references: Sequence[Sequence[Sequence[int]]],
    options: BleuOptions,
    rule: TokenIdRule = DEFAULT_RULE,
) -> np.ndarray:
    flat_references, owner = _references_by_rank(references)
    ids, lengths = encode_sequences(list(predictions) + flat_references, options, TOKEN_IDS, rule)
    return ngram_statistics(ids, lengths, len(predictions), owner, options.orders, options.ref_length)


def _chunk_statistics(predictions: Sequence[Any], references: Sequence[Sequence[Any]], options: BleuOptions,
                      kind: str, rule: TokenIdRule) -> np.ndarray:
    """The statistics rows of one chunk of checked inputs, of either kind."""
    if kind == TEXT:
        return _chunk_statistics_text(predictions, references, options)
    return _chunk_statistics_ids(predictions, references, options, rule)


def options_for_token_ids(options: BleuOptions) -> BleuOptions:
    """The options with no tokenizer (signature `tok:ids`); lowercasing has no meaning for ids."""
    if options.lowercase:
        raise ValueError(
            "lowercase=True applies to text, but the inputs are token ids; lowercase the text "
            "before encoding it, or pass lowercase=False"
        )
    return dataclasses.replace(options, tokenizer=TokenIds())


def _workers(options: BleuOptions, kind: str, segments: int, num_workers: Any, lines: int = 1) -> Tuple[int, int]:
    """(processes, threads in each) for `segments` segments of `lines` lines; see `bleukit.counting.parallel`.
    Chunks share threads only where their work releases the GIL: the 13a and none tokenizers' and
    the n-gram counting's NumPy and Arrow calls (other tokenizers and user callables run in one)."""
    text = kind == TEXT
    processes = process_count(num_workers, segments, text and options.tokenizer.runs_user_code, lines)
    releases_gil = not text or options.tokenizer.releases_gil
    return processes, thread_count(releases_gil, -(-segments // processes), processes)


def segment_statistics(
    predictions: Sequence[Any],
    references: Sequence[Sequence[Any]],
    options: BleuOptions,
    kind: str = TEXT,
    chunk_segments: int = CHUNK_SEGMENTS,
    rule: TokenIdRule = DEFAULT_RULE,
    num_workers: Any = 1,
) -> np.ndarray:
    """Statistics rows (see `bleukit.counting.stats`) for checked inputs: one row per prediction; for token
    ids, after dropping the ids of `rule` (see `bleukit.token_ids`).

    Chunks of segments are independent (the rows of a chunk depend on it alone), so they run on
    a few threads when that helps, and in `num_workers` processes (see `bleukit.counting.parallel`).
    """
    processes, threads = _workers(options, kind, len(predictions), num_workers)

    def rows_of(start: int, stop: int) -> np.ndarray:
        return _chunk_statistics(predictions[start:stop], references[start:stop], options, kind, rule)

    return counted_rows((len(predictions), stat_width(options.orders)), rows_of, processes, threads, chunk_segments)


def _chunk_systems_statistics(
    systems: Sequence[Sequence[Any]], references: Sequence[Sequence[Any]], options: BleuOptions, kind: str
) -> List[np.ndarray]:
    """One chunk: every system's lines and the references tokenized in one call (so token ids
    agree across systems, and the references are tokenized once), then all systems counted in one
    pass (the references' n-grams are coded and counted once)."""
    flat_references, owner = _references_by_rank(references)
    ids, lengths = encode_sequences([sequence for system in systems for sequence in system] + flat_references, options, kind)
    segments = len(references)
    rows = ngram_statistics(ids, lengths, segments, owner, options.orders, options.ref_length, systems=len(systems))
    return [rows[k * segments : (k + 1) * segments] for k in range(len(systems))]


def systems_statistics(
    systems: Sequence[Sequence[Any]],
    references: Sequence[Sequence[Any]],
    options: BleuOptions,
    kind: str = TEXT,
    chunk_segments: Optional[int] = None,
    num_workers: Any = 1,
) -> List[np.ndarray]:
    """Statistics rows of several systems' checked predictions against the same references.

    Equal to `segment_statistics` of each system, but each chunk of the references is tokenized
    once for all systems (comparing 17 systems, that was a third of the time), and its n-grams
    counted once (see `ngram_statistics`). `chunk_segments` None: about SYSTEMS_CHUNK_LINES lines.
    `num_workers`: processes, as for `segment_statistics`.
    """
    count = len(references)
    if chunk_segments is None:
        chunk_segments = max(1, SYSTEMS_CHUNK_LINES // (len(systems) + 1))
    processes, threads = _workers(options, kind, count, num_workers, lines=len(systems) + 1)

    def rows_of(start: int, stop: int) -> np.ndarray:
        chunk = [system[start:stop] for system in systems]
        return np.stack(_chunk_systems_statistics(chunk, references[start:stop], options, kind))

    shape = (len(systems), count, stat_width(options.orders))
    return list(counted_rows(shape, rows_of, processes, threads, chunk_segments))


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


# Resampling draws are made in blocks of about this many segment indices, to bound memory.
_BOOTSTRAP_BLOCK = 1 << 22
# Below this, float32 sums of integers are exact (24-bit significand), and its matmul is faster.
_FLOAT32_EXACT = 1 << 24


def exact_float_dtype(bound: float) -> type:
    """float32 when every partial sum stays below 2**24 in magnitude (then exact), else float64."""
    return np.float32 if bound < _FLOAT32_EXACT else np.float64


def bootstrap_sums(stats: np.ndarray, samples: int, rng: np.random.Generator) -> np.ndarray:
    """Column sums of `samples` resamples of the rows of `stats`, drawn with replacement: int64.

    The draws are sacreBLEU's (`rng.choice(n, (samples, n))`), made a block of resamples at a time
    (the generator's stream is the same either way). Each resample is a weight per row (how often
    it was drawn) times the rows, so one matrix product sums every column at once: `stats` may
    hold several systems' rows side by side, and all of them see the same draws.
    """
    count = len(stats)
    if samples <= 0:
        return np.zeros((0, stats.shape[1]), dtype=np.int64)
    dtype = exact_float_dtype(float(count) * float(np.abs(stats).max(initial=0)))
    rows = stats.astype(dtype)
    per_block = max(1, _BOOTSTRAP_BLOCK // max(count, 1))
    sums = []
    for start in range(0, samples, per_block):
        block = min(per_block, samples - start)
        draws = rng.integers(0, count, size=(block, count), dtype=np.int32)
        # Row r's draws become r * count + index, one bincount for the block (int32 is enough:
        # a block holds about 2**22 draws).
        draws += np.arange(0, block * count, count, dtype=np.int32)[:, None]
        weights = np.bincount(draws.ravel(), minlength=block * count).reshape(block, count)
        sums.append(np.rint(weights.astype(dtype) @ rows).astype(np.int64))
    return np.concatenate(sums)


def bootstrap_scores(
    stats: np.ndarray, options: BleuOptions, samples: int, seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED
) -> np.ndarray:
    """Corpus BLEU of `samples` resamples of the segments (sacreBLEU's draws for the same seed)."""
    if samples <= 0:
        return np.zeros(0)
    return bleu_rows(bootstrap_sums(stats, samples, np.random.default_rng(seed)), options)


def confidence_interval(scores: np.ndarray) -> Dict[str, float]:
    """The 95% interval of bootstrap scores, read as sacreBLEU reads it (1/40 from each end)."""
    ordered = np.sort(scores)
    low_index = len(ordered) // 40
    return {
        "bleu_ci_low": float(ordered[low_index]),
        "bleu_ci_high": float(ordered[len(ordered) - low_index - 1]),
        "bleu_bootstrap_mean": float(ordered.mean()),
    }


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
        result.update(confidence_interval(bootstrap_scores(stats, options, bootstrap_samples, bootstrap_seed)))
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


@contextmanager
def garbage_collection_paused() -> Iterator[None]:
    """Kept for callers written against it (nothing in this module uses it any more); it no longer
    touches the garbage collector.

    Scoring once switched Python's cyclic collector off for the whole process while it checked and
    counted, because checking built one small list per segment and every collection walked them
    (480k segments cost 12x what 48k cost). Turning the collector off is process-wide, and the
    Space scores in threads, so another thread's garbage went uncollected meanwhile. Checking now
    keeps the caller's own containers, reads one reference per segment through a view
    (`bleukit.inputs.SingleReferences`) and builds at most tuples of ints, which the collector
    untracks at its first look: nothing per segment is left for it to walk (bench/bench_gc.py).
    """
    yield


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
    processes, threads = _workers(options, layout.kind, count, num_workers)

    def columns_of(start: int, stop: int) -> Tuple[np.ndarray, ...]:
        chunk_preds, chunk_refs = layout.check_chunk(preds[start:stop], refs[start:stop])
        rows = _chunk_statistics(chunk_preds, chunk_refs, options, layout.kind, rule)
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


def segment_tokens(line: str, options: BleuOptions) -> List[str]:
    """The tokens the core counts for one text segment: lowercased if asked, trailing whitespace
    stripped (sacreBLEU's order), then tokenized. The batch path does the same in bulk
    (`encode_flat_rstripped`); the explain view checks its recount against the batch rows."""
    return options.tokenizer((line.lower() if options.lowercase else line).rstrip())

"""Statistics rows of checked inputs, a chunk of segments at a time: lines lowercased if asked and
tokenized (or token ids with the rule's ids dropped), then counted (`bleukit.counting.stats`), on
threads and in worker processes (`bleukit.counting.parallel`).

Work is done in chunks so memory stays bounded however large the corpus: the statistics of the
chunks add up, and a chunk's rows depend on it alone.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from bleukit.counting.parallel import counted_rows, process_count, thread_count
from bleukit.counting.stats import encode_tokens, ngram_statistics, stat_width
from bleukit.inputs import TEXT, TOKEN_IDS, SingleReferences
from bleukit.options import BleuOptions
from bleukit.token_ids import DEFAULT_RULE, TokenIdRule

# Segments per chunk (at most): large enough to amortise NumPy calls, small enough to bound memory
# and to keep the chunk's arrays and hash tables in cache; 1,024 to 1,536 measured fastest here.
CHUNK_SEGMENTS = 1280
# Comparing systems, a chunk holds every system's lines of its segments and the references: about
# this many lines per chunk (17 systems: 284 segments) measured about 10% faster than 1,280 segments
# on two threads, smaller chunks sharing the cores more evenly.
SYSTEMS_CHUNK_LINES = 5120

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


def chunk_statistics(predictions: Sequence[Any], references: Sequence[Sequence[Any]], options: BleuOptions,
                      kind: str, rule: TokenIdRule) -> np.ndarray:
    """The statistics rows of one chunk of checked inputs, of either kind."""
    if kind == TEXT:
        return _chunk_statistics_text(predictions, references, options)
    return _chunk_statistics_ids(predictions, references, options, rule)


def workers(options: BleuOptions, kind: str, segments: int, num_workers: Any, lines: int = 1) -> Tuple[int, int]:
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
    processes, threads = workers(options, kind, len(predictions), num_workers)

    def rows_of(start: int, stop: int) -> np.ndarray:
        return chunk_statistics(predictions[start:stop], references[start:stop], options, kind, rule)

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
    processes, threads = workers(options, kind, count, num_workers, lines=len(systems) + 1)

    def rows_of(start: int, stop: int) -> np.ndarray:
        chunk = [system[start:stop] for system in systems]
        return np.stack(_chunk_systems_statistics(chunk, references[start:stop], options, kind))

    shape = (len(systems), count, stat_width(options.orders))
    return list(counted_rows(shape, rows_of, processes, threads, chunk_segments))

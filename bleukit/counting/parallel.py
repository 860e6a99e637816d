"""Every core of one machine: statistics rows counted by forked worker processes, and on threads.

Counting a segment needs that segment alone, and its statistics row is integers (see
`bleukit.counting.stats`), so a corpus can be cut anywhere and the rows of the pieces put side by side: the
result is the one-process result, bit for bit. Two ways to use more than one core:

- threads (`thread_count`, `map_chunks`): the 13a and none tokenizers and the n-gram counting are
  NumPy and Arrow calls that release the GIL, so chunks overlap on up to MAX_THREADS threads;
  the Python left between those calls holds the GIL, which caps the gain (about 1.3x on 2 cores).
- processes (`forked_columns`): `num_workers` worker processes made with `fork`, as a tree
  (`bleukit.counting.forking`: the caller forks two). The children inherit the inputs
  copy-on-write, so nothing is pickled on the way out; they take blocks of segment indices from a
  shared counter (a busy core takes fewer) and write their rows (and what comes with them: the
  references per segment, the sentence scores) straight into shared-memory arrays, so nothing is
  pickled on the way back either. The calling process counts blocks too. A fork costs a few
  milliseconds, more from a large process.

`num_workers`: None or "auto" (the default) uses processes only where they pay and are safe: at
least PROCESS_MIN_SEGMENTS segments, more than one usable core, Linux's `fork`, a call from the
main thread (a web server scoring in request threads is left alone) and one of this module's own
tokenizers (a user's callable may keep state a child's copy would lose, or not survive a fork).
1 is one process (chunks on threads as before); an int n is n processes, whatever the input and
the tokenizer (a user callable then runs in forked copies: fine for a pure function).
"""

from __future__ import annotations

import math
import mmap
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence, Tuple

import numpy as np

from bleukit.counting import forking

AUTO = "auto"
# Chunks of one process run on up to this many threads; inputs under MIN_THREADED_SEGMENTS use one.
MAX_THREADS = 4
MIN_THREADED_SEGMENTS = 1024
# num_workers="auto" forks only from this many segments on: on 2 quiet cores, 2 processes against
# threads measured 0.89x at 3,004 segments (the start-up, 3-6 ms, eats the gain), 1.13x at 10,000,
# 1.34x at 24,032 (bench/bench_cores.py; docs/scaling.md).
PROCESS_MIN_SEGMENTS = 20_000
# Above it, "auto" weighs the work against the processes' cost: n processes take about
# W / n + n * c (W: one process's time, c: what each process adds: its fork, start and wait), least
# at n = sqrt(W / c). Both fitted to bench/bench_cores.py on 16 cores (2026-11-26, Xeon, Python 3.12):
# one thread counts a WMT17 segment in 9 us (4.35 s for 480,640), and the 48,064-segment row gives
# c = 3.2 ms; so 48k gets 11 processes (measured: 0.103-0.104 s from 10 to 12, 0.157 s with the 4
# that 10,000 segments per process gave), 480k every core.
SEGMENT_SECONDS = 9e-6
PROCESS_SECONDS = 3.2e-3
# Worker processes take this many segments at a time (fewer when the input is small, so every
# worker gets several blocks and a worker slowed by another program's load takes fewer).
BLOCK_SEGMENTS = 8192
BLOCKS_PER_WORKER = 4


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS says, else all)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_num_workers(num_workers: Any) -> None:
    """A TypeError or ValueError that says what to pass, unless `num_workers` is None, "auto" or an int >= 1."""
    if num_workers is None or num_workers == AUTO:
        return
    if isinstance(num_workers, bool) or not isinstance(num_workers, (int, np.integer)):
        raise TypeError(
            f"num_workers must be an integer >= 1 (worker processes) or 'auto' (processes for large "
            f"inputs only), not {num_workers!r}"
        )
    if num_workers < 1:
        raise ValueError(
            f"num_workers must be >= 1 (1: one process), or 'auto', not {num_workers}; to use every core "
            f"pass num_workers={usable_cores()} (this machine's usable cores)"
        )


def fork_available() -> bool:
    """Whether worker processes can be forked here (POSIX `fork`; not Windows)."""
    return hasattr(os, "fork")


def in_daemon_process() -> bool:
    """Whether this is a daemonic multiprocessing worker (a `Pool`'s, a torch DataLoader's, a
    `datasets.map(num_proc=...)` one), which multiprocessing forbids to have children. Only a
    process that imported multiprocessing can be one, so this never imports it."""
    multiprocessing = sys.modules.get("multiprocessing")
    return multiprocessing is not None and bool(multiprocessing.current_process().daemon)


def _auto_may_fork() -> bool:
    """Forking on its own initiative only on Linux (macOS frameworks are not fork-safe), from the
    main thread (a server that scores in request threads keeps to one process) and not inside a
    daemonic worker (a pool of processes already shares the cores, and may not fork). Other threads
    may be alive (tqdm's monitor is, after any progress bar): a child runs only NumPy and Arrow calls
    on its blocks, and CPython remakes the locks it needs (the GIL, imports, logging) after a fork."""
    return (sys.platform.startswith("linux") and fork_available()
            and threading.current_thread() is threading.main_thread() and not in_daemon_process())


def process_count(num_workers: Any, segments: int, user_code: bool = False, lines: int = 1) -> int:
    """How many processes count `segments` segments: 1 means this process alone.

    `user_code`: the tokenizer runs the user's code, which "auto" never forks (see the module
    docstring). `lines`: lines per segment ("auto" weighs a comparison of 17 systems as 18 lines a
    segment). Never more processes than segments.
    """
    check_num_workers(num_workers)
    if num_workers is None or num_workers == AUTO:
        work = segments * lines
        if work < PROCESS_MIN_SEGMENTS or user_code or not _auto_may_fork():
            return 1
        num_workers = min(usable_cores(), int(math.sqrt(work * SEGMENT_SECONDS / PROCESS_SECONDS)))
    elif num_workers > 1 and not fork_available():
        raise ValueError(
            f"num_workers={num_workers} needs worker processes made by fork, which this platform lacks "
            f"({sys.platform}); pass num_workers=1"
        )
    elif num_workers > 1 and segments > 1 and in_daemon_process():
        raise ValueError(
            f"num_workers={num_workers} asks for worker processes, but this is a daemonic worker process "
            "(a multiprocessing Pool's, a DataLoader's or datasets.map(num_proc)'s), which may not have "
            "children; pass num_workers=1 (or 'auto'): the pool already spreads the work over the cores"
        )
    return max(1, min(int(num_workers), segments))


def thread_count(releases_gil: bool, segments: int, processes: int = 1) -> int:
    """Threads worth using for `segments` segments in each of `processes` processes: only where the
    work releases the GIL, and never more threads in all than usable cores."""
    if not releases_gil or segments < MIN_THREADED_SEGMENTS:
        return 1
    return max(1, min(MAX_THREADS, usable_cores() // processes))


def chunk_starts(count: int, threads: int, chunk_segments: int) -> Tuple[range, int]:
    """Where each chunk of segments starts, and its size: a multiple of `threads` chunks, so none waits alone."""
    if count == 0:
        return range(0), 1
    chunks = -(-count // chunk_segments)
    chunks = -(-chunks // threads) * threads
    size = max(1, -(-count // chunks))
    return range(0, count, size), size


def map_chunks(rows_of: Callable[[int], Any], starts: range, threads: int) -> list:
    """`rows_of(start)` for every chunk start, on `threads` threads, in order."""
    if threads > 1 and len(starts) > 1:
        with ThreadPoolExecutor(threads) as pool:
            return list(pool.map(rows_of, starts))
    return [rows_of(start) for start in starts]


RowsOf = Callable[[int, int], np.ndarray]
# Several arrays per chunk (statistics rows, and beside them what the same pass can give: the
# references per segment, the sentence scores), each with the segments on axis -2.
ColumnsOf = Callable[[int, int], Tuple[np.ndarray, ...]]
Output = Tuple[Tuple[int, ...], type]  # (shape, dtype) of one array a ColumnsOf fills


def counted_rows(shape: Tuple[int, ...], rows_of: RowsOf, processes: int, threads: int, chunk_segments: int) -> np.ndarray:
    """An int64 array of `shape` (segments on axis -2) made of `rows_of(a, b)` for chunks [a, b)
    of at most `chunk_segments` segments: on `threads` threads in each of `processes` processes."""
    (rows,) = counted_columns([(shape, np.int64)], lambda a, b: (rows_of(a, b),), processes, threads, chunk_segments)
    return rows


def counted_columns(outputs: Sequence[Output], columns_of: ColumnsOf, processes: int, threads: int,
                    chunk_segments: int, private: bool = True) -> Tuple[np.ndarray, ...]:
    """One array per entry of `outputs` (segments on axis -2 of each), made of `columns_of(a, b)`
    for chunks [a, b) as in `counted_rows`: whatever a chunk yields besides its rows is made by the
    same worker in the same pass, never by a second round of processes. `private`: see
    `forked_columns`."""
    segments = outputs[0][0][-2]

    def block(start: int, stop: int) -> Tuple[np.ndarray, ...]:
        firsts, size = chunk_starts(stop - start, threads, chunk_segments)
        parts = map_chunks(lambda first: columns_of(start + first, min(start + first + size, stop)), firsts, threads)
        if not parts:
            return tuple(np.zeros((*shape[:-2], 0, shape[-1]), dtype=dtype) for shape, dtype in outputs)
        if len(parts) == 1:
            return tuple(parts[0])
        return tuple(np.concatenate(pieces, axis=-2) for pieces in zip(*parts))

    return block(0, segments) if processes == 1 else forked_columns(outputs, block, processes, private)


def _block_size(segments: int, processes: int) -> int:
    return max(1, min(BLOCK_SEGMENTS, -(-segments // (processes * BLOCKS_PER_WORKER))))


def _count_blocks(columns_of: ColumnsOf, outs: Sequence[np.ndarray], counter: Any, block: int) -> None:
    """Take the next block of segments from the shared counter until none is left; write its arrays."""
    segments = outs[0].shape[-2]
    while True:
        with counter.get_lock():
            start = counter.value
            counter.value = start + block
        if start >= segments:
            return
        stop = min(start + block, segments)
        for out, values in zip(outs, columns_of(start, stop)):
            out[..., start:stop, :] = values


def _stop_everyone(counter: Any, segments: int) -> None:
    with counter.get_lock():
        counter.value = segments


def _shared_array(shape: Sequence[int], dtype: type) -> np.ndarray:
    """An array in anonymous shared memory (it keeps the mapping alive): forked children's writes
    are seen by the parent."""
    size = int(np.prod(shape))
    buffer = mmap.mmap(-1, max(1, size) * np.dtype(dtype).itemsize)
    return np.frombuffer(buffer, dtype=dtype, count=size).reshape(shape)


def forked_rows(shape: Tuple[int, ...], rows_of: RowsOf, processes: int, dtype: type = np.int64) -> np.ndarray:
    """An array of `shape` (segments on axis -2), rows [a, b) filled by `rows_of(a, b)`, by this
    process and `processes - 1` forked ones; a worker's exception is raised here."""
    (rows,) = forked_columns([(shape, dtype)], lambda a, b: (rows_of(a, b),), processes)
    return rows


def forked_columns(outputs: Sequence[Output], columns_of: ColumnsOf, processes: int,
                   private: bool = True) -> Tuple[np.ndarray, ...]:
    """`forked_rows` for several arrays at once: one per entry of `outputs`, rows [a, b) of each
    filled from `columns_of(a, b)`.

    `private`: the arrays are copies of the shared memory the workers wrote, which would be
    shared with any process this one forks later (a later child writing into an array it
    inherited would change it here too). `private=False` hands over the shared memory itself
    (freed with the arrays), for a caller that drops them before it could fork again; that
    saves a copy (about 10 ms for 480,640 rows of statistics)."""
    import multiprocessing  # only here: the CLI's start-up does not pay for it

    segments = outputs[0][0][-2]
    counter = multiprocessing.get_context("fork").Value("q", 0)
    outs = [_shared_array(shape, dtype) for shape, dtype in outputs]
    block = _block_size(segments, processes)
    workers = None
    failed = interrupted = True
    try:
        workers = forking.start_workers(
            processes, lambda: _count_blocks(columns_of, outs, counter, block),
            lambda: _stop_everyone(counter, segments), multiprocessing.get_context("fork"),
        )
        _count_blocks(columns_of, outs, counter, block)
        interrupted = False
        errors = [forking.outcome(workers, index) for index in range(1, processes)]
        failed = any(error is not None for error in errors)
    except BaseException:
        _stop_everyone(counter, segments)
        raise
    finally:
        if workers is not None:
            forking.finish(workers, wait=failed, terminate=interrupted)
    for error in errors:
        if error is not None:
            raise error
    if not private:
        return tuple(outs)
    return tuple(out.copy() for out in outs)

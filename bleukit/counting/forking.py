"""Worker processes made with `fork`, started as a tree so that the caller forks only two.

Forking copies the caller's page tables: about 5 ms for a process that holds 480,640 segments
(280 MB resident) on this project's 2-core machine, 9-12 ms when it is loaded. Forked one after
another by the caller, 15 workers would cost it 15 of those before it counted a segment, time
that no number of cores shortens. So the caller forks two workers, and each worker forks its own
two before it counts (worker k's children are 2k + 1 and 2k + 2, the caller being 0): the
caller pays two forks, and the last of 15 workers starts after four, while the others count.

Each worker reports its outcome (None, or the exception that stopped it) on its own pipe, made
by the caller before the first fork. A worker closes every pipe end but its own write end once
it has forked its children (which need theirs), so the one process holding a write end is its
worker: a worker that dies before it reports closes its pipe, and the caller reads the end of
the file instead of waiting forever. A worker reaps its children before it exits; the caller's
own two are reaped by a short-lived thread when all went well, so that the caller need not wait
for their exit (unmapping a copy of a large process takes a few milliseconds), and at once after
an error, so that none outlives the call that failed.
"""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

# The thread that reaps the caller's children after a call that went well (None: none yet).
_reaper: Optional[threading.Thread] = None


@dataclass
class Workers:
    """Workers 1 .. count started by `start_workers`: the caller's own children (worker index ->
    pid) and one pipe's read end per worker."""

    children: Dict[int, int]
    receivers: List[Any]
    exit_codes: Dict[int, int] = field(default_factory=dict)


def _children_of(index: int, processes: int) -> List[int]:
    return [child for child in (2 * index + 1, 2 * index + 2) if child < processes]


def _fork_children(index: int, processes: int, pipes: List[Tuple[Any, Any]], body: Callable[[], None],
                   stop: Callable[[], None]) -> Dict[int, int]:
    children: Dict[int, int] = {}
    for child in _children_of(index, processes):
        pid = os.fork()
        if pid == 0:
            _run_worker(child, processes, pipes, body, stop)  # never returns
        children[child] = pid
    return children


def _send(sender: Any, outcome: Optional[BaseException]) -> None:
    try:
        sender.send(outcome)
    except Exception:  # an exception that cannot be pickled: its type and text
        sender.send(RuntimeError(f"{type(outcome).__name__}: {outcome}"))


def _run_worker(index: int, processes: int, pipes: List[Tuple[Any, Any]], body: Callable[[], None],
                stop: Callable[[], None]) -> None:
    """A worker's whole life: fork its children, keep its own write end only, run `body`, report,
    reap its children, and leave without running anything of the caller's (no atexit, no
    finally blocks of the frames it was forked from)."""
    code = 1
    try:
        children = _fork_children(index, processes, pipes, body, stop)
        sender = pipes[index - 1][1]
        for position, (receiver, other) in enumerate(pipes):
            receiver.close()
            if position != index - 1:
                other.close()
        outcome: Optional[BaseException] = None
        try:
            body()
        except BaseException as error:  # noqa: B902 - whatever it was, the caller raises it
            stop()
            outcome = error
        _send(sender, outcome)
        sender.close()
        for pid in children.values():
            os.waitpid(pid, 0)
        code = 0
    finally:
        os._exit(code)


def wait_for_exits() -> None:
    """Wait until the workers of the calls that went well have exited and been reaped (the next
    start does, so that no thread of this module is alive when it forks; tests do)."""
    if _reaper is not None:
        _reaper.join()


def _reap(pids: List[int]) -> None:
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:  # reaped elsewhere (a SIGCHLD handler, os.wait in another thread)
            pass


def start_workers(processes: int, body: Callable[[], None], stop: Callable[[], None], context: Any) -> Workers:
    """Fork workers 1 .. processes - 1 (as a tree), each running `body` then reporting; `stop`
    is what a worker calls when its body raised (to stop the others early)."""
    wait_for_exits()
    pipes = [context.Pipe(duplex=False) for _ in range(processes - 1)]
    try:
        children = _fork_children(0, processes, pipes, body, stop)
    finally:
        for _, sender in pipes:
            sender.close()
    return Workers(children, [receiver for receiver, _ in pipes])


def _wait(workers: Workers, index: int) -> int:
    if index not in workers.exit_codes:
        _, status = os.waitpid(workers.children[index], 0)
        workers.exit_codes[index] = os.waitstatus_to_exitcode(status)
    return workers.exit_codes[index]


def outcome(workers: Workers, index: int) -> Optional[BaseException]:
    """None when worker `index` ran its body, else the exception to raise."""
    try:
        return workers.receivers[index - 1].recv()
    except EOFError:
        how = f"with exit code {_wait(workers, index)} " if index in workers.children else ""
        return RuntimeError(f"a BLEU worker process ended {how}before writing its rows; pass num_workers=1 "
                            "to count in this process")
    except Exception as unreadable:  # an exception pickled but not unpickled
        return RuntimeError(f"a BLEU worker process failed, and its error could not be read back "
                            f"({unreadable}); pass num_workers=1 to see it raised here")


def finish(workers: Workers, wait: bool, terminate: bool = False) -> None:
    """Close the pipes and reap the caller's children: waiting for their exit when `wait` (after
    an error, so that none outlives the call), else only those already gone. `terminate` first
    ends them (the caller was interrupted); their own children stop at their next block."""
    global _reaper
    for receiver in workers.receivers:
        receiver.close()
    left = {index: pid for index, pid in workers.children.items() if index not in workers.exit_codes}
    if terminate:
        for pid in left.values():
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    if wait:
        for index in left:
            _wait(workers, index)
    elif left:
        _reaper = threading.Thread(target=_reap, args=(list(left.values()),), name="bleu-reaper", daemon=True)
        _reaper.start()

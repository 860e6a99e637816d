"""docs/scaling.md's claims: auto's cost model and threshold, the numbers quoted from its 16-core tables.

Others edit docs/scaling.md: wrong numbers there are reported (Claim.reported), not fixed here."""

from __future__ import annotations

import re
from typing import List

from docs_numbers import Claim

from .common import constant, table_cell


CLAIMS: List[Claim] = [
    Claim("docs/scaling.md", "when the input has at least\n  {} segments", lambda code: [constant("bleukit/counting/parallel.py", "PROCESS_MIN_SEGMENTS")]),
    Claim("docs/scaling.md", "(W: one process's time, about {} us\n  a WMT segment; c: what each process adds, {} ms,",
          lambda code: [1e6 * constant("bleukit/counting/parallel.py", "SEGMENT_SECONDS"),
                        1e3 * constant("bleukit/counting/parallel.py", "PROCESS_SECONDS")]),
    Claim("docs/scaling.md", "at n = √(W/c): {} processes at {} segments", lambda code: [auto_processes(48064, cores=16), 48064]),
    Claim("docs/scaling.md", "(the table: {}-{} s from {_} to {_}, {} s\n  with the {_} that the old rule",
          lambda code: [min(cells := [cores_table("48,064 segments (auto chose 4", str(n), 1) for n in (10, 11, 12)]), max(cells),
                        cores_table("48,064 segments (auto chose 4", "auto", 1)]),
    Claim("docs/scaling.md", "(auto now takes {} there: the cost model above)", lambda code: [auto_processes(48064, cores=16)]),
    Claim("docs/scaling.md", "they take blocks of up to {} segments", lambda code: [constant("bleukit/counting/parallel.py", "BLOCK_SEGMENTS")]),
    Claim("docs/scaling.md", "hence\nauto's threshold of {}.", lambda code: [constant("bleukit/counting/parallel.py", "PROCESS_MIN_SEGMENTS")]),
    Claim("docs/scaling.md", "At 480,640 segments `auto` ({} processes) computes in {} s, {}x one core and {}x one process with its\n"
          "threads, inside the 1 s goal; with sentence scores {} s ({}x), the compare statistics {} s ({}x).",
          lambda code: [16, *[cores_table("480,640 segments (auto chose 16", "auto", column) for column in (1, 2, 3, 4, 5, 7, 8)]]),
    Claim("docs/scaling.md", "one core took {} s on that machine", lambda code: [cores_table("480,640 segments (auto chose 16", "1 thread", 1)]),
    Claim("docs/scaling.md", "At 48,064 segments `auto` took {} processes, {} s ({}x one core); 16 processes there give\n{} s ({}x)",
          lambda code: [4, cores_table("48,064 segments (auto chose 4", "auto", 1), cores_table("48,064 segments (auto chose 4", "auto", 2),
                        cores_table("48,064 segments (auto chose 4", "16", 1), cores_table("48,064 segments (auto chose 4", "16", 2)]),
    Claim("docs/scaling.md", "({} bytes for max_order={})",
          lambda code: [__import__("bleukit").statistics(["a"], [["a"]], max_order=4, per_segment=True)[0].nbytes, 4]),
    Claim("docs/scaling.md", "already counts chunks on up to {} threads", lambda code: [constant("bleukit/counting/parallel.py", "MAX_THREADS")]),
]


def cores_table(after: str, row: str, column: int) -> float:
    """A cell of docs/scaling.md's 16-core tables (the row named by its num_workers)."""
    return table_cell("docs/scaling.md", after, re.escape(row) + r"( \||$)", column)


def auto_processes(segments: int, cores: int) -> int:
    """How many processes num_workers="auto" takes for `segments` segments on `cores` cores (where it may fork)."""
    from unittest import mock

    import bleukit.counting.parallel as parallel

    with mock.patch.object(parallel, "usable_cores", return_value=cores), \
            mock.patch.object(parallel, "_auto_may_fork", return_value=True):
        return parallel.process_count("auto", segments)

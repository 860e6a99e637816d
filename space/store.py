"""Where the page keeps what it scored, so paging, explain mode and the differences view work after
the click that scored: small in each session, bounded in total.

A session's `gr.State` holds only a key. The entry it names keeps numbers (statistics rows, sentence
scores, the result dict) in memory and the texts on disk (`SegmentTexts`: one file per entry, byte
offsets in memory), so a 3,004-segment corpus costs about 0.3 MB of memory however long its lines.
The store is least-recently-used with a memory budget and a disk budget: however many sessions are
open (API callers never close theirs, and a state lives an hour), the page never holds more than the
budgets. An entry dropped to keep to them answers "score again" instead of a stale page.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable, List, Optional, Sequence

import numpy as np

TEXTS_ROOT = Path(tempfile.gettempdir()) / "bleu-space-texts"
MAX_MEMORY_BYTES = 256 * 2**20
MAX_DISK_BYTES = 2 * 2**30
MAX_ENTRIES = 2000
KEEP_SECONDS = 3600  # as the session state's time to live
ENTRY_OVERHEAD_BYTES = 16 * 2**10  # the dataclass, the result dict, the options: a generous round figure
EXPIRED = ("This result is no longer held by the server (results are dropped after an hour, or when many "
           "sessions are open at once, to keep its memory bounded); press Score again.")


class SegmentTexts:
    """Each segment's texts (a row of strings: e.g. the prediction and its references) in one UTF-8
    file; memory holds only where each string starts."""

    def __init__(self, path: Path, starts: np.ndarray, row_starts: np.ndarray):
        self.path, self.starts, self.row_starts = path, starts, row_starts

    @classmethod
    def write(cls, rows: Iterable[Sequence[str]]) -> "SegmentTexts":
        encoded: List[bytes] = []
        row_starts = [0]
        for row in rows:
            encoded.extend(text.encode("utf-8", "surrogatepass") for text in row)
            row_starts.append(len(encoded))
        starts = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(item) for item in encoded], out=starts[1:])
        TEXTS_ROOT.mkdir(parents=True, exist_ok=True)
        path = TEXTS_ROOT / f"{uuid.uuid4().hex}.txt"
        path.write_bytes(b"".join(encoded))
        return cls(path, starts, np.asarray(row_starts, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.row_starts) - 1

    def row(self, index: int) -> List[str]:
        first, last = int(self.row_starts[index]), int(self.row_starts[index + 1])
        with open(self.path, "rb") as handle:
            handle.seek(int(self.starts[first]))
            data = handle.read(int(self.starts[last] - self.starts[first]))
        bounds = self.starts[first : last + 1] - self.starts[first]
        return [data[a:b].decode("utf-8", "surrogatepass") for a, b in zip(bounds[:-1], bounds[1:])]

    def rows(self, indices: Iterable[int]) -> List[List[str]]:
        return [self.row(int(index)) for index in indices]

    @property
    def nbytes(self) -> int:
        return self.starts.nbytes + self.row_starts.nbytes

    @property
    def disk_bytes(self) -> int:
        return int(self.starts[-1])

    def delete(self) -> None:
        try:
            self.path.unlink()
        except OSError:
            pass


def memory_bytes(entry: Any) -> int:
    """What an entry holds in memory: its arrays (texts: their offsets) plus a fixed overhead."""
    total = ENTRY_OVERHEAD_BYTES
    for value in vars(entry).values():
        if isinstance(value, np.ndarray):
            total += value.nbytes
        elif isinstance(value, SegmentTexts):
            total += value.nbytes
    return total


def disk_bytes(entry: Any) -> int:
    return sum(value.disk_bytes for value in vars(entry).values() if isinstance(value, SegmentTexts))


def _delete_files(entry: Any) -> None:
    for value in vars(entry).values():
        if isinstance(value, SegmentTexts):
            value.delete()


class ResultStore:
    """Entries by key, least recently used first out when a budget would be exceeded."""

    def __init__(self, max_memory: int = MAX_MEMORY_BYTES, max_disk: int = MAX_DISK_BYTES,
                 max_entries: int = MAX_ENTRIES):
        self.max_memory, self.max_disk, self.max_entries = max_memory, max_disk, max_entries
        self._entries: "OrderedDict[str, tuple]" = OrderedDict()  # key -> (entry, memory, disk, stored at)
        self._lock = threading.Lock()
        self.memory = self.disk = 0

    def put(self, entry: Any) -> str:
        key = uuid.uuid4().hex
        memory, disk = memory_bytes(entry), disk_bytes(entry)
        dropped = []
        with self._lock:
            self._entries[key] = (entry, memory, disk, time.monotonic())
            self.memory += memory
            self.disk += disk
            while len(self._entries) > 1 and (self.memory > self.max_memory or self.disk > self.max_disk
                                              or len(self._entries) > self.max_entries):
                dropped.append(self._pop(next(iter(self._entries))))
        for old in dropped:
            _delete_files(old)
        return key

    def get(self, key: Optional[str]) -> Any:
        """The entry, or None when it was never stored, expired or was dropped."""
        if not isinstance(key, str):
            return None
        with self._lock:
            item = self._entries.get(key)
            if item is None:
                return None
            if time.monotonic() - item[3] > KEEP_SECONDS:
                entry = self._pop(key)
            else:
                self._entries.move_to_end(key)
                return item[0]
        _delete_files(entry)
        return None

    def discard(self, key: Optional[str]) -> None:
        """Drop an entry now (its session closed, or it scored again)."""
        if not isinstance(key, str):
            return
        with self._lock:
            entry = self._pop(key) if key in self._entries else None
        if entry is not None:
            _delete_files(entry)

    def _pop(self, key: str) -> Any:
        entry, memory, disk, _ = self._entries.pop(key)
        self.memory -= memory
        self.disk -= disk
        return entry

    def __len__(self) -> int:
        return len(self._entries)


def remove_stale_texts(now: Optional[float] = None) -> None:
    """Text files left by an earlier server process (a restart loses its store) are removed at start."""
    now = time.time() if now is None else now
    if TEXTS_ROOT.exists():
        for path in TEXTS_ROOT.iterdir():
            try:
                if now - path.stat().st_mtime > KEEP_SECONDS:
                    path.unlink() if path.is_file() else shutil.rmtree(path, ignore_errors=True)
            except OSError:
                pass


STORE = ResultStore()

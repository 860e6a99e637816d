"""Where the page keeps what it scored, so paging, explain mode and the differences view work after
the click that scored: small in each session, bounded in total, and given back when it ends.

A session's `gr.State` holds only a key. The entry it names keeps numbers (statistics rows, sentence
scores, the result dict) in memory and its files on disk: the texts (`SegmentTexts`: one file per
entry, byte offsets in memory), so a 3,004-segment corpus costs about 0.3 MB of memory however long
its lines, and its downloads (`OwnedFolder`). The store is least-recently-used with a memory budget
and a disk budget: however many sessions are open, the page never holds more than the budgets. An
entry dropped to keep to them answers "score again" instead of a stale page.

An entry is released (its files deleted) when its session scores again, when its tab closes
(`session_memory` releases every entry the session put here: the store notes the Gradio session
each entry was put for), when an hour has passed (checked at every put, so nothing outlives it
unseen), or to keep to the budgets. Memory freed by a release is handed back to the operating
system (`trim_memory_soon`): glibc keeps freed heap memory in its arenas otherwise, and the server's
resident memory stayed at its peak (measured in docs/demo.md, "Sessions and memory").
"""

from __future__ import annotations

import codecs
import ctypes
import ctypes.util
import shutil
import tempfile
import threading
import time
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable, List, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa

TEXTS_ROOT = Path(tempfile.gettempdir()) / "bleu-space-texts"
MAX_MEMORY_BYTES = 256 * 2**20
MAX_DISK_BYTES = 2 * 2**30
MAX_ENTRIES = 2000
KEEP_SECONDS = 3600  # as the session state's time to live
ENTRY_OVERHEAD_BYTES = 16 * 2**10  # the dataclass, the result dict, the options: a generous round figure
TRIM_DELAY_SECONDS = 0.5  # releases within this are handed back to the system in one malloc_trim
EXPIRED = ("This result is no longer held by the server (results are dropped after an hour, when the tab "
           "closes, or when many sessions are open at once, to keep its memory bounded); press Score again.")


UTF8_ERRORS = "bleu-space-fffd"  # the codec error handler below: open(..., errors=UTF8_ERRORS)


def _replace_surrogates(error: UnicodeError) -> Tuple[bytes, int]:
    """Lone surrogates -> U+FFFD, split pairs -> their character, as UTF-8 bytes (Python's UTF-8
    encoder takes only ASCII text or bytes from an error handler)."""
    if not isinstance(error, UnicodeEncodeError) or error.encoding.replace("-", "").lower() != "utf8":
        raise error
    run = error.object[error.start:error.end]
    return run.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8"), error.end


codecs.register_error(UTF8_ERRORS, _replace_surrogates)


def utf8_text(text: str) -> str:
    """`text` as UTF-8 can carry it: a lone surrogate (text cut inside an emoji, "caf\\ud83d") becomes
    U+FFFD, as a browser's TextEncoder writes it; a pair split in two becomes its character. The
    same rule writes the downloads (`errors=UTF8_ERRORS`) and the table's cells: strict UTF-8 refuses
    a lone surrogate (UnicodeEncodeError; the tab showed a bare "Error" badge)."""
    if text.isascii():
        return text
    return text.encode("utf-8", UTF8_ERRORS).decode("utf-8")


class SegmentTexts:
    """Each segment's texts (a row of strings: e.g. the prediction and its references) in one UTF-8
    file; memory holds only where each string starts."""

    def __init__(self, path: Path, starts: np.ndarray, row_starts: np.ndarray):
        self.path, self.starts, self.row_starts = path, starts, row_starts

    @classmethod
    def write(cls, rows: Iterable[Sequence[str]]) -> "SegmentTexts":
        """One row of texts per segment, any number per row."""
        flat: List[str] = []
        row_starts = [0]
        for row in rows:
            flat.extend(row)
            row_starts.append(len(flat))
        return cls._write(flat, np.asarray(row_starts, dtype=np.int64))

    @classmethod
    def from_columns(cls, predictions: Sequence[str], references: Sequence[Sequence[str]]) -> "SegmentTexts":
        """Each segment's prediction then its references, without a list per segment (a 200,000-line
        Score built 200,000 of them, and Python's collector walked them)."""
        counts = np.fromiter((len(group) for group in references), dtype=np.int64, count=len(references))
        if len(counts) and counts.min() == counts.max() == 1:
            flat: List[str] = [""] * (2 * len(predictions))
            flat[0::2] = predictions
            flat[1::2] = [group[0] for group in references]
        else:
            flat = []
            for prediction, group in zip(predictions, references):
                flat.append(prediction)
                flat.extend(group)
        row_starts = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts + 1, out=row_starts[1:])
        return cls._write(flat, row_starts)

    @classmethod
    def _write(cls, flat: List[str], row_starts: np.ndarray) -> "SegmentTexts":
        """The texts as UTF-8 in one file: Arrow encodes them in one call and gives the offsets (10x
        faster than encoding each string); text Arrow refuses (a lone surrogate) is kept exactly, as
        Python's "surrogatepass" writes it."""
        TEXTS_ROOT.mkdir(parents=True, exist_ok=True)
        path = TEXTS_ROOT / f"{uuid.uuid4().hex}.txt"
        try:
            array = pa.array(flat, type=pa.large_string())
        except (UnicodeError, pa.ArrowException):
            encoded = [text.encode("utf-8", "surrogatepass") for text in flat]
            starts = np.zeros(len(encoded) + 1, dtype=np.int64)
            np.cumsum([len(item) for item in encoded], out=starts[1:])
            path.write_bytes(b"".join(encoded))
            return cls(path, starts, row_starts)
        offsets, data = array.buffers()[1], array.buffers()[2]
        starts = np.frombuffer(offsets, dtype=np.int64, count=len(flat) + 1).copy()
        with open(path, "wb") as handle:
            if data is not None and starts[-1] > starts[0]:
                handle.write(memoryview(data)[starts[0]:starts[-1]])
        starts -= starts[0]
        return cls(path, starts, row_starts)

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


class OwnedFolder:
    """A folder of files that belongs to one entry (its downloads): counted in the disk budget and
    deleted with the entry."""

    nbytes = 0

    def __init__(self, path: Path):
        self.path = Path(path)
        self.disk_bytes = sum(item.stat().st_size for item in self.path.iterdir() if item.is_file())

    def delete(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


_FILES = (SegmentTexts, OwnedFolder)


def memory_bytes(entry: Any) -> int:
    """What an entry holds in memory: its arrays (texts: their offsets) plus a fixed overhead."""
    total = ENTRY_OVERHEAD_BYTES
    for value in vars(entry).values():
        if isinstance(value, np.ndarray):
            total += value.nbytes
        elif isinstance(value, _FILES):
            total += value.nbytes
    return total


def disk_bytes(entry: Any) -> int:
    return sum(value.disk_bytes for value in vars(entry).values() if isinstance(value, _FILES))


def _delete_files(entry: Any) -> None:
    for value in vars(entry).values():
        if isinstance(value, _FILES):
            value.delete()


def current_session() -> Tuple[Optional[str], bool]:
    """The Gradio session the calling event runs for (None outside an event), and whether the server
    still holds that session (False once its tab closed: `session_memory.release_session`)."""
    try:
        from gradio.context import LocalContext

        request, blocks = LocalContext.request.get(None), LocalContext.blocks.get(None)
    except (ImportError, AttributeError, LookupError):
        return None, True
    session = getattr(request, "session_hash", None)
    sessions = getattr(getattr(blocks, "state_holder", None), "session_data", None)
    if not isinstance(session, str) or sessions is None:
        return None, True
    return session, session in sessions


class ResultStore:
    """Entries by key, least recently used first out when a budget would be exceeded."""

    def __init__(self, max_memory: int = MAX_MEMORY_BYTES, max_disk: int = MAX_DISK_BYTES,
                 max_entries: int = MAX_ENTRIES, keep_seconds: float = KEEP_SECONDS):
        self.max_memory, self.max_disk, self.max_entries = max_memory, max_disk, max_entries
        self.keep_seconds = keep_seconds
        # key -> (entry, memory, disk, stored at, owner: the Gradio session it was put for, or None)
        self._entries: "OrderedDict[str, tuple]" = OrderedDict()
        self._lock = threading.Lock()
        self.memory = self.disk = 0

    def put(self, entry: Any, owner: Optional[str] = None) -> str:
        """Keep `entry`; returns its key. `owner` is the session it belongs to (default: the Gradio
        session of the calling event). An entry put for a session whose tab has already closed (it was
        still scoring then) is released at once: nothing would ever ask for it."""
        key = uuid.uuid4().hex
        alive = True
        if owner is None:
            owner, alive = current_session()
        memory, disk = memory_bytes(entry), disk_bytes(entry)
        now = time.monotonic()
        with self._lock:
            self._entries[key] = (entry, memory, disk, now, owner)
            self.memory += memory
            self.disk += disk
            dropped = [self._pop(key)] if not alive else []
            dropped += [self._pop(old) for old, item in list(self._entries.items()) if now - item[3] > self.keep_seconds]
            while len(self._entries) > 1 and (self.memory > self.max_memory or self.disk > self.max_disk
                                              or len(self._entries) > self.max_entries):
                dropped.append(self._pop(next(iter(self._entries))))
        self._release(dropped)
        return key

    def get(self, key: Optional[str]) -> Any:
        """The entry, or None when it was never stored, expired or was dropped."""
        if not isinstance(key, str):
            return None
        with self._lock:
            item = self._entries.get(key)
            if item is None:
                return None
            if time.monotonic() - item[3] > self.keep_seconds:
                entry = self._pop(key)
            else:
                self._entries.move_to_end(key)
                return item[0]
        self._release([entry])
        return None

    def discard(self, key: Optional[str]) -> None:
        """Drop an entry now (its session closed, or it scored again)."""
        if not isinstance(key, str):
            return
        with self._lock:
            entry = self._pop(key) if key in self._entries else None
        self._release([entry] if entry is not None else [])

    def close_owner(self, owner: Optional[str]) -> int:
        """Drop every entry put for this session (its tab closed); returns how many."""
        if not isinstance(owner, str):
            return 0
        with self._lock:
            dropped = [self._pop(key) for key, item in list(self._entries.items()) if item[4] == owner]
        self._release(dropped)
        return len(dropped)

    def expire(self) -> int:
        """Drop the entries older than `keep_seconds`; returns how many (put does this too)."""
        now = time.monotonic()
        with self._lock:
            dropped = [self._pop(key) for key, item in list(self._entries.items()) if now - item[3] > self.keep_seconds]
        self._release(dropped)
        return len(dropped)

    def _pop(self, key: str) -> Any:
        entry, memory, disk, _, _ = self._entries.pop(key)
        self.memory -= memory
        self.disk -= disk
        return entry

    @staticmethod
    def _release(entries: List[Any]) -> None:
        for entry in entries:
            _delete_files(entry)
        if entries:
            trim_memory_soon()

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


_libc: Any = None
_trim_lock = threading.Lock()
_trim_timer: Optional[threading.Timer] = None


def trim_memory() -> bool:
    """Hand the heap memory the process has freed back to the operating system now (glibc's
    `malloc_trim(0)`, which since glibc 2.8 releases free pages in every arena, not only the top of
    the main heap); returns whether it ran (False without glibc). Python frees a released result's
    arrays and strings to malloc, but glibc keeps freed memory for reuse, most of it in the arenas of
    the worker threads that scored, so the server's RSS stayed near its peak after a release."""
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _libc.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _libc = False
    if not _libc:
        return False
    _libc.malloc_trim(0)  # ctypes releases the GIL for the call
    return True


def _trim_now() -> None:
    global _trim_timer
    with _trim_lock:
        _trim_timer = None
    trim_memory()


def trim_memory_soon(delay: float = TRIM_DELAY_SECONDS) -> None:
    """Trim once, `delay` seconds from now, however many releases come meanwhile (many tabs closing
    at once cost one trim), off the calling thread."""
    global _trim_timer
    with _trim_lock:
        if _trim_timer is not None:
            return
        _trim_timer = threading.Timer(delay, _trim_now)
        _trim_timer.daemon = True
        _trim_timer.start()


STORE = ResultStore()

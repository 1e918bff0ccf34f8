"""The append-only journal: every fetch outcome on disk the moment it is known.

A process that records profiles in a cache dir appends them to its own
journal, ``profiles/journal-<seq>-<token>.log``: one line per *event* (a
fetched profile, a gone one, a failed attempt): a JSON object (``n``, ``id``,
``status``, ``summary``, ``state``, ``reason``, ``at`` in ms since the epoch),
then a tab and the raw profile text as it is (or ``raw`` inside the object when
the text holds a newline, or there is none), written by one
``write`` system call on an ``O_APPEND`` descriptor. When
:meth:`Journal.append` returns, the line is in the operating system's hands:
it survives a SIGKILL of the process (not a power cut: there is no fsync per
line). While it lives the process holds ``profiles/writer-<token>.lock``, so
other processes tell a live journal from the orphan of a dead one by trying
that lock.

Journals are folded into Parquet parts (``part-<seq>.parquet``) in batches by
:meth:`icoframes.store.cache.Cache.fold`. Every part and journal file is
numbered from one counter (``profiles/.seq``, allocated under
``profiles/.seq.lock``), never from the clock, and every event carries an id
(``<token>:<n>``) that stays with it into the parts, so that a fold
interrupted after writing its part and before removing its journal only
leaves a copy of the same events, which readers drop.
"""

from __future__ import annotations

import atexit
import contextlib
import datetime as dt
import json
import os
import re
import threading
import uuid
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, NamedTuple

import pyarrow as pa

from ..errors import CacheWarning, warn
from ..files import locked, utcnow

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="only soft file lock is available")
    import filelock

__all__ = [
    "EVENT_SCHEMA",
    "GONE",
    "PART_NAME",
    "STATES",
    "Journal",
    "JournalRead",
    "ProfileRecord",
    "hold_if_dead",
    "journal_files",
    "journal_token",
    "next_seq",
    "read_journal",
    "release_dead",
    "writer_of",
]

# The raw text stored for an ICO that was listed but whose profile was not found (482),
# so that it is not requested again while its list summary stays the same.
GONE: Final = "null"

#: What one event says about a profile: a copy arrived, the service has none (482), or
#: the attempt failed (the reason says why); only the first two are copies of it.
STATES: Final = ("fetched", "gone", "failed")

#: One event, as journal lines are read and as parts are stored. ``fetched_at`` is when
#: the event was recorded (for a failure: when the attempt failed); ``event`` identifies
#: the event across the journal and the parts it is folded into.
EVENT_SCHEMA: Final = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("status", pa.string()),
    pa.field("summary", pa.string()),
    pa.field("fetched_at", pa.timestamp("ms", tz="UTC"), nullable=False),
    pa.field("state", pa.string(), nullable=False),
    pa.field("reason", pa.string()),
    pa.field("raw", pa.string()),
    pa.field("event", pa.string(), nullable=False),
])

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
PART_NAME = re.compile(r"part-(\d{10})\.parquet")
_JOURNAL = re.compile(r"journal-(\d{10})-([0-9a-f]{12})\.log")


@dataclass(frozen=True)
class ProfileRecord:
    """One fetch outcome of a profile, as the crawl records it.

    ``raw`` is the profile's JSON text (:data:`GONE` for a 482, None for a
    failure); ``state`` one of :data:`STATES`; ``reason`` what went wrong
    (``"HTTP 500"``, ``"not JSON"``, ``"id mismatch"``) for a failure.
    """

    id: int
    status: str | None
    summary: str | None
    raw: str | None
    state: str = "fetched"
    reason: str | None = None

    def encode(self, n: int, at: dt.datetime, token: str) -> tuple[bytes, tuple[Any, ...]]:
        """The journal line of this record as event ``n`` of writer ``token``, and its row.

        The row holds the values of :data:`EVENT_SCHEMA` (``fetched_at`` in ms).
        """
        state, raw = self.state, self.raw
        if state == "fetched" and raw == GONE:
            state = "gone"  # the 482 marker given as a copy
        if state not in STATES:
            raise ValueError(f"state must be one of {STATES}, not {state!r}")
        if state == "fetched" and raw is None:
            raise ValueError(f"a fetched profile needs its raw text (id {self.id})")
        raw = GONE if state == "gone" else None if state == "failed" else raw
        entry: dict[str, Any] = {
            "n": n, "id": int(self.id), "status": _utf8(self.status),
            "summary": _utf8(self.summary), "state": state, "reason": _utf8(self.reason),
            "at": (at - _EPOCH) // _MS}
        row = (entry["id"], entry["status"], entry["summary"], entry["at"], state,
               entry["reason"])
        if raw is not None and "\n" not in raw:  # the raw text as it is, after a tab
            raw, data = _utf8_bytes(raw)
            head = _JSON.encode(entry).encode("ascii")
            line = b"".join((head, b"\t", data, b"\n"))
        else:
            entry["raw"] = raw = _utf8(raw)
            line = (_JSON.encode(entry) + "\n").encode("ascii")
        return line, (*row, raw, f"{token}:{n}")


_MS = dt.timedelta(milliseconds=1)
# made once: json.dumps(..., separators=...) makes a new encoder on every call
_JSON = json.JSONEncoder(separators=(",", ":"))


def _utf8(text: str | None) -> str | None:
    """``text`` as valid UTF-8 (see :func:`_utf8_bytes`)."""
    return None if text is None else _utf8_bytes(text)[0]


def _utf8_bytes(text: str) -> tuple[str, bytes]:
    """``text`` as valid UTF-8, and encoded: a lone surrogate is escaped as ``\\ud800``.

    JSON ``"\\ud800"`` decodes to a lone surrogate, which UTF-8 cannot hold; in
    the raw JSON text the escape is lossless (the same JSON string).
    """
    try:
        return text, text.encode("utf-8")
    except UnicodeEncodeError:
        data = text.encode("utf-8", "backslashreplace")
        return data.decode("utf-8"), data


# -- names and order ---------------------------------------------------------------


def journal_files(directory: Path) -> list[Path]:
    """The journals in ``directory`` in the order they were started."""
    if not directory.is_dir():
        return []
    return sorted((p for p in directory.glob("journal-*.log") if _JOURNAL.fullmatch(p.name)),
                  key=lambda p: p.name)


def journal_token(path: Path) -> str:
    """The token of the process that writes the journal ``path``.

    Examples
    --------
    >>> journal_token(Path("journal-0000000007-0123456789ab.log"))
    '0123456789ab'
    """
    match = _JOURNAL.fullmatch(path.name)
    if match is None:
        raise ValueError(f"not a journal file name: {path.name}")
    return match.group(2)


def next_seq(directory: Path, count: int = 1) -> int:
    """Allocate ``count`` numbers for parts or journals in ``directory``; the first of them.

    Numbers are never handed out twice, whichever process asks.
    """
    directory.mkdir(parents=True, exist_ok=True)
    counter = directory / ".seq"
    with locked(directory / ".seq.lock"):
        try:
            last = int(counter.read_text() or 0)
        except (FileNotFoundError, ValueError):
            last = 0
        # the names too, in case the counter file was lost
        for path in directory.iterdir():
            match = PART_NAME.fullmatch(path.name) or _JOURNAL.fullmatch(path.name)
            if match:
                last = max(last, int(match.group(1)))
        # replaced whole (a kill cannot leave half a number), not fsync'ed: the names
        # above stand in for a counter lost with a power cut
        tmp = directory / f".seq.{os.getpid()}.tmp"
        tmp.write_text(str(last + count))
        os.replace(tmp, counter)
    return last + 1


# -- liveness ------------------------------------------------------------------------


def _writer_lock(directory: Path, token: str) -> filelock.BaseFileLock:
    return filelock.FileLock(directory / f"writer-{token}.lock", thread_local=False,
                             is_singleton=False)


def hold_if_dead(directory: Path, token: str) -> filelock.BaseFileLock | None:
    """The liveness lock of writer ``token`` if its process is gone (then held), else None.

    Hold it while folding that writer's journals; release it with
    :func:`release_dead`.
    """
    lock = _writer_lock(directory, token)
    try:
        lock.acquire(timeout=0)
    except (filelock.Timeout, OSError):  # alive, or a folder this process cannot write
        return None
    return lock


def release_dead(lock: filelock.BaseFileLock) -> None:
    """Release and remove the liveness lock of a writer whose journals are folded."""
    lock.release()
    with contextlib.suppress(OSError):
        os.unlink(lock.lock_file)


# -- writing -------------------------------------------------------------------------


class Journal:
    """The journal this process appends to in one ``profiles`` folder.

    One per process and folder (see :func:`writer_of`); thread-safe. The file
    is started on the first append, under a new number; :meth:`rotate`
    (called by a fold, under the cache lock) starts the next one.
    """

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self._mutex = threading.Lock()
        self._fd: int | None = None
        self.path: Path | None = None
        self.lines = 0  # lines in the current file
        self._count = 0  # events written by this writer, across its files
        self._retired: list[Path] = []  # files rotated out but not folded yet
        self._next: int | None = None  # the number of the next file, when allocated already
        # the rows of each file not folded yet, as written: a fold need not read them back
        self._rows: dict[Path, list[tuple[Any, ...]]] = {}
        self._start()

    def __repr__(self) -> str:
        return f"Journal({str(self.path or self.dir)!r})"

    def _start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.token = uuid.uuid4().hex[:12]
        self._alive = _writer_lock(self.dir, self.token)
        self._alive.acquire(timeout=0)  # a fresh name: nobody else holds it

    def append(self, record: ProfileRecord) -> None:
        """Write one event; it is durable (against a crash of this process) on return."""
        with self._mutex:
            if self._fd is not None and os.fstat(self._fd).st_nlink == 0:
                # the folder was cleared under us: start over under a new name
                self._rows.pop(self.path, None)  # type: ignore[arg-type]
                self._close_file()
                self._alive.release()
                self._start()
            if self._fd is None:
                seq, self._next = self._next, None
                self._open(seq if seq is not None else next_seq(self.dir))
            data, row = record.encode(self._count, utcnow(), self.token)
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]  # type: ignore[arg-type]
            self._count += 1
            self.lines += 1
            self._rows.setdefault(self.path, []).append(row)  # type: ignore[arg-type]

    def _open(self, seq: int) -> None:
        self.path = self.dir / f"journal-{seq:010d}-{self.token}.log"
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.lines = 0

    def _close_file(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
        self._fd, self.path, self.lines = None, None, 0

    def pending(self) -> bool:
        """Whether this writer has events not folded yet."""
        return bool(self.lines or self._retired)

    def rotate(self, next_number: int | None = None) -> list[Path]:
        """Stop appending to the current file; the files whose events await a fold.

        The next append starts a new file (numbered ``next_number`` when given:
        a fold allocates it with the number of its part). The caller folds the
        files, deletes them and then calls :meth:`folded` (if the fold fails,
        the next one gets them again).
        """
        with self._mutex:
            if next_number is not None:
                self._next = next_number
            path, lines = self.path, self.lines
            self._close_file()
            if path is not None:
                if lines:
                    self._retired.append(path)
                else:
                    path.unlink(missing_ok=True)
                    self._rows.pop(path, None)
            return list(self._retired)

    def events(self, path: Path) -> pa.Table | None:
        """The events written to ``path`` (rotated out), as written; None if not known."""
        with self._mutex:
            rows = self._rows.get(path)
        if rows is None:
            return None
        return pa.table([list(column) for column in zip(*rows, strict=True)] if rows else
                        [[] for _ in EVENT_SCHEMA], schema=EVENT_SCHEMA)

    def folded(self, paths: Iterable[Path]) -> None:
        """``paths`` (from :meth:`rotate`) are in a part now and removed."""
        with self._mutex:
            done = set(paths)
            self._retired = [p for p in self._retired if p not in done]
            for path in done:
                self._rows.pop(path, None)

    def close(self) -> None:
        """At exit: remove an empty journal and the liveness lock; leave events to a fold."""
        with self._mutex:
            path, lines = self.path, self.lines
            self._close_file()
            if path is not None and not lines:
                path.unlink(missing_ok=True)
            self._alive.release()
            if not lines and not self._retired:
                with contextlib.suppress(OSError):
                    os.unlink(self._alive.lock_file)


_WRITERS: dict[tuple[int, str], Journal] = {}
_WRITERS_LOCK = threading.Lock()


def writer_of(directory: Path, *, create: bool) -> Journal | None:
    """This process's journal in ``directory`` (made on first use when ``create``)."""
    key = (os.getpid(), str(directory))  # a forked child gets a journal of its own
    with _WRITERS_LOCK:
        journal = _WRITERS.get(key)
        if journal is None and create:
            journal = _WRITERS[key] = Journal(directory)
        return journal


@atexit.register
def _close_writers() -> None:
    with _WRITERS_LOCK:
        for (pid, _), journal in list(_WRITERS.items()):
            if pid == os.getpid():
                journal.close()
        _WRITERS.clear()


# -- reading -------------------------------------------------------------------------


class JournalRead(NamedTuple):
    """Events read from a journal: the complete lines from ``start`` and where they end."""

    table: pa.Table
    end: int  # offset after the last complete line
    size: int  # bytes read (a torn last line, being written or left by a kill, included)


def read_journal(path: Path, start: int = 0, *, raw: bool = True) -> JournalRead:
    """The events of the complete lines of journal ``path`` from byte ``start``.

    A last line without its newline is being written (or was torn by a kill)
    and is left for later; a line that is not a valid event is reported in a
    :class:`~icoframes.errors.CacheWarning` and skipped. Raises
    FileNotFoundError when the journal is gone (folded meanwhile).
    """
    with open(path, "rb") as fh:
        fh.seek(start)
        data = fh.read()
    end = data.rfind(b"\n") + 1
    token = journal_token(path)
    columns: dict[str, list[Any]] = {name: [] for name in EVENT_SCHEMA.names}
    bad = 0
    for line in data[:end].split(b"\n")[:-1]:
        head, tab, text = line.partition(b"\t")
        try:
            entry = json.loads(head)
            if raw:
                text = text.decode("utf-8") if tab else entry["raw"]
            row = (int(entry["id"]), entry["status"], entry["summary"], int(entry["at"]),
                   entry["state"], entry["reason"], text if raw else None,
                   f"{token}:{int(entry['n'])}")
            if row[4] not in STATES:
                raise ValueError(row[4])
        except (ValueError, KeyError, TypeError):
            bad += 1
            continue
        for name, value in zip(EVENT_SCHEMA.names, row, strict=True):
            columns[name].append(value)
    if bad:
        warn(f"icoframes journal {path} has {bad} unreadable line(s); they were skipped",
             CacheWarning)
    try:
        table = pa.table(columns, schema=EVENT_SCHEMA)
    except (pa.ArrowException, OverflowError) as exc:
        warn(f"icoframes journal {path} is unreadable ({exc}); its events were skipped",
             CacheWarning)
        table = EVENT_SCHEMA.empty_table()
    if not raw:
        table = table.drop_columns(["raw"])
    return JournalRead(table, start + end, start + len(data))

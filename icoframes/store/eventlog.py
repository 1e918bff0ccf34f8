"""The profile events of one service folder: journals appended, folded into parts, read.

:class:`EventLog` is the part of :class:`icoframes.store.cache.Cache` that keeps
fetch outcomes (see :mod:`icoframes.store.journal` for the journal files and
:mod:`icoframes.store.events` for what a sequence of events means). Readers
see parts and journals alike, live, orphaned or folded, in append order: parts
by number, then journals by number, lines in order.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..files import atomic_write_table
from .events import distinct_events, fetch_state, latest_copies, reduce_events
from .journal import (
    EVENT_SCHEMA,
    GONE,
    PART_NAME,
    ProfileRecord,
    hold_if_dead,
    journal_files,
    journal_token,
    next_seq,
    read_journal,
    release_dead,
    writer_of,
)

__all__ = ["EventLog", "EventSnapshot", "part_files", "part_name"]

# Tries at a consistent read of parts and journals before taking the lock (a compaction
# removing parts between listing and reading them is the only reason to try again).
_READ_TRIES = 8


class EventSnapshot(NamedTuple):
    """Every profile event in append order, and the files read (for the derived tables)."""

    events: pa.Table
    parts: list[str]  # names of the parts read, in order
    journals: dict[str, int]  # journal name -> bytes read, for journals holding events


class EventLog:
    """The events in one ``profiles`` folder.

    Parameters
    ----------
    directory : Path
        The ``profiles`` folder.
    lock : callable
        The service folder's lock (a context manager factory), held by folds and compaction.
    quarantine : callable
        ``quarantine(path, exc)`` sets an unreadable file aside and warns.
    """

    def __init__(self, directory: Path, lock: Callable[[], contextlib.AbstractContextManager[None]],
                 quarantine: Callable[[Path, BaseException], None]) -> None:
        self.dir = directory
        self._lock = lock
        self._quarantine = quarantine
        # what this object read of immutable parts and append-only journals: later
        # reads only read what is new (the crawl asks for fetch states often)
        self._mutex = threading.Lock()
        self._parts_seen: dict[str, tuple[tuple[int, int], pa.Table]] = {}
        self._own_parts: set[str] = set()  # parts this object's folds wrote (see marker)
        self._journals_seen: dict[str, tuple[int, int, pa.Table]] = {}
        self._parts_all: tuple[tuple[Any, ...], pa.Table] | None = None

    def __repr__(self) -> str:
        return f"EventLog({str(self.dir)!r})"

    # -- recording ------------------------------------------------------------------

    def append(self, record: ProfileRecord) -> None:
        """Record one fetch outcome in this process's journal; durable on return.

        Durable against a crash or SIGKILL of this process (not a power cut).
        A record whose ``raw`` is :data:`GONE` is a ``gone`` event; a failure's
        ``raw`` is not kept. Thread-safe.
        """
        writer_of(self.dir, create=True).append(record)  # type: ignore[union-attr]

    def fold(self) -> None:
        """Turn this process's journal so far, and orphaned journals, into one part.

        Under the folder's lock. Journals of dead processes (their writer lock
        can be taken) are folded first, then this process's, which goes on in
        a new file. A journal is removed only once its events are in a part;
        a crash in between leaves the same events twice, and readers count
        them once. Returns at once when there is nothing to fold.
        """
        own = writer_of(self.dir, create=False)
        if not (own is not None and own.pending()) and not self._dead_writers(probe=True):
            return
        with self._lock():
            dead = self._dead_writers()
            try:
                paths = [p for p in self.journal_files() if journal_token(p) in dead]
                # one allocation for the part and this process's next journal file
                seq = next_seq(self.dir, 2)
                mine = own.rotate(seq + 1) if own is not None else []
                tables = []
                for path in paths:
                    with contextlib.suppress(FileNotFoundError):
                        tables.append(read_journal(path).table)
                for path in mine:  # this process's own: as written, not read back
                    table = own.events(path)  # type: ignore[union-attr]
                    if table is None:
                        with contextlib.suppress(FileNotFoundError):
                            table = read_journal(path).table
                    if table is not None:
                        tables.append(table)
                events = pa.concat_tables(tables) if tables else EVENT_SCHEMA.empty_table()
                if events.num_rows:
                    self._own_parts.add(self._write_part(events, seq))
                for path in [*paths, *mine]:  # only now that their events are in a part
                    path.unlink(missing_ok=True)
                if own is not None:
                    own.folded(mine)
            finally:
                for lock in dead.values():
                    release_dead(lock)

    def _dead_writers(self, *, probe: bool = False) -> dict[str, Any]:
        """Writers whose process is gone: token -> their liveness lock, now held.

        With ``probe``, only whether a dead writer has a journal (nothing held).
        """
        own = writer_of(self.dir, create=False)
        tokens = {journal_token(p) for p in self.journal_files()}
        if not probe and self.dir.is_dir():  # also the locks of writers that left none
            tokens |= {p.name[len("writer-"):-len(".lock")]
                       for p in self.dir.glob("writer-*.lock")}
        tokens.discard(own.token if own is not None else "")
        dead = {}
        for token in sorted(tokens):
            lock = hold_if_dead(self.dir, token)
            if lock is None:
                continue
            if probe:
                lock.release()
                return {token: None}
            dead[token] = lock
        return dead

    def _write_part(self, events: pa.Table, seq: int | None = None) -> str:
        name = part_name(next_seq(self.dir) if seq is None else seq)
        atomic_write_table(events.select(EVENT_SCHEMA.names).cast(EVENT_SCHEMA),
                           self.dir / name)
        return name

    # -- reading -----------------------------------------------------------------------

    def part_files(self) -> list[Path]:
        """The profile parts, in append order."""
        return part_files(self.dir)

    def journal_files(self) -> list[Path]:
        """The journals (live or orphaned), in the order they were started."""
        return journal_files(self.dir)

    def profile_index(self) -> pd.DataFrame:
        """The fetch state of every profile with an event, one row per id.

        Columns ``status``, ``summary`` and ``fetched_at`` (of the copy in use,
        the latest fetched or gone one: NaT and missing when there is none),
        ``state`` (``fetched``, ``gone``, or ``failed`` when no copy exists),
        ``reason`` (of the last failure since that copy, else missing) and
        ``attempts`` (failures since that copy, 0 when none); see
        :mod:`icoframes.store.events`. Unfolded journals count, also those of
        other live processes and of dead ones.
        """
        return fetch_state(self.read_events().events)

    def states(self, ids: Iterable[int]) -> dict[int, str]:
        """The fetch state of each of ``ids``: fetched, gone, failed or ``not_fetched``.

        The same answer as ``profile_index()["state"]``, much cheaper for a few ids
        (the crawl asks whether ids another process claimed have arrived).
        """
        wanted = list(dict.fromkeys(int(i) for i in ids))
        tables, _, _ = self._read(raw=False)
        value_set = pa.array(wanted, pa.int64())
        state = dict.fromkeys(wanted, "not_fetched")
        seen: set[str] = set()
        for table in tables:
            picked = table.filter(pc.is_in(table.column("id"), value_set=value_set))
            for ico_id, event, kind in zip(picked.column("id").to_pylist(),
                                           picked.column("event").to_pylist(),
                                           picked.column("state").to_pylist(), strict=True):
                if event in seen:
                    continue  # the same event again: counted at its first place
                seen.add(event)
                if kind != "failed" or state[ico_id] in ("not_fetched", "failed"):
                    state[ico_id] = kind  # a failure never replaces a copy
        return state

    def marker(self) -> frozenset[tuple[str, int]]:
        """What other writers have put here: their journals, and the parts this
        process's folds did not write, with their sizes.

        The same marker twice means no other process appended, folded or
        compacted an event in between (journals only grow; parts are new files).
        """
        own = writer_of(self.dir, create=False)
        token = own.token if own is not None else None
        found = set()
        with contextlib.suppress(FileNotFoundError), os.scandir(self.dir) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith("journal-") and name.endswith(".log"):
                    try:
                        if journal_token(Path(name)) == token:
                            continue
                    except ValueError:  # not a journal's name: nobody's events
                        continue
                elif (not (name.startswith("part-") and name.endswith(".parquet"))
                      or name in self._own_parts):
                    continue
                with contextlib.suppress(FileNotFoundError):
                    found.add((name, entry.stat().st_size))
        return frozenset(found)

    def arrived_since(self, ids: Iterable[int], marker: frozenset[tuple[str, int]]) -> set[int]:
        """Those of ``ids`` that have a copy (fetched or gone) now, for ids that had
        none at ``marker`` (:meth:`marker`) but for what this process appended since.

        Reads the events only when another process wrote something since ``marker``.
        """
        if self.marker() == marker:
            return set()
        return {i for i, state in self.states(ids).items() if state in ("fetched", "gone")}

    def latest_records(self) -> pa.Table:
        """The copy in use of every profile, raw text included, in the order appended."""
        return latest_copies(self.read_events(raw=True).events)

    def read_events(self, *, raw: bool = False, holding_lock: bool = False) -> EventSnapshot:
        """Every profile event in append order (each once), and what was read.

        Pass ``holding_lock`` when the caller holds :meth:`lock`.
        """
        tables, parts, journals = self._read(raw=raw, holding_lock=holding_lock)
        return EventSnapshot(distinct_events(tables), parts, journals)

    def _read(self, *, raw: bool, holding_lock: bool = False,
              ) -> tuple[list[pa.Table], list[str], dict[str, int]]:
        # Journals first, then parts: a fold writes its part before it removes the
        # journal, so an event is in what was read either way (maybe twice, counted once).
        # Only a compaction removes parts; then the merged part is listed on another try.
        for _ in range(1 if holding_lock else _READ_TRIES):
            read = self._try_read(raw)
            if read is not None:
                return read
        if holding_lock:
            raise RuntimeError("a profile part vanished while the cache lock was held")
        with self._lock():
            return self._read(raw=raw, holding_lock=True)

    def _try_read(self, raw: bool) -> tuple[list[pa.Table], list[str], dict[str, int]] | None:
        tables: list[pa.Table] = []
        sizes: dict[str, int] = {}
        listed = self.journal_files()
        for path in listed:
            try:
                table, size = self._journal_events(path, raw=raw)
            except FileNotFoundError:
                continue
            tables.append(table)
            if size:
                sizes[path.name] = size
        with self._mutex:  # forget journals folded since
            for name in set(self._journals_seen) - {p.name for p in listed}:
                del self._journals_seen[name]
        parts: list[pa.Table] = []
        names: list[str] = []
        for path in self.part_files():
            try:
                table = self._part_events(path, raw=raw)
            except FileNotFoundError:
                return None
            if table is not None:
                parts.append(table)
                names.append(path.name)
        if not raw:
            parts = [self._combined(names, parts)]
        return parts + tables, names, sizes

    def _combined(self, names: list[str], parts: list[pa.Table]) -> pa.Table:
        """The parts' events as one table (kept while the parts stay the same)."""
        with self._mutex:
            for name in set(self._parts_seen) - set(names):  # compacted away since
                del self._parts_seen[name]
            key = tuple((name, self._parts_seen[name][0]) for name in names
                        if name in self._parts_seen)
            if self._parts_all is None or self._parts_all[0] != key:
                table = pa.concat_tables(parts) if parts else _INDEX_SCHEMA.empty_table()
                self._parts_all = (key, table)
            return self._parts_all[1]

    def _journal_events(self, path: Path, *, raw: bool) -> tuple[pa.Table, int]:
        """A journal's events and the bytes read; only the new lines are read when ``raw``
        is not wanted (journals only grow)."""
        if raw:
            read = read_journal(path)
            return read.table, read.size
        with self._mutex:
            end, _, known = self._journals_seen.get(path.name, (0, 0, None))
        read = read_journal(path, end, raw=False)
        table = read.table if known is None else pa.concat_tables([known, read.table])
        with self._mutex:
            self._journals_seen[path.name] = (read.end, read.size, table)
        return table, read.size

    def _part_events(self, path: Path, *, raw: bool) -> pa.Table | None:
        """One part's events (None when unreadable: set aside). Raises FileNotFoundError."""
        stat = path.stat()
        key = (stat.st_size, stat.st_mtime_ns)
        if not raw:
            with self._mutex:
                seen = self._parts_seen.get(path.name)
            if seen is not None and seen[0] == key:
                return seen[1]
        try:
            table = _read_part(path, raw=raw)
        except FileNotFoundError:
            raise
        except (pa.ArrowException, OSError, ValueError, KeyError) as exc:
            self._quarantine(path, exc)
            return None
        if not raw:
            with self._mutex:
                self._parts_seen[path.name] = (key, table)
        return table

    def compact_locked(self, parts: list[Path]) -> str:
        """Merge ``parts`` (in append order) into one new part; return its name.

        The merged part keeps what the fetch state needs (per id the copy in use
        and the failures after it, in order) under a number after every part.
        The merged parts are removed newest first, so a crash in between
        leaves only the oldest of them, whose events precede the merged ones
        anyway. The caller holds :meth:`lock` (the derived tables keep their
        state in step).
        """
        tables = []
        for path in parts:
            with contextlib.suppress(FileNotFoundError):
                table = self._part_events(path, raw=True)
                if table is not None:
                    tables.append(table)
        name = self._write_part(reduce_events(distinct_events(tables)))
        for path in reversed(parts):
            path.unlink(missing_ok=True)
        return name


def part_name(seq: int) -> str:
    """The file name of the part numbered ``seq``.

    Examples
    --------
    >>> part_name(42)
    'part-0000000042.parquet'
    """
    return f"part-{seq:010d}.parquet"


def _part_key(path: Path) -> tuple[int, int, str]:
    # Parts of the first cache layout were named by their time ("part-20260101T...");
    # they come first, in name order, as they were read then.
    match = PART_NAME.fullmatch(path.name)
    return (1, int(match.group(1)), "") if match else (0, 0, path.name)


def part_files(directory: Path) -> list[Path]:
    """The profile parts in ``directory`` in append order."""
    if not directory.is_dir():
        return []
    return sorted(directory.glob("part-*.parquet"), key=_part_key)


_INDEX_SCHEMA = EVENT_SCHEMA.remove(EVENT_SCHEMA.get_field_index("raw"))
_FIRST_LAYOUT = ["id", "status", "summary", "fetched_at", "raw"]


def _read_part(path: Path, *, raw: bool) -> pa.Table:
    """The events of a part file, without ``raw`` unless asked for."""
    schema = EVENT_SCHEMA if raw else _INDEX_SCHEMA
    if "event" in pq.read_schema(path).names:
        return pq.read_table(path, columns=schema.names).cast(schema)
    # A part of the first layout: copies only, in the order they were read then.
    table = pq.read_table(path, columns=_FIRST_LAYOUT)
    gone = pc.equal(table.column("raw"), GONE).fill_null(False)
    table = (table.append_column("state", pc.if_else(gone, "gone", "fetched"))
             .append_column("reason", pa.nulls(table.num_rows, pa.string()))
             .append_column("event", pa.array([f"{path.name}:{i}"
                                               for i in range(table.num_rows)])))
    return table.select(schema.names).cast(schema)

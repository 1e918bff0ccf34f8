"""The raw store under the cache dir: fetch events of profiles, list results, the filter set.

It keeps what the service sent and imports no parser: the tidy tables are
derived from it by :mod:`icoframes.store.derived`.

Layout, one folder per service address (``<cache_dir>/<host>_<port>/``)::

    profiles/journal-<seq>-<token>.jsonl  events not folded yet, one JSON line each, appended
                                          by the live (or dead) process <token>
    profiles/writer-<token>.lock          held by process <token> while it lives
    profiles/part-<seq>.parquet           folded events: id, status, summary, fetched_at,
                                          state, reason, raw, event
    profiles/.seq                         the counter numbering parts and journals
    claims/<id>.claim                     the crawl fetching that id (owner-<token>.lock: alive)
    tables/<table>.parquet                the tidy tables over every cached profile (derived)
    tables/_state.json                    the parts and journal sizes they were built from
    lists/<query>.parquet                 list results per query, query and fetch time as metadata
    filters.parquet                       the filter set
    quota/<key-hash>.json                 requests spent per public key and UTC day
    .lock                                 the folder's lock

Profiles: every fetch outcome is an *event* (fetched, gone: error 482, failed:
with a reason) appended to the process's journal and on disk when
:meth:`Cache.append` returns (:mod:`icoframes.store.journal`). :meth:`Cache.fold`
turns journals into Parquet parts in batches, under the folder's lock: this
process's, and the orphans of dead processes. Readers see parts and journals
alike (live, orphaned or folded). Which copy of a profile is in use, and its
fetch state, follow from the order the events were appended (parts by number,
then journals by number, lines in order), never from the clock
(:mod:`icoframes.store.events`). Claims (:mod:`icoframes.store.claims`) let
processes sharing the folder fetch each profile once.

Every other file is written to a temporary name in its folder and then renamed
over the target, so a reader sees either the old or the new file, never half
of one. Updates that read and rewrite (folds, compaction, the derived tables,
the ledger) hold the folder's lock (:func:`icoframes.files.locked`). A file that
cannot be read is renamed ``*.corrupt``, reported in a warning and rebuilt or
re-fetched.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import shutil
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import CacheWarning, warn
from ..files import atomic_write_table, locked, utcnow
from ..schema import TableSchema
from ..tables import frame_from_arrow
from .claims import Claims
from .events import distinct_events, fetch_state, latest_copies, reduce_events
from .journal import (
    EVENT_SCHEMA,
    GONE,
    ProfileRecord,
    hold_if_dead,
    journal_files,
    journal_token,
    next_seq,
    part_files,
    part_name,
    read_journal,
    release_dead,
    writer_of,
)

__all__ = ["GONE", "Cache", "EventSnapshot", "ProfileRecord", "Stored"]

# Tries at a consistent read of parts and journals before taking the lock (a compaction
# removing parts between listing and reading them is the only reason to try again).
_READ_TRIES = 8


class Stored(NamedTuple):
    """A stored list or filter set: the frame, when it was fetched, and its metadata."""

    frame: pd.DataFrame
    fetched_at: dt.datetime
    meta: dict[str, Any]


class EventSnapshot(NamedTuple):
    """Every profile event in append order, and the files read (for the derived tables)."""

    events: pa.Table
    parts: list[str]  # names of the parts read, in order
    journals: dict[str, int]  # journal name -> bytes read, for journals holding events


def _namespace(base_url: str) -> str:
    parts = urlsplit(base_url)
    host = (parts.hostname or "local").replace(":", "_")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    path = parts.path.strip("/").replace("/", "_")
    return f"{host}_{port}" + (f"_{path}" if path else "")


class Cache:
    """The store of one service address under ``root``.

    Parameters
    ----------
    root : path-like
        The cache dir (see :mod:`icoframes.config`).
    base_url : str
        The service address; each address gets its own folder.
    """

    def __init__(self, root: str | os.PathLike[str], base_url: str) -> None:
        self.root = Path(root)
        self.dir = self.root / _namespace(base_url)
        self.profiles_dir = self.dir / "profiles"
        self.tables_dir = self.dir / "tables"
        self.lists_dir = self.dir / "lists"
        self.claims_dir = self.dir / "claims"
        # what this object read of immutable parts and append-only journals: later
        # reads only read what is new (the crawl asks for fetch states often)
        self._mutex = threading.Lock()
        self._parts_seen: dict[str, tuple[tuple[int, int], pa.Table]] = {}
        self._journals_seen: dict[str, tuple[int, int, pa.Table]] = {}
        self._parts_all: tuple[tuple[Any, ...], pa.Table] | None = None

    def __repr__(self) -> str:
        return f"Cache({str(self.dir)!r})"

    # -- locking -------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the folder's exclusive lock across threads and processes (not re-entrant)."""
        with locked(self.dir / ".lock"):
            yield

    def quarantine(self, path: Path, exc: BaseException) -> None:
        """Set an unreadable file aside as ``*.corrupt`` and say so in a :class:`CacheWarning`."""
        warn(
            f"icoframes cache file {path} is unreadable ({type(exc).__name__}: {exc}); "
            "it was set aside as *.corrupt and its content will be rebuilt or re-fetched",
            CacheWarning,
        )
        with contextlib.suppress(OSError):
            os.replace(path, path.with_name(path.name + ".corrupt"))

    # -- profiles: recording ---------------------------------------------------------

    def append(self, record: ProfileRecord) -> None:
        """Record one fetch outcome in this process's journal; durable on return.

        Durable against a crash or SIGKILL of this process (not a power cut).
        A record whose ``raw`` is :data:`GONE` is a ``gone`` event; a failure's
        ``raw`` is not kept. Thread-safe.
        """
        writer_of(self.profiles_dir, create=True).append(record)  # type: ignore[union-attr]

    def write_profiles(self, records: Iterable[ProfileRecord]) -> None:
        """Append ``records`` and fold them into a part at once."""
        for record in records:
            self.append(record)
        self.fold()

    def fold(self) -> None:
        """Turn this process's journal so far, and orphaned journals, into one part.

        Under the folder's lock. Journals of dead processes (their writer lock
        can be taken) are folded first, then this process's, which goes on in
        a new file. A journal is removed only once its events are in a part;
        a crash in between leaves the same events twice, and readers count
        them once. Returns at once when there is nothing to fold.
        """
        own = writer_of(self.profiles_dir, create=False)
        if not (own is not None and own.pending()) and not self._dead_writers(probe=True):
            return
        with self.lock():
            dead = self._dead_writers()
            try:
                paths = [p for p in self.journal_files() if journal_token(p) in dead]
                mine = own.rotate() if own is not None else []
                tables = []
                for path in [*paths, *mine]:
                    with contextlib.suppress(FileNotFoundError):
                        tables.append(read_journal(path).table)
                events = pa.concat_tables(tables) if tables else EVENT_SCHEMA.empty_table()
                if events.num_rows:
                    self._write_part(events)
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
        own = writer_of(self.profiles_dir, create=False)
        tokens = {journal_token(p) for p in self.journal_files()}
        if not probe and self.profiles_dir.is_dir():  # also the locks of writers that left none
            tokens |= {p.name[len("writer-"):-len(".lock")]
                       for p in self.profiles_dir.glob("writer-*.lock")}
        tokens.discard(own.token if own is not None else "")
        dead = {}
        for token in sorted(tokens):
            lock = hold_if_dead(self.profiles_dir, token)
            if lock is None:
                continue
            if probe:
                lock.release()
                return {token: None}
            dead[token] = lock
        return dead

    def _write_part(self, events: pa.Table) -> str:
        name = part_name(next_seq(self.profiles_dir))
        atomic_write_table(events.select(EVENT_SCHEMA.names).cast(EVENT_SCHEMA),
                           self.profiles_dir / name)
        return name

    def claims(self) -> Claims:
        """Claims on profile ids for one crawl, shared with every process using this folder."""
        return Claims(self.claims_dir)

    # -- profiles: reading --------------------------------------------------------------

    def part_files(self) -> list[Path]:
        """The profile parts, in append order."""
        return part_files(self.profiles_dir)

    def journal_files(self) -> list[Path]:
        """The journals (live or orphaned), in the order they were started."""
        return journal_files(self.profiles_dir)

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
        with self.lock():
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
            self.quarantine(path, exc)
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

    # -- list results and the filter set ---------------------------------------

    @staticmethod
    def list_key(params: dict[str, Any]) -> str:
        canonical = json.dumps(params, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()[:24]

    def write_list(self, params: dict[str, Any], frame: pd.DataFrame, schema: TableSchema,
                   *, total_icos: int, problems: list[dict[str, Any]] | None = None) -> None:
        """Store a list result with the query that produced it and the values it lost."""
        meta = {"params": params, "total_icos": total_icos, "problems": problems or []}
        self._write_frame(self.lists_dir / f"{self.list_key(params)}.parquet", frame, schema,
                          meta)

    def read_list(self, params: dict[str, Any], schema: TableSchema) -> Stored | None:
        """The cached list for these parameters, when it was fetched and its metadata."""
        return self._read_frame(self.lists_dir / f"{self.list_key(params)}.parquet", schema)

    def write_frame(self, name: str, frame: pd.DataFrame, schema: TableSchema, *,
                    problems: list[dict[str, Any]] | None = None) -> None:
        """Store a small frame (the filter set) under ``name``."""
        self._write_frame(self.dir / f"{name}.parquet", frame, schema,
                          {"problems": problems or []})

    def read_frame(self, name: str, schema: TableSchema) -> Stored | None:
        """A frame stored by :meth:`write_frame`, when it was fetched and its metadata."""
        return self._read_frame(self.dir / f"{name}.parquet", schema)

    def _write_frame(self, path: Path, frame: pd.DataFrame, schema: TableSchema,
                     meta: dict[str, Any]) -> None:
        table = pa.Table.from_pandas(frame, schema=schema.arrow_schema(), preserve_index=False)
        meta = {**meta, "fetched_at": utcnow().isoformat()}
        table = table.replace_schema_metadata(
            {**(table.schema.metadata or {}),
             b"icoframes": json.dumps(meta, ensure_ascii=False).encode()})
        atomic_write_table(table, path)

    def _read_frame(self, path: Path, schema: TableSchema) -> Stored | None:
        try:
            table = pq.read_table(path)
            meta = json.loads(table.schema.metadata[b"icoframes"])
            fetched_at = dt.datetime.fromisoformat(meta["fetched_at"])
            frame = frame_from_arrow(schema, table.replace_schema_metadata(None),
                                     source=str(path))
        except FileNotFoundError:
            return None
        except (pa.ArrowException, OSError, KeyError, ValueError, TypeError) as exc:
            self.quarantine(path, exc)
            return None
        return Stored(frame, fetched_at, meta)

    # -- housekeeping --------------------------------------------------------

    def info(self) -> dict[str, Any]:
        """What is cached: path, size, profiles by fetch state, parts, journals, lists.

        ``states`` counts ids by fetch state (see :meth:`profile_index`), plus
        ``not_fetched``: ids in a cached list without any event.
        """
        files = [p for p in self.dir.rglob("*") if p.is_file()] if self.dir.is_dir() else []
        index = self.profile_index()
        counts = index["state"].value_counts()
        states = {state: int(counts.get(state, 0)) for state in ("fetched", "gone", "failed")}
        states["not_fetched"] = len(self._listed_ids().difference(index.index))
        copies = index.loc[index["state"] != "failed", "fetched_at"]
        return {
            "path": str(self.dir),
            "size_bytes": sum(p.stat().st_size for p in files),
            "profiles": states["fetched"],
            "listed_without_profile": states["gone"],
            "profile_parts": len(self.part_files()),
            "profile_journals": sum(1 for p in self.journal_files() if p.stat().st_size),
            "list_queries": len(list(self.lists_dir.glob("*.parquet")))
            if self.lists_dir.is_dir() else 0,
            "oldest_profile": None if copies.empty else copies.min().to_pydatetime(),
            "newest_profile": None if copies.empty else copies.max().to_pydatetime(),
            "states": states,
        }

    def _listed_ids(self) -> pd.Index:
        """Every id in a cached list."""
        ids = []
        paths = sorted(self.lists_dir.glob("*.parquet")) if self.lists_dir.is_dir() else []
        for path in paths:
            with contextlib.suppress(pa.ArrowException, OSError, KeyError):
                ids.append(pq.read_table(path, columns=["id"]).column("id").to_numpy())
        return pd.Index(pd.unique(pd.Series([i for chunk in ids for i in chunk], dtype="int64")))

    def clear(self) -> None:
        """Delete everything cached for this service address (the request ledger is kept)."""
        with self.lock():
            for child in self.dir.iterdir():
                if child.name == ".lock":  # other processes may hold it
                    continue
                if child.is_dir():
                    shutil.rmtree(child, ignore_errors=True)
                else:
                    child.unlink(missing_ok=True)




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

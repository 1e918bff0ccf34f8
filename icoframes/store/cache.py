"""The raw store of one service: what the service sent, in ``<service>/cache.sqlite3``.

The tables (:data:`SCHEMA`), fetch states, the change counter (``meta.version``: "did it
arrive since I planned" is ``version > planned``, never a clock) and what becomes of a
record that cannot be read are documented in ``docs/guide/cache.md``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import hashlib
import json
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final, NamedTuple, TypeVar, cast
from urllib.parse import urlsplit

import pandas as pd
import pyarrow as pa

from ..errors import CacheWarning, warn
from ..files import utcnow
from ..parse.lists import filters_frame, list_frame
from ..schema import FILTERS, LIST, TableSchema
from ..tables import frame_from_arrow
from .claims import Claims
from .db import IDS_IN, Database, InDatabase, Undecodable, from_ms, ms, other_layout
from .folders import InUse
from .rows import (
    DAMAGED,
    INDEX_COLUMNS,
    ProfileRecord,
    Snapshot,
    add_list_columns,
    damaged_profiles,
    empty_index,
    index_frame,
    keep_list,
    next_version,
    record_in,
    repair_counter,
)

# (ProfileRecord, kept by :meth:`Cache.record`, is named here too: where its callers look)
__all__ = ["DB_NAME", "FILTER_SET", "LOCK_NAME", "TABLES_DIR", "WRITE_PROBE", "Cache",
           "ProfileRecord", "Stored", "holding", "ipc"]

DB_NAME: Final = "cache.sqlite3"
LOCK_NAME: Final = ".lock"  #: the service folder's lock: housekeeping and the derived tables
TABLES_DIR: Final = "tables"  #: the folder of the derived tables (:mod:`.derived`)
FILTER_SET: Final = "filters"  #: the key of the filter set in ``lists``
_LIST_COLUMNS: Final = ("params", "raw", "frame", "total_icos", "complete", "failed_pages",
                        "problems", "fetched_at")  # (of SCHEMA: every row of lists has them)
#: How the writability probe's file is named (fetch.service.check_writable): a kill between
#: its making and its removal leaves it, and housekeeping prunes leftovers by this prefix.
WRITE_PROBE: Final = ".write-test-"
_F = TypeVar("_F", bound=Callable[..., Any])

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS profiles (
    id INTEGER PRIMARY KEY, state TEXT NOT NULL CHECK (state IN ('fetched', 'gone', 'failed')),
    status TEXT, summary TEXT, raw TEXT, fetched_at INTEGER, version INTEGER,
    reason TEXT, attempts INTEGER NOT NULL DEFAULT 0, failed_at INTEGER);
CREATE INDEX IF NOT EXISTS profiles_by_version ON profiles (version);
CREATE INDEX IF NOT EXISTS profiles_failing ON profiles (id) WHERE attempts > 0;
-- lists gets rows.ADDED_LIST_COLUMNS (paged_at, sorted_otherwise) as a list is first kept
CREATE TABLE IF NOT EXISTS lists (
    key TEXT PRIMARY KEY, params TEXT NOT NULL, raw TEXT NOT NULL, frame BLOB,
    total_icos INTEGER, complete INTEGER NOT NULL, failed_pages TEXT NOT NULL,
    problems TEXT NOT NULL, fetched_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS claims (
    id INTEGER PRIMARY KEY, owner TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL,
    expires REAL NOT NULL);
-- 0 in a new cache only: gone beside copies, it is repaired (rows.repair_counter), never 0
INSERT OR IGNORE INTO meta SELECT 'version', 0 WHERE NOT EXISTS (SELECT 1 FROM profiles)
    UNION ALL SELECT 'removed', 0 WHERE NOT EXISTS (SELECT 1 FROM profiles);
"""

#: Frames decoded from stored answers, by schema, database and key, with the digest of the
#: bytes each was decoded from (used again for those very bytes only, as a copy): a load
#: answered from the cache reads every list cached since its source, on each load.
_DECODED: OrderedDict[tuple[str, str, str], tuple[bytes, pd.DataFrame]] = OrderedDict()
_DECODED_ROWS = 200_000  # at most, over all the frames kept (the least recently read go)
_decoded_lock = threading.Lock()


def _decoded(schema: TableSchema, where: str, key: str, frame: bytes) -> pd.DataFrame:
    """The stored ``frame`` (Arrow IPC bytes) of ``key`` as a frame of ``schema``."""
    at, digest = (schema.name, where, key), hashlib.blake2b(frame, digest_size=16).digest()
    with _decoded_lock:
        if (kept := _DECODED.get(at)) is not None and kept[0] == digest:
            _DECODED.move_to_end(at)
            return kept[1].copy()  # (deep: the caller may change its frame in place)
    table = frame_from_arrow(schema, pa.ipc.open_stream(frame).read_all(), source=where)
    with _decoded_lock:
        _DECODED[at] = (digest, table.copy())
        while sum(len(t) for _, t in _DECODED.values()) > _DECODED_ROWS and len(_DECODED) > 1:
            _DECODED.popitem(last=False)
    return table


class Stored(NamedTuple):
    """A stored list or filter set: the frame, when it was fetched, its metadata (a list's
    ``items``: how many the service sent), and the raw text, decoded only by :attr:`raw`
    (decoding a long list's items costs as much as the rest of reading it)."""

    frame: pd.DataFrame
    fetched_at: dt.datetime
    meta: dict[str, Any]
    raw_text: str = "null"

    @property
    def raw(self) -> Any:
        """The answer as the service sent it (decoded at each access)."""
        return json.loads(self.raw_text)


def _namespace(service: str) -> str:
    """The folder of a service: its name as given, or ``<host>_<port>[_<path>]`` of its address.

    >>> _namespace("http://127.0.0.1:8000"), _namespace("sandbox-0-1000-0123abcd")
    ('127.0.0.1_8000', 'sandbox-0-1000-0123abcd')
    """
    if "://" not in service:
        return service
    parts = urlsplit(service)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    path = parts.path.strip("/").replace("/", "_")
    return f"{(parts.hostname or 'local').replace(':', '_')}_{port}" + (f"_{path}" * bool(path))


def ipc(frame: pd.DataFrame, schema: TableSchema) -> bytes:
    """``frame`` as an Arrow IPC stream of ``schema`` (how ``lists.frame`` is kept)."""
    table = pa.Table.from_pandas(frame, schema=schema.arrow_schema(), preserve_index=False)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def holding(method: _F) -> _F:
    """A method of a load (an object with a ``cache``) during which its folder is held
    (:meth:`.folders.InUse.hold`): a prune in this process too leaves it alone until it returns."""
    @functools.wraps(method)
    def held(self: Any, *args: Any, **kwargs: Any) -> Any:
        counted: list[int] = []
        try:  # (hold inside: a Ctrl-C landing as it returns leaves no hold behind)
            self.cache.in_use.hold(counted)
            return method(self, *args, **kwargs)
        finally:
            self.cache.in_use.release(counted)
    return cast(_F, held)


class Cache(InDatabase):
    """The raw store of one service under the cache dir ``root`` (refused when another
    user owns it or others may write to it); ``base_url`` is the service's identity
    (``Settings.service_id``): each gets its own folder."""

    SCHEMA = SCHEMA

    def __init__(self, root: str | os.PathLike[str], base_url: str) -> None:
        self.root = Path(root)
        self.dir = self.root / _namespace(base_url)
        self.path = self.dir / DB_NAME
        self.lock = self.dir / LOCK_NAME
        self.tables_dir = self.dir / TABLES_DIR
        self._skipped: set[int] = set()  # damaged, in a cache that cannot remove them: not read
        #: id -> why its copy was quarantined by this object, and whether it was removed
        self.set_aside: dict[int, tuple[str, bool]] = {}
        self.in_use = InUse(self.root, self.dir)  # a load's hold on the folder (holding)

    def __repr__(self) -> str:
        return f"Cache({str(self.dir)!r})"

    def database(self, *, write: bool = True) -> Database | None:
        db = super().database(write=write)
        if db is not None:  # a read too: a load waiting on another's paging reads only
            self.in_use.retake()  # (a cold load's folder is made by its first use)
        return db

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, in which a damaged change counter is repaired first (said
        once committed: a warning raised as an error inside would roll the repair back)."""
        with super().write() as conn:  # the folder is there now: made again when removed
            self.in_use.retake()  # meanwhile (a clear), which the retake above came before
            repaired = repair_counter(conn)
            yield conn
        if repaired is not None:
            warn(f"icoframes cache: the change counter of {self.path} was damaged; it was "
                 f"set to {repaired} and the tables are rebuilt", CacheWarning)

    def _read(self) -> contextlib.AbstractContextManager[sqlite3.Connection | None]:
        db = self.database(write=False)
        return contextlib.nullcontext(None) if db is None else db.read()

    # -- profiles --------------------------------------------------------------------------

    def record(self, *records: ProfileRecord,
               failed_at: Callable[[int], dt.datetime] | None = None) -> list[int]:
        """Keep fetch outcomes in one transaction, in order; on disk on return. The version
        of each (0 for a failure). A copy is dated now; a failure now, or at what
        ``failed_at`` (a load's :func:`~icoframes.fetch.policy.failure_stamp`) gives for the
        failures in a row the record makes (1: the first since the copy)."""
        now = ms(utcnow())
        stamp = None if failed_at is None else lambda failures: ms(failed_at(failures))
        with self.write() as conn:
            return [record_in(conn, record, now, stamp) for record in records]

    def version(self) -> int:
        """The change counter: compare two to know whether a copy arrived in between."""
        with self.snapshot() as snap:
            return snap.version

    def profile_index(self) -> pd.DataFrame:
        """One row per id with an outcome (sorted): ``status``, ``summary``, ``fetched_at``
        and ``version`` of the copy in use (missing without one), ``state``, and the
        failures since the copy: ``reason`` (the last), ``attempts`` (0: none), ``failed_at``."""
        return self._index("1")

    def failing_copies(self) -> pd.DataFrame:
        """The ids whose copy in use is out of date: a fetch to replace it failed since
        (``reason``, ``attempts``, ``failed_at``; indexed by id, as :meth:`profile_index`)."""
        # (read by every load: the partial index finds the few without scanning every copy)
        return self._index("attempts > 0 AND state != 'failed'")

    def _index(self, where: str) -> pd.DataFrame:
        """The index of the rows ``where`` selects; when a row does not read, the damaged
        rows are set aside and the rest read again (none found: another process removed
        them first, or the read fails again as it did)."""
        try:
            return self._read_index(where)
        except (Undecodable, ValueError, TypeError):
            with self._read() as conn:  # one scan
                found = set() if conn is None else set(damaged_profiles(conn)) - self._skipped
            self.quarantine(dict.fromkeys(found), DAMAGED)
        return self._read_index(where)

    def _read_index(self, where: str) -> pd.DataFrame:
        rows = self._rows(f"SELECT id, {', '.join(INDEX_COLUMNS)} FROM profiles WHERE {where} "
                          f"AND NOT {IDS_IN} ORDER BY id", json.dumps(sorted(self._skipped)))
        return index_frame(rows) if rows else empty_index().copy()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[Snapshot]:
        """The profiles as of now, read in one transaction (for the derived tables); a
        damaged change counter is repaired first, where the cache can be written."""
        for repair in (not self._read_only(), False):
            with self._read() as conn:
                if not (snap := Snapshot(conn, self._skipped)).damaged or not repair:
                    yield snap
                    return
            with self.write():
                pass  # (which repairs it)

    def _read_only(self) -> bool:
        return (db := self.database(write=False)) is not None and db.read_only

    def quarantine(self, seen: Mapping[int, int | None], why: str, *,
                   removed: int | None = None) -> int | None:
        """Remove copies that cannot be read (they are fetched again), and say so: ``seen``
        maps each id to the version of the copy that did not read, or None for a row whose
        fields did not (:func:`~.rows.damaged_profiles`, checked again here). A copy another
        process stored since is kept. A cache that cannot be written leaves them out of this
        object's reads instead. ``removed``: the removal mark of the reading that found them
        (``Snapshot.removed``); the mark now, when no other removal came between (else None)."""
        if not (ids := sorted({int(i) for i in seen})):
            return removed
        read_only = self._read_only()  # (a load's report says why of an id left without a
        self.set_aside.update(dict.fromkeys(ids, (why, not read_only)))  # row, and if it goes)
        if read_only:
            self._skipped.update(ids)
            removed = None
        else:
            with self.write() as conn:  # (checked in the transaction that removes them)
                damaged = set(damaged_profiles(conn, [i for i in ids if seen[i] is None]))
                ids = [i for i in ids if i in damaged or (seen[i] is not None and conn.execute(
                    "SELECT 1 FROM profiles WHERE id = ? AND version IS ?", (i, seen[i])
                ).fetchone())]
                if ids:
                    before = conn.execute("SELECT value FROM meta WHERE key = 'removed'").fetchone()
                    mark = next_version(conn)
                    conn.execute("UPDATE meta SET value = ? WHERE key = 'removed'", (mark,))
                    conn.execute(f"DELETE FROM profiles WHERE {IDS_IN}", (json.dumps(ids),))
                    removed = mark if before == (removed,) != (None,) else None
        if ids:
            warn(f"icoframes cache: {len(ids)} stored profile(s) could not be read ({why}); "
                 + ("the cache is read-only here: they are left out" if read_only else
                    "they were removed and will be fetched again") + f": ids {ids[:10]}",
                 CacheWarning)
        return removed

    def claims(self) -> Claims:
        """Claims on profile ids for one crawl, shared with every process using this folder."""
        return Claims(self.database())  # type: ignore[arg-type]

    # -- list results and the filter set ---------------------------------------------------

    @staticmethod
    def list_key(params: dict[str, Any]) -> str:
        canonical = json.dumps(params, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()[:24]

    def write_list(self, params: dict[str, Any], items: list[Any], frame: pd.DataFrame, *,
                   total_icos: int, problems: list[dict[str, Any]] | None = None,
                   complete: bool = True, failed_pages: dict[int, str] | None = None,
                   fetched_at: dt.datetime | None = None, paged_at: dt.datetime | None = None
                   ) -> None:
        """Keep a list result: the items as the service sent them, and parsed; whether it is
        complete (its ids cover ``total_icos``), the pages that failed, the values lost;
        ``fetched_at``: when it was paged (now by default); ``paged_at``: its page 1, when every
        row is of that paging (an export's ``fetched_at`` stops at its day's last ms)."""
        with self.write() as conn:
            keep_list(conn, self.list_key(params), params, items, ipc(frame, LIST), total_icos,
                      complete, failed_pages, problems, ms(fetched_at or utcnow()),
                      None if paged_at is None else ms(paged_at))

    def mark_sorted_otherwise(self, params: dict[str, Any], fetched_at: dt.datetime) -> bool:
        """Mark the complete cached list of ``params`` paged at ``fetched_at`` (that paging
        only) as sorted by the service otherwise than by the dates its profiles show (read
        back in ``meta``; a later write of the list clears the mark). Whether a row was."""
        with self.write() as conn:
            add_list_columns(conn)
            return conn.execute("UPDATE lists SET sorted_otherwise = 1 WHERE key = ? AND "
                                "fetched_at = ? AND complete", (self.list_key(params),
                                                                ms(fetched_at))).rowcount > 0

    def write_filters(self, raw: dict[str, Any], frame: pd.DataFrame, *,
                      problems: list[dict[str, Any]] | None = None,
                      fetched_at: dt.datetime | None = None) -> None:
        """Keep the filter set: as the service sent it, and parsed; ``fetched_at``: when it
        was asked for (now by default)."""
        with self.write() as conn:
            keep_list(conn, FILTER_SET, FILTER_SET, raw, ipc(frame, FILTERS), None, True, None,
                      problems, ms(fetched_at or utcnow()))

    def read_list(self, params: dict[str, Any]) -> Stored | None:
        """The cached list for these parameters (None when there is none)."""
        return self._answer(self.list_key(params), LIST,
                            lambda items, asked: list_frame(items, status=asked.get("status")))

    def list_fetched_at(self, params: dict[str, Any]) -> dt.datetime | None:
        """When the cached list for these parameters was fetched (None: none is cached); one
        small read, no list decoded."""
        rows = self._rows("SELECT fetched_at FROM lists WHERE key = ?", self.list_key(params))
        return from_ms(rows[0][0]) if rows else None

    def list_params(self, *, fetched_after: dt.datetime | None = None) -> list[dict[str, Any]]:
        """The parameters of each cached list (``fetched_after``: those fetched after then)."""
        after, found = -(2 ** 62) if fetched_after is None else ms(fetched_after), []
        for rowid, text in self._rows("SELECT rowid, CAST(params AS BLOB) FROM lists WHERE key "
                                      "!= ? AND fetched_at > ? ORDER BY key", FILTER_SET, after):
            with contextlib.suppress(ValueError, TypeError):  # (else removed, as by _answer)
                if isinstance(params := json.loads(text), dict):
                    found.append(params)
                    continue
            gone = not self._read_only() and self._rows(  # (unless rewritten meanwhile)
                "DELETE FROM lists WHERE rowid = ? AND CAST(params AS BLOB) IS ? RETURNING 1",
                rowid, text, write=True)
            warn(f"icoframes cache: a stored list's parameters in {self.path} do not read; it is "
                 f"{'removed' if gone else 'left out'} (paged again when asked for)", CacheWarning)
        return found

    def read_filters(self) -> Stored | None:
        """The cached filter set (None when there is none)."""
        return self._answer(FILTER_SET, FILTERS, lambda raw, _: filters_frame(raw))

    def _answer(self, key: str, schema: TableSchema,
                parse: Callable[[Any, Any], pd.DataFrame]) -> Stored | None:
        """A kept answer: its frame as stored, or parsed again from the raw when the stored
        one no longer reads (another schema); removed, with a warning, when neither reads."""
        try:
            with self._read() as conn:  # (by name: a cache lacks the added columns until a
                if conn is None:  # list is kept in it, in the order its writers added them)
                    return None
                cursor = conn.execute("SELECT *, CASE WHEN json_valid(raw) AND json_type(raw) "
                                      "= 'array' THEN json_array_length(raw) END AS items "
                                      "FROM lists WHERE key = ?", (key,))
                if (found := cursor.fetchone()) is None:
                    return None
                row = dict(zip([column[0] for column in cursor.description], found, strict=True))
            if gone := sorted(set(_LIST_COLUMNS) - set(row)):  # (the next write would fail too)
                raise other_layout(self.path, f"no column {', '.join(gone)}")
            params, text, items, table = json.loads(row["params"]), row["raw"], row["items"], None
            with contextlib.suppress(pa.ArrowException, ValueError, TypeError):
                table = _decoded(schema, str(self.path), key, row["frame"])
            if table is None or items is None:  # the raw read here: parsed, or counted
                raw = json.loads(text)
                items = len(raw) if isinstance(raw, list) else None
                table = parse(raw, params) if table is None else table
            meta = {"params": params, "total_icos": row["total_icos"],
                    "failed_pages": json.loads(row["failed_pages"]),
                    "complete": bool(row["complete"]), "problems": json.loads(row["problems"]),
                    **({} if items is None else {"items": items}),  # (a list's)
                    **({"sorted_otherwise": True} if row.get("sorted_otherwise") else {}),
                    **({} if row.get("paged_at") is None else
                       {"paged_at": from_ms(row["paged_at"])})}
            return Stored(table, from_ms(row["fetched_at"]), meta, text)
        except (KeyError, ValueError, TypeError, AttributeError, OverflowError,
                Undecodable) as exc:
            with self.write() as conn:
                conn.execute("DELETE FROM lists WHERE key = ?", (key,))
            warn(f"icoframes cache: the stored {schema.name} answer {key} is unreadable "
                 f"({type(exc).__name__}); it was removed and is fetched again", CacheWarning)
            return None

    # -- housekeeping -------------------------------------------------------------------------

    def drop_lists(self, *, fetched_before: dt.datetime) -> list[str]:
        """Delete the list results fetched before then (the next load pages them again)."""
        if self.database(write=False) is None or not self.path.exists():
            return []
        with self.write() as conn:
            return [row[0] for row in conn.execute(
                "DELETE FROM lists WHERE fetched_at < ? AND key != ? RETURNING key",
                (ms(fetched_before), FILTER_SET))]

    def counts(self) -> dict[str, Any]:
        """Profiles by state (``not_fetched``: listed ids without any outcome), list queries,
        the oldest and newest copy's time."""
        states = dict.fromkeys(("fetched", "gone", "failed", "not_fetched"), 0)
        found: tuple[Any, ...] = (0, 0, None, None)
        with self._read() as conn:  # one transaction: a copy kept meanwhile is counted once
            if conn is not None:
                states.update(conn.execute("SELECT state, count(*) FROM profiles GROUP BY state"))
                # the listed ids are those of the items that are objects (a damaged list is
                # read around: the load that reads it removes it)
                found = conn.execute(
                    "SELECT (SELECT count(DISTINCT id) FROM (SELECT CAST(json_extract(item.value,"
                    " '$.id') AS INTEGER) AS id FROM lists, json_each(CASE WHEN json_valid("
                    "lists.raw) THEN lists.raw END) AS item WHERE lists.key != ?1 AND item.type "
                    "= 'object') WHERE id > 0 AND id NOT IN (SELECT id FROM profiles)), (SELECT "
                    "count(*) FROM lists WHERE key != ?1), min(fetched_at), max(fetched_at) FROM "
                    "profiles WHERE typeof(fetched_at) = 'integer'", (FILTER_SET,)).fetchone()
        states["not_fetched"], queries, oldest, newest = found
        return {"states": states, "list_queries": queries, "oldest": from_ms(oldest),
                "newest": from_ms(newest)}

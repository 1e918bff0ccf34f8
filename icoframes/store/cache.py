"""The raw store of one service: what the service sent, in one SQLite database.

One database per service folder, ``<cache_dir>/<service>/cache.sqlite3`` (the
folder is named by the service's address, ``<host>_<port>``, or by the
``service_name`` setting); :mod:`icoframes.store.db` opens it. Its tables
(open it with the ``sqlite3`` shell to look)::

    profiles  id PRIMARY KEY, state ('fetched' | 'gone' | 'failed'), status, summary,
              raw (the profile's JSON text as the gate passed it; NULL when gone),
              fetched_at (ms since the epoch, UTC), version, reason, attempts, failed_at
    lists     key PRIMARY KEY (a hash of the query; 'filters' for the filter set), params,
              raw (the list items, or the filter set, as the service sent them: JSON),
              frame (them parsed: Arrow IPC), total_icos, complete, failed_pages,
              problems (the values the parser could not read), fetched_at
    claims    id PRIMARY KEY, owner, pid, host, expires: leases (:mod:`.claims`)
    meta      key PRIMARY KEY, value: 'version' (the change counter of the copies),
              'removed' (its value when a copy was last removed)

**Profiles.** One row per id: the copy in use (``fetched``, or ``gone``: error
482) and the failures since it (``reason`` of the last, ``attempts``,
``failed_at``); ``state`` is ``failed`` only while no copy exists: a failure
never replaces a copy, a copy resets the failures. Each outcome is one
transaction, on disk when :meth:`Cache.record` returns.

**Order, never clocks.** Every new copy takes the next value of one counter
(``meta.version``) as its ``version``: the copy in use is the last one
recorded, whatever the clock said (``fetched_at`` is for people), and "did
it arrive since I planned" is ``version > planned``.

A record that cannot be read (unparsable JSON, planted or damaged) is removed
by :meth:`Cache.quarantine` with a :class:`~icoframes.errors.CacheWarning`, and
fetched again by the next load.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, NamedTuple
from urllib.parse import urlsplit

import pandas as pd
import pyarrow as pa

from ..errors import CacheWarning, warn
from ..files import utcnow
from ..parse.lists import filters_frame, list_frame
from ..schema import FILTERS, LIST, TEXT_DTYPE, TableSchema
from ..tables import frame_from_arrow
from .claims import Claims
from .db import Database, check_cache_dir, from_ms, ms, private_folder

__all__ = ["DB_NAME", "FILTER_SET", "INDEX_COLUMNS", "Cache", "ProfileRecord", "Snapshot", "Stored",
           "ipc", "keep_list", "record_in"]

DB_NAME: Final = "cache.sqlite3"
#: The key of the filter set among the kept list answers.
FILTER_SET: Final = "filters"
#: The columns of :meth:`Cache.profile_index`, indexed by id.
INDEX_COLUMNS: Final = ("status", "summary", "fetched_at", "state", "reason", "attempts",
                        "failed_at", "version")

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO meta VALUES ('version', 0), ('removed', 0);
CREATE TABLE IF NOT EXISTS profiles (
    id INTEGER PRIMARY KEY, state TEXT NOT NULL CHECK (state IN ('fetched', 'gone', 'failed')),
    status TEXT, summary TEXT, raw TEXT, fetched_at INTEGER, version INTEGER,
    reason TEXT, attempts INTEGER NOT NULL DEFAULT 0, failed_at INTEGER);
CREATE INDEX IF NOT EXISTS profiles_by_version ON profiles (version);
CREATE TABLE IF NOT EXISTS lists (
    key TEXT PRIMARY KEY, params TEXT NOT NULL, raw TEXT NOT NULL, frame BLOB,
    total_icos INTEGER, complete INTEGER NOT NULL, failed_pages TEXT NOT NULL,
    problems TEXT NOT NULL, fetched_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS claims (
    id INTEGER PRIMARY KEY, owner TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL,
    expires REAL NOT NULL);
"""

_IDS = "SELECT value FROM json_each(?)"  # a list of ids as one parameter, of any length


def _utf8(text: str | None) -> str | None:
    """``text`` as valid UTF-8: a lone surrogate (which UTF-8 cannot hold) is escaped
    (``\\ud800``); in JSON text that is the same string, elsewhere it is readable."""
    if text is None or text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


@dataclass(frozen=True)
class ProfileRecord:
    """One fetch outcome of a profile, as the crawl records it.

    ``raw`` is the profile's JSON text (None for a failure or a 482);
    ``state`` ``fetched``, ``gone`` (482) or ``failed``; ``reason`` what went
    wrong (``"HTTP 500"``, ``"not JSON"``) for a failure.
    """

    id: int
    status: str | None
    summary: str | None
    raw: str | None
    state: str = "fetched"
    reason: str | None = None


class Stored(NamedTuple):
    """A stored list or filter set: the frame, when it was fetched, its metadata, the raw."""

    frame: pd.DataFrame
    fetched_at: dt.datetime
    meta: dict[str, Any]
    raw: Any = None


def _namespace(service: str) -> str:
    """The folder of a service: its name as given, or ``<host>_<port>[_<path>]`` of its address.

    >>> _namespace("http://127.0.0.1:8000"), _namespace("sandbox-0-1000-0123abcd")
    ('127.0.0.1_8000', 'sandbox-0-1000-0123abcd')
    """
    if "://" not in service:
        return service
    parts = urlsplit(service)
    host = (parts.hostname or "local").replace(":", "_")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    path = parts.path.strip("/").replace("/", "_")
    return f"{host}_{port}" + (f"_{path}" if path else "")


def ipc(frame: pd.DataFrame, schema: TableSchema) -> bytes:
    table = pa.Table.from_pandas(frame, schema=schema.arrow_schema(), preserve_index=False)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


class Snapshot:
    """The profiles as of one moment (one read transaction): see :meth:`Cache.snapshot`."""

    def __init__(self, conn: sqlite3.Connection | None) -> None:
        self._conn = conn
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall()) if conn else {}
        self.version: int = meta.get("version", 0)  #: the change counter at this moment
        self.removed: int = meta.get("removed", 0)  #: version when a copy was last removed

    def copies(self, since: int = 0, *, batch: int = 2000) -> Iterator[pa.Table]:
        """Copies (fetched and gone) with ``version > since``, in version order, in batches.

        Columns id, state, status, summary, fetched_at (UTC), raw, version.
        """
        if self._conn is None:
            return
        cursor = self._conn.execute(
            "SELECT id, state, status, summary, fetched_at, raw, version FROM profiles "
            "WHERE version > ? ORDER BY version", (since,))
        while rows := cursor.fetchmany(batch):
            yield pa.table([list(c) for c in zip(*rows, strict=True)], schema=_COPY_SCHEMA)


_COPY_SCHEMA = pa.schema([("id", pa.int64()), ("state", pa.string()), ("status", pa.string()),
                          ("summary", pa.string()), ("fetched_at", pa.timestamp("ms", tz="UTC")),
                          ("raw", pa.string()), ("version", pa.int64())])


class Cache:
    """The raw store of one service under ``root``.

    Parameters
    ----------
    root : path-like
        The cache dir (see :mod:`icoframes.config`); refused when another user
        owns it or others may write to it.
    base_url : str
        The service's identity (``Settings.service_id``): its ``service_name``
        when set, else its address; each gets its own folder.
    """

    def __init__(self, root: str | os.PathLike[str], base_url: str) -> None:
        self.root = Path(root)
        self.dir = self.root / _namespace(base_url)
        self.path = self.dir / DB_NAME
        self.tables_dir = self.dir / "tables"
        self._checked = False

    def __repr__(self) -> str:
        return f"Cache({str(self.dir)!r})"

    def _db(self, *, write: bool) -> Database | None:
        """The database, after checking the folders (made, 0700, when writing)."""
        if not self._checked:
            if not check_cache_dir(self.root, create=write) or not private_folder(
                    self.dir, create=write):
                return None
            self._checked = True
        return Database.at(self.path, SCHEMA)

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection | None]:
        db = self._db(write=False)
        if db is None:
            yield None
            return
        with db.read() as conn:
            yield conn

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction on the database (made, with its folder, when missing)."""
        db = self._db(write=True)
        assert db is not None
        with db.write() as conn:
            yield conn

    # -- profiles --------------------------------------------------------------------------

    def record(self, record: ProfileRecord) -> int:
        """Keep one fetch outcome; on disk on return. The version of the copy (0: a failure)."""
        with self.write() as conn:
            return record_in(conn, record, ms(utcnow()))

    def record_many(self, records: Iterable[ProfileRecord]) -> None:
        """Keep several outcomes in one transaction (in order)."""
        now = ms(utcnow())
        with self.write() as conn:
            for record in records:
                record_in(conn, record, now)

    def version(self) -> int:
        """The change counter: compare two to know whether a copy arrived in between."""
        with self._read() as conn:
            return Snapshot(conn).version

    def arrived_since(self, ids: Iterable[int], version: int) -> set[int]:
        """Those of ``ids`` with a copy (fetched or gone) newer than ``version``."""
        with self._read() as conn:
            if conn is None:
                return set()
            rows = conn.execute(f"SELECT id FROM profiles WHERE id IN ({_IDS}) AND version > ?",
                                (_json_ids(ids), version)).fetchall()
        return {row[0] for row in rows}

    def states(self, ids: Iterable[int]) -> dict[int, str]:
        """The fetch state of each of ``ids``: fetched, gone, failed or ``not_fetched``."""
        wanted = [int(i) for i in ids]
        with self._read() as conn:
            rows = [] if conn is None else conn.execute(
                f"SELECT id, state FROM profiles WHERE id IN ({_IDS})",
                (_json_ids(wanted),)).fetchall()
        return {**dict.fromkeys(wanted, "not_fetched"), **dict(rows)}

    def profile_index(self) -> pd.DataFrame:
        """The fetch state of every profile with an outcome, one row per id (sorted).

        Columns ``status``, ``summary``, ``fetched_at`` and ``version`` of the
        copy in use (missing when there is none), ``state`` (``fetched``,
        ``gone``, or ``failed`` when no copy exists), ``reason`` (of the last
        failure since the copy), ``attempts`` (failures since the copy: 0 when
        none) and ``failed_at`` (the last of them).
        """
        with self._read() as conn:
            rows = [] if conn is None else conn.execute(
                "SELECT id, status, summary, fetched_at, state, reason, attempts, failed_at, "
                "version FROM profiles ORDER BY id").fetchall()
        frame = pd.DataFrame.from_records(rows, columns=["id", *INDEX_COLUMNS])
        frame = frame.astype({"id": "int64", "attempts": "int64", "version": "Int64",
                              **dict.fromkeys(("status", "summary", "state", "reason"),
                                              TEXT_DTYPE)})
        for column in ("fetched_at", "failed_at"):
            frame[column] = pd.to_datetime(frame[column].astype("Int64"), unit="ms",
                                           utc=True).astype("datetime64[ms, UTC]")
        return frame.set_index("id")

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[Snapshot]:
        """The profiles as of now, read in one transaction (for the derived tables)."""
        with self._read() as conn:
            yield Snapshot(conn)

    def latest_records(self) -> pa.Table:
        """Every copy in use (fetched and gone), raw text included, in version order."""
        with self.snapshot() as snap:
            return pa.concat_tables([*snap.copies(), _COPY_SCHEMA.empty_table()])

    def quarantine(self, ids: Iterable[int], why: str) -> None:
        """Remove copies that cannot be read (they are fetched again), and say so."""
        ids = sorted({int(i) for i in ids})
        if not ids:
            return
        with self.write() as conn:
            version = _bump(conn)
            conn.execute(f"DELETE FROM profiles WHERE id IN ({_IDS})", (_json_ids(ids),))
            conn.execute("UPDATE meta SET value = ? WHERE key = 'removed'", (version,))
        warn(f"icoframes cache: {len(ids)} stored profile(s) could not be read ({why}); they "
             f"were removed and will be fetched again: ids {ids[:10]}", CacheWarning)

    def claims(self) -> Claims:
        """Claims on profile ids for one crawl, shared with every process using this folder."""
        db = self._db(write=True)
        assert db is not None
        return Claims(db)

    # -- list results and the filter set ---------------------------------------------------

    @staticmethod
    def list_key(params: dict[str, Any]) -> str:
        canonical = json.dumps(params, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()[:24]

    def write_list(self, params: dict[str, Any], items: list[Any], frame: pd.DataFrame, *,
                   total_icos: int, problems: list[dict[str, Any]] | None = None,
                   complete: bool = True, failed_pages: dict[int, str] | None = None) -> None:
        """Keep a list result: the items as the service sent them, and parsed; whether it is
        complete (its ids cover ``total_icos``), the pages that failed, the values lost."""
        with self.write() as conn:
            keep_list(conn, self.list_key(params), params, items, ipc(frame, LIST), total_icos,
                      complete, failed_pages, problems, ms(utcnow()))

    def write_filters(self, raw: dict[str, Any], frame: pd.DataFrame, *,
                      problems: list[dict[str, Any]] | None = None) -> None:
        """Keep the filter set: as the service sent it, and parsed."""
        with self.write() as conn:
            keep_list(conn, FILTER_SET, FILTER_SET, raw, ipc(frame, FILTERS), None, True, None,
                      problems, ms(utcnow()))

    def read_list(self, params: dict[str, Any]) -> Stored | None:
        """The cached list for these parameters (None when there is none)."""
        return self._answer(self.list_key(params), LIST,
                            lambda items, asked: list_frame(items, status=asked.get("status")))

    def read_filters(self) -> Stored | None:
        """The cached filter set (None when there is none)."""
        return self._answer(FILTER_SET, FILTERS, lambda raw, _: filters_frame(raw))

    def _answer(self, key: str, schema: TableSchema, parse: Any) -> Stored | None:
        """A kept answer: its frame as stored, or parsed again from the raw when the stored
        one no longer reads (another schema); removed, with a warning, when neither reads."""
        with self._read() as conn:
            row = None if conn is None else conn.execute(
                "SELECT params, raw, frame, total_icos, complete, failed_pages, problems, "
                "fetched_at FROM lists WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            params, raw, frame = json.loads(row[0]), json.loads(row[1]), None
            with contextlib.suppress(pa.ArrowException, ValueError, TypeError):
                table = pa.ipc.open_stream(row[2]).read_all()
                frame = frame_from_arrow(schema, table, source=str(self.path))
            frame = parse(raw, params) if frame is None else frame
            meta = {"params": params, "total_icos": row[3], "complete": bool(row[4]),
                    "failed_pages": json.loads(row[5]), "problems": json.loads(row[6])}
        except (ValueError, TypeError, AttributeError) as exc:
            with self.write() as conn:
                conn.execute("DELETE FROM lists WHERE key = ?", (key,))
            warn(f"icoframes cache: the stored {schema.name} answer {key} is unreadable "
                 f"({type(exc).__name__}); it was removed and is fetched again", CacheWarning)
            return None
        return Stored(frame, from_ms(row[7]), meta, raw)  # type: ignore[arg-type]

    # -- housekeeping -------------------------------------------------------------------------

    def drop_lists(self, *, fetched_before: dt.datetime) -> list[str]:
        """Delete the list results fetched before then (the next load pages them again)."""
        if self._db(write=False) is None or not self.path.exists():
            return []
        with self.write() as conn:
            return [row[0] for row in conn.execute(
                "DELETE FROM lists WHERE fetched_at < ? AND key != ? RETURNING key",
                (ms(fetched_before), FILTER_SET))]

    def counts(self) -> dict[str, Any]:
        """Profiles by state (and listed ids without any outcome), list queries, copy times."""
        states = dict.fromkeys(("fetched", "gone", "failed", "not_fetched"), 0)
        with self._read() as conn:
            if conn is None:
                return {"states": states, "list_queries": 0, "oldest": None, "newest": None}
            states.update(conn.execute("SELECT state, count(*) FROM profiles GROUP BY state"))
            states["not_fetched"] = conn.execute(
                "SELECT count(DISTINCT id) FROM (SELECT CAST(json_extract(item.value, '$.id') "
                "AS INTEGER) AS id FROM lists, json_each(lists.raw) AS item WHERE lists.key != ?) "
                "WHERE id > 0 AND id NOT IN (SELECT id FROM profiles)", (FILTER_SET,)).fetchone()[0]
            oldest, newest = conn.execute("SELECT min(fetched_at), max(fetched_at) FROM profiles "
                                          "WHERE version IS NOT NULL").fetchone()
            queries = conn.execute("SELECT count(*) FROM lists WHERE key != ?",
                                   (FILTER_SET,)).fetchone()[0]
        return {"states": states, "list_queries": queries, "oldest": from_ms(oldest),
                "newest": from_ms(newest)}


def _json(value: Any) -> str:
    return _utf8(json.dumps(value, ensure_ascii=False, separators=(",", ":")))  # type: ignore


def keep_list(conn: sqlite3.Connection, key: str, params: Any, raw: Any, frame: bytes,
              total_icos: int | None, complete: bool, failed_pages: dict[int, str] | None,
              problems: list[dict[str, Any]] | None, fetched_at: int) -> None:
    """One row of ``lists`` (a list answer or the filter set), replacing the key's."""
    conn.execute("INSERT OR REPLACE INTO lists VALUES (?,?,?,?,?,?,?,?,?)", (
        key, _json(params), _json(raw), frame, total_icos, complete,
        _json(failed_pages or {}), _json(problems or []), fetched_at))


def _json_ids(ids: Iterable[int]) -> str:
    return json.dumps([int(i) for i in ids])


def _bump(conn: sqlite3.Connection) -> int:
    """The next value of the change counter (inside a write transaction)."""
    return int(conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'version' "
                            "RETURNING value").fetchone()[0])


def record_in(conn: sqlite3.Connection, record: ProfileRecord, now: int) -> int:
    state, raw = record.state, record.raw
    if state not in ("fetched", "gone", "failed"):
        raise ValueError(f"state must be fetched, gone or failed, not {state!r}")
    if state == "fetched" and raw is None:
        raise ValueError(f"a fetched profile needs its raw text (id {record.id})")
    status, summary = _utf8(record.status), _utf8(record.summary)
    if state == "failed":  # the copy, if any, stays in use
        conn.execute(
            "INSERT INTO profiles (id, state, status, reason, attempts, failed_at) "
            "VALUES (?, 'failed', ?, ?, 1, ?) ON CONFLICT (id) DO UPDATE SET "
            "reason = excluded.reason, attempts = attempts + 1, failed_at = excluded.failed_at, "
            "status = CASE WHEN state = 'failed' THEN excluded.status ELSE status END",
            (int(record.id), status, _utf8(record.reason), now))
        return 0
    version = _bump(conn)
    conn.execute(
        "INSERT INTO profiles (id, state, status, summary, raw, fetched_at, version) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state, "
        "status = excluded.status, summary = excluded.summary, raw = excluded.raw, "
        "fetched_at = excluded.fetched_at, version = excluded.version, reason = NULL, "
        "attempts = 0, failed_at = NULL",
        (int(record.id), state, status, summary, _utf8(raw) if state == "fetched" else None,
         now, version))
    return version

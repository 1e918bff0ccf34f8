"""The rows of ``profiles`` and ``lists``: written, read in a snapshot, and found damaged.

Text is kept as valid UTF-8 whatever the service sent: a lone surrogate (``"\\ud800"``,
which JSON allows) is escaped, so no string can break a write. Yet SQLite keeps whatever
another program (or a damaged byte on disk) writes: text in an INTEGER column, a blob in a
TEXT one, text that is not UTF-8 (which Python's ``sqlite3`` refuses to read: the whole
statement fails). The finders here run only after a fast read failed, so a warm load pays
nothing for them; the caller sets the rows found aside
(:meth:`~icoframes.store.cache.Cache.quarantine`) and reads the rest.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..textdtype import text_values
from .db import IDS_IN

__all__ = ["ADDED_LIST_COLUMNS", "DAMAGED", "INDEX_COLUMNS", "TIME_RANGE", "VERSION_LIMIT",
           "ProfileRecord", "Snapshot", "add_list_columns", "counter_damaged", "damaged_profiles",
           "empty_index", "index_frame", "keep_list", "next_version", "record_in", "repair_counter"]

#: The columns of ``profiles`` the profile index reads, after ``id``.
INDEX_COLUMNS = ("status", "summary", "fetched_at", "state", "reason", "attempts", "failed_at",
                 "version")

_COPIES = pa.schema([pa.field(name, kind) for name, kind in (
    ("id", pa.int64()), ("state", pa.string()), ("status", pa.string()), ("summary", pa.string()),
    ("fetched_at", pa.timestamp("ms", tz="UTC")), ("raw", pa.string()), ("version", pa.int64()))])

#: The times a row may hold (ms since the epoch): those pandas's nanosecond datetimes reach
#: (1677-09-21 to 2262-04-11); a time outside is a damaged integer, which no clock gave.
TIME_RANGE = (-9_223_372_036_854, 9_223_372_036_854)
#: A version no counting reaches (one per copy kept): a row or counter at it is damaged.
VERSION_LIMIT = 1 << 62
#: Why :func:`damaged_profiles` names a row (said when it is set aside).
DAMAGED = "a field not of its type or range, or text not UTF-8"
# the declared type of each column of ``profiles`` (a NULL allowed unless said) and its text
_INTEGERS = ("fetched_at", "version", "failed_at")
_TEXTS = ("state", "status", "summary", "raw", "reason")
_FIND = ("SELECT id, typeof(attempts) = 'integer' AND state IN ('fetched', 'gone', 'failed') AND "
         + " AND ".join([f"typeof({c}) IN ('integer', 'null')" for c in _INTEGERS]
                        + [f"coalesce({c} BETWEEN {TIME_RANGE[0]} AND {TIME_RANGE[1]}, 1)"
                           for c in ("fetched_at", "failed_at")]
                        + [f"coalesce(version < {VERSION_LIMIT}, 1)"]
                        + [f"typeof({c}) IN ('text', 'null')" for c in _TEXTS])
         + ", " + ", ".join(f"CAST({c} AS BLOB)" for c in _TEXTS) + " FROM profiles")


def _text(value: bytes | None) -> bool:
    """Whether a stored text decodes (as ``sqlite3`` decodes it: UTF-8, strictly)."""
    try:
        if value is not None:
            value.decode()
    except UnicodeDecodeError:
        return False
    return True


def damaged_profiles(conn: sqlite3.Connection, ids: Iterable[int] | None = None) -> list[int]:
    """The ids of the rows of ``profiles`` (among ``ids``: all by default) with a field not of
    its declared type (a state not known, a time out of :data:`TIME_RANGE`) or a text that is
    not UTF-8: one scan, texts read as bytes."""
    among = () if ids is None else (json.dumps(sorted(ids)),)
    return [row[0] for row in conn.execute(_FIND + f" WHERE {IDS_IN}" * bool(among), among)
            if not (row[1] and all(_text(text) for text in row[2:]))]


def _readable_counter(conn: sqlite3.Connection) -> int:
    """One more than every version (and counter value) still readable and below
    :data:`VERSION_LIMIT`: what a damaged change counter is set to."""
    return int(conn.execute(
        "SELECT coalesce(max(v), 0) + 1 FROM (SELECT max(version) AS v FROM profiles WHERE "
        f"typeof(version) = 'integer' AND version < {VERSION_LIMIT} UNION ALL SELECT value "
        "FROM meta WHERE typeof(value) = 'integer' AND key IN ('version', 'removed') AND "
        f"value < {VERSION_LIMIT})").fetchone()[0])


def counter_damaged(conn: sqlite3.Connection, meta: dict[str, int]) -> bool:
    """Whether the change counter (``meta``: the integer values of ``meta``) is damaged:
    gone, not an integer, below a stored version or the removal mark (a copy kept later
    would look older), or at :data:`VERSION_LIMIT` (it could not grow)."""
    if not {"version", "removed"} <= meta.keys():
        return True
    top = conn.execute("SELECT max(version) FROM profiles WHERE typeof(version) = 'integer' "
                       f"AND version < {VERSION_LIMIT}").fetchone()[0] or 0
    return not 0 <= meta["removed"] <= meta["version"] < VERSION_LIMIT or meta["version"] < top


def repair_counter(conn: sqlite3.Connection) -> int | None:
    """In the write transaction ``conn``, a damaged change counter (:func:`counter_damaged`)
    set to :func:`_readable_counter`, both: the new value (None: neither was damaged,
    another process repaired them). The derived tables are rebuilt: their state names an
    older removal mark."""
    if not counter_damaged(conn, dict(conn.execute(
            "SELECT key, value FROM meta WHERE typeof(value) = 'integer'").fetchall())):
        return None
    value = _readable_counter(conn)
    conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                     [("version", value), ("removed", value)])
    return value


def next_version(conn: sqlite3.Connection) -> int:
    """The next value of the change counter, in the write transaction ``conn`` (of
    :meth:`~.cache.Cache.write`, which repaired a damaged counter first)."""
    return int(conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'version' "
                            "RETURNING value").fetchone()[0])


class Snapshot:
    """The profiles as of one read transaction (but the ids ``skipped``); ``version`` the
    change counter then, ``removed`` its value when a copy was last removed; ``damaged``:
    the counter does not read (then, where it cannot be repaired, a removal no table
    state names). ``found``: the ids of the rows :meth:`copies` could not read (left out)."""

    def __init__(self, conn: sqlite3.Connection | None, skipped: Iterable[int] = ()) -> None:
        self._conn, self.skipped, self.found = conn, set(skipped), set[int]()
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE typeof(value) = 'integer'"
                                 ).fetchall()) if conn else {}
        self.damaged = conn is not None and counter_damaged(conn, meta)
        self.version: int = meta.get("version", 0)
        self.removed: int = meta.get("removed", 0)
        if self.damaged and conn is not None:
            self.version, self.removed = _readable_counter(conn), -1

    def copies(self, since: int = 0, *, batch: int = 2000) -> Iterator[pa.Table]:
        """Copies (fetched and gone) with ``version > since``, in version order, in batches;
        a row whose fields do not read as their types is added to ``found`` and left out."""
        if self._conn is None:
            return
        left_out = self.skipped | self.found
        cursor = self._conn.execute(
            f"SELECT {', '.join(_COPIES.names)} FROM profiles WHERE version > ? AND NOT {IDS_IN}"
            " ORDER BY version", (since, json.dumps(sorted(left_out))))
        try:
            while rows := cursor.fetchmany(batch):
                table = pa.Table.from_arrays([pa.array(column, field.type) for column, field in
                                              zip(zip(*rows, strict=True), _COPIES, strict=True)],
                                             schema=_COPIES)
                low, high = pc.min_max(table.column("fetched_at").cast(pa.int64())).values()
                if not TIME_RANGE[0] <= (low.as_py() or 0) <= (high.as_py() or 0) <= TIME_RANGE[1]:
                    raise ValueError("a time out of range")  # (found below, by the scan)
                if table.column("version")[-1].as_py() >= VERSION_LIMIT:  # (in version order)
                    raise ValueError("a version out of range")
                yield table
                since = table.column("version")[-1].as_py()
        except (sqlite3.OperationalError, pa.ArrowException, ValueError, TypeError):
            if not (found := set(damaged_profiles(self._conn)) - left_out):
                raise
            self.found |= found
            yield from self.copies(since, batch=batch)  # (the batches before it were whole)


def index_frame(rows: Sequence[Any]) -> pd.DataFrame:
    """:meth:`~icoframes.store.cache.Cache.profile_index` of the rows read; ``ValueError``
    when a time is out of :data:`TIME_RANGE` (pandas 2.2 would read it as another time)."""
    frame = pd.DataFrame.from_records(rows, columns=["id", *INDEX_COLUMNS]).astype(
        {"id": "int64", "attempts": "int64", "version": "Int64"})
    for column in ("status", "summary", "state", "reason"):
        frame[column] = text_values(frame[column])
    if (frame["version"] >= VERSION_LIMIT).any():
        raise ValueError("a version out of range")
    for column in ("fetched_at", "failed_at"):
        with np.errstate(invalid="ignore"):  # (a float past int64: TypeError, said by pandas)
            times = frame[column].astype("Int64")
        if not times.dropna().between(*TIME_RANGE).all():
            raise ValueError(f"a {column} out of range")
        frame[column] = pd.to_datetime(times, unit="ms", utc=True).astype("datetime64[ms, UTC]")
    return frame.set_index("id")


@functools.cache
def empty_index() -> pd.DataFrame:
    """The profile index of no profile (a cold load's), made once: building even an empty
    frame with its dtypes costs milliseconds, and the planner reads it per load."""
    return index_frame([])


def _utf8(text: str | None) -> str | None:
    """``text`` as valid UTF-8: a lone surrogate is escaped (``\\ud800``: in JSON, the same)."""
    if text is None or text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _json(value: Any) -> str:
    return _utf8(json.dumps(value, ensure_ascii=False, separators=(",", ":"))) or ""


@dataclass(frozen=True)
class ProfileRecord:
    """One fetch outcome: ``raw`` the profile's JSON text (None for ``gone``: 482, or
    ``failed``), ``reason`` what went wrong for a failure (``"HTTP 500"``)."""

    id: int
    status: str | None
    summary: str | None
    raw: str | None
    state: str = "fetched"
    reason: str | None = None


#: The columns ``lists`` took after its first layout (``cache.SCHEMA``), each added by name,
#: in this order, when a list is kept in a cache without it (its rows read NULL).
ADDED_LIST_COLUMNS = {"paged_at": "INTEGER", "sorted_otherwise": "INTEGER"}


def add_list_columns(conn: sqlite3.Connection) -> None:
    """Add to ``lists`` the :data:`ADDED_LIST_COLUMNS` it lacks, in the write ``conn``."""
    have = {column[1] for column in conn.execute("PRAGMA table_info(lists)")}
    for name, kind in ADDED_LIST_COLUMNS.items():
        if name not in have:
            conn.execute(f"ALTER TABLE lists ADD COLUMN {name} {kind}")


def keep_list(conn: sqlite3.Connection, key: str, params: Any, raw: Any, frame: bytes,
              total_icos: int | None, complete: bool, failed_pages: dict[int, str] | None,
              problems: list[dict[str, Any]] | None, fetched_at: int,
              paged_at: int | None = None) -> None:
    """One row of ``lists`` (a list answer or the filter set), replacing the key's: a list
    kept anew is not marked ``sorted_otherwise`` (NULL)."""
    add_list_columns(conn)
    conn.execute("INSERT OR REPLACE INTO lists (key, params, raw, frame, total_icos, complete, "
                 "failed_pages, problems, fetched_at, paged_at, sorted_otherwise) VALUES "
                 "(?,?,?,?,?,?,?,?,?,?,NULL)", (
                     key, _json(params), _json(raw), frame, total_icos, complete,
                     _json(failed_pages or {}), _json(problems or []), fetched_at, paged_at))


def record_in(conn: sqlite3.Connection, record: ProfileRecord, now: int,
              failed_at: Callable[[int], int] | None = None) -> int:
    """Keep ``record`` in the transaction ``conn``: a failure never replaces a copy, and a
    copy resets the failures. The copy's version (0 for a failure). A copy's ``fetched_at``
    is ``now``; a failure's ``failed_at`` too, or what ``failed_at`` gives for the failures
    in a row this one makes."""
    state, raw = record.state, record.raw
    if state not in ("fetched", "gone", "failed"):
        raise ValueError(f"state must be fetched, gone or failed, not {state!r}")
    if state == "fetched" and raw is None:
        raise ValueError(f"a fetched profile needs its raw text (id {record.id})")
    status, summary = _utf8(record.status), _utf8(record.summary)
    if state == "failed":
        stamp = now
        if failed_at is not None:  # (read in the write transaction: no other writer between)
            kept = conn.execute("SELECT attempts FROM profiles WHERE id = ?",
                                (int(record.id),)).fetchone()
            stamp = failed_at((kept[0] if kept else 0) + 1)
        # the last failure recorded sets the time, even one earlier than the kept time (two
        # loads overlapping): keeping the later would have a job run at a fixed hour, whose
        # failure is recorded last, miss its retry by a whole period; the stamp
        # (policy.failure_stamp) already keeps half the wait after every failure
        conn.execute(
            "INSERT INTO profiles (id, state, status, reason, attempts, failed_at) "
            "VALUES (?, 'failed', ?, ?, 1, ?) ON CONFLICT (id) DO UPDATE SET "
            "reason = excluded.reason, attempts = attempts + 1, failed_at = excluded.failed_at, "
            "status = CASE WHEN state = 'failed' THEN excluded.status ELSE status END",
            (int(record.id), status, _utf8(record.reason), stamp))
        return 0
    version = next_version(conn)
    conn.execute(
        "INSERT OR REPLACE INTO profiles (id, state, status, summary, raw, fetched_at, version) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)", (int(record.id), state, status, summary,
                                         _utf8(raw) if state == "fetched" else None, now, version))
    return version

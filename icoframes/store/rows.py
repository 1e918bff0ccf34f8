"""Reading the rows of ``profiles``: a snapshot, and the rows that do not read, found by SQL.

SQLite keeps whatever another program (or a damaged byte on disk) writes: text in an
INTEGER column, a blob in a TEXT one, text that is not UTF-8 (which Python's ``sqlite3``
refuses to read: the whole statement fails). The finders here run only after a fast
read failed, so a warm load pays nothing for them; the caller sets the rows found aside
(:meth:`~icoframes.store.cache.Cache.quarantine`) and reads the rest.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..textdtype import text_values
from .db import IDS_IN

__all__ = ["DAMAGED", "INDEX_COLUMNS", "TIME_RANGE", "Snapshot", "damaged_profiles", "empty_index",
           "index_frame", "next_version", "repair_counter"]

#: The columns of ``profiles`` the profile index reads, after ``id``.
INDEX_COLUMNS = ("status", "summary", "fetched_at", "state", "reason", "attempts", "failed_at",
                 "version")

_COPIES = pa.schema([pa.field(name, kind) for name, kind in (
    ("id", pa.int64()), ("state", pa.string()), ("status", pa.string()), ("summary", pa.string()),
    ("fetched_at", pa.timestamp("ms", tz="UTC")), ("raw", pa.string()), ("version", pa.int64()))])

#: The times a row may hold (ms since the epoch): those pandas's nanosecond datetimes reach
#: (1677-09-21 to 2262-04-11); a time outside is a damaged integer, which no clock gave.
TIME_RANGE = (-9_223_372_036_854, 9_223_372_036_854)
#: Why :func:`damaged_profiles` names a row (said when it is set aside).
DAMAGED = "a field not of its type or range, or text not UTF-8"
# the declared type of each column of ``profiles`` (a NULL allowed unless said) and its text
_INTEGERS = ("fetched_at", "version", "failed_at")
_TEXTS = ("state", "status", "summary", "raw", "reason")
_FIND = ("SELECT id, typeof(attempts) = 'integer' AND state IN ('fetched', 'gone', 'failed') AND "
         + " AND ".join([f"typeof({c}) IN ('integer', 'null')" for c in _INTEGERS]
                        + [f"coalesce({c} BETWEEN {TIME_RANGE[0]} AND {TIME_RANGE[1]}, 1)"
                           for c in ("fetched_at", "failed_at")]
                        + [f"typeof({c}) IN ('text', 'null')" for c in _TEXTS])
         + ", " + ", ".join(f"CAST({c} AS BLOB)" for c in _TEXTS) + " FROM profiles")


def _text(value: bytes | None) -> bool:
    """Whether a stored text decodes (as ``sqlite3`` decodes it: UTF-8, strictly)."""
    if value is None or value.isascii():
        return True
    try:
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
    """One more than every version (and counter value) still readable: what a damaged
    change counter is set to."""
    return int(conn.execute(
        "SELECT coalesce(max(v), 0) + 1 FROM (SELECT max(version) AS v FROM profiles WHERE "
        "typeof(version) = 'integer' UNION ALL SELECT value FROM meta WHERE typeof(value) = "
        "'integer' AND key IN ('version', 'removed'))").fetchone()[0])


def repair_counter(conn: sqlite3.Connection) -> int | None:
    """In the write transaction ``conn``, a damaged change counter (``meta.version`` or the
    removal mark ``meta.removed`` not an integer, or gone) set to :func:`_readable_counter`,
    both: the new value (None: neither was damaged, another process repaired them). The
    derived tables are rebuilt: their state names an older removal mark."""
    if conn.execute("SELECT count(*) FROM meta WHERE key IN ('version', 'removed') AND "
                    "typeof(value) = 'integer'").fetchone()[0] == 2:
        return None
    value = _readable_counter(conn)
    conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                     [("version", value), ("removed", value)])
    return value


def next_version(conn: sqlite3.Connection, repaired: list[int] | None = None) -> int:
    """The next value of the change counter (in the write transaction ``conn``); a counter
    that does not read is repaired first (:func:`repair_counter`), never counted from 0,
    and the value it was set to added to ``repaired``, said once the transaction commits
    (a warning raised as an error inside it would roll the repair back)."""
    bump = ("UPDATE meta SET value = value + 1 WHERE key = 'version' AND typeof(value) = "
            "'integer' RETURNING value")
    if (row := conn.execute(bump).fetchone()) is None:
        value = repair_counter(conn)
        if repaired is not None and value is not None:
            repaired.append(value)
        row = conn.execute(bump).fetchone()
    return int(row[0])


class Snapshot:
    """The profiles as of one read transaction (but the ids ``skipped``); ``version`` the
    change counter then, ``removed`` its value when a copy was last removed; ``damaged``:
    the counter does not read (then, where it cannot be repaired, a removal no table
    state names). ``found``: the ids of the rows :meth:`copies` could not read (left out)."""

    def __init__(self, conn: sqlite3.Connection | None, skipped: Iterable[int] = ()) -> None:
        self._conn, self.skipped, self.found = conn, set(skipped), set[int]()
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE typeof(value) = 'integer'"
                                 ).fetchall()) if conn else {}
        self.damaged = conn is not None and not {"version", "removed"} <= meta.keys()
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
            f"SELECT {', '.join(_COPIES.names)} FROM profiles WHERE version > ?"
            f"{f' AND NOT {IDS_IN}' * bool(left_out)} ORDER BY version",
            (since, *[json.dumps(sorted(left_out))] * bool(left_out)))
        try:
            while rows := cursor.fetchmany(batch):
                table = pa.Table.from_arrays([pa.array(column, field.type) for column, field in
                                              zip(zip(*rows, strict=True), _COPIES, strict=True)],
                                             schema=_COPIES)
                low, high = pc.min_max(table.column("fetched_at").cast(pa.int64())).values()
                if not TIME_RANGE[0] <= (low.as_py() or 0) <= (high.as_py() or 0) <= TIME_RANGE[1]:
                    raise ValueError("a time out of range")  # (found below, by the scan)
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
    for column in ("fetched_at", "failed_at"):
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

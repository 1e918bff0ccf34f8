"""One write transaction's rows: a fetch outcome in ``profiles``, an answer in ``lists``.

Text is kept as valid UTF-8 whatever the service sent: a lone surrogate (``"\\ud800"``,
which JSON allows) is escaped, so no string can break a write.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .rows import next_version

__all__ = ["ADDED_LIST_COLUMNS", "ProfileRecord", "add_list_columns", "keep_list",
           "record_in"]


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
              failed_at: int | Callable[[int], int] | None = None,
              repaired: list[int] | None = None) -> int:
    """Keep ``record`` in the transaction ``conn``: a failure never replaces a copy, and a
    copy resets the failures. The copy's version (0 for a failure). A copy's ``fetched_at``
    is ``now``, a failure's ``failed_at`` that (``now`` when None; a callable: what it gives
    for the failures in a row this one makes); ``repaired``: :func:`~.rows.next_version`'s."""
    state, raw = record.state, record.raw
    if state not in ("fetched", "gone", "failed"):
        raise ValueError(f"state must be fetched, gone or failed, not {state!r}")
    if state == "fetched" and raw is None:
        raise ValueError(f"a fetched profile needs its raw text (id {record.id})")
    status, summary = _utf8(record.status), _utf8(record.summary)
    if state == "failed":
        if callable(failed_at):  # (read in the write transaction: no other writer between)
            kept = conn.execute("SELECT attempts FROM profiles WHERE id = ?",
                                (int(record.id),)).fetchone()
            failed_at = failed_at((kept[0] if kept else 0) + 1)
        # the last failure recorded sets the time, even one earlier than the kept time (two
        # loads overlapping): keeping the later would have a job run at a fixed hour, whose
        # failure is recorded last, miss its retry by a whole period; the stamp
        # (policy.failure_stamp) already keeps half the wait after every failure
        conn.execute(
            "INSERT INTO profiles (id, state, status, reason, attempts, failed_at) "
            "VALUES (?, 'failed', ?, ?, 1, ?) ON CONFLICT (id) DO UPDATE SET "
            "reason = excluded.reason, attempts = attempts + 1, failed_at = excluded.failed_at, "
            "status = CASE WHEN state = 'failed' THEN excluded.status ELSE status END",
            (int(record.id), status, _utf8(record.reason), now if failed_at is None
             else failed_at))
        return 0
    version = next_version(conn, repaired)
    conn.execute(
        "INSERT OR REPLACE INTO profiles (id, state, status, summary, raw, fetched_at, version) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)", (int(record.id), state, status, summary,
                                         _utf8(raw) if state == "fetched" else None, now, version))
    return version

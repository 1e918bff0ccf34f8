"""Converting a cache of icoframes 0.1's layout (journals and Parquet parts) once.

A service folder with ``profiles/`` (journals and parts), ``lists/`` and
``filters.parquet`` is converted into its database the first time it is opened:
every event is replayed in the order 0.1 read them (parts by number, then journals by
number, lines in order; each event once), so copies, fetch states and times stay as
they were; lists and the filter set keep their rows and fetch times; 0.1's
``quota/<key>.json`` ledgers become rows of the ledger database (only files of 0.1's
name and content: :func:`_convert_ledgers`). The old files go once the database holds
them. A folder that cannot be written is ignored with a
:class:`~icoframes.errors.CacheWarning` saying how to convert it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from ..errors import CacheWarning, warn
from ..files import read_parquet_table
from ..schema import FILTERS, LIST, TableSchema
from ..store.cache import FILTER_SET, Cache, ipc
from ..store.db import ms
from ..store.ledger import LEDGER_FOLDER, QuotaLedger
from ..store.rows import ProfileRecord, keep_list, record_in
from ..tables import frame_from_arrow

__all__ = ["convert"]

_PART = re.compile(r"part-(\d{10})\.parquet")
_JOURNAL = re.compile(r"journal-(\d{10})-([0-9a-f]{12})\.log")
_OLD = ("profiles", "lists", "filters.parquet", "claims")


def _events(profiles: Path) -> list[dict[str, Any]]:
    """Every event of 0.1's parts and journals, in the order 0.1 read them, each once."""
    events: list[dict[str, Any]] = []
    for path in sorted(profiles.glob("part-*.parquet"), key=lambda p: (
            (1, int(m.group(1)), "") if (m := _PART.fullmatch(p.name)) else (0, 0, p.name))):
        with contextlib.suppress(pa.ArrowException, OSError, ValueError):
            for i, row in enumerate(read_parquet_table(path).to_pylist()):
                row.setdefault("state", "gone" if row.get("raw") == "null" else "fetched")
                events.append({"event": f"{path.name}:{i}", **row})
    for path in sorted(profiles.glob("journal-*.log")):
        if not (match := _JOURNAL.fullmatch(path.name)):
            continue
        data = path.read_bytes()
        for line in data[:data.rfind(b"\n") + 1].split(b"\n")[:-1]:  # a torn last line: lost
            head, tab, text = line.partition(b"\t")
            with contextlib.suppress(ValueError, KeyError, TypeError):
                entry = json.loads(head)
                events.append({**entry, "raw": text.decode("utf-8") if tab else entry.get("raw"),
                               "fetched_at": dt.datetime.fromtimestamp(entry["at"] / 1000, dt.UTC),
                               "event": f"{match.group(2)}:{int(entry['n'])}"})
    unique: dict[str, dict[str, Any]] = {}
    for event in events:
        unique.setdefault(event["event"], event)
    return list(unique.values())


def _stored(path: Path, schema: TableSchema) -> tuple[pd.DataFrame, dict[str, Any]] | None:
    """A list or filter file of 0.1: its frame and its metadata (None when unreadable)."""
    with contextlib.suppress(pa.ArrowException, OSError, ValueError, KeyError, TypeError):
        table = read_parquet_table(path)
        meta = json.loads(table.schema.metadata[b"icoframes"])
        return frame_from_arrow(schema, table.replace_schema_metadata(None),
                                source=str(path)), meta
    return None


def _items(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """List items rebuilt from their rows (0.1 kept rows only), at the schema's source paths."""
    items = []
    for row in frame.to_dict("records"):
        item: dict[str, Any] = {}
        for column in LIST.columns:
            if column.source is not None and not pd.isna(row[column.name]):
                *path, key = column.source
                node = item
                for part in path:
                    node = node.setdefault(part, {})
                node[key] = row[column.name]
        items.append(item)
    return items


def convert(cache: Cache) -> None:
    """Convert ``cache``'s folder, and the cache dir's ledgers, from the 0.1 layout, once."""
    _convert_ledgers(cache.root)
    folder = cache.dir
    if not any((folder / name).exists() for name in _OLD[:3]):
        return
    try:
        counts = _convert(cache)
    except OSError as exc:
        return warn(f"icoframes cache folder {folder} is of icoframes 0.1's layout and could "
                    f"not be converted ({exc}); it is not used. Convert it where it can be "
                    "written with: python -c \"import icoframes; icoframes.cache_info()\"",
                    CacheWarning)
    for path in (folder / name for name in _OLD):
        with contextlib.suppress(OSError):
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    if any(counts):
        warn(f"icoframes cache folder {folder} was converted from icoframes 0.1's layout: "
             f"{counts[0]} profile outcomes, {counts[1]} lists"
             f"{', the filter set' if counts[2] else ''}; nothing is fetched again", CacheWarning)


def _convert(cache: Cache) -> tuple[int, int, int]:
    folder = cache.dir
    events = _events(folder / "profiles")
    lists = [s for p in sorted((folder / "lists").glob("*.parquet")) if (s := _stored(p, LIST))]
    filters = _stored(folder / "filters.parquet", FILTERS)
    with cache.write() as conn:
        if conn.execute("SELECT value FROM meta WHERE key = 'converted'").fetchone():
            return 0, 0, 0  # another process did
        for e in events:
            at = e["fetched_at"]
            record_in(conn, ProfileRecord(int(e["id"]), e.get("status"), e.get("summary"),
                                          e.get("raw") if e["state"] == "fetched" else None,
                                          e["state"], e.get("reason")),
                      ms(at if at.tzinfo else at.replace(tzinfo=dt.UTC)))
        for frame, meta in lists:
            keep_list(conn, cache.list_key(meta["params"]), meta["params"], _items(frame),
                      ipc(frame, LIST), meta.get("total_icos"), bool(meta.get("complete", True)),
                      None, meta.get("problems"), ms(dt.datetime.fromisoformat(meta["fetched_at"])))
        if filters is not None:
            frame, meta = filters
            raw: dict[str, list[dict[str, Any]]] = {}
            for row in frame.to_dict("records"):
                raw.setdefault(row["filter"], []).append(
                    {"name": row["name"]} if pd.isna(row["id"]) else
                    {"id": int(row["id"]), "name": row["name"]})
            keep_list(conn, FILTER_SET, FILTER_SET, raw, ipc(frame, FILTERS), None, True, None,
                      meta.get("problems"), ms(dt.datetime.fromisoformat(meta["fetched_at"])))
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('converted', 1)")
    return len(events), len(lists), int(filters is not None)


#: 0.1's ledger file: the first 16 hex digits of the key's sha256, as the ledger's key now
_LEDGER_FILE = re.compile(r"[0-9a-f]{16}\.json")
_LEDGER_FIELDS = frozenset({"day", "used", "exhausted"})
#: what a 0.1 ledger that does not read is renamed to, beside it (never removed: a count)
UNREAD = ".unread"


def _old_count(path: Path) -> tuple[str, int] | None:
    """The day and count of 0.1's ledger file ``path``, or None when it holds another record
    (a user's JSON): ValueError when it is no JSON (torn: a crash before its write was on
    disk), OSError when it cannot be read."""
    data = json.loads(path.read_text())
    if not (isinstance(data, dict) and set(data) <= _LEDGER_FIELDS
            and isinstance(data.get("day"), str) and type(data.get("used")) is int
            and data["used"] >= 0):
        return None
    dt.date.fromisoformat(data["day"])  # (ValueError: torn inside its day)
    return data["day"], data["used"]


def _convert_ledgers(root: Path) -> None:
    """0.1's ``quota/<key>.json`` ledgers as rows of the ledger database (the same keys).

    Only the files 0.1 wrote are converted and then removed (their name and their content
    are 0.1's), with their ``.lock``; anything else there stays (a user's ``notes.json``).
    One of 0.1's names that does not read is renamed ``*.json.unread`` and said: its count
    is unknown, and a count is what ``daily_quota`` keeps."""
    folder = root / LEDGER_FOLDER
    if not (files := sorted(p for p in folder.glob("*.json") if _LEDGER_FILE.fullmatch(p.name))
            if folder.is_dir() else []):
        return
    rows, read, unread = [], [], []
    for path in files:
        try:
            if (count := _old_count(path)) is not None:
                rows.append((path.stem, *count))
                read.append(path)
        except ValueError:
            unread.append(path)
        except OSError:
            continue  # (not this user's to read: left as it is)
    try:
        with QuotaLedger(root, "").write() as conn:
            conn.executemany("INSERT INTO ledgers (key, day, sent) VALUES (?, ?, ?) "
                             "ON CONFLICT (key) DO UPDATE SET sent = max(sent, excluded.sent) "
                             "WHERE day = excluded.day", rows)
    except OSError:
        return  # read-only: the counts stay in their files, unused
    for path in read:
        with contextlib.suppress(OSError):
            path.unlink()
            path.with_suffix(".lock").unlink(missing_ok=True)
    for path in unread:
        with contextlib.suppress(OSError):
            path.rename(path.with_name(path.name + UNREAD))
            warn(f"icoframes request ledger {path} of icoframes 0.1 does not read (cut short by "
                 f"a crash?): its count of requests is unknown, so not counted; it is kept as "
                 f"{path.name}{UNREAD}. If that key sent requests today, lower daily_quota "
                 "for today or wait for tomorrow's count", CacheWarning)

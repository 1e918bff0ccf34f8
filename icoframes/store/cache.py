"""The raw store under the cache dir: fetched profiles, list results, the filter set.

It keeps what the service sent and imports no parser: the tidy tables are
derived from it by :mod:`icoframes.store.derived`.

Layout, one folder per service address (``<cache_dir>/<host>_<port>/``)::

    profiles/part-*.parquet   raw profile JSON as fetched: id, status, summary, fetched_at, raw
    tables/<table>.parquet    the tidy tables over every cached profile (derived, rebuildable)
    tables/_state.json        which profile parts the derived tables were built from
    lists/<query>.parquet     list results per query, with the query and fetch time as metadata
    filters.parquet           the filter set
    quota/<key-hash>.json     requests spent per public key and UTC day

Raw profiles are the source of truth: they are appended as new part files
(never rewritten in place), so a batch that was written survives a crash, and
two processes never write the same file. Every file is written to a temporary
name in its folder and then renamed over the target, so a reader sees either
the old or the new file, never half of one. Updates that read and rewrite
(the derived tables, the ledger, compaction) hold the folder's lock
(:func:`icoframes.files.locked`).
A file that cannot be read is renamed ``*.corrupt``, reported in a warning
and rebuilt or re-fetched.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import CacheWarning, warn
from ..files import atomic_write_table, locked, utcnow
from ..schema import TableSchema
from ..tables import frame_from_arrow
from .housekeeping import remove_folder

__all__ = ["GONE", "Cache", "ProfileRecord", "Stored"]

_PART_SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("status", pa.string()),
    pa.field("summary", pa.string()),
    pa.field("fetched_at", pa.timestamp("ms", tz="UTC"), nullable=False),
    pa.field("raw", pa.string(), nullable=False),
])


# The raw text stored for an ICO that was listed but whose profile was not found (482),
# so that it is not requested again while its list summary stays the same.
GONE = "null"


class Stored(NamedTuple):
    """A stored list or filter set: the frame, when it was fetched, and its metadata."""

    frame: pd.DataFrame
    fetched_at: dt.datetime
    meta: dict[str, Any]


@dataclass(frozen=True)
class ProfileRecord:
    """One fetched profile as stored: the raw JSON text plus what it was fetched under."""

    id: int
    status: str | None
    summary: str | None
    raw: str
    state: str = "fetched"
    reason: str | None = None


def _namespace(service: str) -> str:
    """The folder of a service: its name as given, or ``<host>_<port>[_<path>]`` of its address.

    A name (the ``service_name`` setting, checked to be one plain path segment)
    lets a service whose port changes from run to run, as the sandbox's does,
    keep one folder.

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


class Cache:
    """The store of one service address under ``root``.

    Parameters
    ----------
    root : path-like
        The cache dir (see :mod:`icoframes.config`).
    base_url : str
        The service's identity (``Settings.service_id``): its ``service_name``
        when set, else its address; each gets its own folder.
    """

    def __init__(self, root: str | os.PathLike[str], base_url: str) -> None:
        self.root = Path(root)
        self.dir = self.root / _namespace(base_url)
        self.profiles_dir = self.dir / "profiles"
        self.tables_dir = self.dir / "tables"
        self.lists_dir = self.dir / "lists"

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

    # -- raw profiles --------------------------------------------------------

    def part_files(self) -> list[Path]:
        if not self.profiles_dir.is_dir():
            return []
        return sorted(self.profiles_dir.glob("part-*.parquet"))

    def write_profiles(self, records: Iterable[ProfileRecord]) -> Path | None:
        """Append one batch of fetched profiles as a new part file."""
        records = list(records)
        if not records:
            return None
        now = utcnow()
        table = pa.table(
            {
                "id": [r.id for r in records],
                "status": [r.status for r in records],
                "summary": [r.summary for r in records],
                "fetched_at": [now] * len(records),
                "raw": [r.raw for r in records],
            },
            schema=_PART_SCHEMA,
        )
        path = self.profiles_dir / _part_name(now)
        atomic_write_table(table, path)
        return path

    # TEMPORARY stand-ins until the journal lands (store/journal.py, store/claims.py)
    def append(self, record: ProfileRecord) -> None:
        if record.state != "failed":
            self.__dict__.setdefault("_pending", []).append(record)

    def fold(self) -> None:
        pending = self.__dict__.pop("_pending", [])
        self.write_profiles(pending)

    def claims(self) -> Any:
        class _All:
            def claim(self, ids: Any) -> tuple[list[int], list[int]]:
                return list(ids), []

            def close(self) -> None:
                pass
        return _All()

    def _read_parts(self, paths: Iterable[Path], columns: list[str]) -> pa.Table:
        tables = []
        for path in paths:
            try:
                tables.append(pq.read_table(path, columns=columns, schema=_PART_SCHEMA))
            except FileNotFoundError:
                continue  # compacted away by another process meanwhile
            except (pa.ArrowException, OSError) as exc:
                self.quarantine(path, exc)
        if not tables:
            return _PART_SCHEMA.empty_table().select(columns)
        return pa.concat_tables(tables)

    def profile_index(self) -> pd.DataFrame:
        """Latest fetch per cached profile: id, status, summary, fetched_at (one row per id)."""
        with self.lock():  # not while another process compacts the parts
            table = self._read_parts(self.part_files(),
                                     ["id", "status", "summary", "fetched_at"])
        frame = table.to_pandas()
        if frame.empty:
            return frame
        frame = frame.sort_values("fetched_at", kind="stable")
        return frame.drop_duplicates("id", keep="last").set_index("id")

    def latest_records(self, paths: list[Path]) -> pa.Table:
        table = self._read_parts(paths, ["id", "status", "summary", "fetched_at", "raw"])
        if table.num_rows == 0:
            return table
        order = pc.sort_indices(table, [("fetched_at", "ascending")])
        table = table.take(order)
        return table.take(pa.array(_last_positions(table.column("id").to_numpy())))

    def compact_locked(self, parts: list[Path]) -> str:
        """Merge ``parts`` into one part file (latest fetch per id); return its name.

        The caller holds :meth:`lock` (the derived tables keep their state in step).
        """
        merged = self.latest_records(parts)
        name = _part_name(utcnow())
        atomic_write_table(merged, self.profiles_dir / name)
        for path in parts:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        return name

    # -- list results and the filter set ---------------------------------------

    @staticmethod
    def list_key(params: dict[str, Any]) -> str:
        canonical = json.dumps(params, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()[:24]

    def write_list(self, params: dict[str, Any], frame: pd.DataFrame, schema: TableSchema,
                   *, total_icos: int, problems: list[dict[str, Any]] | None = None,
                   complete: bool = True) -> None:
        """Store a list result with the query that produced it, whether it is complete
        (its ids cover ``total_icos``) and the values it lost."""
        meta = {"params": params, "total_icos": total_icos, "problems": problems or [],
                "complete": complete}
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
        """What is cached: path, size on disk, profiles (and listed ICOs that had none), lists."""
        files = [p for p in self.dir.rglob("*") if p.is_file()] if self.dir.is_dir() else []
        index = self.profile_index()
        with self.lock():
            raw = self.latest_records(self.part_files()).column("raw")
        gone = pc.sum(pc.equal(raw, GONE)).as_py() or 0
        return {
            "path": str(self.dir),
            "size_bytes": sum(p.stat().st_size for p in files),
            "profiles": len(index) - gone,
            "listed_without_profile": gone,
            "profile_parts": len(self.part_files()),
            "list_queries": len(list(self.lists_dir.glob("*.parquet")))
            if self.lists_dir.is_dir() else 0,
            "oldest_profile": None if index.empty else index["fetched_at"].min().to_pydatetime(),
            "newest_profile": None if index.empty else index["fetched_at"].max().to_pydatetime(),
        }

    def clear(self) -> dict[str, Any]:
        """Delete this service's folder under its lock (see :func:`.housekeeping.remove_folder`).

        The request ledger is kept; symlinks are removed, never followed.
        """
        return remove_folder(self.dir)


def _last_positions(ids: np.ndarray) -> np.ndarray:
    """Positions of the last occurrence of every id, in order."""
    _, first_in_reversed = np.unique(ids[::-1], return_index=True)
    return np.sort(len(ids) - 1 - first_in_reversed)


def _part_name(now: dt.datetime) -> str:
    return f"part-{now.strftime('%Y%m%dT%H%M%S%f')}-{uuid.uuid4().hex[:8]}.parquet"

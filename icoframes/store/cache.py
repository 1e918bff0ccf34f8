"""The raw store under the cache dir: fetch events of profiles, list results, the filter set.

It keeps what the service sent and imports no parser: the tidy tables are
derived from it by :mod:`icoframes.store.derived`.

Layout, one folder per service (``<cache_dir>/<host>_<port>/``, or the
``service_name`` setting; the request ledgers sit in ``<cache_dir>/quota/``)::

    profiles/journal-<seq>-<token>.log    events not folded yet, one line each, appended by
                                          the live (or dead) process <token>
    profiles/writer-<token>.lock          held by process <token> while it lives
    profiles/part-<seq>.parquet           folded events: id, status, summary, fetched_at,
                                          state, reason, raw, event
    profiles/.seq                         the counter numbering parts and journals
    claims/<id>.claim                     the crawl fetching that id (owner-<token>.lock: alive)
    tables/<table>.parquet                the tidy tables over every cached profile (derived)
    tables/_state.json                    the parts and journal sizes they were built from
    lists/<query>.parquet                 list results per query, query and fetch time as metadata
    filters.parquet                       the filter set
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
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import CacheWarning, warn
from ..files import atomic_write_table, locked, utcnow
from ..schema import TableSchema
from ..tables import frame_from_arrow
from .claims import Claims
from .eventlog import EventLog, EventSnapshot
from .housekeeping import remove_folder
from .journal import GONE, ProfileRecord

__all__ = ["GONE", "Cache", "EventSnapshot", "ProfileRecord", "Stored"]


class Stored(NamedTuple):
    """A stored list or filter set: the frame, when it was fetched, and its metadata."""

    frame: pd.DataFrame
    fetched_at: dt.datetime
    meta: dict[str, Any]

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
        self.claims_dir = self.dir / "claims"
        self.log = EventLog(self.profiles_dir, self.lock, self.quarantine)

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

    # -- profiles (the events of :class:`~icoframes.store.eventlog.EventLog`) -----------

    def append(self, record: ProfileRecord) -> None:
        """Record one fetch outcome in this process's journal; durable on return.

        Durable against a crash or SIGKILL of this process (not a power cut).
        A record whose ``raw`` is :data:`GONE` is a ``gone`` event; a failure's
        ``raw`` is not kept. Thread-safe.
        """
        self.log.append(record)

    def write_profiles(self, records: Iterable[ProfileRecord]) -> None:
        """Append ``records`` and fold them into a part at once."""
        for record in records:
            self.log.append(record)
        self.log.fold()

    def fold(self) -> None:
        """Fold this process's journal so far, and orphaned ones, into one part (locked)."""
        self.log.fold()

    def claims(self) -> Claims:
        """Claims on profile ids for one crawl, shared with every process using this folder."""
        return Claims(self.claims_dir)

    def profile_index(self) -> pd.DataFrame:
        """The fetch state of every profile with an event, one row per id.

        Unfolded journals count, also those of other live processes and of dead
        ones; the columns are those of
        :meth:`~icoframes.store.eventlog.EventLog.profile_index`.
        """
        return self.log.profile_index()

    def states(self, ids: Iterable[int]) -> dict[int, str]:
        """The fetch state of each of ``ids``: fetched, gone, failed or ``not_fetched``."""
        return self.log.states(ids)

    def marker(self) -> frozenset[tuple[str, int]]:
        """What other processes have written to the profiles so far (compare two)."""
        return self.log.marker()

    def arrived_since(self, ids: Iterable[int], marker: frozenset[tuple[str, int]]) -> set[int]:
        """Those of ``ids``, without a copy at ``marker``, that have one now; see
        :meth:`~icoframes.store.eventlog.EventLog.arrived_since`."""
        return self.log.arrived_since(ids, marker)

    def latest_records(self) -> pa.Table:
        """The copy in use of every profile, raw text included, in the order appended."""
        return self.log.latest_records()

    def read_events(self, *, raw: bool = False, holding_lock: bool = False) -> EventSnapshot:
        """Every profile event in append order, each once, and the files read."""
        return self.log.read_events(raw=raw, holding_lock=holding_lock)

    def part_files(self) -> list[Path]:
        """The profile parts, in append order."""
        return self.log.part_files()

    def journal_files(self) -> list[Path]:
        """The journals (live or orphaned), in the order they were started."""
        return self.log.journal_files()

    def compact_locked(self, parts: list[Path]) -> str:
        """Merge ``parts`` into one new part; the caller holds :meth:`lock`."""
        return self.log.compact_locked(parts)

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
        """What is cached: path, size, profiles by fetch state, parts, journals, lists.

        ``states`` counts ids by fetch state (see :meth:`profile_index`), plus
        ``not_fetched``: ids in a cached list without any event.
        """
        sizes = _sizes(self.dir.rglob("*")) if self.dir.is_dir() else {}
        index = self.profile_index()
        counts = index["state"].value_counts()
        states = {state: int(counts.get(state, 0)) for state in ("fetched", "gone", "failed")}
        states["not_fetched"] = len(self._listed_ids().difference(index.index))
        copies = index.loc[index["state"] != "failed", "fetched_at"]
        return {
            "path": str(self.dir),
            "size_bytes": sum(sizes.values()),
            "profiles": states["fetched"],
            "listed_without_profile": states["gone"],
            "profile_parts": len(self.part_files()),
            "profile_journals": sum(1 for size in _sizes(self.journal_files()).values() if size),
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
        return pd.Index(np.unique(np.concatenate(ids)) if ids else np.array([], dtype="int64"))

    def clear(self) -> dict[str, Any]:
        """Delete this service's folder under its lock (see :func:`.housekeeping.remove_folder`).

        The request ledger is kept; symlinks are removed, never followed.
        """
        return remove_folder(self.dir)


def _sizes(paths: Iterable[Path]) -> dict[Path, int]:
    """Sizes of the files among ``paths`` that still exist (journals come and go)."""
    sizes = {}
    for path in paths:
        with contextlib.suppress(OSError):
            if path.is_file():
                sizes[path] = path.stat().st_size
    return sizes

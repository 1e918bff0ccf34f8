"""The tidy tables derived from the cached raw profiles, kept up to date table by table.

``tables/<table>.parquet`` hold :func:`icoframes.parse.profiles.tidy` of every cached
copy in use; ``tables/_state.json`` per table the store's change counter it is up to date
with, the counter at the last removal, and :func:`parser_fingerprint`. An update replaces
the rows of the ids whose copy changed, which is idempotent, so an update cut short is
simply done again; when and why the tables are rebuilt: ``docs/guide/cache.md``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import inspect
import json
import logging
import os
import stat
from collections.abc import Callable, Collection, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..api.gate import EMPTY_SECTION, holds_a_section
from ..api.text import loads_text
from ..errors import CacheError, CacheWarning, warn
from ..files import atomic_write_bytes, atomic_write_table, concurrently, locked, read_parquet_table
from ..holders import LockHeld
from ..metadata import describe_columns
from ..parse import profiles, rules
from ..parse.problems import Problems
from ..parse.sections import absent_sections
from ..schema import ICOS, PROBLEMS, PROFILE_SECTIONS, TABLES
from ..tables import Tables, read_table
from .cache import Cache
from .connections import check_open_files
from .db import LEASE, disk_full
from .rows import DAMAGED, Snapshot

__all__ = ["STATE_NAME", "DerivedTables", "parser_fingerprint"]

#: The derived tables' state file in ``tables/`` (what they hold; housekeeping keeps it).
STATE_NAME = "_state.json"
#: Profiles a load decoded and kept, remembered so that the tables need not decode their
#: stored text again: at most this many (a rebuild's batch).
_DECODED = 2000
#: Every file the derived tables keep (the first column of each names a row's ICO).
_SCHEMAS = {**TABLES, PROBLEMS.name: PROBLEMS}
_log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def _parse_sources() -> str:
    """A digest of the source of :mod:`icoframes.parse` and :mod:`icoframes.vocabulary`."""
    digest, package = hashlib.sha256(), Path(rules.__file__).parent
    for path in [*sorted(package.glob("*.py")), package.parent / "vocabulary.py"]:
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


@lru_cache(maxsize=8)
def _source(function: Callable[..., Any]) -> str:
    return inspect.getsource(function)


def parser_fingerprint() -> str:
    """What the derived tables depend on: the schema, the parser's version and source, and
    the rule that sets a stored copy aside as no profile (tables built before a change of
    it may hold rows of copies it now sets aside).

    >>> len(parser_fingerprint())
    16
    """
    spec = [[(t.name, [(c.name, c.kind) for c in t.columns]) for t in _SCHEMAS.values()],
            rules.PARSER_VERSION, _parse_sources(), _source(holds_a_section),
            _source(_tidy_batch), repr(EMPTY_SECTION), list(PROFILE_SECTIONS)]
    return hashlib.sha256(json.dumps(spec).encode()).hexdigest()[:16]


class DerivedTables:
    """The tidy tables of every profile in ``cache``, kept in step with it."""

    def __init__(self, cache: Cache, *, offline: bool = False) -> None:
        self.cache, self.offline = cache, offline  # offline: tables not kept on a full disk
        self.dir = cache.tables_dir
        self._state_path = self.dir / STATE_NAME
        self._decoded: dict[int, tuple[int, Any]] = {}  # id -> (version, decoded profile)
        self._wait = LEASE  # for the folder's lock; none once a holder outlasted it (stopped)

    def __repr__(self) -> str:
        return f"DerivedTables({str(self.dir)!r})"

    def keep_decoded(self, ico_id: int, version: int, profile: Any) -> None:
        """The profile ``ico_id`` as decoded by this load and kept as copy ``version``:
        tidied from this object, not decoded again from the stored text (that copy only)."""
        if len(self._decoded) < _DECODED or ico_id in self._decoded:
            self._decoded[ico_id] = (version, profile)

    def tables(self) -> Tables:
        """The tidy :class:`~icoframes.tables.Tables` over every cached profile."""
        return self._get(tuple(_SCHEMAS), lambda: Tables.read_parquet(self.dir))

    def table(self, name: str, columns: list[str] | None = None) -> pd.DataFrame:
        """One table (e.g. ``"icos"``) over every cached profile; see :meth:`tables`.
        ``columns``: those needed (others may be read too; None: all)."""
        if name not in _SCHEMAS:
            raise KeyError(name)
        return self._get((name,), lambda: read_table(self.dir, name, columns))

    def settle(self) -> None:
        """Bring ``icos`` up to date with the store, as a load of profiles does before it
        plans: a stored copy that is no profile (its text does not decode, or it holds none
        of its sections) is set aside then (:meth:`~.cache.Cache.quarantine`), so that the
        load fetches it again: also when the tables are rebuilt (a new parser), then those
        the state names (read again at the load's end). Not where the cache cannot be
        written (the tables are not kept there: they would be built twice)."""
        if not os.access(self.cache.dir, os.W_OK) or not self.cache.path.exists():
            return
        names: tuple[str, ...] = ("icos",)
        with self.cache.snapshot() as snap:  # (no lock: a state is written whole)
            if self._versions(snap, fix=False) is None and self._plain_files(fix=False):
                with contextlib.suppress(OSError, ValueError, LookupError, TypeError):
                    state = json.loads(self._state_path.read_text())["versions"]
                    names = (*names, *(n for n in _SCHEMAS if n in state and n != "icos"))
        self._get(names, lambda: None)

    def _get(self, names: tuple[str, ...], read: Callable[[], Any]) -> Any:
        """``read()`` once the tables ``names`` are up to date. A lock held by a process at
        work is waited for again, a lease at a time (its update of a large cache may take
        longer; tidying here would cost more than the read). Held by a stopped process, or
        one not known: the tables tidied in memory from one snapshot, not kept, said once
        per load (a load reads the tables more than once)."""
        noted: set[int] = set()
        while True:
            try:
                return self._get_locked(names, read)
            except LockHeld as held:
                if not held.running or held.pid is None:
                    with self.cache.snapshot() as snap:
                        _, tables, unreadable = self._tidy(snap, 0, names)
                    if unreadable:  # a copy to set aside: that needs the lock
                        raise
                    if self._wait:
                        warn(f"{held}. This answer was tidied from the stored profiles instead"
                             " (not kept)", CacheWarning)
                    self._wait = 0.0
                    return _one(names, _described(tables))
                if held.pid not in noted:  # said once per holder, however long it works
                    noted.add(held.pid)
                    _log.info("process %d holds the cache's lock %s and is running: this load "
                              "waits for it", held.pid, held.path)
                self._wait = self._wait or LEASE  # (none after a stopped holder: it resumed)

    def _get_locked(self, names: tuple[str, ...], read: Callable[[], Any]) -> Any:
        """Tables up to date are read under the folder's lock shared with other readers; an
        update or a rebuild holds it alone (readers never see one half done)."""
        if not self.cache.path.exists():  # nothing cached (and no folder to make)
            return _one(names, profiles.tidy([]))
        with self._locked(shared=True), self.cache.snapshot() as snap:
            versions = self._versions(snap, fix=False)
            if versions is not None and min(versions.get(n, -1) for n in names) >= snap.version:
                with contextlib.suppress(pa.ArrowException, OSError, ValueError, KeyError):
                    return read()  # (else read again below, alone: said or rebuilt)
        with self._locked():
            updated: bool | None = False
            with self.cache.snapshot() as snap:
                versions = self._versions(snap, fix=True)
                if versions is not None:
                    stale = [n for n in names if versions.get(n, -1) < snap.version]
                    if updated := not stale or self._update(snap, stale, versions):
                        try:
                            return read()
                        except FileNotFoundError:
                            pass
                        except (pa.ArrowException, OSError, ValueError, KeyError) as exc:
                            warn(f"icoframes cache tables in {self.dir} are unreadable "
                                 f"({type(exc).__name__}: {exc}); they are rebuilt from the "
                                 "stored profiles", CacheWarning)
            # a copy to set aside: the other tables the state holds too (the removal would
            # have them rebuilt when next read: a load reads icos first, all at its end)
            known = [n for n in versions or {} if n not in names and n in _SCHEMAS
                     and updated is None]
            return _one(names, self._rebuild((*names, *known), versions or {}))

    @contextlib.contextmanager
    def _locked(self, *, shared: bool = False) -> Iterator[None]:
        """The folder's lock held. One this user may not open in a folder it may write to
        (another user's file) is a CacheError naming it and the fix (``offline=True``, which
        the refusal to write such a cache suggests, takes this lock)."""
        with contextlib.ExitStack() as stack:
            try:
                stack.enter_context(locked(self.cache.lock, shared=shared, wait=self._wait))
            except PermissionError as exc:
                whose = ""
                with contextlib.suppress(OSError):
                    owner = self.cache.lock.stat().st_uid
                    if hasattr(os, "geteuid") and owner != os.geteuid():  # (not on Windows)
                        whose = f" (another user's, uid {owner})"
                raise CacheError(f"the cache's lock file {self.cache.lock}{whose} cannot be "
                                 f"opened ({exc.strerror}): give this user read and write "
                                 "access to it, or use a cache_dir of this user's own") from exc
            yield

    def _versions(self, snap: Snapshot, *, fix: bool) -> dict[str, int] | None:
        """Per table, the change counter it is up to date with, when the state still holds
        for ``snap`` (the same removals and parser, every entry a plain file)."""
        if not self._plain_files(fix=fix):  # first: a FIFO in place of the state never opened
            return None
        with contextlib.suppress(OSError, ValueError, TypeError):
            state = dict(json.loads(self._state_path.read_text()))
            versions = state.get("versions") or {}
            if (state.get("removed") == snap.removed  # (a counter that went back: repaired)
                    and max(versions.values(), default=0) <= snap.version
                    and state.get("fingerprint") == parser_fingerprint()):
                return dict(versions)
        return None

    def _update(self, snap: Snapshot, stale: list[str], versions: dict[str, int]
                ) -> bool | None:
        """Replace in the tables ``stale`` the rows of the ids whose copy changed since the
        oldest of them. False: rebuild instead; None: a copy is to be set aside, rebuild
        every table the state holds."""
        since = min(versions.get(n, -1) for n in stale)
        if since < 0 or not os.access(self.dir, os.W_OK):
            return False  # (a read-only cache: rebuilt in memory, as it cannot be kept)
        changed, fresh, unreadable = self._tidy(snap, since, stale)
        if unreadable:
            return None  # the rebuild quarantines it: a removal
        try:
            self._keep(fresh, pa.array(sorted(changed), pa.int64()), stale,
                       {**versions, **dict.fromkeys(stale, snap.version)}, snap.removed)
        except (FileNotFoundError, pa.ArrowException, ValueError, KeyError):
            return False
        except OSError as exc:
            if self.offline and _full(exc, self.dir) is not exc:
                return False  # (rebuilt in memory)
            raise _full(exc, self.dir) from None
        return True

    def _tidy(self, snap: Snapshot, since: int, names: Collection[str]
              ) -> tuple[set[int], Tables, dict[int, tuple[str, int | None]]]:
        """The ids of the copies newer than ``since``, their tables ``names``, and the ids
        that do not read (left out) with why and the version (None: a row's fields)."""
        parts: list[Tables] = []
        changed: set[int] = set()
        unreadable: dict[int, tuple[str, int | None]] = {}
        for batch in snap.copies(since):
            changed.update(batch.column("id").to_numpy().tolist())
            parts.append(_tidy_batch(batch, unreadable, self._decoded, names))
        unreadable.update(dict.fromkeys(snap.found, (DAMAGED, None)))
        return changed, _concat(parts), unreadable

    def _keep(self, tables: Tables, ids: pa.Array | None, names: Collection[str],
              versions: dict[str, int], removed: int | None) -> None:
        """Write the tables ``names`` and sync the database side by side (their ``fdatasync``
        calls wait alike); then the state, if the sync was made: the versions it writes down
        must not outlive their commits (another process held the write lock: the next read
        updates). ``removed`` None: another removal came between, the next read rebuilds."""
        synced: list[bool] = []
        db = self.cache.database(write=False)
        concurrently(lambda name: self._write(name, tables[name], ids) if name else synced.append(
            db is None or db.sync()), [*names, ""])
        if removed is None:
            self._state_path.unlink(missing_ok=True)
        elif all(synced):
            state = {"versions": versions, "removed": removed, "fingerprint": parser_fingerprint()}
            atomic_write_bytes(self._state_path, json.dumps(state).encode())

    def _plain_files(self, *, fix: bool) -> bool:
        """Every entry of the tables folder is a plain file: a link or a FIFO is never read
        (a link in place of the folder goes too: the tables are never written through it);
        ``fix``: such an entry is removed, and said."""
        try:  # (the folder's own entry: a link is not a folder)
            folder = stat.S_ISDIR(self.dir.lstat().st_mode)
            entries = [*self.dir.iterdir()] if folder else [self.dir]
        except OSError:
            return False  # no tables yet
        others = []
        for path in entries:
            # a writer's temp file may be listed, then renamed in (in a read-only cache dir
            # no lock keeps another user's writer out)
            with contextlib.suppress(FileNotFoundError):
                if not stat.S_ISREG(path.lstat().st_mode):
                    others.append(path)
        for path in others if fix else []:
            warn(f"icoframes cache entry {path} is not a plain file or folder; it is removed "
                 "(never followed or opened) and the tables are rebuilt", CacheWarning)
            with contextlib.suppress(OSError):  # read-only: rebuilt in memory, not kept
                path.unlink()
        return not others

    def _rebuild(self, names: tuple[str, ...], versions: dict[str, int]) -> Tables:
        """Tidy every stored copy again; write the tables ``names`` and their state (the
        others are brought up to date when read: ``versions``, what the state said of them,
        still holds unless a copy was set aside)."""
        with self.cache.snapshot() as snap:
            _, tables, unreadable = self._tidy(snap, 0, names)
        removed: int | None = snap.removed
        for why in sorted({why for why, _ in unreadable.values()}):  # (after the read: a write)
            removed = self.cache.quarantine({i: v for i, (w, v) in unreadable.items()
                                             if w == why}, why, removed=removed)
        if os.access(self.dir.parent, os.W_OK):  # a read-only cache: used, not kept
            kept = versions if removed == snap.removed else {}  # (those not built here may
            try:  # hold rows of the copies removed)
                self.dir.mkdir(mode=0o700, exist_ok=True)
                self._keep(tables, None, names, {**kept, **dict.fromkeys(names, snap.version)},
                           removed)
            except OSError as exc:
                if not self.offline or _full(exc, self.dir) is exc:
                    raise _full(exc, self.dir) from None
                warn(f"icoframes cache: the disk holding {self.dir} is full: the tables could "
                     "not be kept; this offline load is answered from tables built in memory "
                     "(kept once space returns)", CacheWarning)
        return _described(tables)

    def _write(self, name: str, rows: pd.DataFrame, ids: pa.Array | None = None) -> None:
        """Write the table ``name``: the rows kept of the ICOs not in ``ids`` (None: none),
        then ``rows``."""
        path, schema = self.dir / f"{name}.parquet", _SCHEMAS[name].arrow_schema()
        table = pa.Table.from_pandas(rows, schema=schema, preserve_index=False)
        if ids is not None:
            kept = read_parquet_table(path)
            kept = kept.filter(pc.invert(pc.is_in(kept.column(schema.names[0]), value_set=ids)))
            table = pa.concat_tables([kept.cast(schema), table])
        atomic_write_table(table, path)


def _one(names: tuple[str, ...], tables: Tables) -> Any:
    return tables if len(names) > 1 else tables[names[0]]


def _described(tables: Tables) -> Tables:
    """``tables`` with their column descriptions, as :func:`~icoframes.tablefiles.read_table`
    gives them."""
    for name in tables:
        describe_columns(tables[name], _SCHEMAS[name].arrow_schema())
    return tables


def _full(exc: OSError, directory: Path) -> OSError:
    """A full disk as a :class:`CacheError` that says so; any other error as it is."""
    if not isinstance(exc, CacheError):
        check_open_files(directory, exc)
    if isinstance(exc, CacheError) or exc.errno != errno.ENOSPC:
        return exc
    return disk_full(directory, "the tables could not be kept (they are rebuilt next time)")


def _tidy_batch(batch: pa.Table, unreadable: dict[int, tuple[str, int | None]],
                decoded: dict[int, tuple[int, Any]], names: Collection[str]) -> Tables:
    """The fetched copies of one batch tidied into the tables ``names`` (gone ones have no
    rows); the ids whose stored text does not decode, or is no profile of that id, are
    added to ``unreadable``. A copy found in ``decoded`` (id -> (version, profile); taken
    out) is not decoded again."""
    raw, statuses, times = [], {}, {}
    for ico_id, kind, status, text, at, version in zip(
            *(batch.column(c).to_pylist()
              for c in ("id", "state", "status", "raw", "fetched_at", "version")), strict=True):
        known = decoded.pop(ico_id, None)
        if kind != "fetched":
            continue  # gone: listed, but no profile (error 482)
        if known is not None and known[0] == version:
            raw.append(known[1])  # (checked by the response gate)
        else:
            try:
                profile = loads_text(text)
            except (ValueError, TypeError, RecursionError):
                unreadable[ico_id] = ("not JSON", version)
                continue
            # valid JSON, yet another record (another id's, a number): its rows would be wrong
            if not isinstance(profile, dict) or rules.parse_id(profile.get("id")) != ico_id:
                unreadable[ico_id] = ("not a profile of its id", version)
                continue
            if not holds_a_section(profile):
                unreadable[ico_id] = ("holds none of its sections", version)
                continue
            raw.append(profile)
        statuses[ico_id], times[ico_id] = status, at
    part = profiles.tidy(raw, statuses=statuses, tables=names)  # a cold load_icos: icos alone
    absent = Problems()
    absent_sections(raw, absent)  # a section the answer left out (tidy takes it as empty)
    if absent and "problems" in names:
        found = absent.frame()  # (an empty frame beside it: pandas warns of its dtypes)
        part = dataclasses.replace(part, problems=pd.concat(
            [part.problems, found], ignore_index=True) if len(part.problems) else found)
    column = ICOS.column("fetched_at")
    when = pd.to_datetime(pd.Series(times, dtype="object").reindex(
        part.icos["id"].to_numpy()).to_numpy(), utc=True)
    return dataclasses.replace(part, icos=part.icos.assign(
        fetched_at=pd.array(when, dtype=column.dtype)))  # type: ignore[arg-type]


def _concat(parts: list[Tables]) -> Tables:
    """The tables of consecutive batches as one (each table's rows in batch order; empty
    frames left out unless all are: pandas warns that their dtypes will count)."""
    if len(parts) < 2:
        return parts[0] if parts else profiles.tidy([])
    return Tables(**{name: pd.concat([p[name] for p in parts if len(p[name])] or [parts[0][name]],
                                     ignore_index=True) for name in parts[0]})

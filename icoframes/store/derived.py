"""The tidy tables derived from the cached raw profiles, rebuilt when they could be stale.

``tables/<table>.parquet`` hold :func:`icoframes.parse.profiles.tidy` of the
copy in use of every cached profile (``icos.fetched_at`` says when each was
fetched); ``tables/_state.json`` records what they were built from: the
store's change counter (:meth:`~icoframes.store.cache.Cache.snapshot`) and a
*fingerprint* of the reading code (:func:`parser_fingerprint`: the schema,
:data:`icoframes.parse.rules.PARSER_VERSION` and the source of
:mod:`icoframes.parse`). The tables are rebuilt from the stored raw profiles,
without a single request, when a copy arrived or was removed since (any
process), when the reading code changed, or when a table file is unreadable.
A rebuild decodes the profiles in batches, so its memory grows with the
tables, not with the raw text. A profile whose stored text cannot be decoded
is quarantined (fetched again by the next load).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import json
import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from ..api.text import loads_text
from ..errors import CacheError, CacheWarning, warn
from ..files import atomic_write_bytes, locked
from ..parse import profiles, rules
from ..schema import ICOS, PROBLEMS, TABLES
from ..tables import Tables, read_table
from .cache import Cache

__all__ = ["DerivedTables", "parser_fingerprint"]

_STATE = "_state.json"


@lru_cache(maxsize=1)
def _parse_sources() -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(rules.__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def parser_fingerprint() -> str:
    """What the derived tables depend on: schema, parser version, parser source.

    Examples
    --------
    >>> len(parser_fingerprint())
    16
    """
    spec = {
        "schema": [(t.name, [(c.name, c.kind) for c in t.columns])
                   for t in (*TABLES.values(), PROBLEMS)],
        "parser_version": rules.PARSER_VERSION,
        "parser_source": _parse_sources(),
    }
    return hashlib.sha256(json.dumps(spec).encode()).hexdigest()[:16]


class DerivedTables:
    """The tidy tables of every profile in ``cache``, kept in step with it.

    Parameters
    ----------
    cache : Cache
        The raw store they are derived from.
    """

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.dir = cache.tables_dir
        self._state_path = self.dir / _STATE

    def __repr__(self) -> str:
        return f"DerivedTables({str(self.dir)!r})"

    def tables(self) -> Tables:
        """The tidy :class:`~icoframes.tables.Tables` over every cached profile."""
        return self._get(lambda: Tables.read_parquet(self.dir))  # type: ignore[no-any-return]

    def table(self, name: str) -> pd.DataFrame:
        """One table (e.g. ``"icos"``) over every cached profile; see :meth:`tables`."""
        return self._get(lambda: read_table(self.dir, name), name)  # type: ignore[no-any-return]

    def _get(self, read: Any, name: str | None = None) -> Any:
        if not self.cache.path.exists():  # nothing cached (and no folder to make)
            tables = profiles.tidy([])
            return tables if name is None else tables[name]
        with locked(self.dir.parent / ".lock"):
            with self.cache.snapshot() as snap:
                wanted = {"version": snap.version, "removed": snap.removed,
                          "fingerprint": parser_fingerprint()}
            if self._plain_files() and self._state() == wanted:
                try:
                    return read()
                except FileNotFoundError:
                    pass
                except (pa.ArrowException, OSError, ValueError, KeyError) as exc:
                    warn(f"icoframes cache tables in {self.dir} are unreadable "
                         f"({type(exc).__name__}: {exc}); they are rebuilt from the stored "
                         "profiles", CacheWarning)
            tables = self._rebuild()
        return tables if name is None else tables[name]

    def _state(self) -> dict[str, Any]:
        try:
            state = json.loads(self._state_path.read_text())
        except (OSError, ValueError):
            return {}
        return state if isinstance(state, dict) else {}

    def _plain_files(self) -> bool:
        """Every entry of the tables folder is a plain file: a link or a FIFO is never read
        (a link in place of the folder goes too: the tables are never written through it)."""
        if not (self.dir.is_symlink() or self.dir.exists()):
            return False  # no tables yet
        try:
            entries = [self.dir] if self.dir.is_symlink() or not self.dir.is_dir() else [
                self.dir, *self.dir.iterdir()]
        except OSError:
            return False
        plain = True
        for path in entries:
            mode = path.lstat().st_mode
            if stat.S_ISREG(mode) or (stat.S_ISDIR(mode) and path == self.dir):
                continue
            warn(f"icoframes cache entry {path} is not a plain file or folder; it is removed "
                 "(never followed or opened) and the tables are rebuilt", CacheWarning)
            with contextlib.suppress(OSError):  # read-only: rebuilt in memory, not kept
                path.unlink()
            plain = False
        return plain

    def _rebuild(self) -> Tables:
        """Tidy every stored copy again (in batches), write the tables and their state."""
        parts: list[Tables] = []
        unreadable: list[int] = []
        with self.cache.snapshot() as snap:
            state = {"version": snap.version, "removed": snap.removed,
                     "fingerprint": parser_fingerprint()}
            for batch in snap.copies():
                raw, statuses, times = [], {}, {}
                for ico_id, kind, status, text, at in zip(
                        *(batch.column(c).to_pylist()
                          for c in ("id", "state", "status", "raw", "fetched_at")), strict=True):
                    if kind != "fetched":
                        continue  # gone: listed, but no profile (error 482)
                    try:
                        raw.append(loads_text(text))
                    except (ValueError, TypeError, RecursionError):
                        unreadable.append(ico_id)
                        continue
                    statuses[ico_id], times[ico_id] = status, at
                part = profiles.tidy(raw, statuses=statuses)
                parts.append(dataclasses.replace(part, icos=_with_fetch_times(part.icos, times)))
        if unreadable:
            self.cache.quarantine(unreadable, "not JSON")
            state = {}  # the removal changed the counter: the next read rebuilds
        tables = _concat(parts)
        if os.access(self.dir.parent, os.W_OK):  # a read-only cache: used, not kept
            try:
                self.dir.mkdir(mode=0o700, exist_ok=True)
                tables.to_parquet(self.dir)
                atomic_write_bytes(self._state_path, json.dumps(state).encode())
            except OSError as exc:
                if isinstance(exc, CacheError) or exc.errno != errno.ENOSPC:
                    raise
                raise CacheError(f"the disk holding the cache {self.dir} is full: the tables "
                                 "could not be kept (they are rebuilt next time); free some "
                                 "space") from None
        return tables

def _concat(parts: list[Tables]) -> Tables:
    """The tables of consecutive batches as one (each table's rows in batch order)."""
    if not parts:
        return profiles.tidy([])
    if len(parts) == 1:
        return parts[0]
    fields = [f.name for f in dataclasses.fields(Tables)]
    merged = {}
    for name in fields:
        frames = [getattr(p, name) for p in parts]
        filled = [f for f in frames if len(f)] or frames[:1]
        merged[name] = pd.concat(filled, ignore_index=True) if len(filled) > 1 else filled[0]
    return Tables(**merged)


def _with_fetch_times(icos: pd.DataFrame, times: dict[int, Any]) -> pd.DataFrame:
    """``icos`` with ``fetched_at``: when the copy of each profile in use was recorded (UTC)."""
    column = ICOS.column("fetched_at")
    when = pd.Series(times, dtype="object")
    values = pd.to_datetime(when.reindex(icos["id"].to_numpy()).to_numpy(), utc=True)
    return icos.assign(fetched_at=pd.array(values, dtype=column.dtype))


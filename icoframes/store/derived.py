"""The tidy tables derived from the cached raw profiles, rebuilt when they could be stale.

``tables/<table>.parquet`` hold :func:`icoframes.parse.profiles.tidy` of the
copy in use of every cached profile (``icos.fetched_at`` says when each was
fetched); ``tables/_state.json`` records what they were built from: the names
of the profile parts, the size of each journal holding events not folded yet,
and a *fingerprint* of the reading code (the schema's columns and kinds,
:data:`icoframes.parse.rules.PARSER_VERSION` and the source text of
:mod:`icoframes.parse`). Before looking at its state this process folds its own
journal and those of dead processes (:meth:`~icoframes.store.cache.Cache.fold`);
the tables are rebuilt from the raw profiles, without a single request, when
new parts arrived, when a journal grew (another live process fetching), when a
part was compacted away, when the schema or any reading rule changed, or when a
table file is unreadable.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from ..files import atomic_write_bytes
from ..parse import profiles, rules
from ..schema import ICOS, PROBLEMS, TABLES
from ..tables import Tables, read_table
from .cache import GONE, Cache
from .events import latest_copies

__all__ = ["COMPACT_AFTER", "DerivedTables", "parser_fingerprint"]

COMPACT_AFTER = 48  # profile part files; beyond this they are merged into one


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
        The raw store they are derived from; its lock guards both.
    """

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.dir = cache.tables_dir
        self._state_path = self.dir / "_state.json"

    def __repr__(self) -> str:
        return f"DerivedTables({str(self.dir)!r})"

    def tables(self) -> Tables:
        """The tidy :class:`~icoframes.tables.Tables` over every cached profile."""
        if self._built():
            try:
                with self.cache.lock():
                    return Tables.read_parquet(self.dir)
            except FileNotFoundError:
                pass
            except (pa.ArrowException, OSError, ValueError, KeyError) as exc:
                self.cache.quarantine(self._state_path, exc)
        return self._rebuild()

    def table(self, name: str) -> pd.DataFrame:
        """One table (e.g. ``"icos"``) over every cached profile; see :meth:`tables`."""
        if self._built():
            try:
                with self.cache.lock():
                    return read_table(self.dir, name)
            except FileNotFoundError:
                pass
            except (pa.ArrowException, OSError, ValueError) as exc:
                self.cache.quarantine(self._state_path, exc)
        return self._rebuild()[name]

    # -- state ------------------------------------------------------------------

    def _state(self) -> dict[str, Any]:
        try:
            state = json.loads(self._state_path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            self.cache.quarantine(self._state_path, exc)
            return {}
        return state if isinstance(state, dict) else {}

    def _write_state(self, parts: list[str], journals: dict[str, int]) -> None:
        state = {"parts": parts, "journals": journals, "fingerprint": parser_fingerprint()}
        atomic_write_bytes(self._state_path, json.dumps(state).encode())

    def _sources(self) -> tuple[list[str], dict[str, int]]:
        """The parts, and the journals holding something (name -> size), on disk now."""
        journals = {}
        for path in self.cache.journal_files():
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                continue
            if size:
                journals[path.name] = size
        return [p.name for p in self.cache.part_files()], journals

    def _matches(self, parts: list[str], journals: dict[str, int]) -> bool:
        state = self._state()
        return (state.get("parts") == parts and state.get("journals") == journals
                and state.get("fingerprint") == parser_fingerprint())

    def _built(self) -> bool:
        """Whether the tables were built from exactly the current events by this parser."""
        self.cache.fold()
        if len(self.cache.part_files()) > COMPACT_AFTER:
            self._compact()
        return self._matches(*self._sources())

    def _compact(self) -> None:
        """Merge the many part files into one, keeping the tables' state in step."""
        with self.cache.lock():
            parts = self.cache.part_files()
            if len(parts) <= COMPACT_AFTER:
                return  # another process compacted meanwhile
            names, journals = self._sources()
            was_built = self._matches(names, journals)
            name = self.cache.compact_locked(parts)
            if was_built:  # the same copies in use, now in one file: the tables still hold
                self._write_state([name], journals)
            else:  # the tables missed some of the merged parts: force a rebuild
                self._state_path.unlink(missing_ok=True)

    def _rebuild(self) -> Tables:
        with self.cache.lock():
            snapshot = self.cache.read_events(raw=True, holding_lock=True)
            records = latest_copies(snapshot.events)
            ids = records.column("id").to_pylist()
            statuses = dict(zip(ids, records.column("status").to_pylist(), strict=True))
            # GONE marks an ICO that was listed but had no profile (error 482)
            raw = [json.loads(text) for text in records.column("raw").to_pylist()
                   if text != GONE]
            tables = profiles.tidy(raw, statuses=statuses)
            tables = dataclasses.replace(tables, icos=_with_fetch_times(tables.icos, records))
            tables.to_parquet(self.dir)
            self._write_state(snapshot.parts, snapshot.journals)
        return tables


def _with_fetch_times(icos: pd.DataFrame, records: pa.Table) -> pd.DataFrame:
    """``icos`` with ``fetched_at``: when the copy of each profile in use was recorded (UTC)."""
    at = records.column("fetched_at").cast(pa.timestamp("ms", tz="UTC")).to_pandas()
    when = pd.Series(at.array, index=records.column("id").to_numpy())
    column = ICOS.column("fetched_at")
    values = when.reindex(icos["id"].to_numpy()).array  # NaT for an id without a record
    return icos.assign(fetched_at=pd.array(values, dtype=column.dtype))

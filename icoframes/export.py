"""Parquet exports of every table, for cron jobs and other tools (DuckDB, Polars, Spark).

``export_tables(out)`` writes ``out/<table>.parquet`` for every table and
``out/manifest.json``. With ``snapshot=True`` it writes under
``out/snapshot_date=YYYY-MM-DD/`` instead (the UTC day of the export), so
readers that understand hive partitions see every snapshot as one dataset with
the date as a column. A snapshot always re-pages the lists (``refresh=True`` at
least), so each day's snapshot says what the service listed that day.

A plain export is daily too: it uses a cached list only when that list was
fetched during the current UTC day *and* is younger than ``max_age``; a list
fetched before today's 00:00 UTC is re-paged. So a cron job at a fixed hour
re-pages every day, even when yesterday's run finished a few seconds less than
``max_age`` (one day) ago, while a second run the same day spends nothing on
lists. ``max_age=None`` (never expires) turns the rule off. The manifest states
the moment a cached list had to be fetched after (``lists_fresh_after``) and
each list's fetch time (``queries[*].fetched_at``, and ``lists_fetched``:
the oldest and the newest).

What a reader can rely on:

* ``out`` is checked writable (created when missing) before any request is
  spent; if it is not, :class:`~icoframes.errors.ConfigError` names it.
* Everything is first written to this export's own staging folder *inside*
  ``out``: ``out/.icoframes-staging-<random>/export/data/``, made by
  :func:`tempfile.mkdtemp` (a name nobody can guess or plant beforehand, private
  to the user running the export). Being inside ``out``, the final renames
  never cross a filesystem (``out`` may be a mount point, and its parent need
  not be writable); being hidden and two levels down, the tables are never
  matched by ``out/*.parquet``, ``out/*/icos.parquet`` or ``out/*/*.parquet``.
* An export removes only what it made: its own staging folder, the previous
  snapshot folder of the day it replaces, and the staging folders of killed
  exports (real folders named ``.icoframes-staging-*``, owned by the user,
  holding the lock file an export makes first, which nobody holds). It never
  follows a symbolic link: a ``snapshot_date=`` entry that is a link is refused
  (ConfigError, nothing moved), a planted ``.icoframes-staging*`` link is left
  alone.
* A snapshot folder is swapped in whole: the previous folder of the same day is
  renamed aside, the new one renamed into place, and the old one deleted after.
  A reader sees the old snapshot or the new one (or, for the instant between
  the two renames, none), never a mix.
* A plain export cannot be swapped as one folder, because ``out`` itself is
  the export: readers (:func:`icoframes.read_export`, ``out/icos.parquet`` in
  DuckDB) name its files directly, so a ``current`` symlink or a versioned
  subfolder would move every reader's path, and symlinks need privileges on
  Windows. ``manifest.json`` is the commit record instead: the old manifest is
  removed *first*, each table file is renamed into place (each rename atomic),
  and the new manifest is renamed in *last*. So whenever ``manifest.json``
  exists, the tables beside it are the ones it describes; a folder without one
  is an export in progress or one that was killed mid-swap (the next run
  completes it). A reader racing a running export reads ``manifest.json``
  before and after the tables and retries when it changed
  (:mod:`icoframes.exported`).
* Two exports into one ``out`` swap one at a time (``flock`` on ``out`` itself,
  so no lock file is left in it; a ``.icoframes-swap.lock`` file on Windows).
  The staging folder of a killed export is removed by the next run; that of a
  running export is not (each holds a lock on its folder while it runs, which
  the operating system releases when the process dies). After an export,
  ``out`` holds the export and nothing else of icoframes'.
* An export whose query matches no ICO raises :class:`~icoframes.errors.EmptyResult`
  and writes nothing, unless ``allow_empty=True``.

``manifest.json`` records the arguments, the rows per table, the requests this
export spent (per endpoint in ``requests_spent``, and ``requests_total``), each
list query (its parameters, whether it was complete, whether it came from the
cache, its rows, when it was fetched, values lost), ``complete``, ``missing``,
``not_refreshed`` (see below), the fetch times of the oldest and newest exported profile
(``profiles_fetched``; null when the ``icos`` table has no ``fetched_at``
column), ``problems`` (the number of unreadable values), ``exported_at`` (when
the export was written, UTC) and ``package_version``. ``lists_fresh_after`` and
``lists_fetched`` say how fresh the lists are (see above).

Incomplete is an outcome, not a success. An export that could not fetch
everything still writes what it fetched, with ``complete: false`` and what it
lacks: ``missing`` (each listed ICO without a row: ``id``, ``name``, ``state``
(failed, gone, not_fetched) and ``reason``), ``not_refreshed`` (each row kept
from an earlier fetch because its new fetch failed or the budget ran out:
``id``, ``reason``, ``fetched_at``) and, per query, ``complete: false`` for a
list that came back partial. ``icoframes export`` then exits 5 (unless
``--allow-incomplete``); :func:`icoframes.changes` reads ``missing`` and the
partial lists so that such gaps never show as removed and new ICOs.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from ._version import __version__
from .errors import EmptyResult
from .exported import MANIFEST, SNAPSHOT_PREFIX
from .fetch import Load, age_limit
from .files import atomic_write_bytes, atomic_write_table, utcnow
from .loaders import DEFAULT_MAX_AGE, MaxAge, ProfileMaxAge, Refresh, load_tables
from .queries import keywords_of
from .schema import PROBLEM_SUMMARY, TABLES
from .staging import STAGING_PREFIX, Staging, swap_files, swap_folder, swap_lock

__all__ = ["MANIFEST", "STAGING_PREFIX", "ExportResult", "export_tables"]


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote: where, whether it is complete, what it cost.

    The main facts of ``manifest.json`` as typed attributes; ``manifest`` holds
    all of it, as written. Reading it as a dict (``result["rows"]``,
    ``result["path"]``), as in 0.1, still works in this version and goes in
    the next: use the attributes.

    Attributes
    ----------
    path : pathlib.Path
        The folder written: ``out``, or ``out/snapshot_date=YYYY-MM-DD``.
    complete : bool
        Every listed ICO has a fresh row and every list came back whole.
    rows : dict of str to int
        Rows per table.
    requests_spent : dict of str to int
        Requests this export sent, per endpoint (retries included).
    requests_total : int
        Their sum.
    missing : list of dict
        Listed ICOs without a row: ``id``, ``name``, ``state``, ``reason``.
    not_refreshed : list of dict
        Rows kept from an earlier fetch: ``id``, ``reason``, ``fetched_at``.
    exported_at : datetime.datetime
        When the export was written (UTC).
    manifest : dict
        ``manifest.json`` as written.
    """

    path: Path
    complete: bool
    rows: dict[str, int]
    requests_spent: dict[str, int]
    requests_total: int
    missing: list[dict[str, Any]]
    not_refreshed: list[dict[str, Any]]
    exported_at: dt.datetime
    manifest: dict[str, Any] = field(repr=False)

    # dict-style reading as in 0.1 (the manifest, plus "path" as text): deprecated
    def _as_dict(self) -> dict[str, Any]:
        return {**self.manifest, "path": str(self.path)}

    def __getitem__(self, key: str) -> Any:
        return self._as_dict()[key]

    def __contains__(self, key: object) -> bool:
        return key in self._as_dict()

    def keys(self) -> list[str]:
        return list(self._as_dict())

    def items(self) -> list[tuple[str, Any]]:
        return list(self._as_dict().items())

    def get(self, key: str, default: Any = None) -> Any:
        return self._as_dict().get(key, default)



def export_tables(
    out: str | os.PathLike[str],
    *,
    status: str | None = None,
    snapshot: bool = False,
    refresh: Refresh = False,
    max_age: MaxAge = DEFAULT_MAX_AGE,
    profile_max_age: ProfileMaxAge = None,
    budget: int | None = None,
    allow_empty: bool = False,
    max_workers: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
    **filters: Any,
) -> ExportResult:
    """Load every table for the matching ICOs and write them as Parquet with a manifest.

    Parameters
    ----------
    out : path-like
        The export folder (created when missing; it must be writable).
    status, refresh, profile_max_age, budget, max_workers, progress, **filters
        As for :func:`icoframes.load_tables`.
    max_age : timedelta or seconds, default one day
        A cached list is used only when it was fetched during the current UTC
        day and is younger than this; otherwise it is re-paged (so a daily cron
        export always holds that day's lists). ``None``: cached lists never expire.
    snapshot : bool, default False
        Write under ``out/snapshot_date=<UTC date>/``, replacing that day's
        snapshot. Implies ``refresh=True`` at least: the lists are always re-paged.
    allow_empty : bool, default False
        Write empty tables when no ICO matches, instead of raising.
    cache_dir : path-like, optional
        Overrides the configured cache dir.

    Returns
    -------
    ExportResult
        Where the export went (``path``), ``complete``, ``rows``,
        ``requests_spent``, ``requests_total``, ``missing``, ``not_refreshed``,
        ``exported_at`` and the whole ``manifest`` as written.

    Raises
    ------
    ConfigError
        ``out`` cannot be created or written (raised before any request), or
        the settings are incomplete.
    EmptyResult
        No ICO matched and ``allow_empty`` is False; nothing was written.
    QuotaExceeded
        The daily limit was reached; nothing is exported, what was fetched is
        cached, and the next run resumes.

    Examples
    --------
    >>> import icoframes, json, tempfile
    >>> from pathlib import Path
    >>> from icoframes import sandbox
    >>> with sandbox.serve(n_icos=40) as sb:
    ...     _ = icoframes.configure(**sb.settings(), cache_dir=tempfile.mkdtemp())
    ...     manifest = export_tables(tempfile.mkdtemp(), status="past", snapshot=True,
    ...                              progress=False)
    >>> icoframes.reset_configuration()
    >>> manifest.path.name.startswith("snapshot_date="), manifest.complete
    (True, True)
    >>> manifest.rows["icos"] > 0, manifest.requests_spent["icos"] > 0
    (True, True)
    >>> written = json.loads((manifest.path / "manifest.json").read_text())
    >>> written == manifest.manifest, written["rows"] == manifest.rows
    (True, True)
    """
    if snapshot and refresh is False:
        refresh = True  # a snapshot says what the service lists today, not what a cache held
    now = utcnow()
    fresh_after = lists_fresh_after(max_age, now)  # lists fetched before today are re-paged
    list_max_age = None if fresh_after is None else now - fresh_after
    load = Load(progress=progress, max_workers=max_workers, cache_dir=cache_dir)
    with Staging(Path(out)) as staging:  # out is checked writable here: no request yet
        tables = load.tables(status, filters, refresh=refresh, max_age=list_max_age,
                             profile_max_age=profile_max_age, budget=budget, only_icos=False,
                             keywords=keywords_of(load_tables))
        stated = tables.icos.attrs.get("icoframes", {})  # what the loaders say of the rows
        queries = list(stated.get("queries", []))
        if not len(tables.icos) and not allow_empty:
            raise EmptyResult(_nothing_matched(queries, status, filters))
        exported_at = utcnow()
        stale = not_refreshed(tables.icos, stated)
        summary = tables.problem_summary()
        manifest: dict[str, Any] = {
            "arguments": {"status": status, "snapshot": snapshot, "refresh": refresh,
                          "max_age": _jsonable(max_age),
                          "profile_max_age": _jsonable(profile_max_age), "budget": budget,
                          "allow_empty": allow_empty, "filters": _jsonable(filters)},
            "rows": {name: len(tables[name]) for name in TABLES},
            "requests_spent": load.requests_spent(),
            "requests_total": sum(load.requests_spent().values()),
            "queries": [_jsonable(q) for q in queries],
            "lists_fresh_after": None if fresh_after is None else fresh_after.isoformat(),
            "lists_fetched": _oldest_newest(q.get("fetched_at") for q in queries),
            "complete": bool(stated.get("complete",
                                        all(bool(q.get("complete")) for q in queries)))
                        and not stale,
            "missing": [_jsonable(m) for m in stated.get("missing", [])],
            "not_refreshed": stale,
            "profiles_fetched": profile_ages(tables.icos),
            "problems": len(tables.problems),
            "problems_by_column": {f"{t}.{c}": int(n) for t, c, n in zip(
                summary["table"], summary["column"], summary["count"], strict=True)},
            "exported_at": exported_at.isoformat(),
            "package_version": __version__,
        }
        tables.to_parquet(staging.data)
        # problems.parquet has one row per unreadable value (ico_id, table, column, value);
        # its per-column summary is written beside it, for a glance
        atomic_write_table(pa.Table.from_pandas(summary, schema=PROBLEM_SUMMARY.arrow_schema(),
                                                preserve_index=False),
                           staging.data / "problem_summary.parquet")
        atomic_write_bytes(staging.data / MANIFEST, _dump(manifest))
        if snapshot:
            target = staging.out / f"{SNAPSHOT_PREFIX}{exported_at.date().isoformat()}"
            with swap_lock(staging.out):
                swap_folder(staging.data, target, staging.scratch)
        else:
            target = staging.out
            with swap_lock(staging.out):
                swap_files(staging.data, target)
    return ExportResult(path=target, complete=manifest["complete"], rows=manifest["rows"],
                        requests_spent=manifest["requests_spent"],
                        requests_total=manifest["requests_total"], missing=manifest["missing"],
                        not_refreshed=manifest["not_refreshed"], exported_at=exported_at,
                        manifest=manifest)


# -- what the manifest states --------------------------------------------------


def lists_fresh_after(max_age: MaxAge, now: dt.datetime) -> dt.datetime | None:
    """The moment a cached list must have been fetched after to be used by an export.

    The later of the current UTC day's start and ``now - max_age``: an export
    run by cron at a fixed hour re-pages the lists every day, never serving
    yesterday's because it is a few seconds short of ``max_age``. None when
    ``max_age`` is None (lists never expire).

    Examples
    --------
    >>> import datetime as dt
    >>> now = dt.datetime(2026, 11, 21, 3, 15, tzinfo=dt.UTC)
    >>> lists_fresh_after(86400, now).isoformat()
    '2026-11-21T00:00:00+00:00'
    >>> lists_fresh_after(dt.timedelta(hours=1), now).isoformat()
    '2026-11-21T02:15:00+00:00'
    >>> lists_fresh_after(None, now) is None
    True
    """
    limit = age_limit(max_age)  # InvalidParameter for what is not an age, before any request
    if limit is None:
        return None
    midnight = now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return max(midnight, now - limit)


def _oldest_newest(stamps: Iterable[Any]) -> dict[str, str | None]:
    times = sorted(dt.datetime.fromisoformat(s) for s in stamps if isinstance(s, str))
    if not times:
        return {"oldest": None, "newest": None}
    return {"oldest": times[0].isoformat(), "newest": times[-1].isoformat()}


def profile_ages(icos: pd.DataFrame) -> dict[str, str | None]:
    """When the oldest and the newest exported profile was fetched (UTC, ISO 8601).

    Null for both when ``icos`` has no ``fetched_at`` column, or no time in it.

    Examples
    --------
    >>> import pandas as pd
    >>> stamps = pd.to_datetime(["2026-11-20 03:15", None, "2026-11-18 03:15"],
    ...                         format="%Y-%m-%d %H:%M", utc=True)
    >>> profile_ages(pd.DataFrame({"fetched_at": stamps}))
    {'oldest': '2026-11-18T03:15:00+00:00', 'newest': '2026-11-20T03:15:00+00:00'}
    >>> profile_ages(pd.DataFrame({"id": [1]}))
    {'oldest': None, 'newest': None}
    """
    if "fetched_at" not in icos.columns:
        return {"oldest": None, "newest": None}
    stamps = icos["fetched_at"]
    if not isinstance(stamps.dtype, pd.DatetimeTZDtype):
        # naive times are UTC by the package's convention; text is ISO 8601
        stamps = pd.to_datetime(stamps, utc=True, format="ISO8601")
    stamps = stamps.dropna()
    if stamps.empty:
        return {"oldest": None, "newest": None}
    return {"oldest": stamps.min().tz_convert("UTC").isoformat(),
            "newest": stamps.max().tz_convert("UTC").isoformat()}


def not_refreshed(icos: pd.DataFrame, stated: dict[str, Any]) -> list[dict[str, Any]]:
    """Exported rows this load tried to fetch again and could not: kept, older than asked.

    One dict per row: ``id``, ``reason`` (why its new fetch failed, or that the
    budget ran out) and ``fetched_at`` (when the exported row was fetched).
    """
    failed = {int(k): v for k, v in (stated.get("failed") or {}).items()}
    budget = [int(i) for i in stated.get("not_refreshed") or [] if int(i) not in failed]
    if not failed and not budget:
        return []
    when = (dict(zip(icos["id"].tolist(), icos["fetched_at"].tolist(), strict=True))
            if "fetched_at" in icos.columns else {})
    present = set(icos["id"].tolist())
    rows = [(i, str(failed[i])) for i in failed if i in present]
    rows += [(i, "the budget ran out before it was fetched again") for i in budget]
    return [{"id": i, "reason": reason,
             "fetched_at": None if pd.isna(when.get(i)) else pd.Timestamp(when[i]).isoformat()}
            for i, reason in sorted(rows)]


def _nothing_matched(queries: list[dict[str, Any]], status: str | None,
                     filters: dict[str, Any]) -> str:
    asked = [q.get("params") for q in queries if not q.get("rows")] or [
        {"status": status, **filters}]
    described = "; ".join(  # status first: it is what tells the queries of one export apart
        ", ".join(f"{k}={v}" for k, v in sorted(p.items(), key=lambda kv: kv[0] != "status")
                  if v is not None) if isinstance(p, dict) else str(p)
        for p in asked)
    return (f"no ICO matched the query ({described}), so nothing was exported; pass "
            "allow_empty=True (--allow-empty) to write empty tables for such a query")


def _jsonable(value: Any) -> Any:
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def _dump(manifest: dict[str, Any]) -> bytes:
    text = json.dumps(manifest, indent=2, ensure_ascii=False, default=str)
    return text.encode("utf-8") + b"\n"

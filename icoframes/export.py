"""Parquet exports of every table, for cron jobs and other tools (DuckDB, Polars, Spark).

``export_tables(out)`` writes ``out/<table>.parquet`` for every table and
``out/manifest.json``. With ``snapshot=True`` it writes under
``out/snapshot_date=YYYY-MM-DD/`` instead, so readers that understand hive
partitions see every snapshot as one dataset with the date as a column. The
day's folder is built under a temporary name and swapped in whole, so a re-run
on the same day replaces that snapshot and a reader never sees half of one.
The temporary folders live beside ``out`` (``.<name>.icoframes-work``), outside
the dataset a reader globs.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

from ._version import __version__
from .files import atomic_write_bytes
from .loaders import DEFAULT_MAX_AGE, LoaderCall, MaxAge, Refresh

__all__ = ["export_tables"]


def export_tables(
    out: str | os.PathLike[str],
    *,
    status: str | None = None,
    snapshot: bool = False,
    refresh: Refresh = False,
    max_age: MaxAge = DEFAULT_MAX_AGE,
    max_workers: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
    **filters: Any,
) -> dict[str, Any]:
    """Load every table for the matching ICOs and write them as Parquet with a manifest.

    Parameters
    ----------
    out : path-like
        The export folder (created when missing).
    status, refresh, max_age, max_workers, progress, **filters
        As for :func:`icoframes.load_tables`.
    snapshot : bool, default False
        Write under ``out/snapshot_date=<UTC date>/``, replacing that day's snapshot.
    cache_dir : path-like, optional
        Overrides the configured cache dir.

    Returns
    -------
    dict
        The manifest that was written, plus ``path`` (the folder written).

    Raises
    ------
    QuotaExceeded
        The daily limit was reached; nothing is exported, what was fetched is
        cached, and the next run resumes.
    """
    load = LoaderCall(progress=progress, max_workers=max_workers, cache_dir=cache_dir)
    tables = load.tables(status, filters, refresh=refresh, max_age=max_age, only_icos=False)
    fetched_at = dt.datetime.now(dt.UTC)
    out = Path(out)
    target = out / f"snapshot_date={fetched_at.date().isoformat()}" if snapshot else out

    manifest = {
        "arguments": {"status": status, "snapshot": snapshot, "refresh": refresh,
                      "max_age": _jsonable(max_age), "filters": _jsonable(filters)},
        "rows": {name: len(frame) for name, frame in tables},
        "requests_spent": load.requests_spent(),
        "fetched_at": fetched_at.isoformat(timespec="seconds"),
        "package_version": __version__,
        "problems": int(tables.problems["count"].sum()) if len(tables.problems) else 0,
    }
    if snapshot:
        # Built beside the export folder, not in it, so that a reader globbing
        # out/*/<table>.parquet never meets a half-written or retired snapshot.
        work = out.parent / f".{out.name}.icoframes-work"
        _clear_leftovers(work)
        staging = work / uuid.uuid4().hex
        try:
            tables.to_parquet(staging)
            atomic_write_bytes(staging / "manifest.json", _dump(manifest))
            out.mkdir(parents=True, exist_ok=True)
            _swap_in(staging, target, work)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    else:
        tables.to_parquet(target)
        atomic_write_bytes(target / "manifest.json", _dump(manifest))
    return {**manifest, "path": str(target)}


def _swap_in(staging: Path, target: Path, work: Path) -> None:
    """Replace ``target`` by ``staging``; the old folder is removed only after the swap."""
    old = work / f"old-{uuid.uuid4().hex}"
    with contextlib.suppress(FileNotFoundError):
        os.replace(target, old)
    try:
        os.replace(staging, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.replace(old, target)  # put the previous snapshot back
        raise
    shutil.rmtree(old, ignore_errors=True)


def _clear_leftovers(work: Path, *, older_than: float = 3600.0) -> None:
    """Remove work folders a killed export left behind (not those of a running one)."""
    if not work.is_dir():
        return
    now = time.time()
    for child in work.iterdir():
        with contextlib.suppress(OSError):
            if now - child.stat().st_mtime > older_than:
                shutil.rmtree(child, ignore_errors=True)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def _dump(manifest: dict[str, Any]) -> bytes:
    return json.dumps(manifest, indent=2, ensure_ascii=False).encode("utf-8") + b"\n"

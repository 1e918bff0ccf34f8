"""Exports read back: the folders :func:`icoframes.export_tables` writes, read consistently.

A plain export is ``out/<table>.parquet ... out/manifest.json``; a snapshot tree
is one ``out/snapshot_date=YYYY-MM-DD/`` folder of the same files per UTC day.
``manifest.json`` is each export's commit record: written last, removed first
when an export replaces a plain one, and swapped in with its folder for a
snapshot (:mod:`icoframes.export`).

A reader never mixes two exports. Every read here takes the folder's manifest
before and after reading the tables; when they differ (an export replaced the
folder meanwhile) or the manifest is absent (a plain export mid-swap) the read
is repeated, up to :data:`READ_ATTEMPTS` times, waiting a little longer each
time. When the folder kept changing, :class:`ExportReplaced` says so; a folder
whose manifest stays absent is a :class:`FileNotFoundError` saying that an
export is being written there or was killed mid-swap (the next run completes it).

Each snapshot's completeness is read from its manifest: ``complete``, the
``missing`` ids (listed but not fetched) and the statuses whose list came back
partial; :func:`snapshot_info` lists them and :func:`read_snapshots` carries
them in ``attrs["icoframes"]["snapshots"]``, which :func:`icoframes.changes` uses.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from .errors import ExportReplaced, UnknownName, did_you_mean
from .files import folder_flock, folder_path, json_object, read_record
from .queries import checked_keywords
from .schema import PROBLEMS, TABLES, TableSchema
from .tables import Tables, read_table

__all__ = ["MANIFEST", "READ_ATTEMPTS", "SNAPSHOT_PREFIX", "SWAP_PATIENCE", "Gaps", "gaps_by_date",
           "read_export", "read_manifest", "read_snapshots", "snapshot_folders", "snapshot_info"]

#: The commit record of an export: written last, removed first.
MANIFEST = "manifest.json"
#: A snapshot folder is ``SNAPSHOT_PREFIX + "YYYY-MM-DD"`` (hive style).
SNAPSHOT_PREFIX = "snapshot_date="
#: How many times a read is tried while an export replaces the folder.
READ_ATTEMPTS = 8
#: Seconds a read waits for an export swapping its files into the folder, at most.
SWAP_PATIENCE = 60.0
_SWAP_POLL = 0.05
DATE_DTYPE = np.dtype("datetime64[ms]")
_SNAPSHOT = re.compile(r"^snapshot_date=(.*)$")
_T = TypeVar("_T")


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The manifest of an export folder, or None when it has none (yet); ValueError naming
    it when it is damaged (not JSON, not UTF-8, not a JSON object, not a regular file)."""
    raw = _manifest_bytes(Path(folder))
    return None if raw is None else json_object(raw, Path(folder) / MANIFEST)


@checked_keywords
def read_export(path: str | os.PathLike[str]) -> Tables:
    """The :class:`~icoframes.tables.Tables` of one export folder, typed by the schema.

    Parameters
    ----------
    path : path-like
        A plain export (``out`` of ``export_tables(out)``) or one snapshot
        folder (``out/snapshot_date=YYYY-MM-DD``).

    Returns
    -------
    Tables
        Every table of one export, never a mix of two (see the module notes);
        ``tables.icos.attrs["icoframes"]["manifest"]`` holds the manifest read
        with them (``complete``, ``missing``, ``exported_at``, ...).

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist, lacks a table file, or lacks ``manifest.json``
        (an export in progress, or killed mid-swap: the message says so).
    ExportReplaced
        An export replaced the folder during every attempt to read it.
    ValueError
        ``path`` is a snapshot tree (use :func:`read_snapshots`, or pass one of
        its folders: the message names the latest), or a file's columns differ
        from the schema.

    Examples
    --------
    >>> import tempfile
    >>> from icoframes.tables import Tables
    >>> with tempfile.TemporaryDirectory() as out:
    ...     _ = Tables.empty().to_parquet(out)
    ...     _ = (Path(out) / "manifest.json").write_text("{}")
    ...     read_export(out).icos.shape
    (0, 42)
    """
    folder = folder_path(path, "path")  # "" is no export, not the current directory
    # a snapshot swap renames the folder away, then the new one in, under the tree's lock:
    # looked at while no swap holds it, a folder is never caught between the two renames
    with _no_swap_in(folder.parent):
        is_dir, holds = folder.is_dir(), _holds_export(folder)
        snapshots = snapshot_dirs(folder) if is_dir else {}
    if not is_dir:
        raise FileNotFoundError(f"no export folder at {folder}")
    if snapshots:
        latest = max(snapshots)
        raise ValueError(
            f"{folder} holds {len(snapshots)} snapshots, not one export; read them all with "
            f"read_snapshots({str(folder)!r}), or one with "
            f"read_export({str(snapshots[latest])!r}) (the latest)"
        )
    if not holds:
        raise FileNotFoundError(  # no table, no manifest: not an export being replaced
            f"{folder} is not an export of icoframes: missing {MANIFEST}, "
            f"{', '.join(_missing_tables(folder))}")

    def read() -> Tables:
        # checked inside the consistent read: a folder swapped under this check is read
        # again, and only a table missing beside an unchanged manifest is an error
        missing = _missing_tables(folder)
        if missing and (folder / MANIFEST).is_file():
            raise FileNotFoundError(
                f"{folder} is not an export of icoframes: missing {', '.join(missing)}")
        return Tables.read_parquet(folder)

    tables, manifest = consistent_read(folder, read)
    tables.icos.attrs.setdefault("icoframes", {})["manifest"] = manifest
    return tables


def _holds_export(folder: Path) -> bool:
    """Whether ``folder`` holds an export's manifest or one of its tables."""
    return (folder / MANIFEST).is_file() or len(_missing_tables(folder)) < len(TABLES)


def _missing_tables(folder: Path) -> list[str]:
    return [f"{t}.parquet" for t in TABLES if not (folder / f"{t}.parquet").is_file()]


def snapshot_dirs(folder: Path) -> dict[dt.date, Path]:
    """The ``snapshot_date=`` folders of ``folder`` by date; ValueError for a bad or twice day."""
    found: dict[dt.date, Path] = {}
    for child in sorted(folder.iterdir()):
        match = _SNAPSHOT.match(child.name)
        if not match or not child.is_dir():
            continue
        try:
            day = dt.date.fromisoformat(match.group(1))
        except ValueError:
            raise ValueError(f"{child}: the snapshot date is not YYYY-MM-DD") from None
        if day in found:
            raise ValueError(
                f"{folder} holds two snapshot folders for {day.isoformat()}: "
                f"{found[day].name} and {child.name}; keep one (an export names it "
                f"{SNAPSHOT_PREFIX}{day.isoformat()}) and move the other away")
        found[day] = child
    return found


def snapshot_folders(path: str | os.PathLike[str]) -> pd.Series:
    """The snapshot folders of an export tree, by date.

    Returns
    -------
    pandas.Series
        Folder paths (str) indexed by snapshot date (``datetime64[ms]``), sorted.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    ValueError
        ``path`` holds no ``snapshot_date=YYYY-MM-DD`` folder, one whose date
        does not read, or two folders for one day (``snapshot_date=2026-11-01``
        and ``snapshot_date=20261101``): which one is the day's is unknowable.
    """
    folder = folder_path(path, "path")  # "" is no export, not the current directory
    if not folder.is_dir():
        raise FileNotFoundError(f"no export folder at {folder}")
    found = snapshot_dirs(folder)
    if not found:
        hint = (" (it is a plain export: read it with read_export)"
                if (folder / MANIFEST).is_file() else "")
        raise ValueError(f"{folder} holds no snapshot_date=YYYY-MM-DD folder{hint}")
    dates = sorted(found)
    index = pd.DatetimeIndex(np.array(dates, dtype="datetime64[D]").astype(DATE_DTYPE),
                             name="snapshot_date")
    return pd.Series([str(found[d]) for d in dates], index=index, dtype=object)


def snapshot_info(path: str | os.PathLike[str]) -> pd.DataFrame:
    """What each snapshot's manifest says of its completeness, one row per snapshot.

    Returns
    -------
    pandas.DataFrame
        ``snapshot_date`` (datetime64[ms]), ``path`` (str), ``complete``
        (boolean; missing for a folder without a manifest), ``missing`` (list
        of the ids listed but not fetched), ``partial_lists`` (list of the
        statuses whose list came back partial; ``None`` in it for a list of
        every status), ``exported_at`` (str, ISO 8601) and ``queries`` (list of
        the wire parameters of its list queries, one dict each; ``None`` when its
        manifest names none: a tree holds one query's snapshots) and ``queries_given``
        (the same, platforms, categories, types and places as given; ``None`` for an
        older manifest).
    """
    folders = snapshot_folders(path)
    rows = [_info(date, Path(folder), read_manifest(folder))
            for date, folder in zip(pd.DatetimeIndex(folders.index), folders, strict=True)]
    return _info_frame(rows)


@checked_keywords
def read_snapshots(path: str | os.PathLike[str], table: str = "icos") -> pd.DataFrame:
    """One table over every snapshot of an export tree, with a ``snapshot_date`` column.

    Parameters
    ----------
    path : path-like
        The ``out`` of ``export_tables(out, snapshot=True)``.
    table : str, default "icos"
        A table of ``schema.TABLES`` (or ``"problems"``).

    Returns
    -------
    pandas.DataFrame
        ``snapshot_date`` (``datetime64[ms]``, midnight of the UTC day) followed
        by the table's columns at their schema dtypes; sorted by date, then by
        the table's key; a default index. ``attrs["icoframes"]["snapshots"]``
        holds each snapshot's completeness (the rows of :func:`snapshot_info`
        as dicts, dates as ``YYYY-MM-DD``), read with its table (never from
        another export of the same day).

    Raises
    ------
    KeyError
        ``table`` is not a table (the message suggests the closest): an
        :class:`~icoframes.errors.UnknownName`, an ``InvalidParameter`` too.
    FileNotFoundError
        ``path`` does not exist, or a snapshot lacks the table's file.
    ValueError
        ``path`` holds no snapshot folder, two folders for one day, or a file
        differs from the schema.
    ExportReplaced
        A snapshot was replaced during every attempt to read it.

    Examples
    --------
    >>> import tempfile
    >>> from icoframes.tables import Tables
    >>> with tempfile.TemporaryDirectory() as out:
    ...     for day in ("2026-11-01", "2026-11-02"):
    ...         _ = Tables.empty().to_parquet(Path(out) / f"snapshot_date={day}")
    ...     frame = read_snapshots(out)
    >>> frame.columns[:3].tolist(), str(frame["snapshot_date"].dtype)
    (['snapshot_date', 'id', 'status'], 'datetime64[ms]')
    >>> frame.attrs["icoframes"]["snapshots"][0]["complete"] is None  # no manifest
    True
    """
    schema = table_schema(table)
    frames, infos = [], []
    folders = snapshot_folders(path)
    for date, folder in zip(pd.DatetimeIndex(folders.index), folders, strict=True):
        frame, manifest = consistent_read(Path(folder), partial(read_table, folder, table),
                                          need_manifest=False)
        frame.insert(0, "snapshot_date", np.full(len(frame), date.to_datetime64(),
                                                 dtype=DATE_DTYPE))
        frames.append(frame)
        infos.append(_info(date, Path(folder), manifest))
    stacked = pd.concat(frames, ignore_index=True)
    # concat of frames that are all empty, or of mixed text dtypes, can loosen a dtype
    dtypes = {"snapshot_date": DATE_DTYPE, **schema.dtypes}
    stacked = stacked.astype({c: d for c, d in dtypes.items() if stacked[c].dtype != d})
    key = ["snapshot_date", *schema.key]
    stacked = stacked.sort_values(key, kind="stable", ignore_index=True)
    stacked.attrs["icoframes"] = {"snapshots": [
        {**i, "snapshot_date": i["snapshot_date"].date().isoformat()} for i in infos]}
    return stacked


class Gaps:
    """What one snapshot's manifest says it lacks: ids listed but not fetched, partial lists
    (what :func:`icoframes.changes` and :func:`icoframes.plot_status_flow` read)."""

    def __init__(self, missing: Iterable[int], partial: Iterable[str | None]) -> None:
        self.missing = pd.Index(list(missing), dtype="int64")
        self.partial = set(partial)

    def explains(self, ids: pd.Index) -> np.ndarray:
        """Whether this snapshot's incompleteness explains the absence of each of ``ids``:
        listed but not fetched, or any list came back partial (an ICO whose status moved
        is in the list of its new status, whichever that is: the spec states no transitions)."""
        if self.partial:
            return np.ones(len(ids), dtype=bool)
        return np.asarray(ids.isin(self.missing), dtype=bool)


def gaps_by_date(frame: pd.DataFrame) -> dict[pd.Timestamp, Gaps]:
    """The :class:`Gaps` of each incomplete snapshot of a :func:`read_snapshots` frame."""
    infos: list[dict[str, Any]] = (frame.attrs.get("icoframes") or {}).get("snapshots") or []
    return {pd.Timestamp(i["snapshot_date"]): Gaps(i.get("missing") or [],
                                                    i.get("partial_lists") or [])
            for i in infos if i.get("complete") is False}


def table_schema(table: str) -> TableSchema:
    """The schema of ``table`` (or of ``problems``); KeyError with a "did you mean"."""
    if table == PROBLEMS.name:
        return PROBLEMS
    if table not in TABLES:
        names = [*TABLES, PROBLEMS.name]  # problems is one too
        raise UnknownName(f"{table!r} is not a table ({', '.join(names)})"
                          f"{did_you_mean(table, names)}")
    return TABLES[table]


# -- reading while an export may replace the folder ---------------------------------


def consistent_read(folder: Path, read: Callable[[], _T], *,
                    need_manifest: bool = True) -> tuple[_T, dict[str, Any] | None]:
    """``read()`` and the manifest it belongs to: the same manifest before and after.

    A missing manifest is retried when ``need_manifest`` (a plain export
    mid-swap), then a FileNotFoundError; otherwise a folder without one is read
    as it is (a snapshot folder is swapped whole, so it never lacks it mid-swap).
    """
    wait = 0.01
    changed = absent = 0
    for attempt in range(READ_ATTEMPTS):
        if attempt:
            time.sleep(wait)  # an export's swap takes milliseconds; give it a moment
            wait = min(wait * 2, 0.5)
        before = _manifest_bytes(folder)
        if before is None and need_manifest:
            if _waited_for_swap(folder):  # replaced meanwhile: read the new export
                changed += 1
            else:
                absent += 1
            continue
        try:
            result = read()
        except (OSError, ValueError):  # pyarrow's errors are OSError and ValueError too
            if folder.is_dir() and _manifest_bytes(folder) == before:
                raise  # a file missing or unreadable in an export that did not change
            # the folder was swapped away under the read, or a file replaced between two
            # opens of it (a Parquet footer read from one file, its pages from the next)
            changed += 1
            continue
        if _manifest_bytes(folder) == before:
            return result, None if before is None else json_object(before, folder / MANIFEST)
        changed += 1
    if not changed:
        raise FileNotFoundError(
            f"{folder} is missing {MANIFEST}: an export is writing it right now, or one was "
            "killed while swapping its tables in (the next export completes it); "
            "read it once the export is done")
    raise ExportReplaced(
        f"{folder} is being replaced by a running export: it changed during each of "
        f"{READ_ATTEMPTS} attempts to read it ({absent} without a manifest); nothing mixed "
        "was returned. Read it again once the export is done.")


def _waited_for_swap(folder: Path) -> bool:
    """True once an export swapping its files into ``folder`` has finished (the manifest is
    missing while it does, however long a loaded disk takes); False when none was."""
    with _no_swap_in(folder) as waited:
        return waited


@contextlib.contextmanager
def _no_swap_in(folder: Path) -> Iterator[bool]:
    """Held while no export swaps files into ``folder`` (a shared lock against
    :func:`~icoframes.staging.swap_lock`); yields whether it waited for one to finish.
    Where it cannot tell (no ``fcntl``, no folder) it holds nothing and yields False.

    The wait is bounded by :data:`SWAP_PATIENCE`: an exporter stopped (SIGSTOP, a
    debugger) or hung while it holds the lock is an :class:`ExportReplaced`, not a reader
    blocked for as long as it is.
    """
    give_up = None
    with contextlib.ExitStack() as held:
        while True:
            try:
                if held.enter_context(folder_flock(folder, shared=True, block=False)):
                    break
            except (ImportError, OSError):  # no fcntl; or the folder went away (maybe meanwhile)
                break
            held.close()
            now = time.monotonic()
            if give_up is None:
                give_up = now + SWAP_PATIENCE
            elif now >= give_up:
                raise ExportReplaced(
                    f"{folder} is being replaced by an export that has held it for over "
                    f"{SWAP_PATIENCE:g} s without finishing (is its process stopped or hung?); "
                    "nothing was read. Read it again once that export is done or killed.")
            time.sleep(_SWAP_POLL)
        yield give_up is not None


def _manifest_bytes(folder: Path) -> bytes | None:
    return read_record(folder / MANIFEST)  # a FIFO, a symlink, a folder: damaged, unread


def _info(date: pd.Timestamp, folder: Path, manifest: dict[str, Any] | None) -> dict[str, Any]:
    if manifest is None:
        return {"snapshot_date": date, "path": str(folder), "complete": None, "missing": [],
                "partial_lists": [], "exported_at": None, "queries": None, "queries_given": None}
    missing = [int(m["id"]) for m in manifest.get("missing") or []
               if isinstance(m, dict) and m.get("id") is not None]
    partial = [(q.get("params") or {}).get("status") for q in manifest.get("queries") or []
               if isinstance(q, dict) and not q.get("complete", True)]
    complete = manifest.get("complete")
    queries = manifest.get("queries")
    queries = queries if isinstance(queries, list) else []
    params = [q.get("params") for q in queries if isinstance(q, dict)]
    return {"snapshot_date": date, "path": str(folder),
            "complete": None if complete is None else bool(complete),
            "missing": sorted(missing), "partial_lists": partial,
            "exported_at": manifest.get("exported_at"),
            # the list queries it holds (None: its manifest, an older version's, says none)
            "queries": params if params and all(isinstance(p, dict) for p in params)
            and len(params) == len(queries) else None,
            "queries_given": given if isinstance(given := manifest.get("queries_given"), list)
            and given and all(isinstance(g, dict) for g in given) else None}


def _info_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame({
        "snapshot_date": np.array([r["snapshot_date"].to_datetime64() for r in rows],
                                  dtype=DATE_DTYPE),
        "path": pd.array([r["path"] for r in rows], dtype="string"),
        "complete": pd.array([r["complete"] for r in rows], dtype="boolean"),
        "missing": pd.Series([r["missing"] for r in rows], dtype=object),
        "partial_lists": pd.Series([r["partial_lists"] for r in rows], dtype=object),
        "exported_at": pd.array([r["exported_at"] for r in rows], dtype="string"),
        "queries": pd.Series([r["queries"] for r in rows], dtype=object),
        "queries_given": pd.Series([r["queries_given"] for r in rows], dtype=object),
    })

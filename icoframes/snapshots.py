"""Snapshot trees read back: every day of ``out/snapshot_date=YYYY-MM-DD/``, never a mix.

:func:`read_snapshots` stacks one table over every snapshot of a tree with a
``snapshot_date`` column, :func:`snapshot_info` lists what each snapshot's manifest says
of its completeness (``complete``, the ``missing`` ids: listed but not fetched, the
statuses whose list came back partial), which :func:`read_snapshots` carries in
``attrs["icoframes"]["snapshots"]`` and :func:`icoframes.changes` reads (:class:`Gaps`).

An export replaces a day's folder by renaming it away, then the new one in, holding the
swap lock on the tree (:mod:`icoframes.staging`). A tree an export runs in, or one that
changed while it was listed, is listed again while no swap is in
(:func:`icoframes.exported.looked`), so no day mid-swap is left out; each
folder is then read as :func:`icoframes.read_export` reads one
(:func:`icoframes.exported.consistent_read`: its manifest before and after, a folder found
gone confirmed once no swap is in). No lock is held while a tree is listed or a table read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from .errors import ExportMismatch, ExportNotFound, InvalidParameter, UnknownName
from .exported import (
    MANIFEST,
    consistent_read,
    dicts,
    export_folder,
    missing_export,
    put_back,
    query_params,
    snapshot_dirs,
)
from .files import entry_kind
from .frozen import freeze
from .queries import checked_keywords
from .quoting import did_you_mean, quoted
from .reporting import manifest_summary
from .schema import PROBLEM_SUMMARY, PROBLEMS, TABLES, TableSchema, empty_frame
from .snapshotcuts import query_cut, warn_cut_rows, warn_query_cut
from .snapshotdays import (
    DATE_DTYPE,
    day_infos,
    snapshot_dates,
    uncounted_days,
    utc_dates,
    warn_uncounted,
)
from .snapshotpick import day_bounds, days_between, described, table_columns
from .tablefiles import problems_of
from .tables import read_table
from .textdtype import text_values

# the days of a frame are snapshotdays' (low in the layers: report() counts them too)
__all__ = [
    "DATE_DTYPE",
    "Gaps",
    "day_info",
    "gaps_by_date",
    "gaps_of",
    "query_cut",
    "read_day",
    "read_snapshots",
    "snapshot_dates",
    "snapshot_folders",
    "snapshot_info",
    "table_schema",
    "uncounted_days",
    "utc_dates",
    "warn_cut_rows",
    "warn_query_cut",
    "warn_uncounted",
    "with_listed",
]

_T = TypeVar("_T")
_Rows = TypeVar("_Rows", pd.DataFrame, pd.Series)


def snapshot_folders(path: str | os.PathLike[str]) -> pd.Series:
    """The snapshot folders of an export tree, by date.

    Returns
    -------
    pandas.Series
        Folder paths (str) indexed by snapshot date (``datetime64[ms]``), sorted.

    Raises
    ------
    InvalidParameter
        ``path`` names no folder (a file, a FIFO, a folder under a file).
    ExportNotFound
        ``path`` does not exist (a ``FileNotFoundError`` too).
    ExportMismatch
        A ``ValueError`` too: ``path`` holds no ``snapshot_date=YYYY-MM-DD`` folder, one
        whose date does not read, or two folders for one day (``snapshot_date=2026-11-01``
        and ``snapshot_date=20261101``): which one is the day's is unknowable.
    """
    folder = export_folder(path)  # "" is no export, not the current directory
    if not folder.is_dir():
        raise missing_export(folder)
    found = snapshot_dirs(folder)  # no day renamed away by its swap left out
    if not found:
        hint = (" (it is a plain export: read it with read_export)"
                if entry_kind(folder / MANIFEST) == "a file" else "")
        raise ExportMismatch(f"{folder} holds no snapshot_date=YYYY-MM-DD folder{hint}")
    dates = sorted(found)
    index = pd.DatetimeIndex(np.array(dates, dtype="datetime64[D]").astype(DATE_DTYPE),
                             name="snapshot_date")
    return pd.Series([str(found[d]) for d in dates], index=index, dtype=object)


def snapshot_info(path: str | os.PathLike[str]) -> pd.DataFrame:
    """What each snapshot's manifest says of its completeness, one row per snapshot.

    Returns
    -------
    pandas.DataFrame
        ``snapshot_date`` (datetime64[ms]), ``path`` (str), ``complete`` (boolean;
        missing for a folder without a manifest), ``missing`` (list of the ids listed
        but not fetched), ``partial_lists`` (list of the statuses whose list came back
        partial; ``None`` in it for a list of every status), ``not_refreshed`` (list of
        the ids whose row was kept from an earlier fetch, not fetched again: its fetch
        failed, the budget or the daily limit ran out first, or a run of wrong answers
        stopped the asking; the manifest's ``not_refreshed`` says why of each: a
        snapshot incomplete for these alone has nothing ``missing``), ``stopped`` (str:
        why the load stopped early, the manifest's ``stopped.reason``: ``"quota"`` or
        ``"breaker"``; missing when it ran to its end), ``exported_at`` (str, ISO 8601)
        and ``queries`` (list of the wire parameters of its list queries, one dict each;
        ``None`` when its manifest names none: a tree holds one query's snapshots) and
        ``queries_given`` (the same, platforms, categories, types and places as given;
        ``None`` for an older manifest).
    """
    folders = snapshot_folders(path)
    return _info_frame([day_info(folder, date) for date, folder
                        in zip(pd.DatetimeIndex(folders.index), folders, strict=True)])


def day_info(folder: str, date: pd.Timestamp) -> dict[str, Any]:
    """:func:`snapshot_info`'s row of one snapshot folder: its manifest alone, no table read."""
    read, _, manifest = _read_day(Path(folder), _there)  # one renamed away: waited for
    return _info(date, read, manifest)


@checked_keywords
def read_snapshots(path: str | os.PathLike[str], table: str = "icos", *,
                   columns: Iterable[str] | None = None, start: Any = None,
                   end: Any = None) -> pd.DataFrame:
    """One table over every snapshot of an export tree, with a ``snapshot_date`` column.

    Memory follows what is read: about 900 bytes a row of ``icos`` with every column (its
    text: descriptions, URLs), a fraction of that with the handful a question needs. Only
    the columns asked are decoded from the files; the days outside ``start``-``end`` are
    not opened.

    Parameters
    ----------
    path : path-like
        The ``out`` of ``export_tables(out, snapshot=True)``.
    table : str, default "icos"
        A table of ``schema.TABLES`` (or ``"problems"``).
    columns : str or iterable of str, optional
        The table's columns to read (default: all), returned in the schema's order; its key
        (``id`` of ``icos``, ``ico_id`` and the rest of a child table's) always comes too.
        Every file is still checked whole against the schema.
    start, end : date, optional
        The first and last snapshot day to read (each included; default: the tree's first
        and last), read as every date argument (a zoned moment: its UTC day). The frame and
        its ``attrs`` are then those of a tree holding those days alone.

    Returns
    -------
    pandas.DataFrame
        ``snapshot_date`` (``datetime64[ms]``, midnight of the UTC day) followed
        by the table's columns at their schema dtypes; sorted by date, then by
        the table's key; a default index. ``attrs["icoframes"]["snapshots"]``
        holds each snapshot's completeness (the rows of :func:`~icoframes.history.snapshot_info`
        as dicts, dates as ``YYYY-MM-DD``), read with its table (never from
        another export of the same day).

    Raises
    ------
    KeyError
        ``table`` is not a table (the message suggests the closest): an
        :class:`~icoframes.UnknownName`, an ``InvalidParameter`` too.
    InvalidParameter
        ``path`` names no folder (a file, a FIFO, a folder under a file): nothing is read.
    ExportNotFound
        A ``FileNotFoundError`` too: ``path`` does not exist, or a snapshot lacks the
        table's file (the message names the folder, its day and the file: "... is not an
        export of icoframes: missing accepting.parquet (the snapshot of 2026-11-01 ...)").
    ValueError
        ``path`` holds no snapshot folder or two folders for one day (``ExportMismatch``),
        or a file differs from the schema or is no regular file (a FIFO, a symbolic link:
        never opened, named as damaged). An unknown column (``UnknownName``, with the
        closest), ``start`` after ``end`` or a value that is no date (``InvalidParameter``).
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
    names = table_columns(schema, columns)
    day_bounds(start, end)  # a bad argument refused as such, before the path is looked at
    frames, infos = [], []
    folders = days_between(snapshot_folders(path), start, end)
    for date, folder in zip(pd.DatetimeIndex(folders.index), folders, strict=True):
        frame, info = read_day(folder, date, table, names)
        frame.insert(0, "snapshot_date", np.full(len(frame), date.to_datetime64(),
                                                 dtype=DATE_DTYPE))
        frames.append(frame)
        infos.append(info)
    if not frames:  # a window of no snapshot day: no row, the table's columns
        frames = [empty_frame(schema)[names or schema.names]]
        frames[0].insert(0, "snapshot_date", np.empty(0, DATE_DTYPE))
    stacked = pd.concat(frames, ignore_index=True)
    # concat of frames that are all empty, or of mixed text dtypes, can loosen a dtype
    dtypes = {"snapshot_date": DATE_DTYPE, **{c: d for c, d in schema.dtypes.items()
                                             if c in stacked.columns}}
    stacked = stacked.astype({c: d for c, d in dtypes.items() if stacked[c].dtype != d})
    key = ["snapshot_date", *schema.key]
    stacked = stacked.sort_values(key, kind="stable", ignore_index=True)
    stacked = described(stacked, schema)
    stacked.attrs["icoframes"] = freeze({"snapshots": [
        {**i, "snapshot_date": i["snapshot_date"].date().isoformat()} for i in infos]})
    return stacked


def read_day(folder: str, date: pd.Timestamp, table: str, columns: list[str] | None
             ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """One snapshot folder's ``table`` (its ``columns``; None: all) and what its manifest
    says (:func:`snapshot_info`'s row, with ``rows`` and ``report``), read together: never
    of two exports of the day."""
    read, frame, manifest = _read_day(Path(folder), partial(_read_table, name=table,
                                                             date=date, columns=columns))
    # the day's load summary too, for icoframes.report of the frame (the manifest is
    # not read again: another export of the day may have replaced it since), as JSON
    # text: pandas deep-copies attrs in every selection, a str at no cost (as dicts, a
    # year of days with 100 ICOs missing each made a selection ~10x slower)
    summary = manifest_summary(manifest)
    return frame, {**_info(date, read, manifest), "rows": len(frame),
                   "report": None if summary is None else json.dumps(summary)}


class Gaps:
    """What one snapshot's manifest says it lacks: ids listed but not fetched (with the status
    each was listed under, when said), partial lists (what :func:`icoframes.changes` and
    :func:`icoframes.plot_status_flow` read). ``gone``: the ids of ``missing`` whose profile
    the service answered it no longer has (error 482): never listed there by their status
    alone (:meth:`listed`), though a gap for an ICO known by a row (it may be listed again)."""

    def __init__(self, missing: Iterable[int], partial: Iterable[str | None], *,
                 everything: bool = False, statuses: Mapping[int, str] | None = None,
                 gone: Iterable[int] = ()) -> None:
        self.missing = pd.Index(list(missing), dtype="int64")
        self.gone = pd.Index(list(gone), dtype="int64")
        self.partial = set(partial)
        self.everything = everything
        self.statuses = dict(statuses or {})

    def explains(self, ids: pd.Index) -> np.ndarray:
        """Whether this snapshot's incompleteness explains the absence of each of ``ids``:
        listed but not fetched, or any list came back partial (an ICO whose status moved
        is in the list of its new status, whichever that is: the spec states no transitions)."""
        if self.partial or self.everything:
            return np.ones(len(ids), dtype=bool)
        return np.asarray(ids.isin(self.missing), dtype=bool)

    def listed(self, rows: pd.Index, known: pd.Index, only: pd.Index | None = None
               ) -> pd.Series:
        """The ICOs this snapshot listed without a row (``missing``) of which no row is known
        (``rows``: the snapshot's own; ``known``: an earlier one's, still known), by id, with
        the status each was listed under (missing when the manifest does not say it): they
        were listed that day, so new there when the snapshot before did not list them. One
        known by a row goes unseen instead: its values that day are unknown. ``only``: the
        ids a frame cut by rows holds (the manifest's others are not the caller's)."""
        # one the service answered gone (482) is not in the snapshot: it deleted it before
        # any snapshot held a row of it, which is no event at all (never new, then removed)
        ids = self.missing.difference(self.gone).difference(rows).difference(known)
        if only is not None:
            ids = ids.intersection(only)
        return pd.Series(ids.map(self.statuses),  # (an id of no status said: NaN)
                         index=pd.Index(ids, dtype="int64", name="id"), dtype=object)


def with_listed(rows: _Rows, gaps: Gaps | None, known: pd.Index, only: pd.Index | None
                ) -> tuple[_Rows, pd.Index]:
    """A snapshot's rows by id (a frame, or its statuses), with the status of each ICO it
    listed without a row of which no row is known (:meth:`Gaps.listed`); the ids of those."""
    listed = gaps.listed(rows.index, known, only) if gaps is not None else None
    if listed is None or listed.empty:
        return rows, rows.index[:0]
    if isinstance(rows, pd.Series):
        return pd.concat([rows, listed]), listed.index
    out = rows.reindex(rows.index.append(listed.index))  # (no concat of all-NA columns)
    if "status" in out.columns:  # a row holding only its status
        out.loc[listed.index, "status"] = listed.astype(rows["status"].dtype)
    return out, listed.index


def gaps_by_date(frame: pd.DataFrame) -> dict[pd.Timestamp, Gaps]:
    """The :class:`Gaps` of each incomplete snapshot of a :func:`read_snapshots` frame.

    An incomplete snapshot without a row whose manifest names no gap (no id missing, no
    partial list) explains every absence: it says nothing of what the service listed that
    day, and a gap is no event (never every ICO removed, then new again)."""
    return {pd.Timestamp(i["snapshot_date"]): gaps for i in day_infos(frame)
            if (gaps := gaps_of(i)) is not None}


def gaps_of(info: Mapping[str, Any]) -> Gaps | None:
    """The :class:`Gaps` of one snapshot (its row of ``attrs``, :func:`read_day`'s info);
    None when it is complete (or says nothing of it)."""
    if info.get("complete") is not False:
        return None
    report = info.get("report")
    return Gaps(info.get("missing") or [], info.get("partial_lists") or [],
                everything=info.get("rows") == 0 and not info.get("missing")
                and not info.get("partial_lists"), statuses=_listed(report, "status"),
                gone=[k for k, state in _listed(report, "state").items() if state == "gone"])


def _listed(report: object, field: str) -> dict[int, str]:
    """The ``field`` (``status``: the one it was listed under; ``state``: ``gone``, ...) of
    each missing ICO, of a day's load summary in ``attrs`` (JSON text,
    :func:`read_snapshots`); none when it is not there or not readable."""
    try:
        summary = json.loads(report) if isinstance(report, str) else report
    except ValueError:
        return {}
    missing = summary.get("missing") if isinstance(summary, Mapping) else None
    return {int(m["id"]): m[field] for m in missing or ()
            if isinstance(m, Mapping) and isinstance(m.get("id"), int)
            and isinstance(m.get(field), str)}


def table_schema(table: str) -> TableSchema:
    """The schema of ``table`` (or of ``problems``); KeyError with a "did you mean"."""
    if not isinstance(table, str):  # ["icos"] raised TypeError 'unhashable type'
        meant = (f"; did you mean {table[0]!r}?" if isinstance(table, list | tuple)
                 and len(table) == 1 and isinstance(table[0], str) else "")
        raise InvalidParameter(f"table must be one table's name, got {quoted(table)}{meant}")
    if table == PROBLEM_SUMMARY.name:  # exports write it, but it is counted from problems
        raise UnknownName(
            f"{table!r} is counted from the problems table, not stacked: "
            "read_snapshots(path, 'problems') and count one snapshot_date's rows with "
            "icoframes.tables.problem_summary(frame)")
    if table == PROBLEMS.name:
        return PROBLEMS
    if table not in TABLES:
        names = [*TABLES, PROBLEMS.name]  # problems is one too
        raise UnknownName(f"{quoted(table)} is not a table ({', '.join(names)})"
                          f"{did_you_mean(table, names)}")
    return TABLES[table]


def _read_day(folder: Path, read: Callable[[Path], _T]) -> tuple[Path, _T, dict[str, Any] | None]:
    """``read(folder)`` and its manifest (:func:`~icoframes.exported.consistent_read`), and
    the folder read: a day a killed export left set aside, put back by the next export
    while it was listed, is read where it is now (:func:`~icoframes.exported.put_back`)."""
    try:
        return folder, *consistent_read(folder, partial(read, folder), need_manifest=False)
    except FileNotFoundError:
        back = put_back(folder)
        if back is None:
            raise
    return back, *consistent_read(back, partial(read, back), need_manifest=False)


def _read_table(folder: Path, name: str, date: pd.Timestamp,
                columns: list[str] | None = None) -> pd.DataFrame:
    """One table of a snapshot folder; a folder without its file (a day exported before the
    table existed, or a file deleted) named as :func:`icoframes.read_export` names it, with
    the day, not an OS error's bare path. A day without ``problems.parquet`` has no problems,
    as :func:`icoframes.read_export` reads it (a folder written before problems were)."""
    if name == PROBLEMS.name:  # (a link to nothing there is damage, named)
        return problems_of(folder, columns)
    if not os.path.lexists(folder / f"{name}.parquet"):  # a link to nothing: damage, named
        raise ExportNotFound(
            f"{folder} is not an export of icoframes: missing {name}.parquet (the snapshot "
            f"of {date:%Y-%m-%d} has no {name} table to stack)")
    return read_table(folder, name, columns)


def _there(folder: Path) -> None:
    """Nothing; FileNotFoundError when ``folder`` is gone (renamed away by a swap: the
    reader waits for it and reads again)."""
    if not folder.is_dir():
        raise ExportNotFound(f"no snapshot folder at {folder}")


def _info(date: pd.Timestamp, folder: Path, manifest: dict[str, Any] | None) -> dict[str, Any]:
    if manifest is None:
        return {"snapshot_date": date, "path": str(folder), "complete": None, "missing": [],
                "partial_lists": [], "not_refreshed": [], "stopped": None, "exported_at": None,
                "queries": None, "queries_given": None}
    missing = [int(m["id"]) for m in manifest.get("missing") or []
               if isinstance(m, dict) and m.get("id") is not None]
    # rows kept from an earlier fetch make a snapshot incomplete with nothing missing
    kept = [int(m["id"]) for m in manifest.get("not_refreshed") or []
            if isinstance(m, dict) and m.get("id") is not None]
    stopped = manifest.get("stopped")
    partial = [(q.get("params") or {}).get("status") for q in manifest.get("queries") or []
               if isinstance(q, dict) and not q.get("complete", True)]
    complete = manifest.get("complete")
    return {"snapshot_date": date, "path": str(folder),
            "complete": None if complete is None else bool(complete),
            "missing": sorted(missing), "partial_lists": partial,
            "not_refreshed": sorted(kept),
            "stopped": str(stopped["reason"]) if isinstance(stopped, dict)
            and stopped.get("reason") is not None else None,
            "exported_at": manifest.get("exported_at"),
            # the list queries it holds (None: its manifest, an older version's, says none)
            "queries": query_params(manifest),
            "queries_given": dicts(manifest.get("queries_given")),
            **{key: manifest.get(key) for key in ("parser_version", "parser_fingerprint")}}


def _info_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame({
        "snapshot_date": np.array([r["snapshot_date"].to_datetime64() for r in rows],
                                  dtype=DATE_DTYPE),
        "path": text_values([r["path"] for r in rows]),
        "complete": pd.array([r["complete"] for r in rows], dtype="boolean"),
        "missing": pd.Series([r["missing"] for r in rows], dtype=object),
        "partial_lists": pd.Series([r["partial_lists"] for r in rows], dtype=object),
        "not_refreshed": pd.Series([r["not_refreshed"] for r in rows], dtype=object),
        "stopped": text_values([r["stopped"] for r in rows]),
        "exported_at": text_values([r["exported_at"] for r in rows]),
        "queries": pd.Series([r["queries"] for r in rows], dtype=object),
        "queries_given": pd.Series([r["queries_given"] for r in rows], dtype=object),
    })

"""History from exports: read an export back, stack its snapshots, list what changed.

:func:`icoframes.export_tables` writes either a plain export::

    out/<table>.parquet ... out/manifest.json

or, with ``snapshot=True``, one folder per UTC day (hive-style, so DuckDB,
Polars and Arrow see the date as a column)::

    out/snapshot_date=2026-11-01/<table>.parquet ... manifest.json
    out/snapshot_date=2026-11-02/...

:func:`read_export` reads one export (plain, or one snapshot folder) back as
:class:`~icoframes.tables.Tables`; :func:`read_snapshots` stacks one table over
every snapshot with a ``snapshot_date`` column; :func:`changes` compares
consecutive snapshots and lists what changed per ICO: new and removed ICOs,
status moves (upcoming -> ongoing -> past, which the API itself never shows),
score, raised, dates and name. Everything is typed by :mod:`icoframes.schema`
and read with pandas and pyarrow alone.

A snapshot reflects what its export could load: an ICO missing from one
snapshot (say, an export cut short by the daily quota) shows as removed and
then new again. The manifests are not consulted for completeness.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from .schema import ICOS, TABLES, TEXT_DTYPE
from .tables import Tables, read_table

__all__ = ["CHANGE_KINDS", "changes", "read_export", "read_snapshots", "snapshot_folders"]

#: What :func:`changes` compares by default: event kind -> ``icos`` column.
CHANGE_KINDS: dict[str, str] = {
    "status": "status",
    "name": "name",
    "score": "ico_score",
    "raised": "raised",
    "start": "start_datetime",
    "end": "end_datetime",
}
_MANIFEST = "manifest.json"
_SNAPSHOT = re.compile(r"^snapshot_date=(.*)$")
_DATE_DTYPE = np.dtype("datetime64[ms]")
_EVENT_ORDER = {"new": 0, "removed": 1}  # then the compared kinds, in the order asked


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

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist, or lacks ``manifest.json`` or a table file
        (the message names the missing files).
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
    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"no export folder at {folder}")
    snapshots = _snapshot_dirs(folder)
    if snapshots:
        latest = max(snapshots)
        raise ValueError(
            f"{folder} holds {len(snapshots)} snapshots, not one export; read them all with "
            f"read_snapshots({str(folder)!r}), or one with "
            f"read_export({str(snapshots[latest])!r}) (the latest)"
        )
    missing = [name for name in (_MANIFEST, *(f"{t}.parquet" for t in TABLES))
               if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"{folder} is not an export of icoframes: missing {', '.join(missing)}"
        )
    return Tables.read_parquet(folder)


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
        ``path`` holds no ``snapshot_date=YYYY-MM-DD`` folder, or one whose date
        does not read.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"no export folder at {folder}")
    found = _snapshot_dirs(folder)
    if not found:
        hint = (" (it is a plain export: read it with read_export)"
                if (folder / _MANIFEST).is_file() else "")
        raise ValueError(f"{folder} holds no snapshot_date=YYYY-MM-DD folder{hint}")
    dates = sorted(found)
    index = pd.DatetimeIndex(np.array(dates, dtype="datetime64[D]").astype(_DATE_DTYPE),
                             name="snapshot_date")
    return pd.Series([str(found[d]) for d in dates], index=index, dtype=object)


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
        the table's key; a default index.

    Raises
    ------
    KeyError
        ``table`` is not a table (the message suggests the closest).
    FileNotFoundError
        ``path`` does not exist, or a snapshot lacks the table's file.
    ValueError
        ``path`` holds no snapshot folder, or a file differs from the schema.

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
    """
    schema = _table_schema(table)
    folders = snapshot_folders(path)
    frames = []
    for date, folder in folders.items():
        frame = read_table(folder, table)
        frame.insert(0, "snapshot_date", np.full(len(frame), date.to_datetime64(),
                                                 dtype=_DATE_DTYPE))
        frames.append(frame)
    stacked = pd.concat(frames, ignore_index=True)
    # concat of frames that are all empty, or of mixed text dtypes, can loosen a dtype
    dtypes = {"snapshot_date": _DATE_DTYPE, **schema.dtypes}
    stacked = stacked.astype({c: d for c, d in dtypes.items() if stacked[c].dtype != d})
    key = ["snapshot_date", *schema.key]
    return stacked.sort_values(key, kind="stable", ignore_index=True)


def changes(
    snapshots: str | os.PathLike[str] | pd.DataFrame,
    *,
    kinds: Iterable[str] | None = None,
) -> pd.DataFrame:
    """What changed per ICO between consecutive snapshots.

    Parameters
    ----------
    snapshots : path-like or pandas.DataFrame
        An export tree (read with :func:`read_snapshots`), or the frame that
        function returns for ``icos``.
    kinds : iterable of str, optional
        What to compare: keys of :data:`CHANGE_KINDS` (``status``, ``name``,
        ``score``, ``raised``, ``start``, ``end``; the default is all of them)
        or any other ``icos`` column by name. New and removed ICOs are always
        listed.

    Returns
    -------
    pandas.DataFrame
        One row per event, columns:

        ``ico_id`` (int64)
            The ICO.
        ``snapshot_date`` (datetime64[ms])
            The first snapshot showing the change.
        ``kind`` (str)
            ``new`` (in this snapshot, not in the previous one; ``new`` holds
            its status), ``removed`` (in the previous one, not in this one;
            ``old`` holds its last status) or a kind of ``kinds``.
        ``old``, ``new`` (str)
            The values before and after, as text: numbers as written
            (``15070000``, ``3.5``), dates as ``YYYY-MM-DD HH:MM:SS``; missing
            when the value was missing.
        ``previous_date`` (datetime64[ms])
            The snapshot compared with: the change happened after it, by
            ``snapshot_date`` (days between snapshots are unknown).

        Sorted by date, ICO, then kind. The first snapshot is the baseline: it
        has no events. A value going missing or appearing is a change; missing
        in both is not.

    Raises
    ------
    ValueError
        Fewer than one snapshot, an unknown kind (with the closest name), a
        frame without ``snapshot_date`` and ``id``, or an id twice in one snapshot.

    Examples
    --------
    >>> snaps = pd.DataFrame({
    ...     "snapshot_date": pd.to_datetime(["2026-11-01", "2026-11-01", "2026-11-02"],
    ...                                     format="%Y-%m-%d").astype("datetime64[ms]"),
    ...     "id": [1, 2, 1], "status": ["upcoming", "past", "ongoing"]})
    >>> changes(snaps, kinds=["status"])[["ico_id", "kind", "old", "new"]].fillna("-")
       ico_id     kind       old      new
    0       1   status  upcoming  ongoing
    1       2  removed      past        -
    """
    frame = read_snapshots(snapshots) if not isinstance(snapshots, pd.DataFrame) else snapshots
    compared = _columns(kinds, frame)
    for needed in ("snapshot_date", "id"):
        if needed not in frame.columns:
            raise ValueError(f"changes needs a {needed!r} column (the frame of read_snapshots)")
    if frame.duplicated(["snapshot_date", "id"]).any():
        raise ValueError("an ICO id occurs twice in one snapshot; the snapshots are not icos")
    dates = pd.DatetimeIndex(frame["snapshot_date"].drop_duplicates()).sort_values()
    by_date = {d: g.set_index("id") for d, g in frame.groupby("snapshot_date", sort=True)}
    events = [_empty_events()]
    for before, after in itertools.pairwise(dates):
        events.append(_compare(by_date[before], by_date[after], compared, before, after))
    out = pd.concat(events, ignore_index=True)
    order = {**_EVENT_ORDER, **{k: i + 2 for i, k in enumerate(compared)}}
    rank = out["kind"].map(order)
    out = out.assign(_rank=rank).sort_values(["snapshot_date", "ico_id", "_rank"],
                                             kind="stable", ignore_index=True)
    return _typed_events(out.drop(columns="_rank"))


# -- helpers -------------------------------------------------------------------


def _snapshot_dirs(folder: Path) -> dict[dt.date, Path]:
    found: dict[dt.date, Path] = {}
    for child in folder.iterdir():
        match = _SNAPSHOT.match(child.name)
        if not match or not child.is_dir():
            continue
        try:
            day = dt.date.fromisoformat(match.group(1))
        except ValueError:
            raise ValueError(f"{child}: the snapshot date is not YYYY-MM-DD") from None
        found[day] = child
    return found


def _table_schema(table: str):
    from .schema import PROBLEMS

    if table == PROBLEMS.name:
        return PROBLEMS
    if table not in TABLES:
        import difflib

        close = difflib.get_close_matches(str(table), TABLES, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise KeyError(f"{table!r} is not a table ({', '.join(TABLES)}){hint}")
    return TABLES[table]


def _columns(kinds: Iterable[str] | None, frame: pd.DataFrame) -> dict[str, str]:
    if kinds is None:
        wanted = {k: c for k, c in CHANGE_KINDS.items() if c in frame.columns}
        if len(wanted) < len(CHANGE_KINDS) and "status" not in wanted:
            raise ValueError("changes needs the icos snapshots (no 'status' column)")
        return wanted
    if isinstance(kinds, str):
        kinds = [kinds]
    wanted = {}
    for kind in kinds:
        column = CHANGE_KINDS.get(kind, kind)
        if column not in frame.columns or kind in _EVENT_ORDER or column in ("id",
                                                                            "snapshot_date"):
            import difflib

            choices = [*CHANGE_KINDS, *ICOS.names]
            close = difflib.get_close_matches(str(kind), choices, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"cannot compare {kind!r}: not a kind of change or a column{hint}")
        wanted[kind] = column
    return wanted


def _compare(before: pd.DataFrame, after: pd.DataFrame, compared: dict[str, str],
             previous: pd.Timestamp, date: pd.Timestamp) -> pd.DataFrame:
    parts = []
    status_before = before["status"] if "status" in before else pd.Series(np.nan, before.index)
    status_after = after["status"] if "status" in after else pd.Series(np.nan, after.index)
    added = after.index.difference(before.index)
    gone = before.index.difference(after.index)
    parts.append(_events(added, "new", None, _text(status_after.loc[added])))
    parts.append(_events(gone, "removed", _text(status_before.loc[gone]), None))
    both = before.index.intersection(after.index)
    for kind, column in compared.items():
        old, new = before.loc[both, column], after.loc[both, column]
        changed = ~_same(old, new)
        ids = both[changed]
        parts.append(_events(ids, kind, _text(old[changed]), _text(new[changed])))
    events = pd.concat(parts, ignore_index=True)
    events["snapshot_date"] = date
    events["previous_date"] = previous
    return events


def _same(old: pd.Series, new: pd.Series) -> np.ndarray:
    """Equal values, or missing on both sides."""
    both_missing = old.isna().to_numpy() & new.isna().to_numpy()
    if old.dtype == object:  # lists (markets, ...) compare item by item
        equal = np.array([a == b if isinstance(a, list) else False
                          for a, b in zip(old, new, strict=True)], dtype=bool)
    else:
        equal = (old.to_numpy() == new.to_numpy())
        equal = np.asarray(pd.array(equal).fillna(False), dtype=bool)
    return equal | both_missing


def _text(values: pd.Series) -> list[object]:
    """Values as text for the old/new columns; missing stays missing."""
    out: list[object] = []
    for value in values:
        if isinstance(value, list):
            out.append(", ".join(map(str, value)))
        elif value is None or value is pd.NaT or (not isinstance(value, str) and pd.isna(value)):
            out.append(np.nan)
        elif isinstance(value, pd.Timestamp | dt.datetime | np.datetime64):
            out.append(pd.Timestamp(value).strftime("%Y-%m-%d %H:%M:%S"))
        elif isinstance(value, float | np.floating):
            out.append(f"{float(value):.15g}")
        else:
            out.append(str(value))
    return out


def _events(ids: pd.Index, kind: str, old: list[object] | None,
            new: list[object] | None) -> pd.DataFrame:
    n = len(ids)
    return pd.DataFrame({
        "ico_id": np.asarray(ids, dtype="int64"),
        "kind": [kind] * n,
        "old": old if old is not None else [np.nan] * n,
        "new": new if new is not None else [np.nan] * n,
    })


def _empty_events() -> pd.DataFrame:
    return pd.DataFrame({"ico_id": np.empty(0, "int64"), "snapshot_date": np.empty(0, _DATE_DTYPE),
                         "kind": [], "old": [], "new": [],
                         "previous_date": np.empty(0, _DATE_DTYPE)})


def _typed_events(events: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "ico_id": events["ico_id"].astype("int64"),
        "snapshot_date": events["snapshot_date"].astype(_DATE_DTYPE),
        "kind": events["kind"].astype(TEXT_DTYPE),
        "old": events["old"].astype(object).astype(TEXT_DTYPE),
        "new": events["new"].astype(object).astype(TEXT_DTYPE),
        "previous_date": events["previous_date"].astype(_DATE_DTYPE),
    })

"""The days of a :func:`~icoframes.read_snapshots` frame, as every reader of one
counts them: :func:`snapshot_dates` (its rows' days and the days whose snapshot held no row),
:func:`utc_dates` (a zoned, Period, text, date or categorical ``snapshot_date``, or one in
the index, as the UTC days read_snapshots gives),
:func:`named_dates` (those days, refused when one is a day no snapshot of its ``attrs`` names),
:func:`one_row_per_ico` (a frame of several days refused where each row is counted as an ICO).

Low in the layers so that :func:`icoframes.report` (:mod:`icoframes.reporting`) counts the
days of a frame as :func:`icoframes.changes` and :func:`icoframes.plot_status_flow` do; found
in :mod:`icoframes.snapshots` too.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from .errors import InvalidParameter, quoted, warn
from .moments import as_naive_utc
from .quoting import counted

__all__ = ["DATE_DTYPE", "dated_rows", "day_infos", "named_dates", "one_row_per_ico",
           "reported_days", "snapshot_dates", "uncounted_days", "utc_dates", "warn_uncounted"]

#: The dtype of ``snapshot_date`` as :func:`~icoframes.read_snapshots` gives it.
DATE_DTYPE = np.dtype("datetime64[ms]")


def snapshot_dates(frame: pd.DataFrame, *, whole: bool = False) -> pd.Index:
    """Every snapshot date of a :func:`~icoframes.read_snapshots` frame, sorted: its
    rows' dates and the days whose snapshot held no row (``rows`` 0 in ``attrs``: a query
    that matched nothing that day), which no row can show. A row without a date (``NaT``)
    is of no snapshot: left out, here as by every reader that counts the days with this
    (:func:`icoframes.report`, :func:`icoframes.changes`, :func:`icoframes.plot_status_flow`).

    The days without a row are counted only while the frame holds a row of every other
    day of its ``attrs``, and only between the first and the last day it holds rows of: a
    frame cut to some dates (``attrs`` go with the rows pandas keeps) has the dates of its
    rows alone, as has a frame without ``attrs``: a day without a row then cannot be told
    from a day cut away, and a window of dates that keeps every day with rows but leaves out
    an empty first or last day gives the very frame of the whole tree. ``whole``: the frame
    is a whole tree's as read (``changes(path)``): its empty first and last days count too
    (:func:`uncounted_days` names them).

    Examples
    --------
    >>> frame = pd.DataFrame({"snapshot_date": pd.to_datetime(["2026-11-01", "2026-11-03"],
    ...                                                       format="%Y-%m-%d"), "id": [1, 1]})
    >>> frame.attrs["icoframes"] = {"snapshots": [
    ...     {"snapshot_date": f"2026-11-0{day}", "rows": rows} for day, rows in
    ...     ((1, 1), (2, 0), (3, 1), (4, 0))]}
    >>> [d.strftime("%m-%d") for d in snapshot_dates(frame)]
    ['11-01', '11-02', '11-03']
    >>> [d.strftime("%m-%d") for d in snapshot_dates(frame, whole=True)]
    ['11-01', '11-02', '11-03', '11-04']
    >>> [d.strftime("%m-%d") for d in snapshot_dates(frame[frame["snapshot_date"] > "2026-11-01"])]
    ['11-03']
    """
    column = frame["snapshot_date"]
    # as the column holds them (its groups' keys); a row without a date (NaT) is of no day
    dates = pd.Index(column.dropna().drop_duplicates())
    infos = day_infos(frame)
    held = {pd.Timestamp(d).date().isoformat() for d in dates}
    empty = [str(i["snapshot_date"]) for i in infos if i.get("rows") == 0]
    cut = any(i.get("rows") and str(i["snapshot_date"]) not in held for i in infos)
    # in the column's dtype (read_snapshots': datetime64[ms]): one key per day, however read;
    # a frame of text or zoned dates has its rows' days alone (the readers read utc_dates')
    if empty and not cut and isinstance(column.dtype, np.dtype) and column.dtype.kind == "M":
        if not whole and held:  # (no row at all: every day is empty, none cut, no event)
            empty = [d for d in empty if min(held) < d < max(held)]  # ISO text sorts as dates
        days = pd.to_datetime(empty, format="%Y-%m-%d").astype(column.dtype)
        dates = dates.union(days)
    return dates.sort_values()


def named_dates(frame: pd.DataFrame, unknown: str, *, whole: bool = False,
                reads_attrs: bool = False) -> pd.Index:
    """:func:`snapshot_dates` of a frame whose dates are UTC days (:func:`utc_dates`), every
    one of them a snapshot its ``attrs`` name (a frame without them names none: its rows'
    days are taken as they are): the days :func:`icoframes.report`, :func:`icoframes.changes`
    and :func:`icoframes.plot_status_flow` count. ``reads_attrs``: the caller needs the
    ``attrs`` (report's manifests), so the refusal's way out for rows added by hand is the
    frame without them, not without its ``attrs``.

    Raises
    ------
    InvalidParameter
        The frame holds rows of a UTC day that no snapshot of its ``attrs`` names (dates
        given a zone with ``dt.tz_localize`` east of UTC, or converted to a zone and then
        normalized there, which moves them to the day before): which snapshots it holds is
        unknown, and so, ``unknown`` says, is what the caller gives of it ("its report is
        unknown"). Also rows added by hand (``pd.concat`` keeps the first frame's ``attrs``).
    """
    dates = snapshot_dates(frame, whole=whole)
    named = {str(i.get("snapshot_date")) for i in day_infos(frame)}
    stray = sorted({pd.Timestamp(d).date().isoformat() for d in dates} - named)
    if stray and named:
        # a frame without attrs has no report: report's way out keeps them, drops the rows
        kept = ("report() of the rows of its snapshots' days is their report: "
                "d = icoframes.snapshots.utc_dates(frame); report(d[~d['snapshot_date'].isin("
                f"pd.to_datetime({stray!r}))])" if reads_attrs else
                "frame.attrs.pop('icoframes') counts the days of its rows alone")
        raise InvalidParameter(
            f"this frame holds rows of {', '.join(stray)}, a day that no snapshot in its "
            f"attrs['icoframes'] names: {unknown}. Rows added by hand (pd.concat keeps the "
            f"first frame's attrs)? {kept}. A zone localized rather than converted? A "
            "snapshot_date is a UTC day: "
            ".dt.tz_localize('UTC').dt.tz_convert(zone) shows it in a zone, and "
            ".dt.normalize() then moves it to the zone's midnight, in the UTC day before")
    return dates


def utc_dates(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its ``snapshot_date`` as :func:`~icoframes.read_snapshots`
    gives the days (``datetime64[ms]``, naive, midnight of the UTC day), however it was
    made to hold them, as every date argument is read (:func:`icoframes.moments.as_naive_utc`):
    ``2026-11-01 00:00+00:00``, or the same moment ``2026-10-31 20:00-04:00``, is the
    snapshot of 2026-11-01. So every reader (:func:`icoframes.report`,
    :func:`icoframes.changes`, :func:`icoframes.plot_status_flow`) counts the days of a frame
    one way, the days without a row in ``attrs`` included.

    Read as their days: a zoned ``snapshot_date`` (``datetime64[..., tz]``), periods of a day
    (``.dt.to_period("D")``: no zone), text, ``datetime.date`` or Timestamp objects
    (``.dt.strftime("%Y-%m-%d")``, ``.dt.date``, ``astype(object)``; an ISO date with an
    optional time and UTC offset, as a date argument; no offset: UTC; the text of a missing
    value, ``"NaT"`` or ``""``, is NaT), pyarrow's timestamps, zoned or not, dates and text
    (``timestamp[us, tz=UTC][pyarrow]``, ``date32[pyarrow]``), and a categorical of any of
    those (``astype("category")``). An index level named ``snapshot_date`` or ``id``
    (``set_index("snapshot_date")``) is taken as the column (a frame also holding that
    column keeps it). A frame of naive numpy datetimes, or without ``snapshot_date``, is
    returned as it is; ``attrs`` are kept.

    Raises
    ------
    InvalidParameter
        Periods longer or shorter than a day (a month's holds no one snapshot's day), a
        value that is not a date (text pandas would guess: the ISO date a text most likely
        means, if one, as "did you mean"), or a column of numbers, booleans or durations
        (what is read said; of integers written as ``20261102``, how they become dates).

    Examples
    --------
    >>> frame = pd.DataFrame({"snapshot_date": pd.to_datetime(["2026-11-01"]).tz_localize(
    ...     "UTC").tz_convert("America/New_York"), "id": [1]})
    >>> utc_dates(frame)["snapshot_date"].tolist(), str(utc_dates(frame)["snapshot_date"].dtype)
    ([Timestamp('2026-11-01 00:00:00')], 'datetime64[ms]')
    >>> utc_dates(frame.assign(snapshot_date=pd.period_range("2026-11-01", periods=1))
    ...           )["snapshot_date"].tolist()
    [Timestamp('2026-11-01 00:00:00')]
    >>> utc_dates(frame.assign(snapshot_date=["2026-11-01"]).set_index("snapshot_date")
    ...           )["snapshot_date"].tolist()
    [Timestamp('2026-11-01 00:00:00')]
    """
    frame = _keys_as_columns(frame)
    if "snapshot_date" not in frame.columns:
        return frame
    column = given = frame["snapshot_date"]
    if isinstance(column.dtype, pd.CategoricalDtype):  # its values, as its categories hold them
        column = column.astype(column.cat.categories.dtype)
    if isinstance(column.dtype, pd.ArrowDtype):  # pyarrow's: as numpy's of the same kind
        column = _from_arrow(column, column.dtype)
    if column.dtype == object or isinstance(column.dtype, pd.StringDtype):
        days = _parsed(column)
    elif isinstance(column.dtype, pd.DatetimeTZDtype):
        days = column.dt.tz_convert(None)
    elif isinstance(column.dtype, pd.PeriodDtype):
        if column.dtype != pd.PeriodDtype("D"):
            raise InvalidParameter(
                f"snapshot_date holds periods other than days ({column.dtype}): a snapshot "
                "is one day's; give its days (the dates read_snapshots gives, or periods of "
                "a day: .dt.to_period('D'))")
        days = column.dt.to_timestamp()
    elif column.dtype.kind == "M" and column is not given:
        days = column  # of naive datetimes (categorical, pyarrow's): the days, as numpy's
    elif column.dtype.kind == "M":
        return frame
    elif column.notna().any():
        raise InvalidParameter(_no_dates(column))
    else:  # no value at all (a float column of NaN): rows of no date, as NaT's
        days = pd.Series(np.full(len(column), np.datetime64("NaT"), DATE_DTYPE),
                         index=column.index)
    # midnight, as read_snapshots': a zone attached to its dates (tz_localize) is hours off
    out = frame.assign(snapshot_date=days.dt.normalize().astype(DATE_DTYPE))
    out.attrs = frame.attrs  # (assign keeps them; said, not left to pandas' version)
    return out


def dated_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`utc_dates` of ``frame`` without its rows of no date (``snapshot_date`` NaT):
    of no snapshot, read by :func:`icoframes.changes` and
    :func:`icoframes.plot_status_flow` as if they had been dropped (two undated rows of an
    ICO are not "an id twice in one snapshot", and no plot counts them); ``attrs`` kept."""
    frame = utc_dates(frame)
    if "snapshot_date" not in frame.columns or not frame["snapshot_date"].isna().any():
        return frame
    out = frame[frame["snapshot_date"].notna()]
    out.attrs = frame.attrs
    return out


def one_row_per_ico(frame: pd.DataFrame, who: str, name: str = "icos",
                    ids: tuple[str, ...] = ("id",)) -> None:
    """Refuse a frame that holds an ICO more than once, given to ``who``, which counts its
    rows as ICOs (the ``icos`` table, one row per ICO): a
    :func:`~icoframes.read_snapshots` frame of several days holds each ICO once
    per day, and would be counted once per day, silently. The ICO's id is the first column
    of ``ids`` the frame holds, or an index level named ``id`` (read as :func:`utc_dates`
    reads one); a frame with neither, or whose repeated ids are all missing (rows of no
    ICO), is taken as it is.

    Raises
    ------
    InvalidParameter
        An id occurs more than once: the message counts those ids and the snapshot days
        (:func:`utc_dates`) their rows span, and gives the fix, with ``name`` for the frame:
        one day of several (``icos[icos.snapshot_date == icos.snapshot_date.max()]``), or
        else dropping the repeated ids.

    Examples
    --------
    >>> frame = pd.DataFrame({"snapshot_date": pd.to_datetime(
    ...     ["2026-11-01", "2026-11-01", "2026-11-02", "2026-11-02"], format="%Y-%m-%d"),
    ...     "id": [1, 2, 1, 2]})
    >>> one_row_per_ico(frame[frame["snapshot_date"] == "2026-11-02"], "plot_raised")
    >>> one_row_per_ico(frame, "plot_raised")
    Traceback (most recent call last):
    ...
    icoframes.errors.InvalidParameter: plot_raised counts one row per ICO, but this frame \
holds 2 ids more than once (4 rows), across 2 snapshot days (2026-11-01 to 2026-11-02): \
each ICO would be counted once per day. Select one day: \
icos[icos.snapshot_date == icos.snapshot_date.max()]
    """
    keyed = _keys_as_columns(frame)  # an id or snapshot_date in the index, as the readers
    key = next((k for k in ids if k in keyed.columns), None)
    if key is None or isinstance(keyed[key], pd.DataFrame):  # no id; two id columns: none
        return
    column = keyed[key]
    repeated = column.duplicated(keep=False).to_numpy() & column.notna().to_numpy()
    if not repeated.any():
        return
    days = pd.Index([])
    if "snapshot_date" in keyed.columns:
        days = pd.Index(utc_dates(keyed)["snapshot_date"][repeated].dropna().unique())
    said = (f"{who} counts one row per ICO, but this frame holds "
            f"{counted(int(column[repeated].nunique()), 'id')} more than once "
            f"({counted(int(repeated.sum()), 'row')})")
    if len(days) > 1:
        first, last = (pd.Timestamp(d).date().isoformat() for d in (days.min(), days.max()))
        if "snapshot_date" in frame.columns:
            latest = f"{name}[{name}.snapshot_date == {name}.snapshot_date.max()]"
        else:  # an index level: no attribute of the frame
            latest = (f"days = {name}.index.get_level_values('snapshot_date'); "
                      f"{name}[days == days.max()]")
        raise InvalidParameter(f"{said}, across {len(days)} snapshot days ({first} to "
                               f"{last}): each ICO would be counted once per day. Select "
                               f"one day: {latest}")
    drop = (f"{name}.drop_duplicates({key!r}, keep='last')" if key in frame.columns
            else f"{name}[~{name}.index.duplicated(keep='last')]")
    raise InvalidParameter(f"{said}: each would be counted once per row. Drop the duplicate "
                           f"ids: {drop}")


def _keys_as_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its index levels named ``snapshot_date`` or ``id`` as columns (those
    the readers tell snapshots and ICOs apart by): ``set_index("snapshot_date").loc[
    "2026-11-02"]`` is a cut to that day, read as such. A level beside a column of its name
    (``set_index("snapshot_date", drop=False)``) is dropped: the column is read, and pandas
    refuses to group by a name that is both. A RangeIndex is positions, whatever its name
    (``set_index`` never makes one): never read as ids."""
    if isinstance(frame.index, pd.RangeIndex):
        return frame
    levels = [n for n in frame.index.names if n in ("snapshot_date", "id")]
    if not levels:
        return frame
    kept = [n for n in levels if n in frame.columns]
    out = frame.reset_index(level=kept, drop=True) if kept else frame
    moved = [n for n in levels if n not in frame.columns]
    out = out.reset_index(level=moved) if moved else out
    out.attrs = frame.attrs
    return out


def _parsed(column: pd.Series) -> pd.Series:
    """The naive UTC moments of a column of text, dates or Timestamps (each distinct value
    read once, by the rule of every date argument), missing values NaT."""
    codes, values = pd.factorize(column)  # missing (None, NaN, NaT, pd.NA): code -1
    moments = np.array([_moment(v) for v in values] + [np.datetime64("NaT")], dtype=DATE_DTYPE)
    return pd.Series(moments[codes], index=column.index, name=column.name)  # -1: the NaT


#: The text pandas makes of a missing value (``astype(str)``: ``NaT``, ``nan``, ``None``,
#: ``<NA>``; ``to_csv``: empty), in any case (other tools write ``NaN``, ``NAT``): a row of
#: no date, as the missing value itself is.
_MISSING_TEXT = frozenset(text.casefold() for text in
                          ("", str(pd.NaT), str(np.nan), str(None), str(pd.NA)))


def _moment(value: object) -> np.datetime64:
    """One value of a ``snapshot_date`` column as a naive UTC moment (refused: not a date;
    "now" and "today", which a date argument reads as this moment, name no snapshot's day);
    the text of a missing value (:data:`_MISSING_TEXT`) is NaT."""
    if isinstance(value, str) and value.strip().casefold() in _MISSING_TEXT:
        return np.datetime64("NaT")
    if isinstance(value, str) and value.strip().casefold() in ("now", "today"):
        raise InvalidParameter(f"a snapshot_date must be a date, got {quoted(value)}: the day "
                               "of a snapshot, as read_snapshots gives it (YYYY-MM-DD)")
    return as_naive_utc(value, "a snapshot_date").as_unit("ms").to_datetime64()


def _from_arrow(column: pd.Series, dtype: pd.ArrowDtype) -> pd.Series:
    """A column of a pyarrow dtype (``timestamp[us, tz=UTC][pyarrow]``, ``date32[pyarrow]``,
    ``large_string[pyarrow]``, ``string_view``, or a dictionary of any of those) in numpy's
    or pandas' dtype of the same values, which :func:`utc_dates` reads; of any other kind
    (numbers), as it is."""
    kind = dtype.pyarrow_dtype
    if pa.types.is_dictionary(kind):  # (a hive partition key read with dtype_backend="pyarrow")
        values = pd.ArrowDtype(kind.value_type)
        return _from_arrow(column.astype(values), values)
    if pa.types.is_timestamp(kind):  # in its own unit: none is out of range
        return column.astype(np.dtype(f"datetime64[{kind.unit}]") if kind.tz is None
                             else pd.DatetimeTZDtype(kind.unit, kind.tz))
    if pa.types.is_date(kind):
        return column.astype(DATE_DTYPE)
    if getattr(pa.types, "is_string_view", lambda _: False)(kind):  # (pyarrow 16 and later)
        text = pa.array(column.array).cast(pa.string())  # (pandas' astype refuses the kind)
        return pd.Series(text.to_numpy(zero_copy_only=False), index=column.index,
                         name=column.name, dtype=object)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return column.astype(object)
    return column


def _no_dates(column: pd.Series) -> str:
    """Why a ``snapshot_date`` of numbers, booleans or durations is refused: no value of it is a
    day (pandas would read a number as nanoseconds after 1970: every row on 1970-01-01, a
    day no snapshot names), with what is read, and how numbers written as compact dates
    (20261102) become dates."""
    kind = column.dtype.kind
    what = {"b": "booleans", "m": "durations"}.get(kind, "numbers" if kind in "iufc" else "values")
    meant, present = "", column.dropna().unique()
    if kind in "iuf" and len(present) and all(
            float(v).is_integer() and _compact(int(v)) for v in present):
        # floats (read_csv's, a cell blank) and missing values: as text 20261102.0 and <NA>,
        # which the format refuses; Int64 then pandas' string keep them a number and NA
        whole = kind in "iu" and bool(column.notna().all())
        text = "astype(str)" if whole else "astype('Int64').astype('string')"
        meant = f"; did you mean pd.to_datetime(frame['snapshot_date'].{text}, format='%Y%m%d')?"
    return (f"snapshot_date holds {what} ({column.dtype}), not dates: a snapshot's day is a "
            "date or datetime (as read_snapshots gives it, or zoned), a period of a day, a "
            "datetime.date, or text of an ISO date with a 4-digit year ('YYYY-MM-DD' with an "
            f"optional time){meant}")


def _compact(number: object) -> bool:
    """Whether ``number`` writes a date as ISO's basic form does (20261102: 2026-11-02)."""
    text = str(number)
    try:
        return len(text) == 8 and bool(dt.date(int(text[:4]), int(text[4:6]), int(text[6:])))
    except ValueError:  # no such day (20261340), or no number
        return False


def uncounted_days(frame: pd.DataFrame) -> list[str]:
    """The days without a row (``YYYY-MM-DD``) that
    :func:`~icoframes.snapshots.snapshot_dates` of ``frame`` leaves out as lying before its
    first or after its last day with rows, while the whole tree's frame counts them: a frame
    cannot tell whether a window of dates cut them away.

    Examples
    --------
    >>> frame = pd.DataFrame({"snapshot_date": pd.to_datetime(["2026-11-02"], format="%Y-%m-%d"),
    ...                       "id": [1]})
    >>> frame.attrs["icoframes"] = {"snapshots": [
    ...     {"snapshot_date": f"2026-11-0{day}", "rows": rows} for day, rows in
    ...     ((1, 0), (2, 1), (3, 0))]}
    >>> uncounted_days(frame)
    ['2026-11-01', '2026-11-03']
    """
    counted = set(snapshot_dates(frame))
    return [pd.Timestamp(d).date().isoformat() for d in snapshot_dates(frame, whole=True)
            if d not in counted]


def warn_uncounted(frame: pd.DataFrame, who: str, fix: str, *, kept: Any = ()) -> None:
    """Warn (:class:`~icoframes.errors.IcoframesWarning`) of the days without a row that
    ``who`` leaves out of ``frame`` (:func:`uncounted_days`; not those it ``kept``), saying
    how to count them; an incomplete one is named so (its query may have matched ICOs)."""
    days = [d for d in uncounted_days(frame) if d not in kept]
    if not days:
        return
    broken = {str(i.get("snapshot_date")) for i in day_infos(frame) if i.get("complete") is False}
    said = []
    for gap, what in ((False, "held no ICO (rows 0 in attrs)"), (True, (
            "stopped before it held any ICO (rows 0 and complete false in attrs: "
            "incomplete, not a query that matched nothing)"))):
        some = [d for d in days if (d in broken) is gap]
        if some:
            said.append(f"the snapshot{'s' if len(some) > 1 else ''} of {', '.join(some)} {what}")
    several = len(days) > 1
    warn(f"{who}: {'; '.join(said)} and {'lie' if several else 'lies'} outside the days the "
         "frame holds rows of: not counted, as a frame cut to some dates cannot be told from "
         f"the whole tree's; {fix}")


def reported_days(frame: pd.DataFrame) -> list[str]:
    """The days (``YYYY-MM-DD``, in ``attrs``' order) whose manifests :func:`icoframes.report`
    of a :func:`~icoframes.read_snapshots` frame holding ``snapshot_date`` sums: the
    days :func:`snapshot_dates` counts (of a zoned or Period column: :func:`utc_dates`), and
    each incomplete snapshot without a row (``rows`` 0, ``complete`` false: stopped before it
    held any ICO) that no day with rows left out of the frame parts from them, which no row
    can show: a latest day stopped by the daily limit is never reported complete. The empty
    complete days :func:`snapshot_dates` leaves out are named (:func:`warn_uncounted`).

    Raises
    ------
    InvalidParameter
        The frame holds rows of a UTC day that no snapshot of its ``attrs`` names
        (:func:`named_dates`).
    """
    frame = utc_dates(frame)
    infos = day_infos(frame)
    named = [str(i.get("snapshot_date")) for i in infos]
    counted = {pd.Timestamp(d).date().isoformat()
               for d in named_dates(frame, "its report is unknown", reads_attrs=True)}
    rows = dict(zip(named, (i.get("rows") for i in infos), strict=True))
    broken = {day for day, i in zip(named, infos, strict=True) if i.get("complete") is False}
    order = sorted(rows)
    kept = []
    for at, day in enumerate(order):
        if day in counted or rows[day] != 0 or day not in broken:
            continue
        for side in (order[at - 1::-1] if at else [], order[at + 1:]):
            # the nearest day with rows: the frame's (not cut away between them)?
            nearest = next((d for d in side if d in counted or rows[d] != 0), None)
            if nearest in counted:
                kept.append(day)
                break
    warn_uncounted(frame, "report", "icoframes.history.snapshot_info(out) says what every "
                   "snapshot's manifest holds", kept=kept)
    return [day for day in named if day in counted or day in kept]


def day_infos(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The snapshots' completeness a :func:`~icoframes.read_snapshots` frame carries
    (none: [])."""
    return (frame.attrs.get("icoframes") or {}).get("snapshots") or []

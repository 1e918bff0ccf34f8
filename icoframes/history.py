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
and read with pandas and pyarrow alone. The readers live in
:mod:`icoframes.exported` and :mod:`icoframes.snapshots` (never a mix of two exports,
even while one is being replaced; two folders for one day are refused).

A snapshot reflects what its export could load, and its manifest says what it
lacks: the ICOs listed but not fetched (``missing``) and the lists that came
back partial. :func:`changes` reads that: an ICO known before and absent from an
incomplete snapshot for one of those reasons is never reported ``removed`` and then
``new`` again, but ``unseen`` (or nothing, with ``gaps="skip"``), and compared
with its last known values when it is seen again.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from . import changekinds
from . import snapshots as tree
from .changekinds import EVENT_ORDER, PROFILE_COLUMNS, UNITS, columns_compared
from .dayfolder import check_one_query
from .errors import ExportReplaced, InvalidParameter, did_you_mean, quoted
from .eventvalues import as_text, plain_units, same_values, with_unit
from .exported import export_folder, read_export
from .frozen import without_attrs
from .parserdays import PARSER, parser_of, same_copy, two_parsers, warn_parser_changed
from .queries import checked_keywords
from .schema import ICOS, empty_frame
from .snapshotdays import dated_rows, day_infos, named_dates
from .snapshotpick import day_bounds, days_between, table_columns
from .snapshots import (
    DATE_DTYPE,
    Gaps,
    gaps_by_date,
    gaps_of,
    query_cut,
    read_day,
    read_snapshots,
    snapshot_folders,
    snapshot_info,
    warn_cut_rows,
    warn_query_cut,
    warn_uncounted,
    with_listed,
)
from .textdtype import text_values
from .treequeries import one_query

__all__ = ["CHANGE_KINDS", "GAP_KINDS", "ExportReplaced", "changes", "read_export",
           "read_snapshots", "snapshot_folders", "snapshot_info"]

#: What :func:`~icoframes.changes` compares by default: event kind -> ``icos`` column.
CHANGE_KINDS: dict[str, str] = changekinds.CHANGE_KINDS
#: The events :func:`~icoframes.changes` gives for what an incomplete snapshot could not tell.
GAP_KINDS: tuple[str, ...] = changekinds.GAP_KINDS
_DATE_DTYPE = DATE_DTYPE


@checked_keywords
def changes(
    snapshots: str | os.PathLike[str] | pd.DataFrame,
    *,
    kinds: Iterable[str] | None = None,
    gaps: Literal["mark", "skip"] = "mark",
    start: Any = None,
    end: Any = None,
) -> pd.DataFrame:
    """What changed per ICO between consecutive snapshots.

    Of a path, only the columns the kinds compare are read (with ``id``, ``status`` and
    ``fetched_at``), and only the days from the last complete snapshot before ``start`` to
    ``end``: its memory follows what is asked, not the tree's length and width.

    Parameters
    ----------
    snapshots : path-like or pandas.DataFrame
        An export tree (read with :func:`read_snapshots`), or the frame that
        function returns for ``icos`` (or a part of it). A zoned ``snapshot_date``
        (``datetime64[ms, tz]``) is read in UTC, as every date argument: the snapshot
        of its UTC day (``2026-10-31 20:00-04:00`` is that of 2026-11-01); text, dates
        or a categorical are read as the days they name, and an index level named
        ``snapshot_date`` or ``id`` as the column (:func:`~icoframes.snapshots.utc_dates`).
    kinds : iterable of str, optional
        What to compare: keys of :data:`~icoframes.history.CHANGE_KINDS` (``status``, ``name``,
        ``score``, ``raised``, ``start``, ``end``; the default is all of them)
        or any other ``icos`` column by name. New and removed ICOs are always
        listed.
    gaps : {"mark", "skip"}, default "mark"
        What to say of an ICO known before whose absence an incomplete snapshot
        explains (its manifest lists it in ``missing``: listed but not fetched;
        or a list of the snapshot came back partial, which may hold it under any
        status), and of one first seen after a snapshot that may have listed it:
        ``"mark"`` gives the events ``unseen`` and ``first_seen``
        (:data:`~icoframes.history.GAP_KINDS`), ``"skip"`` gives none. Either way such an ICO is
        never ``removed`` or ``new`` there, and when it is seen again it is
        compared with its last known values. An ICO in ``missing`` of which no
        row is known is no gap: it was listed, so it is ``new`` that day and
        ``removed`` from a later complete snapshot that lists it no more; one whose
        profile answered that the service deleted it (state ``gone``) was in no
        snapshot: no event.
    start, end : date, optional
        Of a path: the events dated from ``start`` to ``end`` (each included; read as
        every date argument): the events ``changes(path)`` gives of those days, compared
        with the last complete snapshot before ``start`` (the first when none is) and the
        days between; the days outside are not read. A frame is cut by its rows instead
        (InvalidParameter).

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
            its status; one listed without a row, in its manifest's ``missing``,
            of which no row is known, is in it by the status it was listed
            under, the only value its next row is compared with), ``removed``
            (in the previous one, not in this one;
            ``old`` holds its last status; ``previous_date`` the last snapshot that
            held it), ``unseen`` (known before, absent
            here because this snapshot is incomplete: listed but not fetched,
            or a list came back partial; ``old`` holds its last known
            status), ``first_seen`` (in this snapshot, not in the previous
            one, which was incomplete for it: it may have been listed then;
            ``new`` holds its status) or a kind of ``kinds``.
        ``old``, ``new`` (str)
            The values before and after, as text: numbers as written
            (``15070000``, ``3.5``), an amount whose unit is a column with that
            unit (``hard_cap``, ``soft_cap`` in ``caps_unit``, ``token_price``,
            ``min_purchase``, ``max_purchase``: ``100 ETH`` -> ``100 USD`` is a
            change), dates as ``YYYY-MM-DD HH:MM:SS``; missing
            when the value was missing.
        ``previous_date`` (datetime64[ms])
            The snapshot compared with: the change happened after it, by
            ``snapshot_date`` (days between snapshots are unknown). For an
            ICO that went unseen, the last snapshot that held it.
        ``parser_changed`` (bool)
            The two values were read by two parser versions (their snapshots'
            manifests say so; warned of, naming the days): the change may be the
            parser's alone. Never of a status, ``new``, ``removed`` or a gap.

        Sorted by date, ICO, then kind. The first snapshot is the baseline: it has no
        events. A snapshot that held no ICO (its query matched nothing that day:
        ``rows`` 0 in ``attrs``, see :func:`read_snapshots`) is one too: every ICO of
        the one before is ``removed`` there (when it is incomplete: ``unseen``, a gap
        being no event). Of a frame, only such a day between two days it holds rows of:
        a first or last one is left out, with a warning naming it (a frame cut to some
        dates cannot be told from the whole tree's); ``changes(path)`` counts every one.
        A value going missing or appearing is a change; missing in both
        is not. A value read from the profile is compared only when the ICO's profile
        was fetched again (its ``fetched_at`` moved): the same copy read by another
        parser version (after an upgrade of icoframes) is no change at the service; a
        copy fetched again and read by another parser than the day before's is marked
        (``parser_changed``) and warned of.
        Snapshots are taken as complete when the frame carries no completeness
        (``attrs["icoframes"]["snapshots"]``, which :func:`read_snapshots` sets).

    Raises
    ------
    ValueError
        Fewer than one snapshot, an unknown kind (with the closest name), a kind
        whose column the frame lacks (``score`` without ``ico_score``; ``hard_cap``
        without ``caps_unit``), a
        frame without ``snapshot_date`` and ``id``, an id twice in one
        snapshot, snapshots of different queries (their manifests say so: a
        tree written before ``export_tables`` refused that), or ``gaps``
        neither "mark" nor "skip" (InvalidParameter, with a "did you mean"), a frame
        holding rows of a UTC day no snapshot of its ``attrs`` names (InvalidParameter: a
        zone attached with ``dt.tz_localize`` east of UTC, as :func:`icoframes.report`
        refuses it), or a path that names no folder (InvalidParameter; ``ExportNotFound``, a
        FileNotFoundError, when it is missing). No snapshot folder, or snapshots of
        different queries: ``ExportMismatch``.

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
    if not (isinstance(gaps, str) and gaps in ("mark", "skip")):  # before reading the tree
        raise InvalidParameter(f"gaps must be 'mark' or 'skip', got {quoted(gaps)}"
                               f"{did_you_mean(gaps, ('mark', 'skip'))}")
    if not isinstance(snapshots, pd.DataFrame):  # a file refused as snapshots=
        day_bounds(start, end)  # a bad argument refused as such, before the path is looked at
        return _tree_changes(export_folder(snapshots, "snapshots"), kinds, gaps, start, end)
    if start is not None or end is not None:
        raise InvalidParameter("start and end choose the days of a tree read from its path; "
                               "give changes() the path, or the frame of read_snapshots("
                               "path, start=..., end=...) with the day before start")
    # its days as read_snapshots gives them (UTC, datetime64[ms]), from the index too; a
    # row of no date left out
    given = len(snapshots)
    frame = dated_rows(snapshots)
    compared = columns_compared(kinds, frame)
    for needed in ("snapshot_date", "id"):
        if needed not in frame.columns:  # an argument refused, as every one: InvalidParameter
            raise InvalidParameter(f"changes needs a {needed!r} column (the frame of "
                                   "read_snapshots)")
    # with the days whose query matched nothing; a day no snapshot names refused, as report's
    dates = named_dates(frame, "its changes are unknown")
    warn_uncounted(frame, "changes", "changes(path) of the tree counts them")
    cut = warn_cut_rows(frame, "changes", "changes() of the whole read_snapshots frame (or of "
                        "the path), then its events of the ids wanted, say what changed at the "
                        "service", undated=given - len(frame))
    check_one_query(frame, dates)  # a tree mixing queries (an older one's): no events
    cut_by = query_cut(frame, dates)  # --status ongoing: a sale that ended reads as removed
    gaps_on = gaps_by_date(frame)  # the last read of attrs: the manifests' summaries
    parsers = {pd.Timestamp(i["snapshot_date"]): parser_of(i) for i in day_infos(frame)}
    frame = without_attrs(frame)  # each day's groups and comparisons: no report to carry
    if frame.duplicated(["snapshot_date", "id"]).any():
        raise InvalidParameter(_TWICE)
    # observed: a categorical date's groups are the days it holds (pandas 2.2 warns otherwise);
    # each day's rows taken when compared, not all copied at once (a year is ~2 M rows)
    rows_of = frame.groupby("snapshot_date", sort=True, observed=True).indices
    nothing = frame.iloc[:0].set_index("id")  # a day without a row: an empty snapshot

    def day_of(date: pd.Timestamp) -> tuple[pd.DataFrame, Gaps | None]:
        rows = rows_of.get(date)
        held = nothing if rows is None else frame.iloc[rows].set_index("id")
        return held.assign(**{PARSER: parsers.get(date)}), gaps_on.get(date)

    only = pd.Index(frame["id"].unique()) if cut else None  # the ids a cut frame kept
    events = _walk(dates, day_of, compared, only)
    return _finished(events, compared, gaps, cut_by, None, parsers)


_TWICE = "an ICO id occurs twice in one snapshot; the snapshots are not icos"


def _tree_changes(folder: Path, kinds: Iterable[str] | None, gaps: str, start: Any,
                  end: Any) -> pd.DataFrame:
    """:func:`changes` of a tree read day by day: what is held is the last row of each ICO
    and the events, never the tree; of each day, only the columns compared (and of their
    units, ``id``, ``status``, ``fetched_at``), of the days from the last complete one before
    ``start``."""
    compared = columns_compared(kinds, empty_frame(ICOS))  # refused before the tree is read
    units = [u for c in compared.values() if (u := UNITS.get(c)) is not None]
    names = table_columns(ICOS, ["status", "fetched_at", *compared.values(), *units])
    folders = tree.snapshot_folders(folder)  # (looked up at the call, as read_snapshots does)
    first, _ = day_bounds(start, end)
    infos: list[dict[str, Any]] = []
    parsers: dict[pd.Timestamp, str | None] = {}
    # the baseline: the last complete day before start (the first day when none is), by the
    # manifests (the days are read once their queries are checked). After a complete day the
    # walk holds that day's rows alone (no ICO carried unseen, none listed without a row), as
    # the whole tree's walk does: an incomplete day's baseline would lose the rows earlier
    # days held of the ICOs it lacks. The days are read from the baseline on.
    baseline = None
    for date in reversed(folders.index[folders.index < first] if first is not None else []):
        baseline = date
        with contextlib.suppress(OSError, ValueError):  # damaged: said when the day is read
            if gaps_of(tree.day_info(folders[date], date)) is not None:
                continue
        break
    folders = days_between(folders, start if baseline is None else baseline, end)
    one_query(folders)  # by the manifests: a mixed tree is refused before any day is read

    def day_of(date: pd.Timestamp) -> tuple[pd.DataFrame, Gaps | None]:
        rows, info = read_day(folders[date], date, "icos", names)
        infos.append({**info, "snapshot_date": date.date().isoformat()})  # as in attrs
        if rows["id"].duplicated().any():
            raise InvalidParameter(_TWICE)
        parsers[date] = parser_of(info)
        return rows.sort_values("id").set_index("id").assign(**{PARSER: parsers[date]}), \
            gaps_of(info)

    dates = pd.DatetimeIndex(folders.index)
    events = _walk(dates, day_of, compared, None)
    # the manifests, as read with each day's rows: a tree mixing queries gives no events
    held = pd.DataFrame({"snapshot_date": np.empty(0, DATE_DTYPE)})
    held.attrs["icoframes"] = {"snapshots": infos}
    check_one_query(held, dates)
    return _finished(events, compared, gaps, query_cut(held, dates), first, parsers)


def _walk(dates: pd.Index, day_of: Callable[[pd.Timestamp], tuple[pd.DataFrame, Gaps | None]],
          compared: dict[str, str], only: pd.Index | None) -> list[pd.DataFrame]:
    """The events of every day after the first, each day's rows and gaps (``day_of``) asked
    once, in order: what is kept between days is each ICO's last known row."""
    events = [_empty_events()]
    if not len(dates):
        return events
    rows, gaps_before = day_of(dates[0])
    known, listed = with_listed(rows, gaps_before, rows.index[:0], only)
    seen = pd.Series(dates[0], index=known.index)
    for before, after in itertools.pairwise(dates):
        rows, gaps_after = day_of(after)
        day, now = with_listed(rows, gaps_after, known.index.difference(listed), only)
        found, known, seen, listed = _compare(known, seen, day, compared, before, after,
                                              gaps_before, gaps_after, (listed, now))
        events.append(found)
        gaps_before = gaps_after
    return events


def _finished(events: list[pd.DataFrame], compared: dict[str, str], gaps: str,
              cut_by: str | None, first: pd.Timestamp | None,
              parsers: dict[pd.Timestamp, str | None]) -> pd.DataFrame:
    """The events as :func:`changes` gives them: of ``first`` on, gaps skipped when asked,
    warned of when of a query that cuts or read by two parsers (``parsers``: each day's),
    sorted and typed."""
    out = pd.concat(events, ignore_index=True)
    if first is not None:  # (the baseline day before it has no events)
        out = out[out["snapshot_date"] >= first]
    if gaps == "skip":
        out = out[~out["kind"].isin(GAP_KINDS)]
    warn_query_cut(cut_by, "changes", out["kind"])  # of the events given
    warn_parser_changed(out, parsers)
    order = {**EVENT_ORDER, **{k: i + 2 for i, k in enumerate(compared)}}
    rank = out["kind"].map(order)
    out = out.assign(_rank=rank).sort_values(["snapshot_date", "ico_id", "_rank"],
                                             kind="stable", ignore_index=True)
    return _typed_events(out.drop(columns="_rank"))


# -- helpers -------------------------------------------------------------------


def _compare(known: pd.DataFrame, seen: pd.Series, after: pd.DataFrame,
             compared: dict[str, str], previous: pd.Timestamp, date: pd.Timestamp,
             gaps_before: Gaps | None, gaps_after: Gaps | None,
             listed: tuple[pd.Index, pd.Index],
             ) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series, pd.Index]:
    """The events of ``date``, against what is known of each ICO (its last snapshot).
    ``listed``: the ids known, then of ``date``, by their status alone (listed, no row).

    Returns the events, then what is known after ``date``, when each was last seen and
    which of those are known by their status alone.
    """
    parts = []
    status_before = known["status"] if "status" in known else pd.Series(np.nan, known.index)
    status_after = after["status"] if "status" in after else pd.Series(np.nan, after.index)
    added = after.index.difference(known.index)
    gone = known.index.difference(after.index)
    unseen = (gone[gaps_after.explains(gone)] if gaps_after is not None
              else gone[:0])
    gone = gone.difference(unseen)
    first = (added[gaps_before.explains(added)] if gaps_before is not None
             else added[:0])
    added = added.difference(first)
    parts.append(_events(added, "new", None, as_text(status_after.loc[added]), previous))
    parts.append(_events(first, "first_seen", None, as_text(status_after.loc[first]), previous))
    # after it went unseen, the last snapshot that held it, not the one that did not
    parts.append(_events(gone, "removed", as_text(status_before.loc[gone]), None,
                         seen.loc[gone].to_numpy()))
    newly = unseen[(seen.loc[unseen] == previous).to_numpy()]  # once, when it goes unseen
    parts.append(_events(newly, "unseen", as_text(status_before.loc[newly]), None,
                         seen.loc[newly].to_numpy()))
    both = known.index.intersection(after.index)
    copy_kept, parser_moved = same_copy(known, after, both), two_parsers(known, after, both)
    rowless = np.asarray(both.isin(listed[0]), dtype=bool)  # (a day listed again: one of them)
    for kind, column in compared.items():
        old, new = known.loc[both, column], after.loc[both, column]
        changed = ~same_values(old, new)
        unit = UNITS.get(column)
        if unit is not None:  # 100 ETH -> 100 USD changed; a missing amount has no unit to say
            old_unit, new_unit = (plain_units(f.loc[both, unit]) for f in (known, after))
            both_known = old.notna().to_numpy() & new.notna().to_numpy()
            changed |= ~same_values(old_unit, new_unit) & both_known
        if column in PROFILE_COLUMNS:  # one copy read by two parsers: no change at the service
            changed &= ~copy_kept
        # a day without a row says the status it listed the ICO under, and nothing else:
        # its other values are unknown, not missing, and the first row's are no change
        changed &= ~rowless | ((old.notna().to_numpy() & new.notna().to_numpy())
                               if column == "status" else False)
        ids = both[changed]
        old_text, new_text = as_text(old[changed]), as_text(new[changed])
        if unit is not None:
            old_text = with_unit(old_text, old_unit[changed])
            new_text = with_unit(new_text, new_unit[changed])
        parts.append(_events(ids, kind, old_text, new_text, seen.loc[ids].to_numpy(),
                             column != "status" and parser_moved[changed]))
    events = pd.concat(parts, ignore_index=True)
    events["snapshot_date"] = date
    carried = known.loc[unseen]
    known_after = pd.concat([after, carried]) if len(carried) else after
    seen_after = pd.concat([pd.Series(date, index=after.index), seen.loc[unseen]])
    return events, known_after, seen_after, listed[1].union(unseen.intersection(listed[0]))


def _events(ids: pd.Index, kind: str, old: list[object] | None,
            new: list[object] | None, previous: Any, marked: Any = False) -> pd.DataFrame:
    n = len(ids)
    # text held as object until _typed_events: every part of one dtype, so concatenating
    # an empty or all-missing part changes no dtype and pandas warns of none (pandas 2.2
    # with future.infer_string makes text of a list of text, object of an empty one)
    return pd.DataFrame({
        "ico_id": np.asarray(ids, dtype="int64"),
        "kind": pd.Series([kind] * n, dtype=object),
        "old": pd.Series(old if old is not None else [np.nan] * n, dtype=object),
        "new": pd.Series(new if new is not None else [np.nan] * n, dtype=object),
        "previous_date": np.broadcast_to(np.asarray(previous, dtype=_DATE_DTYPE), (n,)),
        "parser_changed": np.broadcast_to(np.asarray(marked, dtype=bool), (n,)),
    })


def _empty_events() -> pd.DataFrame:
    return pd.DataFrame({"ico_id": np.empty(0, "int64"), "snapshot_date": np.empty(0, _DATE_DTYPE),
                         **{c: pd.Series([], dtype=object) for c in ("kind", "old", "new")},
                         "previous_date": np.empty(0, _DATE_DTYPE),
                         "parser_changed": np.empty(0, bool)})


def _typed_events(events: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "ico_id": events["ico_id"].astype("int64"),
        "snapshot_date": events["snapshot_date"].astype(_DATE_DTYPE),
        "kind": text_values(events["kind"]),
        "old": text_values(events["old"]),
        "new": text_values(events["new"]),
        "previous_date": events["previous_date"].astype(_DATE_DTYPE),
        "parser_changed": events["parser_changed"].astype(bool),
    })

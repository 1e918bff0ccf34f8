"""How ICOs moved between statuses over a series of snapshots.

Takes a frame, not a path: either the ``icos`` rows of every snapshot (as
:func:`icoframes.read_snapshots` returns them) or an events table (as
:func:`icoframes.changes` returns it). This module reads no files.

Legible from a few snapshots to months of daily ones: at most
:data:`MAX_DATE_LABELS` dates are labelled (evenly spaced, the first always),
the moves between snapshots are written between the bars only while they fit
beside each other (measured once drawn) and otherwise summed up in the note,
and nothing written on the plot overlaps (a test checks it at 5, 30 and 90).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..dayfolder import check_one_query
from ..errors import InvalidParameter
from ..frozen import without_attrs
from ..quoting import counted
from ..snapshotdays import dated_rows, named_dates
from ..snapshots import (
    Gaps,
    gaps_by_date,
    query_cut,
    snapshot_dates,
    warn_cut_rows,
    warn_query_cut,
    warn_uncounted,
    with_listed,
)
from ._axes import (
    UNKNOWN_COLOR,
    add_note,
    check_frame,
    draw_empty,
    get_axes,
    headroom,
    own_keywords,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["MAX_DATE_LABELS", "plot_status_flow"]

#: The most snapshot dates labelled on the x axis; the others keep a tick without label.
MAX_DATE_LABELS = 8

_SNAPSHOT_COLUMNS = ("snapshot_date", "id", "status")
_EVENT_COLUMNS = ("snapshot_date", "ico_id", "kind", "old", "new")
# Spec order of a life: upcoming -> ongoing -> past, stacked past at the bottom.
_STATUS_ORDER = ("past", "ongoing", "upcoming")
_STATUS_COLORS = {"past": "C0", "ongoing": "C1", "upcoming": "C2"}
_ARROW = "\u2192"
# an ICO its day's manifest lists in missing, of which no row is known: counted by the status
# it was listed under, as changes() counts it
LISTED = "listed without a row"
# each event of an ICO that appeared or went, by its kind in changes(), and its line in the moves
_COUNTED = {"new": "+{} new", "first_seen": "{} first seen", "removed": "-{} removed",
            "unseen": "{} unseen"}


@own_keywords(draws="bar", sets=("x", "height", "bottom", "label"))
def plot_status_flow(
    frame: pd.DataFrame, *, ax: Axes | None = None, **style: Any
) -> Axes:
    """Stacked counts of ICOs per status at each snapshot, with the moves between them.

    Parameters
    ----------
    frame : pandas.DataFrame
        Either the snapshots (columns ``snapshot_date``, ``id``, ``status``, one
        row per ICO per snapshot): one stacked bar per snapshot date, each
        status a colour (a day whose snapshot held no ICO, which only ``attrs``
        of :func:`icoframes.read_snapshots` names, has an empty bar when it lies between
        days with ICOs; an empty first or last day is left out with a warning: a frame
        cut to some dates cannot be told from the whole tree's, and
        ``plot_status_flow(changes(path))`` draws its moves), and
        between two bars what changed ("2 upcoming→ongoing",
        "+3 new", "-1 removed"; as :func:`icoframes.changes` reads it from the
        snapshots' manifests in ``attrs``, "4 unseen" and "1 first seen" for what
        an incomplete snapshot explains, never removed then new). An ICO a
        snapshot's manifest lists without a row (``missing``) of which no row is
        known is in that day's bar by the status it was listed under, hatched
        ("listed without a row", as ``changes`` counts it ``new`` that day), so
        the moves between two bars explain them; one known by a row is
        ``unseen`` there, in no bar that day (counted once, on the day it goes; seen
        again, it is back with no move written). Or an events
        table (columns ``snapshot_date``, ``ico_id``, ``kind``, ``old``,
        ``new``): one stacked bar per snapshot
        date of its status moves, new and removed ICOs (other kinds are ignored). A
        zoned ``snapshot_date`` is read in UTC (the snapshot of its UTC day), one in the
        index as the column, as :func:`icoframes.changes` reads them.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure is created.
    **style
        Passed to every bar (``alpha``, ``edgecolor``, ``width``...).
        A keyword that is neither the plot's nor a style of matplotlib's ``Axes.bar``
        is refused before drawing (InvalidParameter, with a "did you mean": ``colour``
        for ``color``), as is one the plot sets itself (``label``, ``bottom``).

    Returns
    -------
    matplotlib.axes.Axes
        Bars in ``ax.containers``, one per status (or per kind of move), each
        labelled with its name, and after a status's, when there are any, those
        listed without a row (labelled "<status>, listed without a row"); x
        ticks are the snapshot dates, at most :data:`MAX_DATE_LABELS` of them
        labelled. The moves between two
        snapshots are written between their bars (texts with gid
        ``icoframes-moves``) when they fit side by side; otherwise, as for 30
        or 90 daily snapshots, their totals are in the note (top left).

    Raises
    ------
    TypeError
        ``frame`` is not a DataFrame, or ``ax`` is not an Axes.
    ValueError
        ``frame`` has neither the snapshot columns nor the event columns, its
        snapshots hold exports of different queries (their manifests say so), or it holds
        rows of a UTC day no snapshot of its ``attrs`` names (InvalidParameter: a zone
        attached with ``dt.tz_localize`` east of UTC, as :func:`icoframes.report` refuses).

    Examples
    --------
    >>> import pandas as pd
    >>> from icoframes.plotting import plot_status_flow
    >>> snaps = pd.DataFrame({
    ...     "snapshot_date": pd.to_datetime(["2026-01-01"] * 2 + ["2026-01-02"] * 2,
    ...                                     format="%Y-%m-%d"),
    ...     "id": [1, 2, 1, 2], "status": ["upcoming", "past", "ongoing", "past"]})
    >>> ax = plot_status_flow(snaps)
    >>> [c.get_label() for c in ax.containers]
    ['past', 'ongoing', 'upcoming']
    >>> [t.get_text() for t in ax.texts if "→" in t.get_text()]
    ['1 upcoming→ongoing']
    """
    check_frame(frame, "frame")
    given = len(frame)
    frame = dated_rows(frame)  # its days in UTC, from the index too, as changes reads them
    if all(c in frame.columns for c in _SNAPSHOT_COLUMNS):
        # a tree mixing queries: its moves are none at the service (days without a row too)
        # (and a day no snapshot names: its bars unknown, as changes' events and report's)
        check_one_query(frame, named_dates(frame, "its status flow is unknown"))
        warn_uncounted(frame, "plot_status_flow",
                       "plot_status_flow(changes(path)) draws the moves of the tree's days")
        cut = warn_cut_rows(frame, "plot_status_flow", "plot_status_flow(changes(path)), or "
                            "of the whole read_snapshots frame, draws the moves at the service",
                            undated=given - len(frame))
        return _draw_snapshots(frame, _axes(ax), style, cut=cut)
    if all(c in frame.columns for c in _EVENT_COLUMNS):
        return _draw_events(frame, _axes(ax), style)
    raise InvalidParameter(
        "plot_status_flow needs snapshots (columns " + ", ".join(_SNAPSHOT_COLUMNS)
        + ") or events (columns " + ", ".join(_EVENT_COLUMNS) + "); got "
        + ", ".join(map(str, frame.columns))
    )


def _axes(ax: Axes | None) -> Axes:
    """The caller's Axes, or a new figure laid out so that rotated dates and labels fit."""
    if ax is not None:
        return get_axes(ax)
    import matplotlib.pyplot as plt

    _, made = plt.subplots(figsize=(8, 4.8), layout="constrained")
    return made


def _draw_snapshots(snaps: pd.DataFrame, ax: Axes, style: dict[str, Any], *,
                    cut: bool = False) -> Axes:
    ax.set_title("Number of ICOs per status in each snapshot")
    ax.set_xlabel("snapshot date")
    ax.set_ylabel("number of ICOs")
    every = snapshot_dates(snaps)  # a day whose query matched nothing is in attrs alone
    gaps = gaps_by_date(snaps)  # the manifests' summaries, read once
    cut_by = query_cut(snaps, every)  # --status ongoing: a sale that ended drawn as removed
    snaps = without_attrs(snaps)  # each day's groups: no report to carry
    if snaps.empty:
        draw_empty(ax, f"{counted(len(every), 'snapshot')}, none holding an ICO"
                   if len(every) else None)
        return ax
    dates = list(every)
    only = pd.Index(snaps["id"].unique()) if cut else None
    moves, kinds, listed = _all_moves(snaps, dates, gaps, only)
    warn_query_cut(cut_by, "plot_status_flow", kinds)
    table = _per_status(snaps["snapshot_date"], snaps["status"], every)
    # the ICOs the moves count by a listing alone are in their day's bar too, hatched: so the
    # moves between two bars are what changes their heights
    on_list = _per_status(pd.Series([d for d, s in listed.items() for _ in s.index]),
                          pd.concat(listed.values()) if listed else pd.Series([], dtype=object),
                          every)
    x = np.arange(len(dates))
    bottom = np.zeros(len(dates), dtype="int64")
    zeros = pd.Series(0, index=table.index)
    for name in _ordered(table.columns.union(on_list.columns)):
        color = _STATUS_COLORS.get(name, UNKNOWN_COLOR)
        counts = table.get(name, zeros).to_numpy()
        ax.bar(x, counts, bottom=bottom, label=name, **{"color": color, "width": 0.55, **style})
        bottom = bottom + counts
        if name in on_list.columns:
            counts = on_list[name].to_numpy()
            ax.bar(x, counts, bottom=bottom, label=f"{name}, {LISTED}",
                   **_hatched(color, style))
            bottom = bottom + counts
    # the moves are written above the bars, under the note
    ax.set_ylim(0, max(float(bottom.max()), 1.0) * 1.55)
    # beside the Axes: the top is left to the note and the moves
    ax.legend(handles=_legend(ax, bool(len(on_list.columns))), loc="upper left",
              bbox_to_anchor=(1.01, 1.0), fontsize="small", title="status")
    _date_ticks(ax, dates)  # once the legend took its room
    span = (counted(len(dates), "snapshot") if len(dates) < 2 else
            f"{len(dates)} snapshots, {_day(dates[0])} to {_day(dates[-1])}")
    # a row without an id is no ICO (changes drops it too); the ids may be of any dtype
    ids = set(snaps["id"].dropna().tolist()).union(*(s.index.tolist() for s in listed.values()))
    note = f"{span}; {counted(len(ids), 'ICO')} seen"
    if len(on_list.columns):
        note += f"\nhatched: {LISTED} that day, by the status listed"
    add_note(ax, note)
    if moves and not _write_moves(ax, moves, float(bottom.max())):
        next(t for t in ax.texts if t.get_gid() != "icoframes-moves").remove()
        add_note(ax, note + "\nmoves in all: " + _total(moves))  # too many to write
    return ax


def _write_moves(ax: Axes, moves: list[list[str]], top: float) -> bool:
    """Write each gap's moves between its bars, if they fit side by side; whether they did."""
    texts = [ax.text(i + 0.5, top * 1.02, "\n".join(lines) if lines else "no change",
                     ha="center", va="bottom", fontsize="x-small", color="0.2",
                     gid="icoframes-moves")
             for i, lines in enumerate(moves)]
    if len(moves) <= MAX_DATE_LABELS and not _overlapping(ax):
        return True
    for text in texts:
        text.remove()
    return False


def _overlapping(ax: Axes) -> bool:
    """Whether any two texts of ``ax`` (moves, note, legend) overlap, or leave the Axes."""
    figure: Any = ax.figure  # a Figure (a SubFigure has no draw_without_rendering)
    renderer = figure.canvas.get_renderer()
    figure.draw_without_rendering()
    boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_visible()]
    frame = ax.get_window_extent(renderer)
    outside = any(b.x0 < frame.x0 - 1 or b.x1 > frame.x1 + 1 or b.y1 > frame.y1 + 1
                  for b in boxes)
    legend = ax.get_legend()
    if legend is not None:
        boxes.append(legend.get_window_extent(renderer))
    return outside or any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def _total(moves: list[list[str]]) -> str:
    """The moves of every gap summed per kind, in one line ("12 upcoming→ongoing, +3 new")."""
    sums: dict[str, int] = {}
    for lines in moves:
        for line in lines:
            count, kind = line.split(" ", 1)
            sign = count[0] if count[0] in "+-" else ""
            sums[sign + kind] = sums.get(sign + kind, 0) + int(count.lstrip("+-"))
    if not sums:
        return "none"
    parts = [f"{k[0]}{n:,} {k[1:]}" if k[0] in "+-" else f"{n:,} {k}" for k, n in sums.items()]
    return "\n".join(", ".join(parts[i:i + 2]) for i in range(0, len(parts), 2))


def _day(date: Any) -> str:
    return pd.Timestamp(date).strftime("%Y-%m-%d")


def _draw_events(events: pd.DataFrame, ax: Axes, style: dict[str, Any]) -> Axes:
    ax.set_title("Number of ICOs per status move, new or removed, by snapshot")
    ax.set_xlabel("snapshot date (the move first seen)")
    ax.set_ylabel("number of ICOs")
    kind = events["kind"].astype(object)
    wanted = events[kind.isin(["status", "new", "removed"])]
    if wanted.empty:
        draw_empty(ax, f"{counted(len(events), 'event')}, none of status, new or removed"
                   if len(events) else None)
        return ax
    move = np.where(wanted["kind"] == "status",
                    _or_unknown(wanted["old"]) + _ARROW + _or_unknown(wanted["new"]),
                    wanted["kind"].astype(object))
    table = (pd.DataFrame({"date": wanted["snapshot_date"].to_numpy(), "move": move})
             .value_counts().unstack(fill_value=0).sort_index())
    first = [m for m in table.columns if _ARROW in m]
    order = [*sorted(first), *(m for m in ("new", "removed") if m in table.columns)]
    x = np.arange(len(table))
    bottom = np.zeros(len(table), dtype="int64")
    for i, name in enumerate(order):
        counts = table[name].to_numpy()
        color = {"new": "0.55", "removed": "0.8"}.get(name, f"C{i % 10}")
        ax.bar(x, counts, bottom=bottom, label=name, **{"color": color, "width": 0.55, **style})
        bottom = bottom + counts
    headroom(ax, bottom.max())
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", title="move")
    _date_ticks(ax, list(table.index))  # once the legend took its room
    add_note(ax, f"{counted(len(wanted), 'move')} on {counted(len(table), 'snapshot date')}")
    return ax


def _all_moves(snaps: pd.DataFrame, dates: list, gaps: dict[pd.Timestamp, Gaps],
               only: pd.Index | None = None
               ) -> tuple[list[list[str]], set[str], dict[Any, pd.Series]]:
    """The moves between each two consecutive snapshots, read as :func:`icoframes.changes`
    reads them: an ICO an incomplete snapshot explains the absence of (its manifest,
    in ``attrs``: ``gaps``) is unseen, not removed, then compared with its last known status;
    one it listed without a row is there by its listed status (:meth:`Gaps.listed`; ``only``:
    the ids of a frame cut by rows). Also the kinds of ``_COUNTED`` among them, and the
    statuses of the ICOs listed without a row, by id, of each day that has any."""
    by_date = {d: g.set_index("id")["status"].astype(object)  # observed: as changes' groups
               for d, g in snaps.groupby("snapshot_date", sort=True, observed=True)}
    nothing = pd.Series([], index=pd.Index([], dtype="int64"), dtype=object)  # no row that day
    known, listed = with_listed(by_date.get(dates[0], nothing),
                                gaps.get(pd.Timestamp(dates[0])), nothing.index, only)
    moves, kinds, rowless = [], set(), {dates[0]: known.loc[listed]} if len(listed) else {}
    shown = known.index  # the ids of the day before, by a row or a listing
    for before, date in itertools.pairwise(dates):
        day, now = with_listed(by_date.get(date, nothing), gaps.get(pd.Timestamp(date)),
                               known.index.difference(listed), only)
        if len(now):
            rowless[date] = day.loc[now]
        # known from before a gap (not on the day before): unseen again is no event, as
        # changes() says an ICO unseen once, when it goes
        carried = known.index.difference(shown)
        lines, found, known, listed = _moves(known, day, gaps.get(pd.Timestamp(before)),
                                             gaps.get(pd.Timestamp(date)), (listed, now),
                                             carried)
        shown = day.index
        moves.append(lines)
        kinds |= found
    return moves, kinds, rowless


def _moves(old: pd.Series, new: pd.Series, gaps_before: Gaps | None,
           gaps_after: Gaps | None, listed: tuple[pd.Index, pd.Index], carried: pd.Index
           ) -> tuple[list[str], set[str], pd.Series, pd.Index]:
    """What changed between two snapshots (statuses by id: the last known, and this one's;
    ``listed``: the ids of each known by a listing alone; ``carried``: those of ``old``
    unseen the day before, counted unseen then): status moves, new, first seen, removed
    and unseen ICOs; the kinds of those of ``_COUNTED`` there; then what is known after,
    and which by a listing alone."""
    both = old.index.intersection(new.index)
    was, now = _or_unknown(old.loc[both]), _or_unknown(new.loc[both])
    # by position (both hold the ids of `both`, in its order): pandas refuses to compare two
    # whose empty indexes differ in dtype (ids of pyarrow's int64 against a day of no row)
    changed = was.to_numpy() != now.to_numpy()
    # a listing that does not say the status: no move from or to it
    changed &= ~np.asarray(both.isin(listed[0]), dtype=bool) | (
        old.loc[both].notna().to_numpy() & new.loc[both].notna().to_numpy())
    pairs = pd.Series(list(zip(was[changed], now[changed], strict=True)), dtype=object)
    counted: dict[Any, int] = pairs.value_counts().sort_index().to_dict()
    lines = [f"{n} {a}{_ARROW}{b}" for (a, b), n in counted.items()]
    added, gone = new.index.difference(old.index), old.index.difference(new.index)
    first = added[gaps_before.explains(added)] if gaps_before is not None else added[:0]
    unseen = gone[gaps_after.explains(gone)] if gaps_after is not None else gone[:0]
    counts = {"new": len(added) - len(first), "first_seen": len(first),
              "removed": len(gone) - len(unseen), "unseen": len(unseen.difference(carried))}
    lines += [_COUNTED[kind].format(n) for kind, n in counts.items() if n]
    return (lines, {kind for kind, n in counts.items() if n},
            pd.concat([new, old.loc[unseen]]) if len(unseen) else new,
            listed[1].union(unseen.intersection(listed[0])))


def _or_unknown(statuses: pd.Series) -> pd.Series:
    """Statuses (object) with ``unknown`` for a missing one. Not ``fillna``: under pandas
    2.2's ``future.infer_string`` it warns that it will stop turning the object result
    into text."""
    values = statuses.to_numpy(dtype=object, copy=True)
    values[pd.isna(values)] = "unknown"
    return pd.Series(values, index=statuses.index, dtype=object)


def _per_status(dates: pd.Series, status: pd.Series, every: pd.Index) -> pd.DataFrame:
    """How many of the ICOs are of each status (a column; missing: ``unknown``) on each day of
    ``every`` (``dates``: each ICO's day)."""
    if dates.empty:
        return pd.DataFrame(index=every)
    status = status.astype(object).where(status.notna(), "unknown")
    return (pd.DataFrame({"date": dates.to_numpy(), "status": status.to_numpy()})
            .value_counts().unstack(fill_value=0).reindex(every, fill_value=0))


def _hatched(color: str, style: dict[str, Any]) -> dict[str, Any]:
    """The style of a bar of ICOs listed without a row: the status's colour, hatched on
    white, unless the caller gave the colours (``style``: by the names an alias stands for,
    :func:`own_keywords`)."""
    own = {"width": 0.55, "hatch": "///"}
    if not any(k in style for k in ("color", "facecolor", "edgecolor")):
        own.update(facecolor="white", edgecolor=color, linewidth=0)
    return {**own, **style}


def _legend(ax: Axes, hatched: bool) -> list[Any]:
    """The statuses' bars, and one entry for the hatch of the ICOs listed without a row."""
    from matplotlib.patches import Patch

    # what the Axes would list by itself (a caller's labelled artists too), less the hatches
    handles: list[Any] = [h for h, label in zip(*ax.get_legend_handles_labels(), strict=True)
                          if not label.endswith(LISTED)]
    if hatched:
        handles.append(Patch(facecolor="white", edgecolor="0.35", hatch="///", label=LISTED))
    return handles


def _ordered(names: pd.Index) -> list[str]:
    known = [s for s in _STATUS_ORDER if s in names]
    return known + sorted(str(s) for s in names if s not in _STATUS_ORDER)


def _date_ticks(ax: Axes, dates: list) -> None:
    """A tick per snapshot; evenly spaced labels, at most :data:`MAX_DATE_LABELS`, side by side.

    Labels are written level (never tilted) and thinned further, once drawn,
    until no two touch: the first date is always labelled.
    """
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of ICOs
    ax.set_xlim(-0.6, len(dates) - 0.4)
    step = max(1, -(-len(dates) // MAX_DATE_LABELS))
    while True:
        labels = [_day(d) if i % step == 0 else "" for i, d in enumerate(dates)]
        ax.set_xticks(np.arange(len(dates)), labels)
        if step >= len(dates) or not _labels_touch(ax):
            break
        step += 1
    if step > 1:  # unlabelled ticks shorter: a day's position stays readable
        for tick, label in zip(ax.xaxis.get_major_ticks(), labels, strict=True):
            if not label:
                tick.tick1line.set_markersize(2)


def _labels_touch(ax: Axes) -> bool:
    figure: Any = ax.figure  # a Figure (a SubFigure has no draw_without_rendering)
    renderer = figure.canvas.get_renderer()
    figure.draw_without_rendering()
    boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
    return any(a.x1 + 4 > b.x0 for a, b in itertools.pairwise(boxes))  # 4 px apart

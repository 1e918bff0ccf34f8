"""How ICOs moved between statuses over a series of snapshots.

Takes a frame, not a path: either the ``icos`` rows of every snapshot (as
:func:`icoframes.read_snapshots` returns them) or an events table (as
:func:`icoframes.changes` returns it). This module reads no files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._axes import UNKNOWN_COLOR, add_note, check_frame, draw_empty, get_axes, headroom

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_status_flow"]

_SNAPSHOT_COLUMNS = ("snapshot_date", "id", "status")
_EVENT_COLUMNS = ("snapshot_date", "ico_id", "kind", "old", "new")
# Spec order of a life: upcoming -> ongoing -> past, stacked past at the bottom.
_STATUS_ORDER = ("past", "ongoing", "upcoming")
_STATUS_COLORS = {"past": "C0", "ongoing": "C1", "upcoming": "C2"}
_ARROW = "\u2192"


def plot_status_flow(
    frame: pd.DataFrame, *, ax: Axes | None = None, **style: object
) -> Axes:
    """Stacked counts of ICOs per status at each snapshot, with the moves between them.

    Parameters
    ----------
    frame : pandas.DataFrame
        Either the snapshots (columns ``snapshot_date``, ``id``, ``status``, one
        row per ICO per snapshot): one stacked bar per snapshot date, each
        status a colour, and between two bars what changed ("2 upcoming→ongoing",
        "+3 new", "-1 removed"); or an events table (columns ``snapshot_date``,
        ``ico_id``, ``kind``, ``old``, ``new``): one stacked bar per snapshot
        date of its status moves, new and removed ICOs (other kinds are ignored).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure is created.
    **style
        Passed to every bar (``alpha``, ``edgecolor``, ``width``...).

    Returns
    -------
    matplotlib.axes.Axes
        Bars in ``ax.containers``, one per status (or per kind of move), each
        labelled with its name; x ticks are the snapshot dates.

    Raises
    ------
    TypeError
        ``frame`` is not a DataFrame, or ``ax`` is not an Axes.
    ValueError
        ``frame`` has neither the snapshot columns nor the event columns.

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
    check_frame(frame)
    if all(c in frame.columns for c in _SNAPSHOT_COLUMNS):
        return _draw_snapshots(frame, get_axes(ax), style)
    if all(c in frame.columns for c in _EVENT_COLUMNS):
        return _draw_events(frame, get_axes(ax), style)
    raise ValueError(
        "plot_status_flow needs snapshots (columns " + ", ".join(_SNAPSHOT_COLUMNS)
        + ") or events (columns " + ", ".join(_EVENT_COLUMNS) + "); got "
        + ", ".join(map(str, frame.columns))
    )


def _draw_snapshots(snaps: pd.DataFrame, ax: Axes, style: dict[str, object]) -> Axes:
    ax.set_title("ICOs per status at each snapshot")
    ax.set_xlabel("snapshot date")
    ax.set_ylabel("number of ICOs")
    if snaps.empty:
        draw_empty(ax, None)
        return ax
    status = snaps["status"].astype(object).where(snaps["status"].notna(), "unknown")
    table = (pd.DataFrame({"date": snaps["snapshot_date"], "status": status})
             .value_counts().unstack(fill_value=0).sort_index())
    dates = list(table.index)
    columns = _ordered(table.columns)
    x = np.arange(len(dates))
    bottom = np.zeros(len(dates), dtype="int64")
    for name in columns:
        counts = table[name].to_numpy()
        bar_style = {"color": _STATUS_COLORS.get(name, UNKNOWN_COLOR), "width": 0.55, **style}
        ax.bar(x, counts, bottom=bottom, label=name, **bar_style)
        bottom = bottom + counts
    _date_ticks(ax, dates)
    # the moves are written above the bars, the legend in a row above them
    ax.set_ylim(0, max(float(bottom.max()), 1.0) * 1.55)
    by_date = {d: g for d, g in snaps.groupby("snapshot_date", sort=True)}
    for i in range(1, len(dates)):
        lines = _moves(by_date[dates[i - 1]], by_date[dates[i]])
        ax.text(i - 0.5, bottom.max() * 1.02, "\n".join(lines) if lines else "no change",
                ha="center", va="bottom", fontsize="x-small", color="0.2",
                gid="icoframes-moves")
    ax.legend(loc="upper right", fontsize="small", title="status", ncols=len(columns))
    add_note(ax, f"{len(dates)} snapshots; {snaps['id'].nunique():,} ICOs seen")
    return ax


def _draw_events(events: pd.DataFrame, ax: Axes, style: dict[str, object]) -> Axes:
    ax.set_title("Status moves between snapshots")
    ax.set_xlabel("snapshot date (first seen)")
    ax.set_ylabel("number of ICOs")
    kind = events["kind"].astype(object)
    wanted = events[kind.isin(["status", "new", "removed"])]
    if wanted.empty:
        draw_empty(ax, f"{len(events):,} events, none of status, new or removed"
                   if len(events) else None)
        return ax
    move = np.where(wanted["kind"] == "status",
                    wanted["old"].astype(object).fillna("unknown") + _ARROW
                    + wanted["new"].astype(object).fillna("unknown"),
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
    _date_ticks(ax, list(table.index))
    headroom(ax, bottom.max())
    ax.legend(loc="upper right", fontsize="small")
    add_note(ax, f"{len(wanted):,} moves on {len(table)} snapshot dates")
    return ax


def _moves(before: pd.DataFrame, after: pd.DataFrame) -> list[str]:
    """What changed between two snapshots: status moves, then new and removed ICOs."""
    old = before.set_index("id")["status"].astype(object)
    new = after.set_index("id")["status"].astype(object)
    both = old.index.intersection(new.index)
    was, now = old.loc[both].fillna("unknown"), new.loc[both].fillna("unknown")
    changed = was != now
    pairs = pd.Series(list(zip(was[changed], now[changed], strict=True)), dtype=object)
    lines = [f"{n} {a}{_ARROW}{b}" for (a, b), n in pairs.value_counts().sort_index().items()]
    if n_new := len(new.index.difference(old.index)):
        lines.append(f"+{n_new} new")
    if n_gone := len(old.index.difference(new.index)):
        lines.append(f"-{n_gone} removed")
    return lines


def _ordered(names: pd.Index) -> list[str]:
    known = [s for s in _STATUS_ORDER if s in names]
    return known + sorted(str(s) for s in names if s not in _STATUS_ORDER)


def _date_ticks(ax: Axes, dates: list) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of ICOs
    labels = [pd.Timestamp(d).strftime("%Y-%m-%d") for d in dates]
    ax.set_xticks(np.arange(len(dates)), labels, rotation=30 if len(dates) > 6 else 0,
                  ha="right" if len(dates) > 6 else "center")
    ax.set_xlim(-0.6, len(dates) - 0.4)

"""ICOs per period by start date: started and scheduled apart, long empty stretches cut out."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import InvalidParameter, quoted
from ..moments import as_naive_utc
from ._axes import (
    add_note,
    check_icos,
    datetime_column,
    draw_empty,
    get_axes,
    headroom,
    numeric_column,
    own_keywords,
    usd_axis,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["FREQUENCIES", "plot_timeline"]

#: ``freq`` values accepted by :func:`plot_timeline`, mapped to the resample rule used.
#: pandas 3 no longer parses "M", "Q" and "Y" as offsets, and the end-anchored
#: aliases would put each bar's label at the period's end; every month/quarter/year
#: alias therefore maps to its start-anchored rule (the counts are the same either way).
FREQUENCIES: dict[str, str] = {
    "D": "D",
    "W": "W-MON",
    "M": "MS",
    "ME": "MS",
    "MS": "MS",
    "Q": "QS",
    "QE": "QS",
    "QS": "QS",
    "Y": "YS",
    "YE": "YS",
    "YS": "YS",
}
_PERIOD_NAMES = {"D": "day", "W-MON": "week", "MS": "month", "QS": "quarter", "YS": "year"}
_DAYS_PER_PERIOD = {"D": 1, "W-MON": 7, "MS": 28, "QS": 89, "YS": 365}
# Beyond this a timeline is unreadable and slow to draw; usually a stray date
# (year 1970 or 2099) combined with freq="D".
_MAX_PERIODS = 5000
# An empty stretch this long (in periods, and as a share of all periods) is cut
# out of the axis, leaving a marked break two periods wide.
_GAP_PERIODS = 4
_GAP_SHARE = 0.25
_GAP_WIDTH = 2
_SCHEDULED_STYLE: dict[str, Any] = {"facecolor": "white", "edgecolor": "C0", "hatch": "////",
                                    "linewidth": 0.8}


#: Words for a period, to the code it most likely means ("did you mean 'M'?").
_PERIOD_WORDS = {"day": "D", "daily": "D", "week": "W", "weekly": "W", "month": "M",
                 "monthly": "M", "quarter": "Q", "quarterly": "Q", "year": "Y",
                 "yearly": "Y", "annual": "Y", "a": "Y", "ae": "Y", "as": "Y",
                 # pandas' yearly aliases before 2.2 (A, AS, BA...), anchored ones too
                 "a-dec": "Y", "as-jan": "Y", "ys-jan": "Y", "ye-dec": "Y", "y-dec": "Y",
                 "q-dec": "Q", "qs-jan": "Q", "qe-dec": "Q", "w-sun": "W", "w-mon": "W"}


def _meant_freq(freq: object) -> str:
    """``"; did you mean 'M'?"`` for ``"m"``, ``" M "`` or ``"months"``, ``'Y'`` for pandas'
    old yearly ``"A"``; else ``""``."""
    if not isinstance(freq, str):
        return ""
    word = freq.strip()
    folded = word.casefold()
    meant = word.upper() if word.upper() in FREQUENCIES else _PERIOD_WORDS.get(
        folded, _PERIOD_WORDS.get(folded.removesuffix("s")))
    return f"; did you mean {meant!r}?" if meant else ""


@own_keywords(draws="bar", sets=("x", "height", "width", "align", "bottom", "label"))
def plot_timeline(
    icos: pd.DataFrame,
    *,
    freq: str = "M",
    now: dt.datetime | pd.Timestamp | str | None = None,
    ax: Axes | None = None,
    **style: object,
) -> Axes:
    """ICOs per period of their ``start_datetime`` (bars) and their total raised (line).

    ICOs that start after ``now`` have not started: they are drawn apart, as
    hatched "scheduled" bars, and a dotted line marks ``now``. A stretch of
    empty periods longer than four periods and a quarter of the span (say,
    between past ICOs and next year's scheduled ones) is cut out of the axis
    and marked as a break naming the dates it skips.

    Parameters
    ----------
    icos : pandas.DataFrame
        The ``icos`` table, one row per ICO (:func:`icoframes.load_icos`, or one day of
        :func:`icoframes.read_snapshots`); needs ``start_datetime`` and
        ``raised``.
    freq : {"M", "Q", "Y", "W", "D"}, default "M"
        Period length: month, quarter, year, week (starting Monday) or day. The
        pandas aliases "ME"/"MS", "QE"/"QS" and "YE"/"YS" are accepted too; each
        bar covers a calendar period and sits at its start. pandas' old aliases
        ("A", "AS", "A-DEC", "Q-DEC", "W-SUN") are refused with the code meant.
    now : datetime-like, optional
        What counts as started: ``start_datetime <= now``. Default: the current
        UTC time. Timezone-aware values are compared in UTC. Text is an ISO
        date with a 4-digit year (``"2026-11-01"``), or ``"now"``/``"today"`` (this moment,
        UTC, not midnight); other text is refused.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure is created.
    **style
        Passed to the bars of started ICOs (``color``, ``alpha``, ...).
        A keyword that is neither the plot's nor a style of matplotlib's ``Axes.bar``
        is refused before drawing (InvalidParameter, with a "did you mean": ``frequency``
        for ``freq``), as is one the plot sets itself (``label``, ``width``, ``bottom``...).

    Returns
    -------
    matplotlib.axes.Axes
        The Axes with the bars (left y-axis: number of ICOs). The line of the
        total known ``raised`` per period is on a twin Axes, available as
        ``ax.right_ax`` (as in pandas' ``secondary_y``); periods where no amount
        is known are gaps in the line. A note counts ICOs without a start date
        and, when some are scheduled, how many have started by ``now``.

    Raises
    ------
    KeyError
        ``start_datetime`` or ``raised`` is not a column of ``icos``.
    TypeError
        ``icos`` is not a DataFrame, ``start_datetime`` is not a datetime column,
        ``raised`` is not numeric or ``ax`` is not an Axes.
    ValueError
        ``freq`` is not one of the accepted values, ``now`` is not a date, or
        the dates span too many periods to draw (more than 5000), or an ICO id
        occurs more than once (InvalidParameter: a frame of several snapshot days
        holds each ICO once per day; the message says how to select one).

    Examples
    --------
    >>> import pandas as pd
    >>> from icoframes import schema
    >>> from icoframes.plotting import plot_timeline
    >>> icos = schema.empty_frame(schema.TABLES["icos"])
    >>> ax = plot_timeline(icos, freq="Q")
    >>> starts = pd.to_datetime(["2018-02-01", "2018-05-01", "2027-01-10"], format="%Y-%m-%d")
    >>> icos = icos.reindex(range(3)).assign(start_datetime=starts.astype("datetime64[ms]"))
    >>> ax = plot_timeline(icos, freq="Q", now="2026-11-01")
    >>> [c.get_label() for c in ax.containers]
    ['started (2)', 'scheduled: starts after 2026-11-01 (1)']
    """
    check_icos(icos, "plot_timeline")  # one row per ICO: not a history of several days
    if not isinstance(freq, str) or freq not in FREQUENCIES:
        raise InvalidParameter(
            f"freq must be one of {', '.join(map(repr, FREQUENCIES))}; got {quoted(freq)}"
            + _meant_freq(freq))
    rule = FREQUENCIES[freq]
    starts = datetime_column(icos, "start_datetime")
    raised = numeric_column(icos, "raised")
    cutoff = as_naive_utc(now, "now")
    ax = get_axes(ax)

    dated = starts.notna().to_numpy()
    n_dated = int(dated.sum())
    period = _PERIOD_NAMES[rule]
    ax.set_title(f"ICOs per {period} by start date")
    ax.set_xlabel("start date (start_datetime)")
    ax.set_ylabel("number of ICOs")
    note = f"{n_dated:,} with a start date; {len(starts) - n_dated:,} without"
    if n_dated == 0:
        draw_empty(ax, note if len(starts) else None)
        return ax

    index = pd.DatetimeIndex(starts[dated])
    if index.tz is not None:
        index = index.tz_convert("UTC").tz_localize(None)
    span = (index.max() - index.min()).days // _DAYS_PER_PERIOD[rule] + 1
    if span > _MAX_PERIODS:
        raise InvalidParameter(
            f"start dates from {index.min():%Y-%m-%d} to {index.max():%Y-%m-%d} span "
            f"{span:,} periods of freq={quoted(freq)}, more than {_MAX_PERIODS:,} bars; "
            "use a longer freq or filter out stray dates"
        )
    scheduled = np.asarray(index > cutoff)
    per_ico = pd.DataFrame({"started": ~scheduled, "scheduled": scheduled,
                            "raised": raised[dated]}, index=index).sort_index()
    resampled = per_ico.resample(rule, closed="left", label="left")
    counts = resampled[["started", "scheduled"]].sum().astype("int64")
    totals = resampled["raised"].sum(min_count=1)

    import matplotlib.dates as mdates

    bounds = pd.date_range(counts.index[0], periods=len(counts) + 1, freq=rule)
    x = mdates.date2num(bounds.to_numpy())
    widths = np.diff(x)
    mids = x[:-1] + widths / 2
    gap = _longest_gap(counts.sum(axis=1).to_numpy())
    if gap is not None:
        _cut_gap(ax, x, gap, bounds)

    n_started = int(counts["started"].sum())
    n_scheduled = int(counts["scheduled"].sum())
    bar_style: dict[str, Any] = {"color": "C0", **style}
    handles: list = [ax.bar(mids, counts["started"].to_numpy(), width=widths * 0.85,
                            align="center", label=f"started ({n_started:,})", **bar_style)]
    if n_scheduled:
        handles.append(ax.bar(mids, counts["scheduled"].to_numpy(), width=widths * 0.85,
                              bottom=counts["started"].to_numpy(), align="center",
                              label=f"scheduled: starts after {cutoff:%Y-%m-%d} "
                                    f"({n_scheduled:,})",
                              **_SCHEDULED_STYLE))
        handles.append(ax.axvline(mdates.date2num(cutoff), color="0.3", linestyle=":",
                                  linewidth=1.2, label=f"now ({cutoff:%Y-%m-%d})"))
        note += f"\n{n_started:,} started by {cutoff:%Y-%m-%d}, {n_scheduled:,} scheduled"
    _date_ticks(ax, x, gap)
    ax.set_xlim(x[0], x[-1])
    headroom(ax, counts.sum(axis=1).max())

    n_known = int(np.count_nonzero(~np.isnan(raised[dated])))
    note += f"\nraised known for {n_known:,} of these"
    if totals.notna().any():
        right = ax.twinx()
        (line,) = right.plot(mids, totals.to_numpy(), color="C1", marker="o", markersize=3,
                             linewidth=1.5, label="total raised (known amounts)")
        right.set_ylabel("total raised (USD)")
        values = totals.to_numpy()
        low, high = min(0.0, np.nanmin(values)), max(0.0, np.nanmax(values))
        right.set_ylim(low * 1.25, high * 1.25 if high > low else 1.0)
        usd_axis(right.yaxis, log=False)
        handles.append(line)
        ax.right_ax = right  # type: ignore[attr-defined]
        # The twin is drawn over ax, so the legend must live on it to stay visible.
        right.legend(handles=handles, loc="upper right", fontsize="small")
    else:
        ax.legend(handles=handles, loc="upper right", fontsize="small")
    add_note(ax, note)
    return ax


def _longest_gap(totals: np.ndarray) -> tuple[int, int] | None:
    """``(first, stop)`` of the longest run of empty periods worth cutting out, or None."""
    best: tuple[int, int] | None = None
    run_start = None
    for i, n in enumerate([*totals, 1]):
        if n == 0 and run_start is None:
            run_start = i
        elif n != 0 and run_start is not None:
            if best is None or i - run_start > best[1] - best[0]:
                best = (run_start, i)
            run_start = None
    if best is None:
        return None
    length = best[1] - best[0]
    if length < max(_GAP_PERIODS, _GAP_SHARE * len(totals)):
        return None
    return best


def _cut_gap(ax: Axes, x: np.ndarray, gap: tuple[int, int], bounds: pd.DatetimeIndex) -> None:
    """Squeeze the empty periods ``gap`` to a marked break on a piecewise-linear x scale."""
    a, b = x[gap[0]], x[gap[1]]
    keep = _GAP_WIDTH * float(np.median(np.diff(x)))
    squeeze = keep / (b - a)

    def forward(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype="float64")
        return np.where(v <= a, v, np.where(v >= b, v - (b - a) + keep, a + (v - a) * squeeze))

    def inverse(u: np.ndarray) -> np.ndarray:
        u = np.asarray(u, dtype="float64")
        return np.where(u <= a, u, np.where(u >= a + keep, u + (b - a) - keep,
                                            a + (u - a) / squeeze))

    ax.set_xscale("function", functions=(forward, inverse))
    ax.axvspan(a, b, color="0.93", zorder=0, linewidth=0)
    last = bounds[gap[1]] - pd.Timedelta(days=1)
    ax.text((a + b) / 2, 0.5, f"no start dates\n{bounds[gap[0]]:%Y-%m} to {last:%Y-%m}",
            transform=ax.get_xaxis_transform(), rotation=90, ha="center", va="center",
            fontsize="small", color="0.35", gid="icoframes-gap")
    for edge in (a, b):  # the break marks on the axis line
        ax.plot([edge, edge], [-0.02, 0.02], transform=ax.get_xaxis_transform(),
                color="0.2", linewidth=1.5, clip_on=False, label="_break")


def _date_ticks(ax: Axes, x: np.ndarray, gap: tuple[int, int] | None) -> None:
    import matplotlib.dates as mdates
    from matplotlib import ticker

    if gap is None:
        locator = mdates.AutoDateLocator()
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
        return
    # Each side of the break gets its own ticks: one locator over the whole
    # span would spend them on the dates cut out.
    ticks: list[float] = []
    for lo, hi in ((x[0], x[gap[0]]), (x[gap[1]], x[-1])):
        side = mdates.AutoDateLocator(minticks=2, maxticks=5)
        values = side.tick_values(mdates.num2date(lo), mdates.num2date(hi))
        ticks += [v for v in values if lo <= v <= hi]
    right = [v for v in ticks if v >= x[gap[1]]]
    firsts = {*ticks[:1], *right[:1]}

    def label(value: float, _pos: object = None) -> str:
        day = mdates.num2date(value)
        if day.month == 1 and day.day == 1:
            return f"{day:%Y}"
        # the first tick of each side names its year: the break hides which one it is
        return f"{day:%b}\n{day:%Y}" if value in firsts else f"{day:%b}"

    ax.xaxis.set_major_locator(ticker.FixedLocator(ticks))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(label))
    ax.xaxis.set_minor_locator(ticker.NullLocator())

"""Quick-look plots of the ``icos`` frame.

Every helper follows the pandas/seaborn convention: it takes the frame, draws on
the Axes passed as ``ax`` (or on a new figure from :func:`matplotlib.pyplot.subplots`),
returns that Axes and never calls ``plt.show()``. pyplot is imported only when a
plot is drawn, so importing :mod:`icoframes` neither loads matplotlib nor picks a
backend.

Missing values are common in ICO data (most ICOs never publish what they raised),
so each plot states on the chart how many rows it could not show instead of
dropping them silently.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["FREQUENCIES", "format_usd", "plot_raised", "plot_scores", "plot_timeline"]

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

_SCORE_BIN_WIDTH = 0.25
_TENTHS_BIN_WIDTH = 0.2
_SCORE_RANGE = (0.0, 5.0)
_LOG_BINS_PER_DECADE = 4
_LINEAR_BINS = 30
# Beyond this a timeline is unreadable and slow to draw; usually a stray date
# (year 1970 or 2099) combined with freq="D".
_MAX_PERIODS = 5000
_EMPTY_MESSAGE = "no ICOs to plot"
_NOTE_GID = "icoframes-note"
_OTHER_COLOR = "0.45"
_UNKNOWN_COLOR = "0.7"

_SUFFIXES = ("K", "M", "B", "T")


def format_usd(x: object) -> str:
    """Format an amount of US dollars compactly: ``$950``, ``$10K``, ``$1.5M``, ``$2B``.

    Amounts of a thousand or more keep three significant digits and take a
    K/M/B/T suffix; smaller amounts are shown whole from $100 and with at most
    two decimals below that.

    Parameters
    ----------
    x : float, int or None
        The amount. Negative amounts get a leading minus sign.

    Returns
    -------
    str
        The formatted amount, or ``""`` when ``x`` is missing (None, NaN, ``pd.NA``),
        infinite or not a number.

    Examples
    --------
    >>> format_usd(10_000)
    '$10K'
    >>> format_usd(1_500_000)
    '$1.5M'
    >>> format_usd(15_070_000)
    '$15.1M'
    >>> format_usd(float("nan"))
    ''
    """
    try:
        value = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""
    if not math.isfinite(value):
        return ""
    amount = abs(value)
    if amount < 100:
        body = f"{amount:.2f}".rstrip("0").rstrip(".")
    elif amount < 999.5:
        body = f"{amount:.0f}"
    else:
        exp = min(max(1, int(math.log10(amount)) // 3), len(_SUFFIXES))
        mantissa = float(f"{amount / 1000**exp:.3g}")
        # Rounding can carry into the next unit (999_950 -> 1000K): move up so
        # it reads $1M.
        if mantissa >= 1000 and exp < len(_SUFFIXES):
            exp += 1
            mantissa = float(f"{amount / 1000**exp:.3g}")
        number = f"{mantissa:,.0f}" if mantissa >= 1000 else f"{mantissa:g}"
        body = number + _SUFFIXES[exp - 1]
    sign = "-" if value < 0 and body != "0" else ""
    return f"{sign}${body}"


def plot_scores(
    icos: pd.DataFrame,
    *,
    by: str | None = None,
    bins: int | Sequence[float] | np.ndarray | None = None,
    top: int = 5,
    ax: Axes | None = None,
) -> Axes:
    """Histogram of ICO scores, optionally compared across groups.

    Parameters
    ----------
    icos : pandas.DataFrame
        The ``icos`` table; needs the ``ico_score`` column (and ``by``, if given).
    by : str, optional
        Column to compare groups by, e.g. ``"status"``, ``"category"`` or
        ``"platform"``. The ``top`` largest groups (counting ICOs with a score)
        are drawn as overlaid step histograms, the remaining groups together as
        "other" and rows whose ``by`` value is missing as "unknown". A single
        leftover group is shown under its own name rather than as "other".
    bins : int or sequence of float, optional
        Default: fixed-width bins covering 0 to 5, widened if scores fall
        outside: 0.25 wide, or, when every score has one decimal (as published),
        0.2 wide with edges halfway between tenths (..., 2.85, 3.05, ...) so each
        bin holds exactly two possible scores. An int gives that many equal bins
        over the same range; a sequence gives the bin edges (scores outside them
        are counted in the note).
    top : int, default 5
        Number of groups shown by name when ``by`` is given.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure is created.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on. A text note states how many ICOs were scored and how
        many have no score; with nothing to show the Axes says "no ICOs to plot".

    Raises
    ------
    KeyError
        ``ico_score`` is not a column of ``icos``.
    TypeError
        ``icos`` is not a DataFrame, ``ico_score`` is not numeric or ``ax`` is
        not an Axes.
    ValueError
        Invalid ``bins`` or ``top``, or ``by`` is not a single-valued column of ``icos``.

    Examples
    --------
    >>> from icoframes import schema
    >>> from icoframes.plotting import plot_scores
    >>> ax = plot_scores(schema.empty_frame(schema.TABLES["icos"]))
    >>> ax = plot_scores(icos, by="status")  # doctest: +SKIP
    """
    _check_frame(icos)
    scores = _numeric_column(icos, "ico_score")
    _check_top(top)
    groups = _group_labels(icos, by, scores, top) if by is not None else None
    ax = _get_axes(ax)

    scored = ~np.isnan(scores)
    n_scored = int(scored.sum())
    edges = _score_edges(scores[scored], bins)
    inside = scored & (scores >= edges[0]) & (scores <= edges[-1])
    note = f"n = {n_scored:,} scored; {len(scores) - n_scored:,} without a score"
    if n_scored and (n_outside := n_scored - int(inside.sum())):
        note += f"; {n_outside:,} outside the bins"

    title = "ICO scores" if by is None else f"ICO scores by {by}"
    ax.set_title(title)
    ax.set_xlabel("ICO score")
    ax.set_ylabel("number of ICOs")
    if n_scored == 0:
        _draw_empty(ax, note if len(scores) else None)
        return ax

    if groups is None:
        counts, _ = np.histogram(scores[scored], bins=edges)
        ax.bar(edges[:-1], counts, width=np.diff(edges), align="edge",
               color="C0", edgecolor="white", linewidth=0.5, label="ICOs")
        top_count = counts.max()
    else:
        top_count = _draw_group_steps(ax, scores, scored, edges, groups, _score_label)
    # Bins for one-decimal scores start below 0 to keep tenths off the edges;
    # the bin that only a score of 0.0 could fill is not worth the axis space.
    left = edges[0] if bins is not None else max(_score_range(scores[scored])[0], edges[0])
    ax.set_xlim(left, edges[-1])
    _headroom(ax, top_count)
    _add_note(ax, note)
    return ax


def plot_raised(
    icos: pd.DataFrame,
    *,
    by: str | None = None,
    log: bool = True,
    bins: int | Sequence[float] | np.ndarray | None = None,
    top: int = 5,
    ax: Axes | None = None,
) -> Axes:
    """Distribution of the funds raised (USD), with the median marked.

    Parameters
    ----------
    icos : pandas.DataFrame
        The ``icos`` table; needs the ``raised`` column (and ``by``, if given).
    by : str, optional
        Column to compare groups by, as in :func:`plot_scores`; each group's
        legend entry gives its size and median.
    log : bool, default True
        Logarithmic bins (four per decade) on a log x-axis. Amounts of $0 or
        less cannot be placed on it: they are left out of the bars and counted
        in the note. ``log=False`` uses 30 equal bins on a linear axis.
    bins : int or sequence of float, optional
        Number of bins (log-spaced when ``log``) or explicit bin edges.
    top : int, default 5
        Number of groups shown by name when ``by`` is given.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure is created.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on. A dashed vertical line marks the median of all known
        amounts (its legend entry gives the value); a note counts the ICOs with
        known and unknown raised amounts. Money on the axis reads $10K, $1M, ...

    Raises
    ------
    KeyError
        ``raised`` is not a column of ``icos``.
    TypeError
        ``icos`` is not a DataFrame, ``raised`` is not numeric or ``ax`` is not
        an Axes.
    ValueError
        Invalid ``bins``, ``top`` or ``log``, or ``by`` is not a single-valued
        column of ``icos``.

    Examples
    --------
    >>> from icoframes import schema
    >>> from icoframes.plotting import plot_raised
    >>> ax = plot_raised(schema.empty_frame(schema.TABLES["icos"]))
    >>> ax = plot_raised(icos, by="status", log=False)  # doctest: +SKIP
    """
    _check_frame(icos)
    raised = _numeric_column(icos, "raised")
    if not isinstance(log, (bool, np.bool_)):
        raise ValueError(f"log must be True or False, got {log!r}")
    if bins is not None:
        _explicit_edges(bins, 1.0, 10.0, log=log)  # fail on bad bins even with nothing to draw
    _check_top(top)
    known = ~np.isnan(raised)
    n_known = int(known.sum())
    drawable = known & (raised > 0) if log else known
    # groups are ranked by what can be drawn, so a group of $0 takes no named slot
    groups = (_group_labels(icos, by, np.where(drawable, raised, np.nan), top)
              if by is not None else None)
    ax = _get_axes(ax)

    n_hidden = n_known - int(drawable.sum())
    note = f"{n_known:,} with known raised; {len(raised) - n_known:,} unknown"
    if n_hidden:
        note += f"\n{n_hidden:,} at $0 or less, not shown on the log axis"

    ax.set_title("Funds raised" if by is None else f"Funds raised by {by}")
    ax.set_xlabel("raised (USD)")
    ax.set_ylabel("number of ICOs")
    if not drawable.any():
        _draw_empty(ax, note if len(raised) else None)
        return ax

    edges = _raised_edges(raised[drawable], bins, log)
    inside = drawable & (raised >= edges[0]) & (raised <= edges[-1])
    if n_outside := int(drawable.sum()) - int(inside.sum()):
        note += f"\n{n_outside:,} outside the bins"
    if groups is None:
        counts, _ = np.histogram(raised[drawable], bins=edges)
        ax.bar(edges[:-1], counts, width=np.diff(edges), align="edge",
               color="C0", edgecolor="white", linewidth=0.5, label="ICOs")
        top_count = counts.max()
    else:
        labels = groups[0]

        def label(name: str, _drawn: np.ndarray) -> str:
            # over every known amount of the group, like the overall median line
            group = raised[known & (labels == name)]
            return f"{name} (n={group.size:,}, median {format_usd(np.median(group))})"

        top_count = _draw_group_steps(ax, raised, drawable, edges, groups, label)

    # The median of every known amount, not just the drawable ones: it is the
    # figure a reader would quote, and zeros do pull it down.
    median = float(np.median(raised[known]))
    lo, hi = edges[0], edges[-1]
    if median > 0 or not log:
        ax.axvline(median, color="C3", linestyle="--", linewidth=1.5,
                   label=f"median {format_usd(median)}")
        lo, hi = min(lo, median), max(hi, median)  # keep the line on screen
    else:
        note += f"\nmedian {format_usd(median)} (not drawable on the log axis)"

    if log:
        ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    _usd_axis(ax.xaxis, log=log, span=(lo, hi))
    _headroom(ax, top_count)
    ax.legend(loc="upper right", fontsize="small")
    _add_note(ax, note)
    return ax


def plot_timeline(icos: pd.DataFrame, *, freq: str = "M", ax: Axes | None = None) -> Axes:
    """ICOs started per period (bars) and their total raised (line, right axis).

    Parameters
    ----------
    icos : pandas.DataFrame
        The ``icos`` table; needs ``start_datetime`` and ``raised``.
    freq : {"M", "Q", "Y", "W", "D"}, default "M"
        Period length: month, quarter, year, week (starting Monday) or day. The
        pandas aliases "ME"/"MS", "QE"/"QS" and "YE"/"YS" are accepted too; each
        bar covers a calendar period and sits at its start.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure is created.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes with the bars (left y-axis: number of ICOs). The line of the
        total known ``raised`` per period is on a twin Axes, available as
        ``ax.right_ax`` (as in pandas' ``secondary_y``); periods where no amount
        is known are gaps in the line. A note counts ICOs without a start date.

    Raises
    ------
    KeyError
        ``start_datetime`` or ``raised`` is not a column of ``icos``.
    TypeError
        ``icos`` is not a DataFrame, ``start_datetime`` is not a datetime column,
        ``raised`` is not numeric or ``ax`` is not an Axes.
    ValueError
        ``freq`` is not one of the accepted values, or the dates span too many
        periods to draw (more than 5000).

    Examples
    --------
    >>> from icoframes import schema
    >>> from icoframes.plotting import plot_timeline
    >>> ax = plot_timeline(schema.empty_frame(schema.TABLES["icos"]), freq="Q")
    >>> ax = plot_timeline(icos, freq="Y")  # doctest: +SKIP
    """
    _check_frame(icos)
    if not isinstance(freq, str) or freq not in FREQUENCIES:
        raise ValueError(
            f"freq must be one of {', '.join(map(repr, FREQUENCIES))}; got {freq!r}"
        )
    rule = FREQUENCIES[freq]
    starts = _datetime_column(icos, "start_datetime")
    raised = _numeric_column(icos, "raised")
    ax = _get_axes(ax)

    dated = starts.notna().to_numpy()
    n_dated = int(dated.sum())
    period = _PERIOD_NAMES[rule]
    ax.set_title(f"ICOs started per {period}")
    ax.set_xlabel("start date")
    ax.set_ylabel("ICOs started")
    note = f"{n_dated:,} with a start date; {len(starts) - n_dated:,} without"
    if n_dated == 0:
        _draw_empty(ax, note if len(starts) else None)
        return ax

    index = pd.DatetimeIndex(starts[dated])
    if index.tz is not None:
        index = index.tz_localize(None)
    per_ico = pd.DataFrame({"n": 1, "raised": raised[dated]}, index=index).sort_index()
    span = _period_count(index.min(), index.max(), rule)
    if span > _MAX_PERIODS:
        raise ValueError(
            f"start dates from {index.min():%Y-%m-%d} to {index.max():%Y-%m-%d} span "
            f"{span:,} periods of freq={freq!r}, more than {_MAX_PERIODS:,} bars; "
            "use a longer freq or filter out stray dates"
        )
    resampled = per_ico.resample(rule, closed="left", label="left")
    counts = resampled["n"].sum()
    totals = resampled["raised"].sum(min_count=1)

    import matplotlib.dates as mdates

    bounds = pd.date_range(counts.index[0], periods=len(counts) + 1, freq=rule)
    x = mdates.date2num(bounds.to_numpy())
    widths = np.diff(x)
    mids = x[:-1] + widths / 2
    bars = ax.bar(mids, counts.to_numpy(), width=widths * 0.85, align="center",
                  color="C0", label="ICOs started")
    locator = mdates.AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    ax.set_xlim(x[0], x[-1])
    _headroom(ax, counts.max())

    handles: list = [bars]
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
        _usd_axis(right.yaxis, log=False)
        handles.append(line)
        ax.right_ax = right  # type: ignore[attr-defined]
        # The twin is drawn over ax, so the legend must live on it to stay visible.
        right.legend(handles=handles, loc="upper right", fontsize="small")
    else:
        ax.legend(handles=handles, loc="upper right", fontsize="small")
    _add_note(ax, note)
    return ax


# -- helpers -------------------------------------------------------------------


def _get_axes(ax: Axes | None) -> Axes:
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
        return ax
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    return ax


def _check_frame(icos: object) -> None:
    if not isinstance(icos, pd.DataFrame):
        raise TypeError(f"icos must be a pandas DataFrame, got {type(icos).__name__}")


def _check_top(top: object) -> None:
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"top must be a positive integer, got {top!r}")


def _column(icos: pd.DataFrame, name: str) -> pd.Series:
    if name not in icos.columns:
        raise KeyError(f"icos has no column {name!r}; the icos table must include it")
    col = icos[name]
    if isinstance(col, pd.DataFrame):
        raise ValueError(f"icos has more than one column named {name!r}")
    return col


def _numeric_column(icos: pd.DataFrame, name: str) -> np.ndarray:
    col = _column(icos, name)
    if pd.api.types.is_bool_dtype(col) or not pd.api.types.is_numeric_dtype(col):
        raise TypeError(f"column {name!r} must be numeric (float64), got dtype {col.dtype}")
    return col.to_numpy(dtype="float64", na_value=np.nan)


def _datetime_column(icos: pd.DataFrame, name: str) -> pd.Series:
    col = _column(icos, name)
    if not pd.api.types.is_datetime64_any_dtype(col):
        raise TypeError(f"column {name!r} must be a datetime column, got dtype {col.dtype}")
    return col


def _group_labels(
    icos: pd.DataFrame, by: object, values: np.ndarray, top: int
) -> tuple[np.ndarray, list[str], str | None]:
    """Label every row with its group for ``by``.

    Returns the labels, the drawing order and the label of the "other" group
    (None when every group is shown by name).

    Groups are ranked by how many rows have a usable value, so a large group
    with nothing to plot does not take one of the named slots.
    """
    if not isinstance(by, str):
        raise ValueError(f"by must be a column name (str), got {by!r}")
    if by not in icos.columns:
        raise ValueError(f"by={by!r} is not a column of icos")
    if by in ("ico_score", "raised"):
        raise ValueError(f"by={by!r} is the plotted value; choose a category column")
    col = _column(icos, by)
    if col.dtype == object and col.map(lambda v: isinstance(v, (list, tuple, set, dict))).any():
        raise ValueError(f"by={by!r} holds lists; choose a column with one value per ICO")

    missing = col.isna().to_numpy()
    # A value spelled "unknown" means the same as a missing one, so they share a group.
    labels = np.array(["unknown" if m else str(v) for v, m in zip(col, missing, strict=True)],
                      dtype=object)
    usable = ~np.isnan(values)
    named = labels[usable & (labels != "unknown")]
    counts = pd.Series(named, dtype=object).value_counts()
    # Sort by count, ties by name, so the order does not depend on row order.
    counts = counts.sort_index().sort_values(ascending=False, kind="stable")
    shown = list(counts.index[:top])
    rest = list(counts.index[top:])
    if len(rest) == 1:
        shown += rest
        rest = []
    order = [str(s) for s in shown]
    other = None
    if rest:
        other = "other" if "other" not in order else "all others"
        labels = np.where(np.isin(labels, rest), other, labels)
        order.append(other)
    if (labels[usable] == "unknown").any():
        order.append("unknown")
    return labels, order, other


def _draw_group_steps(
    ax: Axes,
    values: np.ndarray,
    usable: np.ndarray,
    edges: np.ndarray,
    groups: tuple[np.ndarray, list[str], str | None],
    label: Callable[[str, np.ndarray], str],
) -> int:
    """Draw one step histogram per group (greys for "other" and "unknown"); return the peak."""
    labels, order, other = groups
    highest = 0
    named = 0
    for name in order:
        mask = usable & (labels == name)
        if not mask.any():
            continue  # nothing of this group can be drawn: no empty legend entry
        counts, _ = np.histogram(values[mask], bins=edges)
        if name == "unknown":
            style = {"color": _UNKNOWN_COLOR, "linestyle": ":"}
        elif name == other:
            style = {"color": _OTHER_COLOR, "linestyle": "--"}
        else:
            style = {"color": f"C{named % 10}"}
            named += 1
        ax.stairs(counts, edges, label=label(name, values[mask]), linewidth=1.8, **style)
        highest = max(highest, int(counts.max()))
    ax.legend(loc="upper right", fontsize="small")
    return highest


def _score_label(name: str, values: np.ndarray) -> str:
    return f"{name} (n={len(values):,})"


def _score_range(scores: np.ndarray) -> tuple[float, float]:
    lo, hi = _SCORE_RANGE
    if scores.size:
        w = _SCORE_BIN_WIDTH
        lo = min(lo, math.floor(scores.min() / w) * w)
        hi = max(hi, math.ceil(scores.max() / w) * w)
    return lo, hi


def _score_edges(scores: np.ndarray, bins) -> np.ndarray:
    lo, hi = _score_range(scores)
    if bins is not None:
        return _explicit_edges(bins, lo, hi, log=False)
    tenths = scores * 10
    if scores.size and np.allclose(tenths, np.round(tenths), rtol=0, atol=1e-6):
        # Scores are published to one decimal. 0.25-wide bins would hold two and
        # three possible scores in turn and draw a false comb; 0.2-wide bins with
        # edges halfway between tenths (..., 2.85, 3.05, ...) hold exactly two,
        # and no score can sit on an edge where float rounding would pick its bin.
        step, offset = _TENTHS_BIN_WIDTH, 0.05
        first = math.floor((lo - offset) / step)
        last = math.ceil((hi - offset) / step)
        return offset + step * np.arange(first, last + 1)
    return np.linspace(lo, hi, round((hi - lo) / _SCORE_BIN_WIDTH) + 1)


def _raised_edges(values: np.ndarray, bins, log: bool) -> np.ndarray:
    vmin, vmax = float(values.min()), float(values.max())
    if log:
        if bins is None:
            k = _LOG_BINS_PER_DECADE
            lo = math.floor(math.log10(vmin) * k) / k
            hi = math.ceil(math.log10(vmax) * k) / k
            if hi <= lo:
                hi = lo + 1 / k
            edges = np.logspace(lo, hi, round((hi - lo) * k) + 1)
            # 10**x may land a hair inside the data's extremes; np.histogram would
            # then drop the smallest or largest amount.
            edges[0] = min(edges[0], vmin)
            edges[-1] = max(edges[-1], vmax)
            return edges
        return _explicit_edges(bins, vmin, vmax, log=True)
    if bins is None:
        bins = _LINEAR_BINS
    return _explicit_edges(bins, vmin, vmax, log=False)


def _explicit_edges(bins, lo: float, hi: float, *, log: bool) -> np.ndarray:
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        if bins < 1:
            raise ValueError(f"bins must be at least 1, got {bins}")
        if hi <= lo:
            lo, hi = (lo / 2, hi * 2) if log else (lo - 0.5, hi + 0.5)
        if log:
            return np.logspace(math.log10(lo), math.log10(hi), int(bins) + 1)
        return np.linspace(lo, hi, int(bins) + 1)
    if isinstance(bins, (str, bytes)):
        raise ValueError(f"bins must be an int or a sequence of bin edges, got {bins!r}")
    try:
        edges = np.asarray(bins, dtype="float64")
    except (TypeError, ValueError):
        raise ValueError(f"bins must be an int or a sequence of bin edges, got {bins!r}") from None
    if edges.ndim != 1 or edges.size < 2 or not np.all(np.isfinite(edges)):
        raise ValueError("bins must be at least two finite bin edges")
    if np.any(np.diff(edges) <= 0):
        raise ValueError(f"bins must be strictly increasing edges, got {bins!r}")
    if log and edges[0] <= 0:
        raise ValueError(f"bins must be positive on a log axis (log=True), got {bins!r}")
    return edges


def _period_count(first: pd.Timestamp, last: pd.Timestamp, rule: str) -> int:
    days = (last - first).days
    per_period = {"D": 1, "W-MON": 7, "MS": 28, "QS": 89, "YS": 365}[rule]
    return days // per_period + 1


def _usd_axis(axis, *, log: bool, span: tuple[float, float] | None = None) -> None:
    from matplotlib import ticker

    formatter = ticker.FuncFormatter(lambda x, _pos: format_usd(x))
    axis.set_major_formatter(formatter)
    if log:
        # Under two decades decade ticks alone are too few, so add 2x and 5x.
        few = span is not None and math.log10(span[1] / span[0]) < 2
        axis.set_major_locator(ticker.LogLocator(base=10, subs=(1, 2, 5) if few else (1,)))
        axis.set_minor_formatter(ticker.NullFormatter())


def _headroom(ax: Axes, highest: float) -> None:
    # Keep the top of the Axes free for the note and legend.
    ax.set_ylim(0, max(float(highest), 1.0) * 1.3)


def _add_note(ax: Axes, text: str) -> None:
    ax.text(0.02, 0.97, text, transform=ax.transAxes, ha="left", va="top",
            fontsize="small", color="0.25", gid=_NOTE_GID,
            bbox={"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "0.8",
                  "alpha": 0.85})


def _draw_empty(ax: Axes, note: str | None) -> None:
    # Ticks on an empty Axes would only show matplotlib's placeholder 0-1 range.
    ax.set_xticks([])
    ax.set_yticks([])
    ax.text(0.5, 0.5, _EMPTY_MESSAGE, transform=ax.transAxes, ha="center", va="center",
            color="0.4", gid=_NOTE_GID)
    if note:
        _add_note(ax, note)

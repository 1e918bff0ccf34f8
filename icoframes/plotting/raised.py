"""Distribution of the funds raised (USD) on a log axis labelled at every decade."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import check_flags
from ._axes import (
    add_note,
    check_icos,
    check_top,
    decade_limits,
    draw_empty,
    format_usd,
    get_axes,
    headroom,
    numeric_column,
    own_keywords,
    usd_axis,
)
from ._bins import Bins, explicit_edges, raised_edges
from ._groups import draw_group_rows, group_labels, refuse_styles

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.container import Container

__all__ = ["plot_raised"]


@own_keywords(draws="bar", sets=("x", "height", "width", "align"))
def plot_raised(
    icos: pd.DataFrame,
    *,
    by: str | None = None,
    log: bool = True,
    bins: Bins | None = None,
    top: int = 5,
    ax: Axes | None = None,
    **style: object,
) -> Axes:
    """Distribution of the funds raised (USD), with the median marked.

    Parameters
    ----------
    icos : pandas.DataFrame
        The ``icos`` table, one row per ICO (:func:`icoframes.load_icos`, or one day of
        :func:`icoframes.read_snapshots`); needs the ``raised`` column (and
        ``by``, if given).
    by : str, optional
        Column to compare groups by, one row per group as in :func:`plot_scores`;
        each row's label gives the group's size and median, and a black tick
        marks that median in the row.
    log : bool, default True
        Logarithmic bins (four per decade) on a log x-axis that runs over whole
        decades, each decade labelled ($1M, $10M, $100M, ...). Amounts of $0 or
        less cannot be placed on it: they are left out of the bars and counted
        in the note. ``log=False`` uses 30 equal bins on a linear axis.
    bins : int or sequence of float, optional
        Number of bins (log-spaced when ``log``) or explicit bin edges.
    top : int, default 5
        Number of groups shown by name when ``by`` is given.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; by default a new figure is created.
    **style
        Passed to the bars (``color``, ``alpha``, ``lw``, ``label``, ...); ``label`` names
        them in the legend (default "ICOs"). Refused with ``by`` (each group is drawn in
        a colour of its own).
        A keyword that is neither the plot's nor a style of matplotlib's ``Axes.bar``
        is refused before drawing (InvalidParameter, with a "did you mean": ``logscale``
        for ``log``), as is one the plot sets itself (``width``, ``align``).

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on. A dashed vertical line marks the median of all known
        amounts (its legend entry gives the value); a note counts the ICOs with
        known and unknown raised amounts.

    Raises
    ------
    KeyError
        ``raised`` is not a column of ``icos``.
    TypeError
        ``icos`` is not a DataFrame, ``raised`` is not numeric or ``ax`` is not
        an Axes.
    ValueError
        Invalid ``bins``, ``top`` or ``log``, ``by`` is not a single-valued
        column of ``icos``, or an ICO id occurs more than once (InvalidParameter:
        a frame of several snapshot days holds each ICO once per day; the message
        says how to select one day).

    Examples
    --------
    >>> import numpy as np
    >>> from icoframes import schema
    >>> from icoframes.plotting import plot_raised
    >>> icos = schema.empty_frame(schema.TABLES["icos"])
    >>> ax = plot_raised(icos)
    >>> icos = icos.reindex(range(3)).assign(raised=[2.5e6, 4e7, 1.5e8])
    >>> ax = plot_raised(icos)
    >>> [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    ['$1M', '$10M', '$100M', '$1B']
    """
    check_icos(icos, "plot_raised")  # one row per ICO: not a history of several days
    if by is not None:
        refuse_styles("plot_raised", style)
    raised = numeric_column(icos, "raised")
    check_flags(log=log)  # InvalidParameter, as every flag
    if bins is not None:
        explicit_edges(bins, 1.0, 10.0, log=log)  # fail on bad bins even with nothing to draw
    top = check_top(top)
    known = ~np.isnan(raised)
    n_known = int(known.sum())
    drawable = known & (raised > 0) if log else known
    # groups are ranked by what can be drawn, so a group of $0 takes no named slot
    groups = (group_labels(icos, by, np.where(drawable, raised, np.nan), top)
              if by is not None else None)
    ax = get_axes(ax)

    n_hidden = n_known - int(drawable.sum())
    note = f"{n_known:,} with known raised; {len(raised) - n_known:,} unknown"
    if n_hidden:
        note += f"\n{n_hidden:,} at $0 or less, not shown on the log axis"

    ax.set_title("Funds raised" if by is None else f"Funds raised by {by}")
    ax.set_xlabel("raised (USD)")
    ax.set_ylabel("number of ICOs")
    if not drawable.any():
        draw_empty(ax, note if len(raised) else None)
        return ax

    edges = raised_edges(raised[drawable], bins, log)
    inside = drawable & (raised >= edges[0]) & (raised <= edges[-1])
    if n_outside := int(drawable.sum()) - int(inside.sum()):
        note += f"\n{n_outside:,} outside the bins"
    if groups is None:
        counts, _ = np.histogram(raised[drawable], bins=edges)
        bar_style: dict[str, Any] = {"color": "C0", "edgecolor": "white", "linewidth": 0.5,
                                     "label": "ICOs", **style}
        ax.bar(edges[:-1], counts, width=np.diff(edges), align="edge", **bar_style)
        headroom(ax, counts.max())
    else:
        if groups.other is not None:
            ax.set_title(f"Funds raised by {by}: the {top} largest groups, "
                         f"{groups.n_other} more as {groups.other}")
        labels = groups.labels

        def label(name: str, _drawn: np.ndarray) -> str:
            # over every known amount of the group, like the overall median line
            group = raised[known & (labels == name)]
            return f"{name} (n={group.size:,}, median {format_usd(np.median(group))})"

        draw_group_rows(ax, raised, drawable, edges, groups, label,
                        mark=lambda v: float(np.median(v)))

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
        lo, hi = decade_limits(lo, hi)
    ax.set_xlim(lo, hi)
    usd_axis(ax.xaxis, log=log)
    # matplotlib stores labels as str; its stubs type get_label() as object
    handles: list[Artist | Container] = [h for h in ax.get_lines()
                                         if str(h.get_label()).startswith("median")]
    if groups is None:
        handles = [*ax.containers, *handles]
    ax.legend(handles=handles, loc="upper right", fontsize="small")
    add_note(ax, note)
    return ax

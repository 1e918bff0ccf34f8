"""Histogram of ICO scores, optionally one row per group."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._axes import (
    add_note,
    check_icos,
    check_top,
    draw_empty,
    get_axes,
    headroom,
    numeric_column,
    own_keywords,
)
from ._bins import Bins, explicit_edges, score_edges, score_range
from ._groups import draw_group_rows, group_labels, refuse_styles

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_scores"]


@own_keywords(draws="bar", sets=("x", "height", "width", "align"))
def plot_scores(
    icos: pd.DataFrame,
    *,
    by: str | None = None,
    bins: Bins | None = None,
    top: int = 5,
    ax: Axes | None = None,
    **style: object,
) -> Axes:
    """Histogram of ICO scores, optionally compared across groups.

    Parameters
    ----------
    icos : pandas.DataFrame
        The ``icos`` table, one row per ICO (:func:`icoframes.load_icos`, or one day of
        :func:`icoframes.read_snapshots`); needs the ``ico_score`` column (and
        ``by``, if given).
    by : str, optional
        Column to compare groups by, e.g. ``"status"``, ``"category"`` or
        ``"platform"``. Each of the ``top`` largest groups (counting ICOs with a
        score) gets its own row, ranked by size and labelled with its size; the
        remaining groups share one grey "other" row and rows whose ``by`` value is
        missing an "unknown" row, both drawn apart below the named ones. Each row
        shows the share of its group per bin, on one scale for all rows, so a
        large group cannot swamp a small one. A single leftover group is shown
        under its own name rather than as "other".
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
    **style
        Passed to the bars (``color``, ``alpha``, ``lw``, ``label``, ...). Refused with
        ``by`` (each group is drawn in a colour of its own).
        A keyword that is neither the plot's nor a style of matplotlib's ``Axes.bar``
        is refused before drawing (InvalidParameter, with a "did you mean": ``binsize``
        for ``bins``), as is one the plot sets itself (``width``, ``align``).

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
        Invalid ``bins`` or ``top``, ``by`` is not a single-valued column of ``icos``,
        or an ICO id occurs more than once (InvalidParameter: a frame of several
        snapshot days holds each ICO once per day; the message says how to select one).

    Examples
    --------
    >>> from icoframes import schema
    >>> from icoframes.plotting import plot_scores
    >>> ax = plot_scores(schema.empty_frame(schema.TABLES["icos"]))
    >>> ax = plot_scores(icos, by="category")  # doctest: +SKIP
    """
    check_icos(icos, "plot_scores")  # one row per ICO: not a history of several days
    if by is not None:
        refuse_styles("plot_scores", style)
    scores = numeric_column(icos, "ico_score")
    top = check_top(top)
    if bins is not None:  # refused before a figure is made, as plot_raised's
        explicit_edges(bins, 0.0, 5.0, log=False)
    groups = group_labels(icos, by, scores, top) if by is not None else None
    ax = get_axes(ax)

    scored = ~np.isnan(scores)
    n_scored = int(scored.sum())
    edges = score_edges(scores[scored], bins)
    inside = scored & (scores >= edges[0]) & (scores <= edges[-1])
    note = f"n = {n_scored:,} scored; {len(scores) - n_scored:,} without a score"
    if n_scored and (n_outside := n_scored - int(inside.sum())):
        note += f"; {n_outside:,} outside the bins"

    ax.set_title("ICO scores" if by is None else f"ICO scores by {by}")
    ax.set_xlabel("ICO score")
    ax.set_ylabel("number of ICOs")
    if n_scored == 0:
        draw_empty(ax, note if len(scores) else None)
        return ax

    if groups is None:
        counts, _ = np.histogram(scores[scored], bins=edges)
        bar_style: dict[str, Any] = {"color": "C0", "edgecolor": "white", "linewidth": 0.5,
                                     "label": "ICOs", **style}
        ax.bar(edges[:-1], counts, width=np.diff(edges), align="edge", **bar_style)
        headroom(ax, counts.max())
    else:
        if groups.other is not None:
            ax.set_title(f"ICO scores by {by}: the {top} largest groups, "
                         f"{groups.n_other} more as {groups.other}")
        draw_group_rows(ax, scores, scored, edges, groups,
                        lambda name, v: f"{name} (n={len(v):,})")
    # Bins for one-decimal scores start below 0 to keep tenths off the edges;
    # the bin that only a score of 0.0 could fill is not worth the axis space.
    left = edges[0] if bins is not None else max(score_range(scores[scored])[0], edges[0])
    ax.set_xlim(left, edges[-1])
    add_note(ax, note)
    return ax

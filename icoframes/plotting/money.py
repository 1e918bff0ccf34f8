"""Raised against hard cap, both in US dollars: did the sale reach its soft cap?

pyplot is imported only when a plot is drawn; it takes the frame
:func:`icoframes.compute_features` returns with rates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import InvalidParameter
from ..snapshotdays import one_row_per_ico
from ._axes import check_frame, get_axes, own_keywords

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_raised_vs_cap"]

# (label, value of reached_soft_cap, colour), drawn in this order: unknown underneath
_GROUPS = (
    ("soft cap unknown", None, "0.7"),
    ("soft cap not reached", False, "tab:red"),
    ("soft cap reached", True, "tab:blue"),
)
_NOTE_GID = "icoframes-note"


@own_keywords(draws="scatter", sets=("x", "y", "c", "label"))
def plot_raised_vs_cap(frame: pd.DataFrame, *, ax: Axes | None = None, **kw: Any) -> Axes:
    """Scatter raised against hard cap in USD on log-log axes, coloured by ``reached_soft_cap``.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``raised``, ``hard_cap_usd`` and ``reached_soft_cap``, as in
        ``icoframes.compute_features(tables, rates=...)`` joined with ``raised`` (the
        ICOs' ``raised`` column; ``features`` output has ``log_raised``, which is
        used when ``raised`` is absent). One row per ICO: an ``id`` or ``ico_id``
        (column or ``id`` index level) that occurs more than once, as in features of
        several snapshot days, is refused (InvalidParameter, saying how to select one day).
    ax : matplotlib Axes, optional, keyword-only
        Drawn on; a new figure's Axes when None.
    **kw
        Styling forwarded to ``Axes.scatter`` (``s``, ``alpha``, ``marker``...).
        A keyword that is neither the plot's nor a style of matplotlib's ``Axes.scatter``
        is refused before drawing (InvalidParameter, with a "did you mean": ``colour``
        for ``color``), as is one the plot sets itself (``label``, ``c``).

    Returns
    -------
    matplotlib.axes.Axes
        Three groups (soft cap reached, not reached, unknown), the line
        raised = hard cap, and a note counting the ICOs that could not be
        placed (raised or the USD hard cap unknown or not positive).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> f = pd.DataFrame({"raised": [1e6, 5e6, np.nan], "hard_cap_usd": [2e6, 4e6, 1e6],
    ...                   "reached_soft_cap": pd.array([False, True, None], dtype="boolean")})
    >>> ax = plot_raised_vs_cap(f)
    >>> [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-note"]
    ['2 ICOs shown; 1 not placed (raised or USD hard cap unknown or not positive)']
    """
    check_frame(frame, "frame")
    # its points and counts are ICOs: features of several snapshot days hold each once a day
    one_row_per_ico(frame, "plot_raised_vs_cap", "frame", ids=("id", "ico_id"))
    if "raised" in frame.columns:
        raised = frame["raised"].to_numpy(dtype=np.float64, na_value=np.nan)
    elif "log_raised" in frame.columns:
        raised = np.exp(frame["log_raised"].to_numpy(dtype=np.float64, na_value=np.nan))
    else:
        raise InvalidParameter("frame needs a raised (or log_raised) column")
    for name in ("hard_cap_usd", "reached_soft_cap"):
        if name not in frame.columns:
            raise InvalidParameter(f"frame needs a {name} column: "
                                   "icoframes.compute_features(tables, rates=...) computes it")
    cap = frame["hard_cap_usd"].to_numpy(dtype=np.float64, na_value=np.nan)
    reached = frame["reached_soft_cap"].astype("boolean")
    placed = (raised > 0) & (cap > 0)  # NaN compares False
    ax = get_axes(ax)
    kw.setdefault("s", 12)
    kw.setdefault("alpha", 0.6)
    for label, value, colour in _GROUPS:
        member = reached.isna().to_numpy() if value is None else \
            reached.fillna(not value).to_numpy(dtype=bool) == value
        show = placed & member
        style = {"color": colour, **kw}
        ax.scatter(cap[show], raised[show], label=f"{label} ({int(show.sum()):,})", **style)
    if placed.any():
        low = float(min(cap[placed].min(), raised[placed].min()))
        high = float(max(cap[placed].max(), raised[placed].max()))
        ax.plot([low, high], [low, high], color="0.3", linewidth=1, linestyle="--",
                label="raised = hard cap")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("hard cap (USD)")
    ax.set_ylabel("raised (USD)")
    ax.legend(loc="lower right", fontsize="small")
    not_placed = len(frame) - int(placed.sum())
    ax.text(0.02, 0.97, f"{int(placed.sum()):,} ICOs shown; {not_placed:,} not placed "
            "(raised or USD hard cap unknown or not positive)", transform=ax.transAxes,
            ha="left", va="top", fontsize="small", color="0.25", gid=_NOTE_GID,
            bbox={"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "0.8",
                  "alpha": 0.85})
    return ax

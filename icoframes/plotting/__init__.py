"""Quick-look plots of the ``icos`` frame and of snapshot histories.

Every helper follows the pandas/seaborn convention: it takes a frame, draws on
the Axes passed as ``ax`` (or on a new figure from :func:`matplotlib.pyplot.subplots`),
returns that Axes, forwards styling keywords and never calls ``plt.show()``.
pyplot is imported only when a plot is drawn, so importing :mod:`icoframes`
neither loads matplotlib nor picks a backend.

Missing values are common in ICO data (most ICOs never publish what they raised),
so each plot states on the chart how many rows it could not show instead of
dropping them silently.

Modules: :mod:`._axes` (checks, USD axis, notes), :mod:`._bins` (bin edges),
:mod:`._groups` (one row per group), :mod:`.scores`, :mod:`.raised`,
:mod:`.timeline`, :mod:`.flow` (statuses over snapshots), :mod:`.money` (raised against
hard cap in USD).
"""

from __future__ import annotations

from ._axes import format_usd
from .flow import plot_status_flow
from .money import plot_raised_vs_cap
from .raised import plot_raised
from .scores import plot_scores
from .timeline import FREQUENCIES, plot_timeline

__all__ = [
    "FREQUENCIES",
    "format_usd",
    "plot_raised",
    "plot_raised_vs_cap",
    "plot_scores",
    "plot_status_flow",
    "plot_timeline",
]

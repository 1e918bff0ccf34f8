"""What every plot shares: argument checks, the USD axis, the note box, the empty Axes.

pyplot is imported inside :func:`get_axes`, only when a plot is drawn, so
importing :mod:`icoframes.plotting` neither loads matplotlib's pyplot nor picks a
backend.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import numpy as np
import pandas as pd

from ..api.params import closest
from ..errors import InvalidParameter, UnknownName, WrongType, checked_keywords, quoted
from ..numerals import as_integer, did_you_mean_number
from ..snapshotdays import one_row_per_ico

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis

__all__ = [
    "NOTE_GID",
    "OTHER_COLOR",
    "UNKNOWN_COLOR",
    "add_note",
    "check_frame",
    "check_icos",
    "check_top",
    "column",
    "datetime_column",
    "decade_limits",
    "draw_empty",
    "format_usd",
    "get_axes",
    "headroom",
    "numeric_column",
    "own_keywords",
    "usd_axis",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")


# What Axes.bar takes beyond its signature and its bars' properties (its "Other Parameters")
_BAR_KEYWORDS = frozenset({"tick_label", "xerr", "yerr", "ecolor", "capsize", "error_kw", "log"})


@functools.cache
def _styles(draws: str) -> frozenset[str]:
    """Every keyword matplotlib's ``Axes.<draws>`` takes: its parameters, its artist's
    properties and their aliases (``lw``, ``ec``), as matplotlib itself lists them."""
    from matplotlib.artist import ArtistInspector
    from matplotlib.axes import Axes
    from matplotlib.collections import PathCollection
    from matplotlib.patches import Rectangle

    inspector = ArtistInspector(Rectangle if draws == "bar" else PathCollection)
    names = {*inspector.get_setters(), *(a for more in inspector.aliasd.values() for a in more)}
    names.update(n for n, p in inspect.signature(getattr(Axes, draws)).parameters.items()
                 if p.kind is not inspect.Parameter.VAR_KEYWORD)
    return frozenset((names | (_BAR_KEYWORDS if draws == "bar" else set()))
                     - {"self", *_NOT_PASSED})


# Keywords matplotlib's Axes.bar or Axes.scatter takes that would break the plot: why not
_NOT_PASSED = {
    "data": "the plot draws the frame it is given; with data= matplotlib would read the "
            "plot's arrays as column names",
    "orientation": "its bars stand upright, its axes and labels are laid out for them",
}
# Words for the figure or its Axes, not for the bars (a "did you mean" among the styles
# would name a false friend: figsize 'figure', xlabel 'label', grid 'gid'): how to do it
_FIGURE_WORDS = {"figsize": "figsize=...", "dpi": "dpi=...", "tight_layout": "layout='tight'"}
_AXES_CALLS = {"title": "ax.set_title(...)", "xlabel": "ax.set_xlabel(...)",
               "ylabel": "ax.set_ylabel(...)", "xlim": "ax.set_xlim(...)",
               "ylim": "ax.set_ylim(...)", "xticks": "ax.set_xticks(...)",
               "yticks": "ax.set_yticks(...)", "grid": "ax.grid(True)"}


def _elsewhere(plot: str, key: str) -> str | None:
    """How to get what ``key`` (a figure or Axes word) asks for, or None."""
    if key in _FIGURE_WORDS:
        return (f"make the figure first and draw on its Axes: "
                f"fig, ax = plt.subplots({_FIGURE_WORDS[key]}); {plot}(..., ax=ax)")
    if key in _AXES_CALLS:
        return f"set it on the Axes the plot returns: ax = {plot}(...); {_AXES_CALLS[key]}"
    if key == "fontsize":  # the plot's texts are sized relative to the font size
        return (f"its texts follow matplotlib's font size: "
                f"with plt.rc_context({{'font.size': ...}}): {plot}(...)")
    return None


def own_keywords(*, draws: str, sets: tuple[str, ...]
                 ) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """A plot refusing, before drawing, a keyword that is neither its own nor a style of
    what it draws with matplotlib's ``Axes.<draws>`` (``"bar"`` or ``"scatter"``).

    The plot's own keywords are its named parameters (its data too: ``plot_raised(icos=f)``);
    the others go to matplotlib as styles, where a misspelled one failed only while drawing
    ("Rectangle.set() got an unexpected keyword argument") and one the plot passes itself
    (``sets``: ``label``, the bars' places) with "got multiple values". Both are an
    InvalidParameter saying why, with a "did you mean" among the plot's keyword-only
    options (``logscale``: ``log``) or the styles.
    """
    def wrap(plot: Callable[_P, _R]) -> Callable[_P, _R]:
        named = {name: p.kind for name, p in inspect.signature(plot).parameters.items()
                 if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                               inspect.Parameter.KEYWORD_ONLY)}
        # the options beside the data, which a refusal lists (the data is given first)
        own = [name for name, kind in named.items() if kind is inspect.Parameter.KEYWORD_ONLY]

        @functools.wraps(plot)
        def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            if len(args) > 1:  # plot(icos, ax): Python's bare TypeError named no ax=
                raise WrongType(f"{plot.__name__}() takes 1 positional argument (its data) but "
                                f"{len(args)} were given: give the Axes as ax= "
                                f"({plot.__name__}(..., ax=ax)) and the options by name")
            styles = {key: value for key, value in kwargs.items() if key not in named}
            for key in styles:  # never the value: it may be a secret under a wrong name
                _check_style(plot.__name__, key, own, draws, sets)
            if draws == "bar" and styles:  # lw= beside the plot's own linewidth: one style
                kwargs = {**{k: v for k, v in kwargs.items() if k in named},  # type: ignore[assignment]
                          **_bar_styles(plot.__name__, styles)}
            return plot(*args, **kwargs)
        return checked_keywords(call)  # and an argument given twice (icos=, ax=): refused
    return wrap


def _bar_styles(plot: str, styles: dict[str, object]) -> dict[str, object]:
    """``styles`` under the names the plot's own bar styles have (``lw``: ``linewidth``),
    as Axes.bar would read them, so one given by alias replaces the plot's own."""
    from matplotlib.cbook import normalize_kwargs
    from matplotlib.patches import Patch

    try:
        return dict(normalize_kwargs(styles, Patch))
    except TypeError as e:  # "Got both 'linewidth' and 'lw', which are aliases of one another"
        raise InvalidParameter(f"{plot}(): {e}; give one of them") from None


def _check_style(plot: str, key: str, own: list[str], draws: str, sets: tuple[str, ...]) -> None:
    styles = _styles(draws)
    what = "bars" if draws == "bar" else "points"
    if key in sets:
        raise InvalidParameter(
            f"{key} is set by {plot}() itself, from the data or for its legend, not a style "
            f"of its {what} it can pass on; its own keywords: {', '.join(own)}")
    if key in styles:
        return
    if key in _NOT_PASSED and (key == "data" or draws == "bar"):
        raise InvalidParameter(
            f"{key} is a keyword of matplotlib's Axes.{draws} that {plot}() does not pass on: "
            f"{_NOT_PASSED[key]}; its own keywords: {', '.join(own)}")
    where = (f"{key} is not a keyword of {plot}() nor a style of its {what} "
             f"(matplotlib's Axes.{draws})")
    advice = _elsewhere(plot, key)
    if advice:
        raise InvalidParameter(f"{where}; {advice}")
    # among matplotlib's many properties, only a near spelling: 'normalise' shares the letters
    # of 'antialiased' (0.6 alike), not its meaning
    close = (closest(key, own) or [name for name in own if len(name) > 2 and key.startswith(name)]
             or closest(key, styles - set(sets), cutoff=0.7))
    hint = (f"; did you mean {' or '.join(map(repr, close))}?" if close
            else f"; its own keywords: {', '.join(own)}")
    raise InvalidParameter(f"{where}{hint}")


EMPTY_MESSAGE = "no ICOs to plot"
#: gid of the text notes every plot writes on its Axes (how many rows it could not show).
NOTE_GID = "icoframes-note"
OTHER_COLOR = "0.45"
UNKNOWN_COLOR = "0.7"
_SUFFIXES = ("K", "M", "B", "T")


@checked_keywords
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
        infinite or not a number (a bool or a string is none).

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
    if isinstance(x, bool | np.bool_ | str | bytes):  # True is no $1, "5" no amount
        return ""
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



def get_axes(ax: Axes | None) -> Axes:
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
        return ax
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise WrongType(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    return ax


def check_frame(icos: object, name: str = "icos") -> None:
    """``icos`` (the parameter ``name``) is a DataFrame; a ``Tables`` given for ``icos``
    gets a hint (its ``icos`` table is what the plots of ICOs take)."""
    if not isinstance(icos, pd.DataFrame):
        hint = ("; did you mean tables.icos?" if name == "icos" and isinstance(
            getattr(icos, "icos", None), pd.DataFrame) else "")
        raise WrongType(f"{name} must be a pandas DataFrame, got {type(icos).__name__}{hint}")


def check_icos(icos: pd.DataFrame, who: str) -> None:
    """``icos`` as the plots of the ``icos`` table take it: a DataFrame holding each ICO
    once (a :func:`icoframes.read_snapshots` frame of several days is refused, its ICOs
    being once per day: :func:`~icoframes.snapshotdays.one_row_per_ico`)."""
    check_frame(icos)
    one_row_per_ico(icos, who)


def check_top(top: object) -> int:
    """``top`` as the positive integer it means ("3" is 3), or InvalidParameter."""
    number = as_integer(top)  # np.timedelta64(5) is no top 5
    if number is None or number < 1:
        raise InvalidParameter(f"top must be a positive integer, got {quoted(top)}"
                               + did_you_mean_number(top, low=1))  # "5", 5.0: 5
    return number


def column(icos: pd.DataFrame, name: str) -> pd.Series:
    if name not in icos.columns:
        raise UnknownName(f"icos has no column {name!r}; the icos table must include it")
    col = icos[name]
    if isinstance(col, pd.DataFrame):
        raise InvalidParameter(f"icos has more than one column named {name!r}")
    return col


def numeric_column(icos: pd.DataFrame, name: str) -> np.ndarray:
    col = column(icos, name)
    if pd.api.types.is_bool_dtype(col) or not pd.api.types.is_numeric_dtype(col):
        raise WrongType(f"column {name!r} must be numeric (float64), got dtype {col.dtype}")
    return col.to_numpy(dtype="float64", na_value=np.nan)


def datetime_column(icos: pd.DataFrame, name: str) -> pd.Series:
    col = column(icos, name)
    if not pd.api.types.is_datetime64_any_dtype(col):
        raise WrongType(f"column {name!r} must be a datetime column, got dtype {col.dtype}")
    return col


def headroom(ax: Axes, highest: float) -> None:
    # Keep the top of the Axes free for the note and legend.
    ax.set_ylim(0, max(float(highest), 1.0) * 1.3)


def add_note(ax: Axes, text: str) -> None:
    ax.text(0.02, 0.97, text, transform=ax.transAxes, ha="left", va="top",
            fontsize="small", color="0.25", gid=NOTE_GID,
            bbox={"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "0.8",
                  "alpha": 0.85})


def draw_empty(ax: Axes, note: str | None) -> None:
    # Ticks on an empty Axes would only show matplotlib's placeholder 0-1 range.
    ax.set_xticks([])
    ax.set_yticks([])
    ax.text(0.5, 0.5, EMPTY_MESSAGE, transform=ax.transAxes, ha="center", va="center",
            color="0.4", gid=NOTE_GID)
    if note:
        add_note(ax, note)


def usd_axis(axis: Axis, *, log: bool) -> None:
    """Money on ``axis`` reads $10K, $1M, ...; a log axis gets a labelled tick at every decade.

    A log axis spanning under two decades also labels the 2x and 5x ticks, since
    one or two decade ticks alone do not let a reader place a bar. Call it after
    setting the axis limits.
    """
    from matplotlib import ticker

    axis.set_major_formatter(ticker.FuncFormatter(lambda x, _pos: format_usd(x)))
    if log:
        lo, hi = sorted(axis.get_view_interval())
        few = lo > 0 and math.log10(hi / lo) < 2

        class InView(ticker.LogLocator):
            # LogLocator also returns the ticks just outside the view; tick labels
            # should list what a reader sees, no more.
            # matplotlib's stubs declare Sequence[float], but LogLocator returns an ndarray
            def tick_values(self, vmin: float, vmax: float) -> np.ndarray:  # type: ignore[override]
                ticks = np.asarray(super().tick_values(vmin, vmax))
                low, high = sorted((vmin, vmax))
                return ticks[(ticks >= low * (1 - 1e-9)) & (ticks <= high * (1 + 1e-9))]

        # numticks high enough that decades are never thinned out to every other one
        axis.set_major_locator(InView(base=10, subs=(1, 2, 5) if few else (1,), numticks=50))
        axis.set_minor_locator(ticker.LogLocator(base=10, subs=tuple(range(2, 10)), numticks=50))
        axis.set_minor_formatter(ticker.NullFormatter())


def decade_limits(lo: float, hi: float) -> tuple[float, float]:
    """The whole decades around ``[lo, hi]`` (both > 0), so both ends of a log axis are labelled.

    Examples
    --------
    >>> decade_limits(2.1e6, 1.8e8)
    (1000000.0, 1000000000.0)
    >>> decade_limits(1e6, 1e7)
    (1000000.0, 10000000.0)
    """
    return 10.0 ** math.floor(math.log10(lo) + 1e-9), 10.0 ** math.ceil(math.log10(hi) - 1e-9)

"""Comparing groups (``by=``): the top groups by name, the rest as "other", one row each.

Overlaid histograms of groups of very different sizes hide the small groups
under the large one, and the leftover "other" group is usually the largest of
all. So each group gets its own row (a ridgeline): its histogram as the share
of the group's ICOs per bin, on one scale shared by every row, so shapes
compare directly and no group can swamp another. Named groups come first,
ranked by size; "other" and "unknown" are drawn apart below a rule, in grey.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import InvalidParameter, did_you_mean, quoted
from ._axes import OTHER_COLOR, UNKNOWN_COLOR, column

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["ROW_HEIGHT", "Groups", "draw_group_rows", "group_labels", "refuse_styles"]

#: Height of the tallest bar of all rows, in row units (rows are 1 apart).
ROW_HEIGHT = 0.85
# Extra space between the named rows and the "other"/"unknown" rows below them.
_APART = 0.45


@dataclass(frozen=True)
class Groups:
    """Every row's group label, the drawing order, and the leftover group."""

    labels: np.ndarray
    order: list[str]
    other: str | None
    n_other: int  # how many groups "other" holds


def refuse_styles(who: str, style: dict[str, object]) -> None:
    """Style keywords given with ``by=``: each group is drawn in rows and a colour of its
    own, so the bars' style would be ignored without a word; refused before drawing."""
    if style:
        names = ", ".join(sorted(style))
        raise InvalidParameter(f"{names} cannot style {who}() with by=: each group is drawn "
                               "in rows and a colour of its own; leave by= out to style the "
                               "bars, or restyle the returned Axes' artists")


def group_labels(icos: pd.DataFrame, by: object, values: np.ndarray, top: int) -> Groups:
    """Label every row with its group for ``by``.

    Groups are ranked by how many rows have a usable value (not NaN in
    ``values``), ties by name, so a large group with nothing to plot does not
    take one of the ``top`` named slots. A single leftover group keeps its name.
    """
    if not isinstance(by, str):
        raise InvalidParameter(f"by must be a column name (str), got {quoted(by)}")
    if by not in icos.columns:
        raise InvalidParameter(f"by={quoted(by)} is not a column of icos"
                               f"{did_you_mean(by, map(str, icos.columns))}")
    if by in ("ico_score", "raised"):
        raise InvalidParameter(f"by={quoted(by)} is the plotted value; choose a category column")
    col = column(icos, by)
    if col.dtype == object and col.map(lambda v: isinstance(v, (list, tuple, set, dict))).any():
        raise InvalidParameter(f"by={quoted(by)} holds lists; choose a column with one value "
                               "per ICO")

    missing = col.isna().to_numpy()
    # A value spelled "unknown" means the same as a missing one, so they share a group.
    labels = np.array(["unknown" if m else str(v) for v, m in zip(col, missing, strict=True)],
                      dtype=object)
    usable = ~np.isnan(values)
    named = labels[usable & (labels != "unknown")]
    counts = pd.Series(named, dtype=object).value_counts()
    counts = counts.sort_index().sort_values(ascending=False, kind="stable")
    shown = [str(s) for s in counts.index[:top]]
    rest = list(counts.index[top:])
    if len(rest) == 1:
        shown += [str(rest[0])]
        rest = []
    order = list(shown)
    other = None
    if rest:
        other = "other" if "other" not in order else "all others"
        labels = np.where(np.isin(labels, rest), other, labels)
        order.append(other)
    if (labels[usable] == "unknown").any():
        order.append("unknown")
    return Groups(labels, order, other, len(rest))


def draw_group_rows(
    ax: Axes,
    values: np.ndarray,
    usable: np.ndarray,
    edges: np.ndarray,
    groups: Groups,
    label: Callable[[str, np.ndarray], str],
    *,
    mark: Callable[[np.ndarray], float] | None = None,
) -> dict[str, float]:
    """Draw one row per group, top to bottom; return each drawn group's baseline.

    ``label(name, group_values)`` names the row on the y-axis; ``mark``, if
    given, places a short black tick in each row (e.g. at the group's median).
    """
    drawn = [(name, usable & (groups.labels == name)) for name in groups.order]
    drawn = [(name, mask) for name, mask in drawn if mask.any()]  # no empty rows
    shares = {name: np.histogram(values[mask], bins=edges)[0] / mask.sum()
              for name, mask in drawn}
    tallest = max(float(s.max()) for s in shares.values())
    scale = ROW_HEIGHT / tallest if tallest > 0 else 0.0

    apart = {groups.other, "unknown"}
    bases: dict[str, float] = {}
    y = 0.0
    for name, _ in reversed(drawn):  # build from the bottom up
        if bases and name not in apart and all(n in apart for n in bases):
            y += _APART  # first named row above the grey ones
        bases[name] = y
        y += 1.0
    named = 0
    ticks, tick_labels = [], []
    for name, mask in drawn:
        base = bases[name]
        if name == "unknown":
            style: dict[str, Any] = {"color": UNKNOWN_COLOR, "hatch": "///"}
        elif name == groups.other:
            style = {"color": OTHER_COLOR}
        else:
            style = {"color": f"C{named % 10}"}
            named += 1
        text = label(name, values[mask])
        ax.stairs(base + shares[name] * scale, edges, baseline=base, fill=True, alpha=0.75,
                  linewidth=0, label=text, **style)
        ax.axhline(base, color="0.8", linewidth=0.6, zorder=0)
        if mark is not None:
            at = mark(values[mask])
            ax.plot([at, at], [base, base + ROW_HEIGHT], color="black", linewidth=1.2,
                    solid_capstyle="butt", label=f"_{name} median")
        ticks.append(base + 0.3)
        tick_labels.append(text)
    if any(n in apart for n in bases) and any(n not in apart for n in bases):
        rule = max(bases[n] for n in bases if n in apart) + 1.0 + _APART / 2
        ax.axhline(rule, color="0.3", linewidth=0.8, linestyle=(0, (4, 3)))
    ax.set_yticks(ticks, tick_labels)
    ax.tick_params(axis="y", length=0)
    ax.set_ylim(-0.15, y * 1.1 + 0.25)  # room for the note above the top row
    ax.set_ylabel(f"share of each group per bin (tallest: {tallest:.0%})")
    return bases

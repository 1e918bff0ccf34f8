"""How :func:`icoframes.changes` compares a value of two days, and writes it in an event.

Values are compared as pandas arrays (a boolean or pandas 2.2 text column holds ``pd.NA``,
which numpy's ``==`` cannot turn into a bool), lists item by item; missing on both sides is
the same. An amount is written with its unit (``100 ETH``), so two amounts in different
units never read as one number.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd

__all__ = ["as_text", "plain_units", "same_values", "with_unit"]


def same_values(old: pd.Series, new: pd.Series) -> np.ndarray:
    """Equal values, or missing on both sides."""
    both_missing = old.isna().to_numpy() & new.isna().to_numpy()
    if old.dtype == object:  # lists (markets, ...), or text in pandas 2.2's object dtype
        equal = np.array([_equal(a, b) for a, b in zip(old, new, strict=True)], dtype=bool)
    else:  # (on the arrays: pandas 2.2's string or boolean values hold pd.NA, which numpy's
        # == of their object arrays cannot turn into a bool)
        equal = np.asarray(pd.array(old.array == new.array, dtype="boolean").fillna(False),
                           dtype=bool)
    return equal | both_missing


def _equal(a: object, b: object) -> bool:
    """Two values of an object column: lists item by item, scalars by ``==``; NA is unequal."""
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and a == b
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # pd.NA == x is NA; missing on both sides is handled apart
        return False


def as_text(values: pd.Series) -> list[object]:
    """Values as text for the old/new columns; missing stays missing."""
    out: list[object] = []
    for value in values:
        if isinstance(value, list):
            out.append(", ".join(map(str, value)))
        elif value is None or value is pd.NaT or (not isinstance(value, str) and pd.isna(value)):
            out.append(np.nan)
        elif isinstance(value, pd.Timestamp | dt.datetime | np.datetime64):
            out.append(pd.Timestamp(value).strftime("%Y-%m-%d %H:%M:%S"))
        elif isinstance(value, float | np.floating):
            out.append(f"{float(value):.15g}")
        else:
            out.append(str(value))
    return out


def with_unit(texts: list[object], units: pd.Series) -> list[object]:
    """Amounts as text with their units (``100 ETH``); one without a unit as its number."""
    return [text if isinstance(text, float) or not isinstance(unit, str) or not unit.strip()
            else f"{text} {unit}" for text, unit in zip(texts, units, strict=True)]


def plain_units(units: pd.Series) -> pd.Series:
    """Units as compared and written: stripped, a blank one missing (``"ETH "`` is ``ETH``,
    ``""`` no unit, as :func:`with_unit` writes it), so no event reads ``100 -> 100``."""
    return units.astype(object).map(lambda u: (u.strip() or np.nan) if isinstance(u, str) else u)

"""What of a snapshot tree a reader reads: the columns of a table (:func:`table_columns`)
and the days from a start to an end (:func:`days_between`), so that its memory follows what
is asked, not the tree's length and width.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .errors import InvalidParameter, UnknownName, did_you_mean, quoted
from .metadata import ATTRS_KEY, ColumnDescriptions
from .moments import as_naive_utc
from .schema import TableSchema

__all__ = ["day_bounds", "days_between", "described", "table_columns"]


def table_columns(schema: TableSchema, columns: Iterable[str] | str | None) -> list[str] | None:
    """The columns of ``schema`` to read, in its order, its key among them (None: all); an
    unknown one refused (UnknownName with the closest); ``snapshot_date`` comes anyway."""
    if columns is None:
        return None
    given = [columns] if isinstance(columns, str) else columns
    if not isinstance(given, Iterable) or isinstance(given, bytes | bytearray | Mapping):
        raise InvalidParameter(f"columns must be a name or names of {schema.name} columns "
                               f"(str), got {quoted(columns)}")
    asked = set()
    for name in given:
        if not isinstance(name, str):  # as kinds says it: 5 names no column, nor could it
            raise UnknownName(f"{quoted(name)} is not a column of the {schema.name} table: a "
                              f"column is a name (str){did_you_mean(str(name), schema.names)}")
        if name != "snapshot_date" and name not in schema.names:
            raise UnknownName(f"{quoted(name)} is not a column of the {schema.name} table"
                              f"{did_you_mean(str(name), schema.names)}")
        asked.add(name)
    return [c for c in schema.names if c in asked or c in schema.key]


def day_bounds(start: Any, end: Any) -> tuple[pd.Timestamp | None, pd.Timestamp | None]:
    """``start`` and ``end`` as UTC days (None: open), checked before any file is read: a
    value that is no date, or ``start`` after ``end`` (InvalidParameter)."""
    first, last = (None if value is None else as_naive_utc(value, name).normalize()
                   for value, name in ((start, "start"), (end, "end")))
    if first is not None and last is not None and first > last:
        raise InvalidParameter(f"start ({first:%Y-%m-%d}) is after end ({last:%Y-%m-%d}): "
                               "no snapshot day lies between them")
    return first, last


def days_between(folders: pd.Series, start: Any, end: Any) -> pd.Series:
    """The snapshot folders (:func:`snapshot_folders`) of the days from ``start`` to ``end``
    (each included, None: open), read as date arguments (their UTC days)."""
    first, last = day_bounds(start, end)
    days = pd.DatetimeIndex(folders.index)
    kept = np.ones(len(days), dtype=bool)
    if first is not None:
        kept &= np.asarray(days >= first)
    if last is not None:
        kept &= np.asarray(days <= last)
    return folders[kept]


def described(frame: pd.DataFrame, schema: TableSchema) -> pd.DataFrame:
    """``frame`` whose ``attrs["columns"]`` describes the columns it holds, and those alone:
    the files' descriptions when read (a window of no day: the schema's)."""
    read = frame.attrs.get(ATTRS_KEY)
    every = read if isinstance(read, Mapping) and read else ColumnDescriptions.of(
        schema.arrow_schema())
    frame.attrs[ATTRS_KEY] = ColumnDescriptions(
        {c: info for c, info in every.items() if c in frame.columns})
    return frame

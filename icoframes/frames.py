"""Frames checked against, and read from Arrow by, the declared schema of :mod:`icoframes.schema`.

The one place a DataFrame is held to a table's exact columns and dtypes
(:func:`check_frame`) and an Arrow table turned into such a frame
(:func:`frame_from_arrow`): :class:`icoframes.tables.Tables`, the cache and the
exports' readers go through both.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from .errors import ExportMismatch, InvalidParameter, WrongType
from .schema import Column, TableSchema
from .textdtype import is_text_dtype, text_from_arrow

__all__ = ["ADDED_COLUMNS", "check_frame", "frame_from_arrow", "with_added_columns"]

#: Columns added to a table since icoframes 0.1.0 (table -> names): a file written before
#: them (an export from before an upgrade) reads each of them as missing.
ADDED_COLUMNS: dict[str, tuple[str, ...]] = {"roadmap": ("precision",), "problems": ("reason",),
                                             "icos": ("fetched_status",)}


def check_frame(table: TableSchema, frame: object) -> None:
    """Raise InvalidParameter (a ValueError) unless ``frame`` has exactly the columns and
    dtypes of ``table``: WrongType for no DataFrame at all."""
    if not isinstance(frame, pd.DataFrame):
        raise WrongType(f"{table.name}: expected a DataFrame, got {type(frame).__name__}")
    if list(frame.columns) != table.names:
        raise InvalidParameter(f"{table.name}: columns {list(frame.columns)} != schema "
                               f"{table.names}")
    dtypes = frame.dtypes.to_numpy()  # once: each access of frame.dtypes builds a Series
    wrong = {
        c.name: str(dtype)
        for c, dtype in zip(table.columns, dtypes, strict=True)
        if dtype != c.dtype and not (c.kind == "text" and is_text_dtype(dtype))
    }
    if wrong:
        raise InvalidParameter(f"{table.name}: columns with undeclared dtypes: {wrong}")



def frame_from_arrow(schema: TableSchema, table: pa.Table, *, source: str) -> pd.DataFrame:
    """An Arrow table as a frame with exactly the columns and dtypes of ``schema``.

    Strict: a table with other columns (or in another order) or of other types
    is refused rather than cast, since a cast would hide a file of other types
    (float ids truncated, text from ints). Conversion is driven by the schema,
    not by the pandas metadata in the table, so a file written under another
    pandas version reads the same.

    Parameters
    ----------
    schema : TableSchema
        The declared table, e.g. ``schema.LIST``.
    table : pyarrow.Table
        Typically read from a Parquet file written with ``schema.arrow_schema()``.
    source : str
        Where the table comes from (a path), for error messages.

    Raises
    ------
    ExportMismatch
        A ``ValueError`` too: the columns or their types differ from the schema, or an int
        or bool column holds nulls.

    Examples
    --------
    >>> from icoframes.schema import FILTERS
    >>> arrow = pa.table({"filter": ["type"], "id": [3], "name": ["ICO"]})
    >>> frame_from_arrow(FILTERS, arrow, source="example").dtypes["id"]
    Int64Dtype()
    >>> floats = arrow.set_column(1, "id", pa.array([3.0]))
    >>> frame_from_arrow(FILTERS, floats, source="x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    icoframes.errors.ExportMismatch: x: columns of other types than the filters schema: {'id'...
    """
    if table.schema.names != schema.names:
        raise ExportMismatch(_other_columns(schema, table.schema, source))
    wrong = {f.name: str(f.type) for f, want in zip(table.schema, schema.arrow_schema(),
                                                    strict=True)
             if _plain(f.type) != _plain(want.type)}
    if wrong:
        raise ExportMismatch(f"{source}: columns of other types than the {schema.name} "
                             f"schema: {wrong}")
    columns = {c.name: _from_arrow(c, table.column(c.name), source) for c in schema.columns}
    frame = pd.DataFrame(columns)
    check_frame(schema, frame)
    return frame


def _other_columns(schema: TableSchema, arrow: pa.Schema, source: str) -> str:
    """Why a file of schema ``arrow`` is not ``schema``'s table: what it adds, lacks, or
    holds in another order, named first: never the whole lists (fifty names each)."""
    names = arrow.names
    index = _pandas_index(arrow)
    extra = [n for n in names if n not in schema.names and n not in index]
    missing = [n for n in schema.names if n not in names]
    if index and not extra and set(missing) <= set(ADDED_COLUMNS.get(schema.name, ())):
        # pandas' to_parquet writes an index other than 0, 1, 2... (after sort_values, a
        # filter, set_index) as a column: the table's own columns are all there (an older
        # export's too, which lacks only columns added since)
        # reset_index() puts the index first: the table's order only when it led the table
        undo = ("the frame" if not set(index) & set(schema.names) else "frame.reset_index()"
                if schema.names[:len(index)] == index else "frame.reset_index()[columns], "
                f"columns in the {schema.name} table's order (as read_export gives them),")
        return (f"{source}: the {schema.name} table with a pandas index saved as a column "
                f"({', '.join(index)}); save {undo} with to_parquet(path, index=False)")
    said = [*([f"not in it: {_few(extra)}"] if extra else []),
            *([f"missing: {_few(missing)}"] if missing else []),
            *([f"a saved pandas index: {_few(index)} (to_parquet(path, index=False) leaves "
               "it out)"] if index else []),
            *([] if extra or missing or index else ["in another order"])]
    shown = f"columns {names}" if len(names) <= 5 else f"its {len(names)} columns"
    return (f"{source}: {shown} differ from the {schema.name} schema ({'; '.join(said)}); "
            "the file was written by another version, or changed since")


def _few(names: list[str]) -> str:
    """Names as a message lists them: five at most, then how many more."""
    return f"{names}" if len(names) <= 5 else f"{names[:5]} and {len(names) - 5} more"


def _pandas_index(arrow: pa.Schema) -> list[str]:
    """The columns a pandas index was saved as, as pandas' metadata names them
    (``index_columns``; a RangeIndex is kept as metadata alone). A file with that metadata
    is decided by it alone: a column of the frame may be called ``__index_level_0__`` too
    (pandas reads it back so). A file without it (re-saved by pyarrow without metadata,
    Polars, DuckDB) has only the name pandas gave an unnamed index level to go by."""
    try:
        saved = json.loads((arrow.metadata or {})[b"pandas"])["index_columns"]
    except (KeyError, TypeError, ValueError):  # no pandas metadata, or not of pandas' shape
        return [n for n in arrow.names if re.fullmatch(r"__index_level_\d+__", n)]
    named = [n for n in saved if isinstance(n, str)] if isinstance(saved, list) else []
    return [n for n in arrow.names if n in named]


def _plain(kind: pa.DataType) -> pa.DataType:
    """The type with string width left out: string and large_string hold the same values."""
    if pa.types.is_large_string(kind):
        return pa.string()
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return pa.list_(_plain(kind.value_type))
    return kind


def _from_arrow(column: Column, data: pa.ChunkedArray, source: str) -> object:
    kind = column.kind
    if kind in ("int", "bool") and data.null_count:
        raise ExportMismatch(f"{source}: column {column.name} holds nulls but is declared {kind}")
    if kind == "text":
        return text_from_arrow(data.cast(column.arrow_type))
    if kind in ("Int", "utc"):
        # extension dtypes read Arrow themselves (pandas' protocol, absent from the stubs)
        from_arrow: Any = column.dtype
        return from_arrow.__from_arrow__(data.cast(column.arrow_type))
    if kind == "list":
        out = np.empty(len(data), dtype=object)
        for i, items in enumerate(data.to_pylist()):
            out[i] = [] if items is None else items
        return out
    dtype = column.dtype
    assert isinstance(dtype, np.dtype)  # the other kinds are NumPy dtypes
    values = data.to_numpy() if data.num_chunks else np.empty(0, dtype=dtype)
    return values.astype(dtype, copy=False)


def with_added_columns(schema: TableSchema, table: pa.Table) -> pa.Table:
    """``table`` written before columns of :data:`ADDED_COLUMNS` were added to ``schema``,
    with each of them as nulls of its type; any other table unchanged (and then checked
    strictly by :func:`frame_from_arrow`).

    Examples
    --------
    >>> from icoframes.schema import ROADMAP
    >>> old = pa.table({"ico_id": [1], "label": ["Q1 2018"], "date": pa.array([None],
    ...                 pa.timestamp("ms")), "description": ["launch"]})
    >>> with_added_columns(ROADMAP, old).column("precision").to_pylist()
    [None]
    """
    added = [n for n in schema.names
             if n in ADDED_COLUMNS.get(schema.name, ()) and n not in table.schema.names]
    if not added or [n for n in schema.names if n not in added] != table.schema.names:
        return table
    fields = schema.arrow_schema()
    for name in added:  # in the schema's order: each goes to its own place
        field = fields.field(name)
        table = table.add_column(schema.names.index(name), field,
                                 pa.nulls(len(table), field.type))
    return table

"""Column descriptions that travel with the data.

Every Parquet file icoframes writes carries, in the Arrow metadata of each
field, the column's ``description``, ``unit`` and ``source`` (its field in the
API spec), from :mod:`icoframes.schema` (:attr:`~icoframes.schema.Column.arrow_field`).
Frames read back from such files keep them in ``df.attrs["columns"]``, a
read-only mapping of column name to :class:`ColumnInfo`:

>>> import tempfile
>>> from icoframes.tables import Tables
>>> with tempfile.TemporaryDirectory() as out:
...     _ = Tables.empty().to_parquet(out)
...     icos = Tables.read_parquet(out).icos
>>> icos.attrs["columns"]["hard_cap"]
ColumnInfo(description='hard cap, in caps_unit', unit='caps_unit', source='finance.hard_cap')
>>> icos.attrs["columns"]["raised"].unit
'USD'

The mapping is immutable and shared by every frame derived from the one read
(pandas copies ``attrs`` on each operation: an immutable value costs nothing).
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple, NoReturn

import pandas as pd
import pyarrow as pa

from .schema import Column, Kind

__all__ = ["ATTRS_KEY", "ColumnDescriptions", "ColumnInfo", "describe_columns", "unreadable"]

#: The key of ``DataFrame.attrs`` that holds a frame's :class:`ColumnDescriptions`.
ATTRS_KEY = "columns"


class ColumnInfo(NamedTuple):
    """What a column holds: its meaning, its unit (``''`` when none) and its source field."""

    description: str
    unit: str
    source: str


class ColumnDescriptions(dict[str, ColumnInfo]):
    """Column name -> :class:`ColumnInfo`, read-only, in the order of the columns.

    A dict (so that pyarrow can store a frame's ``attrs`` as JSON) that refuses
    changes and is never copied.
    """

    __slots__ = ()

    @classmethod
    def of(cls, schema: pa.Schema) -> ColumnDescriptions:
        """The descriptions in an Arrow schema's field metadata (empty fields are left out)."""
        infos = {}
        for field in schema:
            meta = {k.decode(): v.decode() for k, v in (field.metadata or {}).items()}
            if meta:
                infos[field.name] = ColumnInfo(meta.get("description", ""),
                                               meta.get("unit", ""), meta.get("source", ""))
        return cls(infos)

    def _read_only(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("column descriptions are read-only; copy them with dict(...)")

    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __deepcopy__(self, memo: dict[int, Any]) -> ColumnDescriptions:
        return self  # immutable: pandas deep-copies attrs on every operation

    def __reduce__(self) -> tuple[type, tuple[dict[str, ColumnInfo]]]:
        return (type(self), (dict(self),))

    def frame(self) -> pd.DataFrame:
        """As a frame: one row per column, ``description``, ``unit`` and ``source``."""
        return pd.DataFrame(list(self.values()), index=pd.Index(list(self), name="column"),
                            columns=list(ColumnInfo._fields))


def describe_columns(frame: pd.DataFrame, schema: pa.Schema) -> pd.DataFrame:
    """``frame`` with the descriptions in ``schema``'s field metadata in ``attrs["columns"]``."""
    frame.attrs[ATTRS_KEY] = ColumnDescriptions.of(schema)
    return frame


#: What a cell holds when its raw value is neither readable nor missing, by kind; the
#: raw value is then a row of ``problems`` (missing values are not reported).
_UNREADABLE: Final[dict[Kind, str]] = {
    "int": "never: a record whose id cannot be read is left out (a problem of its table's id)",
    "Int": "<NA>, and a row of problems",
    "float": "NaN, and a row of problems",
    "bool": "False, and a row of problems",
    "text": "missing, and a row of problems (a boolean, a list or a map)",
    "datetime": "NaT, and a row of problems",
    "utc": "never: recorded by icoframes",
    "list": "the item is left out, and a row of problems",
}


def unreadable(column: Column) -> str:
    """What ``column`` holds where the raw value could not be read (the data dictionary's words).

    Examples
    --------
    >>> from icoframes.schema import ICOS
    >>> unreadable(ICOS.column("hard_cap"))
    'NaN, and a row of problems (also below 0)'
    >>> unreadable(ICOS.column("ico_score"))
    'NaN, and a row of problems (also outside 0-10)'
    >>> unreadable(ICOS.column("status"))
    'never: made by icoframes'
    """
    if column.source is None and column.kind != "utc":
        return "never: made by icoframes"
    if column.bounds is not None:
        low, high = column.bounds
        limits = f"below {low:g}" if high == float("inf") else f"outside {low:g}-{high:g}"
        return f"{_UNREADABLE[column.kind]} (also {limits})"
    return _UNREADABLE[column.kind]

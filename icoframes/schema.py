"""Columns and dtypes of every table, declared once.

This module is the single source of truth for the shape of every frame the
package returns: :mod:`icoframes.parse.profiles` builds columns in this order and casts
them to these dtypes, empty results are built from it, and Parquet files are
written and read back against it.

Kinds of column and their pandas dtypes:

==========  =====================================  =====================================
kind        pandas dtype                           meaning
==========  =====================================  =====================================
int         ``int64``                              identifier or position, never missing
Int         ``Int64`` (nullable)                   integer that may be missing
float       ``float64``                            number; NaN when absent or unreadable
bool        ``bool``                               True only where the API said true
text        ``str`` (pandas >= 3), else ``string``  text; missing when absent or ``''``
datetime    ``datetime64[ms]`` (naive)             the spec names no time zone
list        ``object`` holding ``list[str]``        always a list, empty when none
==========  =====================================  =====================================

Booleans: the API writes ``''`` both for "does not hold" and for "unknown", so
a boolean column is True only where the API said ``true`` and False otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa

__all__ = [
    "FILTERS",
    "LIST",
    "PROBLEMS",
    "TABLES",
    "TABLE_NAMES",
    "TEXT_DTYPE",
    "Column",
    "TableSchema",
    "describe",
    "empty_frame",
]

Kind = Literal["int", "Int", "float", "bool", "text", "datetime", "list"]

# pandas 3 has a dedicated default text dtype ("str", NaN as missing value);
# pandas 2 gets the closest equivalent, the opt-in StringDtype.
_PANDAS_MAJOR = int(pd.__version__.split(".")[0])
TEXT_DTYPE = pd.StringDtype(na_value=np.nan) if _PANDAS_MAJOR >= 3 else pd.StringDtype()


@dataclass(frozen=True)
class Column:
    """One column: name, kind (see module docs) and a short description."""

    name: str
    kind: Kind
    doc: str = ""

    @property
    def dtype(self):
        return _DTYPES[self.kind]

    @property
    def arrow_type(self) -> pa.DataType:
        return _ARROW[self.kind]


_DTYPES = {
    "int": np.dtype("int64"),
    "Int": pd.Int64Dtype(),
    "float": np.dtype("float64"),
    "bool": np.dtype("bool"),
    "text": TEXT_DTYPE,
    "datetime": np.dtype("datetime64[ms]"),
    "list": np.dtype("object"),
}

_ARROW = {
    "int": pa.int64(),
    "Int": pa.int64(),
    "float": pa.float64(),
    "bool": pa.bool_(),
    "text": pa.string(),
    "datetime": pa.timestamp("ms"),
    "list": pa.list_(pa.string()),
}


@dataclass(frozen=True)
class TableSchema:
    """A table: its name, its ordered columns and the columns that identify a row."""

    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    doc: str = ""

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def dtypes(self) -> dict[str, object]:
        return {c.name: c.dtype for c in self.columns}

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    def arrow_schema(self) -> pa.Schema:
        return pa.schema([pa.field(c.name, c.arrow_type, nullable=c.kind not in ("int", "bool"))
                          for c in self.columns])


def _cols(*specs: tuple[str, Kind] | tuple[str, Kind, str]) -> tuple[Column, ...]:
    return tuple(Column(*spec) for spec in specs)


_PEOPLE_COLUMNS = _cols(
    ("ico_id", "int", "id of the ICO"),
    ("position", "int", "0-based order of the person in the profile"),
    ("name", "text"),
    ("role", "text"),
    ("photo", "text", "photo URL"),
)

ICOS = TableSchema(
    "icos",
    _cols(
        ("id", "int", "ICO id"),
        ("status", "text", "ongoing, upcoming or past: the list status it was loaded under"),
        ("name", "text"),
        ("description", "text"),
        ("logo", "text", "logo URL"),
        ("premium", "bool"),
        ("scam", "bool", "marked as scam"),
        ("ico_score", "float", "ICO score"),
        ("platform", "text"),
        ("kyc", "bool", "conducts KYC on investors"),
        ("whitelist", "bool", "conducts whitelisting"),
        ("category", "text"),
        ("type", "text", "ICO type"),
        ("mvp", "bool", "has an MVP"),
        ("location", "text", "country"),
        ("kyc_passed", "bool", "the team passed KYC"),
        ("url", "text", "page on the directory's site"),
        ("website", "text"),
        ("whitepaper", "text"),
        ("video", "text"),
        ("ticker", "text"),
        ("tokens_for_sale", "float", "float64 because supplies exceed int64"),
        ("token_price", "float"),
        ("token_price_unit", "text"),
        ("min_purchase", "float"),
        ("max_purchase", "float"),
        ("purchase_unit", "text"),
        ("token_type", "text"),
        ("soft_cap", "float"),
        ("hard_cap", "float"),
        ("caps_unit", "text"),
        ("escrow", "bool"),
        ("markets", "list", "exchange URLs"),
        ("restricted_areas", "list", "countries where the ICO is not allowed"),
        ("accepting", "list", "tickers of accepted currencies"),
        ("raised", "float", "raised funds in USD; NaN when unknown"),
        ("start_datetime", "datetime", "start of the current stage"),
        ("end_datetime", "datetime", "end of the current stage"),
        ("tba", "bool", "dates not defined yet"),
        ("airdrop", "bool"),
        ("bounty", "bool"),
    ),
    key=("id",),
    doc="one row per ICO",
)

TEAM = TableSchema("team", _PEOPLE_COLUMNS, key=("ico_id", "position"), doc="team members")
ADVISORS = TableSchema("advisors", _PEOPLE_COLUMNS, key=("ico_id", "position"), doc="advisors")

SOCIAL = TableSchema(
    "social",
    _cols(
        ("ico_id", "int"),
        ("owner", "text", "ico, team or advisor"),
        ("position", "Int", "the person's position; missing for the ICO's own links"),
        ("network", "text", "social network key as sent, e.g. twitter"),
        ("url", "text"),
    ),
    key=("ico_id", "owner", "position", "network"),
    doc="one row per social link",
)

DISTRIBUTION = TableSchema(
    "distribution",
    _cols(("ico_id", "int"), ("part", "text"), ("percent", "float", "0-100")),
    key=("ico_id", "part"),
    doc="token distribution",
)

BONUSES = TableSchema(
    "bonuses",
    _cols(("ico_id", "int"), ("name", "text"), ("terms", "text")),
    key=("ico_id", "name"),
    doc="bonus programmes",
)

ROADMAP = TableSchema(
    "roadmap",
    _cols(
        ("ico_id", "int"),
        ("label", "text", "the key exactly as sent"),
        ("date", "datetime", "parsed from the label; NaT when it names no date"),
        ("description", "text"),
    ),
    key=("ico_id", "label"),
    doc="roadmap milestones",
)

# Not in TABLES: it describes the values the other tables lost, it is not data.
PROBLEMS = TableSchema(
    "problems",
    _cols(
        ("table", "text", "the table that lost values"),
        ("column", "text", "the column, or the source field of a malformed entry"),
        ("count", "int", "how many raw values could not be read"),
        ("examples", "list", "a few of those raw values, as repr() text"),
    ),
    key=("table", "column"),
    doc="values tidy could not read, per table and column",
)

TABLES: dict[str, TableSchema] = {
    t.name: t for t in (ICOS, TEAM, ADVISORS, SOCIAL, DISTRIBUTION, BONUSES, ROADMAP)
}
TABLE_NAMES: tuple[str, ...] = tuple(TABLES)

LIST = TableSchema(
    "list",
    _cols(
        ("id", "int"),
        ("name", "text"),
        ("logo", "text"),
        ("ico_score", "float"),
        ("url", "text"),
        ("raised", "float"),
        ("status", "text"),
    ),
    key=("id",),
    doc="list summaries (spec 2.2), one row per ICO",
)

FILTERS = TableSchema(
    "filters",
    _cols(
        ("filter", "text", "platform, category, type or location"),
        ("id", "Int", "missing for location, which has no id"),
        ("name", "text"),
    ),
    key=("filter", "name"),
    doc="available filter values (spec 2.1)",
)


def empty_frame(table: TableSchema) -> pd.DataFrame:
    """A frame with every column of ``table`` at its declared dtype and zero rows."""
    return pd.DataFrame({c.name: pd.Series([], dtype=c.dtype) for c in table.columns})


def describe(table: str | TableSchema) -> pd.DataFrame:
    """The columns of a table: name, dtype and meaning, from the one declaration.

    Parameters
    ----------
    table : str or TableSchema
        A table name (``"icos"``, ``"team"``, ... or ``"problems"``, ``"list"``,
        ``"filters"``) or a schema.

    Examples
    --------
    >>> describe("distribution")[["column", "dtype"]].values.tolist()
    [['ico_id', 'int64'], ['part', 'str'], ['percent', 'float64']]
    """
    if isinstance(table, str):
        known = {**TABLES, PROBLEMS.name: PROBLEMS, LIST.name: LIST, FILTERS.name: FILTERS}
        if table not in known:
            raise KeyError(f"no table {table!r}; tables: {', '.join(known)}")
        table = known[table]
    return pd.DataFrame({
        "column": [c.name for c in table.columns],
        "dtype": [str(c.dtype) for c in table.columns],
        "doc": [c.doc for c in table.columns],
    }).astype({"column": TEXT_DTYPE, "dtype": TEXT_DTYPE, "doc": TEXT_DTYPE})

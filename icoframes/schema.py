"""Columns, dtypes and origins of every table, declared once.

This module is the single source of truth for the shape and the origin of
every frame the package returns: each :class:`Column` names its kind, the path
of its value in a profile, list item or filter set (``source``) and its
meaning (``doc``, shown by :func:`describe`). :mod:`icoframes.parse` reads every
column at its source and builds it in this order at these dtypes (adding a
sourced line to ``ICOS`` is all ``tidy`` needs), empty results are built from
it, and Parquet files are written and read back against it.

Kinds of column and their pandas dtypes:

========  ===============================================  =====================================
kind      pandas dtype                                     meaning
========  ===============================================  =====================================
int       ``int64``                                        identifier or position, never missing
Int       ``Int64`` (nullable)                             integer that may be missing
float     ``float64``                                      number; NaN when absent or unreadable
bool      ``bool``                                         True only where the API said true
text      ``str`` (pandas 2.2: ``object``)                 text; NaN when absent or ``''``
datetime  ``datetime64[ms]`` (naive)                       the spec names no time zone
list      ``object`` holding ``list[str]``                 always a list, empty when none
========  ===============================================  =====================================

The words values are read by (flags, "none", units: ``"US Dollar"`` -> ``USD``) are
declared once in :mod:`icoframes.vocabulary`; amounts and shares have :attr:`Column.bounds`.
Booleans: the API writes ``''`` both for "does not hold" and for "unknown", so
a boolean column is True only where the value says it holds and False otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

import numpy as np
import pandas as pd
import pyarrow as pa
from pandas.api.extensions import ExtensionDtype

from .errors import InvalidParameter, UnknownName, checked_keywords, checked_methods, did_you_mean
from .quoting import quoted
from .textdtype import TEXT_DTYPE, text_values

__all__ = ["EACH", "FILTERS", "ICOS", "KEY", "LIST", "LONG_LISTS", "PROBLEMS", "PROBLEM_SUMMARY",
           "PROFILE_SECTIONS", "TABLES", "TABLE_NAMES", "TEXT_DTYPE", "Column", "Kind", "Source",
           "TableSchema", "describe", "empty_frame"]

#: A column's pandas dtype: a NumPy dtype or a pandas extension dtype.
Dtype: TypeAlias = np.dtype[Any] | ExtensionDtype
Kind = Literal["int", "Int", "float", "bool", "text", "datetime", "utc", "list"]



Source = tuple[str, ...]

#: In a source path, every entry of the list or map at that point.
EACH: Final = "*"
#: As the last step of a source path, the key of each map entry itself.
KEY: Final = "<key>"


@dataclass(frozen=True)
class Column:
    """One column: name, kind (see module docs), where its values come from, meaning and unit.

    ``source`` is the path of the value in the record the table is read from
    (a profile for ``icos`` and its child tables, a list item for ``list``,
    the filter set for ``filters``): ``("finance", "caps_unit")`` is
    ``profile["finance"]["caps_unit"]``; :data:`EACH` (``"*"``) steps into
    every entry of a list or map, a final :data:`KEY` takes the map's keys.
    None for a column the package derives (a status, a position, a count).
    ``unit`` is the unit of a number or time: a fixed one (``"USD"``) or the
    unit column that holds it (``"caps_unit"``); ``""`` for what has none.
    """

    name: str
    kind: Kind
    source: Source | None = None
    doc: str = ""
    unit: str = ""

    @property
    def dtype(self) -> Dtype:
        return _DTYPES[self.kind]

    @property
    def arrow_type(self) -> pa.DataType:
        return _ARROW[self.kind]

    @property
    def bounds(self) -> tuple[float, float] | None:
        """Values a float column may hold, others are unreadable: a share (unit ``percent``)
        is 0-100, a score (``points``) 0-10 (the scale the list filters by, 1-10: spec 4.2),
        an amount (any other unit) is not negative."""
        if self.kind != "float" or not self.unit:
            return None
        return {"percent": (0.0, 100.0), "points": (0.0, 10.0)}.get(self.unit, (0.0, float("inf")))

    @property
    def source_text(self) -> str:
        """The source path as dotted text (``'finance.caps_unit'``); ``''`` when derived."""
        return ".".join(self.source) if self.source else ""

    @property
    def arrow_field(self) -> pa.Field:
        """The Parquet column: its type, and its description, unit and source as metadata."""
        about = {"description": self.doc, "unit": self.unit, "source": self.source_text}
        return pa.field(self.name, self.arrow_type, nullable=self.kind not in ("int", "bool"),
                        metadata={k: v for k, v in about.items() if v})


_DTYPES: dict[Kind, Dtype] = {
    "int": np.dtype("int64"), "Int": pd.Int64Dtype(), "float": np.dtype("float64"),
    "bool": np.dtype("bool"), "text": TEXT_DTYPE,
    "datetime": np.dtype("datetime64[ms]"),
    "utc": pd.DatetimeTZDtype("ms", "UTC"),  # an instant icoframes recorded itself
    "list": np.dtype("object"),
}

_ARROW: dict[Kind, pa.DataType] = {
    "int": pa.int64(), "Int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(),
    "text": pa.string(), "datetime": pa.timestamp("ms"), "utc": pa.timestamp("ms", tz="UTC"),
    "list": pa.list_(pa.string()),
}


@checked_methods
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
    def dtypes(self) -> dict[str, Dtype]:
        return {c.name: c.dtype for c in self.columns}

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    def arrow_schema(self) -> pa.Schema:
        """The Arrow schema of the table's Parquet files (see :attr:`Column.arrow_field`)."""
        return pa.schema([c.arrow_field for c in self.columns])


Spec = tuple[str, Kind, Source | None, str] | tuple[str, Kind, Source | None, str, str]


def _cols(*specs: Spec) -> tuple[Column, ...]:
    """Columns from ``(name, kind, source, doc[, unit])`` lines."""
    return tuple(Column(*spec) for spec in specs)


def _people(key: str, who: str) -> tuple[Column, ...]:
    """Columns of team members or advisors: both lists share one element shape (spec 2.3)."""
    return _cols(
        ("ico_id", "int", ("id",), "id of the ICO"),
        ("position", "int", None, f"0-based place of the {who} in the profile's list"),
        ("name", "text", (key, EACH, "name"), f"the {who}'s name"),
        ("role", "text", (key, EACH, "role"), f"the {who}'s role"),
        ("photo", "text", (key, EACH, "photo"), "photo URL"),
    )


# Each icos column is one line: adding a sourced line here is all tidy needs.
ICOS = TableSchema(
    "icos",
    _cols(
        ("id", "int", ("id",), "ICO id"),
        ("status", "text", None, "ongoing, upcoming or past: the list status it was loaded under"),
        ("name", "text", ("main", "name"), "name"),
        ("description", "text", ("main", "description"), "text description"),
        ("logo", "text", ("main", "logo"), "logo URL"),
        ("premium", "bool", ("main", "premium"), "listed as premium"),
        ("scam", "bool", ("main", "scam"), "marked as scam"),
        ("ico_score", "float", ("main", "ico_score"), "ICO score", "points"),
        ("platform", "text", ("main", "platform"), "platform name"),
        ("kyc", "bool", ("main", "kyc"), "conducts KYC on investors"),
        ("whitelist", "bool", ("main", "whitelist"), "conducts whitelisting"),
        ("category", "text", ("main", "category"), "category name"),
        ("type", "text", ("main", "type"), "ICO type name"),
        ("mvp", "bool", ("main", "mvp"), "has an MVP"),
        ("location", "text", ("main", "location"), "country name"),
        ("kyc_passed", "bool", ("main", "kyc_passed"), "the team passed KYC"),
        ("url", "text", ("links", "url"), "page of the ICO on the directory's public site"),
        ("website", "text", ("links", "website"), "official website URL"),
        ("whitepaper", "text", ("links", "whitepaper"), "whitepaper URL"),
        ("video", "text", ("links", "video"), "URL of a video presentation"),
        ("ticker", "text", ("finance", "ticker"), "token ticker"),
        ("tokens_for_sale", "float", ("finance", "tokens_for_sale"),
         "tokens offered in the ICO; float64 because supplies exceed int64", "tokens"),
        ("token_price", "float", ("finance", "token_price"),
         "the ICO's fixed price during the sale; in a profile fetched after the ICO's end "
         "(fetched_status past, or end_datetime before fetched_at) the market price as of "
         "fetched_at (spec 2.3), so to_usd converts it at fetched_at; in token_price_unit",
         "token_price_unit per token"),
        ("token_price_unit", "text", ("finance", "token_price_unit"), "unit of token_price",
         "currency code"),
        ("min_purchase", "float", ("finance", "min_purchase"),
         "minimum contribution, in purchase_unit", "purchase_unit"),
        ("max_purchase", "float", ("finance", "max_purchase"),
         "maximum contribution, in purchase_unit", "purchase_unit"),
        ("purchase_unit", "text", ("finance", "purchase_unit"),
         "unit of min_purchase and max_purchase",
         "currency code"),
        ("token_type", "text", ("finance", "token_type"),
         "token type, e.g. ERC20; only for Ethereum-based projects"),
        ("soft_cap", "float", ("finance", "soft_cap"), "soft cap, in caps_unit",
         "caps_unit"),
        ("hard_cap", "float", ("finance", "hard_cap"), "hard cap, in caps_unit",
         "caps_unit"),
        ("caps_unit", "text", ("finance", "caps_unit"), "unit of soft_cap and hard_cap",
         "currency code"),
        ("escrow", "bool", ("finance", "escrow"), "has escrow"),
        ("markets", "list", ("finance", "markets"), "URLs of exchanges listing the token"),
        ("restricted_areas", "list", ("finance", "restricted_areas"),
         "countries where the ICO is not allowed"),
        ("accepting", "list", ("finance", "accepting"), "tickers of accepted currencies"),
        ("raised", "float", ("finance", "raised"), "raised funds in USD; NaN when unknown", "USD"),
        ("start_datetime", "datetime", ("dates", "start_datetime"),
         "start of the current stage (no time zone given; UTC where the value wrote its offset)",
         "date and time, no time zone"),
        ("end_datetime", "datetime", ("dates", "end_datetime"),
         "end of the current stage (no time zone given; UTC where the value wrote its offset)",
         "date and time, no time zone"),
        ("tba", "bool", ("dates", "tba"), "dates not defined yet"),
        ("airdrop", "bool", ("additional", "airdrop"), "has an airdrop programme"),
        ("bounty", "bool", ("additional", "bounty"), "has a bounty programme"),
        ("fetched_at", "utc", None,
         "when the profile behind this row was fetched (time zone UTC): how old the row is",
         "UTC"),
        ("fetched_status", "text", None,
         "the list status its profile was fetched under; status is the list's of this load, "
         "so a row kept from an earlier fetch may differ: token_price is read by this one"),
    ),
    key=("id",),
    doc="one row per ICO",
)

TEAM = TableSchema("team", _people("team", "member"), key=("ico_id", "position"),
                   doc="team members")
ADVISORS = TableSchema("advisors", _people("advisors", "advisor"), key=("ico_id", "position"),
                       doc="advisors")

SOCIAL = TableSchema(
    "social",
    _cols(
        ("ico_id", "int", ("id",), "id of the ICO"),
        ("owner", "text", None, "whose link: ico, team or advisor"),
        ("position", "Int", None, "the person's position; missing for the ICO's own links"),
        ("network", "text", ("links", "social", KEY),
         "social network key as sent, e.g. twitter (also of team.*.social, advisors.*.social)"),
        ("url", "text", ("links", "social", EACH),
         "URL of the profile on that network; links without one are not rows"),
    ),
    key=("ico_id", "owner", "position", "network"),
    doc="one row per social link",
)

DISTRIBUTION = TableSchema(
    "distribution",
    _cols(
        ("ico_id", "int", ("id",), "id of the ICO"),
        ("part", "text", ("finance", "distribution", KEY), "name of the part, as sent"),
        ("percent", "float", ("finance", "distribution", EACH), "share of the tokens, 0-100",
         "percent"),
    ),
    key=("ico_id", "part"),
    doc="token distribution",
)

BONUSES = TableSchema(
    "bonuses",
    _cols(
        ("ico_id", "int", ("id",), "id of the ICO"),
        ("name", "text", ("additional", "bonuses", KEY), "name of the bonus, as sent"),
        ("terms", "text", ("additional", "bonuses", EACH), "terms of the bonus"),
    ),
    key=("ico_id", "name"),
    doc="bonus programmes",
)

ROADMAP = TableSchema(
    "roadmap",
    _cols(
        ("ico_id", "int", ("id",), "id of the ICO"),
        ("label", "text", ("roadmap", KEY), "the date-like key exactly as sent"),
        ("date", "datetime", None, "first day of the label's period (Q3 2018: 2018-07-01)",
         "date, no time zone"),
        ("precision", "text", None, "day, month, quarter, half or year: what the label gives"),
        ("description", "text", ("roadmap", EACH), "what the milestone is"),
    ),
    key=("ico_id", "label"),
    doc="roadmap milestones",
)


def _values_of(field: str, what: str) -> TableSchema:
    """A multi-valued ``icos`` list column as a long table: one value per row, order kept."""
    return TableSchema(
        field,
        _cols(
            ("ico_id", "int", ("id",), "id of the ICO"),
            ("position", "int", None, f"0-based place of the value in icos.{field}"),
            ("value", "text", ("finance", field, EACH), what),
        ),
        key=("ico_id", "position"),
        doc=f"icos.{field} one value per row (the same values, in the same order)",
    )


# Long twins of the icos list columns, so that each cell holds one value (hashable,
# joinable); tidy builds them from the list columns, so the two always agree.
MARKETS = _values_of("markets", "URL of an exchange listing the token")
RESTRICTED_AREAS = _values_of("restricted_areas", "a country where the ICO is not allowed")
ACCEPTING = _values_of("accepting", "ticker of an accepted currency")
#: The icos list columns that have a long table of the same name.
LONG_LISTS: Final = ("markets", "restricted_areas", "accepting")

#: The sections of a profile (spec 2.3) beside its ``id``: each an object or a list.
PROFILE_SECTIONS: Final = ("main", "links", "finance", "dates", "additional", "roadmap", "team",
                           "advisors")

# Not in TABLES: it describes the values the other tables lost, it is not data.
PROBLEMS = TableSchema(
    "problems",
    _cols(
        ("ico_id", "Int", None,
         "id of the ICO the value belongs to; missing when the id itself is unreadable "
         "(and for the filter set, which belongs to no ICO)"),
        ("table", "text", None, "the table that lost the value (or list, filters)"),
        ("column", "text", None, "the column, or the source field of a malformed entry"),
        ("value", "text", None,
         "the raw value as text: strings as sent, anything else as JSON; long ones cut"),
        ("reason", "text", None, "why it was not read: a code of icoframes.reasons.REASONS"),
    ),
    key=("table", "column", "ico_id"),
    doc="values that could not be read, one row per value",
)

# The per-column view of PROBLEMS (Tables.problem_summary()).
PROBLEM_SUMMARY = TableSchema(
    "problem_summary",
    _cols(
        ("table", "text", None, "the table that lost values"),
        ("column", "text", None, "the column, or the source field of a malformed entry"),
        ("count", "int", None, "how many raw values could not be read", "values"),
        ("examples", "list", None, "up to three distinct values of problems.value"),
    ),
    key=("table", "column"),
    doc="values that could not be read, per table and column",
)

TABLES: dict[str, TableSchema] = {
    t.name: t for t in (ICOS, TEAM, ADVISORS, SOCIAL, DISTRIBUTION, BONUSES, ROADMAP,
                        MARKETS, RESTRICTED_AREAS, ACCEPTING)
}
TABLE_NAMES: tuple[str, ...] = tuple(TABLES)

LIST = TableSchema(
    "list",
    _cols(
        ("id", "int", ("id",), "ICO id"),
        ("name", "text", ("main", "name"), "ICO name"),
        ("logo", "text", ("main", "logo"), "logo URL"),
        ("ico_score", "float", ("main", "ico_score"), "ICO score", "points"),
        ("url", "text", ("links", "url"), "page of the ICO on the directory's public site"),
        ("raised", "float", ("finance", "raised"), "raised funds in USD; NaN when unknown", "USD"),
        ("status", "text", None, "the status filter the list was loaded with"),
    ),
    key=("id",),
    doc="list summaries (spec 2.2), one row per ICO",
)

FILTERS = TableSchema(
    "filters",
    _cols(
        ("filter", "text", (KEY,), "platform, category, type or location"),
        ("id", "Int", (EACH, EACH, "id"), "the value's id; missing for location, which has none"),
        ("name", "text", (EACH, EACH, "name"), "the value's name"),
    ),
    key=("filter", "name"),
    doc="available filter values (spec 2.1)",
)


def empty_frame(table: TableSchema) -> pd.DataFrame:
    """A frame with every column of ``table`` at its declared dtype and zero rows."""
    return pd.DataFrame({c.name: pd.Series([], dtype=c.dtype) for c in table.columns})


@checked_keywords
def describe(table: str | TableSchema) -> pd.DataFrame:
    """The columns of a table: name, dtype, source and meaning, from the one declaration.

    Parameters
    ----------
    table : str or TableSchema
        A table name (``"icos"``, ``"team"``, ... or ``"problems"``, ``"list"``,
        ``"filters"``) or a schema.

    Returns
    -------
    pandas.DataFrame
        One row per column: ``column``, ``dtype``, ``source`` (the dotted path
        of the value in the profile, list item or filter set; missing for a
        column the package derives) and ``doc``.

    Examples
    --------
    >>> describe("distribution")[["column", "source"]].values.tolist()
    [['ico_id', 'id'], ['part', 'finance.distribution.<key>'], \
['percent', 'finance.distribution.*']]
    >>> describe("distribution").set_index("column").loc[["ico_id", "percent"], "dtype"].tolist()
    ['int64', 'float64']
    >>> describe("icos").set_index("column").loc["caps_unit", ["source", "doc"]].tolist()
    ['finance.caps_unit', 'unit of soft_cap and hard_cap']
    """
    if isinstance(table, str):
        known = {**TABLES, PROBLEMS.name: PROBLEMS, PROBLEM_SUMMARY.name: PROBLEM_SUMMARY,
                 LIST.name: LIST, FILTERS.name: FILTERS}
        if table not in known:
            features = ("; the columns compute_features adds: icoframes.describe_features()"
                        if "feature" in table.casefold() else "")
            raise UnknownName(f"no table {quoted(table)}{did_you_mean(table, known)}; "
                              f"tables: {', '.join(known)}{features}")
        table = known[table]
    if not isinstance(table, TableSchema):
        raise InvalidParameter(f"describe takes a table name or a TableSchema, got {quoted(table)}")
    return pd.DataFrame({
        "column": [c.name for c in table.columns],
        "dtype": [str(c.dtype) for c in table.columns],
        "source": [c.source_text or None for c in table.columns],
        "doc": [c.doc for c in table.columns],
    }).apply(text_values)

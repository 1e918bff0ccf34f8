"""The order of an export's rows: a declared sort, so that two exports of one data list it alike.

A load's tables come in the order of where their rows came from: ``icos`` in the order the
lists gave the ICOs (a list paged again in part has the pages that came first, then the rows
kept from the day's earlier list; rows an export keeps from the day's earlier export come
after the others), every other table in the order the profiles reached the cache (the order
in which the workers' requests came back, and after an update the changed ICOs' rows after
the others). So two exports of the same profiles could list the same rows in another order,
and a user diffing their files would see changes where there are none. An export writes:

* ``icos`` by ``id``; or, when the export was asked a sort (``sort_asc``/``sort_desc``), in
  that sort's order, by the loaders' rules (names case-insensitively, ties by id in the sort's
  direction, rows without the value last: :func:`icoframes.queries.sort_rows`);
* every other table by ``ico_id``, then the rest of its declared key (``problems``: ``table``,
  then ``column``), rows that tie on it in the order the ICO's profile gave them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import pandas as pd

from .queries import combined_sort, sort_rows
from .reporting import LoadReport
from .schema import PROBLEMS, TABLES
from .tables import Tables

__all__ = ["in_key_order"]

_Report = TypeVar("_Report", bound="LoadReport | None")


def in_key_order(tables: Tables[_Report], filters: Mapping[str, Any] | None = None,
                 ) -> Tables[_Report]:
    """``tables`` with every table's rows in its declared order (the module's), its report kept.

    Parameters
    ----------
    tables : Tables
        The bundle to order (not changed).
    filters : mapping, optional
        The export's filters: its ``sort_asc`` or ``sort_desc`` is the order of ``icos``
        (with a status too); none, by ``id``.

    Examples
    --------
    >>> import pandas as pd
    >>> from icoframes.tables import Tables
    >>> team = Tables.empty().team
    >>> team = pd.concat([team, pd.DataFrame({"ico_id": [2, 1, 1], "position": [0, 1, 0]})])
    >>> ordered = in_key_order(Tables(**{**dict(Tables.empty()), "team": team}))
    >>> ordered.team[["ico_id", "position"]].values.tolist()
    [[1, 0], [1, 1], [2, 0]]
    """
    sort = combined_sort(None, filters or {}) or ("id", False)  # (None: with or without status)
    icos = sort_rows(tables.icos.reset_index(drop=True), sort,
                     lambda: tables.icos)
    frames: dict[str, pd.DataFrame] = {"icos": icos}
    for schema in (*TABLES.values(), PROBLEMS):
        if schema.name != "icos":
            frames[schema.name] = _by_key(tables[schema.name],
                                          ["ico_id", *(k for k in schema.key if k != "ico_id")])
    return Tables(**frames).with_report(tables.report)


def _by_key(frame: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    """``frame`` sorted by the columns ``key`` (missing values last), ties as they were."""
    out = frame.sort_values(key, kind="stable", na_position="last").reset_index(drop=True)
    out.attrs = dict(frame.attrs)
    return out

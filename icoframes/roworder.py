"""The order of a result's rows: declared sorts, so that two results of one data list it alike.

Unsorted, a load's tables come in the order of where their rows came from: ``icos`` in the
order the lists gave the ICOs (a list paged again in part has the pages that came first,
then the rows kept from the day's earlier list; rows an export keeps from the day's earlier
export come after the others), every other table in the order the profiles reached the
cache (the order in which the workers' requests came back, and after an update the changed
ICOs' rows after the others). So two loads or exports of the same profiles could list the
same rows in another order, and a user comparing them would see changes where there are none.

A load (:func:`in_icos_order`, applied where the loaders assemble their tables) keeps
``icos`` in its order (the lists' or the sort asked) and lists every other table's rows in
the order of their ICO's row in ``icos``, one ICO's rows in the order its profile gives them
(``problems``: by ``table``, then ``column``); ``problems`` of no loaded ICO (a list
page's, or one without an ``ico_id``) come last, by ``ico_id`` (missing last). An export
(:func:`in_key_order`) writes:

* ``icos`` by ``id``; or, when the export was asked a sort (``sort_asc``/``sort_desc``), in
  that sort's order, by the loaders' rules (names case-insensitively, ties by id in the sort's
  direction, rows without the value last: :func:`icoframes.queries.sort_rows`);
* every other table by ``ico_id``, one ICO's rows in the order its profile gives them (a
  roadmap by its label as text would put "Q1 2019" before "Q3 2018"); ``problems`` by
  ``ico_id``, ``table``, then ``column``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from .queries import combined_sort, sort_rows
from .reporting import LoadReport
from .schema import PROBLEMS, TABLES
from .tables import Tables

__all__ = ["in_icos_order", "in_key_order"]

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
    [[1, 1], [1, 0], [2, 0]]
    """
    sort = combined_sort(None, filters or {}) or ("id", False)  # (None: with or without status)
    icos = sort_rows(tables.icos.reset_index(drop=True), sort,
                     lambda: tables.icos)
    frames: dict[str, pd.DataFrame] = {"icos": icos}
    for schema in (*TABLES.values(), PROBLEMS):
        if schema.name != "icos":
            frames[schema.name] = _by_key(tables[schema.name], ["ico_id"] if schema is not PROBLEMS
                                          else ["ico_id", "table", "column"])
    return Tables(**frames).with_report(tables.report)


def _by_key(frame: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    """``frame`` sorted by the columns ``key`` (missing values last), ties as they were."""
    out = frame.sort_values(key, kind="stable", na_position="last").reset_index(drop=True)
    out.attrs = dict(frame.attrs)
    return out


def in_icos_order(frame: pd.DataFrame, icos: pd.DataFrame, key: Sequence[str], *,
                  others: bool = True) -> pd.DataFrame:
    """``frame``'s rows in the order of their ICO's row in ``icos``, then by ``key``.

    Parameters
    ----------
    frame : DataFrame
        A table with an ``ico_id`` column (a child table or ``problems``; not changed).
    icos : DataFrame
        The ``icos`` rows the order follows (ids unique).
    key : sequence of str
        The table's declared key (:attr:`icoframes.schema.TableSchema.key`): its columns
        other than ``ico_id`` order an ICO's rows (missing values last); rows that tie on
        them keep their order.
    others : bool, default True
        Keep the rows whose ``ico_id`` is not in ``icos`` (or missing): after the others,
        by ``ico_id`` (missing last). False: leave them out.

    Returns
    -------
    DataFrame
        The rows (a copy), index from 0, ``attrs`` kept.

    Examples
    --------
    >>> icos = pd.DataFrame({"id": [7, 2]})
    >>> team = pd.DataFrame({"ico_id": [2, 9, 7, 2], "position": [1, 0, 0, 0]})
    >>> in_icos_order(team, icos, ("ico_id", "position")).values.tolist()
    [[7, 0], [2, 0], [2, 1], [9, 0]]
    >>> in_icos_order(team, icos, ("ico_id", "position"), others=False)["ico_id"].tolist()
    [7, 2, 2]
    """
    ids = frame["ico_id"]
    known = ids.notna().to_numpy()
    # an ICO's place in icos; after every ICO of icos for the rows of none of them
    place = np.full(len(frame), len(icos), dtype=np.int64)
    place[known] = pd.Index(icos["id"].to_numpy()).get_indexer(
        ids[known].to_numpy(dtype=np.int64))
    place[place < 0] = len(icos)
    rows = np.arange(len(frame)) if others else np.flatnonzero(place < len(icos))
    ranks = [place[rows]]  # the ICO's place, then (for rows of no ICO of icos) its id, the key
    if (ranks[0] == len(icos)).any():
        ranks.append(_ranks(ids)[rows])
    ranks += [_ranks(frame[name])[rows] for name in key if name != "ico_id"]
    order = rows[_stable_order(ranks, len(icos))]
    out = frame.take(order).reset_index(drop=True)  # (one copy: the rows kept, in order)
    out.attrs = dict(frame.attrs)
    return out


def _ranks(column: pd.Series) -> np.ndarray:
    """``column``'s values as integers in their sorted order (equal values, equal ranks),
    missing values last."""
    codes, uniques = pd.factorize(column, sort=True)  # (a missing value: -1)
    return np.where(codes < 0, len(uniques), codes)


def _stable_order(ranks: list[np.ndarray], places: int) -> np.ndarray:
    """The positions that sort rows by ``ranks`` (the first decides first), ties as they
    were: one stable argsort of the ranks packed into one integer when they fit in 63 bits,
    else numpy's lexsort (stable too). Integer ranks, not a pandas sort of the values, which
    took several times as long over the child tables of 10,000 ICOs (social's text key)."""
    sizes = [places + 1, *(int(rank.max(initial=0)) + 1 for rank in ranks[1:])]
    if math.prod(sizes) < 2**63:
        packed = np.zeros(len(ranks[0]), dtype=np.int64)
        for rank, size in zip(ranks, sizes, strict=True):
            packed = packed * size + rank
        return np.argsort(packed, kind="stable")
    return np.lexsort(ranks[::-1])  # (lexsort: the last key first)

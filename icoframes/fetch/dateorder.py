"""A frame sorted by a date whose rows show their dates out of that order: said, not warned.

A list sorted by ``start_datetime`` or ``end_datetime`` comes in the service's order of
when it was paged; its rows show the dates of their cached copies. When a copy shows a
date moved since (a stale copy beside a list paged now, or a list paged before the date
moved), or the service sorts by a date the profiles show otherwise (a date without its
time), the frame is not sorted by the dates it shows. Its rows are never sorted again
here: spec 4.2's order is the service's. So the query's ``order_unstated`` says it, with
what explains it, and the report's views show it (``order: ...``). It is not warned: on a
repeat load the rows alone cannot tell a moved date from the service's own order, and a
warning that no refresh silences would come on every call (raised where warnings are
errors).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .matching import sort_of

__all__ = ["date_sort", "out_of_order", "shown_order"]


def date_sort(params: Mapping[str, Any]) -> tuple[str, bool] | None:
    """``(key, descending)`` of a query sorted by a date (start or end); None otherwise."""
    sort = sort_of(params)
    return sort if sort is not None and sort[0] in ("start_datetime", "end_datetime") else None


def _breaks(dates: np.ndarray, descending: bool) -> np.ndarray:
    """Positions (among the dated rows) of each row listed before a date it should follow."""
    values = dates[~np.isnat(dates)].astype("int64") * (-1 if descending else 1)
    return np.flatnonzero(np.diff(values) < 0)


def out_of_order(dates: np.ndarray, descending: bool) -> bool:
    """Whether ``dates`` (in a list's order; NaT, a row without the date, aside) break the
    order of a list sorted by them (``descending`` or ascending)."""
    return bool(_breaks(dates, descending).size)


def _stale_pair(icos: pd.DataFrame, dates: np.ndarray, descending: bool,
               listed: pd.Timestamp | None, kept: bool) -> tuple[pd.Series, pd.Series] | None:
    """Two neighbouring rows out of their dates' order, one of them out of date, when rows
    kept from an earlier fetch explain the break: a copy fetched before the list was paged
    (the rows of copies fetched after it in its order), or the list itself, ``kept`` from an
    earlier load, beside copies fetched since. None when neither: the list was paged in
    this load and the copies fetched after it are out of its order, so the service sorts by
    a date the profiles do not show (or show less exactly: a date without its time), and
    paging again brings the same."""
    if listed is None:
        return None
    older = (pd.to_datetime(icos["fetched_at"], utc=True) < listed).to_numpy(dtype=bool)
    moved = out_of_order(dates[~older], descending)
    if moved and not kept:
        return None
    dated, old = icos.loc[~np.isnat(dates)], older[~np.isnat(dates)]
    for i in _breaks(dates, descending):  # the first break the out-of-date rows explain
        if moved or old[i] or old[i + 1]:
            return dated.iloc[int(i)], dated.iloc[int(i) + 1]
    return None


def shown_order(summary: dict[str, Any], icos: pd.DataFrame) -> dict[str, Any]:
    """``summary`` with ``order_unstated`` said of its one query, sorted by a date, when
    ``icos`` (the result's rows, in the list's order) are not sorted by the dates they show,
    with what explains it (:func:`_stale_pair`: rows kept from an earlier fetch, or the
    service's own sort by a date the profiles show otherwise).

    The check before the load (:func:`~.localquery.cached_query`) sees the copies cached
    then; profiles the load fetches after it (never fetched, expired, their summary
    changed) may show a date moved since the list was paged, so it is done again on the
    rows returned. Text only: no request.
    """
    queries = summary.get("queries") or []
    sort = date_sort(queries[0]["params"]) if len(queries) == 1 else None
    if sort is None or icos.empty:
        return summary
    (key, descending), query = sort, queries[0]
    if query.get("order_unstated"):  # said already (the list's own order, before the load)
        return summary
    dates = icos[key].to_numpy(dtype="datetime64[ms]")
    if not out_of_order(dates, descending):
        return summary
    when = query.get("fetched_at") or "unknown"
    pair = _stale_pair(icos, dates, descending, None if when == "unknown" else
                       pd.Timestamp(when), bool(query.get("from_cache")))
    said = query.get("order_unstated") or (
        f"the rows are not sorted by the {key} they show: "
        + ("a date moved since the list or a copy was fetched (refresh='all' fetches both "
           "again)" if pair is not None else "the service sorts by a date the profiles do not "
           "show (or show less exactly)")
        + f"; the list's order, the service's when it was paged ({when})")
    return {**summary, "queries": [{**query, "order_unstated": said}]}

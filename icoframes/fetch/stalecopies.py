"""Which cached copies a list of the service shows to be out of date.

A list the service sends applies its own filters (spec 4.2) to the ICOs as they are
now. When it lists an ICO whose cached copy fails one of those filters, as the stored
fields decide (:func:`~icoframes.fetch.matching.judge`: a platform, category, type or
location named otherwise, a yes-flag not set, a score below it, ...), the copy was
fetched before the ICO changed: a field only the profile shows (its location, say)
changed while the list's summary (name, score, raised) did not. Such a copy is out of
date as one whose summary changed is: the load that pages the list, or answers from it
cached, fetches it again (:meth:`~icoframes.fetch.planner.ProfilePlan.add`), and a cached
list older than that list does not answer a narrower query while such a copy stands
(:func:`~icoframes.fetch.standing.contradicted`). A copy fetched after the list's page 1
says nothing: the ICO may have changed since the paging.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..schema import FILTERS, PROBLEMS, empty_frame
from ..store.cache import Cache
from ..store.derived import DerivedTables
from .matching import FIELDS, OUT, Rows, judge, residual

__all__ = ["ListedCopies", "failing_copies", "filter_frame"]


def filter_frame(cache: Cache) -> pd.DataFrame:
    """The cached filter set, or an empty one when none is cached: what the filters of a list
    are judged against (made anew each call: a frame is mutable, none is shared)."""
    stored = cache.read_filters()
    return empty_frame(FILTERS) if stored is None else stored.frame


def failing_copies(params: Mapping[str, Any], rows: Rows, filter_set: pd.DataFrame, *,
                   listed_at: dt.datetime | None) -> np.ndarray:
    """Which of ``rows`` (the copies of ICOs a list of parameters ``params`` holds) fail that
    list's own filters and were fetched at or before ``listed_at`` (its page 1; None: any):
    a boolean mask, in the order of ``rows``.

    Only what the stored fields decide counts (an undecided row says nothing); a row
    without a copy never fails.

    Examples
    --------
    >>> icos = pd.DataFrame({"id": [1, 2], "kyc": [True, False],
    ...                      "fetched_at": pd.to_datetime(["2026-01-01"] * 2, utc=True)})
    >>> rows = Rows.of(np.array([1, 2, 3]), icos, pd.DataFrame(columns=["ico_id", "table",
    ...                                                               "column"]))
    >>> failing_copies({"status": "past", "investor_kyc": "yes"}, rows, pd.DataFrame(),
    ...                listed_at=None).tolist()
    [False, True, False]
    """
    return _failing(residual(params, {"status": params.get("status")}), rows, filter_set,
                    listed_at)


def _failing(filters: Mapping[str, Any], rows: Rows, filter_set: pd.DataFrame,
             listed_at: dt.datetime | None) -> np.ndarray:
    """:func:`failing_copies` of a list whose filters (but its status) are ``filters``."""
    if not filters or not len(rows.ids):
        return np.zeros(len(rows.ids), dtype=bool)
    fails = judge(filters, rows, filter_set)[0] == OUT
    if listed_at is not None and fails.any():
        fetched = pd.to_datetime(rows.icos["fetched_at"], utc=True)
        fails &= (fetched <= pd.Timestamp(listed_at)).to_numpy(dtype=bool)
    return np.asarray(fails, dtype=bool)


#: The ``icos`` columns a list's filters read of a copy, and when it was fetched.
_READ = ("fetched_at", *dict.fromkeys(c for columns in FIELDS.values() for c in columns))


class ListedCopies:
    """The copies and filter set one load judges its lists' rows by, read and indexed once
    (at the first list with a filter the stored fields decide that holds a cached copy):
    :meth:`out_of_date`.

    A copy this load fetches after that read is of an id it planned already, so never
    judged again (:meth:`~icoframes.fetch.planner.ProfilePlan.add` plans an id once).
    """

    def __init__(self, cache: Cache, derived: DerivedTables) -> None:
        self._cache, self._derived = cache, derived
        self._read: tuple[pd.DataFrame, pd.DataFrame] | None = None
        self._problems: pd.DataFrame | None = None
        self._named: dict[str, Any] = {}  # the filter set's names (Rows.named), once a load

    def out_of_date(self, params: Mapping[str, Any], listed: pd.DataFrame, *,
                    listed_at: dt.datetime | None = None,
                    cached: pd.Index | None = None) -> np.ndarray | None:
        """Per row of ``listed`` (rows the service sent for the list of parameters ``params``:
        a page just paged, or a cached list of page 1 ``listed_at``), whether its cached copy
        fails that list's filters. ``cached``: the ids the cache holds a record of (None: any
        id may have a copy); a row of another id has no copy, so never fails. None (nothing
        read): the list has no filter, or no row a copy."""
        filters = residual(params, {"status": params.get("status")})
        if listed.empty or not filters:
            return None
        ids = listed["id"].to_numpy(dtype="int64")
        held = (np.ones(len(ids), dtype=bool) if cached is None
                else cached.get_indexer(pd.Index(ids)) >= 0)
        if not held.any():  # (a cold load's pages: no copy to read)
            return None
        if self._read is None:  # (indexed once: a load judges every page it pages)
            icos = self._derived.table("icos", ["id", *_READ])
            self._read = (icos[["id", *_READ]].set_index("id"), filter_frame(self._cache))
        by_id, filter_set = self._read
        fails = np.zeros(len(ids), dtype=bool)
        at = np.flatnonzero(held)
        # the score the list shows: a copy showing another decides no score filter (the
        # service may filter by either), as when a cached list answers
        scores = listed["ico_score"].to_numpy(dtype=float)[at]
        rows = Rows.indexed(ids[at], by_id, _NO_PROBLEMS, scores, named=self._named)
        # judged first as if every value was read: one not read only ever makes a verdict
        # undecided, so the problems (a table a load of icos does not otherwise bring up to
        # date) are read only when a copy fails, and only its rows judged again with them
        maybe = np.flatnonzero(_failing(filters, rows, filter_set, listed_at))
        if len(maybe):
            if self._problems is None:
                problems = self._derived.table("problems")
                self._problems = problems[problems["table"] == "icos"]
            again = Rows.indexed(rows.ids[maybe], by_id, self._problems, scores[maybe],
                                 named=self._named)
            fails[at[maybe]] = _failing(filters, again, filter_set, listed_at)
        return fails


#: No value left unread: what :meth:`ListedCopies.out_of_date` judges by first.
_NO_PROBLEMS = empty_frame(PROBLEMS)

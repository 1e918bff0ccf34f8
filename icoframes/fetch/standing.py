"""Whether a cached list still stands for the service: its rows' copies, and the lists since.

A cached list answers a narrower query (:mod:`icoframes.fetch.localquery`) only when
its rows' copies are current (:func:`not_ready`) and no list cached since says its rows
for *that query* are not the service's now (:func:`contradicted`). A list "since" is one
fetched at or after it: two lists of the same millisecond may have been paged in either
order, so each is checked against the other. One says so when it

- shows a row of it with another summary or status (any status);
- is of its status and holds an ICO it lacks that the query may match: the ICO joined
  since. Judged by that ICO's copy under the query's filters the later list did not
  apply (:func:`~icoframes.fetch.matching.residual`); a copy that is missing, failed,
  older than ``profile_max_age`` or not of the summary and status that list shows
  decides nothing, so it may match;
- is of its status, complete, and lacks a row of it whose copy passes the later list's
  filters: the ICO left, or changed, since (its copy is out of date, so it may have
  joined the query or left it; a row undecided under them says nothing);
- holds a row of it whose copy, fetched at or before that list, fails that list's own
  filters (:func:`~icoframes.fetch.stalecopies.failing_copies`): the ICO changed since
  its copy in a field only the profile shows (its location, say), so the copy would
  decide the query by old values. Such a copy of an ICO it lacks decides nothing, as a
  missing one.

The query's own status always counts, so a later list of another status says nothing
of which ICOs are listed under it but through the rows it shows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..parse.lists import summary_keys
from ..store.cache import Cache, Stored
from ..store.derived import DerivedTables
from .matching import IN, OUT, UNDECIDED, Rows, judge, residual
from .stalecopies import failing_copies, filter_frame

__all__ = ["CacheReads", "CachedList", "RowReader", "cached_list", "contradicted", "disputed",
           "not_ready", "rows_of", "shown", "unready"]


@dataclass(frozen=True)
class CachedList:
    """A cached list result that may answer narrower queries.

    ``listing`` holds its rows (the ``LIST`` schema) in the order the service
    sent them; ``fetched_at`` is timezone-aware UTC.
    """

    params: Mapping[str, Any]
    listing: pd.DataFrame
    fetched_at: dt.datetime
    complete: bool
    kept: dict[str, np.ndarray] = field(default_factory=dict, compare=False, repr=False)
    #: its problem records (a ``raised`` not read is keyed by its text: :func:`summary_keys`)
    problems: list[dict[str, Any]] = field(default_factory=list, compare=False, repr=False)

    def shown_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Its ids, summary keys and statuses (read once: every candidate of a load that it
        was cached since checks them)."""
        if not self.kept:
            keys = summary_keys(self.listing, self.problems)
            self.kept.update(ids=self.listing["id"].to_numpy(dtype="int64"),
                             keys=np.asarray(keys, dtype=object),
                             status=self.listing["status"].astype(object).to_numpy())
        return self.kept["ids"], self.kept["keys"], self.kept["status"]


#: Reads the tidy rows of some ids: ``(icos, problems)`` (problems as in ``Tables``).
RowReader = Callable[[np.ndarray], tuple[pd.DataFrame, pd.DataFrame]]


def shown(params: Mapping[str, Any]) -> str:
    """A cached list named for a reason."""
    return "the cached list " + str({k: v for k, v in params.items() if v is not None})


def unready(listing: pd.DataFrame, index: pd.DataFrame,
            problems: Sequence[Mapping[str, Any]] = ()) -> np.ndarray:
    """Why each row's copy cannot stand for the row ``listing`` shows (None: it can).

    The copy must be fetched (or the ICO gone), of the summary and status the list
    shows, with no failure since: read from the index itself, not from what a load
    would fetch, since a profile waiting out its backoff is not due and yet its copy
    is out of date (it would decide filters by old values).
    """
    return _unready(_copies(listing["id"].to_numpy(dtype="int64"), index),
                    listing["status"].astype(object).to_numpy(),
                    np.asarray(summary_keys(listing, problems), dtype=object))


def _copies(ids: np.ndarray, index: pd.DataFrame) -> dict[str, np.ndarray]:
    """What the index says of each id's copy: ``status``, ``summary``, ``state``,
    ``attempts`` and whether it is ``known``."""
    kept = index.reindex(ids)

    def column(name: str) -> np.ndarray:
        if name not in kept:
            return np.full(len(ids), None, dtype=object)
        values = kept[name].astype(object)
        return values.where(values.notna(), None).to_numpy()

    known = np.asarray(index.index.get_indexer(pd.Index(ids)) >= 0)
    state = column("state") if "state" in kept else np.array(
        ["fetched" if k else None for k in known], dtype=object)
    attempts = (kept["attempts"].fillna(0).to_numpy(dtype="int64") if "attempts" in kept
                else np.zeros(len(ids), dtype="int64"))
    return {"status": column("status"), "summary": column("summary"), "state": state,
            "attempts": attempts, "known": known}


def _unready(copies: Mapping[str, np.ndarray], listed: np.ndarray, keys: np.ndarray
             ) -> np.ndarray:
    """:func:`unready` of rows a list shows with the statuses ``listed`` and the summary
    ``keys``, whose copies are ``copies``."""
    why = np.full(len(listed), None, dtype=object)
    why[copies["status"] != listed] = "status (the list shows another status than its copy's)"
    why[copies["summary"] != keys] = "changed (the list shows another summary than its copy's)"
    why[copies["attempts"] > 0] = "failed since its copy (its copy is kept, out of date)"
    why[~np.isin(copies["state"], ["fetched", "gone"])] = "failed"
    why[~copies["known"]] = "new"
    return why


def _older(listing: pd.DataFrame, index: pd.DataFrame, now: dt.datetime,
           limit: dt.timedelta | None) -> np.ndarray:
    """Which rows' copies are older than ``limit`` (or of the future, or of no time); a gone
    ICO's never."""
    if limit is None or listing.empty:
        return np.zeros(len(listing), dtype=bool)
    kept = index.reindex(listing["id"].to_numpy(dtype="int64"))
    age = pd.Timestamp(now) - pd.to_datetime(kept["fetched_at"], utc=True)
    old = ((age > limit) | (age < pd.Timedelta(0)) | age.isna()).to_numpy(dtype=bool)
    if "state" in kept:
        return old & (kept["state"].astype(object).to_numpy() != "gone")
    return old


def not_ready(candidate: CachedList, index: pd.DataFrame, now: dt.datetime,
              ages: Mapping[str, dt.timedelta] | None, *,
              within: dt.timedelta | None = None) -> str | None:
    """Why the list's profiles cannot stand for the service now (None: they can).

    Each row's copy must be :func:`unready` for none, and within ``profile_max_age``
    (``ages``), and ``within`` when the answer reads fields the list does not show.
    """
    listing = candidate.listing
    if listing.empty:
        return None
    why = unready(listing, index, candidate.problems)
    bad = np.flatnonzero(why != None)  # noqa: E711 (element-wise)
    if len(bad):
        ids = listing["id"].to_numpy(dtype="int64")
        return (f"{len(bad)} of its profiles are not cached, failed, or changed since "
                f"(e.g. id {ids[bad[0]]}: {why[bad[0]]})")
    status = str(candidate.params.get("status"))
    for limit, what in ((None if ages is None else ages[status],
                         f"profile_max_age ({{}} for {status})"),
                        (within, "max_age ({}): the query reads fields the list does not show")):
        old = int(_older(listing, index, now, limit).sum())
        if old:
            # one style however the age was given (a timedelta's str differs from pandas')
            return f"{old} of its profiles are older than " + what.format(
                limit if limit is None else pd.Timedelta(limit))
    return None


def contradicted(query: Mapping[str, Any], candidate: CachedList, since: Sequence[CachedList],
                 *, read_rows: RowReader, index: pd.DataFrame | Callable[[], pd.DataFrame],
                 filter_set: pd.DataFrame, now: dt.datetime,
                 ages: Mapping[str, dt.timedelta] | None, rows: Rows | None = None) -> str | None:
    """Why a list of ``since`` (cached at or after ``candidate``) says the candidate's rows for
    ``query`` are not the service's now (None: none does); the newest is read first.

    ``rows`` are the candidate's rows (:func:`rows_of`), read once for every list since:
    each filter of theirs is judged once over them, not once per list. ``index``: the
    profile index, or what reads it (read only for a list since of its status holding a
    row it lacks). A list's summaries are read only beside a list sharing a row with it.
    """
    mine = candidate.listing
    ids = mine["id"].to_numpy(dtype="int64")
    summary: dict[int, Any] = {}
    status: dict[int, Any] = {}
    of_status = candidate.params.get("status")
    limit = None if ages is None else ages.get(str(of_status))
    lacked: _Lacked | None = None  # every row of a list since that the candidate lacks
    for other in sorted(since, key=lambda c: c.fetched_at, reverse=True):
        named = f"{shown(other.params)} of {other.fetched_at:%Y-%m-%d %H:%M} UTC"
        held = other.listing["id"].to_numpy(dtype="int64")
        inside, holds = np.isin(held, ids), np.isin(ids, held)
        if not inside.any() and other.params.get("status") != of_status:
            continue  # no row shared, another status: it says nothing of these rows
        held, keys, listed = other.shown_rows()
        if inside.any() and not summary:
            _, mine_keys, mine_status = candidate.shown_rows()
            summary.update(zip(ids.tolist(), mine_keys.tolist(), strict=True))
            status.update(zip(ids.tolist(), mine_status.tolist(), strict=True))
        for ico_id, key, shows in zip(held[inside].tolist(), keys[inside].tolist(),
                                      listed[inside].tolist(), strict=True):
            if key != summary[ico_id] or (isinstance(shows, str) and shows != status[ico_id]):
                return f"{named} shows id {ico_id} with another summary or status since"
        # a copy failing the filters of a list since that holds it is stale (a list of its
        # status alone has none to fail: the copies are not read for it)
        if inside.any() and residual(other.params, {"status": other.params.get("status")}):
            rows = rows_of(mine, read_rows) if rows is None else rows
            stale = failing_copies(other.params, rows, filter_set, listed_at=other.fetched_at)
            if (stale & holds).any():
                return (f"{named} holds id {ids[stale & holds][0]}, whose copy "
                        "fails that list's filters: the copy is out of date")
        if other.params.get("status") != of_status:
            continue
        lacking = ~holds
        if other.complete and lacking.any():  # judged over all its rows: row by row alike
            rows = rows_of(mine, read_rows) if rows is None else rows
            codes = judge(residual(other.params, candidate.params), rows, filter_set)[0]
            left = np.flatnonzero(lacking & (codes == IN))
            if len(left):
                return f"{named} lacks id {ids[left[0]]}: it left the list since"
        if not inside.all():
            filters = residual(query, other.params)
            # read once for all the lists since, each row's copy and verdicts (judged once
            # per filter): a load answered after many queries checks each of them
            lacked = lacked or _Lacked.of(ids, since, read_rows,
                                          index() if callable(index) else index, now, limit)
            at = pd.Index(lacked.rows.ids).get_indexer(held[~inside])
            if "ico_score" in filters:  # judged by the score this list shows: its rows alone
                codes = judge(filters, rows_of(other.listing[~inside], read_rows),
                              filter_set)[0]
            else:
                codes = judge(filters, lacked.rows, filter_set)[0][at]
            copies = {name: values[at] for name, values in lacked.copies.items()}
            codes[(_unready(copies, listed[~inside], keys[~inside]) != None)  # noqa: E711
                  | lacked.older[at] | failing_copies(other.params, lacked.rows, filter_set,
                                                      listed_at=other.fetched_at)[at]
                  ] = UNDECIDED
            maybe = np.flatnonzero(codes != OUT)
            if len(maybe):
                return (f"{named} holds id {held[~inside][maybe[0]]}, which it lacks and "
                        "the query may match: it joined the list since")
    return None


@dataclass(frozen=True)
class _Lacked:
    """The rows of lists since a candidate that it lacks, each once: what the filters read
    (no score shown: two lists may show two), the index's word on their copies, and which
    copies are older than the status's ``profile_max_age``."""

    rows: Rows
    copies: Mapping[str, np.ndarray]
    older: np.ndarray

    @classmethod
    def of(cls, ids: np.ndarray, since: Sequence[CachedList], read_rows: RowReader,
           index: pd.DataFrame, now: dt.datetime, limit: dt.timedelta | None) -> _Lacked:
        held = np.concatenate([other.shown_rows()[0] for other in since])
        lacked = np.setdiff1d(held, ids)
        return cls(Rows.of(lacked, *read_rows(lacked)), _copies(lacked, index),
                   _older(pd.DataFrame({"id": lacked}), index, now, limit))


def cached_list(stored: Stored) -> CachedList:
    """A stored list as a :class:`CachedList`."""
    return CachedList(stored.meta["params"], stored.frame, stored.fetched_at,
                      bool(stored.meta.get("complete")), problems=stored.meta.get("problems") or [])


class CacheReads:
    """What the checks of one query read of the cache, each read once, at its first use:
    its cached lists (:meth:`read_list`), the filter set (:meth:`filter_set`), the profile
    index (:meth:`index`) and the tidy tables (:meth:`icos`; :attr:`read_rows`, the
    :data:`RowReader` over them). Its own list declined (:func:`disputed`), a query is then
    answered from a list it narrows on the same reads, not on a second one of each."""

    def __init__(self, cache: Cache, derived: DerivedTables) -> None:
        self.cache, self._derived = cache, derived
        self._lists: dict[str, Stored | None] = {}
        self._cached: dict[str, CachedList | None] = {}
        self._read: dict[str, pd.DataFrame] = {}

    def read_list(self, params: Mapping[str, Any]) -> Stored | None:
        """The cached list of ``params`` (:meth:`~icoframes.store.cache.Cache.read_list`)."""
        key = self.cache.list_key(dict(params))
        if key not in self._lists:
            self._lists[key] = self.cache.read_list(dict(params))
        return self._lists[key]

    def cached(self, params: Mapping[str, Any]) -> CachedList | None:
        """The cached list of ``params`` as a :class:`CachedList`, made once (its rows shown,
        :meth:`CachedList.shown_rows`, are then read once too)."""
        key = self.cache.list_key(dict(params))
        if key not in self._cached:
            self._cached[key] = None if (stored := self.read_list(params)) is None else (
                cached_list(stored))
        return self._cached[key]

    def filter_set(self) -> pd.DataFrame:
        """The cached filter set, or an empty one (:func:`~.stalecopies.filter_frame`)."""
        return self._once("filters", lambda: filter_frame(self.cache))

    def index(self) -> pd.DataFrame:
        """The profile index (:meth:`~icoframes.store.cache.Cache.profile_index`)."""
        return self._once("index", self.cache.profile_index)

    def icos(self) -> pd.DataFrame:
        """The tidy ``icos`` table over every cached profile."""
        return self._once("icos", lambda: self._derived.table("icos"))

    def read_rows(self, ids: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The :data:`RowReader`: every row, read once (the same copies for every list
        judged with it), not at all when no check needs the rows."""
        return self.icos(), self._once("problems", lambda: self._derived.table("problems"))

    def _once(self, name: str, read: Callable[[], pd.DataFrame]) -> pd.DataFrame:
        if name not in self._read:
            self._read[name] = read()
        return self._read[name]


def disputed(own: Stored, reads: CacheReads, *, now: dt.datetime,
             ages: Mapping[str, dt.timedelta] | None) -> str | None:
    """Why a list cached since a query's own cached list ``own`` says its rows are not the
    service's now (:func:`contradicted`, the test a list answering a narrower query
    passes), None when none does or none was cached since: a query answered by its own list
    would return a removed ICO, one moved to another status, or lack one added, that a list
    paged later (``refresh=True`` of a wider query) shows. No request: the cache's lists,
    read through ``reads`` (the query's, which answers it from another list when declined)."""
    params, cache = own.meta["params"], reads.cache
    key = cache.list_key(params)
    # lists of its status only: an ICO listed under two statuses by a load's lists (it moved
    # while they were paged) is shown as the later lists it, and the older list is not
    # paged again for it on every load (the service may list it so for a while)
    since = [listed for other in cache.list_params(  # its millisecond's too
        fetched_after=own.fetched_at - dt.timedelta(milliseconds=1))
        if cache.list_key(other) != key and other.get("status") == params.get("status")
        and (listed := reads.cached(other)) is not None]
    if not since:
        return None
    return contradicted(params, cached_list(own), since, read_rows=reads.read_rows,
                        index=reads.index, now=now, ages=ages, filter_set=reads.filter_set())


def rows_of(listing: pd.DataFrame, read_rows: RowReader) -> Rows:
    """What the filters read of the rows of ``listing``: their copies, the score it shows."""
    ids = listing["id"].to_numpy(dtype="int64")
    return Rows.of(ids, *read_rows(ids), listed_score=listing["ico_score"].to_numpy(dtype=float))

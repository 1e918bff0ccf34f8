"""Narrower list queries answered from a cached superset, or a reason to ask the service.

After ``load_icos(status="past")`` every past ICO's profile is cached, so
``load_icos(status="past", category=[2])`` can be answered without a request:
every filter of spec 4.2 is a field of the profile. :func:`answer_from_cache`
does so when the answer is *exactly* the service's, from the stored fields
alone, and otherwise says why not (the load then asks the service).

A cached list may answer a query when it has the same status and the query
implies its filters (:func:`narrows`: ids and places a subset; ``ico_score`` at
least as high; a yes-flag kept; ``accepted_currencies`` the same set, since
spec 4.2 does not say whether several tickers mean any or all of them;
``exclude_areas`` more areas), it is complete and younger than ``max_age``, and
every row's profile is cached (or gone) with the summary and status the list
shows, no fetch of it failed since its copy (waiting out its backoff or not),
and within ``profile_max_age``; no list cached since shows one of its rows with
another summary or status, nor lacks one while holding all of its rows
(:func:`_contradicted`); and when the answer reads fields the list does not
show (a filter but ``ico_score``, a date sort) every copy is within ``max_age``
too: the rows then rest on the copies, not on the list. The filters the list
did not apply (:func:`residual`) then pick its rows
(:func:`icoframes.fetch.matching.judge`): answered only when no row is
undecided. A query sorted as the list keeps the list's order when the rows kept
do not tie on the key (:func:`~icoframes.fetch.matching.tie_order`); another
sort is done locally where it is certain
(:func:`~icoframes.fetch.matching.local_order`); an unsorted query of more
than one row is answered in the cached list's order, said
(:data:`ORDER_UNSTATED`): spec 4.2 states no default order, so the service's
order for the narrower list is not promised either (it may differ from the
cached one), and no argument cuts an unsorted answer short, so the order never
decides which rows come back.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..api.params import YES_FLAGS
from ..files import utcnow
from ..parse.lists import summary_keys
from ..schema import FILTERS, empty_frame
from ..store.cache import Cache, Stored
from ..store.derived import DerivedTables
from .matching import FILTER_PARAMS, IN, UNDECIDED, Rows, judge, local_order, sort_of, tie_order
from .paging import ListQuery

__all__ = ["CachedList", "LocalAnswer", "answer_from_cache", "answer_from_store",
           "cached_query", "candidate_params", "narrows", "residual"]


# -- which cached lists may answer a query -------------------------------------------------


def narrows(query: Mapping[str, Any], superset: Mapping[str, Any]) -> bool:
    """Whether every row ``query`` matches is a row of ``superset`` (wire parameters).

    Examples
    --------
    >>> narrows({"status": "past", "platform": [1], "bounty_program": "yes"},
    ...         {"status": "past", "platform": [1, 2]})
    True
    >>> narrows({"status": "past", "accepted_currencies": ["ETH"]},
    ...         {"status": "past", "accepted_currencies": ["BTC", "ETH"]})
    False
    """
    if query.get("status") != superset.get("status"):
        return False
    for name in FILTER_PARAMS:
        wide = superset.get(name)
        if wide is None:
            continue
        narrow = query.get(name)
        if narrow is None:
            return False
        if name == "ico_score":
            ok = narrow >= wide
        elif name == "exclude_areas":
            ok = set(narrow) >= set(wide)
        elif name == "accepted_currencies":  # any or all of them: spec 4.2 does not say
            ok = set(narrow) == set(wide)
        elif name in YES_FLAGS:
            ok = True
        else:
            ok = set(narrow) <= set(wide)
        if not ok:
            return False
    return True


def candidate_params(query: Mapping[str, Any], stored: Iterable[Mapping[str, Any]]
                     ) -> list[dict[str, Any]]:
    """Which of the cached lists ``stored`` (their parameters) may answer ``query``.

    Those it :func:`narrows`, the query itself excluded, fewest filters first: one
    read of the cache's list parameters, rather than a lookup per subset of the
    query's filters (2^n of them).

    Examples
    --------
    >>> candidate_params({"status": "past", "category": [2], "sort_asc": "id"},
    ...                  [{"status": "past", "category": [2], "sort_asc": "id"},
    ...                   {"status": "past", "category": [2, 3]}, {"status": "past"},
    ...                   {"status": "ongoing"}])
    [{'status': 'past'}, {'status': 'past', 'category': [2, 3]}]
    """
    asked = dict(query)
    return sorted((dict(params) for params in stored
                   if isinstance(params, Mapping) and dict(params) != asked
                   and narrows(query, params)),
                  key=lambda params: sum(params.get(name) is not None for name in FILTER_PARAMS))


def residual(query: Mapping[str, Any], superset: Mapping[str, Any]) -> dict[str, Any]:
    """The filters of ``query`` that ``superset`` (which it :func:`narrows`) did not apply.

    Examples
    --------
    >>> residual({"status": "past", "ico_score": 4, "exclude_areas": ["UK", "USA"]},
    ...          {"status": "past", "exclude_areas": ["USA"]})
    {'ico_score': 4, 'exclude_areas': ['UK']}
    """
    out: dict[str, Any] = {}
    for name in FILTER_PARAMS:
        narrow, wide = query.get(name), superset.get(name)
        if narrow is None or narrow == wide:
            continue
        if name == "exclude_areas" and wide is not None:
            narrow = [area for area in narrow if area not in set(wide)]
        out[name] = narrow
    return out


# -- the answer -----------------------------------------------------------------------


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


@dataclass(frozen=True)
class LocalAnswer:
    """A query answered from a cached list (``source``), or why it was not (``reasons``).

    ``listing`` is the superset's rows the query matches, in the service's
    order (``order`` says how that order was found).
    """

    query: Mapping[str, Any]
    source: CachedList | None = None
    listing: pd.DataFrame | None = None
    order: str = ""
    reasons: list[str] = field(default_factory=list)
    matched: tuple[int, ...] = ()  # of the last list judged: ids certainly in
    undecided: tuple[int, ...] = ()  # and those the stored fields cannot place

    @property
    def answered(self) -> bool:
        return self.source is not None


#: Reads the tidy rows of some ids: ``(icos, problems)`` (problems as in ``Tables``).
RowReader = Callable[[np.ndarray], tuple[pd.DataFrame, pd.DataFrame]]

#: How an answer of an unsorted query from the cache orders its rows (said in its report):
#: the rows are the service's, their order the cached list's, which may not be the order the
#: service would list the narrower query in.
ORDER_UNSTATED = ("the cached list's order: the service's default order is not stated "
                  "(spec 4.2), so a narrower list may come in another; give a sort for a "
                  "stated one")


def answer_from_cache(query: Mapping[str, Any], lists: Sequence[CachedList], *,
                      read_rows: RowReader, profile_index: pd.DataFrame,
                      filter_set: pd.DataFrame, now: dt.datetime,
                      max_age: dt.timedelta | None,
                      ages: Mapping[str, dt.timedelta] | None) -> LocalAnswer:
    """Answer ``query`` (validated wire parameters) from the smallest cached list that can.

    Parameters
    ----------
    query : mapping
        One list query, as :func:`icoframes.queries.build_queries` makes it.
    lists : sequence of CachedList
        Cached lists to consider (any status: those that cannot answer are skipped, and
        those fetched after a list that can say whether its rows changed since).
    read_rows : callable
        ``read_rows(ids) -> (icos, problems)``: the tidy rows of those ids.
    profile_index : DataFrame
        The cache's fetch state per id (``Cache.profile_index()``).
    filter_set : DataFrame
        The filter set (``load_filters()``): maps platform, category and type ids to names.
    now : datetime
        The time of the load (UTC).
    max_age, ages : optional
        How old the list and, per status, its profiles may be (None: no limit).

    Returns
    -------
    LocalAnswer
        ``answered`` with the rows and their source, or the reasons it could not be.
    """
    reasons: list[str] = []
    last = LocalAnswer(query)
    candidates = [c for c in lists if c.complete and narrows(query, c.params)
                  and (max_age is None or dt.timedelta(0) <= now - c.fetched_at <= max_age)]
    if not candidates:
        reasons.append("no complete cached list of this status younger than max_age holds it")
    for candidate in sorted(candidates, key=lambda c: len(c.listing)):
        why = _contradicted(candidate, [c for c in lists if c.fetched_at > candidate.fetched_at])
        why = why or _not_ready(candidate, profile_index, now, ages,
                                within=max_age if _reads_profile(query, candidate) else None)
        if why:
            reasons.append(f"{_shown(candidate.params)}: {why}")
            continue
        last = _answer(query, candidate, read_rows, filter_set)
        if last.answered:
            return last
        reasons.extend(f"{_shown(candidate.params)}: {r}" for r in last.reasons)
    return dataclasses.replace(last, reasons=reasons)


def answer_from_store(query: Mapping[str, Any], cache: Cache, derived: DerivedTables, *,
                      now: dt.datetime, max_age: dt.timedelta | None,
                      ages: Mapping[str, dt.timedelta] | None
                      ) -> tuple[LocalAnswer, Stored | None]:
    """:func:`answer_from_cache` over the lists ``cache`` holds that :func:`candidate_params` picks;
    also the stored list that answered (None when none did)."""
    found = {}
    for params in candidate_params(query, cache.list_params()):
        stored = cache.read_list(params)
        if stored is not None and stored.meta.get("complete"):
            found[cache.list_key(params)] = stored
    if not found:
        return LocalAnswer(query), None
    later = []  # the lists cached since the oldest that may answer: do they say it changed?
    for params in cache.list_params(fetched_after=min(s.fetched_at for s in found.values())):
        if cache.list_key(params) not in found and (stored := cache.read_list(params)):
            later.append(CachedList(stored.meta["params"], stored.frame, stored.fetched_at,
                                    bool(stored.meta.get("complete"))))
    filters = cache.read_filters()
    answer = answer_from_cache(
        query, [CachedList(s.meta["params"], s.frame, s.fetched_at, True)
                for s in found.values()] + later,
        read_rows=lambda ids: (derived.table("icos"), derived.table("problems")),
        profile_index=cache.profile_index(),
        filter_set=empty_frame(FILTERS) if filters is None else filters.frame,
        now=now, max_age=max_age, ages=ages)
    if answer.source is None:
        return answer, None
    return answer, found[cache.list_key(dict(answer.source.params))]


def cached_query(params: dict[str, Any], cache: Cache, derived: DerivedTables, *,
                 offline: bool, refresh: bool, limit: dt.timedelta | None,
                 ages: Mapping[str, dt.timedelta]) -> tuple[ListQuery, Stored | None]:
    """A load's list query, answered from the cache where it can be; and its own cached list.

    Its own cached list when complete and younger than ``limit`` (offline: any);
    else, unless ``refresh``, the rows of a cached list it narrows
    (:func:`answer_from_store`; offline whatever their age); else unanswered
    (``frame`` None) for the load to page, with why no cached list could answer
    (``declined``) and its own stale copy (the answer when paging fails).
    """
    stored = cache.read_list(params)
    # the clock after the read: a list another process kept while this load read the
    # cache is not "fetched in the future" (a clock stepped back), nor paged a second time
    now = utcnow()
    if stored is not None:
        cached = ListQuery(params)
        cached.use_cached(stored)
        fresh = limit is None or dt.timedelta(0) <= now - stored.fetched_at <= limit
        if offline or (not refresh and (cached.complete or cached.count_contradicts) and fresh):
            return cached, stored
    query = ListQuery(params)
    if not refresh:
        answer, source = answer_from_store(params, cache, derived, now=now,
                                           max_age=None if offline else limit,
                                           ages=None if offline else ages)
        if source is not None and answer.listing is not None:
            query.use_answer(answer.listing, source,
                             unstated=answer.order if answer.order == ORDER_UNSTATED else None)
        else:
            query.declined = answer.reasons
    return query, stored


def _shown(params: Mapping[str, Any]) -> str:
    return "the cached list " + str({k: v for k, v in params.items() if v is not None})


def _reads_profile(query: Mapping[str, Any], candidate: CachedList) -> bool:
    """Whether the answer reads fields the list does not show (its summary: name, score,
    raised; its status): which rows it has, or their order, then rest on the copies."""
    sort = sort_of(query)
    return (any(name != "ico_score" for name in residual(query, candidate.params))
            or (sort is not None and sort[0] in ("start_datetime", "end_datetime")))


def _contradicted(candidate: CachedList, later: Sequence[CachedList]) -> str | None:
    """Why lists cached after ``candidate`` say its rows changed since (None: none does): one
    shows a row of it with another summary or status, or a complete one that holds every
    row it has (it :func:`narrows`) lacks one."""
    if not later or candidate.listing.empty:
        return None
    mine = candidate.listing
    ids = mine["id"].to_numpy(dtype="int64")
    summary = dict(zip(ids.tolist(), summary_keys(mine), strict=True))
    status = dict(zip(ids.tolist(), mine["status"].astype(object).tolist(), strict=True))
    for other in sorted(later, key=lambda c: c.fetched_at, reverse=True):
        named = f"{_shown(other.params)} of {other.fetched_at:%Y-%m-%d %H:%M} UTC"
        theirs = other.listing[other.listing["id"].isin(ids)]
        shown = zip(theirs["id"].tolist(), summary_keys(theirs),
                    theirs["status"].astype(object).tolist(), strict=True)
        for ico_id, key, listed in shown:
            if key != summary[ico_id] or (isinstance(listed, str) and listed != status[ico_id]):
                return f"{named} shows id {ico_id} with another summary or status since"
        if other.complete and narrows(candidate.params, other.params):
            gone = np.setdiff1d(ids, other.listing["id"].to_numpy(dtype="int64"))
            if len(gone):
                return f"{named} lacks id {gone[0]}: it left the list since"
    return None


def _not_ready(candidate: CachedList, index: pd.DataFrame, now: dt.datetime,
               ages: Mapping[str, dt.timedelta] | None, *,
               within: dt.timedelta | None = None) -> str | None:
    """Why the list's profiles cannot stand for the service now (None: they can).

    Each row's copy must be fetched (or the ICO gone), of the summary and status
    the list shows, with no failure since: read from the index itself, not from
    what a load would fetch, since a profile waiting out its backoff is not due
    and yet its copy is out of date (it would decide filters by old values).
    Within ``profile_max_age`` (``ages``), and ``within`` when the answer reads
    fields the list does not show.
    """
    listing = candidate.listing
    if listing.empty:
        return None
    ids = listing["id"].to_numpy(dtype="int64")
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
    why = np.full(len(ids), None, dtype=object)
    listed = listing["status"].astype(object).to_numpy()
    why[column("status") != listed] = "status (the list shows another status than its copy's)"
    why[column("summary") != np.asarray(summary_keys(listing), dtype=object)] = (
        "changed (the list shows another summary than its copy's)")
    why[attempts > 0] = "failed since its copy (its copy is kept, out of date)"
    why[~np.isin(state, ["fetched", "gone"])] = "failed"
    why[~known] = "new"
    bad = np.flatnonzero(why != None)  # noqa: E711 (element-wise)
    if len(bad):
        return (f"{len(bad)} of its profiles are not cached, failed, or changed since "
                f"(e.g. id {ids[bad[0]]}: {why[bad[0]]})")
    fetched = kept.loc[state != "gone", "fetched_at"]
    age = pd.Timestamp(now) - pd.to_datetime(fetched, utc=True)
    status = str(candidate.params.get("status"))
    for limit, what in ((None if ages is None else ages[status],
                         f"profile_max_age ({{}} for {status})"),
                        (within, "max_age ({}): the query reads fields the list does not show")):
        old = 0 if limit is None else int(
            ((age > limit) | (age < pd.Timedelta(0)) | age.isna()).sum())
        if old:
            return f"{old} of its profiles are older than " + what.format(limit)
    return None


def _answer(query: Mapping[str, Any], candidate: CachedList, read_rows: RowReader,
            filter_set: pd.DataFrame) -> LocalAnswer:
    listing = candidate.listing.reset_index(drop=True)
    ids = listing["id"].to_numpy(dtype="int64")
    rows = Rows.of(ids, *read_rows(ids), listed_score=listing["ico_score"].to_numpy(dtype=float))
    codes, undecided = judge(residual(query, candidate.params), rows, filter_set)
    keep = np.flatnonzero(codes == IN)
    judged = LocalAnswer(query, matched=tuple(ids[keep].tolist()),
                         undecided=tuple(ids[codes == UNDECIDED].tolist()))
    if undecided:
        return dataclasses.replace(judged, reasons=[f"{n} row(s) undecided, {why}"
                                                    for why, n in undecided.items()])
    sort, source_sort = sort_of(query), sort_of(candidate.params)
    order: np.ndarray | None
    if sort == source_sort and sort is not None:
        why = tie_order(sort, listing.iloc[keep], rows.take(keep))
        if why is not None:  # the narrower list's tie order is not stated
            return dataclasses.replace(judged, reasons=[why])
        order, how = np.arange(len(keep)), "the cached list's order"
    elif sort is None:
        order = np.arange(len(keep))
        how = ORDER_UNSTATED if len(keep) > 1 else "one row at most: in any order"
    else:
        order, how = local_order(sort, listing.iloc[keep], rows.take(keep))
        if order is None:
            return dataclasses.replace(judged, reasons=[how])
    return dataclasses.replace(judged, source=candidate, order=how,
                               listing=listing.iloc[keep[order]].reset_index(drop=True))

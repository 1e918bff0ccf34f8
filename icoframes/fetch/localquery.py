"""Narrower list queries answered from a cached superset, or a reason to ask the service.

After ``load_icos(status="past")`` every past ICO's profile is cached, so
``load_icos(status="past", category=[2])`` can be answered without a request:
every filter of spec 4.2 is a field of the profile. :func:`answer_from_cache`
does so when the answer is *exactly* the service's, from the stored fields
alone, and otherwise says why not (the load then asks the service).

A cached list may answer a query when it has the same status and the query
implies its filters (:func:`~icoframes.fetch.matching.narrows`: ids and places a
subset; ``ico_score`` at least as high; a yes-flag kept; ``accepted_currencies``
the same set, since spec 4.2 does not say whether several tickers mean any or
all of them; ``exclude_areas`` more areas), it is complete and younger than
``max_age``, and every row's profile is cached (or gone) with the summary and
status the list shows, no fetch of it failed since its copy (waiting out its
backoff or not), and within ``profile_max_age``; no list cached since (at or
after it) says its rows for this query are not the service's now: a row shown with
another summary or status, an ICO it lacks that the query may match (joined since), a row
it has that a list its copy passes lacks (left since) or one holds whose filters its older
copy fails (changed since) (:func:`~icoframes.fetch.standing.contradicted`); and when the answer
reads fields the list does not show (a filter but ``ico_score``, a date sort)
every copy is within ``max_age`` too: the rows then rest on the copies, not on
the list. The newest list that can answer does (the smallest of one time). The
filters the list did not apply (:func:`~icoframes.fetch.matching.residual`) then
pick its rows (:func:`icoframes.fetch.matching.judge`): answered only when no
row is undecided. No argument of the package cuts an answer short, so the order
never decides which rows come back, only in which order; where spec 4.2 states
no order the answer keeps the cached list's, and says so (``order_unstated``):

* an unsorted query of more than one row comes in the cached list's order
  (:data:`ORDER_UNSTATED`): spec 4.2 states no default order, so the service's
  order for the narrower list is not promised either;
* a query sorted as the list keeps the list's order
  (:func:`~icoframes.fetch.ordering.list_order`): the service's comparison orders a
  subset as it orders the whole, rows without a date included where they end the
  list (elsewhere one lost or gained its date since: paged); among rows that
  may tie under it (names equal under a collation the spec leaves open, the same
  date or none) the order is the cached list's, said
  (:data:`~icoframes.fetch.ordering.TIED`, with the key and how many rows);
* another sort is done locally where the order of distinct values is certain
  (:func:`~icoframes.fetch.ordering.local_order`), rows that truly tie (the same
  date, the same name) in the cached list's order, said; a row without the key or
  names whose order depends on the collation are declined (an order among
  distinct values, not a tie), and the query is paged.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..api.params import ID_LIST_PARAMS
from ..errors import CacheError, NotCached
from ..files import utcnow
from ..store.cache import Cache, Stored
from ..store.derived import DerivedTables
from .dateorder import date_sort, out_of_order, shown_order
from .listclock import after_now, ahead
from .matching import (
    FILTER_PARAMS,
    IN,
    UNDECIDED,
    Rows,
    judge,
    narrows,
    residual,
    sort_of,
)
from .ordering import list_order, local_order
from .paging import ListQuery
from .standing import (
    CachedList,
    CacheReads,
    RowReader,
    contradicted,
    disputed,
    not_ready,
    rows_of,
    shown,
)

__all__ = ["CachedList", "LocalAnswer", "answer_from_cache", "answer_from_store",
           "cached_query", "candidate_params", "mark_sorted_otherwise", "narrows",
           "offline_miss", "residual", "shown_order"]


# -- which cached lists may answer a query -------------------------------------------------


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


# -- the answer -----------------------------------------------------------------------


@dataclass(frozen=True)
class LocalAnswer:
    """A query answered from a cached list (``source``), or why it was not (``reasons``).

    ``listing`` is the superset's rows the query matches, in the service's
    order (``order`` says how that order was found) but for what ``unstated``
    says: an unsorted query's order, or the order among rows that tie under the
    sort, both the cached list's (None: the order is the service's).
    """

    query: Mapping[str, Any]
    source: CachedList | None = None
    listing: pd.DataFrame | None = None
    order: str = ""
    unstated: str | None = None  # what of that order is not the service's, said in the report
    reasons: list[str] = field(default_factory=list)
    matched: tuple[int, ...] = ()  # of the last list judged: ids certainly in
    undecided: tuple[int, ...] = ()  # and those the stored fields cannot place

    @property
    def answered(self) -> bool:
        return self.source is not None


#: Why a partial cached list answers nothing (said in ``cache_declined``).
PARTIAL = ("partial (its pages did not list every ICO it counts, or it moved while paged): "
           "it may lack rows of the query")

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
    """Answer ``query`` (validated wire parameters) from the newest cached list that can.

    Parameters
    ----------
    query : mapping
        One list query, as :func:`icoframes.queries.build_queries` makes it.
    lists : sequence of CachedList
        Cached lists to consider (any status, partial ones too: those that cannot answer
        are skipped, a partial one narrowing the query named in the reasons, and those
        fetched at or after a list that can say whether its rows changed since).
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
        reasons += [after_now(shown(c.params), c.fetched_at, now) for c in lists
                    if c.complete and narrows(query, c.params) and ahead(c.fetched_at, now)
                    and max_age is not None] or [
            "no complete cached list of this status younger than max_age holds it"]
    reasons += [f"{shown(c.params)}: {PARTIAL}" for c in lists
                if not c.complete and narrows(query, c.params)]
    # the newest first: it stands for the service nearest now, and no older list may say
    # otherwise (an older smaller list answers only when no list since contradicts it)
    for candidate in sorted(candidates, key=lambda c: (-c.fetched_at.timestamp(),
                                                       len(c.listing))):
        since = [c for c in lists if c is not candidate and c.fetched_at >= candidate.fetched_at]
        rows = rows_of(candidate.listing.reset_index(drop=True), read_rows)  # once a candidate
        why = contradicted(query, candidate, since, read_rows=read_rows, index=profile_index,
                           filter_set=filter_set, now=now, ages=ages, rows=rows)
        why = why or not_ready(candidate, profile_index, now, ages,
                               within=max_age if _reads_profile(query, candidate) else None)
        if why:
            reasons.append(f"{shown(candidate.params)}: {why}")
            continue
        last = _answer(query, candidate, rows, filter_set)
        if last.answered:
            return last
        reasons.extend(f"{shown(candidate.params)}: {r}" for r in last.reasons)
    return dataclasses.replace(last, reasons=reasons)


def answer_from_store(query: Mapping[str, Any], reads: CacheReads, *, now: dt.datetime,
                      max_age: dt.timedelta | None, ages: Mapping[str, dt.timedelta] | None
                      ) -> tuple[LocalAnswer, Stored | None]:
    """:func:`answer_from_cache` over the lists the cache holds that :func:`candidate_params`
    picks (a partial one named in the reasons) and those cached since the oldest complete one,
    read through ``reads`` (each once a query); also the stored list that answered (None when
    none did)."""
    cache = reads.cache
    found: dict[str, tuple[Stored, CachedList]] = {}
    read: list[str] = []
    lists: list[CachedList] = []
    for params in candidate_params(query, cache.list_params()):
        stored, listed = reads.read_list(params), reads.cached(params)
        if stored is not None and listed is not None:
            read.append(cache.list_key(params))
            if listed.complete:
                found[read[-1]] = stored, listed
            else:  # said, and what it holds may still show a change since another
                lists.append(listed)
    if not found and not lists:
        return LocalAnswer(query), None
    lists += [listed for _, listed in found.values()]
    if found:  # fetched_after is strict: from a millisecond before the oldest, so the lists of
        # its very millisecond are read too (paged before or after it: not known)
        oldest = min(s.fetched_at for s, _ in found.values()) - dt.timedelta(milliseconds=1)
        lists += [listed for params in cache.list_params(fetched_after=oldest)
                  if cache.list_key(params) not in read and (listed := reads.cached(params))]
    answer = answer_from_cache(
        query, lists, read_rows=reads.read_rows, profile_index=reads.index(),
        filter_set=reads.filter_set(), now=now, max_age=max_age, ages=ages)
    if answer.source is None:
        return answer, None
    return answer, found[cache.list_key(dict(answer.source.params))][0]


def cached_query(params: dict[str, Any], cache: Cache, derived: DerivedTables, *,
                 offline: bool, refresh: bool, limit: dt.timedelta | None,
                 ages: Mapping[str, dt.timedelta]) -> tuple[ListQuery, Stored | None]:
    """A load's list query, answered from the cache where it can be; and its own cached list.

    Its own cached list when complete and younger than ``limit`` (offline: any), unless a
    list cached since says its rows are not the service's now (:func:`disputed`: declined,
    said in ``declined``; offline, it answers when no other list can), or unless
    sorted by a date its rows' copies show out of its order (:func:`_order_moved`): online,
    when two copies fetched since the list show their dates out of its order (one changed
    after the paging), the list is not used (its order is old: ``repaged_for_order``, see
    :func:`mark_sorted_otherwise`); else its rows come in its order, said in
    ``order_unstated``; else, unless ``refresh``, the rows of a cached list it narrows
    (:func:`answer_from_store`; offline whatever their age); else unanswered
    (``frame`` None) for the load to page, with why no cached list could answer
    (``declined``) and its own stale copy (the answer when paging fails).
    """
    reads = CacheReads(cache, derived)  # (each read once: its own list's checks, then others')
    stored = reads.read_list(params)
    # the clock after the read: a list another process kept while this load read the
    # cache is not "fetched in the future" (a clock stepped back), nor paged a second time
    now = utcnow()
    moved: tuple[str, bool, str] | None = None
    dispute: str | None = None
    if stored is not None:
        cached = ListQuery(params)
        cached.use_cached(stored)
        fresh = limit is None or dt.timedelta(0) <= now - stored.fetched_at <= limit
        if offline or (not refresh and (cached.complete or cached.count_contradicts) and fresh):
            moved = _order_moved(params, stored, reads.icos)
            cached.order_unstated = None if moved is None else moved[0]
            dispute = disputed(stored, reads, now=now, ages=None if offline else ages)
            if dispute is None and (moved is None or offline or not moved[1]):
                return cached, stored
    query = ListQuery(params)
    if not refresh:
        answer, source = answer_from_store(params, reads, now=now,
                                           max_age=None if offline else limit,
                                           ages=None if offline else ages)
        if source is not None and answer.listing is not None:
            query.use_answer(answer.listing, source, unstated=answer.unstated)
        else:
            query.declined = answer.reasons
    if (stored is not None and not offline and not refresh and limit is not None
            and ahead(stored.fetched_at, now)):
        query.declined = [after_now("its own cached list", stored.fetched_at, now),
                          *query.declined]
    if stored is not None and dispute is not None:
        own = f"its own cached list of {stored.fetched_at:%Y-%m-%d %H:%M} UTC: {dispute}"
        cached.declined = query.declined = [own, *query.declined]
        if offline and query.frame is None:  # no other list answered: its own, said
            return cached, stored
    if stored is not None and moved is not None and moved[1] and not offline:
        query.repaged_for_order = query.frame is None  # (else a newer list answered)
        query.declined = [f"its own cached list of {stored.fetched_at:%Y-%m-%d %H:%M} UTC: "
                          f"copies fetched since show their {moved[2]} out of its order "
                          "(one changed since it was paged)", *query.declined]
    return query, stored


def offline_miss(folder: Any, queries: Sequence[ListQuery], *,
                 filter_set: bool) -> NotCached:
    """NotCached for an offline load no cached list answered, saying what is missing: no list
    of the query at all, or why each cached list it narrows could not answer it (its
    ``cache_declined``: a name order, rows the stored fields cannot place), and the filter
    set when it is not cached and an id filter needs it (an id is read from a profile's name)."""
    asked = [q.params for q in queries]
    if not any(q.declined for q in queries):
        return NotCached(f"offline=True, but nothing of this query is in the cache ({folder}): "
                         f"no list for {asked}. Load it once online first.")
    why = "; ".join(f"{q.params}: " + ("; ".join(q.declined) or "no list of it, nor one it "
                                       "narrows, is cached") for q in queries)
    lacks = ("" if filter_set or not any(k in p for p in asked for k in ID_LIST_PARAMS) else
             " The filter set is not cached (icoframes.load_filters() once online caches it).")
    return NotCached(f"offline=True: the cache ({folder}) holds no list of this query, and the "
                     f"cached lists it narrows cannot answer it: {why}.{lacks} Load it once "
                     "online (it fetches only what the cache cannot answer).")


def _order_moved(params: Mapping[str, Any], stored: Stored, icos: Callable[[], pd.DataFrame]
                 ) -> tuple[str, bool, str] | None:
    """A list sorted by a date whose rows' copies show those dates out of its order: what
    ``order_unstated`` says of its rows served in that order, whether paging the list again
    would put them in order, and the key; None when in order (rows without a copy or the
    date aside) or not sorted by a date.

    Paging again helps when two copies fetched after the list show their dates out of its
    order: unchanged since the paging, they would be in it, so one of them changed since
    and the service orders it elsewhere now. A copy older than the list out of order with
    others may show a date the service changed before the paging (the list already has the
    newer order: paging it again brings the same, on every call, however many such copies
    stand), or a newer copy beside it one changed since: the order alone cannot tell which,
    and the rows are served in the list's order, said. Every load fetches its profiles after
    its list's first page, so most lists have many copies newer than them.

    Never helps for a list marked ``sorted_otherwise`` (:func:`mark_sorted_otherwise`):
    paged again for its order, it came back out of order with the copies fetched after it.
    """
    sort = date_sort(params)
    if sort is None or stored.frame.empty:
        return None
    (key, descending), table = sort, icos()
    copies = table.set_index("id").reindex(stored.frame["id"].to_numpy(dtype="int64"))
    dates = copies[key].to_numpy(dtype="datetime64[ms]")
    if not out_of_order(dates, descending):
        return None
    # a copy of the list's page-1 ms came after it: a load fetches its profiles after page 1
    newer = (copies["fetched_at"] >= stored.fetched_at).to_numpy(dtype=bool)
    once = bool(stored.meta.get("sorted_otherwise"))
    return (f"the cached list's order, the service's when it was paged "
            f"({stored.fetched_at:%Y-%m-%d %H:%M} UTC): the rows are not sorted by the {key} "
            f"they show (a copy's {key} differs from the one the service sorted by then"
            + ("; the list paged again for this came back out of order too" if once else "")
            + ")",
            not once and out_of_order(dates[newer], descending), key)


def mark_sorted_otherwise(queries: Iterable[ListQuery], cache: Cache,
                          derived: DerivedTables) -> None:
    """Mark in ``cache`` each list the load paged again because its own cached list's order
    was declined (``repaged_for_order``) that is itself out of order with the copies fetched
    after its page 1 (:func:`_order_moved` would page it again): the service sorts it by
    another date than the one its profiles show (spec 2.3's end_datetime is the end of the
    current stage; what 4.2 sorts by is not stated), and paging it again would bring the
    same, on every call whose profiles are fetched again (a summary changed). Marked, it is
    not declined for its order until ``max_age`` or ``refresh=True`` pages it anew. Run once
    the load's profiles are in; a list in order is not marked, so a date moved since on a
    service that sorts by the dates it shows has the list paged again, as any.
    """
    reads = CacheReads(cache, derived)  # (the icos table read once, for every list)
    for query in queries:
        if (not query.repaged_for_order or not query.complete or query.from_cache
                or query.stood_in or query.frame is None or query.fetched_at is None):
            continue
        paged = Stored(query.frame, query.fetched_at, {})
        if (moved := _order_moved(query.params, paged, reads.icos)) is not None and moved[1]:
            with contextlib.suppress(CacheError):  # unmarked: at most one more paging
                cache.mark_sorted_otherwise(query.params, query.fetched_at)


def _reads_profile(query: Mapping[str, Any], candidate: CachedList) -> bool:
    """Whether the answer reads fields the list does not show (its summary: name, score,
    raised; its status): which rows it has, or their order, then rest on the copies."""
    return (any(name != "ico_score" for name in residual(query, candidate.params))
            or date_sort(query) is not None)


def _answer(query: Mapping[str, Any], candidate: CachedList, rows: Rows,
            filter_set: pd.DataFrame) -> LocalAnswer:
    listing = candidate.listing.reset_index(drop=True)
    ids = rows.ids
    codes, undecided = judge(residual(query, candidate.params), rows, filter_set)
    keep = np.flatnonzero(codes == IN)
    judged = LocalAnswer(query, matched=tuple(ids[keep].tolist()),
                         undecided=tuple(ids[codes == UNDECIDED].tolist()))
    if undecided:
        return dataclasses.replace(judged, reasons=[f"{n} row(s) undecided, {why}"
                                                    for why, n in undecided.items()])
    sort, source_sort = sort_of(query), sort_of(candidate.params)
    order: np.ndarray | None
    unstated: str | None = None
    if sort is None:
        order = np.arange(len(keep))
        how = ORDER_UNSTATED if len(keep) > 1 else "one row at most: in any order"
        unstated = ORDER_UNSTATED if len(keep) > 1 else None
    else:  # the same sort: the list's order, but among rows that may tie; else a local one
        order, how, unstated = (
            list_order(sort, listing, rows.icos, keep) if sort == source_sort
            else local_order(sort, listing.iloc[keep], rows.take(keep).icos))
        if order is None:
            return dataclasses.replace(judged, reasons=[how])
    return dataclasses.replace(judged, source=candidate, order=how, unstated=unstated,
                               listing=listing.iloc[keep[order]].reset_index(drop=True))

"""The lists of a load without a status, as of one moment.

A load without a status sends one query per status and combines their rows. An
ICO that moves between two statuses (an upcoming sale starting, an ongoing one
ending) leaves one list and joins another. Lists of different times then
disagree: the ICO is in both (its row of the older list shows its old status),
or, when the list it joined is the older one, in neither, and nothing would
say it is missing. So when the load pages the list of one status, it pages the
others too (:func:`page_together`: list pages only, the cached profiles are used as
usual), but for a list cached within :data:`TOGETHER_WINDOW` before its pages: that one is
as close to them as they are to each other, and paging it again would pay its pages twice.
A list another process sharing the cache dir is paging is waited for instead; that
process's claim sets the moment: of the others, those it pages too are waited for, those
kept since its claim (or within the window before it) are used as cached, and the older
ones are paged together (:func:`page_together`). A load that finds every list cached, but of
two moments (one cached more than the window before the newest, or cached before such a
process claimed it while another list was kept since: that process's new copy), waits so for
that one, which the process is paging again right then (:data:`WAITED`). When an ICO is
still listed twice, the row of the list that listed it last is the one kept
(:func:`one_row_each`); a row kept from an earlier list gives way to the same ICO listed
later by another query (:func:`listed_now_wins`). A load whose every list is answered from
the cache, all of one moment, pays nothing and waits for nothing (whatever another process
pages again meanwhile): its lists are as old as their ``fetched_at`` says, each within
``max_age``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import numpy as np
import pandas as pd

from ..files import utcnow
from ..queries import combined_sort
from ..schema import LIST, empty_frame
from ..store.cache import Stored
from ..store.db import ms
from .listclock import SKEW, warn_after_now
from .paging import ListQuery

__all__ = ["TOGETHER", "TOGETHER_THERE", "TOGETHER_WINDOW", "WAITED", "WITHIN", "first_listed",
           "listed_now_wins", "listed_rows", "listed_seconds", "one_row_each", "page_together",
           "paged_at"]

#: How long before a load's pages a list the cache answers counts as paged with them: a
#: load without a status that pages one list uses such a list as cached (and one another
#: process kept this long before it claimed a list this load waits for). Its three lists then
#: describe moments at most this window plus its own paging apart. The paging of long lists
#: spans seconds to minutes already, so a list kept seconds before it is as much of its moment
#: as its own pages are; and a list a peer keeps is about as close: two loads started together
#: (a cron line, a notebook beside a script) keep their lists within seconds of each other.
#: Equal to a claim's lease (:data:`~icoframes.store.claims.LEASE`): a load waiting for a
#: stopped peer already pages that list alone up to a lease after its others.
TOGETHER_WINDOW = dt.timedelta(seconds=20)
#: Why a list a load without a status could answer from the cache is paged (its
#: ``cache_declined``): another status's list is paged by the load, and it was cached before
#: the window (or dated after the load's pages: a clock stepped back).
TOGETHER = ("paged with the list of {paged} (paged by this load): a load without a status "
            "pages its lists together, so that an ICO that moved between statuses since the "
            "cached list is listed once, under its status now (this list was listed from "
            "{cached:%Y-%m-%d %H:%M:%S} UTC, not within the {window:g} s before this load's "
            "pages)")
#: The same, when that list is paged by another process sharing the cache dir: a list cached
#: before it claimed that list (more than the window) is paged again (or waited for, when that
#: process pages it too).
TOGETHER_THERE = ("paged with the list of {paged}, which another process sharing the cache dir "
                  "claimed at {moment:%Y-%m-%d %H:%M:%S.%f} UTC (this list was listed from "
                  "{cached:%Y-%m-%d %H:%M:%S} UTC, not within the {window:g} s before): a load "
                  "without a status pages its lists together, so that an ICO that moved "
                  "between statuses since the cached list is listed once, under its status now")

#: Why a list the cache answers counts as of the moment of a load without a status that pages
#: (or waits for) another list (its ``cache_used``): cached within the window before it. It
#: is not paged again, so an ICO that moved between statuses within those seconds may be in
#: no list of the load (or in two: the row listed last is kept).
WITHIN = ("used as cached, as of this load's moment: listed from {cached:%Y-%m-%d %H:%M:%S} "
          "UTC, {age:.1f} s before {before} (within the {window:g} s window); an ICO that "
          "moved between statuses in those seconds may be missing from the load")

#: Why a list a load without a status that pages none could answer from the cache is waited
#: for instead: another process sharing the cache dir is paging it again right then (should
#: that process stop or give up first, :data:`~.sharedlists.LAPSED` or
#: :data:`~.sharedlists.RELEASED` follows: paged by this load).
WAITED = ("paged again right then by another process sharing the cache dir, so waited for: a "
          "load without a status takes its lists of one moment, so that an ICO that moved "
          "between statuses since the cached list is listed once, under its status now")

Found = tuple[ListQuery, "Stored | None"]


class Sharing(Protocol):
    """How a load claims its lists across processes (:class:`.sharedlists.SharedLists`)."""

    moment: dt.datetime | None

    def claim(self, query: ListQuery, stored: Stored | None) -> bool: ...

    def paged_elsewhere(self, queries: list[ListQuery]
                        ) -> list[tuple[ListQuery, dt.datetime | None]]: ...

    def share(self, query: ListQuery, stored: Stored | None, since: dt.datetime
              ) -> bool | None: ...


def page_together(queries: list[dict[str, Any]], find: Callable[[dict[str, Any], bool], Found],
                  lists: Sharing, *, status: str | None, filters: Mapping[str, Any],
                  offline: bool) -> list[tuple[ListQuery, Stored | None, pd.DataFrame | None,
                                               bool]]:
    """The load's list queries (wire parameters), each answered from the cache or to page
    (``frame`` None; with ``mine``: claimed by this load to page, else waited for or offline);
    for a load without a status that pages one, the others paged too, but for those cached
    within :data:`TOGETHER_WINDOW` before its first page (used as cached).

    ``find(params, again)`` answers ``params`` from the cache when it can (its own cached
    list too: :func:`.localquery.cached_query`); ``again``: never, to page it. ``lists``
    claims a query to page (:class:`.sharedlists.SharedLists`). When another process sharing
    the cache dir pages a list this load needs (its claim taken), this load waits for it,
    and that claim's moment (``lists.moment``) decides for each list the cache answers:
    one that process pages again too is waited for; one kept since that moment (or within
    the window before it, as that process counts it) is used as
    the cache holds it now (that process's, or later): paging it again would pay its pages
    twice, and that process, an export, would find the day's lists newer than its own at its
    swap and write nothing; one older is paged together, as when this load pages a list
    itself, else an ICO that moved between the two pagings would be in no list. A load
    without a status that pages none of its lists, cached at two moments, waits so for one
    another process is paging again right then (``lists.paged_elsewhere``) that is cached
    more than the window before the newest, or before that process's claim while another
    list was kept since (:func:`_busy`: that process's newer lists and the older copy are
    of two moments); lists of one moment are used as cached, whatever is paged meanwhile.
    Each query
    comes with its fallback should its paging bring nothing: its own cached list (its
    claim's copy), or else the cache's answer it had; a query paged only to be
    with the others keeps that answer (``ListQuery.stand_in``) should its paging come back
    partial too (a failed paging is no reason to answer with less than the cache had).
    When the loader sorts the combined rows itself (a sort without a status), no query's
    order is unstated: the result's order is the sort's. Last, the rows of a query
    answered from the cache whose profiles are to plan: those no later list of the load
    lists (an ICO two cached lists list is planned by the row the result keeps,
    :func:`one_row_each`: the older row's status would have its newer copy fetched
    again); None for a query to page.
    """
    found = [find(params, False) for params in queries]
    # paged: never silently for a clock behind the cache's; once for the load's lists
    warn_after_now((q.params, q.declined) for q, _ in found if q.frame is None)
    fallbacks: dict[int, Stored | None] = {}
    if status is None and not offline and all(q.frame is not None for q, _ in found):
        # every list cached, but of two moments, and an older one paged again by another
        # process right then: waited for (the moment rule below), else the lists mix its
        # older copy and the newer ones that process kept, and an ICO that moved between
        # them may be in none. Lists of one moment agree with each other: used as cached
        when = [first_listed(q, None) for q, _ in found]
        busy = {id(q) for q in _busy(found, when, lists.paged_elsewhere([q for q, _ in found]))}
        for n, (query, _) in enumerate(found):
            if id(query) in busy:
                waited, own, fallbacks[id(waited)] = _again(query, find, WAITED)
                found[n] = waited, own
    if status is None and combined_sort(status, filters) is not None:
        for query, _ in found:
            query.order_unstated = None  # sort_rows orders every row (ties by id)
    mine = {id(query): lists.claim(query, stored) for query, stored in found
            if query.frame is None and not offline}
    paged = [str(q.params.get("status")) for q, _ in found if mine.get(id(q))]
    waits = [str(q.params.get("status")) for q, _ in found if mine.get(id(q)) is False]
    # the moment: this load's first page, asked next (after its claims, so that a peer that
    # waits for one of them counts from an earlier time and pages none of the lists used here)
    now = utcnow()
    moment = now if paged else lists.moment
    used: list[tuple[ListQuery, Stored | None, Stored | None]] = []
    for query, stored in found:
        if status is not None or offline or query.frame is None or not (paged or waits):
            used.append((query, stored, fallbacks.get(id(query), stored)))
        elif moment is None or _within(cached := first_listed(query, None) or moment, moment,
                                       now):
            _used_within(query, cached, moment, paged, waits)
            used.append((query, stored, stored))  # of the moment, as cached (never paged twice)
        elif paged:  # this load's moment: claimed in turn below (waited for when taken)
            used.append(_again(query, find, TOGETHER.format(
                paged=_named(paged), cached=cached, window=TOGETHER_WINDOW.total_seconds())))
        else:  # claimed to page (older than that moment), or waited for (paged there too)
            redo = _again(query, find, TOGETHER_THERE.format(
                paged=_named(waits), moment=moment, cached=cached,
                window=TOGETHER_WINDOW.total_seconds()))
            if (since := lists.share(*redo[:2], moment - TOGETHER_WINDOW)) is None:
                kept_since, own = find(query.params, False)  # kept since that moment: as cached
                _used_within(kept_since, first_listed(kept_since, None), moment, paged, waits)
                used.append((kept_since, own, own))
            else:
                used.append(redo)
                mine[id(redo[0])] = since
    for query, stored, _ in used:  # each list paged with this load's: claimed in turn
        if query.frame is None and not offline and id(query) not in mine:
            mine[id(query)] = lists.claim(query, stored)
    answered = [query for query, _, _ in used if query.frame is not None]
    kept = dict(zip(map(id, answered), _kept(answered), strict=True))
    return [(query, fallback, None if query.frame is None else query.frame[kept[id(query)]],
             bool(mine.get(id(query)))) for query, _, fallback in used]


def _busy(found: list[Found], when: list[dt.datetime | None],
          held: list[tuple[ListQuery, dt.datetime | None]]) -> list[ListQuery]:
    """Of a load's lists, all cached (listed from ``when``), those ``held`` (another process
    pages them again, claimed then) that are not of the moment of the others: cached more
    than the window before the newest, or before that process claimed it while another list
    was cached since (that process's new copy, a few seconds newer: within the window of
    this one, but of a moment after it). Lists all older than the claim are of one moment."""
    newest = max((w for w in when if w is not None), default=None)
    at = {id(q): w for (q, _), w in zip(found, when, strict=True)}
    return [q for q, claimed in held if (w := at[id(q)]) is not None and newest is not None and (
        newest - w > TOGETHER_WINDOW or (claimed is not None and w < claimed <= newest))]


def _within(cached: dt.datetime, moment: dt.datetime, now: dt.datetime) -> bool:
    """Whether a list cached (listed from) ``cached`` is of ``moment``: within the window
    before it, or since (a list the process this load waits for kept after its claim), but
    never after ``now``: a list dated after now is of no moment this load knows (the clock
    was stepped back since it was paged), which of its ICOs moved since is unknown. Under
    :data:`~.listclock.SKEW` after now is two clocks read apart (processes of one host)."""
    return moment - TOGETHER_WINDOW <= cached <= now + SKEW


def _used_within(query: ListQuery, cached: dt.datetime | None, moment: dt.datetime | None,
                 paged: list[str], waits: list[str]) -> None:
    """Say in ``query`` (used as cached) that its list counts as of the load's ``moment``,
    when it was listed before it (within the window): told apart from a plain cache hit."""
    if moment is None or cached is None or cached >= moment:
        return  # (kept since the moment: of it)
    before = ("this load's pages" if paged else "another process sharing the cache dir "
              f"claimed the list of {_named(waits)}")
    query.cache_used = WITHIN.format(cached=cached, age=(moment - cached).total_seconds(),
                                     before=before, window=TOGETHER_WINDOW.total_seconds())


def _named(statuses: list[str]) -> str:
    return " and ".join(repr(s) for s in statuses)


def _again(query: ListQuery, find: Callable[[dict[str, Any], bool], Found], why: str
           ) -> tuple[ListQuery, Stored | None, Stored | None]:
    """``query``, answered from the cache, to page with other lists (``why``)."""
    redo, own = find(query.params, True)
    redo.declined = [why]
    redo.stand_in = query  # should the paging come back partial, the cache's answer stands
    return redo, own, own if own is not None else _as_stored(query)


def _as_stored(query: ListQuery) -> Stored:
    """A query answered from the cache, as the cached list that stands in should its paging
    bring nothing (partial: the paging failed)."""
    assert query.frame is not None and query.fetched_at is not None
    return Stored(query.frame, query.fetched_at, {
        "params": query.params, "complete": False, "total_icos": query.total_icos,
        "problems": query.problems, "items": query.n_items, "paged_at": query.paged_at})


def listed_rows(queries: list[ListQuery]) -> pd.DataFrame:
    """The rows the load's lists answer with, one per ICO: each earlier row gives way to the
    same ICO listed later (:func:`listed_now_wins`), then :func:`one_row_each`. At the daily
    limit the load plans those no page brought, sending nothing, so that a re-run refused
    at its first list page still says which of its cached rows are older than asked."""
    listed_now_wins(queries)
    return one_row_each(queries)


def one_row_each(queries: list[ListQuery]) -> pd.DataFrame:
    """The rows of the load's lists, one per ICO, in the lists' order: of an ICO listed by
    two of them, the row of the list that listed it last (it moved there since the other
    listed it; a tie keeps the first)."""
    frames = [q for q in queries if q.frame is not None]
    if not frames:
        return empty_frame(LIST)
    listing = pd.concat([q.frame for q in frames], ignore_index=True)
    keep = np.concatenate(_kept(frames))
    return listing if keep.all() else listing[keep].reset_index(drop=True)


def _kept(queries: list[ListQuery]) -> list[np.ndarray]:
    """Per query (each with a ``frame``), which of its rows the result keeps: of an ICO listed
    by two of them, the row of the list that listed it last (a tie: the first)."""
    sizes = [len(q.frame) for q in queries if q.frame is not None]
    ids = np.concatenate([q.frame["id"].to_numpy() for q in queries if q.frame is not None]
                         or [np.empty(0, dtype="int64")])
    keep = np.ones(len(ids), dtype=bool)
    if len(np.unique(ids)) < len(ids):
        when = np.concatenate([_listed_at(q) for q in queries])
        order = np.argsort(-when, kind="stable")  # the latest first; a tie: the earlier list
        keep[:] = False
        keep[order[~pd.Series(ids[order]).duplicated(keep="first").to_numpy()]] = True
    return np.split(keep, np.cumsum(sizes)[:-1]) if sizes else []


def paged_at(query: ListQuery) -> dt.datetime | None:
    """When every row of ``query``'s paged list was listed, cached beside its ``fetched_at``:
    its page 1, though an export's list paged after 00:00 is dated its day's last ms, so that
    lists a run begun before midnight paged after it rank as paged, not as one tie; None when
    it keeps rows of an earlier list (they are as old as its ``fetched_at``)."""
    return None if query.kept else query.paged_at


def first_listed(query: ListQuery, page: int | None) -> dt.datetime | None:
    """When ``query`` listed the earliest of its rows, for its whole list (``page`` None):
    its page 1, or the earlier list it keeps rows of (None: a page, listed just now). A copy
    fetched after it says nothing of that list's filters (the ICO may have changed since)."""
    if page is not None:
        return None
    when = query.paged_at or query.fetched_at
    if query.kept and when is not None:
        when = min(when, dt.datetime.fromisoformat(query.kept["fetched_at"]))
    return when


def _listed_at(query: ListQuery) -> np.ndarray:
    """When ``query`` listed each of its rows (ms): its kept rows when their list was, the
    others when it was paged (or cached: as its page 1, else its ``fetched_at``)."""
    assert query.frame is not None
    when = query.paged_at or query.fetched_at
    at = np.full(len(query.frame), 0 if when is None else ms(when), dtype="int64")
    if query.kept:
        from_kept = query.frame["id"].isin(query.kept["ids"]).to_numpy()
        at[from_kept] = ms(dt.datetime.fromisoformat(query.kept["fetched_at"]))
    return at


def listed_seconds(query: ListQuery, rows: pd.DataFrame) -> np.ndarray:
    """When ``query`` listed each of ``rows`` (seconds since the epoch; NaN: not known), which
    :func:`.policy.plan_profiles` weighs against each profile's fetch: only a list younger
    than the copy says the ICO moved to its status since."""
    if query.frame is None or query.frame.empty:
        return np.full(len(rows), np.nan)
    at = pd.Series(_listed_at(query) / 1000.0, index=query.frame["id"].to_numpy())
    at = at[~at.index.duplicated()].replace(0.0, np.nan)  # (0: no time known)
    return at.reindex(rows["id"].to_numpy()).to_numpy(dtype=float)


def listed_now_wins(queries: list[ListQuery]) -> None:
    """A row of an earlier list in a query (kept from its day's earlier list: ``kept``; or
    the whole of a cached list standing in for a failed paging) gives way to the same ICO
    listed later by another query of this load (paged now, or cached since): it moved there
    since (a new status), and the earlier row would hide the move. Said in ``kept`` and
    ``rows``; a query left with no kept row is dated by its paging again (``fetched_at``)."""
    for query in queries:
        if query.frame is None:
            continue
        if query.kept:
            earlier, since = set(query.kept["ids"]), dt.datetime.fromisoformat(
                query.kept["fetched_at"])
        elif query.from_cache and not query.complete and query.fetched_at is not None:
            # stands in: as old as its page 1, as the other lists are dated (_listed_after)
            earlier, since = set(query.frame["id"].tolist()), query.paged_at or query.fetched_at
        else:
            continue
        later = {i for other in queries if other is not query and other.frame is not None
                 for i in _listed_after(other, since)}
        if not (moved := earlier & later):
            continue
        query.frame = query.frame[~query.frame["id"].isin(moved)].reset_index(drop=True)
        if query.kept:
            left = sorted(earlier - moved)
            query.kept = {**query.kept, "rows": len(left), "ids": left} if left else None
            if not left and query.paged_at is not None:
                query.fetched_at = query.dated(query.paged_at)


def _listed_after(query: ListQuery, since: dt.datetime) -> list[int]:
    """The ids ``query`` listed after ``since``: its kept rows when they were, the others
    when it was paged (or cached: a cached list is as old as its oldest row)."""
    when = query.paged_at or query.fetched_at or dt.datetime.min.replace(tzinfo=dt.UTC)
    kept, kept_at = set(), when
    if query.kept:
        kept, kept_at = set(query.kept["ids"]), dt.datetime.fromisoformat(query.kept["fetched_at"])
    ids = [] if query.frame is None else query.frame["id"].tolist()
    return [i for i in ids if (kept_at if i in kept else when) > since]

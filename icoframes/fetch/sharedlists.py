"""List queries paged once across processes: a claim on the list before paging it.

Profiles are claimed id by id (:mod:`icoframes.store.claims`); a list query is
claimed the same way, under a negative id made from its key (so it never meets
a profile's), before its first page is asked. A load that finds the list
claimed by another live process waits for it: as soon as that process keeps
the list (in the store: another copy than the one this load found) the load uses it as if
it had paged it; if the claim lapses first (its owner died or stopped), the
load claims the list and pages it itself. A load never waits longer than a
lease (:data:`~icoframes.store.claims.LEASE`) for a silent peer. An export's day
(``after``) is never answered by a list the other process began paging before it
(a run started before 00:00 UTC): that list is not taken, and once its claim is
released the export pages the list itself. A claim keeps when it was taken: a load without
a status waiting for one of its lists takes that process's moment (:attr:`SharedLists.moment`)
for the lists the cache answers (:func:`.moment.page_together`).
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from ..files import utcnow
from ..store.cache import Cache, Stored
from ..store.claims import Claims, held_now
from .listclock import SKEW
from .paging import ListQuery

__all__ = ["LAPSED", "RELEASED", "SharedLists", "list_claim_id"]

log = logging.getLogger(__name__)

#: Said after why a list the cache could answer was waited for (its ``cache_declined``), when
#: the process paging it stopped or died first: this load paged it itself.
LAPSED = ("the process paging it stopped or died before it kept the list (its claim lapsed): "
          "paged by this load itself")
#: The same, when that process gave its claim up without keeping the list (alive: its paging
#: failed, or ended early: a timeout, the daily limit, an interrupt).
RELEASED = ("the process paging it gave up its claim without keeping the list (its paging "
            "failed or ended early): paged by this load itself")


def list_claim_id(params: dict[str, Any]) -> int:
    """The id a list query is claimed under: negative, from its cache key.

    Examples
    --------
    >>> list_claim_id({"status": "past"}) < 0
    True
    """
    return -int(Cache.list_key(params)[:15], 16) - 1


class SharedLists:
    """The list queries of one crawl, claimed before paging; those another process pages
    are waited for (:meth:`poll`).

    Parameters
    ----------
    cache : Cache
        Where the other process keeps the list.
    claims : callable
        The crawl's :class:`~icoframes.store.claims.Claims` (made on first use).
    after : datetime, optional
        A list another process kept but fetched before it is not taken (an export's day).
    opening : callable, optional
        ``opening(query)``: a context around each list's claim (the load's client made first).
    """

    def __init__(self, cache: Cache, claims: Callable[[], Claims], *,
                 after: dt.datetime | None = None,
                 opening: Callable[[ListQuery], AbstractContextManager[Any]] | None = None
                 ) -> None:
        self.cache, self._claims, self.after = cache, claims, after
        self._opening = opening or (lambda query: nullcontext())
        self.waiting: list[tuple[ListQuery, Stored | None]] = []
        #: When another process claimed a list this load waits for (the latest such claim;
        #: None: it waits for none): the moment of the lists it pages.
        self.moment: dt.datetime | None = None

    def claim(self, query: ListQuery, stored: Stored | None) -> bool:
        """Claim ``query`` to page it (True); False when another live process pages it, or
        kept it since this load looked (its claim already released): it waits, and
        :meth:`poll` brings that list (``stored``, its older cached copy, stays its answer
        should paging fail)."""
        with self._opening(query):
            mine, taken, _ = self._claims().claim([list_claim_id(query.params)], timed=True)
        if mine and self._kept(query, stored) is not None:  # paged and released meanwhile
            self.release(query)
            mine = []
        if not mine:
            self._wait(query, stored, bool(taken))
        return bool(mine)

    def paged_elsewhere(self, queries: list[ListQuery]
                        ) -> list[tuple[ListQuery, dt.datetime | None]]:
        """Of ``queries`` (answered from the cache), those another live process is paging
        right now (its claim on the list taken), each with when that process claimed it (in
        ms; None: not known): a read, nothing claimed; none in a read-only cache (this load
        claims nothing there, so it waits for nothing)."""
        if not queries or (db := self.cache.database(write=False)) is None:
            return []
        held = held_now(db, [list_claim_id(q.params) for q in queries])
        return [] if db.read_only else [(q, _in_ms(held[i])) for q in queries
                                        if (i := list_claim_id(q.params)) in held]

    def share(self, query: ListQuery, stored: Stored | None, since: dt.datetime
              ) -> bool | None:
        """For a load without a status waiting for a list another process claimed: claim
        ``query`` (its cached answer listed before ``since``, that claim's moment less
        :data:`~.moment.TOGETHER_WINDOW`) to page it with that list (True); False when that
        process pages it too (waited for); None when it was kept since ``since`` (the
        cache's copy is of that moment: no claim held; one dated after now, beyond the skew of
        two clocks, is not: the clock was stepped back since it was kept)."""
        if not self.claim(query, stored):
            return False
        kept = self.cache.list_fetched_at(query.params)
        # kept since this load looked (now read after it: a list kept meanwhile is before it)
        if kept is not None and since <= kept <= utcnow() + SKEW:
            self.release(query)
            return None
        return True

    def _wait(self, query: ListQuery, stored: Stored | None, taken: bool) -> None:
        """Wait for ``query``'s list, which another process claimed (and is paging if
        ``taken``), and take that claim's moment."""
        at = self._claims().moments.get(list_claim_id(query.params))
        moment = _in_ms(time.time() if at is None else at)
        assert moment is not None
        self.moment = moment if self.moment is None else max(self.moment, moment)
        self.waiting.append((query, stored))
        if taken:  # said: a run that pays none of this list's pages, and why it waits
            log.info("the list for %s is being paged by another process sharing the cache "
                     "dir: this load waits for it (and pages it itself should that process "
                     "stop first)", query.params)

    def taken_over(self, query: ListQuery) -> bool:
        """Whether ``query``, being paged, is now answered by the list another process kept
        after its claim lapsed (this process stopped past its lease: Ctrl-Z, a debugger): its
        pages left are not asked (those in flight are only planned). Asked before each page,
        so a process resumed pays none of the pages that process paid."""
        claims = self._claims()
        # drops the claims lost, once a third of a lease: a stop that lost the claim lasted a
        # lease at least, so the first page asked once resumed looks (not a write per page)
        claims.renew(every=claims.lease / 3)
        if list_claim_id(query.params) in claims.held:
            return False
        if (kept := self._kept(query, query.fallback)) is None:
            return False  # (not kept yet: paged on, its pages as likely to be needed as not)
        query.use_cached(kept)
        query.paging = False
        return True

    def _kept(self, query: ListQuery, stored: Stored | None) -> Stored | None:
        """The list of ``query`` another process kept since this load looked in the cache
        (and found ``stored``), if any: another copy than that one, whatever the clocks say,
        and not fetched before :attr:`after`."""
        kept = self.cache.read_list(query.params)
        if kept is None or (stored is not None and kept.fetched_at == stored.fetched_at):
            return None
        return None if self.after is not None and kept.fetched_at < self.after else kept

    def release(self, query: ListQuery) -> None:
        """The list is kept (or given up): others may page it again."""
        self._claims().release([list_claim_id(query.params)])

    def poll(self) -> tuple[list[ListQuery], list[tuple[ListQuery, Stored | None]]]:
        """The waited-for queries now answered by the list another process kept, and those
        whose claim lapsed and is now this crawl's (to page, with their older copy)."""
        arrived, to_page, still = [], [], []
        for query, stored in self.waiting:
            kept = self._kept(query, stored)
            claims = self._claims()
            if kept is None and claims.claim([list_claim_id(query.params)])[0]:
                kept = self._kept(query, stored)  # kept and released since the look above
                if kept is None:
                    if query.declined:  # (why the cache did not answer: and then this)
                        lapsed = list_claim_id(query.params) in claims.lapsed
                        query.declined = [*query.declined, LAPSED if lapsed else RELEASED]
                    to_page.append((query, stored))
                    continue
                self.release(query)
            if kept is not None:
                query.use_cached(kept)
                arrived.append(query)
            else:
                still.append((query, stored))
        self.waiting = still
        return arrived, to_page


def _in_ms(at: float | None) -> dt.datetime | None:
    """A claim's time (POSIX seconds) as a list's times are kept: in ms."""
    return None if at is None else dt.datetime.fromtimestamp(math.floor(at * 1000) / 1000, dt.UTC)

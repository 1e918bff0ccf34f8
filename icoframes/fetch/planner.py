"""Which profiles a load requests, in which order, each claimed across processes first.

The load hands every list row it gets to :meth:`ProfilePlan.add`; the plan
keeps those the cache lacks or holds stale (:func:`~icoframes.fetch.policy.plan_profiles`),
cuts them to the call's ``budget`` (most stale first), hands none out that would take the
allowance a list page may need (:meth:`ProfilePlan.next`), and claims them a few
at a time (:class:`~icoframes.store.claims.Claims`): one claimed by another
live process is waited for (:meth:`ProfilePlan.poll_others`) until a copy
arrives or that claim lapses. The profiles of a list's rows wait while the list is paged
again after a pass that moved, until the next pass lists them; a row only the moved pass
had is not requested (:meth:`~icoframes.fetch.paging.ListQuery.still_lists`).
"""

from __future__ import annotations

import datetime as dt
import os
from collections import deque
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

from ..api.control import profile_item
from ..api.params import PAGE_SIZE
from ..api.probes import ProbeRun
from ..files import utcnow
from ..parse.lists import summary_keys
from ..store.cache import Cache
from ..store.claims import Claims
from ..store.derived import DerivedTables
from .paging import ListQuery
from .policy import URGENT, ProfileIndex, Want, plan_profiles
from .stalecopies import ListedCopies

__all__ = ["UNKNOWN_PAGES", "ProfilePlan", "pages_needed"]

#: A list that has not said how many pages it has (its page 1 unanswered) counts as this many
#: (5,000 ICOs: as many profiles as a day of the service's allowance), or as its cached copy's
#: pages when it had more; twice in its first pass (it may be paged again).
UNKNOWN_PAGES = 250


class InFlight(Protocol):
    """The load's requests in flight (:class:`~icoframes.fetch.pool.RequestPool`)."""

    @property
    def busy(self) -> int: ...

    def infos(self, kind: str) -> list[Any]: ...


def pages_needed(lists: Collection[ListQuery]) -> int:
    """Page requests ``lists`` may still send, at most: those not asked yet, a pass more for
    each that may be paged again (of its latest count's pages, and one more), a page for a
    retry of each still paged, a list whose page count is not known yet counted as
    :data:`UNKNOWN_PAGES` (:meth:`~.paging.ListQuery.pages_at_most`)."""
    return sum(query.pages_at_most(UNKNOWN_PAGES) for query in lists)


class ProfilePlan:
    """The profiles one load wants: planned, claimed, requested, or left to the budget.

    Parameters
    ----------
    cache : Cache
        The store read when planning (its version and profile index, once).
    claimer : callable
        Returns the load's claims (made on first use; shared with its list claims).
    ages : mapping, optional
        Maximum profile age per status, applied to lists paged by this load.
    refresh_all : bool
        Every listed profile is wanted again.
    budget : int, optional
        Most profile requests this load may send.
    batch : int
        Profiles claimed at once (the load's workers).
    skip : callable, optional
        Why a want is not asked when its turn comes (None: it is); those skipped are
        reported not asked (:meth:`not_done`, :attr:`skipped`), their claims given up at
        once, and leave their room of the ``budget`` to the wants it cut.
    probes : ProbeRun, optional
        Asks for profiles out of turn after a run of wrong answers (:meth:`next`).
    settle : DerivedTables, optional
        The load's derived tables, to bring up to date first (a load of profiles): a stored
        copy that is no profile is set aside then, found missing, and fetched by this load
        (:meth:`~icoframes.store.derived.DerivedTables.settle`). The load's own: a lock that
        a stopped process holds is waited for once per load.
    """

    def __init__(self, cache: Cache, claimer: Callable[[], Claims], *,
                 ages: Mapping[str, dt.timedelta] | None, refresh_all: bool,
                 budget: int | None, batch: int,
                 skip: Callable[[Want], str | None] | None = None,
                 probes: ProbeRun | None = None, settle: DerivedTables | None = None) -> None:
        if settle:  # before any claim or request: a rebuild (about 0.4 s per 1,000 copies,
            # after an upgrade) would hold the crawl's thread while its leases lapse
            settle.settle()
        self._cache = cache
        self._claimer = claimer
        self._ages = ages
        self._refresh_all = refresh_all
        self.budget = budget
        self._batch = batch
        self._skip = skip
        self._probes = probes
        self._probing: set[int] = set()  # the ids last asked out of turn
        self.skipped: str | None = None  # why the first want skipped was not asked
        self._not_asked: list[int] = []  # the ids of those skipped
        self.over_budget: list[int] = []  # wanted, not requested: the budget ran out
        self._cut: list[Want] = []  # those the budget cut (not refused retries): room a skip frees
        self.requested = 0  # profile requests handed out
        self._sent: list[int] = []  # the ids of those requests, in order
        self.planned = 0  # profiles ever wanted
        self._budget_spent = False  # a retry was refused: every request of the budget went
        self._index: ProfileIndex | None = None
        self._keeps = True  # new copies can be kept (read with the index)
        # the store's version when this load planned; refresh="all": when it began, so that a
        # copy another process kept since (each wants every profile again) is this load's too
        # (else ids kept before a load's first page came would be fetched again by it)
        self._marker = cache.version() if refresh_all else 0
        self._seen: set[int] = set()
        self._wants: list[Want] = []  # planned, not yet claimed
        self._ready: deque[Want] = deque()  # claimed by this process, to request
        self._waiting: dict[int, Want] = {}  # claimed by another live process
        self._places: dict[int, tuple[int, int, int]] = {}  # id -> (query, page, row)
        self._listers: dict[int, set[int]] = {}  # id -> the lists (queries) that had it
        self._held: set[int] = set()  # planned ids no list has now (one paged again may)
        self._sifted: tuple[object, ...] = ()  # the lists' state and plan _sift saw
        self._now = utcnow()  # (set again with the index)
        # a load of profiles judges its pages' rows by the copies (read once, if at all)
        self._copies = None if settle is None else ListedCopies(cache, settle)

    @property
    def pending(self) -> int:
        """Planned and not yet requested (those other processes fetch left out)."""
        return len(self._wants) + len(self._ready)

    @property
    def needed(self) -> int:
        """Profile requests the plan takes: handed out, and planned not yet requested."""
        return self.requested + self.pending

    @property
    def waiting(self) -> bool:
        """Profiles another live process claimed are awaited."""
        return bool(self._waiting)

    def add(self, rows: pd.DataFrame, *, repaged: bool,
            place: tuple[int, int | None] = (0, None),
            problems: Sequence[Mapping[str, Any]] = (), listed_at: Any = None,
            params: Mapping[str, Any] | None = None,
            paged_at: dt.datetime | None = None) -> int:
        """Plan the profiles of these list rows that the cache lacks or holds stale; how many.

        ``repaged``: the rows come from a list paged by this load, so stale
        profiles (older than ``ages``) are wanted too. ``place``: the index of their
        query in the load and their page (None: the query's whole list, in its order),
        which orders equally urgent profiles (:meth:`_urgency`). ``problems``: the list's
        problem records (a ``raised`` not read is keyed by its text: :func:`summary_keys`).
        ``listed_at``: when each row was listed (seconds; None: now), for its status moves.
        ``params``: those of the rows' list; rows of a page (just paged: ``place`` names it)
        or of a whole list whose page 1 came at ``paged_at`` (a cached one) whose copies fail
        its filters are out of date (:class:`~icoframes.fetch.stalecopies.ListedCopies`),
        fetched again as changed ones; a copy fetched after that page 1 is not judged.
        """
        ids = rows["id"].tolist()
        query, page = place
        for ico_id in ids:
            self._listers.setdefault(ico_id, set()).add(query)
        fresh = [i not in self._seen for i in ids]
        if not any(fresh):
            return 0
        new = rows if all(fresh) else rows[fresh]  # (a page's rows are mostly all new)
        if listed_at is not None and not all(fresh):
            listed_at = np.asarray(listed_at)[fresh]
        self._seen.update(ids)
        for row, ico_id in enumerate(ids):
            if page is None:  # a whole list: its rows in order, PAGE_SIZE a page
                self._places.setdefault(ico_id, (query, row // PAGE_SIZE + 1, row % PAGE_SIZE))
            else:
                self._places.setdefault(ico_id, (query, page, row))
        if self._index is None:  # the version first: what other processes keep later shows
            if not self._refresh_all:
                self._marker = self._cache.version()
            self._index = ProfileIndex(self._cache.profile_index())
            # a copy whose refresh failed is wanted again only where a new one can be kept:
            # a read-only cache dir serves it (said not refreshed) as it serves warm loads
            self._keeps = os.access(self._cache.dir, os.W_OK)
            # one "now" for every page, read after the index: each page's arrival time made
            # equally stale profiles of a later page staler (a budget picked by arrival
            # times), and a "now" before the index would make what another process fetched
            # meanwhile a fetch time in the future (stale: fetched again)
            self._now = utcnow()
        wants = plan_profiles(new, summary_keys(new, problems), self._index, now=self._now,
                              ages=self._ages if repaged else None,
                              refresh_all=self._refresh_all, retry=self._keeps,
                              listed_at=listed_at,
                              out_of_date=None if params is None or self._copies is None
                              or (page is None and paged_at is None)
                              else self._copies.out_of_date(params, new, listed_at=paged_at,
                                                            cached=self._index.ids))
        self.planned += len(wants)
        self._wants.extend(wants)
        self._order()
        return len(wants)

    def _urgency(self, want: Want) -> tuple[float, tuple[int, int, int]]:
        """The sort key of ``want``: the most urgent first, a row the result lacks before one
        it holds, older (the daily limit may stop the load: a missing row costs more than an
        old one); equally urgent ones in the order of the load's lists (its first query's
        page 1 first), not in the order their pages happened to arrive, so that a budget or
        a cut picks the same ids on the same lists."""
        return -want.staleness, self._places.get(want.id, (0, 0, 0))

    def _order(self) -> None:
        """Sort the planned wants (:meth:`_urgency`), then put the equally urgent failed ones,
        in the places they take, in the order of their last failure, the oldest first: those
        a run of wrong answers left not asked (:attr:`skipped`) go first in the next load, not
        the same first few of the list load after load (else, with 40 ids always answered
        wrongly, one failing once would never be asked again under refresh="all")."""
        self._wants.sort(key=self._urgency)
        places: dict[float, list[int]] = {}
        for n, want in enumerate(self._wants):
            if want.failed_at is not None:
                places.setdefault(want.staleness, []).append(n)
        for slots in places.values():
            if len(slots) > 1:  # (a stable sort: the same failure time keeps the list's order)
                failed = sorted((self._wants[n] for n in slots), key=lambda w: w.failed_at or 0.0)
                for n, want in zip(slots, failed, strict=True):
                    self._wants[n] = want

    def next(self, lists: Sequence[ListQuery], allowance: Callable[[], int],
             pool: InFlight) -> Want | None:
        """The next profile to request, claimed by this load; None when none may go yet.

        List pages come first when the allowance could run short: while a list of ``lists`` (the
        load's) is paged, a profile goes only if ``allowance()`` (today's allowance left), less the
        requests in flight in ``pool``, still covers, after it, every page the lists may need
        (:func:`pages_needed`), so that a short daily allowance is spent on the lists, a page
        bringing 20 rows, and profiles take what is left. While lists are paged, none that is only
        stale goes (it waits for what the rest of the lists may bring that the result lacks), and
        with a ``budget`` none (the most stale go first: every list is waited for). Profiles the
        breaker asks for out of turn (``probes``) go first (:meth:`_claim_probes`), as many as the
        profiles in flight in ``pool`` leave room for (while lists are paged, once some are of a
        page the run's failing profiles are not of: :meth:`_apart`); after a run of failures,
        none in turn goes until they are answered."""
        paging = [query for query in lists if query.paging]
        if paging and (self.budget is not None or not self.pending  # (no ledger read for none)
                       or allowance() - pool.busy <= pages_needed(paging)):
            return None
        probes, flying = self._probes, [profile_item(w.id) for w in pool.infos("profile")]
        if probes is not None and (wanted := probes.probes_wanted(flying, ready=lambda: (
                not paging or any(self._apart(self._wants))))):
            self._claim_probes(wanted, lists, urgent_only=bool(paging))
        if (probes is not None and probes.awaiting()
                and not (self._ready and self._ready[0].id in self._probing)):
            return None  # every probe sent: the next in turn waits for their answers
        self._drop_lost()
        want, skipped = None, []
        while self._ready or self._claim_more(lists, urgent_only=bool(paging)):
            want = self._ready.popleft()
            if self._skip is not None and (why := self._skip(want)) is not None:
                self.skipped = self.skipped or why
                self._not_asked.append(want.id)
                skipped.append(want.id)
                self._give_back()
                want = None
                continue
            self.requested += 1
            self._sent.append(want.id)
            break
        if skipped:  # another process may ask them now, not once this load ends
            self._claimer().release(skipped)
        return want

    def _drop_lost(self) -> None:
        """The claimed ids whose claim another process took meanwhile (this one was stopped
        past its lease: Ctrl-Z, a debugger) are not sent: they are waited for as any taken
        id is, done once that process keeps them (:meth:`poll_others`)."""
        if not self._ready:  # (none claimed: no claims opened, a read-only cache's load too)
            return
        claimer = self._claimer()
        claimer.renew(every=claimer.lease / 3)  # drops the claims lost (once a third of a lease)
        held = claimer.held
        if lost := [w for w in self._ready if w.id not in held]:
            self._waiting.update((w.id, w) for w in lost)
            self._ready = deque(w for w in self._ready if w.id in held)

    def _claim_probes(self, wanted: int, lists: Sequence[ListQuery], urgent_only: bool) -> None:
        """Claim ``wanted`` profiles spread evenly over the rest of the plan (those claimed and
        those to claim, within the budget; ones that never failed if enough; ``urgent_only``,
        lists being paged: :meth:`_apart`), put them first, and tell the breaker: whether
        profiles elsewhere in the lists are answered right tells a block of bad ids (the newest
        ICOs, not profiled yet) from a service failing or answering every profile so."""
        self._sift(lists)
        if self.budget is not None:
            self._fit_budget()
        wants = [*self._ready, *(w for w in self._wants if w.id not in self._held)]
        wants = list(self._apart(wants)) if urgent_only else wants
        fresh = [w for w in wants if w.failed_at is None]
        wants = fresh if len(fresh) >= wanted else wants
        picked = [wants[int((k + 0.5) * len(wants) / wanted)] for k in range(wanted)
                  ] if len(wants) > wanted else wants
        ids, ready = {w.id for w in picked}, {w.id for w in self._ready}
        self._ready = deque(w for w in self._ready if w.id not in ids)
        self._wants = [w for w in self._wants if w.id not in ids]
        claim = [w for w in picked if w.id not in ready]
        mine, taken, _ = self._claimer().claim([w.id for w in claim], arrived_since=self._marker)
        mine_set, taken_set = set(mine), set(taken)
        for want in claim:
            if want.id in taken_set:
                self._waiting[want.id] = want
        probes = [w for w in picked if w.id in ready or w.id in mine_set]
        self._ready.extendleft(reversed(probes))
        self._probing = {w.id for w in probes}
        self._probes.probing([profile_item(w.id) for w in probes])  # type: ignore[union-attr]

    def _apart(self, wants: Sequence[Want]) -> Iterator[Want]:
        """Of ``wants``, those asked out of turn while lists are paged: urgent, of a page none
        of the run's profiles failing came from (a block of bad ids fills its pages)."""
        run = self._probes.run_items() if self._probes is not None else set()
        failing = {self._places.get(i, (0, 0, 0))[:2] for i in self._sent if profile_item(i) in run}
        return (w for w in wants if w.staleness >= URGENT
                and self._places.get(w.id, (0, 0, 0))[:2] not in failing)

    def _give_back(self) -> None:
        """A want skipped takes no request of the budget: the most urgent one the budget cut
        is planned again in its place (else the skipped ones use the budget up, and the
        load says it ran out with requests of it unsent)."""
        if self.budget is None or self._budget_spent or not self._cut:
            return
        best = min(self._cut, key=self._urgency)
        self._cut.remove(best)
        self.over_budget.remove(best.id)
        self._wants.append(best)

    def not_done(self, done: set[int], over_budget: Sequence[int] | None = None) -> list[int]:
        """Planned ids this load never got an answer for (``done`` holds those it did):
        still queued or awaited when it stopped, or requested and refused or cut in flight,
        or skipped; not those the budget left out (``over_budget``, else
        :attr:`over_budget`)."""
        queued = [w.id for w in (*self._ready, *self._wants, *self._waiting.values())]
        queued += [*self._not_asked, *(w.id for w in self._cut)]
        left = [i for i in (*self._sent, *queued) if i not in done]
        skip = set(self.over_budget if over_budget is None else over_budget)
        return sorted({i for i in left if i not in skip})

    def left(self, done: set[int], stopped: Mapping[str, str],
             stop: BaseException | None = None) -> dict[str, list[int]]:
        """What the load's summary says this plan left: ``over_budget``, and ``not_done``
        (:meth:`not_done`) when a stop (or a skip) left some not asked (``stopped``: what
        the summary says of it; else empty). A load that ``stop`` ended (the daily limit, a
        run of wrong answers) before its budget ran out left those the budget cut when they
        were planned because it stopped: ``not_done``, not ``over_budget`` (not every
        request of the budget went: "the budget ran out" would be untrue)."""
        ran_out = self._budget_spent or (self.budget is not None
                                         and self.requested >= self.budget)
        over = list(self.over_budget) if ran_out or stop is None else []
        return {"over_budget": over, "not_done": self.not_done(done, over) if stopped else []}

    def budget_refused(self, ico_id: int) -> None:
        """The budget refused a retry of ``ico_id``: it and everything not sent wait."""
        self.over_budget.append(ico_id)
        self._budget_spent = True
        if self._probes is not None:  # a probe the budget refused: the breaker waits for none
            self._probes.probing([profile_item(ico_id)], asked=False)

    def _sift(self, lists: Sequence[ListQuery]) -> None:
        """Drop the planned profiles of rows no list of the load has any more (one paged again
        after its pass moved: a row only the moved pass had left the list; each profile
        would cost a request, and the result lacks its row), and hold those that a list
        being paged again has not listed again yet. Again only when the lists or the plan
        changed: a list that never moved leaves every planned profile as it is."""
        state = tuple(query.relisted for query in lists)
        if not any(state):
            self._held = set()
            return
        if (state, self.planned) == self._sifted:
            return
        keep, self._held = [], set()
        for want in self._wants:
            said = {lists[n].still_lists(want.id) for n in self._listers.get(want.id, ())}
            if said and not said & {True, None}:  # every list that had it lost it
                self.planned -= 1
                continue
            if None in said and True not in said:
                self._held.add(want.id)
            keep.append(want)
        self._wants, self._sifted = keep, (state, self.planned)

    def _claim_more(self, lists: Sequence[ListQuery] = (), urgent_only: bool = False) -> bool:
        """Claim the next few planned profiles; those claimed elsewhere are waited for."""
        self._sift(lists)
        if not self._wants or (urgent_only and self._wants[0].staleness < URGENT):
            return False
        if self.budget is not None and not self._fit_budget():
            return False
        wants = [w for w in self._wants if w.id not in self._held] if self._held else self._wants
        batch = [w for w in wants[:self._batch] if not urgent_only or w.staleness >= URGENT]
        if not batch:
            return False
        if self._held:
            sent = {w.id for w in batch}
            self._wants = [w for w in self._wants if w.id not in sent]
        else:
            del self._wants[:len(batch)]
        # an id another process kept since this load planned it is done: not claimed
        mine, taken, _ = self._claimer().claim([w.id for w in batch], arrived_since=self._marker)
        mine_set, taken_set = set(mine), set(taken)
        for want in batch:
            if want.id in mine_set:
                self._ready.append(want)
            elif want.id in taken_set:
                self._waiting[want.id] = want
        return bool(self._ready) or self._claim_more(lists, urgent_only)

    def _fit_budget(self) -> int:
        """Cut the planned wants to the room the budget has left (the most urgent kept, the
        rest :attr:`over_budget`); the room."""
        self._order()
        room = self.budget - self.requested - len(self._ready)  # type: ignore[operator]
        if room <= 0 or self._budget_spent:
            room = 0
        if len(self._wants) > room:
            self.over_budget.extend(w.id for w in self._wants[room:])
            self._cut.extend(self._wants[room:])
            del self._wants[room:]
        return room

    def poll_others(self) -> None:
        """Look again at the profiles other processes claimed: one that arrived is done, one
        whose claim lapsed (its claimer failed, died, stopped or gave it up) is fetched here."""
        claimer = self._claimer()
        claimer.renew(every=claimer.lease / 3)
        mine, _, kept = claimer.claim(list(self._waiting), arrived_since=self._marker)
        for ico_id in kept:
            del self._waiting[ico_id]
        for ico_id in mine:
            self._ready.append(self._waiting.pop(ico_id))


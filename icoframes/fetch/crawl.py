"""The crawl: list pages and profiles through one bounded thread pool.

A profile is requested as soon as the page that lists it arrives, so paging
and profile fetching overlap. The main thread hands out one request per free
worker, never more (a server claiming a billion pages costs nothing extra),
merges pages, decides which profiles to fetch (:mod:`icoframes.fetch.policy`)
and makes each profile durable in the cache as it arrives.

What can go wrong, and what happens then:

* a page or profile that fails for good (after its retries) is that item's
  failure: recorded in the cache (a failed profile is retried by the next
  call), reported in the result's ``attrs["icoframes"]`` and a warning; the
  rest of the load goes on;
* a service that looks down (many different items failing, or refused
  connections: :mod:`icoframes.api.control`) stops the load with
  :class:`~icoframes.errors.ServiceUnavailable` naming host and cause;
* the daily limit (485, or the ``daily_quota`` setting) stops the load with
  :class:`~icoframes.errors.QuotaExceeded`; the next call resumes;
* Ctrl-C (or SIGTERM in the CLI) stops it at once: requests in flight are cut,
  and everything that arrived is kept.

Other processes loading into the same cache dir are not fetched for twice:
each profile is claimed before it is requested; one claimed elsewhere is
waited for, at most until that claim's lease lapses
(:meth:`~icoframes.store.cache.Cache.claims`).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import datetime as dt
import json
import queue
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

import pandas as pd

from ..api.client import Client
from ..api.control import Cancelled, LoadControl
from ..config import Settings
from ..errors import (
    APIError,
    CacheError,
    NotFound,
    QuotaExceeded,
    ServiceUnavailable,
)
from ..files import utcnow
from ..parse.lists import summary_keys
from ..store.cache import Cache, ProfileRecord
from ..store.claims import Claims
from ..store.derived import DerivedTables
from ..store.ledger import QuotaLedger
from .localquery import cached_query
from .paging import ListQuery, pages_total
from .policy import PROFILE_MAX_AGE, ProfileIndex, Want, plan_profiles
from .progress import Progress
from .sharedlists import SharedLists
from .stops import BudgetSpent, breaker_error, quota_error, warn_short_quota

__all__ = ["Crawl", "CrawlContext"]

# How often a load waiting for profiles another process claimed looks for them.
_WAIT_POLL = 0.2
# After the quota stops a load, requests in flight (paid for) get this long to finish.
_GRACE = 2.0


class CrawlContext(Protocol):
    """What a crawl needs of its load (:class:`~icoframes.fetch.context.LoadContext` has it)."""

    settings: Settings
    cache: Cache
    derived: DerivedTables
    offline: bool
    progress: bool
    control: LoadControl

    @property
    def ledger(self) -> QuotaLedger: ...

    def client(self, what: str) -> Client: ...


class Crawl:
    """One load's fetching: :meth:`add_query` for each list, :meth:`run`, then read results.

    Parameters
    ----------
    load : CrawlContext
        Settings, cache, ledger, stop switch and the (lazily made) client.
    profiles : bool
        Also fetch the profiles the lists name (False for ``load_list``).
    refresh_all : bool
        Fetch every listed profile again.
    ages : mapping, optional
        Maximum profile age per status, applied to lists paged by this call.
    budget : int, optional
        Most profile requests this call may send (most stale first).
    """

    def __init__(self, load: CrawlContext, *, profiles: bool, refresh_all: bool = False,
                 ages: dict[str, dt.timedelta] | None = None, budget: int | None = None) -> None:
        self.load = load
        self.fetch_profiles = profiles
        self.refresh_all = refresh_all
        self.ages = ages
        self.budget = budget
        self.queries: list[ListQuery] = []
        self.failed: dict[int, str] = {}  # profile id -> why its fetch failed
        self.gone: list[int] = []
        self.over_budget: list[int] = []  # wanted, not requested: the budget ran out
        self._budget_spent = False  # a retry was refused: every request of the budget went
        self.started = utcnow()
        self._index: ProfileIndex | None = None
        self._marker = 0  # the store's version when this load planned
        self._seen: set[int] = set()
        self._wants: list[Want] = []  # planned, not yet claimed
        self._ready: deque[Want] = deque()  # claimed by this process, to request
        self._waiting: dict[int, Want] = {}  # claimed by another live process
        self._claims: Claims | None = None
        self._lists = SharedLists(load.cache, self._claimer)
        self._pool: ThreadPoolExecutor | None = None
        self._done: queue.SimpleQueue[Future] = queue.SimpleQueue()
        self._tasks: dict[Future, tuple[str, Any]] = {}
        self._stop: BaseException | None = None
        self._page_errors: list[ServiceUnavailable] = []
        self._fetched = 0
        self._requested = 0
        self._planned = 0
        self._quota_warned = False
        self._progress = Progress(load.progress)
        self._pages_done = self._profiles_done = 0

    def add_query(self, params: dict[str, Any], *, refresh: bool,
                  limit: dt.timedelta | None) -> None:
        """Answer ``params`` from the cache when it can (:func:`.localquery.cached_query`),
        else page it."""
        offline = self.load.offline
        query, stored = cached_query(params, self.load.cache, self.load.derived,
                                     offline=offline, refresh=refresh, limit=limit,
                                     ages=self.ages or PROFILE_MAX_AGE)
        self.queries.append(query)
        if query.frame is not None:
            self._plan(query.frame, repaged=False)
            return
        if offline:
            return  # nothing cached for this query: the loader says so
        self.load.client(f"the list for {params}")  # fails before any request if unusable
        if self._lists.claim(query, stored):  # else another process pages it: waited for
            query.start(stored)

    def _plan(self, frame: pd.DataFrame | None, *, repaged: bool) -> None:
        """Plan the profiles of these list rows that the cache lacks or holds stale."""
        if not self.fetch_profiles or frame is None or frame.empty:
            return
        new = frame[~frame["id"].isin(self._seen)]
        if new.empty:
            return
        self._seen.update(new["id"].tolist())
        if self._index is None:  # the version first: what other processes keep later shows
            self._marker = self.load.cache.version()
            self._index = ProfileIndex(self.load.cache.profile_index())
        wants = plan_profiles(new, summary_keys(new), self._index, now=utcnow(),
                              ages=self.ages if repaged else None,
                              refresh_all=self.refresh_all)
        if self.load.offline:
            return  # what is not cached is reported missing by the loader
        if not wants:
            return
        self._planned += len(wants)
        self._wants.extend(wants)
        remaining = self.load.ledger.remaining()
        planned = len(self._wants) + len(self._ready) + self._requested
        if planned > remaining and not self._quota_warned:
            self._quota_warned = True
            warn_short_quota(remaining, self.load.settings.daily_quota)

    def _fill(self) -> None:
        """Hand out requests while workers are free: pages first, then profiles."""
        workers = self.load.settings.max_workers
        while self._stop is None and len(self._tasks) < workers:
            if not (self._next_page() or self._next_profile()):
                return

    def _next_page(self) -> bool:
        for query in self.queries:
            page = query.next_page()
            if page is not None:
                client = self.load.client(f"the list for {query.params}")
                body = {**query.params, "page": page[0]}  # checked once, by build_queries
                self._submit("page", (query, *page), client.list_wire, body)
                return True
        return False

    def _next_profile(self) -> bool:
        if self.budget is not None and any(q.paging for q in self.queries):
            return False  # with a budget, the most stale go first: wait for every list
        if not self._ready and not self._claim_more():
            return False
        want = self._ready.popleft()
        client = self.load.client("profiles")
        self._submit("profile", want, client.profile, want.id)
        self._requested += 1
        return True

    def _claim_more(self) -> bool:
        """Claim the next few planned profiles; those claimed elsewhere are waited for."""
        if not self._wants:
            return False
        if self.budget is not None:
            self._wants.sort(key=lambda w: -w.staleness)
            room = self.budget - self._requested - len(self._ready)
            if room <= 0 or self._budget_spent:
                self.over_budget.extend(w.id for w in self._wants)
                self._wants.clear()
                return False
            if len(self._wants) > room:
                self.over_budget.extend(w.id for w in self._wants[room:])
                del self._wants[room:]
        batch = self._wants[:self.load.settings.max_workers]
        del self._wants[:len(batch)]
        # an id another process kept since this load planned it is done: not claimed
        mine, taken, _ = self._claimer().claim([w.id for w in batch], arrived_since=self._marker)
        mine_set, taken_set = set(mine), set(taken)
        for want in batch:
            if want.id in mine_set:
                self._ready.append(want)
            elif want.id in taken_set:
                self._waiting[want.id] = want
        return bool(self._ready) or self._claim_more()

    def _claimer(self) -> Claims:
        if self._claims is None:
            self._claims = self.load.cache.claims()
        return self._claims

    def _submit(self, kind: str, info: Any, fn: Any, *args: Any, **kwargs: Any) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.load.settings.max_workers,
                                            thread_name_prefix="icoframes")
        future = self._pool.submit(fn, *args, **kwargs)
        self._tasks[future] = (kind, info)
        future.add_done_callback(self._done.put)

    def run(self) -> None:
        """Fetch what was planned; keep what arrives; raise what stopped the load.

        Raises
        ------
        QuotaExceeded
            The daily limit was reached: everything fetched is kept.
        ServiceUnavailable
            The breaker tripped: the service looks down.
        AuthError, InvalidParameter
            The service refused the keys or a parameter.
        KeyboardInterrupt
            Ctrl-C (or SIGTERM in the CLI): requests in flight were cut.
        """
        interrupted = True
        try:
            self._fill()
            while self._stop is None and (self._tasks or self._waiting or self._lists.waiting):
                if not self._tasks:
                    self._wait_for_others()
                    continue
                try:
                    future = self._done.get(timeout=0.5)  # a timeout keeps Ctrl-C responsive
                except queue.Empty:
                    continue
                kind, info = self._tasks.pop(future)
                self._handle(kind, info, future)
                if self._claims is not None:  # a live crawl keeps its leases
                    self._claims.renew(every=self._claims.lease / 3)
                if self.load.control.tripped and self._stop is None:
                    self._stop = breaker_error(self.load.settings, self.load.control)
                self._count(kind)
                self._fill()
            interrupted = False
        finally:
            self._shut_down(grace=0.0 if interrupted else _GRACE)
        self._report()

    def _handle(self, kind: str, info: Any, future: Future) -> None:
        """Use one finished request."""
        try:
            result = future.result()
        except (Cancelled, cf.CancelledError):
            return
        except NotFound:  # a profile the list names but the service does not have
            self._keep(info, None, state="gone")
            self.gone.append(info.id)
            return
        except (QuotaExceeded, CacheError) as exc:  # the limit; or the ledger cannot book
            self._stop = self._stop or exc
            return
        except BudgetSpent:  # this call's budget refused a retry: the item waits for the next
            self.over_budget.append(info.id)
            self._budget_spent = True
            return
        except ServiceUnavailable as exc:  # this item's retries are spent (BadResponse too)
            if kind == "page":
                self._page_errors.append(exc)
            self._item_failed(kind, info, getattr(exc, "last_failure", None) or str(exc))
            return
        except APIError as exc:  # 480, 483, 484: nothing else will go better
            self._stop = exc
            return
        if kind == "page":
            query, number, pass_no = info
            self._plan(query.on_page(number, pass_no, result), repaged=True)
            self._settle(query)
        else:
            self._keep(info, result)

    def _item_failed(self, kind: str, info: Any, reason: str) -> None:
        if kind == "page":
            query, number, _ = info
            query.on_failure(number, reason)
            self._settle(query)
        else:
            self.failed[info.id] = reason
            self._keep(info, None, state="failed", reason=reason)

    def _settle(self, query: ListQuery) -> None:
        """After a page: when the pass is done, page again or store the list."""
        if not query.pass_done:
            return
        if not query.finish_pass(may_repage=self._stop is None):
            self._store(query)

    def _store(self, query: ListQuery) -> None:
        """Cache the list: complete, or partial with rows (a list that failed before any
        row taught nothing, and must not pass for an empty answer offline)."""
        if query.from_cache or query.frame is None:
            return
        if query.complete or not query.frame.empty:
            self._guarded(self.load.cache.write_list, query.params, query.items, query.frame,
                          total_icos=query.total_icos or 0, problems=query.problems,
                          complete=query.complete, failed_pages=query.failed_pages)
        self._guarded(self._lists.release, query)

    def _guarded(self, write: Any, *args: Any, **kwargs: Any) -> Any:
        """Keep something; a cache that cannot (a full disk) stops the load, said once."""
        try:
            return write(*args, **kwargs)
        except CacheError as exc:
            if self._stop is None:
                self._stop = exc
                self.load.control.cancel()
            return None

    def _keep(self, want: Want, profile: dict[str, Any] | None, *, state: str = "fetched",
              reason: str | None = None) -> None:
        """Make one profile (or its failure) durable now: one transaction; the derived
        tables take the decoded profile (not decoded again)."""
        raw = None if profile is None else json.dumps(profile, separators=(",", ":"),
                                                      ensure_ascii=False)
        version = self._guarded(self.load.cache.record, ProfileRecord(
            want.id, want.status, want.summary, raw, state=state, reason=reason))
        if profile is not None and version:
            self.load.derived.keep_decoded(want.id, version, profile)
        if state != "failed":
            self.failed.pop(want.id, None)
            self._fetched += 1

    def _wait_for_others(self) -> None:
        """Every own request is done: wait for the lists and profiles other processes claimed
        (a copy arrived since this load planned meets every reason), or their claims lapse."""
        time.sleep(_WAIT_POLL)
        arrived, to_page = self._lists.poll()
        for query in arrived:  # another process paged it just now
            self._plan(query.frame, repaged=True)
        for query, stored in to_page:  # its pager died or stopped: page it here
            query.start(stored)
        claimer = self._claimer()
        claimer.renew(every=claimer.lease / 3)
        mine, _, kept = claimer.claim(list(self._waiting), arrived_since=self._marker)
        for ico_id in kept:
            del self._waiting[ico_id]
        for ico_id in mine:  # its claimer failed, died, stopped or gave it up: fetch it here
            self._ready.append(self._waiting.pop(ico_id))
        self._fill()

    def _count(self, kind: str) -> None:
        """Move the bar: list pages while any list is being paged, then the profiles."""
        if kind == "page":
            self._pages_done += 1
        else:
            self._profiles_done += 1
        planned = self._requested + len(self._ready) + len(self._wants)
        if any(q.paging for q in self.queries) or not planned:
            total = pages_total(self.queries, self._pages_done)
            if total is not None:  # page 1 of every list told how many pages it has
                self._progress.show("list pages", "page", total, self._pages_done)
        else:
            self._progress.show("profiles", "ICO", planned, self._profiles_done)

    def _shut_down(self, *, grace: float) -> None:
        """Stop the pool; keep what arrived; make everything durable."""
        if self._pool is not None:
            if grace and self._tasks:  # paid for: give them a moment
                cf.wait(list(self._tasks), timeout=grace)
            if any(not f.done() for f in self._tasks):
                self.load.control.cancel()  # cut what is still in flight, wake the waiting
            self._pool.shutdown(wait=False, cancel_futures=True)
            for future, (kind, info) in list(self._tasks.items()):
                if future.done() and not future.cancelled() and kind == "profile":
                    self._handle(kind, info, future)
        for query in self.queries:
            if query.paging:  # stopped mid-list: keep the pages that came, as partial
                query.in_flight = 0
                query.finish_pass(may_repage=False)
                self._store(query)
        if self._claims is not None:
            with contextlib.suppress(CacheError):  # unreleased claims lapse with their lease
                self._claims.close()
        self._progress.close()

    def _report(self) -> None:
        stop = self._stop
        if isinstance(stop, QuotaExceeded):
            raise quota_error(stop, self.load.settings, self.load.ledger.state(),
                              fetched=self._fetched,
                              left=self._planned - self._fetched - len(self.failed),
                              unlisted=any(not q.complete for q in self.queries)) from stop
        if stop is None and self.load.control.tripped:
            stop = breaker_error(self.load.settings, self.load.control)
        if stop is None and self._page_errors and all(
                q.frame is None or q.frame.empty for q in self.queries):
            stop = self._page_errors[0]  # not one row to return: the failure is the answer
        if stop is not None:
            raise stop

    def summary(self) -> dict[str, Any]:
        """What this crawl used and lacks: per query, and the profiles it could not fetch."""
        return {"queries": [q.summary() for q in self.queries],
                "failed": dict(self.failed), "gone": list(self.gone),
                "over_budget": list(self.over_budget)}

    def listings(self) -> list[pd.DataFrame]:
        """The rows of every query answered, in the order they were added."""
        return [q.frame for q in self.queries if q.frame is not None]


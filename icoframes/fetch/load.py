"""One load, from the user's arguments to the result: :class:`Load`.

Each loader (:mod:`icoframes.loaders`) and :func:`icoframes.export_tables` makes one. It checks the
arguments once, answers each list query from the cache when it can (:mod:`.localquery`) or pages
it, fetches the profiles the lists name that the cache lacks or holds stale (:mod:`.planner`),
keeping each as it arrives, and assembles the result with its report (:mod:`.result`). Profile
requests go out one per free worker (:mod:`.pool`), leaving every list page its share of the
allowance (a refresh: once every list is paged). Lists and profiles are claimed across processes
first: one claimed elsewhere is waited for (:mod:`.sharedlists`). A page or profile that fails for
good is its own failure (kept, reported, retried next load); :mod:`.stops` words what stops a load.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import datetime as dt
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import chain
from typing import Any

import pandas as pd

from ..api.control import Cancelled, LoadControl
from ..cachedir.legacy import convert
from ..config import get_settings
from ..errors import APIError, CacheError, NotFound, QuotaExceeded, ServiceUnavailable
from ..frozen import freeze
from ..queries import build_queries, check_load_arguments, combined_sort, sort_rows
from ..reporting import LoadReport
from ..secret import redact_url
from ..store.cache import Cache, Stored, holding
from ..store.claims import LEASE, Claims
from ..store.derived import DerivedTables
from ..tables import Tables
from .arrivals import Arrivals, Fetched, fetch
from .inflight import FirstSignal, grace
from .localquery import cached_query, mark_sorted_otherwise, offline_miss, shown_order
from .moment import first_listed, listed_rows, listed_seconds, page_together, paged_at
from .paging import ListQuery
from .planner import ProfilePlan
from .policy import DEFAULT_MAX_AGE, PROFILE_MAX_AGE, Want, load_ages
from .pool import RequestPool
from .progress import Progress, interactive, pages_total
from .result import assemble, filter_set, state_of_result
from .service import Service, forget_unreached
from .sharedlists import SharedLists
from .stops import BudgetSpent, ItemsStop, breaker_error, first_stop, held

__all__ = ["Load"]

_WAIT_POLL = 0.2  # how often a load waiting for profiles claimed elsewhere looks for them
_FILTER_SET_AGE = DEFAULT_MAX_AGE  # of the filter set names are checked on (offline's too)


class Load:
    """One loader call: the user's arguments -> validated queries -> the result and its report.

    Parameters
    ----------
    offline : bool, default False
        Never make a client: whatever is not cached raises :class:`NotCached`.
    progress : bool, optional
        Progress bars; by default only in notebooks and terminals.
    max_workers, cache_dir : optional
        Override those settings for this load.

    Attributes
    ----------
    settings, cache, derived, service, control
        The resolved settings; the raw store of the service's folder and the tidy tables
        derived from it; the client and ledger (:class:`.service.Service`); the stop
        switch every request shares (Ctrl-C and the circuit breaker stop them all);
        ``lists_after``, an export's day: a cached list fetched before it never stands in
        for a failed paging nor is taken from another process's paging, and a cached list's
        profiles are held to their maximum ages; ``lists_by``, the last ms of an export's UTC
        day: the lists it pages are dated no later (one paged after 00:00 is of the run's day)."""
    lists_after: dt.datetime | None = None  # None: any cached copy will do, as cached
    lists_by: dt.datetime | None = None
    repaged: frozenset[str] = frozenset()  # statuses paged again, as refresh (an export's)

    def __init__(self, *, offline: bool = False, progress: bool | None = None,
                 max_workers: int | None = None, cache_dir: Any = None) -> None:
        check_load_arguments(offline=offline, progress=progress)
        self.settings = get_settings(max_workers=max_workers, cache_dir=cache_dir)
        if not self.settings.base_url:
            self.settings.require_credentials()  # raises ConfigError with set-up help
        self.cache = Cache(self.settings.cache_dir, self.settings.service_id or "")
        convert(self.cache)  # a cache of icoframes 0.1's layout, once
        self.derived = DerivedTables(self.cache, offline=offline)
        self.offline = offline
        self.progress = interactive() if progress is None else bool(progress)
        self.control = LoadControl()
        self.service = Service(self.settings, self.cache, self.control, offline=offline)
        self._filters: pd.DataFrame | None = None
        self._begin(profiles=False, refresh_all=False, ages=None, budget=None)

    def _begin(self, *, profiles: bool, refresh_all: bool,
               ages: Mapping[str, dt.timedelta] | None, budget: int | None) -> None:
        """The state of the lists and profiles of one crawl."""
        self.queries: list[ListQuery] = []
        self.failed: dict[int, str] = {}  # profile id -> why its fetch failed
        self.gone: list[int] = []
        self._profiles = profiles  # also fetch the profiles the lists name (not load_list)
        self._claims: Claims | None = None
        self._lists = SharedLists(self.cache, self._claimer, after=self.lists_after,
                                  opening=self._list_opening)
        self._plan = ProfilePlan(self.cache, self._claimer, ages=ages, refresh_all=refresh_all,
                                 budget=budget, batch=self.settings.max_workers,
                                 skip=self.service.skips, probes=self.control,
                                 settle=self.derived if profiles else None)
        self._pool = RequestPool(self.settings.max_workers,  # a live load renews its leases,
                                 tick=lambda: self._claimer().renew(every=LEASE / 3))  # waiting
        self._arrivals = Arrivals(self.cache, self.derived, self._claimer)
        self._stop: BaseException | None = None
        self._signal = FirstSignal(on_caught=self.control.stop_sending)  # a Ctrl-C held
        self._lost: CacheError | None = None  # a write that failed (said in a quota stop)
        self._page_errors: list[ServiceUnavailable] = []
        self._done: set[int] = set()  # profile ids kept (fetched, gone or failed)
        self._quota_warned = False
        self._progress = Progress(self.progress)

    def __repr__(self) -> str:  # only what is set (a traceback shows a half-made load's)
        base_url = redact_url(getattr(getattr(self, "settings", None), "base_url", None) or "")
        spent: object = "?"
        with contextlib.suppress(Exception):
            spent = self.requests_spent()
        return (f"Load(base_url={base_url!r}, offline={getattr(self, 'offline', '?')}, "
                f"requests={spent})")

    def requests_spent(self) -> dict[str, int]:
        """Requests this load sent per endpoint, retries included."""
        return self.service.requests_spent()

    # -- the results ------------------------------------------------------------------

    @holding  # marked used, and never pruned while it runs
    def filters(self, *, refresh: bool, max_age: Any) -> pd.DataFrame:
        """The filter set: cached when fresh enough, else fetched (one request) and cached."""
        limit, _ = load_ages(max_age, refresh=refresh, offline=self.offline)  # not both
        frame, query = filter_set(self.cache, self.service.fetch_filters, refresh=refresh,
                                  limit=limit, offline=self.offline)
        frame.attrs["icoframes"] = freeze({"queries": [query], "requests": self.requests_spent()})
        return frame

    def _filter_set(self) -> pd.DataFrame:
        """The filter set names are checked against: read once per load, cached for a day."""
        if self._filters is None:
            self._filters = self.filters(refresh=False, max_age=_FILTER_SET_AGE)
        return self._filters

    def listing(self, status: str | None, filters: Mapping[str, Any], *,
                refresh: bool | str, max_age: Any, keywords: Sequence[str] = ()) -> pd.DataFrame:
        """The list rows of every matching ICO (``load_list``), with their report in attrs;
        ``keywords``: the loader's own, for "did you mean" on a misspelled one."""
        sort = combined_sort(status, filters, dates=False)
        listing = self._crawl(status, filters, refresh=refresh, max_age=max_age,
                              profiles=False, keywords=keywords)
        listing = sort_rows(listing, sort)  # no status: the three lists sorted together
        listing.attrs["icoframes"] = freeze(self.report(listing))
        return listing

    def tables(self, status: str | None, filters: Mapping[str, Any], *, refresh: bool | str,
               max_age: Any, only_icos: bool, profile_max_age: Any = None,
               budget: int | None = None, keywords: Sequence[str] = ()) -> Tables[LoadReport]:
        """The tables of every matching ICO (``load_icos``: ``only_icos``, ``load_tables``)."""
        listing = self._crawl(status, filters, refresh=refresh, max_age=max_age, profiles=True,
                              profile_max_age=profile_max_age, budget=budget, keywords=keywords)
        return self.tables_of(listing, status, filters, only_icos=only_icos)

    @holding  # after the crawl too: its derived tables read, the folder kept
    def tables_of(self, listing: pd.DataFrame, status: str | None, filters: Mapping[str, Any],
                  *, only_icos: bool) -> Tables[LoadReport]:
        """The tables of a crawl's listing (or of ``QuotaExceeded.listing``), with its report."""
        listing = sort_rows(listing, combined_sort(status, filters),  # no status: together
                            lambda: self.derived.table("icos"))
        tables = (Tables.empty() if listing.empty
                  else assemble(self.derived, listing, only_icos=only_icos))
        mark_sorted_otherwise(self.queries, self.cache, self.derived)  # once the profiles are in
        # its report, typed on the bundle, and as 0.1's dict (read-only) in the frame's attrs
        summary = freeze(shown_order(self.report(listing, tables.icos["id"]), tables.icos))
        tables.icos.attrs["icoframes"] = summary
        return tables.with_report(LoadReport.from_dict(summary))

    def report(self, listing: pd.DataFrame, present: Any = None) -> dict[str, Any]:
        """What ``listing`` (and the ids ``present`` in the result) answer and lack; warns
        once for what is lacking (:func:`.result.state_of_result`)."""
        return state_of_result(listing.attrs.get("icoframes") or {}, listing, present,
                               cache=self.cache, offline=self.offline, kept=self._done)

    # -- the crawl ----------------------------------------------------------------------

    @holding
    def _crawl(self, status: str | None, filters: Mapping[str, Any], *, refresh: bool | str,
               max_age: Any, profiles: bool, profile_max_age: Any = None,
               budget: int | None = None, keywords: Sequence[str] = ()) -> pd.DataFrame:
        """Page the lists (or use fresh cached ones) and fetch what profiles lack; the listing,
        with the crawl's summary in ``attrs["icoframes"]``."""
        budget = check_load_arguments(refresh=refresh, budget=budget)  # a Python int
        limit, ages = load_ages(max_age, profile_max_age, refresh=refresh, offline=self.offline,
                                status=status)
        queries = build_queries(status, filters, self._filter_set, keywords=keywords)
        self._begin(profiles=profiles, refresh_all=refresh == "all", ages=ages, budget=budget)
        self.service.budget, self.service.repaged = budget, None not in (self.lists_after, max_age)
        made = not self.cache.dir.exists()
        try:
            def found(params: dict[str, Any], again: bool = False) -> Any:
                return cached_query(params, self.cache, self.derived, offline=self.offline,
                                    refresh=again or bool(refresh) or str(params.get("status"))
                                    in self.repaged, limit=limit, ages=ages or PROFILE_MAX_AGE)
            for query, fallback, rows, mine in page_together(queries, found, self._lists,
                    status=status, filters=filters, offline=self.offline):  # no status: a moment
                self._add_query(query, fallback, rows, mine=mine)
            if self.offline and all(q.frame is None for q in self.queries):
                raise offline_miss(self.cache.dir, self.queries,  # what is missing, said
                                   filter_set=self.cache.read_filters() is not None)
            self._run()
        except QuotaExceeded as exc:  # what was listed before the limit: an export keeps it
            exc.listing = self._listing(stopped="quota")
            raise
        finally:  # the claims too, however it ended (a Ctrl-C while lists are claimed, a second
            if self._claims is not None:  # in the shut-down): else live here, the next load waits
                with contextlib.suppress(CacheError):  # unreleased claims lapse with their lease
                    self._claims.close()
            self.service.close()
            if made and self.service.reached and not any(self.requests_spent().values()):
                forget_unreached(self.cache)
        return self._listing(**held(self._stop, self._plan.skipped))  # said, not raised

    def _listing(self, **stopped: str) -> pd.DataFrame:
        """The rows of every list the crawl answered, with its summary in ``attrs``."""
        listing = listed_rows(self.queries)  # an ICO in two lists: the later listing's row
        listing.attrs["icoframes"] = freeze({  # (freeze copies self.failed)
            "queries": [q.summary() for q in self.queries], "failed": self.failed,
            "gone": list(self.gone), **stopped, **self._plan.left(self._done, stopped, self._stop),
            "requests": self.requests_spent()})
        return listing

    def _add_query(self, query: ListQuery, fallback: Stored | None, rows: pd.DataFrame | None,
                   *, mine: bool) -> None:
        """Plan ``query``'s cached ``rows``, else page it if ``mine`` (``fallback``: if not)."""
        self.queries.append(query)
        if query.frame is not None:
            self._plan_rows(query, rows, repaged=self.lists_after is not None)
        elif mine:  # else offline (the report says it is missing), or another process pages it
            query.start(fallback, after=self.lists_after, by=self.lists_by)

    @contextlib.contextmanager
    def _list_opening(self, query: ListQuery) -> Iterator[None]:  # around a list's claim:
        self.service.client(f"the list for {query.params}")  # fails before any request if
        with self.service.ledger_opening():  # unusable; meanwhile: its two new databases
            yield

    def _plan_rows(self, query: ListQuery, frame: pd.DataFrame | None, *, repaged: bool,
                   page: int | None = None) -> None:
        """Plan the profiles the cache lacks or holds stale: ``query``'s ``page`` (or list)."""
        if not self._profiles or frame is None or frame.empty or self.offline:
            return  # offline, what is not cached is reported missing
        where = ([q is query for q in self.queries].index(True), page)  # (not ==: frames)
        lost = query.problems if page is None else query.page_lost  # (a raised not read:
        listed = None if page is not None else listed_seconds(query, frame)  # its text; now)
        if self._plan.add(frame, repaged=repaged, place=where, problems=lost, listed_at=listed,
                          params=query.params, paged_at=first_listed(query, page)
                          ) and not self._quota_warned:  # once per crawl
            self._quota_warned = self.service.warn_short(self._plan.needed, self.queries)

    def _claimer(self) -> Claims:
        self._claims = self._claims or self.service.claims()
        return self._claims

    def _fill(self) -> None:
        """Keep what arrived (in one go), then hand out requests: pages first, then profiles."""
        self._guarded(self._arrivals.keep)
        while self._stop is None and self._signal.caught is None and self._pool.free:
            if not (self._next_page() or self._next_profile()):
                return

    def _next_page(self) -> bool:
        for query in self.queries:
            if query.pages_left and self._lists.taken_over(query):  # its claim lapsed
                self._plan_rows(query, query.frame, repaged=True)  # (a stop): another's list
            if (page := query.next_page()) is not None:
                client = self.service.client(f"the list for {query.params}")
                body = {**query.params, "page": page[0]}  # checked once, by build_queries
                self._pool.submit("page", (query, *page), client.list_wire, body)
                return True
        return False

    def _next_profile(self) -> bool:
        want = self._plan.next(self.queries, self.service.remaining, self._pool)
        if want is None:
            return False
        self._pool.submit("profile", want, fetch, self.service.profile_client(want), want.id)
        return True

    def _run(self) -> None:
        """Fetch what was planned, keep what arrives; raise what stopped it: QuotaExceeded, a
        CacheError, ServiceUnavailable, AuthError, 481, a list's 483/484, Ctrl-C (.inflight)."""
        interrupted, unpaid = True, self._lost  # the crawl loop's CacheError is not paid for
        try:
            with self._signal:
                self._fill()
                while self._stop is None and self._signal.caught is None and (
                        self._pool.busy or self._plan.waiting or self._lists.waiting):
                    if not self._pool.busy:
                        self._wait_for_others()
                    elif (done := self._pool.next_done(timeout=0.5)) is not None:  # (0.5 s: a
                        for kind, info, future in chain((done,), self._pool.finished()):  # held
                            self._handle(kind, info, future)  # Ctrl-C is seen)
                            if self.control.tripped and self._stop is None:
                                self._stop = breaker_error(self.settings, self.control)
                            self._count(kind)
                        self._fill()
            interrupted = False
        except CacheError as exc:  # a claim or a poll of the cache: a stop (a 485 may come)
            self._stop, interrupted, unpaid = first_stop(self._stop, exc), False, exc
        finally:  # after a stop (a Ctrl-C held) no retry leaves, those in flight get a grace
            try:
                self._shut_down(grace=grace(self._stop, interrupted=interrupted, held=self._signal,
                                            unpaid=(self._lost, unpaid), sent=self.control.on_wire,
                                            halt=self.control.halt))
            except BaseException as exc:  # a second signal before the pool's wait (as the
                self._shut_down(grace=self._pool.cut_by(exc))  # finishing line is said) cuts too
        self._signal.raise_caught()  # the claims are closed by _crawl
        self._raise_stop()

    def _handle(self, kind: str, info: Any, future: cf.Future[Any]) -> None:
        """Use one finished request."""
        try:
            result = future.result()
        except (Cancelled, cf.CancelledError):
            return
        except NotFound:  # a profile the list names but the service does not have
            self._keep(info, None, state="gone")
            self.gone.append(info.id)
            return
        except BudgetSpent:  # this call's budget refused a retry: the item waits for the next
            self._plan.budget_refused(info.id)
            return
        except ServiceUnavailable as exc:  # this item's retries are spent (BadResponse too)
            if kind == "page":
                self._page_errors.append(exc)
            self._item_failed(kind, info, getattr(exc, "last_failure", None) or str(exc))
            return
        except (APIError, CacheError) as exc:  # 480/481/485, a list's 483/484; the ledger
            self._stop = first_stop(self._stop, exc)
            return
        if kind == "page":
            query, number, pass_no = info
            rows = query.on_page(number, pass_no, result)
            self._fill()  # the pages it made known go out before its rows are planned
            self._plan_rows(query, rows, repaged=True, page=number)
            self._settle(query)
        else:
            self._keep(info, result)

    def _item_failed(self, kind: str, info: Any, reason: str) -> None:
        if kind == "page":
            info[0].on_failure(info[1], reason)  # (info: the query, the page, its pass)
            self._settle(info[0])
        else:
            self.failed[info.id] = reason
            self._keep(info, None, state="failed", reason=reason)

    def _settle(self, query: ListQuery) -> None:
        """After a page: when the pass is done, page again or store the list."""
        if query.pass_done and not query.finish_pass(
                may_repage=self._stop is None and self._signal.caught is None):
            kept = query.kept and not query.stood_in  # (a day's kept rows: planned too)
            self._plan_rows(query, query.frame if kept else None, repaged=True)
            self._store(query)

    def _store(self, query: ListQuery) -> None:
        """Cache the list: complete, or partial with rows (without: it would pass for empty)."""
        if query.frame is None or (query.from_cache and not query.stood_in):
            return  # (a list paged and stood in for is not cached, its claim released)
        if not query.stood_in and (query.complete or not query.frame.empty):
            self._guarded(self.cache.write_list, query.params, query.items, query.frame,
                          total_icos=query.total_icos or 0, problems=query.problems,
                          complete=query.complete, failed_pages=query.failed_pages,
                          fetched_at=query.fetched_at, paged_at=paged_at(query))
        self._guarded(self._lists.release, query)

    def _guarded(self, write: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Keep something; a cache that cannot (a full disk) stops the load, said once."""
        try:
            return write(*args, **kwargs)
        except CacheError as exc:
            if self._stop is None:
                self.control.cancel()
            self._stop, self._lost = first_stop(self._stop, exc), self._lost or exc

    def _keep(self, want: Want, profile: Fetched | None, *, state: str = "fetched",
              reason: str | None = None) -> None:
        """Keep one profile (or its failure) with those that arrived with it: durable in one
        transaction before another request is sent (:class:`.arrivals.Arrivals`)."""
        self._arrivals.add(want, profile, state=state, reason=reason)
        self._done.add(want.id)
        if state != "failed":
            self.failed.pop(want.id, None)

    def _wait_for_others(self) -> None:
        """Every own request is done: wait for the lists and profiles other processes claimed
        (a copy arrived since this load planned meets every reason), or their claims lapse."""
        time.sleep(_WAIT_POLL)
        arrived, to_page = self._lists.poll()
        for query in arrived:  # another process paged it just now
            self._plan_rows(query, query.frame, repaged=True)
        for query, stored in to_page:  # its pager died or stopped: page it here
            query.start(stored, after=self.lists_after, by=self.lists_by)
        self._plan.poll_others()
        self._fill()

    def _count(self, kind: str) -> None:
        """Move the bar: list pages while any list is being paged, then the profiles."""
        self._progress.count(kind, paging=any(q.paging for q in self.queries),
                             pages=lambda done: pages_total(self.queries, done),
                             profiles=self._plan.needed)

    def _shut_down(self, *, grace: float | None) -> None:
        """Stop the pool; keep what arrived (pages too: paid for); make everything durable."""
        for kind, info, future in self._pool.shut_down(grace=grace, cancel=self.control.cancel):
            self._guarded(self._handle, kind, info, future)  # (its planning reads the cache)
        self._guarded(self._arrivals.keep)
        for query in (q for q in self.queries if q.paging):  # stopped mid-list: keep the
            query.stop("not received: the load stopped first")  # pages that came, partial
            query.finish_pass(may_repage=False)
            self._store(query)
        if self._profiles and isinstance(self._stop, QuotaExceeded):  # the rows at hand are
            self._guarded(self._plan.add, listed_rows(self.queries), repaged=True)  # stale
        self._progress.close()
        if self._pool.interrupted is not None:  # a signal in the wait (cut, what came kept):
            raise self._pool.interrupted  # the same object (SystemExit stays SystemExit)

    def _raise_stop(self) -> None:
        """Raise what stopped the load, if anything did."""
        stop = self._stop
        if isinstance(stop, QuotaExceeded):
            done, failed = len(self._done), len(self.failed)  # failed: left to fetch too
            raise self.service.quota_stop(stop, self.queries, failed=failed, lost=self._lost,
                                          fetched=done - failed - len(self.gone),
                                          left=self._plan.planned - done + failed) from stop
        if stop is None and self.control.tripped:
            stop = breaker_error(self.settings, self.control)
        if stop is None and self._page_errors and all(
                q.frame is None or q.frame.empty for q in self.queries):
            stop = self._page_errors[0]  # not one row to return: the failure is the answer
        if stop is not None and not isinstance(stop, ItemsStop):
            raise stop

"""The crawl: list pages and profiles through one bounded thread pool.

A profile is requested as soon as the page that lists it arrives, so list
paging and profile fetching overlap instead of running one after the other.
Results come back through a queue as each request finishes; the main thread
merges pages, decides what to fetch, and appends profiles to the cache in
batches, so nothing fetched is lost when the load stops early.

Only requests that are needed are sent: a list query whose cached copy is
fresh is not paged, and a profile is requested when it is not cached or its
list summary (name, score, raised) changed since it was fetched.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import queue
import time
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import pandas as pd

from ..api.client import Client
from ..config import Settings
from ..errors import (
    APIError,
    AuthError,
    InvalidParameter,
    MissingProfileWarning,
    NotCached,
    NotFound,
    QuotaExceeded,
    QuotaWarning,
    warn,
)
from ..files import utcnow
from ..parse.lists import list_frame, merge_pages, page_counts, summary_keys
from ..parse.problems import Problems
from ..schema import LIST
from ..store.cache import GONE, Cache, ProfileRecord
from ..store.ledger import QuotaLedger

__all__ = ["BATCH_SECONDS", "BATCH_SIZE", "Crawl", "CrawlContext"]

# Each profile is journaled as it arrives (durable at once); the journal is folded into a
# Parquet part when this many arrived or this long after the last fold.
BATCH_SIZE = 250
BATCH_SECONDS = 2.0


class CrawlContext(Protocol):
    """What a crawl needs of its load (:class:`~icoframes.fetch.context.LoadContext` has it)."""

    settings: Settings
    cache: Cache
    offline: bool
    progress: bool

    @property
    def ledger(self) -> QuotaLedger: ...

    def client(self, what: str) -> Client: ...


@dataclass
class _Query:
    """The paging of one list query; ``frame`` is set once its list is complete."""

    params: dict[str, Any]
    frame: pd.DataFrame | None = None
    fetched_at: dt.datetime | None = None
    from_cache: bool = False
    problems: list[dict[str, Any]] = field(default_factory=list)
    responses: dict[tuple[int, int], dict] = field(default_factory=dict)  # (pass, page)
    pages_pending: int = 0
    total_icos: int = 0
    passes: int = 1


class Crawl:
    """One load's fetching: add queries, then :meth:`run`, then read :meth:`listings`.

    Parameters
    ----------
    load : CrawlContext
        Settings, cache, ledger and the (lazily made) client of this loader call.
    profiles : bool
        Also fetch the profiles the lists name (False for ``load_list``).
    refresh_all : bool
        Fetch every profile again, cached or not.
    """

    def __init__(self, load: CrawlContext, *, profiles: bool, refresh_all: bool = False) -> None:
        self.load = load
        self.fetch_profiles = profiles
        self.refresh_all = refresh_all
        self.queries: list[_Query] = []
        self._stored: dict[int, str] | None = None
        self._wanted: set[int] = set()
        self._offline_missing: list[int] = []
        self._pool: ThreadPoolExecutor | None = None
        self._done: queue.SimpleQueue[Future] = queue.SimpleQueue()
        self._tasks: dict[Future, tuple[str, Any]] = {}
        self._unfolded = 0
        self._last_save = time.monotonic()
        self._fetched = 0
        self._planned = 0
        self._budget: int | None = None
        self._warned = False
        self._not_found: list[int] = []
        self._failed: list[tuple[int, APIError]] = []
        self._pages_planned = 0
        self._pages_done = 0
        self._profiles_done = 0
        self._progress = _Progress(load.progress)

    # -- planning ------------------------------------------------------------------

    def add_query(self, params: dict[str, Any], *, refresh: bool,
                  limit: dt.timedelta | None) -> None:
        """Use the cached list for ``params`` when fresh enough, else start paging it."""
        query = _Query(params)
        self.queries.append(query)
        cached = None if refresh else self.load.cache.read_list(params, LIST)
        if cached is not None:
            frame, fetched_at, meta = cached
            if self.load.offline or limit is None or utcnow() - fetched_at <= limit:
                query.frame, query.fetched_at, query.from_cache = frame, fetched_at, True
                query.problems = list(meta.get("problems") or [])
                self._want(frame)
                return
        self.load.client(f"the list for {params}")  # raises NotCached when offline
        self._submit_page(query, 1, 1)

    def _want(self, frame: pd.DataFrame) -> None:
        """Request the profiles of these list rows that the cache lacks or has stale."""
        if not self.fetch_profiles or frame.empty:
            return
        if self._stored is None:
            index = pd.DataFrame() if self.refresh_all else self.load.cache.profile_index()
            self._stored = {} if index.empty else index["summary"].to_dict()
        keys = summary_keys(frame)
        for ico_id, status, key in zip(frame["id"].tolist(), frame["status"].tolist(), keys,
                                       strict=True):
            if ico_id in self._wanted or self._stored.get(ico_id) == key:
                continue
            self._wanted.add(ico_id)
            if self.load.offline:
                self._offline_missing.append(ico_id)
                continue
            self._submit("profile", (ico_id, status, key), self.load.client("profiles").profile,
                         ico_id)
            self._planned += 1
            self._check_budget()

    def _check_budget(self) -> None:
        if self._budget is None:
            self._budget = self.load.ledger.remaining()
        if not self._warned and self._planned > self._budget:
            self._warned = True
            warn(
                f"this load needs more profile requests than the about {self._budget} that "
                f"remain of today's {self.load.settings.daily_quota} for this key; it will "
                "stop at the limit, keep what it fetched, and the next call will resume",
                QuotaWarning)

    # -- requests ------------------------------------------------------------------

    def _submit(self, kind: str, info: Any, fn: Any, *args: Any, **kwargs: Any) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.load.settings.max_workers,
                                            thread_name_prefix="icoframes")
        future = self._pool.submit(fn, *args, **kwargs)
        self._tasks[future] = (kind, info)
        future.add_done_callback(self._done.put)

    def _submit_page(self, query: _Query, number: int, pass_no: int) -> None:
        query.pages_pending += 1
        self._pages_planned += 1
        client = self.load.client(f"the list for {query.params}")
        self._submit("page", (query, number, pass_no), client.list_page, number, **query.params)

    def run(self) -> None:
        """Wait for every request; save what arrives; raise what stopped the load.

        Raises
        ------
        QuotaExceeded
            Error 485: saved profiles are kept; ``remaining`` says how many were left.
        NotCached
            ``offline=True`` and some profiles are not cached.
        APIError
            A list page failed for good, or some profiles did (the rest are saved).
        """
        if self._offline_missing:
            missing = self._offline_missing
            raise NotCached(
                f"offline=True, but {len(missing)} profile(s) are not in the cache "
                f"({self.load.cache.dir}); first ids: {missing[:10]}. Load once online first.")
        stop: BaseException | None = None
        try:
            while self._tasks:
                try:
                    future = self._done.get(timeout=0.5)  # a timeout keeps Ctrl-C responsive
                except queue.Empty:
                    continue
                kind, info = self._tasks.pop(future)
                stop = self._handle(kind, info, future)
                self._count(kind)  # after the page planned the pages and profiles it names
                if stop is not None:
                    break
        finally:
            self._shut_down()
        self._report(stop)

    def _handle(self, kind: str, info: Any, future: Future) -> BaseException | None:
        """Use one finished request; the error that must stop the load, if any."""
        try:
            result = future.result()
        except CancelledError:
            return None
        except NotFound:
            if kind == "profile":
                self._not_found.append(info[0])
                self._record(ProfileRecord(*info, GONE, state="gone"))  # not asked again
                return None
            raise
        except (QuotaExceeded, AuthError, InvalidParameter) as exc:
            return exc
        except APIError as exc:
            if kind == "page":
                return exc
            self._failed.append((info[0], exc))
            self._record(ProfileRecord(*info, None, state="failed", reason=str(exc)))
            return None
        if kind == "page":
            self._on_page(*info, result)
        else:
            self._keep(info, result)
        return None

    def _count(self, kind: str) -> None:
        """Move the bar: list pages while any list is being paged, then the profiles."""
        if kind == "page":
            self._pages_done += 1
        else:
            self._profiles_done += 1
        if self._pages_done < self._pages_planned or not self._planned:
            self._progress.show("list pages", "page", self._pages_planned, self._pages_done)
        else:
            self._progress.show("profiles", "ICO", self._planned, self._profiles_done)

    def _on_page(self, query: _Query, number: int, pass_no: int, response: dict) -> None:
        query.pages_pending -= 1
        query.responses[(pass_no, number)] = response
        total_icos, total_pages = page_counts(response)
        if response.get("data"):
            query.total_icos = total_icos
        if number == 1:
            query.total_icos = total_icos
            for n in range(2, total_pages + 1):
                self._submit_page(query, n, pass_no)
        items = response.get("data")
        if items and isinstance(items, list):
            self._want(list_frame(items, status=query.params["status"]))
        if query.pages_pending:
            return
        items = merge_pages(query.responses[key] for key in sorted(query.responses))
        if len(items) < query.total_icos and query.passes == 1:
            # the list shifted while it was paged: page it all once more
            query.passes = 2
            self._submit_page(query, 1, 2)
            return
        lost = Problems()  # counted once, over the merged pages
        query.frame = list_frame(items, status=query.params["status"], problems=lost)
        query.fetched_at, query.problems = utcnow(), lost.records()
        self.load.cache.write_list(query.params, query.frame, LIST, total_icos=query.total_icos,
                                   problems=query.problems)

    def _keep(self, info: tuple[int, str, str], profile: Any) -> None:
        ico_id, status, key = info
        raw = json.dumps(profile, ensure_ascii=False, separators=(",", ":"))
        self._record(ProfileRecord(ico_id, status, key, raw))
        self._fetched += 1

    def _record(self, record: ProfileRecord) -> None:
        """Journal one outcome (durable at once); fold the journal into a part in batches."""
        self.load.cache.append(record)
        self._unfolded += 1
        if (self._unfolded >= BATCH_SIZE
                or time.monotonic() - self._last_save > BATCH_SECONDS):
            self._save()

    def _save(self) -> None:
        self.load.cache.fold()
        self._unfolded, self._last_save = 0, time.monotonic()

    def _shut_down(self) -> None:
        if self._pool is not None:
            for future in self._tasks:
                future.cancel()
            self._pool.shutdown(wait=True, cancel_futures=True)
            # requests in flight when the load stopped were paid for: keep their profiles
            for future, (kind, info) in list(self._tasks.items()):
                if (kind == "profile" and future.done() and not future.cancelled()
                        and future.exception() is None):
                    self._keep(info, future.result())
        self._save()
        self._progress.close()

    def _report(self, stop: BaseException | None) -> None:
        if self._not_found:
            warn(f"{len(self._not_found)} ICO(s) listed but without a profile "
                 f"(error 482), left out: {self._not_found[:10]}", MissingProfileWarning)
        if isinstance(stop, QuotaExceeded):
            if stop.code == 485:  # the service says so: nothing more today
                self.load.ledger.exhaust()
            left = len(self._wanted) - self._fetched - len(self._not_found)
            unlisted = any(q.frame is None for q in self.queries)
            more = " (and the list was not complete, so possibly more)" if unlisted else ""
            which = ("the service's daily request limit (error 485)" if stop.code == 485 else
                     f"the daily_quota setting ({self.load.settings.daily_quota} requests)")
            raise QuotaExceeded(
                f"{which} reached after fetching {self._fetched} profiles; {left} "
                f"remain{more}. Everything fetched is cached: call the same loader again "
                "after the allowance resets (midnight UTC) to fetch only the rest.",
                code=stop.code, endpoint=stop.endpoint, remaining=left) from stop
        if stop is not None:
            raise stop
        if self._failed:
            first_id, first = self._failed[0]
            raise type(first)(
                f"{len(self._failed)} of {len(self._wanted)} profiles could not be fetched "
                f"(first: id {first_id}: {first}); the {self._fetched} fetched are cached, and "
                "calling again retries only the rest", code=first.code, endpoint=first.endpoint)

    def summary(self) -> dict[str, Any]:
        """What this crawl used, per query: fetch time, cache or service, values lost."""
        return {"queries": [
            {"params": q.params, "complete": q.frame is not None,
             "from_cache": q.from_cache, "rows": 0 if q.frame is None else len(q.frame),
             "fetched_at": None if q.fetched_at is None else q.fetched_at.isoformat(),
             "problems": q.problems}
            for q in self.queries]}

    def listings(self) -> list[pd.DataFrame]:
        """The list of every query, in the order they were added (after :meth:`run`)."""
        return [q.frame for q in self.queries if q.frame is not None]


class _Progress:
    """One bar per load, made when the first request finishes, so its total is known.

    It counts what the load is waiting for: the list pages while any list is
    being paged, then the profiles (reset to their count, with those already
    fetched). Its total is raised before the count that needs it, so the bar
    never shows more done than planned, nor a total of 0.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None

    def show(self, label: str, unit: str, total: int, done: int) -> None:
        if not self.enabled or total <= 0:
            return
        bar = self.bar
        if bar is None:
            self.bar = bar = new_bar(label, unit, total)
        elif bar.desc != label:
            bar.unit = unit
            bar.set_description_str(label, refresh=False)
            bar.reset(total=total)
        elif bar.total != total:
            _set_total(bar, total)
        bar.update(done - bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def new_bar(label: str, unit: str, total: int) -> Any:
    """A tqdm bar: a widget in a notebook with ipywidgets, else one line of text.

    ``tqdm.auto`` falls back to text in a notebook without ipywidgets, but warns
    (``TqdmWarning: IProgress not found``) on every bar; so without ipywidgets
    the text bar is asked for directly.
    """
    if importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.auto import tqdm
    else:
        from tqdm.std import tqdm
    return tqdm(total=total, desc=label, unit=unit, leave=False)


def _set_total(bar: Any, total: int) -> None:
    """Raise the bar's total, the widget's maximum too (as ``tqdm.notebook.reset`` does)."""
    bar.total = total
    container = getattr(bar, "container", None)
    if container is not None:
        container.children[1].max = total
    bar.refresh()

"""The load context: everything one loader call works with, made explicit.

Resolved settings, the raw cache and the tables derived from it, the request
ledger, and a client made only when a request is really needed (never offline).
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import secrets
import sys
from typing import Any

import pandas as pd

from ..api.client import Client
from ..api.control import LoadControl
from ..config import Settings, get_settings
from ..errors import (
    CacheError,
    ConfigError,
    IncompleteWarning,
    InvalidParameter,
    MissingProfileWarning,
    NotCached,
    QuotaExceeded,
    StaleWarning,
    warn,
)
from ..files import utcnow
from ..parse.lists import filters_frame
from ..parse.problems import Problems
from ..schema import LIST, empty_frame
from ..secret import redact_url
from ..store.cache import Cache
from ..store.db import check_cache_dir, disk_full
from ..store.derived import DerivedTables
from ..store.housekeeping import mark_used, remove_folder
from ..store.ledger import QuotaLedger
from ..store.legacy import convert
from .crawl import Crawl
from .policy import next_try
from .stops import Booking

__all__ = ["LoadContext", "age_limit"]


def age_limit(max_age: dt.timedelta | float | int | None) -> dt.timedelta | None:
    """``max_age`` as a timedelta (None: never expires); InvalidParameter when unusable."""
    if max_age is None:
        return None
    if isinstance(max_age, dt.timedelta):
        return max_age
    if isinstance(max_age, int | float) and not isinstance(max_age, bool) and max_age >= 0:
        return dt.timedelta(seconds=float(max_age))
    raise InvalidParameter(f"max_age must be a timedelta, seconds or None, got {max_age!r}")


def _interactive() -> bool:
    """True in a Jupyter kernel or when stderr is a terminal (not under cron or CI).

    Asks IPython whether this process *is* a kernel: merely having imported
    ipykernel (as starting a kernel for nbclient does) does not make it one.
    """
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None and "IPKernelApp" in getattr(shell, "config", {}):
        return True
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


def _check_writable(cache: Cache) -> None:
    """Fail before any request when what is fetched could not be kept.

    Probes the service's folder when it exists, else the cache dir (made, private,
    when missing): the service's folder is made by its first write, so a service
    that is never reached leaves none behind.
    """
    directory = cache.dir if cache.dir.is_dir() else cache.root
    try:
        check_cache_dir(cache.root, create=True)  # refused when another user could write there
        probe = directory / f".write-test-{secrets.token_hex(8)}"
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                         | getattr(os, "O_NOFOLLOW", 0), 0o600))
        probe.unlink()
    except CacheError:
        raise
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise disk_full(directory, "nothing fetched could be kept") from None
        raise ConfigError(
            f"the cache dir {directory} is not writable ({exc.strerror or exc}); nothing would "
            "be kept of what a load fetches. Set ICOFRAMES_CACHE_DIR or "
            "icoframes.configure(cache_dir=...) to a writable folder.") from None


class LoadContext:
    """Everything one loader call works with, made explicit.

    Parameters
    ----------
    settings : Settings, optional
        Resolved settings (default: :func:`icoframes.get_settings`); a base URL
        is required, keys only once a request is needed.
    offline : bool, default False
        Never make a client: whatever is not cached raises :class:`NotCached`.
    progress : bool, optional
        Progress bars; by default only in notebooks and terminals.

    Attributes
    ----------
    cache : Cache
        The raw store of the service's folder.
    derived : DerivedTables
        The tidy tables derived from ``cache``.
    """

    def __init__(self, settings: Settings | None = None, *, offline: bool = False,
                 progress: bool | None = None) -> None:
        self.settings = settings if settings is not None else get_settings()
        if not self.settings.base_url:
            self.settings.require_credentials()  # raises ConfigError with set-up help
        self.cache = Cache(self.settings.cache_dir, self.settings.service_id or "")
        convert(self.cache)  # a cache of icoframes 0.1's layout, once
        self.derived = DerivedTables(self.cache)
        mark_used(self.cache.dir)  # for prune_cache; never creates the folder
        self.offline = offline
        self.progress = _interactive() if progress is None else bool(progress)
        self._client: Client | None = None
        self._ledger: QuotaLedger | None = None
        self.budget: int | None = None  # of profile requests, retries included (load_icos)
        # shared by every request of this call: Ctrl-C and the circuit breaker stop them all
        self.control = LoadControl()

    def __repr__(self) -> str:
        # a traceback with locals shows a context whose __init__ raised half way: only
        # what is set is shown, so the repr never hides the error being reported
        settings = getattr(self, "settings", None)
        base_url = redact_url(getattr(settings, "base_url", None) or "")
        try:
            spent: object = self.requests_spent()
        except Exception:
            spent = "?"
        return (f"LoadContext(base_url={base_url!r}, offline={getattr(self, 'offline', '?')}, "
                f"requests={spent})")

    @property
    def ledger(self) -> QuotaLedger:
        """The request ledger of the configured public key."""
        if self._ledger is None:
            self.settings.require_credentials()
            self._ledger = QuotaLedger(self.settings.cache_dir, self.settings.public_key or "",
                                       self.settings.daily_quota,
                                       service=self.settings.service_id or "",
                                       reset=self.settings.quota_reset)
        return self._ledger

    def client(self, what: str) -> Client:
        """The client, made on first use; ``what`` names the need in the offline error."""
        if self.offline:
            raise NotCached(f"offline=True, but {what} is not in the cache "
                            f"({self.cache.dir}); load it once online first")
        if self._client is None:
            # a cache that cannot keep the answers fails here, before any request; a
            # warm or offline load of a read-only cache dir never gets here
            _check_writable(self.cache)
            # every request is booked before it is sent (daily_quota is a hard cap), and
            # handed back only when it never left (the service cannot have counted it)
            self._client = Client.from_settings(self.settings,
                                                budget=Booking(self.ledger, self.budget),
                                                pool_size=self.settings.max_workers,
                                                control=self.control)
        return self._client

    def requests_spent(self) -> dict[str, int]:
        """Requests this context sent per endpoint, retries included."""
        if self._client is None:
            return {"filters": 0, "icos": 0, "ico": 0}
        return self._client.requests

    def close(self) -> None:
        """Close the client's connections (the ledger is persisted as it goes)."""
        if self._client is not None:
            self._client.close()

    def filters(self, *, refresh: bool, max_age: dt.timedelta | float | int | None
                ) -> pd.DataFrame:
        """The filter set: cached when fresh enough, else fetched (one request) and cached."""
        limit = age_limit(max_age)
        cached = self.cache.read_filters()
        if cached is not None and not refresh:
            frame, fetched_at, meta, _ = cached
            if self.offline or limit is None or utcnow() - fetched_at <= limit:
                return _with_summary(frame, self, [{
                    "params": "filters", "from_cache": True, "fetched_at": fetched_at.isoformat(),
                    "problems": meta.get("problems") or []}])
        try:
            raw = self.client("the filter set").filters()
        finally:
            self.close()
        lost = Problems()
        frame = filters_frame(raw, lost)
        self.cache.write_filters(raw, frame, problems=lost.records())
        return _with_summary(frame, self, [{
            "params": "filters", "from_cache": False, "fetched_at": utcnow().isoformat(),
            "problems": lost.records()}])

    def crawl(self, queries: list[dict[str, Any]], *, refresh: bool | str,
              limit: dt.timedelta | None, profiles: bool,
              ages: dict[str, dt.timedelta] | None = None,
              budget: int | None = None) -> pd.DataFrame:
        """Page the lists (or use fresh cached ones), fetch what profiles lack; the listing.

        The listing's ``attrs["icoframes"]`` holds the crawl's summary: the
        queries (complete or not, from cache or service, fetch time), the
        profiles that failed and those the budget left out, and the requests spent.
        """
        self.budget = budget
        crawl = Crawl(self, profiles=profiles, refresh_all=refresh == "all", ages=ages,
                      budget=budget)
        made = not self.cache.dir.exists()
        try:
            for query in queries:
                crawl.add_query(query, refresh=bool(refresh), limit=limit)
            if self.offline and all(q.frame is None for q in crawl.queries):
                raise NotCached(
                    "offline=True, but nothing of this query is in the cache "
                    f"({self.cache.dir}): no list for {[q.params for q in crawl.queries]}. "
                    "Load it once online first.")
            crawl.run()
        except QuotaExceeded as exc:  # what was listed before the limit: an export keeps it
            exc.listing = self._listing(crawl, stopped="quota")
            raise
        finally:
            self.close()
            if made and self._client is not None and not any(self.requests_spent().values()):
                self._forget_unreached()
        return self._listing(crawl)

    def _listing(self, crawl: Crawl, **stopped: str) -> pd.DataFrame:
        """The rows of every list the crawl answered, with its summary in ``attrs``."""
        frames = crawl.listings()
        listing = pd.concat(frames, ignore_index=True) if frames else empty_frame(LIST)
        listing = listing.drop_duplicates("id", keep="first").reset_index(drop=True)
        listing.attrs["icoframes"] = {**crawl.summary(), **stopped,
                                      "requests": self.requests_spent()}
        return listing

    def _forget_unreached(self) -> None:
        """The service was never reached: the folder this load made for its list claims goes
        (a service's folder is made by what it answered), unless something was kept there."""
        counts = self.cache.counts()
        if not counts["list_queries"] and not any(counts["states"].values()):
            remove_folder(self.cache.dir)

    def report(self, listing: pd.DataFrame, present: Any = None) -> dict[str, Any]:
        """Say what the result lacks: in the summary returned and in one warning.

        Parameters
        ----------
        listing : DataFrame
            The listing :meth:`crawl` returned.
        present : array-like of int, optional
            Ids that have a row in the result (``None``: only the lists count).

        Returns
        -------
        dict
            The listing's summary plus ``complete`` and ``missing`` (one dict per
            listed id without a row: id, name, state, reason).
        """
        summary = dict(listing.attrs.get("icoframes") or {})
        failed = summary.get("failed") or {}
        over_budget = set(summary.get("over_budget") or [])
        gone = set(summary.get("gone") or [])
        missing: list[dict[str, Any]] = []
        if present is not None:
            lacking = listing[~listing["id"].isin(pd.Index(present))]
            if not lacking.empty:
                index = self.cache.profile_index()
                states = index.get("state")
                for ico_id, name in zip(lacking["id"].tolist(), lacking["name"].tolist(),
                                        strict=True):
                    state = (states.get(ico_id) if states is not None
                             else ("fetched" if ico_id in index.index else None))
                    if ico_id in failed:
                        state, reason = "failed", failed[ico_id] + _waiting(index, ico_id)
                    elif state == "gone" or ico_id in gone:
                        state = "gone"
                        reason = "error 482: the service has no profile"
                    elif ico_id in over_budget:
                        state, reason = "not_fetched", "the call's budget ran out"
                    elif summary.get("stopped") == "quota" and state in (None, "not_fetched"):
                        state, reason = "not_fetched", "quota"  # the daily limit stopped it
                    elif self.offline:
                        state, reason = "not_fetched", "offline, and not in the cache"
                    else:
                        state = state or "not_fetched"
                        reason = (index["reason"].get(ico_id) if "reason" in index
                                  else None) or "not fetched"
                        reason += _waiting(index, ico_id)
                    missing.append({"id": ico_id, "name": None if pd.isna(name) else name,
                                    "state": state, "reason": reason})
        partial = [q for q in summary.get("queries", []) if not q.get("complete")]
        summary["missing"] = missing
        summary["complete"] = not partial and not missing
        present_ids = set() if present is None else set(pd.Index(present))
        stale_kept = sorted(over_budget & present_ids)
        summary["not_refreshed"] = stale_kept
        _warn_gaps(partial, missing, self.offline)
        if stale_kept:
            warn(f"{len(stale_kept)} row(s) are older than profile_max_age: the budget of "
                 "this call ran out before they were fetched again (the most stale went "
                 "first); ids in attrs['icoframes']['not_refreshed']", StaleWarning)
        return summary


def _waiting(index: pd.DataFrame, ico_id: int) -> str:
    """For a profile failing load after load: how often, and when it is tried again."""
    if "attempts" not in index or "failed_at" not in index:
        return ""
    failures = int(index["attempts"].get(ico_id, 0))
    after = next_try(failures, index["failed_at"].get(ico_id), utcnow())
    return ("" if after is None else f" (failed on {failures} loads in a row: tried again "
            f"from {after:%Y-%m-%d %H:%M} UTC, or with refresh='all')")


def _warn_gaps(partial: list[dict[str, Any]], missing: list[dict[str, Any]],
               offline: bool) -> None:
    """One warning for everything a result lacks, or none when it is whole."""
    if not partial and not missing:
        return
    parts = []
    for q in partial:
        params = {k: v for k, v in q["params"].items() if v is not None}
        if q.get("rows", 0) == 0 and q.get("total_icos") is None:
            why = ("not in the cache" if offline else
                   f"could not be paged ({'; '.join(q.get('failed_pages', {}).values())})")
            parts.append(f"the list {params} {why}")
        else:
            short = q.get("missing")
            count = f"{short} of its {q['total_icos']} ICOs missing" if short else "pages failed"
            again = ("every page came, with fewer ICOs than the count says: it is paged again "
                     "once older than max_age" if q.get("count_contradicts")
                     else "the next call pages it again")
            parts.append(f"the list {params} is partial ({count}); {again}")
    if missing:
        by_state: dict[str, int] = {}
        for m in missing:
            by_state[m["state"]] = by_state.get(m["state"], 0) + 1
        counts = ", ".join(f"{n} {state}" for state, n in sorted(by_state.items()))
        first = ", ".join(f"{m['id']} ({m['reason']})" for m in missing[:3])
        parts.append(f"{len(missing)} listed ICO(s) have no row: {counts}; first: {first}")
        if all(m["state"] == "gone" for m in missing):
            parts[-1] = (f"{len(missing)} ICO(s) listed but without a profile (error 482), "
                         f"left out: {[m['id'] for m in missing[:10]]}")
    only_gone = not partial and all(m["state"] == "gone" for m in missing)
    warn("incomplete result: " + "; ".join(parts)
         + ". Missing ids and their state are in attrs['icoframes']['missing']; calling "
         "again retries what failed.",
         MissingProfileWarning if only_gone else IncompleteWarning)


def _with_summary(frame: pd.DataFrame, context: LoadContext,
                  queries: list[dict[str, Any]]) -> pd.DataFrame:
    """``frame`` with ``attrs["icoframes"]``: the queries it answers and the requests spent."""
    frame.attrs["icoframes"] = {"queries": queries, "requests": context.requests_spent()}
    return frame

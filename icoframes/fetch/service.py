"""A load's access to the service: a client made only when a request is needed.

Never offline (what is not cached raises :class:`~icoframes.errors.NotCached`
instead), never before the cache is known to keep what is fetched, and every
request booked in the key's ledger before it is sent (:class:`.stops.Booking`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import os
import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..api.client import Client
from ..api.control import LoadControl, profile_item
from ..api.params import PAGE_SIZE
from ..cachedir.housekeeping import remove_folder
from ..config import SET_CACHE_DIR, Settings
from ..errors import CacheError, ConfigError, NotCached, QuotaExceeded, ServiceUnavailable
from ..files import cleared, not_a_folder, removed_meanwhile
from ..store.cache import WRITE_PROBE, Cache
from ..store.claims import Claims
from ..store.connections import check_open_files
from ..store.db import disk_full
from ..store.folders import check_cache_dir
from ..store.ledger import LedgerState, QuotaLedger
from .policy import Want
from .pool import held_request
from .stops import Booking, known_skipped, quota_error, warn_short_quota

if TYPE_CHECKING:
    from .paging import ListQuery

__all__ = ["Service", "check_writable", "forget_unreached", "list_pages"]

T = TypeVar("T")


class Service:
    """The client and request ledger of one load, each made on first use.

    Parameters
    ----------
    settings : Settings
        Resolved settings (keys are required only once a request is needed).
    cache : Cache
        Where what is fetched is kept (checked writable before the first request).
    control : LoadControl
        The load's stop switch, shared by every request.
    offline : bool
        Never make a client.

    Attributes
    ----------
    budget : int or None
        The load's budget of profile requests, retries included, booked with
        each request; set once the load knows it (a client made before, for the
        filter set, books against it from then on).
    repaged : bool
        The load's lists are paged again on each day's first run (an export's, with a
        ``max_age``), said by a daily limit its lists alone use up.
    """

    repaged = False

    def __init__(self, settings: Settings, cache: Cache, control: LoadControl, *,
                 offline: bool) -> None:
        self.settings, self.cache, self.control, self.offline = settings, cache, control, offline
        self._budget: int | None = None
        self._booking: Booking | None = None
        self._client: Client | None = None
        self._ledger: QuotaLedger | None = None
        self._ledger_opened = False

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

    @property
    def budget(self) -> int | None:
        return self._budget

    @budget.setter
    def budget(self, budget: int | None) -> None:
        self._budget = budget
        if self._booking is not None:
            self._booking.budget = budget

    @property
    def reached(self) -> bool:
        """A client was made (the load meant to send a request)."""
        return self._client is not None

    def client(self, what: str) -> Client:
        """The client, made on first use; ``what`` names the need in the offline error."""
        if self.offline:
            raise NotCached(f"offline=True, but {what} is not in the cache "
                            f"({self.cache.dir}); load it once online first")
        if self._client is None:
            # a cache that cannot keep the answers fails here, before any request; a
            # warm or offline load of a read-only cache dir never gets here
            check_writable(self.cache)
            # every request is booked before it is sent (daily_quota is a hard cap), and
            # handed back only when it never left (the service cannot have counted it)
            self._booking = Booking(self.ledger, self._budget)
            self._client = Client.from_settings(self.settings, budget=self._booking,
                                                pool_size=self.settings.max_workers,
                                                control=self.control)
        return self._client

    def claims(self) -> Claims:
        """The load's claims on the cache (on ids it is about to request), made only where
        what is fetched can be kept: a claim is the load's first write, before any request,
        so a read-only cache dir is refused here as :meth:`client` refuses it (ConfigError,
        naming offline=True), not by the write (a CacheError, where a profile its list wants
        was claimed before the client was made)."""
        if self._client is None:  # (else checked when it was made)
            check_writable(self.cache)
        return self.cache.claims()

    def profile_client(self, want: Want) -> Client:
        """The client to ask ``want``'s profile with. One whose last fetch failed (its copy kept,
        or none) is known
        bad to the breaker first: a wrong answer to it again is its failure again (counted, so
        a load's cost stays bounded), and a run holding it stops the asking of such profiles
        (:meth:`~icoframes.api.control.LoadControl.known_bad`)."""
        client = self.client("profiles")
        if want.failed_before:
            self.control.known_bad(profile_item(want.id), want.failure)
        return client

    def skips(self, want: Want) -> str | None:
        """Why ``want`` is not asked in this load (None: it is): a profile that failed before,
        once a run of wrong answers holding such profiles reached the breaker's count
        (:func:`.stops.known_skipped`)."""
        return known_skipped(self.control) if want.failed_before else None

    @contextlib.contextmanager
    def ledger_opening(self) -> Iterator[None]:
        """While the block runs (the list's claim, which makes the cache's database), the
        ledger's database is opened for writing in a thread, once per load: a first load
        makes its two databases side by side, not one after the other before its first
        request. Joined when the block ends; what fails there is left to the first
        booking, which meets it again and says it. A ledger that exists is only opened (no
        wait for a write lock another process holds: the booking waits, while the load
        renews the claims it holds)."""
        if self._ledger_opened or self._client is None:
            yield
            return
        self._ledger_opened = True
        thread = threading.Thread(target=self._open_ledger, name="icoframes-ledger")
        thread.start()
        try:
            yield
        finally:
            thread.join()

    def _open_ledger(self) -> None:
        with contextlib.suppress(Exception):  # (any error: the first booking says it)
            database = self.ledger.database()
            if database is None:
                return
            with database.read() as conn:  # an existing file opened: a read never waits
                if conn is not None:
                    return
            with database.write():
                pass  # a new file, its log and its tables made

    def fetch_filters(self, keep: Callable[[Any], T]) -> T:
        """``keep`` the filter set as the service sends it (one request, sent as a crawl sends
        its own: a first Ctrl-C lets it end and keeps it, :func:`.pool.held_request`);
        connections closed after. The daily limit met there is worded as a load's stop
        (:func:`.stops.quota_error`)."""
        try:
            return held_request(self.client("the filter set").filters, keep, self.control)
        except QuotaExceeded as stop:  # else the bare code text (or the ledger's) reached users
            raise self.quota_stop(stop, (), fetched=0, left=None, asked=FILTER_SET) from stop
        finally:
            self.close()

    def quota_stop(self, stop: QuotaExceeded, queries: Sequence[ListQuery], *,
                   left: int | None, **said: Any) -> QuotaExceeded | ServiceUnavailable:
        """``stop``, the daily limit met by a load whose lists are ``queries``, worded
        (:func:`.stops.quota_error`, ``said`` passed on) with the ledger's state now and
        the load's last failure (the stop when this load's probe got no answer). ``left``
        (profiles remaining) is said as unknown when no list answered a page: not 0."""
        listed = any(q.complete or (q.frame is not None and not q.frame.empty)
                     for q in queries)
        pages, unsized, copies = list_pages(queries)
        return quota_error(stop, self.settings, *self.quota_state(), pages=pages,
                           unsized=unsized, copies=copies, repaged=self.repaged,
                           left=left if listed else None, failure=self.control.last_failure,
                           unlisted=not listed or any(not q.complete for q in queries), **said)

    def warn_short(self, needed: int, queries: Sequence[ListQuery] = ()) -> bool:
        """Warn (:func:`.stops.warn_short_quota`) when ``needed`` requests are more than
        today's ``daily_quota`` has left, saying when a call can go on (and when none can:
        the pages of those of the load's lists, ``queries``, that a call pages, as known so
        far: a load's list cached whole takes none, an export's each day's); whether it
        warned. A ledger that cannot be read warns nothing: the next booking meets its error,
        a stop the load words (a 485 that came with it stays the stop)."""
        try:
            state = self.ledger.state()
        except CacheError:
            return False
        if needed <= state.remaining:
            return False
        paged = [q for q in queries  # (an export's are paged again each day: all count)
                 if self.repaged or not (q.from_cache and q.complete)]
        warn_short_quota(state, self.settings.daily_quota, *list_pages(paged),
                         repaged=self.repaged)
        return True

    def remaining(self) -> int:
        """Requests today's ``daily_quota`` has left for this key: the ledger's count, booked
        by every process using the cache dir. 0 when the service's refusal (485) is on record
        or the ledger cannot be read: what the service allows is not known then."""
        try:
            state = self.ledger.state()
        except CacheError:
            return 0
        return 0 if state.refused_at is not None else state.remaining

    def quota_state(self) -> tuple[LedgerState, bool, CacheError | None, bool, bool]:
        """The ledger's state now, or when it last refused a request of this load if its
        day has ended since (midnight came while the load waited: True), the ledger's
        error when it could not be read or written at the stop (its state is then this
        load's own requests: :func:`.stops.quota_error` says "at least"), whether a
        485 of this load could not be recorded (the next call may not know of it), and
        whether this load's probe got no answer (the refusal on record stays)."""
        booking = self._booking
        refused = None if booking is None else booking.refused_state
        unread = None if booking is None else booking.ledger_error
        unrecorded = booking is not None and booking.unrecorded
        unanswered = self._ledger is not None and self._ledger.probe_unanswered
        try:
            now = self.ledger.state()
        except CacheError as exc:
            unread, ledger = exc, self.ledger
            if refused is not None:
                return refused, ledger.day() > refused.day, unread, unrecorded, unanswered
            now = LedgerState(ledger.day(), sum(self.requests_spent().values()), ledger.limit,
                              reset=ledger.reset, day_ends=ledger.next_reset())
        if refused is None or now.day <= refused.day:  # the same day: its latest count
            # (in flight answered, a later 485 recorded)
            return now, False, unread, unrecorded, unanswered
        return refused, True, unread, unrecorded, unanswered

    def requests_spent(self) -> dict[str, int]:
        """Requests sent per endpoint, retries and unanswered ones included: what the
        ledger booked for this load (:attr:`~icoframes.api.client.Client.sent`)."""
        if self._client is None:
            return {"filters": 0, "icos": 0, "ico": 0}
        return self._client.sent

    def close(self) -> None:
        """Close the client's connections (the ledger is persisted as it goes)."""
        if self._client is not None:
            self._client.close()


#: The filter set's request, as a quota stop met there names it.
FILTER_SET = ("the filter set (which load_filters returns, and a filter given by name is "
              "checked against)")

_CANNOT_WRITE = {errno.EACCES: "this user may not write to it",
                 errno.EPERM: "this user may not write to it",
                 errno.EROFS: "its file system is read-only"}


def list_pages(queries: Sequence[ListQuery]
               ) -> tuple[int, int, tuple[int, dt.datetime] | None]:
    """The pages the load's lists take, each paged whole (a list another one answered costs
    none); how many of those lists answered no page yet: each is counted as one page (its
    length is not known), so the count is then a lower bound; and how many are counted by
    the length their cached copy gave (no page of theirs came in this load), with the oldest
    copy's paging: what the count is based on, said (the lists may have changed since)."""
    paged = [q for q in queries if q.answered_from is None]
    unsized = [q for q in paged if q.total_icos is None and not q.complete and not q.n_items]
    copies = [when for q in paged if q.from_cache
              and (when := q.paged_at or q.fetched_at) is not None]
    return (sum(max(1, -(-max(q.total_icos or 0, q.n_items) // PAGE_SIZE)) for q in paged),
            len(unsized), (len(copies), min(copies)) if copies else None)


def check_writable(cache: Cache) -> None:
    """Fail before any request when what is fetched could not be kept.

    Probes the service's folder when it exists, else the cache dir (made, private,
    when missing): the service's folder is made by its first write, so a service
    that is never reached leaves none behind.
    """
    directory = cache.dir if cache.dir.is_dir() else cache.root
    try:
        check_cache_dir(cache.root, create=True)  # refused when another user could write there
        probe = directory / f"{WRITE_PROBE}{secrets.token_hex(8)}"
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                         | getattr(os, "O_NOFOLLOW", 0), 0o600))
        probe.unlink()
    except CacheError:
        raise
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise disk_full(directory, "nothing fetched could be kept") from None
        check_open_files(directory, exc)  # (the folder may be fine: descriptors ran out)
        if exc.errno == errno.ENOENT and directory == cache.dir and removed_meanwhile(directory):
            raise cleared("the cache folder", directory) from None  # found, then gone
        if (why := not_a_folder(cache.root)) is not None:  # a folder under a file
            raise ConfigError(f"the cache dir {cache.root} is no folder: {why}. "
                              + SET_CACHE_DIR) from None
        # the OS's words ("No such file or directory" of a probe in /proc) only as the cause
        why = _CANNOT_WRITE.get(exc.errno or 0, "no file can be made there")
        # a cache already there (a shared, pre-filled one) serves a load that asks nothing
        # (not an export: it has no offline mode, and its users are told so, not sent there)
        held = (" A loader with offline=True uses what it holds, as it is (an export has "
                "no offline mode)." if directory == cache.dir else "")
        raise ConfigError(f"the cache dir {directory} is not writable: {why}, so nothing a "
                          f"load fetches could be kept. {SET_CACHE_DIR}{held}") from exc


def forget_unreached(cache: Cache) -> None:
    """The service was never reached: the folder a load made for its list claims goes
    (a service's folder is made by what it answered), unless something was kept there."""
    counts = cache.counts()
    if not counts["list_queries"] and not any(counts["states"].values()):
        remove_folder(cache.dir)

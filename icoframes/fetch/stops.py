"""What stops a load, worded once: the daily limit (and its warning), the breaker, the budget.

:class:`Booking` is what the client books its requests with: the request
ledger (:class:`~icoframes.store.ledger.QuotaLedger`), and the call's
``budget`` of profile requests, retries included.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from typing import Protocol
from urllib.parse import urlsplit

from ..api.control import LoadControl
from ..errors import (
    APIError,
    CacheError,
    QuotaExceeded,
    QuotaWarning,
    ServiceUnavailable,
    error_for_code,
    warn,
)
from ..files import utcnow
from ..quoting import counted
from ..secret import redact_url
from ..store.ledger import LedgerState, QuotaLedger
from .quotaday import ahead_of, ahead_stop, clock_day, count_starts, why_ahead

__all__ = ["Booking", "BudgetSpent", "ItemsStop", "breaker_error", "first_stop", "held",
           "known_skipped", "quota_error", "unanswered_error", "warn_short_quota"]


class Settings(Protocol):
    """What the stop messages read of :class:`icoframes.config.Settings`."""

    @property
    def base_url(self) -> str | None: ...

    @property
    def daily_quota(self) -> int: ...


class BudgetSpent(Exception):
    """The call's ``budget`` of profile requests is spent (this one was not sent)."""


class ItemsStop(ServiceUnavailable):
    """The breaker tripped on a run of wrong answers to kinds of request the service answered
    right earlier in the load (:attr:`~icoframes.api.control.LoadControl.on_items`): the
    load stops asking but is not lost; it returns what came, the rest reported not asked
    with this message as their reason. Never raised; any other stop that follows wins."""


def held(stop: BaseException | None, skipped: str | None = None) -> dict[str, str]:
    """What a held stop (:class:`ItemsStop`) adds to a load's summary: ``stopped`` and the
    reason of what it did not ask (``stop``); the same for profiles that failed before and
    were ``skipped`` (why: :func:`known_skipped`) when nothing stopped the load; nothing for
    any other stop (it is raised)."""
    if isinstance(stop, ItemsStop):
        return {"stopped": "breaker", "stop": str(stop)}
    return {"stopped": "breaker", "stop": skipped} if stop is None and skipped else {}


def known_skipped(control: LoadControl) -> str | None:
    """Why a load asks no more profiles that failed in an earlier load, once a run holding
    them reached the breaker's count (:attr:`~icoframes.api.control.LoadControl.known_held`);
    None before that. Said as the reason of each one it did not ask."""
    if control.known_held is None:
        return None
    items, refused, last = control.known_held
    return (f"not asked: {items} different requests in a row failed, {refused} of them "
            f"answered wrongly (last: {last}), among them profiles that failed in an earlier "
            "load, which are likely bad again: the load asked no more of those and asked "
            "every other profile; a later call asks them again")


class Booking:
    """Books every request in the ledger, and profile requests against the call's budget.

    Each attempt counts (a retry too); a request that never left is handed back
    to both. A quota stop is never hidden by a ledger that cannot be read or written
    at that moment: its :class:`~icoframes.errors.CacheError` (the last one met, by any
    worker) is kept in :attr:`ledger_error`, to be said in the stop.
    """

    def __init__(self, ledger: QuotaLedger, budget: int | None = None) -> None:
        self.ledger = ledger
        self.budget = budget
        self.profiles = 0  # profile requests booked by this call
        self.refused_state: LedgerState | None = None  # the ledger's, when it refused one
        self.ledger_error: CacheError | None = None  # met while booking a quota stop
        self.unrecorded = False  # a 485 the ledger could not record
        self._lock = threading.Lock()

    def take(self, endpoint: str) -> None:
        budgeted = endpoint == "ico" and self.budget is not None
        if budgeted:
            with self._lock:
                if self.profiles >= (budget := self.budget or 0):
                    raise BudgetSpent(f"the budget of {counted(budget, 'profile request')} is "
                                      "spent")
                self.profiles += 1
        try:
            self.ledger.take(endpoint)
        except BaseException as exc:
            if isinstance(exc, CacheError):  # said in a quota stop (another worker's 485)
                self.ledger_error = exc
            if isinstance(exc, QuotaExceeded):  # the count of the day it refused, read now:
                try:  # the stop may be worded a day later
                    self.refused_state = self.ledger.state()
                except CacheError as unread:  # the stop stays the stop, the error said in it
                    self.ledger_error = unread
            if budgeted:
                with self._lock:
                    self.profiles -= 1
            raise

    def settle(self, endpoint: str, outcome: str | int | None) -> None:
        try:
            self.ledger.settle(outcome)
        except CacheError as exc:
            self.ledger_error = exc  # a 485 not recorded is still the stop, and says so
            if outcome != 485:
                raise
            self.unrecorded = True
        if outcome == "not_sent" and endpoint == "ico" and self.budget is not None:
            with self._lock:
                self.profiles -= 1


def first_stop(stop: BaseException | None, new: BaseException) -> BaseException:
    """What stops a load once a request or a write ended with ``new``, ``stop`` before.

    An answer that nothing will better (480, 483, 484) stops it whatever came before.
    The daily limit stops it rather than a :class:`~icoframes.errors.CacheError` that came
    first (another worker's, or a write's): what to do next depends on the limit, and the
    error is said in its message (:class:`Booking`, :func:`quota_error`'s ``lost``).
    A held stop (:class:`ItemsStop`) gives way to any other. Otherwise the first stop stays.
    """
    if stop is None or isinstance(stop, ItemsStop) or (
            isinstance(new, APIError) and not isinstance(new, QuotaExceeded)):
        return new
    if isinstance(new, QuotaExceeded) and isinstance(stop, CacheError):
        return new
    return stop


def quota_error(stop: QuotaExceeded, settings: Settings, state: LedgerState,
                began_again: bool = False, unread: CacheError | None = None,
                unrecorded: bool = False, unanswered: bool = False, *, fetched: int,
                left: int | None, unlisted: bool, lost: CacheError | None = None,
                failed: int = 0, asked: str | None = None, failure: str | None = None,
                pages: int = 0, unsized: int = 0, repaged: bool = False,
                copies: tuple[int, dt.datetime] | None = None,
                ) -> QuotaExceeded | ServiceUnavailable:
    """The daily limit stopped the load: who refused, what was sent, what is left, what now.

    ``state`` is the ledger's when it refused; ``began_again``: its day has ended since.
    ``unread``: the ledger could not be read or written then (``state`` holds this call's
    own requests, so the count is said as a lower bound, and the error with it).
    ``unrecorded``: the ledger could not record the 485 (the next call may not know of
    it). ``unanswered``: this call's probe, sent after a 485 on record, got no answer (it
    timed out, or :data:`~icoframes.store.ledger.PROBES_UNANSWERED` in a row; the refusal
    stays): the service is not answering, so the stop is :class:`ServiceUnavailable`
    (:func:`unanswered_error`), ``failure`` its last cause. ``lost``: what arrived could not
    all be kept (the cache's error, said). ``left`` counts the ``failed`` ones (this call's
    failures: a later call asks them again); None when no list answered a page (what
    remains is unknown). ``asked``: the refused request was the call's first, for what it
    names (the filter set), before any list: nothing was fetched. ``pages``: what the load's
    lists take, paged whole: when no profile was fetched and they are ``daily_quota`` or
    more, a call that pages them again fetches none either (lists go first); ``unsized`` of
    those lists answered no page, each counted as one (so ``pages`` is a lower bound, said
    "at least"); ``copies``: how many of them are counted by their cached copy's length (none
    of their pages came in this load), and the oldest copy's paging (said: they may have
    changed since); ``repaged``:
    an export's, paged again each day (a loader's next call may use them cached)."""
    if unanswered and stop.code == 485 and not unrecorded:
        return unanswered_error(settings, state, failure, lost)
    more = " (and a list was not complete, so possibly more)" if unlisted else ""
    rest = " to fetch only the rest" if asked is None else ""  # else nothing was fetched
    if failed:
        more += (f"; {failed} of them failed in this call (in attrs['icoframes']['failed'] "
                 "of the error's listing), asked again by a later one")
    least = "" if unread is None else "at least "
    if stop.code == 485:
        when = "" if state.refused_at is None else f" at {state.refused_at:%H:%M} UTC"
        day = "today"
        if began_again or _before_day(state):
            day = "that day"  # worded after the day it refused ended
            if state.refused_at is not None:
                when = f" at {state.refused_at:%Y-%m-%d %H:%M} UTC"
        after = state.refused_after if state.refused_after is not None else state.sent
        sent = f"sent {day} with this key from this cache dir"
        if state.ahead_day is not None:  # another day's count, today's requests among them
            sent = (f"counted on {state.day} with this key from this cache dir, "
                    f"{ahead_of(state)} ({why_ahead(state, 'either')}; how many of them "
                    "were sent today is not known)")
        who = (f"the service refused this key: its daily request limit (error 485) was reached"
               f"{when}, after {least}{counted(after, 'request')} {sent}")
        then = ("The service does not say when its allowance resets: the next call sends one "
                "request first (a probe, costing one request) and goes on if it is accepted, "
                f"so call the same loader again later{rest}.")
        if stop.retry_at is not None:  # (its 429 or 503 said when: Retry-After)
            then = (f"The service asked to be called again after {stop.retry_at:%Y-%m-%d %H:%M:%S}"
                    " UTC (Retry-After), not saying whether its allowance resets then: the next "
                    "call sends one request first (a probe, costing one request) and goes on if "
                    f"it is accepted, so call the same loader again then{rest}.")
        if state.reset is None:  # the count said is by UTC days; the service's is not stated
            then += (" The requests above are counted from 00:00 UTC: the service's own day "
                     "may begin at another hour, and count requests sent before it; if it "
                     "resets at a known time, set quota_reset.")
        else:  # (this clock's next reset, not the stored day's: a probe may go then)
            ends = dt.datetime.combine(clock_day(state), state.reset) + dt.timedelta(days=1)
            then = (f"It resets at {state.reset:%H:%M} UTC (the quota_reset setting): no request "
                    f"is sent before {ends:%Y-%m-%d %H:%M} UTC; call the same loader again "
                    f"then{rest}.")
            if began_again:
                then = (f"It reset at {count_starts(state)} (the quota_reset setting), after "
                        f"this call stopped: call the same loader again now{rest}.")
        if unrecorded:
            then = ("The ledger could not record this refusal, so the next call may not know "
                    "of it and send several requests (not one probe) before the service "
                    "refuses again: call the same loader again later, once the ledger can be "
                    "used" + (f",{rest}." if rest else "."))
    else:
        day = "UTC" if state.reset is None else f"from {state.reset:%H:%M} UTC, quota_reset"
        who = (f"the daily_quota setting ({counted(settings.daily_quota, 'request')}) is "
               f"reached: {least}{counted(state.sent, 'request')} sent "
               f"{'that day' if began_again else 'today'} "
               f"({state.day}, {day}) with this key from this cache dir")
        then = (f"The count starts again at {count_starts(state)}: call the same loader "
                f"again then{rest}, or raise daily_quota.")
        if began_again:  # the day it refused has ended since (the load waited for requests)
            then = (f"The count started again at {count_starts(state)}, after this call "
                    f"stopped: call the same loader again now{rest}.")
        if 0 < settings.daily_quota <= pages and not fetched:
            then = (f"The count started again at {count_starts(state)}, after this call stopped. "
                    if began_again else f"The count starts again at {count_starts(state)}. ")
            then += _lists_take(state, settings.daily_quota, pages, unsized, repaged, rest,
                                copies)
        if state.ahead_day is not None:  # (not today's count: worded apart, with a way out)
            who, then = ahead_stop(settings.daily_quota, state, least)
    if unread is not None:
        who += f" (the quota ledger could not be read: {unread})"
    kept = ("Everything fetched is cached, and offline=True returns it now without a request."
            if lost is None else f"Not everything fetched could be kept ({lost}); offline=True "
            "returns what was, now, without a request.")
    done = (f"This call fetched {counted(fetched, 'profile')}; {left} "
            f"{'remains' if left == 1 else 'remain'} to fetch{more}.")
    if left is None:  # no list answered a page: how many remain is not known, not 0
        done = (f"This call fetched {counted(fetched, 'profile')}; how many remain to fetch is "
                "unknown: no list answered a page before the limit.")
    if asked is not None:  # nothing listed yet: how many profiles remain is unknown
        done = f"This call's request for {asked} was refused, before any list was paged."
        kept = ("Nothing was fetched; offline=True answers only from a copy an earlier load "
                "left in this cache dir (without one it raises NotCached).")
    error = QuotaExceeded(f"{who}. {done} {kept} {then}", code=stop.code,
                          endpoint=stop.endpoint, remaining=left)
    error.retry_at = stop.retry_at
    return error


def unanswered_error(settings: Settings, state: LedgerState, failure: str | None,
                     lost: CacheError | None = None) -> ServiceUnavailable:
    """This call's probe, sent alone after a 485 on record, got no answer: the service is
    not answering (an outage: exit 1 for a cron monitor, not the daily limit's 3), and the
    refusal of ``state`` stays on record, said with its date, whatever day it came."""
    when = "" if state.refused_at is None else f" at {state.refused_at:%Y-%m-%d %H:%M} UTC"
    last = f" (last: {failure})" if failure else ""
    kept = ("Everything fetched is cached." if lost is None else
            f"Not everything fetched could be kept ({lost}).")
    error = ServiceUnavailable(
        f"{_host(settings)} is not answering: the service refused this key with error 485 "
        f"(its daily request limit){when}, and this call's probe (its first request since, "
        "sent alone) timed out, or it and the next two sent alone each broke off or came back "
        f"without the service's JSON, such as an HTML 503 page{last}, so the call sent nothing "
        f"more. {kept} That refusal stays on record (whether the allowance is back is not "
        "known): the next call sends one request first (a probe, costing one request) and "
        "goes on if it is accepted; call again later to fetch only the rest.")
    error.last_failure = failure
    return error


def _before_day(state: LedgerState) -> bool:
    """The refusal of ``state`` came before its counted day began (at 00:00 UTC, or at
    ``quota_reset``): said as "that day", with its date, never as today's."""
    if state.refused_at is None:
        return False
    if state.day_ends is None:
        return state.refused_at.date().isoformat() < state.day
    return state.refused_at < state.day_ends - dt.timedelta(days=1)


def _lists_take(state: LedgerState, cap: int, pages: int, unsized: int, repaged: bool,
                rest: str, copies: tuple[int, dt.datetime] | None = None) -> str:
    """The lists alone take ``pages``, ``cap`` or more (``unsized`` of them answered no page
    and are counted as one each: then at least ``pages``; ``copies`` of them, by the length
    a cached copy gave, the oldest paged then), and what a load can do."""
    based = [f"{_unsized(unsized)} counted as one page"] if unsized else []
    if copies is not None:  # (not paged in this load: its length then, not now)
        lists, when = copies
        based.append(f"{'a list' if lists == 1 else f'{lists} lists'} counted by the length "
                     f"{'its cached copy' if lists == 1 else 'their cached copies'} gave, "
                     f"{'' if lists == 1 else 'the oldest '}paged {when:%Y-%m-%d %H:%M} UTC: "
                     f"{'it' if lists == 1 else 'they'} may have changed since")
    size = (("at least " if unsized else "") + counted(pages, "page")
            + (f" ({'; '.join(based)})" if based else ""))  # (a list says its length on page 1)
    # (as many with a length not known: as many or more; what a call can do depends on which)
    than = ("at least as many as" if unsized and pages == cap else
            "more than" if pages > cap else "as many as")
    said = (f"The lists alone take {size}, {than} the {counted(cap, 'request')} the "
            "daily_quota setting allows a day")
    if unsized and pages == cap:
        return said + (
            ": raise daily_quota or narrow the query (if they take more, no call completes "
            "them at this cap).")
    return said + _lists_alone(state, pages > cap, repaged, rest)


def _unsized(lists: int) -> str:
    """``lists`` that answered no page, so their lengths are not known, in words."""
    return ("a list that answered no page yet, its length not known, is" if lists == 1 else
            f"{lists} lists that answered no page yet, their lengths not known, are each")


def _lists_alone(state: LedgerState, more: bool, repaged: bool, rest: str) -> str:
    """What a load whose lists alone take the cap can do: ``more``, their pages are more
    than it (a list is kept only whole, so every call pages it again from its first page);
    ``repaged``, an export's (paged again each UTC day)."""
    if more:
        return (": no call completes the lists at this cap; raise daily_quota or narrow "
                "the query.")
    if not repaged:
        return (": a call that pages them again fetches no profile, so call the same loader "
                f"again while they are cached (younger than max_age, without refresh){rest},"
                " or raise daily_quota or narrow the query.")
    if state.day_ends is not None and state.day_ends.date() == utcnow().date():
        # quota_reset: a new count before this UTC day ends, when today's lists still serve
        return (f", and an export pages them again each UTC day: a run from {count_starts(state)} "
                "(quota_reset) until this UTC day ends uses today's lists, cached, and has "
                "the cap for profiles; a run at another time has no request left for a "
                "profile at this cap: raise daily_quota or narrow the query.")
    return (", and an export pages them again each day: no request is left for a profile "
            "at this cap; raise daily_quota or narrow the query.")


def _host(settings: Settings) -> str:
    """The service's host, as a stop names it (any credentials in ``base_url`` redacted)."""
    base = settings.base_url or ""
    # redact the whole URL first: a bare netloc (user:pw@host) reads as a scheme to urlsplit
    return urlsplit(redact_url(base)).netloc or redact_url(base)


def breaker_error(settings: Settings, control: LoadControl) -> APIError:
    """The breaker tripped: the host, what failed in a row, the last cause; an
    :class:`ItemsStop` (held, said as the reason of what was not asked) on a run of wrong
    answers to kinds of request answered right earlier in the load; the error itself (its
    class, no "call again later") when every request of the run had the same error about
    the request (:attr:`~icoframes.api.control.LoadControl.same_error`)."""
    asked = "a profile" if control.probed == 1 else "profiles"
    probed = (f" ({control.probed} of them {asked} asked out of turn, spread over the rest "
              "of the load's lists)") if control.probed else ""
    if control.on_items:
        return ItemsStop(
            f"not asked: the load stopped asking after {control.items_bad} different requests "
            f"failed in a row, {control.items_refused} of them answered wrongly{probed} (last: "
            f"{control.last_failure}); as requests of their kind were answered right before, "
            "those may all be bad items: the next call asks again")
    host = _host(settings)
    if (same := control.same_error) is not None:  # one error about the request, on every one
        reason, code = same
        kind = APIError if code is None else type(error_for_code(code))
        return kind(f"{host}: {control.items_bad} different requests in a row were answered "
                    f"{reason}, and none of their kind right in this load, so the load "
                    "stopped: the error is likely about every request (the keys, base_url, "
                    "the query or the service), not about some items: check them", code=code)
    what = f"{control.in_a_row} attempts failed in a row"
    if control.unsent_in_a_row >= control.failures:
        what += f", the last {control.unsent_in_a_row} never reaching it"
    elif control.asked_in_a_row >= control.failures:
        what += f", the last {control.asked_in_a_row} each asked to wait (Retry-After)"
    elif not control.items_refused or control.items_failing >= control.items:
        what += (f" on {control.items_failing} different requests, with no success "
                 f"between{probed}")
    else:  # the items its answers were wrong for (refused), or failed, with no good answer
        what = (f"{control.items_bad} different requests failed, {control.items_refused} of "
                f"them answered wrongly, with no good answer between{probed}")
    error = ServiceUnavailable(
        f"{host} is not answering usefully: {what} (last: {control.last_failure}), so the "
        f"load stopped. Everything fetched is cached; call again {_when(control.retry_after)}"
        " to fetch only the rest.")
    error.last_failure = control.last_failure
    return error


def _when(asked: tuple[float, float] | None) -> str:
    """When to call again: "later", or once the longest wait the service asked in the run
    (``Retry-After``: :attr:`~icoframes.api.control.LoadControl.retry_after`) is over."""
    if asked is None or asked[0] <= time.time():  # (none, or over already)
        return "later"
    until, wait = asked
    try:
        when = f"{dt.datetime.fromtimestamp(until, dt.UTC):%Y-%m-%d %H:%M:%S} UTC"
    except (OverflowError, OSError, ValueError):  # years past 9999 ("Retry-After: 10**20")
        when = "a time past the year 9999"
    days = round(wait / 86_400)  # (digits as written before: no thousands separator)
    wait_text = f"{wait:.0f} s" if wait < 86_400 else f"{days} day{'' if days == 1 else 's'}"
    return f"after {when} (the service asked to wait {wait_text}, Retry-After)"


def warn_short_quota(state: LedgerState, daily_quota: int, pages: int = 0, unsized: int = 0,
                     copies: tuple[int, dt.datetime] | None = None, *,
                     repaged: bool = False) -> None:
    """A load plans more requests than the allowance of the ledger's day (``state``) has
    left: say so, once, and when a call can go on: not before the count starts again (a
    call before meets the same limit), and not at this cap at all when the load's lists
    alone take ``pages`` (``unsized`` of them not yet known, counted as one; ``copies`` by
    a cached copy's length) of it or more."""
    day = (f"today's {daily_quota}" if state.ahead_day is None else
           f"the {daily_quota} of {state.day}, {ahead_of(state)},")
    then = (f"A call before the count starts again at {count_starts(state)} meets the same "
            "limit: call again then, or raise daily_quota, to fetch only the rest.")
    if unsized:  # (more than the cap, and no call completes them)
        then += (" That holds if the lists alone take fewer than "
                 f"{counted(daily_quota, 'page')}: at least {counted(pages, 'page')}, as "
                 f"{_unsized(unsized)} counted as one.")
    if 0 < daily_quota <= pages:  # (lists go first: no profile is fetched at this cap)
        then = (f"The count starts again at {count_starts(state)}. "
                + _lists_take(state, daily_quota, pages, unsized, repaged,
                              " to fetch only the rest", copies))
    remain = "remains" if state.remaining == 1 else "remain"
    warn(f"this load needs more profile requests than the about {state.remaining} that {remain} "
         f"of {day} for this key; it will stop at the limit and keep what it fetched. {then}",
         QuotaWarning)

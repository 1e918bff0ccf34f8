"""fetch/stops.py: how requests are booked against the ledger and the call's budget, and the
words of each stop (daily limit, breaker, short quota) in full (`make mutate MODULE=stops`).

A real QuotaLedger in a temporary cache dir; LedgerState values built by hand for the
messages (a refusal time, a reset time: what the ledger gives after a day of requests).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass

import pytest

from icoframes.api.control import LoadControl
from icoframes.errors import AuthError, CacheError, QuotaExceeded, QuotaWarning, ServiceUnavailable
from icoframes.fetch.stops import (
    Booking,
    BudgetSpent,
    breaker_error,
    first_stop,
    quota_error,
    warn_short_quota,
)
from icoframes.store.ledger import LEDGER_FOLDER, LedgerState, QuotaLedger


@pytest.fixture(autouse=True)
def _one_day():
    """The ledger counts per UTC day: every test here runs inside one (not across midnight)."""
    import time_machine

    with time_machine.travel(dt.datetime(2026, 11, 26, 12, 0, tzinfo=dt.UTC), tick=False):
        yield


def _ledger(tmp_path, limit: int = 100) -> QuotaLedger:
    return QuotaLedger(tmp_path, "key", limit=limit, service="http://127.0.0.1:9")


# -- Booking ------------------------------------------------------------------------------


def test_without_a_budget_every_request_is_booked_in_the_ledger_only(tmp_path):
    booking = Booking(_ledger(tmp_path))
    for endpoint in ("ico", "ico", "list"):
        booking.take(endpoint)
    assert booking.profiles == 0 and booking.ledger.state().sent == 3
    booking.settle("ico", "not_sent")
    assert booking.profiles == 0 and booking.ledger.state().sent == 2


def test_a_budget_counts_profile_requests_only_and_refuses_the_one_past_it(tmp_path):
    booking = Booking(_ledger(tmp_path), budget=2)
    booking.take("ico")
    booking.take("list")  # not a profile: not counted against the budget
    booking.take("ico")
    assert booking.profiles == 2
    with pytest.raises(BudgetSpent) as info:
        booking.take("ico")
    assert str(info.value) == "the budget of 2 profile requests is spent"
    assert booking.profiles == 2 and booking.ledger.state().sent == 3  # not booked either
    booking.take("list")  # other requests still go
    assert booking.ledger.state().sent == 4


def test_a_budget_of_zero_refuses_the_first_profile_request(tmp_path):
    booking = Booking(_ledger(tmp_path), budget=0)
    with pytest.raises(BudgetSpent, match=r"^the budget of 0 profile requests is spent$"):
        booking.take("ico")
    assert booking.profiles == 0 and booking.ledger.state().sent == 0


def test_a_request_the_ledger_refuses_is_handed_back_to_the_budget(tmp_path):
    booking = Booking(_ledger(tmp_path, limit=3), budget=5)
    for _ in range(3):
        booking.take("ico")
    with pytest.raises(QuotaExceeded) as info:
        booking.take("ico")
    assert info.value.endpoint == "ico"  # the ledger names what it refused
    assert booking.profiles == 3 and booking.ledger.state().sent == 3
    unbudgeted = Booking(_ledger(tmp_path / "other", limit=1))
    unbudgeted.take("ico")
    with pytest.raises(QuotaExceeded):
        unbudgeted.take("ico")
    assert unbudgeted.profiles == 0 and unbudgeted.budget is None


@pytest.mark.parametrize(("endpoint", "outcome", "profiles", "sent"), [
    ("ico", "not_sent", 2, 3),  # never left: handed back to both
    ("ico", "no_answer", 3, 4),  # sent: counts
    ("ico", 200, 3, 4),
    ("ico", None, 3, 4),
    ("list", "not_sent", 3, 3),  # the ledger hands it back, the budget never had it
])
def test_settle_hands_back_only_what_never_left(tmp_path, endpoint, outcome, profiles, sent):
    booking = Booking(_ledger(tmp_path), budget=5)
    for e in ("ico", "ico", "list", "ico"):
        booking.take(e)
    booking.settle(endpoint, outcome)
    assert (booking.profiles, booking.ledger.state().sent) == (profiles, sent)


# -- the daily limit's words ---------------------------------------------------------------


@dataclass(frozen=True)
class _Settings:
    base_url: str | None = "http://127.0.0.1:9"
    daily_quota: int = 5000


def _state(**kwargs: object) -> LedgerState:
    values: dict = {"day": "2026-11-26", "sent": 40, "limit": 5000, **kwargs}
    return LedgerState(**values)


SERVICE = QuotaExceeded("refused", code=485, endpoint="/v1/icos/all")
SETTING = QuotaExceeded("cap", code=None, endpoint="/v1/ico")
TOMORROW = dt.datetime(2026, 11, 27, 3, 30)
BREAKER = ServiceUnavailable("the breaker tripped")


@pytest.mark.parametrize(("stop", "state", "unlisted", "message"), [
    (SERVICE, _state(), False,
     "the service refused this key: its daily request limit (error 485) was reached, after 40 "
     "requests sent today with this key from this cache dir. This call fetched 7 profiles; 3 "
     "remain to fetch. Everything fetched is cached, and offline=True returns it now without a "
     "request. The service does not say when its allowance resets: the next call sends one "
     "request first (a probe, costing one request) and goes on if it is accepted, so call the "
     "same loader again later to fetch only the rest. The requests above are counted from "
     "00:00 UTC: the service's own day may begin at another hour, and count requests sent "
     "before it; if it resets at a known time, set quota_reset."),
    (SERVICE, _state(refused_at=dt.datetime(2026, 11, 26, 14, 5), refused_after=12,
                     reset=dt.time(3, 30), day_ends=TOMORROW), True,
     "the service refused this key: its daily request limit (error 485) was reached at 14:05 "
     "UTC, after 12 requests sent today with this key from this cache dir. This call fetched 7 "
     "profiles; 3 remain to fetch (and a list was not complete, so possibly more). Everything "
     "fetched is cached, and offline=True returns it now without a request. It resets at 03:30 "
     "UTC (the quota_reset setting): no request is sent before 2026-11-27 03:30 UTC; call the "
     "same loader again then to fetch only the rest."),
    (SERVICE, _state(refused_after=0, reset=dt.time(0, 0)), False,
     "the service refused this key: its daily request limit (error 485) was reached, after 0 "
     "requests sent today with this key from this cache dir. This call fetched 7 profiles; 3 "
     "remain to fetch. Everything fetched is cached, and offline=True returns it now without a "
     "request. It resets at 00:00 UTC (the quota_reset setting): no request is sent before "
     "2026-11-27 00:00 UTC; call the same loader again then to fetch only the rest."),
    (SETTING, _state(), False,
     "the daily_quota setting (5,000 requests) is reached: 40 requests sent today (2026-11-26, "
     "UTC) with this key from this cache dir. This call fetched 7 profiles; 3 remain to fetch. "
     "Everything fetched is cached, and offline=True returns it now without a request. The "
     "count starts again at 00:00 UTC: call the same loader again then to fetch only the rest, "
     "or raise daily_quota."),
    (SETTING, _state(reset=dt.time(3, 30), day_ends=TOMORROW), True,
     "the daily_quota setting (5,000 requests) is reached: 40 requests sent today (2026-11-26, "
     "from 03:30 UTC, quota_reset) with this key from this cache dir. This call fetched 7 "
     "profiles; 3 remain to fetch (and a list was not complete, so possibly more). Everything "
     "fetched is cached, and offline=True returns it now without a request. The count starts "
     "again at 2026-11-27 03:30 UTC: call the same loader again then to fetch only the rest, or "
     "raise daily_quota."),
])
def test_quota_error_says_who_stopped_what_is_left_and_what_now(stop, state, unlisted, message):
    error = quota_error(stop, _Settings(), state, fetched=7, left=3, unlisted=unlisted)
    assert str(error) == message
    assert (error.code, error.endpoint, error.remaining) == (stop.code, stop.endpoint, 3)


def test_one_request_is_said_as_one():
    # "the daily_quota setting (1 requests) is reached: ... 1 requests sent today" (REVK L7)
    setting = quota_error(SETTING, _Settings(daily_quota=1), _state(sent=1, limit=1),
                          fetched=0, left=3, unlisted=False)
    assert str(setting).startswith("the daily_quota setting (1 request) is reached: 1 request "
                                   "sent today (2026-11-26, UTC) with this key from this cache "
                                   "dir. This call fetched 0 profiles; 3 remain to fetch.")
    service = quota_error(SERVICE, _Settings(), _state(refused_after=1), fetched=0, left=3,
                          unlisted=False)
    assert str(service).startswith("the service refused this key: its daily request limit "
                                   "(error 485) was reached, after 1 request sent today with "
                                   "this key from this cache dir.")


@pytest.mark.parametrize(("state", "when"), [
    # refused at 23:59 and worded after midnight: that day's count, with its date
    (_state(day="2026-11-27", refused_at=dt.datetime(2026, 11, 26, 23, 59), refused_after=12),
     "at 2026-11-26 23:59 UTC, after 12 requests sent that day"),
    # refused on the ledger's day: today, the time alone
    (_state(day="2026-11-27", refused_at=dt.datetime(2026, 11, 27, 0, 1), refused_after=12),
     "at 00:01 UTC, after 12 requests sent today"),
    # a known reset time: its day is the ledger's, whatever the date
    (_state(day="2026-11-27", refused_at=dt.datetime(2026, 11, 26, 23, 59), refused_after=12,
            reset=dt.time(3, 30), day_ends=TOMORROW),
     "at 23:59 UTC, after 12 requests sent today"),
])
def test_a_485_worded_after_midnight_names_the_day_it_was_refused(state, when):
    error = quota_error(SERVICE, _Settings(), state, fetched=7, left=3, unlisted=False)
    assert str(error).startswith(
        "the service refused this key: its daily request limit (error 485) was reached "
        f"{when} with this key from this cache dir. This call fetched 7 profiles; ")


def test_a_485_worded_after_its_day_ended_says_that_day_and_to_call_again_now():
    # with quota_reset, a 485 at 03:29 worded after 03:30 said "no request is sent before
    # <the next day's> 03:30": the ledger sends now
    state = _state(refused_at=dt.datetime(2026, 11, 26, 3, 29), refused_after=12,
                   reset=dt.time(3, 30), day_ends=dt.datetime(2026, 11, 26, 3, 30))
    error = quota_error(SERVICE, _Settings(), state, True, fetched=7, left=3, unlisted=False)
    assert str(error) == (
        "the service refused this key: its daily request limit (error 485) was reached at "
        "2026-11-26 03:29 UTC, after 12 requests sent that day with this key from this cache "
        "dir. This call fetched 7 profiles; 3 remain to fetch. Everything fetched is cached, and "
        "offline=True returns it now without a request. It reset at 2026-11-26 03:30 UTC (the "
        "quota_reset setting), after this call stopped: call the same loader again now to fetch "
        "only the rest.")


def test_a_daily_quota_stop_worded_after_its_day_ended_says_to_call_again_now():
    state = _state(reset=dt.time(3, 30), day_ends=TOMORROW)
    error = quota_error(SETTING, _Settings(), state, True, fetched=7, left=3, unlisted=False)
    assert "40 requests sent that day (2026-11-26, from 03:30 UTC, quota_reset)" in str(error)
    assert str(error).endswith(
        "offline=True returns it now without a request. The count started again at 2026-11-27 "
        "03:30 UTC, after this call stopped: call the same loader again now to fetch only the "
        "rest.")


def test_a_booking_keeps_the_ledgers_state_when_it_refused(tmp_path):
    booking = Booking(_ledger(tmp_path, limit=2))
    assert booking.refused_state is None
    booking.take("ico")
    booking.take("ico")
    assert booking.refused_state is None
    with pytest.raises(QuotaExceeded):
        booking.take("ico")
    assert booking.refused_state == booking.ledger.state()
    assert (booking.refused_state.sent, booking.refused_state.limit) == (2, 2)


class _UnreadAfterRefusing(QuotaLedger):
    """A ledger that refuses, then cannot be read: what no server can time (the fault falls
    between the ledger's own refusal and its read, in one thread)."""

    def state(self) -> LedgerState:
        raise CacheError("the quota ledger went bad")


def test_a_ledger_unread_after_its_refusal_keeps_the_refusal_and_the_error(tmp_path):
    booking = Booking(_UnreadAfterRefusing(tmp_path, "key", limit=1, service="s"), budget=5)
    booking.take("ico")
    assert booking.ledger_error is None
    with pytest.raises(QuotaExceeded, match="daily_quota setting") as info:
        booking.take("ico")
    assert info.value.endpoint == "ico"  # the ledger's own refusal, not the CacheError
    assert str(booking.ledger_error) == "the quota ledger went bad"
    assert booking.refused_state is None and booking.profiles == 1  # handed back


def test_a_485_the_ledger_cannot_record_is_kept_with_its_error(tmp_path):
    booking = Booking(_ledger(tmp_path))
    booking.take("ico")
    booking.take("ico")
    # its folder replaced by one icoframes refuses to use (a ledger checks its folders once,
    # and again whenever its file is opened anew)
    (tmp_path / LEDGER_FOLDER).rename(tmp_path / "quota-before")
    (tmp_path / LEDGER_FOLDER).mkdir()
    os.chmod(tmp_path / LEDGER_FOLDER, 0o777)
    assert booking.unrecorded is False
    booking.settle("ico", 485)  # the client raises the 485 itself: not hidden by this
    assert "others may write to it" in str(booking.ledger_error)
    assert booking.unrecorded is True
    booking.ledger_error = None
    with pytest.raises(CacheError, match="others may write to it"):  # any other: its error,
        booking.settle("ico", "not_sent")
    assert "others may write to it" in str(booking.ledger_error)  # kept for a stop to come
    booking.ledger_error = None
    with pytest.raises(QuotaExceeded, match="could not record"):
        booking.take("list")  # refused: nothing more is sent after the 485
    assert "others may write to it" in str(booking.ledger_error)


def test_a_booking_the_ledger_cannot_make_hands_the_budget_back_and_keeps_the_error(tmp_path):
    booking = Booking(_ledger(tmp_path), budget=3)
    booking.take("ico")
    (tmp_path / LEDGER_FOLDER).rename(tmp_path / "quota-before")
    (tmp_path / LEDGER_FOLDER).mkdir()
    os.chmod(tmp_path / LEDGER_FOLDER, 0o777)
    with pytest.raises(CacheError) as unbooked:
        booking.take("ico")
    assert booking.profiles == 1 and booking.ledger_error is unbooked.value
    assert booking.refused_state is None


AUTH = AuthError("480")
CACHE = CacheError("disk full")
CACHE2 = CacheError("folder refused")
QUOTA2 = QuotaExceeded("refused again", code=485)


@pytest.mark.parametrize(("stop", "new", "kept"), [
    (None, CACHE, CACHE),
    (None, SERVICE, SERVICE),
    (CACHE, SERVICE, SERVICE),  # the limit wins over a cache error met first
    (CACHE, SETTING, SETTING),
    (SERVICE, CACHE, SERVICE),
    (SERVICE, QUOTA2, SERVICE),  # otherwise the first stays
    (CACHE, CACHE2, CACHE),
    (SERVICE, AUTH, AUTH),  # 480, 483, 484: whatever came before
    (CACHE, AUTH, AUTH),
    (AUTH, SERVICE, AUTH),
    (AUTH, CACHE, AUTH),
    (BREAKER, SERVICE, BREAKER),
    (BREAKER, CACHE, BREAKER),
])
def test_first_stop_the_limit_wins_over_a_cache_error(stop, new, kept):
    assert first_stop(stop, new) is kept


UNREAD = CacheError("the cache folder /c/quota is refused")


@pytest.mark.parametrize(("stop", "state", "began_again", "start"), [
    (SERVICE, _state(sent=6), False,
     "the service refused this key: its daily request limit (error 485) was reached, after at "
     "least 6 requests sent today with this key from this cache dir (the quota ledger could not "
     "be read: the cache folder /c/quota is refused). This call fetched 7 profiles;"),
    (SERVICE, _state(refused_at=dt.datetime(2026, 11, 26, 14, 5), refused_after=12), False,
     "the service refused this key: its daily request limit (error 485) was reached at 14:05 "
     "UTC, after at least 12 requests sent today with this key from this cache dir (the quota "
     "ledger could not be read: the cache folder /c/quota is refused). This call fetched 7 "),
    (SETTING, _state(), True,
     "the daily_quota setting (5,000 requests) is reached: at least 40 requests sent that day "
     "(2026-11-26, UTC) with this key from this cache dir (the quota ledger could not be read: "
     "the cache folder /c/quota is refused). This call fetched 7 profiles;"),
])
def test_quota_error_with_the_ledger_unread_says_at_least_and_why(stop, state, began_again,
                                                                   start):
    error = quota_error(stop, _Settings(), state, began_again, UNREAD, fetched=7, left=3,
                        unlisted=False)
    assert str(error).startswith(start)
    assert (error.code, error.remaining) == (stop.code, 3)
    plain = str(quota_error(stop, _Settings(), state, began_again, None, fetched=7, left=3,
                            unlisted=False))
    assert "at least" not in plain and "ledger" not in plain


@pytest.mark.parametrize("state", [_state(), _state(reset=dt.time(3, 30), day_ends=TOMORROW)])
def test_a_485_the_ledger_could_not_record_promises_no_probe_and_no_wait(state):
    error = quota_error(SERVICE, _Settings(), state, False, UNREAD, True, fetched=7, left=3,
                        unlisted=False)
    assert str(error) == (
        "the service refused this key: its daily request limit (error 485) was reached, after at "
        "least 40 requests sent today with this key from this cache dir (the quota ledger could "
        "not be read: the cache folder /c/quota is refused). This call fetched 7 profiles; 3 "
        "remain to fetch. Everything fetched is cached, and offline=True returns it now without "
        "a request. The ledger could not record this refusal, so the next call may not know of "
        "it and send several requests (not one probe) before the service refuses again: call "
        "the same loader again later, once the ledger can be used, to fetch only the rest.")
    recorded = str(quota_error(SERVICE, _Settings(), state, False, UNREAD, fetched=7, left=3,
                               unlisted=False))
    assert "could not record" not in recorded


def test_quota_error_says_what_could_not_be_kept():
    error = quota_error(SERVICE, _Settings(), _state(refused_after=12), fetched=7, left=3,
                        unlisted=False, lost=CacheError("the disk is full"))
    assert str(error) == (
        "the service refused this key: its daily request limit (error 485) was reached, after 12 "
        "requests sent today with this key from this cache dir. This call fetched 7 profiles; 3 "
        "remain to fetch. Not everything fetched could be kept (the disk is full); offline=True "
        "returns what was, now, without a request. The service does not say when its allowance "
        "resets: the next call sends one request first (a probe, costing one request) and goes "
        "on if it is accepted, so call the same loader again later to fetch only the rest. "
        "The requests above are counted from 00:00 UTC: the service's own day may begin at "
        "another hour, and count requests sent before it; if it resets at a known time, set "
        "quota_reset.")
    assert (error.code, error.remaining) == (485, 3)


# -- the breaker's words -------------------------------------------------------------------


def _control(*failures: tuple[str, object, bool]) -> LoadControl:
    control = LoadControl(failures=3, items=10)
    for reason, item, sent in failures:
        control.failed(reason, item=item, sent=sent)
    return control


@pytest.mark.parametrize(("base_url", "failures", "message"), [
    ("http://user:pw@127.0.0.1:9/v1", [("connection refused", 1, False)] * 3,
     "<hidden>@127.0.0.1:9 is not answering usefully: 3 attempts failed in a row, the last 3 "
     "never reaching it (last: connection refused), so the load stopped. Everything fetched is "
     "cached; call again later to fetch only the rest."),
    ("user:pw@example.org", [("HTTP 503", 1, True), ("HTTP 503", 2, True)],
     "<hidden>@example.org is not answering usefully: 2 attempts failed in a row on 2 different "
     "requests, with no success between (last: HTTP 503), so the load stopped. Everything "
     "fetched is cached; call again later to fetch only the rest."),
    (None, [("HTTP 503", 1, True), ("timed out", 1, False), ("refused", 1, False)],
     " is not answering usefully: 3 attempts failed in a row on 1 different requests, with no "
     "success between (last: refused), so the load stopped. Everything fetched is cached; call "
     "again later to fetch only the rest."),
])
def test_breaker_error_names_the_host_hidden_what_failed_and_the_last_cause(
        base_url, failures, message):
    error = breaker_error(_Settings(base_url=base_url), _control(*failures))
    assert str(error) == message
    assert error.last_failure == failures[-1][0]


# -- a short quota's warning ---------------------------------------------------------------


def test_warn_short_quota_in_full():
    # a call before the count starts again meets the same limit: no "next call resumes"
    with pytest.warns(QuotaWarning) as caught:
        warn_short_quota(_state(sent=4988, day_ends=dt.datetime(2026, 11, 27, tzinfo=dt.UTC)), 5000)
    assert [str(w.message) for w in caught] == [
        "this load needs more profile requests than the about 12 that remain of today's 5000 "
        "for this key; it will stop at the limit and keep what it fetched. A call before the "
        "count starts again at 2026-11-27 00:00 UTC meets the same limit: call again then, or "
        "raise daily_quota, to fetch only the rest."]


@pytest.mark.parametrize(("pages", "unsized", "said"), [
    (4, 2, "A call before the count starts again at 00:00 UTC meets the same limit: call again "
           "then, or raise daily_quota, to fetch only the rest. That holds if the lists alone "
           "take fewer than 5 pages: at least 4 pages, as 2 lists that answered no page yet, "
           "their lengths not known, are each counted as one."),
    (5, 1, "The count starts again at 00:00 UTC. The lists alone take at least 5 pages (a list "
           "that answered no page yet, its length not known, is counted as one page), at least "
           "as many as the 5 requests the daily_quota setting allows a day: raise daily_quota "
           "or narrow the query (if they take more, no call completes them at this cap)."),
    (6, 0, "The count starts again at 00:00 UTC. The lists alone take 6 pages, more than the 5 "
           "requests the daily_quota setting allows a day: no call completes the lists at this "
           "cap; raise daily_quota or narrow the query."),
])
def test_warn_short_quota_promises_no_call_while_the_lists_may_take_the_cap(pages, unsized, said):
    with pytest.warns(QuotaWarning) as caught:
        warn_short_quota(_state(sent=3, limit=5), 5, pages, unsized)
    assert [str(w.message) for w in caught] == [
        "this load needs more profile requests than the about 2 that remain of today's 5 for "
        f"this key; it will stop at the limit and keep what it fetched. {said}"]


def test_warn_short_quota_of_a_day_ahead_names_that_day():
    with pytest.warns(QuotaWarning, match="remain of the 5000 of 2026-11-29, 3 days after this "
                      "clock's day 2026-11-26, for this key;"):
        warn_short_quota(_state(day="2026-11-29", sent=4990, ahead_day="2026-11-29"), 5000)

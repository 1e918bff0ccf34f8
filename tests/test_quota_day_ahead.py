"""A request count stored under the day after this clock's is not today's count, and is said so.

A run whose clock was ahead by a day (or by minutes across midnight), this clock behind by
as much, or ``quota_reset`` set or moved later since the count began, each leave the ledger
on the next day: its requests may not all have been sent today, and how many were is not
known. ``LedgerState.ahead_day`` (``cache_info().quota``) shows any stored day after this
clock's, ``requests_today`` is None then, the stops name that day ("1 day after"), and
``icoframes cache info`` says it in words beside its JSON. Counts in these messages agree
with their number ("1 request is", "the 1 request the daily_quota setting allows").
Against a loopback test server; days moved with time-machine.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, paged_list
from test_ledger_clock_ahead import _profile

import icoframes
from icoframes.cli import EXIT_OK, main
from icoframes.errors import QuotaExceeded
from icoframes.store.ledger import QuotaLedger

RIGHT = dt.datetime(2026, 12, 2, 3, 15, tzinfo=dt.UTC)  # this clock
NEXT_DAY = RIGHT + dt.timedelta(days=1)  # a run's clock, a day ahead
ONE_DAY = "counted on 2026-12-03, 1 day after this clock's day 2026-12-02"
RESET_CAUSE = "or quota_reset was set, or moved later, since the count began"


@pytest.fixture
def configured():
    yield icoframes.configure
    icoframes.reset_configuration()


def _at(when: dt.datetime) -> time_machine.travel:
    return time_machine.travel(when, tick=False)


@pytest.mark.parametrize("reset", [None, dt.time(6, 0)])
def test_a_count_a_day_ahead_is_flagged_and_its_stop_says_that_day(tmp_path, reset):
    ledger = QuotaLedger(tmp_path, "key", limit=2, service="s", reset=reset)
    with _at(NEXT_DAY + dt.timedelta(hours=6)):  # (past 06:00: that day, with the reset too)
        ledger.take("ico")
        ledger.take("ico")
    with _at(RIGHT + dt.timedelta(hours=6)):
        state = ledger.state()
        assert (state.day, state.sent, state.ahead_day) == ("2026-12-03", 2, "2026-12-03")
        with pytest.raises(QuotaExceeded) as info:
            ledger.take("ico")
    counts = "UTC" if reset is None else "from 06:00 UTC, quota_reset"
    assert str(info.value) == (
        f"the daily_quota setting (2 requests) is reached: 2 requests counted on 2026-12-03 "
        f"({counts}), after this clock's day 2026-12-02, with this key from this cache dir")


@pytest.mark.filterwarnings("ignore::icoframes.errors.QuotaWarning")
@pytest.mark.filterwarnings("ignore:.*dated after now:icoframes.CacheWarning")
def test_a_load_on_a_count_a_day_ahead_is_told_that_day_in_true_numbers(tmp_path, configured):
    with HostileServer({LIST: paged_list(60), PROFILE: _profile}) as srv:
        configured(**srv.settings(), cache_dir=tmp_path / "cache", daily_quota=1)
        with _at(NEXT_DAY), pytest.raises(QuotaExceeded):
            icoframes.load_icos(status="past", progress=False)
        with _at(RIGHT):
            info = icoframes.cache_info()
            assert (info.quota.ahead_day, info.quota.sent, info.requests_today) == (
                "2026-12-03", 1, None)
            with pytest.raises(QuotaExceeded) as stop:
                icoframes.load_icos(status="past", progress=False)
    said = str(stop.value)
    assert ("the daily_quota setting (1 request) is reached: 1 request is " + ONE_DAY) in said
    assert ("Either a run's clock was ahead, or this clock is behind: check it; "
            + RESET_CAUSE + ". The count holds until 2026-12-04 00:00 UTC.") in said, said
    assert "1 requests" not in said and "1 days" not in said


@pytest.mark.filterwarnings("ignore::icoframes.errors.QuotaWarning")
def test_cache_info_says_a_count_a_day_ahead_in_words(tmp_path, configured, monkeypatch,
                                                      capsys):
    with HostileServer({LIST: paged_list(60), PROFILE: _profile}) as srv:
        settings = {**srv.settings(), "cache_dir": tmp_path / "cache"}
        configured(**settings, daily_quota=3)
        with _at(NEXT_DAY), pytest.raises(QuotaExceeded):
            icoframes.load_icos(status="past", progress=False)
    icoframes.reset_configuration()
    for name, value in settings.items():
        monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", str(value))
    with _at(RIGHT):
        assert main(["cache", "info"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert json.loads(out)["requests_today"] is None  # (stdout stays JSON)
    assert err == (
        "this key's request count (3 requests) is stored under 2026-12-03, 1 day after this "
        "clock's day 2026-12-02: not today's count, and how many of its requests were sent "
        "today is not known (either a run's clock was ahead, or this clock is behind: check "
        f"it; {RESET_CAUSE}); it holds until 2026-12-04 00:00 UTC (requests_today is null). "
        "If this clock is right, icoframes cache clear --ledgers-only forgets the count and "
        "keeps the cache; the service may then refuse (error 485) before daily_quota\n")
    with _at(NEXT_DAY):  # on that day: today's count, nothing said
        assert main(["cache", "info"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert json.loads(out)["requests_today"] == 3 and err == ""


@pytest.mark.filterwarnings("ignore::icoframes.errors.QuotaWarning")
def test_a_cap_of_one_is_said_as_one_request_in_the_lists_alone_stop(tmp_path, configured):
    with HostileServer({LIST: paged_list(60), PROFILE: _profile}) as srv:
        configured(**srv.settings(), cache_dir=tmp_path / "cache", daily_quota=1)
        with _at(RIGHT), pytest.raises(QuotaExceeded) as stop:
            icoframes.load_icos(status="past", progress=False)
    said = str(stop.value)
    assert "more than the 1 request the daily_quota setting allows a day" in said, said
    assert "This call fetched 0 profiles" in said and "1 requests" not in said

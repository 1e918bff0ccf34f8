"""A request ledger written while the clock was days ahead does not hold the real days after.

The day counted never goes back for a clock stepped back a little (around midnight: a
stored day up to one day after the clock's). A stored day more than one day after the
clock's was written by a clock that was ahead then: the next booking counts that day's
requests today (they were sent, maybe today: the safe upper bound), says so with a
:class:`~icoframes.CacheWarning` naming the stored day, and from the next day the count
starts at 0 as every day. ``cache_info().quota.ahead_day`` shows such a day until then.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from ledger_day import on_this_clock
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_INCOMPLETE
from icoframes.config import SETTINGS
from icoframes.errors import CacheWarning, QuotaExceeded
from icoframes.store.ledger import QuotaLedger

AHEAD = dt.datetime(2026, 12, 10, 3, 15, tzinfo=dt.UTC)  # the clock 8 days ahead, once
RIGHT = dt.datetime(2026, 12, 2, 3, 15, tzinfo=dt.UTC)  # the clock right again
SAID = r"ledger.*2026-12-10, 8 days after this clock's day 2026-12-02"


@pytest.fixture
def configured():
    yield icoframes.configure
    icoframes.reset_configuration()


def _profile(h):
    asked = h.request_json().get("id")
    json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)


def _hits(srv) -> int:
    return sum(srv.hits.values())


# -- the ledger --------------------------------------------------------------------------


def _at(when: dt.datetime) -> time_machine.travel:
    return time_machine.travel(when, tick=False)


def test_a_day_stored_ahead_is_counted_today_once_and_the_next_day_starts_at_0(tmp_path):
    ledger = QuotaLedger(tmp_path, "key", limit=3, service="s")
    with _at(AHEAD):
        ledger.take("ico")
        ledger.take("ico")
    with _at(RIGHT):
        state = ledger.state()  # shown before any booking: counted today, the day said
        assert (state.day, state.sent, state.remaining) == ("2026-12-02", 2, 1)
        assert state.ahead_day == "2026-12-10"
        assert state.day_ends == dt.datetime(2026, 12, 3, tzinfo=dt.UTC)
        with pytest.warns(CacheWarning, match=SAID):
            ledger.take("ico")  # the third of the cap: the two stored count today
        with pytest.raises(QuotaExceeded, match=r"3 requests sent today \(2026-12-02"):
            ledger.take("ico")
        state = ledger.state()
        assert (state.day, state.sent, state.ahead_day) == ("2026-12-02", 3, None)
        ledger.settle("not_sent")  # handed back to the day it went to: today
        assert ledger.state().sent == 2
    with _at(RIGHT + dt.timedelta(days=1)):
        assert ledger.state().sent == 0
        ledger.take("ico")
        assert (ledger.state().day, ledger.state().sent) == ("2026-12-03", 1)


def test_a_day_stored_ahead_at_the_cap_is_moved_too(tmp_path):
    # refused today (its count is at the cap), the day still moves: tomorrow starts at 0
    ledger = QuotaLedger(tmp_path, "key", limit=1, service="s")
    with _at(AHEAD):
        ledger.take("ico")
    with _at(RIGHT), pytest.warns(CacheWarning, match=SAID), pytest.raises(QuotaExceeded):
        ledger.take("ico")
    with _at(RIGHT + dt.timedelta(days=1)):
        ledger.take("ico")
        assert ledger.state().sent == 1


@pytest.mark.parametrize("reset", [None, dt.time(6, 0)])
def test_a_clock_stepped_back_a_day_still_counts_on_the_later_day(tmp_path, reset):
    ledger = QuotaLedger(tmp_path, "key", limit=2, service="s", reset=reset)
    later = dt.datetime(2026, 12, 3, 7, 0, tzinfo=dt.UTC)
    with _at(later):
        ledger.take("ico")
        ledger.take("ico")
    with _at(later - dt.timedelta(days=1)):  # back a day: the later day's count, no warning
        assert (ledger.state().day, ledger.state().ahead_day) == ("2026-12-03", None)
        with pytest.raises(QuotaExceeded, match=r"2 requests sent today \(2026-12-03"):
            ledger.take("ico")


def test_a_refusal_stamped_by_a_clock_ahead_holds_until_the_next_reset_only(tmp_path):
    # with quota_reset, nothing goes before the reset after a 485: a 485 stamped on the
    # clock ahead would hold every real day until then; it is dated now instead
    def call() -> QuotaLedger:  # one a call, as loads make them
        return QuotaLedger(tmp_path, "key", limit=10, service="s", reset=dt.time(6, 0))

    with _at(AHEAD.replace(hour=9)):
        (ledger := call()).take("ico")
        ledger.settle(485)
    with _at(RIGHT.replace(hour=9)), pytest.warns(CacheWarning, match="2026-12-10"), \
            pytest.raises(QuotaExceeded, match="no request is sent before 2026-12-03 06:00"):
        call().take("ico")
    assert call().state().refused_at == RIGHT.replace(hour=9)
    with _at(RIGHT.replace(hour=9) + dt.timedelta(days=1)):
        (ledger := call()).take("ico")  # after the reset: the probe goes
        ledger.settle(None)
        assert ledger.state().refused_at is None


# -- a load --------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::icoframes.errors.QuotaWarning")
def test_loads_after_a_run_with_the_clock_ahead_get_each_real_days_quota(tmp_path, configured):
    cap = 50  # of the 3 pages and 60 profiles
    with HostileServer({LIST: paged_list(60), PROFILE: _profile}) as srv:
        configured(**srv.settings(), cache_dir=tmp_path / "cache", daily_quota=cap)
        with time_machine.travel(AHEAD, tick=True), pytest.raises(QuotaExceeded):
            icoframes.load_icos(status="past", progress=False)
        assert _hits(srv) == cap
        with time_machine.travel(RIGHT, tick=True):
            quota = icoframes.cache_info().quota
            assert (quota.day, quota.sent) == ("2026-12-02", cap)
            assert quota.ahead_day == "2026-12-10"
            # the cap of that run counts today: nothing goes (its lists, dated after now,
            # are warned of too)
            with pytest.raises(QuotaExceeded) as info, pytest.warns(CacheWarning) as said:
                icoframes.load_icos(status="past", progress=False)
            assert _hits(srv) == cap
            assert any("2026-12-10, 8 days after" in str(w.message) for w in said)
            assert "50 requests sent today (2026-12-02" in str(info.value)
            assert icoframes.cache_info().quota.ahead_day is None
        # a new day: its own cap (the profiles stamped by the clock ahead are fetched again,
        # as is said of copies dated after now)
        with time_machine.travel(RIGHT + dt.timedelta(days=1), tick=True):
            with pytest.warns(CacheWarning, match="dated after now"), \
                    pytest.raises(QuotaExceeded, match=r"fetched 47 profiles; 13 remain"):
                icoframes.load_icos(status="past", progress=False)
            assert icoframes.cache_info().requests_today == _hits(srv) - cap == cap


# -- the command, one process a day ----------------------------------------------------------

_MAIN = "import sys\nfrom icoframes.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def _export(when: dt.datetime, env: dict[str, str], *args: str) -> tuple[int, str]:
    with time_machine.travel(when, tick=True):
        child = subprocess.run([sys.executable, "-c", on_this_clock(_MAIN), "export", *args],
                               env=env, capture_output=True, text=True, timeout=HANG_GUARD)
    return child.returncode, child.stderr


def test_export_runs_after_one_with_the_clock_ahead_are_not_held(tmp_path):
    with sandbox.serve(n_icos=40, seed=3, quota=None) as sb:
        past = len(sb.directory.ids("past"))
        pages = -(-past // 20)
        cap = pages + past - 5  # each run's lists and all but 5 of the profiles
        env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
        env.update({s.env: str(v) for s in SETTINGS if (v := {
            **sb.settings(), "cache_dir": tmp_path / "cache", "daily_quota": cap}.get(s.name))
            is not None})

        def served() -> int:
            return sum(sb.stats.requests.values())

        args = ("--out", str(tmp_path / "out"), "--status", "past", "--refresh", "all")
        # Dec 2: the cap of the run ahead counts today: its rows are written from the cache
        runs = [(AHEAD, EXIT_INCOMPLETE, cap), (RIGHT, EXIT_INCOMPLETE, 0)] + [
            (RIGHT + dt.timedelta(days=n), EXIT_INCOMPLETE, cap) for n in (1, 2)]
        logs = []
        for when, code, sent in runs:
            before = served()
            rc, log = _export(when, env, *args)
            assert (when, rc, served() - before) == (when, code, sent), log[-3000:]
            logs.append(log)
        # Dec 2's log names the day ahead, and what was done
        assert "2026-12-10, 8 days after this clock's day 2026-12-02" in logs[1], logs[1]
        assert f"Today's count takes its {cap} requests" in logs[1]

"""A request ledger whose stored day is days after this clock's: the cap holds, and is said.

The day counted never goes back: a clock set back keeps counting on the later day, and the
ledger cannot tell a day a run's clock wrote while it was ahead from one this clock is now
behind. Guessing (moving the count to the earlier day) would let two clocks days apart on
one cache dir each start a new day on every alternation, a cap each. So the cap holds on
the stored day; ``LedgerState.ahead_day`` (``cache_info().quota``, ``icoframes cache info``)
shows a stored day after this clock's, and the stop names it, both
causes, and the way out when this clock is right: ``clear_cache(ledgers="only")``
(``icoframes cache clear --ledgers-only``; ``ledgers=True`` deletes the cache too), which
forgets the requests that count holds.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import warnings

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from ledger_day import on_this_clock
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE
from icoframes.config import SETTINGS
from icoframes.errors import QuotaExceeded
from icoframes.store.ledger import QuotaLedger

AHEAD = dt.datetime(2026, 12, 10, 3, 15, tzinfo=dt.UTC)  # the clock 8 days ahead, once
RIGHT = dt.datetime(2026, 12, 2, 3, 15, tzinfo=dt.UTC)  # the clock right again
SAID = "counted on 2026-12-10, 8 days after this clock's day 2026-12-02"
BOTH = "Either a run's clock was ahead, or this clock is behind"


@pytest.fixture
def configured():
    yield icoframes.configure
    icoframes.reset_configuration()


def _profile(h):
    asked = h.request_json().get("id")
    json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)


def _hits(srv) -> int:
    return sum(srv.hits.values())


def _at(when: dt.datetime) -> time_machine.travel:
    return time_machine.travel(when, tick=False)


# -- the ledger --------------------------------------------------------------------------


@pytest.mark.parametrize("days", [8, 2, -3, -9000])
def test_two_clocks_days_apart_on_one_cache_dir_send_one_cap(tmp_path, days):
    # two processes (hosts, containers) on one cache dir, one clock right, one days off,
    # alternating in one real day: the later day's count is the one both book on
    right, off = (QuotaLedger(tmp_path, "key", limit=10, service="s") for _ in range(2))
    real = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.UTC)
    sent = 0
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        for i in range(50):
            for ledger, when in ((right, real), (off, real + dt.timedelta(days=days))):
                with _at(when + dt.timedelta(seconds=i)):
                    try:
                        ledger.take("ico")
                    except QuotaExceeded:
                        continue
                    ledger.settle(None)
                    sent += 1
    # the right clock's first request went on its own day before the later day was stored
    assert sent == (11 if days > 0 else 10)
    assert not warned  # (nothing said on each alternation)
    later, earlier = (off, right) if days > 0 else (right, off)
    with _at(real + dt.timedelta(days=max(days, 0))):
        assert (later.state().sent, later.state().ahead_day) == (10, None)
    with _at(real + dt.timedelta(days=min(days, 0))):
        state = earlier.state()
        assert (state.sent, state.remaining) == (10, 0)
        assert state.ahead_day == state.day == (real + dt.timedelta(days=max(days, 0))).date(
            ).isoformat()


@pytest.mark.parametrize("reset", [None, dt.time(6, 0)])
def test_a_clock_stepped_back_a_day_counts_on_the_later_day_said_as_that_days(tmp_path, reset):
    ledger = QuotaLedger(tmp_path, "key", limit=2, service="s", reset=reset)
    later = dt.datetime(2026, 12, 3, 7, 0, tzinfo=dt.UTC)
    with _at(later):
        ledger.take("ico")
        ledger.take("ico")
    with _at(later - dt.timedelta(days=1)):  # back a day: the later day's count, not today's
        assert (ledger.state().day, ledger.state().ahead_day) == ("2026-12-03", "2026-12-03")
        with pytest.raises(QuotaExceeded, match=r"2 requests counted on 2026-12-03 \(.*\), "
                           r"after this clock's day 2026-12-02,"):
            ledger.take("ico")
    with _at(later - dt.timedelta(days=2)):  # back two days: said
        assert (ledger.state().day, ledger.state().ahead_day) == ("2026-12-03", "2026-12-03")


# -- a load --------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::icoframes.errors.QuotaWarning")
@pytest.mark.filterwarnings("ignore:.*dated after now:icoframes.CacheWarning")
def test_a_load_after_a_run_with_the_clock_ahead_is_told_the_day_and_the_way_out(
        tmp_path, configured):
    cap = 50  # of the 3 pages and 60 profiles
    with HostileServer({LIST: paged_list(60), PROFILE: _profile}) as srv:
        configured(**srv.settings(), cache_dir=tmp_path / "cache", daily_quota=cap)
        with time_machine.travel(AHEAD, tick=True), pytest.raises(QuotaExceeded):
            icoframes.load_icos(status="past", progress=False)
        assert _hits(srv) == cap
        with time_machine.travel(RIGHT, tick=True):
            quota = icoframes.cache_info().quota
            assert (quota.day, quota.sent, quota.ahead_day) == ("2026-12-10", cap, "2026-12-10")
            with pytest.raises(QuotaExceeded) as info:
                icoframes.load_icos(status="past", progress=False)
            assert _hits(srv) == cap  # the cap holds on the stored day
            said = str(info.value)
            for words in (f"{cap} requests are {SAID}", BOTH, "2026-12-11 00:00 UTC",
                          "icoframes.clear_cache(ledgers=True)", "may have been sent today"):
                assert words in said, said
            icoframes.clear_cache(ledgers=True)  # this clock is right: the way out
            assert icoframes.cache_info().quota.ahead_day is None
            with pytest.raises(QuotaExceeded, match=r"fetched 47 profiles; 13 remain"):
                icoframes.load_icos(status="past", progress=False)
            assert _hits(srv) == 2 * cap
            assert icoframes.cache_info().quota.day == "2026-12-02"


@pytest.mark.filterwarnings("ignore::icoframes.errors.QuotaWarning")
@pytest.mark.filterwarnings("ignore:.*dated after now:icoframes.CacheWarning")
def test_with_quota_reset_the_stop_names_the_day_counted_from_the_reset(tmp_path, configured):
    # at 03:15 with quota_reset=06:00 the day counted is the day before: said as such, not
    # as "this clock's day", which reads as the UTC date
    with HostileServer({LIST: paged_list(60), PROFILE: _profile}) as srv:
        configured(**srv.settings(), cache_dir=tmp_path / "cache", daily_quota=5,
                   quota_reset=dt.time(6))
        with time_machine.travel(AHEAD, tick=True), pytest.raises(QuotaExceeded):
            icoframes.load_icos(status="past", progress=False)
        with time_machine.travel(RIGHT, tick=True), pytest.raises(QuotaExceeded) as info:
            icoframes.load_icos(status="past", progress=False)
        said = str(info.value)
        assert ("counted on 2026-12-09, 8 days after the day counted from 06:00 UTC "
                "(quota_reset) that this clock is in, 2026-12-01,") in said, said
        assert "this clock's day" not in said


# -- the command, one process a run ----------------------------------------------------------

_MAIN = "import sys\nfrom icoframes.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def _run(when: dt.datetime, env: dict[str, str], *args: str) -> tuple[int, str, str]:
    with time_machine.travel(when, tick=True):
        child = subprocess.run([sys.executable, "-c", on_this_clock(_MAIN), *args],
                               env=env, capture_output=True, text=True, timeout=HANG_GUARD)
    return child.returncode, child.stdout, child.stderr


def test_export_after_a_run_with_the_clock_ahead_says_the_way_out_and_sends_after_it(
        tmp_path):
    with sandbox.serve(n_icos=40, seed=3, quota=None) as sb:
        past = len(sb.directory.ids("past"))
        cap = -(-past // 20) + past - 5  # each run's lists and all but 5 of the profiles
        env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
        env.update({s.env: str(v) for s in SETTINGS if (v := {
            **sb.settings(), "cache_dir": tmp_path / "cache", "daily_quota": cap}.get(s.name))
            is not None})

        def served() -> int:
            return sum(sb.stats.requests.values())

        export = ("export", "--out", str(tmp_path / "out"), "--status", "past")
        assert _run(AHEAD, env, *export)[0] == EXIT_INCOMPLETE
        assert served() == cap
        code, info, _ = _run(RIGHT, env, "cache", "info")
        assert code == EXIT_OK
        assert json.loads(info)["quota"]["ahead_day"] == "2026-12-10"
        code, _, log = _run(RIGHT, env, *export)  # written from the cache, nothing sent
        assert (code, served()) == (EXIT_INCOMPLETE, cap), log[-3000:]
        for words in (f"{cap} requests are {SAID}", BOTH, "icoframes cache clear --ledgers"):
            assert words in log, log[-3000:]
        assert "clear_cache(" not in log  # (the command's words, not Python's)
        manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
        for words in (SAID, BOTH, "icoframes.clear_cache(ledgers=True)"):
            assert words in manifest["stopped"]["message"]
        code, out, _ = _run(RIGHT, env, "cache", "clear", "--ledgers")
        assert code == EXIT_OK, out
        code, _, log = _run(RIGHT, env, *export)
        assert (code, served()) == (EXIT_INCOMPLETE, 2 * cap), log[-3000:]


def test_ledgers_is_for_cache_clear_only(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
    code, _, log = _run(RIGHT, env, "cache", "info", "--ledgers", "--cache-dir",
                        str(tmp_path))
    assert code == EXIT_USAGE and "--ledgers is for icoframes cache clear only" in log, log

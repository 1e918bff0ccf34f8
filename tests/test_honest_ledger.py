"""The request ledger never counts less than the service received (issue 19, part 4).

Every request sent counts, including those cut in flight and those timed out after
sending; retries count against ``budget`` and ``daily_quota``; a clock stepped back
never resets the count; a 485 is recorded as the service's refusal (never as the
allowance used), and the next call spends one probe to learn whether it is back.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import threading

import pytest
import time_machine
from hostile import FILTERS, LIST, PROFILE, HostileServer, json_reply, paged_list
from ledger_day import on_this_clock
from pressed_twice import press_ctrl_c_again
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.errors import IncompleteWarning, QuotaExceeded, QuotaWarning
from icoframes.store.ledger import QuotaLedger


def _profile(h):
    asked = h.request_json().get("id")
    json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)


def _received(srv):
    return sum(srv.hits.values())


def _sandbox_received(sb):
    return sum(sb.stats.requests.values())


@pytest.fixture
def configured():
    yield icoframes.configure
    icoframes.reset_configuration()


# -- the service's 485 ------------------------------------------------------------------


def test_a_485_is_recorded_as_the_services_refusal_and_a_probe_resumes_after_its_reset(
        tmp_path, configured, one_ledger_day):
    with sandbox.serve(n_icos=40, seed=3, quota=25) as sb:
        key = sb.settings()["public_key"]
        configured(**sb.settings(), cache_dir=tmp_path / "cache")
        with pytest.raises(QuotaExceeded) as first:
            icoframes.load_icos(progress=False)
        accepted, received = sb.stats.quota_used(key), _sandbox_received(sb)
        assert accepted == 25 and received > accepted
        info = icoframes.cache_info()
        assert accepted <= info.requests_today <= received  # never "5000": nothing assumed
        assert info.quota.refused_at is not None
        assert accepted <= info.quota.refused_after <= received
        message = str(first.value)
        assert first.value.code == 485 and "error 485" in message
        assert "daily_quota" not in message  # the user set no cap: the service refused
        assert "offline=True" in message and "remain to fetch" in message
        assert f"{info.quota.refused_after} requests sent today" in message

        # the service has not reset: the next call's probe costs one request, and it stops
        with pytest.raises(QuotaExceeded, match="error 485") as second:
            icoframes.load_icos(progress=False)
        assert _sandbox_received(sb) == received + 1
        assert "probe" in str(second.value) and "daily_quota" not in str(second.value)
        assert icoframes.cache_info().requests_today == received + 1

        sb.reset_quota()  # the service's count starts again, the same UTC day
        icos = icoframes.load_icos(progress=False)
        assert icos.attrs["icoframes"]["complete"] is True
        assert len(icos) == len(sb.directory.ids())
        info = icoframes.cache_info()
        total_received = _sandbox_received(sb)
        total_accepted = accepted + sb.stats.quota_used(key)
        assert total_accepted <= info.requests_today <= total_received
        assert info.quota.refused_at is None  # accepted again: the refusal is cleared


def test_the_users_daily_quota_is_named_as_such(tmp_path, configured):
    noon = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)  # one ledger day, whenever it runs
    with sandbox.serve(n_icos=60, seed=3, quota=None) as sb, time_machine.travel(noon, tick=True):
        configured(**sb.settings(), cache_dir=tmp_path / "cache", daily_quota=10)
        with pytest.warns(QuotaWarning), pytest.raises(QuotaExceeded) as info:
            icoframes.load_icos(progress=False)
        assert _sandbox_received(sb) == 10 == icoframes.cache_info().requests_today
    message = str(info.value)
    assert info.value.code is None and "485" not in message
    assert "daily_quota setting (10 requests)" in message and "10 requests sent today" in message
    assert "offline=True" in message


# -- requests cut in flight ------------------------------------------------------------------


_SCRIPT = """
import sys, icoframes
from icoframes.cli import main
sys.exit(main(["export", "--out", sys.argv[1], "--status", "past"]))
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_requests_cut_by_a_signal_count(tmp_path, sig, one_ledger_day):
    """Half the profiles stall before their headers, half mid-body: every one was sent."""
    n = 16
    stuck = threading.Semaphore(0)

    def stall(h):
        asked = h.request_json().get("id")
        if asked % 2:  # headers, then part of a body
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", "1000")
            h.end_headers()
            h.wfile.write(b'{"error"')
            h.wfile.flush()
        stuck.release()
        h.server.owner.stopping.wait()

    with HostileServer({LIST: paged_list(n), PROFILE: stall}) as srv:
        env = {**os.environ, "ICOFRAMES_BASE_URL": srv.base_url,
               "ICOFRAMES_PUBLIC_KEY": "p", "ICOFRAMES_PRIVATE_KEY": "s",
               "ICOFRAMES_CACHE_DIR": str(tmp_path / "cache"), "ICOFRAMES_TIMEOUT": "3600",
               "ICOFRAMES_MAX_WORKERS": "8"}
        proc = subprocess.Popen([sys.executable, "-c", on_this_clock(_SCRIPT),
                                 str(tmp_path / "out")], env=env, stderr=subprocess.PIPE,
                                text=True)
        try:
            for _ in range(8):  # every worker holds a request the server received
                assert stuck.acquire(timeout=HANG_GUARD), "the load never got stuck"
            proc.send_signal(sig)
            head = press_ctrl_c_again(proc)  # (they never end: the second signal cuts them)
            rc = proc.wait(timeout=HANG_GUARD)  # a hang guard, not a measure
        finally:
            proc.kill()
            err = head + proc.stderr.read()
            proc.stderr.close()
        received = _received(srv)
    assert rc == 130 and "finishing 8 requests" in err, err  # the second signal's code
    icoframes.configure(base_url=srv.base_url, public_key="p", private_key="s",
                        cache_dir=tmp_path / "cache")
    try:
        booked = icoframes.cache_info().requests_today
    finally:
        icoframes.reset_configuration()
    assert received >= 1 + 8
    assert booked >= received


# -- timeouts after sending ---------------------------------------------------------------


def test_requests_timed_out_after_sending_count_and_the_cap_holds(tmp_path, configured,
                                                                  quick_retries):
    def silent(h):  # the request is read (the service counted it), no answer ever comes
        h.server.owner.stopping.wait()

    cap = 30
    noon = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)  # one ledger day, whenever it runs
    with HostileServer({LIST: paged_list(60), PROFILE: silent}) as srv, \
            time_machine.travel(noon, tick=True):
        configured(**srv.settings(), cache_dir=tmp_path / "cache", daily_quota=cap,
                   max_workers=8)
        # the list first, at the default timeout: a page later than 0.3 s on a loaded
        # machine timed out too, and a load without its list never warned of the quota
        icoframes.load_list(status="past", progress=False)
        configured(timeout=0.3)  # then only the profiles are asked, each timing out
        for _ in range(4):  # the next calls retry the timed-out ones until the cap
            with pytest.warns(QuotaWarning), pytest.raises(
                    (QuotaExceeded, icoframes.errors.ServiceUnavailable)) as info:
                icoframes.load_icos(status="past", progress=False)
            if isinstance(info.value, QuotaExceeded):
                break
        assert isinstance(info.value, QuotaExceeded)
        assert "daily_quota setting" in str(info.value)
        booked = icoframes.cache_info().requests_today
        srv.stop()  # every request sent has reached its handler
        received = _received(srv)
    assert received <= cap
    assert booked == cap >= received


# -- a clock stepped back -----------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::icoframes.errors.QuotaWarning")
def test_a_clock_stepped_back_never_resets_the_count(tmp_path, configured):
    day2 = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
    cap = 50  # of the 3 pages and 60 profiles: the rest goes out the next day
    with HostileServer({LIST: paged_list(60), PROFILE: _profile}) as srv:
        configured(**srv.settings(), cache_dir=tmp_path / "cache", daily_quota=cap)
        with time_machine.travel(day2, tick=True):
            with pytest.raises(QuotaExceeded):
                icoframes.load_icos(status="past", progress=False)
            assert _received(srv) == cap
        for back in (day2 - dt.timedelta(days=1), day2 - dt.timedelta(days=400)):
            with time_machine.travel(back, tick=True):  # its list dated after now: warned
                with pytest.raises(QuotaExceeded, match="daily_quota"), pytest.warns(
                        icoframes.CacheWarning, match="dated after now"):
                    icoframes.load_icos(status="past", progress=False)
                quota = icoframes.cache_info().quota
                assert (quota.day, quota.sent) == ("2026-03-02", cap)  # the later day's count
                # a day or days before: that day's count, not said as today's
                assert icoframes.cache_info().requests_today is None
                assert quota.ahead_day == "2026-03-02"
        assert _received(srv) == cap  # nothing went out on the earlier days
        with time_machine.travel(day2 + dt.timedelta(days=1), tick=True):
            icos = icoframes.load_icos(status="past", progress=False)  # a new day: the rest
            assert len(icos) == 60
            assert icoframes.cache_info().requests_today == _received(srv) - cap


# -- the budget counts retries ---------------------------------------------------------------


def _fails_once():
    """A profile behaviour: each profile's first attempt fails (503), its retry succeeds."""
    seen: set[int] = set()
    lock = threading.Lock()

    def flaky(h):
        asked = h.request_json().get("id")
        with lock:
            first = asked not in seen
            seen.add(asked)
        if first:
            json_reply({"error": None}, status=503)(h)
        else:
            _profile(h)

    return flaky


def test_budget_counts_every_attempt_of_failing_requests(tmp_path, configured,
                                                         quick_retries):
    noon = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)  # one ledger day, whenever it runs
    with HostileServer({LIST: paged_list(40), PROFILE: _fails_once()}) as srv, \
            time_machine.travel(noon, tick=True):
        # one worker: each profile fails then succeeds, never 8 failures in a row
        configured(**srv.settings(), cache_dir=tmp_path / "cache", max_workers=1)
        with pytest.warns(IncompleteWarning):
            icos = icoframes.load_icos(status="past", progress=False, budget=10)
        assert srv.hits[PROFILE] == 10
        assert len(icos) == 5
        assert icoframes.cache_info().requests_today == _received(srv)


def test_budget_counts_retries_when_the_load_fetched_the_filter_set_first(tmp_path, configured,
                                                                          quick_retries):
    # a place name is checked against the filter set: this load fetches it (its first request,
    # which makes the client) before it knows its budget; the retries still count against it
    places = {"error": None, "platform": [], "category": [], "type": [],
              "location": [{"name": "UK"}]}
    with HostileServer({FILTERS: json_reply(places), LIST: paged_list(40),
                        PROFILE: _fails_once()}) as srv:
        configured(**srv.settings(), cache_dir=tmp_path / "cache", max_workers=1)
        with pytest.warns(IncompleteWarning):
            icos = icoframes.load_icos(status="past", progress=False, budget=10, location="uk")
        assert srv.hits[FILTERS] == 1
        assert srv.hits[PROFILE] == 10
        assert len(icos) == 5


# -- a known reset time (the quota_reset setting) ---------------------------------------------


def test_with_a_known_reset_time_no_probe_is_sent_before_it(tmp_path, configured):
    day = dt.datetime(2026, 3, 2, 10, 0, tzinfo=dt.UTC)
    with sandbox.serve(n_icos=40, seed=3, quota=25) as sb:  # its count resets at 00:00 UTC
        configured(**sb.settings(), cache_dir=tmp_path / "cache", quota_reset="00:00")
        with time_machine.travel(day, tick=True):
            with pytest.raises(QuotaExceeded, match="error 485"):
                icoframes.load_icos(progress=False)
            received = _sandbox_received(sb)
        with time_machine.travel(day + dt.timedelta(hours=13), tick=True):  # 23:00
            with pytest.raises(QuotaExceeded) as info:
                icoframes.load_icos(progress=False)
            assert _sandbox_received(sb) == received  # not even a probe
        message = str(info.value)
        assert "error 485" in message and "quota_reset" in message
        assert "2026-03-03 00:00 UTC" in message and "probe" not in message
        with time_machine.travel(day + dt.timedelta(hours=14, minutes=30), tick=True):
            icos = icoframes.load_icos(progress=False)  # past the reset: the rest
            assert icos.attrs["icoframes"]["complete"] is True
            assert icoframes.cache_info().quota.refused_at is None


def test_a_known_reset_time_starts_the_daily_quota_count_there(tmp_path):
    ledger = QuotaLedger(tmp_path, "key", limit=2, service="s", reset=dt.time(6, 0))
    with time_machine.travel(dt.datetime(2026, 3, 2, 5, 0, tzinfo=dt.UTC), tick=False):
        ledger.take("ico")
        ledger.take("ico")
        with pytest.raises(QuotaExceeded, match=r"daily_quota.*06:00 UTC"):
            ledger.take("ico")
    with time_machine.travel(dt.datetime(2026, 3, 2, 5, 59, tzinfo=dt.UTC), tick=False), \
            pytest.raises(QuotaExceeded):
        ledger.take("ico")
    with time_machine.travel(dt.datetime(2026, 3, 2, 6, 1, tzinfo=dt.UTC), tick=False):
        ledger.take("ico")  # the service's day began at 06:00: a new count
        assert ledger.state().sent == 1
    with time_machine.travel(dt.datetime(2026, 3, 2, 5, 0, tzinfo=dt.UTC), tick=False):
        ledger.take("ico")  # the clock set back: counted on the later day, never reset
        assert ledger.state().sent == 2
        with pytest.raises(QuotaExceeded):
            ledger.take("ico")

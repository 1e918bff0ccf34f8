"""The quota ledger's rules, on a real ``quota/ledger.sqlite3`` in ``tmp_path``, at fixed
simulated times (time-machine, no clock read): what mutants of store/ledger.py survived
(``make mutate MODULE=store:ledger``).

The key written is a hash of the service and public key (stable across versions: a
changed hash would start a key's count again at 0); the cap is a hard stop whose
message says what was sent, on which day, and from when the day is counted; the day
never goes back; a request that never left is handed back; a 485 is recorded with the
count it came after, then each call sends one probe, or nothing before a known reset.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest
import time_machine
from waiting import HANG_GUARD, wait_until

from icoframes.errors import CacheError, InvalidParameter, QuotaExceeded
from icoframes.store import ledger as ledger_module
from icoframes.store.db import Database
from icoframes.store.ledger import LEDGER_FOLDER, LEDGER_NAME, LedgerState, QuotaLedger

DAY1 = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)
DAY2 = DAY1 + dt.timedelta(days=1)
SERVICE = "http://127.0.0.1:1"
RESET = dt.time(6, 30)


def _at(when: dt.datetime) -> time_machine.travel:
    return time_machine.travel(when, tick=False)


def _ledger(tmp_path: Path, limit: int = 5000, reset: dt.time | None = None) -> QuotaLedger:
    return QuotaLedger(str(tmp_path), "public-key", limit, service=SERVICE, reset=reset)


def _rows(tmp_path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(tmp_path / LEDGER_FOLDER / LEDGER_NAME)
    try:
        return conn.execute("SELECT key, day, sent, refused_at, refused_after FROM ledgers "
                            "ORDER BY key").fetchall()
    finally:
        conn.close()


def test_the_key_written_is_the_services_and_keys_hash_and_nothing_else(tmp_path):
    ledger = _ledger(tmp_path)
    bare = QuotaLedger(tmp_path, "public-key")
    assert ledger.key == hashlib.sha256(f"{SERVICE}\npublic-key".encode()).hexdigest()[:16]
    assert bare.key == hashlib.sha256(b"public-key").hexdigest()[:16]
    assert bare.limit == 5000 and bare.reset is None
    with _at(DAY1):
        ledger.take("ico")
        bare.take("list")
        bare.take("list")
    assert _rows(tmp_path) == sorted([(ledger.key, "2030-01-01", 1, None, None),
                                      (bare.key, "2030-01-01", 2, None, None)])
    assert ledger.path == tmp_path / "quota" / "ledger.sqlite3"
    assert b"public-key" not in ledger.path.read_bytes()


def test_reading_a_ledger_that_does_not_exist_makes_nothing(tmp_path):
    ledger = _ledger(tmp_path, limit=7)
    with _at(DAY1):
        assert ledger.state() == LedgerState("2030-01-01", 0, 7, day_ends=DAY1.replace(hour=0)
                                             + dt.timedelta(days=1))
        assert ledger.count() == 0
        assert ledger.forget() is False
        assert ledger.forget_unused(DAY2) == []
        assert ledger.state().remaining == 7
        assert ledger.database(write=False) is None
    assert not (tmp_path / LEDGER_FOLDER).exists()
    db = ledger.database()
    assert isinstance(db, Database) and db.path == ledger.path
    assert (tmp_path / LEDGER_FOLDER).is_dir()  # made, 0700, for the file to be written


def test_the_cap_stops_the_request_over_it_and_says_what_was_sent_and_when(tmp_path):
    ledger = _ledger(tmp_path, limit=2)
    with _at(DAY1):
        ledger.take("ico")
        ledger.take("ico")
        assert ledger.state().remaining == 0
        assert repr(ledger) == f"QuotaLedger({str(ledger.path)!r}, limit=2, reset=None)"
        with pytest.raises(QuotaExceeded) as caught:
            ledger.take("ico")
        assert str(caught.value) == (
            "the daily_quota setting (2 requests) is reached: 2 requests sent today "
            "(2030-01-01, UTC) with this key from this cache dir")
        assert caught.value.code is None and caught.value.endpoint == "ico"
        with pytest.raises(QuotaExceeded) as caught:
            ledger.take()
        assert caught.value.endpoint is None
        assert ledger.state().sent == 2


def test_a_lower_cap_on_a_new_day_counts_nothing_of_yesterday(tmp_path):
    with _at(DAY1):
        for _ in range(3):
            _ledger(tmp_path, limit=5).take("ico")
    with _at(DAY2), pytest.raises(QuotaExceeded, match=r"\(0 requests\) is reached: 0 requests "
                                                       r"sent today \(2030-01-02, UTC\)"):
        _ledger(tmp_path, limit=0).take("ico")


def test_a_new_day_starts_at_one_and_the_day_never_goes_back(tmp_path):
    ledger = _ledger(tmp_path, limit=2)
    with _at(DAY1):
        ledger.take()
        ledger.take()
    with _at(DAY2):
        assert ledger.state() == LedgerState("2030-01-02", 0, 2, day_ends=dt.datetime(
            2030, 1, 3, tzinfo=dt.UTC))
        ledger.take()
        assert _rows(tmp_path)[0][1:3] == ("2030-01-02", 1)
    with _at(DAY1):  # the clock set back a day: the later day's count holds until it ends
        state = ledger.state()
        assert (state.day, state.sent, state.remaining) == ("2030-01-02", 1, 1)
        assert state.day_ends == dt.datetime(2030, 1, 3, tzinfo=dt.UTC)
        ledger.take()
        assert _rows(tmp_path)[0][1:3] == ("2030-01-02", 2)
        # (counted on that later day, not "sent today": said as after this clock's day)
        with pytest.raises(QuotaExceeded, match=r"2 requests counted on 2030-01-02 \(UTC\), "
                                                r"after this clock's day 2030-01-01,"):
            ledger.take()


@pytest.mark.parametrize(("now", "day", "ends"), [
    (dt.datetime(2030, 1, 2, 6, 29, tzinfo=dt.UTC), "2030-01-01",
     dt.datetime(2030, 1, 2, 6, 30, tzinfo=dt.UTC)),
    (dt.datetime(2030, 1, 2, 6, 30, tzinfo=dt.UTC), "2030-01-02",
     dt.datetime(2030, 1, 3, 6, 30, tzinfo=dt.UTC)),
    (dt.datetime(2030, 1, 2, 0, 15, tzinfo=dt.UTC), "2030-01-01",
     dt.datetime(2030, 1, 2, 6, 30, tzinfo=dt.UTC)),
])
def test_a_known_reset_time_begins_the_day_counted(tmp_path, now, day, ends):
    ledger = _ledger(tmp_path, reset=RESET)
    assert ledger.day(now) == day and ledger.next_reset(now) == ends
    with _at(now):
        assert ledger.day() == day and ledger.next_reset() == ends
        assert ledger.state().day_ends == ends and ledger.state().reset == RESET


def test_without_a_reset_time_the_day_is_the_utc_day(tmp_path):
    ledger = _ledger(tmp_path)
    late = dt.datetime(2030, 1, 1, 23, 59, tzinfo=dt.UTC)
    assert ledger.day(late) == "2030-01-01"
    assert ledger.next_reset(late) == dt.datetime(2030, 1, 2, tzinfo=dt.UTC)
    assert ledger.next_reset(late + dt.timedelta(minutes=1)) == dt.datetime(2030, 1, 3,
                                                                           tzinfo=dt.UTC)
    assert ledger.next_reset(day="2030-01-01") == dt.datetime(2030, 1, 2, tzinfo=dt.UTC)
    with pytest.raises(TypeError, match="now or day, not both"):  # neither silently ignored
        ledger.next_reset(late, day="2030-01-05")


def test_the_cap_message_names_a_known_reset_time(tmp_path):
    ledger = _ledger(tmp_path, limit=1, reset=RESET)
    with _at(dt.datetime(2030, 1, 2, 5, 0, tzinfo=dt.UTC)):
        ledger.take()
        with pytest.raises(QuotaExceeded) as caught:
            ledger.take()
    # the setting of one request and the one sent: "(1 requests) ... 1 requests" (REVK L7)
    assert str(caught.value).startswith(
        "the daily_quota setting (1 request) is reached: 1 request sent today (2030-01-01, "
        "from 06:30 UTC, quota_reset) with")


def test_a_request_that_never_left_is_handed_back(tmp_path):
    ledger = _ledger(tmp_path, limit=3)
    with _at(DAY1):
        ledger.take()
        ledger.take()
        ledger.settle("not_sent")
        assert ledger.state().sent == 1
        ledger.settle("not_sent")
        ledger.settle("not_sent")  # never below 0
        assert ledger.state().sent == 0
        ledger.settle(None)  # an answer without a refusal on record changes nothing
        ledger.settle("no_answer")
        assert _rows(tmp_path)[0][2:] == (0, None, None)


@pytest.mark.parametrize("reset", [None, RESET])
def test_a_request_handed_back_after_its_day_ended_leaves_the_new_days_count(tmp_path, reset):
    # two callers of one cache dir: the first books just before its day ends and its
    # connection fails after the second has sent the new day's first request
    booked_late = _ledger(tmp_path, limit=3, reset=reset)
    other = _ledger(tmp_path, limit=3, reset=reset)
    day_ends = booked_late.next_reset(DAY1)
    with _at(day_ends - dt.timedelta(seconds=1)):
        booked_late.take()
    with _at(day_ends + dt.timedelta(seconds=1)):
        other.take()
        booked_late.settle("not_sent")
        assert other.state().sent == 1
        other.take()
        other.take()
        with pytest.raises(QuotaExceeded, match=r"3 requests sent today"):
            other.take()
    # on the day it was booked on, a request handed back is still taken off
    with _at(day_ends + dt.timedelta(hours=2)):
        other.settle("not_sent")
        assert other.state().sent == 2



@pytest.mark.parametrize("reset", [None, RESET])
def test_a_request_handed_back_after_the_clock_stepped_back_over_a_day_start(tmp_path, reset):
    first = _ledger(tmp_path, limit=3, reset=reset)
    day_starts = first.next_reset(DAY1)
    with _at(day_starts + dt.timedelta(minutes=5)):
        first.take()
    # the clock stepped back 10 minutes: the request counts on the later day stored, and
    # is handed back from it
    with _at(day_starts - dt.timedelta(minutes=5)):
        second = _ledger(tmp_path, limit=3, reset=reset)
        second.take()
        assert second.state().sent == 2
        second.settle("not_sent")
        assert second.state().sent == 1


def _refused(tmp_path: Path, sent: int = 3, reset: dt.time | None = None) -> None:
    """``sent`` requests on DAY1, the last answered by a 485."""
    ledger = _ledger(tmp_path, reset=reset)
    with _at(DAY1):
        for _ in range(sent):
            ledger.take("ico")
        ledger.settle(485)


def test_a_485_is_recorded_with_the_count_it_came_after(tmp_path):
    _refused(tmp_path, sent=3)
    with _at(DAY1 + dt.timedelta(minutes=5)):
        state = _ledger(tmp_path).state()
    assert (state.sent, state.refused_at, state.refused_after) == (3, DAY1, 3)
    assert _rows(tmp_path)[0][3:] == (int(DAY1.timestamp() * 1000), 3)


def test_after_a_485_the_same_call_sends_nothing_more(tmp_path):
    ledger = _ledger(tmp_path)
    with _at(DAY1):
        ledger.take("ico")
        ledger.settle(485)
        with pytest.raises(QuotaExceeded) as caught:
            ledger.take("list")
    assert str(caught.value) == (
        "the service refused with error 485 (its daily allowance is used up) at 2030-01-01 "
        "12:00 UTC, after 1 request sent that day with this key from this cache dir")
    assert caught.value.code == 485 and caught.value.endpoint == "list"
    assert ledger.state().sent == 1


def test_a_probe_accepted_clears_the_refusal_and_the_call_goes_on(tmp_path):
    _refused(tmp_path)
    ledger = _ledger(tmp_path)
    with _at(DAY1 + dt.timedelta(hours=1)):
        ledger.take("ico")  # the probe
        assert ledger.state().refused_at == DAY1  # still on record until it is answered
        ledger.settle(None)
        assert ledger.state().refused_at is None and ledger.state().refused_after is None
        ledger.take("ico")
        ledger.take("ico")
        ledger.settle(None)
        assert _rows(tmp_path)[0][2:] == (6, None, None)


def test_a_probe_refused_again_ends_the_call(tmp_path):
    _refused(tmp_path)
    ledger = _ledger(tmp_path)
    with _at(DAY1 + dt.timedelta(hours=1)):
        ledger.take("ico")
        ledger.settle(485)
        with pytest.raises(QuotaExceeded, match=r"at 2030-01-01 13:00 UTC, after 4 requests"):
            ledger.take("ico")
    assert _rows(tmp_path)[0][2:] == (4, int((DAY1 + dt.timedelta(hours=1)).timestamp() * 1000),
                                      4)


UNANSWERED = ("the service refused with error 485 (its daily allowance is used up) at "
              "2030-01-01 12:00 UTC, after 3 requests sent that day with this key from this "
              "cache dir; this call's probe (its first request since, sent alone) timed out, "
              "or 3 in a row got no answer, so the refusal stays on record and the call sends "
              "nothing more")


def test_a_probe_without_an_answer_keeps_the_refusal_and_the_next_request_probes(tmp_path):
    # (REVI) one failure of the probe (a blip of a service back at work: a connection cut,
    # a proxy's HTML 503) ended the call as the daily limit; an ask to wait is no failure
    _refused(tmp_path)
    ledger = _ledger(tmp_path)
    with _at(DAY1 + dt.timedelta(hours=1)):
        for outcome in ("no_answer", "asked_wait", "asked_wait", "no_answer"):
            ledger.take("ico")  # probes again: not refused by this call's earlier probe
            ledger.settle(outcome)
            assert ledger.state().refused_at == DAY1 and not ledger.probe_unanswered
        ledger.take("ico")
        ledger.settle(200)
        assert ledger.state().refused_at is None
    assert _rows(tmp_path)[0][2:] == (8, None, None)


def test_the_third_probe_without_an_answer_ends_the_call(tmp_path):
    # (REVD M4) each request went as another probe, waited for in turn: one after another
    # while the service did not answer (about 25 a call)
    _refused(tmp_path)
    ledger = _ledger(tmp_path)
    assert ledger_module.PROBES_UNANSWERED == 3
    with _at(DAY1 + dt.timedelta(hours=1)):
        for _ in range(3):
            assert not ledger.probe_unanswered
            ledger.take("ico")
            ledger.settle("no_answer")
        assert ledger.probe_unanswered
        with pytest.raises(QuotaExceeded) as caught:
            ledger.take("list")
        assert str(caught.value) == UNANSWERED
        assert _rows(tmp_path)[0][2:] == (6, int(DAY1.timestamp() * 1000), 3)


def test_a_probe_that_timed_out_keeps_the_refusal_and_ends_the_call(tmp_path):
    # (REVD M4) a hanging service: one timeout of waiting per call, not one per probe
    _refused(tmp_path)
    ledger = _ledger(tmp_path)
    with _at(DAY1 + dt.timedelta(hours=1)):
        ledger.take("ico")
        ledger.settle("timed_out")
        assert ledger.state().refused_at == DAY1 and ledger.probe_unanswered
        with pytest.raises(QuotaExceeded) as caught:
            ledger.take("list")
        assert str(caught.value) == UNANSWERED
        assert (caught.value.code, caught.value.endpoint) == (485, "list")
        assert _rows(tmp_path)[0][2:] == (4, int(DAY1.timestamp() * 1000), 3)
        again = _ledger(tmp_path)  # the next call probes again
        assert not again.probe_unanswered
        again.take("ico")
        again.settle(200)
        assert again.state().refused_at is None
    assert _rows(tmp_path)[0][2] == 5


def test_a_485_after_an_unanswered_probe_is_the_calls_own(tmp_path):
    # a request of the call in flight when the probe went unanswered is refused (485): the
    # call's stop is that 485, not the probe's silence
    _refused(tmp_path)
    ledger = _ledger(tmp_path)
    with _at(DAY1 + dt.timedelta(hours=1)):
        ledger.take("ico")
        ledger.settle("timed_out")
        ledger.settle(485)
        assert not ledger.probe_unanswered
        with pytest.raises(QuotaExceeded, match=r"13:00 UTC, after 4 requests sent that day "
                                                r"with this key from this cache dir$"):
            ledger.take("ico")


def test_a_probe_that_never_left_is_handed_back_and_probes_again(tmp_path):
    _refused(tmp_path)
    ledger = _ledger(tmp_path)
    with _at(DAY1 + dt.timedelta(hours=1)):
        ledger.take("ico")
        ledger.settle("not_sent")
        assert ledger.state().refused_at == DAY1 and ledger.state().sent == 3
        ledger.take("ico")
        ledger.settle(None)
        assert ledger.state().refused_at is None and ledger.state().sent == 4


def test_with_a_known_reset_nothing_is_sent_before_it_not_even_a_probe(tmp_path):
    refused = dt.datetime(2030, 1, 1, 6, 30, tzinfo=dt.UTC)  # exactly when the day began
    ledger = _ledger(tmp_path, reset=RESET)
    with _at(refused):
        ledger.take("ico")
        ledger.settle(485)
    again = _ledger(tmp_path, reset=RESET)
    with _at(dt.datetime(2030, 1, 2, 6, 29, tzinfo=dt.UTC)), \
            pytest.raises(QuotaExceeded) as caught:
        again.take("ico")
    assert str(caught.value) == (
        "the service refused with error 485 (its daily allowance is used up) at 2030-01-01 "
        "06:30 UTC, after 1 request sent that day with this key from this cache dir; it "
        "resets at 06:30 UTC (the quota_reset setting): no request is sent before 2030-01-02 "
        "06:30 UTC")
    assert caught.value.code == 485 and caught.value.endpoint == "ico"
    with _at(dt.datetime(2030, 1, 2, 6, 30, tzinfo=dt.UTC)):
        again.take("ico")  # the new day: a probe
        again.settle(None)
        assert again.state() == LedgerState("2030-01-02", 1, 5000, reset=RESET,
                                            day_ends=dt.datetime(2030, 1, 3, 6, 30, tzinfo=dt.UTC))


def test_a_refusal_of_an_earlier_day_lets_a_known_reset_probe(tmp_path):
    _refused(tmp_path, reset=RESET)  # DAY1 12:00, refused
    ledger = _ledger(tmp_path, reset=RESET)
    with _at(DAY2):
        ledger.take("ico")  # the probe
        ledger.settle(485)
        with pytest.raises(QuotaExceeded, match="no request is sent before 2030-01-03 06:30"):
            ledger.take("ico")


def test_forget_and_forget_unused_delete_counts_by_key_and_day(tmp_path):
    old = QuotaLedger(tmp_path, "old")
    kept = QuotaLedger(tmp_path, "kept")
    with _at(DAY1):
        old.take()
    with _at(DAY2):
        kept.take()
        assert old.count() == 2
        assert old.forget_unused(DAY2 + dt.timedelta(hours=11)) == [old.key]
        assert kept.forget_unused(DAY2) == []  # sent on the day of ``before``: kept
        assert kept.forget() is True and kept.forget() is False
        assert kept.count() == 0


def test_the_others_wait_for_the_probes_answer_then_go(tmp_path):
    _refused(tmp_path)
    ledger = _ledger(tmp_path)
    outcome: list[str] = []

    def other_request() -> None:
        try:
            ledger.take("ico")
            outcome.append("booked")
        except QuotaExceeded as exc:
            outcome.append(str(exc))

    with _at(DAY1 + dt.timedelta(hours=1)):
        ledger.take("ico")  # the probe
        worker = threading.Thread(target=other_request)
        worker.start()
        assert wait_until(lambda: outcome or ledger._cond._waiters)  # type: ignore[attr-defined]
        assert outcome == [] and ledger.state().sent == 4  # waiting: nothing booked
        ledger.settle(None)  # the probe was accepted
        worker.join(HANG_GUARD)
        assert outcome == ["booked"] and ledger.state().sent == 5


@pytest.mark.parametrize(("probes", "booked"), [(["timed_out"], False),
                                                 (["no_answer"], True),
                                                 (["asked_wait"], True),
                                                 (["no_answer"] * 3, False)])
def test_a_request_waiting_for_a_probe_that_gets_no_answer(tmp_path, probes, booked):
    """It is refused when the call's probing ends (a probe timed out, or the 3rd in a row
    got no answer), else it is the next probe, booked."""
    _refused(tmp_path)  # 3 sent, refused after 3
    ledger = _ledger(tmp_path)
    outcome: list[BaseException | str] = []

    def other_request() -> None:
        try:
            ledger.take("list")
            outcome.append("booked")
        except BaseException as exc:
            outcome.append(exc)

    with _at(DAY1 + dt.timedelta(hours=1)):
        for probe in probes[:-1]:
            ledger.take("ico")
            ledger.settle(probe)
        ledger.take("ico")  # the probe
        worker = threading.Thread(target=other_request, daemon=True)
        worker.start()
        assert wait_until(lambda: outcome or ledger._cond._waiters)  # type: ignore[attr-defined]
        assert outcome == []  # waiting, however long the probe takes (no cap: REVD M5)
        ledger.settle(probes[-1])
        worker.join(HANG_GUARD)
        if booked:  # the next probe: the refusal kept, until its answer
            assert outcome == ["booked"] and ledger.state().refused_at == DAY1
            assert ledger.state().sent == 3 + len(probes) + 1
            return
    [caught] = outcome
    assert isinstance(caught, QuotaExceeded) and str(caught) == UNANSWERED
    assert caught.code == 485 and caught.endpoint == "list"
    assert ledger.state().sent == 3 + len(probes)


def test_the_refusal_message_names_the_count_it_came_after_not_todays(tmp_path):
    _refused(tmp_path)  # refused after 3
    prober = _ledger(tmp_path)
    with _at(DAY1 + dt.timedelta(hours=1)):
        prober.take("ico")
        prober.settle("no_answer")  # sent 4, the refusal (after 3) kept
        with pytest.raises(QuotaExceeded, match=r"after 3 requests sent that day .*; it resets"):
            _ledger(tmp_path, reset=RESET).take("ico")



def test_each_call_reads_the_clock_once(tmp_path, monkeypatch):
    """A booking, the state and a refusal's message each read the clock once, so a call
    straddling the end of a day says one day throughout. The clock here moves a day at
    each reading (a simulated clock: the end of a day between two readings, made
    certain), and counts them."""
    readings: list[dt.datetime] = []

    def clock() -> dt.datetime:
        readings.append(DAY1 + dt.timedelta(days=len(readings)))
        return readings[-1]

    monkeypatch.setattr(ledger_module, "utcnow", clock)
    ledger = _ledger(tmp_path, reset=RESET)
    ledger.take("ico")
    assert len(readings) == 1 and _rows(tmp_path)[0][1:3] == ("2030-01-01", 1)
    readings.clear()
    assert ledger.state() == LedgerState("2030-01-01", 1, 5000, reset=RESET,
                                         day_ends=dt.datetime(2030, 1, 2, 6, 30, tzinfo=dt.UTC))
    assert len(readings) == 1
    readings.clear()
    ledger.settle(485)  # refused at DAY1 (one reading)
    readings.clear()
    with pytest.raises(QuotaExceeded, match=r"no request is sent before 2030-01-02 06:30 UTC$"):
        _ledger(tmp_path, reset=RESET).take("ico")
    assert len(readings) == 1


def test_a_cap_of_zero_lets_nothing_through_even_on_a_new_ledger(tmp_path):
    ledger = _ledger(tmp_path, limit=0)
    with _at(DAY1):
        for endpoint in ("ico", "list"):
            with pytest.raises(QuotaExceeded) as caught:
                ledger.take(endpoint)
            assert str(caught.value) == (
                "the daily_quota setting (0 requests) is reached: 0 requests sent today "
                "(2030-01-01, UTC) with this key from this cache dir")
        assert ledger.state().sent == 0 and ledger.state().remaining == 0
    assert _rows(tmp_path) == []  # nothing booked, so nothing was sent


@pytest.mark.parametrize(("limit", "hint"), [
    (-1, ""), (True, ""), (2.0, "; did you mean 2?"), ("\u0665", "; did you mean 5?"), (None, "")])
def test_a_cap_that_is_no_count_is_refused_before_anything_is_booked(tmp_path, limit, hint):
    with pytest.raises(InvalidParameter) as caught:
        _ledger(tmp_path, limit=limit)
    assert str(caught.value) == (f"limit must be a whole number from 0 to {2**63 - 1}, got "
                                 f"{limit!r}{hint}")
    assert not (tmp_path / LEDGER_FOLDER).exists()


def test_a_ledger_checks_its_folders_once_and_a_folder_replaced_by_another_user_again(
        tmp_path, monkeypatch):
    # every booking checked the cache dir and quota/ again (a stat and an lstat per request
    # on the crawl's hot path); a Cache checks them once, and its database again whenever
    # it opens its file anew: a folder replaced between two bookings is still refused
    from test_safety import _other_uid

    from icoframes.store import folders

    checked: list[Path] = []
    real = folders._checked
    monkeypatch.setattr(folders, "_checked",
                        lambda path, *a, **k: checked.append(path) or real(path, *a, **k))
    ledger = _ledger(tmp_path, limit=10)
    with _at(DAY1):
        ledger.take("ico")
        first = list(checked)
        for _ in range(3):
            ledger.settle(None)
            ledger.take("ico")
        assert ledger.state().sent == 4
    assert set(first) == {tmp_path, tmp_path / LEDGER_FOLDER} and checked == first
    uid = _other_uid()
    shutil.rmtree(tmp_path / LEDGER_FOLDER)  # and planted again by another user
    (tmp_path / LEDGER_FOLDER).mkdir(mode=0o700)
    os.chown(tmp_path / LEDGER_FOLDER, uid, -1)
    with _at(DAY1), pytest.raises(CacheError, match=r"cache folder .* refused: it belongs to "
                                                    rf"another user \(uid {uid}"):
        ledger.take("ico")


# -- a 485 the ledger cannot record -----------------------------------------------------


def _spoil(tmp_path: Path) -> None:
    """The ledger's folder replaced by one open to all: icoframes refuses to use it."""
    (tmp_path / LEDGER_FOLDER).rename(tmp_path / "quota-before")
    (tmp_path / LEDGER_FOLDER).mkdir()
    os.chmod(tmp_path / LEDGER_FOLDER, 0o777)


def _mend(tmp_path: Path) -> None:
    (tmp_path / LEDGER_FOLDER).rmdir()
    (tmp_path / "quota-before").rename(tmp_path / LEDGER_FOLDER)


def _unrecorded(error: BaseException, when: str = "2030-01-01 13:00") -> str:
    return (f"the service refused with error 485 (its daily allowance is used up) at {when} "
            f"UTC, which the quota ledger could not record ({error})")


def test_a_485_the_ledger_cannot_record_wakes_the_requests_waiting_for_the_probe(
        tmp_path):
    _refused(tmp_path)  # on record: the next call probes first, alone (the others: woken,
    # or they wait on)
    ledger = _ledger(tmp_path)
    outcome: dict[int, object] = {}

    def other_request(number: int) -> None:
        try:
            ledger.take("ico")
            outcome[number] = "booked"
        except BaseException as exc:
            outcome[number] = exc

    with _at(DAY1 + dt.timedelta(hours=1)):
        ledger.take("ico")  # the probe
        others = [threading.Thread(target=other_request, args=(n,), daemon=True)
                  for n in range(2)]
        for thread in others:
            thread.start()
        assert wait_until(lambda: len(ledger._cond._waiters) == 2)  # type: ignore[attr-defined]
        _spoil(tmp_path)
        with pytest.raises(CacheError, match="others may write to it") as unrecorded:
            ledger.settle(485)
        assert wait_until(lambda: not any(thread.is_alive() for thread in others))  # woken
        assert sorted(outcome) == [0, 1]
        for refused in outcome.values():  # the stop, not a request and not the ledger's error
            assert isinstance(refused, QuotaExceeded)
            assert str(refused) == _unrecorded(unrecorded.value)
            assert (refused.code, refused.endpoint) == (485, "ico")
        _mend(tmp_path)
        assert ledger.state().sent == 4  # the 3 of the refused call and the probe


def test_a_485_the_ledger_cannot_record_ends_the_call_even_once_it_can_be_read_again(tmp_path):
    ledger = _ledger(tmp_path)
    with _at(DAY1 + dt.timedelta(hours=1)):
        ledger.take("ico")
        ledger.take("ico")
        _spoil(tmp_path)
        with pytest.raises(CacheError, match="others may write to it") as unrecorded:
            ledger.settle(485)
        _mend(tmp_path)  # readable again, and no refusal on record
        with pytest.raises(QuotaExceeded) as refused:
            ledger.take("list")
        assert str(refused.value) == _unrecorded(unrecorded.value)
        assert (refused.value.code, refused.value.endpoint) == (485, "list")
        assert ledger.state().sent == 2 and ledger.state().refused_at is None
        ledger.settle(None)  # another request's answer (in flight at the 485): the call
        with pytest.raises(QuotaExceeded, match="could not record"):  # still stops
            ledger.take("ico")
        assert _ledger(tmp_path).state().sent == 2
        other_call = _ledger(tmp_path)  # did not meet the 485: it goes on
        other_call.take("ico")
        assert other_call.state().sent == 3


def test_a_probe_answered_while_the_ledger_cannot_clear_its_refusal_lets_the_next_probe(
        tmp_path):
    _refused(tmp_path)
    ledger = _ledger(tmp_path)
    with _at(DAY1 + dt.timedelta(hours=1)):
        ledger.take("ico")  # the probe
        _spoil(tmp_path)
        with pytest.raises(CacheError):
            ledger.settle(None)  # accepted, but the refusal cannot be cleared
        _mend(tmp_path)
        ledger.take("ico")  # the probe ended (no wait: it probes again, not refused)
        assert ledger.state().sent == 5 and ledger.state().refused_at == DAY1


def test_a_booking_with_no_refusal_on_record_is_one_statement_and_an_answer_writes_nothing(
        tmp_path):
    # the usual case is the one conditional statement alone, its own transaction (no
    # BEGIN, no read of the refusal first), and an ordinary answer changes nothing
    ledger = _ledger(tmp_path, limit=3)
    with _at(DAY1):
        ledger.take("ico")  # (makes the file)
        ledger.settle(None)
        db = ledger.database()
        assert db is not None
        with db._lock:
            conn = db._connect(write=True)
        assert conn is not None
        statements: list[str] = []
        conn.set_trace_callback(statements.append)
        try:
            ledger.take("ico")
            ledger.settle(None)
        finally:
            conn.set_trace_callback(None)
    assert len(statements) == 1, statements
    assert statements[0].startswith("INSERT INTO ledgers") and "refused_at IS NULL" in statements[0]
    assert [row[1:3] for row in _rows(tmp_path)] == [("2030-01-01", 2)]


def test_a_power_cut_may_take_back_at_most_256_bookings(tmp_path):
    """``synchronous=NORMAL`` syncs the log only at a checkpoint: the bookings since the last
    one are what a power cut may take back. The ledger checkpoints every 256 pages (a
    booking commits one), not at the raw cache's 4 MiB (1,024 pages: 1,024 bookings)."""
    ledger = QuotaLedger(tmp_path, "key", limit=10**6, service=SERVICE)
    log = ledger.path.with_name(LEDGER_NAME + "-wal")
    restarts: list[int] = []  # the log's checkpoint sequence after each booking
    with _at(DAY1):
        for _ in range(1100):
            ledger.take("ico")
            with open(log, "rb") as header:  # (a new number each time the log restarts)
                restarts.append(int.from_bytes(header.read(16)[12:], "big"))
        assert ledger.state().sent == 1100
    between = [restarts.count(n) for n in sorted(set(restarts))]
    assert len(between) >= 1100 // 256 and max(between) <= 256, between
    database = ledger.database()
    assert database is not None
    assert database.rows("PRAGMA wal_autocheckpoint") == [(256,)]
    assert database.rows("PRAGMA journal_size_limit") == [(1 << 20,)]
    assert database.rows("PRAGMA synchronous") == [(1,)]  # NORMAL: FULL cost 2-5 ms a booking


def test_the_repr_reads_nothing_so_a_refused_cache_dir_still_shows(tmp_path):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    ledger = QuotaLedger(not_a_folder, "k", limit=3, service="s")
    assert repr(ledger) == f"QuotaLedger({str(ledger.path)!r}, limit=3, reset=None)"
    assert not_a_folder.read_text() == "x"

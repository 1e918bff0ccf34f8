"""A 485 on record against the requests in flight when it came (a real ledger in ``tmp_path``).

``tests/test_export.py::test_quota_mid_export_exits_5...`` failed once under load: the run
after a 485 sent 6 requests, not one probe, because the first run's ledger had lost the
refusal. Two steps did it, both here, each step made to happen in its order by the test
(threads started and joined one after the other, a profile hook holding a thread at one
line; no sleep):

1. while one worker recorded the 485, another booked its request as the call's probe (the
   refusal on record, not yet known as the call's own): one more request after the 485;
2. a request booked before the refusal and answered (200) after it then cleared the
   refusal, as if it had been the probe (or, the probe still out, ended its wait: the
   next booking went as a second probe).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import time_machine
from waiting import HANG_GUARD, wait_until

from icoframes.errors import QuotaExceeded
from icoframes.store.ledger import LEDGER_FOLDER, LEDGER_NAME, QuotaLedger

DAY1 = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)
LATER = DAY1 + dt.timedelta(hours=1)
SERVICE = "http://127.0.0.1:1"


def _ledger(tmp_path: Path) -> QuotaLedger:
    return QuotaLedger(str(tmp_path), "public-key", service=SERVICE)


def _row(tmp_path: Path) -> tuple[Any, ...]:
    conn = sqlite3.connect(tmp_path / LEDGER_FOLDER / LEDGER_NAME)
    try:
        return conn.execute("SELECT sent, refused_at, refused_after FROM ledgers").fetchone()
    finally:
        conn.close()


def _ms(when: dt.datetime) -> int:
    return int(when.timestamp() * 1000)


def test_an_answer_to_a_request_booked_before_the_refusal_does_not_clear_it(tmp_path):
    # one call (one ledger) with two workers: A booked before the refusal (another call's,
    # as another process sharing the cache dir), C after it, as the call's probe; the probe
    # is refused, then A's answer (200) arrives: it says nothing of the allowance now
    call, other = _ledger(tmp_path), _ledger(tmp_path)
    with time_machine.travel(LATER, tick=False), ThreadPoolExecutor(1) as worker_a, \
            ThreadPoolExecutor(1) as worker_c:
        worker_a.submit(call.take, "ico").result()
        other.take("ico")
        other.settle(485)
        worker_c.submit(call.take, "ico").result()  # the probe
        worker_c.submit(call.settle, 485).result()
        worker_a.submit(call.settle, None).result()
        assert _row(tmp_path) == (3, _ms(LATER), 3)
        with pytest.raises(QuotaExceeded, match="after 3 requests sent"):
            worker_a.submit(call.take, "ico").result()  # this call was refused: no more
    # the next call probes: one request, alone (a second one waits for its answer)
    after = _ledger(tmp_path)
    with time_machine.travel(LATER, tick=False):
        after.take("ico")
        after.settle(485)
        with pytest.raises(QuotaExceeded):
            after.take("ico")
    assert _row(tmp_path)[0] == 4


def test_the_probe_answer_clears_the_refusal_whichever_worker_asks_next(tmp_path):
    # the probe's own answer still clears it; the next request, on another worker, is booked
    other, call = _ledger(tmp_path), _ledger(tmp_path)
    with time_machine.travel(LATER, tick=False), ThreadPoolExecutor(1) as worker_a, \
            ThreadPoolExecutor(1) as worker_c:
        other.take("ico")
        other.settle(485)
        worker_c.submit(call.take, "ico").result()  # the probe
        worker_c.submit(call.settle, None).result()  # accepted: the allowance is back
        assert _row(tmp_path) == (2, None, None)
        worker_a.submit(call.take, "ico").result()
        worker_a.submit(call.settle, None).result()
    assert _row(tmp_path) == (3, None, None)


def test_an_answer_to_a_request_booked_before_the_refusal_does_not_end_the_probe(tmp_path):
    # the probe is out; A's answer (booked before the refusal) arrives: the call's other
    # workers keep waiting for the probe's own answer (before d354367 they went on, and the
    # next booking, the refusal on record and no probe open, went as a second probe)
    call, other = _ledger(tmp_path), _ledger(tmp_path)
    with time_machine.travel(LATER, tick=False), ThreadPoolExecutor(1) as worker_a, \
            ThreadPoolExecutor(1) as worker_c, ThreadPoolExecutor(1) as worker_d:
        worker_a.submit(call.take, "ico").result()
        other.take("ico")
        other.settle(485)
        worker_c.submit(call.take, "ico").result()  # the probe, out
        d_booked = worker_d.submit(call.take, "ico")  # waits for the probe's answer
        waiters = call._cond._waiters  # type: ignore[attr-defined]
        assert wait_until(lambda: d_booked.done() or waiters)
        worker_a.submit(call.settle, None).result()
        # the probe still out: D waits on (the wait's condition; no cap since REVD M5)
        assert call._probe == "open" and not d_booked.done()
        assert _row(tmp_path) == (3, _ms(LATER), 2)
        worker_c.submit(call.settle, None).result()  # the probe accepted: the call goes on
        d_booked.result(HANG_GUARD)
    assert _row(tmp_path) == (4, None, None)


def _held_after_recording(hold: threading.Event, recorded: threading.Event
                          ) -> Callable[[FrameType, str, Any], None]:
    """A profile hook: the thread stops right after its UPDATE recording a 485 returns."""
    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if (event == "return" and frame.f_code.co_name == "_rows"
                and str(frame.f_locals.get("sql", "")).startswith(
                    "UPDATE ledgers SET refused_at = ?")):
            recorded.set()
            hold.wait(HANG_GUARD)
    return hook


def test_no_request_of_the_call_is_booked_while_its_485_is_recorded(tmp_path):
    # worker B got the 485 and records it; held right after the refusal is written, the
    # lock every booking takes is B's: no other worker of the call books (on main it was
    # free, and a booking then saw the refusal without this call's own 485 known, so it
    # went as the call's probe: one more request sent after the refusal)
    call = _ledger(tmp_path)
    hold, recorded = threading.Event(), threading.Event()

    def refused() -> None:
        sys.setprofile(_held_after_recording(hold, recorded))
        try:
            call.settle(485)
        finally:
            sys.setprofile(None)

    with time_machine.travel(LATER, tick=False):
        call.take("ico")  # A, in flight
        call.take("ico")  # B
        worker_b = threading.Thread(target=refused)
        worker_b.start()
        try:
            assert recorded.wait(HANG_GUARD)
            free = call._cond.acquire(blocking=False)
            if free:
                call._cond.release()
            assert not free, "a booking could go while the 485 was being recorded"
        finally:
            hold.set()
            worker_b.join(HANG_GUARD)
        with ThreadPoolExecutor(1) as worker_c, pytest.raises(QuotaExceeded, match="485"):
            worker_c.submit(call.take, "ico").result()
        call.settle(None)  # A's answer, after the refusal: it stays
    assert _row(tmp_path) == (2, _ms(LATER), 2)

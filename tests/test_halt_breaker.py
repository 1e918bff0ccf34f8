"""After a stop, a failed attempt is not the service's failure for the circuit breaker.

A stop halts the load's control (:meth:`~icoframes.api.control.LoadControl.halt`): no
retry leaves, the reads in flight go on, and at the daily limit each is waited for (it
is paid for). A request in flight that then fails (a 503) cannot be retried; counted for
the breaker, such failures of different requests tripped it, and the breaker's cancel
cut the reads still in flight that the stop was waiting for, paid and lost.

Here a 485 stops the load while 18 more profiles are in flight: 17 answer 503 once the
load halted (more than the breaker's 16 items), the 18th answers its profile after them.
"""

from __future__ import annotations

import threading

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from waiting import HANG_GUARD

import icoframes
from icoframes.api.control import BREAKER_ITEMS, LoadControl
from icoframes.errors import QuotaExceeded

FAILING = list(range(2, 19))  # 17 profiles answering 503 after the stop
LAST = 19  # answered once those 17 were


@pytest.fixture
def halted(monkeypatch):
    """The load's control, once halted (``controls``), and an event set then."""
    event, controls = threading.Event(), []
    halt = LoadControl.halt

    def halting(self) -> None:
        controls.append(self)
        halt(self)
        event.set()

    monkeypatch.setattr(LoadControl, "halt", halting)
    return event, controls


def test_failures_after_a_stop_do_not_trip_the_breaker_nor_cut_paid_reads(
        configure, halted, one_ledger_day):
    event, controls = halted
    assert len(FAILING) > BREAKER_ITEMS
    arrived, failed_out = threading.Semaphore(0), threading.Semaphore(0)
    lock, answered = threading.Lock(), []

    def profile(h) -> None:
        ico_id = int(h.request_json()["id"])
        arrived.release()
        if ico_id == 1:  # once every profile is in flight: the daily limit
            for _ in range(LAST):
                assert arrived.acquire(timeout=HANG_GUARD)
            json_reply({"error": 485})(h)
            return
        assert event.wait(HANG_GUARD)
        if ico_id in FAILING:
            json_reply({"error": "busy"}, status=503)(h)
            failed_out.release()
            return
        for _ in FAILING:
            assert failed_out.acquire(timeout=HANG_GUARD)
        json_reply({"error": None, "data": {"id": str(ico_id), "main": {"name": "A"}}})(h)
        with lock:
            answered.append(ico_id)

    with HostileServer({LIST: paged_list(LAST), PROFILE: profile}) as server:
        configure(server, max_workers=LAST)
        with pytest.raises(QuotaExceeded) as stopped:
            icoframes.load_icos(status="ongoing", progress=False)
        # one request each, no retry after the stop
        assert server.hits == {LIST: 1, PROFILE: LAST}

    [control] = controls
    # before: each failure after the halt was counted (17 in all: tripped at 16, unless the
    # last profile's success came between)
    assert not control.tripped and control.in_a_row == 0
    assert answered == [LAST]
    # the last profile, paid for and answered after the failures, was waited for and kept
    with pytest.warns(icoframes.IncompleteWarning):
        frame = icoframes.load_icos(status="ongoing", offline=True, progress=False)
    assert frame["id"].tolist() == [LAST]
    assert sorted(m["id"] for m in frame.attrs["icoframes"]["missing"]) == list(range(1, LAST))
    assert stopped.value.code == 485

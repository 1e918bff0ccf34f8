"""A request waiting for its booking in the request ledger when the load stops is not sent.

Booking is a write to the ledger shared by every process using the cache dir, which may
wait (another process holds the write lock). The load's stop check came before it only:
a request whose booking was still waiting when the stop came was sent after the stop.
Now the client checks again once it is booked; a request booked and not sent is handed
back to the ledger (the service never saw it).

Here profile 2's booking waits until the load halts; profile 1 is answered with error 480
(the keys refused: a stop of the load) once profile 2 waits.
"""

from __future__ import annotations

import threading

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from waiting import HANG_GUARD, wait_until

import icoframes
from icoframes.api.control import LoadControl
from icoframes.config import get_settings
from icoframes.errors import AuthError
from icoframes.store.ledger import QuotaLedger


def test_a_request_booked_after_the_stop_is_not_sent_and_handed_back(
        configure, monkeypatch, one_ledger_day):
    waiting, halted, taken = threading.Event(), threading.Event(), threading.Event()
    lock, booked = threading.Lock(), []
    real_take, real_halt = QuotaLedger.take, LoadControl.halt

    def take(self, endpoint: str = "") -> None:
        if endpoint == "ico":
            with lock:
                booked.append(endpoint)
                second = len(booked) == 2
            if second:  # another process holds the ledger, say, until the load stopped
                waiting.set()
                assert halted.wait(HANG_GUARD)
        real_take(self, endpoint)
        if endpoint == "ico" and second:
            taken.set()

    def halt(self) -> None:
        real_halt(self)
        halted.set()

    monkeypatch.setattr(QuotaLedger, "take", take)
    monkeypatch.setattr(LoadControl, "halt", halt)

    def profile(h) -> None:
        assert waiting.wait(HANG_GUARD)
        json_reply({"error": 480})(h)

    with HostileServer({LIST: paged_list(2), PROFILE: profile}) as server:
        configure(server, max_workers=2)
        with pytest.raises(AuthError, match="480"):
            icoframes.load_icos(status="ongoing", progress=False)
        settings = get_settings()
        ledger = QuotaLedger(settings.cache_dir, settings.public_key or "",
                             settings.daily_quota, service=settings.service_id or "")
        # profile 2 was booked (3 requests), then handed back once its thread saw the stop
        assert taken.wait(HANG_GUARD)
        assert wait_until(lambda: ledger.state().sent == 2)
        assert server.hits == {LIST: 1, PROFILE: 1}  # before: profile 2 sent after the stop

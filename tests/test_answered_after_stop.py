"""An error about a profile itself, answered after a stop, is that profile's failure.

A stop halts the load's control: no retry leaves and a failed attempt is not counted for the
breaker, but the reads in flight go on, and at the daily limit each is waited for (paid).
A profile answered HTTP 404 without a code or an unknown code is that item's failure, final
whatever else happened (:mod:`icoframes.api.blame`); answered once the load had halted, it
was dropped as cancelled (REVC L4: a7 with 4 workers): left "not fetched", not counted among
the call's failures in the QuotaExceeded message, as though it had not been answered.

Here profile 1 is refused (485) once the 5 are in flight; 2 and 3 answer 404, 4 answers
``{"error": 999}`` once the load halted, 5 its profile after them.
"""

from __future__ import annotations

import threading

import pytest
from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, paged_list
from waiting import HANG_GUARD

import icoframes
from icoframes.api.control import LoadControl
from icoframes.errors import QuotaExceeded

N = 5
WRONG = {2: html_reply(404, "gone"), 3: html_reply(404, "gone"), 4: json_reply({"error": 999})}


@pytest.fixture
def halted(monkeypatch):
    """The load's controls, once halted, and an event set then."""
    event, controls = threading.Event(), []
    halt = LoadControl.halt

    def halting(self) -> None:
        controls.append(self)
        halt(self)
        event.set()

    monkeypatch.setattr(LoadControl, "halt", halting)
    return event, controls


def test_an_error_about_a_profile_answered_after_the_stop_is_its_failure(
        configure, halted, one_ledger_day):
    event, controls = halted
    arrived, wrong_out = threading.Semaphore(0), threading.Semaphore(0)

    def profile(h) -> None:
        ico_id = int(h.request_json()["id"])
        arrived.release()
        if ico_id == 1:  # once every profile is in flight: the daily limit
            for _ in range(N):
                assert arrived.acquire(timeout=HANG_GUARD)
            json_reply({"error": 485})(h)
            return
        assert event.wait(HANG_GUARD)
        if ico_id in WRONG:
            WRONG[ico_id](h)
            wrong_out.release()
            return
        for _ in WRONG:
            assert wrong_out.acquire(timeout=HANG_GUARD)
        json_reply({"error": None, "data": {"id": ico_id, "main": {"name": f"P{ico_id}"}}})(h)

    with HostileServer({LIST: paged_list(N), PROFILE: profile}) as server:
        configure(server, max_workers=N)
        with pytest.raises(QuotaExceeded) as stopped:
            icoframes.load_icos(status="past", progress=False)
        assert server.hits == {LIST: 1, PROFILE: N}  # one request each: no retry after it

    error = stopped.value
    assert error.code == 485 and error.remaining == N - 1
    # (was "This call fetched 1 profiles; 4 remain to fetch." and no failure)
    assert "This call fetched 1 profile; 4 remain to fetch; 3 of them failed in this call" \
        in str(error)
    failed = error.listing.attrs["icoframes"]["failed"]
    assert sorted(failed) == [2, 3, 4]
    assert failed[2] == failed[3] == "HTTP 404 without an error code"
    assert failed[4] == "HTTP 200: the service reported error 999"
    assert icoframes.cache_info().states == {"fetched": 1, "gone": 0, "failed": 3,
                                             "not_fetched": 1}  # (was failed 0, 4 not fetched)
    [control] = controls  # not counted for the breaker: the load had stopped
    assert not control.tripped and control.items_bad == 0

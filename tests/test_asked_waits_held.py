"""A wait the service asked (``Retry-After``) that its request gave up on holds the load's next
request: no request leaves while such a wait runs, unless the load stopped.

A request gives up without waiting what it was asked when its attempts are spent, or early, a
run of asks that would trip the breaker but for its items. One worker then asked the next item
at once: against a service asking every request to wait 1 s, 15 requests in about a second
after the first item's 12 (each a 429 booked against the day's quota), where the service had
asked for a second between them; two ids a limiter always refuses sent their neighbours inside
the waits asked. Real loopback HTTP; the seconds are ``waits_counted``'s: a load's waits
(``StopSwitch.sleep``) move a clock the server reads, nothing waits and no wall clock is read.
"""

from __future__ import annotations

import math
import threading

import pytest
from hostile import LIST, PROFILE, HostileServer, limited_profiles, paged_list

import icoframes
from icoframes.api.asked import AskedRun
from icoframes.api.client import Client
from icoframes.api.control import BREAKER_FAILURES, BREAKER_ITEMS, LoadControl, profile_item
from icoframes.api.retry import RetryPolicy
from icoframes.api.switch import StopSwitch
from icoframes.errors import IncompleteWarning, ServiceUnavailable

pytestmark = pytest.mark.usefixtures("quick_retries")

N = 40
ATTEMPTS = 6  # the default retry policy's max_attempts (a 429's honoured asks: 6 turns besides)


class WaitedClock:
    """Seconds that pass only while a load waits (one worker: its waits are the load's)."""

    def __init__(self) -> None:
        self.now, self.lock = 0.0, threading.Lock()

    def __call__(self) -> float:
        with self.lock:
            return self.now

    def wait(self, seconds: float) -> None:
        with self.lock:
            self.now += max(seconds, 0.0)


@pytest.fixture
def waits_counted(monkeypatch) -> WaitedClock:
    """Every load's waits (``StopSwitch.sleep``: a retry's backoff, a wait asked) move a
    :class:`WaitedClock` instead of waiting, and it is the clock of the breaker's asked-wait rule
    and of the switch's hold."""
    clock = WaitedClock()

    def sleep(switch: StopSwitch, seconds: float) -> None:
        clock.wait(seconds)
        switch.check()

    monkeypatch.setattr(StopSwitch, "sleep", sleep)
    monkeypatch.setattr(StopSwitch, "clock", staticmethod(clock), raising=False)
    monkeypatch.setattr(AskedRun, "clock", staticmethod(clock))
    return clock


def refusing_within_waits(clock: WaitedClock, bad: set[int], counts: dict[str, float]):
    """``limited_profiles(bad, wait=1)``, counting in ``counts["early"]`` the requests that
    arrive while a wait it asked (on ``clock``) still runs."""
    answer = limited_profiles(bad, wait=1)

    def behaviour(h) -> None:
        ico = int(h.request_json()["id"])
        with clock.lock:
            counts["early"] += clock.now < counts["until"]
            if ico in bad:  # asked to wait 1 s from now (the client reads it after this)
                counts["until"] = clock.now + 1
        answer(h)
    return behaviour


def test_a_service_asking_every_request_to_wait_is_asked_only_after_each_wait(
        configure, waits_counted):
    # was 15 requests within the waits asked (one worker): each item after the first asked at
    # once, given up without waiting (its attempts spent, or early: the run would trip but for
    # its items)
    counts = {"early": 0, "until": 0.0}
    profiles = refusing_within_waits(waits_counted, set(range(1, N + 1)), counts)
    with HostileServer({LIST: paged_list(N), PROFILE: profiles}) as srv:
        configure(srv, max_workers=1)
        with pytest.raises(ServiceUnavailable, match="each asked to wait"):
            icoframes.load_icos(status="past", progress=False)
        assert counts["early"] == 0
        # the first item's 12 asks, then one of each next item until BREAKER_ITEMS: as many
        # requests as without the waits, each after the wait asked before it
        assert srv.hits[PROFILE] == BREAKER_FAILURES + BREAKER_ITEMS - 1


def test_ids_a_limiter_always_refuses_hold_their_neighbours_for_the_wait_asked(
        configure, waits_counted):
    # was 30 requests within the waits asked: id 11 at once after id 10's last ask (its
    # attempts spent), id 12 at once after id 11's (given up early), and the rest with it (in
    # this clock, which only waits move; a second holds them all)
    counts = {"early": 0, "until": 0.0}
    bad = {10, 11}
    profiles = refusing_within_waits(waits_counted, bad, counts)
    with HostileServer({LIST: paged_list(N), PROFILE: profiles}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning, match="2 failed"):
            icos = icoframes.load_icos(status="past", progress=False)
        assert sorted(icos["id"]) == sorted(set(range(1, N + 1)) - bad)
        assert counts["early"] == 0
        assert srv.hits[PROFILE] == N - 2 + 2 * ATTEMPTS + 1  # id 10's 12 asks, id 11's one


@pytest.mark.parametrize(("policy", "asked"), [
    (RetryPolicy(max_asked_wait=3600), 100),  # past max_elapsed (60 s): given up at once
    (RetryPolicy(max_asked_wait=math.inf), 99_999_999_999),  # was OverflowError unpatched
])
def test_a_wait_past_the_policys_time_holds_no_later_call(waits_counted, policy, asked):
    # was the whole ask waited before the next call on the same Client (100 s, or a wait past
    # what a thread can wait: OverflowError), where no retry would have waited it
    with HostileServer({PROFILE: limited_profiles({1}, wait=asked)}) as srv, \
            Client(**srv.settings(), retry=policy) as client:
        with pytest.raises(ServiceUnavailable, match="past the retry policy's 60 s"):
            client.profile(1)
        assert client.profile(2)["id"] == 2
        assert waits_counted() == 0
        assert srv.hits[PROFILE] == 2


def test_a_wait_is_not_held_while_another_item_is_retrying(waits_counted, caplog):
    # was held: the other workers' next items waited, then left together, the turns the
    # retrying items took meanwhile lost (8 or 14 workers: more requests than without a hold)
    control = LoadControl()
    for item in (profile_item(1), profile_item(2)):
        control.failed("HTTP 429", item=item, wait=1.0)
    assert control.keep_trying(profile_item(1), True, asked=True)
    control.hold(1.0, item=profile_item(2))  # id 2 gives up; id 1 is still retrying
    control.wait_turn()
    assert waits_counted() == 0
    control.keep_trying(profile_item(1), False, asked=True)  # id 1 gives up too: alone
    control.hold(1.0, item=profile_item(1))
    with caplog.at_level("INFO", logger="icoframes.api.switch"):
        control.wait_turn()
    assert waits_counted() == 1.0
    assert "next request in 1.00 s: a wait the service asked" in caplog.text


def test_a_call_interrupted_in_its_backoff_leaves_no_item_retrying(waits_counted, monkeypatch):
    # was: its item stayed "retrying" for good, so that Client never held a wait again
    def answer(h) -> None:
        ico = int(h.request_json()["id"])
        if ico == 2:  # given up at once (one attempt): its wait is left to the next call
            return h.send_bytes(503, b"<html>busy</html>", {"Retry-After": "3"}, "text/html")
        limited_profiles({1})(h)  # id 1: asked to wait, so retried: a backoff to interrupt

    waited = StopSwitch.sleep  # the fixture's: moves its clock

    def interrupted_once(switch: StopSwitch, seconds: float) -> None:
        monkeypatch.setattr(StopSwitch, "sleep", waited)
        raise KeyboardInterrupt  # a Ctrl-C in call 1's backoff

    monkeypatch.setattr(StopSwitch, "sleep", interrupted_once)
    with HostileServer({PROFILE: answer}) as srv, \
            Client(**srv.settings(), retry=RetryPolicy(max_attempts=1)) as client:
        with pytest.raises(KeyboardInterrupt):
            client.profile(1)
        with pytest.raises(ServiceUnavailable, match="gave up after 1 attempts"):
            client.profile(2)
        assert waits_counted() == 0
        assert client.profile(3)["id"] == 3
        assert waits_counted() == 3.0  # call 2's asked wait held call 3, as with no interrupt

"""A wait longer than a lock can wait (an infinite retry policy given a huge Retry-After) is
a wait, cut short by a stop as any other: never an OverflowError out of the load.

``threading.Event.wait`` raises OverflowError for a timeout past ``threading.TIMEOUT_MAX``
only while the event is not set, so the tests read the timeout the switch asks of its event
(a recording event that never blocks) instead of waiting."""

from __future__ import annotations

import threading

import pytest

from icoframes.api.switch import StopSwitch


class _RecordingEvent(threading.Event):
    def __init__(self) -> None:
        super().__init__()
        self.timeouts: list[float | None] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.timeouts.append(timeout)
        return super().wait(0)


def _switch() -> tuple[StopSwitch, _RecordingEvent]:
    switch, event = StopSwitch(), _RecordingEvent()
    switch._halt = event  # the event every wait of the switch waits on
    return switch, event


@pytest.mark.parametrize("seconds", [float("inf"), 99_999_999_999.0, threading.TIMEOUT_MAX * 2])
def test_a_wait_past_the_lock_limit_asks_what_a_lock_can_wait(seconds: float) -> None:
    switch, event = _switch()
    switch.sleep(seconds)
    assert event.timeouts == [threading.TIMEOUT_MAX]


def test_a_held_turn_past_the_lock_limit_asks_what_a_lock_can_wait() -> None:
    switch, event = _switch()
    switch.hold(float("inf"))
    switch.wait_turn()
    assert event.timeouts == [threading.TIMEOUT_MAX]


def test_a_short_wait_is_asked_as_it_is() -> None:
    switch, event = _switch()
    switch.sleep(0.25)
    assert event.timeouts == [0.25]



def test_an_answer_before_the_next_request_waits_ends_the_hold() -> None:
    # a wait asked of a request that gave up is over once another request is answered
    # (that answer was the wait's own, or the wait is over): the next request leaves at once
    from icoframes.api.control import LoadControl

    control, event = LoadControl(), _RecordingEvent()
    control._halt = event
    control.clock = lambda: 100.0  # (the hold's clock, stopped)
    control.hold(5.0, item="a")
    control.succeeded("b")
    control.wait_turn()
    assert event.timeouts == []
    control.hold(5.0, item="a")  # not answered: the next request waits the hold
    control.wait_turn()
    assert event.timeouts == [5.0]


def test_a_refusal_quoting_a_lone_surrogate_is_a_reason_every_writer_keeps() -> None:
    from icoframes.api.gate import Rejected, verdict

    def check() -> None:
        raise Rejected("data.name is \ud800")

    value, reason = verdict(check)
    assert value is None and reason == "data.name is \\ud800"
    assert reason.encode("utf-8")  # (a lone surrogate cannot be encoded: a manifest write fails)

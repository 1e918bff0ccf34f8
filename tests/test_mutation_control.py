"""api/control.py: the stop switch and the circuit breaker of a load, rule by rule, in one
thread; the sockets it cuts are a real socketpair (`make mutate MODULE=control`)."""

from __future__ import annotations

import itertools
import socket

import pytest

from icoframes.api.asked import ASK_FLOOR
from icoframes.api.control import (
    BREAKER_REFUSED,
    PROBE_ITEMS,
    SUSPECT_FAILURES,
    SUSPECT_ITEMS,
    Cancelled,
    LoadControl,
)


class _Clock:
    """A monotonic clock the test sets (``now``, seconds): the breaker's asked-wait rule's."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _ticks():
    """A clock one ``ASK_FLOOR`` on at each reading: asks of 0 s have lasted theirs by the
    next (the count of asks and the attempts in flight decide)."""
    ticks = itertools.count(step=ASK_FLOOR)
    return lambda: float(next(ticks))


def test_a_fresh_control_and_its_repr():
    control = LoadControl()
    assert (control.failures, control.items) == (12, 16)
    assert (control.in_a_row, control.unsent_in_a_row, control.last_failure) == (0, 0, None)
    assert repr(control) == ("LoadControl(cancelled=False, tripped=False, failures_in_a_row=0, "
                             "items_failing=0)")
    control.check()  # not stopped: nothing raised
    control.sleep(0)


def test_failures_are_counted_in_a_row_and_unsent_ones_apart():
    control = LoadControl(failures=10, items=10)
    control.failed("refused", item=1, sent=False)
    control.failed("refused", item=1, sent=False)
    assert (control.in_a_row, control.unsent_in_a_row, control.items_failing) == (2, 2, 1)
    control.failed("HTTP 503", item=2)  # reached the service: the unsent run is over
    assert (control.in_a_row, control.unsent_in_a_row, control.items_failing) == (3, 0, 2)
    assert control.last_failure == "HTTP 503"
    assert repr(control) == ("LoadControl(cancelled=False, tripped=False, failures_in_a_row=3, "
                             "items_failing=2)")
    control.succeeded(2)
    assert (control.in_a_row, control.unsent_in_a_row, control.items_failing) == (0, 0, 0)
    assert control.last_failure == "HTTP 503" and not control.tripped


def test_the_breaker_trips_at_exactly_its_number_of_different_items():
    control = LoadControl(failures=100, items=3)
    for _ in range(10):
        control.failed("HTTP 503", item="a")  # one item's retries count once
    control.failed("HTTP 503", item="b")
    assert not control.tripped and not control.cancelled
    control.failed("HTTP 500", item="c")
    assert control.tripped and control.cancelled
    with pytest.raises(Cancelled) as info:
        control.check()
    assert str(info.value) == "HTTP 500"
    control.failed("later", item="d")  # tripped once: stays tripped, says the last cause
    assert control.tripped and control.last_failure == "later"


def test_items_not_named_each_count_as_one_of_their_own():
    control = LoadControl(failures=100, items=2)
    control.failed("x")
    assert not control.tripped
    control.failed("x")
    assert control.tripped


def test_the_breaker_trips_at_exactly_its_number_of_unsent_attempts_in_a_row():
    control = LoadControl(failures=3, items=100)
    control.failed("refused", item=1, sent=False)
    control.failed("refused", item=1, sent=False)
    control.failed("reset", item=1)  # sent: starts the unsent run again
    control.failed("refused", item=1, sent=False)
    control.failed("refused", item=1, sent=False)
    assert not control.tripped and control.unsent_in_a_row == 2
    control.failed("refused", item=1, sent=False)
    assert control.tripped and control.unsent_in_a_row == 3


def test_the_breaker_trips_at_exactly_its_number_of_attempts_in_a_row_asked_to_wait():
    clock = _Clock()
    control = LoadControl(failures=3, items=100, asked_items=2, clock=clock)
    control.failed("HTTP 503", item=1, wait=5)
    control.failed("HTTP 503", item=1, wait=5)
    control.failed("HTTP 503", item=1)  # no wait asked: starts the run of asks again
    assert control.asked_in_a_row == 0 and control.in_a_row == 3
    control.failed("HTTP 503", item=1, wait=0)
    control.failed("HTTP 429", item=2, wait=1)
    assert not control.tripped and control.asked_in_a_row == 2
    control.refused("HTTP 200: data is null", item=3)  # answered: the run of asks is over
    assert control.asked_in_a_row == 0
    control.failed("HTTP 503", item=4, wait=5)
    control.succeeded(5)  # so is a success
    assert control.asked_in_a_row == 0 and control.retry_after is None
    control.failed("HTTP 503", item=6, wait=0)
    clock.now += ASK_FLOOR  # (a run of 0 s asks: lasted a second, an ask's unit)
    control.failed("HTTP 503", item=6, wait=0)
    assert not control.tripped
    control.failed("HTTP 503", item=7, wait=0, sent=True)
    assert control.tripped and control.asked_in_a_row == 3 and control.unsent_in_a_row == 0


def test_one_items_asks_alone_never_trip_the_breaker():
    # REVJ M3: an id a limiter always refuses (429 Retry-After: 1) takes its turns, no attempt
    # of its own: alone, its 12 asks in a row stopped a load of one worker after 9 of 60 rows
    clock = _Clock()
    control = LoadControl(failures=3, items=100, asked_items=2, clock=clock)
    for _ in range(20):
        control.failed("HTTP 429", item=("ico", 10), wait=1)
        clock.now += 1
    assert not control.tripped and control.asked_in_a_row == 20
    control.failed("HTTP 429", item=("ico", 11), wait=1)  # another item asked too: down
    assert control.tripped


def test_an_ask_not_waited_is_no_ask_of_the_run_but_is_said():
    # REVJ M2: an ask of 3600 s (past max_asked_wait: the item gave up, no one waited) was the
    # run's longest wait: asks of 1 s every time after did not trip it for an hour
    clock = _Clock()
    control = LoadControl(failures=3, items=100, asked_items=2, clock=clock)
    control.failed("HTTP 429", item=1, wait=3600, waited=False)
    assert control.asked_in_a_row == 0 and control.retry_after[1] == 3600  # (said: call later)
    for item in (2, 3, 2):
        clock.now += 1
        control.failed("HTTP 429", item=item, wait=1)
    assert control.tripped and control.retry_after[1] == 3600


def test_asks_to_wait_trip_the_breaker_only_once_their_run_lasted_the_longest_wait():
    # a rate limiter answering 8 workers "wait 1 s" gives 12 asks within that second: no
    # outage until the run lasted the wait it asked (REVI M2)
    clock = _Clock()
    control = LoadControl(failures=3, items=100, asked_items=2, clock=clock)
    control.failed("HTTP 429", item=1, wait=0)
    control.failed("HTTP 429", item=2, wait=3600)
    for _ in range(10):
        clock.now += 359.9  # (3599 s, with the first ask's)
        control.failed("HTTP 429", item=3, wait=0)
    assert not control.tripped and control.asked_in_a_row == 12
    control.succeeded(4)
    for item in (5, 6, 5):  # a new run: its own start and longest wait (the floor: 1 s)
        control.failed("HTTP 429", item=item, wait=0)
        clock.now += ASK_FLOOR * 0.4
    assert not control.tripped  # (its third ask 0.8 s after its first)
    control.failed("HTTP 429", item=5, wait=0)  # 1.2 s after
    assert control.tripped


def test_asks_of_no_wait_trip_the_breaker_only_once_their_run_lasted_a_second():
    # REVI M2: a fixed-window limiter rounding the rest of its second down asks 0 s; 8 or 14
    # workers meeting it got 12 such asks within its second, and the load stopped in under 1 s
    # though the next second served some: Retry-After counts whole seconds, 0 is under one
    clock = _Clock()
    control = LoadControl(failures=3, items=100, asked_items=2, clock=clock)
    for item in range(12):
        control.failed("HTTP 429", item=item, wait=0)
        clock.now += (ASK_FLOOR - 0.01) / 11  # the 12th 0.99 s after the first
    assert not control.tripped and control.asked_in_a_row == 12
    control.succeeded(99)  # the limiter's next window: one let through
    control.failed("HTTP 429", item=1, wait=0)
    clock.now += ASK_FLOOR
    control.failed("HTTP 429", item=2, wait=0)
    assert not control.tripped  # (its count: 3)
    control.failed("HTTP 429", item=3, wait=0)
    assert control.tripped and control.asked_in_a_row == 3


def _in_flight(control: LoadControl, outcome):
    """A thread that sends an attempt (:meth:`LoadControl.sending`), then, once told (the
    returned ``answer`` event), counts its answer with ``outcome(control)``; ``done`` is set
    after. Returns (thread, answer, done)."""
    import threading

    sent, answer, done = threading.Event(), threading.Event(), threading.Event()

    def attempt():
        control.sending()
        sent.set()
        answer.wait()
        outcome(control)
        done.set()

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    assert sent.wait(10)
    return thread, answer, done


@pytest.mark.parametrize("answered, trips", [
    (lambda c: c.succeeded(("ico", 99)), False),  # a rate limiter: let through, in 50 ms
    (lambda c: c.refused("HTTP 200: data is null", item=("ico", 99)), False),  # answered
    (lambda c: c.failed("HTTP 429", item=("ico", 99), wait=0), True),  # asked too: down
    (lambda c: c.failed("HTTP 503", item=("ico", 99)), False),  # no ask: the run is over
])
def test_a_trip_of_asks_awaits_the_attempts_in_flight_when_the_run_reached_its_count(
        answered, trips):
    # REVD M2: 14 workers back from their backoff together meet a limiter that answers its
    # asks at once and the one it lets through in 50 ms: 12 asks in a row before that answer
    control = LoadControl(failures=3, items=100, asked_items=2, clock=_ticks())
    thread, answer, done = _in_flight(control, answered)
    for item in range(3):
        control.failed("HTTP 429", item=item, wait=0)
    assert not control.tripped and control.asked_in_a_row == 3  # the attempt in flight
    control.sending()  # an attempt sent after the run reached its count holds nothing
    control.failed("HTTP 429", item=3, wait=0)
    assert not control.tripped and control.asked_in_a_row == 4
    answer.set()
    assert done.wait(10)
    thread.join(10)
    assert control.tripped is trips and control.cancelled is trips
    assert control.asked_in_a_row == (5 if trips else 0)


def test_an_attempt_in_flight_that_sends_again_no_longer_holds_the_trip():
    # its answer was lost (not counted): its next attempt shows the earlier one over
    control = LoadControl(failures=2, items=100, asked_items=2, clock=_ticks())
    control.sending()
    thread, answer, done = _in_flight(control, lambda c: c.sending())
    control.failed("HTTP 429", item=1, wait=0)
    control.failed("HTTP 429", item=2, wait=0)
    assert not control.tripped
    answer.set()
    assert done.wait(10)
    thread.join(10)
    control.failed("HTTP 429", item=3, wait=0)
    assert control.tripped


def _null(ico_id: int):
    """A profile's wrong answer in the service's envelope (``"data": null``), as the gate
    refuses it."""
    from icoframes.api.retry import Transient

    failure = Transient(f"HTTP 200: the profile data for id {ico_id} is NoneType",
                        rejected=True, answered=True)
    failure.enveloped = True
    return failure


@pytest.mark.parametrize("failing", list(range(SUSPECT_ITEMS)))
def test_a_run_of_enveloped_wrong_answers_asks_probes_with_fewer_failures_than_suspect_items(
        failing):
    # REVD M1: a 503 (its retry waiting its backoff) while other workers go through a block
    # of 40 ids answered "data": null: the run reached 32 with it, no probe, no row
    control = LoadControl()
    for ico_id in range(failing):
        control.failed("HTTP 503", item=("ico", 1000 + ico_id))
    for ico_id in range(1, BREAKER_REFUSED - failing):
        control.refused(_null(ico_id), item=("ico", ico_id))
    assert not control.tripped and control.probes_wanted() == 0
    control.refused(_null(99), item=("ico", 99))  # the run's 32nd item
    assert not control.tripped and control.probes_wanted() == PROBE_ITEMS
    control.probing([("ico", 500)])
    control.refused(_null(500), item=("ico", 500))
    assert control.tripped and control.items_bad == BREAKER_REFUSED + 1


def test_suspect_items_failures_beside_enveloped_wrong_answers_trip_without_probes():
    control = LoadControl()
    for ico_id in range(SUSPECT_ITEMS):
        control.failed("HTTP 503", item=("ico", 1000 + ico_id))
    for ico_id in range(1, BREAKER_REFUSED - SUSPECT_ITEMS):
        control.refused(_null(ico_id), item=("ico", ico_id))
    assert not control.tripped
    control.refused(_null(99), item=("ico", 99))
    assert control.tripped and control.probes_wanted() == 0


def test_a_wrong_answer_in_the_envelope_then_a_failure_of_the_same_item_keeps_the_run_so():
    # the 503 came on the retry of an id answered "data": null: its wrong answer was the
    # service's own (it left the run's envelope set, so the run tripped without probes)
    control = LoadControl()
    control.refused(_null(1), item=("ico", 1))
    control.failed("HTTP 503", item=("ico", 1))
    for ico_id in range(2, BREAKER_REFUSED + 1):
        control.refused(_null(ico_id), item=("ico", ico_id))
    assert not control.tripped and control.probes_wanted() == PROBE_ITEMS
    control.refused("HTTP 200: not JSON", item=("ico", 600))  # a proxy's page: no longer so
    assert control.tripped


def test_items_failing_before_that_fail_again_are_held_not_an_outage():
    # REVF H1: 16 kept copies whose refresh failed before, asked first, failing again (HTTP
    # 500) tripped the 16-items rule on every plain daily run: held as their wrong answers are
    control = LoadControl(failures=100, items=4)
    for ico_id in range(1, 4):
        control.known_bad(("ico", ico_id), "HTTP 500")
    control.failed("HTTP 500", item=("ico", 9))  # one new among them
    for ico_id in range(1, 4):
        control.failed("HTTP 500", item=("ico", ico_id))
    assert not control.tripped and control.known_held == (4, 0, "HTTP 500")
    assert control.items_failing == 1  # the run goes on without them
    control.failed("HTTP 500", item=("ico", 1))  # one of them still in flight: not counted
    for ico_id in range(10, 12):
        control.failed("HTTP 500", item=("ico", ico_id))
    assert not control.tripped and control.items_failing == 3
    control.failed("HTTP 500", item=("ico", 12))  # 4 others: an outage
    assert control.tripped and control.items_failing == 4


def test_items_that_make_the_count_without_those_failing_before_still_trip_it():
    control = LoadControl(failures=100, items=3)
    control.known_bad(("ico", 1))
    for ico_id in range(1, 4):  # the others alone make 2: held
        control.failed("HTTP 503", item=("ico", ico_id))
    assert not control.tripped and control.known_held is not None
    again = LoadControl(failures=100, items=3)
    again.known_bad(("ico", 1))
    for ico_id in range(2, 5):  # 3 others failing: an outage, whatever else failed
        again.failed("HTTP 503", item=("ico", ico_id))
    assert again.tripped and again.known_held is None
    unsent = LoadControl(failures=2, items=3)  # no item causes attempts that never left
    unsent.known_bad(("ico", 1))
    unsent.failed("refused", item=("ico", 1), sent=False)
    unsent.failed("refused", item=("ico", 1), sent=False)
    assert unsent.tripped and unsent.known_held is None


def test_the_longest_wait_asked_in_the_run_is_kept_with_its_end():
    control = LoadControl()
    control.failed("HTTP 503", item=1, wait=20)
    first = control.retry_after
    assert first is not None and first[1] == 20
    control.failed("HTTP 503", item=2, wait=5)  # ends sooner: the first kept
    assert control.retry_after == first
    control.failed("HTTP 503", item=3)  # no wait: kept
    assert control.retry_after == first
    control.failed("HTTP 503", item=4, wait=60)
    assert control.retry_after is not None and control.retry_after[1] == 60
    assert control.retry_after[0] >= first[0] + 40


def test_a_success_clears_the_items_failing():
    control = LoadControl(failures=100, items=2)
    control.failed("x", item=1)
    control.succeeded()
    control.failed("x", item=2)
    assert not control.tripped and control.items_failing == 1


def test_cancel_stops_check_and_sleep_at_once():
    control = LoadControl()
    control.cancel()
    assert control.cancelled and not control.tripped
    with pytest.raises(Cancelled, match=r"^the load was cancelled$"):
        control.check()
    with pytest.raises(Cancelled, match=r"^the load was cancelled$"):
        control.sleep(3600)  # already stopped: returns at once, raising


def _suspect(control: LoadControl, in_a_row: int, items: int) -> None:
    for n in range(in_a_row):
        control.failed("HTTP 503", item=n % items)


@pytest.mark.parametrize(("in_a_row", "items", "keeps"), [
    (SUSPECT_FAILURES, SUSPECT_ITEMS, False),  # both at their thresholds: given up
    (SUSPECT_FAILURES - 1, SUSPECT_ITEMS, True),
    (SUSPECT_FAILURES, SUSPECT_ITEMS - 1, True),
    (SUSPECT_FAILURES + 5, SUSPECT_ITEMS + 2, False),
])
def test_an_item_gives_up_early_only_when_many_fail_together(in_a_row, items, keeps):
    control = LoadControl(failures=100, items=100)
    _suspect(control, in_a_row, items)
    assert control.keep_trying(0, True) is True  # kept, or the run's first found so: one retry
    assert control.keep_trying(0, True) is keeps  # (any item of the run: they failed in it)
    assert control.keep_trying(items - 1, True) is keeps
    assert control.keep_trying("other", False) is False  # its own policy said no


def test_items_failed_in_the_run_count_as_those_retrying_do():
    # one worker meets a failing service's items one after another: those given up count
    # while the run of failures lasts (each its retries made an outage cost 91 requests)
    control = LoadControl(failures=100, items=100)
    _suspect(control, SUSPECT_FAILURES, SUSPECT_ITEMS - 1)
    assert control.keep_trying(0, True) is True and control.keep_trying(1, False) is False
    control.failed("HTTP 503", item=2)  # a third item failing in the run, 1 given up in it:
    assert control.keep_trying(2, True) is True  # the run's first found so, retried once (a
    assert control.keep_trying(2, True) is False  # blip answered ends it); failing again: no
    assert control.keep_trying(0, True) is False  # (0, 1, 2 failed in the run)
    control.succeeded(4)  # the run of failures is over: none failed in it, none retrying
    _suspect(control, SUSPECT_FAILURES, 1)  # item 0 alone
    assert control.keep_trying(0, True) is True
    assert control.keep_trying("x", True) is True  # retrying together: 0 and x
    assert control.keep_trying("y", True) is False  # three retrying: their failures show
    # the outage, no retry of the first so found (8 workers: 2 to 4 requests more, no row)
    assert control.keep_trying("new", False) is False  # its policy said no: not retrying
    assert control.keep_trying("x", True) is True  # still 0 and x (y given up)


def test_cancel_cuts_the_socket_the_thread_registered_and_release_forgets_it():
    reading, writing = socket.socketpair()
    with reading, writing:
        reading.settimeout(30)  # a hang guard only: a socket not cut would block here
        control = LoadControl()
        control.register(reading)
        control.cancel()
        assert reading.recv(1) == b""  # shut down: the blocked read would return at once
    reading, writing = socket.socketpair()
    with reading, writing:
        control = LoadControl()
        control.register(reading)
        control.release()
        control.cancel()
        writing.sendall(b"x")
        assert reading.recv(1) == b"x"  # released: not cut


def test_a_socket_registered_after_the_cancel_is_cut_at_once():
    reading, writing = socket.socketpair()
    with reading, writing:
        reading.settimeout(30)  # a hang guard only: a socket not cut would block here
        control = LoadControl()
        control.cancel()
        control.register(reading)
        assert reading.recv(1) == b""


def test_a_socket_that_cannot_be_shut_down_is_left_to_its_owner_quietly():
    with socket.socket() as unconnected:  # shutdown raises OSError (not connected)
        control = LoadControl()
        control.register(unconnected)
        control.cancel()  # no error: the read it guards fails on its own
        assert control.cancelled
    with socket.socket() as unconnected:
        control = LoadControl()
        control.cancel()
        control.register(unconnected)  # registered after the cancel: no error either


def test_release_without_a_socket_registered_is_a_no_op():
    control = LoadControl()
    control.release()
    control.release()


def test_halt_stops_the_next_attempt_and_the_wait_but_not_a_read_in_flight():
    reading, writing = socket.socketpair()
    with reading, writing:
        reading.settimeout(30)  # a hang guard only: a socket cut would not block, one not
        control = LoadControl()  # cut by the cancel would
        control.register(reading)
        control.halt()
        assert not control.cancelled and not control.tripped
        with pytest.raises(Cancelled, match=r"^the load was cancelled$"):
            control.check()  # no new attempt (a retry)
        with pytest.raises(Cancelled, match=r"^the load was cancelled$"):
            control.sleep(3600)  # no wait for one: returns at once, raising
        writing.sendall(b"x")
        assert reading.recv(1) == b"x"  # the read in flight goes on
        control.release()
        control.register(reading)  # (registered after the halt: not cut either)
        writing.sendall(b"y")
        assert reading.recv(1) == b"y"
        control.cancel()  # a cancel after it still cuts
        assert control.cancelled and reading.recv(1) == b""

"""api/attempts.py: after a failed attempt, whether another is sent and when, or the request's
error (`make mutate MODULE=attempts`).

The client's tests reach :class:`Attempts` through hostile servers and loads; these drive it
directly, with a real :class:`LoadControl` (its breaker counts, its stop switch) and the
failures the client raises (:class:`Transient`), value by value: the wait, the counts told to
the breaker, the error's type, message and fields.
"""

from __future__ import annotations

import datetime as dt
import random
import re

import pytest
import time_machine

from icoframes.api.attempts import Attempts, _seconds
from icoframes.api.control import Cancelled, LoadControl
from icoframes.api.retry import ANSWERS_REFUSED, RetryPolicy, Transient
from icoframes.errors import BadResponse, ServiceUnavailable

POLICY = RetryPolicy(max_attempts=3, backoff=0.1, max_backoff=0.3, max_elapsed=60,
                     max_asked_wait=5)
ITEM = ("ico", 7)
PATH = "/api/v1/ico/"


def _attempts(policy: RetryPolicy = POLICY, control: LoadControl | None = None) -> Attempts:
    attempts = Attempts(policy, control or LoadControl(), ITEM, PATH)
    attempts.begin()
    return attempts


def _busy(wait: float | None = None, **kwargs: object) -> Transient:
    failure = Transient("HTTP 503", **kwargs)  # type: ignore[arg-type]
    failure.retry_after = wait
    return failure


def test_a_new_request_has_made_no_attempt_and_begin_counts_one():
    attempts = Attempts(POLICY, LoadControl(), ITEM, PATH)
    assert (attempts.count, attempts.refused, attempts.cut) == (0, 0, None)
    assert attempts.policy is POLICY and attempts.item == ITEM and attempts.path == PATH
    attempts.begin()
    attempts.begin()
    assert attempts.count == 2


def test_begin_raises_once_the_load_stopped():
    control = LoadControl()
    attempts = Attempts(POLICY, control, ITEM, PATH)
    control.halt()
    with pytest.raises(Cancelled, match=r"^the load was cancelled$"):
        attempts.begin()
    assert attempts.count == 1


@pytest.mark.parametrize("count", [1, 2])
def test_a_failure_waits_the_backoff_and_is_counted_by_the_breaker(count):
    control = LoadControl()
    attempts = Attempts(POLICY, control, ITEM, PATH)
    for _ in range(count):
        attempts.begin()
    random.seed(5)
    expected = POLICY.wait(count - 1)
    random.seed(5)
    assert attempts.after(_busy()) == expected
    assert control.in_a_row == 1 and control.items_failing == 1 and control.items_refused == 0
    assert control.last_failure == "HTTP 503" and control.unsent_in_a_row == 0
    assert control.retry_after is None


def test_an_unsent_failure_is_counted_as_unsent():
    control = LoadControl()
    _attempts(control=control).after(Transient("connection refused", sent=False))
    assert control.unsent_in_a_row == 1


def test_a_wait_asked_longer_than_the_backoff_is_the_wait_and_told_to_the_breaker():
    control = LoadControl()
    now = dt.datetime(2026, 5, 4, 10, 0, tzinfo=dt.UTC)
    with time_machine.travel(now, tick=False):
        assert _attempts(control=control).after(_busy(4.0)) == 4.0
    assert control.retry_after is not None
    until, wait = control.retry_after
    assert wait == 4.0 and until == now.timestamp() + 4.0


def test_a_wait_asked_shorter_than_the_backoff_leaves_the_backoff():
    random.seed(1)
    expected = POLICY.wait(0)
    random.seed(1)
    assert _attempts().after(_busy(0.0)) == expected


def test_a_wait_asked_of_exactly_the_longest_wait_is_waited():
    assert _attempts().after(_busy(5.0)) == 5.0


@pytest.mark.parametrize(("wait", "said"), [(5.5, "6 s"), (120.0, "120 s"),
                                            (86_400.0, "more than a day")])
def test_a_wait_asked_past_the_longest_wait_ends_the_retries_and_says_so(wait, said):
    control = LoadControl()
    with pytest.raises(ServiceUnavailable) as info:
        _attempts(control=control).after(_busy(wait))
    error = info.value
    assert type(error) is ServiceUnavailable and error.endpoint == PATH
    assert re.fullmatch(re.escape(f"{PATH}: gave up after 1 attempts in ") + r"\d+\.\d s"
                        + re.escape(f" (the service asked to wait {said} before another try, "
                                    "Retry-After, longer than the retry policy's "
                                    "max_asked_wait of 5 s); last failure: HTTP 503"),
                        str(error))
    assert error.last_failure == "HTTP 503"
    assert control.in_a_row == 1 and control.retry_after is not None  # counted all the same


def test_a_wait_asked_past_the_policys_time_ends_the_retries_and_says_so():
    policy = RetryPolicy(max_attempts=3, backoff=0.1, max_backoff=0.3, max_elapsed=30,
                         max_asked_wait=60)
    assert _attempts(policy).after(_busy(29.0)) == 29.0  # (within its time: waited)
    with pytest.raises(ServiceUnavailable, match=re.escape(
            " (the service asked to wait 31 s before another try, Retry-After, past the retry "
            "policy's 30 s); last failure: HTTP 503")):
        _attempts(policy).after(_busy(31.0))


def test_the_last_attempt_gives_up_with_the_count_and_the_last_failure():
    attempts = _attempts()
    attempts.after(_busy())
    attempts.begin()
    attempts.after(_busy())
    attempts.begin()
    with pytest.raises(ServiceUnavailable) as info:
        attempts.after(Transient("timed out"))
    assert re.fullmatch(re.escape(f"{PATH}: gave up after 3 attempts in ") + r"\d+\.\d s; "
                        "last failure: timed out", str(info.value))
    assert info.value.last_failure == "timed out" and info.value.__context__ is None
    assert attempts.control.items_failing == 1 and attempts.control.in_a_row == 3  # one item


def test_items_failing_together_give_up_early_each_by_its_name():
    control = LoadControl()
    policy = RetryPolicy(max_attempts=6, backoff=0.001, max_backoff=0.002)
    items = [Attempts(policy, control, ("ico", i), PATH) for i in (1, 2, 3)]
    for attempts in items + items:  # 6 failures in a row of 3 items retrying together
        attempts.begin()
        attempts.after(_busy())
    items[0].begin()
    items[0].after(_busy())  # the 7th
    items[1].begin()
    with pytest.raises(ServiceUnavailable, match=r"gave up after 3 attempts"):
        items[1].after(_busy())  # the 8th, 3 items retrying: given up early (policy: 6), no
    items[2].begin()  # retry of the first so found: failing together, they show the outage
    with pytest.raises(ServiceUnavailable, match=r"gave up after 3 attempts"):
        items[2].after(_busy())  # the next item's next failure too


def test_the_policys_time_ends_the_retries_without_a_note():
    policy = RetryPolicy(max_attempts=6, backoff=1.0, max_backoff=1.0, max_elapsed=0.4)
    with pytest.raises(ServiceUnavailable, match=r"gave up after 1 attempts in \d+\.\d s; last "):
        _attempts(policy).after(_busy())
    # a short ask within the policy's time past its end: the policy's time, no note
    with pytest.raises(ServiceUnavailable, match=r"in \d+\.\d s; last failure: HTTP 503$"):
        _attempts(policy).after(_busy(0.1))


def test_a_failure_the_breaker_gives_up_is_not_retried():
    control = LoadControl()
    for other in range(3):  # 3 items retrying together, 8 failures in a row
        for _ in range(3):
            control.failed("HTTP 503", item=("ico", other))
        control.keep_trying(("ico", other), True)
    with pytest.raises(ServiceUnavailable, match=r"gave up after 1 attempts"):
        _attempts(control=control).after(_busy())


def test_a_wrong_answer_is_the_items_and_asked_again_once():
    control = LoadControl()
    attempts = _attempts(control=control)
    wrong = Transient("HTTP 200: data is null", rejected=True, answered=True)
    assert attempts.after(wrong) >= 0
    assert attempts.refused == 1 and control.items_refused == 1 and control.in_a_row == 0
    attempts.begin()
    with pytest.raises(BadResponse) as info:
        attempts.after(wrong)
    assert attempts.refused == ANSWERS_REFUSED == 2
    assert control.items_refused == 1  # one item, answered wrongly twice
    assert control.last_failure == "HTTP 200: data is null"
    error = info.value
    assert type(error) is BadResponse and error.reason == "HTTP 200: data is null"
    assert error.code is None and error.endpoint == PATH
    assert error.last_failure == "HTTP 200: data is null"
    assert str(error).startswith(f"{PATH}: gave up after 2 attempts in ")


def test_a_refused_answer_not_answered_is_a_bad_response_counted_as_a_failure():
    control = LoadControl()
    attempts = _attempts(RetryPolicy(max_attempts=1), control)
    with pytest.raises(BadResponse):
        attempts.after(Transient("HTTP 200: too large", rejected=True))
    assert control.in_a_row == 1 and control.items_refused == 0 and attempts.refused == 0


def test_a_wrong_answer_is_not_asked_again_when_other_items_are_answered_wrongly():
    control = LoadControl()
    for other in (1, 2):
        control.refused("HTTP 200: data is null", item=("ico", other))
    with pytest.raises(BadResponse, match=r"gave up after 1 attempts"):
        _attempts(control=control).after(
            Transient("HTTP 200: data is null", rejected=True, answered=True))


def test_an_error_about_the_item_is_final_with_its_code():
    control = LoadControl()
    final = Transient("HTTP 404: not found", rejected=True, answered=True, final=True, code=404)
    with pytest.raises(BadResponse) as info:
        _attempts(control=control).after(final)
    error = info.value
    assert str(error) == f"{PATH}: HTTP 404: not found" and error.code == 404
    assert error.reason == "HTTP 404: not found" and control.items_refused == 1


def test_after_a_stop_a_failure_is_not_retried_nor_counted():
    control = LoadControl()
    attempts = _attempts(control=control)
    control.halt()
    with pytest.raises(Cancelled):
        attempts.after(_busy())
    assert control.in_a_row == 0


def test_after_a_stop_an_error_about_the_item_is_still_its_answer_not_counted():
    control = LoadControl()
    attempts = _attempts(control=control)
    control.halt()
    final = Transient("HTTP 404: not found", rejected=True, answered=True, final=True, code=404)
    with pytest.raises(BadResponse, match=f"^{PATH}: HTTP 404: not found$"):
        attempts.after(final)
    assert control.items_refused == 0 and attempts.refused == 0


def _cut(body: bytes) -> Transient:
    failure = Transient("HTTP 200: the body is not JSON", rejected=True)
    failure.cut = body
    return failure


def test_a_body_cut_is_retried_as_a_cut_in_transit():
    control = LoadControl()
    attempts = _attempts(control=control)
    attempts.after(_cut(b'{"error":null,"da'))
    attempts.begin()
    attempts.after(_cut(b'{"error":null,"da'))  # the same twice, no earlier failure: transit
    assert attempts.cut == b'{"error":null,"da' and attempts.refused == 0
    assert control.in_a_row == 2


def test_the_same_cut_twice_after_a_failed_load_is_the_items_answer():
    control = LoadControl()
    control.known_bad(ITEM, "HTTP 200: the body is not JSON")
    attempts = _attempts(RetryPolicy(max_attempts=6, backoff=0.1, max_backoff=0.3), control)
    attempts.after(_cut(b'{"a'))
    attempts.begin()
    attempts.after(_cut(b'{"b'))  # another cut: transit again
    assert attempts.refused == 0 and attempts.cut == b'{"b'
    attempts.begin()
    with pytest.raises(BadResponse) as info:
        attempts.after(_cut(b'{"b'))
    assert attempts.refused == 2  # the first cut counted too: the item's answer, twice
    assert " (the same body cut short twice, after a failed load: its answer); last " \
        "failure: HTTP 200: the body is not JSON" in str(info.value)


def test_a_cut_after_a_wrong_answer_adds_to_its_count():
    control = LoadControl()
    control.known_bad(ITEM, "HTTP 200: the body is not JSON")
    attempts = _attempts(RetryPolicy(max_attempts=6, backoff=0.1, max_backoff=0.3), control)
    attempts.after(Transient("HTTP 200: data is null", rejected=True, answered=True))
    assert attempts.refused == 1
    attempts.begin()
    attempts.after(_cut(b'{"a'))
    attempts.begin()
    with pytest.raises(BadResponse):
        attempts.after(_cut(b'{"a'))
    assert attempts.refused == 3  # the wrong answer, the first cut, the second


def test_a_wait_is_said_in_seconds_up_to_a_day():
    assert _seconds(0) == "0 s" and _seconds(59.6) == "60 s" and _seconds(86_399) == "86399 s"
    assert _seconds(86_400) == "more than a day" and _seconds(1e12) == "more than a day"

"""api/retry.py: whether a failed request may have been counted (never_sent), the short cause
of a transport failure, and the retry waits (`make mutate MODULE=retry`).

The failures are real where loopback can make them: a refused connection (nothing listens on
port 9) and a read timeout (a socket that listens and never answers). A connect timeout and
deeper exception chains cannot be made on loopback: those are built by hand.
"""

from __future__ import annotations

import random
import socket

import pytest
import requests
import urllib3

from icoframes.api.retry import (
    WAIT_STATUSES,
    RetryPolicy,
    Transient,
    never_sent,
    retry_after,
    transport_reason,
)


def _failure(url: str, **kwargs: object) -> requests.RequestException:
    with requests.Session() as session, pytest.raises(requests.RequestException) as info:
        session.post(url, data=b"{}", **kwargs)  # type: ignore[arg-type]
    return info.value


def test_a_refused_connection_was_never_sent_and_says_so():
    exc = _failure("http://127.0.0.1:9/v1/icos/all", timeout=5)
    assert isinstance(exc, requests.ConnectionError)
    assert never_sent(exc) is True
    assert transport_reason(exc) == "connection refused"


def test_a_read_timeout_may_have_been_counted_and_is_timed_out():
    with socket.socket() as listening:  # accepts nothing: the request is sent, no answer
        listening.bind(("127.0.0.1", 0))
        listening.listen(1)
        port = listening.getsockname()[1]
        exc = _failure(f"http://127.0.0.1:{port}/v1/icos/all", timeout=(5, 0.2))
    assert isinstance(exc, requests.ReadTimeout)
    assert never_sent(exc) is False
    assert transport_reason(exc) == "timed out"


def test_a_connect_timeout_was_never_sent():
    assert never_sent(requests.ConnectTimeout("connect timed out")) is True


def _chain(depth: int) -> BaseException:
    """A NewConnectionError wrapped ``depth - 1`` times, alternately by reason and by args."""
    exc: BaseException = urllib3.exceptions.NewConnectionError(None, "refused")  # type: ignore[arg-type]
    for level in range(depth - 1):
        if level % 2:
            exc = requests.ConnectionError(exc)
        else:
            exc = urllib3.exceptions.MaxRetryError(None, "/", reason=exc)  # type: ignore[arg-type]
    return exc


def test_never_sent_follows_six_links_of_wrapping_and_no_more():
    assert [never_sent(_chain(depth)) for depth in range(1, 9)] == [True] * 6 + [False] * 2


@pytest.mark.parametrize("exc", [
    requests.ConnectionError(),  # nothing wrapped
    requests.ConnectionError("connection reset by peer"),  # wraps text only
    requests.exceptions.ChunkedEncodingError(urllib3.exceptions.ProtocolError("broken")),
    OSError(),
])
def test_a_failure_that_may_have_left_is_not_never_sent(exc):
    assert never_sent(exc) is False


@pytest.mark.parametrize(("exc", "reason"), [
    (requests.Timeout("whatever"), "timed out"),
    (urllib3.exceptions.ReadTimeoutError(None, "/", "x"), "timed out"),  # type: ignore[arg-type]
    (OSError("Read Timed Out."), "timed out"),  # any type, by its text in any case
    (OSError("[Errno 111] Connection REFUSED"), "connection refused"),
    (requests.exceptions.ChunkedEncodingError("broke off"), "ChunkedEncodingError"),
    (ValueError(), "ValueError"),
])
def test_transport_reason(exc, reason):
    assert transport_reason(exc) == reason


def _waits(policy: RetryPolicy, retry_number: int, n: int = 400) -> list[float]:
    state = random.getstate()
    random.seed(20181126)
    try:
        return [policy.wait(retry_number) for _ in range(n)]
    finally:
        random.setstate(state)


@pytest.mark.parametrize(("retry_number", "cap"), [(0, 0.2), (1, 0.4), (3, 1.6), (4, 3.2),
                                                   (5, 5.0), (30, 5.0), (1100, 5.0)])
def test_waits_double_up_to_the_cap_each_between_half_and_all_of_it(retry_number, cap):
    waits = _waits(RetryPolicy(), retry_number)
    assert all(cap / 2 <= w <= cap for w in waits)
    # spread over the whole range: the jitter that keeps workers out of lockstep
    assert min(waits) < cap * 0.52 and max(waits) > cap * 0.98


def test_waits_follow_the_policys_own_numbers():
    waits = _waits(RetryPolicy(backoff=1.0, max_backoff=3.0), 1)
    assert all(1.0 <= w <= 2.0 for w in waits)
    assert all(1.5 <= w <= 3.0 for w in _waits(RetryPolicy(backoff=1.0, max_backoff=3.0), 2))


# -- Retry-After (RFC 9110 section 10.2.3) ---------------------------------------------------

NOW = 1445412470.0  # 2015-10-21 07:27:50 UTC


@pytest.mark.parametrize(("value", "seconds"), [
    ("120", 120.0), (" 7 ", 7.0), ("0", 0.0), ("000000000042", 42.0), ("999999999999", 1e12 - 1),
    ("9999999999999", 1e12), ("9" * 5000, 1e12),  # more than 12 digits: ages, no huge int
    ("Wed, 21 Oct 2015 07:28:00 GMT", 10.0), ("Wed, 21 Oct 2015 07:28:00 +0000", 10.0),
    ("Wed, 21 Oct 2015 09:28:00 +0200", 10.0), ("Wed, 21 Oct 2015 07:28:00 -0000", 10.0),
    ("Wed, 21 Oct 2015 07:28:00", 10.0),  # no zone: read as UTC
    ("Wed, 21 Oct 2015 07:27:40 GMT", 0.0), ("Wed, 21 Oct 2015 07:27:50 GMT", 0.0),  # past
    ("Wed, 21 Oct 2015 07:27:51 GMT", 1.0),
])
def test_retry_after_reads_seconds_and_dates(value, seconds):
    assert retry_after(value, now=NOW) == seconds


@pytest.mark.parametrize("value", [None, "", "  ", "soon", "-5", "+5", "1.5", "1e3", "٣",
                                   "1_0", "Wed, 32 Oct 2015 07:28:00 GMT", "Wed, 21"])
def test_retry_after_that_says_no_wait_is_none(value):
    assert retry_after(value, now=NOW) is None


def test_retry_after_reads_a_date_against_this_clock_by_default():
    import datetime as dt

    import time_machine

    with time_machine.travel(dt.datetime(2015, 10, 21, 7, 27, 30, tzinfo=dt.UTC), tick=False):
        assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 30.0
        assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=NOW) == 10.0


def test_a_transient_failure_carries_no_wait_and_no_cut_until_told():
    failure = Transient("HTTP 503")
    assert failure.retry_after is None and failure.cut is None
    assert sorted(WAIT_STATUSES) == [429, 503]

"""A rate limiter's 429 with ``Retry-After``, its wait honoured, spends no attempt of the item's
(REVD M3).

A limiter lets a share of the requests through and answers the others 429, asking a wait. Each
such answer cost the item one of the retry policy's ``max_attempts`` (6): an item refused six
times in a row, a moment before its turn, was given up and reported failed, its row lost (REVD:
a token bucket of 3 requests/s, 8 workers, 60 profiles: 7-12 rows lost). Its turn comes: a 429
whose asked wait was honoured is no try of the item's, and the retry policy's ``max_elapsed``
bounds them (a longer ask than ``max_asked_wait`` still ends the retries at once, and a run of
asks in a row still trips the breaker). Real loopback HTTP; the limiter counts requests, not
time: one worker, every count exact.
"""

from __future__ import annotations

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes
from icoframes.api.client import Client, RetryPolicy
from icoframes.api.control import BREAKER_FAILURES
from icoframes.errors import ServiceUnavailable

pytestmark = pytest.mark.usefixtures("quick_retries")

N = 24
THROUGH = 8  # the limiter lets one request in 8 through: each item is refused 7 times first


def _limiter(through=THROUGH, after="0"):
    """Lets every ``through``-th request through (the profile asked), and answers the others
    429 asking ``after`` seconds, as a limiter at 1/``through`` of the client's pace."""
    count = [0]

    def behaviour(h):
        count[0] += 1
        ico = int(h.request_json()["id"])
        if count[0] % through:
            return h.send_bytes(429, b"<html>slow down</html>", {"Retry-After": after},
                                "text/html")
        json_reply({"error": None, "data": {"id": ico, "main": {"name": f"P{ico}"}}})(h)
    return behaviour


def test_a_profile_refused_by_a_rate_limiter_waits_its_turn(configure):
    # each profile is refused 7 times (more than max_attempts), then answered: every row, 8
    # requests each (was: each refused 6 times given up, "HTTP 429" failed, half the rows)
    with HostileServer({LIST: paged_list(N), PROFILE: _limiter()}) as srv:
        configure(srv, max_workers=1)
        icos = icoframes.load_icos(status="past", progress=False)
        assert srv.hits[PROFILE] == N * THROUGH
    assert sorted(icos["id"]) == list(range(1, N + 1))
    assert list(icos["name"]) == [f"P{i}" for i in icos["id"]]
    report = icos.attrs["icoframes"]
    assert report["complete"] is True and report["missing"] == [] and report["failed"] == {}


def test_asks_of_a_rate_limiter_are_bounded_by_max_elapsed():
    # every request refused, asking 1 s; a policy of one attempt and max_elapsed=1.9: the
    # first ask honoured (no attempt spent: was "gave up after 1 attempts"), the second would
    # pass 1.9 s since the first try (1 s was waited): the retries end, the ask said
    policy = RetryPolicy(max_attempts=1, backoff=0.001, max_backoff=0.002, max_elapsed=1.9)
    with HostileServer({PROFILE: _limiter(through=10**9, after="1")}) as srv, \
            Client(**srv.settings(), retry=policy) as client:
        with pytest.raises(ServiceUnavailable, match=r"gave up after 2 attempts in [0-9.]+ s "
                           r"\(the service asked to wait 1 s before another try, "
                           r"Retry-After, past the retry policy's 1.9 s\); last failure: "
                           "HTTP 429"):
            client.profile(1)
        assert srv.hits[PROFILE] == 2


def test_a_rate_limiter_refusing_everything_still_trips_the_breaker(configure):
    # every profile refused (429, Retry-After: 0): BREAKER_FAILURES asks in a row stop the
    # load as before (one item's asks, no longer its 6 attempts, make the run)
    with HostileServer({LIST: paged_list(N), PROFILE: _limiter(through=10**9)}) as srv:
        configure(srv, max_workers=1)
        with pytest.raises(ServiceUnavailable, match=f"the last {BREAKER_FAILURES} each asked "
                           "to wait"):
            icoframes.load_icos(status="past", progress=False)
        assert srv.hits[PROFILE] == BREAKER_FAILURES

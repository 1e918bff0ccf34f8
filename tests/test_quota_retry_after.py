"""Error 485 in a 429 or 503 carrying ``Retry-After``: the wait asked is said (REVB L2).

RFC 6585 gives ``Retry-After`` a meaning on a 429, RFC 9110 on a 503: a daily limit answered
so says when to call again. The ``QuotaExceeded`` of the client and of a load carry it as
``retry_at`` and the load's message says it; it said "The service does not say when its
allowance resets" while the answer had said. On a 200 (no meaning by either RFC) the header
is not read, as for every other answer.
"""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply, list_item

import icoframes
from icoframes.api.client import Client, RetryPolicy
from icoframes.errors import QuotaExceeded

T0 = dt.datetime(2026, 5, 4, 10, 0, tzinfo=dt.UTC)
OUT = {"error": 485, "data": None}


def _listing(h):
    json_reply({"error": None, "data": [list_item(i) for i in range(1, 21)],
                "total_icos": 20, "total_pages": 1, "current_page": 1})(h)


def _out(status: int, wait: str | None):
    return json_reply(OUT, status) if wait is None else _headers(status, {"Retry-After": wait})


def _headers(status, headers):
    def behaviour(h):
        h.send_bytes(status, b'{"error": 485, "data": null}', headers)
    return behaviour


@pytest.mark.parametrize(("status", "wait", "then"), [
    (429, "30", T0 + dt.timedelta(seconds=30)),
    (503, "Mon, 04 May 2026 12:00:00 GMT", T0 + dt.timedelta(hours=2)),
])
def test_a_daily_limit_asking_a_wait_says_when_to_call_again(configure, status, wait, then):
    with HostileServer({LIST: _listing, PROFILE: _out(status, wait)}) as srv, \
            time_machine.travel(T0, tick=False):
        configure(srv, max_workers=1)
        with pytest.raises(QuotaExceeded) as info:
            icoframes.load_icos(status="past", progress=False)
        assert srv.hits[PROFILE] == 1
    error = info.value
    assert error.retry_at == then and error.code == 485
    assert str(error).endswith(
        f"The service asked to be called again after {then:%Y-%m-%d %H:%M:%S} UTC "
        "(Retry-After), not saying whether its allowance resets then: the next call sends one "
        "request first (a probe, costing one request) and goes on if it is accepted, so call "
        "the same loader again then to fetch only the rest. The requests above are counted "
        "from 00:00 UTC: the service's own day may begin at another hour, and count requests "
        "sent before it; if it resets at a known time, set quota_reset.")


@pytest.mark.parametrize(("status", "wait"), [(200, "30"), (429, None), (429, "soon")])
def test_a_daily_limit_without_a_wait_it_means_says_it_does_not_say(configure, status, wait):
    with HostileServer({LIST: _listing, PROFILE: _out(status, wait)}) as srv:
        configure(srv, max_workers=1)
        with pytest.raises(QuotaExceeded) as info:
            icoframes.load_icos(status="past", progress=False)
    assert info.value.retry_at is None
    assert "The service does not say when its allowance resets" in str(info.value)


def test_the_clients_quota_error_carries_the_wait_asked():
    with HostileServer({PROFILE: _out(429, "120")}) as srv, \
            time_machine.travel(T0, tick=False), \
            Client(**srv.settings(), retry=RetryPolicy(max_attempts=3)) as client:
        with pytest.raises(QuotaExceeded) as info:
            client.profile(1)
        assert srv.hits[PROFILE] == 1  # never retried
    assert info.value.retry_at == T0 + dt.timedelta(minutes=2)

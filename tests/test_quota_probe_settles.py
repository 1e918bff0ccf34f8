"""The probe after a 485 on record, against a real server on 127.0.0.1 (REVD M4).

After a refusal each call sends its first request alone, the probe, and the others wait for
its answer (docs/guide/quota.md: "a probe costs one request, at most one per call"):

- M4: a probe that got no answer (an HTML 503, a connection closed before the answer, a
  timeout) let the next request go as another probe, one at a time, each waited for: 25
  probes in a call before the breaker stopped it, a timeout each (12 minutes at the default
  30 s). Now it ends the call: ``QuotaExceeded`` saying so, the 485 still on record, one
  request sent; the next call probes again.

Run 1 of each test (one worker) records the refusal: 3 profiles answered, the 4th refused.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from hostile import LIST, PROFILE, Behaviour, HostileServer, html_reply, json_reply, paged_list
from waiting import HANG_GUARD

import icoframes
from icoframes.errors import QuotaExceeded

NOON = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)  # one ledger day, whenever it runs
UNANSWERED = (
    "This call's probe (its first request, sent alone) got no answer from the service (it "
    "timed out or broke off, or came back without the service's JSON, such as an HTML 503 "
    "page), so the refusal stays on record and the call sent nothing more: the next call "
    "sends one request first (a probe, costing one request) and goes on if it is accepted, "
    "so call the same loader again later to fetch only the rest.")


@pytest.fixture
def configured(tmp_path):
    def use(srv: HostileServer, **settings: Any) -> None:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache", **settings)
    yield use
    icoframes.reset_configuration()


def _profile(h) -> None:
    asked = h.request_json().get("id")
    json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)


class _Profiles:
    """Profiles: 3 answered, the 4th refused (485); then, in run 2, ``then``'s answer."""

    def __init__(self) -> None:
        self.then: Behaviour | None = None

    def __call__(self, h) -> None:
        if self.then is not None:
            self.then(h)
        elif h.server.owner.hits[PROFILE] <= 3:
            _profile(h)
        else:
            json_reply({"error": 485})(h)


def _refused(srv: HostileServer, configured) -> None:
    configured(srv, max_workers=1)
    with pytest.raises(QuotaExceeded):
        icoframes.load_icos(status="past", progress=False)
    assert dict(srv.hits) == {LIST: 1, PROFILE: 4}
    assert icoframes.cache_info().quota.refused_after == 5


def _closed_unanswered(h) -> None:
    h.close_connection = True  # the request read, then the connection closed: no answer


def _held_until_the_server_stops(h) -> None:
    h.server.owner.stopping.wait(HANG_GUARD)  # past the client's timeout: no answer


@pytest.mark.parametrize(("answer", "timeout"), [
    (html_reply(503, "Service Unavailable"), 30.0),
    (_closed_unanswered, 30.0),
    (_held_until_the_server_stops, 0.2),
], ids=["html-503", "closed", "timed-out"])
def test_a_probe_that_gets_no_answer_ends_the_call_after_one_request(
        configured, quick_retries, answer, timeout):
    profiles = _Profiles()
    with HostileServer({LIST: paged_list(20), PROFILE: profiles}) as srv, \
            time_machine.travel(NOON, tick=True):
        _refused(srv, configured)
        profiles.then = answer
        configured(srv, max_workers=4, timeout=timeout)
        with pytest.raises(QuotaExceeded) as caught:
            icoframes.load_icos(status="past", progress=False)
        # one request: the probe (on main each request after it probed again, one at a time,
        # until the breaker stopped the call: ServiceUnavailable after 30 or so)
        assert dict(srv.hits) == {LIST: 1, PROFILE: 5}
        quota = icoframes.cache_info().quota
        assert (quota.sent, quota.refused_after) == (6, 5)  # counted; the 485 still on record
        assert quota.refused_at is not None
        stop = caught.value
        assert (stop.code, stop.remaining) == (485, 17)
        assert str(stop).startswith("the service refused this key: its daily request limit "
                                    "(error 485) was reached at 12:00 UTC, after 5 requests")
        assert str(stop).endswith(UNANSWERED), str(stop)
        cause = str(stop.__cause__)
        assert cause.endswith("; this call's probe (its first request since) got no answer, "
                              "so the refusal stays on record and the call sends nothing more")
        # the next call probes again: accepted, it goes on and fetches the rest
        profiles.then = _profile
        frame = icoframes.load_icos(status="past", progress=False)
        assert len(frame) == 20 and frame["id"].tolist() == list(range(1, 21))
        assert dict(srv.hits) == {LIST: 1, PROFILE: 22}
        quota = icoframes.cache_info().quota
        assert (quota.sent, quota.refused_at, quota.refused_after) == (23, None, None)

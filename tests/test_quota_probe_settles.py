"""The probe after a 485 on record, against a real server on 127.0.0.1 (REVD M4, M5, REVI).

After a refusal each call sends its first request alone, the probe, and the others wait for
its answer (docs/guide/quota.md: "a probe costs one request, at most one per call"):

- M4: a probe that got no answer (an HTML 503, a connection closed before the answer, a
  timeout) let the next request go as another probe, one at a time, each waited for: 25
  probes in a call before the breaker stopped it, a timeout each (12 minutes at the default
  30 s). Now a probe that timed out ends the call (one request), and so does the third in a
  row without an answer: the service is not answering, so ``ServiceUnavailable`` saying so
  (an outage, not the daily limit's ``QuotaExceeded``), the 485 still on record; the next
  call probes again.
- REVI: ending the call at the first probe without an answer (2c1f6b1) made one blip of a
  service back at work (an HTML 503, a 429 asking to wait) a daily-limit stop after one
  request. Now the next request probes again: the call fetches everything.
- M5: the others waited for the probe at most ``_PROBE_WAIT`` (120 s, shorter than the
  allowed ``timeout``), then were refused as if by the service's 485: a slow probe that the
  service then accepted still stopped the load. Now they wait for its answer, however long.

Run 1 of each test (one worker) records the refusal: 3 profiles answered, the 4th refused.
The ordering of run 2 is made by events, no sleep: the probe's answer waits until another
worker is waiting for it.
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import time_machine
from hostile import LIST, PROFILE, Behaviour, HostileServer, html_reply, json_reply, paged_list
from waiting import HANG_GUARD

import icoframes
from icoframes.errors import QuotaExceeded, ServiceUnavailable
from icoframes.store import ledger as ledger_module

NOON = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)  # one ledger day, whenever it runs
UNANSWERED = (
    " is not answering: the service refused this key with error 485 (its daily request limit) "
    "at 2026-03-02 12:00 UTC, and this call's probe (its first request since, sent alone) "
    "timed out, or it and the next two sent alone each broke off or came back without the "
    "service's JSON, such as an HTML 503 page (last: {last}), so the call sent nothing more. "
    "Everything fetched is cached. That refusal stays on record (whether the allowance is "
    "back is not known): the next call sends one request first (a probe, costing one "
    "request) and goes on if it is accepted; call again later to fetch only the rest.")


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


@pytest.mark.parametrize(("answer", "timeout", "probes", "last"), [
    (html_reply(503, "Service Unavailable"), 30.0, 3, "HTTP 503"),
    (_closed_unanswered, 30.0, 3, None),  # (the transport's words for a closed connection)
    (_held_until_the_server_stops, 0.2, 1,
     "timed out"),  # (": no whole response within ..." when the watchdog wins the race)
], ids=["html-503", "closed", "timed-out"])
def test_probes_that_get_no_answer_end_the_call(
        configured, quick_retries, answer, timeout, probes, last):
    """Three in a row without an answer, or one that timed out (a hanging service: a timeout
    of waiting per call, not one per probe)."""
    profiles = _Profiles()
    with HostileServer({LIST: paged_list(20), PROFILE: profiles}) as srv, \
            time_machine.travel(NOON, tick=True):
        _refused(srv, configured)
        profiles.then = answer
        configured(srv, max_workers=4, timeout=timeout)
        with pytest.raises(ServiceUnavailable) as caught:  # an outage, not the daily limit
            icoframes.load_icos(status="past", progress=False)
        # the probes, one at a time (on 9ad5469 each request after them probed again, one at a
        # time, until the breaker stopped the call: ServiceUnavailable after 30 or so)
        assert dict(srv.hits) == {LIST: 1, PROFILE: 4 + probes}
        quota = icoframes.cache_info().quota
        assert (quota.sent, quota.refused_after) == (5 + probes, 5)  # counted; 485 on record
        assert quota.refused_at is not None
        stop = caught.value
        assert not isinstance(stop, QuotaExceeded) and stop.last_failure
        assert last is None or stop.last_failure.startswith(last)
        host = srv.base_url.removeprefix("http://")
        assert str(stop) == host + UNANSWERED.format(last=stop.last_failure)
        cause = str(stop.__cause__)
        assert cause.endswith("; this call's probe (its first request since, sent alone) "
                              "timed out, or 3 in a row got no answer, so the refusal stays "
                              "on record and the call sends nothing more")
        # the next call probes again: accepted, it goes on and fetches the rest
        profiles.then = _profile
        configured(srv, max_workers=4)  # (the default timeout: only the probe was to time out)
        frame = icoframes.load_icos(status="past", progress=False)
        assert len(frame) == 20 and frame["id"].tolist() == list(range(1, 21))
        assert dict(srv.hits) == {LIST: 1, PROFILE: 21 + probes}
        quota = icoframes.cache_info().quota
        assert (quota.sent, quota.refused_at, quota.refused_after) == (22 + probes, None, None)


def _asked_to_wait(h) -> None:  # the service is up, its error field text, not a code
    h.send_bytes(429, b'{"error": "slow down"}', {"Retry-After": "0"})


@pytest.mark.parametrize(("blips", "answer"), [
    (1, html_reply(503, "Service Unavailable")),
    (2, _closed_unanswered),
    (1, _asked_to_wait),
    (4, _asked_to_wait),
], ids=["html-503", "closed-twice", "429", "429-4-times"])
def test_a_service_back_whose_first_answers_fail_is_probed_again_and_fetched(
        configured, quick_retries, blips, answer):
    """REVI: one failure of the probe (2c1f6b1: QuotaExceeded after 1 request, the refusal
    kept; 9ad5469: 18 requests, 20 rows) ended the call; an ask to wait (HTTP 429 with a
    Retry-After) is an answer, never counted among the probes without one."""
    profiles = _Profiles()
    with HostileServer({LIST: paged_list(20), PROFILE: profiles}) as srv, \
            time_machine.travel(NOON, tick=True):
        _refused(srv, configured)
        failures = iter([answer] * blips)
        profiles.then = lambda h: next(failures, _profile)(h)
        configured(srv, max_workers=4)
        frame = icoframes.load_icos(status="past", progress=False)
        assert len(frame) == 20 and frame["id"].tolist() == list(range(1, 21))
        assert frame["name"].tolist() == [f"P{i}" for i in range(1, 21)]
        assert dict(srv.hits) == {LIST: 1, PROFILE: 4 + blips + 17}  # each failure, then 17
        quota = icoframes.cache_info().quota
        assert (quota.sent, quota.refused_at, quota.refused_after) == (22 + blips, None, None)


def _waiting_for_the_probe(waiting: threading.Event):
    """A profile hook: ``waiting`` is set when a thread starts waiting in the ledger's take."""
    wait = threading.Condition.wait.__code__

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is wait and frame.f_back is not None and (
                frame.f_back.f_code.co_name == "take"
                and Path(frame.f_back.f_code.co_filename).name == "ledger.py"):
            waiting.set()
    return hook


def test_the_others_wait_for_a_slow_probe_and_go_on_once_it_is_accepted(
        configured, monkeypatch):
    # main gave up the wait after _PROBE_WAIT (120 s; 0 here, so that it shows without a
    # probe slower than 120 s) and refused the request as the service's 485: the load
    # stopped with QuotaExceeded although the probe was accepted. The cap is gone now
    # (raising=False: the setting has nothing to set)
    monkeypatch.setattr(ledger_module, "_PROBE_WAIT", 0.0, raising=False)
    waiting = threading.Event()

    def slow_probe(h) -> None:
        assert waiting.wait(HANG_GUARD)  # answered once another worker waits for it
        _profile(h)

    profiles = _Profiles()
    with HostileServer({LIST: paged_list(20), PROFILE: profiles}) as srv, \
            time_machine.travel(NOON, tick=True):
        _refused(srv, configured)
        probes = iter([slow_probe])
        profiles.then = lambda h: next(probes, _profile)(h)
        configured(srv, max_workers=4)
        threading.setprofile(_waiting_for_the_probe(waiting))  # the load's workers, new
        try:
            frame = icoframes.load_icos(status="past", progress=False)
        finally:
            threading.setprofile(None)  # type: ignore[arg-type]
        assert waiting.is_set()
        assert len(frame) == 20 and frame["id"].tolist() == list(range(1, 21))
        assert dict(srv.hits) == {LIST: 1, PROFILE: 21}  # the 4 of run 1, the probe, 16
        quota = icoframes.cache_info().quota
        assert (quota.sent, quota.refused_at, quota.refused_after) == (22, None, None)

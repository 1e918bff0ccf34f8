"""The breaker is for a service that is down, not for a few bad items (issue 19, part 3).

Failures concentrated on a few ids (HTTP 503 for good, bodies over the cap, a profile
the gate rejects) end as those ids' failures, reported in ``missing`` and retried by
the next call, while the rest of the load completes, on the first call and the next.
A service failing everywhere still stops the load after a bounded number of requests.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, paged_list
from waiting import HANG_GUARD

import icoframes
from icoframes.api.control import BREAKER_ITEMS, SUSPECT_FAILURES, LoadControl
from icoframes.errors import IncompleteWarning, ServiceUnavailable


def _profiles(bad, failure):
    """Profiles echo the id asked; the ``bad`` ids answer with ``failure`` instead."""
    def behaviour(h):
        asked = h.request_json().get("id")
        if asked in bad:
            failure(h)
            return
        json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)
    return behaviour


def _oversized(h):
    """A well-formed profile padded past the 4 MiB body cap."""
    asked = h.request_json().get("id")
    json_reply({"error": None, "data": {"id": asked, "main": {"name": "x" * (5 << 20)}}})(h)


def _wrong_id(h):
    """Another ICO's profile: the gate rejects it on every attempt."""
    asked = h.request_json().get("id")
    json_reply({"error": None, "data": {"id": asked + 10_000, "main": {"name": "other"}}})(h)


def _load(**kwargs):
    """load_icos in a thread with a hang guard (not a measure)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(icoframes.load_icos, status="past", progress=False,
                           **kwargs).result(timeout=HANG_GUARD)


# the bad ids sit together at the end of the list: once the healthy ones are done,
# nothing but their failures arrives, the hardest case to tell from a service that is down
CASES = {
    "http-503": (56, range(48, 57), html_reply(503, "Service Unavailable"), "HTTP 503"),
    "oversized": (160, range(3, 7), _oversized, "HTTP 200"),
    "gate-rejects": (40, [40], _wrong_id, "not the 40 requested"),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_failures_on_a_few_ids_are_those_ids_failures_on_every_call(configure, case,
                                                                 quick_retries):
    n, bad, failure, reason = CASES[case]
    bad = set(bad)
    with HostileServer({LIST: paged_list(n), PROFILE: _profiles(bad, failure)}) as srv:
        configure(srv, max_workers=8)
        for call in (1, 2):
            before = srv.hits[PROFILE]
            with pytest.warns(IncompleteWarning, match=f"{len(bad)} failed"):
                icos = _load()
            assert sorted(icos["id"]) == sorted(set(range(1, n + 1)) - bad), call
            meta = icos.attrs["icoframes"]
            missing = {m["id"]: m for m in meta["missing"]}
            assert set(missing) == bad and meta["complete"] is False
            assert all(m["state"] == "failed" and reason in m["reason"]
                       for m in missing.values()), missing
            if call == 2:  # the healthy ones are cached: only the bad ones are asked again
                assert 0 < srv.hits[PROFILE] - before <= 6 * len(bad)


def test_a_service_failing_every_profile_still_stops_the_load(configure):
    n = 400
    with HostileServer({LIST: paged_list(n), PROFILE: html_reply(503, "down")}) as srv:
        configure(srv, max_workers=8)
        with pytest.raises(ServiceUnavailable, match="in a row") as info:
            _load()
        # stopped by the breaker: a few attempts on a few ids, not 6 attempts on each of 400
        assert srv.hits[PROFILE] <= BREAKER_ITEMS + 8 * 6
        assert "HTTP 503" in info.value.last_failure
        assert f"on {BREAKER_ITEMS} different requests" in str(info.value)


def test_the_breaker_counts_items_not_attempts():
    control = LoadControl()
    for _ in range(50):  # one item's failures, however many
        control.failed("HTTP 503", item="ico 9")
    assert not control.tripped
    for i in range(BREAKER_ITEMS - 2):
        control.failed("HTTP 503", item=f"ico {i}")
    assert not control.tripped
    control.succeeded()  # a success anywhere: the run is over
    for i in range(BREAKER_ITEMS - 1):
        control.failed("HTTP 503", item=f"ico {100 + i}")
    assert not control.tripped
    control.failed("HTTP 503", item="ico 1000")
    assert control.tripped and control.cancelled


def test_refused_connections_trip_the_breaker_whatever_thelist_item():
    control = LoadControl()
    for _ in range(11):
        control.failed("connection refused", item="page 1", sent=False)
    assert not control.tripped
    control.failed("connection refused", item="page 1", sent=False)
    assert control.tripped


def test_an_item_answered_after_its_failures_no_longer_counts_as_retrying():
    # "a" and "b" fail (503) and try again, then are answered wrongly and given up: they are
    # not retrying any more, so "c" alone failing 8 times in a row keeps its retries (REVC L1:
    # they stayed in the retrying set, and the early give-up came at SUSPECT_ITEMS = 3)
    control = LoadControl()
    for item in ("a", "b"):
        control.failed("HTTP 503", item=item)
        assert control.keep_trying(item, True)
        control.refused("HTTP 200: data is null", item=item)
    for _ in range(SUSPECT_FAILURES):
        control.failed("HTTP 503", item="c")
    assert control.in_a_row >= SUSPECT_FAILURES
    assert control.keep_trying("c", True)  # (was False)

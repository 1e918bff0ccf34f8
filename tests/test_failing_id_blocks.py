"""A block of profiles that always fail is those items' failure, not a service that is down.

"A bad item is that item's failure, reported and retried later" (REV-CM F1). The first 20
profiles of an 80-ICO list (the newest: first in the load's order) always answering HTML 500,
or a body cut short, made 16 different profiles fail with no success between: the breaker
took it for a service that is down and the load raised ``ServiceUnavailable`` with no row,
although the same server had just answered every list page. Now once 3 profiles failed in a
row the load asks ``PROBE_ITEMS`` profiles out of turn, spread over the rest of its plan:
one answered right ends the run. A service failing every profile still stops at 16 different
profiles, the probes among them: no request more than before (27 for one worker).
"""

from __future__ import annotations

from collections import Counter

import pytest
from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, paged_list

import icoframes
from icoframes.api.control import BREAKER_ITEMS, PROBE_ITEMS, LoadControl, profile_item
from icoframes.errors import IncompleteWarning, ServiceUnavailable

pytestmark = pytest.mark.usefixtures("quick_retries")

N, BAD = 80, set(range(1, 21))
MAX_ATTEMPTS = 6  # the default retry policy's


def _cut(h) -> None:
    """A profile whose body stops half way (Content-Length says more), then the close."""
    body = b'{"error": null, "data": {"id": 1, "main": {"name": "cut short"}}}'
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body[:len(body) // 2])
    h.wfile.flush()
    h.close_connection = True


FAILURES = {"html-500": html_reply(500, "Internal Server Error"), "cut-body": _cut}


def _profiles(bad, failure, asked: Counter):
    """Profiles echo the id asked (counted in ``asked``); those in ``bad`` fail so."""
    def behaviour(h):
        ico_id = int(h.request_json()["id"])
        asked[ico_id] += 1
        if ico_id in bad:
            return failure(h)
        json_reply({"error": None, "data": {"id": ico_id, "main": {"name": f"P{ico_id}"}}})(h)
    return behaviour


@pytest.mark.parametrize("workers", [1, 8])
@pytest.mark.parametrize("failure", FAILURES, ids=list(FAILURES))
def test_a_block_of_failing_profiles_met_first_is_their_failure(configure, failure, workers):
    asked: Counter[int] = Counter()
    with HostileServer({LIST: paged_list(N),
                        PROFILE: _profiles(BAD, FAILURES[failure], asked)}) as srv:
        configure(srv, max_workers=workers)
        with pytest.warns(IncompleteWarning, match="20 listed ICO.* have no row: 20 failed"):
            icos = icoframes.load_icos(status="past", progress=False)  # (ServiceUnavailable)
        assert sorted(icos["id"]) == list(range(21, N + 1))
        report = icos.attrs["icoframes"]
        assert {m["id"]: m["state"] for m in report["missing"]} == dict.fromkeys(BAD, "failed")
        assert all(asked[i] == 1 for i in range(21, N + 1))  # every good one once
        assert min(asked[i] for i in BAD) >= 1 and max(asked[i] for i in BAD) <= MAX_ATTEMPTS
        assert report["requests"]["ico"] == srv.hits[PROFILE] == sum(asked.values())


def test_a_service_failing_every_profile_stops_at_16_the_probes_among_them(configure):
    asked: Counter[int] = Counter()
    n = 200
    with HostileServer({LIST: paged_list(n),
                        PROFILE: _profiles(range(1, n + 1), FAILURES["html-500"], asked)}) as srv:
        configure(srv, max_workers=1)  # one at a time: the count is exact
        with pytest.raises(ServiceUnavailable) as info:
            icoframes.load_icos(status="past", progress=False)
        assert (f"{BREAKER_ITEMS + 11} attempts failed in a row on {BREAKER_ITEMS} different "
                f"requests, with no success between ({PROBE_ITEMS} of them profiles asked out "
                "of turn, spread over the rest of the load's lists)") in str(info.value)
        # as before: ids 1 and 2 all their attempts, 3 two (found suspect first), then one
        # each; of the 16, PROBE_ITEMS spread over the 197 left, not the next ids in turn
        assert srv.hits[PROFILE] == 2 * MAX_ATTEMPTS + 2 + (BREAKER_ITEMS - 3) == 27
        assert len(asked) == BREAKER_ITEMS
        probes = sorted(asked)[BREAKER_ITEMS - PROBE_ITEMS:]
        assert probes[0] >= BREAKER_ITEMS and probes[-1] > n - 197 // PROBE_ITEMS


def test_profiles_failing_wait_for_the_probes_before_the_breaker_trips():
    control = LoadControl()
    for i in range(1, BREAKER_ITEMS - PROBE_ITEMS + 1):  # the probes wanted from the 8th
        control.failed("HTTP 500", item=profile_item(i))
    flying = [profile_item(i) for i in (7, 8, 9, 10)]  # 2 of them new: room for 6 probes
    assert not control.tripped and control.probes_wanted(flying) == PROBE_ITEMS - 2
    control.probing([profile_item(100 + k) for k in range(PROBE_ITEMS - 2)])
    for k in range(PROBE_ITEMS - 3):
        control.failed("HTTP 500", item=profile_item(100 + k))
    assert not control.tripped
    assert control.awaiting()
    control.succeeded(profile_item(100 + PROBE_ITEMS - 3))  # one answered right: run over
    assert not control.awaiting()
    assert (control.items_failing, control.tripped) == (0, False)
    for i in range(200, 200 + BREAKER_ITEMS - PROBE_ITEMS):  # a run anew: its own probes
        control.failed("HTTP 500", item=profile_item(i))
    assert control.probes_wanted() == PROBE_ITEMS and not control.tripped
    control.probing([profile_item(300 + k) for k in range(PROBE_ITEMS)])
    for k in range(PROBE_ITEMS):  # all failing: an outage, at the count as without probes
        assert not control.tripped
        control.failed("HTTP 500", item=profile_item(300 + k))
    assert control.tripped and control.probed == PROBE_ITEMS
    assert control.items_failing == BREAKER_ITEMS


def test_no_room_under_the_count_asks_no_probe_and_the_count_trips():
    # 14 workers: 13 profiles in flight when the first fails leave room for 2 probes only;
    # profiles failing before the plan picks the probes trip at the count all the same
    control = LoadControl()
    control.failed("HTTP 500", item=profile_item(1))
    control.failed("HTTP 500", item=profile_item(2))
    assert control.probes_wanted() == 0  # (no attempt in flight: not wanted yet)
    for i in range(3, BREAKER_ITEMS - PROBE_ITEMS + 1):
        control.failed("HTTP 500", item=profile_item(i))
    flying = [profile_item(i) for i in range(BREAKER_ITEMS - PROBE_ITEMS + 1, BREAKER_ITEMS + 1)]
    assert control.probes_wanted(flying) == 0 and not control.tripped
    for i in range(BREAKER_ITEMS - PROBE_ITEMS + 1, BREAKER_ITEMS):
        control.failed("HTTP 500", item=profile_item(i))
    assert not control.tripped
    control.failed("HTTP 500", item=profile_item(BREAKER_ITEMS))
    assert control.tripped and control.items_failing == BREAKER_ITEMS
    early = LoadControl()  # the probes not picked yet: the count trips
    for i in range(1, BREAKER_ITEMS + 1):
        assert not early.tripped
        early.failed("HTTP 500", item=profile_item(i))
    assert early.tripped and early.items_failing == BREAKER_ITEMS


@pytest.mark.parametrize("item", ["page", "anonymous"])
def test_a_run_failing_on_other_requests_than_profiles_trips_at_16_without_probes(item):
    control = LoadControl()
    for i in range(BREAKER_ITEMS):
        assert not control.tripped
        control.failed("HTTP 500", item=("icos", i) if item == "page" else None)
    assert control.tripped and control.probes_wanted() == 0


def test_connections_refused_trip_while_probes_are_pending():
    control = LoadControl()
    for i in range(BREAKER_ITEMS - PROBE_ITEMS):  # (one worker: the probes go from the 8th)
        assert control.probes_wanted() == 0
        control.failed("HTTP 500", item=profile_item(i))
    assert control.probes_wanted() == PROBE_ITEMS
    assert not control.awaiting()  # (none said yet)
    control.probing([profile_item(100 + k) for k in range(PROBE_ITEMS)])
    assert control.awaiting()  # no profile in turn until they are answered
    for _ in range(control.failures):
        control.failed("connection refused", item=profile_item(100), sent=False)
    assert control.tripped

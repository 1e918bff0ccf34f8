"""A load of one worker meets failing items one after another: a few bad ids next to each other
are their failures, and a service that is down stops it within about as many requests as it
stops a load of 8 or 14 workers.

One worker spends an item's retries before it asks the next item, so a run of failures in a row
holds few items for many attempts: two ids a rate limiter always refuses (429 ``Retry-After``)
made 12 asks each, and "a run of 12 asks for two items" stopped the load although the service
answered every other id; an outage answering HTML 503 pages cost 16 items' 6 attempts each (91
requests) where 8 workers' early give-up (8 failures in a row, 3 items) cost 16-18. Real
loopback HTTP; the asked-wait rule's clock is ``asks_outlasted``'s (no wall clock read).
"""

from __future__ import annotations

import pytest
from hostile import LIST, PROFILE, HostileServer, limited_profiles, paged_list

import icoframes
from icoframes.api.control import BREAKER_FAILURES, BREAKER_ITEMS
from icoframes.errors import IncompleteWarning, ServiceUnavailable

pytestmark = pytest.mark.usefixtures("quick_retries", "asks_outlasted")

N = 40
ATTEMPTS = 6  # the retry policy's max_attempts (a 429's honoured asks: 6 turns besides)


def _load_failing(configure, srv, workers: int, bad: set[int]):
    configure(srv, max_workers=workers)
    with pytest.warns(IncompleteWarning, match=f"{len(bad)} failed"):
        icos = icoframes.load_icos(status="past", progress=False)
    assert sorted(icos["id"]) == sorted(set(range(1, N + 1)) - bad)
    missing = icos.attrs["icoframes"]["missing"]
    assert {m["id"] for m in missing} == bad and all(
        m["state"] == "failed" and "HTTP 429" in m["reason"] for m in missing)


@pytest.mark.parametrize("workers", [1, 8])
def test_two_ids_a_limiter_always_refuses_next_to_each_other_are_their_failures(configure,
                                                                                 workers):
    # was ServiceUnavailable "the last 13 each asked to wait" after 9 rows (one worker), or at
    # the end of the load, the rest fetched but none returned (8 workers)
    bad = {10, 11}
    with HostileServer({LIST: paged_list(N), PROFILE: limited_profiles(bad)}) as srv:
        _load_failing(configure, srv, workers, bad)
        if workers == 1:  # id 10: its 12 asks (6 turns, 6 attempts); 11: one, the run of 13
            # would trip but for its items, so it gives up (its next ask tells nothing more)
            assert srv.hits[PROFILE] == N - 2 + 2 * ATTEMPTS + 1


def test_ids_refused_for_good_in_a_row_short_of_the_breakers_items_are_their_failures(
        configure):
    # BREAKER_ITEMS - 1 ids in a row always refused: one ask each after the first's 12
    bad = set(range(5, 5 + BREAKER_ITEMS - 1))
    with HostileServer({LIST: paged_list(N), PROFILE: limited_profiles(bad)}) as srv:
        _load_failing(configure, srv, 1, bad)
        assert srv.hits[PROFILE] == N - len(bad) + 2 * ATTEMPTS + len(bad) - 1


@pytest.mark.parametrize("workers", [1, 8, 14])
def test_an_outage_of_html_503_pages_stops_any_load_within_a_few_dozen_requests(configure,
                                                                                 workers):
    # every profile an HTML 503 page, no Retry-After: one worker spent 16 items' 6 attempts
    # (91 requests, a minute of backoff) before BREAKER_ITEMS items had failed
    def down(h):
        h.request_json()
        h.send_bytes(503, b"<html><body>503 Service Unavailable</body></html>", {},
                     "text/html")

    with HostileServer({LIST: paged_list(N), PROFILE: down}) as srv:
        configure(srv, max_workers=workers)
        with pytest.raises(ServiceUnavailable, match=f"on {BREAKER_ITEMS} different requests"):
            icoframes.load_icos(status="past", progress=False)
        if workers == 1:  # items 1 and 2 their 6 attempts; 8 failures in a row for a third
            # item give each next one up after its first (two bad ids keep their retries, the
            # third one retry: its failing again shows the outage)
            assert srv.hits[PROFILE] == 2 * ATTEMPTS + 2 + BREAKER_ITEMS - 3
        else:  # no more than one worker's, but for the other workers' attempts in flight
            assert srv.hits[PROFILE] <= 2 * ATTEMPTS + 2 + BREAKER_ITEMS - 3 + workers - 1


@pytest.mark.parametrize("workers", [1, 8, 14])
def test_a_service_asking_every_request_to_wait_stops_any_load_within_a_few_dozen(configure,
                                                                                  workers):
    # every profile refused (429, Retry-After: 0): one worker, the first item's 12 asks, then
    # one of each next item until BREAKER_ITEMS (each gives up: the run would trip but for
    # its items); a few items' asks alone never stop a load
    every_id = set(range(1, N + 1))
    with HostileServer({LIST: paged_list(N), PROFILE: limited_profiles(every_id)}) as srv:
        configure(srv, max_workers=workers)
        with pytest.raises(ServiceUnavailable, match="each asked to wait"):
            icoframes.load_icos(status="past", progress=False)
        if workers == 1:  # (more workers: as many as their asks in flight hold the trip)
            assert srv.hits[PROFILE] == BREAKER_FAILURES + BREAKER_ITEMS - 1

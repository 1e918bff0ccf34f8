"""A good id's single blip right after two ids failing for good is retried, not lost.

Once 8 attempts failed in a row for 3 different items, an item is given up early, at its next
failure: with one worker, two ids failing for good (6 attempts each) make the next item's first
failure the 13th in a row for a third item, so a good id there that met one 503 was given up
after that attempt (reported failed, asked again by the next load), where a second attempt
would have loaded it. The run's first item found so now keeps one retry: answered, it ends the
run; failing again, it shows a service failing, and the next items get one attempt each (an
outage costs one worker 27 requests, not 26). Real loopback HTTP; no wall clock read
(``quick_retries``'s backoff of milliseconds; the asked-wait rule's clock is
``asks_outlasted``'s).
"""

from __future__ import annotations

import threading

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, limited_profiles, paged_list

import icoframes
from icoframes.errors import IncompleteWarning

pytestmark = pytest.mark.usefixtures("quick_retries", "asks_outlasted")

N = 40
ATTEMPTS = 6  # the default retry policy's max_attempts (a 429's honoured asks: 6 turns besides)
BAD, BLIP = {10, 11}, 12


def failing_for_good(bad: set[int]):
    """Profiles answered, those of ``bad`` always an HTML 503 page (no Retry-After)."""
    def behaviour(h) -> None:
        ico = int(h.request_json()["id"])
        if ico in bad:
            return h.send_bytes(503, b"<html>503 Service Unavailable</html>", {}, "text/html")
        json_reply({"error": None, "data": {"id": ico, "main": {"name": f"P{ico}"}}})(h)
    return behaviour


def with_one_blip(behaviour, ico: int):
    """``behaviour``, but the first request for profile ``ico`` is an HTML 503 page."""
    asked, lock = [], threading.Lock()

    def blip(h) -> None:
        with lock:
            asked.append(int(h.request_json()["id"]))
            first = asked.count(ico) == 1 and asked[-1] == ico
        if first:
            return h.send_bytes(503, b"<html>503 Service Unavailable</html>", {}, "text/html")
        behaviour(h)
    return blip


@pytest.mark.parametrize(("bad_ids", "their_requests"), [
    (failing_for_good(BAD), 2 * ATTEMPTS),  # 6 attempts each
    (limited_profiles(BAD), 2 * ATTEMPTS + 1),  # 10: 12 asks; 11: one (given up early)
], ids=["503", "429"])
def test_a_blip_right_after_two_ids_failing_for_good_is_retried(configure, bad_ids,
                                                                  their_requests):
    # was 3 failed: id 12's first attempt, the third item of a run of 13 or 14 failures in a
    # row, gave it up (its 503 blip read as an outage's)
    with HostileServer({LIST: paged_list(N), PROFILE: with_one_blip(bad_ids, BLIP)}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning, match="2 failed"):
            icos = icoframes.load_icos(status="past", progress=False)
        assert sorted(icos["id"]) == sorted(set(range(1, N + 1)) - BAD)
        assert {m["id"] for m in icos.attrs["icoframes"]["missing"]} == BAD
        # the bad ids' requests, id 12's two, one of every other id
        assert srv.hits[PROFILE] == their_requests + 2 + N - 3

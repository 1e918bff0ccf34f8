"""Giving an item up before its retries are spent is evidence of one load (or one call), and the
item's reason says it was given up so.

A load's items failed one after another count toward giving the next one up early (one worker
meets an outage's items one at a time). A long-lived ``Client``'s calls are not one load: two
calls failing in an outage said nothing of a call made after it, which met one 503 blip and
gave up after its first attempt (a load retries it). An item given up early was reported only
as its last failure ("HTTP 429"), like an id that spent all its asks: nothing told the user the
service was refusing other ids too. Real loopback HTTP; no wall clock read (``quick_retries``'s
backoff of milliseconds; the asked-wait rule's clock is ``asks_outlasted``'s).
"""

from __future__ import annotations

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes
from icoframes.api.client import Client
from icoframes.errors import IncompleteWarning, ServiceUnavailable

pytestmark = pytest.mark.usefixtures("quick_retries", "asks_outlasted")

N = 40
ATTEMPTS = 6  # the default retry policy's max_attempts
EARLY = "given up early: the service was {} other ids too; tried again by a later load"


def _profile(h, ico: int) -> None:
    json_reply({"error": None, "data": {"id": ico, "main": {"name": f"P{ico}"}}})(h)


def _down_then_blip(state: dict, status: int, headers: dict[str, str]):
    """Every profile refused (``status``) while ``state["down"]``; after, ``state["blips"]``
    more refusals, then answers."""
    def behaviour(h):
        ico = int(h.request_json()["id"])
        if state["down"] or state["blips"]:
            state["blips"] -= 0 if state["down"] else 1
            return h.send_bytes(status, b"<html>down</html>", headers, "text/html")
        _profile(h, ico)
    return behaviour


@pytest.mark.parametrize("status, headers, spent", [
    (503, {}, ATTEMPTS),  # an outage answering HTML 503: each call its 6 attempts
    # asking a wait: each call's 6 attempts and 6 turns (its asks with no other request
    # answered between, as one always-refused id's in a load)
    (429, {"Retry-After": "0"}, 2 * ATTEMPTS),
])
def test_a_clients_call_after_failed_calls_keeps_its_retries(status, headers, spent):
    # two calls failed (12-24 failures in a row, 2 items), the service is back: the next
    # call's one blip is retried, as a load's first item's is (it gave up after 1 attempt)
    state = {"down": True, "blips": 1}
    with HostileServer({PROFILE: _down_then_blip(state, status, headers)}) as srv, \
            Client(**srv.settings()) as client:
        for ico in (1, 2):
            with pytest.raises(ServiceUnavailable, match=f"gave up after {spent} attempts"):
                client.profile(ico)
        state["down"] = False
        assert client.profile(3)["id"] == 3
        assert srv.hits[PROFILE] == 2 * spent + 2


def _refusing(bad: set[int]):
    def behaviour(h):
        ico = int(h.request_json()["id"])
        if ico in bad:
            return h.send_bytes(429, b"<html>slow down</html>", {"Retry-After": "0"},
                                "text/html")
        _profile(h, ico)
    return behaviour


def test_an_id_given_up_after_one_ask_is_reported_as_given_up_early(configure):
    # one worker, ids 10 and 11 always refused: 10 spends its 12 asks (its own failure), 11
    # is given up after one (the service refused 10 as well)
    bad = {10, 11}
    with HostileServer({LIST: paged_list(N), PROFILE: _refusing(bad)}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning, match="2 failed"):
            icos = icoframes.load_icos(status="past", progress=False)
        assert srv.hits[PROFILE] == N - 2 + 2 * ATTEMPTS + 1
    reasons = {m.id: m.reason for m in icoframes.report(icos).missing}
    assert reasons == {10: "HTTP 429", 11: "HTTP 429, " + EARLY.format("refusing")}
    assert {m["id"]: m["reason"] for m in icos.attrs["icoframes"]["missing"]} == reasons


def test_ids_failing_for_good_next_to_each_other_say_which_was_given_up_early(configure):
    # one worker, ids 10-12 always an HTML 503: 10 and 11 spend their 6 attempts, 12 is given
    # up after its first (8 failures in a row, for 3 items): the service failed others too
    bad = {10, 11, 12}

    def behaviour(h):
        ico = int(h.request_json()["id"])
        if ico in bad:
            return h.send_bytes(503, b"<html>503</html>", {}, "text/html")
        _profile(h, ico)

    with HostileServer({LIST: paged_list(N), PROFILE: behaviour}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning, match="3 failed"):
            icos = icoframes.load_icos(status="past", progress=False)
        # 10 and 11 their 6 attempts; 12, the run's first item found suspect, one retry
        assert srv.hits[PROFILE] == N - 3 + 2 * ATTEMPTS + 2
    reasons = {m.id: m.reason for m in icoframes.report(icos).missing}
    assert reasons == {10: "HTTP 503", 11: "HTTP 503", 12: "HTTP 503, " + EARLY.format("failing")}

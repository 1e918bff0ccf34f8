"""Whose failure a wrong answer is: one item's, or (answered wrongly everywhere) the service's.

A bad item is that item's failure: reported, retried by a later load, never the load's stop.
But every item answered wrongly is a service that is down: counted on a scale of its own
(``BREAKER_REFUSED`` different items with no good answer between), the breaker trips within
a few dozen requests. Until then (ee94c3d) any JSON object answered to every profile (``{}``,
``"data": null``, a captive portal's JSON, one profile for every id) cost two requests per
listed profile, a whole day's quota; a wrong answer cleared the run of 503s, so an outage
answering some ids wrongly never tripped it; and one profile answered HTTP 404 without a
code, ``{"error": 999}`` or 483 stopped every load (the cache grew by a few ids per load).
"""

from __future__ import annotations

import warnings

import pytest
from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, paged_list

import icoframes
from icoframes.api.control import BREAKER_REFUSED, PROBE_ITEMS, SUSPECT_ITEMS
from icoframes.api.retry import ANSWERS_REFUSED
from icoframes.errors import (
    APIError,
    AuthError,
    IncompleteWarning,
    InvalidParameter,
    ServiceUnavailable,
    UnknownMethod,
)

pytestmark = pytest.mark.usefixtures("quick_retries")


def _good(h, asked):
    json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)


def _profiles(bad, wrong):
    """Profiles echo the id asked; those ``bad(id)`` holds are answered ``wrong``."""
    def behaviour(h):
        asked = int(h.request_json()["id"])
        (wrong if bad(asked) else lambda h: _good(h, asked))(h)
    return behaviour


# two asks for the first SUSPECT_ITEMS - 1 items answered wrongly in a row, one for each
# next, until BREAKER_REFUSED different items: 34 requests (was 400 for 200 listed)
ALL_WRONG = (SUSPECT_ITEMS - 1) * ANSWERS_REFUSED + BREAKER_REFUSED - (SUSPECT_ITEMS - 1)


# the service's envelope around a wrong item (r9): PROBE_ITEMS profiles asked out of turn
# first, in case the run was a block of bad ids; every other wrong answer trips at the count
@pytest.mark.parametrize(("wrong", "paid", "probes"), [
    (json_reply({}), ALL_WRONG, 0),
    (json_reply({"error": None, "data": None}), ALL_WRONG, PROBE_ITEMS),
    (json_reply({"error": None, "data": {}}), ALL_WRONG, PROBE_ITEMS),
    (json_reply({"status": "ok", "login": "https://portal.example/"}), ALL_WRONG, 0),
    (json_reply([]), ALL_WRONG, 0),
    (html_reply(200, "Sign in to the hotel wifi"), ALL_WRONG, 0),  # no JSON: answered (was
    # 91, 6 per profile on the scale of 503s; a body stopping inside a JSON text still is: a cut)
    (json_reply({"error": None, "data": {"id": 1, "main": {"name": "one"}}}),
     1 + ALL_WRONG, PROBE_ITEMS),  # one profile for every id: id 1's is right
])
def test_a_service_answering_every_profile_wrongly_trips_the_breaker(configure, wrong, paid,
                                                                     probes):
    with HostileServer({LIST: paged_list(200), PROFILE: wrong}) as srv:
        configure(srv, max_workers=1)  # one at a time: the count is exact
        with pytest.raises(ServiceUnavailable) as info:
            icoframes.load_icos(status="past", progress=False)  # (was 0 rows, 200 missing)
        run = BREAKER_REFUSED + probes
        assert (f"{run} different requests failed, {run} of them "
                "answered wrongly, with no good answer between") in str(info.value)
        assert srv.hits[PROFILE] == paid + probes  # (was 400, 399 for the one profile, 200
        # 404s: no breaker, 2 requests per listed profile; ALL_WRONG is 34)


@pytest.mark.parametrize(("wrong", "error", "reason"), [
    (json_reply({"error": 999}), APIError, "HTTP 200: the service reported error 999"),
    (html_reply(404, "no such page"), APIError, "HTTP 404 without an error code"),
    (html_reply(401, "sign in"), APIError, "HTTP 401 without an error code"),
    (json_reply({"error": 483}), InvalidParameter,
     "HTTP 200: the service rejected a parameter value as invalid (error 483)"),
])
def test_the_same_error_about_the_request_on_every_profile_is_raised_as_that_error(
        configure, wrong, error, reason):
    # an error about one request is its item's failure; the same one on every item, none
    # answered right, is about every request (a revoked key, a wrong base_url): that error,
    # not ServiceUnavailable's "call again later" (REVC M2; before 4bafad5 one request raised it)
    with HostileServer({LIST: paged_list(200), PROFILE: wrong}) as srv:
        configure(srv, max_workers=1)
        with pytest.raises(error) as info:
            icoframes.load_icos(status="past", progress=False)
        assert not isinstance(info.value, ServiceUnavailable)
        assert (f"{BREAKER_REFUSED} different requests in a row were answered {reason}, and "
                "none of their kind right in this load") in str(info.value)
        assert "call again" not in str(info.value)
        assert srv.hits[PROFILE] == BREAKER_REFUSED  # each asked once: bounded all the same


def test_wrong_answers_between_503s_do_not_clear_their_run(configure):
    # 1 id in 5 answered "data": null, the others 503: a service that is down, as it was
    # before a wrong answer counted as a success of the service (685 requests, never tripped)
    down = html_reply(503, "down")
    with HostileServer({LIST: paged_list(200), PROFILE: lambda h: (
            json_reply({"error": None, "data": None}) if int(h.request_json()["id"]) % 5 == 0
            else down)(h)}) as srv:
        configure(srv, max_workers=1)
        with pytest.raises(ServiceUnavailable, match=r"on 16 different requests.*HTTP 503"):
            icoframes.load_icos(status="past", progress=False)
        # one worker: ids 1 and 2 (503) asked the policy's 6 times, each later id answering 503
        # once (8 failures in a row for 3 items: SUSPECT_FAILURES), but id 3, the run's first
        # so, twice (one retry), the 16th the trip (id 19), ids 5 and 10 answered wrongly asked
        # twice, 15 once (SUSPECT_ITEMS)
        assert srv.hits[PROFILE] == 2 * 6 + 14 + 1 + 2 * ANSWERS_REFUSED + 1  # (was 1040)


@pytest.mark.parametrize(("wrong", "reason"), [
    (html_reply(404, "gone"), "HTTP 404 without an error code"),
    (json_reply({"error": 999, "data": None}), "HTTP 200: the service reported error 999"),
    (json_reply({"error": 500}), "HTTP 200: the service reported error 500"),
    (json_reply({"error": 483}), "HTTP 200: the service rejected a parameter value as invalid "
                                 "(error 483)"),
    (json_reply({"error": 484}), "HTTP 200: a required parameter is missing (error 484)"),
    (html_reply(413, "too large"), "HTTP 413 without an error code"),
])
def test_one_profile_answered_an_error_about_itself_is_its_failure(configure, wrong, reason):
    with HostileServer({LIST: paged_list(60), PROFILE: _profiles(lambda i: i == 5,
                                                                 wrong)}) as srv:
        configure(srv, max_workers=2)
        for load, asked in ((1, 60), (2, 1), (3, 0)):  # retried by the next load; then it waits
            before = srv.hits[PROFILE]
            with pytest.warns(IncompleteWarning, match="1 failed"):
                icos = icoframes.load_icos(status="past", progress=False)  # (was APIError)
            assert sorted(icos["id"]) == [i for i in range(1, 61) if i != 5], load
            (missing,) = icos.attrs["icoframes"]["missing"]
            assert missing["id"] == 5 and missing["state"] == "failed"
            assert missing["reason"].startswith(reason)  # (then: when it is tried again)
            assert srv.hits[PROFILE] - before == asked, load  # asked once: no retries


@pytest.mark.parametrize(("code", "error"), [(480, AuthError), (481, UnknownMethod)])
def test_an_error_about_the_key_or_the_service_still_stops_the_load(configure, code, error):
    with HostileServer({LIST: paged_list(60), PROFILE: _profiles(
            lambda i: i == 5, json_reply({"error": code}))}) as srv:
        configure(srv, max_workers=1)
        with pytest.raises(error, match=f"error {code}"):
            icoframes.load_icos(status="past", progress=False)
        assert srv.hits[PROFILE] == 5


def test_a_list_page_answered_an_unknown_error_is_that_pages_failure(configure):
    listing = paged_list(60)

    def pages(h):
        (json_reply({"error": 999}) if h.request_json().get("page") == 2 else listing)(h)

    with HostileServer({LIST: pages, PROFILE: _profiles(lambda i: False, None)}) as srv:
        configure(srv, max_workers=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IncompleteWarning)
            icos = icoframes.load_icos(status="past", progress=False)  # (was APIError)
        assert sorted(icos["id"]) == [*range(1, 21), *range(41, 61)]
        (query,) = icos.attrs["icoframes"]["queries"]
        assert query["failed_pages"] == {"2": "HTTP 200: the service reported error 999"}
        assert srv.hits[LIST] == 3  # page 2 asked once: an answer, not a transient failure


def test_a_profile_always_larger_than_accepted_costs_two_requests(configure):
    big = json_reply({"error": None, "data": {"id": 1, "main": {"description": "x" * 4096}}})
    with HostileServer({LIST: paged_list(3), PROFILE: _profiles(lambda i: i == 1,
                                                                big)}) as srv:
        configure(srv, max_workers=1, max_response_bytes=2048)
        with pytest.warns(IncompleteWarning, match="1 failed"):
            icos = icoframes.load_icos(status="past", progress=False)
        assert sorted(icos["id"]) == [2, 3]
        (missing,) = icos.attrs["icoframes"]["missing"]
        assert "more than the 2048 bytes accepted" in missing["reason"]
        assert srv.hits[PROFILE] == 2 + ANSWERS_REFUSED  # (was 2 + 6: the retry policy's)


@pytest.mark.parametrize("busy", [
    json_reply({"error": 429, "message": "Too Many Requests"}, status=429),  # a rate limiter's
    json_reply({"error": 999}, status=429),
    html_reply(429, "Too Many Requests"),  # as it was: retried
])
def test_a_429_with_a_code_of_its_own_is_retried_as_without_one(configure, busy):
    # a rate limiter answering a first ask with its own JSON code: that 429 is the service
    # being busy, as the same 429 in HTML; it was each item's failure, never asked again
    # in the load (a9: 22 of 100 profiles failed, with HTML 100 rows)
    asked: set[tuple[str, object]] = set()
    listing = paged_list(60)

    def first_busy(then):
        def behaviour(h):
            body = h.request_json()
            key = (h.path, body.get("id", body.get("page")))
            (then if key in asked else busy)(h)
            asked.add(key)
        return behaviour

    profiles = first_busy(_profiles(lambda i: False, None))
    with HostileServer({LIST: lambda h: (first_busy(listing) if h.request_json().get("page")
                                         == 2 else listing)(h), PROFILE: profiles}) as srv:
        configure(srv, max_workers=1)
        with warnings.catch_warnings():
            warnings.simplefilter("error", IncompleteWarning)
            icos = icoframes.load_icos(status="past", progress=False)  # (was ServiceUnavailable:
            # every first ask the item's failure, 32 in a row the breaker's wrong-answer scale)
        assert sorted(icos["id"]) == list(range(1, 61))
        assert icos.attrs["icoframes"]["missing"] == []
        assert srv.hits[LIST] == 3 + 1 and srv.hits[PROFILE] == 2 * 60  # each asked again once

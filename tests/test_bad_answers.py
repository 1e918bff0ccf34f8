"""An answer the gate refuses though the service answered it is that item's failure.

A JSON object answered with no error that fails the checks of its endpoint (another
ICO's profile, ``"data": null``, a page other than the one asked) shows the service up
and the item bad: asked once more at most (``ANSWERS_REFUSED``), then a
:class:`~icoframes.errors.BadResponse` for that item, reported failed and retried by a
later load; never counted toward the breaker. Until then such a profile cost the six
requests of the retry policy on every load, and sixteen of them in a row stopped the
load as a service that is down, the good profiles after them not fetched.
"""

from __future__ import annotations

import itertools
import warnings

import pytest
from hostile import FILTERS, LIST, PROFILE, HostileServer, html_reply, json_reply, paged_list

import icoframes
from icoframes.api.client import Client, RetryPolicy
from icoframes.api.retry import ANSWERS_REFUSED
from icoframes.errors import BadResponse, IncompleteWarning

QUICK = RetryPolicy(max_attempts=6, backoff=0.001, max_backoff=0.002)


def _profiles(answer_for):
    """Profiles echo the id asked; ``answer_for(id)`` may give another ``data`` instead."""
    def behaviour(h):
        asked = int(h.request_json()["id"])
        data = answer_for(asked)
        json_reply({"error": None, "data": data if data is not ... else
                    {"id": asked, "main": {"name": f"P{asked}"}}})(h)
    return behaviour


def test_a_profile_always_answered_wrong_costs_two_requests_then_one_per_load(configure,
                                                                              quick_retries):
    # load 2 asks id 1 once: its failure of load 1 again, which a second ask would only
    # repeat (REVB M2: twice, 2 + 2 * ANSWERS_REFUSED in all)
    other = _profiles(lambda i: {"id": 999, "main": {"name": "x"}} if i == 1 else ...)
    with HostileServer({LIST: paged_list(3), PROFILE: other}) as srv:
        configure(srv, max_workers=1)
        for load, paid in ((1, 2 + ANSWERS_REFUSED), (2, 2 + ANSWERS_REFUSED + 1)):
            with pytest.warns(IncompleteWarning, match="1 failed"):
                icos = icoframes.load_icos(status="past", progress=False)
            assert sorted(icos["id"]) == [2, 3]
            (missing,) = icos.attrs["icoframes"]["missing"]
            assert missing["id"] == 1 and missing["state"] == "failed"
            assert "data.id is 999, not the 1 requested" in missing["reason"]
            # (was 8, then 14: the retry policy's 6 on every load)
            assert srv.hits[PROFILE] == paid, load


def test_sixteen_bad_profiles_in_a_row_are_sixteen_failed_items_not_a_service_down(
        configure, quick_retries):
    # one worker: nothing but the bad ones answer from the first to the 16th, as many
    # different items failing with no success between as trip the breaker (BREAKER_ITEMS)
    nulls = _profiles(lambda i: None if i <= 16 else ...)
    with HostileServer({LIST: paged_list(40), PROFILE: nulls}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning, match="16 failed"):
            icos = icoframes.load_icos(status="past", progress=False)  # (was ServiceUnavailable)
        assert sorted(icos["id"]) == list(range(17, 41))
        missing = icos.attrs["icoframes"]["missing"]
        assert sorted(m["id"] for m in missing) == list(range(1, 17))
        assert all(m["state"] == "failed" and "NoneType, not an object" in m["reason"]
                   for m in missing)
        # the first two asked twice; from the third in a row with no good answer between
        # (SUSPECT_ITEMS), once: another item's answer tells more (was 91, and no frame)
        assert srv.hits[PROFILE] == 24 + 2 * ANSWERS_REFUSED + 14


def test_a_list_page_the_gate_refuses_is_asked_twice_and_fails_alone(configure, quick_retries):
    listing = paged_list(60)

    def pages(h):
        if h.request_json().get("page") == 2:  # the service answers page 1 for page 2
            json_reply({"total_icos": 60, "current_page": 1, "error": None,
                        "total_pages": 3, "data": []})(h)
        else:
            listing(h)

    with HostileServer({LIST: pages, PROFILE: _profiles(lambda i: ...)}) as srv:
        configure(srv, max_workers=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IncompleteWarning)
            icos = icoframes.load_icos(status="past", progress=False)
        assert sorted(icos["id"]) == [*range(1, 21), *range(41, 61)]
        (query,) = icos.attrs["icoframes"]["queries"]
        assert "not the page 2 requested" in query["failed_pages"]["2"]
        assert srv.hits[LIST] == 2 + ANSWERS_REFUSED and srv.hits[PROFILE] == 40


def test_the_filter_set_refused_fails_after_two_answers_and_no_breaker_count():
    with HostileServer({FILTERS: json_reply({"error": None, "platform": "Ethereum"})}) as srv, \
            Client(**srv.settings(), retry=QUICK) as client:
        with pytest.raises(BadResponse, match="gave up after 2 attempts") as info:
            client.filters()
        assert "platform is str, not a list" in info.value.reason
        assert srv.hits[FILTERS] == ANSWERS_REFUSED
        assert client.control.items_failing == 0 and client.control.in_a_row == 0


def test_transient_failures_keep_the_retry_policy_beside_refused_answers():
    # 503 twice (the policy's retries), then another ICO's profile twice (the item's two)
    answers = itertools.chain([html_reply(503, "busy")] * 2, itertools.repeat(
        json_reply({"error": None, "data": {"id": 8, "main": {"name": "eight"}}})))
    with HostileServer({PROFILE: lambda h: next(answers)(h)}) as srv, \
            Client(**srv.settings(), retry=QUICK) as client:
        with pytest.raises(BadResponse, match=r"data\.id is 8, not the 7 requested"):
            client.profile(7)
        assert srv.hits[PROFILE] == 2 + ANSWERS_REFUSED


def test_one_wrong_answer_then_the_right_one_is_a_success():
    answers = iter([json_reply({"error": None, "data": None}),
                    json_reply({"error": None, "data": {"id": 7, "main": {"name": "seven"}}})])
    with HostileServer({PROFILE: lambda h: next(answers)(h)}) as srv, \
            Client(**srv.settings(), retry=QUICK) as client:
        assert client.profile(7)["main"]["name"] == "seven"
        assert srv.hits[PROFILE] == 2 and client.control.items_failing == 0

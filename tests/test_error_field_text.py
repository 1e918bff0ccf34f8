"""An ``error`` field that is no code (``{"error": "Out of API limits"}`` in a 200) is an error
the spec does not define, read as an unknown code (``{"error": 999}``) is: the request's own
failure, asked once (``BadResponse``), the same on every request stopping the load with it.

Spec section 7: "An error is reported through the numeric error field of the response body
(null when there is no error)"; the codes are 480-485. Text there is no code of the spec's,
so nothing in it can be read as one (not even the text of 485's condition): it says the
request failed, and no more. Until then such an answer cost the retry policy's six requests
per load, counted on the scale of 503s, as if the service were down.
"""

from __future__ import annotations

import pytest
from hostile import FILTERS, LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes
from icoframes.api.client import Client, RetryPolicy
from icoframes.api.control import BREAKER_REFUSED
from icoframes.errors import APIError, BadResponse, IncompleteWarning, ServiceUnavailable

POLICY = RetryPolicy(max_attempts=6, backoff=0.001, max_backoff=0.002)
ONE = {"id": 1, "main": {"name": "A"}}
TEXT = {"error": "Out of API limits", "data": ONE}
REASON = "HTTP 200: the error field is 'Out of API limits' (str), not a code"


def _profiles(bad):
    """Profiles echo the id asked; those ``bad(id)`` holds are answered :data:`TEXT`."""
    def behaviour(h):
        asked = int(h.request_json()["id"])
        json_reply(TEXT if bad(asked) else
                   {"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)
    return behaviour


@pytest.mark.parametrize("error", ["Out of API limits", {"code": 485}, [485], True, 4.5, "1e3"])
def test_an_error_that_is_no_code_is_the_items_failure_asked_once(error):
    with HostileServer({PROFILE: json_reply({"error": error, "data": ONE})}) as srv, \
            Client(**srv.settings(), retry=POLICY) as client:
        with pytest.raises(BadResponse, match="the error field is") as info:
            client.profile(1)  # (was: BadResponse after 6 attempts)
        assert srv.hits[PROFILE] == 1
        assert info.value.code is None and "gave up" not in str(info.value)
        # the service answered: the item's failure, counted as a wrong answer (was in_a_row 6,
        # a failure of the service)
        assert client.control.in_a_row == 0 and client.control.items_refused == 1


def test_a_profile_answered_text_in_its_error_field_costs_one_request_per_load(
        configure, quick_retries):
    with HostileServer({LIST: paged_list(3), PROFILE: _profiles(lambda i: i == 1)}) as srv:
        configure(srv, max_workers=1)
        for load, paid in ((1, 2 + 1), (2, 2 + 1 + 1)):  # (was 2 + 6, then 2 + 12)
            with pytest.warns(IncompleteWarning, match="1 failed"):
                icos = icoframes.load_icos(status="past", progress=False)
            assert sorted(icos["id"]) == [2, 3]
            (missing,) = icos.attrs["icoframes"]["missing"]
            assert missing["id"] == 1 and missing["state"] == "failed"
            assert missing["reason"].startswith(REASON), missing["reason"]
            assert srv.hits[PROFILE] == paid, load


def test_text_in_the_error_field_of_every_profile_stops_the_load_with_it(configure,
                                                                         quick_retries):
    with HostileServer({LIST: paged_list(200), PROFILE: _profiles(lambda i: True)}) as srv:
        configure(srv, max_workers=1)
        with pytest.raises(APIError) as info:
            icoframes.load_icos(status="past", progress=False)
        assert not isinstance(info.value, ServiceUnavailable)  # (was: "call again later")
        assert (f"{BREAKER_REFUSED} different requests in a row were answered {REASON}, and "
                "none of their kind right in this load") in str(info.value)
        assert srv.hits[PROFILE] == BREAKER_REFUSED  # each asked once (was 91: 16 ids asked
        # six times on the scale of 503s, then ServiceUnavailable)


def test_text_in_the_error_field_of_a_503_is_the_service_busy():
    busy = json_reply({"error": "Service Temporarily Unavailable"}, status=503)
    with HostileServer({PROFILE: busy}) as srv, Client(**srv.settings(), retry=POLICY) as client:
        with pytest.raises(ServiceUnavailable, match="gave up after 6 attempts"):
            client.profile(1)
        assert srv.hits[PROFILE] == POLICY.max_attempts  # as the same 503 in HTML
        assert client.control.in_a_row == 6


def test_text_in_the_error_field_of_the_filter_set_is_raised_at_once():
    with HostileServer({FILTERS: json_reply({"error": "Out of API limits"})}) as srv, \
            Client(**srv.settings(), retry=POLICY) as client:
        with pytest.raises(APIError, match="the error field is 'Out of API limits'") as info:
            client.filters()  # an error, as {"error": 999} is (was 6 requests, BadResponse)
        assert not isinstance(info.value, BadResponse | ServiceUnavailable)
        assert srv.hits[FILTERS] == 1

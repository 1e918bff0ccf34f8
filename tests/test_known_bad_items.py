"""Items that failed before and are answered wrongly again are their own failures, not an
outage: the breaker of wrong answers is for a service answering *everything* wrongly.

Until then a load whose only requests were 32 or more profiles that failed in earlier loads
and were still answered wrongly (``"data": null``, another ICO's profile) tripped the
breaker (``BREAKER_REFUSED``) and returned no row, although the list and every other
profile were cached: a few bad ids sank the load, on every call until they waited for
their backoff. Their wrong answers are expected now, so they tell nothing about the
service: reported failed, retried later, neither counted toward the breaker nor a success.
A service answering every item wrongly still stops within ``BREAKER_REFUSED`` items that
did not fail before (tests/test_item_blame.py), and 503s still trip it.
"""

from __future__ import annotations

import pytest
from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, paged_list

import icoframes
from icoframes.api.control import BREAKER_ITEMS, BREAKER_REFUSED, SUSPECT_ITEMS
from icoframes.api.retry import ANSWERS_REFUSED
from icoframes.errors import IncompleteWarning, ServiceUnavailable

pytestmark = pytest.mark.usefixtures("quick_retries")

N, BAD = 90, range(2, 91, 2)  # 45 bad ids, every other one: load 1 never trips


def _profiles(bad, wrong):
    """Profiles echo the id asked; the ids ``bad`` holds are answered ``wrong(id)``."""
    def behaviour(h):
        asked = int(h.request_json()["id"])
        data = wrong(asked) if asked in bad else {"id": asked, "main": {"name": f"P{asked}"}}
        json_reply({"error": None, "data": data})(h)
    return behaviour


@pytest.mark.parametrize("wrong", [lambda i: None, lambda i: {"id": i + 1, "main": {}}],
                         ids=["data-null", "another-id"])
def test_a_load_asking_only_known_bad_items_returns_the_cached_rows(configure, wrong):
    bad = set(BAD)
    assert len(bad) > BREAKER_REFUSED
    with HostileServer({LIST: paged_list(N), PROFILE: _profiles(bad, wrong)}) as srv:
        configure(srv, max_workers=1)  # one at a time: the count is exact
        for load in (1, 2):
            before = srv.hits[PROFILE], srv.hits[LIST]
            with pytest.warns(IncompleteWarning, match=f"{len(bad)} failed"):
                icos = icoframes.load_icos(status="past", progress=False)  # (load 2: was
            # ServiceUnavailable after 32 of the 45, no row)
            assert sorted(icos["id"]) == [i for i in range(1, N + 1) if i not in bad], load
            missing = icos.attrs["icoframes"]["missing"]
            assert sorted(m["id"] for m in missing) == sorted(bad)
            assert all(m["state"] == "failed" for m in missing)
            asked = srv.hits[PROFILE] - before[0]
            if load == 1:  # interleaved with good answers: every bad one asked twice
                assert asked == N - len(bad) + ANSWERS_REFUSED * len(bad)
            else:  # the list cached, only the bad ones asked: twice until SUSPECT_ITEMS of
                assert srv.hits[LIST] == before[1]  # them in a row, then once (was 34, trip)
                assert asked == (SUSPECT_ITEMS - 1) * ANSWERS_REFUSED + len(bad) - (
                    SUSPECT_ITEMS - 1)




def test_503s_on_known_bad_items_still_trip_the_breaker(configure):
    # load 2 asks only the known bad ones, and the service is down (503): an outage
    bad, down = set(BAD), []
    wrong = json_reply({"error": None, "data": None})
    fail = html_reply(503, "down")

    def profiles(h):
        asked = int(h.request_json()["id"])
        if down:
            fail(h)
        elif asked in bad:
            wrong(h)
        else:
            json_reply({"error": None, "data": {"id": asked, "main": {"name": "x"}}})(h)

    with HostileServer({LIST: paged_list(N), PROFILE: profiles}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning):
            icoframes.load_icos(status="past", progress=False)
        down.append(True)
        with pytest.raises(ServiceUnavailable, match=f"on {BREAKER_ITEMS} different requests"):
            icoframes.load_icos(status="past", progress=False)


def test_a_service_answering_everything_wrongly_after_known_bad_items_still_trips(configure):
    # load 2 (refresh="all"): every profile answered "data": null. The 45 known bad ones,
    # asked first, do not count; the others do: a trip at the 32nd of them
    bad, everything = set(BAD), []
    with HostileServer({LIST: paged_list(N), PROFILE: _profiles(
            _Everything(bad, everything), lambda i: None)}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning):
            icoframes.load_icos(status="past", progress=False)
        everything.append(True)
        before = srv.hits[PROFILE]
        with pytest.raises(ServiceUnavailable, match=f"{BREAKER_REFUSED} different requests "
                           f"failed, {BREAKER_REFUSED} of them answered wrongly"):
            icoframes.load_icos(status="past", progress=False, refresh="all")
        # the first SUSPECT_ITEMS - 1 asked twice, every other one once
        assert srv.hits[PROFILE] - before == (SUSPECT_ITEMS - 1) * (ANSWERS_REFUSED - 1) + len(
            bad) + BREAKER_REFUSED


class _Everything:
    """Holds the bad ids, or every id once ``switch`` is not empty."""

    def __init__(self, bad, switch):
        self.bad, self.switch = bad, switch

    def __contains__(self, ico_id):
        return bool(self.switch) or ico_id in self.bad

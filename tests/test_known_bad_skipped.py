"""A few dozen ids always answered wrongly never stop the refreshes of the others (REVK H1).

Profiles whose last fetch failed are asked before the changed and stale ones (urgency 3.9).
When 32 or more of them are still answered wrongly (``"data": null``) they are an unbroken
run of wrong answers; from f2972d0 such a run, holding profiles that failed before, halted
*all* asking (held, ``ItemsStop``): no other profile was refreshed, load after load (REVK:
0 of 900 refreshed over 15 days with 100 bad ids of 1,000). Now that run stops only the
asking of the remaining profiles that failed before (reported not asked, with why); every
other profile is asked, and 32 wrong answers to *those* still stop the load as an outage.
Simulated days (time-machine), real loopback HTTP, one worker: the counts are exact.
"""

from __future__ import annotations

import datetime as dt
import warnings

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, list_item, paged_list

import icoframes
from icoframes.api.control import BREAKER_ITEMS, BREAKER_REFUSED, PROBE_ITEMS, SUSPECT_ITEMS
from icoframes.api.retry import ANSWERS_REFUSED
from icoframes.errors import APIError, ServiceUnavailable

pytestmark = pytest.mark.usefixtures("quick_retries")

N = 200
BAD = set(range(5, N + 1, 5))  # 40 ids always answered "data": null: more than 32
DAY0 = dt.datetime(2026, 11, 27, 9, tzinfo=dt.UTC)
# a run of wrong answers from its start: the first SUSPECT_ITEMS - 1 asked twice, then once
RUN = (SUSPECT_ITEMS - 1) * (ANSWERS_REFUSED - 1) + BREAKER_REFUSED
# a run of profiles that failed before, answered as they were then: each asked once (REVB M2:
# RUN, the first ones asked twice as new ones)
HELD = BREAKER_REFUSED


class _Service:
    """A list of N past ICOs whose ``raised`` grows every day (each profile "changed"), and
    profiles echoing the id asked; ``bad`` ids answered ``"data": null``, or every id when
    ``mode`` is "null", HTTP 503 for every profile when it is "503"."""

    def __init__(self):
        self.day, self.mode = 0, "ok"

    def listing(self, h):
        page = h.request_json().get("page", 1)
        items = []
        for i in range((page - 1) * 20 + 1, min(page * 20, N) + 1):
            item = list_item(i)
            item["finance"]["raised"] = str(1000 + self.day)
            items.append(item)
        json_reply({"error": None, "data": items, "total_icos": N, "current_page": page,
                    "total_pages": -(-N // 20)})(h)

    def profile(self, h):
        asked = int(h.request_json()["id"])
        if self.mode == "503":
            return html_reply(503, "down")(h)
        wrong = self.mode == "null" or asked in BAD
        data = None if wrong else {"id": asked, "main": {"name": f"ICO {asked}"},
                                   "finance": {"raised": str(1000 + self.day)}}
        json_reply({"error": None, "data": data})(h)


def _load(srv, service, day):
    """The day's load (its list paged again: max_age 1 hour), warnings recorded; the ledger
    (one load a day) booked what it sent, no more, whatever stopped it."""
    service.day = day
    with time_machine.travel(DAY0 + dt.timedelta(days=day), tick=True), \
            warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        before = srv.hits[PROFILE], srv.hits[LIST]
        try:
            icos = icoframes.load_icos(status="past", progress=False, max_age=3600)
        finally:
            sent = srv.hits[PROFILE] - before[0] + srv.hits[LIST] - before[1]
            assert icoframes.cache_info().quota.sent == sent
        return icos, srv.hits[PROFILE] - before[0], [str(w.message) for w in said]


def test_ids_always_answered_wrongly_never_stop_the_refreshes_of_the_others(configure):
    service = _Service()
    with HostileServer({LIST: service.listing, PROFILE: service.profile}) as srv:
        configure(srv, max_workers=1)
        icos, asked, _ = _load(srv, service, 0)  # between good answers: each bad one twice
        assert asked == N - len(BAD) + ANSWERS_REFUSED * len(BAD)
        assert len(icos) == N - len(BAD)
        order = sorted(BAD)  # the failed ones by their last failure, the oldest first
        for day in (1, 2):  # every load: the failed ones first, then every changed one
            icos, asked, said = _load(srv, service, day)
            report = icos.attrs["icoframes"]
            good = sorted(set(range(1, N + 1)) - BAD)
            assert sorted(icos["id"]) == good
            # every good profile fetched again today (was: none, every day; all 160 stale)
            today = DAY0 + dt.timedelta(days=day)
            assert (icos["fetched_at"] >= today).all(), day
            assert report["not_refreshed"] == []
            # the first 32 failed ones asked (HELD requests: once each), the 8 after them
            # not; then the 160 changed ones, once each. The 8 go first the next day (REVI2
            # M1: they were the same 8, never asked)
            assert asked == HELD + len(good), day
            asked_bad = order[:BREAKER_REFUSED]
            unasked = sorted(order[BREAKER_REFUSED:])
            order = order[BREAKER_REFUSED:] + asked_bad
            assert report["stopped"] == "breaker" and report["not_done"] == unasked
            missing = {m["id"]: m for m in report["missing"]}
            assert sorted(missing) == sorted(BAD)
            assert all(m["state"] == "failed" for m in missing.values())
            assert all(missing[i]["reason"].startswith(
                f"HTTP 200: the profile data for id {i} is NoneType") for i in asked_bad)
            stop = report["stop"]
            assert stop.startswith(
                f"not asked: {BREAKER_REFUSED} different requests in a row failed, "
                f"{BREAKER_REFUSED} of them answered wrongly (last: HTTP 200: the profile data "
                f"for id {asked_bad[-1]} is NoneType"), stop
            assert "the load asked no more of those and asked every other profile" in stop
            # (REVK M2: they kept the reason of the load that last asked them, unsaid)
            for i in unasked:
                assert missing[i]["reason"] == (
                    f"{stop} (its last fetch, in an earlier load: HTTP 200: the profile data "
                    f"for id {i} is NoneType, not an object)"), missing[i]["reason"]
            assert any(f"{len(BAD)} failed" in s for s in said), said


def test_a_wrong_answer_outage_after_known_bad_items_still_stops_the_load(configure):
    # every profile answered "data": null: the run of the 32 failed ones is held (they were
    # expected to fail), then 32 wrong answers to changed ones trip the breaker, as an
    # outage once PROBE_ITEMS profiles asked out of turn are answered so too (r9: a run of
    # "data": null alone may be a block of bad ids): ServiceUnavailable, as with no known bad
    # item queued
    service = _Service()
    with HostileServer({LIST: service.listing, PROFILE: service.profile}) as srv:
        configure(srv, max_workers=1)
        _load(srv, service, 0)
        service.mode = "null"
        before = srv.hits[PROFILE]
        outage = BREAKER_REFUSED + PROBE_ITEMS
        with pytest.raises(ServiceUnavailable, match=f"{outage} different requests "
                           f"failed, {outage} of them answered wrongly"):
            _load(srv, service, 1)
        # the known bad ones once each, the changed ones as any run (their failure is new)
        assert srv.hits[PROFILE] - before == HELD + RUN + PROBE_ITEMS


def test_a_503_outage_with_known_bad_items_queued_still_stops_at_the_same_count(configure):
    service = _Service()
    with HostileServer({LIST: service.listing, PROFILE: service.profile}) as srv:
        configure(srv, max_workers=1)
        _load(srv, service, 0)
        service.mode = "503"
        with pytest.raises(ServiceUnavailable,
                           match=f"on {BREAKER_ITEMS} different requests, with no success"):
            _load(srv, service, 1)



def test_with_workers_every_other_profile_is_refreshed_too(configure):
    # 4 workers: the failed ones in flight when the run reached 32 end as failures, not
    # counted; every good profile is still fetched again, and the cost stays bounded: each
    # failed one asked once at most (REVB M2; was RUN + 2 * 4 at most)
    service = _Service()
    with HostileServer({LIST: service.listing, PROFILE: service.profile}) as srv:
        configure(srv, max_workers=4)
        _load(srv, service, 0)
        icos, asked, _ = _load(srv, service, 1)
        good = N - len(BAD)
        assert len(icos) == good and (icos["fetched_at"] >= DAY0 + dt.timedelta(days=1)).all()
        assert icos.attrs["icoframes"]["not_refreshed"] == []
        assert HELD + good <= asked <= len(BAD) + good


# -- a revoked key is no run of bad items (REVK M3) -----------------------------------------


@pytest.mark.parametrize("refresh", [False, "all"])
def test_a_revoked_key_met_on_known_bad_items_is_the_error_it_is(configure, refresh):
    # load 1: 45 of 90 ids answered "data": null. Load 2: every profile HTTP 401 (the key
    # revoked). The 45 failed ones are asked first: their run of 32 had one error about the
    # request, and no profile was answered right in the load: APIError "check them" (was
    # held under refresh="all": the cached rows returned, the key never said)
    bad = set(range(2, 91, 2))
    with HostileServer({LIST: paged_list(90), PROFILE: _null_for(bad)}) as srv:
        configure(srv, max_workers=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            icoframes.load_icos(status="past", progress=False)
        srv.behaviours[PROFILE] = html_reply(401, "sign in")
        before = srv.hits[PROFILE]
        with pytest.raises(APIError, match="32 different requests in a row were answered "
                           "HTTP 401 without an error code, and none of their kind right"):
            icoframes.load_icos(status="past", progress=False, refresh=refresh)
        assert srv.hits[PROFILE] - before == BREAKER_REFUSED  # (an error: asked once each)


def test_ids_answering_the_same_error_load_after_load_are_held_not_a_revoked_key(configure):
    # 40 ids answer HTTP 404 without a code on every load (the same error about each
    # request, as a revoked key's would be): they failed with it before, so it is theirs;
    # the run of 32 is held and every other profile is refreshed, on every load (with the
    # error taken as about every request, each load would raise APIError: REVK H1 again)
    service = _Service()
    gone = html_reply(404, "no such ICO")

    def profiles(h):
        (gone if int(h.request_json()["id"]) in BAD else service.profile)(h)

    with HostileServer({LIST: service.listing, PROFILE: profiles}) as srv:
        configure(srv, max_workers=1)
        _load(srv, service, 0)
        for day in (1, 2):
            icos, asked, _ = _load(srv, service, day)
            assert len(icos) == N - len(BAD)
            assert (icos["fetched_at"] >= DAY0 + dt.timedelta(days=day)).all()
            assert asked == BREAKER_REFUSED + N - len(BAD)  # (an error: asked once each)
            assert icos.attrs["icoframes"]["stopped"] == "breaker"


# -- a failure of an earlier day is as urgent as a new profile (REVK M4) ---------------------


def test_profiles_that_failed_days_ago_are_not_starved_by_new_ones_under_a_budget(configure):
    # day 0: 40 ICOs, 5 answered "data": null; then the service answers them. Each day 10 new
    # ICOs are listed and the budget is 10: the 5 come first in the list, so they are fetched
    # on day 1 with 5 new ones (at 3.9, after every new one, they were never fetched)
    listed, broken = [40], [True]
    failing = {3, 6, 9, 12, 15}

    def listing(h):
        paged_list(listed[0])(h)

    def profiles(h):
        asked = int(h.request_json()["id"])
        data = None if broken and asked in failing else {"id": asked, "main": {"name": "x"}}
        json_reply({"error": None, "data": data})(h)

    with HostileServer({LIST: listing, PROFILE: profiles}) as srv:
        configure(srv, max_workers=1)
        with time_machine.travel(DAY0, tick=True), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            icos = icoframes.load_icos(status="past", progress=False)
        assert failing.isdisjoint(icos["id"])
        broken.clear()
        listed[0] = 50
        before = srv.hits[PROFILE]
        with time_machine.travel(DAY0 + dt.timedelta(days=1), tick=True), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            icos = icoframes.load_icos(status="past", progress=False, budget=10, max_age=3600)
        assert srv.hits[PROFILE] - before == 10
        assert failing <= set(icos["id"])  # (was: none of them, day after day)
        assert sorted(icos.attrs["icoframes"]["over_budget"]) == list(range(46, 51))


def _null_for(bad):
    """Profiles echoing the id asked, ``bad`` ones answered ``"data": null``."""
    def behaviour(h):
        asked = int(h.request_json()["id"])
        data = None if asked in bad else {"id": asked, "main": {"name": f"P{asked}"}}
        json_reply({"error": None, "data": data})(h)
    return behaviour

"""Profiles left not asked by a run of wrong answers: their turn, their claims, their budget.

A run of wrong answers to profiles that failed before stops the asking of those
(``LoadControl.known_held``); the rest of them are skipped (REVK H1). REVI2 found three
things about the skipped ones: they were the same every load (failed ones asked in the
list's order: the first 32 made the run, the tail was never asked under
``refresh="all"``: M1), their claims were held until the load ended (L3), and under a
``budget`` they used up room of it unasked (L2). Simulated days (time-machine), real
loopback HTTP, one worker: the counts are exact.
"""

from __future__ import annotations

import datetime as dt
import warnings

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply, list_item

import icoframes
from icoframes.api.control import BREAKER_REFUSED
from icoframes.config import get_settings
from icoframes.store.cache import Cache

pytestmark = pytest.mark.usefixtures("quick_retries")

N = 200
BAD = set(range(5, N + 1, 5))  # 40 ids always answered "data": null: more than 32
DAY0 = dt.datetime(2026, 11, 27, 9, tzinfo=dt.UTC)


class _Service:
    """N past ICOs whose ``raised`` grows every day (each profile "changed"); ``bad`` ids
    answered ``"data": null``, and ``once`` on day 0 only; ``asked``: the ids of the day."""

    def __init__(self, bad=frozenset(BAD), once=frozenset()):
        self.day, self.bad, self.once, self.asked = 0, bad, once, []
        self.on_profile = None

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
        self.asked.append(asked)
        if self.on_profile is not None:
            self.on_profile(asked)
        wrong = asked in self.bad or (asked in self.once and self.day == 0)
        data = None if wrong else {"id": asked, "main": {"name": f"ICO {asked}"},
                                   "finance": {"raised": str(1000 + self.day)}}
        json_reply({"error": None, "data": data})(h)


def _load(service, day, **kw):
    """The day's load (its list paged again: max_age 1 hour); the frame and its report."""
    service.day, service.asked = day, []
    with time_machine.travel(DAY0 + dt.timedelta(days=day), tick=True), \
            warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        icos = icoframes.load_icos(status="past", progress=False, max_age=3600, **kw)
    return icos, icos.attrs["icoframes"], [str(w.message) for w in said]


def test_failed_profiles_skipped_in_one_load_are_asked_first_in_the_next(configure):
    # id 199 fails on day 0 only; the 40 bad ones always. Day 1 (refresh="all"): the first
    # 32 bad ones make the run, 165..200 and 199 are skipped. Day 2: those go first (their
    # last failure is the oldest), so 199 is fetched (before: never, day after day)
    service = _Service(once={199})
    with HostileServer({LIST: service.listing, PROFILE: service.profile}) as srv:
        configure(srv, max_workers=1)
        icos, report, _ = _load(service, 0)
        assert 199 not in set(icos["id"])
        tail = sorted(BAD)[BREAKER_REFUSED:]  # [165, ..., 200]
        icos, report, _ = _load(service, 1, refresh="all")
        assert report["not_done"] == sorted([*tail, 199])
        assert 199 not in service.asked and 199 not in set(icos["id"])
        before = srv.hits[PROFILE]
        icos, report, _ = _load(service, 2, refresh="all")
        assert 199 in set(icos["id"])
        # each bad one asked once: their failure of day 1 again (REVB M2: the first two of
        # each run twice, 203 requests)
        assert service.asked[:10] == [165, 170, 175, 180, 185, 190, 195, 199, 200, 5]
        # 199 answered right breaks the run: 7 + 1 + 32 bad ones asked, the 33rd (160) left
        assert report["not_done"] == [160]
        assert len(icos) == N - len(BAD)  # (199 among them; day 1: 159)
        assert len(set(service.asked)) == len(service.asked) == 7 + 1 + 32 + 159
        assert srv.hits[PROFILE] - before == len(service.asked)


def test_a_skipped_profile_is_released_for_other_processes_at_once(configure):
    # day 1: the 8 skipped ones were claimed, then skipped; while the load asks the first
    # changed profile (id 1), another process claims them (before: taken, until the load ended)
    service = _Service()
    seen = {}

    def other_process(asked):
        if service.day == 1 and asked == 1:
            settings = get_settings()
            cache = Cache(settings.cache_dir, settings.service_id or "")
            seen["held"] = sorted(row[0] for row in cache.database(write=False).rows(
                "SELECT id FROM claims"))
            with cache.claims() as other:
                seen["other"] = other.claim(sorted(BAD))

    service.on_profile = other_process
    with HostileServer({LIST: service.listing, PROFILE: service.profile}) as srv:
        configure(srv, max_workers=1)
        _load(service, 0)
        _, report, _ = _load(service, 1)
    tail = sorted(BAD)[BREAKER_REFUSED:]
    assert report["not_done"] == tail
    # those asked and answered wrongly too, once their failure is kept (it is final for the
    # load: another process waited for them until the load ended, then asked them anyway)
    assert seen["held"] == [1]  # before: [1, *asked], and before REVI2 L3 the 8 skipped too
    assert seen["other"] == (sorted(BAD), [], [])  # before: (tail, asked, [])


def test_a_profile_that_failed_in_the_load_is_released_once_its_failure_is_kept(configure):
    # day 0 (new profiles): id 3 answered "data": null twice is its failure; while the load
    # asks id 10, another process may claim 3 (it waited for it until the load ended)
    service = _Service(bad=frozenset({3}))
    seen = {}

    def other_process(asked):
        if asked == 10 and not seen:
            settings = get_settings()
            cache = Cache(settings.cache_dir, settings.service_id or "")
            seen["held"] = sorted(row[0] for row in cache.database(write=False).rows(
                "SELECT id FROM claims"))
            with cache.claims() as other:
                seen["other"] = other.claim([3, 9])

    service.on_profile = other_process
    with HostileServer({LIST: service.listing, PROFILE: service.profile}) as srv:
        configure(srv, max_workers=1)
        _, report, _ = _load(service, 0)
    assert report["failed"].keys() == {3}
    assert 3 not in seen["held"] and seen["held"][-1] == 10  # before: 3 held too
    assert seen["other"] == ([3], [9], [])  # before: ([], [3, 9], []); 9 is held (fetched)


def test_skipped_profiles_give_their_budget_room_to_the_next(configure):
    # day 1, budget=40: the 40 bad ones (failed: first) fill it; the run stops their asking
    # after 32 (each asked once: their failure again; REVB M2: the first two twice, 6
    # refreshed) and the 8 skipped give their room to 8 changed profiles: the whole budget
    # is sent (before: 34 requests, 0 refreshed, 160 said over budget with 6 requests of it
    # unsent)
    service = _Service()
    with HostileServer({LIST: service.listing, PROFILE: service.profile}) as srv:
        configure(srv, max_workers=1)
        _load(service, 0)
        before = srv.hits[PROFILE]
        icos, report, said = _load(service, 1, budget=40)
        assert srv.hits[PROFILE] - before == 40
        today = DAY0 + dt.timedelta(days=1)
        refreshed = sorted(icos.loc[icos["fetched_at"] >= today, "id"])
        assert refreshed == [1, 2, 3, 4, 6, 7, 8, 9]
        assert report["not_done"] == sorted(BAD)[BREAKER_REFUSED:]
        assert sorted(report["over_budget"]) == sorted(set(range(1, N + 1)) - BAD
                                                       - set(refreshed))
        assert any(s.startswith(f"{N - len(BAD) - 8} row(s) are kept from an earlier fetch: "
                                "the budget of this call ran out") for s in said), said

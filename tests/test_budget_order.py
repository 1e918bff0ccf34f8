"""Under ``budget=`` the same call picks the same profiles: equally urgent ones in the
order of the load's lists (its first query's page 1 first), not in the order their pages
happened to arrive in (threads race: six identical calls fetched five different sets)."""

from __future__ import annotations

import datetime as dt
import threading
import warnings

import time_machine
from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, paged_list
from ledger_day import NOON
from waiting import HANG_GUARD

import icoframes
from icoframes.fetch.planner import ProfilePlan


def _echo(h):
    asked = int(h.request_json()["id"])
    json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)


def test_a_budget_fetches_the_lists_first_rows_whatever_order_its_pages_arrive_in(configure):
    listing = paged_list(60)  # 3 pages: ids 1-20, 21-40, 41-60, all new (equally urgent)
    third_answered = threading.Event()
    second_asked = 0

    def pages(h):
        nonlocal second_asked
        page = h.request_json().get("page")
        if page == 2 and not second_asked:  # page 2 fails once page 3 has answered, and
            second_asked += 1  # comes after its retry's wait: page 3's rows come first
            assert third_answered.wait(HANG_GUARD)
            html_reply(503, "busy")(h)
            return
        listing(h)
        if page == 3:
            third_answered.set()

    with HostileServer({LIST: pages, PROFILE: _echo}) as srv:
        configure(srv, max_workers=3)  # pages 2 and 3 asked together, after page 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the 35 left to the budget are reported)
            icos = icoframes.load_icos(status="past", budget=25, progress=False)
        assert third_answered.is_set() and srv.hits[LIST] == 4
        # page 1's rows, then page 2's first five (was: 1-20 and 41-45, page 3's)
        assert sorted(icos["id"]) == list(range(1, 26))
        assert sorted(icos.attrs["icoframes"]["over_budget"]) == list(range(26, 61))
        assert srv.hits[PROFILE] == 25



def test_a_budget_among_equally_stale_profiles_is_not_picked_by_page_arrival_times(
        configure, monkeypatch):
    # every profile fetched at once, stale now; page 3 of the refresh is answered an hour
    # later (its handler moves the clock, once pages 1 and 2 are planned): staleness was
    # reckoned at each page's arrival, so page 3 looked an hour staler and the budget took
    # ids 41-50, not 1-10 (the oldest, the lists' first rows)
    listing, late, planned = paged_list(60), threading.Event(), threading.Semaphore(0)
    add = ProfilePlan.add

    def counted(self, *args, **kwargs):
        try:
            return add(self, *args, **kwargs)
        finally:
            planned.release()

    def pages(h):
        if late.is_set() and h.request_json().get("page") == 3:
            assert planned.acquire(timeout=HANG_GUARD) and planned.acquire(timeout=HANG_GUARD)
            clock.shift(dt.timedelta(hours=1))
        listing(h)

    monkeypatch.setattr(ProfilePlan, "add", counted)
    with time_machine.travel(NOON, tick=True) as clock, \
            HostileServer({LIST: pages, PROFILE: _echo}) as srv:
        configure(srv, max_workers=1)  # one at a time: ids 1-60 fetched in order
        icoframes.load_icos(status="past", progress=False)
        clock.shift(dt.timedelta(seconds=10))  # older than the 1 s maximum age below
        while planned.acquire(blocking=False):  # (the first load's)
            pass
        late.set()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the 50 left to the budget are reported)
            icos = icoframes.load_icos(status="past", progress=False, budget=10, max_age=0,
                                       profile_max_age=1)
        refreshed = set(range(1, 61)) - set(icos.attrs["icoframes"]["over_budget"])
        assert sorted(refreshed) == list(range(1, 11))
        assert srv.hits[PROFILE] == 70 and srv.hits[LIST] == 6

"""Under ``budget=`` the same call picks the same profiles: equally urgent ones in the
order of the load's lists (its first query's page 1 first), not in the order their pages
happened to arrive in (threads race: six identical calls fetched five different sets)."""

from __future__ import annotations

import threading
import warnings

from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, paged_list
from waiting import HANG_GUARD

import icoframes


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

"""What the warning of a partial list says is true of it (REV-CM F5, F7).

A page 1 whose ``total_pages`` understates its ``total_icos``: paging stops at the pages the
service said, and the warning said untruly that its pages came "to the first listing none"
(no page listing none was asked). A list item whose id is unread: the warning pointed to
``missing``, which holds none (no id to list); it says where that item is reported."""

from __future__ import annotations

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list, profile_reply

import icoframes
from icoframes.errors import IncompleteWarning


def test_a_list_paged_to_its_total_pages_says_so_not_an_empty_page(configure):
    with HostileServer({LIST: paged_list(40, total_pages=1),
                        PROFILE: profile_reply(lambda i: {"id": i, "main": {"name": "P"}})}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning) as caught:
            icos = icoframes.load_icos(status="past", progress=False)
        assert len(icos) == 20
        said = " ".join(str(w.message) for w in caught)
        assert "(20 of its 40 ICOs missing)" in said
        assert "came (to the first listing none)" not in said  # (untrue: none was asked)
        assert ("its pages came (to the last of the total_pages it gave, or to the first "
                "listing none), with fewer ICOs than the count says") in said


def test_a_list_item_with_an_unreadable_id_is_said_where_it_is_reported(configure):
    # REV-CM F7: the warning pointed to attrs['icoframes']['missing'], empty (no id to list)
    items = [{"id": i, "main": {"name": f"ICO {i}"}} for i in range(1, 21)]
    items[6]["id"] = "abc"
    page = {"total_icos": 20, "total_pages": 1, "current_page": 1, "error": None, "data": items}
    with HostileServer({LIST: json_reply(page),
                        PROFILE: profile_reply(lambda i: {"id": i, "main": {"name": "P"}})}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning) as caught:
            icos = icoframes.load_icos(status="past", progress=False)
        assert len(icos) == 19
        report = icos.attrs["icoframes"]
        assert report["missing"] == []
        assert [p["reason"] for p in report["queries"][0]["problems"]] == ["unreadable_id"]
        said = " ".join(str(w.message) for w in caught)
        assert ("partial (1 of its 20 ICOs missing; 1 of its items with an id unread, in its "
                "problems in attrs['icoframes']['queries'], not in missing)") in said

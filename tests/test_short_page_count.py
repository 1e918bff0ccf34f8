"""A page 1 whose ``total_pages`` understates its ``total_icos`` (REV-CM F5): paging stops at
the pages the service said, and the warning said untruly that its pages came "to the first
listing none" (no page listing none was asked). It says now where paging stopped."""

from __future__ import annotations

import pytest
from hostile import LIST, PROFILE, HostileServer, paged_list, profile_reply

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

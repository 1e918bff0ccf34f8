"""A page 1 whose ``total_pages`` is unread is paged by its ``total_icos``, its items kept.

REV-CM F6: a page 1 holding 20 good items whose ``total_pages`` was null, negative or huge
(above the 10,000 pages accepted) failed the gate twice, and the load raised ``BadResponse
... total_pages is null, not a non-negative integer`` with no row. ``total_pages`` only
repeats what ``total_icos`` says (20 ICOs a page): the load now pages by ``total_icos``, as
many pages as a ``total_pages`` it read could have made it ask (the first page listing none
still ends it), and says so in a logged warning with the numbers. ``Client.list_page``, whose
caller pages by ``total_pages`` itself, still refuses such a page (tests/test_gate.py). When
both counts are read but disagree, the pages of the more are asked.
"""

from __future__ import annotations

import logging
from collections import Counter

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, list_item

import icoframes
from icoframes.errors import BadResponse, IncompleteWarning

pytestmark = pytest.mark.usefixtures("quick_retries")

UNREAD = {  # page 1's total_pages -> what the warning says of it
    "null": (None, "total_pages is null, not a non-negative integer"),
    "negative": (-1, "total_pages is -1, not a non-negative integer"),
    "huge": (1_000_000_000, "total_pages is 1000000000, above the 10000 pages accepted"),
    "text": ("two", "total_pages is 'two', not a non-negative integer"),
    "missing": (..., "total_pages is missing, not a non-negative integer"),
}


TRUE = object()  # the pages total_icos makes


def _pages(n: int, first_pages, asked: Counter, *, total_icos=None, later_pages=TRUE):
    """A list of ``n`` ICOs, 20 a page, counting ``total_icos`` (default ``n``); page 1 says
    ``first_pages`` as its total_pages (``...``: none), the others ``later_pages``; pages
    asked are counted in ``asked``."""
    items = [list_item(i) for i in range(1, n + 1)]
    icos = n if total_icos is None else total_icos

    def behaviour(h):
        page = h.request_json().get("page", 1)
        asked[page] += 1
        said = first_pages if page == 1 else (
            -(-icos // 20) if later_pages is TRUE else later_pages)
        body = {"total_icos": icos, "current_page": page, "error": None,
                "data": items[(page - 1) * 20:page * 20]}
        if said is not ...:
            body["total_pages"] = said
        json_reply(body)(h)
    return behaviour


def _said(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "icoframes.fetch.paging"]


@pytest.mark.parametrize("kind", UNREAD, ids=list(UNREAD))
def test_page_1_with_total_pages_unread_is_kept_and_paged_by_total_icos(configure, caplog,
                                                                         kind):
    first, why = UNREAD[kind]
    asked: Counter[int] = Counter()
    with HostileServer({LIST: _pages(20, first, asked)}) as srv:
        configure(srv)
        with caplog.at_level(logging.WARNING, logger="icoframes.fetch.paging"):
            frame = icoframes.load_list(status="past", progress=False)  # (was BadResponse)
    assert frame["id"].tolist() == list(range(1, 21))
    (query,) = frame.attrs["icoframes"]["queries"]
    assert (query["complete"], query["total_icos"], query["failed_pages"]) == (True, 20, {})
    assert asked == {1: 1}  # once: no page more, no second try (the gate refused it twice)
    assert _said(caplog) == [f"the list {{'status': 'past'}}: page 1 says {why}: paged to the "
                             "first page listing none, 1 page(s) at most (20 ICOs counted, 20 "
                             "a page)"]


@pytest.mark.parametrize("later", [TRUE, None], ids=["later-pages-right", "every-page-null"])
def test_a_longer_list_is_paged_by_total_icos_whole(configure, caplog, later):
    asked: Counter[int] = Counter()
    with HostileServer({LIST: _pages(50, None, asked, later_pages=later)}) as srv:
        configure(srv)
        with caplog.at_level(logging.WARNING, logger="icoframes.fetch.paging"):
            frame = icoframes.load_list(status="past", progress=False)
    assert frame["id"].tolist() == list(range(1, 51))
    (query,) = frame.attrs["icoframes"]["queries"]
    assert (query["complete"], query["failed_pages"]) == (True, {})  # not taken for a move
    assert asked == {1: 1, 2: 1, 3: 1}  # the 3 pages 50 ICOs make, each once
    assert len(_said(caplog)) == 1 and "3 page(s) at most (50 ICOs counted" in _said(caplog)[0]


def test_counts_that_disagree_page_by_the_more_of_the_two(configure, caplog):
    # 60 ICOs counted 10 (1 page) in 3 pages: which count is wrong is unknown; the pages of
    # the more are asked (paging ends at the first listing none all the same): every row
    asked: Counter[int] = Counter()
    with HostileServer({LIST: _pages(60, 3, asked, total_icos=10, later_pages=3)}) as srv:
        configure(srv)
        with caplog.at_level(logging.WARNING, logger="icoframes.fetch.paging"):
            frame = icoframes.load_list(status="past", progress=False)  # (was BadResponse)
    assert frame["id"].tolist() == list(range(1, 61)) and asked == {1: 1, 2: 1, 3: 1}
    assert _said(caplog) == ["the list {'status': 'past'}: page 1 says total_pages is 3 but "
                             "total_icos 10 makes 1 pages of 20: paged to the first page "
                             "listing none, 3 page(s) at most (10 ICOs counted, 20 a page)"]


def test_a_count_that_overstates_costs_what_it_costs_with_total_pages_read(configure):
    # 30 ICOs counted 100 (5 pages): the pages asked together after page 1, to the first
    # listing none, and the same once more (a pass short of its count is paged again): as
    # with a count read, no page more
    cost: dict[str, Counter[int]] = {}
    for name, first in (("read", 5), ("unread", None)):
        asked: Counter[int] = Counter()
        with HostileServer({LIST: _pages(30, first, asked, total_icos=100)}) as srv:
            configure(srv)  # (a service of its own: its own lists in the cache)
            with pytest.warns(IncompleteWarning, match="70 of its 100 ICOs missing"):
                frame = icoframes.load_list(status="past", progress=False)
        assert frame["id"].tolist() == list(range(1, 31))
        assert frame.attrs["icoframes"]["queries"][0]["count_contradicts"]
        cost[name] = asked
    assert cost["unread"] == cost["read"] == dict.fromkeys(range(1, 6), 2)


def test_a_load_of_profiles_gets_the_rows_of_such_a_page(configure):
    asked: Counter[int] = Counter()
    def profile(h):
        i = int(h.request_json()["id"])
        return json_reply({"error": None, "data": {"id": i, "main": {"name": f"P{i}"}}})(h)
    with HostileServer({LIST: _pages(20, 10**9, asked), PROFILE: profile}) as srv:
        configure(srv)
        icos = icoframes.load_icos(status="past", progress=False)  # (was BadResponse, no row)
        assert sorted(icos["id"]) == list(range(1, 21)) and srv.hits[PROFILE] == 20
    assert asked == {1: 1}


def test_total_icos_unread_or_above_the_pages_accepted_is_still_refused(configure):
    # nothing then bounds the paging: the page is refused, as before (no row)
    for icos, pages, why in (("many", None, "total_icos is 'many'"),
                             (10_000 * 20 + 1, None, "total_pages is null")):
        asked: Counter[int] = Counter()
        with HostileServer({LIST: _pages(20, pages, asked, total_icos=icos)}) as srv:
            configure(srv)
            with pytest.raises(BadResponse, match=why):
                icoframes.load_list(status="past", progress=False)
        assert asked == {1: 2}

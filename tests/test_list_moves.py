"""A list that moves while it is paged (an ICO comes or goes between two pages) is kept as the
service lists it, or partial, never as a "complete" list of the wrong rows or order (review Q2
items 1-2). The sandbox over loopback changes its directory right after a page is computed.
"""

from __future__ import annotations

import math

import pytest
from hostile import LIST, HostileServer, json_reply, list_item
from test_narrower_loads import listed_by_service  # the sandbox's ids, paged over loopback

import icoframes
from icoframes import sandbox
from icoframes.errors import IncompleteWarning, NotCached


@pytest.fixture
def moving(tmp_path, monkeypatch):
    """A sandbox of its own; ``change(after_call, *steps)`` runs each step right after the
    ``after_call``-th list query is computed (1: page 1 of the first load), one per query."""
    with sandbox.serve(n_icos=200, seed=3) as sb:
        # one request at a time: which pages a pass sends before it stops is then fixed
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", max_workers=1)
        icoframes.load_filters()
        query, calls = sb.directory.query, []

        def change(after_call, *steps):
            def hooked(params):
                out = query(params)
                calls.append(1)
                if after_call <= len(calls) < after_call + len(steps):
                    steps[len(calls) - after_call]()
                return out
            monkeypatch.setattr(sb.directory, "query", hooked)
        sb.change = change
        sb.stats.reset()
        yield sb
        icoframes.reset_configuration()


def pages_of(n: int) -> int:
    return math.ceil(n / 20)


def test_an_ico_listed_between_two_pages_is_where_the_service_lists_it(moving):
    """Added after page 1 (it tops the list): pass 1 stops at page 2 (its counts moved), pass 2
    is the list, in the service's order (was: pass 1's order, the new ICO last)."""
    new = []
    moving.change(1, lambda: new.append(moving.add_ico("past")))
    icos = icoframes.load_icos(status="past", progress=False)
    pages = moving.stats.requests["icos"]
    service = listed_by_service(moving)
    (query,) = icos.attrs["icoframes"]["queries"]
    assert query["complete"] and query["failed_pages"] == {} and query["rows"] == len(service)
    assert icos["id"].tolist() == service and service[0] == new[0]
    assert pages == 2 + pages_of(len(service))  # pages 1-2, then all
    assert icos.attrs["icoframes"]["requests"]["icos"] == pages
    moving.stats.reset()
    narrow = icoframes.load_list(status="past", ico_score=1, sort_asc="id", progress=False)
    assert not any(moving.stats.requests.values())  # answered from it, in the service's order
    assert narrow["id"].tolist() == listed_by_service(moving, ico_score=1, sort_asc="id")


def test_an_ico_leaving_between_two_pages_is_not_kept_and_none_is_skipped(moving):
    """One of page 1 moves to ``ongoing`` after page 1: page 2's head would shift onto page 1
    unseen, and the count (one fewer) agrees with the rows seen (was: a complete list with the
    gone ICO and without the skipped one)."""
    before = listed_by_service(moving)
    moved, skipped = before[5], before[20]
    moving.stats.reset()
    moving.change(1, lambda: moving.update_ico(moved, status="ongoing"))
    icos = icoframes.load_icos(status="past", progress=False)
    assert moving.stats.requests["icos"] == 2 + pages_of(len(before) - 1)
    (query,) = icos.attrs["icoframes"]["queries"]
    assert icos["id"].tolist() == listed_by_service(moving) == [i for i in before if i != moved]
    assert skipped in icos["id"].tolist() and moved not in icos["id"].tolist()
    assert query["complete"] and query["total_icos"] == len(before) - 1


def test_a_list_that_keeps_moving_is_kept_partial_and_says_why(moving):
    """An ICO added after every page: two passes (bounded), then the list is partial, the
    moved pages named in ``failed_pages``; the next call pages it again and a narrower query
    is not answered from it."""
    n = len(listed_by_service(moving))
    moving.stats.reset()
    moving.change(1, *[lambda: moving.add_ico("past")] * 40)
    with pytest.warns(IncompleteWarning, match="is partial"):
        listing = icoframes.load_list(status="past", progress=False)
    (query,) = listing.attrs["icoframes"]["queries"]
    assert not query["complete"] and not query["count_contradicts"]
    assert query["failed_pages"] and all(
        why.startswith("the list moved while it was paged: page 1 counted ")
        for why in query["failed_pages"].values())
    # pass 1: pages 1-2 (page 2's counts moved); pass 2: every page its page 1 counted
    assert moving.stats.requests["icos"] == 2 + pages_of(n + 2)
    assert len(listing) >= n + 2  # every row either pass saw
    with pytest.raises(NotCached):  # a partial list answers no narrower query
        icoframes.load_list(status="past", ico_score=1, sort_asc="id", progress=False,
                            offline=True)
    moving.stats.reset()
    with pytest.warns(IncompleteWarning):
        icoframes.load_list(status="past", progress=False)
    assert moving.stats.requests["icos"] > 0  # paged again, not used as cached


def test_a_list_that_shrank_past_its_last_page_is_paged_again(moving):
    """141 ICOs on 8 pages; after page 7 one of page 1 leaves, so page 8 is past the end (error
    482, no counts): the pass moved, the second is the list (was: kept as the count's fault,
    ``count_contradicts``, with the gone ICO and without one listed, used until max_age)."""
    before = listed_by_service(moving)
    while len(before) % 20 != 1:  # the lowest ids: the end of the service's order
        moving.remove_ico(before.pop())
    gone, pages = before[5], pages_of(len(before))
    moving.stats.reset()
    moving.change(pages - 1, lambda: moving.update_ico(gone, status="ongoing"))
    listing = icoframes.load_list(status="past", progress=False)
    assert moving.stats.requests["icos"] == pages + pages_of(len(before) - 1) == 8 + 7
    (query,) = listing.attrs["icoframes"]["queries"]
    assert listing["id"].tolist() == listed_by_service(moving) == [i for i in before if i != gone]
    assert (query["complete"], query["count_contradicts"], query["failed_pages"]) == (
        True, False, {})



def _pages(answer):
    """A hostile list: page ``n`` after the ``k``-th request of a page 1 answers
    ``answer(n, k)`` = (total_icos, total_pages, ids); no id: error 482."""
    calls = []

    def behaviour(h):
        page = h.request_json().get("page", 1)
        calls.append(page)
        total, pages, ids = answer(page, calls.count(1))
        json_reply({"error": None, "total_icos": total, "total_pages": pages,
                    "current_page": page, "data": [list_item(i) for i in ids]}
                   if ids else {"error": 482, "data": []})(h)
    return behaviour


@pytest.mark.parametrize("second", [(60, 3), (59, 3)], ids=["same", "moved"])
def test_a_page_page_1_counted_listing_none_is_a_move_then_the_counts_fault(tmp_path, second):
    """Page 2 of 3 answers 482 (page 3 would list ICOs): pass 1 moved, paged again (was: the
    list ended there, 'every page came'); pass 2 ending at the same page of the same counts is
    the count's fault (``count_contradicts``: used as cached), at another count a list still
    moving (partial, the page in ``failed_pages``, paged again by the next call)."""
    ids = {1: range(1, 21), 2: (), 3: range(41, 61)}
    behaviour = _pages(lambda page, k: (*((60, 3) if k % 2 else second), ids.get(page, ())))
    with HostileServer({LIST: behaviour}) as srv:
        # one request at a time: page 3 is not asked along with page 2
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache", max_workers=1)
        try:
            with pytest.warns(IncompleteWarning) as warned:
                listing = icoframes.load_list(status="past", progress=False)
            assert srv.hits[LIST] == 4  # pages 1-2 twice: a page listing none ends a pass
            with pytest.warns(IncompleteWarning):
                icoframes.load_list(status="past", progress=False)
            again = srv.hits[LIST] - 4
        finally:
            icoframes.reset_configuration()
    (query,) = listing.attrs["icoframes"]["queries"]
    assert listing["id"].tolist() == list(range(1, 21)) and not query["complete"]
    if second == (60, 3):
        assert query["count_contradicts"] and query["failed_pages"] == {} and again == 0
        assert ("is partial (40 of its 60 ICOs missing); its pages came (to the last of the "
                "total_pages it gave, or to the first listing none), with fewer ICOs than the "
                "count says: it is paged again once older than max_age") in str(warned[0].message)
    else:
        assert not query["count_contradicts"] and again == 4
        assert query["failed_pages"] == {"2": "the list moved while it was paged: page 1 "
                                          "counted 59 ICOs in 3 pages, page 2 listed none"}


def test_a_list_whose_count_lies_is_its_last_pass_alone(tmp_path):
    """total_icos is 5 too high on every page: both passes come short; ICO 40 leaves between
    them and is not in the list (was: both passes merged, the gone ICO kept until max_age)."""
    def answer(page, k):
        listed = list(range(1, 41 if k == 1 else 40))
        return len(listed) + 5, 2, listed[(page - 1) * 20:page * 20]
    with HostileServer({LIST: _pages(answer)}) as srv:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache")
        try:
            with pytest.warns(IncompleteWarning, match="with fewer ICOs than the count says"):
                listing = icoframes.load_list(status="past", progress=False)
            assert srv.hits[LIST] == 4
            with pytest.warns(IncompleteWarning, match="once older than max_age"):
                warm = icoframes.load_list(status="past", progress=False)
            assert srv.hits[LIST] == 4  # used as cached: the count's fault
        finally:
            icoframes.reset_configuration()
    for frame in (listing, warm):
        (query,) = frame.attrs["icoframes"]["queries"]
        assert frame["id"].tolist() == list(range(1, 40))
        assert (query["complete"], query["count_contradicts"], query["total_icos"],
                query["failed_pages"]) == (False, True, 44, {})


@pytest.mark.parametrize("workers", [1, 4])
def test_an_ico_only_the_moved_pass_listed_gets_no_profile_request(moving, tmp_path, workers):
    """One of page 1 leaves after page 1: pass 1 moved, and the profile of the ICO only it
    listed is not asked (was: asked, a request for a row the result lacks), each listed one
    once; with 4 workers pages 2-5 of pass 1 are out when the move shows."""
    icoframes.configure(**moving.settings(), cache_dir=tmp_path / "cache", max_workers=workers)
    before = listed_by_service(moving)
    gone = before[5]
    moving.stats.reset()
    moving.change(1, lambda: moving.update_ico(gone, status="ongoing"))
    icos = icoframes.load_icos(status="past", progress=False)
    requests = dict(moving.stats.requests)
    assert icos["id"].tolist() == listed_by_service(moving) == [i for i in before if i != gone]
    assert requests["icos"] == (1 if workers == 1 else 4) + 1 + pages_of(len(before) - 1)
    assert requests["ico"] == len(icos) == len(before) - 1
    attrs = icos.attrs["icoframes"]
    assert (attrs["gone"], attrs["not_done"], attrs["failed"]) == ([], [], {})

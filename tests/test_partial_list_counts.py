"""A partial list says how many ICOs it lacks, or that it cannot tell: never ``missing`` 0
beside ``complete`` False (tests/test_loaders.py's faults-and-a-shifting-list test met it
once in ~180 runs). Hostile lists over loopback, each step ordered by events."""

from __future__ import annotations

import threading

import pytest
from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, list_item, profile_reply
from waiting import HANG_GUARD

import icoframes
from icoframes.errors import IncompleteWarning
from icoframes.fetch.result import recounted


def _answer(h, ids: list[int], page: int) -> None:
    json_reply({"error": None, "total_icos": len(ids), "total_pages": -(-len(ids) // 20),
                "current_page": page, "data": [list_item(i) for i in ids[(page - 1) * 20:][:20]]
                })(h)


def test_the_count_of_a_page_answered_earlier_but_handled_last_does_not_hide_an_ico(configure):
    """The list gains an ICO at its top after each of two pages, as the sandbox's
    ``grow_every`` does. Pass 2's page 2 is answered at 41 ICOs, then the list grows to 42
    and page 3 says so; page 2's answer reaches the load only after it handled page 3 (it
    asked the profile of ICO 40, which page 3 alone lists in that pass). The count is the
    highest the pass's pages gave, 42: ICO 101 is missing (was: the count of the page handled
    last, 41, so the 41 rows seen met it: ``missing`` 0 with ``complete`` False)."""
    listed = list(range(1, 41))
    lock, rendered, handled = threading.Lock(), threading.Event(), threading.Event()
    firsts: list[int] = []

    def lists(h) -> None:
        page = h.request_json().get("page", 1)
        with lock:
            firsts.extend([1] if page == 1 else [])
            again, ids = len(firsts) > 1, list(listed)  # as the list is when it is asked
            if page == 1 and not again:
                listed.insert(0, 100)  # pass 1's page 2 will count 41: paged again
        if again and page == 3:
            assert rendered.wait(HANG_GUARD)  # after page 2 was answered and the list grew
            ids = list(listed)
        if again and page == 2:  # answered at 41 ICOs; the list grows; sent once the load
            with lock:  # handled page 3
                listed.insert(0, 101)
            rendered.set()
            assert handled.wait(HANG_GUARD)
        _answer(h, ids, page)

    def profile(h) -> None:
        if h.request_json().get("id") in (40, "40"):
            handled.set()
        profile_reply(lambda asked: {"id": str(asked), "main": {"name": "x"}})(h)

    with HostileServer({LIST: lists, PROFILE: profile}) as server:
        configure(server, max_workers=2)
        with pytest.warns(IncompleteWarning, match=r"is partial \(1 of its 42 ICOs missing\)"):
            icos = icoframes.load_icos(status="past", progress=False)
    assert rendered.is_set() and handled.is_set() and server.hits[LIST] == 2 + 3
    (query,) = icos.attrs["icoframes"]["queries"]
    assert sorted(icos["id"]) == [*range(1, 41), 100]  # 101 came after pass 2's page 1
    assert (query["complete"], query["rows"], query["total_icos"], query["missing"]) == (
        False, 41, 42, 1)
    assert sorted(query["failed_pages"]) == ["2", "3"]  # pass 1's page 2, pass 2's page 3
    assert "missing_unknown" not in query


def _grows_then_page_2_fails(n: int, *, after: list[int]):
    """A list of ``n`` ICOs that gains ICO ``n + 1`` at its end once the pages ``after`` were
    asked (in that order), and whose page 2 fails for good from the second pass on; the
    pages asked, one request at a time."""
    listed, asked = list(range(1, n + 1)), []

    def lists(h) -> None:
        page = h.request_json().get("page", 1)
        asked.append(page)
        if asked.count(1) > 1 and page == 2:
            return html_reply(503, "down")(h)
        _answer(h, list(listed), page)
        if asked == after:
            listed.append(n + 1)
    return lists, asked


def test_a_partial_list_whose_rows_reach_its_count_says_how_many_it_lacks_is_unknown(
        configure, quick_retries):
    """ICO 61 joins the end of the list after pass 1's page 2, so page 3 moved and the list is
    paged again; in pass 2 page 2 fails for good. Pass 1 listed page 2's ICOs, so the rows
    (1-61) reach the count (61), yet what page 2 lists now is unknown: one that joined there
    may be missing while one that left makes up the count. ``missing`` is None and
    ``missing_unknown`` says why (was: ``missing`` 0 with ``complete`` False)."""
    lists, asked = _grows_then_page_2_fails(60, after=[1, 2])
    with HostileServer({LIST: lists}) as server:
        configure(server, max_workers=1)
        with pytest.warns(IncompleteWarning, match=r"is partial \(pages failed\)"):
            listing = icoframes.load_list(status="past", progress=False)
    assert asked == [1, 2, 3] + [1] + [2] * 6 + [3, 4]  # page 2 of pass 2: its 6 attempts
    (query,) = listing.attrs["icoframes"]["queries"]
    assert sorted(listing["id"]) == list(range(1, 62))
    assert (query["complete"], query["rows"], query["total_icos"], query["missing"]) == (
        False, 61, 61, None)
    assert sorted(query["failed_pages"]) == ["2", "3"] and "503" in query["failed_pages"]["2"]
    assert query["failed_pages"]["3"].startswith("the list moved while it was paged")
    assert query["missing_unknown"] == (
        "its 61 rows reach its count of 61, but page(s) 2, 3 failed or moved (failed_pages): "
        "what the list holds there now is unknown (an ICO that joined it there may be "
        "missing while a row it no longer lists makes up the count)")
    (said,) = icoframes.report(listing).queries
    assert said.missing is None and said.missing_unknown == query["missing_unknown"]


def test_a_page_that_failed_in_the_last_pass_says_so_though_it_moved_in_the_first(
        configure, quick_retries):
    """ICO 41 joins the end of the list after pass 1's page 1, so pass 1's page 2 moved; in
    pass 2 that page fails for good. ``failed_pages`` says why the list lacks it now, the
    failure (was: pass 1's move, which pass 2 had paged past), and the warning names it."""
    lists, asked = _grows_then_page_2_fails(40, after=[1])
    with HostileServer({LIST: lists}) as server:
        configure(server, max_workers=1)
        with pytest.warns(IncompleteWarning, match=r"is partial \(pages failed\)"):
            listing = icoframes.load_list(status="past", progress=False)
    assert asked == [1, 2] + [1] + [2] * 6 + [3]
    (query,) = listing.attrs["icoframes"]["queries"]
    assert sorted(listing["id"]) == list(range(1, 42))
    assert (query["complete"], query["rows"], query["total_icos"], query["missing"]) == (
        False, 41, 41, None)
    assert list(query["failed_pages"]) == ["2"]
    assert "503" in query["failed_pages"]["2"] and "moved" not in query["failed_pages"]["2"]


def test_the_count_of_a_list_that_shrank_while_paged_is_its_lowest(configure, quick_retries):
    """ICOs 21 and 22 leave the list once page 1 counted 50; page 2 fails for good and page 3
    counts 48. The list lacks 20 of its 48 ICOs now (23-42): the count of a list that shrank
    is the lowest its pages gave (was: the highest, page 1's 50: 22 missing, 2 of them ICOs
    that left)."""
    listed, asked = list(range(1, 51)), []

    def lists(h) -> None:
        page = h.request_json().get("page", 1)
        asked.append(page)  # (one request at a time)
        if page == 2:
            return html_reply(503, "down")(h)
        _answer(h, list(listed), page)
        if page == 1:
            del listed[20:22]  # ICOs 21 and 22

    with HostileServer({LIST: lists}) as server:
        configure(server, max_workers=1)
        with pytest.warns(IncompleteWarning, match=r"is partial \(20 of its 48 ICOs missing\)"):
            listing = icoframes.load_list(status="past", progress=False)
    assert asked == [1] + [2] * 6 + [3]  # a page failed: not paged again
    (query,) = listing.attrs["icoframes"]["queries"]
    assert listing["id"].tolist() == [*range(1, 21), *range(43, 51)]
    assert (query["complete"], query["rows"], query["total_icos"], query["missing"]) == (
        False, 28, 48, 20)
    assert sorted(query["failed_pages"]) == ["2", "3"] and "missing_unknown" not in query


def test_a_list_that_grew_and_shrank_while_paged_says_its_count_is_unknown(
        configure, quick_retries):
    """Pass 1 moved (ICO 71 joined after page 1). In pass 2 page 1 counts 71, page 2 fails for
    good, ICO 72 joins before page 3 (72), and 70-72 leave before page 4 (69). Which count is
    the latest the pages do not say: ``missing`` is None and ``missing_unknown`` says why,
    ``total_icos`` the highest (was: 3 of 72 missing, though the list now holds 69 ICOs, each
    a row)."""
    listed, asked = list(range(1, 71)), []

    def lists(h) -> None:
        page = h.request_json().get("page", 1)
        asked.append(page)  # (one request at a time)
        again = asked.count(1) > 1
        if again and page == 2:
            return html_reply(503, "down")(h)
        if again and page == 3:
            listed.append(72)
        _answer(h, list(listed), page)
        if asked == [1]:
            listed.append(71)
        if again and page == 3:
            del listed[-3:]

    with HostileServer({LIST: lists}) as server:
        configure(server, max_workers=1)
        with pytest.warns(IncompleteWarning, match=r"is partial \(pages failed\)"):
            listing = icoframes.load_list(status="past", progress=False)
    assert asked == [1, 2] + [1] + [2] * 6 + [3, 4] and listed == list(range(1, 70))
    (query,) = listing.attrs["icoframes"]["queries"]
    assert sorted(listing["id"]) == listed
    assert (query["complete"], query["rows"], query["total_icos"], query["missing"]) == (
        False, 69, 72, None)
    assert sorted(query["failed_pages"]) == ["2", "3", "4"] and "503" in query["failed_pages"]["2"]
    assert query["missing_unknown"] == (
        "its pages counted 69 to 72 ICOs (page 1: 71): the list grew and shrank while it was "
        "paged, how many it holds now is unknown")
    (said,) = icoframes.report(listing).queries
    assert said.missing is None and said.missing_unknown == query["missing_unknown"]


_BOTH = "its pages counted 69 to 72 ICOs (page 1: 71): the list grew and shrank while ..."


@pytest.mark.parametrize(("before", "rows", "missing", "unknown"), [
    ({"rows": 20, "total_icos": 25, "missing": 5}, 23, 2, None),
    ({"rows": 20, "total_icos": 25, "missing": 5}, 25, None, "its 25 rows reach its count of 25"),
    ({"rows": 26, "total_icos": 25, "missing": None, "missing_unknown": "its 26 rows reach"},
     28, None, "its 28 rows reach its count of 25"),
    ({"rows": 60, "total_icos": 72, "missing": None, "missing_unknown": _BOTH}, 65, None, _BOTH),
    ({"rows": 0, "total_icos": None, "missing": None}, 3, None, None),
])
def test_rows_kept_from_a_days_folder_count_what_the_list_lacks_anew(
        before, rows, missing, unknown):
    """An export's partial list with rows kept from its day's folder (dayfolder): ``missing``
    counted anew, None with ``missing_unknown`` once the rows reach the count (was: 0); a
    count its pages left unknown (both ways) stays so."""
    query = {"params": {"status": "past"}, "complete": False,
             "failed_pages": {"2": "HTTP 503"}, **before}
    after = recounted(query, rows)
    assert (after["rows"], after["missing"]) == (rows, missing)
    assert (after.get("missing_unknown") or "").startswith(unknown or "") and (
        "missing_unknown" in after) is (unknown is not None)


def test_a_list_that_moved_on_each_pass_and_no_page_failed_is_said_moved(configure):
    """ICO 1 leaves after pass 1's page 1, ICO 2 after pass 2's: page 2 moved on each pass
    and no page failed. The rows (1-40, two of them ICOs that left) reach the count (38):
    the warning says its pages moved (was: 'pages failed')."""
    listed, asked = list(range(1, 41)), []

    def lists(h) -> None:
        page = h.request_json().get("page", 1)
        asked.append(page)  # (one request at a time)
        _answer(h, list(listed), page)
        if page == 1:
            listed.pop(0)

    with HostileServer({LIST: lists}) as server:
        configure(server, max_workers=1)
        with pytest.warns(IncompleteWarning, match=r"is partial \(pages moved\); the next call"):
            listing = icoframes.load_list(status="past", progress=False)
    assert asked == [1, 2, 1, 2] and listed == list(range(3, 41))
    (query,) = listing.attrs["icoframes"]["queries"]
    assert (query["complete"], query["rows"], query["total_icos"], query["missing"]) == (
        False, 40, 38, None)
    assert list(query["failed_pages"]) == ["2"]
    assert query["failed_pages"]["2"].startswith("the list moved while it was paged")
    assert query["missing_unknown"].startswith("its 40 rows reach its count of 38, but page(s) 2")

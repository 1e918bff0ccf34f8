"""What a load counts as the list pages it may still need (``ListQuery.pages_at_most``):
the rule that decides whether profiles wait for list pages under a short allowance
(``ProfilePlan.next``, docs/guide/quota.md)."""

from __future__ import annotations

import datetime as dt

from hostile import list_item

from icoframes.fetch.paging import ListQuery
from icoframes.fetch.planner import UNKNOWN_PAGES, pages_needed
from icoframes.schema import LIST, empty_frame
from icoframes.store.cache import Stored


def _page(ids: list[int], page: int, total: int) -> dict:
    return {"total_icos": total, "current_page": page, "error": None,
            "total_pages": max(1, -(-total // 20)),
            "data": [list_item(i) for i in ids[(page - 1) * 20:page * 20]]}


def _paged(fallback: Stored | None = None) -> ListQuery:
    query = ListQuery({"status": "past"})
    query.start(fallback)
    return query


def test_a_list_that_has_not_said_its_page_count_counts_as_unknown_pages_twice():
    query = _paged()
    # it may be paged again; and a page for a retry
    assert query.pages_at_most(UNKNOWN_PAGES) == 2 * UNKNOWN_PAGES + 1
    assert query.next_page() == (1, 1)  # page 1 in flight: still unknown
    assert pages_needed([query]) == 2 * UNKNOWN_PAGES + 1


def test_a_cached_copy_with_more_pages_counts_instead():
    cached = Stored(empty_frame(LIST), dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
                    {"total_icos": 20 * UNKNOWN_PAGES + 1})
    assert _paged(cached).pages_at_most(UNKNOWN_PAGES) == 2 * (UNKNOWN_PAGES + 1) + 1
    small = cached._replace(meta={"total_icos": 45})
    assert _paged(small).pages_at_most(UNKNOWN_PAGES) == 2 * UNKNOWN_PAGES + 1


def test_known_pages_count_with_a_pass_more_until_the_list_is_settled():
    ids = list(range(100, 160))
    query = _paged()
    query.next_page()
    query.on_page(1, 1, _page(ids, 1, 60))
    # pages 2 and 3; a pass again, a page longer (the list may grow); a page for a retry
    assert query.pages_at_most(UNKNOWN_PAGES) == 2 + (3 + 1) + 1
    assert query.next_page() == (2, 1) and query.next_page() == (3, 1)
    assert query.pages_at_most(UNKNOWN_PAGES) == (3 + 1) + 1  # in flight: booked
    query.on_page(2, 1, _page(ids, 2, 60))
    query.on_page(3, 1, _page(ids, 3, 60))
    assert not query.finish_pass(may_repage=True)  # whole: no pass again
    assert query.pages_at_most(UNKNOWN_PAGES) == 0 and pages_needed([query]) == 0


def test_a_second_pass_counts_once_and_a_list_that_cannot_be_paged_again_counts_its_pages():
    ids = list(range(100, 160))
    shifted = [*ids[:20], ids[0], *ids[21:]]
    query = _paged()
    for number in (1, 2, 3):
        assert query.next_page() == (number, 1)
        query.on_page(number, 1, _page(shifted, number, 60))
    assert query.finish_pass(may_repage=True)  # short: paged again
    assert query.pages_at_most(UNKNOWN_PAGES) == UNKNOWN_PAGES + 1  # no third pass
    query.next_page()
    query.on_page(1, 2, _page(ids, 1, 60))
    assert query.pages_at_most(UNKNOWN_PAGES) == 2 + 1

    failed = _paged()
    failed.next_page()
    failed.on_page(1, 1, _page(ids, 1, 60))
    failed.next_page()
    failed.on_failure(2, "HTTP 503")  # a failed page: never paged again
    assert failed.pages_at_most(UNKNOWN_PAGES) == 1 + 1  # page 3, and a page for a retry
    assert pages_needed([query, failed]) == 3 + 2


def test_a_list_that_ended_on_an_empty_page_needs_nothing_more():
    """Nothing follows an empty page; one that page 1 counted ICOs for (page 2 of 60 ICOs) is
    a list that shrank (a move): a pass more, of page 1's 3 pages and one more, unless it is
    the second pass ending there again (the count's fault)."""
    query = _paged()
    for pass_no in (1, 2):
        assert query.next_page() == (1, pass_no)
        query.on_page(1, pass_no, _page(list(range(100, 160)), 1, 60))
        query.next_page()
        query.on_page(2, pass_no, _page([], 2, 60))  # empty: nothing follows it
        assert query.pages_at_most(UNKNOWN_PAGES) == (3 + 1 if pass_no == 1 else 0)
        assert query.finish_pass(may_repage=True) is (pass_no == 1)
    assert query.count_contradicts and query.failed_pages == {}
    query = _paged()
    query.next_page()
    query.on_page(1, 1, _page(list(range(100, 140)), 1, 40) | {"total_pages": 50})
    query.next_page(), query.next_page()
    query.on_page(2, 1, _page(list(range(100, 140)), 2, 40) | {"total_pages": 50})
    query.on_page(3, 1, _page([], 3, 40))  # pages counted past the ICOs counted: no move
    assert query.pages_at_most(UNKNOWN_PAGES) == 0
    assert not query.finish_pass(may_repage=True) and query.complete


def test_the_pass_again_counts_the_pages_of_the_latest_count_and_one_more():
    """A list that grows while paged: the pass again may need more pages than page 1 said.
    Before the fix it counted page 1's 3 pages (review F: the page a profile then took was
    the pass again's 4th)."""
    ids = list(range(100, 160))
    grown = [999, *ids]  # an ICO tops the list after page 1
    query = _paged()
    query.next_page()
    query.on_page(1, 1, _page(ids, 1, 60))
    assert query.next_page() == (2, 1) and query.next_page() == (3, 1)
    # none answered since: page 1's 3 pages and one more (61 ICOs would take 4)
    assert query.pages_at_most(UNKNOWN_PAGES) == (3 + 1) + 1
    query.on_page(2, 1, _page(grown, 2, 61))  # the latest count wins: 4 pages, and one more
    assert query.pages_at_most(UNKNOWN_PAGES) == (4 + 1) + 1
    query.on_page(3, 1, _page(grown, 3, 61))
    assert query.pages_at_most(UNKNOWN_PAGES) == 4 + 1  # nothing in flight: no retry
    assert query.finish_pass(may_repage=True)  # 60 of 61: paged again
    assert query.next_page() == (1, 2)
    query.on_page(1, 2, _page(grown, 1, 61))
    assert query.pages_at_most(UNKNOWN_PAGES) == 3 + 1  # pages 2 to 4, a page for a retry


def test_a_page_in_flight_of_a_list_that_ended_may_still_be_retried():
    ids = list(range(100, 160))
    query = _paged()
    query.next_page()
    query.on_page(1, 1, _page(ids, 1, 60))
    query.next_page(), query.next_page()
    query.on_page(2, 1, _page([], 2, 60))  # empty: nothing follows it; page 3 is out
    assert query.pages_at_most(UNKNOWN_PAGES) == 1 + (3 + 1)  # and a pass more (it shrank)
    query.on_page(3, 1, _page([], 3, 60))
    assert query.pages_at_most(UNKNOWN_PAGES) == 3 + 1

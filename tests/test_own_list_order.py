"""A date-sorted query answered by its own cached list is sorted by the dates it shows.

The query's own list holds the service's order when it was paged; the rows show their
copies' dates. A copy fetched since that moved a date (the service extended a sale)
made the answer, with no request, a frame "sorted by end_datetime" that was not, and
nothing said it (the superset path declines exactly this). Online, a copy newer than
the list whose date is out of the list's order sends the list to be paged again;
offline (or when every copy is older than the list) the rows are served in the list's
order and ``order_unstated`` says the frame is not in the order of the dates it shows.
Real sandbox over loopback, the clock stopped (time-machine) and moved by hand;
requests are the sandbox's counts.
"""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

import icoframes
from icoframes import sandbox

MORNING = dt.datetime(2026, 11, 1, 3, 0, tzinfo=dt.UTC)
SORTED = {"status": "ongoing", "sort_asc": "end_datetime", "progress": False}


@pytest.fixture
def sb(tmp_path):
    with sandbox.serve(n_icos=150, seed=7) as own:  # mutated below: not shared
        icoframes.configure(**own.settings(), cache_dir=tmp_path / "cache")
        yield own
    icoframes.reset_configuration()


def _requests(sb) -> int:
    return sum(sb.stats.requests.values())


def _a_sale_extended(sb, clock, *, narrower: bool) -> tuple[int, int]:
    """03:00 the sorted query pages its list; the service extends the sale listed first;
    03:10 a refresh of every ongoing profile (or only of a narrower query's, those located
    where that sale is: no list that can answer the sorted query) brings that copy, newer
    than the sorted list. The sorted list's pages, and the id extended."""
    first = icoframes.load_icos(**SORTED)
    pages = sb.stats.requests["icos"]
    assert first["end_datetime"].dropna().is_monotonic_increasing
    extended = int(first["id"].iloc[0])
    sb.update_ico(extended, end=dt.datetime(2027, 6, 1))
    clock.shift(dt.timedelta(minutes=10))
    where = {"location": first["location"].iloc[0]} if narrower else {}
    refreshed = icoframes.load_icos(status="ongoing", refresh="all", progress=False, **where)
    assert extended in refreshed["id"].tolist() and (len(refreshed) < len(first)) == narrower
    clock.shift(dt.timedelta(minutes=10))
    return pages, extended


def test_a_copy_newer_than_the_list_that_moved_a_date_has_the_list_paged_again(sb):
    """A narrower query refreshed the copy of the extended sale: online at 03:20 the sorted
    query pages its list again and comes back sorted by the end dates it shows, the
    extended sale last (cache_declined says why); a call at 03:30 then spends nothing (the
    list is newer than every copy). It spent 0 requests and returned the extended sale
    first, before sales ending months earlier."""
    with time_machine.travel(MORNING, tick=False) as clock:
        pages, extended = _a_sale_extended(sb, clock, narrower=True)
        before = _requests(sb)
        again = icoframes.load_icos(**SORTED)
        assert _requests(sb) - before == pages  # its list pages, no profile
        assert again["end_datetime"].dropna().is_monotonic_increasing
        assert int(again["id"].iloc[-1]) == extended
        query = icoframes.report(again).queries[0]
        assert query.from_cache is False
        assert "end_datetime out of its order" in query.cache_declined[0]
        clock.shift(dt.timedelta(minutes=10))
        before = _requests(sb)
        third = icoframes.load_icos(**SORTED)
    assert _requests(sb) == before
    assert third["id"].tolist() == again["id"].tolist()


def test_a_newer_list_of_the_status_answers_sorted_locally(sb):
    """The whole ongoing list was paged again at 03:10 (unsorted): at 03:20 the sorted
    query is answered from it, sorted locally by the dates the copies show (0 requests),
    the extended sale last. It was answered by its own older list, that sale first."""
    with time_machine.travel(MORNING, tick=False) as clock:
        _, extended = _a_sale_extended(sb, clock, narrower=False)
        before = _requests(sb)
        again = icoframes.load_icos(**SORTED)
    assert _requests(sb) == before
    assert again["end_datetime"].dropna().is_monotonic_increasing
    assert int(again["id"].iloc[-1]) == extended
    assert icoframes.report(again).queries[0].answered_from == {"status": "ongoing"}


@pytest.mark.parametrize("narrower", [True, False], ids=["narrower", "whole"])
def test_offline_the_rows_come_in_the_lists_order_and_say_they_are_not_sorted(sb, narrower):
    """Offline the list cannot be paged: the rows come in its order (the service's at
    03:00), and the report says the frame is not sorted by the end dates it shows.
    It said nothing (order_unstated None)."""
    with time_machine.travel(MORNING, tick=False) as clock:
        _, extended = _a_sale_extended(sb, clock, narrower=narrower)
        before = _requests(sb)
        cached = icoframes.load_icos(offline=True, **SORTED)
    assert _requests(sb) == before
    assert int(cached["id"].iloc[0]) == extended  # the list's order, as paged at 03:00
    assert not cached["end_datetime"].dropna().is_monotonic_increasing
    said = icoframes.report(cached).queries[0].order_unstated
    assert said is not None and "not sorted by the end_datetime" in said

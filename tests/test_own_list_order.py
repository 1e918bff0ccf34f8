"""A date-sorted query answered by its own cached list is sorted by the dates it shows.

The query's own list holds the service's order when it was paged; the rows show their
copies' dates. A copy fetched since that moved a date (the service extended a sale)
made the answer, with no request, a frame "sorted by end_datetime" that was not, and
nothing said it (the superset path declines exactly this). Online, two copies newer
than the list whose dates are out of the list's order send the list to be paged again;
offline (or when the order is broken only beside copies older than the list) the rows
are served in the list's order and ``order_unstated`` says the frame is not in the order
of the dates it shows.
Real sandbox over loopback, the clock stopped (time-machine) and moved by hand;
requests are the sandbox's counts.
"""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from test_lists_dated_by_first_page import _Clock

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


def _stale_copy_then_calls(sb, monkeypatch, query: dict, *, budget: int | None,
                           new_per_call: int) -> tuple[list[int], list]:
    """Day 1 the sorted past list and every profile. The service then corrects the end date
    of the sale listed first (its copy stays: a past profile is kept 90 days) and lists 20
    new past ICOs; day 2 (the list older than max_age) the same call at 03:01, 03:11 and
    03:21, ``new_per_call`` sales ending before each. Each call's profiles come after its
    first list page (the clock moves at its first profile), as on a ticking clock. The list
    pages of each day-2 call and their frames."""
    with time_machine.travel(dt.datetime(2026, 11, 1, 3, tzinfo=dt.UTC), tick=False):
        first = icoframes.load_icos(**query)
    sb.update_ico(int(first["id"].iloc[0]), end=dt.datetime(2026, 10, 30))
    for _ in range(20):
        sb.add_ico("past")
    clock = _Clock(sb, monkeypatch, "ico")
    pages, frames = [], []
    for call in range(3):
        for _ in range(new_per_call):
            sb.add_ico("past")
        start = dt.datetime(2026, 11, 2, 3, 1 + 10 * call, tzinfo=dt.UTC)
        before = sb.stats.requests.get("icos", 0)
        frames.append(clock.run(start, lambda: icoframes.load_icos(
            **query, **({} if budget is None else {"budget": budget})),
            nth=1, then=start + dt.timedelta(seconds=1)))
        pages.append(sb.stats.requests.get("icos", 0) - before)
    return pages, frames


# frames out of the order of the dates they show are said in order_unstated, not warned
# (test_order_and_clock_said.py)
@pytest.mark.filterwarnings("ignore::icoframes.errors.StaleWarning")
@pytest.mark.filterwarnings("ignore::icoframes.errors.IncompleteWarning")
@pytest.mark.parametrize(("sort", "budget", "new_per_call"),
                         [("sort_asc", 5, 0), ("sort_desc", None, 1)],
                         ids=["budgeted", "a-sale-ends-between-calls"])
def test_a_copy_older_than_the_list_out_of_its_order_does_not_page_it_again(
        sb, monkeypatch, sort, budget, new_per_call):
    """The copy out of the list's order is older than the list: the list already has the
    service's order, and paging it again brings the same. The copies newer than the list
    are the profiles each call fetched (new ICOs), in their places. So the day-2 calls after
    the first spend no list page: the rows come in the list's order, said in
    order_unstated. Every call that fetched a profile had the whole list paged again
    (13 or 12 list pages a call, for as long as the stale copy stood)."""
    pages, frames = _stale_copy_then_calls(
        sb, monkeypatch, {"status": "past", sort: "end_datetime", "progress": False},
        budget=budget, new_per_call=new_per_call)
    assert pages[0] > 0 and pages[1:] == [0, 0], pages
    query = icoframes.report(frames[-1]).queries[0]
    assert query.from_cache is True and query.cache_declined == ()
    assert query.order_unstated is not None
    assert "not sorted by the end_datetime" in query.order_unstated


# frames out of the order of the dates they show are said in order_unstated, not warned
# (test_order_and_clock_said.py)
@pytest.mark.filterwarnings("ignore::icoframes.errors.StaleWarning")
@pytest.mark.filterwarnings("ignore::icoframes.errors.IncompleteWarning")
def test_stale_copies_outnumbering_the_new_ones_do_not_page_the_list_again(sb, monkeypatch):
    """Day 1 the sorted past list and every profile. The service then moves the end dates
    of 12 sales listed after the widest gap into it (their copies stay, older than any later
    list) and lists 8 new past sales in the gap, after those 12. Day 2 (the list older than
    max_age) the budgeted call at 03:01, 03:11, 03:21: the first pages the list; the new
    sales' copies, fetched after it, are in its order with one another, so the later calls
    spend no list page, and the stale copies' rows come in the list's order, said in
    order_unstated. The 12 stale copies outvoted the new ones, taken as out of place: the
    list was paged again by every call while they stood (a reason saying a date changed
    since the list was paged, which none had)."""
    query = {"status": "past", "sort_asc": "end_datetime", "progress": False}
    with time_machine.travel(dt.datetime(2026, 11, 1, 3, tzinfo=dt.UTC), tick=False):
        first = icoframes.load_icos(**query).dropna(subset=["end_datetime"])
    ends = first["end_datetime"].dt.tz_localize(None).tolist()
    ids = first["id"].tolist()
    at = max(range(1, len(ends) - 12), key=lambda i: ends[i] - ends[i - 1])  # the widest gap
    base = ends[at - 1]
    assert ends[at] - base > dt.timedelta(hours=2)
    for step, ico in enumerate(ids[at:at + 12]):  # listed first in the gap now
        sb.update_ico(int(ico), end=base + dt.timedelta(minutes=1 + step))
    for step in range(8):  # listed after them, before the 12's old dates
        sb.update_ico(sb.add_ico("past"), end=base + dt.timedelta(hours=1, minutes=step))
    clock, pages, frames = _Clock(sb, monkeypatch, "ico"), [], []
    for call in range(3):  # each call's profiles a second after its first list page
        start = dt.datetime(2026, 11, 2, 3, 1 + 10 * call, tzinfo=dt.UTC)
        before = sb.stats.requests.get("icos", 0)
        frames.append(clock.run(start, lambda: icoframes.load_icos(**query, budget=3),
                                nth=1, then=start + dt.timedelta(seconds=1)))
        pages.append(sb.stats.requests.get("icos", 0) - before)
    assert pages[0] > 0 and pages[1:] == [0, 0], pages
    said = icoframes.report(frames[-1]).queries[0]
    assert said.from_cache is True and said.cache_declined == ()
    assert said.order_unstated is not None


@pytest.mark.filterwarnings("ignore::icoframes.errors.IncompleteWarning")
def test_copies_fetched_by_the_load_itself_that_moved_a_date_are_said(sb):
    """03:00 a budgeted sorted call pages the list and fetches 2 profiles; the service then
    extends the three sales listed first past every other. 03:10 the same call without a
    budget is answered by its list (no list page) and fetches the profiles it lacks, those
    three among them: the rows come in the list's order, not sorted by the end dates they
    show, and order_unstated says so. The order was checked before those copies came: it
    said nothing (order_unstated None)."""
    with time_machine.travel(MORNING, tick=False) as clock:
        icoframes.load_icos(**SORTED, budget=2)
        listed = icoframes.load_list(status="ongoing", sort_asc="end_datetime")
        for step, ico in enumerate(listed["id"].iloc[:3].tolist()):
            sb.update_ico(int(ico), end=dt.datetime(2099, 1, 1) + dt.timedelta(days=step))
        clock.shift(dt.timedelta(minutes=10))
        pages, profiles = sb.stats.requests["icos"], sb.stats.requests["ico"]
        frame = icoframes.load_icos(**SORTED)
    assert sb.stats.requests["icos"] == pages  # its own list answered: no list page
    assert sb.stats.requests["ico"] - profiles == len(listed) - 2
    assert frame["id"].tolist() == listed["id"].tolist()  # the list's order
    assert not frame["end_datetime"].dropna().is_monotonic_increasing
    query = icoframes.report(frame).queries[0]
    assert query.from_cache is True
    assert query.order_unstated is not None
    assert "not sorted by the end_datetime they show" in query.order_unstated


# frames out of the order of the dates they show are said in order_unstated, not warned
# (test_order_and_clock_said.py)
@pytest.mark.filterwarnings("ignore::icoframes.errors.StaleWarning")
def test_a_list_the_service_sorts_by_another_end_is_paged_again_once(sb, monkeypatch):
    """A service whose list sorts its ongoing sales by an end their profiles do not show
    (spec 2.3's end_datetime is the end of the current stage; what 4.2 sorts by is not
    stated): the profile of the sale listed first shows an end after a sale listed later.
    Before each call, 10 minutes apart, both sales' raised changes (as an ongoing sale's
    does). The second call pages the list again (copies fetched after it show their dates
    out of its order); the list paged for that comes back out of order with the copies
    that call fetched after it, and is not declined for its order again:
    the later calls spend no list page, the rows in the list's order, said in
    order_unstated. refresh=True pages it anew, and the list so paged may be paged again
    for its order once more. Every call paged the list (and refetched the two profiles)
    while those sales' summaries changed."""
    ongoing = sorted((r for r in sb.directory.records("ongoing") if r.end is not None),
                     key=lambda r: (r.end, r.id))
    first, later = ongoing[0].id, ongoing[len(ongoing) // 2].id
    stage_end = (ongoing[len(ongoing) // 2].end + dt.timedelta(days=1)).strftime(
        "%d.%m.%Y %H:%M:%S")
    profile = sb.directory.profile

    def shown(ico_id: int) -> dict:  # the stage's end, not the one the list sorts by
        data = profile(ico_id)
        return {**data, "dates": {**data["dates"], "end_datetime": stage_end}} \
            if ico_id == first else data

    monkeypatch.setattr(sb.directory, "profile", shown)
    pages, frames = [], []
    with time_machine.travel(MORNING, tick=False) as clock:
        for call in range(7):
            for ico in (first, later):
                sb.update_ico(ico, raised=1000 + call)
            before = sb.stats.requests.get("icos", 0)
            frames.append(icoframes.load_icos(**SORTED, refresh=call == 4))
            pages.append(sb.stats.requests.get("icos", 0) - before)
            clock.shift(dt.timedelta(minutes=10))
        listed = icoframes.load_list(status="ongoing", sort_asc="end_datetime")
    paged = pages[0]
    assert paged > 0 and pages == [paged, paged, 0, 0, paged, paged, 0], str(pages)
    said = [icoframes.report(frame).queries[0] for frame in frames]
    assert [any("out of its order" in why for why in q.cache_declined) for q in said] == [
        False, True, False, False, False, True, False]
    last = said[-1]
    assert last.from_cache is True and last.cache_declined == ()
    assert last.order_unstated is not None and "paged again for this" in last.order_unstated
    assert frames[-1]["id"].tolist() == listed["id"].tolist()  # the list's order
    assert not frames[-1]["end_datetime"].dropna().is_monotonic_increasing


def test_a_list_sorted_by_the_dates_its_profiles_show_is_paged_again_for_each_move(sb):
    """The sandbox's list sorts by the very end dates its profiles show. Every 10 minutes
    the ongoing sales' raised changes; before the second, third and fourth calls one sale's
    end moves later and a narrower refresh (its platform) fetches its copy again, as
    another notebook cell would. Each of those calls pages the sorted list again and comes
    back sorted, nothing said: the list so paged is in order with the copies fetched after
    it, so it is not marked sorted otherwise. The two calls after spend no list page. A
    list paged again for its order was never paged for it again until max_age: the third
    and later calls came back unsorted (order_unstated said it), with no list page."""
    ongoing = sorted((r for r in sb.directory.records("ongoing") if r.end is not None),
                     key=lambda r: (r.end, r.id))
    pages, frames = [], []
    with time_machine.travel(MORNING, tick=False) as clock:
        for call in range(6):
            for record in ongoing:
                sb.update_ico(record.id, raised=100 * call + record.id % 7)
            if call in (1, 2, 3):  # a move the service lists as its profile shows it
                moved = ongoing[call]
                sb.update_ico(moved.id, end=ongoing[-1].end + dt.timedelta(days=call))
                icoframes.load_icos(status="ongoing", platform=moved.platform_id,
                                    refresh=True, progress=False)
                clock.shift(dt.timedelta(minutes=5))
            before = sb.stats.requests.get("icos", 0)
            frames.append(icoframes.load_icos(**SORTED))
            pages.append(sb.stats.requests.get("icos", 0) - before)
            clock.shift(dt.timedelta(minutes=10))
    paged = pages[0]
    assert paged > 0 and pages == [paged] * 4 + [0, 0], str(pages)
    for frame in frames:
        assert frame["end_datetime"].dropna().is_monotonic_increasing
        assert icoframes.report(frame).queries[0].order_unstated is None

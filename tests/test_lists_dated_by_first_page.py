"""A list is as old as its first page: its ``fetched_at`` is when its paging began.

A list's rows are the service's as of the pages that brought them; the oldest page is
asked first. Dated by the end of its paging instead, a nightly export whose paging
crosses 00:00 UTC gave the list the new day, and the next night's run took it for a list
"paged today": no list page, exit 0, complete, and the day before's listing written as
the new day's. Real sandbox over loopback; the clock stands still (time-machine, not
ticking) and moves only when the sandbox takes a chosen request, so a paging crosses
midnight (or lasts half an hour) at exactly that page. Requests are the sandbox's counts.
"""

from __future__ import annotations

import datetime as dt
import json

import pandas as pd
import pytest
import time_machine
from test_days import _as_cron

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_OK, main

NIGHT_1 = dt.datetime(2026, 11, 1, 23, 59, 59, 900000, tzinfo=dt.UTC)
MIDNIGHT = dt.datetime(2026, 11, 2, 0, 0, 0, 100000, tzinfo=dt.UTC)
NIGHT_2 = dt.datetime(2026, 11, 2, 23, 59, tzinfo=dt.UTC)
DAY_1_END = dt.datetime(2026, 11, 1, 23, 59, 59, 999000, tzinfo=dt.UTC)


@pytest.fixture
def sb(tmp_path, monkeypatch, quick_retries):
    """A sandbox of 71 past ICOs (4 list pages), reached as cron's runs reach it."""
    with sandbox.serve(n_icos=100, seed=12) as server:
        _as_cron(server, tmp_path, monkeypatch)
        yield server
    icoframes.reset_configuration()


class _Clock:
    """The stopped clock of one run, moved to ``then`` when the sandbox takes the
    ``nth`` request to ``endpoint`` (before answering it): the requests before it are
    answered before that moment, it and those after it at or after."""

    def __init__(self, sb, monkeypatch, endpoint: str) -> None:
        self.endpoint, self.traveller = endpoint, None
        self.nth: int | None = None
        self.then: dt.datetime | None = None
        self.seen = 0
        record = sb.stats.record_request

        def counted(asked: str) -> None:
            if asked == self.endpoint:
                self.seen += 1
                if self.seen == self.nth and self.traveller is not None:
                    self.traveller.move_to(self.then)
            record(asked)

        monkeypatch.setattr(sb.stats, "record_request", counted)

    def run(self, when: dt.datetime, call, *, nth: int | None = None,
            then: dt.datetime | None = None):
        self.nth, self.then, self.seen = nth, then, 0
        with time_machine.travel(when, tick=False) as traveller:
            self.traveller = traveller
            try:
                return call()
            finally:
                self.traveller = None


def _list_pages(sb) -> int:
    return sb.stats.requests.get("icos", 0)


@pytest.mark.parametrize("snapshot", [True, False], ids=["snapshot", "plain"])
def test_a_list_paged_across_midnight_is_paged_again_the_next_night(
        sb, tmp_path, monkeypatch, snapshot):
    """Night 1's cron run starts at 23:59:59.9; its third list page is answered after
    00:00 UTC. During Nov 2 the service renames an ICO. Night 2's run (23:59 Nov 2) must
    page the list again (it was not paged since 00:00 Nov 2: 2 of its 4 pages were of
    Nov 1) and write the renamed ICO. It requested 0 list pages and wrote night 1's
    listing again (exit 0, complete)."""
    out = tmp_path / "srv"
    args = ["export", "--out", str(out), "--status", "past", "--max-workers", "1",
            *(["--snapshot"] if snapshot else [])]
    clock = _Clock(sb, monkeypatch, "icos")
    assert clock.run(NIGHT_1, lambda: main(args), nth=3, then=MIDNIGHT) == EXIT_OK
    assert _list_pages(sb) == 4 and clock.seen == 4  # it did cross midnight at page 3
    first = out / "snapshot_date=2026-11-01" if snapshot else out
    listed = json.loads((first / "manifest.json").read_text())["queries"][0]["fetched_at"]
    ico = sb.directory.ids("past")[-1]
    sb.update_ico(ico, name="Renamed on Nov 2")

    sb.stats.reset()
    assert clock.run(NIGHT_2, lambda: main(args)) == EXIT_OK
    assert _list_pages(sb) == 4  # paged again, whole
    assert dt.datetime.fromisoformat(listed) == NIGHT_1  # night 1's list: of Nov 1
    day = out / "snapshot_date=2026-11-02" if snapshot else out
    manifest = json.loads((day / "manifest.json").read_text())
    query = manifest["queries"][0]
    assert query["from_cache"] is False and manifest["complete"] is True
    assert dt.datetime.fromisoformat(query["fetched_at"]) == NIGHT_2
    rows = pd.read_parquet(day / "icos.parquet").set_index("id")
    assert rows.at[ico, "name"] == "Renamed on Nov 2"
    if snapshot:
        events = icoframes.changes(out, kinds=["name"])
        assert events[["ico_id", "kind", "new"]].values.tolist() == [
            [ico, "name", "Renamed on Nov 2"]]


def test_max_age_counts_from_the_first_page_of_a_slow_paging(sb, tmp_path, monkeypatch):
    """A paging whose first pages are answered at 09:00 and its last at 09:30 holds rows of
    09:00: with max_age one hour, a load at 10:00:01 pages it again (its first page is
    older than an hour), one at 09:59:59 does not. It counted from 09:30: 0 pages at
    10:00:01, rows an hour old passed for half an hour old."""
    start = dt.datetime(2026, 11, 3, 9, tzinfo=dt.UTC)
    clock = _Clock(sb, monkeypatch, "icos")
    clock.run(start, lambda: icoframes.load_list(status="past", progress=False),
              nth=4, then=start + dt.timedelta(minutes=30))
    assert _list_pages(sb) == 4 and clock.seen == 4
    sb.stats.reset()
    within = clock.run(start + dt.timedelta(minutes=59, seconds=59), lambda: icoframes.load_list(
        status="past", max_age=3600, progress=False))
    assert _list_pages(sb) == 0
    clock.run(start + dt.timedelta(hours=1, seconds=1), lambda: icoframes.load_list(
        status="past", max_age=3600, progress=False))
    assert _list_pages(sb) == 4
    assert icoframes.report(within).queries[0].fetched_at == start


def test_the_filter_set_is_as_old_as_its_request(sb, tmp_path, monkeypatch):
    """The filter set asked for at 09:00 and answered at 09:30 is dated 09:00 (as a list is
    by its first page): with max_age one hour it is asked for again at 10:00:01. It was
    dated by its answer: 0 requests at 10:00:01."""
    start = dt.datetime(2026, 11, 3, 9, tzinfo=dt.UTC)
    clock = _Clock(sb, monkeypatch, "filters")
    first = clock.run(start, lambda: icoframes.load_filters(),
                      nth=1, then=start + dt.timedelta(minutes=30))
    assert sb.stats.requests.get("filters", 0) == 1 and clock.seen == 1
    for later, asked in ((dt.timedelta(minutes=59, seconds=59), 0),
                         (dt.timedelta(hours=1, seconds=1), 1)):
        sb.stats.reset()
        clock.run(start + later, lambda: icoframes.load_filters(max_age=3600))
        assert sb.stats.requests.get("filters", 0) == asked, later
    assert icoframes.report(first).queries[0].fetched_at == start


def _page(ids, total: int, pages: int) -> dict:
    return {"error": None, "total_icos": str(total), "total_pages": pages,
            "data": [{"id": i, "main": {"name": f"ICO {i}"}} for i in ids]}


@pytest.mark.parametrize("second_pass", ["whole", "page 2 failed"])
def test_a_list_paged_twice_is_as_old_as_the_pass_its_rows_are_of(second_pass):
    """Pass 1 (page 1 at 09:00, page 2 at 09:01) moved: an ICO joined between its pages.
    Pass 2 begins at 09:02. Whole, its rows alone are the list: dated 09:02. Its page 2
    failing, the list keeps the rows of both passes (partial): dated 09:00, its oldest
    page. It was dated when the paging ended (09:03) either way."""
    from icoframes.fetch.paging import ListQuery

    start = dt.datetime(2026, 11, 3, 9, tzinfo=dt.UTC)
    query = ListQuery({"status": "past"})
    query.start(None)
    with time_machine.travel(start, tick=False) as clock:
        assert query.next_page() == (1, 1)
        query.on_page(1, 1, _page(range(1, 21), 25, 2))
        clock.shift(dt.timedelta(minutes=1))
        assert query.next_page() == (2, 1)
        query.on_page(2, 1, _page(range(21, 27), 26, 2))  # the count moved: paged again
        assert query.pass_done and query.finish_pass(may_repage=True)
        clock.shift(dt.timedelta(minutes=1))
        assert query.next_page() == (1, 2)
        query.on_page(1, 2, _page(range(1, 21), 26, 2))
        assert query.next_page() == (2, 2)
        clock.shift(dt.timedelta(minutes=1))
        if second_pass == "whole":
            query.on_page(2, 2, _page(range(21, 27), 26, 2))
        else:
            query.on_failure(2, "HTTP 503")
        assert query.pass_done and not query.finish_pass(may_repage=True)
    assert query.complete is (second_pass == "whole")
    assert query.fetched_at == start + dt.timedelta(minutes=2 if second_pass == "whole" else 0)
    assert query.summary()["fetched_at"] == query.fetched_at.isoformat()


def test_a_list_whose_kept_rows_all_moved_is_dated_no_later_than_its_day():
    """Night 1's export of Nov 1 pages its lists from 00:00:00.1 Nov 2 (the run began at
    23:59:59.9). Its ongoing list's page 2 fails: the rows of the day's 03:15 list that it
    lacks (5) are kept, and the list is as old as them. The past list, paged whole, lists 5
    now, so the kept row gives way (fetch.moment.listed_now_wins) and the ongoing list, with
    no kept row left, is dated by its paging again: no later than the last ms of its day,
    as its paging dated it, never Nov 2 (the next night would take it for a list of its own
    day and page nothing)."""
    from icoframes.fetch.moment import listed_now_wins
    from icoframes.fetch.paging import ListQuery
    from icoframes.parse.lists import list_frame
    from icoframes.parse.problems import Problems
    from icoframes.store.cache import Stored

    morning = dt.datetime(2026, 11, 1, 3, 15, tzinfo=dt.UTC)
    items = _page([1, 2, 5], 3, 1)["data"]
    earlier = Stored(list_frame(items, status="ongoing", problems=Problems()), morning,
                     {"complete": True, "items": 3}, json.dumps(items))
    day = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    ongoing, past = ListQuery({"status": "ongoing"}), ListQuery({"status": "past"})
    ongoing.start(earlier, after=day, by=DAY_1_END)
    past.start(None, after=day, by=DAY_1_END)
    with time_machine.travel(MIDNIGHT, tick=False):
        assert ongoing.next_page() == (1, 1) and past.next_page() == (1, 1)
        ongoing.on_page(1, 1, _page([1, 2], 3, 2))
        past.on_page(1, 1, _page([5, 101], 2, 1))
        assert ongoing.next_page() == (2, 1)
        ongoing.on_failure(2, "HTTP 503")
        for query in (ongoing, past):
            assert query.pass_done and not query.finish_pass(may_repage=True)
    assert ongoing.kept is not None and ongoing.kept["ids"] == [5]
    assert ongoing.fetched_at == morning and past.fetched_at == DAY_1_END
    listed_now_wins([ongoing, past])
    assert ongoing.kept is None and ongoing.frame is not None
    assert ongoing.frame["id"].tolist() == [1, 2]
    assert ongoing.paged_at == MIDNIGHT and ongoing.fetched_at == DAY_1_END


def test_an_export_waiting_on_another_runs_list_begun_before_its_day_pages_it_itself(
        sb, tmp_path, monkeypatch):
    """Night 1's snapshot (23:59:59.9) claims the past list and pages it; at its page 3 the
    clock passes 00:00 and a plain export of the same list starts (its day is Nov 2; same
    cache, its own claims, as another process): it finds the list claimed and waits. Night
    1's list, dated by its page 1 on Nov 1, is no list of Nov 2: once its claim is released
    the second export pages the list itself, and its manifest's list is of its day. It took
    night 1's list: a Nov-2 export holding a list dated Nov 1 under lists_fresh_after
    2026-11-02T00:00 (complete, exit 0)."""
    import threading

    from waiting import HANG_GUARD

    from icoframes.fetch.sharedlists import SharedLists

    night, day = tmp_path / "night", tmp_path / "day"
    waits, codes = threading.Event(), {}
    claim = SharedLists.claim

    def claimed(self, query, stored):
        mine = claim(self, query, stored)
        if not mine:
            waits.set()
        return mine

    monkeypatch.setattr(SharedLists, "claim", claimed)
    second = threading.Thread(target=lambda: codes.__setitem__("day", main(
        ["export", "--out", str(day), "--status", "past", "--max-workers", "1"])))
    clock = _Clock(sb, monkeypatch, "icos")
    record = sb.stats.record_request

    def counted(asked: str) -> None:
        record(asked)  # (the clock moves to MIDNIGHT at page 3)
        if asked == "icos" and clock.seen == 3 and not second.is_alive():
            second.start()  # page 3 is answered once the second export waits on the claim
            assert waits.wait(timeout=HANG_GUARD)

    monkeypatch.setattr(sb.stats, "record_request", counted)

    def both() -> int:
        code = main(["export", "--out", str(night), "--snapshot", "--status", "past",
                     "--max-workers", "1"])
        second.join(timeout=HANG_GUARD)
        return code

    assert clock.run(NIGHT_1, both, nth=3, then=MIDNIGHT) == EXIT_OK
    assert not second.is_alive() and codes == {"day": EXIT_OK} and waits.is_set()
    assert _list_pages(sb) == 8  # night 1's four pages, then the second export's own four
    night_list = json.loads((night / "snapshot_date=2026-11-01" / "manifest.json").read_text())
    assert dt.datetime.fromisoformat(night_list["queries"][0]["fetched_at"]) == NIGHT_1
    manifest = json.loads((day / "manifest.json").read_text())
    assert manifest["complete"] is True
    fresh_after = dt.datetime.fromisoformat(manifest["lists_fresh_after"])
    assert fresh_after == dt.datetime(2026, 11, 2, tzinfo=dt.UTC)
    listed = dt.datetime.fromisoformat(manifest["queries"][0]["fetched_at"])
    assert listed == MIDNIGHT and manifest["queries"][0]["from_cache"] is False


@pytest.mark.parametrize("snapshot", [True, False], ids=["snapshot", "plain"])
def test_a_run_begun_before_midnight_dates_its_list_by_its_day(
        sb, tmp_path, monkeypatch, snapshot):
    """Night 1 starts at 23:59:59.9 and asks the filter set first (a category by name),
    answered after 00:00: its list's page 1 is asked on Nov 2, in the export of Nov 1.
    The list is dated no later than the last ms of the run's day (23:59:59.999 Nov 1), so
    night 2 (23:59 Nov 2) pages it again, and writes the day's rename. It was dated Nov 2
    00:00:00.1: night 2 took night 1's list for its own (0 list pages, complete, exit 0)."""
    out = tmp_path / "srv"
    args = ["export", "--out", str(out), "--status", "past", "--category", "Platform",
            "--max-workers", "1", *(["--snapshot"] if snapshot else [])]
    clock = _Clock(sb, monkeypatch, "filters")
    assert clock.run(NIGHT_1, lambda: main(args), nth=1, then=MIDNIGHT) == EXIT_OK
    pages = _list_pages(sb)
    assert pages > 0 and clock.seen == 1  # the filter set was answered after 00:00
    ico = int(pd.read_parquet(out / "snapshot_date=2026-11-01" / "icos.parquet" if snapshot
                              else out / "icos.parquet")["id"].iloc[0])
    sb.update_ico(ico, name="Renamed on Nov 2")

    sb.stats.reset()
    assert clock.run(NIGHT_2, lambda: main(args)) == EXIT_OK
    assert _list_pages(sb) == pages  # paged again, whole
    day = out / "snapshot_date=2026-11-02" if snapshot else out
    manifest = json.loads((day / "manifest.json").read_text())
    assert manifest["complete"] is True and manifest["queries"][0]["from_cache"] is False
    icos = pd.read_parquet(day / "icos.parquet")
    assert icos.loc[icos["id"] == ico, "name"].tolist() == ["Renamed on Nov 2"]
    first = out / "snapshot_date=2026-11-01" if snapshot else None
    if first is not None:
        night_1 = json.loads((first / "manifest.json").read_text())["queries"][0]
        assert dt.datetime.fromisoformat(night_1["fetched_at"]) == DAY_1_END


# An export's lists are dated no later than the last ms of its day, not than its start: on
# that day each keeps its page-1 time, so which list listed an ICO later, how old a list is
# and which of two hosts' lists is newer are as the pagings say.
DAY_3 = dt.datetime(2026, 11, 3, 3, tzinfo=dt.UTC)


def test_a_sale_that_ended_during_an_export_is_past_in_the_loads_after_it(
        sb, tmp_path, monkeypatch):
    """An all-status export (one worker) asks ongoing page 1, then upcoming page 1, then
    the past list; as upcoming page 1 is taken the clock is at 03:05 and ongoing sale X
    has ended (listed past from then on). The export writes X past. A load_icos() from the
    cache at 03:30 and a second export of the day (0 list pages) say past too. Dated by the
    export's start, the three lists tied at 03:00 and a tie keeps the first list's row:
    X ongoing in both, without a request or a word."""
    x = sb.directory.ids("ongoing")[0]
    clock = _Clock(sb, monkeypatch, "icos")
    record = sb.stats.record_request

    def ends(asked: str) -> None:
        if asked == "icos" and clock.seen == 1:  # before upcoming page 1 is answered
            sb.update_ico(x, status="past")
        record(asked)

    monkeypatch.setattr(sb.stats, "record_request", ends)  # (under the clock's hook)
    out = tmp_path / "out"
    clock.run(DAY_3, lambda: icoframes.export_tables(out, max_workers=1, progress=False),
              nth=2, then=DAY_3 + dt.timedelta(minutes=5))
    assert pd.read_parquet(out / "icos.parquet").set_index("id").at[x, "status"] == "past"
    sb.stats.reset()
    with time_machine.travel(DAY_3 + dt.timedelta(minutes=30), tick=False):
        loaded = icoframes.load_icos(progress=False).set_index("id")
        icoframes.export_tables(out, max_workers=1, progress=False)
    assert _list_pages(sb) == 0
    again = pd.read_parquet(out / "icos.parquet").set_index("id")
    assert (loaded.at[x, "status"], again.at[x, "status"]) == ("past", "past")


@pytest.mark.parametrize("snapshot", [False, True], ids=["plain", "snapshot"])
def test_an_export_paging_after_another_hosts_replaces_its_day(sb, tmp_path, monkeypatch,
                                                               snapshot):
    """Two hosts (two cache dirs), one out. A starts at 03:00; its filter set (a category
    by name) is answered at 03:10; meanwhile B exports the day at 03:05 (its list paged
    03:05). A pages at 03:10, after B, and replaces the day with its list of 03:10. Dated
    03:00 (A's start), A's list was older than B's: plain, ExportBusy ('a list newer than
    this export's'), nothing written; snapshot, the day's list went back to 03:00."""
    import threading

    from waiting import HANG_GUARD

    out, other = tmp_path / "out", tmp_path / "cache-b"
    given = dict(status="past", category="Platform", snapshot=snapshot, max_workers=1,
                 progress=False)
    clock, done = _Clock(sb, monkeypatch, "filters"), {}
    record = sb.stats.record_request

    def b_meanwhile(asked: str) -> None:
        record(asked)
        if asked == "filters" and not done and clock.traveller is not None:
            done["b"] = None
            clock.traveller.move_to(DAY_3 + dt.timedelta(minutes=5))
            b = threading.Thread(target=lambda: done.__setitem__(
                "b", icoframes.export_tables(out, cache_dir=other, **given)))
            b.start()
            b.join(timeout=HANG_GUARD)
            clock.traveller.move_to(DAY_3 + dt.timedelta(minutes=10))

    monkeypatch.setattr(sb.stats, "record_request", b_meanwhile)
    result = clock.run(DAY_3, lambda: icoframes.export_tables(out, **given))
    assert done["b"] is not None  # B wrote the day first
    day = out / "snapshot_date=2026-11-03" if snapshot else out
    listed = json.loads((day / "manifest.json").read_text())["queries"][0]["fetched_at"]
    assert result.path == day
    assert dt.datetime.fromisoformat(listed) == DAY_3 + dt.timedelta(minutes=10)


def test_max_age_counts_from_an_exports_first_page_not_its_start(sb, tmp_path, monkeypatch):
    """An export starts at 09:00; its filter set is answered at 09:30, its list paged from
    09:30. load_list(max_age one hour) at 10:15 is within the hour: 0 list pages. Dated
    09:00 (the export's start), the list was paged again."""
    start = dt.datetime(2026, 11, 3, 9, tzinfo=dt.UTC)
    clock = _Clock(sb, monkeypatch, "filters")
    clock.run(start, lambda: icoframes.export_tables(
        tmp_path / "out", status="past", category="Platform", max_workers=1,
        progress=False), nth=1, then=start + dt.timedelta(minutes=30))
    assert _list_pages(sb) > 0 and clock.seen == 1
    sb.stats.reset()
    clock.run(start + dt.timedelta(minutes=75), lambda: icoframes.load_list(
        status="past", category="Platform", max_age=3600, progress=False))
    assert _list_pages(sb) == 0

"""Runs of one UTC day into one snapshot tree: nothing of the day lost, nothing paid twice.

Real sandbox (or a hostile server) over loopback; the clock moved with time-machine
(ticking). Request counts are the server's own (``stats.requests``: ``icos`` list pages,
``ico`` profiles).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections import Counter

import pandas as pd
import pytest
import test_days
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply, list_item
from test_days import INCOMPLETE, _as_cron, _run, logged  # the same cron-configured runs

import icoframes
from icoframes.cli import EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE

MORNING = dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC)


sb = test_days.sb  # the same fixture: a sandbox reached as cron's runs reach it


def _day(out, when):
    return out / f"snapshot_date={when.date().isoformat()}"


def _ids(folder) -> list[int]:
    return sorted(pd.read_parquet(folder / "icos.parquet")["id"].tolist())


def test_a_snapshot_of_another_query_the_same_day_is_refused_before_any_request(
        sb, tmp_path, caplog):
    """03:15 snapshots the past ICOs into /srv; at 09:15 another cron line snapshots the
    ongoing ones into the same --out: the day's folder was replaced, the past ICOs' rows
    of that day lost. The layout holds one export per day (one folder, no query in the
    path or the rows: read_snapshots and changes take it as the day's whole service), so
    the second is refused before any request (exit 2), naming the query the folder holds
    and another --out; the folder is as it was. The same query again (spelled otherwise),
    and the other query into another --out, are exports as ever; into this --out the next
    day it is refused too (a tree holds one query: tests/test_days_edges.py)."""
    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "srv"
    assert _run(MORNING, "--out", str(out), "--status", "past", "--snapshot") == EXIT_OK
    day = _day(out, MORNING)
    written = {p.name: p.read_bytes() for p in day.iterdir()}
    past = _ids(day)
    assert past == sorted(sb.directory.ids("past"))
    sb.stats.reset()
    caplog.clear()
    later = MORNING + dt.timedelta(hours=6)
    assert _run(later, "--out", str(out), "--status", "ongoing", "--snapshot") == EXIT_USAGE
    assert dict(sb.stats.requests) == {}  # refused before any request
    message = caplog.text
    assert "status=past" in message and "status=ongoing" in message
    assert str(day) in message and "--out" in message and "ongoing" in message
    assert {p.name: p.read_bytes() for p in day.iterdir()} == written
    assert sorted(p.name for p in out.iterdir()) == [day.name]  # no staging folder left
    with pytest.raises(icoframes.InvalidParameter, match="status=past"), \
            time_machine.travel(later, tick=True):
        icoframes.export_tables(out, status="ongoing", snapshot=True, progress=False)
    assert dict(sb.stats.requests) == {}
    # the same query (the status in another case) replaces the day's snapshot, as before
    assert _run(later, "--out", str(out), "--status", "PAST", "--snapshot") == EXIT_OK
    assert _ids(day) == past
    # the other query: into another --out the same day, or into this one the next day
    other = tmp_path / "srv-ongoing"
    assert _run(later, "--out", str(other), "--status", "ongoing", "--snapshot") == EXIT_OK
    tomorrow = MORNING + dt.timedelta(days=1)
    assert _run(tomorrow, "--out", str(other), "--status", "ongoing", "--snapshot") == EXIT_OK
    assert _run(tomorrow, "--out", str(out), "--status", "ongoing", "--snapshot") == EXIT_USAGE
    assert _ids(day) == past
    manifest = json.loads((_day(other, tomorrow) / "manifest.json").read_text())
    assert [q["params"]["status"] for q in manifest["queries"]] == ["ongoing"]


class _Paged:
    """Three lists, past on two pages (20 + 5 ICOs); a page can be made to fail (HTTP 503)
    for good. Counts the list pages and profiles asked for."""

    def __init__(self) -> None:
        self.ids = {"ongoing": [1, 2], "upcoming": [3], "past": list(range(101, 126))}
        self.down: set[tuple[str, int]] = set()
        self.overcount: dict[str, int] = {}  # ICOs a list's total_icos claims beyond its own
        self.profiles_down: set[int] = set()
        self.pages: Counter[tuple[str, int]] = Counter()
        self.profiles = 0

    def page(self, h) -> None:
        asked = h.request_json()
        status, number = asked.get("status"), int(asked.get("page", 1))
        self.pages[(status, number)] += 1
        if (status, number) in self.down:
            json_reply({"error": None, "message": "unavailable"}, status=503)(h)
            return
        ids = self.ids[status]
        json_reply({"total_icos": len(ids) + self.overcount.get(status, 0),
                    "current_page": number,
                    "total_pages": -(-len(ids) // 20), "error": None,
                    "data": [list_item(i) for i in ids[(number - 1) * 20:number * 20]]})(h)

    def profile(self, h) -> None:
        self.profiles += 1
        asked = h.request_json().get("id")
        if asked in self.profiles_down:
            json_reply({"error": None, "message": "unavailable"}, status=503)(h)
            return
        json_reply({"error": None, "data": {"id": asked, "main": {"name": f"ICO {asked}"}}})(h)


@INCOMPLETE
def test_a_partial_rerun_the_same_day_keeps_the_complete_lists_rows(
        tmp_path, monkeypatch, quick_retries, caplog):
    """03:15's snapshot is complete (28 ICOs, past on 2 pages). At 09:15 a re-run that
    re-pages (--refresh changed) meets page 2 of the past list failing for good: its 5
    ICOs were dropped from the day's snapshot (23 rows), though the day's complete list
    had them. Now the day's rows the paging lacks are kept from the list paged at 03:15
    (the query says partial, and which rows it kept and when they were listed: exit 5),
    and a third run with the page still down (no --refresh: it pages the one list the
    day holds partial) keeps them too. The next day no list of
    that day has them: they are missing, and history says unseen, not removed."""
    service = _Paged()
    out = tmp_path / "srv"
    day = _day(out, MORNING)
    args = ["--out", str(out), "--snapshot"]
    with HostileServer({LIST: service.page, PROFILE: service.profile}) as srv:
        _as_cron(srv, tmp_path, monkeypatch)
        try:
            assert _run(MORNING, *args) == EXIT_OK
            every = _ids(day)
            assert len(every) == 28
            service.down = {("past", 2)}
            service.pages.clear()
            service.profiles = 0
            for hours, refresh in ((6, ["--refresh", "changed"]), (9, [])):
                caplog.clear()
                assert _run(MORNING + dt.timedelta(hours=hours), *args,
                            *refresh) == EXIT_INCOMPLETE
                assert _ids(day) == every
                assert "came back partial (5 of its rows kept from the day's list paged at " \
                    "2026-11-20T03:15" in caplog.text
                [said] = logged(caplog, "IncompleteWarning")
                assert said.startswith(
                    "incomplete result: the list {'status': 'past'} is partial (pages failed; "
                    "5 of its rows kept from the list paged at 2026-11-20T03:15")
            # the first re-run paged every list (page 2 and its 5 retries); the second the
            # past list, which the day holds partial, and with it the others (whole, the
            # day's): a load without a status pages its lists together (fetch/moment.py)
            assert dict(service.pages) == {("ongoing", 1): 2, ("upcoming", 1): 2,
                                           ("past", 1): 2, ("past", 2): 12}
            assert service.profiles == 0
            manifest = json.loads((day / "manifest.json").read_text())
            assert _run(MORNING + dt.timedelta(days=1), *args) == EXIT_INCOMPLETE
        finally:
            icoframes.reset_configuration()
    assert logged(caplog, "IncompleteWarning")[-1] == (  # the next day: none kept
        "incomplete result: the list {'status': 'past'} is partial (5 of its 25 ICOs "
        "missing); the next call pages it again")
    assert manifest["complete"] is False and manifest["rows"]["icos"] == 28
    [past] = [q for q in manifest["queries"] if q["params"]["status"] == "past"]
    assert (past["complete"], past["from_cache"], past["rows"]) == (False, False, 28 - 3)
    assert list(past["failed_pages"]) == ["2"]
    assert past["kept"]["rows"] == 5 and past["kept"]["ids"] == list(range(121, 126))
    assert dt.datetime.fromisoformat(past["kept"]["fetched_at"]).date() == MORNING.date()
    assert dt.datetime.fromisoformat(past["kept"]["fetched_at"]) < MORNING + dt.timedelta(
        hours=1)  # listed by the morning's run: the re-runs never dated those rows anew
    nextday = _day(out, MORNING + dt.timedelta(days=1))
    assert _ids(nextday) == [i for i in every if i < 121]
    events = icoframes.changes(out)
    assert {(r.ico_id, r.kind) for r in events.itertuples()} == {
        (i, "unseen") for i in range(121, 126)}


@INCOMPLETE
def test_a_rerun_with_a_short_max_age_keeps_the_days_rows_too(tmp_path, monkeypatch,
                                                             quick_retries, caplog):
    """A re-run at 09:15 with --max-age 3600 re-pages the 03:15 lists (older than an
    hour); the ongoing list fails for good, and page 2 of the past one. The day's earlier
    lists stood in only when younger than --max-age, so the day's snapshot lost 7 of its
    28 ICOs. A snapshot is the day's: the rows of a list paged that day stand in (partial,
    exit 5), however short --max-age is."""
    service = _Paged()
    out = tmp_path / "srv"
    day = _day(out, MORNING)
    with HostileServer({LIST: service.page, PROFILE: service.profile}) as srv:
        _as_cron(srv, tmp_path, monkeypatch)
        try:
            assert _run(MORNING, "--out", str(out), "--snapshot") == EXIT_OK
            every = _ids(day)
            service.down = {("ongoing", 1), ("past", 2)}
            assert _run(MORNING + dt.timedelta(hours=6), "--out", str(out), "--snapshot",
                        "--max-age", "3600") == EXIT_INCOMPLETE
        finally:
            icoframes.reset_configuration()
    assert _ids(day) == every
    manifest = json.loads((day / "manifest.json").read_text())
    got = {q["params"]["status"]: (q["complete"], q["from_cache"], q["rows"],
                                   (q.get("kept") or {}).get("rows"))
           for q in manifest["queries"]}
    assert got == {"ongoing": (False, True, 2, None), "upcoming": (True, False, 1, None),
                   "past": (False, False, 25, 5)}
    [said] = logged(caplog, "IncompleteWarning")
    assert said.startswith(
        "incomplete result: the list {'status': 'ongoing'} is partial (pages failed); the next "
        "call pages it again; the list {'status': 'past'} is partial (pages failed; 5 of its "
        "rows kept from the list paged at 2026-11-20T03:15")


def test_a_second_snapshot_the_same_day_pays_no_list_page_and_the_next_day_does(
        sb, tmp_path):
    """A --snapshot re-run at 09:15 re-paged every list the 03:15 run had paged whole
    (one request per 20 ICOs, paid again for the same day's service). Now a list paged
    since 00:00 UTC that day, complete, is that day's list: the re-run sends no request
    at all (its profiles are as fresh as their maximum ages ask), and writes the same
    rows, the lists dated 03:15. --refresh changed still re-pages now; the next day's
    run re-pages every list."""
    out = tmp_path / "srv"
    day = _day(out, MORNING)
    pages = sum(-(-len(sb.directory.ids(s)) // 20) for s in ("ongoing", "upcoming", "past"))
    assert _run(MORNING, "--out", str(out), "--snapshot") == EXIT_OK
    assert sb.stats.requests["icos"] == pages
    morning = json.loads((day / "manifest.json").read_text())
    rows = _ids(day)
    sb.stats.reset()
    assert _run(MORNING + dt.timedelta(hours=6), "--out", str(out), "--snapshot") == EXIT_OK
    assert dict(sb.stats.requests) == {}  # no list page, no profile
    again = json.loads((day / "manifest.json").read_text())
    assert again["complete"] is True and _ids(day) == rows
    assert [(q["from_cache"], q["fetched_at"]) for q in again["queries"]] == [
        (True, q["fetched_at"]) for q in morning["queries"]]
    assert again["lists_fresh_after"] == "2026-11-20T00:00:00+00:00"
    # --refresh none is the same; --refresh changed pages the lists now
    assert _run(MORNING + dt.timedelta(hours=7), "--out", str(out), "--snapshot",
                "--refresh", "none") == EXIT_OK
    assert dict(sb.stats.requests) == {}
    assert _run(MORNING + dt.timedelta(hours=8), "--out", str(out), "--snapshot",
                "--refresh", "changed") == EXIT_OK
    assert dict(sb.stats.requests) == {"icos": pages}
    sb.stats.reset()
    tomorrow = MORNING + dt.timedelta(days=1)
    assert _run(tomorrow, "--out", str(out), "--snapshot") == EXIT_OK
    assert sb.stats.requests["icos"] == pages
    nextday = json.loads((_day(out, tomorrow) / "manifest.json").read_text())
    assert all(not q["from_cache"] and q["fetched_at"].startswith("2026-11-21")
               for q in nextday["queries"])



@INCOMPLETE
def test_max_age_none_from_python_never_exports_yesterdays_list_for_a_failed_paging(
        tmp_path, monkeypatch, quick_retries, caplog):
    """Day 2 the ongoing list fails for good. The command (whose --max-age is a number)
    exports it with no row, partial. export_tables(refresh=True, max_age=None) from Python
    had no day limit on the list standing in for a failed paging: it exported day 1's
    ongoing rows as day 2's (from_cache, dated day 1). Now it does as the command does."""
    service = _Paged()
    day2 = MORNING + dt.timedelta(days=1)
    with HostileServer({LIST: service.page, PROFILE: service.profile}) as srv:
        _as_cron(srv, tmp_path, monkeypatch)
        try:
            assert _run(MORNING, "--out", str(tmp_path / "cli")) == EXIT_OK
            service.down = {("ongoing", 1)}
            assert _run(day2, "--out", str(tmp_path / "cli"), "--refresh",
                        "changed") == EXIT_INCOMPLETE
            with time_machine.travel(day2 + dt.timedelta(minutes=5), tick=True), \
                    pytest.warns(icoframes.IncompleteWarning, match="ongoing"):
                result = icoframes.export_tables(tmp_path / "py", refresh=True, max_age=None,
                                                 progress=False)
        finally:
            icoframes.reset_configuration()

    def ongoing(manifest):
        [query] = [q for q in manifest["queries"] if q["params"]["status"] == "ongoing"]
        return query["complete"], query["from_cache"], query["rows"]

    assert logged(caplog, "IncompleteWarning") == [  # the command's; Python's: pytest.warns
        "incomplete result: the list {'status': 'ongoing'} could not be paged (HTTP 503)"]
    cli = json.loads((tmp_path / "cli" / "manifest.json").read_text())
    assert ongoing(cli) == (False, False, 0)
    assert ongoing(result.manifest) == ongoing(cli)
    assert result.complete is False and result.rows["icos"] == cli["rows"]["icos"] == 26
    assert _ids(tmp_path / "py") == _ids(tmp_path / "cli") == [3, *range(101, 126)]


@INCOMPLETE
def test_a_same_day_rerun_of_a_list_whose_count_lies_is_written_not_called_a_failure(
        tmp_path, monkeypatch, quick_retries, caplog):
    """The past list's total_icos says 30 while its pages give 25: the morning's snapshot is
    partial (exit 5), the list kept as the count's fault (count_contradicts), used as cached
    until older than --max-age. A re-run at 09:15 takes it as the day's list (no page), and
    must not read it as a paging that failed: it is written again, partial (exit 5), not
    'no list of this snapshot could be paged' (exit 1)."""
    service = _Paged()
    service.overcount = {"past": 5}
    out = tmp_path / "srv"
    day = _day(out, MORNING)
    with HostileServer({LIST: service.page, PROFILE: service.profile}) as srv:
        _as_cron(srv, tmp_path, monkeypatch)
        try:
            args = ["--out", str(out), "--status", "past", "--snapshot"]
            assert _run(MORNING, *args) == EXIT_INCOMPLETE
            every = _ids(day)
            service.pages.clear()
            caplog.clear()
            assert _run(MORNING + dt.timedelta(hours=6), *args) == EXIT_INCOMPLETE, caplog.text
        finally:
            icoframes.reset_configuration()
    assert dict(service.pages) == {}
    assert logged(caplog, "IncompleteWarning") == [
        "incomplete result: the list {'status': 'past'} is partial (5 of its 30 ICOs missing); "
        "its pages came (to the last of the total_pages it gave, or to the first listing "
        "none), with fewer ICOs than the count says: it is paged again once older than "
        "max_age"]
    assert _ids(day) == every and len(every) == 25
    manifest = json.loads((day / "manifest.json").read_text())
    [past] = manifest["queries"]
    assert (past["from_cache"], past["complete"], past["count_contradicts"]) == (
        True, False, True)


@INCOMPLETE
def test_the_rows_a_partial_rerun_keeps_get_their_missing_profiles(tmp_path, monkeypatch,
                                                                   quick_retries, caplog):
    """03:15: ICO 123's profile fails (the snapshot lacks it: missing, exit 5). 09:15 the
    profile is back but page 2 of the past list (which holds 123) fails: the re-run kept
    the day's rows of that page, and never asked for 123's profile, still missing. The
    kept rows' profiles are planned like any listed row's: 123 is fetched (1 request)."""
    service = _Paged()
    service.profiles_down = {123}
    out = tmp_path / "srv"
    day = _day(out, MORNING)
    args = ["--out", str(out), "--status", "past", "--snapshot"]
    with HostileServer({LIST: service.page, PROFILE: service.profile}) as srv:
        _as_cron(srv, tmp_path, monkeypatch)
        try:
            assert _run(MORNING, *args) == EXIT_INCOMPLETE
            assert 123 not in _ids(day) and len(_ids(day)) == 24
            service.profiles_down, service.down = set(), {("past", 2)}
            service.profiles = 0
            assert _run(MORNING + dt.timedelta(hours=6), *args,
                        "--refresh", "changed") == EXIT_INCOMPLETE
        finally:
            icoframes.reset_configuration()
    assert service.profiles == 1
    morning, rerun = logged(caplog, "IncompleteWarning")
    assert morning.startswith("incomplete result: 1 listed ICO(s) have no row: 1 failed; "
                              "first: 123 (HTTP 503")
    assert rerun.startswith("incomplete result: the list {'status': 'past'} is partial (pages "
                            "failed; 5 of its rows kept from the list paged at 2026-11-20T03:15")
    assert _ids(day) == list(range(101, 126))
    manifest = json.loads((day / "manifest.json").read_text())
    assert manifest["missing"] == [] and manifest["queries"][0]["kept"]["rows"] == 5


def test_a_snapshot_stopped_mid_list_is_paged_again_the_same_day(sb, tmp_path, monkeypatch):
    """03:15's snapshot stops at its daily quota after page 1 of the past list: the pages
    it never asked for are failed pages, so the stored list is partial. Before, it read as
    a whole list counting fewer items than its total (every page came), and every re-run
    that day, with quota again, reused those 20 rows with 0 list pages and exit 0."""
    past = sorted(sb.directory.ids("past"))
    assert len(past) > 20  # more than one page
    out = tmp_path / "srv"
    monkeypatch.setenv("ICOFRAMES_DAILY_QUOTA", "1")
    icoframes.reset_configuration()
    assert _run(MORNING, "--out", str(out), "--status", "past", "--snapshot") != EXIT_OK
    assert sb.stats.requests["icos"] == 1
    monkeypatch.setenv("ICOFRAMES_DAILY_QUOTA", "5000")
    icoframes.reset_configuration()
    sb.stats.reset()
    later = MORNING + dt.timedelta(hours=6)
    assert _run(later, "--out", str(out), "--status", "past", "--snapshot") == EXIT_OK
    pages = -(-len(past) // 20)
    assert sb.stats.requests["icos"] == pages  # the list paged whole again
    manifest = json.loads((_day(out, later) / "manifest.json").read_text())
    assert manifest["complete"] is True
    assert _ids(_day(out, later)) == past


@INCOMPLETE
def test_an_ico_listed_now_in_another_status_beats_the_row_kept_from_the_morning(
        tmp_path, monkeypatch, quick_retries, caplog):
    """03:15's snapshot lists ICO 5 as ongoing (25 ongoing ICOs, 2 pages). By 09:15 it moved
    to past, and page 2 of the ongoing list is down: the ongoing list keeps the morning's
    rows it lacks, 5 among them, and that kept row came first, so the day's snapshot said
    5 was ongoing although the past list paged at 09:15 lists it. The row listed now wins;
    the ongoing query's ``kept`` no longer names 5."""
    svc = _Paged()
    svc.ids = {"ongoing": list(range(1, 26)), "upcoming": [30], "past": list(range(101, 106))}
    out = tmp_path / "srv"
    with HostileServer({LIST: svc.page, PROFILE: svc.profile}) as server:
        _as_cron(server, tmp_path, monkeypatch)
        assert _run(MORNING, "--out", str(out), "--snapshot") == EXIT_OK
        svc.ids = {"ongoing": [i for i in range(1, 26) if i != 5], "upcoming": [30],
                   "past": [5, *range(101, 106)]}
        svc.down = {("ongoing", 2)}
        noon = MORNING + dt.timedelta(hours=6)
        assert _run(noon, "--out", str(out), "--snapshot", "--refresh", "changed") \
            == EXIT_INCOMPLETE
    [said] = logged(caplog, "IncompleteWarning")
    assert said.startswith("incomplete result: the list {'status': 'ongoing'} is partial (pages "
                           "failed; 4 of its rows kept from the list paged at 2026-11-20T03:15")
    day = _day(out, noon)
    icos = pd.read_parquet(day / "icos.parquet").set_index("id")
    assert icos.loc[5, "status"] == "past"
    assert sorted(icos.index) == [*range(1, 26), 30, *range(101, 106)]
    queries = {q["params"]["status"]: q for q in json.loads(
        (day / "manifest.json").read_text())["queries"]}
    assert queries["ongoing"]["kept"] == {**queries["ongoing"]["kept"], "rows": 4,
                                         "ids": [22, 23, 24, 25]}
    assert queries["past"]["complete"] is True


def test_the_other_query_refusal_says_the_filter_set_it_fetched_first(sb, tmp_path):
    """A platform name needs the filter set (not cached after a status-only export), fetched
    before the day's folder is compared: the refusal said "Nothing was sent" after that one
    request. It now says what was fetched is cached, and nothing was written."""
    out = tmp_path / "srv"
    with time_machine.travel(MORNING, tick=True):
        icoframes.export_tables(out, status="past", snapshot=True, progress=False)
        sb.stats.reset()
        with pytest.raises(icoframes.InvalidParameter) as info:
            icoframes.export_tables(out, status="past", platform=["Ethereum"], snapshot=True,
                                    progress=False)
    assert dict(sb.stats.requests) == {"filters": 1}
    assert "Nothing was written (what was fetched is cached)" in str(info.value)
    assert "Nothing was sent" not in str(info.value)

"""The edges of a cron job's days: a day's manifest says when its rows were listed, a day's
rows already exported are not lost, a tree holds one query.

Real hostile server or sandbox over loopback; the clock moved with time-machine (ticking).
Request counts are the server's own.
"""

from __future__ import annotations

import datetime as dt
import json

import pandas as pd
import pytest
import test_days
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply
from test_days import INCOMPLETE, QUOTA, STALE, _as_cron, _run, logged
from test_days_same_day import _Paged

import icoframes
from icoframes.cli import EXIT_ERROR, EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE

MORNING = dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC)
NOON = MORNING + dt.timedelta(hours=6)

sb = test_days.sb  # a sandbox reached as cron's runs reach it


def _day(out, when):
    return out / f"snapshot_date={when.date().isoformat()}"


def _ids(folder) -> list[int]:
    return sorted(pd.read_parquet(folder / "icos.parquet")["id"].tolist())


def _queries(folder) -> dict[str, dict]:
    manifest = json.loads((folder / "manifest.json").read_text())
    return {q["params"]["status"]: q for q in manifest["queries"]}


@INCOMPLETE
def test_a_list_whose_kept_rows_all_moved_is_dated_by_its_paging(
        tmp_path, monkeypatch, quick_retries, caplog):
    """03:15 lists ongoing 1..25 (2 pages). By 09:15, 5 and 22..25 moved to past, and page 2
    of the ongoing list (now 26..30) is down: the re-run kept 5 and 22..25 from the morning,
    then dropped them all as listed now under past (listed_now_wins): the ongoing query kept
    nothing, yet its fetched_at stayed 03:15, older than any of its rows. It is now the
    paging's time (09:15), in the manifest and its lists_fetched. A third run at 12:15 (page
    still down, the past list reused from 09:15's cache) exported 5 and 22..25 as ongoing,
    the kept morning rows beating the past list because that came from the cache: a kept
    row gives way to the same ICO listed later by another query, cached or not."""
    svc = _Paged()
    moved = [5, 22, 23, 24, 25]
    svc.ids = {"ongoing": list(range(1, 26)), "upcoming": [40], "past": list(range(101, 106))}
    out = tmp_path / "srv"
    with HostileServer({LIST: svc.page, PROFILE: svc.profile}) as server:
        _as_cron(server, tmp_path, monkeypatch)
        try:
            assert _run(MORNING, "--out", str(out), "--snapshot") == EXIT_OK
            svc.ids = {"ongoing": [i for i in range(1, 31) if i not in moved], "upcoming": [40],
                       "past": [*moved, *range(101, 106)]}
            svc.down = {("ongoing", 2)}
            assert _run(NOON, "--out", str(out), "--snapshot", "--refresh", "changed") \
                == EXIT_INCOMPLETE
            day = _day(out, NOON)
            noon = _queries(day)
            manifest = json.loads((day / "manifest.json").read_text())
            svc.pages.clear()
            assert _run(NOON + dt.timedelta(hours=3), "--out", str(out), "--snapshot") \
                == EXIT_INCOMPLETE
        finally:
            icoframes.reset_configuration()
    assert logged(caplog, "IncompleteWarning") == [
        "incomplete result: the list {'status': 'ongoing'} is partial (5 of its 25 ICOs "
        "missing); the next call pages it again"] * 2  # 09:15, 12:15: none kept, none said
    ongoing = noon["ongoing"]
    assert "kept" not in ongoing and ongoing["complete"] is False
    paged = dt.datetime.fromisoformat(ongoing["fetched_at"])
    assert paged.date() == NOON.date() and paged >= NOON  # 09:15, not 03:15
    assert manifest["lists_fetched"]["oldest"] >= NOON.isoformat()
    # the third run paged the ongoing list (partial), and with it the day's others (whole): a
    # load without a status pages its lists together (fetch/moment.py); were they cached,
    # the past list's rows would still win, as listed later (tests/test_status_none_moment.py)
    assert set(svc.pages) == {("ongoing", 1), ("ongoing", 2), ("upcoming", 1), ("past", 1)}
    icos = pd.read_parquet(_day(out, NOON) / "icos.parquet").set_index("id")
    assert icos.loc[moved, "status"].tolist() == ["past"] * 5
    assert sorted(icos.index) == [*range(1, 26), 40, *range(101, 106)]  # 26..30: page 2
    third = _queries(_day(out, NOON))["ongoing"]
    assert "kept" not in third


DAYS = [MORNING + dt.timedelta(days=i) for i in range(3)]


def test_another_query_on_another_day_is_refused_before_any_request(sb, tmp_path, caplog):
    """Days 1 and 2 snapshot the past ICOs into /srv; day 3 a changed cron line snapshots
    the ongoing ones into the same --out. It was written (only the same day was refused), and
    changes() then read every past ICO as removed and every ongoing one as new: one tree,
    two queries. It is now refused before any request (exit 2), naming the query the tree
    holds and its days, and how to start a new tree; the tree is as it was and its history
    has no event. The same query spelled otherwise is an export as ever, a folder whose
    manifest names no query (an older version's) is no other query, and the refused
    query starts its own tree."""
    import logging

    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "srv"
    for when in DAYS[:2]:
        assert _run(when, "--out", str(out), "--status", "past", "--snapshot") == EXIT_OK
    before = {p.name: sorted(q.name for q in p.iterdir()) for p in out.iterdir()}
    sb.stats.reset()
    caplog.clear()
    assert _run(DAYS[2], "--out", str(out), "--status", "ongoing", "--snapshot") == EXIT_USAGE
    assert dict(sb.stats.requests) == {}  # refused before any request
    assert "status=past (2 snapshots, 2026-11-20 to 2026-11-21)" in caplog.text
    assert "asks for status=ongoing" in caplog.text and "Nothing was sent" in caplog.text
    assert f"--out {tmp_path / 'srv-ongoing'}" in caplog.text
    assert {p.name: sorted(q.name for q in p.iterdir()) for p in out.iterdir()} == before
    with pytest.raises(icoframes.InvalidParameter, match="a snapshot tree of another query"), \
            time_machine.travel(DAYS[2], tick=True):
        icoframes.export_tables(out, status="ongoing", snapshot=True, progress=False)
    assert dict(sb.stats.requests) == {}
    assert icoframes.changes(out).empty
    # day 1 written by an older version (no queries in its manifest) says nothing of its query
    first = _day(out, DAYS[0]) / "manifest.json"
    manifest = json.loads(first.read_text())
    first.write_text(json.dumps({k: v for k, v in manifest.items() if k != "queries"}))
    caplog.clear()
    assert _run(DAYS[2], "--out", str(out), "--status", "ongoing", "--snapshot") == EXIT_USAGE
    assert "status=past (the snapshot of 2026-11-21)" in caplog.text
    # the same query, the status in another case: day 3 of the tree
    assert _run(DAYS[2], "--out", str(out), "--status", "PAST", "--snapshot") == EXIT_OK
    assert len(icoframes.history.snapshot_info(out)) == 3
    # the other query into its own tree
    assert _run(DAYS[2], "--out", str(tmp_path / "srv-ongoing"), "--status", "ongoing",
                "--snapshot") == EXIT_OK


@INCOMPLETE
@STALE
@pytest.mark.parametrize("lost", ["cache_cleared", "other_cache_dir"])
def test_a_partial_rerun_keeps_the_days_exported_rows_when_the_cache_lost_its_list(
        tmp_path, monkeypatch, quick_retries, caplog, lost):
    """03:15's snapshot is complete (past on 2 pages, 25 ICOs). Before 09:15 the cache is
    cleared (or the job's cache dir changed), and page 2 of the past list is down: the
    re-run pages the lists anew, has no day's list to keep the 5 ICOs of page 2 from, and
    replaced the day's 28 rows by 23. The day's snapshot itself holds them: rows already
    exported that day are kept from it for a list that came back partial (``kept`` says
    which, and when their list was paged; exit 5), with their tables (team, links, ...),
    never fetched again. The next day, page 2 still down and no list of that day having
    them, they are missing and history says unseen, not removed."""
    import shutil

    svc = _Paged()
    out = tmp_path / "srv"
    day = _day(out, MORNING)

    def profile(h) -> None:  # every ICO with a team of two
        svc.profiles += 1
        asked = h.request_json().get("id")
        json_reply({"error": None, "data": {"id": asked, "main": {"name": f"ICO {asked}"},
                                            "team": [{"name": f"A{asked}"},
                                                     {"name": f"B{asked}"}]}})(h)

    with HostileServer({LIST: svc.page, PROFILE: profile}) as server:
        _as_cron(server, tmp_path, monkeypatch)
        try:
            assert _run(MORNING, "--out", str(out), "--snapshot") == EXIT_OK
            every = _ids(day)
            morning = _queries(day)["past"]
            team = pd.read_parquet(day / "team.parquet")
            assert len(team) == 2 * 28
            assert len(every) == 28
            if lost == "cache_cleared":
                shutil.rmtree(tmp_path / "cache")
            else:
                monkeypatch.setenv("ICOFRAMES_CACHE_DIR", str(tmp_path / "cache2"))
                icoframes.reset_configuration()
            svc.down = {("past", 2)}
            svc.pages.clear()
            svc.profiles = 0
            caplog.clear()
            assert _run(NOON, "--out", str(out), "--snapshot") == EXIT_INCOMPLETE
            assert "the list {'status': 'past'} came back partial (5 of its rows kept from " \
                f"the day's snapshot, listed at {_queries(day)['past']['fetched_at']})" \
                in caplog.text
            # the load's word on the list, as the kept rows left it: never "5 missing" first
            assert "5 of its 25 ICOs missing" not in caplog.text
            assert ("the list {'status': 'past'} is partial (pages failed; 5 of its rows kept "
                    f"from the list paged at {_queries(day)['past']['fetched_at']})"
                    in caplog.text)
            assert dict(svc.pages) == {("ongoing", 1): 1, ("upcoming", 1): 1,
                                       ("past", 1): 1, ("past", 2): 6}  # 5 retries
            assert svc.profiles == 23  # the rows listed now (a new cache); the kept: none
            assert _ids(day) == every
            manifest = json.loads((day / "manifest.json").read_text())
            assert _run(MORNING + dt.timedelta(days=1), "--out", str(out),
                        "--snapshot") == EXIT_INCOMPLETE
        finally:
            icoframes.reset_configuration()
    [kept] = logged(caplog, "StaleWarning")
    assert kept.startswith("5 row(s) this export lacked are kept from the day's snapshot "
                           "snapshot_date=2026-11-20 (the cache no longer holds their list or "
                           "profile): 5 of a list that came back partial, 0 listed but not ")
    assert logged(caplog, "IncompleteWarning")[1:] == [  # the next day's: none kept, 5 lacked
        "incomplete result: the list {'status': 'past'} is partial (5 of its 25 ICOs "
        "missing); the next call pages it again"]
    past = {q["params"]["status"]: q for q in manifest["queries"]}["past"]
    # the kept rows reach the count: how many the list lacks is unknown, never 0 (was: 0)
    assert (past["complete"], past["rows"], past["total_icos"], past["missing"]) == (
        False, 25, 25, None)
    assert past["missing_unknown"] == (
        "its 25 rows reach its count of 25, but page(s) 2 failed or moved (failed_pages): "
        "what the list holds there now is unknown (an ICO that joined it there may be "
        "missing while a row it no longer lists makes up the count)")
    assert past["kept"] == {"rows": 5, "ids": list(range(121, 126)),
                            "fetched_at": morning["fetched_at"], "from_snapshot": 5}
    assert past["fetched_at"] == morning["fetched_at"]
    assert manifest["rows"]["icos"] == 28 and manifest["complete"] is False
    now = pd.read_parquet(day / "team.parquet")  # the kept ICOs' team rows came with them
    assert sorted(map(tuple, now[["ico_id", "name"]].to_numpy().tolist())) == sorted(
        map(tuple, team[["ico_id", "name"]].to_numpy().tolist()))
    assert _ids(_day(out, MORNING + dt.timedelta(days=1))) == [i for i in every if i < 121]
    assert {(r.ico_id, r.kind) for r in icoframes.changes(out).itertuples()} == {
        (i, "unseen") for i in range(121, 126)}


def test_rows_whose_profiles_the_cache_lost_are_kept_from_the_days_snapshot(
        tmp_path, monkeypatch, quick_retries):
    """03:15's snapshot is complete (13 ICOs). The cache is cleared, ICO 1 moves from ongoing
    to past, and the 09:15 re-run may send 3 requests (daily_quota): the 3 list pages, then
    no profile. Every listed ICO lacked a profile, and the day's snapshot was replaced by one
    of 0 rows (exit 5). The day's snapshot has each of them: kept from it, in not_refreshed
    (reason quota, fetched at 03:15) instead of missing, ICO 1 under the status it is listed
    under now; the result's report says the same."""
    import shutil

    svc = _Paged()
    svc.ids = {"ongoing": [1, 2], "upcoming": [3], "past": list(range(101, 111))}
    out = tmp_path / "srv"
    day = _day(out, MORNING)
    with HostileServer({LIST: svc.page, PROFILE: svc.profile}) as server:
        _as_cron(server, tmp_path, monkeypatch)
        try:
            assert _run(MORNING, "--out", str(out), "--snapshot") == EXIT_OK
            every = _ids(day)
            assert len(every) == 13
            shutil.rmtree(tmp_path / "cache")
            svc.ids = {**svc.ids, "ongoing": [2], "past": [1, *svc.ids["past"]]}
            monkeypatch.setenv("ICOFRAMES_DAILY_QUOTA", "3")
            icoframes.reset_configuration()
            svc.pages.clear()
            svc.profiles = 0
            # the load's "13 listed ICO(s) have no row" came first and said the opposite of
            # the kept rows: every listed ICO has its row (kept), and nothing else is lacking
            with time_machine.travel(NOON, tick=True), \
                    pytest.warns(icoframes.IcoframesWarning) as told:
                result = icoframes.export_tables(out, snapshot=True, progress=False)
        finally:
            icoframes.reset_configuration()
    assert [(w.category, str(w.message)[:40]) for w in told] == [
        (icoframes.QuotaWarning, str(told[0].message)[:40]),
        (icoframes.StaleWarning, "13 row(s) this export lacked are kept fr")]
    assert "about 0 that remain" in str(told[0].message)
    assert "from the day's snapshot snapshot_date=2026-11-20" in str(told[1].message)
    assert result.complete is False and result.stopped["by"] == "daily_quota"
    assert result.report.missing == () and list(result.report.not_refreshed) == _ids(day)
    assert [r["id"] for r in result.not_refreshed] == _ids(day)
    assert dict(svc.pages) == {("ongoing", 1): 1, ("upcoming", 1): 1, ("past", 1): 1}
    assert svc.profiles == 0
    assert _ids(day) == every
    icos = pd.read_parquet(day / "icos.parquet").set_index("id")
    assert icos.loc[1, "status"] == "past" and icos.loc[2, "status"] == "ongoing"
    manifest = json.loads((day / "manifest.json").read_text())
    assert manifest["missing"] == [] and manifest["complete"] is False
    assert manifest["stopped"]["by"] == "daily_quota"
    assert [r["id"] for r in manifest["not_refreshed"]] == every
    assert {r["reason"] for r in manifest["not_refreshed"]} == {
        "quota (the row of the day's snapshot kept)"}
    assert {dt.datetime.fromisoformat(r["fetched_at"]).date() for r in manifest["not_refreshed"]} \
        == {MORNING.date()}
    assert all(dt.datetime.fromisoformat(r["fetched_at"]) < NOON
               for r in manifest["not_refreshed"])


def test_history_of_a_tree_mixing_two_queries_is_refused_not_told_as_events(sb, tmp_path):
    """A tree written before the export refused another query: day 1 holds the past ICOs,
    day 2 the ongoing ones. changes() reported every past ICO removed and every ongoing one
    new on day 2, though nothing happened at the service. It now raises ValueError naming
    each query and its days (plot_status_flow too, which drew those moves); snapshot_info
    says each snapshot's queries; the frame filtered to one query's dates is compared as
    ever."""
    out, other = tmp_path / "srv", tmp_path / "other"
    assert _run(DAYS[0], "--out", str(out), "--status", "past", "--snapshot") == EXIT_OK
    assert _run(DAYS[1], "--out", str(other), "--status", "ongoing", "--snapshot") == EXIT_OK
    _day(other, DAYS[1]).rename(_day(out, DAYS[1]))  # as an older version wrote the tree
    info = icoframes.history.snapshot_info(out)
    assert info["queries"].tolist() == [[{"status": "past"}], [{"status": "ongoing"}]]
    with pytest.raises(ValueError, match=r"2 different queries \(status=past \(2026-11-20\); "
                                         r"status=ongoing \(2026-11-21\)\)"):
        icoframes.changes(out)
    snaps = icoframes.read_snapshots(out)
    with pytest.raises(ValueError, match="2 different queries"):  # its moves: none either
        icoframes.plot_status_flow(snaps)
    past = snaps[snaps["snapshot_date"] == pd.Timestamp(DAYS[0].date())]
    assert icoframes.changes(past).empty


@pytest.mark.parametrize("start", [None, DAYS[1]])
def test_a_tree_mixing_two_queries_is_refused_before_any_day_is_read(sb, tmp_path, start):
    """changes(path) refused a tree mixing queries only after it had read every day, so a
    damaged day anywhere was said instead (and a long tree read whole for nothing). Its
    days' manifests refuse it before any day is read: here no day's table could be. With
    ``start``, the days before it (down to the last complete one, the baseline) were read
    before any check; by their manifests, they are checked first too."""
    out, other = tmp_path / "srv", tmp_path / "other"
    assert _run(DAYS[0], "--out", str(out), "--status", "past", "--snapshot") == EXIT_OK
    assert _run(DAYS[1], "--out", str(other), "--status", "ongoing", "--snapshot") == EXIT_OK
    _day(other, DAYS[1]).rename(_day(out, DAYS[1]))  # as an older version wrote the tree
    for day in DAYS[:2]:
        (_day(out, day) / "icos.parquet").write_bytes(b"damaged")
    with pytest.raises(ValueError, match="2 different queries"):
        icoframes.changes(out, start=start)


@pytest.mark.parametrize("first", ["snapshot", "plain"])
def test_an_out_holding_the_other_layout_is_refused_before_any_request(sb, tmp_path, caplog,
                                                                        first):
    """A plain export into a snapshot tree was written beside the snapshots, and a snapshot
    into a plain export's folder beside its tables: either way read_export(out) then refused
    the folder (it holds snapshots), so the plain export could no longer be read. Both are
    refused before any request (exit 2), saying why; the folder is as it was."""
    import logging

    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "srv"
    layout = {"snapshot": ["--snapshot"], "plain": []}
    assert _run(DAYS[0], "--out", str(out), "--status", "past", *layout[first]) == EXIT_OK
    before = sorted(p.name for p in out.iterdir())
    sb.stats.reset()
    caplog.clear()
    other = layout["plain" if first == "snapshot" else "snapshot"]
    assert _run(DAYS[1], "--out", str(out), "--status", "past", *other) == EXIT_USAGE
    assert dict(sb.stats.requests) == {}
    assert sorted(p.name for p in out.iterdir()) == before
    assert ("is a snapshot tree" if first == "snapshot" else "holds a plain export") \
        in caplog.text
    if first == "plain":
        assert len(icoframes.read_export(out).icos) == len(sb.directory.ids("past"))


@INCOMPLETE
@QUOTA
@STALE
def test_a_cron_week_of_limits_outages_moves_and_a_cleared_cache(sb, tmp_path, monkeypatch,
                                                                 caplog):
    """Six days of one cron line, the service and the machine misbehaving in turn. Each
    day's exit code and requests (the sandbox's count) say what happened, and history holds
    the service's real changes only: day 2 the daily limit stops the load after the list
    pages (exit 5: the ongoing profiles due again kept from day 1, not_refreshed), a re-run
    at 12:15 with a higher limit fetches just those (exit 0, 0 list pages); day 3 the
    service is down (exit 1, no folder); day 4 the cache is gone and statuses moved (every
    list and profile paid again: the moves and the rescore are the only events); day 5 the
    limit lets one list page through (exit 5: the lists it lacks are partial, their ICOs
    unseen, never removed then new); day 6 is whole."""
    import shutil

    out = tmp_path / "srv"
    args = ["--out", str(out), "--snapshot"]
    week = [MORNING + dt.timedelta(days=i) for i in range(6)]
    ids = {s: sorted(sb.directory.ids(s)) for s in ("ongoing", "upcoming", "past")}
    every = sum(map(len, ids.values()))
    pages = sum(-(-len(v) // 20) for v in ids.values())

    def quota(n: int | None) -> None:
        if n is None:
            monkeypatch.delenv("ICOFRAMES_DAILY_QUOTA", raising=False)
        else:
            monkeypatch.setenv("ICOFRAMES_DAILY_QUOTA", str(n))
        icoframes.reset_configuration()

    told = []  # the warnings each run logged, by kind, as cron's log shows them

    def day(when, expected):
        sb.stats.reset()
        caplog.clear()
        assert _run(when, *args) == expected
        told.append({k: logged(caplog, k) for k in (
            "IncompleteWarning", "QuotaWarning", "StaleWarning") if logged(caplog, k)})
        return dict(sb.stats.requests)

    assert day(week[0], EXIT_OK) == {"icos": pages, "ico": every}
    quota(pages)  # day 2: the lists, then the limit
    assert day(week[1], EXIT_INCOMPLETE) == {"icos": pages}
    manifest = json.loads((_day(out, week[1]) / "manifest.json").read_text())
    assert manifest["stopped"]["by"] == "daily_quota" and manifest["missing"] == []
    stale = [r["id"] for r in manifest["not_refreshed"]]
    assert stale and set(stale) <= set(ids["ongoing"])  # due after a day, kept from day 1
    assert manifest["rows"]["icos"] == every
    quota(pages + 2 * every)
    assert day(week[1] + dt.timedelta(hours=9), EXIT_OK) == {"ico": len(stale)}
    quota(None)
    sb.set_faults(1.0)  # day 3: down
    assert set(day(week[2], EXIT_ERROR)) == {"icos"}
    assert not _day(out, week[2]).exists()
    sb.set_faults(0.0)
    shutil.rmtree(tmp_path / "cache")  # day 4: a new cache; the service moved meanwhile
    started, ended, rescored = ids["upcoming"][0], ids["ongoing"][0], ids["past"][0]
    sb.update_ico(started, status="ongoing")
    sb.update_ico(ended, status="past")
    sb.update_ico(rescored, ico_score=1.3)
    assert day(week[3], EXIT_OK) == {"icos": pages, "ico": every}
    quota(1)  # day 5: one list page (whichever list books it first), then the limit
    assert day(week[4], EXIT_INCOMPLETE) == {"icos": 1}
    fifth = json.loads((_day(out, week[4]) / "manifest.json").read_text())
    assert fifth["stopped"]["by"] == "daily_quota"
    assert sum(q["rows"] > 0 for q in fifth["queries"]) == 1
    assert not all(q["complete"] for q in fifth["queries"])
    quota(None)
    assert day(week[5], EXIT_OK)["icos"] == pages
    # day 2 the limit and the rows it kept (not the re-run at 12:15, nor days 3, 4 and 6);
    # day 5 the two lists it left unpaged (and, when the list it paged has profiles due,
    # the limit and the rows it kept: whichever list books the one page first)
    assert [sorted(t) for i, t in enumerate(told) if i != 5] == [
        [], ["QuotaWarning", "StaleWarning"], [], [], [], []]
    quota_said = "this load needs more profile requests than the about "
    assert [m[:len(quota_said)] for m in told[1]["QuotaWarning"]] == [quota_said]
    assert told[1]["StaleWarning"] == [
        f"{len(stale)} row(s) are kept from an earlier fetch: the daily limit stopped the load "
        "before they were fetched again; ids in attrs['icoframes']['not_refreshed']"]
    [unpaged] = told[5]["IncompleteWarning"]
    assert unpaged.startswith("incomplete result: the list {'status': ")
    assert unpaged.count("could not be paged (not received: the load stopped first)") == 2
    assert set(told[5]) <= {"IncompleteWarning", "QuotaWarning", "StaleWarning"}
    gaps = icoframes.changes(out)  # day 5's partial lists: gaps, never removed or new
    assert set(gaps.loc[gaps["snapshot_date"] == pd.Timestamp(week[4].date()), "kind"]) \
        <= {"unseen"}
    assert not gaps["kind"].isin(["removed", "new", "first_seen"]).any()
    events = icoframes.changes(out, gaps="skip")
    old_score = events.loc[events["kind"] == "score", "old"].tolist()
    assert [(r.snapshot_date.date(), r.ico_id, r.kind, r.old, r.new, r.previous_date.date())
            for r in events.itertuples()] == sorted([
        (week[3].date(), started, "status", "upcoming", "ongoing", week[1].date()),
        (week[3].date(), ended, "status", "ongoing", "past", week[1].date()),
        (week[3].date(), rescored, "score", *old_score, "1.3", week[1].date())],
        key=lambda e: (e[1], e[2] != "status"))
    info = icoframes.history.snapshot_info(out)
    assert [d.date() for d in info["snapshot_date"]] == [
        week[i].date() for i in (0, 1, 3, 4, 5)]
    assert info["complete"].tolist() == [True, True, True, False, True]


def test_a_damaged_manifest_of_another_day_does_not_block_the_days_export(sb, tmp_path):
    """The tree check reads every snapshot's manifest: one of day 1 cut short (a full disk
    years ago) made every later export fail (exit 1) before any request. It says nothing
    of its query, and day 2 is exported as ever."""
    out = tmp_path / "srv"
    assert _run(DAYS[0], "--out", str(out), "--status", "past", "--snapshot") == EXIT_OK
    manifest = _day(out, DAYS[0]) / "manifest.json"
    manifest.write_bytes(manifest.read_bytes()[:40])
    assert _run(DAYS[1], "--out", str(out), "--status", "past", "--snapshot") == EXIT_OK
    assert _ids(_day(out, DAYS[1])) == sorted(sb.directory.ids("past"))


@INCOMPLETE
def test_an_ico_listed_now_beats_the_days_earlier_list_standing_in_for_a_failed_one(
        tmp_path, monkeypatch, quick_retries, caplog):
    """03:15 lists ICO 5 as ongoing. By 09:15 it moved to past, and the whole ongoing list
    fails: the day's 03:15 ongoing list stands in for it (partial, from_cache), and its row
    of 5 came first, so the day's snapshot said 5 was ongoing although the past list paged
    at 09:15 lists it. A row of an earlier list standing in gives way to the same ICO listed
    later, as a kept row does."""
    svc = _Paged()
    svc.ids = {"ongoing": [1, 2, 5], "upcoming": [40], "past": [101, 102]}
    out = tmp_path / "srv"
    with HostileServer({LIST: svc.page, PROFILE: svc.profile}) as server:
        _as_cron(server, tmp_path, monkeypatch)
        try:
            assert _run(MORNING, "--out", str(out), "--snapshot") == EXIT_OK
            svc.ids = {"ongoing": [1, 2], "upcoming": [40], "past": [5, 101, 102]}
            svc.down = {("ongoing", 1)}
            assert _run(NOON, "--out", str(out), "--snapshot", "--refresh", "changed") \
                == EXIT_INCOMPLETE
        finally:
            icoframes.reset_configuration()
    assert logged(caplog, "IncompleteWarning") == [  # 5 is listed now: the 03:15 list lacks it
        "incomplete result: the list {'status': 'ongoing'} is partial (1 of its 3 ICOs "
        "missing); the next call pages it again"]
    day = _day(out, NOON)
    icos = pd.read_parquet(day / "icos.parquet").set_index("id")
    assert sorted(icos.index) == [1, 2, 5, 40, 101, 102]
    assert icos.loc[5, "status"] == "past"
    ongoing = _queries(day)["ongoing"]
    assert (ongoing["complete"], ongoing["from_cache"], ongoing["rows"]) == (False, True, 2)


@INCOMPLETE
@QUOTA
@STALE
def test_a_plain_export_keeps_its_days_rows_but_never_yesterdays(tmp_path, monkeypatch,
                                                                 quick_retries, caplog):
    """A plain export at 03:15 is complete (13 ICOs). The cache is cleared and the 09:15
    re-run may send 3 requests (the list pages): the export in --out, complete that
    morning, was replaced by one of 0 rows. Its rows of the day are kept from it (in
    not_refreshed), as a snapshot's are. The next day, the cache cleared again and the same
    limit, yesterday's rows never stand in: 0 rows, 13 missing (exit 5). Another query at
    noon into the same --out (its one list page, then the limit) keeps nothing of the first
    query's rows."""
    import shutil

    svc = _Paged()
    svc.ids = {"ongoing": [1, 2], "upcoming": [3], "past": list(range(101, 111))}
    out = tmp_path / "plain"

    def limited(when, *more, quota="3"):  # the list pages, no profile
        shutil.rmtree(tmp_path / "cache")
        monkeypatch.setenv("ICOFRAMES_DAILY_QUOTA", quota)
        icoframes.reset_configuration()
        code = _run(when, "--out", str(out), *more)
        monkeypatch.delenv("ICOFRAMES_DAILY_QUOTA")
        icoframes.reset_configuration()
        return code, json.loads((out / "manifest.json").read_text())

    with HostileServer({LIST: svc.page, PROFILE: svc.profile}) as server:
        _as_cron(server, tmp_path, monkeypatch)
        try:
            assert _run(MORNING, "--out", str(out)) == EXIT_OK
            every = _ids(out)
            assert len(every) == 13
            svc.profiles = 0
            code, noon = limited(NOON)
            assert (code, svc.profiles, _ids(out)) == (EXIT_INCOMPLETE, 0, every)
            code, other = limited(NOON + dt.timedelta(hours=1), "--status", "upcoming",
                                  quota="1")
            assert (code, _ids(out)) == (EXIT_INCOMPLETE, [])
            assert _run(NOON + dt.timedelta(hours=2), "--out", str(out)) == EXIT_OK
            code, nextday = limited(MORNING + dt.timedelta(days=1))
            assert (code, _ids(out)) == (EXIT_INCOMPLETE, [])
        finally:
            icoframes.reset_configuration()
    assert noon["missing"] == [] and [r["id"] for r in noon["not_refreshed"]] == every
    assert {r["reason"] for r in noon["not_refreshed"]} == {
        "quota (the row of the day's export kept)"}
    assert [m["id"] for m in other["missing"]] == [3] and other["not_refreshed"] == []
    assert sorted(m["id"] for m in nextday["missing"]) == every
    assert nextday["not_refreshed"] == []
    # the three limited runs say the limit; the noon one keeps the day's rows, and says so
    # only (no "13 listed ICO(s) have no row" before it); the others lack their rows
    quota_said = "this load needs more profile requests than the about "
    assert [m[:len(quota_said)] for m in logged(caplog, "QuotaWarning")] == [quota_said] * 3
    [kept] = logged(caplog, "StaleWarning")
    assert kept.startswith(f"13 row(s) this export lacked are kept from the day's export {out} ")
    assert [m.split("; first: ")[0] for m in logged(caplog, "IncompleteWarning")] == [
        f"incomplete result: {n} listed ICO(s) have no row: {n} not_fetched" for n in (1, 13)]

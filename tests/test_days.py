"""A cron job over simulated days: each day's export is that day's service or says it is not.

Real sandbox over loopback; the clock moved with time-machine (ticking: each run takes
its few milliseconds, as cron's does).
"""

from __future__ import annotations

import datetime as dt
import json
import logging

import pandas as pd
import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply, list_page
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_ERROR, EXIT_INCOMPLETE, EXIT_OK, main
from icoframes.config import SETTINGS
from icoframes.errors import IcoframesWarning

DAYS = [dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC) + dt.timedelta(days=i) for i in range(3)]


@pytest.fixture
def sb(tmp_path, monkeypatch, quick_retries):
    """A sandbox the command reaches through ICOFRAMES_* variables, as cron's does."""
    with sandbox.serve(n_icos=50, seed=7) as server:
        _as_cron(server, tmp_path, monkeypatch)
        yield server
    icoframes.reset_configuration()


def _as_cron(server, tmp_path, monkeypatch) -> None:
    """icoframes configured for ``server`` only through ICOFRAMES_* variables, as cron's run
    is (a cache under tmp_path, no setting of an earlier test left)."""
    icoframes.reset_configuration()
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    for name, value in {**server.settings(), "cache_dir": str(tmp_path / "cache")}.items():
        if value is not None:
            monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", value)


def _run(when: dt.datetime, *argv: str) -> int:
    with time_machine.travel(when, tick=True):
        return main(["export", *argv])


def _folder(out, when):
    return out / f"snapshot_date={when.date().isoformat()}"


# The command logs icoframes' warnings (as cron's log shows them) instead of raising them. A
# test of the command lets through the kinds it expects, by their first words (any other
# warning is raised as the suite's filter says, and the export exits 1), and asserts the
# words of each in the log (logged).
INCOMPLETE = pytest.mark.filterwarnings("default:incomplete result:icoframes.IncompleteWarning")
QUOTA = pytest.mark.filterwarnings(
    "default:this load needs more profile requests than:icoframes.QuotaWarning")
STALE = pytest.mark.filterwarnings(
    r"default:\d+ row\(s\) (are kept from an earlier fetch|this export lacked are kept from "
    r"the day's):icoframes.StaleWarning")


def logged(caplog, category: str) -> list[str]:
    """The words of each warning of ``category`` (a class name) the command logged, in order,
    up to where every such warning goes on alike ("Missing ids and their state are in")."""
    return [str(r.args[0]).split(". Missing ids and their state")[0] for r in caplog.records
            if r.name == "icoframes" and isinstance(r.args, tuple) and len(r.args) == 2
            and r.args[1] == category]


@pytest.mark.parametrize("snapshot", [True, False], ids=["snapshot", "plain"])
def test_a_day_the_service_is_down_writes_nothing_and_exits_1(sb, tmp_path, caplog, snapshot):
    """Day 2 every request fails: yesterday's cached lists and profiles were written as
    day 2's export (exit 5, 'partial'); now nothing is written, exit 1, and day 1's export
    is untouched. Day 3 the service is back and history shows no event for the gap."""
    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "srv"
    args = ["--out", str(out), "--status", "past", *(["--snapshot"] if snapshot else [])]
    assert _run(DAYS[0], *args) == EXIT_OK
    first = (_folder(out, DAYS[0]) if snapshot else out) / "manifest.json"
    before = first.read_bytes()
    sb.set_faults(1.0)
    sb.stats.reset()
    caplog.clear()
    assert _run(DAYS[1], *args) == EXIT_ERROR, caplog.text
    assert "gave up" in caplog.text and "wrote" not in caplog.text
    assert dict(sb.stats.requests) == {"icos": 6}  # page 1 and its 5 retries, nothing else
    assert first.read_bytes() == before  # yesterday's export is as it was
    assert sorted(p.name for p in out.iterdir()) == (
        [_folder(out, DAYS[0]).name] if snapshot else sorted(p.name for p in out.iterdir()
                                                             if not p.name.startswith(".")))
    assert not _folder(out, DAYS[1]).exists()
    sb.set_faults(0.0)
    assert _run(DAYS[2], *args) == EXIT_OK
    if snapshot:
        assert icoframes.changes(out).empty
        dates = icoframes.history.snapshot_info(out)["snapshot_date"]
        assert dates.tolist() == [pd.Timestamp(d.date()) for d in (DAYS[0], DAYS[2])]
    else:
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["complete"] is True
        assert dt.datetime.fromisoformat(manifest["exported_at"]).date() == DAYS[2].date()


class _ByStatus:
    """A service of three lists, one of which can be made to fail (HTTP 503) for good."""

    def __init__(self) -> None:
        self.ids = {"ongoing": [1, 2], "upcoming": [3], "past": [4, 5, 6]}
        self.down: set[str] = set()

    def page(self, h) -> None:
        status = h.request_json().get("status")
        if status in self.down:
            json_reply({"error": None, "message": "unavailable"}, status=503)(h)
            return
        list_page(self.ids[status], 1)(h)

    def profile(self, h) -> None:
        asked = h.request_json().get("id")
        json_reply({"error": None, "data": {"id": asked, "main": {"name": f"ICO {asked}"}}})(h)


@INCOMPLETE
def test_a_list_that_fails_beside_others_is_exported_partial_and_empty(
        tmp_path, monkeypatch, quick_retries, caplog):
    """Day 2 the ongoing list fails for good while the others answer: yesterday's ongoing
    rows were exported as day 2's; now none, the query says partial, exit 5, and history
    says the ongoing ICOs went unseen (not removed), then no event when they come back."""
    service = _ByStatus()
    out = tmp_path / "srv"
    with HostileServer({LIST: service.page, PROFILE: service.profile}) as srv:
        _as_cron(srv, tmp_path, monkeypatch)
        try:
            assert _run(DAYS[0], "--out", str(out), "--snapshot") == EXIT_OK
            service.down = {"ongoing"}
            assert _run(DAYS[1], "--out", str(out), "--snapshot") == EXIT_INCOMPLETE
            service.down = set()
            assert _run(DAYS[2], "--out", str(out), "--snapshot") == EXIT_OK
        finally:
            icoframes.reset_configuration()
    assert logged(caplog, "IncompleteWarning") == [
        "incomplete result: the list {'status': 'ongoing'} could not be paged (HTTP 503)"]
    held = pd.read_parquet(_folder(out, DAYS[1]) / "icos.parquet")
    assert sorted(held["id"]) == [3, 4, 5, 6]
    manifest = json.loads((_folder(out, DAYS[1]) / "manifest.json").read_text())
    ongoing = [q for q in manifest["queries"] if q["params"]["status"] == "ongoing"]
    assert [(q["complete"], q["from_cache"], q["rows"]) for q in ongoing] == [(False, False, 0)]
    assert manifest["complete"] is False and manifest["rows"]["icos"] == 4
    events = icoframes.changes(out)
    assert [(r.ico_id, r.kind, r.old) for r in events.itertuples()] == [
        (1, "unseen", "ongoing"), (2, "unseen", "ongoing")]


def test_a_parser_upgrade_between_days_is_no_event(sb, tmp_path, monkeypatch):
    """Between two daily snapshots icoframes is upgraded and its parser reads scores
    differently: each cached profile is parsed again (no request), so 30 ICOs whose
    service data did not move had a 'score' event. A value is compared only when the
    row's profile was fetched again (its fetched_at moved): the same copy of a profile
    read by two parsers is no change at the service. The ICO really rescored is still
    an event, with its values as the new parser reads them."""
    from icoframes.parse import profiles, rules

    out = tmp_path / "srv"
    args = ["--out", str(out), "--status", "past", "--snapshot"]
    assert _run(DAYS[0], *args) == EXIT_OK
    real = profiles.tidy

    def upgraded(raw, **kwargs):  # the new parser: scores rounded to whole points
        tables = real(raw, **kwargs)
        tables.icos["ico_score"] = tables.icos["ico_score"].round(0)
        return tables

    monkeypatch.setattr(profiles, "tidy", upgraded)
    monkeypatch.setattr(rules, "PARSER_VERSION", rules.PARSER_VERSION + 1)
    past = sb.directory.ids("past")
    rescored = past[0]
    sb.update_ico(rescored, ico_score=4.4)
    sb.stats.reset()
    assert _run(DAYS[1], *args) == EXIT_OK
    # the list's pages and the one profile that changed
    assert dict(sb.stats.requests) == {"icos": -(-len(past) // 20), "ico": 1}
    snaps = icoframes.read_snapshots(out)
    day1 = snaps[snaps["snapshot_date"] == pd.Timestamp(DAYS[1].date())].set_index("id")
    day0 = snaps[snaps["snapshot_date"] == pd.Timestamp(DAYS[0].date())].set_index("id")
    reread = (day0["ico_score"] != day1["ico_score"]) & (day0.index != rescored)
    assert reread.sum() >= 10  # the upgrade did change what was read
    with pytest.warns(IcoframesWarning, match=r"1 event\(s\) compare values read by two "
                      r"parser versions \(1 on 2026-11-21 \(parser \d+ \w+\) against "):
        events = icoframes.changes(out)
    # its profile fetched again and read by the new parser: the event may be the parser's
    # alone, and says so
    assert [(r.ico_id, r.kind, r.new, r.parser_changed) for r in events.itertuples()] == [
        (rescored, "score", "4", True)]


def test_snapshots_written_before_a_column_was_added_still_read(sb, tmp_path):
    """A cron job's tree spans an upgrade: the first day's roadmap.parquet was written by
    icoframes 0.1.0, before roadmap.precision. read_snapshots(out, "roadmap") and
    read_export of that day raised ValueError for the whole tree; now the older file
    reads with precision missing and everything else as written."""
    import pyarrow.parquet as pq

    out = tmp_path / "srv"
    for when in DAYS[:2]:
        assert _run(when, "--out", str(out), "--status", "past", "--snapshot") == EXIT_OK
    old = _folder(out, DAYS[0]) / "roadmap.parquet"
    written = pq.read_table(old)
    pq.write_table(written.drop_columns(["precision"]), old)  # as 0.1.0 wrote it
    roadmap = icoframes.read_snapshots(out, "roadmap")
    assert roadmap.dtypes.to_dict() == {"snapshot_date": "datetime64[ms]",
                                        **icoframes.schema.ROADMAP.dtypes}
    first = roadmap[roadmap["snapshot_date"] == pd.Timestamp(DAYS[0].date())]
    later = roadmap[roadmap["snapshot_date"] == pd.Timestamp(DAYS[1].date())]
    assert len(first) == written.num_rows > 0 and first["precision"].isna().all()
    assert later["precision"].notna().any()
    rows = written.select(["ico_id", "label", "description"]).to_pylist()
    assert sorted(zip(first["ico_id"], first["label"], first["description"], strict=True)) == \
        sorted(tuple(r.values()) for r in rows)
    tables = icoframes.read_export(_folder(out, DAYS[0]))
    assert tables.roadmap["precision"].isna().all()
    assert tables.roadmap["description"].tolist() == [r["description"] for r in rows]
    assert tables.roadmap.attrs["columns"]["precision"].description


@INCOMPLETE
def test_an_ico_that_moved_into_a_list_that_failed_is_unseen_not_removed(
        tmp_path, monkeypatch, quick_retries, caplog):
    """Day 2 ICO 3 moves from upcoming to ongoing, and the ongoing list fails: 3 is absent
    from a complete upcoming list, but it may be in the ongoing list nobody could read.
    It was 'removed' on day 2 and 'new' on day 3; now unseen, then its status move."""
    service = _ByStatus()
    out = tmp_path / "srv"
    with HostileServer({LIST: service.page, PROFILE: service.profile}) as srv:
        _as_cron(srv, tmp_path, monkeypatch)
        try:
            assert _run(DAYS[0], "--out", str(out), "--snapshot") == EXIT_OK
            service.ids["upcoming"], service.ids["ongoing"] = [], [1, 2, 3]
            service.down = {"ongoing"}
            assert _run(DAYS[1], "--out", str(out), "--snapshot") == EXIT_INCOMPLETE
            service.down = set()
            assert _run(DAYS[2], "--out", str(out), "--snapshot") == EXIT_OK
        finally:
            icoframes.reset_configuration()
    assert logged(caplog, "IncompleteWarning") == [
        "incomplete result: the list {'status': 'ongoing'} could not be paged (HTTP 503)"]
    events = icoframes.changes(out)
    got = [(r.snapshot_date.date(), r.ico_id, r.kind, r.old, r.new, r.previous_date.date())
           for r in events.fillna("-").itertuples()]
    d0, d1, d2 = (d.date() for d in DAYS)
    assert got == [(d1, 1, "unseen", "ongoing", "-", d0), (d1, 2, "unseen", "ongoing", "-", d0),
                   (d1, 3, "unseen", "upcoming", "-", d0),
                   (d2, 3, "status", "upcoming", "ongoing", d0)]
    # the plot of the snapshots says the same: it wrote "-3 removed", then "+3 new"
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    ax = icoframes.plot_status_flow(icoframes.read_snapshots(out))
    try:
        moves = [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-moves"]
    finally:
        plt.close(ax.figure)
    assert moves == ["3 unseen", "1 upcoming\u2192ongoing"]


@STALE
def test_a_second_export_the_same_day_completes_what_the_first_left_stale(sb, tmp_path, caplog):
    """Day 3's morning export (profiles older than a day are due) had --budget 5: the
    rest were kept from day 1, listed in not_refreshed, exit 5. The afternoon re-run used
    the morning's list and, since a cached list applied no profile age, fetched nothing
    and wrote complete: true, exit 0, with those same 2-day-old rows. Now it fetches
    exactly what the morning left (nothing it fetched), and is complete."""
    out = tmp_path / "srv"
    args = ["--out", str(out), "--status", "past", "--profile-max-age", "86400"]
    assert _run(DAYS[0], *args) == EXIT_OK
    assert _run(DAYS[2], *args, "--budget", "5") == EXIT_INCOMPLETE
    morning = json.loads((out / "manifest.json").read_text())
    left = {r["id"] for r in morning["not_refreshed"]}
    assert len(left) == len(sb.directory.ids("past")) - 5
    assert logged(caplog, "StaleWarning") == [
        f"{len(left)} row(s) are kept from an earlier fetch: the budget of this call ran out "
        "(the most stale went first) before they were fetched again; ids in "
        "attrs['icoframes']['not_refreshed']"]
    sb.stats.reset()
    assert _run(DAYS[2] + dt.timedelta(hours=6), *args) == EXIT_OK
    afternoon = json.loads((out / "manifest.json").read_text())
    assert afternoon["queries"][0]["from_cache"] is True  # the morning's list
    assert dict(sb.stats.requests) == {"ico": len(left)}
    assert set(sb.stats.profile_hits) == left
    assert afternoon["complete"] is True and afternoon["not_refreshed"] == []
    fetched = pd.read_parquet(out / "icos.parquet")["fetched_at"]
    assert fetched.min() >= pd.Timestamp(DAYS[2])  # every row of day 3


def test_an_export_killed_between_the_two_renames_of_its_swap_loses_no_snapshot(
        sb, tmp_path):
    """The day's morning snapshot is renamed aside, then SIGKILL (a real one, in a child
    process) comes before the new folder is renamed into place: the morning snapshot is
    left in the killed export's staging folder, which the next export removed, so the
    day lost its snapshot for good when that next export wrote nothing (the service down:
    exit 1). Now the next export first puts the set-aside folder back."""
    import os
    import subprocess
    import sys

    from ledger_day import on_this_clock

    out = tmp_path / "srv"
    args = ["--out", str(out), "--status", "past", "--snapshot"]
    assert _run(DAYS[0], *args) == EXIT_OK
    day = _folder(out, DAYS[0])
    morning = (day / "manifest.json").read_bytes()
    kill = (  # the rename of the new snapshot folder into place: SIGKILL instead
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "real = os.replace\n"
        "def replace(src, dst, **kw):\n"
        f"    if Path(dst) == Path({str(day)!r}) and Path(src).name == 'data':\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return real(src, dst, **kw)\n"
        "os.replace = replace\n"
        "from icoframes.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n")
    with time_machine.travel(DAYS[0] + dt.timedelta(hours=6), tick=True):
        child = subprocess.run([sys.executable, "-c", on_this_clock(kill), "export", *args],
                               env=os.environ, capture_output=True, timeout=HANG_GUARD)
    assert child.returncode == -9, child.stderr
    assert not day.exists()  # the instant between the two renames, made to last
    sb.set_faults(1.0)  # the next run of the day, paging its lists now, writes nothing
    assert _run(DAYS[0] + dt.timedelta(hours=7), *args, "--refresh", "changed") == EXIT_ERROR
    assert (day / "manifest.json").read_bytes() == morning
    assert icoframes.read_export(day).icos["id"].is_unique
    assert sorted(p.name for p in out.iterdir()) == [day.name]  # the staging folder cleared


@INCOMPLETE
def test_a_rerun_the_same_day_keeps_the_days_lists_when_paging_fails(
        tmp_path, monkeypatch, quick_retries, caplog):
    """The morning's snapshot is complete. At 09:15 every list fails: nothing is written
    (exit 1), the morning's snapshot stays as it was. At 12:15 only the ongoing list fails:
    its rows come from the morning's list (today's), marked partial (exit 5): they were
    dropped, so the re-run lost ICOs 1 and 2 from a day that had them. (The re-runs page
    their lists now, --refresh changed: a snapshot re-run takes the day's lists as they
    are by default.)"""
    service = _ByStatus()
    out = tmp_path / "srv"
    morning, day = DAYS[0], _folder(tmp_path / "srv", DAYS[0])
    again = ["--out", str(out), "--snapshot", "--refresh", "changed"]
    with HostileServer({LIST: service.page, PROFILE: service.profile}) as srv:
        _as_cron(srv, tmp_path, monkeypatch)
        try:
            assert _run(morning, "--out", str(out), "--snapshot") == EXIT_OK
            written = (day / "manifest.json").read_bytes()
            service.down = {"ongoing", "upcoming", "past"}
            assert _run(morning + dt.timedelta(hours=6), *again) == EXIT_ERROR
            assert (day / "manifest.json").read_bytes() == written
            service.down = {"ongoing"}
            assert _run(morning + dt.timedelta(hours=9), *again) == EXIT_INCOMPLETE
        finally:
            icoframes.reset_configuration()
    partial = "the list {'status': '%s'} is partial (pages failed); the next call pages it again"
    assert logged(caplog, "IncompleteWarning") == [  # 09:15: nothing written; 12:15: partial
        "incomplete result: " + "; ".join(partial % s for s in ("ongoing", "upcoming", "past")),
        "incomplete result: " + partial % "ongoing"]
    assert sorted(pd.read_parquet(day / "icos.parquet")["id"]) == [1, 2, 3, 4, 5, 6]
    manifest = json.loads((day / "manifest.json").read_text())
    [ongoing] = [q for q in manifest["queries"] if q["params"]["status"] == "ongoing"]
    assert (ongoing["complete"], ongoing["from_cache"], ongoing["rows"]) == (False, True, 2)
    assert dt.datetime.fromisoformat(ongoing["fetched_at"]).date() == morning.date()


@INCOMPLETE
@STALE
def test_a_day_short_of_quota_fetches_the_missing_rows_before_refreshing_old_ones(tmp_path,
                                                                                  monkeypatch,
                                                                                  caplog):
    """The service allows 45 requests a day, too few for 120 ICOs. Day 2 planned the ICOs
    day 1 could not fetch and the ongoing profiles due again, in list order, and spent
    part of its allowance refreshing rows it had while rows were still missing. Once the
    plan is known to exceed what remains today, the most urgent go first (as with
    --budget): never-fetched before due again, and the stale ones it leaves are said.

    Day 1 sends one request at a time, so that its profiles are the ongoing ones first (its
    lists' order): with 8 workers they are those of whichever list's page 1 the machine
    answered first, and a loaded one answered the past list's first, leaving day 1 without
    an ongoing row and day 2 with no row due again (nothing refreshed or left stale to
    check: not_refreshed empty). Day 2 runs as cron's does, requests in flight at the 485."""
    out = tmp_path / "srv"
    args = ["--out", str(out), "--snapshot"]
    with sandbox.serve(n_icos=120, seed=5, quota=45) as server:
        _as_cron(server, tmp_path, monkeypatch)
        ongoing = set(server.directory.ids("ongoing"))
        try:
            monkeypatch.setenv("ICOFRAMES_MAX_WORKERS", "1")
            assert _run(DAYS[0], *args) == EXIT_INCOMPLETE
            first = json.loads((_folder(out, DAYS[0]) / "manifest.json").read_text())
            had = first["rows"]["icos"]
            assert server.stats.max_in_flight == 1
            monkeypatch.delenv("ICOFRAMES_MAX_WORKERS")
            icoframes.reset_configuration()
            server.stats.reset()
            assert _run(DAYS[1], *args) == EXIT_INCOMPLETE
        finally:
            icoframes.reset_configuration()
    second = json.loads((_folder(out, DAYS[1]) / "manifest.json").read_text())
    held = set(pd.read_parquet(_folder(out, DAYS[0]) / "icos.parquet")["id"])
    assert held >= ongoing  # day 2 has rows due again (ongoing: a day old), and rows missing
    asked = {i for i, n in server.stats.profile_hits.items() if n}
    assert asked and not asked & held  # no row it had was asked again while rows were missing
    assert second["rows"]["icos"] > had and len(second["missing"]) < len(first["missing"])
    # every row due again is kept and said, and no other (upcoming and past ones are not due)
    assert [r["id"] for r in second["not_refreshed"]] == sorted(ongoing)
    assert {r["reason"] for r in second["not_refreshed"]} == {"quota"}
    assert [m.split("; first: ")[0] for m in logged(caplog, "IncompleteWarning")] == [
        f"incomplete result: {n} listed ICO(s) have no row: {n} not_fetched"
        for n in (len(first["missing"]), len(second["missing"]))]
    assert logged(caplog, "StaleWarning") == [
        f"{len(second['not_refreshed'])} row(s) are kept from an earlier fetch: the daily limit "
        "stopped the load before they were fetched again; ids in "
        "attrs['icoframes']['not_refreshed']"]


def test_a_daily_quota_stop_worded_after_midnight_says_the_day_it_happened(tmp_path):
    """The daily_quota cap refuses a request at 23:59:59.9; the load waits for its
    requests in flight and words the stop after midnight. It said '0 requests sent today
    (the new day)' and that the count starts again at the NEXT midnight, a day late: a
    run now would go. It says the refused day's count, and that the count started again."""
    from icoframes.fetch.service import Service
    from icoframes.fetch.stops import quota_error
    from icoframes.store.cache import Cache

    settings = icoframes.config.get_settings(base_url="http://127.0.0.1:9", public_key="k",
                                             private_key="p", daily_quota=3,
                                             cache_dir=tmp_path)
    service = Service(settings, Cache(tmp_path, "s"), icoframes.api.control.LoadControl(),
                      offline=False)
    late = dt.datetime(2026, 11, 20, 23, 59, 59, 900000, tzinfo=dt.UTC)
    with time_machine.travel(late, tick=False) as clock:
        booking = service.client("the test") and service._booking
        for _ in range(3):
            booking.take("ico")
        with pytest.raises(icoframes.QuotaExceeded) as refused:
            booking.take("ico")
        clock.move_to(late + dt.timedelta(seconds=1))  # the requests in flight answer
        message = str(quota_error(refused.value, settings, *service.quota_state(),
                                  fetched=3, left=7, unlisted=False))
    assert "3 requests sent that day (2026-11-20, UTC)" in message
    assert "started again at 2026-11-21 00:00 UTC" in message and "now" in message
    assert "2026-11-22" not in message


def test_a_485_worded_after_midnight_gives_its_date_and_not_today():
    """The service refused at 23:59 with 35 requests sent; the stop is worded after midnight
    (the load waited for its requests in flight), when the ledger's day is the next one: it
    said 'reached at 23:59 UTC, after 35 requests sent today'."""
    from icoframes.fetch.stops import quota_error
    from icoframes.store.ledger import LedgerState

    at = dt.datetime(2026, 11, 20, 23, 59, 30, tzinfo=dt.UTC)
    state = LedgerState("2026-11-21", 0, 5000, refused_at=at, refused_after=35,
                        day_ends=dt.datetime(2026, 11, 22, tzinfo=dt.UTC))
    settings = icoframes.config.get_settings(base_url="http://127.0.0.1:9")
    message = str(quota_error(icoframes.QuotaExceeded("refused"), settings, state,
                              fetched=3, left=7, unlisted=False))
    assert "reached at 2026-11-20 23:59 UTC, after 35 requests sent that day" in message
    assert "today" not in message

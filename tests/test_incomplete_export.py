"""Incomplete is an outcome: kept, marked, its own exit code, and no false events in history
(issue 19 part 2)."""

from __future__ import annotations

import datetime as dt
import json
import logging
from pathlib import Path

import pandas as pd
import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply
from test_days import INCOMPLETE, STALE, logged

import icoframes
from icoframes.cli import EXIT_INCOMPLETE, main
from icoframes.config import SETTINGS

# its trees are of one status: a new or removed ICO is said to read so whether or not the
# service added or deleted it (tests/test_query_cut_snapshots.py); here they are the events
# under test
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*a query that selects ICOs:icoframes.errors.IcoframesWarning")


class Directory:
    """A service whose ICOs, and whose permanently failing profiles, change day by day."""

    def __init__(self, ids):
        self.past = list(ids)
        self.failing: set[int] = set()  # answer with another ICO's profile: the gate refuses
        self.gone: set[int] = set()  # error 482: listed, but the service has no profile
        self.raised = {i: 1000.0 * i for i in self.past}

    def item(self, ico_id):
        return {"id": ico_id, "main": {"name": f"ICO {ico_id}", "ico_score": "3.0"},
                "finance": {"raised": str(self.raised[ico_id])}}

    def page(self, h):
        items = [self.item(i) for i in self.past]
        json_reply({"total_icos": len(items), "current_page": 1, "total_pages": 1,
                    "error": None, "data": items})(h)

    def profile(self, h):
        asked = h.request_json().get("id")
        if asked in self.gone:
            json_reply({"error": 482, "message": f"no ICO has id {asked}"})(h)
            return
        ico_id = asked + 1000 if asked in self.failing else asked
        json_reply({"error": None, "data": {
            "id": ico_id, "main": {"name": f"ICO {ico_id}", "ico_score": "3.0"},
            "finance": {"raised": str(self.raised.get(ico_id, 1.0))}}})(h)


@pytest.fixture
def service(tmp_path, monkeypatch, quick_retries):
    directory = Directory(range(1, 13))
    with HostileServer({LIST: directory.page, PROFILE: directory.profile}) as srv:
        icoframes.reset_configuration()
        for setting in SETTINGS:
            monkeypatch.delenv(setting.env, raising=False)
        for name, value in {**srv.settings(), "cache_dir": str(tmp_path / "cache")}.items():
            monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", value)
        yield directory, srv
    icoframes.reset_configuration()


DAYS = [dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC) + dt.timedelta(days=i) for i in range(4)]


def _export(out, when, caplog, *extra):
    caplog.clear()
    with time_machine.travel(when, tick=True):
        # profiles older than an hour are fetched again: every day re-fetches every profile
        code = main(["export", "--out", str(out), "--status", "past", "--snapshot",
                     "--profile-max-age", "3600", *extra])
    return code, caplog.text


# the failing profiles warn (IncompleteWarning; a row kept because its new fetch failed:
# StaleWarning): in the command they are log lines, which is what this test reads
@INCOMPLETE
@STALE
def test_days_with_failing_profiles_are_kept_marked_exit_5_and_make_no_false_events(
        service, tmp_path, caplog):
    directory, _ = service
    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "srv"
    folder = [out / f"snapshot_date={d.date().isoformat()}" for d in DAYS]
    # day 1: ICO 3 fails for good (the wrong profile every time)
    directory.failing = {3}
    code, log = _export(out, DAYS[0], caplog)
    assert code == EXIT_INCOMPLETE, log
    assert logged(caplog, "IncompleteWarning") == [
        "incomplete result: 1 listed ICO(s) have no row: 1 failed; first: 3 (HTTP 200: data.id "
        "is 1003, not the 3 requested)"]
    # day 2: 3 still fails; 5 has no profile any more (error 482); 7 really leaves
    directory.gone = {5}
    directory.past.remove(7)
    directory.raised[4] = 4444.0
    code, log = _export(out, DAYS[1], caplog)
    assert code == EXIT_INCOMPLETE, log
    manifest = json.loads((folder[1] / "manifest.json").read_text())
    assert manifest["complete"] is False
    assert {m["id"]: m["state"] for m in manifest["missing"]} == {3: "failed", 5: "gone"}
    assert all(m["reason"] for m in manifest["missing"])
    kept = pd.read_parquet(folder[1] / "icos.parquet")
    assert sorted(kept["id"]) == [1, 2, 4, 6, 8, 9, 10, 11, 12]  # what was fetched is kept
    # the log says it, in the log's own format, warnings included
    assert "the export is incomplete" in log and "3 (failed" in log and "exit 5" in log
    assert "(IncompleteWarning)" in log and "warnings.warn" not in log
    [said] = logged(caplog, "IncompleteWarning")
    assert said.startswith("incomplete result: 2 listed ICO(s) have no row: 1 failed, 1 gone; "
                           "first: 3 (HTTP 200: data.id is 1003, not the 3 requested (failed on "
                           "2 loads in a row")
    assert said.endswith(", 5 (error 482: the service has no profile)")
    # day 3: healthy again; 13 is new; 5's raised moved while it was unseen
    directory.failing, directory.gone = set(), set()
    directory.past.append(13)
    directory.raised.update({13: 13.0, 5: 5555.0})
    code, log = _export(out, DAYS[2], caplog)
    assert code == 0, log
    assert logged(caplog, "IncompleteWarning") == []
    # day 4: 4's new fetch fails: its row of day 3 is kept, said to be older, and exit 5
    directory.failing = {4}
    code, log = _export(out, DAYS[3], caplog)
    assert code == EXIT_INCOMPLETE, log
    assert logged(caplog, "IncompleteWarning") == []  # a row kept: said in not_refreshed
    [kept_said] = logged(caplog, "StaleWarning")
    assert kept_said.startswith("1 row(s) are kept from an earlier fetch: fetching 1 of them "
                                "again failed (e.g. id 4: HTTP 200: data.id is 1004, not the 4 "
                                "requested")
    manifest = json.loads((folder[3] / "manifest.json").read_text())
    assert manifest["complete"] is False and manifest["missing"] == []
    [stale] = manifest["not_refreshed"]
    assert stale["id"] == 4 and "not the 4 requested" in stale["reason"]
    assert dt.datetime.fromisoformat(stale["fetched_at"]).date() == DAYS[2].date()
    assert 4 in pd.read_parquet(folder[3] / "icos.parquet")["id"].tolist()

    info = icoframes.history.snapshot_info(out)
    assert info["complete"].tolist() == [False, False, True, False]
    assert info["missing"].tolist() == [[3], [3, 5], [], []]
    snaps = icoframes.read_snapshots(out)
    assert [s["complete"] for s in snaps.attrs["icoframes"]["snapshots"]] == info[
        "complete"].tolist()

    events = icoframes.changes(out)
    got = sorted((str(e.snapshot_date.date()), e.ico_id, e.kind, str(e.previous_date.date()))
                 for e in events.itertuples())
    d = [str(day.date()) for day in DAYS]
    assert got == [
        (d[1], 4, "raised", d[0]),
        (d[1], 5, "unseen", d[0]),    # listed, not fetched: not removed
        (d[1], 7, "removed", d[0]),   # really gone from the lists
        # 3: listed on every day, its first row on day 3: listed (without a row) on day 1,
        # the baseline, so no event
        (d[2], 5, "raised", d[0]),    # compared with its last known row, over the gap
        (d[2], 13, "new", d[1]),
    ]
    skipped = icoframes.changes(out, gaps="skip")
    assert sorted(skipped["kind"]) == ["new", "raised", "raised", "removed"]


@INCOMPLETE
def test_allow_incomplete_exits_0_and_still_marks_the_export(service, tmp_path, caplog):
    directory, _ = service
    caplog.set_level(logging.INFO, logger="icoframes")
    directory.failing = {2}
    code, log = _export(tmp_path / "srv", DAYS[0], caplog, "--allow-incomplete")
    assert code == 0, log
    assert "the export is incomplete (--allow-incomplete: exit 0)" in log
    assert logged(caplog, "IncompleteWarning") == [
        "incomplete result: 1 listed ICO(s) have no row: 1 failed; first: 2 (HTTP 200: data.id "
        "is 1002, not the 2 requested)"]
    [folder] = (tmp_path / "srv").glob("snapshot_date=*")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["complete"] is False and [m["id"] for m in manifest["missing"]] == [2]


def _two_days(first_day):
    """ICOs 1 and 2 on both days, 3 on day 2 alone (its first row), all past; day 1's
    manifest says ``first_day`` (incomplete), day 2 complete."""
    dates = pd.to_datetime(["2026-11-01", "2026-11-01", "2026-11-02", "2026-11-02",
                            "2026-11-02"], format="%Y-%m-%d").astype("datetime64[ms]")
    frame = pd.DataFrame({"snapshot_date": dates, "id": [1, 2, 1, 2, 3],
                          "status": ["past"] * 5})
    frame.attrs["icoframes"] = {"snapshots": [
        {"snapshot_date": "2026-11-01", "complete": False, **first_day},
        {"snapshot_date": "2026-11-02", "complete": True, "missing": [], "partial_lists": []}]}
    return frame


def test_an_ico_first_fetched_after_an_incomplete_first_snapshot_is_not_new():
    """The baseline itself may be incomplete: day 1's past list came back partial, so an ICO
    first fetched on day 2 may have been listed on day 1: ``first_seen``, not ``new``."""
    frame = _two_days({"missing": [], "partial_lists": ["past"]})
    events = icoframes.changes(frame, kinds=["status"])
    assert events[["ico_id", "kind"]].values.tolist() == [[3, "first_seen"]]
    assert icoframes.changes(frame, kinds=["status"], gaps="skip").empty
    frame.attrs = {}  # without what the manifests say, every snapshot is taken as complete
    assert icoframes.changes(frame, kinds=["status"])["kind"].tolist() == ["new"]


def test_an_ico_listed_without_a_row_in_the_first_snapshot_gives_no_event():
    """An ICO listed but not fetched on day 1 (the manifest's ``missing``) and fetched on
    day 2 was listed on day 1, the baseline: no event (neither ``new`` nor ``first_seen``)."""
    frame = _two_days({"missing": [3], "partial_lists": []})
    assert icoframes.changes(frame, kinds=["status"]).empty
    assert icoframes.changes(frame, kinds=["status"], gaps="skip").empty


def test_a_partial_list_explains_the_absence_of_any_status():
    """Day 2's past list came back partial and its ongoing list whole: ICO 2, ongoing on
    day 1, is not in the ongoing list, but it may have moved to past (into the list that
    could not be read), so it is unseen, not removed on day 2 and new on day 3."""
    dates = pd.to_datetime(["2026-11-01"] * 2 + ["2026-11-02"] * 0 + ["2026-11-03"] * 2,
                           format="%Y-%m-%d").astype("datetime64[ms]")
    frame = pd.DataFrame({"snapshot_date": dates, "id": [1, 2, 1, 2],
                          "status": ["past", "ongoing", "past", "ongoing"]})
    # day 2 has no row at all: its past list came back partial, its ongoing list whole
    day2 = pd.DataFrame({"snapshot_date": pd.to_datetime(["2026-11-02"], format="%Y-%m-%d")
                         .astype("datetime64[ms]"), "id": [9], "status": ["upcoming"]})
    frame = pd.concat([frame, day2], ignore_index=True)
    frame.attrs["icoframes"] = {"snapshots": [  # (each day of a row named, as report needs)
        {"snapshot_date": "2026-11-01", "complete": True, "missing": []},
        {"snapshot_date": "2026-11-02", "complete": False, "missing": [],
         "partial_lists": ["past"]},
        {"snapshot_date": "2026-11-03", "complete": True, "missing": []}]}
    events = icoframes.changes(frame, kinds=["status"])
    got = sorted(map(tuple, events[["snapshot_date", "ico_id", "kind"]].astype(
        {"snapshot_date": str}).values.tolist()))
    assert got == [("2026-11-02", 1, "unseen"), ("2026-11-02", 2, "unseen"),
                   ("2026-11-02", 9, "new"), ("2026-11-03", 9, "removed")]


def test_read_snapshots_refuses_two_folders_for_one_day(tmp_path):
    from icoframes.tables import Tables

    for name in ("snapshot_date=2026-11-01", "snapshot_date=20261101"):
        Tables.empty().to_parquet(tmp_path / name)
    with pytest.raises(ValueError, match="two snapshot folders for 2026-11-01"):
        icoframes.read_snapshots(tmp_path)
    assert Path(tmp_path / "snapshot_date=20261101").is_dir()  # nothing touched

"""A cron line's query stays its query when the service resolves its names to other ids.

``--platform Ethereum`` is resolved through the service's filter set; from the day the
directory lists 'Ethereum' twice (ids 1 and 18), or drops such a copy, the name means other
ids. The tree's check compared ids only: the same cron line was refused (exit 2) every day
from then on, and changes() raised on such a tree. The query as given (names folded) is kept
in the manifest beside the ids: the same given form (or the same ids) is the same query, and
the manifest and the log say the resolution changed.

The sandbox over loopback, its filter set changed between days; the clock moved with
time-machine. Request counts are the sandbox's own.
"""

from __future__ import annotations

import datetime as dt
import json
import logging

import pytest
import test_days
from test_days import _run

import icoframes
from icoframes.cli import EXIT_OK, EXIT_USAGE
from icoframes.sandbox import catalog

# an hour later each day: the filter set, cached a day, is asked for again every day
DAYS = [dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC) + dt.timedelta(days=i, hours=i)
        for i in range(5)]
ONCE = catalog.PLATFORMS
ETHEREUM_TWICE = (*ONCE, (18, "Ethereum", 0.0))
CRON = ("--snapshot", "--status", "past", "--platform", "Ethereum")
CHANGED = "the query as given"

sb = test_days.sb  # a sandbox reached as cron's runs reach it


def _day(out, when):
    return out / f"snapshot_date={when.date().isoformat()}"


def _manifest(out, when) -> dict:
    return json.loads((_day(out, when) / "manifest.json").read_text())


def _warned(caplog) -> list[str]:
    found = [r.getMessage() for r in caplog.records if CHANGED in r.getMessage()]
    caplog.clear()
    return found


# the command logs icoframes' warnings (as cron sees them): this one only is expected
@pytest.mark.filterwarnings(f"default:{CHANGED}:icoframes.IcoframesWarning")
@pytest.mark.parametrize(("before", "after", "ids_before", "ids_after"), [
    (ONCE, ETHEREUM_TWICE, [1], [1, 18]),
    (ETHEREUM_TWICE, ONCE, [1, 18], [1]),
], ids=["listed-twice", "copy-dropped"])
def test_the_same_cron_line_is_exported_when_its_name_resolves_to_other_ids(
        sb, tmp_path, caplog, monkeypatch, before, after, ids_before, ids_after):
    """Days 1-2 'Ethereum' resolves to ids_before, days 3-4 to ids_after. Day 3 was refused
    (exit 2, after the filters request) and every day after it; now each day is exported,
    day 3's manifest and log say the name resolves otherwise than on days 1-2 (day 4's say
    nothing new), changes() compares the four days with a warning instead of raising, ids
    given the next day are the same query, and another query is still refused before any
    list request."""
    out = tmp_path / "srv"
    caplog.set_level(logging.WARNING)
    monkeypatch.setattr(catalog, "PLATFORMS", before)
    spent = []
    for i, when in enumerate(DAYS[:4]):
        if i == 2:
            monkeypatch.setattr(catalog, "PLATFORMS", after)
        sb.stats.reset()
        assert _run(when, "--out", str(out), *CRON) == EXIT_OK, i
        spent.append(dict(sb.stats.requests))
        if i == 2:
            assert len(_warned(caplog)) == 1
        else:
            assert _warned(caplog) == []
    # the filter set and the list each day; day 1's profiles, then none (cached)
    assert [{k: n for k, n in s.items() if k != "ico"} for s in spent] == [
        {"filters": 1, "icos": spent[0]["icos"]}] * 4
    assert spent[0]["ico"] > 0 and "ico" not in spent[3]
    given = [{"platform": ["ethereum"], "status": "past"}]
    for i, when in enumerate(DAYS[:4]):
        manifest = _manifest(out, when)
        assert [q["params"] for q in manifest["queries"]] == [
            {"platform": ids_before if i < 2 else ids_after, "status": "past"}], i
        assert manifest["queries_given"] == given
        assert manifest["resolution_changed"] == (None if i != 2 else [
            {"snapshot_dates": ["2026-11-20", "2026-11-21"],
             "params": [{"platform": ids_before, "status": "past"}]}]), i
    # the ids of day 4's resolution, given as ids: the same query
    ids = [a for i in ids_after for a in ("--platform", str(i))]
    sb.stats.reset()
    assert _run(DAYS[4], "--out", str(out), "--snapshot", "--status", "past", *ids) == EXIT_OK
    assert _warned(caplog) == []
    assert _manifest(out, DAYS[4])["queries_given"] == [
        {"platform": ids_after, "status": "past"}]
    # another query (another platform, or the same one with another status) is refused
    for other in (("--platform", "Bitcoin"), ("--platform", "Ethereum", "--status", "ongoing")):
        sb.stats.reset()
        argv = ["--snapshot", *other] if "--status" in other else [
            "--snapshot", "--status", "past", *other]
        assert _run(DAYS[4] + dt.timedelta(days=1), "--out", str(out), *argv) == EXIT_USAGE
        assert "icos" not in sb.stats.requests and "ico" not in sb.stats.requests
        assert any(f"is a snapshot tree of another query: status=past, platform={ids_before} "
                   "(2 snapshots, 2026-11-20 to 2026-11-21), then status=past, "
                   f"platform={ids_after} (3 snapshots, 2026-11-22 to 2026-11-24); this export "
                   "asks for " in r.getMessage() for r in caplog.records)
        caplog.clear()
    assert len(list(out.glob("snapshot_date=*"))) == 5
    with pytest.warns(icoframes.IcoframesWarning, match="the snapshots hold one query as "
                      "given, whose names the service resolved to other ids: status=past, "
                      rf"platform=\[{', '.join(map(str, ids_before))}\] \(2026-11-20 to "
                      r"2026-11-21, 2 snapshots\); then status=past, "
                      rf"platform=\[{', '.join(map(str, ids_after))}\] \(2026-11-22 to "
                      r"2026-11-24, 3 snapshots\)"):
        events = icoframes.changes(out)
    # no ICO of id 18 (the sandbox gives it none): no ICO new or removed for it
    assert not events["kind"].isin(["new", "removed"]).any()


@pytest.mark.filterwarnings(f"default:{CHANGED}:icoframes.IcoframesWarning")
def test_a_manifest_without_the_query_as_given_keeps_the_id_comparison(
        sb, tmp_path, caplog, monkeypatch):
    """A snapshot of an older version says no query as given: its ids alone are compared,
    as before: when the name resolves to other ids the day after, the export is refused
    (exit 2, no list request). A newer snapshot of the same ids, given as the name, then
    links the two resolutions: the next day's is accepted, saying what it was."""
    out = tmp_path / "srv"
    caplog.set_level(logging.WARNING)
    assert _run(DAYS[0], "--out", str(out), *CRON) == EXIT_OK
    path = _day(out, DAYS[0]) / "manifest.json"
    older = {k: v for k, v in json.loads(path.read_text()).items()
             if k not in ("queries_given", "resolution_changed")}
    path.write_text(json.dumps(older))
    monkeypatch.setattr(catalog, "PLATFORMS", ETHEREUM_TWICE)
    sb.stats.reset()
    assert _run(DAYS[1], "--out", str(out), *CRON) == EXIT_USAGE
    assert dict(sb.stats.requests) == {"filters": 1}
    assert any("status=past, platform=[1] (the snapshot of 2026-11-20); this export asks "
               "for status=past, platform=[1, 18]" in r.getMessage() for r in caplog.records)
    assert not _day(out, DAYS[1]).exists()
    monkeypatch.setattr(catalog, "PLATFORMS", ONCE)
    assert _run(DAYS[2], "--out", str(out), *CRON) == EXIT_OK
    monkeypatch.setattr(catalog, "PLATFORMS", ETHEREUM_TWICE)
    caplog.clear()
    sb.stats.reset()
    assert _run(DAYS[3], "--out", str(out), *CRON) == EXIT_OK
    assert sb.stats.requests["filters"] == 1 and sb.stats.requests["icos"] >= 1
    assert len(_warned(caplog)) == 1
    assert _manifest(out, DAYS[3])["resolution_changed"] == [
        {"snapshot_dates": ["2026-11-20", "2026-11-22"],
         "params": [{"platform": [1], "status": "past"}]}]


def test_a_plain_export_records_its_query_as_given(sb, tmp_path, monkeypatch):
    # a snapshot's manifest said queries_given, a plain export's said null: the query as the
    # cron line gave it was lost for a plain export, whose ids may mean another day's names
    monkeypatch.setattr(catalog, "PLATFORMS", ETHEREUM_TWICE)
    out = tmp_path / "plain"
    assert _run(DAYS[0], "--out", str(out), "--status", "past", "--platform", "ETHEREUM",
                "--platform", "7") == EXIT_OK
    manifest = json.loads((out / "manifest.json").read_text())
    assert [q["params"] for q in manifest["queries"]] == [
        {"platform": [1, 18, 7], "status": "past"}]
    assert manifest["queries_given"] == [{"platform": [7, "ethereum"], "status": "past"}]
    assert manifest["resolution_changed"] is None

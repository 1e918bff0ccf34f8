"""icoframes.report of exports read back (REVC M1): read_export's Tables and frame, and
read_snapshots frames (whole, or cut to some days), say what their manifests say: an
incomplete export is never reported complete."""

from __future__ import annotations

import datetime as dt
import json
import warnings
from pathlib import Path

import pandas as pd
import pytest
import time_machine

import icoframes
from icoframes import LoadReport, sandbox
from icoframes.errors import InvalidParameter
from icoframes.schema import ICOS
from icoframes.tables import Tables

# its trees are of one status: a new or removed ICO is said to read so whether or not the
# service added or deleted it (tests/test_query_cut_snapshots.py); here they are the events
# under test
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*a query that selects ICOs:icoframes.errors.IcoframesWarning")


def _export(out: Path, when: int, **kwargs):
    with time_machine.travel(dt.datetime(2026, 11, when, 12, tzinfo=dt.UTC)), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", icoframes.IcoframesWarning)  # incomplete: said here
        return icoframes.export_tables(out, status="past", snapshot=True, progress=False,
                                       **kwargs)


def _manifest(out: Path, day: str) -> dict:
    return json.loads((out / f"snapshot_date={day}" / "manifest.json").read_text())


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """Day 1 complete; day 2 stopped by the daily limit with new ICOs not fetched."""
    tmp = tmp_path_factory.mktemp("report_exports")
    out = tmp / "out"
    with sandbox.serve(n_icos=15, seed=7) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp / "cache")
        try:
            first = _export(out, 1)
            for _ in range(3):
                sb.add_ico("past")
            icoframes.configure(**sb.settings(), cache_dir=tmp / "cache", daily_quota=2)
            second = _export(out, 2)
        finally:
            icoframes.reset_configuration()
    assert first.complete and not second.complete and second.stopped["reason"] == "quota"
    assert len(second.missing) == 2
    return out


def test_read_export_of_an_incomplete_export_reports_its_manifest(tree):
    manifest = _manifest(tree, "2026-11-02")
    tables = icoframes.read_export(tree / "snapshot_date=2026-11-02")
    assert tables.report is None  # no load made it: report() reads the manifest
    got = icoframes.report(tables)
    assert isinstance(got, LoadReport) and icoframes.report(tables.icos) == got
    assert icoframes.report(tables.icos[tables.icos["id"] > 0]) == got  # a selection too
    assert got.complete is False and got.stopped == "quota"
    assert [(m.id, m.name, m.state, m.reason) for m in got.missing] == [
        (m["id"], m["name"], "not_fetched", "quota") for m in manifest["missing"]]
    assert got.requests == manifest["requests_spent"] and got.requests_total == 2
    assert got.not_refreshed == ()
    assert [q.params for q in got.queries] == [{"status": "past"}]
    complete = icoframes.report(icoframes.read_export(tree / "snapshot_date=2026-11-01"))
    assert complete.complete is True and complete.missing == () and complete.stopped is None
    assert complete.requests == _manifest(tree, "2026-11-01")["requests_spent"]


def test_a_snapshot_frame_is_complete_only_when_every_day_it_holds_is(tree):
    frame = icoframes.read_snapshots(tree)
    one, two = (_manifest(tree, f"2026-11-0{d}") for d in (1, 2))
    whole = icoframes.report(frame)
    assert whole.complete is False and whole.stopped == "2026-11-02: quota"
    assert [(m.id, m.reason) for m in whole.missing] == [
        (m["id"], "quota (the snapshot of 2026-11-02)") for m in two["missing"]]
    assert whole.requests == {k: one["requests_spent"][k] + two["requests_spent"][k]
                              for k in one["requests_spent"]}
    assert len(whole.queries) == 2
    day2 = icoframes.report(frame[frame["snapshot_date"] == "2026-11-02"])
    assert day2 == icoframes.report(icoframes.read_export(tree / "snapshot_date=2026-11-02"))
    assert day2.complete is False and day2.stopped == "quota"
    day1 = icoframes.report(frame[frame["snapshot_date"] == "2026-11-01"])
    assert day1.complete is True and day1.missing == () and day1.requests == one[
        "requests_spent"]
    with pytest.raises(InvalidParameter, match="holds no row of any snapshot"):
        icoframes.report(frame[frame["id"] < 0])
    without = frame.drop(columns="snapshot_date")  # which day a row is of: unknown, all days
    assert icoframes.report(without) == whole


def test_a_manifest_that_says_nothing_of_completeness_gives_no_report(tmp_path):
    Tables.empty().to_parquet(tmp_path / "plain")
    (tmp_path / "plain" / "manifest.json").write_text("{}")
    with pytest.raises(InvalidParameter, match=r"says nothing of whether it is complete"):
        icoframes.report(icoframes.read_export(tmp_path / "plain"))
    for day in ("2026-11-01", "2026-11-02"):  # snapshot folders without a manifest
        Tables.empty().to_parquet(tmp_path / "tree" / f"snapshot_date={day}")
    with pytest.raises(InvalidParameter, match=r"snapshot of 2026-11-01 has no manifest"):
        icoframes.report(icoframes.read_snapshots(tmp_path / "tree"))


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Tokyo"])
def test_a_zoned_snapshot_date_reports_the_manifest_of_its_utc_day(tree, zone):
    """Review REVE M1: report() read a zoned day's local date, as changes() no longer does:
    day 2 (stopped by the daily limit) seen from New York was day 1's manifest, reported
    complete with day 1's requests (9ad5469)."""
    frame = icoframes.read_snapshots(tree)
    zoned = frame.assign(snapshot_date=frame["snapshot_date"].dt.tz_localize("UTC")
                         .dt.tz_convert(zone))
    two = zoned[frame["snapshot_date"] == "2026-11-02"]
    got = icoframes.report(two)
    assert got == icoframes.report(frame[frame["snapshot_date"] == "2026-11-02"])
    assert got.complete is False and got.stopped == "quota" and got.requests_total == 2
    assert [q.fetched_at.date() for q in got.queries] == [dt.date(2026, 11, 2)]
    assert icoframes.report(zoned) == icoframes.report(frame)


def test_periods_of_a_day_are_their_days_and_longer_ones_refused_by_every_reader(tree):
    """Review REVE L4: a Period snapshot_date (``.dt.to_period("D")``) made report(),
    changes() and plot_status_flow() raise pandas' ValueError ('Cannot convert Period to
    Timestamp unambiguously'): periods of a day are read as their days, longer periods are
    refused by all three alike."""
    import matplotlib.pyplot as plt

    frame = icoframes.read_snapshots(tree)
    daily = frame.assign(snapshot_date=frame["snapshot_date"].dt.to_period("D"))
    assert icoframes.report(daily) == icoframes.report(frame)
    two = daily[frame["snapshot_date"] == "2026-11-02"]
    assert icoframes.report(two).stopped == "quota"
    pd.testing.assert_frame_equal(icoframes.changes(daily), icoframes.changes(frame))
    ax = icoframes.plot_status_flow(daily)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2026-11-01", "2026-11-02"]
    plt.close(ax.figure)
    monthly = frame.assign(snapshot_date=frame["snapshot_date"].dt.to_period("M"))
    for reader in (icoframes.report, icoframes.changes, icoframes.plot_status_flow):
        with pytest.raises(InvalidParameter, match=r"snapshot_date holds periods other than "
                           r"days \(period\[M\]\): a snapshot is one day's"):
            reader(monthly)


_NO_MANIFEST = (
    "{folder} is missing manifest.json and no export is writing it (no staging folder of "
    "one): it holds tables written without a manifest (as Tables.to_parquet writes them; "
    "icoframes.Tables.read_parquet reads them), or an export killed while swapping its "
    "tables in, whose staging folder a later export cleared (exporting to it again "
    "completes it)")


def test_a_folder_of_tables_without_a_manifest_is_said_to_be_no_export(tmp_path):
    """Review REVE L5: read_export of what Tables.to_parquet wrote blamed an export writing
    it or killed while swapping; no export's staging folder is there: it says what it is
    and what reads it."""
    Tables.empty().to_parquet(tmp_path / "plain")
    with pytest.raises(FileNotFoundError) as caught:
        icoframes.read_export(tmp_path / "plain")
    assert str(caught.value) == _NO_MANIFEST.format(folder=tmp_path / "plain")
    assert Tables.read_parquet(tmp_path / "plain").icos.shape == (0, len(ICOS.names))


def test_an_export_killed_mid_swap_whose_staging_was_cleared_is_named_too(tmp_path):
    """Review REVF L3: an export killed in staging.swap_files once it removed the manifest
    leaves its tables and its staging folder; a later export clears that folder
    (_clear_leftovers) and may fail before its own swap. That folder looks like
    Tables.to_parquet's: the message (a9c4b70: 'not an export') names both, and the next
    export completes it."""
    out = tmp_path / "out"
    with sandbox.serve(n_icos=5, seed=3) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
        try:
            icoframes.export_tables(out, status="past", progress=False)
            (out / "manifest.json").unlink()  # swap_files' first step; its staging cleared
            assert not [p for p in out.iterdir() if p.name.startswith(".icoframes-staging")]
            with pytest.raises(FileNotFoundError) as caught:
                icoframes.read_export(out)
            assert str(caught.value) == _NO_MANIFEST.format(folder=out)
            icoframes.export_tables(out, status="past", progress=False)
        finally:
            icoframes.reset_configuration()
    assert icoframes.report(icoframes.read_export(out)).complete is True

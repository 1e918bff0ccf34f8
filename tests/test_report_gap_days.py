"""A latest snapshot day stopped by the daily limit before it held any ICO (review REVF M1),
a zone attached to the dates rather than converted (REVF L1, L2).

Real snapshot exports of a sandbox over three simulated days (time-machine), ``status=
"upcoming"``: three ICOs upcoming on days 1 and 2; on day 3 three others are, and the daily
limit (1 request) stops the export before it holds any: ``rows`` 0, ``complete`` false.
On a9c4b70 ``report(read_snapshots(out))`` left day 3 out as an empty edge day and said
``complete=True``, with a warning that it "held no ICO".
"""

from __future__ import annotations

import datetime as dt
import re
import warnings

import matplotlib
import pandas as pd
import pytest
from made_exports import day, snapshot_tree, stopped_empty

import icoframes
from icoframes.errors import IcoframesWarning, InvalidParameter
from icoframes.history import changes, read_snapshots
from icoframes.plotting import plot_status_flow
from icoframes.snapshots import snapshot_dates, utc_dates

# its trees are of one status: a new or removed ICO is said to read so whether or not the
# service added or deleted it (tests/test_query_cut_snapshots.py); here they are the events
# under test
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*a query that selects ICOs:icoframes.errors.IcoframesWarning")

matplotlib.use("Agg")

_GAP = stopped_empty(3)


@pytest.fixture(scope="module")
def gap(tmp_path_factory):
    """The tree: days 1 and 2 complete with three upcoming ICOs, day 3 stopped empty."""
    out = tmp_path_factory.mktemp("exports") / "out"
    chosen, later, results = snapshot_tree(out, out.parent / "cache", days=3,
                                           upcoming=(1, 2), stopped=True)
    assert results == [(True, 3), (True, 3), (False, 0)]
    return out, chosen, later


def test_a_latest_day_stopped_before_any_ico_is_never_reported_complete(gap):
    out, _, later = gap
    snaps = read_snapshots(out)
    assert [(i["snapshot_date"], i["rows"], i["complete"])
            for i in snaps.attrs["icoframes"]["snapshots"]] == [
        ("2026-11-01", 3, True), ("2026-11-02", 3, True), ("2026-11-03", 0, False)]
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        got = icoframes.report(snaps)  # a9c4b70: complete=True, days 1 and 2
    assert got.complete is False and got.stopped == "2026-11-03: quota"
    assert not warned  # counted: nothing left out to say (a9c4b70: "held no ICO")
    assert [q.fetched_at.date() for q in got.queries] == [dt.date(2026, 11, d) for d in (1, 2, 3)]
    assert sorted(m.id for m in got.missing) == later
    assert {m.reason.rsplit(" (", 1)[1] for m in got.missing} == {"the snapshot of 2026-11-03)"}
    assert got.requests_total == 6
    # a window that keeps day 2 may have kept day 3 (no row tells): never said complete
    two = icoframes.report(snaps[snaps["snapshot_date"] >= day(2)])
    assert two.complete is False and two.stopped == "2026-11-03: quota"
    assert [q.fetched_at.date() for q in two.queries] == [dt.date(2026, 11, d) for d in (2, 3)]
    # day 2, cut away, lies between day 1 and the gap: a window of day 1 alone
    one = icoframes.report(snaps[snaps["snapshot_date"] == day(1)])
    assert one.complete is True and one.stopped is None
    assert one.requests_total + two.requests_total == got.requests_total
    for zoned in (snaps["snapshot_date"].dt.tz_localize("UTC").dt.tz_convert("America/New_York"),
                  snaps["snapshot_date"].dt.strftime("%Y-%m-%d")):
        assert icoframes.report(snaps.assign(snapshot_date=zoned)) == got


def test_changes_and_plot_leave_the_gap_out_and_call_it_incomplete(gap):
    """A gap in one snapshot is no event (history.md): changes and plot_status_flow still
    count the rows' days; their warning says the day is incomplete (a9c4b70: 'held no
    ICO', as of a query that matched nothing)."""
    out, chosen, later = gap
    snaps = read_snapshots(out)
    assert list(snapshot_dates(snaps)) == [day(1), day(2)]
    with pytest.warns(IcoframesWarning, match=_GAP) as warned:
        events = changes(snaps)
    assert events.empty and len(warned) == 1 and "held no ICO" not in str(warned[0].message)
    with pytest.warns(IcoframesWarning, match=_GAP):
        ax = plot_status_flow(snaps)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2026-11-01", "2026-11-02"]
    matplotlib.pyplot.close(ax.figure)
    # the tree: day 3 counted, its list said the three are not upcoming, and listed the three
    # others upcoming (its manifest's missing, with their status: no row, but listed)
    whole = changes(out)
    assert sorted(whole[["snapshot_date", "ico_id", "kind", "new"]].fillna("-").values.tolist()
                  ) == sorted([[day(3), i, "removed", "-"] for i in chosen]
                              + [[day(3), i, "new", "upcoming"] for i in later])


def test_a_zone_attached_east_of_utc_is_refused_by_report(gap):
    """Review REVF L1: dates given a zone with tz_localize (not tz_convert) east of UTC
    lie in the UTC day before; report() dropped the rows of that day, which no snapshot
    names, and reported the others' days complete (a9c4b70)."""
    out, _, _ = gap
    snaps = read_snapshots(out)
    tokyo = snaps.assign(snapshot_date=snaps["snapshot_date"].dt.tz_localize("Asia/Tokyo"))
    with pytest.raises(InvalidParameter, match=(
            r"this frame holds rows of 2026-10-31, a day that no snapshot in its "
            r"attrs\['icoframes'\] names: its report is unknown\. Rows added by hand .* A zone "
            r"localized rather than converted\?")):
        icoframes.report(tokyo)
    west = snaps.assign(snapshot_date=snaps["snapshot_date"].dt.tz_localize("America/New_York"))
    assert icoframes.report(west) == icoframes.report(snaps)  # the same UTC days


def test_a_zone_attached_east_of_utc_is_refused_by_changes_and_plot_as_by_report(gap):
    """changes() and plot_status_flow() of the frame report() refuses (dates given Tokyo's
    zone with tz_localize: the rows of days 1 and 2 on 2026-10-31 and 11-01 in UTC) were
    not refused (9315728): their events and bars were dated a day early, each day read with
    the manifest of the day before. One check (snapshotdays.named_dates) refuses it for all
    three."""
    out, _, _ = gap
    snaps = read_snapshots(out)
    tokyo = snaps.assign(snapshot_date=snaps["snapshot_date"].dt.tz_localize("Asia/Tokyo"))
    said = (r"this frame holds rows of 2026-10-31, a day that no snapshot in its "
            r"attrs\['icoframes'\] names: its {} unknown\. Rows added by hand \(pd\.concat keeps "
            r"the first frame's attrs\)\? {}\. A zone localized rather than converted\? A "
            r"snapshot_date is a UTC day: \.dt\.tz_localize\('UTC'\)\.dt\.tz_convert\(zone\) "
            r"shows it in a zone")
    popped = r"frame\.attrs\.pop\('icoframes'\) counts the days of its rows alone"
    with pytest.raises(InvalidParameter, match=said.format("changes are", popped)):
        changes(tokyo)
    with pytest.raises(InvalidParameter, match=said.format("status flow is", popped)):
        plot_status_flow(tokyo)
    # report() needs the attrs: its way out for rows added by hand leaves those rows out
    with pytest.raises(InvalidParameter, match=said.format("report is", re.escape(
            "report() of the rows of its snapshots' days is their report: d = icoframes."
            "snapshots.utc_dates(frame); report(d[~d['snapshot_date'].isin(pd.to_datetime("
            "['2026-10-31']))])"))):
        icoframes.report(tokyo)
    # west of UTC: the same UTC days, the same events and bars as the frame's own
    west = snaps.assign(snapshot_date=snaps["snapshot_date"].dt.tz_localize("America/New_York"))
    with pytest.warns(IcoframesWarning, match=_GAP):
        events = changes(west)
    with pytest.warns(IcoframesWarning, match=_GAP):
        pd.testing.assert_frame_equal(events, changes(snaps))
    with pytest.warns(IcoframesWarning, match=_GAP):
        ax = plot_status_flow(west)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2026-11-01", "2026-11-02"]
    matplotlib.pyplot.close(ax.figure)


def test_a_zone_attached_to_the_dates_gives_midnights(gap):
    """Review REVF L2: utc_dates of dates given a zone with tz_localize kept the hours of
    the zone's offset (2026-10-31 15:00 for Tokyo's 2026-11-01), and changes() dated its
    events so (a9c4b70); read_snapshots' days are midnights of their UTC day."""
    out, chosen, _ = gap
    snaps = read_snapshots(out)
    snaps = snaps[(snaps["id"] != chosen[0]) | (snaps["snapshot_date"] != day(2))].copy()
    snaps.attrs = {}  # the days of its rows alone
    tokyo = snaps.assign(snapshot_date=snaps["snapshot_date"].dt.tz_localize("Asia/Tokyo"))
    got = utc_dates(tokyo)["snapshot_date"]
    assert str(got.dtype) == "datetime64[ms]"
    assert sorted(set(got)) == [pd.Timestamp(2026, 10, 31), pd.Timestamp(2026, 11, 1)]
    events = changes(tokyo)
    assert events[["snapshot_date", "previous_date", "ico_id", "kind"]].values.tolist() == [
        [pd.Timestamp(2026, 11, 1), pd.Timestamp(2026, 10, 31), chosen[0], "removed"]]


def test_a_row_without_a_date_does_not_stretch_the_days_counted(gap):
    """A NaT snapshot_date read as the text 'NaT', after every ISO date: snapshot_dates
    counted the empty days after the last one with rows (a9c4b70: day 3)."""
    out, _, _ = gap
    snaps = read_snapshots(out)
    snaps.loc[snaps.index[0], "snapshot_date"] = pd.NaT
    assert list(snapshot_dates(snaps)) == [day(1), day(2)]  # a9c4b70: and day 3 (and NaT)


def test_a_row_without_a_date_is_in_no_snapshot_as_report_counts_it(gap):
    """A NaT snapshot_date is no day: report() counted the days of the other rows, while
    snapshot_dates listed NaT, changes() compared a snapshot of NaT (the ICOs of day 2
    'removed' on NaT) and plot_status_flow raised "NaTType does not support strftime"
    (9315728). Every reader now leaves such a row out, as report() did."""
    out, chosen, _ = gap
    snaps = read_snapshots(out)
    undated = snaps.copy()
    at = undated.index[(undated["id"] == chosen[0]) & (undated["snapshot_date"] == day(2))]
    undated.loc[at, "snapshot_date"] = pd.NaT
    dated = undated.dropna(subset=["snapshot_date"])
    assert list(snapshot_dates(undated)) == list(snapshot_dates(dated)) == [day(1), day(2)]
    assert str(snapshot_dates(undated).dtype) == "datetime64[ms]"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # day 3 counted (incomplete): nothing left out to say
        assert icoframes.report(undated) == icoframes.report(dated)
    with pytest.warns(IcoframesWarning, match=_GAP):
        events = changes(undated)
    # the row dropped from `dated` is a row cut from day 2: its ICO reads as removed, said
    with (pytest.warns(IcoframesWarning, match=_GAP),
          pytest.warns(IcoframesWarning, match=r"fewer rows than 1 snapshot held \(2026-11-02")):
        pd.testing.assert_frame_equal(events, changes(dated))
    assert events[["snapshot_date", "previous_date", "ico_id", "kind"]].values.tolist() == [
        [day(2), day(1), chosen[0], "removed"]]
    with pytest.warns(IcoframesWarning, match=_GAP):
        ax = plot_status_flow(undated)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2026-11-01", "2026-11-02"]
    assert [[int(p.get_height()) for p in bars] for bars in ax.containers] == [[3, 2]]
    matplotlib.pyplot.close(ax.figure)

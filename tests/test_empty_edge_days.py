"""An empty first or last snapshot day, and frames cut by date (review REVA H1); zoned days.

Real snapshot exports of a sandbox over four simulated days (time-machine), ``status=
"upcoming"``: no ICO is upcoming on day 1, three are on days 2 and 3, none on day 4 (the
export writes empty tables: ``allow_empty``). A window of dates that keeps days 2 and 3 gives
a frame identical to the whole tree's, attrs included: it cannot tell that its empty days
were cut away. On 9516946 ``changes`` of that window gave 3 ICOs ``new`` on day 2 and
``removed`` on day 4, a day outside it, and its plot four bars; a zoned ``snapshot_date``
raised ValueError in ``changes``.
"""

from __future__ import annotations

import datetime as dt
import warnings

import matplotlib
import pandas as pd
import pytest
from made_exports import snapshot_tree

import icoframes
from icoframes.errors import IcoframesWarning
from icoframes.history import changes, read_snapshots
from icoframes.plotting import plot_status_flow
from icoframes.snapshots import snapshot_dates, uncounted_days

# its trees are of one status: a new or removed ICO is said to read so whether or not the
# service added or deleted it (tests/test_query_cut_snapshots.py); here they are the events
# under test
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*a query that selects ICOs:icoframes.errors.IcoframesWarning")

matplotlib.use("Agg")

DAYS = [dt.date(2026, 11, d) for d in (1, 2, 3, 4)]
_CUT = r"2026-11-01, 2026-11-04 held no ICO \(rows 0 in attrs\) and lie outside"


def day(d: dt.date | str) -> pd.Timestamp:
    return pd.Timestamp(d).as_unit("ms")


@pytest.fixture(scope="module")
def edges(tmp_path_factory):
    """The tree: days 1 and 4 empty, three upcoming ICOs on days 2 and 3."""
    out = tmp_path_factory.mktemp("exports") / "out"
    chosen, _, rows = snapshot_tree(out, tmp_path_factory.mktemp("cache"), days=len(DAYS),
                                    upcoming=(2, 3), stopped=False)
    assert rows == [(True, 0), (True, 3), (True, 3), (True, 0)]
    return out, chosen


def test_the_tree_hides_no_warning_but_the_stopped_days(tmp_path, monkeypatch):
    # what makes `edges` fail when exporting its empty first or last day warns: the tree
    # silenced every day's export; each export here warns once, after the real one
    real = icoframes.export_tables
    days: list[int] = []

    def export(*args, **kwargs):
        result = real(*args, **kwargs)
        days.append(len(days) + 1)
        warnings.warn(f"day {days[-1]} exported", IcoframesWarning, stacklevel=2)
        return result

    monkeypatch.setattr(icoframes, "export_tables", export)
    with pytest.warns(IcoframesWarning) as warned:
        _, _, rows = snapshot_tree(tmp_path / "out", tmp_path / "cache", days=3, upcoming=(2,),
                                   stopped=True)
    assert rows == [(True, 0), (True, 3), (False, 0)] and days == [1, 2, 3]
    assert [str(w.message) for w in warned] == ["day 1 exported", "day 2 exported"]


def test_changes_of_the_tree_counts_its_empty_first_and_last_days(edges):
    out, chosen = edges
    events = changes(out)
    assert events["snapshot_date"].tolist() == [day(DAYS[1])] * 3 + [day(DAYS[3])] * 3
    assert events["kind"].tolist() == ["new"] * 3 + ["removed"] * 3
    assert events["ico_id"].tolist() == chosen + chosen
    assert events["previous_date"].tolist() == [day(DAYS[0])] * 3 + [day(DAYS[2])] * 3


def test_a_window_of_dates_has_the_days_it_holds_rows_of_and_says_what_it_left_out(edges):
    out, _ = edges
    snaps = read_snapshots(out)
    window = snaps[(snaps["snapshot_date"] >= day(DAYS[1]))
                   & (snaps["snapshot_date"] <= day(DAYS[2]))]
    assert window.equals(snaps) and window.attrs == snaps.attrs  # nothing tells them apart
    assert list(snapshot_dates(window)) == [day(DAYS[1]), day(DAYS[2])]
    assert list(snapshot_dates(window, whole=True)) == [day(d) for d in DAYS]
    assert uncounted_days(window) == ["2026-11-01", "2026-11-04"]
    with pytest.warns(IcoframesWarning, match=_CUT) as warned:
        events = changes(window)
    assert events.empty  # 9516946: 3 new on day 2, 3 removed on day 4
    assert "changes(path) of the tree counts them" in str(warned[0].message)
    assert len(warned) == 1 and warned[0].filename == __file__  # the caller's line


def test_plot_status_flow_of_a_window_draws_its_days_and_the_events_draw_the_tree(edges):
    out, _ = edges
    snaps = read_snapshots(out)
    with pytest.warns(IcoframesWarning, match=_CUT):
        ax = plot_status_flow(snaps)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2026-11-02", "2026-11-03"]
    matplotlib.pyplot.close(ax.figure)  # 9516946: four bars, two of them empty
    ax = plot_status_flow(changes(out))  # the tree's moves, its empty days included
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2026-11-02", "2026-11-04"]
    heights = {b.get_label(): [p.get_height() for p in b.patches] for b in ax.containers}
    assert heights == {"new": [3, 0], "removed": [0, 3]}
    matplotlib.pyplot.close(ax.figure)


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Tokyo"])
def test_a_zoned_snapshot_date_is_the_snapshot_of_its_utc_day(edges, zone):
    out, chosen = edges
    snaps = read_snapshots(out)  # one ICO fewer on day 3: an event to see
    snaps = snaps[(snaps["id"] != chosen[0]) | (snaps["snapshot_date"] != day(DAYS[2]))].copy()
    snaps.attrs = {}  # the days of its rows alone
    expected = changes(snaps)
    assert expected[["snapshot_date", "ico_id", "kind"]].values.tolist() == [
        [day(DAYS[2]), chosen[0], "removed"]]
    zoned = snaps.assign(snapshot_date=snaps["snapshot_date"].dt.tz_localize("UTC")
                         .dt.tz_convert(zone))
    got = changes(zoned)  # 9516946: ValueError (cannot supply both a tz and a naive dtype)
    pd.testing.assert_frame_equal(got, expected)
    ax = plot_status_flow(zoned)  # 9516946: the days of New York (2026-11-01, 2026-11-02)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2026-11-02", "2026-11-03"]
    matplotlib.pyplot.close(ax.figure)


def test_report_of_a_frame_counts_the_days_snapshot_dates_counts(edges):
    """Review REVE L1: report() of a frame counted its empty first and last days, which
    snapshot_dates (so changes and plot_status_flow) leaves out, contrary to its doc: the
    whole tree's frame gave 4 days' queries (9ad5469), its window of days 2 and 3, the
    very same frame, too. It counts days 2 and 3 and says what it left out."""
    out, _ = edges
    snaps = read_snapshots(out)
    with pytest.warns(IcoframesWarning, match=_CUT) as warned:
        got = icoframes.report(snaps)
    assert "report: the snapshots of" in str(warned[0].message)
    assert warned[0].filename == __file__  # the caller's line
    assert [q.fetched_at.date() for q in got.queries] == DAYS[1:3]
    days = [icoframes.report(read_snapshots(out)[lambda f, d=d: f["snapshot_date"] == day(d)])
            for d in DAYS[1:3]]
    assert got.requests == {k: days[0].requests[k] + days[1].requests[k]
                            for k in days[0].requests}
    assert got.complete is True and got.missing == ()

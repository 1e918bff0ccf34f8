"""A snapshot day whose query matched nothing (allow_empty) is a day of the history.

Real snapshot exports of a sandbox over three simulated days (time-machine): the
ongoing ICOs all end on day 2 (the query ``status="ongoing"`` matches nothing, the
export writes empty tables), and come back under that status on day 3.
"""

from __future__ import annotations

import datetime as dt

import matplotlib
import numpy as np
import pandas as pd
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.history import changes, read_snapshots, snapshot_info
from icoframes.plotting import plot_status_flow
from icoframes.snapshots import snapshot_dates

# its trees are of one status: a new or removed ICO is said to read so whether or not the
# service added or deleted it (tests/test_query_cut_snapshots.py); here they are the events
# under test
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*a query that selects ICOs:icoframes.errors.IcoframesWarning")

matplotlib.use("Agg")

DAYS = [dt.date(2026, 11, 1), dt.date(2026, 11, 2), dt.date(2026, 11, 3)]


def day(d: dt.date | str) -> pd.Timestamp:
    return pd.Timestamp(d).as_unit("ms")


@pytest.fixture(scope="module")
def emptied(tmp_path_factory):
    """Three days of ``status="ongoing"`` snapshots; the middle one matched nothing."""
    out = tmp_path_factory.mktemp("exports") / "out"
    with sandbox.serve(n_icos=40, seed=3) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path_factory.mktemp("cache"))
        try:
            ongoing = sb.directory.ids("ongoing")
            assert len(ongoing) >= 2
            results = []
            for i, when in enumerate(DAYS):
                if i in (1, 2):  # ended on day 2, back under the query on day 3
                    for ico_id in ongoing:
                        sb.update_ico(ico_id, status="past" if i == 1 else "ongoing")
                noon = dt.datetime.combine(when, dt.time(12), tzinfo=dt.UTC)
                with time_machine.travel(noon):
                    results.append(icoframes.export_tables(
                        out, status="ongoing", snapshot=True, refresh=True, progress=False,
                        allow_empty=True))
        finally:
            icoframes.reset_configuration()
    assert [(r.complete, r.rows["icos"]) for r in results] == [
        (True, len(ongoing)), (True, 0), (True, len(ongoing))]
    return out, sorted(ongoing)


def test_changes_removes_on_the_empty_day_and_lists_new_the_day_after(emptied):
    out, ongoing = emptied
    events = changes(out)
    n = len(ongoing)
    assert events["snapshot_date"].tolist() == [day(DAYS[1])] * n + [day(DAYS[2])] * n
    assert events["kind"].tolist() == ["removed"] * n + ["new"] * n
    assert events["ico_id"].tolist() == ongoing + ongoing
    assert events["old"].tolist()[:n] == ["ongoing"] * n
    assert events["new"].tolist()[n:] == ["ongoing"] * n
    assert events["previous_date"].tolist() == [day(DAYS[0])] * n + [day(DAYS[1])] * n
    assert str(events["previous_date"].dtype) == "datetime64[ms]"
    assert changes(out, gaps="skip").equals(events)  # a complete empty day: no gap


def test_read_snapshots_has_no_row_of_the_empty_day_but_names_it(emptied):
    out, ongoing = emptied
    snaps = read_snapshots(out)
    assert snaps.groupby("snapshot_date").size().to_dict() == {
        day(DAYS[0]): len(ongoing), day(DAYS[2]): len(ongoing)}
    infos = snaps.attrs["icoframes"]["snapshots"]
    assert [(i["snapshot_date"], i["complete"], i["rows"]) for i in infos] == [
        ("2026-11-01", True, len(ongoing)), ("2026-11-02", True, 0),
        ("2026-11-03", True, len(ongoing))]
    assert list(snapshot_dates(snaps)) == [day(d) for d in DAYS]
    assert snapshot_info(out)["snapshot_date"].tolist() == [day(d) for d in DAYS]
    # the frame's rows alone (attrs dropped) know two days: as before, no event
    bare = snaps.copy()
    bare.attrs = {}
    assert list(snapshot_dates(bare)) == [day(DAYS[0]), day(DAYS[2])]
    assert changes(bare).empty


def test_a_frame_cut_to_some_dates_does_not_bring_the_empty_day_back(emptied):
    """pandas keeps ``attrs`` on a cut frame: a day cut away is not told from one without a
    row, so the empty day counts only while the frame holds every other day."""
    out, ongoing = emptied
    snaps = read_snapshots(out)
    for cut in (snaps[snaps["snapshot_date"] >= day(DAYS[2])],
                snaps[snaps["snapshot_date"] != day(DAYS[0])]):
        assert cut.attrs == snaps.attrs  # what pandas does
        assert list(snapshot_dates(cut)) == [day(DAYS[2])]
        assert changes(cut).empty  # was: every ICO new on day 3, against the empty day
    by_status = snaps[snaps["status"] == "ongoing"]  # rows of every day kept: the day counts
    assert list(snapshot_dates(by_status)) == [day(d) for d in DAYS]
    assert len(changes(by_status)) == 2 * len(ongoing)


def test_an_empty_day_of_another_query_is_refused_as_any_other():
    frame = _frame({"2026-11-01": [1, 2], "2026-11-03": [1, 2]}, [
        {"snapshot_date": "2026-11-01", "complete": True, "rows": 2,
         "queries": [{"status": "past"}]},
        {"snapshot_date": "2026-11-02", "complete": True, "rows": 0,
         "queries": [{"status": "ongoing"}]},
        {"snapshot_date": "2026-11-03", "complete": True, "rows": 2,
         "queries": [{"status": "past"}]}])
    with pytest.raises(ValueError, match="hold exports of 2 different queries") as raised:
        changes(frame)
    assert "status=ongoing (2026-11-02)" in str(raised.value)
    with pytest.raises(ValueError, match="hold exports of 2 different queries"):
        plot_status_flow(frame)  # refused before any figure is made: none to close


def test_plot_status_flow_shows_the_empty_day_as_a_zero_bar(emptied):
    out, ongoing = emptied
    ax = plot_status_flow(read_snapshots(out))
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == [d.isoformat() for d in DAYS]
    (bars,) = ax.containers  # one status: ongoing
    assert bars.get_label() == "ongoing"
    assert [p.get_height() for p in bars.patches] == [len(ongoing), 0, len(ongoing)]
    moves = [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-moves"]
    assert moves == [f"-{len(ongoing)} removed", f"+{len(ongoing)} new"]
    matplotlib.pyplot.close(ax.figure)


def _frame(days: dict[str, list[int]], infos: list[dict]) -> pd.DataFrame:
    rows = [(d, i) for d, ids in days.items() for i in ids]
    frame = pd.DataFrame({
        "snapshot_date": np.array([d for d, _ in rows], dtype="datetime64[ms]"),
        "id": np.array([i for _, i in rows], dtype="int64"),
        "status": ["past"] * len(rows)})
    frame.attrs["icoframes"] = {"snapshots": infos}
    return frame


def test_an_incomplete_empty_day_is_a_gap_not_removals():
    """No row and incomplete: absences its manifest names are unseen, the others removed;
    naming no gap at all, it says nothing of the day: every ICO unseen, none removed."""
    named = _frame({"2026-11-01": [1, 2], "2026-11-03": [1, 2]}, [
        {"snapshot_date": "2026-11-01", "complete": True, "rows": 2},
        {"snapshot_date": "2026-11-02", "complete": False, "rows": 0, "missing": [1],
         "partial_lists": []},
        {"snapshot_date": "2026-11-03", "complete": True, "rows": 2}])
    events = changes(named)
    assert list(zip(events["snapshot_date"], events["ico_id"], events["kind"],
                    events["previous_date"], strict=True)) == [
        (day("2026-11-02"), 1, "unseen", day("2026-11-01")),
        (day("2026-11-02"), 2, "removed", day("2026-11-01")),
        (day("2026-11-03"), 2, "new", day("2026-11-02"))]
    silent = _frame({"2026-11-01": [1, 2], "2026-11-03": [1, 2]}, [
        {"snapshot_date": "2026-11-01", "complete": True, "rows": 2},
        {"snapshot_date": "2026-11-02", "complete": False, "rows": 0, "missing": [],
         "partial_lists": []},
        {"snapshot_date": "2026-11-03", "complete": True, "rows": 2}])
    events = changes(silent)
    assert events[["ico_id", "kind"]].values.tolist() == [[1, "unseen"], [2, "unseen"]]
    assert set(events["snapshot_date"]) == {day("2026-11-02")}
    assert changes(silent, gaps="skip").empty
    ax = plot_status_flow(silent)
    moves = [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-moves"]
    assert moves == ["2 unseen", "no change"]
    matplotlib.pyplot.close(ax.figure)


def test_removed_after_unseen_names_the_last_snapshot_that_held_it():
    """Unseen on day 2 (incomplete), gone from the complete day 3: removed since day 1."""
    frame = _frame({"2026-11-01": [1, 2], "2026-11-02": [2], "2026-11-03": [2]}, [
        {"snapshot_date": "2026-11-01", "complete": True, "rows": 2},
        {"snapshot_date": "2026-11-02", "complete": False, "rows": 1, "missing": [1],
         "partial_lists": []},
        {"snapshot_date": "2026-11-03", "complete": True, "rows": 1}])
    events = changes(frame)
    assert list(zip(events["snapshot_date"], events["ico_id"], events["kind"],
                    events["previous_date"], strict=True)) == [
        (day("2026-11-02"), 1, "unseen", day("2026-11-01")),
        (day("2026-11-03"), 1, "removed", day("2026-11-01"))]


def test_a_hand_made_frame_of_text_dates_is_read_by_its_own_keys():
    """A frame whose dates are text (no attrs): the days of its rows, as they are; its bars
    and moves as before (the days converted to times found no group: every bar 0)."""
    snaps = pd.DataFrame({"snapshot_date": ["2026-01-01"] * 2 + ["2026-01-02"] * 2,
                          "id": [1, 2, 1, 2], "status": ["upcoming", "past", "ongoing", "past"]})
    assert list(snapshot_dates(snaps)) == ["2026-01-01", "2026-01-02"]
    ax = plot_status_flow(snaps)
    heights = {b.get_label(): [p.get_height() for p in b.patches] for b in ax.containers}
    assert heights == {"past": [1, 1], "ongoing": [0, 1], "upcoming": [1, 0]}
    assert [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-moves"] == [
        "1 upcoming\u2192ongoing"]
    matplotlib.pyplot.close(ax.figure)

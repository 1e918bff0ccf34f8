"""An ICO listed on a day whose profile the daily limit left unfetched (the manifest's
``missing`` names it, with the status it was listed under) was listed that day: ``changes()``
says it is ``new`` there, not a day late as ``first_seen``, and compares its later rows with
what that day said of it, its status alone. ``plot_status_flow`` counts it so too.

Real snapshot exports of every status of a 30-ICO sandbox over three simulated days
(time-machine): day 1 complete; before day 2 the service adds two ICOs, and day 2's daily
limit allows the list pages only (complete false, both ``missing``); before day 3 one of
them ends its presale (upcoming to ongoing) and the other is deleted; day 3 complete.
"""

from __future__ import annotations

import datetime as dt
import json
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
import time_machine
from made_exports import day

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning
from icoframes.history import changes, read_snapshots
from icoframes.plotting import plot_status_flow
from icoframes.snapshots import Gaps, gaps_by_date

matplotlib.use("Agg")

import matplotlib.pyplot as plt


def _export(out, n, cache_dir, sb, quota=None):
    icoframes.reset_configuration()  # (the day before's daily_quota not kept)
    icoframes.configure(**sb.settings(), cache_dir=cache_dir,
                        **({"daily_quota": quota} if quota else {}))
    with time_machine.travel(dt.datetime(2026, 11, n, 12, tzinfo=dt.UTC)), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # day 2 is said incomplete
        return icoframes.export_tables(out, snapshot=True, refresh=True, progress=False)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """The tree, and the ids of the ICO that moved and of the one deleted."""
    out = tmp_path_factory.mktemp("listed") / "out"
    cache = out.parent / "cache"
    with sandbox.serve(n_icos=30, seed=1, quota=None) as sb:
        try:
            first = _export(out, 1, cache, sb)
            assert first.complete
            lists = first.report.requests["icos"]  # the list pages of a day
            moved, deleted = sb.add_ico("upcoming"), sb.add_ico("past")
            second = _export(out, 2, cache, sb, quota=lists)
            sb.update_ico(moved, status="ongoing")
            sb.remove_ico(deleted)
            third = _export(out, 3, cache, sb)
            assert third.complete
        finally:
            icoframes.reset_configuration()
    manifest = json.loads((out / "snapshot_date=2026-11-02" / "manifest.json").read_text())
    assert second.complete is False and second.report.requests["ico"] == 0
    assert {m["id"]: m["status"] for m in manifest["missing"]} == {moved: "upcoming",
                                                                   deleted: "past"}
    return out, moved, deleted


def test_an_ico_listed_without_a_row_is_new_the_day_it_was_listed(tree):
    out, moved, deleted = tree
    for snapshots in (out, read_snapshots(out)):
        events = changes(snapshots)
        got = events[events["ico_id"].isin([moved, deleted])].fillna("-")
        assert got[["ico_id", "snapshot_date", "kind", "old", "new", "previous_date"]
                   ].values.tolist() == [
            [moved, day(2), "new", "-", "upcoming", day(1)],
            [deleted, day(2), "new", "-", "past", day(1)],
            # its status as listed on day 2 against its row of day 3; nothing else of day 2
            # is known: its first row's values are no change
            [moved, day(3), "status", "upcoming", "ongoing", day(2)],
            [deleted, day(3), "removed", "past", "-", day(2)],
        ]
        assert not events["kind"].isin(["first_seen", "unseen"]).any()


def test_a_frame_cut_to_some_ids_gives_none_of_the_others(tree):
    """The manifests name every ICO listed without a row; a frame cut by id (said) has the
    events of its own ids alone."""
    out, moved, _ = tree
    frame = read_snapshots(out)
    kept = [frame["id"].iloc[0], moved]  # an ICO of every day: the days are the tree's
    with pytest.warns(IcoframesWarning, match="the frame holds fewer rows"):
        events = changes(frame[frame["id"].isin(kept)])
    assert events[["ico_id", "kind"]].values.tolist() == [[moved, "new"], [moved, "status"]]


def test_plot_status_flow_counts_it_new_the_day_it_was_listed(tree):
    out, _, _ = tree
    ax = plot_status_flow(read_snapshots(out))
    moves = [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-moves"]
    assert moves == ["+2 new", "1 upcoming→ongoing\n-1 removed"]
    plt.close(ax.figure)


def test_the_ids_listed_without_a_row_by_day_with_their_statuses(tree):
    """:meth:`Gaps.listed` of each day of the tree: the ids its manifest lists without a row,
    less those of a row or known, each with the status listed (NaN when it is not said)."""
    out, moved, deleted = tree
    frame = read_snapshots(out)
    gaps = gaps_by_date(frame)
    assert list(gaps) == [day(2)]  # days 1 and 3 complete
    rows = pd.Index(frame.loc[frame["snapshot_date"] == day(2), "id"])
    known = pd.Index(frame.loc[frame["snapshot_date"] == day(1), "id"])
    listed = gaps[day(2)].listed(rows, known)
    expected = pd.Series({moved: "upcoming", deleted: "past"}, dtype=object).sort_index()
    expected.index = pd.Index(expected.index, dtype="int64", name="id")
    pd.testing.assert_series_equal(listed, expected)
    assert gaps[day(2)].listed(rows, known.append(pd.Index([moved]))).index.tolist() == [deleted]
    assert gaps[day(2)].listed(rows, known, only=pd.Index([moved])).to_dict() == {
        moved: "upcoming"}
    unsaid = Gaps(gaps[day(2)].missing, [], statuses={moved: "upcoming"})
    got = unsaid.listed(rows, known)
    assert got[moved] == "upcoming" and got.dtype == object and np.isnan(got[deleted])
    assert unsaid.listed(rows, known.union(pd.Index([moved, deleted]))).empty

"""Snapshots of a query that selects ICOs (``icoframes export --status ongoing --snapshot``) make
an ICO that left the query while still listed (its sale ended) read as ``removed``, the same
event as an ICO the service deleted; one that entered it (``--status past``) as ``new``, the
same as one the service added. ``changes()`` and ``plot_status_flow()`` say so, from the
manifests' query in the frame's attrs, as they say it of a frame cut by rows. On 7c2753c both
ICOs of each tree gave identical rows without a word.

Real snapshot exports through the command line, a 100-ICO sandbox, two simulated days
(time-machine): between them one ongoing sale ends (still listed, as past) and another
ongoing ICO is deleted from the directory.
"""

from __future__ import annotations

import datetime as dt
import shutil
import warnings

import matplotlib
import pytest
import time_machine

matplotlib.use("Agg")

import matplotlib.pyplot as plt

import icoframes
from icoframes import sandbox
from icoframes.cli import main
from icoframes.errors import IcoframesWarning
from icoframes.history import changes, read_snapshots
from icoframes.plotting import plot_status_flow

SAID = (r"the snapshots are of a query that selects ICOs \(\{'status': '{status}'\}\): an ICO "
        r"that left it while the service still lists it .* reads as removed, one that entered "
        r"it as new: the same events as an ICO the service deleted or added")


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    """Trees of ``--status ongoing`` and ``--status past`` (and of every status), day 1 and 2;
    the ids of the sale that ended and of the ICO deleted between them. Trees ``day0-score``
    (``--ico-score 5``) and ``day0-all``: one snapshot of the day before, to mix with those."""
    tmp = tmp_path_factory.mktemp("query_cut")
    outs = {s: tmp / (s or "all") for s in ("ongoing", "past", None)}
    with sandbox.serve(n_icos=100, seed=21, quota=None) as sb:
        try:
            icoframes.configure(**sb.settings(), cache_dir=tmp / "cache")
            for name, query in (("score", ["--ico-score", "5"]), ("all", [])):
                args = ["export", "--out", str(tmp / f"day0-{name}"), "--snapshot", *query]
                with time_machine.travel(dt.datetime(2026, 10, 31, 3, tzinfo=dt.UTC)):
                    assert main(args) == 0
            ended = deleted = None
            for day in (1, 2):
                if day == 2:
                    ended, deleted = sb.directory.ids("ongoing")[:2]
                    sb.update_ico(ended, status="past")
                    sb.remove_ico(deleted)
                for status, out in outs.items():
                    args = ["export", "--out", str(out), "--snapshot", "--refresh", "changed"]
                    with time_machine.travel(dt.datetime(2026, 11, day, 3, tzinfo=dt.UTC)):
                        assert main(args + (["--status", status] if status else [])) == 0
        finally:
            icoframes.reset_configuration()
    return outs, ended, deleted


@pytest.mark.parametrize(("status", "event"), [("ongoing", "removed"), ("past", "new")])
def test_a_tree_of_one_status_warns_that_leaving_it_reads_as_removed_or_new(trees, status,
                                                                          event):
    outs, ended, deleted = trees
    for snapshots in (outs[status], read_snapshots(outs[status])):  # the path, or its frame
        with pytest.warns(IcoframesWarning, match=SAID.replace("{status}", status)):
            events = changes(snapshots)
        assert events[events["ico_id"] == ended]["kind"].tolist() == [event]
    if status == "ongoing":  # the deleted ICO: the same event, told apart by nothing else
        assert events[events["ico_id"] == deleted]["kind"].tolist() == ["removed"]
    with pytest.warns(IcoframesWarning, match=SAID.replace("{status}", status)):
        ax = plot_status_flow(read_snapshots(outs[status]))
    plt.close(ax.figure)


def test_the_tree_of_every_status_tells_them_apart_without_a_warning(trees):
    outs, ended, deleted = trees
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        events = changes(outs[None])
        plt.close(plot_status_flow(read_snapshots(outs[None])).figure)
    by_id = {i: events[events["ico_id"] == i][["kind", "old", "new"]].fillna("-").values.tolist()
             for i in (ended, deleted)}
    assert by_id == {ended: [["status", "ongoing", "past"]], deleted: [["removed", "ongoing", "-"]]}


def test_no_new_or_removed_event_no_warning(trees):
    outs, _, _ = trees
    frame = read_snapshots(outs["ongoing"])
    one_day = frame[frame["snapshot_date"] == frame["snapshot_date"].min()]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert changes(one_day).empty  # one day: no event at all
    assert not [w for w in said if "selects ICOs" in str(w.message)]


def _days_1_2_after(day0, tree, into):
    """``tree``'s snapshots of days 1 and 2 after the ``day0`` snapshot of another query (as a
    tree an older version wrote, or folders moved by hand): the frame of days 1 and 2, which
    still carries day 0's manifest in its attrs."""
    for day_folder in [*day0.glob("snapshot_date=*"), *tree.glob("snapshot_date=*")]:
        shutil.copytree(day_folder, into / day_folder.name)
    frame = read_snapshots(into)
    return frame[frame["snapshot_date"] > frame["snapshot_date"].min()]


@pytest.mark.parametrize("compared", ["ongoing", "all"])
def test_only_the_queries_of_the_days_compared_decide_the_warning(trees, tmp_path, compared):
    outs, ended, _ = trees
    other = "all" if compared == "ongoing" else "score"
    days = _days_1_2_after(outs[None].parent / f"day0-{other}",
                           outs["ongoing" if compared == "ongoing" else None], tmp_path)
    for draw in (changes, plot_status_flow):
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            out = draw(days)
        if draw is changes:  # the sale that ended: removed among the ongoing, a move otherwise
            assert out[out["ico_id"] == ended]["kind"].tolist() == (
                ["removed"] if compared == "ongoing" else ["status"])
        else:
            plt.close(out.figure)
        told = [str(w.message) for w in said if "selects ICOs" in str(w.message)]
        # day 0's query (every status, or a filter by score) is no query of the days compared
        assert len(told) == (compared == "ongoing"), told

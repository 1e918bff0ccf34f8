"""A ``read_snapshots`` frame cut by rows (``icos[icos.status == "past"]``) makes an ICO that
left or entered the rows kept read as ``removed`` or ``new``: ``changes()`` and
``plot_status_flow()`` say so, as they say a frame cut to some dates. On d818c3e the sale
that ended between two snapshots was ``new`` among the past ICOs and ``removed`` among the
ongoing ones, without a word.

Real snapshot exports of a 60-ICO sandbox on two simulated days (time-machine), one sale
moved from ongoing to past between them.
"""

from __future__ import annotations

import warnings

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from made_exports import daily_snapshots

from icoframes.errors import IcoframesWarning
from icoframes.history import changes, read_snapshots
from icoframes.plotting import plot_status_flow

CUT = r"fewer rows than 2 snapshots held \(2026-11-01: \d+ of 60, 2026-11-02: \d+ of 60\)"


@pytest.fixture(scope="module")
def moved_tree(tmp_path_factory):
    """Two daily snapshots of 60 ICOs; one ongoing sale ended (status past) between them."""
    out = tmp_path_factory.mktemp("exports") / "out"
    moved: list[int] = []

    def end_a_sale(sb, n: int) -> None:
        if n == 2:
            moved.append(sb.directory.ids("ongoing")[0])
            sb.directory.update_ico(moved[0], status="past")

    daily_snapshots(out, out.parent / "cache", (1, 2), edit=end_a_sale)
    return out, moved[0]


def test_the_whole_frame_says_the_move_without_a_warning(moved_tree):
    out, moved = moved_tree
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        events = changes(read_snapshots(out))
    moves = events[events["ico_id"] == moved][["kind", "old", "new"]].values.tolist()
    assert moves == [["status", "ongoing", "past"]]


@pytest.mark.parametrize(("kept", "kind"), [("past", "new"), ("ongoing", "removed")])
def test_a_frame_cut_by_status_warns_that_the_move_reads_as_new_or_removed(moved_tree, kept,
                                                                          kind):
    out, moved = moved_tree
    snaps = read_snapshots(out)
    cut = snaps[snaps["status"] == kept]
    with pytest.warns(IcoframesWarning, match=CUT):
        events = changes(cut)
    assert events[events["ico_id"] == moved]["kind"].tolist() == [kind]
    with pytest.warns(IcoframesWarning, match=CUT):
        ax = plot_status_flow(cut)
    plt.close(ax.figure)


def test_a_frame_cut_to_one_date_only_is_no_cut_of_rows(moved_tree):
    out, _ = moved_tree
    snaps = read_snapshots(out)
    day = snaps[snaps["snapshot_date"] == snaps["snapshot_date"].max()]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        changes(day)
    assert not [w for w in said if "fewer rows than" in str(w.message)]

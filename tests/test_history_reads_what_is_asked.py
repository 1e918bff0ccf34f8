"""The history readers' memory follows what is asked, not the whole tree: ``read_snapshots``
reads the columns and the days asked (``columns``, ``start``, ``end``), and ``changes(path)``
decodes only the columns its kinds compare, of the days from the snapshot before ``start``
on. Each gives what the whole read gives of those columns and days.

Real snapshot exports of a 60-ICO sandbox over loopback HTTP on four simulated days
(time-machine): before day 2 an upcoming ICO moves to ongoing, before day 3 it raises money,
before day 4 its name changes.
"""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest
from made_exports import daily_snapshots, day
from waiting import HANG_GUARD

from icoframes.errors import InvalidParameter, UnknownName
from icoframes.history import changes, read_snapshots


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    out = tmp_path_factory.mktemp("asked") / "out"
    moved: list[int] = []

    def edit(sb, n):
        if n == 2:
            moved.append(sb.directory.ids("upcoming")[0])
            sb.update_ico(moved[0], status="ongoing")
        elif n == 3:
            sb.update_ico(moved[0], raised=125_000)
        elif n == 4:
            sb.update_ico(moved[0], name="Renamed")

    daily_snapshots(out, out.parent / "cache", range(1, 5), edit=edit)
    return out, moved[0]


def test_read_snapshots_reads_the_columns_asked_with_the_key(tree):
    out, _ = tree
    whole = read_snapshots(out)
    few = read_snapshots(out, columns=["raised", "status"])
    assert list(few.columns) == ["snapshot_date", "id", "status", "raised"]  # schema's order
    pd.testing.assert_frame_equal(few, whole[list(few.columns)])
    assert few.attrs["icoframes"] == whole.attrs["icoframes"]
    described = few.attrs["columns"]  # the descriptions of the columns read
    assert set(described) == {"id", "status", "raised"}
    assert all(described[c] == whole.attrs["columns"][c] for c in described)
    team = read_snapshots(out, "team", columns="name")
    assert list(team.columns) == ["snapshot_date", "ico_id", "position", "name"]


def test_an_unknown_column_is_refused_with_the_closest(tree):
    out, _ = tree
    with pytest.raises(UnknownName, match=r"'staus' is not a column of the icos table.*'status'"):
        read_snapshots(out, columns=["staus"])


def test_read_snapshots_reads_the_days_asked(tree):
    out, _ = tree
    whole = read_snapshots(out)
    # a zoned moment is its UTC day: 22:00 at UTC-4 on the 1st is the 2nd in UTC
    window = read_snapshots(out, start="2026-11-01T22:00-04:00", end=day(3))
    assert sorted(window["snapshot_date"].unique()) == [day(2), day(3)]
    kept = whole[whole["snapshot_date"].between(day(2), day(3))].reset_index(drop=True)
    pd.testing.assert_frame_equal(window, kept)
    assert [i["snapshot_date"] for i in window.attrs["icoframes"]["snapshots"]] == [
        "2026-11-02", "2026-11-03"]
    none = read_snapshots(out, start="2026-12-01")
    assert none.empty and list(none.columns) == list(whole.columns)
    with pytest.raises(InvalidParameter, match=r"start .2026-11-03. is after end"):
        read_snapshots(out, start=day(3), end=day(2))


def test_changes_of_a_window_are_the_whole_trees_events_of_those_days(tree):
    out, added = tree
    every = changes(out)
    assert every.loc[every["ico_id"] == added, "kind"].tolist() == ["status", "raised", "name"]
    later = changes(out, start="2026-11-03")
    pd.testing.assert_frame_equal(
        later, every[every["snapshot_date"] >= day(3)].reset_index(drop=True))
    second = changes(out, start=day(2), end=day(2), kinds=["status"])
    assert second[["ico_id", "kind", "old", "new"]].values.tolist() == [
        [added, "status", "upcoming", "ongoing"]]
    with pytest.raises(InvalidParameter, match=r"start .2026-11-03. is after end"):
        changes(out, start=day(3), end=day(2))
    with pytest.raises(InvalidParameter, match="start and end choose the days of a tree"):
        changes(read_snapshots(out), start=day(3))


_PEAK = """
import sys, warnings
import pyarrow as pa
import icoframes
warnings.simplefilter("ignore")
out, call = sys.argv[1], sys.argv[2]
if call == "read":
    icoframes.read_snapshots(out)
else:
    icoframes.changes(out, kinds=["status"])
print(pa.default_memory_pool().max_memory())
"""


def _arrow_peak(out, call):
    """The most memory Arrow held at once (the decoded columns, and pandas' text held in
    Arrow) while a fresh process made one call: set by what is decoded, not by the clock."""
    done = subprocess.run([sys.executable, "-c", _PEAK, str(out), call], capture_output=True,
                          text=True, check=True, timeout=HANG_GUARD)
    return int(done.stdout.split()[-1])


def test_changes_of_a_path_decodes_only_the_columns_it_compares(tree):
    out, _ = tree
    whole, status = _arrow_peak(out, "read"), _arrow_peak(out, "changes")
    # the whole tree's descriptions, URLs and names are most of what a read decodes
    assert status * 4 < whole, (status, whole)

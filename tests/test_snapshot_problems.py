"""read_snapshots(tree, "problems") of a day written before problems were (review REVA L2).

A day folder without ``problems.parquet`` has no problems to ``Tables.read_parquet`` (and
``read_export``); on 9516946 ``read_snapshots(tree, "problems")`` refused the whole tree
("is not an export of icoframes: missing problems.parquet").
"""

from __future__ import annotations

import os

import pytest

from icoframes.history import read_snapshots
from icoframes.parse.profiles import tidy
from icoframes.schema import PROBLEMS
from icoframes.tables import Tables


@pytest.fixture
def tree(tmp_path):
    """Two days of tables (one unreadable score each), the first without problems.parquet."""
    tables = tidy([{"id": 7, "main": {"ico_score": "high"}}])
    for day in ("2026-11-01", "2026-11-02"):
        tables.to_parquet(tmp_path / f"snapshot_date={day}")
    os.remove(tmp_path / "snapshot_date=2026-11-01" / "problems.parquet")
    return tmp_path


def test_a_day_without_problems_parquet_has_no_problems_in_the_stack(tree):
    problems = read_snapshots(tree, "problems")
    assert problems[["ico_id", "column", "value", "reason"]].values.tolist() == [
        [7, "ico_score", "high", "unreadable_number"]]
    assert problems["snapshot_date"].dt.strftime("%Y-%m-%d").tolist() == ["2026-11-02"]
    assert list(problems.columns) == ["snapshot_date", *PROBLEMS.names]
    assert [i["rows"] for i in problems.attrs["icoframes"]["snapshots"]] == [0, 1]
    assert Tables.read_parquet(tree / "snapshot_date=2026-11-01").problems.empty  # as it reads


def test_a_link_to_nothing_at_problems_parquet_is_damage_named(tree):
    os.symlink("gone.parquet", tree / "snapshot_date=2026-11-01" / "problems.parquet")
    with pytest.raises(ValueError, match=r"problems\.parquet is damaged \(a symbolic link"):
        read_snapshots(tree, "problems")


def test_another_table_missing_is_still_named_with_its_day(tree):
    os.remove(tree / "snapshot_date=2026-11-02" / "team.parquet")
    with pytest.raises(FileNotFoundError, match=r"missing team.parquet \(the snapshot of "
                                                r"2026-11-02"):
        read_snapshots(tree, "team")

"""Every reader of a snapshot tree waits for a swap it meets, as read_export does.

An export swaps a day's folder by renaming it away, then the new one in, holding the swap
lock on the tree (:func:`icoframes.staging.swap_lock`). A reader looking between the two
renames saw a tree without that day: read_snapshots and snapshot_info left the day out
(changes then saw its ICOs removed and new again), or gave up with ExportReplaced after a
second of retries; check_layout saw no snapshot (a plain export was written into the
tree). Each swap here is this test holding the real lock with the folder renamed away,
until the reader is waiting for the lock: no sleep, no timing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from swapping import DAYS, Gate, meets_swap, snapshot_tree, staged, swap_held

import icoframes
from icoframes import sandbox, snapshots, staging
from icoframes.dayfolder import check_layout, keep_exported
from icoframes.errors import InvalidParameter, StaleWarning
from icoframes.history import changes
from icoframes.tables import Tables


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=5) as server:
        yield server


def _stacked(out: Path) -> Any:
    return sorted(pd.DatetimeIndex(icoframes.read_snapshots(out)["snapshot_date"].unique())
                  .strftime("%Y-%m-%d"))


def _info(out: Path) -> Any:
    info = snapshots.snapshot_info(out)
    return list(info["snapshot_date"].dt.strftime("%Y-%m-%d")), info["complete"].tolist()


READERS = {
    "read_snapshots": (_stacked, list(DAYS)),
    "snapshot_info": (_info, (list(DAYS), [True, True])),
    "changes": (lambda out: len(changes(out)), 0),  # two days alike: no event
}


@pytest.mark.parametrize("when", ["before_listing", "after_listing"])
@pytest.mark.parametrize("reader", list(READERS))
def test_a_tree_reader_meeting_a_day_swapped_away_waits_and_reads_every_day(
        cfg, tmp_path, monkeypatch, reader, when):
    """The second day's folder is renamed away by a swap before the reader lists the tree
    (it was left out: read_snapshots and changes read a tree without that day), or after it
    listed it (read_snapshots gave up after its retries, ExportReplaced;
    snapshot_info said the day had no manifest). Each now waits for the swap and reads both
    days."""
    out = tmp_path / "out"
    folders = snapshot_tree(out)
    read, expected = READERS[reader]
    gate = None
    if when == "after_listing":
        gate, real = Gate(), snapshots.snapshot_folders

        def listed(path: Any) -> pd.Series:
            found = real(path)
            gate.stop()
            return found

        monkeypatch.setattr(snapshots, "snapshot_folders", listed)
    waited, results = meets_swap(monkeypatch, lambda: read(out), swap_held(out, folders[1]),
                                  gate)
    assert "error" not in results, results
    assert waited, results
    assert results["value"] == expected


def test_a_plain_export_is_refused_in_a_tree_whose_only_day_is_mid_swap(
        cfg, tmp_path, monkeypatch):
    """check_layout saw a tree whose only day was renamed away by its swap as no tree: a plain
    export was written into it. It now looks once the swap is done, and refuses."""
    out = tmp_path / "out"
    [folder] = snapshot_tree(out, DAYS[:1])
    waited, results = meets_swap(monkeypatch, lambda: check_layout(out, snapshot=False),
                                  swap_held(out, folder))
    assert waited, results
    assert isinstance(results.get("error"), InvalidParameter), results
    assert "is a snapshot tree (1 snapshot folder(s)" in str(results["error"])


def test_a_snapshot_is_refused_beside_a_plain_export_mid_swap(cfg, tmp_path, monkeypatch):
    """A plain export's swap removes its manifest first: check_layout(snapshot) saw no plain
    export there and let a snapshot be written beside it. It now waits for the swap."""
    out = tmp_path / "out"
    icoframes.export_tables(out, status="past", progress=False)

    @contextlib.contextmanager
    def swapping() -> Iterator[None]:  # swap_files' first step, its lock held
        with staged(out), staging.swap_lock(out):
            (out / "manifest.json").rename(tmp_path / "manifest.json")
            try:
                yield
            finally:
                (tmp_path / "manifest.json").rename(out / "manifest.json")

    waited, results = meets_swap(monkeypatch, lambda: check_layout(out, snapshot=True),
                                  swapping())
    assert waited, results
    assert isinstance(results.get("error"), InvalidParameter), results
    assert "holds a plain export" in str(results["error"])


def test_the_days_rows_are_kept_though_its_folder_is_mid_swap(cfg, tmp_path, monkeypatch):
    """A re-run whose list came back partial keeps the day's rows from the day's snapshot;
    when another export of the day was swapping that folder (renamed away), keep_exported
    saw none and kept nothing: the day's rows replaced by fewer. It now waits for the swap."""
    out = tmp_path / "out"
    [folder] = snapshot_tree(out, DAYS[:1])
    stated = {"queries": [{"params": {"status": "past"}, "complete": False, "rows": 0}],
              "missing": [], "complete": False}
    with pytest.warns(StaleWarning, match="28 row.s. this export lacked are kept"):
        waited, results = meets_swap(
            monkeypatch, lambda: keep_exported(folder, Tables.empty(), stated),
            swap_held(out, folder))
    assert "error" not in results, results
    assert waited, results
    kept, said = results["value"]
    assert set(kept.icos["id"]) == set(cfg.directory.ids("past"))
    assert said["queries"][0]["kept"]["from_snapshot"] == len(kept.icos)

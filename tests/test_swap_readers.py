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
import datetime as dt
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import time_machine
from waiting import HANG_GUARD, wait_until

import icoframes
from icoframes import sandbox, snapshots, staging, swaps
from icoframes.dayfolder import check_layout, keep_exported
from icoframes.errors import InvalidParameter, StaleWarning
from icoframes.history import changes
from icoframes.tables import Tables

DAYS = ("2026-11-20", "2026-11-21")


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=5) as server:
        yield server


def _tree(out: Path, days: tuple[str, ...] = DAYS) -> list[Path]:
    """A snapshot tree of ``days`` (the first exported, the others its copies)."""
    with time_machine.travel(dt.datetime.fromisoformat(f"{days[0]}T12:00:00+00:00"), tick=True):
        first = icoframes.export_tables(out, status="past", snapshot=True, progress=False).path
    for day in days[1:]:
        shutil.copytree(first, out / f"snapshot_date={day}")
    return [out / f"snapshot_date={day}" for day in days]


@contextlib.contextmanager
def _staged(out: Path) -> Iterator[Path]:
    """The staging folder an export makes in ``out`` and removes when it is done."""
    scratch = out / f"{staging.STAGING_PREFIX}held"
    scratch.mkdir()
    try:
        yield scratch
    finally:
        shutil.rmtree(scratch)


@contextlib.contextmanager
def _swap_held(tree: Path, folder: Path) -> Iterator[None]:
    """An export's swap of ``folder`` held open: the tree's swap lock taken, the folder
    renamed away into the export's staging folder (the swap's first rename); put back on
    leaving (its second)."""
    with _staged(tree) as scratch, staging.swap_lock(tree):
        away = scratch / f"previous-{folder.name}"
        folder.rename(away)
        try:
            yield
        finally:
            away.rename(folder)


class _Gate:
    """A point the reader stops at, the first time, until the swap is held open."""

    def __init__(self) -> None:
        self.reached, self.opened = threading.Event(), threading.Event()

    def stop(self) -> None:
        if not self.reached.is_set():
            self.reached.set()
            assert self.opened.wait(HANG_GUARD)


def _meets_swap(monkeypatch: pytest.MonkeyPatch, read: Callable[[], Any],
                swap: contextlib.AbstractContextManager[None],
                gate: _Gate | None = None) -> tuple[bool, dict[str, Any]]:
    """``read()`` in a thread that meets ``swap`` (held open from before the read, or from
    the moment the read reaches ``gate``): whether it waited for the swap's lock while the
    swap was open, and what it returned (``value``) or raised (``error``)."""
    waiting, finished, results = threading.Event(), threading.Event(), {}
    real_flock = swaps.folder_flock

    @contextlib.contextmanager
    def flock(path: Path, **kwargs: Any) -> Iterator[bool]:  # the reader finds the lock taken
        with real_flock(path, **kwargs) as free:
            if not free:
                waiting.set()
            yield free

    def run() -> None:
        try:
            results["value"] = read()
        except Exception as exc:  # the test thread reports it
            results["error"] = exc
        finally:
            finished.set()

    monkeypatch.setattr(swaps, "folder_flock", flock)
    reader = threading.Thread(target=run)
    if gate is not None:
        reader.start()
        assert gate.reached.wait(HANG_GUARD)
    try:
        with swap:
            if gate is None:
                reader.start()
            else:
                gate.opened.set()
            assert wait_until(lambda: waiting.is_set() or finished.is_set())
            waited = waiting.is_set() and not finished.is_set()
    finally:
        if gate is not None:
            gate.opened.set()
        reader.join(HANG_GUARD)
    return waited, results


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
    folders = _tree(out)
    read, expected = READERS[reader]
    gate = None
    if when == "after_listing":
        gate, real = _Gate(), snapshots.snapshot_folders

        def listed(path: Any) -> pd.Series:
            found = real(path)
            gate.stop()
            return found

        monkeypatch.setattr(snapshots, "snapshot_folders", listed)
    waited, results = _meets_swap(monkeypatch, lambda: read(out), _swap_held(out, folders[1]),
                                  gate)
    assert "error" not in results, results
    assert waited, results
    assert results["value"] == expected


def test_a_plain_export_is_refused_in_a_tree_whose_only_day_is_mid_swap(
        cfg, tmp_path, monkeypatch):
    """check_layout saw a tree whose only day was renamed away by its swap as no tree: a plain
    export was written into it. It now looks once the swap is done, and refuses."""
    out = tmp_path / "out"
    [folder] = _tree(out, DAYS[:1])
    waited, results = _meets_swap(monkeypatch, lambda: check_layout(out, snapshot=False),
                                  _swap_held(out, folder))
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
        with _staged(out), staging.swap_lock(out):
            (out / "manifest.json").rename(tmp_path / "manifest.json")
            try:
                yield
            finally:
                (tmp_path / "manifest.json").rename(out / "manifest.json")

    waited, results = _meets_swap(monkeypatch, lambda: check_layout(out, snapshot=True),
                                  swapping())
    assert waited, results
    assert isinstance(results.get("error"), InvalidParameter), results
    assert "holds a plain export" in str(results["error"])


def test_the_days_rows_are_kept_though_its_folder_is_mid_swap(cfg, tmp_path, monkeypatch):
    """A re-run whose list came back partial keeps the day's rows from the day's snapshot;
    when another export of the day was swapping that folder (renamed away), keep_exported
    saw none and kept nothing: the day's rows replaced by fewer. It now waits for the swap."""
    out = tmp_path / "out"
    [folder] = _tree(out, DAYS[:1])
    stated = {"queries": [{"params": {"status": "past"}, "complete": False, "rows": 0}],
              "missing": [], "complete": False}
    with pytest.warns(StaleWarning, match="28 row.s. this export lacked are kept"):
        waited, results = _meets_swap(
            monkeypatch, lambda: keep_exported(folder, Tables.empty(), stated),
            _swap_held(out, folder))
    assert "error" not in results, results
    assert waited, results
    kept, said = results["value"]
    assert set(kept.icos["id"]) == set(cfg.directory.ids("past"))
    assert said["queries"][0]["kept"]["from_snapshot"] == len(kept.icos)

"""Readers hold off no export; an export waits a bounded time for another's swap (review E).

Readers of an export took the tree's swap lock shared while they looked at or listed a
folder: a child forked meanwhile kept it for its life, readers polling a tree (or one
stopped mid-listing) starved an export's swap, a swap of one day held off reads of every
other day, a plain export's reader locked its parent (/tmp, $HOME), and the lock of a tree
or a linked day was taken on the wrong folder. A healthy read now takes no lock; only
what says "failure" is looked at again under the right lock, for a few ``stat`` calls.
Each swap here is this test holding the real lock (and the renames a swap makes) until the
reader is seen waiting for it: no sleep decides anything.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from swapping import DAYS, meets_swap, snapshot_tree, staged, swap_held
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox, snapshots, staging
from icoframes.cli import EXIT_ERROR, main


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=5) as server:
        yield server


@pytest.fixture
def patience(monkeypatch):
    """A short SWAP_PATIENCE (where it lives now, and where it lived before)."""
    from icoframes import exported
    with contextlib.suppress(ImportError):
        from icoframes import swaps
        monkeypatch.setattr(swaps, "SWAP_PATIENCE", 0.3)
    monkeypatch.setattr(exported, "SWAP_PATIENCE", 0.3, raising=False)


def _free(folder: Path) -> bool:
    """Whether an export could take ``folder``'s swap lock now (exclusive, without waiting)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def test_a_child_forked_while_a_reader_looks_holds_no_lock(cfg, tmp_path, monkeypatch):
    """Finding 1: a process forked while a reader thread held the tree's lock (multiprocessing
    "fork") kept a copy of it for its whole life: an export of the tree was blocked until the
    child exited. A reader's looks hold no lock now, and a lock held when a child is forked
    is closed in the child: the export can swap while the child lives."""
    [day, _] = snapshot_tree(tmp_path / "out")
    tree = day.parent
    children: list[tuple[int, int]] = []

    def fork() -> None:  # a child that lives until the test ends it, once it runs
        r, w = os.pipe()
        ready_r, ready_w = os.pipe()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # "multi-threaded": it is fine
            pid = os.fork()
        if pid == 0:
            os.write(ready_w, b"r")
            os.read(r, 1)
            os._exit(0)
        os.close(r)
        os.close(ready_w)
        children.append((pid, w))
        assert os.read(ready_r, 1) == b"r"
        os.close(ready_r)

    from icoframes import exported
    real = exported._holds_export

    def holds(folder: Path) -> bool:  # a look of read_export: another thread forks meanwhile
        fork()
        return real(folder)

    monkeypatch.setattr(exported, "_holds_export", holds)
    try:
        icoframes.read_export(day)
        assert children
        assert _free(tree)  # before: held by the children until they exit
        from icoframes import swaps  # a lock held when forked: the child closed its copy
        with swaps.folder_flock(tree, shared=True) as held:
            assert held
            fork()
        assert _free(tree)
    finally:
        for pid, w in children:
            os.write(w, b"x")  # its end: a byte (the other children hold copies of the pipe)
            os.close(w)
            os.waitpid(pid, 0)


def test_a_reader_stopped_mid_listing_holds_off_no_swap(cfg, tmp_path, monkeypatch):
    """Finding 2: readers polling a tree held its lock while they listed it (an export's
    blocking lock was starved: never taken in 60 s with 4 readers on a 3,000-day tree), and
    one stopped there (SIGSTOP) blocked every export for as long. A reader stopped right
    after listing the tree, and while reading a table, now holds nothing."""
    [day, _] = snapshot_tree(tmp_path / "out")
    tree = day.parent
    free_when: dict[str, bool] = {}
    real_dirs, real_table = snapshots.snapshot_dirs, snapshots.read_table

    def listed(folder: Path, *args: Any) -> Any:  # the reader, stopped after its listing
        found = real_dirs(folder, *args)
        free_when.setdefault("listing", _free(tree))
        return found

    def table(*args: Any, **kwargs: Any) -> Any:
        free_when.setdefault("reading", _free(tree))
        return real_table(*args, **kwargs)

    monkeypatch.setattr(snapshots, "snapshot_dirs", listed)
    monkeypatch.setattr(snapshots, "read_table", table)
    assert len(icoframes.read_snapshots(tree)["snapshot_date"].unique()) == 2
    assert free_when == {"listing": True, "reading": True}


def test_a_swap_of_one_day_holds_off_no_read_of_another(cfg, tmp_path, patience):
    """Finding 3: read_export of a day locked its tree, so a swap of another day held it off
    (0.31 s -> 8.19 s); with that exporter stopped it failed after SWAP_PATIENCE saying
    the tree "is being replaced". It reads at once now, the swap still held."""
    other, today = snapshot_tree(tmp_path / "out")
    with swap_held(other.parent, today):
        tables = icoframes.read_export(other)
    assert len(tables.icos) == len(cfg.directory.ids("past"))


def test_a_plain_exports_reader_never_locks_its_parent(cfg, tmp_path, patience):
    """Finding 4: read_export of a plain export locked its parent (/tmp, $HOME): anyone who
    can read the parent held it off, then it failed naming the parent. A healthy read takes
    no lock; one without a manifest looks again under the export's own lock, not the
    parent's, and says what it is."""
    out = tmp_path / "shared" / "mine"
    icoframes.export_tables(out, status="past", progress=False)
    fd = os.open(out.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another user's lock on the shared parent
        assert len(icoframes.read_export(out).icos) == len(cfg.directory.ids("past"))
        (out / "manifest.json").unlink()  # an export killed mid-swap
        with pytest.raises(FileNotFoundError, match=r"missing manifest\.json") as caught:
            icoframes.read_export(out)
        assert str(out.parent) + " " not in str(caught.value)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _stopped_exporter(out: Path) -> Iterator[None]:
    """Another export stopped mid-swap: its staging folder in ``out``, the swap lock held."""
    with staged(out, "stopped"), staging.swap_lock(out):
        yield


def test_an_export_waits_a_bounded_time_for_another_exports_swap(cfg, tmp_path, patience):
    """Finding 5: an export meeting another one stopped while it holds the swap lock failed
    after 60 s with the reader's message ("nothing was read. Read it again"), or, past its
    layout check, blocked at its own swap for as long. Both now give up after SWAP_PATIENCE
    with an export's message (ExportBusy)."""
    from icoframes.errors import ExportBusy

    tree = tmp_path / "tree"
    snapshot_tree(tree, DAYS[:1])
    with _stopped_exporter(tree), pytest.raises(ExportBusy) as caught:  # at the layout check
        icoframes.export_tables(tree, status="past", snapshot=True, progress=False)
    assert "has held the swap lock of" in str(caught.value)
    assert "stopped or hung" in str(caught.value) and "Read it again" not in str(caught.value)
    plain = tmp_path / "plain"
    icoframes.export_tables(plain, status="past", progress=False)
    results: dict[str, Any] = {}

    def export() -> None:  # its layout check sees nothing amiss: it waits at its swap
        try:
            icoframes.export_tables(plain, status="past", progress=False)
        except Exception as exc:
            results["error"] = exc

    with staging.swap_lock(plain):
        exporter = threading.Thread(target=export)
        exporter.start()
        exporter.join(HANG_GUARD)  # before: blocked until the lock was released
        assert not exporter.is_alive()
    assert isinstance(results.get("error"), ExportBusy), results
    assert "has held the swap lock of" in str(results["error"])


def test_the_command_exits_1_when_another_export_holds_the_swap(
        cfg, tmp_path, monkeypatch, patience, caplog):
    """Finding 5, the command: the export-side message and exit 1 (anything else: neither
    the arguments nor the settings are wrong; run it again once the other is done)."""
    for name, value in {**cfg.settings(), "cache_dir": str(tmp_path / "cache")}.items():
        monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", str(value))
    out = tmp_path / "tree"
    snapshot_tree(out, DAYS[:1])
    with _stopped_exporter(out), caplog.at_level(logging.ERROR, "icoframes.cli"):
        code = main(["export", "--out", str(out), "--status", "past", "--snapshot"])
    assert code == EXIT_ERROR == 1
    assert "has held the swap lock of" in caplog.text


def test_a_tree_read_mid_swap_is_said_to_be_a_tree_with_every_day(cfg, tmp_path, monkeypatch):
    """Finding 6: read_export(tree) looked under a lock on the tree's parent, while the tree's
    swaps lock the tree: a one-day tree mid-swap was "not an export", a two-day one was
    said to hold one snapshot and named yesterday the latest. It now waits for the swap."""
    [only] = snapshot_tree(tmp_path / "one", DAYS[:1])
    waited, results = meets_swap(monkeypatch, lambda: icoframes.read_export(only.parent),
                                  swap_held(only.parent, only))
    assert waited, results
    assert isinstance(results.get("error"), ValueError), results
    assert "holds 1 snapshots" in str(results["error"])
    _, today = snapshot_tree(tmp_path / "two")
    monkeypatch.undo()
    waited, results = meets_swap(monkeypatch, lambda: icoframes.read_export(today.parent),
                                  swap_held(today.parent, today))
    assert waited, results
    assert isinstance(results.get("error"), ValueError), results
    assert "holds 2 snapshots" in str(results["error"])
    assert f"read_export({str(today)!r}) (the latest)" in str(results["error"])


def test_a_link_to_a_day_mid_swap_is_read_once_the_swap_is_done(cfg, tmp_path, monkeypatch):
    """Finding 7: read_export of a symbolic link to a day's folder locked the link's folder,
    not the tree: mid-swap it said "no export folder". It waits for the tree's swap now."""
    [day] = snapshot_tree(tmp_path / "tree", DAYS[:1])
    latest = tmp_path / "latest"
    latest.symlink_to(day, target_is_directory=True)
    waited, results = meets_swap(monkeypatch, lambda: icoframes.read_export(latest),
                                  swap_held(day.parent, day))
    assert waited, results
    assert "error" not in results, results
    assert len(results["value"].icos) == len(cfg.directory.ids("past"))


def test_a_day_removed_meanwhile_is_not_blamed_on_a_killed_export(cfg, tmp_path, monkeypatch):
    """Finding 8: a day removed by hand (rm -rf of a pruned snapshot) or the tree renamed while
    read_snapshots read it was blamed on "an export killed while swapping"; the message now
    says it was removed or renamed meanwhile (an export killed so is still said too)."""
    old, _ = snapshot_tree(tmp_path / "tree")
    real = snapshots.snapshot_folders

    def listed_then_pruned(path: Any) -> pd.Series:
        found = real(path)
        shutil.rmtree(old)
        return found

    monkeypatch.setattr(snapshots, "snapshot_folders", listed_then_pruned)
    with pytest.raises(FileNotFoundError, match="removed or renamed meanwhile"):
        snapshots.read_snapshots(old.parent)


NAMES = ["read_snapshots", "snapshot_info", "snapshot_folders", "Gaps", "gaps_by_date",
         "DATE_DTYPE"]


@pytest.mark.parametrize("name", NAMES)
def test_the_tree_readers_are_still_found_in_exported(name):
    """Finding 9: the tree's readers left icoframes.exported (five were in its __all__) without
    a word: ``from icoframes.exported import read_snapshots`` was an ImportError. They are
    found there still, with a DeprecationWarning naming their new place."""
    from icoframes import exported  # what "from icoframes.exported import name" reads

    with pytest.warns(DeprecationWarning, match=rf"icoframes\.snapshots\.{name}\b"):
        found = getattr(exported, name)
    assert found is getattr(snapshots, name)

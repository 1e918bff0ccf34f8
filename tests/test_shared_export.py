"""Exports and readers safe to share: a reader never mixes two exports, and an export never
follows or deletes what it did not make (issue 19 part 6)."""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from pathlib import Path

import pytest
import time_machine
from waiting import HANG_GUARD, wait_until

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_USAGE, main
from icoframes.errors import ExportReplaced
from icoframes.schema import TABLES


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=120, seed=23) as server:
        yield server


def _tree(folder: Path) -> list[tuple[str, bytes]]:
    """Every file under ``folder`` with its content, links not followed."""
    return sorted((str(p.relative_to(folder)), p.read_bytes() if p.is_file() else b"")
                  for p in folder.rglob("*"))


@pytest.mark.parametrize("snapshot", [False, True], ids=["plain", "snapshot"])
def test_a_reader_racing_exports_never_sees_a_mix(cfg, tmp_path, snapshot, monkeypatch):
    """Exports of two different queries replace one folder over and over while a reader
    reads it: every read is one export whole (its tables agree with each other and with
    the manifest read with them), or says the folder is being replaced."""
    # a snapshot of another query is refused (icoframes.dayfolder): allowed
    # here, where two queries' exports tell apart in every table
    monkeypatch.setattr(icoframes.export, "check_tree", lambda *a, **k: None)
    statuses = ("past", "ongoing")
    ids = {s: set(cfg.directory.ids(s)) for s in statuses}
    out = tmp_path / "out"
    for status in statuses:  # fill the cache: the racing exports spend no request
        icoframes.export_tables(out, status=status, snapshot=snapshot, progress=False)
    folder = next(out.glob("snapshot_date=*")) if snapshot else out
    rounds, done, failures = 12, threading.Event(), []

    def write() -> None:
        try:
            for i in range(rounds):
                icoframes.export_tables(out, status=statuses[i % 2], snapshot=snapshot,
                                        progress=False)
        except BaseException as exc:  # the test thread reports it
            failures.append(exc)
        finally:
            done.set()

    writer = threading.Thread(target=write)
    reads, replaced = 0, 0
    writer.start()
    try:
        while not done.is_set() or reads < 3:
            try:
                tables = icoframes.read_export(folder)
            except ExportReplaced:
                replaced += 1
                continue
            reads += 1
            manifest = tables.icos.attrs["icoframes"]["manifest"]
            held = set(tables.icos["id"])
            assert held == ids[manifest["arguments"]["status"]]
            assert manifest["rows"] == {name: len(tables[name]) for name in TABLES}
            for name in TABLES:
                if name != "icos":
                    assert set(tables[name]["ico_id"]) <= held, name
    finally:
        writer.join()
    assert not failures
    assert reads >= 3



def test_a_reader_meeting_a_slow_swap_waits_for_it_and_reads_the_new_export(
        cfg, tmp_path, monkeypatch):
    """A plain export's swap has no manifest in ``out`` until its renames reach the disk: a
    reader meeting that waits for the swap to end (its lock), however long a loaded disk
    takes, and reads the new export. Before, it gave up after ~1 s of retries with
    FileNotFoundError ("an export is writing it right now"). The swap is held open here
    until the reader waits for its lock."""
    from icoframes import staging, swaps

    out = tmp_path / "out"
    icoframes.export_tables(out, status="past", progress=False)
    swapping, go, results = threading.Event(), threading.Event(), {}
    real_fsync, real_flock = staging._fsync_folder, swaps.folder_flock

    def slow_fsync(folder):  # the first fsync of a swap: tables renamed, no manifest yet
        if not swapping.is_set():
            swapping.set()
            assert go.wait(HANG_GUARD)
        real_fsync(folder)

    @contextlib.contextmanager
    def flock(folder, **kwargs):  # the reader finds the swap's lock taken: let the swap go on
        with real_flock(folder, **kwargs) as free:
            if not free:
                go.set()
            yield free

    monkeypatch.setattr(staging, "_fsync_folder", slow_fsync)
    monkeypatch.setattr(swaps, "folder_flock", flock)
    writer = threading.Thread(target=lambda: results.update(written=icoframes.export_tables(
        out, status="ongoing", progress=False)))
    writer.start()
    try:
        assert swapping.wait(HANG_GUARD)
        assert not (out / "manifest.json").exists()
        tables = icoframes.read_export(out)
    finally:
        go.set()
        writer.join(HANG_GUARD)
    assert tables.icos.attrs["icoframes"]["manifest"]["arguments"]["status"] == "ongoing"
    assert set(tables.icos["id"]) == set(cfg.directory.ids("ongoing"))
    assert results["written"].complete

def test_a_reader_meeting_a_snapshot_swapped_away_waits_for_the_swap(cfg, tmp_path, monkeypatch):
    """A snapshot export renames the day's folder away, then the new one in, holding the swap
    lock on the tree. A reader arriving between the two renames found no folder and said
    "no export folder" (seen once in a full run of the racing-readers test); it now waits for
    the swap and reads the new folder. The swap is this test holding the real lock."""
    from icoframes import staging, swaps

    out = tmp_path / "out"
    icoframes.export_tables(out, status="past", snapshot=True, progress=False)
    folder = next(out.glob("snapshot_date=*"))
    away = tmp_path / "away"
    waiting, finished, results = threading.Event(), threading.Event(), {}
    real_flock = swaps.folder_flock

    @contextlib.contextmanager
    def flock(path, **kwargs):  # the reader finds the swap's lock taken
        with real_flock(path, **kwargs) as free:
            if not free:
                waiting.set()
            yield free

    monkeypatch.setattr(swaps, "folder_flock", flock)

    def read() -> None:
        try:
            results["tables"] = icoframes.read_export(folder)
        except Exception as exc:  # the test thread reports it
            results["error"] = exc
        finally:
            finished.set()

    with staging.swap_lock(out):
        folder.rename(away)  # the first rename of a swap
        reader = threading.Thread(target=read)
        reader.start()
        try:
            assert wait_until(lambda: waiting.is_set() or finished.is_set())
            assert waiting.is_set(), results  # it waits, not gives up
        finally:
            away.rename(folder)  # the second
    reader.join(HANG_GUARD)
    assert "error" not in results, results
    assert set(results["tables"].icos["id"]) == set(cfg.directory.ids("past"))


def test_a_snapshot_swap_starting_between_a_readers_first_looks_is_waited_for(
        cfg, tmp_path, monkeypatch):
    """read_export looks at a folder before reading it (is it a folder, a snapshot tree, an
    export?). A snapshot swap starting between two of those looks renamed the folder away
    under the reader, which then said "is not an export of icoframes: missing manifest.json,
    ..." (CI, once, in the racing-readers test). The looks take no lock (a reader holds off
    no export); a folder gone when read is confirmed under the tree's lock: the reader waits
    for the swap and reads the new folder. Here the swap is this test, holding the real lock
    with the folder renamed away from the middle of the looks until the reader waits."""
    from icoframes import exported, staging, swaps

    out = tmp_path / "out"
    icoframes.export_tables(out, status="past", snapshot=True, progress=False)
    folder = next(out.glob("snapshot_date=*"))
    away = tmp_path / "away"
    started, waiting, done = threading.Event(), threading.Event(), threading.Event()
    real_snapshot_dirs, real_flock = exported.snapshot_dirs, swaps.folder_flock

    def swap() -> None:
        with staging.swap_lock(out):
            folder.rename(away)  # the swap's first rename
            started.set()
            assert waiting.wait(HANG_GUARD)
            away.rename(folder)  # its second, once the reader waits for it
        done.set()

    def snapshot_dirs(path, names=None):  # the reader's look after "an export?"
        found = real_snapshot_dirs(path, names)
        if not started.is_set():
            threading.Thread(target=swap).start()
            assert started.wait(HANG_GUARD)
        return found

    @contextlib.contextmanager
    def flock(path, **kwargs):
        with real_flock(path, **kwargs) as free:
            if not free:
                waiting.set()
            yield free

    monkeypatch.setattr(exported, "snapshot_dirs", snapshot_dirs)
    monkeypatch.setattr(swaps, "folder_flock", flock)
    try:
        tables = icoframes.read_export(folder)
    finally:
        waiting.set()
        assert done.wait(HANG_GUARD)
    assert set(tables.icos["id"]) == set(cfg.directory.ids("past"))


def test_a_reader_never_waits_longer_than_its_patience_for_a_stopped_swap(
        cfg, tmp_path, monkeypatch):
    """An exporter stopped (SIGSTOP, a debugger) while it swaps its files in holds the swap's
    lock for as long as it is stopped: a reader waits SWAP_PATIENCE for it, then says so
    (ExportReplaced) instead of blocking with it. Before, the wait had no end. The stopped
    exporter is this test holding the real lock, with the manifest gone as mid-swap."""
    from icoframes import staging, swaps

    out = tmp_path / "out"
    icoframes.export_tables(out, status="past", progress=False)
    (out / "manifest.json").unlink()  # mid-swap: the tables renamed in, no manifest yet
    monkeypatch.setattr(swaps, "SWAP_PATIENCE", 0.2)
    with staging.swap_lock(out), pytest.raises(ExportReplaced) as caught:
        icoframes.read_export(out)
    message = str(caught.value)
    assert "has held its swap lock for over 0.2 s" in message
    assert "stopped or hung" in message and str(out) in message
    with pytest.raises(FileNotFoundError, match=r"missing manifest\.json"):
        icoframes.read_export(out)  # the lock released: a folder without its manifest


def test_a_planted_staging_link_is_never_followed_nor_anything_outside_removed(
        cfg, tmp_path, caplog):
    victim = tmp_path / "victim"  # another user's folders, as the old staging held its own
    for name in ("a", "b"):
        (victim / name / "data").mkdir(parents=True)
        (victim / name / "data" / "thesis.txt").write_text(f"years of work {name}")
        (victim / f"{name}.lock").write_text("")
    before = _tree(victim)
    out = tmp_path / "out"
    out.mkdir()
    (out / ".icoframes-staging").symlink_to(victim, target_is_directory=True)
    (out / ".icoframes-staging-planted").symlink_to(victim, target_is_directory=True)
    trap = out / ".icoframes-staging-trap"  # a real folder, with the lock file, and a link
    trap.mkdir()
    (trap / "running.lock").write_text("")
    (trap / "export").symlink_to(victim, target_is_directory=True)
    day = dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC)
    with time_machine.travel(day, tick=True):
        assert main(["export", "--out", str(out), "--status", "ongoing", "--snapshot"]) == 0
    assert _tree(victim) == before
    assert (out / ".icoframes-staging").is_symlink()
    assert (out / ".icoframes-staging-planted").is_symlink()
    snapshot = out / "snapshot_date=2026-11-20"
    assert (snapshot / "icos.parquet").is_file()
    # a day's folder planted as a link is refused: nothing moved, nothing removed
    snapshot.rename(tmp_path / "kept")
    snapshot.symlink_to(victim, target_is_directory=True)
    with time_machine.travel(day + dt.timedelta(hours=1), tick=True):
        code = main(["export", "--out", str(out), "--status", "ongoing", "--snapshot"])
    assert code == EXIT_USAGE
    assert "is not a folder (a symbolic link or a file)" in caplog.text
    assert snapshot.is_symlink() and _tree(victim) == before
    # and no staging of these exports is left behind, nor a lock file
    assert sorted(p.name for p in out.iterdir()) == [
        ".icoframes-staging", ".icoframes-staging-planted", "snapshot_date=2026-11-20"]


def test_staging_names_are_unpredictable_and_private(cfg, tmp_path, monkeypatch):
    import tempfile

    made, modes = [], []
    real = tempfile.mkdtemp

    def spy(*args, **kwargs):
        path = Path(real(*args, **kwargs))
        if path.parent == tmp_path / "out":  # (the cache makes its new folders so too)
            made.append(path)
            modes.append(path.stat().st_mode & 0o777)
        return str(path)

    monkeypatch.setattr(tempfile, "mkdtemp", spy)
    for _ in range(2):
        icoframes.export_tables(tmp_path / "out", status="ongoing", progress=False)
    assert len(made) == 2 and made[0].name != made[1].name
    assert all(p.parent == tmp_path / "out" and p.name.startswith(".icoframes-staging-")
               for p in made)
    assert modes == [0o700, 0o700]  # only the user running the export can enter it
    assert not any(p.exists() for p in made)

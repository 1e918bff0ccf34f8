"""What an export checks of its folder holds when it swaps; a tree's reader misses no day.

Each race here is real: an export or a reader run in a thread, stopped at a point of its
own (a :class:`~swapping.Gate`) while the test runs another export or holds a swap open
(the tree's real swap lock taken, a day's folder renamed away), then let go. No sleep.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from swapping import DAYS, Gate, meets_swap, snapshot_tree, swap_held
from waiting import HANG_GUARD, wait_until

import icoframes
from icoframes import exported, sandbox, snapshots, staging
from icoframes.errors import ExportBusy, InvalidParameter

export_module = importlib.import_module("icoframes.export")


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=5) as server:
        yield server


def _stopped_at(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, gate: Gate,
                thread: Callable[[], threading.Thread | None]) -> None:
    """``module.name`` stops at ``gate`` when ``thread()`` calls it, then does its work."""
    real = getattr(module, name)

    def stopped(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is thread():
            gate.stop()
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, stopped)


@pytest.mark.parametrize("late_snapshot", [True, False], ids=["snapshot_late", "plain_late"])
def test_two_exports_of_either_layout_into_one_empty_folder_mix_none(
        cfg, tmp_path, monkeypatch, late_snapshot):
    """Item 1: two exports of the two layouts started into one empty ``out`` both passed the
    layout check (nothing there yet); the later swap wrote its layout beside the other's (a
    snapshot folder beside a plain export: read_export refused ``out``; a plain export into
    a tree). The layout is checked again under the swap lock: the later export is refused,
    saying nothing was written, and the first export is read as it was."""
    out = tmp_path / "out"
    gate, results = Gate(), {}

    def run() -> None:
        try:
            results["value"] = icoframes.export_tables(out, status="past",
                                                       snapshot=late_snapshot, progress=False)
        except Exception as exc:  # the test thread reports it
            results["error"] = exc

    late = threading.Thread(target=run)
    # past its layout check and its load, before its swap
    _stopped_at(monkeypatch, export_module, "keep_exported", gate, lambda: late)
    late.start()
    try:
        assert gate.reached.wait(HANG_GUARD)
        first = icoframes.export_tables(out, status="past", snapshot=not late_snapshot,
                                        progress=False)
    finally:
        gate.opened.set()
        late.join(HANG_GUARD)
    error = results.get("error")
    assert isinstance(error, InvalidParameter), results
    assert "Nothing was written (what was fetched is cached)" in str(error)
    days = sorted(p.name for p in out.glob("snapshot_date=*"))
    if late_snapshot:  # the plain export stays one export
        assert days == [] and (out / "manifest.json").is_file()
        assert len(icoframes.read_export(out).icos) == len(cfg.directory.ids("past"))
    else:  # the tree stays a tree
        assert days == [first.path.name] and not (out / "manifest.json").exists()
        assert len(icoframes.read_snapshots(out)) == len(cfg.directory.ids("past"))


def test_a_trees_check_waits_for_a_swap_under_way(cfg, tmp_path, monkeypatch):
    """Item 2: the tree check before any request looked at a tree mid-swap without waiting:
    a tree whose only day (of another query) was renamed away by its swap read as empty, the
    export of another query spent its requests and was refused only at its own swap. It
    now looks once the swap is done, and refuses before any request."""
    out = tmp_path / "out"
    [folder] = snapshot_tree(out, DAYS[:1])  # status past
    cfg.stats.reset()
    gate = Gate()
    exporting: dict[str, threading.Thread] = {}

    def export() -> Any:
        exporting["thread"] = threading.current_thread()
        return icoframes.export_tables(out, status="ongoing", snapshot=True, progress=False)

    # past its layout check (which waits for a swap it sees), before its tree check
    _stopped_at(monkeypatch, export_module, "given_queries", gate,
                lambda: exporting.get("thread"))
    waited, results = meets_swap(monkeypatch, export, swap_held(out, folder), gate)
    assert waited, results
    error = results.get("error")
    assert isinstance(error, InvalidParameter), results
    assert "snapshot tree of another query: status=past" in str(error)
    assert "Nothing was sent" in str(error)
    assert sum(cfg.stats.requests.values()) == 0


def test_a_day_swapped_between_the_listing_and_its_look_is_not_left_out(
        cfg, tmp_path, monkeypatch):
    """Item 3: a tree's reader lists its names, then keeps each ``snapshot_date=`` name that
    is a folder; a day renamed away by a swap begun between the two was left out without a
    word (read_snapshots returned a tree without that day: changes() would see its ICOs
    removed, then new). The reader now waits for that swap and reads every day."""
    out = tmp_path / "out"
    folders = snapshot_tree(out)
    waited, results = _days_read_meeting_swap(monkeypatch, out, out, folders[1])
    assert "error" not in results, results
    assert results["value"] == list(DAYS)
    assert waited, results


def _days_read_meeting_swap(monkeypatch: pytest.MonkeyPatch, tree: Path, out: Path,
                            day: Path) -> tuple[bool, dict[str, Any]]:
    """The days ``read_snapshots(tree)`` reads when ``out``'s swap of ``day`` is held open
    between its listing and its look (:func:`~swapping.meets_swap`)."""
    gate = Gate()
    reading: dict[str, threading.Thread] = {}

    def read() -> Any:
        reading["thread"] = threading.current_thread()
        frame = snapshots.read_snapshots(tree)
        return sorted(pd.DatetimeIndex(frame["snapshot_date"].unique()).strftime("%Y-%m-%d"))

    _after_listing(monkeypatch, gate, lambda: reading.get("thread"))
    return meets_swap(monkeypatch, read, swap_held(out, day), gate)


def _after_listing(monkeypatch: pytest.MonkeyPatch, gate: Gate,
                   thread: Callable[[], threading.Thread | None]) -> None:
    """The reader's listing of a tree (:func:`icoframes.exported.looked`) stops at ``gate``
    once it has the names, before it looks at them."""
    real = exported.looked

    def listed(folder: Path, *args: Any, **kwargs: Any) -> Any:
        found = real(folder, *args, **kwargs)
        if threading.current_thread() is thread():
            gate.stop()
        return found

    monkeypatch.setattr(exported, "looked", listed)


def _tmpfs() -> Path | None:
    """A tmpfs folder (``/dev/shm``): a tmpfs listing (Linux 6.x) does not return a day
    renamed out and back in while it lists, as POSIX allows; ext4 returns it once."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mounts").read_text().splitlines():
            _, mounted, kind, *_ = line.split()
            if mounted == "/dev/shm" and kind == "tmpfs" and os.access(mounted, os.W_OK):
                return Path(mounted)
    return None


def test_a_day_an_export_swaps_within_one_listing_of_the_tree_is_not_missed(monkeypatch):
    """Item 3: an export whose staging folder is made, its day swapped and its staging folder
    removed while a reader lists the tree (one ``listdir``): the listing showed no staging
    folder, and on tmpfs not the day either (POSIX leaves an entry added or removed during a
    listing unspecified): snapshot_folders, read_snapshots and changes went on without that
    day. A listing during which the tree changed is made again while no swap is in."""
    shm = _tmpfs()
    if shm is None:
        pytest.skip("no tmpfs at /dev/shm: where a listing returns a swapped day, no day is lost")
    root = Path(tempfile.mkdtemp(dir=shm, prefix="icoframes-test-"))
    try:
        out = root / "out"
        days = [dt.date(2018, 1, 1) + dt.timedelta(days=i) for i in range(2_000)]
        for day in days:
            (out / f"snapshot_date={day.isoformat()}").mkdir(parents=True)
        order = os.listdir(out)  # the listing's order: the day swapped is one not yet listed
        swapped = out / order[-10]
        gate, reading, results = Gate(), {}, {}
        real = os.listdir

        def listdir(path: Any) -> list[str]:  # listdir's readdir, stopped a third of the way
            if threading.current_thread() is not reading.get("thread"):
                return real(path)
            names = []
            with os.scandir(path) as entries:
                for entry in entries:
                    names.append(entry.name)
                    if len(names) == len(order) // 3:
                        gate.stop()
            return names

        def read() -> None:
            reading["thread"] = threading.current_thread()
            try:
                results["value"] = snapshots.snapshot_folders(out)
            except Exception as exc:  # the test thread reports it
                results["error"] = exc

        monkeypatch.setattr(os, "listdir", listdir)
        reader = threading.Thread(target=read)
        reader.start()
        try:
            assert gate.reached.wait(HANG_GUARD)
            with staging.Staging(out) as export:  # an export made and swapped meanwhile
                (export.data / "manifest.json").write_text("{}")
                with staging.swap_lock(out):
                    staging.swap_folder(export.data, swapped, export.scratch)
        finally:
            gate.opened.set()
            reader.join(HANG_GUARD)
        assert "error" not in results, results
        assert len(results["value"]) == len(days)
        assert (swapped / "manifest.json").is_file()
    finally:
        shutil.rmtree(root)


@pytest.mark.filterwarnings("ignore::icoframes.errors.QuotaWarning",
                            "ignore::icoframes.errors.IncompleteWarning")
def test_an_incomplete_export_replaces_no_day_swapped_in_while_it_ran(cfg, tmp_path, monkeypatch):
    """Two exports of one day and query, each with its own cache dir (two cron hosts, or a
    cache cleared): the first, stopped by its daily quota with no profile, looked for the
    day's rows to keep before the second swapped a complete day in; it then swapped over
    it, and the day held 0 ICOs where it had held every one. The day is looked at again
    under the swap lock: the incomplete export writes nothing, and says why."""
    out = tmp_path / "out"
    gate, results = Gate(), {}

    def run() -> None:
        try:
            results["value"] = icoframes.export_tables(out, status="past", snapshot=True,
                                                       progress=False, cache_dir=tmp_path / "a")
        except Exception as exc:  # the test thread reports it
            results["error"] = exc

    late = threading.Thread(target=run)
    # past its load and the look for the day's rows to keep, before its swap
    _stopped_at(monkeypatch, export_module, "not_refreshed", gate, lambda: late)
    icoframes.configure(**cfg.settings(), cache_dir=tmp_path / "a", daily_quota=2)
    late.start()
    try:
        assert wait_until(lambda: gate.reached.is_set() or not late.is_alive()), results
        assert gate.reached.is_set(), results
        icoframes.reset_configuration()  # the daily quota of 2 too
        icoframes.configure(**cfg.settings(), cache_dir=tmp_path / "b")
        complete = icoframes.export_tables(out, status="past", snapshot=True, progress=False)
    finally:
        gate.opened.set()
        late.join(HANG_GUARD)
    assert complete.complete
    error = results.get("error")
    assert isinstance(error, ExportBusy), results
    assert "Nothing was written (what was fetched is cached)" in str(error)
    assert len(icoframes.read_export(complete.path).icos) == len(cfg.directory.ids("past"))


def test_a_linked_day_swapped_in_its_own_tree_is_waited_for(cfg, tmp_path, monkeypatch):
    """A tree whose days are symbolic links to another tree's days: a day renamed away by
    its own tree's swap, between the reader's listing and its look, was looked at under the
    reading tree's lock, not waited for, and left out without a word. The reader waits on
    the lock of the tree the day is in, and reads every day."""
    folders = snapshot_tree(tmp_path / "a")
    linked = tmp_path / "b"
    linked.mkdir()
    for folder in folders:
        (linked / folder.name).symlink_to(folder, target_is_directory=True)
    waited, results = _days_read_meeting_swap(monkeypatch, linked, tmp_path / "a", folders[1])
    assert "error" not in results, results
    assert results["value"] == list(DAYS)
    assert waited, results


def test_a_plain_export_into_a_tree_set_aside_by_a_killed_export_sends_nothing(cfg, tmp_path):
    """A tree whose only day a killed export had renamed away (between its swap's two
    renames): a plain export into it passed the layout check before any request, Staging
    then put the day back, and the export was refused only at its swap, its requests
    spent. The layout is checked again once the day is back: refused with no request."""
    out = tmp_path / "out"
    [day] = snapshot_tree(out, DAYS[:1])
    killed = out / f"{staging.STAGING_PREFIX}killed"
    killed.mkdir()
    (killed / "running.lock").touch()  # its lock file, no longer held
    day.rename(killed / f"previous-{day.name}")
    icoframes.configure(**cfg.settings(), cache_dir=tmp_path / "other")
    cfg.stats.reset()
    with pytest.raises(InvalidParameter, match="snapshot"):
        icoframes.export_tables(out, status="past", progress=False)
    assert sum(cfg.stats.requests.values()) == 0
    assert day.is_dir() and not (out / "manifest.json").exists()

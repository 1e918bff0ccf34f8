"""A reader (or an export) run in a thread that meets an export's swap held open.

What tests/test_swap_locks.py, test_swap_readers.py and test_swap_races.py share: a snapshot
tree, an export's swap held open by the test (the tree's real swap lock taken, the day's
folder renamed away into a staging folder), and a thread that meets it. The swap is held
until the thread is seen finding the lock taken (or is done): no sleep decides anything.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import time_machine
from waiting import HANG_GUARD, wait_until

import icoframes
from icoframes import staging, swaps

DAYS = ("2026-11-20", "2026-11-21")


def snapshot_tree(out: Path, days: tuple[str, ...] = DAYS, status: str = "past") -> list[Path]:
    """A snapshot tree of ``days`` (the first exported, the others its copies)."""
    with time_machine.travel(dt.datetime.fromisoformat(f"{days[0]}T12:00:00+00:00"), tick=True):
        first = icoframes.export_tables(out, status=status, snapshot=True, progress=False).path
    for day in days[1:]:
        shutil.copytree(first, out / f"snapshot_date={day}")
    return [out / f"snapshot_date={day}" for day in days]


@contextlib.contextmanager
def staged(out: Path, name: str = "held") -> Iterator[Path]:
    """The staging folder an export makes in ``out`` and removes when it is done."""
    scratch = out / f"{staging.STAGING_PREFIX}{name}"
    scratch.mkdir(parents=True)
    try:
        yield scratch
    finally:
        shutil.rmtree(scratch)


@contextlib.contextmanager
def swap_held(out: Path, folder: Path) -> Iterator[None]:
    """An export's swap of ``folder`` held open: the tree's swap lock taken, the folder
    renamed away into the export's staging folder (the swap's first rename); put back on
    leaving (its second)."""
    with staged(out) as scratch, staging.swap_lock(out):
        away = scratch / f"previous-{folder.name}"
        folder.rename(away)
        try:
            yield
        finally:
            away.rename(folder)


class Gate:
    """A point the thread stops at, the first time, until the swap is held open."""

    def __init__(self) -> None:
        self.reached, self.opened = threading.Event(), threading.Event()

    def stop(self) -> None:
        if not self.reached.is_set():
            self.reached.set()
            assert self.opened.wait(HANG_GUARD)


def meets_swap(monkeypatch: pytest.MonkeyPatch, read: Callable[[], Any],
               swap: contextlib.AbstractContextManager[Any],
               gate: Gate | None = None) -> tuple[bool, dict[str, Any]]:
    """``read()`` in a thread that meets ``swap`` (held open from before the read, or from
    the moment the read reaches ``gate``): whether it waited for the swap's lock while the
    swap was open, and what it returned (``value``) or raised (``error``)."""
    waiting, finished, results = threading.Event(), threading.Event(), {}
    real_flock = swaps.folder_flock

    @contextlib.contextmanager
    def flock(path: Path, **kwargs: Any) -> Iterator[bool]:  # the reader finds the lock taken
        with real_flock(path, **kwargs) as free:
            if not free and threading.current_thread() is reader:
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

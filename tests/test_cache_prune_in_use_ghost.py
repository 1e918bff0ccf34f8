"""A live load's folder removed under it (by a prune it began during, or by a clear) is made
again held, so a second prune leaves it alone; a Ctrl-C as a hold begins leaves none; a
use mark the user cannot write holds all the same.

The load is real (the sandbox); its filter set is fetched and written while it runs. A spy
that wraps the prune's pass over the folder's files starts the load at that moment (in a
thread, stopped at its request until the prune is over), or the load clears the cache at
its request. A spy that wraps the load's write of the filter set then ages every file of
the folder and prunes it, while the load is still running: it must remove nothing. No
sleep, no clock: the steps are ordered by events and by the spies.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_housekeeping import _read_only
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.cachedir import housekeeping
from icoframes.fetch.load import Load

pytestmark = pytest.mark.skipif(sys.platform == "win32",
                                reason="no flock: a folder's age alone counts")

_OLD = (dt.datetime(2020, 1, 1, tzinfo=dt.UTC).timestamp(),) * 2
_DAY = dt.timedelta(days=1)


@pytest.fixture(scope="module")
def sb() -> Iterator[sandbox.Sandbox]:
    with sandbox.serve(n_icos=5, seed=2) as server:
        yield server


@pytest.fixture
def load(sb, tmp_path) -> Iterator[Load]:
    """A load of a warm cache (one load ended), the sandbox configured."""
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
    try:
        icoframes.load_icos(progress=False)
        yield Load(progress=False)
    finally:
        icoframes.reset_configuration()


def _age(folder: Path) -> None:
    """Every file of ``folder`` unused for years (a load waits on the network for longer
    than a short ``older_than`` without writing)."""
    for path in [*folder.rglob("*"), folder]:
        os.utime(path, _OLD, follow_symlinks=False)


def _unheld(folder: Path) -> contextlib.AbstractContextManager[bool]:
    """Whether no load holds ``folder`` (imported here: main's code has no hold, and its
    failures of the tests above are then the folder removed, not this import)."""
    from icoframes.store.folders import unheld
    return unheld(folder)


def _pruned_once_written(load: Load, monkeypatch) -> list[list[str]]:
    """The removals of a prune run (every file aged first) just after ``load`` writes its
    filter set, while it runs."""
    removed: list[list[str]] = []
    write = load.cache.write_filters

    def written_then_pruned(*args: Any, **kwargs: Any) -> Any:
        done = write(*args, **kwargs)
        _age(load.cache.dir)
        removed.append(icoframes.prune_cache(_DAY).removed)
        return done

    monkeypatch.setattr(load.cache, "write_filters", written_then_pruned)
    return removed


def test_a_load_beginning_while_a_prune_removes_its_folder_holds_the_folder_it_makes(
        load, monkeypatch):
    folder, at_request, go = load.cache.dir, threading.Event(), threading.Event()
    pruned = _pruned_once_written(load, monkeypatch)
    fetch, outcome = load.service.fetch_filters, []

    def stopped_at_the_request(keep: Any) -> Any:
        at_request.set()
        assert go.wait(HANG_GUARD)
        return fetch(keep)

    monkeypatch.setattr(load.service, "fetch_filters", stopped_at_the_request)

    def run() -> None:
        try:
            outcome.append(load.filters(refresh=True, max_age=None))
        except BaseException as exc:  # (said in the main thread)
            outcome.append(exc)

    thread, began = threading.Thread(target=run, daemon=True), []
    clear = housekeeping._clear_entries

    def cleared_then_a_load_begins(at: Path, report: Any) -> Any:
        kept = clear(at, report)  # the mark removed first: the folder's files go next
        if at == folder and not began:
            began.append(1)
            thread.start()
            assert at_request.wait(HANG_GUARD)  # its hold began: the folder still there
        return kept

    _age(folder)
    monkeypatch.setattr(housekeeping, "_clear_entries", cleared_then_a_load_begins)
    try:
        assert icoframes.prune_cache(_DAY).removed == [str(folder)]  # unused for years
    finally:
        monkeypatch.setattr(housekeeping, "_clear_entries", clear)
        go.set()
        thread.join(HANG_GUARD)
    assert len(outcome) == 1 and not isinstance(outcome[0], BaseException), outcome
    assert pruned == [[]]  # the folder the load made again: held, left alone
    assert (folder / "cache.sqlite3").is_file()
    _age(folder)
    assert icoframes.prune_cache(_DAY).removed == [str(folder)]  # let go at its end


def test_a_load_whose_folder_a_clear_removes_holds_the_folder_it_makes_again(
        load, monkeypatch):
    folder = load.cache.dir
    pruned = _pruned_once_written(load, monkeypatch)
    fetch = load.service.fetch_filters
    cleared: list[list[str]] = []

    def cleared_at_the_request(keep: Any) -> Any:
        cleared.append(icoframes.clear_cache().removed)  # a clear leaves no hold alone
        return fetch(keep)

    monkeypatch.setattr(load.service, "fetch_filters", cleared_at_the_request)
    load.filters(refresh=True, max_age=None)
    assert cleared == [[str(folder)]]
    assert pruned == [[]]  # made again by the load, held: left alone
    _age(folder)
    assert icoframes.prune_cache(_DAY).removed == [str(folder)]  # let go at its end


def test_a_ctrl_c_as_a_hold_begins_leaves_no_hold(load):
    in_use = load.cache.in_use

    class InterruptedOnExit:
        """The hold's lock, as a Ctrl-C lands when it is let go (Python runs a signal's
        handler there, after the hold was counted)."""

        def __init__(self) -> None:
            self.lock, self.armed = threading.Lock(), True

        def __enter__(self) -> None:
            self.lock.acquire()

        def __exit__(self, kind: object, *rest: object) -> None:
            self.lock.release()
            if self.armed and kind is None:
                self.armed = False
                raise KeyboardInterrupt

        def acquire(self, blocking: bool = True) -> bool:
            return self.lock.acquire(blocking)

        def release(self) -> None:
            self.lock.release()

    in_use._lock = InterruptedOnExit()  # type: ignore[assignment]
    with pytest.raises(KeyboardInterrupt):
        load.filters(refresh=False, max_age=None)
    assert in_use.holds == 0
    assert in_use._fds == []
    with _unheld(load.cache.dir) as free:
        assert free


def test_a_use_mark_that_cannot_be_written_holds_the_folder(load):
    folder = load.cache.dir
    mark = folder / ".last_used"
    with _read_only(mark):  # (as root: a read-only bind mount of the mark alone)
        with pytest.raises(OSError):
            os.close(os.open(mark, os.O_WRONLY))
        seen: list[bool] = []
        filters = load.cache.write_filters

        def written_then_looked_at(*args: Any, **kwargs: Any) -> Any:
            done = filters(*args, **kwargs)
            with _unheld(folder) as free:
                seen.append(free)
            return done

        with contextlib.ExitStack() as undo:
            undo.callback(setattr, load.cache, "write_filters", filters)
            load.cache.write_filters = written_then_looked_at  # type: ignore[method-assign]
            load.filters(refresh=True, max_age=None)
        assert seen == [False]  # held while the load ran
        with _unheld(folder) as free:
            assert free  # let go

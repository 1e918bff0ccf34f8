"""Who a wait on the folder's lock names, and what it does, by the holder's state.

A holder at work (running, not stopped: a rebuild of a large cache may outlast the
lease) is waited for, a lease at a time, and the load then reads the kept tables as
usual: no answer tidied in memory (many times the cost of the read, for every waiting
load) and no advice to end a healthy process. A lock the listing names as taken by this
very process (a child forked while it was held keeps it after this one let go) is not
blamed on this process. A holder looked up after a try found the lock held may have
let go meanwhile, or be left out of one read of the listing (read a page at a time while
others lock and unlock): the lock is tried and looked up again, not said held by a
process not known. The holders are real processes; the load runs against the sandbox
over loopback, the lease set to nothing so that each wait ends at once.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pandas as pd
import pytest
from waiting import HANG_GUARD, wait_until

import icoframes
from icoframes import holders, sandbox
from icoframes.config import get_settings
from icoframes.errors import CacheWarning
from icoframes.files import locked
from icoframes.holders import LockHeld
from icoframes.store.cache import Cache

#: Holds the lock until told (a line on its stdin: its work is done), then ends.
HOLD_UNTIL_TOLD = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()
"""


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=30, seed=7) as server:
        yield server


def _lock() -> Path:
    settings = get_settings()
    return Cache(settings.cache_dir, settings.service_id or "").lock


def _holder(lock: Path, request: pytest.FixtureRequest) -> subprocess.Popen[str]:
    """A process that holds ``lock`` (it said so) until a line on its stdin."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD_UNTIL_TOLD, str(lock)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdin is not None and holder.stdout is not None
    pipes = holder.stdin, holder.stdout

    def end() -> None:  # its pipes closed too: left to the collector, a ResourceWarning
        holder.kill()   # there may land in any later test's record of its warnings
        holder.wait(HANG_GUARD)
        for pipe in pipes:
            pipe.close()
    request.addfinalizer(end)
    assert holder.stdout.readline().strip() == "held"
    return holder


def _let_go(holder: subprocess.Popen[str]) -> None:
    """Tell ``holder`` its work is done and wait until it ended (its lock let go)."""
    assert holder.stdin is not None
    holder.stdin.write("done\n")
    holder.stdin.flush()
    holder.wait(HANG_GUARD)


def _let_go_when_looked_up(holder: subprocess.Popen[str], monkeypatch) -> list[int | None]:
    """The holders the lock's waiter finds in the listing (each look); at the first look
    (a try found the lock held), ``holder`` lets go and ends first."""
    looked: list[int | None] = []
    listed = holders.lock_holder

    def look(path: Path) -> int | None:
        if not looked:
            _let_go(holder)
        looked.append(listed(path))
        return looked[-1]
    monkeypatch.setattr(holders, "lock_holder", look)
    return looked


def test_a_load_waits_for_a_running_holder_then_reads_the_kept_tables(cfg, monkeypatch,
                                                                      caplog, request):
    assert len(icoframes.load_icos(status="past", progress=False)) > 0
    normal = icoframes.load_icos(status="past", offline=True, progress=False)
    holder = _holder(_lock(), request)
    # the lock as the holder's work leaves it: said as held by a running process, no "end it"
    with pytest.raises(LockHeld) as held, locked(_lock(), wait=0.0):
        pass
    assert held.value.pid == holder.pid and held.value.running
    assert "end it" not in str(held.value) and "kill" not in str(held.value)

    monkeypatch.setattr("icoframes.store.derived.LEASE", 1e-9, raising=False)
    caplog.set_level(logging.INFO, logger="icoframes.store.derived")
    done: dict[str, pd.DataFrame] = {}
    load = threading.Thread(target=lambda: done.update(icos=icoframes.load_icos(
        status="past", offline=True, progress=False)), daemon=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load.start()
        assert wait_until(lambda: f"process {holder.pid} holds" in caplog.text or "icos" in done)
        assert "icos" not in done, "answered without the lock"  # it waits for the holder
        _let_go(holder)
        load.join(HANG_GUARD)
    assert "icos" in done, "the load did not end once the holder let go"
    assert [str(w.message) for w in caught if issubclass(w.category, CacheWarning)] == []
    assert "end it" not in caplog.text
    pd.testing.assert_frame_equal(done["icos"], normal)
    assert done["icos"].attrs == normal.attrs


def test_a_lock_listed_as_taken_by_this_process_is_not_blamed_on_it(tmp_path, request):
    lock = tmp_path / ".lock"
    with locked(lock, shared=True):
        child = os.fork()
        if child == 0:  # keeps the shared lock's open file, stopped, until killed
            os.kill(os.getpid(), signal.SIGSTOP)
            os._exit(0)
    request.addfinalizer(lambda: (os.kill(child, signal.SIGKILL), os.waitpid(child, 0)))
    assert os.waitpid(child, os.WUNTRACED)[0] == child  # stopped, the lock still held
    with pytest.raises(LockHeld) as held, locked(lock, wait=0.0):
        pass
    assert held.value.pid is None and not held.value.running
    said = str(held.value)
    assert said.startswith("another process holds") and f"process {os.getpid()}" not in said


@pytest.mark.parametrize("shared", [False, True], ids=["exclusive", "shared"])
def test_a_lock_let_go_before_its_holder_is_looked_up_is_taken(tmp_path, monkeypatch, request,
                                                               shared):
    lock = tmp_path / ".lock"
    looked = _let_go_when_looked_up(_holder(lock, request), monkeypatch)
    with locked(lock, shared=shared, wait=0.0):
        taken = True
    assert taken and looked == [None]


@pytest.mark.parametrize("shared", [False, True], ids=["exclusive", "shared"])
def test_a_holder_left_out_of_one_read_of_the_listing_is_named(tmp_path, monkeypatch, request,
                                                              shared):
    lock = tmp_path / ".lock"
    holder = _holder(lock, request)
    listed = holders.lock_holder
    looks = iter([None])  # the first read of the listing went without the holder's line
    monkeypatch.setattr(holders, "lock_holder", lambda path: next(looks, listed(path)))
    with pytest.raises(LockHeld) as held, locked(lock, shared=shared, wait=0.0):
        pass
    assert held.value.pid == holder.pid and held.value.running


def test_a_load_whose_holder_let_go_as_its_wait_ran_out_reads_the_kept_tables(cfg, monkeypatch,
                                                                             request):
    assert len(icoframes.load_icos(status="past", progress=False)) > 0
    normal = icoframes.load_icos(status="past", offline=True, progress=False)
    looked = _let_go_when_looked_up(_holder(_lock(), request), monkeypatch)
    monkeypatch.setattr("icoframes.store.derived.LEASE", 1e-9, raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        icos = icoframes.load_icos(status="past", offline=True, progress=False)
    assert [str(w.message) for w in caught if issubclass(w.category, CacheWarning)] == []
    assert looked == [None]
    pd.testing.assert_frame_equal(icos, normal)
    assert icos.attrs == normal.attrs

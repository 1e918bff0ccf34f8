"""Who a wait on the folder's lock names, and what it does, by the holder's state.

A holder at work (running, not stopped: a rebuild of a large cache may outlast the
lease) is waited for, a lease at a time, and the load then reads the kept tables as
usual: no answer tidied in memory (many times the cost of the read, for every waiting
load) and no advice to end a healthy process. A lock the listing names as taken by this
very process (a child forked while it was held keeps it after this one let go) is not
blamed on this process. The holders are real processes; the load runs against the
sandbox over loopback, the lease set to nothing so that each wait ends at once.
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
from icoframes import sandbox
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


def test_a_load_waits_for_a_running_holder_then_reads_the_kept_tables(cfg, monkeypatch,
                                                                      caplog, request):
    assert len(icoframes.load_icos(status="past", progress=False)) > 0
    normal = icoframes.load_icos(status="past", offline=True, progress=False)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_UNTIL_TOLD, str(_lock())],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    request.addfinalizer(lambda: (holder.kill(), holder.wait(HANG_GUARD)))
    assert holder.stdin is not None and holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
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
        holder.stdin.write("done\n")
        holder.stdin.flush()
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

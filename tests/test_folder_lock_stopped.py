"""A process stopped while it holds a service folder's lock makes others wait at most a
lease, then they say who holds it (or answer without it, where that is safe).

The holder is a real process that takes the folder's ``.lock`` (an exclusive ``flock``, as
the derived tables' update and housekeeping take it) and stops itself with SIGSTOP (Ctrl-Z,
a debugger). Before the fix ``clear_cache``, ``prune_cache`` and an offline load waited for
it without bound. The wait's bound (the lease) is set to nothing here: the holder is
stopped, so no wait would end otherwise; the loads run against the sandbox over loopback.
"""

from __future__ import annotations

import datetime as dt
import os
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
from icoframes.store.cache import Cache

HOLD = """
import fcntl, os, signal, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=30, seed=6) as server:
        yield server


@pytest.fixture
def stopped_holder(cfg, monkeypatch, request):
    """The filled cache's folder lock held by a process that is stopped: its pid."""
    assert len(icoframes.load_icos(status="past", progress=False)) > 0
    normal = icoframes.load_icos(status="past", offline=True, progress=False)  # (read, kept)
    settings = get_settings()
    lock = Cache(settings.cache_dir, settings.service_id or "").lock
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock)], stdout=subprocess.PIPE,
                              text=True)

    def end() -> None:
        holder.kill()  # (SIGKILL ends a stopped process too)
        holder.wait(HANG_GUARD)
        if holder.stdout is not None:  # closed here: left to the collector, a ResourceWarning
            holder.stdout.close()      # may land in any later test's record of its warnings
    request.addfinalizer(end)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    assert wait_until(lambda: Path(f"/proc/{holder.pid}/stat").read_text().rsplit(
        ")", 1)[1].split()[0] == "T")
    # the bound of each wait on the lock: nothing (the holder never lets go)
    monkeypatch.setattr("icoframes.store.derived.LEASE", 1e-9, raising=False)
    monkeypatch.setattr("icoframes.cachedir.housekeeping.LEASE", 0.0, raising=False)
    cfg.stats.reset()
    return holder.pid, lock, normal


def _within_guard(call):
    """``call()``'s result, in a thread: a wait without bound fails the test (not hangs it)."""
    done: dict[str, object] = {}
    thread = threading.Thread(target=lambda: done.update(result=call()), daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    assert "result" in done, "still waiting for the stopped holder's lock"
    return done["result"]


def _names_the_holder(text: str, pid: int, lock: Path) -> None:
    assert f"process {pid}, which is stopped" in text
    assert str(lock) in text and f"kill -CONT {pid}" in text


def test_clear_leaves_the_folder_of_a_stopped_holder_and_names_it(stopped_holder):
    pid, lock, _ = stopped_holder
    report = _within_guard(icoframes.clear_cache)
    [skipped] = report.skipped
    assert skipped["path"] == str(lock.parent)
    _names_the_holder(skipped["reason"], pid, lock)
    assert lock.parent.is_dir() and report.removed == []


def test_prune_leaves_the_folder_of_a_stopped_holder_and_names_it(stopped_holder):
    pid, lock, _ = stopped_holder
    report = _within_guard(lambda: icoframes.prune_cache(dt.timedelta(days=30)))
    [skipped] = report.skipped
    _names_the_holder(skipped["reason"], pid, lock)


def test_an_offline_load_answers_beside_a_stopped_holder(stopped_holder, sb):
    pid, lock, normal = stopped_holder
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        icos = _within_guard(lambda: icoframes.load_icos(status="past", offline=True,
                                                         progress=False))
    assert sb.stats.requests.total() == 0
    # the answer tidied in memory is the one read from the kept tables, attrs too
    # (attrs["columns"]: each column's description and unit)
    pd.testing.assert_frame_equal(icos, normal)
    assert icos.attrs == normal.attrs and icos.attrs["columns"]["hard_cap"].unit
    said = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    assert len(said) == 1, said  # one wait (and one word) per load, though it reads twice
    _names_the_holder(said[0], pid, lock)
    assert os.path.exists(f"/proc/{pid}")  # still stopped, still holding (ended after)

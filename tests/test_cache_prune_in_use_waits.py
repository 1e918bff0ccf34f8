"""A load waits for a prune at work on its folder once at most, and a Ctrl-C in that wait
leaves nothing behind.

A prune holds the folder's use mark exclusively while it looks at the folder; here another
process holds it so (as a prune stopped with Ctrl-Z). A load waits for it at most
``_PRUNE_WAIT`` seconds ONCE (then goes on unheld, retaking the mark without waiting at its
next database use): the waits are counted, never timed (the wait is set to none, or to the
hang guard when a Ctrl-C must land in it). A Ctrl-C in the wait closes the mark's
descriptor and leaves no hold, so a later prune can remove the folder. A refused folder is
neither waited for nor given a mark.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.fetch.load import Load
from icoframes.store import folders

pytestmark = pytest.mark.skipif(sys.platform == "win32",
                                reason="no flock: a folder's age alone counts")

_HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()
"""


@pytest.fixture(scope="module")
def sb() -> Iterator[sandbox.Sandbox]:
    with sandbox.serve(n_icos=5, seed=1) as server:
        yield server


@pytest.fixture
def folder(sb, tmp_path) -> Iterator[Path]:
    """The service folder of a warm cache (one load ended), the sandbox configured."""
    root = tmp_path / "cache"
    icoframes.configure(**sb.settings(), cache_dir=root)
    try:
        icoframes.load_icos(progress=False)
        made = Load(progress=False).cache.dir
        assert (made / ".last_used").is_file()
        yield made
    finally:
        icoframes.reset_configuration()


@pytest.fixture
def waits(monkeypatch) -> list[int]:
    """Each wait a load begins for a prune at work (its descriptor), counted."""
    begun: list[int] = []
    wait = folders._shared

    def counted(fd: int) -> object:
        begun.append(fd)
        return wait(fd)

    monkeypatch.setattr(folders, "_shared", counted)
    return begun


@contextlib.contextmanager
def _held_exclusively(folder: Path) -> Iterator[None]:
    """The use mark of ``folder`` locked exclusively by another process, as a prune does."""
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(folder / ".last_used")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.communicate("\n", timeout=HANG_GUARD)


def _marks_open(folder: Path) -> list[str]:
    """This process's descriptors open on the use mark of ``folder``."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}") == str(folder / ".last_used"):
                found.append(fd)
    return found


def test_a_prune_holding_the_mark_is_waited_for_once_by_a_load(folder, waits, monkeypatch):
    monkeypatch.setattr(folders, "_PRUNE_WAIT", 0.0)  # a timed-out wait, at once
    with _held_exclusively(folder):
        icos = icoframes.load_icos(refresh=True, progress=False)  # many database uses
        offline = icoframes.load_icos(offline=True, progress=False)  # another load: its own
    assert len(waits) == 2  # one each, not one per database use
    assert len(icos) == len(offline) == 5
    with folders.unheld(folder) as free:
        assert free  # each let it go


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="descriptors listed by /proc")
@pytest.mark.usefixtures("ctrl_c_raises")
def test_a_ctrl_c_in_the_wait_leaves_no_descriptor_nor_hold(folder, waits, monkeypatch):
    monkeypatch.setattr(folders, "_PRUNE_WAIT", HANG_GUARD)  # ended by the Ctrl-C alone
    load, began, over = Load(progress=False), threading.Event(), threading.Event()
    counted = folders._shared

    def signalled(fd: int) -> object:
        began.set()
        return counted(fd)

    def ctrl_c() -> None:
        if began.wait(HANG_GUARD) and not over.is_set():  # a real Ctrl-C, in the wait
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # type: ignore

    monkeypatch.setattr(folders, "_shared", signalled)
    with _held_exclusively(folder):
        helper = threading.Thread(target=ctrl_c, daemon=True)
        helper.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                load.filters(refresh=False, max_age=None)
        finally:
            over.set()
            began.set()  # (a load that never waited: the helper ends too)
            helper.join(HANG_GUARD)
    assert len(waits) == 1
    assert _marks_open(folder) == []  # closed, not left to the process's end
    assert load.cache.in_use.holds == 0
    load.filters(refresh=False, max_age=None)  # the prune gone: held, then let go
    with folders.unheld(folder) as free:
        assert free  # no hold the Ctrl-C left behind


def test_a_refused_folder_is_neither_waited_for_nor_marked(folder, waits, monkeypatch):
    monkeypatch.setattr(folders, "_PRUNE_WAIT", 0.0)
    os.chmod(folder, 0o777)  # others may write to it: refused
    try:
        with _held_exclusively(folder), pytest.raises(folders.CacheFolderRefused):
            icoframes.load_icos(offline=True, progress=False)
        assert waits == []
        (folder / ".last_used").unlink()
        with pytest.raises(folders.CacheFolderRefused):
            icoframes.load_icos(offline=True, progress=False)
        assert not (folder / ".last_used").exists()  # no mark made in it
    finally:
        os.chmod(folder, 0o700)

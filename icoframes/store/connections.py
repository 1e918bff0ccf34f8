"""The SQLite connections this process keeps open, bounded (each use reported by ``db``).

Each connected database holds three files open. Kept until the process exits, a process that
touches many cache dirs (a test suite, a notebook) would run out of file descriptors (or past
the 1,024 ``select()`` takes), holding removed files too. So past :data:`KEPT_OPEN`, the least
recently used one no thread is using is closed: its next use opens it again. What a forked
child inherits is its parent's, never closed by the child.
"""
from __future__ import annotations

import errno
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol

from ..config import AT_RESET
from ..errors import CacheError

__all__ = ["KEPT_OPEN", "Connected", "check_open_files", "close_idle", "closed", "used"]

#: Databases kept connected at most, but for those in use: a load uses two (its service
#: folder's and the ledger), a few more spare reopening when loads of several take turns.
KEPT_OPEN = 8
_PER_DATABASE = 4  # descriptors a connection holds: the file, its log and log index, a spare


class Connected(Protocol):
    """A database whose connection is open: its ``_lock`` (reentrant) is held while it is
    used, ``_began`` while in a transaction."""

    path: Path
    _lock: Any
    _began: bool

    def close(self) -> None: ...


_lock = threading.Lock()
_recent: OrderedDict[int, Connected] = OrderedDict()  # by id, the least recently used first
_inherited: list[Connected] = []  # a forked child's copies of its parent's: never closed


def _forked() -> None:
    global _lock
    _lock = threading.Lock()  # (another thread of the parent may have held it)
    _inherited.extend(_recent.values())
    _recent.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def used(db: Connected) -> None:
    """``db``'s connection is open and used now; the least recently used idle ones past
    :data:`KEPT_OPEN` are closed (never ``db``, nor one a thread is using)."""
    with _lock:
        _recent[id(db)] = db
        _recent.move_to_end(id(db))
        extra = list(_recent.values())[:-KEPT_OPEN] if len(_recent) > KEPT_OPEN else []
    for old in extra:  # (outside the lock: closing calls closed())
        if old is not db:
            _close(old)


def closed(db: Connected) -> None:
    """``db``'s connection was closed."""
    with _lock:
        _recent.pop(id(db), None)


def close_idle(under: Path | None = None, *, wait: bool = False) -> None:
    """Close the connections no thread is using (to databases under the folder ``under``);
    with ``wait``, every one, each once its use ends."""
    with _lock:
        found = [db for db in _recent.values() if under is None or db.path.is_relative_to(under)]
    for db in found:
        _close(db, wait=wait)


# a suite's next test (a notebook's next cache dir) opens others: these would wait idle
AT_RESET.append(close_idle)


def _close(db: Connected, *, wait: bool = False) -> None:
    if not db._lock.acquire(blocking=wait):
        return  # used by another thread: closed once it is idle and others open
    try:
        if wait or not db._began:  # (the lock is reentrant: this thread may be in its transaction)
            db.close()
    finally:
        db._lock.release()


def check_open_files(path: Path, exc: BaseException) -> None:
    """Raise the CacheError of ``path`` not opened as too many files are open (SQLite's
    "cannot open" says no more: found by opening as many files as a database holds)."""
    number = exc.errno if isinstance(exc, OSError) else None
    if getattr(exc, "sqlite_errorname", "") == "SQLITE_CANTOPEN":
        probes: list[int] = []
        try:
            while len(probes) < _PER_DATABASE:
                probes.append(os.open(os.devnull, os.O_RDONLY))
        except OSError as probe:
            number = probe.errno
        finally:
            for fd in probes:
                os.close(fd)
    if number not in (errno.EMFILE, errno.ENFILE):
        return
    whose = "this process" if number == errno.EMFILE else "the system"
    raise CacheError(f"{path} cannot be opened: {whose} has too many files open "
                     f"({os.strerror(number)}). Raise the limit of open files (`ulimit -n 4096` "
                     "in the shell that starts Python or Jupyter, or more) and call again")

"""Who holds a lock file, for the error of a wait on it that ran out.

A process stopped while it holds a folder's lock (``SIGSTOP``, Ctrl-Z, a debugger,
``docker pause``) keeps it until it is resumed or ends: a wait on that lock without bound
hung every other process, silently (``cache clear`` at night, a load of the tables). Such a
wait is bounded by a lease, then :class:`LockHeld` says who holds the lock when the system
tells (Linux's ``/proc/locks``: the process that took it, and whether it is stopped) and
what to do.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import CacheError

__all__ = ["LockHeld", "held_or_taken", "lock_held", "lock_holder", "tried"]

_PID = re.compile(r"[1-9][0-9]*")  # as /proc/locks writes one (ASCII digits)


class LockHeld(CacheError):
    """Another process held a cache folder's lock for longer than a wait on it may last.

    ``path`` is the lock file, ``pid`` the holder's process id when the system tells;
    ``running`` whether that holder is known and not stopped (it works: waiting more ends).
    """

    def __init__(self, message: str, path: Path, pid: int | None, *,
                 running: bool = False) -> None:
        super().__init__(message)
        self.path, self.pid, self.running = path, pid, running


def lock_holder(path: Path) -> int | None:
    """The process id that holds a ``flock`` on the file ``path`` (Linux: ``/proc/locks``,
    a lock held, not one waited for), or None when unknown: no such listing, no holder
    listed, or one this process cannot see (another pid namespace). Never this process:
    the listing names the process that took a lock, and a child forked since holds it too
    (the open file is shared) after that one let go."""
    try:
        info = os.stat(path)
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    # "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF": device major:minor in hex, inode
    where = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    for line in lines:
        fields = line.split()
        if "->" in fields or len(fields) < 6:  # "->": a process blocked on the lock
            continue
        pid, at = fields[4], fields[5]
        if (at == where and _PID.fullmatch(pid) and int(pid) != os.getpid()
                and os.path.isdir(f"/proc/{pid}")):
            return int(pid)
    return None


def _stopped(pid: int) -> bool:
    """Whether process ``pid`` is stopped (state T: a signal; t: a debugger)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text[text.rfind(")") + 1:].split()[:1] in (["T"], ["t"])


def lock_held(path: Path, waited: float) -> LockHeld:
    """The error for a wait of ``waited`` seconds on the lock ``path`` that ran out."""
    pid = lock_holder(path)
    how_long = f" for over {waited:g} s" if waited > 0 else ""  # (0: tried once, after a wait)
    stopped = pid is not None and _stopped(pid)
    if stopped:
        said = (f"process {pid}, which is stopped (Ctrl-Z, a debugger, SIGSTOP), holds the "
                f"cache's lock {path}{how_long}: resume it (`fg` in its shell, or "
                f"`kill -CONT {pid}`) or end it, then call again")
    elif pid is not None:
        said = (f"process {pid} holds the cache's lock {path}{how_long} (it reads or updates "
                "the cache's tables, or clears or prunes the cache): call again once it is done")
    else:
        said = (f"another process holds the cache's lock {path}{how_long}: is one stopped "
                "(Ctrl-Z, a debugger, SIGSTOP)? Resume or end it, then call again")
    return LockHeld(said, path, pid, running=pid is not None and not stopped)


#: How many times a lock that a try found held but the listing names no holder of is
#: looked up and tried again before its holder is said not known.
_LOOKS = 3


def held_or_taken(path: Path, waited: float, take: Callable[[], bool]) -> LockHeld | None:
    """The error for a wait of ``waited`` seconds on the lock ``path`` that ran out, or None
    when ``take()`` (one more try of the lock, not waiting; True: it is held now) got it.

    A holder is looked up after a try failed: one that let go meanwhile is not listed
    any more, and ``/proc/locks``, read a page at a time, can skip a lock while others
    are taken and let go (another process's database). Either way a lock held by a
    process at work read as one whose holder is not known (said: "is one stopped?"; a
    load tidied its tables in memory). So when the listing names no holder, the lock is
    tried again, then looked up again: a holder is said not known only when each of a few
    looks and tries found the lock held and no holder listed.
    """
    for _ in range(_LOOKS):
        held = lock_held(path, waited)
        if held.pid is not None:
            return held
        if take():
            return None
    return held


def tried(attempt: Callable[..., object], *args: Any, **kwargs: Any) -> bool:
    """Whether ``attempt(*args, **kwargs)``, one try of a lock that does not wait, took it.

    ``flock`` with ``LOCK_NB`` says the lock is held with BlockingIOError, filelock's
    ``acquire(blocking=False)`` with its Timeout (a TimeoutError): False. Any other error
    is raised.

    >>> def held() -> None:
    ...     raise BlockingIOError
    >>> tried(held), tried(print, end="")
    (False, True)
    """
    try:
        attempt(*args, **kwargs)
    except (BlockingIOError, TimeoutError):
        return False
    return True

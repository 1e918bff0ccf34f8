"""The lock an export swaps its files in under, and a reader's brief look under it.

An export swaps its files into a folder (a plain export's tables and manifest, a snapshot
tree's day folder) holding ``flock`` exclusively on that folder (:func:`swap_lock`, in
:mod:`icoframes.staging`). A reader takes no lock while it reads: only when what it saw says
"failure" (no folder, no manifest, a day gone) does it :func:`confirm` it, taking the lock
shared for a few ``stat`` calls and releasing it at once. So readers never hold off an
export for longer than a look, whatever they list or read, and a reader that is stopped
(SIGSTOP, a debugger) mid-read holds nothing.

Every wait for the lock is bounded (:data:`SWAP_PATIENCE`): a process stopped or hung
while it holds the lock is said, not waited for as long as it is stopped. A process forked
while a thread holds one of these locks does not inherit it (:func:`folder_flock`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from .errors import ExportBusy, ExportReplaced
from .holders import lock_holder

__all__ = ["SWAP_PATIENCE", "confirm", "exclusive", "folder_flock", "uninterrupted"]

#: Seconds a reader waits for an export swapping its files into the folder it reads, and an
#: export for another one's swap into its folder, at most.
SWAP_PATIENCE = 60.0
_POLL = 0.001, 0.05  # seconds between tries: the first, and the most (a swap takes ms)
_T = TypeVar("_T")

# The descriptors of the folder locks this process holds. A child forked while a thread
# holds one (multiprocessing's "fork") gets a copy of it, and flock holds until every copy
# is closed: the child would hold the lock for its whole life, an export blocked meanwhile.
# The child closes its copies at once; opening and recording one is atomic with a fork.
_held: dict[object, int] = {}
_opening = threading.Lock()


def _close_inherited() -> None:
    for fd in _held.values():
        with contextlib.suppress(OSError):
            os.close(fd)  # closes the child's copy only: the parent's lock stays as it was
    _held.clear()
    _opening.release()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork either
    os.register_at_fork(before=_opening.acquire, after_in_parent=_opening.release,
                        after_in_child=_close_inherited)


@contextlib.contextmanager
def folder_flock(folder: Path, *, shared: bool = False, block: bool = True) -> Iterator[bool]:
    """``flock`` on the folder ``folder`` itself (no file is left in it): exclusive for an
    export swapping its files in, shared for a reader confirming what it saw.

    Yields whether the lock is held: False only with ``block=False`` when another holds it
    (exclusively, for ``shared``). ImportError where ``fcntl`` does not exist (Windows). A
    process forked meanwhile holds no copy of it.
    """
    import fcntl

    token = object()
    with _opening:
        fd = _held[token] = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
                        | (0 if block else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        if _held.pop(token, None) is not None:  # not closed by a fork since (in a child)
            os.close(fd)  # releases the flock


@contextlib.contextmanager
def _held_when_free(folder: Path, *, shared: bool, failure: Callable[[], Exception]
                    ) -> Iterator[bool]:
    """Holds ``folder``'s lock, tried without blocking until it is free (a blocking wait has
    no bound); yields whether it waited for it. ``failure()``
    is raised after :data:`SWAP_PATIENCE` s of finding it held. Where it cannot lock (no
    ``fcntl``, no folder) it holds nothing and yields False."""
    give_up, pause = None, _POLL[0]
    with contextlib.ExitStack() as held:
        while True:
            try:
                if held.enter_context(folder_flock(folder, shared=shared, block=False)):
                    break
            except (ImportError, OSError):  # no fcntl; or the folder went away (maybe meanwhile)
                break
            held.close()
            now = time.monotonic()
            if give_up is None:
                give_up = now + SWAP_PATIENCE
            elif now >= give_up:
                raise failure()
            time.sleep(pause)
            pause = min(pause * 2, _POLL[1])
        yield give_up is not None


def confirm(folder: Path, look: Callable[[], _T], *, exporting: bool = False
            ) -> tuple[_T, bool]:
    """``look()`` while no export swaps files into ``folder`` (its lock held shared, released
    as soon as ``look`` returns: a reader's, a few ``stat`` calls; an export's check of its
    tree, the days' manifests, as its swap reads them again under the lock held
    exclusively), and whether a swap was waited for. ExportReplaced (ExportBusy when
    ``exporting``: an export's own look) after :data:`SWAP_PATIENCE` s of a swap that does
    not end."""
    def failure() -> Exception:
        if exporting:
            return _busy(folder)
        return ExportReplaced(
            f"{folder} is being replaced by an export, and {_holder(folder)} has held its "
            f"swap lock for over {SWAP_PATIENCE:g} s (that export stopped or hung, or {_ANY}); "
            "nothing was read. Read it again once that process is done or ended.")

    with _held_when_free(folder, shared=True, failure=failure) as waited:
        return look(), waited


@contextlib.contextmanager
def exclusive(folder: Path) -> Iterator[None]:
    """``folder``'s lock held exclusively (an export's swap); ExportBusy after
    :data:`SWAP_PATIENCE` s of another export holding it."""
    with _held_when_free(folder, shared=False, failure=lambda: _busy(folder)):
        yield


# the lock is a flock on the folder, which whoever may read the folder can take
_ANY = "any process that may read the folder: the lock is a flock on it"


def _busy(folder: Path) -> ExportBusy:
    return ExportBusy(
        f"{_holder(folder)} has held the swap lock of {folder} for over {SWAP_PATIENCE:g} s "
        f"(another export stopped or hung, or {_ANY}); this export swapped nothing in (what "
        "it fetched is cached). Run it again once that process is done or ended.")


def _holder(folder: Path) -> str:
    """Who holds ``folder``'s lock, as the system tells (Linux): "process 123 (flock)"."""
    pid = lock_holder(folder)
    if pid is None:
        return "another process"
    try:
        name = Path(f"/proc/{pid}/comm").read_text(errors="replace").strip()
        name = "".join(c if c.isprintable() else "?" for c in name)  # (its owner names it)
    except OSError:
        name = ""
    return f"process {pid}" + (f" ({name})" if name else "")


# what stops a process from a terminal, cron or systemd: held back for the span of a swap
_HELD_BACK = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                   if hasattr(signal, name))


@contextlib.contextmanager
def uninterrupted(note: str | None = None) -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP held back while the block runs (an export's swap: its
    renames, and the removal of the folder it replaced), then delivered as they would
    have been, to the handlers there were before; what a handler raises then, after a block
    that ended without an error, carries ``note`` (what the block did: the export written).

    A signal's handler raises between any two bytecodes (``KeyboardInterrupt``, the command's
    ``Terminated``): between the two renames of a snapshot swap it left the day renamed
    aside, and the clean-up then removed it; between a plain swap's renames it left ``out``
    without its manifest. Held back, it is raised once the swap is whole. Only the main
    thread sets handlers (and runs them: a signal never raises in another thread); a
    handler Python did not set (None) is left as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous: dict[int, Any] = {}
    whole = False
    try:
        for sig in _HELD_BACK:
            if signal.getsignal(sig) is not None:
                previous[sig] = signal.signal(sig, lambda signum, _: caught.append(signum))
        yield
        whole = True
    finally:
        try:
            _restore(previous)
            for sig in dict.fromkeys(caught):  # each once, in the order they came
                signal.raise_signal(sig)
        except BaseException as exc:
            if whole and note:  # not "nothing written": a cron log must not say so
                exc.add_note(note)
            raise


def _restore(previous: dict[int, Any]) -> None:
    """Each handler of ``previous`` set again, whatever a handler set back raises meanwhile
    (a SIGINT right after its own is back: KeyboardInterrupt), raised once all are: cut
    short, the loop left SIGTERM's and SIGHUP's on the throw-away one (later ones swallowed)."""
    pending, raised = list(previous.items()), None
    for _ in range(2 * len(pending) + 1):  # a handler raises at most once per signal sent
        try:
            while pending:
                signal.signal(*pending[0])  # set again when it raised right after it was set
                pending.pop(0)
        except BaseException as exc:  # a signal's handler: raised once every one is back
            raised = raised or exc
        else:
            break
    if raised is not None:
        raise raised

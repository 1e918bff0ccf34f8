"""An export's staging folder inside ``out``, and the swaps that move it into place.

What :func:`icoframes.export_tables` relies on to never leave a reader a mix
and never touch what it did not make (see :mod:`icoframes.export` for the
promises): :class:`Staging` (a ``tempfile.mkdtemp`` folder in ``out``, locked
while its export runs; killed exports' folders cleared), :func:`swap_lock`
(``flock`` on ``out`` itself), :func:`swap_folder` (a snapshot folder swapped
whole) and :func:`swap_files` (a plain export: the manifest removed first and
renamed in last).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

from .errors import ConfigError, DiskFull, ExportBusy
from .exported import ASIDE, MANIFEST, SNAPSHOT_PREFIX, STAGING_PREFIX
from .files import filelock, locked
from .swaps import exclusive, uninterrupted

__all__ = ["STAGING_PREFIX", "Staging", "check_replaceable", "disk_full", "full_disk_said",
           "swap_files",
           "swap_folder", "swap_lock"]

_RUNNING = "running.lock"  # in a staging folder, held while its export runs


class Staging:
    """This export's own folder inside ``out``, locked while the export runs.

    Entering checks that ``out`` can be created and written (ConfigError
    otherwise), makes ``out/.icoframes-staging-<random>/`` with
    :func:`tempfile.mkdtemp` (a name nobody can guess or plant beforehand,
    private to the user, made by this export), locks it and removes what
    killed exports left (:func:`_clear_leftovers`). Leaving removes this
    export's folder; on failure it also removes ``out`` if this export created
    it and it is empty.
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        self.scratch = out  # set on entering
        self.data = out
        self._lock: filelock.BaseFileLock | None = None
        self._created_out = False

    def __enter__(self) -> Staging:
        try:
            self._created_out = not self.out.exists()
            self.out.mkdir(parents=True, exist_ok=True)
            # out itself takes the renames: being able to make a folder in it is what counts
            self.scratch = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=self.out))
            # lock first, tables second: a staging folder nobody holds the lock of is a leftover
            self._lock = _lock_for(self.scratch)
            self._lock.acquire(timeout=0)
            self.data = self.scratch / "export" / "data"  # deep: no reader's glob reaches it
            self.data.mkdir(parents=True)
        except (OSError, filelock.Timeout) as exc:
            self._clean_up(failed=True)
            if isinstance(exc, OSError) and exc.errno in _FULL:  # no setting to fix: free space
                raise DiskFull(disk_full(self.out, exc)) from None
            reason = getattr(exc, "strerror", None) or str(exc)
            raise ConfigError(
                f"the export folder {self.out} cannot be written ({reason}); choose a folder "
                "the user running the export can create and write (--out)") from None
        _clear_leftovers(self.out, self.scratch)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._clean_up(failed=kind is not None)

    def _clean_up(self, *, failed: bool) -> None:
        if self.scratch != self.out and _day_back(self.out, self.scratch):
            shutil.rmtree(self.scratch, ignore_errors=True)  # ours: made by mkdtemp above
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        if failed and self._created_out:  # nothing written: leave no folder behind
            with contextlib.suppress(OSError):
                self.out.rmdir()  # only when empty: another export may have started


#: The errors of a disk (or a quota) that is full: said as :class:`DiskFull`, not a traceback.
_FULL = (errno.ENOSPC, errno.EDQUOT)


def disk_full(out: Path, exc: OSError,
              whole: str = "Nothing was written: the export it would replace is whole") -> str:
    """Why an export into ``out`` stopped on a full disk (``exc``), and what to do; ``whole``
    says what became of the export it would replace."""
    return (f"the disk holding {out} is full ({exc.strerror or exc}): this export could not be "
            f"written. {whole}, the export's staging folder is removed, "
            "what was fetched is cached. Free some space and export again (a run that replaces "
            "a day needs room for a second copy of it while it swaps)")


@contextlib.contextmanager
def full_disk_said(out: Path, whole: str) -> Iterator[None]:
    """An error of a full disk under ``out`` in the block raised as :class:`DiskFull`."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in _FULL or isinstance(exc, DiskFull):
            raise
        raise DiskFull(disk_full(out, exc, whole)) from None


def _lock_for(scratch: Path) -> filelock.BaseFileLock:
    return filelock.FileLock(scratch / _RUNNING, thread_local=False, is_singleton=False)


def _clear_leftovers(out: Path, mine: Path) -> None:
    """Remove the staging folders of killed exports: those whose lock nobody holds.

    Only what an export made is touched: a real folder (never a symbolic link,
    never followed) named ``.icoframes-staging-*``, owned by this user and
    holding the lock file an export makes first. A folder without that file is
    left alone (an export that just made it, or not an export's at all).
    """
    for child in out.glob(STAGING_PREFIX + "*"):
        if child == mine:
            continue
        try:
            info = child.lstat()
            lock_info = (child / _RUNNING).lstat()
        except OSError:
            continue
        if (not stat.S_ISDIR(info.st_mode) or not stat.S_ISREG(lock_info.st_mode)
                or (hasattr(os, "getuid") and info.st_uid != os.getuid())):
            continue
        lock = _lock_for(child)
        try:
            lock.acquire(timeout=0)
        except (filelock.Timeout, OSError):
            continue  # its export is running
        try:
            try:
                _put_back(out, child)
            except OSError:
                continue  # the snapshot it holds stays there: the next export tries again
            if shutil.rmtree.avoids_symlink_attacks or not _holds_links(child):
                shutil.rmtree(child, ignore_errors=True)
        finally:
            lock.release()


def _put_back(out: Path, staging: Path) -> None:
    """A snapshot folder a killed export set aside (killed between the two renames of
    :func:`swap_folder`) goes back into place when that day has no folder since."""
    with swap_lock(out):  # not while a running export swaps that day
        for aside in staging.glob(ASIDE + SNAPSHOT_PREFIX + "*"):
            target = out / aside.name.removeprefix(ASIDE)
            if stat.S_ISDIR(aside.lstat().st_mode) and not os.path.lexists(target):
                os.replace(aside, target)


def _day_back(out: Path, staging: Path) -> bool:
    """Whether ``staging`` (this export's) may be removed: a snapshot folder its swap set
    aside (a swap cut between its renames) is put back first, unless the day has a folder
    since; when it cannot be, the folder is left for the next export, which puts it back
    (the lock on it is released)."""
    try:
        if any(staging.glob(ASIDE + SNAPSHOT_PREFIX + "*")):
            _put_back(out, staging)
    except (OSError, ExportBusy):
        return False
    return True


def _holds_links(folder: Path) -> bool:
    """Whether anything under ``folder`` is a symbolic link (where rmtree might follow it)."""
    return any(path.is_symlink() for path in folder.rglob("*"))


@contextlib.contextmanager
def swap_lock(out: Path) -> Iterator[None]:
    """Two exports into one ``out`` swap one at a time; no file is left in ``out`` for it.

    Where ``fcntl`` exists the lock is ``flock`` on the folder ``out`` itself, waited for
    :data:`~icoframes.swaps.SWAP_PATIENCE` s at most (ExportBusy: another export stopped or
    hung while it holds it); elsewhere (Windows) a lock file ``out/.icoframes-swap.lock``.
    """
    try:
        import fcntl  # noqa: F401  (what the folder lock locks with)
    except ImportError:
        with locked(out / ".icoframes-swap.lock"):
            yield
        return
    with exclusive(out):
        yield


def check_replaceable(target: Path, *, sent: bool = False) -> None:
    """ConfigError when ``target`` (the day's snapshot folder) exists and is no real folder
    (a symbolic link, a file): no swap replaces or follows it. Checked before any request
    and again at the swap (``sent``: what the export fetched is cached)."""
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISDIR(target.lstat().st_mode):
            raise ConfigError(
                f"{target} is not a folder (a symbolic link or a file): the export does not "
                "replace or follow it. " + ("Nothing was written (what was fetched is cached)"
                                            if sent else "Nothing was sent or written")
                + "; remove it, or export into a folder only you can write")


def swap_folder(new: Path, target: Path, scratch: Path, note: str | None = None) -> None:
    """Replace the folder ``target`` by ``new``; the previous one is deleted after the swap.
    A signal held back meanwhile is raised after it, with ``note`` (:func:`uninterrupted`).

    A ``target`` that is not a real folder (a symbolic link someone planted, a
    file) is left alone: ConfigError, nothing moved or removed.
    """
    check_replaceable(target, sent=True)
    aside = scratch / f"{ASIDE}{target.name}"  # put back by the next export if killed next
    previous: Path | None = aside
    with uninterrupted(note):  # Ctrl-C, SIGTERM, SIGHUP: raised once the day is whole again
        try:
            os.replace(target, aside)
        except FileNotFoundError:
            previous = None
        try:
            os.replace(new, target)
        except BaseException:
            if previous is not None:
                with contextlib.suppress(OSError):
                    os.replace(previous, target)  # put the previous snapshot back
            raise
        if previous is not None:
            shutil.rmtree(previous, ignore_errors=True)


def swap_files(new: Path, out: Path, note: str | None = None) -> None:
    """Move the tables of ``new`` into ``out``, the manifest removed first and written last
    (signals held back meanwhile, raised after it with ``note``: a swap cut half way leaves
    ``out`` without a manifest)."""
    with uninterrupted(note):
        with contextlib.suppress(FileNotFoundError):
            (out / MANIFEST).unlink()  # from here until the end, out says "incomplete"
        for path in sorted(new.glob("*.parquet")):
            os.replace(path, out / path.name)
        _fsync_folder(out)  # the tables' renames reach the disk before the manifest's
        os.replace(new / MANIFEST, out / MANIFEST)
        _fsync_folder(out)


#: A folder opened only to fsync it: never anything else (O_DIRECTORY), nor kept by a child.
_FOLDER_ONLY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _fsync_folder(folder: Path) -> None:
    """Make renames in ``folder`` durable; a no-op where folders cannot be opened (Windows).

    Opened as a folder or not at all: whatever else is at ``folder`` now (a FIFO, whose open
    waited for a writer forever; a device, a file) is never opened. A symbolic link to a
    folder is followed, as the renames into ``folder`` just were (``out`` may be one: not
    following it would leave those renames unsynced)."""
    try:
        fd = os.open(folder, _FOLDER_ONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)

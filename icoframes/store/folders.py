"""The folders of the cache dir: checked before any use, and made whole.

The cache dir and each folder in it (a service's, ``quota/``) must be this user's, and no
one else may write to them: another could plant data a load would then read (refused with
:class:`CacheFolderRefused`, the same words for a load and for housekeeping). A folder is
made under a temporary name (:data:`MAKING`) with its first file in it, then renamed:
housekeeping never sees a service folder a load made but has not written to yet.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from ..config import SET_CACHE_DIR
from ..errors import CacheError, ConfigError
from ..files import not_a_folder

__all__ = ["MAKING", "USED_MARK", "CacheFolderRefused", "InUse", "check_cache_dir",
           "check_folder", "checked_folders", "open_mark", "touch_mark", "unheld"]

USED_MARK = ".last_used"  #: its modification time is the folder's last use (:class:`InUse`)
# no fcntl (Windows): the mark is touched, never held; prune judges by its age alone
_FCNTL: ModuleType | None = None
with contextlib.suppress(ImportError):
    import fcntl as _FCNTL
# seconds a load waits, once, for a prune at work on its folder (it holds the mark
# exclusively), a lease (store.db.LEASE): a stopped prune holds it longer, and the load goes
# on unheld, retaking it without waiting
_PRUNE_WAIT = 20.0
_POLL = 0.05
_MARK_FLAGS = (getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0))

#: The start of the name of a folder of the cache dir being made; one a kill left there is
#: a leftover (pruned after an hour, never "not ours").
MAKING = ".making-"
# what rename(2) says when the name is taken meanwhile (another process made the folder,
# or a link or a file is there): what is there is then checked as it is
_TAKEN = frozenset({errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR})


class CacheFolderRefused(CacheError, ConfigError):
    """A cache dir or service folder refused as it is (a link or no folder in place of a
    service folder, another user's, one others may write to): a setting to fix (exit 2)."""


def _make(path: Path, first: str, *, again: bool = True) -> None:
    """Make the folder ``path`` with an empty file ``first`` in it under a temporary name,
    then rename it (a folder made there meanwhile stays)."""
    # the name's start only: a name near the longest allowed (a base_url with a long path)
    # would be too long with the 17 characters the temporary name adds
    try:
        made = Path(tempfile.mkdtemp(prefix=f"{MAKING}{path.name[:40]}-", dir=path.parent))
    except OSError as exc:  # (a read-only cache dir) said of the folder: the temporary
        raise OSError(exc.errno, exc.strerror, str(path)) from None  # name is never seen
    try:
        try:
            os.close(os.open(made / first, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            os.rename(made, path)
        except FileNotFoundError:
            if not again:
                raise
            # pruned as a leftover: this process was stopped (Ctrl-Z) for longer than a
            # leftover's grace (cachedir.entries.TEMP_GRACE) before it could rename it
            _make(path, first, again=False)
        except OSError as exc:
            if exc.errno not in _TAKEN:
                raise
    finally:
        shutil.rmtree(made, ignore_errors=True)  # (nothing there once renamed)


def _checked(path: Path, what: str, *, create: bool, follow: bool,
             first: str | None = None) -> bool:
    """Whether ``path`` exists, refused unless a folder of this user others cannot write to;
    ``follow``: it may be a link (the cache dir on another disk), but neither it nor one on
    its way may be a link another user may have planted (checked before and after a make)."""
    if follow and hasattr(os, "getuid"):
        _refuse_planted(path, what)
    try:
        info = path.stat() if follow else path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        if not create:
            return False
        if first is None:
            path.mkdir(mode=0o700, parents=follow, exist_ok=True)
            if follow and hasattr(os, "getuid"):  # a link planted meanwhile where it was
                _refuse_planted(path, what, made=True)  # missing: what was made is in it
        else:
            _make(path, first)
        info = path.stat() if follow else path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        if follow:
            raise CacheFolderRefused(f"the cache dir {path} is no folder: "
                                     f"{not_a_folder(path)}. {SET_CACHE_DIR}")
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a folder"
        raise CacheFolderRefused(f"{path} is {kind}: a cache folder is never followed elsewhere. "
                                 "Move it away (or set cache_dir to where it points).")
    if not hasattr(os, "getuid"):
        return True  # Windows: its ACLs are not modes
    if info.st_uid != os.getuid():
        problem = (f"it belongs to another user (uid {info.st_uid}; you are uid {os.getuid()}): "
                   "whoever owns it could plant data you would load")
    elif info.st_mode & 0o022:
        problem = (f"others may write to it (mode {stat.S_IMODE(info.st_mode):o}): they could "
                   f"plant data you would load; `chmod go-w {path}` if it is yours alone")
    else:
        return True
    raise CacheFolderRefused(f"{what} {path} is refused: {problem}"
                             + (f". {SET_CACHE_DIR}" if follow else ""))


def _refuse_planted(path: Path, what: str, *, made: bool = False) -> None:
    """Refuse ``path`` when a link on its way may have been planted (:func:`_planted_link`);
    ``made``: the folder just made there is removed (empty)."""
    if (planted := _planted_link(path)) is None:
        return
    (link, owner), name = planted, ""
    if made:
        with contextlib.suppress(OSError):
            path.rmdir()
    with contextlib.suppress(ImportError, KeyError):
        import pwd  # (none on Windows, which never gets here)
        name = f"{pwd.getpwuid(owner).pw_name}, "
    raise CacheFolderRefused(
        f"{what} {path} is refused: {'it' if link == path else f'on its way, {link}'} is a "
        f"symbolic link of another user ({name}uid {owner}; you are uid {os.getuid()}) in "
        f"{link.parent}, a folder others may write to: whoever put it there chose where it "
        f"leads ({os.path.realpath(link)}). If you trust the link, set cache_dir to "
        f"{os.path.realpath(path)}; if not: {SET_CACHE_DIR}")


def _planted_link(path: Path) -> tuple[Path, int] | None:
    """The first symbolic link on the way to ``path`` (followed as the kernel does) that
    another user may have planted: one of neither this user nor root, in a folder others
    than its owner may write to (sticky, group- or world-writable) that its owner does not
    own. That is ``fs.protected_symlinks``' rule, also in shared folders without the sticky
    bit; elsewhere the link's owner can change nothing they could not change before (a link
    cannot be changed in place). The link and its owner; None: none, up to where the way
    cannot be seen (a missing folder is one this user makes)."""
    at, parts, hops = Path(path.anchor), list(path.parts[bool(path.anchor):]), 0
    while parts and hops <= 40:  # (more: a loop, which the kernel refuses when it is used)
        if (part := parts.pop(0)) == "..":
            at = at.parent if at.name not in ("", "..") else at / part
            continue
        try:
            info = (at / part).lstat()
            if (link := stat.S_ISLNK(info.st_mode)) and info.st_uid not in (os.getuid(), 0):
                held = at.stat()
                if held.st_mode & (stat.S_ISVTX | 0o022) and held.st_uid != info.st_uid:
                    return at / part, info.st_uid
            target = Path(os.readlink(at / part)) if link else None
        except (FileNotFoundError, NotADirectoryError):
            target = None  # (a folder this user makes)
        except OSError as exc:
            if exc.errno != errno.EINVAL:
                return None
            raise CacheFolderRefused(  # a link replaced by a folder while it was looked at
                f"{at / part}, on the way to {path}, changed while it was checked (a symbolic "
                f"link, then not): if someone else may write to {at}, {SET_CACHE_DIR}") from None
        if target is None:
            at = at / part
        else:
            at, parts, hops = (Path(target.anchor) if target.anchor else at), [
                *target.parts[bool(target.anchor):], *parts], hops + 1
    return None


def check_cache_dir(root: Path, *, create: bool) -> bool:
    """Refuse a cache dir another user could write to, or a link of another user's; make it
    (0700) when ``create``."""
    return _checked(root, "the cache dir", create=create, follow=True)


def check_folder(folder: Path) -> bool:
    """Refuse a folder of the cache dir another user could write to, or a link or a file in
    its place; whether it exists."""
    return _checked(folder, "the cache folder", create=False, follow=False)


def checked_folders(root: Path, path: Path, *, write: bool) -> bool:
    """Whether the cache dir ``root`` and ``path``'s folder (no link) exist, both checked;
    with ``write``, both made when missing, the folder with an empty ``path`` in it."""
    return check_cache_dir(root, create=write) and _checked(
        path.parent, "the cache folder", create=write, follow=False, first=path.name)


def open_mark(folder: Path) -> int | None:
    """The use mark of ``folder`` opened, made when missing (a link or a FIFO there is
    removed, never opened); read-only when it cannot be written (flock needs no write
    access); None when the folder is missing or read-only without a mark."""
    if not folder.is_dir() or folder.is_symlink():
        return None
    mark = folder / USED_MARK
    with contextlib.suppress(OSError):
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISREG(mark.lstat().st_mode):
                mark.unlink()
        try:
            return os.open(mark, os.O_WRONLY | os.O_CREAT | _MARK_FLAGS, 0o600)
        except OSError:
            fd = os.open(mark, os.O_RDONLY | _MARK_FLAGS)
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
        os.close(fd)  # a FIFO placed there meanwhile (a read-only open of one succeeds)
    return None


class InUse:
    """A load's hold on its service folder ``folder`` of the cache dir ``root``: the use
    mark touched and a shared ``flock`` on it while the load runs. A prune locks the mark
    exclusively without waiting (:func:`unheld`), so a folder a live load holds is never
    pruned however old its files look (a load may wait on the network for long)."""

    def __init__(self, root: Path, folder: Path) -> None:
        self.root, self.folder = root, folder
        self.holds = 0  #: holds not yet released (:meth:`hold` is re-entrant)
        self._waited = False  # a prune at work is waited for once per object
        self._fds: list[int] = []  # the mark's descriptor while held
        self._closer: weakref.finalize | None = None
        self._touched = False
        self._lock = threading.Lock()  # the pool's threads use the database too

    def hold(self, counted: list[int] | None = None) -> None:
        """One hold more: the first takes the mark if the folder exists and passes its
        checks (a refused one is left untouched, for the load to refuse in its own order; a
        cold load's is taken after the make: :meth:`retake`).

        Counted before anything that can raise, and said so in ``counted`` (given to
        :meth:`release`): call both inside one ``try``/``finally``, so that a Ctrl-C
        anywhere in this call (in the wait, or as the lock is let go) is released there."""
        with self._lock:
            self.holds += 1  # (no signal is raised between these two: no call in between)
            if counted is not None:
                counted.append(1)
            if self.holds == 1:
                with contextlib.suppress(CacheError, OSError):
                    if check_cache_dir(self.root, create=False) and check_folder(self.folder):
                        self._take(wait=True)

    def release(self, counted: list[int] | None = None) -> None:
        """One hold less (none when ``counted`` is given and :meth:`hold` did not count);
        the last lets the folder go, its mark touched (used until now)."""
        if counted is not None and not counted:
            return
        with self._lock:
            self.holds = max(self.holds - 1, 0)
            if self.holds == 0:
                if self._fds:
                    with contextlib.suppress(OSError):
                        touch_mark(self._fds[0], self.folder)
                self._let_go()

    def retake(self) -> None:
        """While held, take the mark if it is not (a cold load's folder made now, a prune at
        work when the load began), or again when the one held was removed (a prune, a
        clear); never waited for."""
        if self.holds and self._lock.acquire(blocking=False):
            try:
                if self._fds and _replaced(self._fds[0], self.folder):
                    self._let_go()
                if self.holds and not self._fds:
                    self._take(wait=False)
            finally:
                self._lock.release()

    def _let_go(self) -> None:
        if self._closer is not None:
            self._closer()
        self._fds, self._closer = [], None

    def _take(self, *, wait: bool) -> None:
        if self._fds or (_FCNTL is None and self._touched):
            return  # no lock to take (Windows): touched once, prune judges by age alone
        if (fd := open_mark(self.folder)) is None:
            return
        fds = [fd]
        try:  # (a Ctrl-C anywhere here closes the descriptor: no hold, no lock left behind)
            with contextlib.suppress(OSError):  # (a mark on a read-only mount: held all the same)
                touch_mark(fd, self.folder)  # (unheld too: a prune looks at its age again)
            self._touched = True
            if _FCNTL is None:
                return
            if not _locked(fd, _FCNTL.LOCK_SH):  # a prune at work
                if not wait or self._waited:
                    return
                self._waited = True
                if not _shared(fd):
                    return
            if not _replaced(fd, self.folder):  # pruned meanwhile
                self._closer = weakref.finalize(self, _close, fds)
                self._fds = fds
        except OSError:
            pass
        finally:
            if not self._fds:
                _close(fds)


def _replaced(fd: int, folder: Path) -> bool:
    """Whether the mark open on ``fd`` is no longer ``folder``'s (removed or replaced)."""
    try:
        held = os.fstat(fd)
        if held.st_nlink == 0:
            return True
        now = os.lstat(folder / USED_MARK)
    except OSError:
        return True
    return (now.st_ino, now.st_dev) != (held.st_ino, held.st_dev)


def touch_mark(fd: int, folder: Path) -> None:
    """Touch the use mark of ``folder`` open on ``fd`` (the file opened, never a link put
    in its place since); one opened read-only in a folder this user may not write either (a
    cache made read-only, ``chmod -R a-w``, which its owner could still touch) is left as it
    is. A mark alone read-only in a folder still written is touched: a folder just used must
    not look unused to a prune."""
    if (_FCNTL is None or _FCNTL.fcntl(fd, _FCNTL.F_GETFL) & os.O_ACCMODE != os.O_RDONLY
            or os.access(folder, os.W_OK)):
        os.utime(fd if os.utime in os.supports_fd else folder / USED_MARK)


def _close(fds: list[int]) -> None:  # once: a hold's finalizer and its error path share fds
    while fds:
        os.close(fds.pop())


def _locked(fd: int, how: int) -> bool:
    """Whether the ``flock`` ``how`` on ``fd`` is taken now (never waited for)."""
    assert _FCNTL is not None
    try:
        _FCNTL.flock(fd, how | _FCNTL.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def _shared(fd: int) -> bool:
    """Wait for the shared ``flock`` on ``fd`` a prune refused: False when it holds the
    mark for longer than :data:`_PRUNE_WAIT` (a stopped prune: never waited for without
    bound)."""
    assert _FCNTL is not None
    deadline = time.monotonic() + _PRUNE_WAIT
    while time.monotonic() < deadline:
        time.sleep(_POLL)
        if _locked(fd, _FCNTL.LOCK_SH):
            return True
    return False


@contextlib.contextmanager
def unheld(folder: Path) -> Iterator[bool]:
    """Whether no load holds ``folder`` (:class:`InUse`), kept for the block: its use mark
    locked exclusively, never waited for. No mark (never made here: a prune writes nothing):
    none holds it; a load that makes it now touches it, and a prune looks at the folder's
    age again under its lock."""
    fd = None
    if _FCNTL is not None and folder.is_dir() and not folder.is_symlink():  # (no flock: age
        with contextlib.suppress(OSError):  # alone judges, and no mark is opened to leak)
            fd = os.open(folder / USED_MARK, os.O_RDONLY | _MARK_FLAGS)
    if fd is None or _FCNTL is None:
        yield True
        return
    try:
        yield _locked(fd, _FCNTL.LOCK_EX)
    finally:
        os.close(fd)

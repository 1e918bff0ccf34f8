"""Claims on profile ids, so that processes sharing a cache dir fetch each profile once.

Before a crawl requests a profile it claims the id; an id claimed by another
live crawl is left to that crawl (which records the outcome in its journal,
where every process sees it). The claims of one service folder live in its
``claims/`` folder:

    claims/<id>.claim          the token of the crawl that holds the id: a symbolic
                               link's text (never followed), or a file's
    claims/owner-<token>.lock  held by that crawl while it is open
    claims/.lock               held while claiming, so two crawls never take one id

A claim whose owner's lock can be taken belongs to a crawl that was closed or
killed: it is void and the id goes to whoever asks next. A claim costs a lock
and one system call per id (making the link).
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import uuid
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType

from ..files import filelock  # imported there without its soft-lock warning

__all__ = ["Claims"]

_TOKEN = re.compile(r"[0-9a-f]{12}")


def _owner_lock(directory: Path, token: str) -> filelock.BaseFileLock:
    return filelock.FileLock(directory / f"owner-{token}.lock", thread_local=False,
                             is_singleton=False)


class Claims:
    """The ids one crawl holds; a context manager, and :meth:`close` releases them all.

    Parameters
    ----------
    directory : path-like
        The ``claims`` folder of a service folder (see
        :meth:`icoframes.store.cache.Cache.claims`).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with Claims(Path(tmp)) as first, Claims(Path(tmp)) as second:
    ...         first.claim([1, 2]), second.claim([2, 3])
    (([1, 2], []), ([3], [2]))
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.token = uuid.uuid4().hex[:12]
        self._alive = _owner_lock(self.dir, self.token)
        self._alive.acquire(timeout=0)  # a fresh name: nobody else holds it
        self._held: set[int] = set()
        self._mutex = threading.Lock()
        # one lock object for the folder, reused: making one per call costs more than using it
        self._folder_lock = filelock.FileLock(self.dir / ".lock", thread_local=False,
                                              is_singleton=False)
        self._closed = False
        self._sweep()

    def __repr__(self) -> str:
        return f"Claims({str(self.dir)!r}, held={len(self._held)})"

    def __enter__(self) -> Claims:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    @property
    def held(self) -> frozenset[int]:
        """The ids this crawl holds now."""
        return frozenset(self._held)

    def claim(self, ids: Iterable[int]) -> tuple[list[int], list[int]]:
        """Claim ``ids``: (mine, taken).

        ``mine`` are the ids this crawl now holds (including ones it held
        already), ``taken`` the ids another live crawl holds; both in the
        order given, each id once.
        """
        wanted = list(dict.fromkeys(int(i) for i in ids))
        mine: list[int] = []
        taken: list[int] = []
        if self._closed:
            raise RuntimeError("these claims were closed")
        with self._mutex, self._folder_lock:
            alive: dict[str | None, bool] = {}
            for ico_id in wanted:
                if ico_id in self._held or self._take(ico_id, alive):
                    self._held.add(ico_id)
                    mine.append(ico_id)
                else:
                    taken.append(ico_id)
        return mine, taken

    def _take(self, ico_id: int, alive: dict[str | None, bool]) -> bool:
        """Take the claim on ``ico_id`` unless a live crawl holds it (the claims lock held)."""
        path = self.dir / f"{ico_id}.claim"
        try:
            _write(path, self.token)
            return True
        except FileExistsError:
            owner = _read(path)
            if owner == self.token:
                return True
            if owner not in alive:
                alive[owner] = self._is_alive(owner)
            if alive[owner]:
                return False
        path.unlink(missing_ok=True)  # a void claim: ours now (no one else claims meanwhile)
        _write(path, self.token)
        return True

    def _is_alive(self, owner: str | None) -> bool:
        """Whether the crawl ``owner`` is open: its lock is held (the claims lock held)."""
        if owner is None or not _TOKEN.fullmatch(owner):
            return False  # unreadable, or torn by a kill between create and write
        lock = _owner_lock(self.dir, owner)
        try:
            lock.acquire(timeout=0)
        except (filelock.Timeout, OSError):  # held; or unknowable here: assume alive
            return True
        lock.release()
        with contextlib.suppress(OSError):
            os.unlink(lock.lock_file)
        return False

    def release(self, ids: Iterable[int]) -> None:
        """Give up ``ids`` (those this crawl holds; others are ignored)."""
        with self._mutex, self._folder_lock:
            for ico_id in {int(i) for i in ids} & self._held:
                self._held.discard(ico_id)
                path = self.dir / f"{ico_id}.claim"
                if _read(path) == self.token:  # not if the folder was cleared meanwhile
                    path.unlink(missing_ok=True)

    def close(self) -> None:
        """Release every claim and the crawl's lock (idempotent)."""
        if self._closed:
            return
        self.release(list(self._held))
        self._closed = True
        self._alive.release()
        with contextlib.suppress(OSError):
            os.unlink(self._alive.lock_file)

    def _sweep(self) -> None:
        """Remove the claims of crawls that are gone, so the folder does not grow."""
        with self._mutex, self._folder_lock:
            alive: dict[str | None, bool] = {self.token: True}
            for path in self.dir.glob("*.claim"):
                owner = _read(path)
                if owner not in alive:
                    alive[owner] = self._is_alive(owner)
                if not alive[owner]:
                    path.unlink(missing_ok=True)


def _write(path: Path, token: str) -> None:
    """Create the claim ``path`` naming ``token``; FileExistsError if there is one.

    A symbolic link whose text is the token: one atomic step (one system call,
    where a file takes three, each giving up the GIL), never seen half-written.
    Where links cannot be made, a file holding the token.
    """
    try:
        os.symlink(token, path)
        return
    except FileExistsError:
        raise
    except OSError:  # no symbolic links here (some file systems, Windows without rights)
        pass
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, token.encode())
    finally:
        os.close(fd)


def _read(path: Path) -> str | None:
    """The token a claim names (a link's text, or a file's); None if gone or unreadable."""
    try:
        return os.readlink(path)
    except FileNotFoundError:
        return None
    except OSError:  # not a link: a claim written as a file
        pass
    try:
        return path.read_text()
    except (FileNotFoundError, UnicodeDecodeError):
        return None

"""SQLite databases in the cache dir: opened safely, in WAL mode, with errors that say what to do.

Every database of the cache (a service folder's ``cache.sqlite3``, the ledgers'
``quota/ledger.sqlite3``) is a :class:`Database`: one connection per process
and file, shared by its threads under a lock, in WAL mode (readers never wait
for the writer) with ``synchronous=NORMAL``: a committed transaction survives a
crash or SIGKILL of the process, not a power cut. Write transactions begin
``IMMEDIATE`` (the write lock first: no deadlock between two upgrading readers).

What is refused or set aside, so that nothing on disk can wedge the package and
no other local user can reach through it:

* a cache dir owned by another user, or that others may write to
  (:class:`~icoframes.errors.CacheError`); a new one is made ``0700``;
* a symbolic link or anything but a plain folder in place of a service folder
  (refused), and anything but a plain file in place of a database or its
  ``-wal``/``-shm`` files (set aside as ``*.corrupt`` with a
  :class:`~icoframes.errors.CacheWarning`): never opened, so a FIFO cannot
  hang a load; the database is opened with ``nofollow=1``;
* a file that is not a database, or a damaged one: set aside as ``*.corrupt``
  (what it held is fetched again);
* a full disk, or a writer stopped while holding the write lock for longer
  than :data:`BUSY_SECONDS`: a :class:`~icoframes.errors.CacheError` naming
  the cause; the transaction is rolled back, so the cache is whole and usable
  once the cause is gone.

A folder this process may not write to (a read-only cache dir, a read-only
mount) is opened read-only (``mode=ro``), or ``immutable=1`` where even that
needs a write (WAL's shared-memory file): warm and offline loads still work.
The cache must live on a local file system (WAL needs shared memory).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar
from urllib.parse import quote

from ..errors import CacheError, CacheWarning, warn

__all__ = ["BUSY_SECONDS", "LEASE", "Database", "check_cache_dir", "disk_full", "from_ms", "ms",
           "private_folder"]

#: Seconds a claim lasts unless renewed (:mod:`.claims`): the longest a load waits for another.
LEASE = 20.0
#: How long a write waits for another process's write transaction (a stopped writer): a lease.
BUSY_SECONDS = LEASE
_SIDE_FILES = ("-wal", "-shm", "-journal")
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def ms(when: dt.datetime) -> int:
    """Milliseconds since the epoch of an aware datetime: how the cache stores times."""
    return (when - _EPOCH) // dt.timedelta(milliseconds=1)


def from_ms(value: int | None) -> dt.datetime | None:
    """The aware UTC datetime of a stored time (None stays None)."""
    return None if value is None else _EPOCH + dt.timedelta(milliseconds=value)


def disk_full(folder: Path, lost: str = "nothing more can be kept") -> CacheError:
    """A full disk, said once for the whole cache: where, what was not kept, what to do."""
    return CacheError(f"the disk holding the cache {folder} is full: {lost}. What was kept "
                      "before is whole; free some space and call again to go on.")


def _owner_problem(info: os.stat_result, path: Path) -> str | None:
    """Why a folder of another user, or writable by others, is not a cache dir to trust."""
    if not hasattr(os, "getuid"):
        return None  # Windows: its ACLs are not modes
    if info.st_uid != os.getuid():
        return (f"it belongs to another user (uid {info.st_uid}; you are uid {os.getuid()}): "
                "whoever owns it could plant data you would load")
    if info.st_mode & 0o022:
        return (f"others may write to it (mode {stat.S_IMODE(info.st_mode):o}): they could "
                f"plant data you would load; `chmod go-w {path}` if it is yours alone")
    return None


def check_cache_dir(root: Path, *, create: bool) -> bool:
    """Refuse a cache dir another user could write to; make it (0700) when ``create``.

    Returns whether it exists. The path may be a link (a cache dir on another
    disk); what it leads to must be a folder of this user that others cannot
    write to.
    """
    try:
        info = root.stat()
    except (FileNotFoundError, NotADirectoryError):
        if not create:
            return False
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = root.stat()
    if not stat.S_ISDIR(info.st_mode):
        raise CacheError(f"the cache dir {root} is not a folder")
    problem = _owner_problem(info, root)
    if problem:
        raise CacheError(f"the cache dir {root} is refused: {problem}. Set ICOFRAMES_CACHE_DIR "
                         "or icoframes.configure(cache_dir=...) to a folder of your own.")
    return True


def private_folder(path: Path, *, create: bool) -> bool:
    """A folder inside the cache dir: a plain folder of this user (never a link); made 0700.

    Returns whether it exists; raises :class:`CacheError` for anything else in its place.
    """
    try:
        info = path.lstat()
    except FileNotFoundError:
        if not create:
            return False
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700)
        info = path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a folder"
        raise CacheError(f"{path} is {kind}: a cache folder is never followed elsewhere. Move "
                         "it away (or set cache_dir to where it points).")
    problem = _owner_problem(info, path)
    if problem:
        raise CacheError(f"the cache folder {path} is refused: {problem}")
    return True


def _set_aside(path: Path, why: str) -> None:
    """Rename ``path`` (a file, a link or a FIFO: never opened) to ``*.corrupt``, and say so."""
    try:
        os.replace(path, path.with_name(path.name + ".corrupt"))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise CacheError(f"{path} is {why} and cannot be set aside ({exc.strerror}); "
                         "remove it") from None
    warn(f"icoframes cache file {path} is {why}; it was set aside as *.corrupt and what it "
         "held will be fetched again", CacheWarning)


def _check_files(path: Path) -> None:
    """A database and its side files are plain files or absent; others are set aside."""
    for candidate in (path, *(path.with_name(path.name + s) for s in _SIDE_FILES)):
        try:
            mode = candidate.lstat().st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(mode):
            _set_aside(candidate, "a symbolic link" if stat.S_ISLNK(mode) else "not a plain file")


def _damaged(exc: sqlite3.DatabaseError) -> bool:
    return getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))


def _full(folder: Path) -> bool:
    try:
        usage = os.statvfs(folder)
    except (OSError, AttributeError):
        return False
    return usage.f_bavail * usage.f_frsize < 1 << 20


class Database:
    """One SQLite file: :meth:`read` and :meth:`write` transactions, schema made on first write.

    Parameters
    ----------
    path : Path
        The database file; its folder must exist before the first write.
    schema : str
        SQL run (idempotently) when the file is opened for writing.
    """

    _open: ClassVar[dict[tuple[int, str], Database]] = {}
    _open_lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def at(cls, path: Path, schema: str) -> Database:
        """The process's database object for ``path`` (one connection per process and file)."""
        key = (os.getpid(), str(path))  # a forked child opens its own
        with cls._open_lock:
            db = cls._open.get(key)
            if db is None:
                db = cls._open[key] = cls(path, schema)
            return db

    @classmethod
    def close_under(cls, folder: Path) -> None:
        """Close this process's connections to databases under ``folder`` (being removed)."""
        with cls._open_lock:
            for db in cls._open.values():
                if db.path.is_relative_to(folder):
                    with db._lock:
                        db.close()

    def __init__(self, path: Path, schema: str) -> None:
        self.path = Path(path)
        self._schema = schema
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None
        self.read_only = False

    def __repr__(self) -> str:
        return f"Database({str(self.path)!r}, read_only={self.read_only})"

    # -- connecting ------------------------------------------------------------------

    def _identify(self) -> tuple[int, int] | None:
        try:
            info = self.path.lstat()
        except FileNotFoundError:
            return None
        return info.st_dev, info.st_ino

    def _connect(self, *, write: bool) -> sqlite3.Connection | None:
        """The connection, (re)opened when the file was replaced or removed; None when there
        is no file and none is to be made. A file that is no database is set aside first."""
        if self._conn is not None and self._identify() == self._identity and not (
                write and self.read_only):
            return self._conn
        self.close()
        for _ in range(2):
            _check_files(self.path)
            if self._identify() is None and not write:
                return None
            uri = f"file:{quote(str(self.path))}?nofollow=1"
            try:
                try:
                    conn = self._open_uri(uri + ("" if write else "&mode=rw"))
                except sqlite3.OperationalError as exc:
                    # read-only is for a folder this process may not write to; a full disk
                    # is said as such (an empty file opened read-only would lack the tables,
                    # and stay in use once space returns)
                    if (write and os.access(self.path.parent, os.W_OK)) or (
                            getattr(exc, "sqlite_errorname", "").startswith("SQLITE_FULL")
                            or _full(self.path.parent)):
                        raise
                    conn = self._open_read_only(uri)
            except sqlite3.DatabaseError as exc:
                if not _damaged(exc):
                    raise
                _set_aside(self.path, f"not a readable database ({exc})")
                continue
            self._conn, self._identity = conn, self._identify()
            return conn
        raise CacheError(f"the cache database {self.path} cannot be made")

    def _open_uri(self, uri: str) -> sqlite3.Connection:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                               timeout=BUSY_SECONDS)
        try:
            self._set_up(conn)
        except BaseException:
            conn.close()
            raise
        self.read_only = False
        return conn

    def _set_up(self, conn: sqlite3.Connection) -> None:
        """WAL mode and the schema, waiting (up to :data:`BUSY_SECONDS`) for another process
        doing the same: SQLite answers a concurrent switch to WAL with SQLITE_BUSY at once,
        without calling the busy handler, so processes making one cache together would fail."""
        deadline, pause = time.monotonic() + BUSY_SECONDS, 0.002
        while True:
            try:
                if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                # a checkpoint every 1 MiB of log, and the log cut back to that: the cache's
                # disk holds the data and a little more, not 4 MiB of log per database
                conn.execute("PRAGMA wal_autocheckpoint=256")
                conn.execute(f"PRAGMA journal_size_limit={1 << 20}")
                conn.executescript(self._schema)
                return
            except sqlite3.OperationalError as exc:
                busy = getattr(exc, "sqlite_errorname", "").startswith("SQLITE_BUSY")
                if not busy or time.monotonic() > deadline:
                    raise
                time.sleep(pause)
                pause = min(2 * pause, 0.05)

    def _open_read_only(self, uri: str) -> sqlite3.Connection:
        for extra in ("&mode=ro", "&mode=ro&immutable=1"):
            try:
                conn = sqlite3.connect(uri + extra, uri=True, isolation_level=None,
                                       check_same_thread=False, timeout=BUSY_SECONDS)
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            except sqlite3.OperationalError:
                continue
            except sqlite3.DatabaseError as exc:  # damaged, and it cannot be set aside here
                raise CacheError(f"the cache database {self.path} is damaged ({exc}) and "
                                 "read-only here; remove it where it can be written") from None
            self.read_only = True
            return conn
        raise CacheError(f"the cache database {self.path} cannot be opened, not even to read")

    def close(self) -> None:
        """Close the connection (the next use opens it again)."""
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
        self._conn, self._identity = None, None

    # -- transactions ------------------------------------------------------------------

    @contextlib.contextmanager
    def read(self) -> Iterator[sqlite3.Connection | None]:
        """A consistent read (one snapshot); yields None while the file does not exist."""
        with self._lock, self._errors():
            conn = self._connect(write=False)
            if conn is None:
                yield None
                return
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: committed when the block ends, rolled back on an error."""
        with self._lock, self._errors():
            conn = self._connect(write=True)
            assert conn is not None
            if self.read_only:
                raise CacheError(f"the cache {self.path.parent} is read-only here: nothing can "
                                 "be kept. Use offline=True, or a writable cache_dir.")
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """SQLite's errors as what they mean here."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            name = getattr(exc, "sqlite_errorname", "")
            if _damaged(exc):
                self.close()
                _set_aside(self.path, f"not a readable database ({exc})")
                raise CacheError(f"the cache database {self.path} was damaged and set aside; "
                                 "call again: what it held will be fetched again") from None
            if name.startswith("SQLITE_FULL") or _full(self.path.parent):
                raise disk_full(self.path.parent) from None
            if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
                raise CacheError(
                    f"the cache {self.path} was locked by another process for over "
                    f"{BUSY_SECONDS:.0f} s (one stopped while writing?); call again once it "
                    "goes on or ends") from None
            if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")):
                raise CacheError(f"the cache {self.path} cannot be written ({exc}); use "
                                 "offline=True or a writable cache_dir") from None
            raise CacheError(f"the cache database {self.path} failed: {exc}") from exc
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise disk_full(self.path.parent) from None
            raise

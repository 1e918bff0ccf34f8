"""SQLite databases in the cache dir: opened safely, in WAL mode, with errors that say what to do.

One :class:`Database` per process and file, shared by its threads under a lock; writes begin
``IMMEDIATE``; a transaction an interrupt left is rolled back. What is refused, set aside as
``*.corrupt`` or read-only, and what a commit survives: ``docs/guide/cache.md``. A folder this
process may not write to (or a read on a full disk) is read ``mode=ro``, or ``immutable=1`` when
no log may hold commits it lacks.
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
from typing import Any, ClassVar, overload
from urllib.parse import quote
from weakref import WeakValueDictionary

from ..errors import CacheError, CacheWarning, warn
from ..files import cleared_or
from . import connections
from .folders import checked_folders

__all__ = ["BUSY_SECONDS", "IDS_IN", "LEASE", "SET_ASIDE", "SIDE_FILES", "SYNC_SECONDS",
           "Database", "InDatabase", "Undecodable", "disk_full", "from_ms", "ms", "open_database",
           "other_layout"]

#: Seconds a claim lasts unless renewed (:mod:`.claims`): the longest a load waits for another.
LEASE = 20.0
#: How long a write waits for another process's write transaction (a stopped writer): a lease.
BUSY_SECONDS = LEASE
#: How long :meth:`Database.sync` waits for the write lock: a read never waits a lease for it.
SYNC_SECONDS = 1.0
#: ``id`` among a list of ids passed as one JSON parameter (``json.dumps``)
IDS_IN = "id IN (SELECT value FROM json_each(?))"
#: SQLite's files beside a database (its name and this): its log, the log's index, its journal.
SIDE_FILES = ("-wal", "-shm", "-journal")
#: A file set aside keeps its name with this after it.
SET_ASIDE = ".corrupt"
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
# the file and its side files as an unreadable one is named, and what to do then
_UNREADABLE = {"": ("", ", or remove it (what it held is then fetched again)"),
               "-wal": ("'s log", " (it may hold commits not in the file yet: keep it)"),
               "-shm": ("'s log index", "")}


def ms(when: dt.datetime) -> int:
    """Milliseconds since the epoch of an aware datetime: how the cache stores times."""
    return (when - _EPOCH) // dt.timedelta(milliseconds=1)


@overload
def from_ms(value: int) -> dt.datetime: ...
@overload
def from_ms(value: int | None) -> dt.datetime | None: ...
def from_ms(value: int | None) -> dt.datetime | None:
    """The aware UTC datetime of a stored time (None stays None)."""
    return None if value is None else _EPOCH + dt.timedelta(milliseconds=value)


def disk_full(folder: Path, lost: str = "nothing more can be kept") -> CacheError:
    """A full disk: where, what was not kept, what to do."""
    return CacheError(f"the disk holding the cache {folder} is full: {lost}. What was kept "
                      "before is whole; free some space and call again to go on.")


def other_layout(path: Path, what: str) -> CacheError:
    """A table of the database ``path`` not laid out as this version writes it (``what``):
    the fix named (a clear does not remove the request ledger, another database)."""
    fix = ("Clear the cache (`icoframes cache clear`, or icoframes.clear_cache()); what it "
           "held is fetched again" if path.name == "cache.sqlite3" else "Remove it")
    return CacheError(f"the cache database {path} is not laid out as this version of "
                      f"icoframes writes it ({what}): another program changed it. {fix}")


class Undecodable(CacheError):
    """A stored text that is not UTF-8 (a damaged byte): the reader sets its row aside."""


def open_database(root: Path, path: Path, schema: str, *, write: bool) -> Database | None:
    """The database ``path`` in a folder of ``root``, both checked now and at each opening."""
    return Database.at(path, schema) if checked_folders(root, path, write=write) else None


class InDatabase:
    """What keeps its rows in the database ``path`` (tables: ``SCHEMA``) of cache dir ``root``."""

    SCHEMA: ClassVar[str]
    root: Path
    path: Path
    _opened: tuple[int, Database] | None = None  # (pid, the database): folders checked once

    def database(self, *, write: bool = True) -> Database | None:
        """The database (:func:`open_database`)."""
        if self._opened is not None and self._opened[0] == os.getpid():
            return self._opened[1]
        if (db := open_database(self.root, self.path, self.SCHEMA, write=write)) is not None:
            self._opened = (os.getpid(), db)
        return db

    def _rows(self, sql: str, *args: object, write: bool = False) -> list[Any]:
        db = self.database(write=write)
        return [] if db is None else db.rows(sql, *args, write=write)

    def write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """A write transaction (:meth:`Database.write`)."""
        return self.database().write()  # type: ignore[union-attr]


def _set_aside(path: Path, why: str) -> None:
    """Rename ``path`` (never opened: it may be a link or a FIFO) to ``*.corrupt``."""
    try:
        os.replace(path, path.with_name(path.name + SET_ASIDE))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise CacheError(f"{path} is {why} and cannot be set aside ({exc.strerror}); "
                         "remove it") from None
    warn(f"icoframes cache file {path} is {why}; it was set aside as *.corrupt and what it "
         "held will be fetched again", CacheWarning)


def _error(exc: BaseException, *names: str) -> bool:
    return getattr(exc, "sqlite_errorname", "").startswith(names)


def _sqlite(uri: str, timeout: float) -> sqlite3.Connection:
    return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                           timeout=timeout)


def _full(exc: BaseException, folder: Path) -> bool:
    if _error(exc, "SQLITE_FULL"):
        return True
    with contextlib.suppress(OSError, AttributeError):
        return (usage := os.statvfs(folder)).f_bavail * usage.f_frsize < 1 << 20
    return False


class Database:
    """One SQLite file: :meth:`read` and :meth:`write` transactions; ``schema`` (SQL, run
    idempotently) made when opened to write, after the settings below (its ``PRAGMA`` win)."""

    _open: ClassVar[WeakValueDictionary[tuple[int, str], Database]] = WeakValueDictionary()
    _open_lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def at(cls, path: Path, schema: str) -> Database:
        """The process's database object for ``path`` (one connection: :mod:`.connections`)."""
        with cls._open_lock:  # (a forked child opens its own)
            if (db := cls._open.get(key := (os.getpid(), str(path)))) is None:
                db = cls._open[key] = cls(path, schema)
            return db

    def __init__(self, path: Path, schema: str) -> None:
        self.path = Path(path)  # <cache dir>/<folder>/<file>
        self._schema = schema
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None
        self.read_only = self._fixed = self._began = False

    def __repr__(self) -> str:
        return f"Database({str(self.path)!r}, read_only={self.read_only})"

    def _identify(self) -> tuple[int, int] | None:
        with contextlib.suppress(FileNotFoundError):
            return (info := self.path.lstat()).st_dev, info.st_ino
        return None

    def _connect(self, *, write: bool) -> sqlite3.Connection | None:
        """The connection, opened again when the file was replaced or removed (the folders
        checked at each opening); None: no file, none to make."""
        if self._conn is not None and self._identify() == self._identity and not (
                write and self.read_only) and not self._fixed:
            connections.used(self)
            return self._conn
        self.close()
        if not checked_folders(self.path.parent.parent, self.path, write=write):
            return None
        for _ in range(2):
            for suffix in ("", *SIDE_FILES):
                with contextlib.suppress(FileNotFoundError):
                    if not stat.S_ISREG(mode := os.lstat(f"{self.path}{suffix}").st_mode):
                        _set_aside(Path(f"{self.path}{suffix}"), "a symbolic link"
                                   if stat.S_ISLNK(mode) else "not a plain file")
            for suffix in _UNREADABLE:  # by access(2): closing a descriptor would drop locks
                if not os.path.lexists(name := f"{self.path}{suffix}"):
                    if not (suffix or write):
                        return None
                elif not os.access(name, os.R_OK, follow_symlinks=False):
                    raise self._unreadable(suffix, errno.EACCES)
            uri = f"file:{quote(str(self.path))}?nofollow=1"
            try:
                try:
                    self._conn = self._open_writable(uri + ("" if write else "&mode=rw"))
                except sqlite3.OperationalError as exc:
                    # read-only is for a folder this process may not write to, and for a read
                    # on a full disk (opening to write makes the log's index): what is cached
                    # is served, and a write there says the disk is full when it comes
                    full = _full(exc, self.path.parent)
                    if write and (full or os.access(self.path.parent, os.W_OK)):
                        raise
                    try:
                        self._conn = self._open_read_only(uri)
                    except CacheError:
                        if full:  # (the log holds commits only its index can show)
                            raise disk_full(self.path.parent) from None
                        raise
            except sqlite3.DatabaseError as exc:
                if not _error(exc, "SQLITE_CORRUPT", "SQLITE_NOTADB"):
                    raise
                _set_aside(self.path, f"not a readable database ({exc})")
                continue
            if os.path.islink(self.path):  # put in place as it was opened: not read
                self.close()
                raise self._unreadable("", errno.ELOOP)
            self._identity = self._identify()
            connections.used(self)
            return self._conn
        raise CacheError(f"the cache database {self.path} cannot be made")

    def _unreadable(self, suffix: str, number: int) -> CacheError:
        return CacheError(f"the cache database{_UNREADABLE[suffix][0]} {self.path}{suffix} "
                          f"cannot be read ({os.strerror(number)}): give this user read and "
                          f"write access to it{_UNREADABLE[suffix][1]}")

    def _open_writable(self, uri: str) -> sqlite3.Connection:
        # WAL mode and the schema, waiting for another process doing the same (SQLite
        # answers a concurrent switch to WAL with SQLITE_BUSY at once, not after busy_timeout)
        conn = _sqlite(uri, BUSY_SECONDS)
        deadline, pause = time.monotonic() + BUSY_SECONDS, 0.002
        try:
            while True:
                try:
                    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                        if not conn.execute("PRAGMA page_count").fetchone()[0]:
                            # a new file holds nothing to lose (NORMAL is set below)
                            conn.execute("PRAGMA synchronous=OFF")
                        conn.execute("PRAGMA journal_mode=WAL")
                    # a checkpoint (3 fdatasync calls in the committing thread, which hands out
                    # a load's requests) every 4 MiB of log: a cold load (3 MiB) needs none
                    conn.executescript("PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint="
                                       f"1024; PRAGMA journal_size_limit={4 << 20};"
                                       + self._schema)
                    break
                except sqlite3.OperationalError as exc:
                    if not _error(exc, "SQLITE_BUSY") or time.monotonic() > deadline:
                        raise
                    time.sleep(pause)
                    pause = min(2 * pause, 0.05)
        except BaseException:
            conn.close()
            raise
        self.read_only = self._fixed = False
        return conn

    def _open_read_only(self, uri: str) -> sqlite3.Connection | None:
        """``mode=ro`` (needs ``-shm``), else ``immutable=1`` unless a log may hold commits."""
        for extra in ("&mode=ro", "&mode=ro&immutable=1"):
            with contextlib.suppress(FileNotFoundError):
                if extra.endswith("1") and os.stat(log := f"{self.path}-wal").st_size:
                    # (a log left after a checkpoint holds none: only its index tells)
                    raise CacheError(f"the cache database {self.path} cannot be read here: its "
                                     f"log {log} may hold commits that are not in the file, "
                                     "and SQLite reads a log only with its index (-shm), which "
                                     "cannot be made in a folder that cannot be written. Open "
                                     "the cache once where it can be written (`icoframes "
                                     "cache info` there folds the log into the file)")
            conn: sqlite3.Connection | None = None
            try:
                conn = _sqlite(uri + extra, BUSY_SECONDS)
                tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            except sqlite3.DatabaseError as exc:
                if conn is not None:  # closed now: the garbage collector would keep it open
                    conn.close()
                if isinstance(exc, sqlite3.OperationalError):
                    continue  # (else damaged, and it cannot be set aside here)
                raise CacheError(f"the cache database {self.path} is damaged ({exc}) and "
                                 "read-only here; remove it where it can be written") from None
            self.read_only, self._fixed = True, extra.endswith("1")
            if not tables:  # an empty file: nothing was cached
                conn.close()
                return None
            return conn
        raise cleared_or("the cache database", self.path, "cannot be opened, not even to read")

    def rows(self, sql: str, *args: object, write: bool = False) -> list[Any]:
        """The rows of one statement, its own transaction (none while no file exists)."""
        with self._lock, self._errors():
            conn = self._healed(self._writable() if write else self._connect(write=False))
            return [] if conn is None else conn.execute(sql, args).fetchall()

    def close(self) -> None:  # (the next use opens it again)
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            connections.closed(self)
        self._conn, self._identity = None, None

    @contextlib.contextmanager
    def read(self) -> Iterator[sqlite3.Connection | None]:
        """A consistent read (one snapshot); yields None while the file does not exist."""
        with self._lock, self._errors():
            if (conn := self._connect(write=False)) is None:
                yield None
            else:
                yield from self._transaction(conn, "BEGIN")

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: committed when the block ends, rolled back on an error."""
        with self._lock, self._errors():
            yield from self._transaction(self._writable(), "BEGIN IMMEDIATE")

    def _transaction(self, conn: sqlite3.Connection, begin: str) -> Iterator[sqlite3.Connection]:
        outer = self._began
        self._healed(conn)
        try:
            self._began = True
            conn.execute(begin)
            yield conn
        except BaseException:
            self._began = outer
            self._healed(conn)
            raise
        self._began = outer
        conn.execute("COMMIT")

    def _healed(self, conn: Any) -> Any:  # out of a transaction an interrupted call left
        if conn is not None and conn.in_transaction and not self._began:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        return conn

    def _writable(self) -> sqlite3.Connection:
        conn = self._connect(write=True)
        if conn is None or self.read_only:
            raise CacheError(f"the cache {self.path.parent} is read-only here: nothing can "
                             "be kept. Use offline=True, or a writable cache_dir.")
        return conn

    def sync(self) -> bool:
        """Make every commit durable (others' too), as a version written down elsewhere (the
        tables' state) must not outlive its commit at a power cut: a commit under
        ``synchronous=FULL`` on a connection of its own; False when another process held the
        write lock :data:`SYNC_SECONDS`. Only the plain file opened is written."""
        if self.read_only or (ident := self._identify()) is None:
            return True
        refused = CacheError(f"the cache database {self.path} cannot be synced: it was replaced")
        if not stat.S_ISREG(os.lstat(self.path).st_mode) or self._identity not in (None, ident):
            raise refused
        try:
            with contextlib.closing(_sqlite(f"file:{quote(str(self.path))}?mode=rw&nofollow=1",
                                            SYNC_SECONDS)) as conn:
                conn.execute("PRAGMA synchronous=FULL")
                conn.execute("BEGIN IMMEDIATE")
                if conn.execute("PRAGMA database_list").fetchone()[2] != os.path.join(
                        os.path.realpath(self.path.parent), self.path.name
                ) or self._identify() != ident:  # swapped as it was opened: never written
                    raise refused  # (closing the connection rolls its transaction back)
                version = int(conn.execute("PRAGMA user_version").fetchone()[0])
                conn.execute(f"PRAGMA user_version={version}")
                conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if _full(exc, self.path.parent):
                raise disk_full(self.path.parent) from None
            if _error(exc, "SQLITE_BUSY", "SQLITE_LOCKED"):
                return False
            connections.check_open_files(self.path, exc)
            if os.path.lexists(self.path) or not _error(exc, "SQLITE_CANTOPEN"):  # (else none)
                raise CacheError(f"the cache database {self.path} cannot be synced: {exc}") from exc
        return True

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if _error(exc, "SQLITE_CORRUPT", "SQLITE_NOTADB"):
                self.close()
                _set_aside(self.path, f"not a readable database ({exc})")
                raise CacheError(f"the cache database {self.path} was damaged and set aside; "
                                 "call again: what it held will be fetched again") from None
            if _full(exc, self.path.parent):
                raise disk_full(self.path.parent) from None
            if _error(exc, "SQLITE_BUSY", "SQLITE_LOCKED"):
                raise CacheError(f"the cache {self.path} was locked by another process for over"
                                 f" {BUSY_SECONDS:.0f} s (one stopped while writing?); call "
                                 "again once it goes on or ends") from None
            connections.check_open_files(self.path, exc)
            if _error(exc, "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM"):
                raise CacheError(f"the cache {self.path} cannot be written ({exc}); use "
                                 "offline=True or a writable cache_dir") from None
            if "no such column" in str(exc) or "has no column named" in str(exc):
                raise other_layout(self.path, str(exc)) from None
            if str(exc).startswith("Could not decode to UTF-8"):  # (Python's, not SQLite's)
                raise Undecodable(f"the cache database {self.path}: {exc}") from None
            raise CacheError(f"the cache database {self.path} failed: {exc}") from exc
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise disk_full(self.path.parent) from None
            connections.check_open_files(self.path, exc)
            raise

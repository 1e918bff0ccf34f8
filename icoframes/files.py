"""File primitives every writer shares: atomic writes, a portable lock, the UTC clock.

This is the bottom of the package (only :mod:`icoframes.errors` is lower):
:class:`~icoframes.tables.Tables` writes its Parquet files through it, and so
does the store, so it cannot live inside ``store/`` without an upward import.

* Atomic writes: a file is written to a new temporary file in its folder (a
  random name, created with ``O_EXCL | O_NOFOLLOW``), flushed and fsync'ed,
  then renamed over the target, so a reader sees the old or the new file,
  never half of one, and nothing planted at the temporary name is written through.
* Locks: :func:`locked` holds an exclusive lock file across threads and
  processes through :mod:`filelock` (``flock`` where ``fcntl`` exists, the
  Windows API on Windows, a lock-file fallback elsewhere: that one cannot tell
  a lock left by a killed process, so it is the last resort), or a shared
  ``flock`` on the same file for readers.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import functools
import importlib.util
import json
import os
import secrets
import stat
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO, Final, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import CacheError, ExportMismatch
from .holders import held_or_taken, tried
from .textdtype import neutral_text

with warnings.catch_warnings():
    # Without fcntl (and not on Windows) filelock falls back to lock files and says so at
    # import; that fallback is the documented behaviour here, not news for every user.
    warnings.filterwarnings("ignore", message="only soft file lock is available")
    import filelock

__all__ = [
    "CLEARED",
    "atomic_write_bytes",
    "atomic_write_table",
    "cleared",
    "cleared_or",
    "concurrently",
    "entry_kind",
    "filelock",
    "json_object",
    "locked",
    "not_a_folder",
    "nothing_at",
    "read_parquet_columns",
    "read_parquet_table",
    "read_record",
    "removed_meanwhile",
    "today",
    "utc_time",
    "utcnow",
]

# errors of creating or opening a lock file in a folder this process may not write to
_READ_ONLY = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
_ATTEMPTS = 20  # of taking a lock whose folder housekeeping removes meanwhile
_WRITERS = 4  # files written at once by :func:`concurrently`
_T = TypeVar("_T")
_HAS_FCNTL = importlib.util.find_spec("fcntl") is not None  # flock: shared locks (not Windows)


def utcnow() -> dt.datetime:
    """The current time, timezone-aware UTC."""
    return dt.datetime.now(dt.UTC)


def utc_time(stamp: object) -> dt.datetime | None:
    """A manifest's time (ISO 8601), in UTC: one without a time zone (by hand, or an older
    version) is UTC, one with another offset is converted; None for any other value.

    Examples
    --------
    >>> utc_time("2026-11-20T03:15:00"), utc_time("yesterday"), utc_time(None)
    (datetime.datetime(2026, 11, 20, 3, 15, tzinfo=datetime.timezone.utc), None, None)
    >>> utc_time("2026-11-20T01:00:00-05:00").isoformat()
    '2026-11-20T06:00:00+00:00'
    """
    try:
        at = dt.datetime.fromisoformat(stamp) if isinstance(stamp, str) else None
        return None if at is None else at.replace(tzinfo=dt.UTC) if at.tzinfo is None \
            else at.astimezone(dt.UTC)
    except (ValueError, OverflowError):  # not a time; or one with no UTC time (year 0 or 10000)
        return None


def today() -> str:
    """The current UTC date as ``YYYY-MM-DD`` (the service's day, as far as we know)."""
    return utcnow().date().isoformat()


# A temporary file is created, never opened: a name nobody can guess, O_EXCL (never an
# existing file, nor a link planted at the name) and O_NOFOLLOW.
_CREATE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
           | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


@contextlib.contextmanager
def _temporary(path: Path) -> Iterator[BinaryIO]:
    """A new file beside ``path``, renamed over it when the block ends without an error."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(16)}.tmp")
    fd = os.open(tmp, _CREATE, 0o666)  # less the umask, as any new file
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers never see a partial file."""
    with _temporary(Path(path)) as fh:
        fh.write(data)


def atomic_write_table(table: pa.Table, path: Path) -> None:
    """Write an Arrow table as zstd Parquet to ``path`` atomically (temp file + fsync + rename),
    its text columns left to each reader's own pandas text dtype
    (:func:`~icoframes.textdtype.neutral_text`)."""
    with _temporary(Path(path)) as fh:
        pq.write_table(neutral_text(table), fh, compression="zstd")


def read_parquet_table(path: Path) -> pa.Table:
    """A Parquet file as an Arrow table, the file closed on return (not left to an Arrow I/O
    thread as by ``pq.read_table(path)``: its folder could not be unmounted right after), never
    opened through a link nor waited on as a FIFO (:func:`read_record`'s rule): ExportMismatch
    naming it damaged; FileNotFoundError if absent."""
    return read_parquet_columns(path, None)[1]


def read_parquet_columns(path: Path, columns: list[str] | None) -> tuple[pa.Schema, pa.Table]:
    """A Parquet file's schema and its ``columns`` alone (None: all; one it lacks left out),
    as :func:`read_parquet_table` reads it: no other column decoded."""
    with os.fdopen(_open_regular(path), "rb") as file:  # read whole: closed on return
        data = pa.BufferReader(file.read())
    schema = (parquet := pq.ParquetFile(data)).schema_arrow  # its footer parsed once
    held = None if columns is None else [c for c in columns if c in schema.names]
    # on this thread: a pool task freeing the bytes at exit aborts ("terminate called ...")
    return schema, parquet.read(columns=held, use_threads=False)


def concurrently(write: Callable[[_T], object], items: Iterable[_T]) -> None:
    """``write(item)`` for every item, a few at once, all done on return (the first error
    raised then). For files written side by side: Arrow encodes and fsync waits without
    the GIL, so eleven table files take about a third of the time they take in turn."""
    with ThreadPoolExecutor(_WRITERS, thread_name_prefix="icoframes-write") as pool:
        list(pool.map(write, items))


@contextlib.contextmanager
def locked(path: Path, *, shared: bool = False, wait: float | None = None) -> Iterator[None]:
    """Hold the lock ``path`` (created when missing) across threads and processes:
    exclusive, or ``shared`` with other shared holders (readers of files that exclusive
    holders replace; where ``fcntl`` does not exist, shared is exclusive).

    Each call opens its own lock, so two threads of one process exclude each
    other as two processes do. The lock file is left in place on release.
    Housekeeping deletes it with the folder it guards, while holding it: a
    waiter that then gets the unlinked file sees so (filelock checks its link
    count; the shared lock checks it too) and starts over, here on a new file
    in a new folder.

    In a folder this process cannot write to (a read-only cache dir), the lock
    file cannot be created or opened for writing, and the body runs without
    the lock: the lock only keeps readers from seeing a multi-file update half
    done, and this process cannot write there at all; other writers (another
    user's processes) replace every file atomically, so a read still sees
    whole files. Anything but a plain file at ``path`` (a link, a FIFO) is
    removed, never opened.

    ``wait`` bounds the wait for the lock, in seconds (None: none): past it,
    :class:`~icoframes.holders.LockHeld` (a CacheError) names the holder when the
    system tells. A holder stopped (Ctrl-Z, a debugger) would otherwise hang this one.
    """
    path = Path(path)
    take = _flock_shared if shared and _HAS_FCNTL else _file_lock
    for attempt in range(_ATTEMPTS):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileNotFoundError):
                if not stat.S_ISREG(mode := path.lstat().st_mode):
                    if stat.S_ISDIR(mode):  # (may hold someone's files: not removed)
                        raise CacheError(f"the lock file {path} is a folder: move it out of "
                                         "the way (or remove it), then run again")
                    path.unlink()
            release = take(path, wait)
        except FileNotFoundError:  # the folder was removed (housekeeping) while we waited
            if attempt == _ATTEMPTS - 1:
                raise
            continue
        except OSError as exc:
            if exc.errno not in _READ_ONLY or os.access(path.parent, os.W_OK):
                raise
            break  # a read-only folder: nobody here can write to it, nothing to exclude
        if release is None:  # the file was removed while we waited for it: start over
            if attempt == _ATTEMPTS - 1:  # never run the body unlocked in a writable folder
                raise FileNotFoundError(errno.ENOENT, f"the lock file was removed each of "
                                        f"{_ATTEMPTS} times it was taken", str(path))
            continue
        try:
            yield
        finally:
            release()
        return
    yield


def _file_lock(path: Path, wait: float | None = None) -> Callable[[], object]:
    """Take the exclusive lock ``path`` (filelock), waiting at most ``wait`` seconds (None:
    without bound); its release."""
    lock = filelock.FileLock(path, thread_local=False, is_singleton=False)
    try:
        lock.acquire(timeout=-1 if wait is None else wait, poll_interval=_POLL)
    except filelock.Timeout:
        if held := held_or_taken(path, wait or 0.0,
                                 functools.partial(tried, lock.acquire, blocking=False)):
            raise held from None
    return lock.release


_POLL: Final = 0.05  # seconds between two tries of a lock whose wait is bounded


def _flock_shared(path: Path, wait: float | None = None) -> Callable[[], object] | None:
    """Take a shared ``flock`` on the file ``path`` (the one filelock locks exclusively),
    waiting at most ``wait`` seconds (None: without bound); its release, or None when the
    file was unlinked while we waited (no lock held)."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        if wait is None:
            fcntl.flock(fd, fcntl.LOCK_SH)
        else:  # flock has no timeout: tried until the wait is over
            take = functools.partial(tried, fcntl.flock, fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            deadline = time.monotonic() + wait
            while not take():
                if time.monotonic() >= deadline:
                    if held := held_or_taken(path, wait, take):
                        raise held from None
                    break
                time.sleep(_POLL)
        if os.fstat(fd).st_nlink:
            return functools.partial(os.close, fd)  # closing releases the flock
    except OSError as exc:
        os.close(fd)
        if exc.errno not in (errno.ENOSYS, errno.EOPNOTSUPP):
            raise
        return _file_lock(path, wait)  # no flock on this file system: filelock's fallback
    except BaseException:
        os.close(fd)
        raise
    os.close(fd)
    return None


#: Why something a call found is gone: a clear run by another process (or thread) while a
#: load used the cache. The OS's "No such file or directory" was said as a cache dir that
#: is not writable (a setting to change) or a database that cannot be opened (damaged).
CLEARED: Final = ("a clear of the cache (icoframes cache clear, clear_cache or prune_cache) "
                  "removed it meanwhile")


def removed_meanwhile(path: str | os.PathLike[str]) -> bool:
    """Whether nothing is at ``path`` (not even a link): removed since it was found."""
    return not os.path.lexists(path)


def cleared(what: str, path: str | os.PathLike[str]) -> CacheError:
    """The error of a call that found ``what`` (``"the cache folder"``) at ``path``, then
    did not: :data:`CLEARED`; calling again is all there is to do."""
    return CacheError(f"{what} {Path(path)} was removed while this call was using it: "
                      f"{CLEARED}. Nothing is wrong with the settings or the files: call again")


def cleared_or(what: str, path: str | os.PathLike[str], why: str) -> CacheError:
    """The error of a file ``path`` that could not be opened: :func:`cleared` when nothing
    is there now and its folder is gone or may be written (where a file is made when
    missing, only a file found and then removed is missing); else the CacheError
    "``what`` ``path`` ``why``" (a file never made in a folder this user may not write)."""
    folder = os.path.dirname(path)
    if removed_meanwhile(path) and (removed_meanwhile(folder) or os.access(folder, os.W_OK)):
        return cleared(what, path)
    return CacheError(f"{what} {path} {why}")


#: Bytes a record (an export's manifest) holds at most: a larger one is damage, never read whole.
RECORD_CAP: Final = 64 * 2**20
_KINDS: Final = ((stat.S_ISREG, "a file"), (stat.S_ISLNK, "a symbolic link"),
                 (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
                 (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def entry_kind(path: Path) -> str | None:
    """What ``path`` itself is, links not followed: "a file" (regular), "a symbolic link",
    "a folder", "a FIFO", "a device", "a socket"; None when there is nothing there."""
    try:
        return _kind(path.lstat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return None


def not_a_folder(path: Path) -> str | None:
    """Why no folder can be at ``path`` (links followed): ``"it is a FIFO"``, or a folder on
    its way is something else (``"/x/notes.txt on its way is a file"``); None when ``path``
    is a folder, or nothing is in the way of making one.

    The one test of a folder argument (``Tables.read_parquet``'s, ``export_tables``'
    ``out``): such a path was the OS's bare NotADirectoryError, or "File exists".

    Examples
    --------
    >>> not_a_folder(Path("/dev/null")), not_a_folder(Path("/dev/null/x")), not_a_folder(Path("/"))
    ('it is a device', '/dev/null on its way is a device', None)
    """
    for at in (path, *path.parents):
        try:
            mode = at.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):  # nothing there; or a file above
            continue
        except OSError:  # not ours to look at (permissions): the folder's user says
            return None
        if stat.S_ISDIR(mode):
            return None
        return f"it is {_kind(mode)}" if at == path else f"{at} on its way is {_kind(mode)}"
    return None


def nothing_at(path: Path) -> str:
    """Why no folder is at ``path``: ``"nothing is there"``, or the symbolic link that is the
    cause, ``path`` or a folder on its way, a link to nothing or a link that loops (said
    "nothing is there" too, which sent the user looking for a folder, not at the link).

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "day").symlink_to("gone"), (root / "loop").symlink_to("loop")
    (None, None)
    >>> nothing_at(root / "day"), nothing_at(root / "nothing")
    ("it is a symbolic link to 'gone', which names nothing", 'nothing is there')
    >>> nothing_at(root / "loop")
    'it is a symbolic link that loops (it leads back to itself)'
    >>> nothing_at(root / "day" / "x") == f"{root / 'day'} on its way is " + nothing_at(
    ...     root / "day")[len("it is "):]
    True
    """
    for at in (path, *path.parents):
        if not os.path.lexists(at):
            continue  # nothing there: what is above may be the link
        if not at.is_symlink() or os.path.exists(at):
            break  # something is there, and no broken link
        try:
            os.stat(at)
            break  # there meanwhile
        except OSError as error:
            what = ("a symbolic link that loops (it leads back to itself)"
                    if error.errno == errno.ELOOP else
                    f"a symbolic link to {os.readlink(at)!r}, which names nothing")
        return f"it is {what}" if at == path else f"{at} on its way is {what}"
    return "nothing is there"


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_record(path: Path, *, cap: int = RECORD_CAP) -> bytes | None:
    """The bytes of the regular file ``path``, or None when there is none (nor a folder on
    its way). Never opened through a symlink, nor waited on as a FIFO, nor read past ``cap``.

    Raises
    ------
    ExportMismatch
        Naming ``path`` as damaged: a symlink, a FIFO, a folder, a device, or over ``cap`` bytes.
    """
    try:
        fd = _open_regular(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    with os.fdopen(fd, "rb") as file:
        raw = file.read(cap + 1)
    if len(raw) > cap:
        raise ExportMismatch(f"{path} is damaged (over {cap} bytes)")
    return raw


def _open_regular(path: Path) -> int:
    """A descriptor of the regular file ``path``, opened without following a symbolic link
    nor waiting for a FIFO's writer; ExportMismatch naming ``path`` damaged when it is not one."""
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno != errno.ELOOP:
            raise
        raise ExportMismatch(f"{path} is damaged (a symbolic link: never followed)") from None
    try:
        mode = os.fstat(fd).st_mode
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):  # a folder is not even wrapped: fdopen refuses one
        os.close(fd)
        raise ExportMismatch(f"{path} is damaged ({_kind(mode)}, not a regular file)")
    return fd


def json_object(raw: bytes, path: Path) -> dict[str, Any]:
    """The JSON object the file ``path`` holds (``raw``, its bytes).

    Raises
    ------
    ExportMismatch
        Naming ``path`` as damaged: not JSON (empty, truncated, nested too deep), not
        UTF-8, or JSON but not an object (``[1]``, ``5``).
    """
    try:
        value = json.loads(raw)
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError
        raise ExportMismatch(f"{path} is damaged (not JSON: {e})") from None
    except RecursionError:  # "[" * 200000: nested deeper than the parser recurses
        raise ExportMismatch(f"{path} is damaged (JSON nested too deep to read)") from None
    if not isinstance(value, dict):
        raise ExportMismatch(f"{path} is damaged (JSON, but not an object: {type(value).__name__})")
    return value

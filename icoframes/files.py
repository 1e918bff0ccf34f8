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
import math
import numbers
import os
import secrets
import stat
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO, Final, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .errors import InvalidParameter, quoted
from .numerals import TOO_MANY_SECONDS, number_text

with warnings.catch_warnings():
    # Without fcntl (and not on Windows) filelock falls back to lock files and says so at
    # import; that fallback is the documented behaviour here, not news for every user.
    warnings.filterwarnings("ignore", message="only soft file lock is available")
    import filelock

__all__ = [
    "EMPTY_PATH",
    "age_hint",
    "as_age",
    "atomic_write_bytes",
    "atomic_write_table",
    "concurrently",
    "expanded_path",
    "folder_flock",
    "folder_path",
    "is_empty_path",
    "json_object",
    "locked",
    "numpy_duration",
    "read_parquet_table",
    "read_record",
    "today",
    "utcnow",
]

# errors of creating or opening a lock file in a folder this process may not write to
_READ_ONLY = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
_ATTEMPTS = 20  # of taking a lock whose folder housekeeping removes meanwhile
_WRITERS = 4  # files written at once by :func:`concurrently`
_T = TypeVar("_T")
_HAS_FCNTL = importlib.util.find_spec("fcntl") is not None  # flock: shared locks (not Windows)


#: What an empty path is, said once for every path argument (configure's ``cache_dir``,
#: a function's folder, a command's ``--out``): ``Path("")`` is the current directory,
#: where nobody meant to write.
EMPTY_PATH: Final = "an empty path (that would be the current directory; say '.')"


def is_empty_path(value: object) -> bool:
    """Whether ``value`` is a text of blanks only: :data:`EMPTY_PATH`, refused."""
    return isinstance(value, str) and not value.strip()


def expanded_path(value: Any) -> Path:
    """A path setting (``cache_dir``) as a Path, ``~`` expanded; ValueError for
    :data:`EMPTY_PATH` (the setting's check names it)."""
    if is_empty_path(value):
        raise ValueError(f"is {EMPTY_PATH}")
    return Path(value).expanduser()


#: The longest file name and path Linux file systems hold (NAME_MAX, PATH_MAX), in bytes.
_NAME_MAX, _PATH_MAX = 255, 4096


def folder_path(value: object, name: str) -> Path:
    """A folder argument as a Path: InvalidParameter for an empty one
    (:data:`EMPTY_PATH`) or a value that is no path."""
    if is_empty_path(value):
        raise InvalidParameter(f"{name}={quoted(value)} is {EMPTY_PATH}")
    if not isinstance(value, str | os.PathLike):
        raise InvalidParameter(f"{name} must be a folder path (str or os.PathLike), got "
                               f"{quoted(value)}")
    # a name no file system holds: stat() raised a bare "File name too long", quoting it whole
    if len(os.fsencode(value)) > _PATH_MAX or any(
            len(os.fsencode(part)) > _NAME_MAX for part in Path(value).parts):
        raise InvalidParameter(f"{name}={quoted(os.fspath(value))} is no path a file system "
                               f"holds (a name over {_NAME_MAX} bytes, or over {_PATH_MAX} "
                               "in all)")
    return Path(value)


def utcnow() -> dt.datetime:
    """The current time, timezone-aware UTC."""
    return dt.datetime.now(dt.UTC)


def numpy_duration(value: np.timedelta64) -> pd.Timedelta | None:
    """A NumPy timedelta64 as :class:`pandas.Timedelta` reads it, or None when it is no
    duration: NaT, a count without a unit (NumPy's generic unit: 7 nanoseconds to pandas,
    a week to a reader), years or months (of no fixed length), or beyond pandas' range.

    The one rule for a timedelta64 argument (``max_age``, ``rate_max_age``...).

    Examples
    --------
    >>> numpy_duration(np.timedelta64(7, "D")), numpy_duration(np.timedelta64(7))
    (Timedelta('7 days 00:00:00'), None)
    >>> numpy_duration(np.timedelta64(1, "Y")), numpy_duration(np.timedelta64(10**15, "D"))
    (None, None)
    """
    if np.isnat(value) or np.datetime_data(value.dtype)[0] == "generic":
        return None
    try:
        return pd.Timedelta(value)
    except (ValueError, OverflowError):  # a unit pandas refuses, or out of its bounds
        return None


def as_age(value: object) -> dt.timedelta | None:
    """``value`` as an age of 0 or more, or None when it is none.

    A timedelta (a pandas Timedelta, a NumPy timedelta64 with a unit: see
    :func:`numpy_duration`), or a real number of seconds (a NumPy number or a
    Fraction too; never a bool) that a timedelta holds: infinity, NaN, NaT and the
    negative are no age.

    Examples
    --------
    >>> as_age(90), as_age(np.int64(90)), as_age(np.timedelta64(90, "s"))
    (datetime.timedelta(seconds=90), datetime.timedelta(seconds=90), datetime.timedelta(seconds=90))
    >>> as_age(True), as_age(float("inf")), as_age(-1), as_age("90"), as_age(np.timedelta64(90))
    (None, None, None, None, None)
    """
    if isinstance(value, np.timedelta64):
        duration = numpy_duration(value)
        value = None if duration is None else duration.to_pytimedelta()
    if (seconds := _seconds(value)) is not None:
        value = dt.timedelta(seconds=seconds) if 0 <= seconds < TOO_MANY_SECONDS else None
    if isinstance(value, dt.timedelta) and value >= dt.timedelta(0):
        return value
    return None


def _seconds(value: object) -> float | None:
    """``value`` as a number of seconds when it is one (a real number, never a bool nor a
    timedelta64): an int past float's range (10**400) is infinite; NaN stays NaN."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool | np.bool_ | np.timedelta64):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf


def age_hint(value: object) -> str:
    """What to add to the refusal of an age :func:`as_age` refuses: the "did you mean" of one
    given as text, ``"90"`` (seconds: 90) or ``"1D"`` (``pd.Timedelta('1D')``); why a finite
    number of seconds is refused when a timedelta cannot hold it; else ``""``.

    Examples
    --------
    >>> age_hint("90"), age_hint(" 1 day "), age_hint("soon"), age_hint("-1D"), age_hint(90)
    ('; did you mean 90?', "; did you mean pd.Timedelta('1 day')?", '', '', '')
    >>> age_hint(1e308), age_hint(float("inf"))
    (' (more seconds than a timedelta holds: below 8.64e+13)', '')
    """
    if not isinstance(value, str):
        finite = _seconds(value) is not None and value < math.inf  # type: ignore[operator]
        if finite and value >= TOO_MANY_SECONDS:  # type: ignore[operator]  # 10**400 too
            return f" (more seconds than a timedelta holds: below {TOO_MANY_SECONDS:.3g})"
        return ""
    seconds = number_text(value)  # ASCII digits only, as every number given as text
    if seconds is not None:
        return f"; did you mean {seconds}?" if 0 <= seconds < TOO_MANY_SECONDS else ""
    try:  # str(): pandas 2.2's parser takes an exact str only
        age = pd.Timedelta(str(value).strip())
    except (ValueError, OverflowError):
        return ""
    return f"; did you mean pd.Timedelta({value.strip()!r})?" if age >= pd.Timedelta(0) else ""


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
    """Write an Arrow table as zstd Parquet to ``path`` atomically (temp file + fsync + rename)."""
    with _temporary(Path(path)) as fh:
        pq.write_table(table, fh, compression="zstd")


def read_parquet_table(path: Path) -> pa.Table:
    """A Parquet file as an Arrow table, the file closed when this returns.

    ``pq.read_table(path)`` leaves closing the file to one of Arrow's I/O threads, a
    moment after it returns (about 1 read in 3 still had it open at return): the folder
    could then not be unmounted (and on Windows the file not replaced) right after a read.
    """
    with pa.OSFile(str(path), "r") as source:
        return pq.read_table(source)


def concurrently(write: Callable[[_T], object], items: Iterable[_T]) -> None:
    """``write(item)`` for every item, a few at once, all done on return (the first error
    raised then). For files written side by side: Arrow encodes and fsync waits without
    the GIL, so eleven table files take about a third of the time they take in turn."""
    with ThreadPoolExecutor(_WRITERS, thread_name_prefix="icoframes-write") as pool:
        for _ in pool.map(write, items):
            pass


@contextlib.contextmanager
def locked(path: Path, *, shared: bool = False) -> Iterator[None]:
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
    """
    path = Path(path)
    take = _flock_shared if shared and _HAS_FCNTL else _file_lock
    for attempt in range(_ATTEMPTS):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileNotFoundError):
                if not stat.S_ISREG(path.lstat().st_mode):
                    path.unlink()
            release = take(path)
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


def _file_lock(path: Path) -> Callable[[], object]:
    """Take the exclusive lock ``path`` (filelock); its release."""
    lock = filelock.FileLock(path, thread_local=False, is_singleton=False)
    lock.acquire()
    return lock.release


def _flock_shared(path: Path) -> Callable[[], object] | None:
    """Take a shared ``flock`` on the file ``path`` (the one filelock locks exclusively);
    its release, or None when the file was unlinked while we waited (no lock held)."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        if os.fstat(fd).st_nlink:
            return functools.partial(os.close, fd)  # closing releases the flock
    except OSError as exc:
        os.close(fd)
        if exc.errno not in (errno.ENOSYS, errno.EOPNOTSUPP):
            raise
        return _file_lock(path)  # no flock on this file system: filelock's fallback
    except BaseException:
        os.close(fd)
        raise
    os.close(fd)
    return None


@contextlib.contextmanager
def folder_flock(folder: Path, *, shared: bool = False, block: bool = True) -> Iterator[bool]:
    """``flock`` on the folder ``folder`` itself (no file is left in it): exclusive for an
    export swapping its files in, shared for a reader waiting for that swap to end.

    Yields whether the lock is held: False only with ``block=False`` when another holds it
    (exclusively, for ``shared``). ImportError where ``fcntl`` does not exist (Windows).
    """
    import fcntl

    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
                        | (0 if block else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # releases the flock


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


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_record(path: Path, *, cap: int = RECORD_CAP) -> bytes | None:
    """The bytes of the regular file ``path``, or None when there is none (nor a folder on
    its way). Never opened through a symlink, nor waited on as a FIFO, nor read past ``cap``.

    Raises
    ------
    ValueError
        Naming ``path`` as damaged: a symlink, a FIFO, a folder, a device, or over ``cap`` bytes.
    """
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        if e.errno != errno.ELOOP:
            raise
        raise ValueError(f"{path} is damaged (a symbolic link: never followed)") from None
    try:
        mode = os.fstat(fd).st_mode
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):  # a folder is not even wrapped: fdopen refuses one
        os.close(fd)
        kind = _kind(mode)
        raise ValueError(f"{path} is damaged ({kind}, not a regular file)")
    with os.fdopen(fd, "rb") as file:
        raw = file.read(cap + 1)
    if len(raw) > cap:
        raise ValueError(f"{path} is damaged (over {cap} bytes)")
    return raw


def json_object(raw: bytes, path: Path) -> dict[str, Any]:
    """The JSON object the file ``path`` holds (``raw``, its bytes).

    Raises
    ------
    ValueError
        Naming ``path`` as damaged: not JSON (empty, truncated, nested too deep), not
        UTF-8, or JSON but not an object (``[1]``, ``5``).
    """
    try:
        value = json.loads(raw)
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{path} is damaged (not JSON: {e})") from None
    except RecursionError:  # "[" * 200000: nested deeper than the parser recurses
        raise ValueError(f"{path} is damaged (JSON nested too deep to read)") from None
    if not isinstance(value, dict):
        raise ValueError(f"{path} is damaged (JSON, but not an object: {type(value).__name__})")
    return value

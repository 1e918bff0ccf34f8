"""Housekeeping of the whole cache dir: every service folder, measured, pruned or removed.

The cache dir holds one folder per service (:mod:`.cache`, named by the
service's address or ``service_name``) and the request ledgers (``quota/``,
:mod:`.ledger`). The loaders' ``cache_info(all=True)``, ``clear_cache`` and
``prune_cache`` reach all of them through this module: :func:`describe` lists
every service folder with its size and last use (:func:`mark_used` records a
use: every load marks its folder), :func:`remove_folder` deletes one,
:func:`clear_all` every one, and :func:`prune` those unused for longer than a
limit, and in the others the list results older than it and leftover files
(temporary files of interrupted writes, files set aside as ``*.corrupt``).

Every deletion follows four rules:

* **Never out of the cache dir.** Symlinks are not followed: a link inside a
  folder is removed as a link (its target keeps its content); a link in place
  of a service folder is left alone and reported.
* **Only what the cache wrote.** A service folder holds an entry a cache writes
  (:data:`CACHE_ENTRIES`); anything else in the cache dir is left alone and
  reported, so a cache dir set to a folder of your own loses nothing.
* **Under the folder's lock**, so that no load of another process sees half a
  folder. The lock file goes last, still held: a process waiting on it finds
  it unlinked and starts over (see :func:`icoframes.files.locked`).
* **Ledgers are kept** unless ``ledgers=True``: they hold today's request
  count per key, which the ``daily_quota`` cap needs.

Each deleting function returns a report: ``removed`` (paths), ``freed_bytes``
and ``skipped`` (path and reason).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fnmatch
import os
import shutil
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter
from ..files import locked, utcnow

__all__ = ["CACHE_ENTRIES", "LEDGER_FOLDER", "LOCK_NAME", "TEMP_GRACE", "Folder", "clear_all",
           "describe", "last_used", "mark_used", "prune", "remove_folder", "scan"]

LOCK_NAME = ".lock"
"""The lock file of a service folder (:meth:`.cache.Cache.lock`)."""
LEDGER_FOLDER = "quota"
"""The folder of the request ledgers in the cache dir (:class:`.ledger.QuotaLedger`)."""
USED_MARK = ".last_used"
"""The file whose modification time is the folder's last use (:func:`mark_used`)."""
CACHE_ENTRIES = frozenset({"profiles", "lists", "tables", "filters.parquet", LOCK_NAME, USED_MARK})
"""Entries a service folder holds; a folder with none of them is not the cache's."""
TEMP_GRACE = dt.timedelta(hours=1)
"""A temporary file younger than this may belong to a write under way: never pruned."""

# what interrupted writes leave (icoframes.files, the fetch context's writability probe),
# and what Cache.quarantine sets aside
_TEMPORARY = (".*.tmp", ".write-test-*")
_SET_ASIDE = ("*.corrupt",)
_LEDGER_DAY = dt.timedelta(days=1)  # a ledger untouched this long is of a finished UTC day


@dataclass(frozen=True)
class Folder:
    """One service folder: name, path, bytes on disk (links not followed), last use (UTC)."""

    name: str
    path: Path
    size_bytes: int
    last_used: dt.datetime


@dataclass
class Scan:
    """What the cache dir holds: service folders, ledger files, and entries left alone."""

    root: Path
    folders: list[Folder] = field(default_factory=list)
    ledger_files: list[Path] = field(default_factory=list)
    other: list[Path] = field(default_factory=list)


@dataclass
class _Report:
    removed: list[str] = field(default_factory=list)
    freed_bytes: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)

    def skip(self, path: Path, reason: str) -> None:
        self.skipped.append({"path": str(path), "reason": reason})

    def remove(self, path: Path, size: int) -> None:
        """Delete a file, a link (never its target) or a tree (links inside unfollowed)."""
        try:
            if path.is_symlink() or not path.is_dir():
                path.unlink(missing_ok=True)
            else:
                shutil.rmtree(path)  # removes the links inside as links
        except OSError as exc:
            self.skip(path, exc.strerror or str(exc))
        else:
            self.removed.append(str(path))
            self.freed_bytes += size

    def as_dict(self) -> dict[str, Any]:
        return {"removed": self.removed, "freed_bytes": self.freed_bytes,
                "skipped": self.skipped}


# -- looking -------------------------------------------------------------------------


def _files(folder: Path, *, recurse: bool = True) -> Iterator[tuple[Path, os.stat_result]]:
    """Every file and link under ``folder`` with its own stat, never entering a link."""
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        with contextlib.suppress(FileNotFoundError):  # removed meanwhile
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISDIR(info.st_mode):
                yield Path(entry.path), info
            elif recurse:
                yield from _files(Path(entry.path))


def _size(path: Path) -> int:
    """Bytes of a file, a link (itself) or the files under a folder."""
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        return info.st_size
    return sum(info.st_size for _, info in _files(path))


def _time(info: os.stat_result) -> dt.datetime:
    return dt.datetime.fromtimestamp(info.st_mtime, dt.UTC)


def last_used(folder: Path) -> dt.datetime:
    """When ``folder`` was last used: its newest file, its use mark included (UTC).

    Folders do not count: deleting an old file (as :func:`prune` does) changes
    its folder's time, and must not make the folder look used.
    """
    newest = max((info.st_mtime for _, info in _files(folder)), default=None)
    return dt.datetime.fromtimestamp(newest or folder.lstat().st_mtime, dt.UTC)


def _is_service_folder(path: Path) -> bool:
    if path.name == LEDGER_FOLDER or path.is_symlink() or not path.is_dir():
        return False
    try:
        return not CACHE_ENTRIES.isdisjoint(os.listdir(path))
    except OSError:
        return False


def scan(root: str | os.PathLike[str]) -> Scan:
    """The service folders, ledger files and other entries of the cache dir ``root``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "127.0.0.1_8000" / "lists").mkdir(parents=True)
    >>> (root / "my-notes").mkdir()
    >>> found = scan(root)
    >>> [f.name for f in found.folders], [p.name for p in found.other]
    (['127.0.0.1_8000'], ['my-notes'])
    """
    found = Scan(Path(root))
    paths = sorted(found.root.iterdir()) if found.root.is_dir() else []
    for path in paths:
        if path.name == LEDGER_FOLDER and path.is_dir() and not path.is_symlink():
            found.ledger_files = sorted(path.glob("*.json"))
        elif _is_service_folder(path):
            found.folders.append(Folder(path.name, path, _size(path), last_used(path)))
        elif not _matches(path.name, _TEMPORARY):
            found.other.append(path)
    return found


def describe(root: str | os.PathLike[str], *, configured: Path | None = None) -> dict[str, Any]:
    """Every service folder of ``root``, most recently used first (``cache_info(all=True)``)."""
    found, now = scan(root), utcnow()
    ledger_bytes = sum(info.st_size for path, info in
                       _files(found.root / LEDGER_FOLDER, recurse=False)
                       if path in found.ledger_files)
    services = [{"name": f.name, "path": str(f.path), "size_bytes": f.size_bytes,
                 "last_used": f.last_used, "age": now - f.last_used,
                 "configured": f.path == configured}
                for f in sorted(found.folders, key=lambda f: f.last_used, reverse=True)]
    return {"path": str(found.root),
            "size_bytes": sum(f.size_bytes for f in found.folders) + ledger_bytes,
            "services": services, "ledger_files": len(found.ledger_files),
            "other": [str(p) for p in found.other]}


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def mark_used(folder: str | os.PathLike[str]) -> None:
    """Record that ``folder`` is used now; a missing or read-only folder is left as it is.

    A warm load writes nothing, so without this mark a folder read every day
    would look unused to :func:`prune`. It never creates the folder: a service
    that was never reached gets none.
    """
    folder = Path(folder)
    if folder.is_dir() and not folder.is_symlink():
        with contextlib.suppress(OSError):  # read-only: we cannot prune it either
            (folder / USED_MARK).touch()


# -- removing ------------------------------------------------------------------------


def _remove_folder(folder: Path, report: _Report, *,
                   unused_before: dt.datetime | None = None) -> None:
    if folder.is_symlink():
        report.skip(folder, "a symlink: never followed out of the cache dir; left alone")
        return
    if not folder.is_dir():
        return  # nothing cached: never reached, or removed meanwhile
    lock, inside = folder / LOCK_NAME, _Report()
    try:
        with locked(lock):
            if unused_before is not None and last_used(folder) >= unused_before:
                return  # used meanwhile
            for child in sorted(folder.iterdir()):
                if child.name != LOCK_NAME:
                    inside.remove(child, _size(child))
            # last, still held: a process waiting on the lock finds its file unlinked and
            # starts over on a new one, so no two processes ever hold it at once
            lock.unlink(missing_ok=True)
            folder.rmdir()
    except OSError as exc:  # a read-only cache dir, or a file written meanwhile
        report.removed += inside.removed
        report.skipped += [*inside.skipped, {"path": str(folder),
                                             "reason": exc.strerror or str(exc)}]
        report.freed_bytes += inside.freed_bytes
        return
    report.removed.append(str(folder))  # the folder, not each entry in it
    report.freed_bytes += inside.freed_bytes


def remove_folder(folder: str | os.PathLike[str], *,
                  ledger: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Delete one service folder under its lock, and the ledger file ``ledger`` if given.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "127.0.0.1_8000"
    >>> (folder / "lists").mkdir(parents=True)
    >>> _ = (folder / "lists" / "q.parquet").write_bytes(b"1234")
    >>> report = remove_folder(folder)
    >>> report["freed_bytes"], folder.exists()
    (4, False)
    """
    report = _Report()
    _remove_folder(Path(folder), report)
    if ledger is not None:
        _remove_ledger(Path(ledger), report)
    return report.as_dict()


def _remove_ledger(path: Path, report: _Report) -> None:
    """One ledger file and its lock, deleted while the lock is held."""
    if path.is_symlink() or not path.is_file():
        return
    lock = path.with_suffix(".lock")
    try:
        with locked(lock):
            report.remove(path, path.lstat().st_size)
            lock.unlink(missing_ok=True)  # held, as a folder's lock is
    except OSError as exc:
        report.skip(path, exc.strerror or str(exc))


def _finish(found: Scan, report: _Report, *, ledgers_before: dt.datetime | None,
            now: dt.datetime, older_than: dt.timedelta) -> dict[str, Any]:
    """Leftovers of the cache dir and the ledgers' folder; the ledgers if asked; the report."""
    ledger_dir = found.root / LEDGER_FOLDER
    for folder in (found.root, ledger_dir):
        if folder.is_dir() and not folder.is_symlink():
            _remove_leftovers(folder, report, older_than=older_than, now=now, recurse=False)
    if ledgers_before is not None:
        for path in found.ledger_files:
            if path.exists() and _time(path.lstat()) < ledgers_before:
                _remove_ledger(path, report)
        with contextlib.suppress(OSError):  # only when nothing is left in it
            ledger_dir.rmdir()
    for path in found.other:
        report.skip(path, "a symlink: never followed out of the cache dir; left alone"
                    if path.is_symlink() else "not a cache folder: left alone")
    return report.as_dict()


def clear_all(root: str | os.PathLike[str], *, ledgers: bool = False) -> dict[str, Any]:
    """Delete every service folder of the cache dir ``root`` (and the ledgers if asked).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("127.0.0.1_8000", "sandbox-0-1000-0123abcd"):
    ...     (root / name / "profiles").mkdir(parents=True)
    >>> len(clear_all(root)["removed"]), sorted(p.name for p in root.iterdir())
    (2, [])
    """
    found, report, now = scan(root), _Report(), utcnow()
    for folder in found.folders:
        _remove_folder(folder.path, report)
    return _finish(found, report, ledgers_before=now if ledgers else None, now=now,
                   older_than=TEMP_GRACE)


def _remove_leftovers(folder: Path, report: _Report, *, older_than: dt.timedelta,
                      now: dt.datetime, recurse: bool = True) -> None:
    """Temporary files older than ``older_than`` and :data:`TEMP_GRACE`; ``*.corrupt``
    files older than ``older_than``."""
    for path, info in list(_files(folder, recurse=recurse)):
        if _matches(path.name, _TEMPORARY):
            limit = now - max(older_than, TEMP_GRACE)
        elif _matches(path.name, _SET_ASIDE):
            limit = now - older_than
        else:
            continue
        if _time(info) < limit:
            report.remove(path, info.st_size)


def _prune_inside(folder: Path, report: _Report, *, older_than: dt.timedelta,
                  now: dt.datetime) -> None:
    """In a folder still in use: list results older than ``older_than``, and leftovers."""
    try:
        with locked(folder / LOCK_NAME):
            for path, info in list(_files(folder / "lists", recurse=False)):
                if path.suffix == ".parquet" and _time(info) < now - older_than:
                    report.remove(path, info.st_size)
            _remove_leftovers(folder, report, older_than=older_than, now=now)
    except OSError as exc:
        report.skip(folder, exc.strerror or str(exc))


def prune(root: str | os.PathLike[str], older_than: dt.timedelta | float | int, *,
          ledgers: bool = False, now: dt.datetime | None = None) -> dict[str, Any]:
    """Delete what was not used for longer than ``older_than`` (or seconds) in ``root``.

    Service folders last used (:func:`last_used`) before then go whole; in the
    others, list results fetched before then go (the next load re-pages them),
    with leftover temporary and ``*.corrupt`` files. With ``ledgers=True``,
    ledger files untouched as long (and at least a day: only ledgers of
    finished UTC days) go too. InvalidParameter for an unusable ``older_than``.

    Examples
    --------
    >>> import datetime as dt, tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "127.0.0.1_8000" / "profiles").mkdir(parents=True)
    >>> in_a_year = dt.datetime.now(dt.UTC) + dt.timedelta(days=365)
    >>> len(prune(root, dt.timedelta(days=30), now=in_a_year)["removed"])
    1
    """
    if isinstance(older_than, int | float) and not isinstance(older_than, bool):
        older_than = dt.timedelta(seconds=older_than) if older_than >= 0 else older_than
    if not isinstance(older_than, dt.timedelta) or older_than < dt.timedelta(0):
        raise InvalidParameter(
            f"older_than must be a timedelta or seconds, 0 or more; got {older_than!r}")
    now = now if now is not None else utcnow()
    found, report = scan(root), _Report()
    for folder in found.folders:
        if folder.last_used < now - older_than:
            _remove_folder(folder.path, report, unused_before=now - older_than)
        else:
            _prune_inside(folder.path, report, older_than=older_than, now=now)
    ledgers_before = now - max(older_than, _LEDGER_DAY) if ledgers else None
    return _finish(found, report, ledgers_before=ledgers_before, now=now,
                   older_than=older_than)

"""Housekeeping of the whole cache dir: every service folder, measured, pruned or removed.

``cache_info(all=True)``, ``clear_cache`` and ``prune_cache`` reach every service
folder (:mod:`icoframes.store.cache`) and the ledgers (``quota/``,
:mod:`icoframes.store.ledger`) through this module. A deletion never leaves the cache dir
(a link is removed as a link; a link in place of a service folder is left alone and
reported), removes only what the cache wrote (:data:`CACHE_ENTRIES`,
:func:`_is_cache_entry`, in ``tables/`` its tables only: :func:`_clear_tables`; anything
else is reported, and a folder holding it stays, with it), holds the folder's lock, which
the derived tables take too (the lock file goes last, still held: see
:func:`icoframes.files.locked`), and keeps the ledgers unless ``ledgers=True``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import errno
import fnmatch
import os
import shutil
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..ages import age_hint, as_age
from ..errors import InvalidParameter, quoted
from ..files import locked, utcnow
from ..reporting import AsDict
from ..store.cache import DB_NAME, LOCK_NAME, TABLES_DIR, WRITE_PROBE, Cache
from ..store.db import LEASE, SET_ASIDE, SIDE_FILES, Database, from_ms
from ..store.derived import STATE_NAME
from ..store.ledger import LEDGER_FOLDER, LEDGER_NAME, LedgerState, QuotaLedger
from .legacy import convert

__all__ = ["CACHE_ENTRIES", "LEDGER_FOLDER", "LOCK_NAME", "TEMP_GRACE", "CacheDirInfo",
           "CacheInfo", "CacheReport", "ServiceFolder", "clear_all", "describe", "info",
           "last_used", "mark_used", "prune", "remove_folder", "scan"]

USED_MARK = ".last_used"  #: its modification time is the folder's last use (:func:`mark_used`)
#: Entries a service folder holds (the last three: 0.1's); a folder with none is not the cache's.
CACHE_ENTRIES = frozenset({DB_NAME, TABLES_DIR, LOCK_NAME, USED_MARK,
                           "profiles", "lists", "filters.parquet"})
#: A temporary file younger than this may belong to a write under way: never pruned.
TEMP_GRACE = dt.timedelta(hours=1)
_TEMPORARY = (".*.tmp", f"{WRITE_PROBE}*")  # what interrupted writes and the write probe leave
#: The database's own files beside it (SQLite's log, index and rollback journal).
_DB_FILES = frozenset(f"{DB_NAME}{side}" for side in SIDE_FILES)
#: What the cache writes in ``tables/`` (:mod:`icoframes.store.derived`): the tables, their state
#: and the temporary files of their atomic writes (:func:`icoframes.files.atomic_write_bytes`).
_TABLE_FILES = ("*.parquet", STATE_NAME, ".*.tmp")
# What the cache leaves beside its service folders, the only leftovers removed there: at the
# cache dir's top the writability probe (fetch.service.check_writable), in quota/ the
# ledger's files set aside (store.db) and 0.1's ledgers' temporary files (.<key>.json.*.tmp);
# a user's .draft.tmp or notes.corrupt there is theirs, never removed
_TOP_LEFTOVERS = (f"{WRITE_PROBE}*",)
_LEDGER_LEFTOVERS = (".*.json.*.tmp", *(f"{LEDGER_NAME}{side}{SET_ASIDE}"
                                        for side in ("", *SIDE_FILES)))
_DAY = dt.timedelta(days=1)
# why a path was left alone, as CacheReport.skipped says (the command: "left alone PATH: why")
_LINK = "a symbolic link: never followed out of the cache dir"
_OTHER = "not a cache folder"
_NOT_OURS = "not the cache's (a name the cache never writes): move it elsewhere"
_WRITTEN = ("a load kept writing to it while it was cleared, so the folder stays: clear "
            "again once the loads are done")
_CLEAR_TRIES = 3  # listings of a folder being cleared while a load writes to it


@dataclass
class CacheReport(AsDict):
    """What a deletion did: paths removed, bytes freed, and what it left alone and why."""

    removed: list[str] = field(default_factory=list)
    freed_bytes: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)

    def _skip(self, path: Path, reason: str) -> None:
        self.skipped.append({"path": str(path), "reason": reason})

    def _remove(self, path: Path, size: int) -> None:
        """Delete a file, a link (never its target) or a tree (links inside unfollowed)."""
        try:
            if path.is_symlink() or not path.is_dir():
                path.unlink(missing_ok=True)
            else:
                shutil.rmtree(path)  # removes the links inside as links
        except OSError as exc:
            self._skip(path, exc.strerror or str(exc))
        else:
            self.removed.append(str(path))
            self.freed_bytes += size


@dataclass(frozen=True)
class ServiceFolder(AsDict):
    """One service folder: bytes on disk (links not followed), last use (UTC) and its age."""

    name: str
    path: Path
    size_bytes: int
    last_used: dt.datetime
    age: dt.timedelta = dt.timedelta(0)
    configured: bool = False


@dataclass(frozen=True)
class CacheDirInfo(AsDict):
    """The whole cache dir (``cache_info(all=True)``): services most recently used first;
    ``ledgers`` the keys with a request ledger, ``other`` entries that are not the cache's."""

    path: str
    size_bytes: int
    services: list[ServiceFolder]
    ledgers: int
    other: list[str]


@dataclass(frozen=True)
class CacheInfo(AsDict):
    """What the cache of one service holds (``cache_info()``): ``states`` counts profiles
    by fetch state plus ``not_fetched`` (listed ids without any outcome); ``quota`` is
    today's ledger of the configured key and ``requests_today`` its count of requests sent
    (both None when no public key is configured)."""

    path: str
    size_bytes: int
    profiles: int
    listed_without_profile: int
    list_queries: int
    oldest_profile: dt.datetime | None
    newest_profile: dt.datetime | None
    states: dict[str, int]
    requests_today: int | None = None
    quota: LedgerState | None = None


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
    """Bytes of a file, a link (itself) or the files under a folder; 0 once it is gone."""
    try:
        info = path.lstat()
    except FileNotFoundError:  # removed since it was found (another process's clear)
        return 0
    return sum(i.st_size for _, i in _files(path)) if stat.S_ISDIR(info.st_mode) else info.st_size


def last_used(folder: Path) -> dt.datetime:
    """When ``folder`` was last used: its newest file, its use mark included (UTC); folders
    do not count (deleting an old file changes its folder's time), nor its lock file
    (made by the first lock taken on it, pruning's own included)."""
    lock = folder / LOCK_NAME
    newest = max((info.st_mtime for path, info in _files(folder) if path != lock), default=None)
    return dt.datetime.fromtimestamp(newest or folder.lstat().st_mtime, dt.UTC)


def _is_cache_entry(name: str) -> bool:
    """Whether a service folder's entry ``name`` is one the cache writes: one of
    :data:`CACHE_ENTRIES`, the database's log, index or journal (``cache.sqlite3-wal``), a
    temporary file, or any of these set aside as ``*.corrupt``; a user's notes (and a
    ``cache.sqlite3-mine``) are not."""
    name = name.removesuffix(SET_ASIDE)
    return name in CACHE_ENTRIES or name in _DB_FILES or _matches(name, _TEMPORARY)


def _clear_tables(tables: Path, report: CacheReport) -> list[Path]:
    """Remove what the cache writes in ``tables/`` (:data:`_TABLE_FILES`, never a folder),
    and the folder when nothing else is in it (named as one path removed, as before); what
    else is there (a user's notes, a folder of theirs) is returned: it stays."""
    kept, entries = [], len(report.removed)
    for child in sorted(tables.iterdir()):
        if (child.is_dir() and not child.is_symlink()) or not _matches(child.name, _TABLE_FILES):
            kept.append(child)
        else:
            report._remove(child, _size(child))
    if not kept:
        tables.rmdir()
        report.removed[entries:] = [str(tables)]
    return kept


def _is_service_folder(path: Path) -> bool:
    with contextlib.suppress(OSError):
        return (path.name != LEDGER_FOLDER and not path.is_symlink() and path.is_dir()
                and not CACHE_ENTRIES.isdisjoint(os.listdir(path)))
    return False


def scan(root: str | os.PathLike[str]) -> tuple[list[ServiceFolder], list[Path]]:
    """The service folders of the cache dir ``root``, and its other entries (not the cache's).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "127.0.0.1_8000" / "tables").mkdir(parents=True)
    >>> (root / "my-notes").mkdir()
    >>> folders, other = scan(root)
    >>> [f.name for f in folders], [p.name for p in other]
    (['127.0.0.1_8000'], ['my-notes'])
    """
    root = Path(root)
    folders, other = [], []
    for path in sorted(root.iterdir()) if root.is_dir() else []:
        if _is_service_folder(path):
            with contextlib.suppress(FileNotFoundError):  # removed meanwhile (another clear)
                folders.append(ServiceFolder(path.name, path, _size(path), last_used(path)))
        elif not ((path.name == LEDGER_FOLDER and path.is_dir() and not path.is_symlink())
                  or _matches(path.name, _TOP_LEFTOVERS)):
            other.append(path)
    return folders, other


def describe(root: str | os.PathLike[str], *, configured: Path | None = None) -> CacheDirInfo:
    """Every service folder of ``root``, most recently used first (``cache_info(all=True)``)."""
    root, now = Path(root), utcnow()
    folders, other = scan(root)
    services = [dataclasses.replace(f, age=now - f.last_used, configured=f.path == configured)
                for f in sorted(folders, key=lambda f: f.last_used, reverse=True)]
    ledgers = root / LEDGER_FOLDER
    size = sum(f.size_bytes for f in folders) + (_size(ledgers) if ledgers.is_dir() else 0)
    return CacheDirInfo(str(root), size, services, QuotaLedger(root, "").count(),
                        [str(p) for p in other])


def info(cache: Cache, ledger: QuotaLedger | None) -> CacheInfo:
    """What the cache of one service holds, and today's ledger of its key (``cache_info()``)."""
    convert(cache)
    counts, quota = cache.counts(), None if ledger is None else ledger.state()
    states = counts["states"]
    size = _size(cache.dir) if cache.dir.is_dir() and not cache.dir.is_symlink() else 0
    return CacheInfo(str(cache.dir), size, states["fetched"], states["gone"],
                     counts["list_queries"], counts["oldest"], counts["newest"], states,
                     None if quota is None else quota.sent, quota)


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def mark_used(folder: str | os.PathLike[str]) -> None:
    """Record that ``folder`` is used now (a warm load writes nothing else, and must not look
    unused to :func:`prune`); a missing or read-only folder is left as it is."""
    folder = Path(folder)
    if folder.is_dir() and not folder.is_symlink():
        with contextlib.suppress(OSError):  # read-only: we cannot prune it either
            mark = folder / USED_MARK
            with contextlib.suppress(FileNotFoundError):
                if not stat.S_ISREG(mark.lstat().st_mode):  # never through a link or a FIFO
                    mark.unlink()
            os.close(os.open(mark, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                             | getattr(os, "O_NONBLOCK", 0), 0o600))
            os.utime(mark)


def _remove_folder(folder: Path, report: CacheReport, *,
                   unused_before: dt.datetime | None = None) -> None:
    if folder.is_symlink():
        return report._skip(folder, _LINK)
    if not folder.is_dir():
        return  # nothing cached: never reached, or removed meanwhile
    lock, entries = folder / LOCK_NAME, len(report.removed)
    try:
        with locked(lock, wait=LEASE):  # a stopped holder: the folder is left alone, said
            if unused_before is not None and last_used(folder) >= unused_before:
                return  # used meanwhile
            # a load writes its database without this lock: a file it made after the
            # listing ("Directory not empty") is removed by listing again, a few times
            for attempt in range(_CLEAR_TRIES):
                kept = _clear_entries(folder, report)
                lock.unlink(missing_ok=True)  # last, still held (see the module's rules)
                try:
                    if not kept:
                        folder.rmdir()
                    break
                except OSError as exc:
                    if exc.errno != errno.ENOTEMPTY or attempt == _CLEAR_TRIES - 1:
                        raise OSError(exc.errno, _WRITTEN if exc.errno == errno.ENOTEMPTY
                                      else exc.strerror) from None
        Database.close_under(folder)  # what this process held open goes too
        for child in kept:  # the folder stays, with them: each entry removed is named
            report._skip(child, _NOT_OURS)
        if not kept:
            report.removed[entries:] = [str(folder)]  # the folder, not each entry in it
    except OSError as exc:  # a read-only cache dir, or a file written meanwhile
        report._skip(folder, exc.strerror or str(exc))


def _clear_entries(folder: Path, report: CacheReport) -> list[Path]:
    """Remove what the cache writes in ``folder`` but its lock; what else is there stays,
    returned (a user's file put there, in ``tables/`` too: never theirs to lose)."""
    kept = []
    for child in sorted(folder.iterdir()):
        if not _is_cache_entry(child.name):
            kept.append(child)
        elif child.name == TABLES_DIR and child.is_dir() and not child.is_symlink():
            kept += _clear_tables(child, report)
        elif child.name != LOCK_NAME:
            report._remove(child, _size(child))
    return kept


def remove_folder(folder: str | os.PathLike[str], *,
                  ledger: QuotaLedger | None = None) -> CacheReport:
    """Delete one service folder under its lock, and the count of ``ledger`` if given.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "127.0.0.1_8000"
    >>> (folder / "tables").mkdir(parents=True)
    >>> _ = (folder / "tables" / "icos.parquet").write_bytes(b"1234")
    >>> report = remove_folder(folder)
    >>> report.freed_bytes, folder.exists()
    (4, False)
    """
    report = CacheReport()
    _remove_folder(Path(folder), report)
    if ledger is not None and ledger.forget():
        report.removed.append(f"{ledger.path}#{ledger.key}")
    return report


def _remove_leftovers(folder: Path, report: CacheReport, *, older_than: dt.timedelta,
                      now: dt.datetime, names: tuple[str, ...] | None = None) -> None:
    """Temporary files older than ``older_than`` and :data:`TEMP_GRACE`; ``*.corrupt``
    files older than ``older_than``; only where the cache writes them, never recursing: in a
    service folder (``names`` None) at its top (a ``*.corrupt`` of its own files) and in
    ``tables/``, elsewhere those matching ``names``; a user's ``mine/.draft.tmp`` or
    ``notes.txt.corrupt`` is theirs: never removed."""
    tables = folder / TABLES_DIR
    found = list(_files(folder, recurse=False))
    if names is None and tables.is_dir() and not tables.is_symlink():  # never its folders
        found += [(path, info) for path, info in _files(tables, recurse=False)
                  if path.name.endswith(".tmp")]
    for path, info in found:
        age = now - dt.datetime.fromtimestamp(info.st_mtime, dt.UTC)
        if not (_is_cache_entry(path.name) if names is None else _matches(path.name, names)):
            continue
        if (age > max(older_than, TEMP_GRACE) if _matches(path.name, _TEMPORARY)
                else age > older_than and path.name.endswith(".corrupt")):
            report._remove(path, info.st_size)


def _sweep(root: Path, *, unused_before: dt.datetime | None, older_than: dt.timedelta,
           ledgers_before: dt.datetime | None, now: dt.datetime) -> CacheReport:
    """Every service folder unused before ``unused_before`` (None: all) goes; in the others,
    the lists fetched before then and the leftovers; then the cache dir's own leftovers,
    the ledgers of keys that sent nothing since ``ledgers_before`` (None: kept)."""
    report = CacheReport()
    folders, other = scan(root)
    for folder in folders:
        if unused_before is None or folder.last_used < unused_before:
            _remove_folder(folder.path, report, unused_before=unused_before)
            continue
        try:
            with locked(folder.path / LOCK_NAME, wait=LEASE):
                dropped = Cache(root, folder.name).drop_lists(fetched_before=unused_before)
                report.removed += [f"{folder.path / DB_NAME}#lists/{key}" for key in dropped]
                _remove_leftovers(folder.path, report, older_than=older_than, now=now)
        except OSError as exc:
            report._skip(folder.path, exc.strerror or str(exc))
    for top, names in ((root, _TOP_LEFTOVERS), (root / LEDGER_FOLDER, _LEDGER_LEFTOVERS)):
        if top.is_dir() and not top.is_symlink():
            _remove_leftovers(top, report, older_than=older_than, now=now, names=names)
    if ledgers_before is not None:
        ledgers = QuotaLedger(root, "")
        report.removed += [f"{ledgers.path}#{key}" for key in ledgers.forget_unused(ledgers_before)]
    for path in other:
        report._skip(path, _LINK if path.is_symlink() else _OTHER)
    return report


def clear_all(root: str | os.PathLike[str], *, ledgers: bool = False) -> CacheReport:
    """Delete every service folder of the cache dir ``root`` (and the ledgers if asked).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("127.0.0.1_8000", "sandbox-0-1000-0123abcd"):
    ...     (root / name / "tables").mkdir(parents=True)
    >>> len(clear_all(root).removed), sorted(p.name for p in root.iterdir())
    (2, [])
    """
    now = utcnow()
    return _sweep(Path(root), unused_before=None, older_than=TEMP_GRACE, now=now,
                  ledgers_before=now + _DAY if ledgers else None)


def prune(root: str | os.PathLike[str], older_than: dt.timedelta | float | int, *,
          ledgers: bool = False, now: dt.datetime | None = None) -> CacheReport:
    """Delete what was not used for longer than ``older_than`` (or seconds) in ``root``, as
    :func:`icoframes.prune_cache` says (a folder's last use: :func:`last_used`; the
    ledgers' age: at least a day). InvalidParameter for an unusable ``older_than``.

    Examples
    --------
    >>> import datetime as dt, tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "127.0.0.1_8000" / "tables").mkdir(parents=True)
    >>> in_a_year = dt.datetime.now(dt.UTC) + dt.timedelta(days=365)
    >>> len(prune(root, dt.timedelta(days=30), now=in_a_year).removed)
    1
    """
    age = as_age(older_than)
    if age is None:
        raise InvalidParameter(
            f"older_than must be a timedelta or seconds, 0 or more; got {quoted(older_than)}"
            + age_hint(older_than))
    now = utcnow() if now is None else now
    # nothing here is older than 1970, and a longer age would take now below datetime.min
    age = min(age, now - from_ms(0))
    return _sweep(Path(root), unused_before=now - age, older_than=age, now=now,
                  ledgers_before=now - max(age, _DAY) if ledgers else None)

"""Housekeeping of the whole cache dir: every service folder, measured, pruned or removed.

``cache_info(all=True)``, ``clear_cache`` and ``prune_cache`` reach every service
folder (:mod:`icoframes.store.cache`) and the ledgers (``quota/``,
:mod:`icoframes.store.ledger`) through this module. A deletion never leaves the cache dir
(a link is removed as a link; a link in place of a service folder is left alone and
reported), removes only what the cache wrote (:data:`CACHE_ENTRIES`,
:func:`~.entries.is_cache_entry`, in ``tables/`` its tables only: :func:`_clear_tables`;
anything else is reported, and a folder holding it stays, with it), holds the folder's
lock, which the derived tables take too (the lock file goes last, still held: see
:func:`icoframes.files.locked`), and keeps the ledgers unless ``ledgers=True``. A cache
dir that a load refuses (another user's, or one others may write to:
:class:`~icoframes.store.folders.CacheFolderRefused`) is refused here too, in the same
words: whoever could write there could have replaced its lock files. So is the folder of
the service a clear names; a sweep of every folder leaves such a folder alone, said.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import errno
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..ages import AGE_FORMS, Age, age_hint, as_age, days_meant, seconds_under_a_day
from ..errors import ConfigError, InvalidParameter, did_you_mean, quoted
from ..files import locked, utcnow
from ..numerals import did_you_mean_flag
from ..reporting import AsDict
from ..store.cache import DB_NAME, LOCK_NAME, TABLES_DIR, Cache
from ..store.connections import close_idle
from ..store.db import LEASE, from_ms
from ..store.folders import MAKING, CacheFolderRefused, check_cache_dir, check_folder, unheld
from ..store.ledger import LEDGER_FOLDER, LedgerState, QuotaLedger
from .entries import (
    CACHE_ENTRIES,
    LEDGER_LEFTOVERS,
    TABLE_FILES,
    TEMP_GRACE,
    TOP_LEFTOVERS,
    USED_MARK,
    is_cache_entry,
    last_used,
    mark_used,
    matches,
    size,
    stale_leftovers,
)
from .legacy import convert

__all__ = ["CACHE_ENTRIES", "LEDGER_FOLDER", "LOCK_NAME", "TEMP_GRACE", "USED_MARK",
           "CacheDirInfo", "CacheInfo", "CacheReport", "ServiceFolder", "clear_all", "describe",
           "forget_count", "info", "key_of_count", "last_used", "mark_used", "only_ledgers",
           "prune", "remove_folder", "scan"]

_DAY = dt.timedelta(days=1)
# why older_than=30 is refused: ``icoframes cache prune --older-than 30`` is 30 days
_UNDER_A_DAY = ("older_than: a count of seconds under a day needs its unit (a count without one "
                "is seconds here, but days to `icoframes cache prune --older-than`; 0, or a "
                "day or more, is taken as seconds); got ")
# why a path was left alone, as CacheReport.skipped says (the command: "left alone PATH: why")
_LINK = "a symbolic link: never followed out of the cache dir"
_OTHER = "not a cache folder"
_NOT_OURS = "not the cache's (a name the cache never writes): move it elsewhere"
_WRITTEN = ("a load kept writing to it while it was cleared, so the folder stays: clear "
            "again once the loads are done")
_CLEAR_TRIES = 3  # listings of a folder being cleared while a load writes to it


@dataclass
class CacheReport(AsDict):
    """What a deletion did: paths removed, bytes freed, what it left alone and why;
    ``missing``: the cache dir when it does not exist (nothing was cached there: a typo in
    ``cache_dir``?), else None; ``notes``: what it was asked to forget and found nothing
    of (a key with no count)."""

    removed: list[str] = field(default_factory=list)
    freed_bytes: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    missing: str | None = None
    notes: list[str] = field(default_factory=list)

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
    ``ledgers`` the keys with a request ledger, ``other`` entries that are not the cache's;
    ``exists``: whether ``path`` exists (not: nothing is cached there, a typo?)."""

    path: str
    size_bytes: int
    services: list[ServiceFolder]
    ledgers: int
    other: list[str]
    exists: bool = True


@dataclass(frozen=True)
class CacheInfo(AsDict):
    """What the cache of one service holds (``cache_info()``): ``states`` counts profiles
    by fetch state plus ``not_fetched`` (listed ids without any outcome); ``quota`` is
    today's ledger of the configured key and ``requests_today`` its count of requests sent
    (both None when no public key is configured; ``requests_today`` None too when the count
    is stored under a later day, ``quota.ahead_day``: how many of its requests were sent
    today is not known); ``cache_dir_exists``: whether the cache dir
    exists (not: nothing is cached there, a typo in ``cache_dir``?)."""

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
    cache_dir_exists: bool = True


def _clear_tables(tables: Path, report: CacheReport) -> list[Path]:
    """Remove what the cache writes in ``tables/`` (:data:`TABLE_FILES`, never a folder),
    and the folder when nothing else is in it (named as one path removed, as before); what
    else is there (a user's notes, a folder of theirs) is returned: it stays."""
    kept, entries = [], len(report.removed)
    for child in sorted(tables.iterdir()):
        if (child.is_dir() and not child.is_symlink()) or not matches(child.name, TABLE_FILES):
            kept.append(child)
        else:
            report._remove(child, size(child))
    if not kept:
        tables.rmdir()
        report.removed[entries:] = [str(tables)]
    return kept


def _is_service_folder(path: Path) -> bool:
    """A folder holding an entry the cache writes; not ``quota/``, nor one a load is making
    (:data:`~icoframes.store.folders.MAKING`: a leftover once old, never a service's)."""
    with contextlib.suppress(OSError):
        return (path.name != LEDGER_FOLDER and not path.name.startswith(MAKING)
                and not path.is_symlink() and path.is_dir()
                and not CACHE_ENTRIES.isdisjoint(os.listdir(path)))
    return False


def _own_folder(path: Path) -> bool:
    """``quota/``, or a folder a load is making: only as a folder (not a link). A user's
    ``.making-notes.txt`` or link named so is theirs, and named as every other entry."""
    return ((path.name == LEDGER_FOLDER or path.name.startswith(MAKING))
            and path.is_dir() and not path.is_symlink())


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
                folders.append(ServiceFolder(path.name, path, size(path), last_used(path)))
        elif not (_own_folder(path) or (matches(path.name, TOP_LEFTOVERS)
                                        and not path.name.startswith(MAKING))):
            other.append(path)
    return folders, other


def describe(root: str | os.PathLike[str], *, configured: Path | None = None) -> CacheDirInfo:
    """Every service folder of ``root``, most recently used first (``cache_info(all=True)``)."""
    root, now = Path(root), utcnow()
    check_cache_dir(root, create=False)  # refused as a load refuses it
    folders, other = scan(root)
    services = [dataclasses.replace(f, age=now - f.last_used, configured=f.path == configured)
                for f in sorted(folders, key=lambda f: f.last_used, reverse=True)]
    ledgers = root / LEDGER_FOLDER
    total = sum(f.size_bytes for f in folders) + (size(ledgers) if ledgers.is_dir() else 0)
    return CacheDirInfo(str(root), total, services, QuotaLedger(root, "").count(),
                        [str(p) for p in other], os.path.lexists(root))


def info(cache: Cache, ledger: QuotaLedger | None) -> CacheInfo:
    """What the cache of one service holds, and today's ledger of its key (``cache_info()``)."""
    exists = os.path.lexists(cache.dir.parent)  # (before anything that might make it)
    convert(cache)
    counts, quota = cache.counts(), None if ledger is None else ledger.state()
    states = counts["states"]
    used = size(cache.dir) if cache.dir.is_dir() and not cache.dir.is_symlink() else 0
    return CacheInfo(str(cache.dir), used, states["fetched"], states["gone"],
                     counts["list_queries"], counts["oldest"], counts["newest"], states,
                     # (a count stored under a later day: how much of it is today's is
                     # not known, and ``quota`` says whose day it is)
                     None if quota is None or quota.ahead_day else quota.sent, quota, exists)


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
        close_idle(folder, wait=True)  # what this process held open goes too
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
        if not is_cache_entry(child.name):
            kept.append(child)
        elif child.name == TABLES_DIR and child.is_dir() and not child.is_symlink():
            kept += _clear_tables(child, report)
        elif child.name != LOCK_NAME:
            report._remove(child, size(child))
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
    folder = Path(folder)
    report = CacheReport(missing=None if os.path.lexists(folder.parent) else str(folder.parent))
    check_cache_dir(folder.parent, create=False)  # refused as cache_info refuses it
    if not folder.is_symlink():  # (a link in its place: left alone, said)
        check_folder(folder)
    _remove_folder(folder, report)
    if ledger is not None:
        _forget(ledger, folder.name, report)
    return report


def only_ledgers(ledgers: object, *, all: bool) -> bool:
    """Whether ``clear_cache(ledgers=...)`` forgets the count alone (``"only"``); anything
    but True, False or ``"only"`` is refused, and ``"only"`` with ``all=True``."""
    only = isinstance(ledgers, str) and ledgers == "only"
    if not only and not isinstance(ledgers, bool | np.bool_):
        raise InvalidParameter(f"ledgers must be True, False or 'only', got {quoted(ledgers)}"
                               + (did_you_mean(ledgers, ["only"]) or did_you_mean_flag(ledgers)))
    if only and all:
        raise InvalidParameter("ledgers='only' forgets the configured key's count, not "
                               "every key's: use it without all=True")
    return only


def key_of_count(public_key: str | None, *, only: bool) -> str:
    """The public key whose count ``clear_cache(ledgers=...)`` forgets; refused before
    anything is deleted when none is configured (a count is kept per key)."""
    if not public_key:
        raise ConfigError(("ledgers='only' forgets this key's" if only else "ledgers=True "
                           "forgets this key's") + " request count, which is kept per key: "
                          "configure the public key of that count (public_key, "
                          "ICOFRAMES_PUBLIC_KEY); nothing was deleted")
    return public_key


def forget_count(ledger: QuotaLedger, service: str) -> CacheReport:
    """Forget the count of ``ledger`` alone (``clear_cache(ledgers="only")``): every cached
    profile and list stays. ``notes`` says so when this key had no count for ``service``."""
    report = CacheReport(missing=None if os.path.lexists(ledger.root) else str(ledger.root))
    check_cache_dir(ledger.root, create=False)  # refused as cache_info refuses it
    _forget(ledger, service, report)
    return report


def _forget(ledger: QuotaLedger, service: str, report: CacheReport) -> None:
    # a count not found is said: a key or service name other than the run's finds none, and
    # the next run would stop the same way
    if ledger.forget():
        report.removed.append(f"{ledger.path}#{ledger.key}")
    else:
        report.notes.append(f"no request count of this key for {service} in {ledger.root}: "
                            "nothing forgotten")
    close_idle(ledger.path, wait=True)  # (the folder may go next, as tests' do)


def _sweep(root: Path, *, unused_before: dt.datetime | None, older_than: dt.timedelta,
           ledgers_before: dt.datetime | None, now: dt.datetime) -> CacheReport:
    """Every service folder unused before ``unused_before`` (None: all) goes; in the others,
    the lists fetched before then and the leftovers; then the cache dir's own leftovers,
    the ledgers of keys that sent nothing since ``ledgers_before`` (None: kept)."""
    report = CacheReport(missing=None if os.path.lexists(root) else str(root))
    check_cache_dir(root, create=False)  # refused as a load refuses it: nothing removed
    folders, other = scan(root)
    for folder in folders:
        try:
            check_folder(folder.path)
        except CacheFolderRefused as exc:  # another's, or others may write there: said
            report._skip(folder.path, str(exc))
            continue
        if unused_before is None:
            _remove_folder(folder.path, report)
            continue
        with unheld(folder.path) as free:
            if free:  # else a live load's: in use now, however old its files (not said:
                _prune_folder(root, folder, report, unused_before, older_than, now)  # used)
    for top, names in ((root, TOP_LEFTOVERS), (root / LEDGER_FOLDER, LEDGER_LEFTOVERS)):
        if top.is_dir() and not top.is_symlink():
            for path, found in stale_leftovers(top, older_than, now, names=names):
                report._remove(path, found)
    if ledgers_before is not None:
        ledgers = QuotaLedger(root, "")
        report.removed += [f"{ledgers.path}#{key}" for key in ledgers.forget_unused(ledgers_before)]
        close_idle(ledgers.path, wait=True)
    for path in other:
        report._skip(path, _LINK if path.is_symlink() else _OTHER)
    return report


def _prune_folder(root: Path, folder: ServiceFolder, report: CacheReport,
                  unused_before: dt.datetime, older_than: dt.timedelta, now: dt.datetime) -> None:
    """Remove ``folder`` when unused since before ``unused_before``; else the lists fetched
    before then and its stale leftovers (no load holds it: :func:`unheld`)."""
    if folder.last_used < unused_before:
        return _remove_folder(folder.path, report, unused_before=unused_before)
    try:
        with locked(folder.path / LOCK_NAME, wait=LEASE):
            dropped = Cache(root, folder.name).drop_lists(fetched_before=unused_before)
            report.removed += [f"{folder.path / DB_NAME}#lists/{key}" for key in dropped]
            for path, found in stale_leftovers(folder.path, older_than, now):
                report._remove(path, found)
    except OSError as exc:
        report._skip(folder.path, exc.strerror or str(exc))
    return None


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
                  # every count, one stored days ahead of this clock too
                  ledgers_before=dt.datetime.max.replace(tzinfo=dt.UTC) if ledgers else None)


def prune(root: str | os.PathLike[str], older_than: Age, *,
          ledgers: bool = False, now: dt.datetime | None = None) -> CacheReport:
    """Delete what was not used for longer than ``older_than`` (or seconds: 0, or a day or
    more) in ``root``, as :func:`icoframes.prune_cache` says (a folder's last use:
    :func:`last_used`; the ledgers' age: at least a day). InvalidParameter for an unusable
    ``older_than``, a count of seconds under a day too, before anything is deleted.

    Examples
    --------
    >>> import datetime as dt, tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "127.0.0.1_8000" / "tables").mkdir(parents=True)
    >>> in_a_year = dt.datetime.now(dt.UTC) + dt.timedelta(days=365)
    >>> len(prune(root, dt.timedelta(days=30), now=in_a_year).removed)
    1
    """
    age, seconds = as_age(older_than), seconds_under_a_day(older_than)
    if seconds is not None:  # 30 is 30 days to `cache prune --older-than`
        raise InvalidParameter(f"{_UNDER_A_DAY}{quoted(older_than)}{days_meant(seconds)}")
    if age is None:
        raise InvalidParameter(f"older_than must be {AGE_FORMS}, 0 or more; got "
                               f"{quoted(older_than)}{age_hint(older_than)}")
    now = utcnow() if now is None else now
    # nothing here is older than 1970, and a longer age would take now below datetime.min
    age = min(age, now - from_ms(0))
    return _sweep(Path(root), unused_before=now - age, older_than=age, now=now,
                  ledgers_before=now - max(age, _DAY) if ledgers else None)

"""What the cache writes in its cache dir: the names of its entries, their sizes, a folder's
last use, and the leftovers of writes that were cut (housekeeping's vocabulary).

:mod:`icoframes.cachedir.housekeeping` measures, prunes and removes by these rules: only what
:func:`is_cache_entry` names is the cache's, a folder's age is :func:`last_used`, and a
temporary file or a folder being made (:data:`~icoframes.store.folders.MAKING`) is removed
only once older than :data:`TEMP_GRACE` (it may belong to a write under way).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fnmatch
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from ..store.cache import DB_NAME, LOCK_NAME, TABLES_DIR, WRITE_PROBE
from ..store.db import SET_ASIDE, SIDE_FILES
from ..store.derived import STATE_NAME
from ..store.folders import (
    MAKING,
    USED_MARK,
    CacheFolderRefused,
    check_folder,
    open_mark,
    touch_mark,
)
from ..store.ledger import LEDGER_NAME

__all__ = ["CACHE_ENTRIES", "LEDGER_LEFTOVERS", "TABLE_FILES", "TEMP_GRACE", "TOP_LEFTOVERS",
           "USED_MARK", "is_cache_entry", "last_used", "mark_used", "matches", "size",
           "stale_leftovers"]

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
TABLE_FILES = ("*.parquet", STATE_NAME, ".*.tmp")
# What the cache leaves beside its service folders, the only leftovers removed there: at the
# cache dir's top the writability probe (fetch.service.check_writable) and a folder being
# made (store.folders.MAKING: a folder, removed whole), in quota/ the ledger's files set
# aside (store.db) and 0.1's ledgers' temporary files (.<key>.json.*.tmp); a user's
# .draft.tmp or notes.corrupt there is theirs, never removed
TOP_LEFTOVERS = (f"{WRITE_PROBE}*", f"{MAKING}*")
LEDGER_LEFTOVERS = (".*.json.*.tmp", *(f"{LEDGER_NAME}{side}{SET_ASIDE}"
                                        for side in ("", *SIDE_FILES)))


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


def size(path: Path) -> int:
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


def is_cache_entry(name: str) -> bool:
    """Whether a service folder's entry ``name`` is one the cache writes: one of
    :data:`CACHE_ENTRIES`, the database's log, index or journal (``cache.sqlite3-wal``), a
    temporary file, or any of these set aside as ``*.corrupt``; a user's notes (and a
    ``cache.sqlite3-mine``) are not."""
    name = name.removesuffix(SET_ASIDE)
    return name in CACHE_ENTRIES or name in _DB_FILES or matches(name, _TEMPORARY)


def matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def mark_used(folder: str | os.PathLike[str]) -> None:
    """Record that ``folder`` is used now (a folder used without a write must not look unused
    to :func:`~icoframes.cachedir.housekeeping.prune`); a missing or read-only folder
    is left as it is, and so is one a load refuses (another user's, one others may write to:
    :func:`~icoframes.store.folders.check_folder`)."""
    folder = Path(folder)
    with contextlib.suppress(OSError, CacheFolderRefused):  # read-only: not pruned either
        if check_folder(folder) and (fd := open_mark(folder)) is not None:
            try:
                touch_mark(fd, folder)
            finally:
                os.close(fd)


def stale_leftovers(folder: Path, older_than: dt.timedelta, now: dt.datetime, *,
                    names: tuple[str, ...] | None = None) -> Iterator[tuple[Path, int]]:
    """What is left of cut writes in ``folder`` (never recursing), with its size: temporary
    files and folders being made older than ``older_than`` and :data:`TEMP_GRACE`,
    ``*.corrupt`` files older than ``older_than``; in a service folder (``names`` None) at
    its top (a ``*.corrupt`` of its own files) and in ``tables/``, elsewhere those matching
    ``names``. A user's ``mine/.draft.tmp`` or ``notes.txt.corrupt`` is theirs: never named."""
    tables = folder / TABLES_DIR
    found = list(_files(folder, recurse=False))
    if names is None and tables.is_dir() and not tables.is_symlink():  # never its folders
        found += [(path, info) for path, info in _files(tables, recurse=False)
                  if path.name.endswith(".tmp")]
    elif names is not None:  # a folder a load was making when it was cut (a kill)
        found += [(path, info) for path, info in _folders(folder)
                  if path.name.startswith(MAKING)]
    for path, info in found:
        age = now - dt.datetime.fromtimestamp(info.st_mtime, dt.UTC)
        if not (is_cache_entry(path.name) if names is None else matches(path.name, names)):
            continue
        if path.name.startswith(MAKING):
            # only a folder so named is one a load was making; a file, even .making-x.tmp, is
            # the user's (scan's other), never removed as a temporary file
            if stat.S_ISDIR(info.st_mode) and age > max(older_than, TEMP_GRACE):
                yield path, size(path)
        elif (age > max(older_than, TEMP_GRACE) if matches(path.name, _TEMPORARY)
                else age > older_than and path.name.endswith(".corrupt")):
            yield path, info.st_size


def _folders(folder: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """The folders in ``folder`` (not links), each with its stat."""
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        for entry in os.scandir(folder):
            with contextlib.suppress(FileNotFoundError):
                if stat.S_ISDIR((info := entry.stat(follow_symlinks=False)).st_mode):
                    yield Path(entry.path), info

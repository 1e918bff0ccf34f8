"""Exports read back: the folders :func:`icoframes.export_tables` writes, read consistently.

A plain export is ``out/<table>.parquet ... out/manifest.json``; a snapshot tree
is one ``out/snapshot_date=YYYY-MM-DD/`` folder of the same files per UTC day.
``manifest.json`` is each export's commit record: written last, removed first
when an export replaces a plain one, and swapped in with its folder for a
snapshot (:mod:`icoframes.export`).

A reader never mixes two exports. Every read here takes the folder's manifest
before and after reading the tables; when they differ (an export replaced the
folder meanwhile) or the manifest is absent (a plain export mid-swap) the read
is repeated, up to :data:`READ_ATTEMPTS` times, waiting a little longer each
time. When the folder kept changing, :class:`ExportReplaced` says so; a folder
whose manifest stays absent is a :class:`FileNotFoundError` saying that an
export is being written there or was killed mid-swap (the next run completes it).

A snapshot folder is renamed away and the new one in while its export holds the swap lock
on the tree: a reader finding it gone waits for that swap (:func:`no_swap_in`), and a tree is
listed holding the lock shared (every day is there, none mid-swap). The readers of a tree,
:func:`~icoframes.snapshots.read_snapshots` and its kin, are in :mod:`icoframes.snapshots`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from .errors import ExportReplaced
from .files import entry_kind, folder_flock, folder_path, json_object, read_record
from .queries import checked_keywords
from .schema import TABLES
from .tables import Tables

__all__ = ["MANIFEST", "READ_ATTEMPTS", "SNAPSHOT_PREFIX", "SWAP_PATIENCE", "consistent_read",
           "dicts", "manifest_damage", "no_swap_in", "query_params", "read_export", "read_manifest",
           "snapshot_dirs"]

#: The commit record of an export: written last, removed first.
MANIFEST = "manifest.json"
#: A snapshot folder is ``SNAPSHOT_PREFIX + "YYYY-MM-DD"`` (hive style).
SNAPSHOT_PREFIX = "snapshot_date="
#: How many times a read is tried while an export replaces the folder.
READ_ATTEMPTS = 8
#: Seconds a read waits for an export swapping its files into the folder, at most.
SWAP_PATIENCE = 60.0
_SWAP_POLL = 0.05
_SNAPSHOT = re.compile(r"^snapshot_date=(.*)$")
_T = TypeVar("_T")


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The manifest of an export folder, or None when it has none (yet); ValueError naming
    it when it is damaged (not JSON, not UTF-8, not a JSON object, not a regular file)."""
    raw = _manifest_bytes(Path(folder))
    return None if raw is None else json_object(raw, Path(folder) / MANIFEST)


def manifest_damage(folder: Path) -> str | None:
    """What ``folder``'s ``manifest.json`` is when it is no file a reader reads ("a symbolic
    link", "a folder", "a FIFO", ...: damage, as :func:`read_manifest` says); None when it
    is a regular file or absent. The readers' rule, for the exports' layout check."""
    kind = entry_kind(folder / MANIFEST)
    return None if kind in (None, "a file") else kind


def dicts(value: Any) -> list[dict[str, Any]] | None:
    """``value`` when it is a non-empty list of dicts (a manifest's ``queries_given``, its
    ``queries``), else None: what a manifest's lists must be to say anything (one written by
    an older version, or damaged, says nothing)."""
    return value if isinstance(value, list) and value and all(
        isinstance(v, dict) for v in value) else None


def query_params(manifest: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The wire parameters of each list query ``manifest`` names (one dict per query), or
    None when it names none or any of them without its parameters (an older version's)."""
    queries = dicts(manifest.get("queries")) or []
    params = [p for q in queries if isinstance(p := q.get("params"), dict)]
    return params if params and len(params) == len(queries) else None


@checked_keywords
def read_export(path: str | os.PathLike[str]) -> Tables:
    """The :class:`~icoframes.tables.Tables` of one export folder, typed by the schema.

    Parameters
    ----------
    path : path-like
        A plain export (``out`` of ``export_tables(out)``) or one snapshot
        folder (``out/snapshot_date=YYYY-MM-DD``).

    Returns
    -------
    Tables
        Every table of one export, never a mix of two (see the module notes);
        ``tables.icos.attrs["icoframes"]["manifest"]`` holds the manifest read
        with them (``complete``, ``missing``, ``exported_at``, ...).

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist, lacks a table file, or lacks ``manifest.json``
        (an export in progress, or killed mid-swap: the message says so).
    ExportReplaced
        An export replaced the folder during every attempt to read it.
    ValueError
        ``path`` is a snapshot tree (use :func:`read_snapshots`, or pass one of
        its folders: the message names the latest), or a file's columns differ
        from the schema.

    Examples
    --------
    >>> import tempfile
    >>> from icoframes.tables import Tables
    >>> with tempfile.TemporaryDirectory() as out:
    ...     _ = Tables.empty().to_parquet(out)
    ...     _ = (Path(out) / "manifest.json").write_text("{}")
    ...     read_export(out).icos.shape
    (0, 42)
    """
    folder = folder_path(path, "path")  # "" is no export, not the current directory
    # a snapshot swap renames the folder away, then the new one in, under the tree's lock:
    # looked at while no swap holds it, a folder is never caught between the two renames
    with no_swap_in(folder.parent):
        is_dir, holds = folder.is_dir(), _holds_export(folder)
        snapshots = snapshot_dirs(folder) if is_dir else {}
    if not is_dir:
        raise FileNotFoundError(f"no export folder at {folder}")
    if snapshots:
        latest = max(snapshots)
        raise ValueError(
            f"{folder} holds {len(snapshots)} snapshots, not one export; read them all with "
            f"read_snapshots({str(folder)!r}), or one with "
            f"read_export({str(snapshots[latest])!r}) (the latest)"
        )
    if not holds:
        raise FileNotFoundError(  # no table, no manifest: not an export being replaced
            f"{folder} is not an export of icoframes: missing {MANIFEST}, "
            f"{', '.join(_missing_tables(folder))}")

    def read() -> Tables:
        # checked inside the consistent read: a folder swapped under this check is read
        # again, and only a table missing beside an unchanged manifest is an error
        missing = _missing_tables(folder)
        if missing and (folder / MANIFEST).is_file():
            raise FileNotFoundError(
                f"{folder} is not an export of icoframes: missing {', '.join(missing)}")
        return Tables.read_parquet(folder)

    tables, manifest = consistent_read(folder, read)
    tables.icos.attrs.setdefault("icoframes", {})["manifest"] = manifest
    return tables


def _holds_export(folder: Path) -> bool:
    """Whether ``folder`` holds an export's manifest or one of its tables."""
    return (folder / MANIFEST).is_file() or len(_missing_tables(folder)) < len(TABLES)


def _missing_tables(folder: Path) -> list[str]:
    return [f"{t}.parquet" for t in TABLES if not (folder / f"{t}.parquet").is_file()]


def snapshot_dirs(folder: Path) -> dict[dt.date, Path]:
    """The ``snapshot_date=`` folders of ``folder`` by date; ValueError for a bad or twice day."""
    found: dict[dt.date, Path] = {}
    for child in sorted(folder.iterdir()):
        match = _SNAPSHOT.match(child.name)
        if not match or not child.is_dir():
            continue
        try:
            day = dt.date.fromisoformat(match.group(1))
        except ValueError:
            raise ValueError(f"{child}: the snapshot date is not YYYY-MM-DD") from None
        if day in found:
            raise ValueError(
                f"{folder} holds two snapshot folders for {day.isoformat()}: "
                f"{found[day].name} and {child.name}; keep one (an export names it "
                f"{SNAPSHOT_PREFIX}{day.isoformat()}) and move the other away")
        found[day] = child
    return found


# -- reading while an export may replace the folder ---------------------------------


def consistent_read(folder: Path, read: Callable[[], _T], *,
                    need_manifest: bool = True) -> tuple[_T, dict[str, Any] | None]:
    """``read()`` and the manifest it belongs to: the same manifest before and after.

    A missing manifest is retried when ``need_manifest`` (a plain export
    mid-swap), then a FileNotFoundError; otherwise a folder without one is read
    as it is (a snapshot folder is swapped whole, so it never lacks it mid-swap).
    """
    wait = 0.01
    changed = absent = 0
    for attempt in range(READ_ATTEMPTS):
        if attempt:
            time.sleep(wait)  # an export's swap takes milliseconds; give it a moment
            wait = min(wait * 2, 0.5)
        before = _manifest_bytes(folder)
        if before is None and need_manifest:
            if _swap_ended(folder):  # replaced meanwhile: read the new export
                changed += 1
            else:
                absent += 1
            continue
        try:
            result = read()
        except (OSError, ValueError):  # pyarrow's errors are OSError and ValueError too
            if folder.is_dir() and _manifest_bytes(folder) == before:
                raise  # a file missing or unreadable in an export that did not change
            # the folder was swapped away under the read (waited for: it is back, and the
            # read repeated at once), or a file replaced between two opens of it (a Parquet
            # footer read from one file, its pages from the next)
            _swap_ended(folder)
            changed += 1
            continue
        if _manifest_bytes(folder) == before:
            return result, None if before is None else json_object(before, folder / MANIFEST)
        changed += 1
    if not changed:
        raise FileNotFoundError(
            f"{folder} is missing {MANIFEST}: an export is writing it right now, or one was "
            "killed while swapping its tables in (the next export completes it); "
            "read it once the export is done")
    raise ExportReplaced(
        f"{folder} is being replaced by a running export: it changed during each of "
        f"{READ_ATTEMPTS} attempts to read it ({absent} without a manifest); nothing mixed "
        "was returned. Read it again once the export is done.")


def _waited_for_swap(folder: Path) -> bool:
    """True once an export swapping its files into ``folder`` has finished (the manifest is
    missing while it does, however long a loaded disk takes); False when none was."""
    with no_swap_in(folder) as waited:
        return waited


def _swap_ended(folder: Path) -> bool:
    """:func:`_waited_for_swap` of what swaps ``folder``: itself (a plain export's files in
    it), or its tree when it is not there (a snapshot folder renamed away by its swap).
    FileNotFoundError when it is gone and was not renamed away by a swap."""
    if folder.is_dir():
        return _waited_for_swap(folder)
    waited = _waited_for_swap(folder.parent)
    if not folder.is_dir():  # no swap renamed it away, or none put it back: none is there
        raise FileNotFoundError(
            f"no export folder at {folder} (it was there when the read began; an export killed "
            "while swapping a snapshot in sets the day's folder aside: the next one puts it back)")
    return waited


@contextlib.contextmanager
def no_swap_in(folder: Path) -> Iterator[bool]:
    """Held while no export swaps files into ``folder`` (a shared lock against
    :func:`~icoframes.staging.swap_lock`); yields whether it waited for one to finish.
    Where it cannot tell (no ``fcntl``, no folder) it holds nothing and yields False. So a
    tree listed in the block shows every day (none renamed away mid-swap), and a plain
    export its manifest (none removed mid-swap).

    The wait is bounded by :data:`SWAP_PATIENCE`: an exporter stopped (SIGSTOP, a
    debugger) or hung while it holds the lock is an :class:`ExportReplaced`, not a reader
    blocked for as long as it is.
    """
    give_up = None
    with contextlib.ExitStack() as held:
        while True:
            try:
                if held.enter_context(folder_flock(folder, shared=True, block=False)):
                    break
            except (ImportError, OSError):  # no fcntl; or the folder went away (maybe meanwhile)
                break
            held.close()
            now = time.monotonic()
            if give_up is None:
                give_up = now + SWAP_PATIENCE
            elif now >= give_up:
                raise ExportReplaced(
                    f"{folder} is being replaced by an export that has held it for over "
                    f"{SWAP_PATIENCE:g} s without finishing (is its process stopped or hung?); "
                    "nothing was read. Read it again once that export is done or killed.")
            time.sleep(_SWAP_POLL)
        yield give_up is not None


def _manifest_bytes(folder: Path) -> bytes | None:
    return read_record(folder / MANIFEST)  # a FIFO, a symlink, a folder: damaged, unread

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
on the tree; a plain export's manifest is removed while it holds it on the folder. A healthy
read takes no lock: only what says "failure" (no folder, no manifest, not an export) is
confirmed, looked at again while no swap is in (:func:`icoframes.swaps.confirm`, a few
``stat`` calls under the lock held shared), then raised or read again. A folder an export is
running in (its staging folder is there), or that changed while it was listed, is listed
again so (:func:`looked`): a day renamed away mid-swap is not missed, nor one an export
swapped within the listing. So a tree's listing holds its days as they were at one moment:
every day that was there throughout it (one replaced meanwhile too), and one added or
removed meanwhile as that moment saw it; a day listed, then found renamed away, is looked
at again once its swap is done. The readers of a tree, :func:`~icoframes.read_snapshots`
and its kin, are in :mod:`icoframes.snapshots`.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import time
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from .errors import (
    ExportMismatch,
    ExportNotFound,
    ExportReplaced,
    IcoframesWarning,
    InvalidParameter,
    warn,
)
from .files import entry_kind, json_object, not_a_folder, nothing_at, read_record
from .frozen import freeze
from .paths import folder_path
from .queries import checked_keywords
from .schema import TABLES
from .swaps import SWAP_PATIENCE, confirm
from .tables import Tables

__all__ = ["ASIDE", "MANIFEST", "READ_ATTEMPTS", "SNAPSHOT_PREFIX", "STAGING_PREFIX",
           "SWAP_PATIENCE", "UNREAD", "consistent_read", "dicts", "export_folder", "looked",
           "manifest_damage", "manifest_of", "missing_export", "put_back", "query_params",
           "read_export", "read_manifest", "snapshot_dirs", "swap_owner"]

#: The commit record of an export: written last, removed first.
MANIFEST = "manifest.json"
#: A snapshot folder is ``SNAPSHOT_PREFIX + "YYYY-MM-DD"`` (hive style).
SNAPSHOT_PREFIX = "snapshot_date="
#: The start of the hidden folders inside ``out`` where exports are built before the swap
#: (the rest of the name is random: :func:`tempfile.mkdtemp`; :mod:`icoframes.staging`).
STAGING_PREFIX = ".icoframes-staging-"
#: How many times a read is tried while an export replaces the folder.
READ_ATTEMPTS = 8
_SNAPSHOT = re.compile(r"^snapshot_date=(.*)$")
#: + a snapshot folder's name: the one an export's swap set aside in its staging folder
ASIDE = "previous-"
_T = TypeVar("_T")
# names that moved to icoframes.snapshots (0.2's readers of a tree), still found here
_MOVED = frozenset({"read_snapshots", "snapshot_info", "snapshot_folders", "Gaps",
                    "gaps_by_date", "DATE_DTYPE"})


def __getattr__(name: str) -> Any:
    """The readers of a tree moved to :mod:`icoframes.snapshots`: found here too, said so."""
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"icoframes.exported.{name} is now icoframes.snapshots.{name}: import it "
                  "from there", DeprecationWarning, stacklevel=2)
    from . import snapshots  # when asked, not at import: snapshots imports this module

    return getattr(snapshots, name)


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The manifest of an export folder, or None when it has none (yet); ValueError naming
    it when it is damaged (not JSON, not UTF-8, not a JSON object, not a regular file)."""
    raw = _manifest_bytes(Path(folder))
    return None if raw is None else json_object(raw, Path(folder) / MANIFEST)


#: What :func:`manifest_of` says of a manifest it cannot read.
UNREAD = "unread"


def manifest_of(folder: Path) -> dict[str, Any] | str | None:
    """``folder``'s manifest: None when it has none, :data:`UNREAD` when it is damaged (an
    export compares it at its swap with what it read before: like with like)."""
    try:
        return read_manifest(folder)
    except (OSError, ValueError):
        return UNREAD


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


def export_folder(path: object, name: str = "path") -> Path:
    """The argument ``name`` of a reader of exports as a Path, refused before anything is
    read when it is empty (no current directory) or names no folder (a file, a FIFO, a folder
    under a file: it was "no export folder at ...", as if nothing were there)."""
    folder = folder_path(path, name, reading=True)  # a "$HOME" folder made before: readable
    why = not_a_folder(folder)
    if why is not None:
        raise InvalidParameter(f"{name}={folder} names no export folder: {why}. Give the "
                               "folder export_tables wrote (its out)")
    return folder


def missing_export(folder: Path) -> ExportNotFound:
    """Nothing at ``folder``, a reader's argument (said once no swap is in): the broken link
    that is the cause named (:func:`~icoframes.files.nothing_at`)."""
    return ExportNotFound(f"no export folder at {folder}: {nothing_at(folder)}")


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
        with them (``complete``, ``missing``, ``exported_at``, ...), read-only.

    Raises
    ------
    InvalidParameter
        ``path`` names no folder (a file, a FIFO, a folder under a file): nothing is read.
    ExportNotFound
        A ``FileNotFoundError`` too: ``path`` does not exist, lacks a table file, or lacks
        ``manifest.json``
        (an export in progress, or killed mid-swap; or tables written without one,
        by :meth:`Tables.to_parquet <icoframes.Tables.to_parquet>`, which
        :meth:`~icoframes.Tables.read_parquet` reads: the message says which,
        or names both when no staging folder is left to tell them apart).
    ExportReplaced
        An export replaced the folder during every attempt to read it.
    ExportMismatch
        A ``ValueError`` too: ``path`` is a snapshot tree (use :func:`read_snapshots`, or
        pass one of its folders: the message names the latest); or a file's columns differ
        from the schema, a table file is no regular file (a FIFO, a symbolic link: never
        opened, named as damaged), or ``manifest.json`` is no JSON object.

    Examples
    --------
    >>> import tempfile
    >>> from icoframes.tables import Tables
    >>> with tempfile.TemporaryDirectory() as out:
    ...     _ = Tables.empty().to_parquet(out)
    ...     _ = (Path(out) / "manifest.json").write_text("{}")
    ...     read_export(out).icos.shape
    (0, 43)
    """
    folder = export_folder(path)  # "" is no export, not the current directory
    is_dir, holds = folder.is_dir(), _holds_export(folder)
    if not holds:  # a swap renaming the folder away (then the new one in) is not what it is
        (is_dir, holds), _ = confirm(swap_owner(folder), partial(_look, folder))
    snapshots = snapshot_dirs(folder, _names(folder) if holds else None) if is_dir else {}
    if not is_dir:
        raise missing_export(folder)
    if snapshots:
        latest = max(snapshots)
        raise ExportMismatch(
            f"{folder} holds {len(snapshots)} snapshots, not one export; read them all with "
            f"read_snapshots({str(folder)!r}), or one with "
            f"read_export({str(snapshots[latest])!r}) (the latest)"
        )
    if not holds:
        raise ExportNotFound(  # no table, no manifest: not an export being replaced
            f"{folder} is not an export of icoframes: missing {MANIFEST}, "
            f"{', '.join(_missing_tables(folder))}")

    def read() -> Tables:
        # checked inside the consistent read: a folder swapped under this check is read
        # again, and only a table missing beside an unchanged manifest is an error
        missing = _missing_tables(folder)
        if missing and (folder / MANIFEST).is_file():
            raise ExportNotFound(
                f"{folder} is not an export of icoframes: missing {', '.join(missing)}")
        return Tables.read_parquet(folder)

    tables, manifest = consistent_read(folder, read)
    tables.icos.attrs["icoframes"] = freeze({**tables.icos.attrs.get("icoframes", {}),
                                             "manifest": manifest})
    return tables


def _look(folder: Path) -> tuple[bool, bool]:
    return folder.is_dir(), _holds_export(folder)


def _names(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:  # gone meanwhile: the read that follows says what it is
        return []


def swap_owner(folder: Path) -> Path:
    """The folder whose swap lock an export holds while it swaps ``folder``: a day's folder
    (``snapshot_date=``, reached through a symbolic link too) its real tree's, a plain
    export or a tree its own."""
    real = Path(os.path.realpath(folder))
    return real.parent if _SNAPSHOT.match(real.name) else real


def looked(folder: Path, look: Callable[[], _T], *,
           exporting: bool = False) -> tuple[list[str], _T]:
    """The names in ``folder`` and ``look()``, taken without a lock; taken again, while no
    swap is in (:func:`~icoframes.swaps.confirm`), when an export is running in ``folder``
    (its staging folder is there) or ``folder`` changed while it was listed (its
    modification time): a day's folder renamed away by its swap, a plain export's manifest
    removed by its, is then not missed, nor a day an export swapped, its staging folder
    made or removed, during the listing (POSIX leaves unsaid whether a listing returns an
    entry added or removed meanwhile; tmpfs returns neither the old day nor the new).
    ``exporting``: an export looks."""
    def both() -> tuple[list[str], _T]:
        return os.listdir(folder), look()

    changed = _changed(folder)
    names, seen = both()
    if any(name.startswith(STAGING_PREFIX) for name in names) or _changed(folder) != changed:
        (names, seen), _ = confirm(folder, both, exporting=exporting)
    return names, seen


def _changed(folder: Path) -> int | None:
    """When an entry of ``folder`` was last added, removed or renamed (ns); None when it
    cannot be told. A change after a look at it shows (fine-grained timestamps: Linux
    6.13's multigrain ext4, xfs, btrfs, tmpfs); with coarse ones, not a change made within
    the clock tick (a few ms) of the one before the look."""
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:  # gone: the listing that follows says what it is
        return None


def _holds_export(folder: Path) -> bool:
    """Whether ``folder`` holds an export's manifest or one of its tables."""
    return (folder / MANIFEST).is_file() or len(_missing_tables(folder)) < len(TABLES)


def _missing_tables(folder: Path) -> list[str]:
    # a FIFO or a link at a table's name is there, and read as damage: never opened
    return [f"{t}.parquet" for t in TABLES if not os.path.lexists(folder / f"{t}.parquet")]


def snapshot_dirs(folder: Path, names: list[str] | None = None) -> dict[dt.date, Path]:
    """The ``snapshot_date=`` folders of ``folder`` (of its ``names``; else :func:`looked`)
    by date; ValueError for a bad or twice day."""
    found: dict[dt.date, Path] = {}
    names = looked(folder, lambda: None)[0] if names is None else names
    for child in sorted(folder / name for name in names):
        match = _SNAPSHOT.match(child.name)
        # a day listed, then renamed away by a swap begun since: looked at once it is done
        if not match or not (child.is_dir() or confirm(swap_owner(child), child.is_dir)[0]):
            continue
        try:
            day = dt.date.fromisoformat(match.group(1))
        except ValueError:
            raise ExportMismatch(f"{child}: the snapshot date is not YYYY-MM-DD") from None
        if day in found:
            raise ExportMismatch(
                f"{folder} holds two snapshot folders for {day.isoformat()}: "
                f"{found[day].name} and {child.name}; keep one (an export names it "
                f"{SNAPSHOT_PREFIX}{day.isoformat()}) and move the other away")
        found[day] = child
    for name in names:  # a killed export's staging folder may hold a day
        if name.startswith(STAGING_PREFIX):
            _set_aside(folder, folder / name, found)
    return found


def put_back(folder: Path) -> Path | None:
    """Where the day ``folder`` is now when it was one a killed export left set aside in its
    staging folder (:func:`snapshot_dirs` reads it from there) and is gone: ``out``'s folder
    of that day, which the next export put it back as (looked at while no swap is in); None
    when ``folder`` is no such day, or that day has no folder."""
    staging = folder.parent
    if not (folder.name.startswith(ASIDE + SNAPSHOT_PREFIX)
            and staging.name.startswith(STAGING_PREFIX)):
        return None
    day = staging.parent / folder.name.removeprefix(ASIDE)
    there = confirm(swap_owner(day), lambda: day.is_dir() and not folder.is_dir())[0]
    return day if there else None


def _left(aside: Path, target: Path) -> bool:
    return aside.is_dir() and not os.path.lexists(target)


def _set_aside(out: Path, staging: Path, found: dict[dt.date, Path]) -> None:
    """Add to ``found`` each day an export killed between its swap's two renames left in its
    ``staging`` folder (``previous-snapshot_date=...``) while no folder of ``out`` holds that
    day (the next export puts it back): read from there, and said, not silently left out.
    Looked at while no swap is under way (a running export's swap ends with it removed)."""
    try:
        asides = [p for p in staging.iterdir() if p.name.startswith(ASIDE + SNAPSHOT_PREFIX)]
    except OSError:  # not a folder, or removed meanwhile
        return
    for aside in asides:
        match = _SNAPSHOT.match(aside.name.removeprefix(ASIDE))
        try:
            day = dt.date.fromisoformat(match.group(1)) if match else None
        except ValueError:
            continue
        target = out / aside.name.removeprefix(ASIDE)
        if day is None or day in found or not confirm(out, partial(_left, aside, target))[0]:
            continue
        warn(f"{target} is not there: an export killed while it swapped that day in left it "
             f"in {staging}; it is read from there (the next export into {out} puts it back)",
             IcoframesWarning)
        found[day] = aside


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
    if not changed and not any(n.startswith(STAGING_PREFIX) for n in _names(folder)):
        # an export's swap (or one killed in it) leaves its staging folder until it is done,
        # or until a later export clears it (staging._clear_leftovers) and fails before its own
        raise ExportNotFound(
            f"{folder} is missing {MANIFEST} and no export is writing it (no staging folder "
            "of one): it holds tables written without a manifest (as Tables.to_parquet "
            "writes them; icoframes.Tables.read_parquet reads them), or an export killed "
            "while swapping its tables in, whose staging folder a later export cleared "
            "(exporting to it again completes it)")
    if not changed:
        raise ExportNotFound(
            f"{folder} is missing {MANIFEST}: an export is writing it right now, or one was "
            "killed while swapping its tables in (the next export completes it); "
            "read it once the export is done")
    raise ExportReplaced(
        f"{folder} is being replaced by a running export: it changed during each of "
        f"{READ_ATTEMPTS} attempts to read it ({absent} without a manifest); nothing mixed "
        "was returned. Read it again once the export is done.")


def _swap_ended(folder: Path) -> bool:
    """Whether an export swapping ``folder`` was waited for (its files into it: the manifest
    is missing meanwhile, however long a loaded disk takes; or the folder renamed away, then
    the new one in). FileNotFoundError when it is gone once no swap is in."""
    there, waited = confirm(swap_owner(folder), folder.is_dir)
    if not there:
        raise ExportNotFound(
            f"no export folder at {folder} (it was there when the read began: it was removed "
            "or renamed meanwhile, or an export killed while swapping a snapshot in set it "
            "aside, and the next export puts it back)")
    return waited


def _manifest_bytes(folder: Path) -> bytes | None:
    return read_record(folder / MANIFEST)  # a FIFO, a symlink, a folder: damaged, unread

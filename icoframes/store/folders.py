"""The folders of the cache dir: checked before any use, and made whole.

The cache dir and each folder in it (a service's, ``quota/``) must be this user's, and no
one else may write to them: another could plant data a load would then read
(:func:`check_cache_dir`, :func:`check_folder`; refused with :class:`CacheFolderRefused`,
the same words for a load and for housekeeping). A folder in the cache dir is made under a
temporary name (:data:`MAKING`) with its first file in it, then renamed to its own name:
housekeeping never sees a service folder that a load has made but not yet written to (it
took such a folder for one that is not the cache's).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from pathlib import Path

from ..config import SET_CACHE_DIR
from ..errors import CacheError, ConfigError
from ..files import not_a_folder

__all__ = ["MAKING", "CacheFolderRefused", "check_cache_dir", "check_folder", "checked_folders"]

#: A folder of the cache dir being made is named so (and more after it) until it holds its
#: first file; one a kill left there is a leftover (pruned after an hour, never "not ours").
MAKING = ".making-"
# what rename(2) says when the name is taken meanwhile (another process made the folder,
# or a link or a file is there): the folder found there is then checked as it is
_TAKEN = frozenset({errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR})


class CacheFolderRefused(CacheError, ConfigError):
    """A cache dir or service folder refused as it is (a link or no folder in place of a
    service folder, another user's, one others may write to): a setting to fix (exit 2)."""


def _make(path: Path, first: str) -> None:
    """Make the folder ``path`` with an empty file ``first`` in it, at once: made under a
    temporary name beside it, then renamed (a folder already there, made meanwhile, stays)."""
    made = Path(tempfile.mkdtemp(prefix=f"{MAKING}{path.name}-", dir=path.parent))  # 0700
    try:
        os.close(os.open(made / first, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        try:
            os.rename(made, path)
        except OSError as exc:
            if exc.errno not in _TAKEN:
                raise
    finally:
        shutil.rmtree(made, ignore_errors=True)  # (nothing there once renamed)


def _checked(path: Path, what: str, *, create: bool, follow: bool,
             first: str | None = None) -> bool:
    """A folder of this user that others cannot write to (made 0700 when ``create``, with an
    empty file ``first`` in it when given: :func:`_make`); whether it exists. ``follow``:
    ``path`` may be a link (the cache dir on another disk)."""
    try:
        info = path.stat() if follow else path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        if not create:
            return False
        if first is None:
            path.mkdir(mode=0o700, parents=follow, exist_ok=True)
        else:
            _make(path, first)
        info = path.stat() if follow else path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        if follow:
            raise CacheFolderRefused(f"the cache dir {path} is no folder: "
                                     f"{not_a_folder(path)}. {SET_CACHE_DIR}")
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a folder"
        raise CacheFolderRefused(f"{path} is {kind}: a cache folder is never followed elsewhere. "
                                 "Move it away (or set cache_dir to where it points).")
    if not hasattr(os, "getuid"):
        return True  # Windows: its ACLs are not modes
    if info.st_uid != os.getuid():
        problem = (f"it belongs to another user (uid {info.st_uid}; you are uid {os.getuid()}): "
                   "whoever owns it could plant data you would load")
    elif info.st_mode & 0o022:
        problem = (f"others may write to it (mode {stat.S_IMODE(info.st_mode):o}): they could "
                   f"plant data you would load; `chmod go-w {path}` if it is yours alone")
    else:
        return True
    raise CacheFolderRefused(f"{what} {path} is refused: {problem}"
                             + (f". {SET_CACHE_DIR}" if follow else ""))


def check_cache_dir(root: Path, *, create: bool) -> bool:
    """Refuse a cache dir another user could write to; make it (0700) when ``create``."""
    return _checked(root, "the cache dir", create=create, follow=True)


def check_folder(folder: Path) -> bool:
    """Refuse a folder of the cache dir (a service's) another user could write to, or a link
    or a file in its place; whether it exists. Never made."""
    return _checked(folder, "the cache folder", create=False, follow=False)


def checked_folders(root: Path, path: Path, *, write: bool) -> bool:
    """Whether the cache dir ``root`` and ``path``'s folder (no link) exist, both checked;
    with ``write``, both made when missing, the folder with an empty ``path`` in it."""
    return check_cache_dir(root, create=write) and _checked(
        path.parent, "the cache folder", create=write, follow=False, first=path.name)

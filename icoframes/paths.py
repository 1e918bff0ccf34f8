"""Path arguments, one reading for all: a folder a function or a command is given
(``export_tables(out=)``, ``--out``, ``Tables.to_parquet``, the readers of exports) and the
``cache_dir`` setting.

An empty path is refused (never the current directory), a leading ``~`` (``~name``) of the
path as written is expanded as a shell does (:func:`home_expanded`; ``./~/x`` is a folder
literally named ``~`` in the current one), and what no file system holds (a NUL, a name too
long) is refused in the package's words before anything is made or sent.

A shell variable in a path (``"$HOME/ico"``, ``"/srv/${USER}/ico"``) is refused too, with the
path it names when every variable it writes is set: as with pandas, ``open`` and pathlib, a
Python argument is not expanded (a shell expands a command's ``--out $HOME/ico`` before
icoframes sees it), but a folder literally named ``$HOME`` made in the current one is never
what was meant. Only a whole name (``$HOME``, between slashes) or a braced one (``${HOME}``,
anywhere) is such a variable: ``"price$usd"`` is a name as written.

A reader (``read_export``, ``Tables.read_parquet``, the snapshot readers) takes such a path as
written when something is there and nothing is at the path it names: icoframes made folders
literally named ``$HOME`` before it refused them, and their exports must stay readable. When
both are there it refuses, naming both, as a writer does: which one was meant is not the
reader's to guess. A writer still refuses it, and says so when the folder of that literal
name exists, with where it belongs.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Final, TypeVar

from .errors import InvalidParameter, quoted

__all__ = ["EMPTY_PATH", "ShellVariable", "absolute_folder", "as_written", "expanded_path",
           "folder_path", "forget_pinned", "home_expanded", "is_empty_path", "pinned_folder",
           "shell_variable"]


#: What an empty path is, said once for every path argument (configure's ``cache_dir``,
#: a function's folder, a command's ``--out``): ``Path("")`` is the current directory,
#: where nobody meant to write.
EMPTY_PATH: Final = "an empty path (that would be the current directory; say '.')"


def is_empty_path(value: object) -> bool:
    """Whether ``value`` is a text of blanks only: :data:`EMPTY_PATH`, refused."""
    return isinstance(value, str) and not value.strip()


_SEPARATORS: Final = re.escape(os.sep + (os.altsep or ""))
#: A shell variable a path writes: a whole name (``$HOME``) or a braced one (``${HOME}``).
_VARIABLE: Final = re.compile(rf"\$\{{([A-Za-z_]\w*)\}}|(?:^|(?<=[{_SEPARATORS}]))"
                              rf"\$([A-Za-z_]\w*)(?=[{_SEPARATORS}]|$)", re.ASCII)
#: Variables whose value is never shown in a suggestion: a key has no place in a message.
_SECRET: Final = re.compile(r"KEY|SECRET|TOKEN|PASS|CREDENTIAL|AUTH", re.IGNORECASE)


class ShellVariable(ValueError):
    """A path setting refused for a shell variable it writes (:func:`shell_variable`), with
    :attr:`withheld`, the reason for a value that is not shown (it may be a key): it quotes
    no part of the value."""

    def __init__(self, why: str, withheld: str) -> None:
        super().__init__(why)
        self.withheld = withheld


def as_written(text: str | os.PathLike[str]) -> Path:
    """``text`` as a Path that names what it writes: pathlib drops a leading ``./``
    (``Path("./~/x")`` is ``~/x``, which any ``expanduser()`` then takes for the home folder),
    so a path naming a folder literally called ``~`` that way is made absolute; any other
    as pathlib reads it. A ``~`` the text begins with is left as it is.

    Examples
    --------
    >>> import os
    >>> as_written("./~/x") == Path(os.getcwd(), "~", "x"), as_written("~/x"), as_written("./a")
    (True, PosixPath('~/x'), PosixPath('a'))
    """
    path = Path(text)
    if path.parts[:1] and path.parts[0][:1] == "~" and not os.fspath(text).startswith("~"):
        return path.absolute()
    return path


def home_expanded(text: str | os.PathLike[str]) -> Path:
    """``text`` as a Path, a leading ``~`` or ``~name`` of the path as written expanded, as a
    shell does: ``./~/x`` stays a folder named ``~`` (:func:`as_written`: pathlib drops the
    ``./``, so ``Path(text).expanduser()`` would read it as ``$HOME/x``). RuntimeError, as
    pathlib's, for the home of a user this machine does not have (or none at all)."""
    expanded = os.path.expanduser(text)
    if expanded[:1] == "~":  # os.path leaves what it cannot expand as it was
        raise RuntimeError("Could not determine home directory.")
    return as_written(expanded)


def shell_variable(text: str, *, withheld: bool = False) -> str | None:
    """Why the path ``text`` is refused for a shell variable it writes (see the module's
    notes), with ``"did you mean"`` the path it names when each is set; None when it writes
    none. A folder of that literal name there (an earlier icoframes made them) is named too,
    with where it belongs (:func:`_made_before`). ``withheld`` (the value is not shown: it
    may be a key) names only variables the environment sets, and no path.

    Examples
    --------
    >>> shell_variable("${NO_SUCH_VARIABLE}/day")
    'writes $NO_SUCH_VARIABLE, a shell variable icoframes does not expand (a shell does): taken \
as written, it would name a folder of that name, and $NO_SUCH_VARIABLE is not set here either'
    >>> shell_variable("k3y/$NO_SUCH_VARIABLE/x", withheld=True)
    'writes a shell variable, which icoframes does not expand (a shell does): taken as \
written, it would name a folder of that name'
    >>> shell_variable("price$usd/$1"), shell_variable("~/ico")
    (None, None)
    """
    found = list(_VARIABLE.finditer(text))
    if not found:
        return None
    names = list(dict.fromkeys(match[1] or match[2] for match in found))
    # a value not shown (withheld): "$Zq8v..." may be part of a key, "$HOME" is the
    # environment's; and no path it names (the rest of the value)
    if withheld and any(name not in os.environ or _SECRET.search(name) for name in names):
        named = "a shell variable, which"
    else:
        named = (f"{', '.join('$' + name for name in names)}, "
                 f"{'a shell variable' if len(names) == 1 else 'shell variables'}")
    said = (f"writes {named} icoframes does not expand (a shell does): taken as written, it "
            "would name a folder of that name")
    if withheld:  # a folder made before is said, not where (a part of the value)
        return said + (" (a folder of that name exists, made by icoframes before it refused "
                       "such paths: move it to the path meant)" if _made_before(text) else "")
    said += _made_before(text)
    unset = [name for name in names if name not in os.environ]
    if unset:
        return f"{said}, and {', '.join('$' + name for name in unset)} is not set here either"
    meant = _expanded(text)  # None: a key's value, never in a message
    return f"{said}; did you mean {meant!r}?" if meant is not None else said


def _expanded(text: str) -> str | None:
    """``text`` with each shell variable it writes replaced by its value; None when one is
    unset or named like a key (its value is never shown)."""
    names = [match[1] or match[2] for match in _VARIABLE.finditer(text)]
    if any(name not in os.environ or _SECRET.search(name) for name in names):
        return None
    return _VARIABLE.sub(lambda match: os.environ[match[1] or match[2]], text)


def _made_before(text: str) -> str:
    """``" (a folder named '$HOME' exists ...)"``: the deepest folder of ``text`` that
    writes a shell variable and is there, as the export of an earlier icoframes made it
    (``export_tables('$HOME/x')`` made ``./$HOME/x``), with where it belongs; else ``""``."""
    parts = as_written(text).parts
    for end in range(len(parts), 0, -1):
        folder = os.path.join(*parts[:end])
        if not _VARIABLE.search(folder):
            break  # a folder above the first variable: not one the variable named
        if _exists(folder):
            meant = _expanded(folder)
            where = "" if os.path.isabs(folder) else " in the current folder"
            # the folder itself where nothing is yet; else what it holds, into what is there
            what = "it" if meant and not _exists(meant) else "what it holds"
            move = f": move {what} to {meant!r}" if meant else ""
            return (f" (a folder named {folder!r} exists{where}, made by icoframes before it "
                    f"refused such paths{move})")
    return ""


def _made_only(text: str) -> bool:
    """Whether a reader takes ``text`` as written: something is there, and nothing at the
    path it names (``./$HOME/x`` made before, no ``<home>/x``). When both are there the
    reader of one would silently read the other's rows: refused, naming both
    (:func:`_made_before`)."""
    text = os.fspath(as_written(text))  # "./$HOME/x" is "$HOME/x" to pathlib, as to a reader
    meant = _expanded(text)  # None: a variable unset (or a key's): only the literal one
    return _exists(text) and (meant is None or not _exists(meant))


def _exists(text: str) -> bool:
    """Whether anything is at the path ``text`` taken as written (``~`` expanded), a
    symbolic link to nothing too."""
    try:
        return os.path.lexists(home_expanded(text))
    except (RuntimeError, ValueError, OSError):  # ~nosuchuser, a NUL, a name too long
        return False


def expanded_path(value: Any) -> Path:
    """A path setting (``cache_dir``) as a Path, ``~`` expanded; TypeError or ValueError in
    the package's words (the setting's check names it; Python's were "expected str, bytes
    or os.PathLike object, not int", a bare RuntimeError for ``~nosuchuser``, "embedded null
    byte" at each load) for :data:`EMPTY_PATH` and what no file system holds."""
    if is_empty_path(value):
        raise ValueError(f"is {EMPTY_PATH}")
    text = os.fspath(value) if isinstance(value, str | os.PathLike) else None
    if not isinstance(text, str):
        raise TypeError("must be a folder path (str or os.PathLike)")
    if (why := shell_variable(text)) is not None:  # a folder named "$HOME": never meant
        raise ShellVariable(why, str(shell_variable(text, withheld=True)))
    try:
        path = home_expanded(text)
    except RuntimeError:  # "Could not determine home directory."
        raise ValueError("begins with the home folder (~name) of a user this machine does "
                         "not have") from None  # (the value itself may be a key: not shown)
    if (why := _no_path(path)) is not None:  # taken, it failed at the first load
        raise ValueError(why)
    return path


def absolute_folder(value: Any) -> Path:
    """:func:`expanded_path` made absolute against the current folder now: the ``cache_dir``
    setting. Kept relative, it named another folder after each ``os.chdir`` (a notebook's
    ``%cd``): a second cache, and a second request ledger whose count let the key pass its
    ``daily_quota``."""
    path = expanded_path(value)
    try:
        return path.absolute()
    except FileNotFoundError:  # os.getcwd() of a removed folder
        raise ValueError("is relative, and the current folder no longer exists") from None


_pinned: dict[tuple[str, str], Path] = {}
_T = TypeVar("_T")


def pinned_folder(name: str, text: Any, value: _T) -> _T:
    """``value``, the setting ``name`` read from ``text`` (an environment variable's value,
    read at each call): for a folder written as a relative path (not ``~``, not absolute),
    the folder it named at the first read of ``text`` for ``name`` since
    :func:`forget_pinned`, so that a relative ``ICOFRAMES_CACHE_DIR`` names the folder under
    the current folder of that read and stays that folder after a ``chdir`` (see
    :func:`absolute_folder`); another value as it is (``~`` is expanded at each read:
    ``HOME`` may change)."""
    if not isinstance(value, Path) or not _relative(str(text)):
        return value
    return _pinned.setdefault((name, str(text)), value)  # type: ignore[return-value]


def _relative(text: str) -> bool:
    """Whether ``text`` is a relative path as written (its meaning depends on the current
    folder): neither absolute nor beginning with ``~``."""
    return not (text.startswith("~") or os.path.isabs(text))


def forget_pinned() -> None:
    """Forget the folders :func:`pinned_folder` remembered: the next read of a relative
    path names it under the current folder again (``reset_configuration()``: a test
    suite's chdir to a new folder per test then gets that folder)."""
    _pinned.clear()


#: The longest file name and path Linux file systems hold (NAME_MAX, PATH_MAX), in bytes.
_NAME_MAX, _PATH_MAX = 255, 4096
_TOO_LONG = (f"is no path a file system holds (a name over {_NAME_MAX} bytes, or over "
             f"{_PATH_MAX} in all)")


def _no_path(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` is no path a file system holds (a NUL, too long), or None."""
    if "\0" in os.fspath(path):
        return "holds a NUL character, which no path may hold"
    too_long = len(os.fsencode(path)) > _PATH_MAX or any(
        len(os.fsencode(part)) > _NAME_MAX for part in Path(path).parts)
    return _TOO_LONG if too_long else None


def folder_path(value: object, name: str, *, reading: bool = False) -> Path:
    """A folder argument as a Path, ``~`` expanded as ``cache_dir``'s is: InvalidParameter
    for an empty one (:data:`EMPTY_PATH`) or a value that is no path; one writing a shell
    variable too (:func:`shell_variable`), unless ``reading`` and something is there (a
    folder an earlier icoframes made, named ``$HOME``: the module's notes) and nothing at
    the path it names (:func:`_made_only`)."""
    if is_empty_path(value):
        raise InvalidParameter(f"{name}={quoted(value)} is {EMPTY_PATH}")
    if not isinstance(value, str | os.PathLike):
        raise InvalidParameter(f"{name} must be a folder path (str or os.PathLike), got "
                               f"{quoted(value)}")
    # a name no file system holds: stat() raised a bare "File name too long", quoting it whole
    text = os.fspath(value)
    if (why := _no_path(text)) is None and not (reading and _made_only(text)):
        why = shell_variable(text)  # "$HOME/x" too; a reader reads a "$HOME" made before
    if why is not None:
        raise InvalidParameter(f"{name}={quoted(text)} {why}")
    try:  # out="~/x" was a folder named "~" in the current one, "./~/x" the home's x
        return home_expanded(text)
    except RuntimeError:  # "Could not determine home directory."
        raise InvalidParameter(f"{name}={quoted(text)} begins with the home folder "
                               "(~name) of a user this machine does not have") from None

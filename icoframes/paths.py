"""Path arguments, one reading for all: a folder a function or a command is given
(``export_tables(out=)``, ``--out``, ``Tables.to_parquet``, the readers of exports) and the
``cache_dir`` setting.

An empty path is refused (never the current directory), ``~`` is expanded as
:meth:`pathlib.Path.expanduser` does, and what no file system holds (a NUL, a name too long)
is refused in the package's words before anything is made or sent.

A shell variable in a path (``"$HOME/ico"``, ``"/srv/${USER}/ico"``) is refused too, with the
path it names when every variable it writes is set: as with pandas, ``open`` and pathlib, a
Python argument is not expanded (a shell expands a command's ``--out $HOME/ico`` before
icoframes sees it), but a folder literally named ``$HOME`` made in the current one is never
what was meant. Only a whole name (``$HOME``, between slashes) or a braced one (``${HOME}``,
anywhere) is such a variable: ``"price$usd"`` is a name as written.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Final

from .errors import InvalidParameter, quoted

__all__ = ["EMPTY_PATH", "expanded_path", "folder_path", "is_empty_path", "shell_variable"]


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


def shell_variable(text: str) -> str | None:
    """Why the path ``text`` is refused for a shell variable it writes (see the module's
    notes), with ``"did you mean"`` the path it names when each is set; None when it writes
    none.

    Examples
    --------
    >>> shell_variable("${NO_SUCH_VARIABLE}/day")
    'writes $NO_SUCH_VARIABLE, a shell variable icoframes does not expand (a shell does): taken \
as written, it would name a folder of that name, and $NO_SUCH_VARIABLE is not set here either'
    >>> shell_variable("price$usd/$1"), shell_variable("~/ico")
    (None, None)
    """
    found = list(_VARIABLE.finditer(text))
    if not found:
        return None
    names = list(dict.fromkeys(match[1] or match[2] for match in found))
    said = (f"writes {', '.join('$' + name for name in names)}, "
            f"{'a shell variable' if len(names) == 1 else 'shell variables'} icoframes does "
            "not expand (a shell does): taken as written, it would name a folder of that name")
    unset = [name for name in names if name not in os.environ]
    if unset:
        return f"{said}, and {', '.join('$' + name for name in unset)} is not set here either"
    if any(_SECRET.search(name) for name in names):
        return said  # no value of a key in a message
    meant = _VARIABLE.sub(lambda match: os.environ[match[1] or match[2]], text)
    return f"{said}; did you mean {meant!r}?"


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
        raise ValueError(why)
    try:
        path = Path(text).expanduser()
    except RuntimeError:  # "Could not determine home directory."
        raise ValueError("begins with the home folder (~name) of a user this machine does "
                         "not have") from None  # (the value itself may be a key: not shown)
    if (why := _no_path(path)) is not None:  # taken, it failed at the first load
        raise ValueError(why)
    return path


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


def folder_path(value: object, name: str) -> Path:
    """A folder argument as a Path, ``~`` expanded as ``cache_dir``'s is: InvalidParameter
    for an empty one (:data:`EMPTY_PATH`) or a value that is no path."""
    if is_empty_path(value):
        raise InvalidParameter(f"{name}={quoted(value)} is {EMPTY_PATH}")
    if not isinstance(value, str | os.PathLike):
        raise InvalidParameter(f"{name} must be a folder path (str or os.PathLike), got "
                               f"{quoted(value)}")
    # a name no file system holds: stat() raised a bare "File name too long", quoting it whole
    if (why := _no_path(value)) is not None or (why := shell_variable(os.fspath(value))):
        raise InvalidParameter(f"{name}={quoted(os.fspath(value))} {why}")  # "$HOME/x" too
    try:  # out="~/x" was a folder named "~" in the current one
        return Path(value).expanduser()
    except RuntimeError:  # "Could not determine home directory."
        raise InvalidParameter(f"{name}={quoted(os.fspath(value))} begins with the home folder "
                               "(~name) of a user this machine does not have") from None

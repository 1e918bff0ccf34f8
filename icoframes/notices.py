"""The warnings icoframes issues, and :func:`warn`, which attributes one to the user's line.

Every class here is importable from :mod:`icoframes.errors` (whose docstring draws their
tree beside the exceptions') and from ``icoframes``.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from types import FrameType

from .held import held_back

__all__ = ["CacheWarning", "IcoframesWarning", "IncompleteWarning", "MissingProfileWarning",
           "NoMatchWarning", "QuotaWarning", "StaleWarning", "warn"]


class IcoframesWarning(UserWarning):
    """Base class of every warning icoframes issues."""


class QuotaWarning(IcoframesWarning):
    """A load plans more requests than remain in today's allowance."""


class CacheWarning(IcoframesWarning):
    """A cache file was unreadable; it was set aside and will be rebuilt or re-fetched. Or
    a cached list is dated after this machine's clock (a clock stepped back): it is paged
    again (one warning per load), and profile copies dated after now may be fetched again."""


class IncompleteWarning(IcoframesWarning):
    """A result lacks rows: a list came back short, or listed ICOs have no profile.

    The result's ``attrs["icoframes"]`` names the queries that were not complete
    and every missing id with its state (failed, gone, not fetched); calling the
    loader again retries what failed.
    """


class MissingProfileWarning(IncompleteWarning):
    """ICOs were listed but the service had no profile for them (error 482); left out."""


class NoMatchWarning(IcoframesWarning):
    """A loader's query matched no ICO: the result is the typed empty frame (every column).

    The message names the query; it is issued on every call that returns
    nothing, from the service (error 482) or from the cache alike.
    """


class StaleWarning(IcoframesWarning):
    """Rows were kept from an earlier fetch, out of date: the call's ``budget`` or the daily
    limit ran out first, or fetching them again failed."""


_PACKAGE_DIR = str(Path(__file__).resolve().parent)


def _outside_package(filename: str) -> bool:
    # the folder and a separator: a sibling named icoframes_contrib is outside
    try:
        return not str(Path(filename).resolve()).startswith(_PACKAGE_DIR + os.sep)
    except (OSError, ValueError):
        return True


def warn(message: str, category: type[Warning] = IcoframesWarning) -> None:
    """Issue ``message`` attributed to the first caller outside the icoframes package.

    Fixed ``stacklevel`` numbers break whenever the call path changes (and point inside the
    package); walking the stack to the first foreign frame names the user's line (the
    outermost in the pool's threads). Held while an export holds them, unless the filters
    make it an error (:func:`icoframes.held.held_back`): that is raised here, where issued.
    """
    frame: FrameType | None = sys._getframe(1)  # the caller of warn(): stacklevel 2
    level = 2
    while frame is not None and not _outside_package(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    if not held_back(message, category, frame or sys._getframe(level - 2)):
        warnings.warn(message, category, stacklevel=level - (frame is None))

"""A cached list dated after now: this machine's clock is behind the one that paged it.

A clock stepped back (an NTP step, a VM restored from an image) after a load leaves every
list and copy of that load dated after now. The freshness policy (:mod:`.policy`) counts a
copy dated after now as the oldest, so that a clock stepped back never pins an old copy;
a list is treated the same way: it is no longer "younger than max_age", and is paged again
(with its profiles whose copies are dated after now). That costs as much as the first
load, so it is never silent, and never said as an age: the reason and a
:class:`~icoframes.errors.CacheWarning` say the list is dated after now, by how much, and
what to do.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..errors import CacheWarning, warn

__all__ = ["AFTER_NOW", "after_now", "ahead", "warn_after_now"]

#: What every reason about a list dated after now says (:func:`warn_after_now` looks for it).
AFTER_NOW = "dated after now"


def ahead(fetched_at: dt.datetime, now: dt.datetime) -> bool:
    """Whether a list paged at ``fetched_at`` is dated after ``now``."""
    return fetched_at > now


def after_now(what: str, fetched_at: dt.datetime, now: dt.datetime) -> str:
    """Why ``what`` (a cached list) does not answer: it is dated after ``now``."""
    return (f"{what} is {AFTER_NOW}: paged at {fetched_at.isoformat()}, "
            f"{pd.Timedelta(fetched_at - now)} after this machine's clock "
            f"({now.isoformat()}); the clock was stepped back since, or the host that paged "
            "it runs ahead")


def warn_after_now(params: Mapping[str, Any], declined: list[str]) -> None:
    """Warn that the list ``params`` is paged because cached lists are dated after now."""
    said = [why for why in declined if AFTER_NOW in why]
    if not said:
        return
    shown = {k: v for k, v in params.items() if v is not None}
    warn(f"the list {shown} is paged again: {said[0]}. A list or profile copy dated after "
         "now counts as older than any max_age (a clock stepped back never pins an old copy), "
         "so it and its profiles whose copies are dated after now are fetched again, which "
         "may cost as many requests as the load that cached them; set this machine's clock "
         "right (timedatectl; NTP) before loading, or load with offline=True meanwhile",
         CacheWarning)

"""A cached list dated after now: this machine's clock is behind the one that paged it.

A clock stepped back (an NTP step, a VM restored from an image) after a load leaves every
list and copy of that load dated after now. The freshness policy (:mod:`.policy`) counts a
copy dated after now as the oldest, so that a clock stepped back never pins an old copy;
a list is treated the same way: it is no longer "younger than max_age", and is paged again
(its profiles whose copies are dated after now may be fetched again). That can cost as much
as the first load, so it is never silent, and never said as an age: the reason and one
:class:`~icoframes.errors.CacheWarning` per load say the list is dated after now, by how
much, and what to do.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from ..errors import CacheWarning, warn

__all__ = ["AFTER_NOW", "SKEW", "after_now", "ahead", "warn_after_now"]

#: What every reason about a list dated after now says (:func:`warn_after_now` looks for it).
AFTER_NOW = "dated after now"
#: Less ahead than this is two clocks read apart (processes of one host under a test's or a
#: VM's clock), not a clock stepped back: paged again all the same, not warned of.
SKEW = dt.timedelta(seconds=1)


def ahead(fetched_at: dt.datetime, now: dt.datetime) -> bool:
    """Whether a list paged at ``fetched_at`` is dated after ``now``."""
    return fetched_at > now


def after_now(what: str, fetched_at: dt.datetime, now: dt.datetime) -> str:
    """Why ``what`` (a cached list) does not answer: it is dated after ``now``."""
    if fetched_at - now < SKEW:
        return (f"{what} was paged {pd.Timedelta(fetched_at - now)} after this machine's "
                f"clock reads now ({now.isoformat()}): clocks read apart by under a second")
    return (f"{what} is {AFTER_NOW}: paged at {fetched_at.isoformat()}, "
            f"{pd.Timedelta(fetched_at - now)} after this machine's clock "
            f"({now.isoformat()}); the clock was stepped back since, or the host that paged "
            "it runs ahead")


def warn_after_now(queries: Iterable[tuple[Mapping[str, Any], list[str]]]) -> None:
    """Warn once for a load's lists ``(params, declined)`` paged because cached lists are
    dated after now (a load without a status pages three: one clock, one warning)."""
    said = [(params, next(why for why in declined if AFTER_NOW in why))
            for params, declined in queries if any(AFTER_NOW in why for why in declined)]
    if not said:
        return
    shown = ", ".join(str({k: v for k, v in params.items() if v is not None})
                      for params, _ in said)
    warn(f"the list{'s' if len(said) > 1 else ''} {shown} {'are' if len(said) > 1 else 'is'} "
         f"paged again: {said[0][1]}. A cached list dated after now counts as older than any "
         "max_age (a clock stepped back never pins an old copy); profile copies dated after "
         "now may be fetched again too, up to as many requests as the load that cached them. "
         "If the host that paged it ran ahead, the lists paged now answer the next loads; if "
         "this machine's clock was stepped back, loads page again until it passes the time "
         "the list was paged: wait until then, or load with offline=True meanwhile",
         CacheWarning)

"""A request ledger's day as the stops say it: when its count starts again, the day this
clock is in, and a count stored under a day after it (not today's count: said with why, and
the way out).
"""

from __future__ import annotations

import datetime as dt

from ..files import utcnow
from ..quoting import counted
from ..store.ledger import LedgerState

__all__ = ["ahead_of", "ahead_said", "ahead_stop", "clock_day", "count_starts", "why_ahead"]


def ahead_stop(daily_quota: int, state: LedgerState, least: str) -> tuple[str, str]:
    """The daily_quota stop when the ledger's day is after this clock's: who refused and what
    now (the ledger cannot tell whose clock is wrong)."""
    are = "is" if state.sent == 1 else "are"
    who = (f"the daily_quota setting ({counted(daily_quota, 'request')}) is reached: "
           f"{least}{counted(state.sent, 'request')} {are} counted on {state.day}, "
           f"{ahead_of(state)}, with this key from this cache dir")
    then = (f"{why_ahead(state, 'Either')}. The count holds until {count_starts(state)}. "
            "If this clock is right, icoframes.clear_cache("
            "ledgers='only') (from a shell: icoframes cache clear --ledgers-only) forgets "
            "this key's count and keeps the cache; the requests it held may have been sent "
            "today, so the service may refuse (error 485) before daily_quota. "
            "icoframes.clear_cache(ledgers=True) (from a shell: icoframes cache clear "
            "--ledgers) forgets it too, but deletes this service's cache: its profiles are "
            "fetched again.")
    return who, then


def ahead_said(state: LedgerState) -> str:
    """What a ledger whose day is after this clock's (``state.ahead_day`` set) holds, said
    where its count is shown (``icoframes cache info``): its day, how far, why, until when."""
    return (f"this key's request count ({counted(state.sent, 'request')}) is stored under "
            f"{state.day}, {ahead_of(state)}: not today's count, and how many of its requests "
            f"were sent today is not known ({why_ahead(state, 'either')}); it holds until "
            f"{count_starts(state)}")


def ahead_of(state: LedgerState) -> str:
    """How far the ledger's day (:attr:`~icoframes.store.ledger.LedgerState.ahead_day`) is
    after the day this clock is in: "3 days after this clock's day 2026-12-01"."""
    today, days = clock_day(state), (dt.date.fromisoformat(state.day) - clock_day(state)).days
    clock = ("this clock's day" if state.reset is None else
             f"the day counted from {state.reset:%H:%M} UTC (quota_reset) that this clock is in,")
    return f"{counted(days, 'day')} after {clock} {today}"


def why_ahead(state: LedgerState, either: str) -> str:
    """Why the ledger's day is after this clock's, begun with ``either``: a clock, or, for a
    day after, ``quota_reset`` set or moved later since the count began (the day it names
    then begins later, so the date counted now may be the one before)."""
    why = f"{either} a run's clock was ahead, or this clock is behind: check it"
    if (dt.date.fromisoformat(state.day) - clock_day(state)).days == 1:
        why += "; or quota_reset was set, or moved later, since the count began"
    return why


def clock_day(state: LedgerState) -> dt.date:
    """The day counted (from 00:00 UTC, or ``quota_reset``) that this clock is in now."""
    return (utcnow() - dt.timedelta(hours=(r := state.reset or dt.time(0)).hour,
                                    minutes=r.minute)).date()


def count_starts(state: LedgerState) -> str:
    """When the count of ``state``'s day ends and the next starts, as a stop says it."""
    return "00:00 UTC" if state.day_ends is None else f"{state.day_ends:%Y-%m-%d %H:%M} UTC"

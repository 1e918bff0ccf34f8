"""Freshness, projected: what daily runs would fetch for age alone, by the policy's due ages.

The freshness benchmark loads for real on days 0 to 8 and then jumps to the day
the cold load's past profiles reach 90 days. This projects the days between,
with a ``refresh=True`` run every day at the same hour and no ICO changing:
each day, the profiles older than the age at which the policy has them fall
due (:func:`icoframes.fetch.policy.due_after`) are fetched, a moment after the
run starts. It shows whether the cold load's cohort, fetched on one day, comes
due spread over many days or all on one.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pandas as pd

from icoframes.fetch.policy import PROFILE_MAX_AGE, due_after

__all__ = ["project", "projected", "projection_text"]

# a run fetches its profiles a moment after it starts
_FETCH_DELAY = dt.timedelta(seconds=30)


def project(fetched: pd.Series, status: pd.Series, start: dt.datetime, days: range
            ) -> dict[str, Any]:
    """Profiles fetched for age alone on each of ``days`` (days after ``start``).

    ``fetched``: the fetch time (UTC) of each profile, indexed by id, before
    the first of ``days``; ``status``: each id's status. Returns ``per_day``
    (day -> profiles by status), ``worst`` (day, count) and ``mean``.
    """
    ids = fetched.index.to_numpy(dtype="int64")
    of = status.reindex(fetched.index).astype(object).to_numpy()
    limit = np.array([PROFILE_MAX_AGE[s].total_seconds() for s in of], dtype=float)
    due = due_after(ids, limit)
    at = np.array([t.timestamp() for t in fetched], dtype=float)
    per_day: dict[int, dict[str, int]] = {}
    for day in days:
        now = (start + dt.timedelta(days=day)).timestamp()
        stale = now - at > due
        per_day[day] = {s: int((stale & (of == s)).sum()) for s in PROFILE_MAX_AGE}
        at = np.where(stale, now + _FETCH_DELAY.total_seconds(), at)
    totals = {day: sum(counts.values()) for day, counts in per_day.items()}
    worst = max(totals, key=lambda d: totals[d])
    return {"per_day": per_day, "worst": (worst, totals[worst]),
            "mean": sum(totals.values()) / len(totals), "days": days}


def projected(result: dict[str, Any]) -> tuple[int, tuple[int, int], str]:
    """The list pages of a day, the projection's worst day, and its span of days."""
    days, projection = result["days"], result["projection"]
    pages = round(sum(d["spent"]["icos"] for d in days) / len(days))
    span = f"days {projection['days'][0]}–{projection['days'][-1]}"
    return pages, projection["worst"], span


def projection_text(result: dict[str, Any]) -> str:
    """The markdown paragraph on the projection of a freshness result."""
    pages, (worst, profiles), span = projected(result)
    per_day = result["projection"]["per_day"]
    past = [d for d, counts in per_day.items() if counts["past"]]
    weekly = {d: sum(c.values()) for d, c in per_day.items() if d % 7 == 0}
    return (
        f"**Projected, {span}**: a `refresh=True` every day at 06:00 and no ICO changing; "
        "each day the profiles past the age at which the policy has them fall due "
        "(`icoframes.fetch.policy.due_after`: between half and all of their status's "
        "limit, a fixed point per id, less 5% and at most an hour) are counted as "
        f"fetched {_FETCH_DELAY.total_seconds():.0f} s after 06:00. From the fetch times "
        "the real loads left after day "
        f"{result['config'].days}. Worst day: day {worst}, {profiles:,} profiles "
        f"(+ about {pages:,} list pages); mean {result['projection']['mean']:,.0f} profiles "
        "a day. Past profiles come due "
        + (f"from day {past[0]} on" if past else "on no day of the span")
        + " (and again 45 to 90 days after each fetch), never all on one day. Profiles a "
        "day, every 7th day: "
        + ", ".join(f"day {d}: {n:,}" for d, n in weekly.items()) + ".")

"""Which cached profiles a load fetches again: the freshness policy, declared once.

A profile is (re-)fetched when

* it is not cached, or its last fetch failed ("new", "failed");
* a list paged after its fetch shows another summary (name, score, raised), or a list
  just paged holds it while its copy fails that list's filters ("changed");
* a list paged after its fetch shows it under another status than then ("status");
* the list was paged again (``refresh=True``, or the cached list was older than
  ``max_age``) and the profile is older than :data:`PROFILE_MAX_AGE` for its
  status ("stale"); a fetch time in the future counts as the oldest, so a
  clock stepped back never pins an old copy;
* ``refresh="all"`` was asked ("all");
* a fetch to replace its copy failed since, in any earlier load ("retry"), whether the
  list was paged again or not (not only once stale, each export until then exiting 5);
  not where no new copy could be kept (a read-only cache dir serves it, not refreshed).

An ICO whose profile was not found (error 482) is asked again only when its
summary or status changes. With a request ``budget``, the most stale go first:
new ones and those that failed over an hour ago, then those that failed within the
hour (likely to fail again), then changed ones, then the refreshes: first the
"retry" ones (an earlier load wanted them again), then the oldest relative to their
status's maximum age; of equally urgent failed ones, the one whose last failure is
the oldest first.

**A profile that keeps failing is tried less often.** A fetch that failed
(after its retries) is tried again by the next call. Once it failed on
:data:`BACKOFF_AFTER` (2) loads in a row, with no copy arriving between, it is
not asked again until :func:`retry_interval` has passed since its last failure
(since the start of the load it failed in, or half the wait before the failure when that
is later: :func:`failure_stamp`):
1 hour after the 2nd failed load, 4 hours after the 3rd, 16 hours after the 4th,
then 64 hours, and at most :data:`MAX_RETRY_INTERVAL` (7 days), each less a little
slack (5% of it, at most an hour: :func:`slack`); whatever the reason listed for it
(new, retry, stale, changed). Meanwhile it is reported missing (or
its older copy is used) with the time of its next try. ``refresh="all"`` tries
it anyway; a last failure dated in the future (a clock set back) never delays it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .loadages import DEFAULT_MAX_AGE, PROFILE_MAX_AGE, age_limit, load_ages, profile_max_age

__all__ = ["BACKOFF_AFTER", "DEFAULT_MAX_AGE", "MAX_RETRY_INTERVAL", "PROFILE_MAX_AGE", "URGENT",
           "ProfileIndex", "Want", "age_limit", "due_after", "failure_stamp", "load_ages",
           "next_try", "plan_profiles", "profile_max_age", "retry_interval", "slack"]

# Failed loads in a row (no copy between) from which a profile waits before its next try,
# the first wait, its growth per failed load, and the longest wait.
BACKOFF_AFTER = 2
FIRST_RETRY_INTERVAL = dt.timedelta(hours=1)
_GROWTH = 4
MAX_RETRY_INTERVAL = dt.timedelta(days=7)

# Order of the reasons when a budget limits a call: most urgent first. A profile whose last
# fetch failed comes just after the new ones: its answer is likely wrong again (a load called
# again at once: a service answering everything wrongly is found on new ones first). One whose
# failure is _RECENT old or more is as urgent as a new one (the service may have recovered
# since): at 3.9 always, new ICOs filling a daily budget would starve it for good.
# A run of such profiles answered wrongly again stops the asking of those only
# (LoadControl.known_held), and those failing load after load wait their retry_interval.
_URGENCY = {"new": 4.0, "failed": 3.9, "all": 3.0, "status": 2.0, "changed": 2.0}
_RECENT = FIRST_RETRY_INTERVAL.total_seconds()  # the first wait of a profile failing again
#: A want at least this urgent (its staleness) has one of those reasons (urgency x URGENT);
#: below it, only stale (its age over its maximum age): a refresh, which can wait.
URGENT = 1e12
# the most stale a refresh gets (no fetch time, one in the future, a maximum age of 0): the
# first of the refreshes, never before a new, failed, changed or moved profile
_MOST_STALE = float(np.nextafter(URGENT, 0))


@dataclass(frozen=True)
class Want:
    """One profile to fetch: the id, how it is listed, why, and how stale (sort key)."""

    id: int
    status: str
    summary: str
    reason: str
    staleness: float
    # why its last fetch failed, when one failed since its copy (or it has none):
    # LoadControl.known_bad
    failure: str | None = field(default=None, repr=False)
    # when it last failed (seconds since the epoch; None: no failure since its copy):
    # ProfilePlan asks the longest failed first among equally urgent failed ones
    failed_at: float | None = field(default=None, repr=False, compare=False)

    @property
    def failed_before(self) -> bool:
        """Its last fetch failed, in an earlier load: no copy yet, or one a refresh failed to
        replace since (both are known bad, so that a run of them does not stop every
        refresh="all" of the others, load after load)."""
        return self.reason == "failed" or self.failed_at is not None


def retry_interval(failures: int) -> dt.timedelta:
    """How long a profile that failed on ``failures`` loads in a row waits before its next try.

    Examples
    --------
    >>> [str(retry_interval(n)) for n in (1, 2, 3, 4, 5, 9)]
    ['0:00:00', '1:00:00', '4:00:00', '16:00:00', '2 days, 16:00:00', '7 days, 0:00:00']
    """
    if failures < BACKOFF_AFTER:
        return dt.timedelta(0)
    # the exponent capped: a profile failing for months must not overflow timedelta
    steps = min(failures - BACKOFF_AFTER, 16)
    return min(MAX_RETRY_INTERVAL, FIRST_RETRY_INTERVAL * _GROWTH ** steps)


def slack(wait: Any) -> Any:
    """How much sooner than a ``wait`` (seconds; a number or an array) a profile falls due:
    5% of it, at most an hour.

    A backoff counts from the start of the load that failed (its failures are kept with
    that time, or a later one in a long load: :func:`failure_stamp`), a maximum age from
    when the copy came; a job run at a fixed time each hour, day or week, a run starting a little
    early or a copy coming late in it, would find it due just after its run and wait one
    period more than said: 8 days for a daily job, not the 7 of :data:`MAX_RETRY_INTERVAL`
    (as would a backoff counted from the failure, for one failing an hour into the run).

    Examples
    --------
    >>> [float(slack(s)) for s in (600, 3600, 16 * 3600, 7 * 86400)]
    [30.0, 180.0, 2880.0, 3600.0]
    """
    return np.minimum(3600.0, 0.05 * wait)


def failure_stamp(failures: int, started: dt.datetime, now: dt.datetime) -> dt.datetime:
    """The time a fetch failing at ``now``, in a load begun at ``started``, is kept with (the
    ``failures``-th load in a row to fail it): its wait (:func:`retry_interval`) counts from it.

    The load's start, so that a job run at a fixed hour finds it due by its run a wait
    later, however far into its run it failed; but never over half the wait before the
    failure: a load lasting longer than the wait (a big crawl the service throttles) would
    have a failure late in it due at once, asked again by the next load. A failure within
    half its wait of the load's start is kept with the start, so a job whose loads last
    less than half its period still finds it due by the run a wait later.

    Examples
    --------
    >>> began = dt.datetime(2026, 11, 1, 10, tzinfo=dt.UTC)
    >>> [f"{failure_stamp(n, began, began + dt.timedelta(minutes=115)):%H:%M}" for n in (1, 2, 3)]
    ['10:00', '11:25', '10:00']
    """
    wait = retry_interval(failures)
    return max(started, now - wait / 2) if wait else started


def next_try(failures: int, failed_at: dt.datetime | None,
             now: dt.datetime) -> dt.datetime | None:
    """When a profile that failed ``failures`` loads in a row, last at ``failed_at``, is
    tried again (:func:`retry_interval` after, less its :func:`slack`); None when it is tried
    by the next call (now)."""
    if failed_at is None or pd.isna(failed_at) or failed_at > now:
        return None
    wait = retry_interval(failures)
    due = failed_at + wait - dt.timedelta(seconds=float(slack(wait.total_seconds())))
    return due if due > now else None


class ProfileIndex:
    """The cache's profile index as arrays, made once per load, so that planning the 20
    rows of each list page costs microseconds (not a pandas join per page)."""

    def __init__(self, index: pd.DataFrame) -> None:
        self.ids = pd.Index(index.index if not index.empty else [], dtype="int64")
        n = len(self.ids)

        def column(name: str, default: object) -> np.ndarray:
            if not n:  # (a cold load's: no pandas call for nothing)
                return np.empty(0, dtype=object)
            if name in index:  # missing as None: pandas 2's pd.NA has no truth value
                values = index[name].astype(object)
                return values.where(values.notna(), None).to_numpy()
            return np.full(n, default, dtype=object)

        self.status = column("status", None)
        self.summary = column("summary", None)
        self.state = column("state", "fetched")
        self.reason = column("reason", None)  # why the last fetch failed
        self.fetched = self._seconds(index, "fetched_at")
        self.failed_at = self._seconds(index, "failed_at")
        self.attempts = (index["attempts"].fillna(0).to_numpy(dtype="int64")
                         if "attempts" in index and n else np.zeros(n, dtype="int64"))

    @staticmethod
    def _seconds(index: pd.DataFrame, name: str) -> np.ndarray:
        """A time column as seconds since the epoch (NaN when missing)."""
        if name not in index or not len(index):
            return np.full(len(index), np.nan)
        stamps = pd.to_datetime(index[name], utc=True)
        return (stamps - pd.Timestamp(0, tz="UTC")).dt.total_seconds().to_numpy(
            dtype=float, na_value=np.nan)


def _spread(ids: np.ndarray) -> np.ndarray:
    """A fixed number in [0.5, 1) per id (a multiplicative hash): where in its max age a
    profile falls due, so ICOs fetched together do not all expire on one day."""
    mixed = (ids.astype(np.uint64) * np.uint64(2654435761)) % np.uint64(2**32)
    return 0.5 + 0.5 * (mixed.astype(float) / 2**32)


def due_after(ids: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """The age (seconds) past which a re-paged list fetches each profile again.

    Between half and all of its status's maximum age ``limit`` (seconds, per
    id), less its :func:`slack` (5% of it and at most an hour); see :func:`plan_profiles`.
    """
    limit = np.asarray(limit, dtype=float)
    return limit * _spread(np.asarray(ids)) - slack(limit)


def plan_profiles(listed: pd.DataFrame, keys: list[str], index: pd.DataFrame | ProfileIndex,
                  *, now: dt.datetime, ages: Mapping[str, dt.timedelta] | None,
                  refresh_all: bool, retry: bool = True, listed_at: np.ndarray | None = None,
                  out_of_date: np.ndarray | None = None) -> list[Want]:
    """The profiles of ``listed`` to fetch, with why and how stale.

    A profile falls due somewhere between half and all of its status's maximum
    age (a fixed point per id, so the profiles of one cold load do not all
    expire on the same day and cost a day's quota at once), less a little
    slack (5% of the age, at most an hour) so that a daily job at a fixed hour
    does not miss a limit by seconds. No profile is ever kept past its maximum age.

    Parameters
    ----------
    listed : DataFrame
        List rows (``id``, ``status``); ``keys`` their summary keys.
    index : DataFrame or ProfileIndex
        :meth:`~icoframes.store.cache.Cache.profile_index` (may be empty).
    ages : mapping or None
        Maximum age per status, applied only when the list was paged again
        (``None``: fetch only new, failed and changed profiles).
    retry : bool, default True
        A copy whose refresh failed is wanted again ("retry"); False where no new copy
        could be kept (a read-only cache dir): it is served, said not refreshed.
    listed_at : array or None
        When each row was listed (epoch seconds; None or NaN: now, paged by this load). A
        status or summary other than the copy's is news only from a list paged after it:
        two cached lists showing an ICO differently (two statuses, or an ended ICO's older
        list with its old ``raised``), read in turn, would have it fetched by every load.
    out_of_date : ndarray of bool, optional
        Per row, its copy fails the filters of the list just paged that holds it
        (:mod:`~icoframes.fetch.stalecopies`): out of date as a changed summary is.
    """
    view = index if isinstance(index, ProfileIndex) else ProfileIndex(index)
    ids = listed["id"].to_numpy(dtype="int64")
    statuses = listed["status"].astype(object).to_numpy()
    keys_arr = np.asarray(keys, dtype=object)
    n = len(ids)
    where = view.ids.get_indexer(pd.Index(ids)) if len(view.ids) else np.full(n, -1)
    known: np.ndarray = np.asarray(where >= 0)
    at = np.where(known, where, 0)

    def pick(values: np.ndarray, missing: object) -> np.ndarray:
        if not len(values):
            return np.full(n, missing, dtype=values.dtype if values.dtype != object else object)
        return np.where(known, values[at], missing)  # type: ignore[call-overload]

    state = pick(view.state, None)
    failed = known & (state == "failed")
    gone = known & (state == "gone")
    old_status = pick(view.status, None)
    fetched = pick(view.fetched, np.nan).astype(float)
    when = np.full(n, np.nan) if listed_at is None else np.asarray(listed_at, dtype=float)
    later = ~(when <= fetched) | (fetched > now.timestamp())  # (NaN: later; a future copy)
    fails_list = np.zeros(n, dtype=bool) if out_of_date is None else out_of_date
    changed = known & ~failed & (((pick(view.summary, None) != keys_arr) & later) | fails_list)
    moved = (known & ~failed & ~gone & ~changed & pd.notna(old_status)
             & (old_status != statuses) & later)
    staleness = np.zeros(n)
    stale = np.zeros(n, dtype=bool)
    if ages is not None and known.any():
        age = now.timestamp() - fetched
        limit = np.array([ages.get(s, PROFILE_MAX_AGE["past"]).total_seconds()
                          for s in statuses], dtype=float)
        due = due_after(ids, limit)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(age < 0, np.inf, age / np.where(limit > 0, limit, np.nan))
        ratio = np.where(np.isnan(age), np.inf, np.nan_to_num(ratio, nan=np.inf))
        over = (age < 0) | np.isnan(age) | (age > due)  # a time in the future: stale
        stale = known & ~failed & ~gone & ~changed & ~moved & over
        staleness = np.where(stale, np.minimum(ratio, _MOST_STALE), 0.0)
    failed_at = pick(view.failed_at, np.nan).astype(float)
    failures = pick(view.attempts, 0).astype("int64")  # since the copy (a copy resets them)
    # a copy a fetch failed to replace since (Cache.failing_copies, each said not refreshed):
    # out of date, wanted again in every mode, as one without a copy (where it can be kept)
    again = known & ~failed & ~gone & ~changed & ~moved & (failures > 0) & retry
    reasons = np.full(n, None, dtype=object)
    reasons[stale] = "stale"
    reasons[again] = "retry"
    reasons[moved] = "status"
    reasons[changed] = "changed"
    if refresh_all:
        reasons[known & ~failed] = "all"
    reasons[failed] = "failed"
    reasons[~known] = "new"
    since = now.timestamp() - failed_at
    if not refresh_all:  # a profile failing load after load waits its growing interval
        growth = np.float64(_GROWTH) ** np.clip(failures - BACKOFF_AFTER, 0, 60)
        wait = np.minimum(FIRST_RETRY_INTERVAL.total_seconds() * growth,
                          MAX_RETRY_INTERVAL.total_seconds())  # retry_interval, per row
        waiting = since < wait - slack(wait)  # (a job at a fixed hour: due at its next run)
        reasons[known & (failures >= BACKOFF_AFTER) & (since >= 0) & waiting] = None
    wanted = np.flatnonzero(reasons != None)  # noqa: E711 (element-wise)
    # a failure of the last hour goes after the new ones; an older one as one (_URGENCY)
    urgency = np.zeros(n)
    for reason, value in _URGENCY.items():
        urgency[reasons == reason] = value
    urgency[(reasons == "failed") & (since >= _RECENT)] = _URGENCY["new"]  # (NaN: not known)
    failure = pick(view.reason, None)
    # a failure since the copy (a copy resets them), or of one never fetched
    failing = known & (~np.isnan(failed_at) | (reasons == "failed"))
    staleness[reasons == "retry"] = _MOST_STALE  # a refresh, the first of them
    return [Want(int(ids[i]), statuses[i], keys_arr[i], reasons[i],
                 float(staleness[i] if reasons[i] in ("stale", "retry")
                       else urgency[i] * URGENT),
                 failure[i] if failing[i] else None,
                 None if np.isnan(failed_at[i]) or not failing[i] else float(failed_at[i]))
            for i in wanted]

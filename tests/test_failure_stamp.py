"""The time a failed fetch is kept with, from which its backoff counts (policy.failure_stamp).

A wait counts from the start of the load the fetch failed in, so that a job run at a fixed
hour finds the profile due by its run a wait later (tests/test_failed_refresh_retried.py). Two
ways that went wrong: a load lasting longer than the wait (a big crawl the service throttles)
had a failure late in it due at once, asked again by the very next load, the hammering the
backoff is there to prevent. Of two loads overlapping, the one recording its failure last
sets the time, even if it began earlier: a daily job's run failing a profile after a notebook
load begun later in the run failed it still asks it by the run a week later.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter

import pandas as pd
import pytest
import time_machine
from test_days import INCOMPLETE
from test_failed_refresh_retried import service  # noqa: F401 (the fixture)

import icoframes
from icoframes.fetch.arrivals import Arrivals
from icoframes.fetch.policy import Want, next_try
from icoframes.store.cache import Cache
from icoframes.store.derived import DerivedTables

DAY = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def _load(state, when: dt.datetime, late: dt.timedelta | None = None) -> dict:
    """A plain load of the past ICOs at ``when`` (its failure ``late`` into it, when given):
    its report."""
    state.asked = Counter()
    with time_machine.travel(when, tick=True) as clock:  # (a load takes its few seconds)
        state.clock, state.late = (clock, late) if late is not None else (None, dt.timedelta(0))
        try:
            frame = icoframes.load_icos(status="past", progress=False)
        finally:
            state.clock = None
    return frame.attrs["icoframes"]


def _missing(report: dict) -> list[int]:
    return [missing["id"] for missing in report["missing"]]


def _tried_again(report: dict, ico_id: int) -> dt.datetime | None:
    """The time the report says ``ico_id`` is tried again from (None: by the next call)."""
    [reason] = [m["reason"] for m in report["missing"] if m["id"] == ico_id]
    named = re.search(r"tried again from (\d{4}-\d\d-\d\d \d\d:\d\d) UTC", reason)
    return None if named is None else dt.datetime.fromisoformat(named[1] + "+00:00")


@INCOMPLETE
def test_a_failure_late_in_a_load_longer_than_its_wait_still_waits(service):  # noqa: F811
    # a load starting at 10:00 that runs two hours; profile 5, failing on its 2nd load in a
    # row (a wait of an hour), fails at 11:55. Counted from 10:00 its wait was over before
    # it failed: the load at 12:00 asked it again at once. It waits at least half its wait
    # from the failure (less the slack): not asked before 12:22
    service.broken = {5}
    first = _load(service, DAY + dt.timedelta(hours=9))
    assert service.asked[5] > 0 and _missing(first) == [5]
    long = _load(service, DAY + dt.timedelta(hours=10), late=dt.timedelta(minutes=115))
    assert service.asked[5] > 0 and _missing(long) == [5]
    half_the_wait_after = DAY + dt.timedelta(hours=11, minutes=55 + 30 - 3)
    named = _tried_again(long, 5)
    assert named is not None and named >= half_the_wait_after
    after = _load(service, DAY + dt.timedelta(hours=12))
    assert service.asked[5] == 0 and _missing(after) == [5]  # (was: asked at once)
    assert _tried_again(after, 5) == named
    assert sorted(service.asked) == []  # (nothing else wanted either)
    # the time it names is kept: a load then asks it
    _load(service, named)
    assert service.asked[5] > 0


def _want(ico_id: int) -> Want:
    return Want(ico_id, "past", f"summary {ico_id}", "failed", 1.0)


def _fail(arrivals: Arrivals, ico_id: int, at: dt.datetime) -> None:
    """``arrivals``' load fails ``ico_id`` at ``at`` and keeps it."""
    arrivals.add(_want(ico_id), None, state="failed", reason="HTTP 500")
    with time_machine.travel(at, tick=False):
        arrivals.keep()


def _stamp(cache: Cache, ico_id: int) -> tuple[int, pd.Timestamp]:
    index = cache.profile_index()
    return int(index.loc[ico_id, "attempts"]), index.loc[ico_id, "failed_at"]


def _arrivals(cache: Cache, started: dt.datetime) -> Arrivals:
    """A load of ``cache`` begun at ``started``."""
    with time_machine.travel(started, tick=False):
        return Arrivals(cache, DerivedTables(cache))


CRON = DAY + dt.timedelta(hours=3, minutes=15)  # a daily job's runs start at 03:15


@pytest.mark.parametrize("notebook", [dt.timedelta(minutes=75), dt.timedelta(minutes=5),
                                      dt.timedelta(minutes=-75)],
                         ids=["begun-75-min-into-the-run", "begun-5-min-in", "begun-before"])
def test_a_daily_run_failing_last_asks_it_a_week_later_whatever_overlapped(tmp_path, notebook):
    # profile 5 failed on 5 daily runs, 10 minutes into each; the 6th run (day 5) runs long,
    # and a notebook load of the same cache overlapping it fails profile 5 first (the 6th
    # failure in a row), then the run fails it at 04:45 (the 7th: a 7-day wait, stamped
    # with the run's start). The run's time is kept: the run a week later asks it. Kept
    # was the later notebook's start (04:30), due 03:30 a week later: that run missed it
    # by 15 minutes, the next asked it 7 days 22:30 after the run's failure
    cache = Cache(tmp_path / "cache", "http://127.0.0.1:9")
    for day in range(5):
        run = CRON + dt.timedelta(days=day)
        _fail(_arrivals(cache, run), 5, run + dt.timedelta(minutes=10))
    run = CRON + dt.timedelta(days=5)
    cron = _arrivals(cache, run)
    notes = _arrivals(cache, run + notebook)
    _fail(notes, 5, run + max(notebook, dt.timedelta(0)) + dt.timedelta(minutes=1))
    _fail(cron, 5, run + dt.timedelta(minutes=90))
    attempts, failed_at = _stamp(cache, 5)
    assert next_try(attempts, failed_at, run + dt.timedelta(days=6)) is not None  # waits
    assert next_try(attempts, failed_at, run + dt.timedelta(days=7)) is None  # asked
    assert (attempts, failed_at) == (7, pd.Timestamp(run))


def test_of_overlapping_loads_the_failure_recorded_last_sets_the_time(tmp_path):
    # two loads of one cache overlap: A begins at 10:00, B at 10:20. B fails profile 5 at
    # 10:21 (its 1st failure: kept with B's start), then A fails it at 10:25 (its 2nd: an
    # hour's wait, kept with A's start, later than 10:25 less half the wait)
    cache = Cache(tmp_path / "cache", "http://127.0.0.1:9")
    at = DAY + dt.timedelta(hours=10)
    a = _arrivals(cache, at)
    b = _arrivals(cache, at + dt.timedelta(minutes=20))
    _fail(b, 5, at + dt.timedelta(minutes=21))
    assert _stamp(cache, 5) == (1, pd.Timestamp(at + dt.timedelta(minutes=20)))
    _fail(a, 5, at + dt.timedelta(minutes=25))
    assert _stamp(cache, 5) == (2, pd.Timestamp(at))
    # the other order: B's failure recorded last, its start is kept
    _fail(_arrivals(cache, at + dt.timedelta(hours=2)), 5, at + dt.timedelta(hours=2, minutes=1))
    c = _arrivals(cache, at + dt.timedelta(hours=3))
    _fail(_arrivals(cache, at + dt.timedelta(hours=3, minutes=30)), 5,
          at + dt.timedelta(hours=3, minutes=31))
    assert _stamp(cache, 5) == (4, pd.Timestamp(at + dt.timedelta(hours=3, minutes=30)))
    # (C's failure, a 64 h wait, 5 minutes later: C's start, within half the wait)
    _fail(c, 5, at + dt.timedelta(hours=3, minutes=36))
    assert _stamp(cache, 5) == (5, pd.Timestamp(at + dt.timedelta(hours=3)))
    # a time kept in the future (a clock set back since) is replaced by the next failure's
    _fail(_arrivals(cache, at + dt.timedelta(days=30)), 5, at + dt.timedelta(days=30))
    _fail(_arrivals(cache, at + dt.timedelta(hours=4)), 5, at + dt.timedelta(hours=4))
    assert _stamp(cache, 5) == (7, pd.Timestamp(at + dt.timedelta(hours=4)))

"""The time a failed fetch is kept with, from which its backoff counts (policy.failure_stamp).

A wait counts from the start of the load the fetch failed in, so that a job run at a fixed
hour finds the profile due by its run a wait later (tests/test_failed_refresh_retried.py). Two
ways that went wrong: a load lasting longer than the wait (a big crawl the service throttles)
had a failure late in it due at once, asked again by the very next load, the hammering the
backoff is there to prevent; and a failure kept by a load that began earlier than the one
that kept the last failure (two loads overlapping) moved the stored time back.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter

import pandas as pd
import time_machine
from test_days import INCOMPLETE
from test_failed_refresh_retried import service  # noqa: F401 (the fixture)

import icoframes
from icoframes.fetch.arrivals import Arrivals
from icoframes.fetch.policy import Want
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


def test_the_time_of_a_failure_never_moves_back(tmp_path):
    # two loads of one cache overlap: A begins at 10:00, B at 10:30. B fails profile 5 at
    # 10:31 (its 1st failure: kept with B's start), then A fails it at 10:40 (its 2nd: an
    # hour's wait). A's start, or the 10:10 half its wait before the failure, is earlier
    # than the 10:30 already kept: the stored time stays 10:30 (it was moved back to 10:00,
    # the wait falling due half an hour sooner)
    cache = Cache(tmp_path / "cache", "http://127.0.0.1:9")
    at = DAY + dt.timedelta(hours=10)
    with time_machine.travel(at, tick=False):
        a = Arrivals(cache, DerivedTables(cache))
    with time_machine.travel(at + dt.timedelta(minutes=30), tick=False):
        b = Arrivals(cache, DerivedTables(cache))
    _fail(b, 5, at + dt.timedelta(minutes=31))
    assert _stamp(cache, 5) == (1, pd.Timestamp(at + dt.timedelta(minutes=30)))
    _fail(a, 5, at + dt.timedelta(minutes=40))
    assert _stamp(cache, 5) == (2, pd.Timestamp(at + dt.timedelta(minutes=30)))
    # a later time replaces it, as ever
    with time_machine.travel(at + dt.timedelta(hours=2), tick=False):
        c = Arrivals(cache, DerivedTables(cache))
    _fail(c, 5, at + dt.timedelta(hours=2, minutes=1))
    assert _stamp(cache, 5) == (3, pd.Timestamp(at + dt.timedelta(hours=2)))
    # a time kept in the future (a clock set back since) is no later failure: it is replaced,
    # else the profile would never wait again until the clock caught up (a failure dated in
    # the future delays nothing: policy.next_try)
    with time_machine.travel(at + dt.timedelta(days=30), tick=False):
        ahead = Arrivals(cache, DerivedTables(cache))
    _fail(ahead, 5, at + dt.timedelta(days=30))
    with time_machine.travel(at + dt.timedelta(hours=3), tick=False):
        back = Arrivals(cache, DerivedTables(cache))
    _fail(back, 5, at + dt.timedelta(hours=3))
    assert _stamp(cache, 5) == (5, pd.Timestamp(at + dt.timedelta(hours=3)))

"""A cached profile whose refresh failed is asked again by the next plain run (REVE M2).

``icoframes export --refresh all`` on a day the service answers some profiles wrongly keeps
their older copies, says them ``not_refreshed`` and exits 5. The next plain run (cron's, no
``--refresh``) asked nothing of them: a failure recorded since a copy made no want, only a
stale copy (90 days for a past ICO) or a changed summary did, so every day until then exited
5 with those ids "not refreshed ... in an earlier load" and 0 profile requests, the service
healthy again or not. Such a profile is now due again in every mode, as one without a copy
is, with the same backoff (docs/guide/freshness.md "What keeps failing": a profile broken
for good is asked on 5 days in a row, then every few days).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import threading
from collections import Counter

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply
from test_days import INCOMPLETE, STALE
from test_housekeeping import _read_only

import icoframes
from icoframes.cli import EXIT_INCOMPLETE, main
from icoframes.config import SETTINGS

IDS = list(range(1, 21))
DAY1 = dt.datetime(2026, 11, 1, 3, 15, tzinfo=dt.UTC)  # cron's hour


class Service:
    """20 past ICOs; the profiles of ``broken`` are answered ``"data": null`` (counted, as the
    list's pages are). With ``late`` and a run's ``clock`` (time-machine's traveller), the
    first broken ask of the run moves the clock ``late`` on: the failure comes that long
    into the run, as in a real one (pages, other profiles, retries come first)."""

    def __init__(self):
        self.broken: set[int] = set()
        self.asked: Counter[int] = Counter()
        self.pages = 0
        self.lock = threading.Lock()
        self.late = dt.timedelta(0)
        self.clock = None  # the run's traveller; None once moved (or outside a run)

    def page(self, h):
        with self.lock:
            self.pages += 1
        items = [{"id": i, "main": {"name": f"ICO {i}", "ico_score": "3.0"},
                  "finance": {"raised": str(1000.0 * i)}} for i in IDS]
        json_reply({"total_icos": len(items), "current_page": 1, "total_pages": 1,
                    "error": None, "data": items})(h)

    def profile(self, h):
        ico_id = h.request_json().get("id")
        with self.lock:
            self.asked[ico_id] += 1
            if ico_id in self.broken and self.clock is not None:
                self.clock, clock = None, self.clock
                clock.shift(self.late)
        json_reply({"error": None, "data": None if ico_id in self.broken else {
            "id": ico_id, "main": {"name": f"ICO {ico_id}", "ico_score": "3.0"},
            "finance": {"raised": str(1000.0 * ico_id)}}})(h)


@pytest.fixture
def service(tmp_path, monkeypatch, quick_retries):
    state = Service()
    with HostileServer({LIST: state.page, PROFILE: state.profile}) as srv:
        icoframes.reset_configuration()
        for setting in SETTINGS:
            monkeypatch.delenv(setting.env, raising=False)
        for name, value in {**srv.settings(), "cache_dir": str(tmp_path / "cache")}.items():
            monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", value)
        yield state
    icoframes.reset_configuration()


def _export(service, tmp_path, day: int, *extra: str) -> tuple[int, dict]:
    """Cron's run on day ``day`` (1: DAY1): its exit code and manifest."""
    when = DAY1 + dt.timedelta(days=day - 1)
    out = tmp_path / "out" / when.date().isoformat()
    with time_machine.travel(when, tick=True) as clock:  # (a run takes its few seconds)
        service.clock = clock
        try:
            code = main(["export", "--out", str(out), "--status", "past", *extra])
        finally:
            service.clock = None
    return code, json.loads((out / "manifest.json").read_text())


@INCOMPLETE
@STALE
def test_profiles_whose_refresh_failed_are_asked_by_the_next_plain_run(service, tmp_path):
    assert _export(service, tmp_path, 1)[0] == 0
    assert sorted(service.asked) == IDS
    # day 2: refresh all; 4 of the 20 answered "data": null (after retries): copies kept
    service.broken, service.asked = {3, 7, 11, 19}, Counter()
    code, manifest = _export(service, tmp_path, 2, "--refresh", "all")
    assert code == EXIT_INCOMPLETE and manifest["complete"] is False
    assert sorted(service.asked) == IDS
    assert [m["id"] for m in manifest["not_refreshed"]] == [3, 7, 11, 19]
    assert manifest["missing"] == [] and manifest["rows"]["icos"] == 20
    # day 3: the service is healthy; a plain run asks those 4 (once each) and nothing else
    # (was: 0 profile requests, exit 5, the 4 "not refreshed ... in an earlier load", every
    # day until their copies were 90 days old)
    service.broken, service.asked = set(), Counter()
    code, manifest = _export(service, tmp_path, 3)
    assert service.asked == Counter({3: 1, 7: 1, 11: 1, 19: 1})
    assert manifest["requests_spent"] == {"filters": 0, "icos": 1, "ico": 4}
    assert code == 0 and manifest["complete"] is True
    assert manifest["not_refreshed"] == [] and manifest["missing"] == []
    # day 4: nothing left to ask
    service.asked = Counter()
    code, manifest = _export(service, tmp_path, 4)
    assert code == 0 and manifest["complete"] is True and service.asked == Counter()


@INCOMPLETE
@STALE
def test_a_profile_whose_refresh_keeps_failing_is_asked_as_freshness_md_says(service, tmp_path):
    # freshness.md: "A daily job thus asks a profile that is broken for good on days 1 to 5,
    # then every few days, at most 7 days apart": its refresh failed on day 2 (1st failed
    # load), the daily plain runs ask it on days 3-6 (2nd-5th: then it waits 64 hours), not
    # on days 7 and 8, on day 9 (then it waits 7 days) and on day 16, by the run at the
    # same hour (REVJ M4: the wait counted from the end of day 9's run fell due seconds
    # after day 16's: asked on day 17); every day's manifest says its copy not refreshed,
    # with when it is tried again. Each run fails it 70 minutes in (more than the slack of
    # an hour): the wait counts from the run's start (REVO M1: from the failure, day 16's
    # run came 10 minutes early)
    assert _export(service, tmp_path, 1)[0] == 0
    service.broken, service.late = {5}, dt.timedelta(minutes=70)
    asked, waits = [], []
    for day in range(2, 17):
        service.asked = Counter()
        extra = ["--refresh", "all"] if day == 2 else []
        code, manifest = _export(service, tmp_path, day, *extra)
        assert code == EXIT_INCOMPLETE
        assert manifest["rows"]["icos"] == 20 and manifest["missing"] == []
        [kept] = manifest["not_refreshed"]
        assert kept["id"] == 5 and "the profile data for id 5 is" in kept["reason"]
        asked.append(service.asked[5] > 0)
        waits.append(_tried_again(kept["reason"]))
        assert set(service.asked) <= ({5} if day > 2 else set(IDS))  # nothing else asked
    assert asked == [True] * 5 + [False] * 2 + [True] + [False] * 6 + [True]
    # from its 2nd failed load on, each run says when it is tried again: a minute after the
    # run's start less the slack, at the latest the run that asks it; day 3's wait of an
    # hour, from 03:15, was over by the failure at 04:25: it counts from half an hour before
    # the failure instead (policy.failure_stamp), not due at once to a load called then
    assert waits[0] is None and None not in waits[1:]
    day_3_failure = DAY1 + dt.timedelta(days=2, minutes=70)
    assert day_3_failure + dt.timedelta(minutes=30 - 3) <= waits[1] < DAY1 + dt.timedelta(days=3)
    after_day_9 = DAY1 + dt.timedelta(days=15)  # day 16, cron's hour
    assert after_day_9 - dt.timedelta(hours=1) <= waits[7] <= after_day_9  # (ms: may be equal)


@INCOMPLETE
@STALE
def test_a_weekly_job_asks_a_profile_that_keeps_failing_every_week(service, tmp_path):
    # a weekly export: every run asks it (1 h, 4 h, 16 h, 64 h and 7 days all fall due by
    # the next week's run at the same hour); the wait of 7 days counted from the failure fell
    # due after the run a week later: every other week (REVJ M4 for a failure seconds into
    # the run; REVO M1 for one over an hour in, past the slack, as here)
    assert _export(service, tmp_path, 1)[0] == 0
    service.broken, service.late = {5}, dt.timedelta(minutes=70)
    asked = []
    for day in (2, 9, 16, 23, 30, 37, 44):
        service.asked = Counter()
        extra = ["--refresh", "all"] if day == 2 else []
        code, manifest = _export(service, tmp_path, day, *extra)
        assert code == EXIT_INCOMPLETE and [m["id"] for m in manifest["not_refreshed"]] == [5]
        asked.append(service.asked[5] > 0)
    assert asked == [True] * 7


def _tried_again(reason: str) -> dt.datetime | None:
    """The time a reason says its profile is tried again from (None: the next call)."""
    named = re.search(r"tried again from (\d{4}-\d\d-\d\d \d\d:\d\d) UTC", reason)
    return None if named is None else dt.datetime.fromisoformat(named[1] + "+00:00")


@INCOMPLETE
@STALE
def test_a_read_only_cache_serves_a_copy_whose_refresh_failed_as_not_refreshed(service, tmp_path):
    # REVF M2: a shared cache filled by a job whose refresh="all" failed for one profile; a
    # reader's warm load of the cache dir read-only (docs/guide/cache.md: it serves warm and
    # offline loads) wanted that profile again and raised CacheError "... is read-only here:
    # nothing can be kept" before any request. It cannot keep a new copy: the kept one is
    # served, said not refreshed, as before the profile was wanted again in every mode
    icoframes.load_icos(status="past", progress=False)
    service.broken = {3}
    filled = icoframes.load_icos(status="past", progress=False, refresh="all")
    assert filled.attrs["icoframes"]["not_refreshed"] == [3]
    service.asked, service.pages = Counter(), 0
    with _read_only(tmp_path / "cache"):
        warm = icoframes.load_icos(status="past", progress=False)
        offline = icoframes.load_icos(status="past", progress=False, offline=True)
    assert service.asked == Counter() and service.pages == 0
    for frame in (warm, offline):
        assert frame["id"].tolist() == IDS and str(frame["id"].dtype) == "int64"
        assert frame.attrs["icoframes"]["not_refreshed"] == [3]
        assert frame.attrs["icoframes"]["missing"] == []
        assert frame.attrs["icoframes"]["complete"] is True  # (every row there: freshness.md)
    # where it can be kept, the next warm load asks it again (once: it is healthy now)
    service.broken = set()
    again = icoframes.load_icos(status="past", progress=False)
    assert service.asked == Counter({3: 1}) and service.pages == 0
    assert again.attrs["icoframes"]["not_refreshed"] == []
    assert again.attrs["icoframes"]["complete"] is True

"""What keeps failing is not asked for on every call (issue 19, part 6).

A profile failing on consecutive loads waits a growing interval before its next try
(1 h after the 2nd failed load, 4 h after the 3rd, ...), instead of 6 attempts on
every load forever; a list whose count contradicts its pages (``total_icos`` 1,000
for 40) is used from the cache within ``max_age`` instead of paged on every call.
"""

from __future__ import annotations

import datetime as dt
import itertools
import threading
from collections import Counter

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes
from icoframes.errors import IncompleteWarning
from icoframes.fetch.policy import retry_interval

T0 = dt.datetime(2026, 5, 4, 10, 0, tzinfo=dt.UTC)


class _Profiles:
    """Profiles echo the id asked, except ``bad`` ids (another ICO's: the gate rejects it)."""

    def __init__(self, bad):
        self.bad = set(bad)
        self.asked: Counter[int] = Counter()
        self.lock = threading.Lock()

    def __call__(self, h):
        asked = h.request_json().get("id")
        with self.lock:
            self.asked[asked] += 1
        shown = asked + 10_000 if asked in self.bad else asked
        json_reply({"error": None, "data": {"id": shown, "main": {"name": f"P{asked}"}}})(h)


def _load(**kwargs):
    with pytest.warns(IncompleteWarning) as caught:
        icos = icoframes.load_icos(status="past", progress=False, **kwargs)
    return icos, " ".join(str(w.message) for w in caught)


def test_a_profile_failing_load_after_load_is_tried_at_growing_intervals(configure, quick_retries):
    profiles = _Profiles(bad={20})
    with HostileServer({LIST: paged_list(20), PROFILE: profiles}) as srv:
        configure(srv)
        tried = []  # (when, requests for id 20 in that call)

        def call(at, **kwargs):
            before = profiles.asked[20]
            with time_machine.travel(at, tick=False):
                icos, warned = _load(**kwargs)
            tried.append(profiles.asked[20] - before)
            assert sorted(icos["id"]) == list(range(1, 20))
            (missing,) = icos.attrs["icoframes"]["missing"]
            assert missing["id"] == 20 and missing["state"] == "failed"
            return missing["reason"], warned

        call(T0)  # 1st failed load
        reason, _ = call(T0 + dt.timedelta(minutes=1))  # retried by the next call: 2nd
        # an hour after 10:01, less its slack (5%: 3 min; the minute named rounded up)
        assert "failed on 2 loads in a row: tried again from 2026-05-04 10:58 UTC" in reason
        reason, warned = call(T0 + dt.timedelta(minutes=30))  # waits: no request
        assert "not the 20 requested" in reason and "10:58 UTC" in reason
        assert "failed on 2 loads in a row" in warned
        call(T0 + dt.timedelta(minutes=62))  # 1 h after the 2nd: tried, 3rd failure
        call(T0 + dt.timedelta(hours=4))  # waits 4 h from 11:02
        call(T0 + dt.timedelta(hours=5, minutes=3))  # tried: 4th failure, 16 h wait
        call(T0 + dt.timedelta(hours=20))
        call(T0 + dt.timedelta(hours=20), refresh="all")  # asked for: tried anyway
        assert [n > 0 for n in tried] == [True, True, False, True, False, True, False, True]
        assert sum(tried) <= 6 * 5
        # fixed at the service: tried once its interval passed, then whole
        profiles.bad.clear()
        with time_machine.travel(T0 + dt.timedelta(days=10), tick=False):
            icos = icoframes.load_icos(status="past", progress=False)
        assert icos.attrs["icoframes"]["complete"] is True and len(icos) == 20
        assert icoframes.cache_info().states["failed"] == 0


def test_retry_intervals_grow_and_are_capped():
    waits = [retry_interval(n) for n in range(1, 12)]
    assert waits[0] == dt.timedelta(0)  # the first failure: retried by the next call
    assert waits[1] == dt.timedelta(hours=1)
    assert all(a <= b for a, b in itertools.pairwise(waits))
    assert waits[-1] == dt.timedelta(days=7)


def test_a_list_whose_count_contradicts_its_pages_is_kept_within_max_age(configure):
    profiles = _Profiles(bad=())
    lists = paged_list(40, total_icos=1000, total_pages=50)  # pages 3 to 50 come back empty
    with HostileServer({LIST: lists, PROFILE: profiles}) as srv:
        configure(srv)
        with time_machine.travel(T0, tick=False):
            first, warned = _load()
        pages = srv.hits[LIST]
        assert len(first) == 40 and "fewer ICOs than the count says" in warned
        for later in (dt.timedelta(minutes=5), dt.timedelta(hours=12)):
            with time_machine.travel(T0 + later, tick=False):
                again, warned = _load()
            assert len(again) == 40 and "paged again once older than max_age" in warned
        assert srv.hits[LIST] == pages  # warm calls within max_age: no page re-read
        assert sum(profiles.asked.values()) == 40
        with time_machine.travel(T0 + dt.timedelta(days=2), tick=False):
            _load()
        assert srv.hits[LIST] > pages  # older than max_age: paged again

"""Profiles whose refresh failed before and fail again (HTTP 500) do not stop the next load.

REVF H1: a profile whose last fetch failed is known bad to the next load, which asks it first
among its refreshes (the ones failed longest first). Its wrong answers were shielded: a run of
32 holding such profiles is held, not an outage (the load asks no more of them and goes on).
Its *failures* were not: 16 of them failing again (a 5xx for good on 20 kept copies of status
"ongoing", stale every day) tripped the breaker's 16-items rule on every plain daily run
(`ServiceUnavailable`, exit 1, no export written), though the other 60 copies were fine. Now
the 16-items rule holds a run too when the items failing before make it: the load asks no more
of them (their copies kept, not refreshed) and refreshes the others; 16 *other* items failing
still trip it (tests/test_known_bad_items.py: 503s on known bad items and on the others).
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections import Counter

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes
from icoframes.api.control import BREAKER_ITEMS
from icoframes.errors import IncompleteWarning, StaleWarning

pytestmark = pytest.mark.usefixtures("quick_retries")

N, BAD = 80, set(range(1, 81, 4))  # 20 of 80, spread: the load that meets them first goes on
DAY1 = dt.datetime(2026, 11, 1, 3, 15, tzinfo=dt.UTC)


def _load(day: int):
    """A plain load of status "ongoing" on ``day`` (its copies are stale a day later): the
    frame, and the classes of the warnings it gave."""
    with time_machine.travel(DAY1 + dt.timedelta(days=day - 1, hours=day - 1), tick=False), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        icos = icoframes.load_icos(status="ongoing", progress=False)
    return icos, {type(w.message) for w in caught}


def test_kept_copies_failing_again_do_not_stop_the_refresh_of_the_others(configure):
    asked: Counter[int] = Counter()
    broken: set[int] = set()

    def profiles(h):
        ico_id = int(h.request_json()["id"])
        asked[ico_id] += 1
        if ico_id in broken:
            h.send_bytes(500, b'{"error": "boom"}')
        else:
            json_reply({"error": None, "data": {"id": ico_id, "main": {"name": f"P{ico_id}"}}})(h)

    with HostileServer({LIST: paged_list(N), PROFILE: profiles}) as srv:
        configure(srv, max_workers=1)
        icos, said = _load(1)
        assert len(icos) == N and not said
        broken |= BAD
        icos, said = _load(2)  # every copy stale: the 20 fail among good ones (no run)
        assert len(icos) == N and StaleWarning in said
        assert sorted(icos.attrs["icoframes"]["not_refreshed"]) == sorted(BAD)
        asked.clear()
        icos, said = _load(3)  # the 20 known bad asked first: 16 failing again
        # (was ServiceUnavailable "... on 16 different requests", every day, no row)
        assert sorted(icos["id"]) == list(range(1, N + 1))
        report = icos.attrs["icoframes"]
        assert sorted(report["not_refreshed"]) == sorted(BAD)
        assert StaleWarning in said and IncompleteWarning not in said
        assert {i for i in asked if i in BAD} == set(sorted(BAD)[:BREAKER_ITEMS])
        assert all(asked[i] == 1 for i in range(1, N + 1) if i not in BAD)  # all refreshed
        # one worker: the first two their retries (6 attempts), then 8 failures in a row for 3
        # items give each next one up after its first (the first so after one retry); the run
        # held, the 16th retries again
        assert [asked[i] for i in sorted(BAD)[:BREAKER_ITEMS]] == (
            [6, 6, 2] + [1] * (BREAKER_ITEMS - 4) + [6])
        assert report["requests"]["ico"] == sum(asked.values()) == 6 * 3 + BREAKER_ITEMS - 2 + 60
        assert report["stopped"] == "breaker" and report["missing"] == []

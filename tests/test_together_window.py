"""A load without a status that pages one list pages the others with it (one moment), but
for a list cached within ``TOGETHER_WINDOW`` before its first page: that list counts as paged
with it and is used as cached, so each list page is paid once when a single-status load and
a status-less one overlap (issue 18: several processes on one cache dir, overlapping
queries). A list cached longer before is still paged with the others.

Real processes against the sandbox on 127.0.0.1: a child process pages the ongoing list at a
fixed instant; then this process loads every status at a fixed time after it (time-machine,
not ticking: the age of the ongoing list is exact, whatever the machine's load). Each list
request the server answers is counted by its status and page.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import subprocess
import sys
from collections import Counter

import pytest
import time_machine
from ledger_day import NOON
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.config import SETTINGS
from icoframes.fetch.moment import TOGETHER, TOGETHER_WINDOW, WITHIN
from icoframes.sandbox import service

STATUSES = ("ongoing", "upcoming", "past")


@pytest.fixture
def sb(tmp_path, monkeypatch):
    """The sandbox (ongoing and upcoming: 2 pages each), with ``sb.asked``: the (status,
    page) of every list request it answered."""
    asked: list[tuple[str, int]] = []
    real_list = service.Service._list

    def counted(self, params):
        asked.append((params.get("status"), int(params.get("page", 1))))
        return real_list(self, params)

    monkeypatch.setattr(service.Service, "_list", counted)
    with sandbox.serve(n_icos=240, seed=7) as server:
        server.asked = asked
        icoframes.configure(**server.settings(), cache_dir=tmp_path / "cache")
        yield server
        icoframes.reset_configuration()


def _pages(sb, status: str) -> dict[tuple[str, int], int]:
    """Each page of ``status``'s list, asked once."""
    n = math.ceil(len(sb.directory.ids(status)) / sandbox.PAGE_SIZE)
    return {(status, page): 1 for page in range(1, n + 1)}


def _ongoing_in_a_child(sb, tmp_path, at: dt.datetime) -> None:
    """``load_icos(status="ongoing")`` in another process, its clock stopped at ``at``."""
    env = {k: v for k, v in os.environ.items() if k not in {s.env for s in SETTINGS}}
    env.update({f"ICOFRAMES_{name.upper()}": str(value)
                for name, value in sb.settings().items() if value is not None})
    env.update(ICOFRAMES_CACHE_DIR=str(tmp_path / "cache"), ICOFRAMES_TIMEOUT="3600")
    script = ("import datetime as dt, time_machine as tm\n"
              f"tm.travel(dt.datetime.fromisoformat({at.isoformat()!r}), tick=False).start()\n"
              "import icoframes\nicoframes.load_icos(status='ongoing', progress=False)\n")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=HANG_GUARD)
    assert done.returncode == 0, done.stderr


def test_a_list_another_process_kept_just_before_is_not_paged_again(sb, tmp_path):
    _ongoing_in_a_child(sb, tmp_path, NOON)
    assert Counter(sb.asked) == _pages(sb, "ongoing")
    del sb.asked[:]
    with time_machine.travel(NOON + dt.timedelta(seconds=5), tick=False):
        got = icoframes.load_icos(progress=False)
    # the upcoming and past lists paged, each page once; the ongoing list: no page
    assert Counter(sb.asked) == {**_pages(sb, "upcoming"), **_pages(sb, "past")}
    queries = {q["params"]["status"]: q for q in got.attrs["icoframes"]["queries"]}
    assert queries["ongoing"]["from_cache"] is True
    assert "cache_declined" not in queries["ongoing"]
    # told apart from a plain cache hit: an ICO that moved in those 5 s would be missing
    assert queries["ongoing"]["cache_used"] == WITHIN.format(
        cached=NOON, age=5.0, before="this load's pages", window=TOGETHER_WINDOW.total_seconds())
    assert "cache_used" not in queries["upcoming"]
    assert sorted(got["id"]) == sorted(r.id for r in sb.directory.records())


def test_a_list_cached_before_the_window_is_still_paged_together(sb, tmp_path):
    _ongoing_in_a_child(sb, tmp_path, NOON)
    del sb.asked[:]
    later = NOON + TOGETHER_WINDOW + dt.timedelta(milliseconds=1)
    with time_machine.travel(later, tick=False):
        got = icoframes.load_icos(progress=False)
    assert Counter(sb.asked) == {k: n for s in STATUSES for k, n in _pages(sb, s).items()}
    queries = {q["params"]["status"]: q for q in got.attrs["icoframes"]["queries"]}
    assert queries["ongoing"]["from_cache"] is False
    assert queries["ongoing"]["cache_declined"] == [TOGETHER.format(
        paged="'upcoming' and 'past'", cached=NOON, window=TOGETHER_WINDOW.total_seconds())]


def test_a_list_dated_after_the_loads_moment_is_paged_together(sb, tmp_path):
    """Ongoing is cached at noon; an ICO then moves from past to ongoing; the clock is then
    stepped back an hour (an NTP or VM step), and a load without a status that keeps lists
    of any age (``max_age=None``) pages past and upcoming. The ongoing list, dated after
    the load's moment, counted as within the window before it: used as cached, the moved ICO
    was in no list (complete, no warning). It is now paged with them."""
    _ongoing_in_a_child(sb, tmp_path, NOON)
    moved = sb.directory.ids("past")[0]
    sb.update_ico(moved, status="ongoing")
    del sb.asked[:]
    with time_machine.travel(NOON - dt.timedelta(hours=1), tick=False):
        got = icoframes.load_icos(progress=False, max_age=None)
    assert Counter(sb.asked) == {k: n for s in STATUSES for k, n in _pages(sb, s).items()}
    queries = {q["params"]["status"]: q for q in got.attrs["icoframes"]["queries"]}
    assert queries["ongoing"]["cache_declined"] == [TOGETHER.format(
        paged="'upcoming' and 'past'", cached=NOON, window=TOGETHER_WINDOW.total_seconds())]
    assert list(got["id"]).count(moved) == 1
    assert sorted(got["id"]) == sorted(r.id for r in sb.directory.records())

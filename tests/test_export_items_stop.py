"""An export whose load stopped asking after a run of wrong answers (REVI M1).

A run of 32 profiles answered wrongly, of a kind the service answered right earlier in the
load, halts the asking, not the load (``stops.ItemsStop``): the load returns what it has,
``attrs["icoframes"]["stopped"] == "breaker"``. Its export said neither: ``manifest.json``
had ``stopped: null`` and the rows kept without being asked again said "the budget ran out
before it was fetched again", though no budget was given.
"""

from __future__ import annotations

import json
import warnings

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes
from icoframes.api.control import BREAKER_REFUSED

pytestmark = pytest.mark.usefixtures("quick_retries")

N, GOOD = 90, 10


def _profiles(good):
    """Profiles echo the id asked up to ``good[0]``; every later id is ``"data": null``."""
    def behaviour(h):
        asked = int(h.request_json()["id"])
        data = {"id": asked, "main": {"name": f"P{asked}"}} if asked <= good[0] else None
        json_reply({"error": None, "data": data})(h)
    return behaviour


def test_an_export_stopped_by_a_run_of_wrong_answers_says_so_in_its_manifest(
        configure, tmp_path):
    good = [N]
    with HostileServer({LIST: paged_list(N), PROFILE: _profiles(good)}) as srv:
        configure(srv, max_workers=1)  # one at a time: which ids were asked is exact
        out = tmp_path / "out"
        first = icoframes.export_tables(out, status="past", progress=False)
        assert first.complete and first.stopped is None
        good[0] = GOOD  # then: 10 answered right, every other one "data": null
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = icoframes.export_tables(out, status="past", refresh="all", progress=False)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is False and result.complete is False
    assert manifest["rows"]["icos"] == N and manifest["missing"] == []
    stopped = manifest["stopped"]  # (was None)
    assert stopped is not None and result.stopped == stopped
    assert stopped["reason"] == "breaker"
    assert stopped["message"].startswith(
        f"not asked: the load stopped asking after {BREAKER_REFUSED} different requests")
    kept = {row["id"]: row["reason"] for row in manifest["not_refreshed"]}
    assert sorted(kept) == list(range(GOOD + 1, N + 1))
    failed = range(GOOD + 1, GOOD + 1 + BREAKER_REFUSED)  # asked and answered wrongly
    assert all(kept[i].startswith(f"HTTP 200: the profile data for id {i} is NoneType")
               for i in failed)
    not_asked = sorted(set(kept) - set(failed))
    assert len(not_asked) == N - GOOD - BREAKER_REFUSED
    # (was "the budget ran out before it was fetched again": no budget was given)
    assert {kept[i] for i in not_asked} == {stopped["message"]}
    assert stopped["remaining"] == len(not_asked)

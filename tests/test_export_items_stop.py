"""An export whose load stopped asking after a run of wrong answers (REVI M1).

A run of 32 profiles answered wrongly, of a kind the service answered right earlier in the
load, halts the asking, not the load (``stops.ItemsStop``): the load returns what it has,
``attrs["icoframes"]["stopped"] == "breaker"``. Its export said neither: ``manifest.json``
had ``stopped: null`` and the rows kept without being asked again said "the budget ran out
before it was fetched again", though no budget was given.
"""

from __future__ import annotations

import json
import logging
import warnings

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes
from icoframes.api.control import BREAKER_REFUSED, PROBE_ITEMS
from icoframes.cli import EXIT_INCOMPLETE, main
from icoframes.config import SETTINGS

pytestmark = pytest.mark.usefixtures("quick_retries")

N, GOOD = 90, 10
# the run of wrong answers that stops the asking: 32 in the list's order, then the profiles
# asked out of turn, spread over the rest (answered wrongly too: no block of bad ids, r9)
RUN = BREAKER_REFUSED + PROBE_ITEMS


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
        f"not asked: the load stopped asking after {RUN} different requests")
    kept = {row["id"]: row["reason"] for row in manifest["not_refreshed"]}
    assert sorted(kept) == list(range(GOOD + 1, N + 1))
    failed = [i for i in kept if kept[i].startswith(  # asked and answered wrongly
        f"HTTP 200: the profile data for id {i} is NoneType")]
    assert len(failed) == RUN and set(range(GOOD + 1, GOOD + 1 + BREAKER_REFUSED)) < set(failed)
    not_asked = sorted(set(kept) - set(failed))
    assert len(not_asked) == N - GOOD - RUN
    # (was "the budget ran out before it was fetched again": no budget was given)
    assert {kept[i] for i in not_asked} == {stopped["message"]}
    assert stopped["remaining"] == len(not_asked)


def test_the_export_command_says_a_run_of_wrong_answers_stopped_it(
        tmp_path, monkeypatch, caplog, quick_retries):
    # REVK M1: the command said "the daily request limit stopped the load, 48 listed ICO(s)
    # remain to fetch" of this stop (cli._stopped_by read every stop as the limit's)
    good = [N]
    with HostileServer({LIST: paged_list(N), PROFILE: _profiles(good)}) as srv:
        icoframes.reset_configuration()
        for setting in SETTINGS:
            monkeypatch.delenv(setting.env, raising=False)
        for name, value in {**srv.settings(), "cache_dir": str(tmp_path / "cache")}.items():
            monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", value)
        out = str(tmp_path / "out")
        assert main(["export", "--out", out, "--status", "past", "--max-workers", "1"]) == 0
        good[0] = GOOD
        caplog.set_level(logging.INFO, logger="icoframes")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = main(["export", "--out", out, "--status", "past", "--refresh", "all",
                         "--max-workers", "1"])
    icoframes.reset_configuration()
    assert code == EXIT_INCOMPLETE
    (line,) = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert "daily request limit" not in line
    left = N - GOOD - RUN
    assert (f"a run of wrong answers stopped the asking, {left} listed ICO(s) not asked: "
            f"the load stopped asking after {RUN} different "
            "requests failed in a row") in line, line

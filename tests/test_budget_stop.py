"""A load with a ``budget`` that stops for another reason before its budget ran out (the daily
limit, a run of wrong answers): the profiles the budget cut when they were planned were not
asked because the load stopped, and are said so (under that stop: ``not_done``, reason
``"quota"`` or the run's), never as ``over_budget`` "the budget ran out" (was: with 10 or 42
of 40 or 60 requests sent). A load whose budget did run out before the stop keeps them
``over_budget``."""

from __future__ import annotations

import json
import warnings

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list

import icoframes
from icoframes.api.control import BREAKER_REFUSED, PROBE_ITEMS

pytestmark = pytest.mark.usefixtures("quick_retries")

N, GOOD = 90, 10


def _profiles(good, order=None):
    """Profiles echo the id asked while ``good[0]`` of them are still to answer right, then
    ``good[1]``: ``None`` (a wrong answer, ``"data": null``) or an error code (485); the ids
    asked go to ``order`` (a list) in turn."""
    def behaviour(h):
        asked = int(h.request_json()["id"])
        if order is not None:
            order.append(asked)
        if good[0] > 0:
            good[0] -= 1
            json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)
        else:
            json_reply({"error": good[1], "data": None})(h)
    return behaviour


def test_a_run_of_wrong_answers_names_what_the_budget_cut_under_its_stop(configure):
    """90 profiles cached, refreshed under budget=60 (61-90 cut when planned): 10 answered
    right, then 32 wrongly, then the PROBE_ITEMS asked out of turn (within the budget) too:
    the load stops asking at 52 requests. The rest of 43-90 is not asked because it stopped
    (was: 61-90 over_budget, "the budget ran out")."""
    good, order = [N, None], []
    with HostileServer({LIST: paged_list(N), PROFILE: _profiles(good, order)}) as srv:
        configure(srv, max_workers=1)  # one at a time: which ids were asked is exact
        icoframes.load_icos(status="past", progress=False)
        good[0] = GOOD
        del order[:]
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            icos = icoframes.load_icos(status="past", refresh="all", budget=60, progress=False)
    stated = icos.attrs["icoframes"]
    assert stated["stopped"] == "breaker"
    run = list(range(GOOD + 1, GOOD + BREAKER_REFUSED + 1))
    probes = [i for i in dict.fromkeys(order) if i > run[-1]]  # asked after the run, in turn
    # spread over what the budget left planned (43-60), not the next 8 of the list
    assert len(probes) == PROBE_ITEMS and run[-1] + 1 < probes[0] and probes[-1] <= 60
    assert probes[-1] - probes[0] > PROBE_ITEMS
    assert sorted(stated["failed"]) == run + probes
    assert stated["requests"]["ico"] == len(order) < 60  # (the budget not spent)
    assert len(set(order)) == GOOD + BREAKER_REFUSED + PROBE_ITEMS
    assert stated["over_budget"] == []  # (was 61-90)
    assert stated["not_done"] == [i for i in range(run[-1] + 1, N + 1) if i not in probes]
    assert stated["not_refreshed"] == list(range(GOOD + 1, N + 1))
    stale = [str(w.message) for w in said if issubclass(w.category, icoframes.StaleWarning)]
    assert len(stale) == 1 and "budget" not in stale[0]
    print(stale[0])
    assert stale[0].startswith(f"{N - GOOD} row(s) are kept from an earlier fetch: the load "
                               "stopped asking after a run of wrong answers before they were "
                               f"fetched again; fetching {len(run + probes)} of them again failed")


@pytest.mark.parametrize("budget", [40, 10])
def test_the_daily_limit_names_what_the_budget_cut_under_its_stop(configure, tmp_path, budget):
    """A cold export of 60 ICOs under ``budget``: the service answers 10 profiles, then
    refuses (485). Under budget=40 (41-60 cut), 11-60 are missing for the quota (was: 41-60
    "the call's budget ran out", 50 remaining all the same); under budget=10 the budget
    ran out first: 11-60 are missing for it, none for the quota (no request was refused)."""
    good = [GOOD, 485]
    with HostileServer({LIST: paged_list(60), PROFILE: _profiles(good)}) as srv:
        configure(srv, max_workers=1)
        out = tmp_path / "out"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the manifest says what the export lacks)
            result = icoframes.export_tables(out, status="past", budget=budget,
                                             progress=False)
        assert srv.hits[PROFILE] == GOOD + (budget > GOOD)
    manifest = json.loads((out / "manifest.json").read_text())
    assert result.complete is False and manifest["rows"]["icos"] == GOOD
    reasons = {m["id"]: m["reason"] for m in manifest["missing"]}
    assert sorted(reasons) == list(range(GOOD + 1, 61))
    if budget > GOOD:
        assert set(reasons.values()) == {"quota"}
        assert manifest["stopped"]["reason"] == "quota"
        assert manifest["stopped"]["remaining"] == 60 - GOOD
    else:
        assert set(reasons.values()) == {"the call's budget ran out"}
        assert manifest["stopped"] is None

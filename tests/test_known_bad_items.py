"""Items that failed before and are answered wrongly again are their own failures, not an
outage: the breaker of wrong answers is for a service answering *everything* wrongly.

Until then a load whose only requests were 32 or more profiles that failed in earlier loads
and were still answered wrongly (``"data": null``, another ICO's profile) tripped the
breaker (``BREAKER_REFUSED``) and returned no row, although the list and every other
profile were cached: a few bad ids sank the load, on every call until they waited for
their backoff. Their wrong answers still count (what a load costs stays bounded, in every
mode: REVI), but a trip on a run that holds them is held: the load stops asking and
returns what it has, the rest reported not asked. A service answering every item wrongly
from the start still raises (tests/test_item_blame.py), and 503s still trip it.
"""

from __future__ import annotations

import warnings

import pytest
from hostile import LIST, PROFILE, HostileServer, html_reply, json_reply, paged_list

import icoframes
from icoframes.api.control import BREAKER_ITEMS, BREAKER_REFUSED, PROBE_ITEMS, SUSPECT_ITEMS
from icoframes.api.retry import ANSWERS_REFUSED
from icoframes.errors import APIError, IncompleteWarning, ServiceUnavailable, StaleWarning
from icoframes.fetch.paging import PAGES_FAILED

pytestmark = pytest.mark.usefixtures("quick_retries")

N, BAD = 90, range(2, 91, 2)  # 45 bad ids, every other one: load 1 never trips


def _profiles(bad, wrong):
    """Profiles echo the id asked; the ids ``bad`` holds are answered ``wrong(id)``."""
    def behaviour(h):
        asked = int(h.request_json()["id"])
        data = wrong(asked) if asked in bad else {"id": asked, "main": {"name": f"P{asked}"}}
        json_reply({"error": None, "data": data})(h)
    return behaviour


@pytest.mark.parametrize("wrong", [lambda i: None, lambda i: {"id": i + 1, "main": {}}],
                         ids=["data-null", "another-id"])
def test_a_load_asking_only_known_bad_items_returns_the_cached_rows(configure, wrong):
    bad = set(BAD)
    assert len(bad) > BREAKER_REFUSED
    with HostileServer({LIST: paged_list(N), PROFILE: _profiles(bad, wrong)}) as srv:
        configure(srv, max_workers=1)  # one at a time: the count is exact
        for load, said in ((1, "45 failed"), (2, "45 failed")):
            before = srv.hits[PROFILE], srv.hits[LIST]
            with pytest.warns(IncompleteWarning, match=said):
                icos = icoframes.load_icos(status="past", progress=False)  # (load 2: was
            # ServiceUnavailable after 32 of the 45, no row)
            assert sorted(icos["id"]) == [i for i in range(1, N + 1) if i not in bad], load
            missing = {m["id"]: m for m in icos.attrs["icoframes"]["missing"]}
            assert sorted(missing) == sorted(bad)
            asked = srv.hits[PROFILE] - before[0]
            if load == 1:  # interleaved with good answers: every bad one asked twice
                assert all(m["state"] == "failed" for m in missing.values())
                assert asked == N - len(bad) + ANSWERS_REFUSED * len(bad)
            else:  # the list cached, only the bad ones asked, each once (their failure of
                # load 1 again; REVB M2: the first SUSPECT_ITEMS - 1 twice, 34); held at 32
                assert srv.hits[LIST] == before[1]
                assert asked == BREAKER_REFUSED
                # (the 13 not asked again keep their state of the last load: failed)
                assert all(m["state"] == "failed" for m in missing.values())


@pytest.mark.parametrize("refresh", [False, "all"])
def test_a_lasting_wrong_answer_outage_costs_the_same_on_every_load(configure, refresh):
    # REVI: 10 profiles answered right, then every one "data": null, on every load. Known bad
    # ones counted as any: a load costs BREAKER_REFUSED wrong answers and a few, and the
    # PROBE_ITEMS asked out of turn (answered so too: no block of bad ids, r9), whatever
    # failed before (when they went uncounted: 44, 66, 98, ... 226 under refresh="all")
    good = set(range(1, 11))
    with HostileServer({LIST: paged_list(400), PROFILE: _profiles(
            _Not(good), lambda i: None)}) as srv:
        configure(srv, max_workers=1)
        paid = []
        for load in range(1, 8):
            before = srv.hits[PROFILE]
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    icoframes.load_icos(status="past", progress=False,
                                        refresh=refresh if load > 1 else False)
            except ServiceUnavailable:
                pass  # (new ones only answered wrongly: as a service that is down)
            paid.append(srv.hits[PROFILE] - before)
        once = (SUSPECT_ITEMS - 1) * ANSWERS_REFUSED + BREAKER_REFUSED - (
            SUSPECT_ITEMS - 1) + PROBE_ITEMS
        expected = [len(good) + once] + [once] * 6
        if refresh == "all":  # load 7: the 150 never asked and the 10 good ones (refreshed)
            # are the plan; a probe spread over it meets a good one: the run was bad ids, so
            # every one is asked (the first SUSPECT_ITEMS - 1 of each of the 4 runs of new ones
            # twice), the 32 known bad held, each asked once (REVB M2: 202; then 44 a load)
            expected[6] = 150 + len(good) + BREAKER_REFUSED + 4 * (SUSPECT_ITEMS - 1)
        assert paid == expected


@pytest.mark.parametrize("refresh", [False, "all"])
def test_a_wrong_answer_outage_after_many_failures_costs_the_same_on_every_load(
        configure, refresh):
    # load 1: the 45 bad ids answered wrongly between good answers (no trip): 45 known bad,
    # more than BREAKER_REFUSED. Loads 2-7: every profile answered "data": null. Each load
    # asks the known bad ones first (before any refresh), and they are counted as any: the
    # asking of them stops at BREAKER_REFUSED of them (held: their failures were expected).
    # (Uncounted, each load paid all 45 known bad ones, twice for the first SUSPECT_ITEMS - 1,
    # plus 32 refreshes under "all", the failures of which were known bad the next time.)
    # Under "all" the other 45 (their copies kept: not known bad) are asked then (REVK H1: a
    # held run no longer stops every refresh), and 32 wrong answers to them are an outage:
    # ServiceUnavailable, on every load, at twice the bound (the known run tells nothing) and
    # the PROBE_ITEMS asked out of turn after the run of new ones (r9).
    bad, everything = set(BAD), []
    with HostileServer({LIST: paged_list(N), PROFILE: _profiles(
            _Everything(bad, everything), lambda i: None)}) as srv:
        configure(srv, max_workers=1)
        paid, raised = [], []
        for load in range(1, 8):
            before = srv.hits[PROFILE]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    icos = icoframes.load_icos(status="past", progress=False,
                                               refresh=refresh if load > 1 else False)
                except ServiceUnavailable:
                    raised.append(load)
                else:
                    assert sorted(icos["id"]) == [i for i in range(1, N + 1) if i not in bad]
            paid.append(srv.hits[PROFILE] - before)
            everything.append(True)
        once = (SUSPECT_ITEMS - 1) * (ANSWERS_REFUSED - 1) + BREAKER_REFUSED
        # a run of known bad ones answered as before: each asked once (REVB M2: as new ones,
        # once, the first SUSPECT_ITEMS - 1 of them twice)
        held = BREAKER_REFUSED
        assert paid[0] == N - len(bad) + ANSWERS_REFUSED * len(bad)
        if refresh == "all":  # load 2 asks again: the bound for the known ones, then for
            # the others (was 72, 104, ... 226 uncounted; 34 each, held, before REVK H1). The
            # 40 of those answered wrongly failed since their copy: known bad from load 3 on
            # (REVB H3), so load 3 asks the 5 others after the held run (2 of them twice), and
            # later loads only the held run: the rows are returned (stopped: breaker), not raised
            assert raised == [2]
            assert paid[1:] == [held + once + PROBE_ITEMS, held + 5 + SUSPECT_ITEMS - 1] + [
                held] * 4
        else:  # the backoff of ids failing on loads in a row asks fewer later (was 74 on load 2)
            assert raised == []
            assert paid[1] == held and all(p <= held for p in paid[2:]), paid


class _Not:
    """Every id but those of ``good``."""

    def __init__(self, good):
        self.good = good

    def __contains__(self, ico_id):
        return ico_id not in self.good


def test_503s_on_known_bad_items_are_held_and_on_the_others_still_trip_the_breaker(configure):
    # load 2 asks only the known bad ones, and the service is down (503): their failures were
    # expected, so 16 of them are held as 32 wrong answers to them are (REVF H1: 16 kept copies
    # failing again, asked first, stopped every daily export): the load asks no more of them
    # and returns the rows it has (it raised ServiceUnavailable). Load 3 (refresh="all") asks
    # the others too: 16 of them failing are an outage, as before
    bad, down = set(BAD), []
    wrong = json_reply({"error": None, "data": None})
    fail = html_reply(503, "down")

    def profiles(h):
        asked = int(h.request_json()["id"])
        if down:
            fail(h)
        elif asked in bad:
            wrong(h)
        else:
            json_reply({"error": None, "data": {"id": asked, "main": {"name": "x"}}})(h)

    with HostileServer({LIST: paged_list(N), PROFILE: profiles}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning):
            icoframes.load_icos(status="past", progress=False)
        down.append(True)
        before = srv.hits[PROFILE]
        with pytest.warns(IncompleteWarning, match="45 failed"):
            icos = icoframes.load_icos(status="past", progress=False)
        assert sorted(icos["id"]) == [i for i in range(1, N + 1) if i not in bad]
        # one worker: the first two their 6 attempts each, then 8 failures in a row for 3 items
        # give each next one up after its first (the first so after one retry); the 16th holds
        # the run (the known bad ones no longer counted), its retries its own again (each its
        # 6 attempts: 96 requests)
        assert srv.hits[PROFILE] - before == 2 * 6 + 2 + (BREAKER_ITEMS - 4) + 6
        with pytest.raises(ServiceUnavailable, match=f"on {BREAKER_ITEMS} different requests"):
            icoframes.load_icos(status="past", progress=False, refresh="all")


def test_a_service_answering_everything_wrongly_after_known_bad_items_is_an_outage(configure):
    # load 2 (refresh="all"): every profile answered "data": null. The 45 known bad ones are
    # asked first (no new one is listed): the run at the 32nd is held, as they were expected
    # to fail, and the load goes on with the others (REVK H1: it stopped there, so a few dozen
    # always-bad ids stopped every refresh); 32 wrong answers to those, and the PROBE_ITEMS
    # asked out of turn then (r9), are an outage
    bad, everything = set(BAD), []
    with HostileServer({LIST: paged_list(N), PROFILE: _profiles(
            _Everything(bad, everything), lambda i: None)}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning):
            icoframes.load_icos(status="past", progress=False)
        everything.append(True)
        before = srv.hits[PROFILE]
        outage = BREAKER_REFUSED + PROBE_ITEMS
        with pytest.raises(ServiceUnavailable, match=f"{outage} different requests "
                           f"failed, {outage} of them answered wrongly"):
            icoframes.load_icos(status="past", progress=False, refresh="all")
        # the run of known bad ones: each asked once, their failure again (REVB M2: as the
        # other run, the first SUSPECT_ITEMS - 1 asked twice, every other one once, to 32)
        assert srv.hits[PROFILE] - before == BREAKER_REFUSED + (SUSPECT_ITEMS - 1) * (
            ANSWERS_REFUSED - 1) + BREAKER_REFUSED + PROBE_ITEMS


class _Everything:
    """Holds the bad ids, or every id once ``switch`` is not empty."""

    def __init__(self, bad, switch):
        self.bad, self.switch = bad, switch

    def __contains__(self, ico_id):
        return bool(self.switch) or ico_id in self.bad


# -- a run of bad items in a load the service answered right (REVC H1, H2) ------------------


def _unwrapped(bad):
    """Profiles echo the id asked; those ``bad`` holds are answered ``{}`` (JSON, not in the
    service's envelope: no profiles are asked out of turn after a run of them)."""
    def behaviour(h):
        asked = int(h.request_json()["id"])
        json_reply({} if asked in bad else {
            "error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)
    return behaviour


def test_a_block_of_bad_profiles_after_good_ones_is_their_failure(configure):
    # ids 41..72 answer "data": null in the service's envelope, in the order the load asks
    # them: 32 wrong answers in a row after 40 good ones. The PROBE_ITEMS profiles asked out
    # of turn then are answered right: the block was bad ids, the load goes on (r9: it
    # stopped asking there, 128 not asked until the next load; REVC H1: ServiceUnavailable)
    bad = set(range(41, 73))
    with HostileServer({LIST: paged_list(200), PROFILE: _profiles(bad, lambda i: None)}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning, match="have no row: 32 failed;"):
            icos = icoframes.load_icos(status="past", progress=False)
        assert sorted(icos["id"]) == [i for i in range(1, 201) if i not in bad]
        assert srv.hits[PROFILE] == 168 + (SUSPECT_ITEMS - 1) * ANSWERS_REFUSED + 32 - (
            SUSPECT_ITEMS - 1)


def test_a_run_of_bad_profiles_stops_the_asking_not_the_load(configure):
    # ids 41..72 answer JSON that is not the service's answer ({}), in the order the load asks
    # them: 32 wrong answers in a row after 40 good ones (REVC H1: ServiceUnavailable, none of
    # the 40 rows, and the same on the next load as it asked the failures first; rows only
    # from the third)
    bad = set(range(41, 73))
    with HostileServer({LIST: paged_list(200), PROFILE: _unwrapped(bad)}) as srv:
        configure(srv, max_workers=1)
        with pytest.warns(IncompleteWarning, match="32 failed, 128 not_fetched"):
            icos = icoframes.load_icos(status="past", progress=False)
        assert sorted(icos["id"]) == list(range(1, 41))
        missing = {m["id"]: m for m in icos.attrs["icoframes"]["missing"]}
        assert sorted(missing) == list(range(41, 201))
        assert all(missing[i]["state"] == "failed" for i in bad)
        stop = missing[200]["reason"]
        assert stop.startswith("not asked: the load stopped asking after 32 different "
                               "requests failed in a row, 32 of them answered wrongly (last: "
                               "HTTP 200: the profile data for id 72 is missing"), stop
        assert srv.hits[PROFILE] == 40 + (SUSPECT_ITEMS - 1) * ANSWERS_REFUSED + 32 - (
            SUSPECT_ITEMS - 1)
        before = srv.hits[PROFILE]
        with pytest.warns(IncompleteWarning, match="32 failed"):
            icos = icoframes.load_icos(status="past", progress=False)
        assert sorted(icos["id"]) == [i for i in range(1, 201) if i not in bad]
        # the 32 failed ones asked once each, their failure again (REVB M2: the first
        # SUSPECT_ITEMS - 1 of them twice), and the 128 not asked in load 1
        assert srv.hits[PROFILE] - before == 32 + 128


def test_a_list_whose_count_overstates_its_pages_still_gives_its_rows(configure):
    # the list claims 1000 ICOs (50 pages); pages past the 10th answer "data": null (REVC H2:
    # ServiceUnavailable after ~45 list requests on every load, 0 rows)
    listing = paged_list(200, total_icos=1000)

    def pages(h):
        (json_reply({"error": None, "data": None}) if h.request_json().get("page", 1) > 10
         else listing)(h)

    with HostileServer({LIST: pages, PROFILE: _profiles(set(), None)}) as srv:
        configure(srv, max_workers=2)
        for load, profiles in ((1, 200), (2, 0)):
            before = srv.hits[PROFILE], srv.hits[LIST]
            with pytest.warns(IncompleteWarning, match="is partial"):
                icos = icoframes.load_icos(status="past", progress=False)
            assert sorted(icos["id"]) == list(range(1, 201)), load
            (query,) = icos.attrs["icoframes"]["queries"]
            assert query["complete"] is False and query["rows"] == 200
            assert "the list data is NoneType" in query["failed_pages"]["11"]
            assert srv.hits[PROFILE] - before[0] == profiles
            # the list stops after PAGES_FAILED pages in a row: not 40 pages asked, each twice
            assert srv.hits[LIST] - before[1] <= 10 + 2 * PAGES_FAILED + 2, load


def test_rows_kept_from_an_earlier_fetch_when_a_run_of_bad_items_stops_the_asking(configure):
    # load 2 (refresh="all"): ids 11..90 answered "data": null after 10 good ones; the
    # asking stops at the 32nd (42) and the PROBE_ITEMS asked out of turn then (answered so
    # too); every row stays, from its earlier copy, and is said stale
    broken: list[bool] = []
    with HostileServer({LIST: paged_list(N), PROFILE: _profiles(
            _Everything(set(), broken), lambda i: None)}) as srv:
        configure(srv, max_workers=1)
        icoframes.load_icos(status="past", progress=False)
        broken.append(True)
        srv.behaviours[PROFILE] = _profiles(_After(10, broken), lambda i: None)
        with pytest.warns(StaleWarning, match=r"80 row\(s\) are kept from an earlier fetch: "
                          "the load stopped asking after a run of wrong answers before they "
                          "were fetched again; fetching "
                          f"{BREAKER_REFUSED + PROBE_ITEMS} of them again failed"):
            icos = icoframes.load_icos(status="past", progress=False, refresh="all")
        assert sorted(icos["id"]) == list(range(1, N + 1))
        assert icos.attrs["icoframes"]["not_refreshed"] == list(range(11, N + 1))
        assert icos.attrs["icoframes"]["missing"] == []


class _After:
    """Every id above ``n`` once ``switch`` is not empty."""

    def __init__(self, n, switch):
        self.n, self.switch = n, switch

    def __contains__(self, ico_id):
        return bool(self.switch) and ico_id > self.n


def test_new_profiles_are_asked_before_known_bad_ones(configure):
    # every profile answered HTTP 401 (a revoked key): each load raises that error after 32
    # requests. The ones that failed before are asked after the new ones, so the next load
    # finds the error on 32 new ones, not after asking the 32 known bad ones again (64)
    with HostileServer({LIST: paged_list(200), PROFILE: html_reply(401, "sign in")}) as srv:
        configure(srv, max_workers=1)
        for load in (1, 2):
            before = srv.hits[PROFILE]
            with pytest.raises(APIError, match="HTTP 401 without an error code"):
                icoframes.load_icos(status="past", progress=False)
            assert srv.hits[PROFILE] - before == BREAKER_REFUSED, load  # (load 2: was 64)

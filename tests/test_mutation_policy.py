"""Freshness: the boundaries mutants of fetch/policy.py survived (`make mutate MODULE=policy`).

``plan_profiles`` on a hand-made profile index at a fixed ``now`` (no clock is read):
the urgency order a budget follows (new, failed, then refresh-all, then status
and summary changes, then the stale by how far past their age), the slack that lets
a daily job at a fixed hour not miss a limit by seconds, and ``profile_max_age``'s
arguments.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from icoframes.errors import InvalidParameter
from icoframes.fetch.policy import (
    PROFILE_MAX_AGE,
    URGENT,
    ProfileIndex,
    age_limit,
    due_after,
    plan_profiles,
    profile_max_age,
)
from icoframes.manifest import lists_fresh_after
from icoframes.quoting import quoted

NOW = dt.datetime(2018, 6, 1, 12, 0, tzinfo=dt.UTC)
DAY = 86_400.0

#: What an age argument takes, as its refusals say it.
_AGE = "a timedelta, a duration such as '7D' or '12h', seconds"


def _index(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows).set_index("id")
    if "fetched_at" in frame:
        frame["fetched_at"] = pd.to_datetime(frame["fetched_at"], utc=True)
    return frame


def _cached(i: int, status: str, *, age: float, state: str = "fetched",
            summary: str = "s") -> dict:
    """One cached profile fetched ``age`` seconds before NOW."""
    return {"id": i, "status": status, "summary": summary, "state": state,
            "fetched_at": NOW - dt.timedelta(seconds=age)}


def _plan(listed: list[tuple[int, str]], index: pd.DataFrame | ProfileIndex, *,
          ages: object = PROFILE_MAX_AGE, refresh_all: bool = False,
          keys: list[str] | None = None, retry: bool = True) -> dict[int, tuple[str, float]]:
    frame = pd.DataFrame(listed, columns=["id", "status"])
    wants = plan_profiles(frame, keys or ["s"] * len(listed), index, now=NOW, ages=ages,
                          refresh_all=refresh_all, retry=retry)  # type: ignore[arg-type]
    return {w.id: (w.reason, w.staleness) for w in wants}


def _order(plan: dict[int, tuple[str, float]]) -> list[int]:
    """The ids in the order a budget takes them: most stale first (a stable sort)."""
    return [i for i, _ in sorted(plan.items(), key=lambda kv: -kv[1][1])]


# -- the urgency order --------------------------------------------------------------------


def test_a_budget_takes_new_and_failed_then_status_and_changed_then_the_stale():
    index = _index([
        _cached(2, "ongoing", age=0, state="failed"),
        _cached(3, "past", age=0, summary="old"),           # summary changed
        _cached(4, "ongoing", age=0),                       # listed under another status
        _cached(5, "ongoing", age=50 * DAY),                # 50x its max age
        _cached(6, "upcoming", age=8 * DAY),                # 8/7 of its max age
        _cached(7, "past", age=1 * DAY),                    # fresh
    ])
    listed = [(1, "past"), (2, "ongoing"), (3, "past"), (4, "past"), (5, "ongoing"),
              (6, "upcoming"), (7, "past")]
    plan = _plan(listed, index)
    assert {i: reason for i, (reason, _) in plan.items()} == {
        1: "new", 2: "failed", 3: "changed", 4: "status", 5: "stale", 6: "stale"}
    assert _order(plan) == [1, 2, 3, 4, 5, 6]
    assert plan[1][1] > plan[2][1] > plan[3][1] == plan[4][1] > plan[5][1] > plan[6][1]
    assert plan[5][1] == pytest.approx(50.0) and plan[6][1] == pytest.approx(8 / 7)


def test_refresh_all_comes_after_new_and_failed_and_before_changes():
    index = _index([_cached(2, "past", age=0, state="failed"),
                    _cached(3, "past", age=0), _cached(4, "past", age=0, summary="old")])
    plan = _plan([(1, "past"), (2, "past"), (3, "past"), (4, "past")], index, refresh_all=True)
    assert {i: reason for i, (reason, _) in plan.items()} == {
        1: "new", 2: "failed", 3: "all", 4: "all"}
    assert plan[1][1] > plan[2][1] > plan[3][1]  # (a failure just after the new ones)
    assert plan[3][1] > 1e9  # above any stale ratio a real age could reach
    changed_only = _plan([(4, "past")], index)
    assert changed_only[4][0] == "changed" and changed_only[4][1] < plan[3][1]


def test_a_gone_profile_is_asked_again_only_when_its_summary_or_status_changes():
    index = _index([_cached(1, "past", age=1000 * DAY, state="gone"),
                    _cached(2, "past", age=0, state="gone", summary="old"),
                    _cached(3, "past", age=0, state="gone")])
    plan = _plan([(1, "past"), (2, "past"), (3, "upcoming")], index)
    assert {i: reason for i, (reason, _) in plan.items()} == {2: "changed"}
    # the status change of a gone profile is not a reason of its own
    assert 3 not in plan


def test_without_ages_only_new_failed_and_changed_are_fetched():
    index = _index([_cached(1, "ongoing", age=100 * DAY), _cached(2, "ongoing", age=0,
                                                                   summary="old")])
    plan = _plan([(1, "ongoing"), (2, "ongoing"), (3, "ongoing")], index, ages=None)
    assert {i: reason for i, (reason, _) in plan.items()} == {2: "changed", 3: "new"}


def test_an_empty_index_makes_every_listed_profile_new():
    plan = _plan([(1, "past"), (2, "ongoing")], _index([{"id": 0, "status": "past"}]).iloc[:0])
    assert {i: reason for i, (reason, _) in plan.items()} == {1: "new", 2: "new"}


# -- when a profile falls due: the spread and the slack --------------------------------------


def test_due_is_between_half_and_all_of_the_age_less_the_slack():
    ids = np.arange(1, 2001)
    limit = np.full(len(ids), 7 * DAY)
    due = due_after(ids, limit)
    slack = 3600.0  # 5% of 7 days is more than an hour: an hour
    assert (due >= 0.5 * 7 * DAY - slack).all() and (due < 7 * DAY - slack).all()
    assert due.min() < 0.55 * 7 * DAY and due.max() > 0.95 * 7 * DAY - slack  # spread
    assert len(np.unique(due)) > 1900  # ids do not fall due together


def test_the_slack_is_five_percent_of_a_short_age():
    ids = np.array([10, 10])
    short, long = due_after(ids, np.array([3600.0, 10 * DAY]))
    spread = (short + 0.05 * 3600.0) / 3600.0  # the same id: the same point in its age
    assert long == pytest.approx(spread * 10 * DAY - 3600.0)


def test_a_daily_job_at_a_fixed_hour_refreshes_a_profile_a_day_old():
    # ongoing profiles may be a day old; the job that fetched them ran 24 hours ago, a
    # few seconds later than today's run: the slack makes them due all the same
    ids = list(range(1, 201))
    index = _index([_cached(i, "ongoing", age=DAY - 5) for i in ids])
    plan = _plan([(i, "ongoing") for i in ids], index)
    assert sorted(plan) == ids and {r for r, _ in plan.values()} == {"stale"}


def test_no_profile_is_kept_past_its_maximum_age_and_none_is_due_before_half_of_it():
    ids = list(range(1, 201))
    for age, due in ((7 * DAY + 1, ids), (3.5 * DAY - 3601, [])):
        index = _index([_cached(i, "upcoming", age=age) for i in ids])
        assert sorted(_plan([(i, "upcoming") for i in ids], index)) == due


MOST_STALE = float(np.nextafter(URGENT, 0))  # the first refresh, after every urgent want


def test_a_fetch_time_in_the_future_is_the_most_stale():
    index = _index([_cached(1, "past", age=-DAY), _cached(2, "past", age=1000 * DAY)])
    plan = _plan([(1, "past"), (2, "past")], index)
    assert plan[1] == ("stale", MOST_STALE) and plan[2][0] == "stale"
    assert _order(plan) == [1, 2]


def test_the_most_stale_refresh_still_waits_for_every_urgent_want():
    # staleness was inf: above a new profile's 4e12, and past the planner's URGENT threshold,
    # so a refresh went first and did not wait for the lists to be paged
    index = _index([_cached(1, "past", age=-DAY), _cached(2, "past", age=1, summary="old"),
                    {"id": 3, "status": "past", "summary": "s", "state": "fetched",
                     "fetched_at": None}])
    plan = _plan([(1, "past"), (2, "past"), (3, "past"), (4, "past")], index,
                 ages=profile_max_age(0))
    assert plan == {1: ("stale", MOST_STALE), 2: ("changed", 2 * URGENT),
                    3: ("stale", MOST_STALE), 4: ("new", 4 * URGENT)}
    assert _order(plan) == [4, 2, 1, 3]
    assert all(staleness < URGENT for reason, staleness in plan.values() if reason == "stale")


def test_a_profile_without_a_fetch_time_is_stale():
    index = _index([{"id": 1, "status": "past", "summary": "s", "state": "fetched",
                     "fetched_at": None}])
    assert _plan([(1, "past")], index)[1] == ("stale", MOST_STALE)


def test_a_zero_age_makes_every_cached_profile_stale_without_dividing_by_zero():
    index = _index([_cached(1, "past", age=1)])
    with np.errstate(all="raise"):
        plan = _plan([(1, "past")], index, ages=profile_max_age(0))
    assert plan == {1: ("stale", MOST_STALE)}


def test_a_status_without_an_age_of_its_own_gets_the_past_age():
    index = _index([_cached(1, "mystery", age=30 * DAY), _cached(2, "mystery", age=100 * DAY)])
    plan = _plan([(1, "mystery"), (2, "mystery")], index, ages={})
    assert sorted(plan) == [2]


def test_a_profile_index_made_once_plans_like_the_frame():
    index = _index([_cached(1, "ongoing", age=3 * DAY), _cached(2, "past", age=0)])
    listed = [(1, "ongoing"), (2, "past"), (3, "past")]
    assert _plan(listed, ProfileIndex(index)) == _plan(listed, index)


# -- profile_max_age --------------------------------------------------------------------------


def test_profile_max_age_one_value_for_every_status():
    assert profile_max_age(60) == dict.fromkeys(("ongoing", "upcoming", "past"),
                                                dt.timedelta(seconds=60)) | {}
    assert profile_max_age(dt.timedelta(0))["past"] == dt.timedelta(0)
    assert profile_max_age(2.5)["ongoing"] == dt.timedelta(seconds=2.5)


def test_profile_max_age_by_status_keeps_the_defaults_of_the_others():
    ages = profile_max_age({" Past ": dt.timedelta(days=1)})
    assert ages == dict(PROFILE_MAX_AGE) | {"past": dt.timedelta(days=1)}
    assert profile_max_age(None) == dict(PROFILE_MAX_AGE)


@pytest.mark.parametrize("value", [-1, dt.timedelta(seconds=-1), True, "6_0", [60]])
def test_profile_max_age_refuses_what_is_not_an_age(value):
    with pytest.raises(InvalidParameter, match=r"profile_max_age must be a timedelta, a duration"):
        profile_max_age(value)


def test_an_unknown_status_far_from_any_lists_them():
    with pytest.raises(InvalidParameter,
                       match=r"unknown status 'zzz'; statuses: ongoing, upcoming, past"):
        profile_max_age({"zzz": 1})


# -- a profile that keeps failing waits longer each time -----------------------------------


def _failing(i: int, attempts: int, since: dt.timedelta) -> dict:
    return {"id": i, "status": "past", "summary": "s", "state": "failed",
            "fetched_at": None, "attempts": attempts, "failed_at": NOW - since}


@pytest.mark.parametrize("ages", [PROFILE_MAX_AGE, None], ids=["repaged", "cached-list"])
def test_a_copy_whose_refresh_failed_is_no_want_where_none_could_be_kept(ages):
    # REVF M2: retry=False (a read-only cache dir): such a copy is wanted as before REVE M2,
    # when it is stale or changed, not for its failure (served, said not refreshed)
    index = _index([_failing_copy(1, 1, dt.timedelta(minutes=5)),
                    _failing_copy(2, 1, dt.timedelta(days=1), summary="old"),
                    _failing_copy(4, 1, dt.timedelta(days=2), age=1000 * DAY)])
    listed = [(i, "past") for i in (1, 2, 4, 6)]
    plan = _plan(listed, index, ages=ages, retry=False)
    assert plan == ({2: ("changed", 2 * URGENT), 6: ("new", 4 * URGENT)} if ages is None else
                    {2: ("changed", 2 * URGENT), 4: ("stale", pytest.approx(1000 / 90)),
                     6: ("new", 4 * URGENT)})
    assert _plan(listed, index, refresh_all=True, retry=False) == {
        1: ("all", 3 * URGENT), 2: ("all", 3 * URGENT), 4: ("all", 3 * URGENT),
        6: ("new", 4 * URGENT)}


@pytest.mark.parametrize(("attempts", "since", "asked"), [
    (1, dt.timedelta(0), True),                                  # once: tried by the next call
    # each wait less its slack (5%, at most an hour): 57 min, 3 h 48, 15 h 12, 6 d 23 h
    (2, dt.timedelta(minutes=56, seconds=59), False), (2, dt.timedelta(minutes=57), True),
    (3, dt.timedelta(hours=3, minutes=47, seconds=59), False),
    (3, dt.timedelta(hours=3, minutes=48), True),
    (4, dt.timedelta(hours=15, minutes=11, seconds=59), False),
    (4, dt.timedelta(hours=15, minutes=12), True),
    (40, dt.timedelta(days=6, hours=22, minutes=59, seconds=59), False),
    (40, dt.timedelta(days=6, hours=23), True),
    (3, -dt.timedelta(hours=1), True),                           # a failure in the future
])
def test_a_failing_profile_waits_its_growing_interval(attempts, since, asked):
    plan = _plan([(1, "past")], _index([_failing(1, attempts, since)]))
    assert (1 in plan) == asked
    if asked:
        assert plan[1][0] == "failed"


@pytest.mark.parametrize(("since", "urgency"), [
    (dt.timedelta(0), 3.9e12), (dt.timedelta(minutes=59), 3.9e12),  # likely wrong again
    (dt.timedelta(hours=1), 4e12), (dt.timedelta(days=3), 4e12),  # maybe recovered: as new
    (-dt.timedelta(hours=2), 3.9e12),  # a failure in the future: not known to be old
])
def test_a_failure_an_hour_old_is_as_urgent_as_a_new_profile(since, urgency):
    # REVK M4: at 3.9 always, new ICOs filling a daily budget starved it for good
    plan = _plan([(1, "past"), (2, "past")], _index([_failing(1, 1, since)]))
    assert plan == {1: ("failed", urgency), 2: ("new", 4e12)}


def test_refresh_all_tries_a_waiting_profile_anyway():
    index = _index([_failing(1, 5, dt.timedelta(minutes=1))])
    assert _plan([(1, "past")], index, refresh_all=True) == {1: ("failed", 3.9e12)}


def _failing_copy(i: int, attempts: int, since: dt.timedelta, *, age: float = 0.0,
                  summary: str = "s") -> dict:
    """A copy fetched ``age`` seconds before NOW that a fetch failed to replace since."""
    return {**_cached(i, "past", age=age, summary=summary), "attempts": attempts,
            "failed_at": NOW - since, "reason": "HTTP 200: the profile data is NoneType"}


@pytest.mark.parametrize("ages", [PROFILE_MAX_AGE, None], ids=["repaged", "cached-list"])
def test_a_copy_whose_refresh_failed_is_wanted_again_first_of_the_refreshes(ages):
    # REVE M2: a copy a refresh="all" failed to replace (fresh, unchanged) was no want of a
    # plain call until it grew old (90 days for a past ICO): said not refreshed every day
    index = _index([_failing_copy(1, 1, dt.timedelta(minutes=5)),
                    _failing_copy(2, 1, dt.timedelta(days=1), summary="old"),  # changed too
                    _cached(3, "past", age=1000 * DAY),                        # only stale
                    _failing_copy(4, 1, dt.timedelta(days=2), age=1000 * DAY),  # and stale
                    _cached(5, "past", age=0)])                                # fresh
    listed = [(i, "past") for i in range(1, 7)]
    plan = _plan(listed, index, ages=ages)
    if ages is None:
        assert plan == {1: ("retry", MOST_STALE), 2: ("changed", 2 * URGENT),
                        4: ("retry", MOST_STALE), 6: ("new", 4 * URGENT)}
        return
    assert plan == {1: ("retry", MOST_STALE), 2: ("changed", 2 * URGENT),
                    3: ("stale", pytest.approx(1000 / 90)), 4: ("retry", MOST_STALE),
                    6: ("new", 4 * URGENT)}
    assert _order(plan) == [6, 2, 1, 4, 3]
    frame = pd.DataFrame(listed, columns=["id", "status"])
    wants = {w.id: w for w in plan_profiles(frame, ["s"] * 6, index, now=NOW, ages=None,
                                            refresh_all=False)}
    assert wants[1].failed_before and wants[1].failure == "HTTP 200: the profile data is NoneType"
    assert wants[1].failed_at == (NOW - dt.timedelta(minutes=5)).timestamp()


@pytest.mark.parametrize(("attempts", "since", "asked"), [
    (1, dt.timedelta(0), True), (2, dt.timedelta(minutes=56, seconds=59), False),
    (2, dt.timedelta(minutes=57), True), (5, dt.timedelta(hours=62, minutes=59), False),
    (5, dt.timedelta(hours=63), True)])
def test_a_copy_whose_refresh_keeps_failing_waits_as_one_without_a_copy(attempts, since, asked):
    plan = _plan([(1, "past")], _index([_failing_copy(1, attempts, since)]), ages=None)
    assert plan == ({1: ("retry", MOST_STALE)} if asked else {})
    # refresh="all" asks it anyway, as any copy
    assert _plan([(1, "past")], _index([_failing_copy(1, attempts, since)]),
                 refresh_all=True) == {1: ("all", 3 * URGENT)}


def test_a_fetched_profile_with_old_failures_does_not_wait():
    index = _index([{"id": 1, "status": "past", "summary": "old", "state": "fetched",
                     "fetched_at": NOW, "attempts": 0, "failed_at": NOW}])
    assert _plan([(1, "past")], index)[1][0] == "changed"


def test_a_failure_is_kept_with_the_loads_start_or_half_its_wait_before_it():
    from icoframes.fetch.policy import failure_stamp

    began = NOW - dt.timedelta(hours=2)
    hour = dt.timedelta(hours=1)
    # its 1st failure waits nothing: the start; a failure within half its wait of the
    # start: the start (a job at a fixed hour finds it due by its run a wait later)
    assert failure_stamp(1, began, NOW) == began
    assert failure_stamp(3, began, NOW) == began  # 4 hours: 2 hours after the start
    assert failure_stamp(3, began, NOW + dt.timedelta(seconds=1)) == began + dt.timedelta(
        seconds=1)
    # a load longer than half its wait: never less than half of it left after the failure
    assert failure_stamp(2, began, NOW) == NOW - hour / 2
    assert failure_stamp(99, NOW - dt.timedelta(days=5), NOW) == NOW - dt.timedelta(days=3.5)
    assert failure_stamp(2, NOW, NOW - hour) == NOW  # (a clock set back during the load)


def test_retry_interval_and_next_try():
    from icoframes.fetch.policy import MAX_RETRY_INTERVAL, next_try, retry_interval

    assert [retry_interval(n) for n in (0, 1, 2, 3, 4)] == [
        dt.timedelta(0), dt.timedelta(0), dt.timedelta(hours=1), dt.timedelta(hours=4),
        dt.timedelta(hours=16)]
    assert retry_interval(99) == MAX_RETRY_INTERVAL == dt.timedelta(days=7)
    at = NOW - dt.timedelta(minutes=30)
    assert next_try(2, at, NOW) == at + dt.timedelta(minutes=57)  # an hour less its slack
    assert next_try(2, NOW - dt.timedelta(minutes=57), NOW) is None  # due exactly now
    assert next_try(1, at, NOW) is None and next_try(5, None, NOW) is None
    assert next_try(5, NOW + dt.timedelta(hours=1), NOW) is None  # a clock set back
    assert next_try(5, pd.NaT, NOW) is None
    assert next_try(60, at, NOW) == at + MAX_RETRY_INTERVAL - dt.timedelta(hours=1)  # (months)


def test_where_an_id_falls_due_is_fixed_across_versions():
    # a multiplicative hash of the id: changing it would move every cached profile's due date
    due = due_after(np.array([1, 7, 2**40 + 3]), np.array([1000.0, 1000.0, 1000.0]))
    assert due.tolist() == pytest.approx([759.0169933857396, 613.1189537001774,
                                          877.0509801572189], rel=1e-12)


def test_a_failure_stamped_exactly_now_waits_its_interval():
    from icoframes.fetch.policy import next_try

    assert next_try(2, NOW, NOW) == NOW + dt.timedelta(minutes=57)  # an hour less its slack


@pytest.mark.parametrize(("typo", "meant"), [("ongoin", "ongoing"), ("upcomming", "upcoming"),
                                             ("pats", "past")])
def test_an_unknown_status_close_to_one_says_which(typo, meant):
    expected = rf"unknown status '{typo}'; did you mean '{meant}'\?$"
    with pytest.raises(InvalidParameter, match=expected):
        profile_max_age({typo: 1})


def test_fetch_times_with_mixed_utc_offsets_are_compared_in_utc():
    index = pd.DataFrame({"status": ["ongoing", "ongoing"], "summary": ["s", "s"],
                          "state": ["fetched", "fetched"],
                          # 13:00 at +01:00 is NOW; 2 days before NOW at -05:00
                          "fetched_at": ["2018-06-01T13:00:00+01:00",
                                         "2018-05-30T07:00:00-05:00"]},
                         index=pd.Index([1, 2], name="id"))
    plan = _plan([(1, "ongoing"), (2, "ongoing")], index)
    assert sorted(plan) == [2] and plan[2] == ("stale", pytest.approx(2.0))


def test_a_want_carries_the_listed_status_and_summary():
    frame = pd.DataFrame([(1, "ongoing"), (2, "past")], columns=["id", "status"])
    wants = plan_profiles(frame, ["k1", "k2"], _index([_cached(2, "past", age=0,
                                                               summary="old")]),
                          now=NOW, ages=PROFILE_MAX_AGE, refresh_all=False)
    assert [(w.id, w.status, w.summary, w.reason) for w in wants] == [
        (1, "ongoing", "k1", "new"), (2, "past", "k2", "changed")]


def test_a_profile_fetched_exactly_now_is_fresh():
    assert _plan([(1, "ongoing")], _index([_cached(1, "ongoing", age=0)])) == {}


def test_a_failure_stamped_exactly_now_makes_a_failing_profile_wait():
    assert _plan([(1, "past")], _index([_failing(1, 2, dt.timedelta(0))])) == {}


# -- the second round (2026-11-26): survivors of the 86.8 % run ------------------------------


def test_a_failure_time_read_as_nan_means_none():
    from icoframes.fetch.policy import next_try

    # a failed_at column with no time in it reads back as float NaN, not NaT
    assert next_try(5, float("nan"), NOW) is None  # type: ignore[arg-type]
    assert next_try(5, np.nan, NOW) is None  # type: ignore[arg-type]


def test_a_sub_second_age_gives_a_finite_staleness():
    # a one-second maximum age, a profile fetched 0.9 s ago: past its due point
    # (between 0.45 and 0.95 s), stale by 0.9 of its age, not infinitely
    index = _index([_cached(1, "ongoing", age=0.9)])
    plan = _plan([(1, "ongoing")], index, ages={"ongoing": dt.timedelta(seconds=1)})
    assert plan == {1: ("stale", pytest.approx(0.9))}


@pytest.mark.parametrize(("beyond", "asked"), [(0.0, False), (1 / 64, True)])
def test_a_profile_exactly_at_its_due_age_is_not_yet_stale(beyond, asked):
    # id 1024 and an age of 2**17 s put the due point on a whole 1/64 s, which a fetch
    # time in microseconds can hit exactly
    ages = {"ongoing": dt.timedelta(seconds=2**17)}
    due = float(due_after(np.array([1024]), np.array([2.0**17]))[0])
    index = _index([_cached(1024, "ongoing", age=due + beyond)])
    assert NOW.timestamp() - index["fetched_at"].iloc[0].timestamp() == due + beyond
    assert (1024 in _plan([(1024, "ongoing")], index, ages=ages)) == asked


def test_a_profile_failing_for_years_waits_the_longest_interval_without_overflow():
    index = _index([_failing(1, 10**6, dt.timedelta(days=6)),
                    _failing(2, 10**6, dt.timedelta(days=7))])
    with np.errstate(all="raise"):
        plan = _plan([(1, "past"), (2, "past")], index)
    assert plan == {2: ("failed", 4e12)}  # (7 days old: as urgent as a new one)


def test_a_want_holds_plain_python_values():
    frame = pd.DataFrame([(1, "ongoing")], columns=["id", "status"])
    [want] = plan_profiles(frame, ["k1"], _index([_cached(2, "past", age=0)]), now=NOW,
                           ages=PROFILE_MAX_AGE, refresh_all=False)
    # no numpy scalars: a Want's repr (in a report, a log line) reads as plain values
    assert repr(want) == ("Want(id=1, status='ongoing', summary='k1', reason='new', "
                          "staleness=4000000000000.0)")
    assert [type(v) for v in (want.id, want.status, want.summary, want.staleness)] == [
        int, str, str, float]


def test_a_profile_index_reads_missing_values_as_none_zero_and_nan():
    index = pd.DataFrame({"status": [None, "past"], "summary": ["a", None],
                          "attempts": [np.nan, 3.0],
                          "fetched_at": [None, "1970-01-01T00:00:01Z"]},
                         index=pd.Index([1, 2], name="id"))
    view = ProfileIndex(index)
    assert view.ids.tolist() == [1, 2] and view.ids.dtype == np.int64
    assert view.status.tolist() == [None, "past"] and view.summary.tolist() == ["a", None]
    assert view.attempts.tolist() == [0, 3] and view.attempts.dtype == np.int64
    assert view.fetched.dtype == np.float64
    assert np.isnan(view.fetched[0]) and view.fetched[1] == 1.0  # seconds since the epoch
    assert view.state.tolist() == ["fetched", "fetched"] and view.state.dtype == object


def test_a_profile_index_without_the_optional_columns():
    view = ProfileIndex(pd.DataFrame({"status": ["past"]}, index=pd.Index([7], name="id")))
    assert view.state.tolist() == ["fetched"] and view.state.dtype == object
    assert view.attempts.tolist() == [0] and view.attempts.dtype == np.int64
    assert view.fetched.dtype == np.float64 and np.isnan(view.fetched).all()
    assert view.failed_at.dtype == np.float64 and np.isnan(view.failed_at).all()
    empty = ProfileIndex(pd.DataFrame())
    assert len(empty.ids) == 0 and empty.ids.dtype == np.int64
    assert empty.attempts.dtype == np.int64 and empty.fetched.dtype == np.float64


@pytest.mark.parametrize(("max_age", "expected"), [
    (None, None), (dt.timedelta(hours=3), dt.timedelta(hours=3)),
    (0, dt.timedelta(0)), (90, dt.timedelta(seconds=90)), (2.5, dt.timedelta(seconds=2.5)),
    (np.float64(1.5), dt.timedelta(seconds=1.5))])
def test_age_limit_reads_none_a_timedelta_or_seconds(max_age, expected):
    limit = age_limit(max_age)
    assert limit == expected
    assert limit is None or type(limit) is dt.timedelta


@pytest.mark.parametrize("max_age", [True, False, -1, -0.5, "6_0", [60]])
def test_age_limit_refuses_what_is_no_age_by_name(max_age):
    with pytest.raises(InvalidParameter) as caught:
        age_limit(max_age)
    hint = "; did you mean 60?" if max_age == "6_0" else ""  # "60" is 60 seconds: not ASCII
    hint = " (negative: an age is 0 or more)" if max_age in (-1, -0.5) else hint
    assert str(caught.value) == (
        f"max_age must be {_AGE} or None, got {max_age!r}{hint}")


# --- ages a timedelta cannot hold ----------------------------------------------------------------

def test_the_longest_age_is_the_last_second_a_timedelta_holds():
    days = dt.timedelta.max.days + 1
    assert age_limit(days * 86_400 - 1) == dt.timedelta(days=days - 1, seconds=86_399)
    assert profile_max_age(days * 86_400 - 1)["past"] == dt.timedelta(days=days - 1,
                                                                       seconds=86_399)
    assert age_limit(dt.timedelta.max) == dt.timedelta.max
    past = " (more seconds than a timedelta holds: below 8.64e+13)"  # seconds, but too many
    for refused, why in ((days * 86_400, past), (float(days * 86_400), past), (10**400, past),
                         (np.float64(1e308), past), (Fraction(10**20), past),
                         (float("inf"), " (infinite: an age is finite; {})"),
                         (float("nan"), ""),
                         (-dt.timedelta(microseconds=1), " (negative: an age is 0 or more)"),
                         (-0.001, " (negative: an age is 0 or more)"), (True, ""),
                         (np.True_, "")):
        with pytest.raises(InvalidParameter) as caught:
            age_limit(refused)
        assert str(caught.value) == (  # quoted short: 10**400 is not written out whole
            f"max_age must be {_AGE} or None, got {quoted(refused)}"
            + why.format("None never expires"))
        with pytest.raises(InvalidParameter) as caught:
            profile_max_age({"past": refused})
        assert str(caught.value) == (
            f"profile_max_age must be {_AGE}, or a mapping of them by status; "
            f"got {quoted(refused)}" + why.format("'3650D' for hardly ever"))


def test_an_export_with_the_longest_max_age_keeps_the_days_start():
    now = dt.datetime(2026, 11, 26, 3, 15, tzinfo=dt.UTC)
    midnight = dt.datetime(2026, 11, 26, tzinfo=dt.UTC)
    assert lists_fresh_after(dt.timedelta.max, now) == midnight  # OverflowError before
    assert lists_fresh_after(3 * 3600 + 15 * 60, now) == midnight
    assert lists_fresh_after(3 * 3600 + 15 * 60 - 1, now) == midnight + dt.timedelta(seconds=1)


@pytest.mark.parametrize("seconds", [np.int64(90), np.int32(90), np.float32(90.0),
                                     np.timedelta64(90, "s"), np.timedelta64(90_000, "ms"),
                                     pd.Timedelta(seconds=90), Fraction(180, 2)])
def test_an_age_may_be_any_real_number_of_seconds_or_any_timedelta(seconds):
    # np.int64(90) and np.timedelta64 were refused while np.float64(90) was taken
    assert age_limit(seconds) == dt.timedelta(seconds=90)
    assert profile_max_age({"past": seconds})["past"] == dt.timedelta(seconds=90)


@pytest.mark.parametrize("refused", [np.True_, np.timedelta64("NaT"), np.timedelta64(-1, "s"),
                                     np.float64("nan"), pd.NaT, "9_0", Decimal(90)])
def test_what_is_no_age_is_refused_numpy_included(refused):
    with pytest.raises(InvalidParameter) as caught:
        age_limit(refused)
    hint = "; did you mean 90?" if isinstance(refused, str) else ""
    if isinstance(refused, np.timedelta64) and not np.isnat(refused):
        hint = " (negative: an age is 0 or more)"
    assert str(caught.value) == (f"max_age must be {_AGE} or None, got "
                                 f"{refused!r}{hint}")


@pytest.mark.parametrize("refused", [np.timedelta64(90), np.timedelta64(1, "Y"),
                                     np.timedelta64(2, "M")])
def test_a_timedelta64_without_a_fixed_length_unit_is_refused_saying_why(refused):
    # "got np.timedelta64(90)" alone did not say what was wrong with it
    why = " (a np.timedelta64 needs a unit other than years or months)"
    with pytest.raises(InvalidParameter) as caught:
        age_limit(refused)
    assert str(caught.value) == (
        f"max_age must be {_AGE} or None, got {refused!r}{why}")
    for value in (refused, {"past": refused}):
        with pytest.raises(InvalidParameter) as caught:
            profile_max_age(value)
        assert str(caught.value) == (
            f"profile_max_age must be {_AGE}, or a mapping of them by status; "
            f"got {quoted(refused)}{why}")
    # a timedelta64 refused for another reason says no such thing
    for other in (np.timedelta64("NaT"), np.timedelta64("NaT", "s"), np.timedelta64(-1, "s"),
                  np.timedelta64(10**15, "D")):
        with pytest.raises(InvalidParameter) as caught:
            age_limit(other)
        negative = " (negative: an age is 0 or more)" * bool(other == np.timedelta64(-1, "s"))
        assert str(caught.value) == f"max_age must be {_AGE} or None, got {other!r}{negative}"

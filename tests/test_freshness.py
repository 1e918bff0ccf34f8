"""Complete and fresh, visibly (issue 11): the refresh policy, budget, partial lists, offline."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply

import icoframes
from icoframes import sandbox
from icoframes.errors import IncompleteWarning, InvalidParameter, NotCached, StaleWarning

DAY_ONE = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
def sb(tmp_path):
    with sandbox.serve(n_icos=150, seed=31) as own:  # mutated below: not shared
        icoframes.configure(**own.settings(), cache_dir=tmp_path / "cache")
        yield own
    icoframes.reset_configuration()


def _profile_hits(sb):
    return sum(sb.stats.profile_hits.values())


def test_refresh_updates_an_ico_that_ended_early(sb):
    with time_machine.travel(DAY_ONE, tick=True):
        before = icoframes.load_icos(progress=False)
        ongoing = before[before["status"] == "ongoing"].iloc[0]
        new_end = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
        sb.update_ico(int(ongoing["id"]), status="past", end=new_end)
        hits = _profile_hits(sb)
        after = icoframes.load_icos(refresh=True, progress=False)
    assert _profile_hits(sb) == hits + 1  # only the ICO whose listed status changed
    row = after.set_index("id").loc[int(ongoing["id"])]
    assert row["status"] == "past"
    assert row["end_datetime"] < pd.Timestamp(DAY_ONE.replace(tzinfo=None))  # no zone given
    assert row["end_datetime"] != ongoing["end_datetime"]
    assert row["fetched_at"] > ongoing["fetched_at"]


def test_profiles_older_than_their_status_allows_are_fetched_again(sb):
    with time_machine.travel(DAY_ONE, tick=True):
        first = icoframes.load_icos(progress=False)
    counts = first["status"].value_counts()
    hits = _profile_hits(sb)
    with time_machine.travel(DAY_ONE + dt.timedelta(days=2), tick=True):
        # the list is younger than max_age: refresh=False spends nothing
        assert icoframes.load_icos(progress=False, max_age=None).equals(first)
        assert _profile_hits(sb) == hits
        again = icoframes.load_icos(refresh=True, progress=False)
    # two days on, only the ongoing profiles (1 day) are stale; upcoming 7, past 90 days
    assert _profile_hits(sb) == hits + counts["ongoing"]
    fresh = again[again["fetched_at"] > pd.Timestamp(DAY_ONE + dt.timedelta(days=1))]
    assert set(fresh["status"]) == {"ongoing"}
    with time_machine.travel(DAY_ONE + dt.timedelta(days=3), tick=True):
        icoframes.load_icos(refresh=True, progress=False,
                            profile_max_age={"ongoing": dt.timedelta(days=5)})
    assert _profile_hits(sb) == hits + counts["ongoing"]  # nothing older than 5 days


def test_a_budget_fetches_the_most_stale_first_and_reports_the_rest(sb):
    with time_machine.travel(DAY_ONE, tick=True):
        first = icoframes.load_icos(progress=False)
    counts = first["status"].value_counts()
    hits = _profile_hits(sb)
    # ten days on, ongoing profiles are 10x their limit, upcoming 1.4x: the ongoing go first
    with (time_machine.travel(DAY_ONE + dt.timedelta(days=10), tick=True),
          pytest.warns(StaleWarning, match="budget")):
        icos = icoframes.load_icos(refresh=True, budget=5, progress=False)
    assert _profile_hits(sb) == hits + 5
    refreshed = icos[icos["fetched_at"] > pd.Timestamp(DAY_ONE + dt.timedelta(days=9))]
    assert len(refreshed) == 5 and set(refreshed["status"]) == {"ongoing"}
    left = icos.attrs["icoframes"]["not_refreshed"]
    assert len(left) == counts["ongoing"] + counts["upcoming"] - 5
    assert len(icos) == len(first)  # stale rows are kept, and said to be stale
    with pytest.raises(InvalidParameter, match="budget"):
        icoframes.load_icos(budget=-1)


def test_a_fetch_time_in_the_future_counts_as_stale(sb):
    with time_machine.travel(DAY_ONE + dt.timedelta(days=365), tick=True):
        icoframes.load_icos(status="past", progress=False)  # a clock a year ahead
    hits = _profile_hits(sb)
    with time_machine.travel(DAY_ONE, tick=True):
        icos = icoframes.load_icos(status="past", refresh=True, progress=False)
    assert _profile_hits(sb) == hits + len(icos)
    assert (icos["fetched_at"] < pd.Timestamp(DAY_ONE + dt.timedelta(days=1))).all()


def test_profile_max_age_is_checked_before_any_request(sb):
    with pytest.raises(InvalidParameter, match="did you mean 'upcoming'"):
        icoframes.load_icos(refresh=True, profile_max_age={"upcomming": 60})
    with pytest.raises(InvalidParameter, match="profile_max_age"):
        icoframes.load_icos(profile_max_age="weekly")
    assert sum(sb.stats.requests.values()) == 0


# -- completeness -------------------------------------------------------------------


def _items(ids):
    return [{"id": i, "main": {"name": f"ICO {i}", "ico_score": "2.5"},
             "finance": {"raised": "10"}} for i in ids]


def test_a_list_whose_count_contradicts_its_pages_is_not_paged_again_within_max_age(tmp_path):
    def short(h):  # claims 25 ICOs, delivers 20, then an empty page
        number = h.request_json().get("page", 1)
        json_reply({"total_icos": 25, "total_pages": 2, "current_page": number, "error": None,
                    "data": _items(range(1, 21)) if number == 1 else []})(h)

    def profile(h):
        asked = h.request_json()["id"]
        json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)

    with HostileServer({LIST: short, PROFILE: profile}) as srv:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache")
        try:
            with pytest.warns(IncompleteWarning, match=r"partial \(5 of its 25 ICOs missing\)"):
                icos = icoframes.load_icos(status="past", progress=False)
            pages = srv.hits[LIST]
            for _ in range(3):  # within max_age: the same short list, from the cache
                with pytest.warns(IncompleteWarning, match="paged again once older than max_age"):
                    warm = icoframes.load_icos(status="past", progress=False)
            assert srv.hits[LIST] == pages
            with pytest.warns(IncompleteWarning):  # older than max_age: paged again
                icoframes.load_icos(status="past", progress=False, max_age=0)
        finally:
            icoframes.reset_configuration()
    assert len(icos) == 20
    pd.testing.assert_frame_equal(warm, icos)
    for frame in (icos, warm):
        (query,) = frame.attrs["icoframes"]["queries"]
        assert query["complete"] is False and query["missing"] == 5
        assert frame.attrs["icoframes"]["complete"] is False
    assert srv.hits[LIST] == 2 * pages
    assert srv.hits[PROFILE] == 20  # the profiles were not fetched twice


def test_offline_returns_what_is_cached_and_says_what_is_missing(sb):
    listing = icoframes.load_list(status="upcoming", progress=False)
    with pytest.raises(NotCached, match="nothing of this query"):
        icoframes.load_icos(status="past", offline=True)
    with pytest.warns(IncompleteWarning, match=f"{len(listing)} listed ICO"):
        icos = icoframes.load_icos(status="upcoming", offline=True)
    assert icos.empty and list(icos.columns) == list(icoframes.load_icos(
        status="upcoming", progress=False).columns)
    missing = icos.attrs["icoframes"]["missing"]
    assert sorted(m["id"] for m in missing) == sorted(listing["id"])
    assert {m["state"] for m in missing} == {"not_fetched"}
    whole = icoframes.load_icos(status="upcoming", offline=True)
    assert whole.attrs["icoframes"]["complete"] is True and len(whole) == len(listing)

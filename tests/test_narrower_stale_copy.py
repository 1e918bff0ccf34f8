"""A list the service sends that holds an ICO whose cached copy fails that list's own filters
shows the copy out of date: a field only the profile shows (location, category) changed while
the list's summary did not. The load that pages it, or answers from it cached, fetches that
profile again (one request each), and, until it has, an older cached list does not answer a
narrower query from that copy.
Each test changes an ICO in a sandbox of its own and compares the rows with a fresh load of
the same query in a cache dir of its own, over loopback.
"""

from __future__ import annotations

import warnings
from collections import Counter

import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import StaleWarning

PAST = {"status": "past"}


@pytest.fixture
def sb(tmp_path):
    """The sandbox of seed 0 (300 ICOs), the test's own (it changes ICOs), a fresh cache."""
    with sandbox.serve(n_icos=300, seed=0) as server:
        icoframes.configure(**server.settings(), cache_dir=tmp_path / "cache")
        try:
            yield server
        finally:
            icoframes.reset_configuration()


def fresh(sb, folder, **query) -> pd.DataFrame:
    """The same query loaded in the cache dir ``folder`` (then the test's cache dir again)."""
    icoframes.configure(**sb.settings(), cache_dir=folder / "cache")
    try:
        return icoframes.load_icos(progress=False, **query)
    finally:
        icoframes.configure(**sb.settings(), cache_dir=folder.parent / "cache")


def same_rows(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    """The same rows and values, in id order, but when each copy was fetched."""
    def rows(frame):
        return frame.drop(columns="fetched_at").sort_values("id").reset_index(drop=True)
    pd.testing.assert_frame_equal(rows(got), rows(expected))


def entry(frame) -> dict:
    (query,) = frame.attrs["icoframes"]["queries"]
    return query


def warm(sb) -> pd.DataFrame:
    icoframes.load_filters()
    return icoframes.load_icos(status="past", progress=False)


def test_a_list_holding_a_copy_that_fails_its_filters_has_it_fetched_again(sb, tmp_path):
    """X moves from the USA to Singapore (its summary unchanged). A query the cache cannot
    answer (``exclude_areas``) pages its list, which holds X: X's profile is fetched again in
    that load (1 request), so its row says Singapore; then ``location="USA"`` answered from
    the past list leaves X out, as the service does."""
    past = warm(sb)
    x = int(past.loc[past["location"] == "USA", "id"].iloc[0])
    sb.stats.reset()  # the normal case: a paged list whose copies pass its filters
    icoframes.load_icos(status="past", location="Singapore", exclude_areas="China",
                        progress=False)
    assert sb.stats.profile_hits == Counter()
    sb.update_ico(x, location="Singapore")
    sb.stats.reset()
    moved = icoframes.load_icos(status="past", location="Singapore", exclude_areas="China",
                                refresh=True, progress=False)
    assert sb.stats.requests["icos"] == 1 and sb.stats.profile_hits == Counter({x: 1})
    assert moved.loc[moved["id"] == x, "location"].tolist() == ["Singapore"]
    same_rows(moved, fresh(sb, tmp_path / "f1", status="past", location="Singapore",
                           exclude_areas="China"))
    sb.stats.reset()
    usa = icoframes.load_icos(status="past", location="USA", progress=False)
    assert sum(sb.stats.requests.values()) == 0 and entry(usa)["answered_from"] == PAST
    assert x not in usa["id"].tolist()
    same_rows(usa, fresh(sb, tmp_path / "f2", status="past", location="USA"))


def test_a_category_changed_is_fetched_again_by_a_refresh_of_the_list_holding_it(sb, tmp_path):
    """X moves from Finance to Platform. ``category="Platform", refresh=True`` pages a list
    holding X: X's profile is fetched again (its row says Platform), and ``category="Finance"``
    answered from the past list has the service's rows, without X."""
    past = warm(sb)
    x = int(past.loc[past["category"] == "Finance", "id"].iloc[0])
    sb.update_ico(x, category="Platform")
    sb.stats.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to warn of: X's row is current
        moved = icoframes.load_icos(status="past", category="Platform", refresh=True,
                                    progress=False)
    assert sb.stats.profile_hits == Counter({x: 1})
    assert sb.stats.requests["icos"] == -(-len(moved) // 20)  # its pages, 20 ICOs a page
    assert moved.loc[moved["id"] == x, "category"].tolist() == ["Platform"]
    sb.stats.reset()
    finance = icoframes.load_icos(status="past", category="Finance", progress=False)
    assert sum(sb.stats.requests.values()) == 0 and entry(finance)["answered_from"] == PAST
    same_rows(finance, fresh(sb, tmp_path / "f", status="past", category="Finance"))


def test_a_newer_list_showing_a_copy_out_of_date_stops_the_older_list_answering(sb, tmp_path):
    """With ``budget=0`` X's stale copy is not fetched again (said: not refreshed, with a
    StaleWarning). The list that holds it is then evidence against the older past list:
    ``location="USA"`` is paged (its pages only), not answered with X from the old copy."""
    past = warm(sb)
    x = int(past.loc[past["location"] == "USA", "id"].iloc[0])
    sb.update_ico(x, location="Singapore")
    sb.stats.reset()
    with pytest.warns(StaleWarning):
        kept = icoframes.load_icos(status="past", location="Singapore", exclude_areas="China",
                                   budget=0, progress=False)
    assert sb.stats.profile_hits == Counter()
    assert x in icoframes.report(kept).not_refreshed
    sb.stats.reset()
    usa = icoframes.load_icos(status="past", location="USA", progress=False)
    assert entry(usa)["answered_from"] is None
    assert any("fails that list's filters" in why for why in entry(usa)["cache_declined"])
    assert sb.stats.profile_hits == Counter()
    assert sb.stats.requests["icos"] == -(-len(usa) // 20)
    assert x not in usa["id"].tolist()
    same_rows(usa, fresh(sb, tmp_path / "f", status="past", location="USA"))


def test_the_same_query_again_from_its_own_cached_list_fetches_the_stale_copy(sb, tmp_path):
    """After ``budget=0`` left X's out-of-date copy (said not refreshed), the same query
    again is answered from its own fresh cached list, which holds X and was paged after X's
    copy: X's profile is fetched then (1 request, no list page), so its row says Singapore,
    not the USA its filter excludes; the next load sends nothing."""
    past = warm(sb)
    x = int(past.loc[past["location"] == "USA", "id"].iloc[0])
    sb.update_ico(x, location="Singapore")
    query = {"status": "past", "location": "Singapore", "exclude_areas": "China"}
    with pytest.warns(StaleWarning):
        icoframes.load_icos(budget=0, progress=False, **query)
    sb.stats.reset()
    again = icoframes.load_icos(progress=False, **query)
    assert sb.stats.profile_hits == Counter({x: 1}) and sb.stats.requests["icos"] == 0
    assert again.loc[again["id"] == x, "location"].tolist() == ["Singapore"]
    assert icoframes.report(again).not_refreshed == ()
    same_rows(again, fresh(sb, tmp_path / "f", **query))
    sb.stats.reset()
    icoframes.load_icos(progress=False, **query)
    assert sum(sb.stats.requests.values()) == 0


def test_a_stale_copy_of_an_ico_the_older_list_lacks_decides_nothing(sb, tmp_path):
    """Y (past, not Finance, USA) is not in the cached ``category="Finance"`` list. Y moves
    to Finance and Singapore; a list since holds it (``budget=0``: its copy is not fetched
    again, and fails that list's location). ``category="Finance", location="Singapore"``
    is then not answered from the Finance list by Y's stale copy (which says it cannot
    match): it is paged, and has Y, as the service."""
    warm(sb)  # every past copy cached; then the Finance list, paged
    finance = icoframes.load_icos(status="past", category="Finance", refresh=True,
                                  progress=False)
    past = [r for r in sb.directory.records("past")
            if r.category != "Finance" and r.location == "USA"]
    y = past[0].id
    assert y not in finance["id"].tolist()  # the premise
    sb.update_ico(y, category="Finance", location="Singapore")
    with pytest.warns(StaleWarning):
        icoframes.load_icos(status="past", location="Singapore", exclude_areas="China",
                            budget=0, progress=False)
    sb.stats.reset()
    got = icoframes.load_icos(status="past", category="Finance", location="Singapore",
                              progress=False)
    assert entry(got)["answered_from"] is None
    assert sb.stats.requests["icos"] == -(-len(got) // 20)
    assert y in got["id"].tolist()
    assert sb.stats.profile_hits == Counter({y: 1})  # the list paged holds Y: its copy failed
    assert got.loc[got["id"] == y, "location"].tolist() == ["Singapore"]
    same_rows(got, fresh(sb, tmp_path / "f", status="past", category="Finance",
                         location="Singapore"))

"""A narrower query is answered from a cached list only when no list cached since (at or after
it) says that list's rows for this query are not the service's now: an ICO that joined since
and may match the query, or one that left (review Q3 item 1 and its LOW items). Each test
moves or removes ICOs in a sandbox of its own and pages the same query from it over loopback.
"""

from __future__ import annotations

import datetime as dt
import warnings

import pytest
import time_machine
from hostile import LIST, HostileServer, paged_list
from test_narrower_loads import listed_by_service  # the sandbox's ids, paged over loopback

import icoframes
from icoframes import sandbox
from icoframes.errors import IncompleteWarning, NoMatchWarning
from icoframes.store.derived import DerivedTables

T0 = dt.datetime(2026, 5, 4, 10, 0, tzinfo=dt.UTC)
MINUTE = dt.timedelta(minutes=1)
PAST = {"status": "past"}


@pytest.fixture
def sb(tmp_path):
    """The sandbox of seed 3 (300 ICOs), the test's own (it moves ICOs), a fresh cache."""
    with sandbox.serve(n_icos=300, seed=3) as server:
        icoframes.configure(**server.settings(), cache_dir=tmp_path / "cache")
        try:
            yield server
        finally:
            icoframes.reset_configuration()


def spent(sb) -> int:
    return sum(sb.stats.requests.values())


def at(minutes: int):
    return time_machine.travel(T0 + minutes * MINUTE, tick=False)


def entry(frame) -> dict:
    (query,) = frame.attrs["icoframes"]["queries"]
    return query


@pytest.mark.parametrize("how", [{"sort_asc": "id"}, {}, {"sort_asc": "id", "offline": True}],
                         ids=["sorted", "unsorted", "offline"])
def test_a_newer_wider_list_answers_with_the_ico_that_joined_since(sb, how):
    """past+category cached at T0; y (ongoing, bounty) ends; all of past cached at T1 holds
    it. ``category, bounty_program`` was answered from the smaller T0 list, without y; the
    newer list answers it now, with y, at no request (offline too)."""
    y = next(r for r in sb.directory.records("ongoing") if r.bounty)
    with at(0):
        icoframes.load_filters()
        old = icoframes.load_icos(status="past", category=[y.category_id], progress=False)
    sb.update_ico(y.id, status="past")
    with at(1):
        icoframes.load_icos(status="past", progress=False)
    sb.stats.reset()
    asked = {"category": [y.category_id], "bounty_program": True, **how}
    with at(2):
        got = icoframes.load_icos(status="past", progress=False, **asked)
    assert spent(sb) == 0
    assert entry(got)["answered_from"] == PAST
    asked.pop("offline", None)
    service = listed_by_service(sb, **asked)
    assert y.id not in old["id"].tolist() and y.id in service  # the premise
    assert sorted(got["id"]) == sorted(service) and y.id in got["id"].tolist()
    if how.get("sort_asc"):
        assert got["id"].tolist() == service


def test_a_later_narrower_list_holding_an_ico_that_joined_stops_the_older_one(sb):
    """All of past cached at T0; y ends; past+category (y's) paged at T1 holds it. ``ico_score=2``
    (y's score is 2.8) was answered from the T0 list without y: now paged, saying why; a query
    y cannot match (``ico_score=3``) is still answered from the T0 list."""
    y = sb.directory.record(1043)
    assert y.status == "ongoing" and y.score == 2.8
    with at(0):
        icoframes.load_filters()
        icoframes.load_icos(status="past", progress=False)
    sb.update_ico(y.id, status="past")
    with at(1):
        later = icoframes.load_icos(status="past", category=[y.category_id], refresh=True,
                                    progress=False)
    assert y.id in later["id"].tolist()
    sb.stats.reset()
    with at(2):
        above = icoframes.load_icos(status="past", ico_score=3, sort_asc="id", progress=False)
    assert spent(sb) == 0 and entry(above)["answered_from"] == PAST
    assert above["id"].tolist() == listed_by_service(sb, ico_score=3, sort_asc="id")
    sb.stats.reset()
    with at(3):
        got = icoframes.load_icos(status="past", ico_score=2, sort_asc="id", progress=False)
    query = entry(got)
    assert query["answered_from"] is None and sb.stats.requests["icos"] > 0
    assert any(f"holds id {y.id}, which it lacks" in r and "joined the list since" in r
               for r in query["cache_declined"]), query["cache_declined"]
    assert got["id"].tolist() == listed_by_service(sb, ico_score=2, sort_asc="id")
    assert y.id in got["id"].tolist()


@pytest.mark.parametrize("minutes", [1, 0], ids=["later", "same_millisecond"])
def test_a_later_narrower_list_lacking_an_ico_stops_the_older_one(sb, minutes):
    """All of past cached at T0; r (its category's) is removed; past+category paged after
    (or in the same millisecond: which came first is not known) lacks it though r's copy is of
    that category. ``ico_score=2`` was answered from the T0 list with r: now paged."""
    r = next(r for r in sb.directory.records("past") if r.score is not None and r.score >= 2)
    with at(0):
        icoframes.load_filters()
        icoframes.load_icos(status="past", progress=False)
    sb.remove_ico(r.id)
    with at(minutes):
        later = icoframes.load_icos(status="past", category=[r.category_id], refresh=True,
                                    progress=False)
    assert r.id not in later["id"].tolist()
    sb.stats.reset()
    with at(minutes + 1):
        got = icoframes.load_icos(status="past", ico_score=2, sort_asc="id", progress=False)
    query = entry(got)
    assert query["answered_from"] is None and sb.stats.requests["icos"] > 0
    assert any(f"lacks id {r.id}: it left the list since" in why
               for why in query["cache_declined"]), query["cache_declined"]
    assert r.id not in got["id"].tolist()
    assert got["id"].tolist() == listed_by_service(sb, ico_score=2, sort_asc="id")


def test_an_empty_cached_list_is_checked_against_the_lists_cached_since(sb):
    """past+category 16+type 5 is empty at T0 (error 482: kept as a complete empty list); y
    (category 16, type 5, bounty) ends; past+bounty cached at T1 holds it. The empty list
    answered ``category, type`` with no row: now paged, y listed."""
    y = sb.directory.record(1149)
    assert (y.status, y.category_id, y.type_id, y.bounty) == ("ongoing", 16, 5, True)
    asked = {"category": [16], "type": [5]}
    with at(0):
        icoframes.load_filters()
        with pytest.warns(NoMatchWarning):  # error 482: no ICO matches
            assert icoframes.load_icos(status="past", sort_asc="id", progress=False,
                                       **asked).empty
    sb.update_ico(y.id, status="past")
    with at(1):
        icoframes.load_icos(status="past", bounty_program=True, progress=False)
    sb.stats.reset()
    with at(2), warnings.catch_warnings():
        warnings.simplefilter("ignore", NoMatchWarning)  # (the empty answer it was)
        got = icoframes.load_icos(status="past", sort_desc="id", progress=False, **asked)
    query = entry(got)
    assert query["answered_from"] is None and sb.stats.requests["icos"] > 0
    assert any(f"holds id {y.id}" in r for r in query["cache_declined"]), query
    assert got["id"].tolist() == [y.id] == listed_by_service(sb, **asked)


def test_the_lists_cached_since_are_checked_on_one_read_of_the_derived_tables(sb, monkeypatch):
    """Every list cached since the answering one is checked against it on the copies read once
    a load: the derived tables are read once each (icos, problems) however many lists were
    cached (read again per list, a load answered after many queries took ever longer)."""
    icoframes.load_filters()
    icoframes.load_icos(status="past", progress=False)
    categories = sorted({r.category_id for r in sb.directory.records("past")})[:4]
    for category in categories:  # four narrower lists cached since the superset
        icoframes.load_list(status="past", category=[category], refresh=True, progress=False)
    reads: list[str] = []
    table = DerivedTables.table
    monkeypatch.setattr(DerivedTables, "table",
                        lambda self, name: reads.append(name) or table(self, name))
    sb.stats.reset()
    got = icoframes.load_list(status="past", ico_score=3, sort_desc="id", progress=False)
    assert spent(sb) == 0 and entry(got)["answered_from"] == PAST and len(categories) == 4
    assert sorted(reads) == ["icos", "problems"]
    assert got["id"].tolist() == listed_by_service(sb, ico_score=3, sort_desc="id")


def test_a_partial_cached_list_is_named_in_cache_declined(configure):
    """The only cached list the query narrows is partial (40 ICOs listed, 1,000 counted): the
    narrower query is paged and ``cache_declined`` says why that list did not answer (it was
    empty: nothing said)."""
    with HostileServer({LIST: paged_list(40, total_icos=1000, total_pages=50)}) as srv:
        configure(srv)
        with pytest.warns(IncompleteWarning):
            icoframes.load_list(status="past", progress=False)
        with pytest.warns(IncompleteWarning):
            got = icoframes.load_list(status="past", ico_score=4, sort_asc="id", progress=False)
    declined = entry(got)["cache_declined"]
    assert any("the cached list {'status': 'past'}: partial" in r for r in declined), declined

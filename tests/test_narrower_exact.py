"""A narrower query is answered from the cache only when the answer is the service's under every
reading the spec leaves open; else it is paged and ``cache_declined`` says why (review Q of
issue 18). Each test pages the same query from the sandbox over loopback and compares.
"""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from test_narrower_loads import listed_by_service  # the sandbox's ids, paged over loopback

import icoframes
from icoframes import sandbox
from icoframes.errors import NotCached, StaleWarning
from icoframes.sandbox import directory
from icoframes.sandbox.query import sort_records

T0 = dt.datetime(2026, 5, 4, 10, 0, tzinfo=dt.UTC)
PAST = {"status": "past"}


@pytest.fixture
def fresh(tmp_path):
    """A sandbox of its own (the tests change its ICOs), configured with a fresh cache."""
    def serve(n_icos: int, seed: int):
        server = sandbox.serve(n_icos=n_icos, seed=seed)
        servers.append(server)
        sb = server.__enter__()
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
        return sb
    servers: list = []
    yield serve
    icoframes.reset_configuration()
    for server in servers:
        server.__exit__(None, None, None)


def test_a_copy_whose_refetch_keeps_failing_decides_no_filter_and_is_said_stale(
        fresh, quick_retries):
    """Its list summary changed (score 2 -> 9) and its refetch failed twice: while it waits
    out its backoff the old copy would drop it from ``ico_score=5``; the query is paged, and
    every load that keeps the old copy says so (``failed``, ``not_refreshed``, a warning)."""
    sb = fresh(120, 5)
    with time_machine.travel(T0, tick=False):
        icos = icoframes.load_icos(status="past", progress=False)
        icoframes.load_filters()
    x = int(icos.loc[icos["ico_score"] < 3, "id"].iloc[0])
    sb.update_ico(x, ico_score=9.0)
    with time_machine.travel(T0 + dt.timedelta(minutes=1), tick=False):
        icoframes.load_list(status="past", refresh=True, progress=False)  # the list shows 9
    sb.set_faults(1.0)
    for minute in (2, 3):  # two failed loads in a row: it waits an hour from the 2nd
        with time_machine.travel(T0 + dt.timedelta(minutes=minute), tick=False), \
                pytest.warns(StaleWarning, match=f"fetching 1 of them again failed .e.g. id {x}"):
            kept = icoframes.load_icos(status="past", progress=False)
        assert x in kept.attrs["icoframes"]["failed"]
        assert kept.attrs["icoframes"]["not_refreshed"] == [x]
    sb.set_faults(0.0)
    with time_machine.travel(T0 + dt.timedelta(minutes=10), tick=False):
        with pytest.raises(NotCached):  # the superset alone cannot answer it
            icoframes.load_icos(status="past", ico_score=5, progress=False, offline=True)
        sb.stats.reset()
        with pytest.warns(StaleWarning):  # x's row is its old copy
            got = icoframes.load_icos(status="past", ico_score=5, progress=False)
        (query,) = got.attrs["icoframes"]["queries"]
        assert not query["from_cache"] and query["answered_from"] is None
        assert any(f"id {x}: failed since its copy" in r for r in query["cache_declined"])
        assert got["id"].tolist() == listed_by_service(sb, ico_score=5) and x in got["id"].tolist()
        assert sb.stats.requests.get("ico", 0) == 0  # x waits out its backoff
        with pytest.warns(StaleWarning, match=f"id {x}: HTTP|id {x}: Conn"):
            whole = icoframes.load_icos(status="past", progress=False)
    summary = whole.attrs["icoframes"]
    assert "failed on 2 loads in a row: tried again from 2026-05-04 11:00 UTC" in \
        summary["failed"][x]
    assert summary["not_refreshed"] == [x] and icoframes.report(whole).not_refreshed == (x,)


def test_names_are_sorted_locally_only_when_every_collation_agrees(fresh):
    """Spaces and punctuation ignored (glibc en_US), upper-case weights (MySQL general_ci:
    ``_`` after the letters), digits by value (ICU numeric): each orders these otherwise."""
    sb = fresh(60, 2)
    past = [r.id for r in sb.directory.records("past")]
    names = ["Block chain", "Blockade", "Ico_a", "Icob", "Zeta 9", "Zeta 10"]
    for i, ico in enumerate(past):
        sb.update_ico(ico, name=names[i] if i < len(names) else f"Proj{i:03d}")
    icoframes.load_icos(status="past", progress=False)
    icoframes.load_filters()
    with pytest.raises(NotCached):  # offline: declined, and nothing else is cached
        icoframes.load_list(status="past", sort_asc="name", progress=False, offline=True)
    sb.stats.reset()
    got = icoframes.load_list(status="past", sort_asc="name", progress=False)
    (query,) = got.attrs["icoframes"]["queries"]
    assert query["answered_from"] is None and sb.stats.requests["icos"] > 0
    assert "the service's collation is not stated" in query["cache_declined"][0]
    assert got["id"].tolist() == listed_by_service(sb, sort_asc="name")


def test_a_list_sorted_as_the_query_answers_it_saying_where_kept_rows_tie(fresh):
    """Six past ICOs named alike: the cached list sorted by name has them in some order, and
    a narrower list sorted so may have them in another (its tie order is not stated): the
    cache answers in the list's order and says so (was: paged); see test_narrower_ties."""
    sb = fresh(80, 4)
    past = [r.id for r in sb.directory.records("past")]
    for ico in past[:6]:
        sb.update_ico(ico, name="Twin")
    icoframes.load_icos(status="past", progress=False)
    icoframes.load_filters()
    icoframes.load_list(status="past", sort_desc="name", progress=False)
    sb.stats.reset()
    got = icoframes.load_list(status="past", sort_desc="name", ico_score=1, progress=False)
    (query,) = got.attrs["icoframes"]["queries"]
    twins = int((got["name"] == "Twin").sum())
    assert twins > 1  # the premise: kept rows tie
    assert query["answered_from"] == {**PAST, "sort_desc": "name"} and not any(
        sb.stats.requests.values())
    assert query["order_unstated"].startswith(
        f"the cached list's order among the {twins} rows that tie on name (1 group(s)")
    assert got["id"].tolist() == listed_by_service(sb, sort_desc="name", ico_score=1)


def test_any_cached_list_the_query_narrows_may_answer_it_and_counts_agree(fresh):
    """The cached lists are found by reading their parameters (not by 2^n guessed keys): a
    list filtered by ``ico_score=3`` answers ``ico_score=4`` with a yes-flag; the answer's
    count agrees with its rows (``count_contradicts`` false)."""
    sb = fresh(120, 3)
    icoframes.load_icos(status="past", progress=False)
    icoframes.load_filters()
    icoframes.load_list(status="past", ico_score=3, progress=False, refresh=True)  # paged, kept
    sb.stats.reset()
    got = icoframes.load_icos(status="past", ico_score=4, bounty_program=True, sort_asc="id",
                              progress=False)
    (query,) = got.attrs["icoframes"]["queries"]
    assert not any(sb.stats.requests.values())
    assert query["answered_from"] == {**PAST, "ico_score": 3}
    assert query["complete"] and not query["count_contradicts"]
    assert not icoframes.report(got).queries[0].count_contradicts
    assert got["id"].tolist() == listed_by_service(sb, ico_score=4, bounty_program=True,
                                                   sort_asc="id")


def test_a_list_cached_since_that_shows_a_row_changed_or_gone_stops_the_older_one(fresh):
    """Review Q2 item 4: a newer cached list (lists only, no profile fetched) shows x's new
    score, or lacks y that left while it holds every row the older list has: the older list
    with x's and y's old copies answers nothing (was: x left out of ``ico_score=4``, y kept)."""
    sb = fresh(120, 5)
    with time_machine.travel(T0, tick=False):
        icos = icoframes.load_icos(status="past", progress=False)
        icoframes.load_filters()
    x = int(icos.loc[icos["ico_score"] < 3, "id"].iloc[0])
    sb.update_ico(x, ico_score=5.0)
    with time_machine.travel(T0 + dt.timedelta(hours=1), tick=False):
        icoframes.load_list(status="past", ico_score=3, refresh=True, progress=False)
    with time_machine.travel(T0 + dt.timedelta(hours=2), tick=False):
        sb.stats.reset()
        got = icoframes.load_icos(status="past", ico_score=4, sort_asc="id", progress=False)
    (query,) = got.attrs["icoframes"]["queries"]
    assert query["answered_from"] is None and sb.stats.requests["icos"] > 0
    assert any(f"shows id {x} with another summary or status since" in r
               for r in query["cache_declined"]), query["cache_declined"]
    assert x in got["id"].tolist()
    assert got["id"].tolist() == listed_by_service(sb, ico_score=4, sort_asc="id")
    # y leaves the list, a new ICO comes: the newer list (its new row not cached) cannot answer
    best = icos.dropna(subset=["ico_score"]).sort_values("ico_score").iloc[-1]
    y, low = int(best["id"]), max(1, int(best["ico_score"]))
    sb.update_ico(y, status="ongoing")
    sb.add_ico("past")
    with time_machine.travel(T0 + dt.timedelta(hours=3), tick=False):
        icoframes.load_list(status="past", sort_desc="id", refresh=True, progress=False)
        sb.stats.reset()
        gone = icoframes.load_list(status="past", ico_score=low, sort_desc="id", progress=False)
    (query,) = gone.attrs["icoframes"]["queries"]
    assert query["answered_from"] is None and sb.stats.requests["icos"] > 0
    assert any(f"lacks id {y}: it left the list since" in r for r in query["cache_declined"])
    assert y not in gone["id"].tolist()
    assert gone["id"].tolist() == listed_by_service(sb, ico_score=low, sort_desc="id")


def test_filters_reading_fields_the_list_does_not_show_need_copies_within_max_age(fresh):
    """Review Q2 item 5: the list is a minute old but the copies two days: a filter but the
    score (or a date sort) would rest on those copies, so it is paged; the score, shown by the
    list, is still answered from the cache."""
    sb = fresh(150, 9)
    with time_machine.travel(T0, tick=False):
        icos = icoframes.load_icos(status="upcoming", progress=False)
        icoframes.load_filters()
    category = icos["category"].dropna().iloc[0]
    with time_machine.travel(T0 + dt.timedelta(days=2), tick=False):
        icoframes.load_list(status="upcoming", refresh=True, progress=False)
        sb.stats.reset()
        scored = icoframes.load_list(status="upcoming", ico_score=3, sort_asc="id", progress=False)
        assert not any(sb.stats.requests.values())
        assert scored.attrs["icoframes"]["queries"][0]["answered_from"] == {"status": "upcoming"}
        for asked in ({"category": category, "sort_asc": "id"},
                      {"ico_score": 1, "sort_desc": "end_datetime"}):
            sb.stats.reset()
            got = icoframes.load_list(status="upcoming", progress=False, **asked)
            (query,) = got.attrs["icoframes"]["queries"]
            assert query["answered_from"] is None and sb.stats.requests["icos"] > 0
            assert any("older than max_age (1 days 00:00:00): the query reads fields the list "
                       "does not show" in r for r in query["cache_declined"])
    assert scored["id"].tolist() == listed_by_service(sb, "upcoming", ico_score=3, sort_asc="id")
    assert got["id"].tolist() == listed_by_service(sb, "upcoming", **asked)


def test_an_unsorted_query_is_answered_in_the_cached_lists_order_saying_so(fresh, monkeypatch):
    """Spec 4.2 states no default order: a server whose unsorted order depends on the
    filters (an index scan: category, then id) lists a narrower query in another order
    than the cached list's. The cache answers with the service's rows, in the cached
    list's order, and the query entry says that order is not the service's."""
    def plan_dependent(records, wire):
        if not (wire.get("sort_asc") or wire.get("sort_desc")) and "category" in wire:
            return sorted(records, key=lambda r: (r.category_id, r.id))
        return sort_records(records, wire)
    monkeypatch.setattr(directory, "sort_records", plan_dependent)
    sb = fresh(200, 3)
    icoframes.load_icos(status="past", progress=False)
    icoframes.load_filters()
    sb.stats.reset()
    superset = icoframes.load_icos(status="past", progress=False, offline=True)["id"].tolist()
    got = icoframes.load_icos(status="past", category=["Finance", "Platform"], progress=False)
    assert not any(sb.stats.requests.values())
    (query,) = got.attrs["icoframes"]["queries"]
    assert query["answered_from"] == {"status": "past"} and query["from_cache"]
    assert "the service's default order is not stated" in query["order_unstated"]
    service = listed_by_service(sb, category=["Finance", "Platform"])
    assert sorted(got["id"]) == sorted(service) and len(service) > 1  # the service's rows
    assert got["id"].tolist() == [i for i in superset if i in set(service)]  # the list's order
    assert got["id"].tolist() != service  # the premise: the service's order is another

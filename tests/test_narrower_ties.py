"""Narrower sorted queries whose rows tie under the sort are answered from the cache too.

No argument of the package cuts an answer short, so the order among rows that tie (which
spec 4.2 does not state) never decides which rows come back: the answer keeps the cached
list's order among them and ``order_unstated`` says so, naming the key and how many rows
tie. Every answer is compared with what the sandbox lists for the same query over loopback:
the same rows, and the same sequence of sort values (the same order but among rows that
tie under the sandbox's comparison: names case-folded, equal dates, no date last). The
sandbox here reverses its tie order when a query has a filter, as a service whose tie order
follows its plan would: the answer's order among ties is then not the service's, and said.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections import Counter

import pytest
from test_narrower_loads import listed_by_service  # the sandbox's ids, paged over loopback

import icoframes
from icoframes import sandbox
from icoframes.sandbox import directory
from icoframes.sandbox.query import sort_records

NOTHING = {"filters": 0, "icos": 0, "ico": 0}
PAST = {"status": "past"}
FIELD = {"start_datetime": "start", "end_datetime": "end"}


def value(record, key: str):
    """The value the sandbox sorts ``record`` by: names case-folded, a date or None."""
    return record.name.casefold() if key == "name" else getattr(record, FIELD[key])


def ties_reversed_when_filtered(records, wire):
    """The sandbox's order, rows that tie reversed when the query has a filter."""
    ordered = sort_records(records, wire)
    key = wire.get("sort_asc") or wire.get("sort_desc")
    if key in (None, "id") or not set(wire) - {"status", "sort_asc", "sort_desc"}:
        return ordered
    return [r for _, tied in itertools.groupby(ordered, key=lambda r: value(r, key))
            for r in list(tied)[::-1]]


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """A sandbox of its own whose tie order depends on the filters, a fresh cache."""
    monkeypatch.setattr(directory, "sort_records", ties_reversed_when_filtered)
    servers: list = []

    def serve(n_icos: int, seed: int):
        server = sandbox.serve(n_icos=n_icos, seed=seed)
        servers.append(server)
        sb = server.__enter__()
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
        return sb
    yield serve
    icoframes.reset_configuration()
    for server in servers:
        server.__exit__(None, None, None)


def spent(sb) -> dict[str, int]:
    return {k: sb.stats.requests.get(k, 0) for k in ("filters", "icos", "ico")}


def tied(sb, ids, key: str) -> int:
    """How many of ``ids`` share their sort value with another (the sandbox's comparison)."""
    counts = Counter(value(sb.directory.record(i), key) for i in ids)
    return sum(n for n in counts.values() if n > 1)


def assert_answered_as_the_service(sb, got, key: str, source: dict, *, may_tie: int | None = None,
                                   **asked) -> list[int]:
    """From the cache (0 requests, online and offline alike), the service's rows in its order
    but among rows that tie, said with the key and how many rows may tie (``may_tie``; by
    default those that tie in the sandbox); the service's ids."""
    assert spent(sb) == NOTHING
    (query,) = got.attrs["icoframes"]["queries"]
    assert query["from_cache"] and query["answered_from"] == source and query["complete"]
    service = listed_by_service(sb, **asked)
    ids = got["id"].tolist()
    assert sorted(ids) == sorted(service)
    assert [value(sb.directory.record(i), key) for i in ids] == \
        [value(sb.directory.record(i), key) for i in service]
    n = tied(sb, ids, key) if may_tie is None else may_tie
    if n:
        assert f"the cached list's order among the {n} rows that tie on {key} (" in \
            query["order_unstated"]
        assert icoframes.report(got).queries[0].order_unstated == query["order_unstated"]
    else:
        assert "order_unstated" not in query and ids == service
    sb.stats.reset()
    return service


@pytest.mark.parametrize("sort", [{"sort_asc": "start_datetime"},
                                  {"sort_desc": "end_datetime"}], ids=str)
def test_a_list_sorted_so_answers_rows_that_tie_or_lack_the_date_in_its_order(fresh, sort):
    """Every category's query is answered from the list sorted so: rows with the same date, and
    those without one (the sandbox lists them last either way; the list has them where the
    service puts them), keep the list's order, said (was: each such query paged)."""
    sb = fresh(300, 3)
    icoframes.load_icos(status="past", progress=False)
    icoframes.load_filters()
    icoframes.load_list(status="past", progress=False, **sort)
    (key,) = sort.values()
    sb.stats.reset()
    told = other_order = 0
    for category in icoframes.load_filters().query("filter == 'category'")["name"]:
        offline = icoframes.load_list(status="past", category=category, progress=False,
                                      offline=True, **sort)
        assert_answered_as_the_service(sb, offline, key, {**PAST, **sort},
                                       category=category, **sort)
        got = icoframes.load_list(status="past", category=category, progress=False, **sort)
        service = assert_answered_as_the_service(sb, got, key, {**PAST, **sort},
                                                 category=category, **sort)
        assert got["id"].tolist() == offline["id"].tolist()
        told += "order_unstated" in got.attrs["icoframes"]["queries"][0]
        other_order += got["id"].tolist() != service
    assert told and other_order  # the premises: rows tie, and the service orders them otherwise


def test_a_list_sorted_by_name_answers_names_that_tie_under_some_collation(fresh):
    """Names equal under one collation the spec leaves open and not under another (the
    sandbox folds case only: 'Twín' and 'Tw-in' are distinct to it) keep the list's order,
    and so do rows the list shows without a name ('' and ' ' to the sandbox, first when
    ascending); the count names every row that may tie (was: paged)."""
    sb = fresh(80, 4)
    past = [r.id for r in sb.directory.records("past")]
    family = ["Twin", "twin", "TWIN", "Twín", "Tw-in", "Twin"]
    names = [*family, "", " ", "", " "]
    for i, ico in enumerate(past):
        sb.update_ico(ico, name=names[i] if i < len(names) else f"Proj{i:03d}")
    icoframes.load_icos(status="past", progress=False)
    icoframes.load_filters()
    icoframes.load_list(status="past", sort_desc="name", progress=False)
    sb.stats.reset()
    got = icoframes.load_list(status="past", sort_desc="name", ico_score=1, progress=False)
    twins, nameless = int(got["name"].isin(family).sum()), int(got["name"].isna().sum())
    service = assert_answered_as_the_service(sb, got, "name", {**PAST, "sort_desc": "name"},
                                             may_tie=twins + nameless, sort_desc="name",
                                             ico_score=1)
    assert nameless > 1 and got["name"].iloc[-nameless:].isna().all()  # last, as listed
    assert twins > 2 and got["id"].tolist() != service  # the premises
    assert (f"the cached list's order among the {twins + nameless} rows that tie on name (2 "
            "group(s) of names equal under a collation the spec leaves open") in \
        got.attrs["icoframes"]["queries"][0]["order_unstated"]
    offline = icoframes.load_list(status="past", sort_desc="name", ico_score=1, progress=False,
                                  offline=True)
    assert offline["id"].tolist() == got["id"].tolist() and spent(sb) == NOTHING


def test_a_local_sort_keeps_the_cached_order_among_equal_dates_and_pages_a_missing_one(fresh):
    """Sorted locally from the unsorted list (the sandbox's newest first): ICOs ending at the
    same time keep that order, said (the sandbox orders them otherwise); a category with
    an ICO without an end date is paged, saying why (where the service puts it is not
    stated: an order among distinct values, not a tie)."""
    sb = fresh(300, 3)
    t0 = dt.datetime(2018, 3, 1, 12, 0)
    records = sb.directory.records("past")
    for i, record in enumerate(records):
        if record.end is not None:  # those without one stay so
            sb.update_ico(record.id, end=t0 + dt.timedelta(days=i // 3))
    icoframes.load_icos(status="past", progress=False)
    filters = icoframes.load_filters().query("filter == 'category'")
    undated = {sb.directory.record(r.id).category_id for r in records if r.end is None}
    sb.stats.reset()
    answered = declined = other_order = 0
    for category, category_id in zip(filters["name"], filters["id"].astype(int), strict=True):
        for sort in ({"sort_asc": "end_datetime"}, {"sort_desc": "end_datetime"}):
            if (declined if category_id in undated else answered) >= 4:
                continue  # enough of either
            got = icoframes.load_list(status="past", category=category, progress=False, **sort)
            (query,) = got.attrs["icoframes"]["queries"]
            if category_id in undated:
                declined += 1
                assert query["answered_from"] is None and spent(sb)["icos"] > 0
                assert spent(sb)["ico"] == 0  # list pages only
                assert ("the cached list {'status': 'past'}: end_datetime: a row without it "
                        "(where the service puts it is not stated)") in query["cache_declined"]
                assert got["id"].tolist() == listed_by_service(sb, category=category, **sort)
                sb.stats.reset()
                continue
            answered += 1
            service = assert_answered_as_the_service(sb, got, "end_datetime", PAST,
                                                     category=category, **sort)
            other_order += got["id"].tolist() != service  # the cached order among ties
    assert answered and declined and other_order


def test_a_local_name_sort_keeps_the_cached_order_among_equal_names_only(fresh):
    """Identical names tie under every collation: sorted locally, in the cached list's order,
    said; names equal under one collation only ('Twin', 'twin') are an order the collation
    decides: paged, saying why."""
    sb = fresh(80, 4)
    past = [r.id for r in sb.directory.records("past")]
    for i, ico in enumerate(past):
        sb.update_ico(ico, name="Twin" if i < 3 else f"Proj{i:03d}")
    icoframes.load_icos(status="past", progress=False)
    icoframes.load_filters()
    sb.stats.reset()
    for sort in ({"sort_asc": "name"}, {"sort_desc": "name"}):
        offline = icoframes.load_list(status="past", progress=False, offline=True, **sort)
        service = assert_answered_as_the_service(sb, offline, "name", PAST, **sort)
        got = icoframes.load_list(status="past", progress=False, **sort)
        assert_answered_as_the_service(sb, got, "name", PAST, **sort)
        assert got["id"].tolist() == offline["id"].tolist()
        # the sandbox's ties by id in the sort's direction, the cached list's newest first
        assert (got["id"].tolist() != service) == ("sort_asc" in sort)
        assert ("the cached list's order among the 3 rows that tie on name (1 group(s) of the "
                "same one)") in got.attrs["icoframes"]["queries"][0]["order_unstated"]
    sb.update_ico(past[0], name="twin")
    icoframes.load_icos(status="past", progress=False, refresh=True)
    sb.stats.reset()
    got = icoframes.load_list(status="past", sort_asc="name", progress=False)
    (query,) = got.attrs["icoframes"]["queries"]
    assert query["answered_from"] is None and spent(sb)["icos"] > 0 and spent(sb)["ico"] == 0
    assert any("the service's collation is not stated" in r for r in query["cache_declined"])
    assert got["id"].tolist() == listed_by_service(sb, sort_asc="name")


def test_a_date_changed_since_the_list_sorted_by_it_was_paged_is_not_answered_from_it(fresh):
    """The list sorted by end date is older than a copy showing a new end date (a load of
    one category refetched its profiles): its order is no longer the service's, and the
    query is paged (was: answered in the list's order, the changed ICO first, not last)."""
    sb = fresh(150, 6)
    for i, record in enumerate(sb.directory.records("past")):  # every one dated, none tie
        sb.update_ico(record.id, end=dt.datetime(2018, 3, 1) + dt.timedelta(days=i))
    by_end = icoframes.load_icos(status="past", sort_asc="end_datetime", progress=False)
    icoframes.load_filters()
    dated = by_end.dropna(subset=["end_datetime", "ico_score"])
    first, category = int(dated["id"].iloc[0]), dated["category"].iloc[0]
    score = int(dated["ico_score"].iloc[0])  # a filter the category's list does not imply
    sb.update_ico(first, end=dt.datetime(2030, 1, 1))  # now the last of the dated ones
    icoframes.load_icos(status="past", category=category, refresh="all", progress=False)
    sb.stats.reset()
    got = icoframes.load_list(status="past", sort_asc="end_datetime", ico_score=score,
                              progress=False)
    (query,) = got.attrs["icoframes"]["queries"]
    assert query["answered_from"] is None and spent(sb)["icos"] > 0 and first in set(got["id"])
    assert ("the cached list {'sort_asc': 'end_datetime', 'status': 'past'}: end_datetime: the "
            "copies' dates are not in the cached list's order (one changed since it was "
            "paged)") in query["cache_declined"], query["cache_declined"]
    assert got["id"].tolist() == listed_by_service(sb, sort_asc="end_datetime", ico_score=score)

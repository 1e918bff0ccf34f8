"""Loaders answer narrower queries from a cached superset: 0 requests, the rows and order the
sandbox lists for the same query (over loopback), and a report naming the list that answered.
"""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.errors import NotCached
from icoframes.fetch.localquery import ORDER_UNSTATED
from icoframes.queries import build_queries

NOTHING = {"filters": 0, "icos": 0, "ico": 0}
PAST = {"status": "past"}


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=300, seed=3) as server:
        yield server


@pytest.fixture
def superset(cfg):
    """The sandbox's past ICOs loaded once (the superset), counters reset."""
    icoframes.load_icos(status="past", progress=False)
    icoframes.load_filters()
    cfg.stats.reset()
    return cfg


def spent(sb) -> dict[str, int]:
    return {k: sb.stats.requests.get(k, 0) for k in ("filters", "icos", "ico")}


def listed_by_service(sb, status: str = "past", **filters) -> list[int]:
    """The ids the sandbox lists for the query, in its order, paged over loopback."""
    (wire,) = build_queries(status, filters, icoframes.load_filters)
    ids: list[int] = []
    with sb.client() as client:
        page = 1
        while True:
            data = client.list_page(page, **wire)
            ids += [int(item["id"]) for item in data["data"]]
            if page >= int(data["total_pages"]):
                return ids
            page += 1


# (unsorted: the sandbox lists them newest first, as the cached superset, so its order is
# the service's here; order_unstated still says it need not be)
ANSWERED = [{"category": "Finance"}, {"investor_kyc": True},
            {"ico_score": 4, "type": ["IEO", "STO"]}, {"category": "Finance", "sort_desc": "id"},
            {"type": ["IEO", "STO"], "sort_asc": "id"},
            {"location": ["UK", "Unknown"], "sort_desc": "id"}, {"ico_score": 4, "sort_asc": "id"},
            {"investor_kyc": True, "ico_score": 3, "sort_desc": "id"},
            {"airdrop_program": True, "sort_asc": "id"},
            {"accepted_currencies": "eth", "sort_desc": "id"}, {"sort_asc": "id"},
            {"category": "Platform", "sort_desc": "id"}]


@pytest.mark.parametrize("filters", ANSWERED, ids=str)
def test_a_narrower_query_costs_nothing_and_lists_what_the_service_lists(superset, filters):
    icos = icoframes.load_icos(status="past", progress=False, **filters)
    assert spent(superset) == NOTHING
    (query,) = icos.attrs["icoframes"]["queries"]
    assert query["from_cache"] and query["answered_from"] == PAST and query["complete"]
    assert not query["count_contradicts"] and query["total_icos"] == len(icos)
    assert not icoframes.report(icos).queries[0].count_contradicts
    assert icos.attrs["icoframes"]["requests"] == NOTHING
    offline = icoframes.load_icos(status="past", progress=False, offline=True, **filters)
    assert offline["id"].tolist() == icos["id"].tolist()
    assert icos["id"].tolist() == listed_by_service(superset, **filters)


def test_load_list_and_load_tables_answer_from_the_superset_too(superset):
    listing = icoframes.load_list(status="past", progress=False, category="Finance",
                                  sort_desc="id")
    tables = icoframes.load_tables(status="past", progress=False, category="Finance",
                                   sort_desc="id")
    assert spent(superset) == NOTHING
    assert tables.icos["id"].tolist() == listing["id"].tolist()
    assert listing.attrs["icoframes"]["queries"][0]["answered_from"] == PAST
    assert set(tables.team["ico_id"]) <= set(tables.icos["id"]) and len(tables.team)


@pytest.mark.parametrize(("filters", "why"), [
    ({"exclude_areas": "USA"}, "'restricted in or tied to'"),
    ({"platform": "Ethereum"}, "platform: the profile names a value"),
    ({"sort_asc": "name"}, "the service's collation is not stated"),
], ids=str)
def test_what_the_stored_fields_cannot_decide_is_paged_and_says_why(superset, filters, why):
    with pytest.raises(NotCached):  # offline, with only the superset cached
        icoframes.load_icos(status="past", progress=False, offline=True, **filters)
    icos = icoframes.load_icos(status="past", progress=False, **filters)
    assert spent(superset)["ico"] == 0 and spent(superset)["icos"] > 0  # the list, no profile
    (query,) = icos.attrs["icoframes"]["queries"]
    assert not query["from_cache"] and query["answered_from"] is None
    assert any(why in reason for reason in query["cache_declined"]), query["cache_declined"]
    assert icos["id"].tolist() == listed_by_service(superset, **filters)


def test_an_unsorted_query_is_answered_online_and_offline_saying_its_order(superset):
    """Spec 4.2 states no default order: an unsorted narrower query of more than one row
    is answered from the cache with the service's rows in the cached list's order, online
    and offline alike, and its report says so."""
    offline = icoframes.load_icos(status="past", progress=False, offline=True,
                                  category="Finance")
    assert spent(superset) == NOTHING
    (query,) = offline.attrs["icoframes"]["queries"]
    assert query["answered_from"] == PAST and query["from_cache"] and query["complete"]
    assert "the service's default order is not stated" in query["order_unstated"]
    assert "the service's default order" in icoframes.report(offline).queries[0].order_unstated
    superset_order = icoframes.load_icos(status="past", progress=False, offline=True)["id"]
    assert offline["id"].tolist() == [i for i in superset_order if i in set(offline["id"])]
    assert len(offline) > 1
    online = icoframes.load_icos(status="past", progress=False, category="Finance")
    assert spent(superset) == NOTHING
    (query,) = online.attrs["icoframes"]["queries"]
    assert query["answered_from"] == PAST and query["order_unstated"] == ORDER_UNSTATED
    assert online["id"].tolist() == offline["id"].tolist()
    assert sorted(online["id"]) == sorted(listed_by_service(superset, category="Finance"))


def test_a_sorted_answer_from_the_cache_says_no_unstated_order(superset):
    icos = icoframes.load_icos(status="past", progress=False, offline=True,
                               category="Finance", sort_desc="id")
    assert "order_unstated" not in icos.attrs["icoframes"]["queries"][0]
    assert icoframes.report(icos).queries[0].order_unstated is None


def test_a_list_sorted_as_the_query_answers_it_in_its_own_order(superset):
    icoframes.load_icos(status="past", progress=False, sort_desc="name")
    superset.stats.reset()
    icos = icoframes.load_icos(status="past", progress=False, sort_desc="name", ico_score=3)
    assert spent(superset) == NOTHING
    assert icos.attrs["icoframes"]["queries"][0]["answered_from"] == {**PAST,
                                                                      "sort_desc": "name"}
    assert icos["id"].tolist() == listed_by_service(superset, sort_desc="name", ico_score=3)


def test_refresh_and_an_old_superset_page_the_narrower_list(superset):
    icos = icoframes.load_icos(status="past", progress=False, refresh=True, category="Finance")
    assert spent(superset)["icos"] > 0
    assert icos.attrs["icoframes"]["queries"][0]["answered_from"] is None
    superset.stats.reset()
    with time_machine.travel(dt.datetime.now(dt.UTC) + dt.timedelta(days=2)):
        aged = icoframes.load_icos(status="past", progress=False, type="IEO")
        assert spent(superset)["icos"] > 0  # the superset is older than max_age
        assert aged.attrs["icoframes"]["queries"][0]["answered_from"] is None
        superset.stats.reset()
        offline = icoframes.load_icos(status="past", progress=False, offline=True,
                                      location="UK", sort_asc="id")
        assert spent(superset) == NOTHING  # offline: whatever its age
        assert offline.attrs["icoframes"]["queries"][0]["answered_from"] == PAST

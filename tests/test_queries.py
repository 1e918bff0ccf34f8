"""Filters checked before any list or profile request: names against the filter set, currencies
by shape, statuses and keywords with a suggestion. End to end against the sandbox over loopback.
"""

from __future__ import annotations

import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter, NotCached
from icoframes.loaders import LoaderCall
from icoframes.queries import build_queries

NOTHING = {"filters": 0, "icos": 0, "ico": 0}


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=200, seed=5) as server:
        yield server


def spent(sb) -> dict[str, int]:
    return {k: sb.stats.requests.get(k, 0) for k in ("filters", "icos", "ico")}


def cache_the_filter_set(sb) -> None:
    icoframes.load_filters()
    sb.stats.reset()


def ids_where(sb, keep) -> set[int]:
    return {r.id for r in sb.directory.records() if keep(r)}


# --- typos: a suggestion, and nothing spent -------------------------------------------------

TYPOS = [
    ({"location": "Singapur"}, "unknown location 'Singapur'; did you mean 'Singapore'?"),
    ({"location": ["USA", "switerland"]}, "unknown location 'switerland'; did you mean "
                                          "'Switzerland'?"),
    ({"exclude_areas": "Chna"}, "unknown exclude_areas 'Chna'; did you mean 'China'?"),
    ({"exclude_areas": "Atlantis"}, "unknown exclude_areas 'Atlantis' (see the location rows "
                                    "of icoframes.load_filters())"),
    ({"status": "pst"}, "did you mean 'past'?"),
    ({"locaton": "Singapore"}, "locaton is not a list parameter of spec 4.2; did you mean "
                               "'location'?"),
]


@pytest.mark.parametrize(("filters", "message"), TYPOS, ids=lambda v: str(v))
def test_a_typo_raises_with_a_suggestion_and_spends_nothing(cfg, filters, message):
    cache_the_filter_set(cfg)
    with pytest.raises(InvalidParameter) as info:
        icoframes.load_icos(progress=False, **filters)
    assert message in str(info.value)
    assert "accepted_currencies" not in str(info.value)  # never a list of all 16 parameters
    assert spent(cfg) == NOTHING


def test_with_the_filter_set_not_cached_a_place_typo_costs_the_filter_set_only(cfg):
    call = LoaderCall()
    with pytest.raises(InvalidParameter, match="did you mean 'Singapore'"):
        call.tables(None, {"location": "singapur"}, refresh=False, max_age=None,
                    only_icos=True)
    assert call.requests_spent() == {"filters": 1, "icos": 0, "ico": 0}
    assert spent(cfg) == {"filters": 1, "icos": 0, "ico": 0}
    with pytest.raises(InvalidParameter, match="did you mean 'Singapore'"):
        icoframes.load_list(exclude_areas=["usa", "Singapure"], progress=False)
    assert spent(cfg) == {"filters": 1, "icos": 0, "ico": 0}  # the filter set is cached now


def test_keyword_and_status_typos_do_not_fetch_the_filter_set(cfg):
    for filters in ({"location": "Singapore", "staus": "past"},
                    {"location": "Singapore", "status": "pased"},
                    {"exclude_areas": "USA", "accepted_currencies": "Ether Classic"}):
        with pytest.raises(InvalidParameter):
            icoframes.load_icos(progress=False, **filters)
    assert spent(cfg) == NOTHING


def test_offline_without_a_cached_filter_set_says_the_check_needs_it(cfg):
    with pytest.raises(NotCached, match=r"checking location='Singapore' needs the filter set: "
                                        r"offline=True"):
        icoframes.load_icos(location="Singapore", offline=True)
    assert spent(cfg) == NOTHING
    cache_the_filter_set(cfg)
    with pytest.raises(InvalidParameter, match="did you mean 'Singapore'"):
        icoframes.load_icos(location="Singapur", offline=True)  # the cached copy checks it
    assert spent(cfg) == NOTHING


# --- places in any case, sent in the filter set's spelling ------------------------------------

def test_a_location_in_any_case_returns_the_rows_of_its_canonical_spelling(cfg):
    canonical = icoframes.load_icos(status="past", location="Singapore", progress=False)
    expected = ids_where(cfg, lambda r: r.status == "past" and r.location == "Singapore")
    assert expected and set(canonical["id"]) == expected
    before = spent(cfg)
    for spelling in ("singapore", " SINGAPORE ", ["Singapore", "singapore"]):
        again = icoframes.load_icos(status="Past", location=spelling, progress=False)
        pd.testing.assert_frame_equal(canonical, again)
    assert spent(cfg) == before  # one cache entry: the same query on the wire


def test_exclude_areas_in_any_case_excludes_located_and_restricted_icos(cfg):
    everything = icoframes.load_tables(status="past", progress=False)
    kept = icoframes.load_tables(status="past", exclude_areas="usa", progress=False)
    expected = ids_where(cfg, lambda r: r.status == "past" and r.location != "USA"
                         and "USA" not in r.restricted)
    assert set(kept.icos["id"]) == expected
    assert 0 < len(kept.icos) < len(everything.icos)
    # what the loaded profiles say agrees: none is in or restricted in the USA
    assert not (kept.icos["location"] == "USA").any()
    assert "USA" not in set(kept.restricted_areas["value"])
    restricted = everything.restricted_areas
    in_usa = set(restricted.loc[restricted["value"] == "USA", "ico_id"])
    in_usa |= set(everything.icos.loc[everything.icos["location"] == "USA", "id"])
    assert in_usa and set(kept.icos["id"]) == set(everything.icos["id"]) - in_usa


def test_an_area_only_ever_restricted_is_a_known_place_and_excludes(cfg):
    # Iran is no ICO's location, but profiles restrict it: the filter set lists it
    filters = icoframes.load_filters()
    places = set(filters.loc[filters["filter"] == "location", "name"])
    restricted = {a for r in cfg.directory.records() for a in r.restricted}
    assert restricted <= places and "Iran" in restricted
    listing = icoframes.load_list(exclude_areas="iran", progress=False)
    expected = ids_where(cfg, lambda r: "Iran" not in r.restricted and r.location != "Iran")
    assert set(listing["id"]) == expected and len(expected) < len(cfg.directory.records())


# --- currencies by shape ----------------------------------------------------------------------

@pytest.mark.parametrize("currency", ["Ether Classic", "E-T-H", "E", "ETHEREUMCLASSIC", "Ξ"])
def test_a_currency_that_is_not_a_ticker_is_refused_by_name(cfg, currency):
    with pytest.raises(InvalidParameter, match=f"{currency!r} is not one"):
        icoframes.load_list(accepted_currencies=["BTC", currency], progress=False)
    assert spent(cfg) == NOTHING


def test_an_empty_currency_is_refused(cfg):
    with pytest.raises(InvalidParameter, match=r"accepted_currencies=''"):
        icoframes.load_list(accepted_currencies="", progress=False)
    assert spent(cfg) == NOTHING


def test_tickers_in_any_case_are_one_query_and_need_no_filter_set(cfg):
    upper = icoframes.load_list(status="past", accepted_currencies=["LTC", "FIAT"],
                                progress=False)
    expected = ids_where(cfg, lambda r: r.status == "past"
                         and {"LTC", "FIAT"} & {t.upper() for t in r.accepting})
    assert expected and set(upper["id"]) == expected
    assert spent(cfg)["filters"] == 0
    before = spent(cfg)
    mixed = icoframes.load_list(status="past", accepted_currencies=[" fiat", "ltc", "Ltc"],
                                progress=False)
    pd.testing.assert_frame_equal(upper, mixed)
    assert spent(cfg) == before


# --- build_queries on its own -----------------------------------------------------------------

PLACES = pd.DataFrame({"filter": ["platform", "platform", "location", "location"],
                       "id": pd.array([None, 1, None, None], dtype="Int64"),
                       "name": ["Waves", "Ethereum", "Côte d'Ivoire", "USA"]})


def test_the_filter_set_is_read_once_and_only_for_names_or_places():
    reads = []

    def filter_set() -> pd.DataFrame:
        reads.append(1)
        return PLACES

    assert build_queries("past", {"platform": [1, "2"], "ico_score": 3}, filter_set) == [
        {"platform": [1, 2], "ico_score": 3, "status": "past"}]
    assert reads == []
    queries = build_queries(None, {"platform": "ethereum", "location": "CÔTE D'IVOIRE",
                                   "exclude_areas": ["usa"]}, filter_set)
    assert reads == [1]
    assert [q["status"] for q in queries] == ["ongoing", "upcoming", "past"]
    assert {(tuple(q["platform"]), tuple(q["location"]), tuple(q["exclude_areas"]))
            for q in queries} == {((1,), ("Côte d'Ivoire",), ("USA",))}
    # a name whose id the filter set lost is unknown, not a crash
    with pytest.raises(InvalidParameter, match="unknown platform name 'Waves'"):
        build_queries(None, {"platform": "Waves"}, filter_set)

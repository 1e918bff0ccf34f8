"""Filters checked before any list or profile request: names against the filter set, currencies
by shape, statuses and keywords with a suggestion. End to end against the sandbox over loopback.
"""

from __future__ import annotations

import datetime as dt
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes import sandbox
from icoframes.errors import InvalidParameter, NoMatchWarning, NotCached
from icoframes.fetch import Load
from icoframes.queries import build_queries
from icoframes.schema import TABLES, empty_frame

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
    call = Load()
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

@pytest.mark.parametrize("currency", ["Ether Classic", "E-T-H", "E", "ETHEREUMCLASSIC"])
def test_a_currency_that_is_not_a_ticker_is_refused_by_name(cfg, currency):
    with pytest.raises(InvalidParameter, match=f"{currency!r} is not one"):
        icoframes.load_list(accepted_currencies=["BTC", currency], progress=False)
    assert spent(cfg) == NOTHING


def accepting(sb, *tickers: str, status: str | None = None) -> set[int]:
    return ids_where(sb, lambda r: (status is None or r.status == status)
                     and set(tickers) & {t.upper() for t in r.accepting})


@pytest.mark.parametrize("names", ["Ether", " ether ", "Ξ", ["ethereum", "ETH"]])
def test_a_currency_name_is_sent_as_its_ticker(cfg, names):
    listing = icoframes.load_list(status="past", accepted_currencies=names, progress=False)
    expected = accepting(cfg, "ETH", status="past")
    assert expected and set(listing["id"]) == expected  # was 0 rows: ETHER was sent
    assert listing.attrs["icoframes"]["queries"][0]["params"]["accepted_currencies"] == ["ETH"]


def test_a_ticker_and_a_currency_name_are_both_matched(cfg):
    both = icoframes.load_list(accepted_currencies=["ETH", "Bitcoin"], progress=False)
    expected = accepting(cfg, "ETH", "BTC")
    assert set(both["id"]) == expected  # was the ETH rows only: BITCOIN matched nothing
    assert len(expected) > len(accepting(cfg, "ETH"))
    assert spent(cfg)["filters"] == 0  # currencies need no filter set


@pytest.mark.parametrize(("currency", "message"), [
    ("Etherium", "'Etherium' is not one; did you mean 'ETH'?"),
    ("bitcoinn", "'bitcoinn' is not one; did you mean 'BTC'?"),
    ("Bit coin", "'Bit coin' is not one; did you mean 'BTC'?"),
    ("Tether USD", "'Tether USD' is not one"),
])
def test_a_misspelled_currency_name_is_refused_with_its_ticker(cfg, currency, message):
    with pytest.raises(InvalidParameter) as info:
        icoframes.load_icos(accepted_currencies=["LTC", currency], progress=False)
    assert str(info.value).endswith(message)
    assert spent(cfg) == NOTHING


@pytest.mark.parametrize(("value", "said"), [
    ("None", "'None' is no currency; did you mean None (no filter on currencies)?"),
    (" none ", "' none ' is no currency; did you mean None (no filter on currencies)?"),
    (["ETH", "NONE"], "'NONE' is no currency; leave it out"),
    # str(NaN) of a pandas-read config, JSON's null, JavaScript's undefined: were sent as the
    # tickers NAN, NULL, UNDEFINED (0 rows, silently)
    ("null", "'null' is no currency; did you mean None (no filter on currencies)?"),
    ("NULL", "'NULL' is no currency; did you mean None (no filter on currencies)?"),
    (str(float("nan")), "'nan' is no currency; did you mean None (no filter on currencies)?"),
    (" NaN ", "' NaN ' is no currency; did you mean None (no filter on currencies)?"),
    ("undefined", "'undefined' is no currency; did you mean None (no filter on currencies)?"),
    (["BTC", "nan"], "'nan' is no currency; leave it out"),
    # str(NaT) and Ruby's nil, any case: were sent as the tickers NAT, NIL (0 rows, complete)
    ("nil", "'nil' is no currency; did you mean None (no filter on currencies)?"),
    (" NIL", "' NIL' is no currency; did you mean None (no filter on currencies)?"),
    (str(pd.NaT), "'NaT' is no currency; did you mean None (no filter on currencies)?"),
    ("nat", "'nat' is no currency; did you mean None (no filter on currencies)?"),
    (["ETH", "NaT"], "'NaT' is no currency; leave it out")])
def test_the_text_none_is_refused_not_sent_as_a_ticker(cfg, value, said):
    # was sent as the ticker NONE: every ICO's list filtered to none (or the service's guess)
    with pytest.raises(InvalidParameter) as info:
        icoframes.load_list(status="past", accepted_currencies=value, progress=False)
    assert str(info.value) == (f"invalid list parameter accepted_currencies={value!r}: {said}")
    assert spent(cfg) == NOTHING
    assert len(icoframes.load_list(status="past", accepted_currencies=None, progress=False))


# --- yes-flags: True only ----------------------------------------------------------------------

@pytest.mark.parametrize("flag", ["airdrop_program", "bounty_program", "investor_kyc",
                                  "investor_wl", "ico_kyc_passed"])
def test_a_yes_flag_set_to_false_is_refused_before_any_request(cfg, flag):
    with pytest.raises(InvalidParameter, match=rf"{flag}=False: takes True only: the "
                                               r"service selects the ICOs .*, never those "
                                               rf"without; to get those, load without {flag} "
                                               r"and filter the frame instead"):
        icoframes.load_icos(status="past", progress=False, **{flag: False})
    assert spent(cfg) == NOTHING  # was: every past ICO, the flag silently dropped


def test_a_yes_flag_set_to_true_selects_the_icos_with_it(cfg):
    listing = icoframes.load_list(status="past", airdrop_program=True, progress=False)
    expected = ids_where(cfg, lambda r: r.status == "past" and r.airdrop)
    assert expected and set(listing["id"]) == expected


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


# --- ids against the filter set, other names of a value, loader keywords ------------------------

@pytest.mark.parametrize(("filters", "message"), [
    ({"platform": 999}, "unknown platform id 999: the platform rows of "
                        "icoframes.load_filters() list ids 1 to 17, 17 in all"),
    ({"category": [1, 99]}, "unknown category id 99"),
    ({"type": "77"}, "unknown type id '77'"),
    ({"platform": [np.int64(1), np.int64(999)]}, "unknown platform id 999"),
])
def test_an_unknown_id_is_refused_before_any_request(cfg, filters, message):
    cache_the_filter_set(cfg)
    with pytest.raises(InvalidParameter) as info:
        icoframes.load_icos(progress=False, **filters)
    assert message in str(info.value)
    assert spent(cfg) == NOTHING  # was: sent, 3 list requests, 0 rows without a word


def test_checking_ids_costs_the_filter_set_once_and_known_ids_load(cfg):
    with pytest.raises(InvalidParameter, match="unknown platform id 999"):
        icoframes.load_list(platform=999, progress=False)
    assert spent(cfg) == {"filters": 1, "icos": 0, "ico": 0}
    listing = icoframes.load_list(status="past", platform=[2, "3"], progress=False)
    expected = ids_where(cfg, lambda r: r.status == "past" and r.platform_id in (2, 3))
    assert expected and set(listing["id"]) == expected
    assert spent(cfg)["filters"] == 1  # the cached filter set checked them


@pytest.mark.parametrize(("filters", "message"), [
    ({"platform": "ERC20"}, "unknown platform name 'ERC20'; did you mean 'Ethereum'?"),
    ({"platform": ["Waves", "bep-20"]}, "unknown platform name 'bep-20'; did you mean "
                                        "'Binance Smart Chain'?"),
    ({"location": "United Kingdom"}, "unknown location 'United Kingdom'; did you mean 'UK'?"),
    ({"exclude_areas": ["Iran", "united states"]}, "unknown exclude_areas 'united states'; "
                                                   "did you mean 'USA'?"),
    ({"location": "Ivory Coast"}, "unknown location 'Ivory Coast'; did you mean "
                                  "\"Côte d'Ivoire\"?"),
])
def test_another_name_of_a_value_suggests_the_filter_sets_spelling(cfg, filters, message):
    cache_the_filter_set(cfg)
    with pytest.raises(InvalidParameter) as info:
        icoframes.load_icos(progress=False, **filters)
    assert message in str(info.value)
    assert spent(cfg) == NOTHING


@pytest.mark.parametrize(("loader", "keyword", "suggestion"), [
    ("load_icos", "refesh", "'refresh'"),
    ("load_tables", "max_ages", "'max_age'"),
    ("load_list", "ofline", "'offline'"),
    ("load_icos", "budjet", "'budget'"),
    ("load_tables", "max_worker", "'max_workers'"),
    ("load_icos", "profile_max_ag", "'profile_max_age'"),
])
def test_a_misspelled_loader_keyword_suggests_the_keyword(cfg, loader, keyword, suggestion):
    with pytest.raises(InvalidParameter) as info:
        getattr(icoframes, loader)(progress=False, **{keyword: True})
    message = str(info.value)
    assert message == (f"{keyword} is neither a keyword of the loader nor a list "
                       f"parameter of spec 4.2; did you mean {suggestion}?")
    assert spent(cfg) == NOTHING


def test_load_list_does_not_suggest_a_keyword_it_lacks(cfg):
    # the keyword meant is named only with why load_list does not take it
    with pytest.raises(InvalidParameter) as info:
        icoframes.load_list(budjet=3, progress=False)
    assert str(info.value) == ("budjet: did you mean 'budget'? load_list fetches no profiles: "
                               "budget is a keyword of load_icos, load_tables and export_tables")
    assert spent(cfg) == NOTHING


# --- a query matching nothing ------------------------------------------------------------------

def test_a_query_matching_nothing_returns_the_typed_empty_frame_with_a_warning(cfg):
    # the filter set lists Iran (profiles restrict it), but no ICO is located there
    assert not ids_where(cfg, lambda r: r.location == "Iran")
    with pytest.warns(NoMatchWarning, match=r"no ICO matches the query \(location=\['Iran'\]; "
                                            r"status='past'\): the result is the typed empty"):
        icos = icoframes.load_icos(status="past", location="iran", progress=False)
    expected = empty_frame(TABLES["icos"])
    assert icos.empty and list(icos.columns) == list(expected.columns)
    assert icos.dtypes.to_dict() == expected.dtypes.to_dict()
    with pytest.warns(NoMatchWarning, match=r"location=\['Iran'\]; statuses \['ongoing', "
                                            r"'upcoming', 'past'\]"):
        tables = icoframes.load_tables(location="Iran", progress=False)
    assert tables.icos.empty
    cfg.stats.reset()
    with pytest.warns(NoMatchWarning, match=r"location=\['Iran'\]"):  # from the cache, too
        listing = icoframes.load_list(status="past", location="Iran", progress=False)
    assert listing.empty and spent(cfg) == NOTHING


def test_a_query_with_rows_does_not_warn(cfg):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(icoframes.load_list(status="past", location="Singapore", progress=False))


# --- sorting without a status --------------------------------------------------------------------

def test_sorting_without_a_status_sorts_the_combined_frame_locally_from_the_cache(cfg):
    everything = icoframes.load_icos(progress=False)
    cfg.stats.reset()
    by_id = icoframes.load_icos(sort_asc="id", progress=False)
    assert by_id["id"].tolist() == sorted(everything["id"])  # was three sorted blocks
    assert spent(cfg) == NOTHING  # was: every list paged again, sorted
    by_date = icoframes.load_tables(sort_desc="start_datetime", progress=False).icos
    dated = by_date["start_datetime"].notna()
    assert dated.sum() and not dated.iloc[dated.sum():].any()  # undated rows last
    assert by_date["start_datetime"][dated].is_monotonic_decreasing
    by_name = icoframes.load_list(sort_asc="name", progress=False)
    assert by_name["name"].str.casefold().is_monotonic_increasing
    assert set(by_name["status"]) == {"ongoing", "upcoming", "past"}
    assert spent(cfg) == NOTHING
    assert len(by_id) == len(by_date) == len(by_name) == len(everything)


def test_sorting_without_a_status_sorts_a_cold_load_too(cfg):
    by_name = icoframes.load_icos(sort_desc="name", progress=False)
    assert by_name["name"].str.casefold().is_monotonic_decreasing
    assert len(by_name) == len(cfg.directory.records())


def test_a_list_sorted_by_date_without_a_status_is_refused(cfg):
    with pytest.raises(InvalidParameter, match=r"sort_asc='start_datetime' without a status: "
                                               r"list summaries carry no dates"):
        icoframes.load_list(sort_asc="start_datetime", progress=False)
    assert spent(cfg) == NOTHING
    listing = icoframes.load_list(status="past", sort_asc="end_datetime", progress=False)
    assert len(listing) == len(ids_where(cfg, lambda r: r.status == "past"))


# --- one error class for bad arguments -----------------------------------------------------------

@pytest.mark.parametrize(("call", "kwargs", "message"), [
    ("load_icos", {"max_workers": 0}, "invalid max_workers=0: must be between 1 and 64"),
    ("load_list", {"max_workers": 65}, "invalid max_workers=65"),
    ("load_tables", {"refresh": "yes"}, "refresh must be False, True or 'all'"),
    ("load_icos", {"max_age": -1}, "max_age must be"),
    # seconds no timedelta holds raised a bare OverflowError; a negative timedelta re-paged
    # every call
    ("load_list", {"max_age": float("inf")}, "max_age must be a timedelta, a duration such "
                                              "as '7D' or '12h', seconds or None, got inf"),
    ("load_filters", {"max_age": float("nan")}, "max_age must be a timedelta, a duration "
                                                 "such as '7D' or '12h', seconds or None, "
                                                 "got nan"),
    ("load_icos", {"max_age": -dt.timedelta(seconds=1)}, "max_age must be a timedelta"),
    ("load_icos", {"max_age": 1e300}, "got 1e+300"),
    ("load_icos", {"profile_max_age": float("inf")}, "profile_max_age must be a timedelta, "
                                                      "a duration such as '7D' or '12h', "
                                                      "seconds, or a mapping of them by "
                                                      "status; got inf"),
    ("load_tables", {"profile_max_age": {"past": float("nan")}}, "; got nan"),
    ("export_tables", {"out": "unused", "max_age": float("inf")}, "max_age must be"),
    ("load_icos", {"budget": -1}, "budget must be"),
    ("load_icos", {"profile_max_age": {"pased": 1}}, "did you mean 'past'"),
    ("configure", {"max_workers": 0}, "invalid max_workers=0"),
    ("configure", {"timeout": -1}, "invalid timeout=-1"),
    ("configure", {"max_worker": 3}, "unknown setting 'max_worker'; did you mean 'max_workers'"),
    ("prune_cache", {"older_than": -1}, "older_than"),
    ("load_icos", {"offline": "no"}, "offline must be True or False, got 'no'"),
    ("load_list", {"progress": "yes"}, "progress must be True or False (or None"),
    ("load_filters", {"offline": 1}, "offline must be True or False, got 1"),
])
def test_every_bad_argument_raises_invalid_parameter(cfg, call, kwargs, message):
    with pytest.raises(InvalidParameter, match=re.escape(message)):
        getattr(icoframes, call)(**kwargs)
    assert spent(cfg) == NOTHING


# --- build_queries on its own -----------------------------------------------------------------

PLACES = pd.DataFrame({"filter": ["platform", "platform", "location", "location"],
                       "id": pd.array([None, 1, None, None], dtype="Int64"),
                       "name": ["Waves", "Ethereum", "Côte d'Ivoire", "USA"]})


def test_the_filter_set_is_read_once_and_only_for_ids_names_or_places():
    reads = []

    def filter_set() -> pd.DataFrame:
        reads.append(1)
        return PLACES

    assert build_queries("past", {"ico_score": 3, "accepted_currencies": "Ether"},
                         filter_set) == [{"ico_score": 3, "accepted_currencies": ["ETH"],
                                          "status": "past"}]
    assert reads == []
    assert build_queries("past", {"platform": [1, "1"]}, filter_set) == [
        {"platform": [1], "status": "past"}]
    assert reads == [1]
    with pytest.raises(InvalidParameter, match="unknown platform id '2'"):
        build_queries("past", {"platform": [1, "2"]}, filter_set)
    reads.clear()
    queries = build_queries(None, {"platform": "ethereum", "location": "CÔTE D'IVOIRE",
                                   "exclude_areas": ["usa"]}, filter_set)
    assert reads == [1]
    assert [q["status"] for q in queries] == ["ongoing", "upcoming", "past"]
    assert {(tuple(q["platform"]), tuple(q["location"]), tuple(q["exclude_areas"]))
            for q in queries} == {((1,), ("Côte d'Ivoire",), ("USA",))}
    # a name whose id the filter set lost is refused saying so, not a crash; its id is unknown
    with pytest.raises(InvalidParameter, match="'Waves' is in the filter set, but its id could "
                       "not be read"):
        build_queries(None, {"platform": "Waves"}, filter_set)


def test_offline_without_a_filter_set_ids_alone_pass_unchecked_and_names_say_why():
    def not_cached() -> pd.DataFrame:
        raise NotCached("offline=True, and no filter set is cached")

    # ids alone: the cache answers the query or raises NotCached for it
    assert build_queries("past", {"platform": 999}, not_cached) == [
        {"platform": [999], "status": "past"}]
    with pytest.raises(NotCached, match="checking platform=\\[3, 'Waves'\\] needs the filter"):
        build_queries("past", {"platform": [3, "Waves"]}, not_cached)


# --- every public function: a misspelled keyword is refused with a suggestion -----------------

@pytest.mark.parametrize(("function", "args", "keyword", "suggestion"), [
    ("load_filters", (), "refesh", "refresh"),
    ("load_list", (), "refesh", "refresh"),
    ("load_icos", (), "ofline", "offline"),
    ("load_tables", (), "max_ages", "max_age"),
    ("cache_info", (), "al", "all"),
    ("clear_cache", (), "ledger", "ledgers"),
    ("prune_cache", (3600,), "ledger", "ledgers"),
    ("export_tables", ("{out}",), "snapshott", "snapshot"),
    ("export_tables", ("{out}",), "allow_emtpy", "allow_empty"),
    ("read_export", (), "pth", "path"),
    ("read_snapshots", ("{out}",), "tabel", "table"),
    ("changes", ("{out}",), "kind", "kinds"),
    ("to_usd", ("{icos}", "{rates}"), "rate_maxage", "rate_max_age"),
    ("compute_features", ("{tables}",), "rate", "rates"),
])
def test_a_misspelled_keyword_of_any_public_function_suggests_it(cfg, tmp_path, function, args,
                                                                 keyword, suggestion):
    # load_filters(refesh=True) raised Python's bare TypeError, naming no keyword
    given = {"{out}": tmp_path / "out", "{icos}": empty_frame(TABLES["icos"]),
             "{rates}": pd.DataFrame({"date": [], "currency": [], "usd_per_unit": []}),
             "{tables}": icoframes.Tables.empty()}
    with pytest.raises(InvalidParameter, match=rf"^{keyword} is (not|neither) a keyword "
                                               rf".*did you mean '{suggestion}'\?$"):
        getattr(icoframes, function)(*(given.get(a, a) for a in args), **{keyword: True})
    assert spent(cfg) == NOTHING
    assert not (tmp_path / "out").exists()  # refused before anything was written


def test_a_keyword_nothing_is_close_to_lists_the_keywords(cfg):
    with pytest.raises(InvalidParameter, match=r"^colour is not a keyword of cache_info\(\); "
                                               r"its keywords: all, cache_dir$"):
        icoframes.cache_info(colour=3)

"""icoframes.tidy: every messy shape, exact values and dtypes, properties, and a sandbox check."""

from __future__ import annotations

import copy
import datetime as dt
import gc
import math
import re
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from messy_profiles import (
    DELETE,
    clean_profile,
    minimal_profile,
    people_profile,
    sparse_profile,
    with_,
    wrong_sections_profile,
)

from icoframes.parse.profiles import tidy
from icoframes.schema import LONG_LISTS, PROBLEMS, TABLE_NAMES, TABLES, TEXT_DTYPE
from icoframes.tables import Tables

MARKERS = ["NA", "N/A", "—", "-", "NOT SET", "Pending", "TBA", "TBD"]


def icos_value(profile: dict, column: str):
    return tidy([profile]).icos.loc[0, column]


def problems_of(tables: Tables) -> dict[tuple[str, str], int]:
    return {(r.table, r.column): r.count for r in tables.problem_summary().itertuples()}


def assert_schema(tables: Tables) -> None:
    for name, frame in tables.items():
        table = TABLES.get(name, PROBLEMS)
        assert list(frame.columns) == table.names, name
        assert dict(frame.dtypes) == table.dtypes, name
        assert isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0, name


# --------------------------------------------------------------------------- clean input


def test_clean_profile_gives_every_value_typed():
    tables = tidy([clean_profile()], statuses={101: "past"})
    assert_schema(tables)
    row = tables.icos.iloc[0].to_dict()
    assert row["id"] == 101 and row["status"] == "past"
    assert row["name"] == "Aquaibit" and row["platform"] == "Ethereum"
    assert (row["premium"], row["scam"], row["kyc"], row["whitelist"]) == (True, False, True, False)
    assert row["ico_score"] == 3.5 and row["raised"] == 12_500_000.0
    assert row["max_purchase"] == 50000.5 and row["tokens_for_sale"] == 150_000_000.0
    assert row["markets"] == ["https://ex1.example/AQB", "https://ex2.example/AQB"]
    assert row["restricted_areas"] == ["USA", "China"] and row["accepting"] == ["ETH", "BTC"]
    assert row["start_datetime"] == pd.Timestamp("2018-03-01 12:00:00")
    assert row["end_datetime"] == pd.Timestamp("2018-03-31 23:59:59")
    assert (row["tba"], row["airdrop"], row["bounty"]) == (False, True, False)
    assert tables.problems.empty
    assert tables.team[["position", "name", "role"]].values.tolist() == [
        [0, "Ann Lee", "CEO"], [1, "Bo Chen", "CTO"]]
    assert pd.isna(tables.advisors.loc[0, "photo"])  # '' photo is missing
    assert tables.social[["owner", "network"]].values.tolist() == [
        ["ico", "twitter"], ["ico", "telegram"], ["team", "linkedin"], ["team", "twitter"],
        ["team", "github"], ["advisor", "linkedin"]]
    assert tables.social["position"].tolist() == [pd.NA, pd.NA, 0, 0, 1, 0]
    assert tables.distribution["percent"].tolist() == [60.0, 25.0, 15.0]
    assert tables.bonuses["name"].tolist() == ["Early bird", "Whale"]
    assert tables.roadmap["date"].tolist() == [pd.Timestamp(d) for d in
                                               ("2018-01-01", "2018-03-01", "2018-09-15")]


def test_every_table_is_keyed_to_the_ico():
    tables = tidy([clean_profile(1), clean_profile(2)])
    for name in TABLES:  # the schema's tables, without problems
        frame = tables[name]
        if name != "icos":
            assert set(frame["ico_id"]) == {1, 2}, name


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(("raw", "expected"), [
    (12, 12.0),
    ("12", 12.0),
    (" 12.5 ", 12.5),
    ("$2,000,000", 2_000_000.0),
    ("1,500,000", 1_500_000.0),
    ("15M", 15_000_000.0),
    ("250K", 250_000.0),
    ("1.2B", 1_200_000_000.0),
    ("2000000 USD", 2_000_000.0),
    ("1.5e8", 150_000_000.0),
    (10**20, 1e20),
    ("100000000000000000000", 1e20),
])
def test_amounts_are_read_leniently(raw, expected):
    tables = tidy([with_(clean_profile(), {"finance.raised": raw,
                                           "finance.tokens_for_sale": raw})])
    assert tables.icos.loc[0, "raised"] == expected
    assert tables.icos["raised"].dtype == np.float64
    if isinstance(raw, str) and ("$" in raw or "USD" in raw):
        # US dollars are no supply of tokens (parser 19 read 2,000,000 tokens)
        assert np.isnan(tables.icos.loc[0, "tokens_for_sale"])
        assert tables.problems[["column", "value", "reason"]].values.tolist() == [
            ["tokens_for_sale", raw, "unit_conflict"]]
        return
    assert tables.icos.loc[0, "tokens_for_sale"] == expected
    assert tables.problems.empty


@pytest.mark.parametrize("marker", [*MARKERS, "", None, "  ", "tba", "n/a"])
def test_missing_markers_are_missing_and_not_problems(marker):
    profile = with_(clean_profile(), {"finance.raised": marker, "main.ico_score": marker,
                                      "main.platform": marker, "dates.start_datetime": marker})
    tables = tidy([profile])
    row = tables.icos.iloc[0]
    assert math.isnan(row["raised"]) and math.isnan(row["ico_score"])
    assert pd.isna(row["platform"]) and pd.isna(row["start_datetime"])
    assert tables.problems.empty


def test_unreadable_number_is_missing_and_counted():
    profiles = [with_(clean_profile(i), {"finance.token_price": raw}) for i, raw in
                enumerate(["1 BILL = 1 XLM", "1 ETH = 3500 AQB", "1 BILL = 1 XLM", True], start=1)]
    tables = tidy(profiles)
    assert tables.icos["token_price"].isna().all()
    problem = tables.problem_summary().set_index(["table", "column"]).loc[("icos", "token_price")]
    assert problem["count"] == 4
    assert problem["examples"] == ["1 BILL = 1 XLM", "1 ETH = 3500 AQB", "true"]
    assert tables.problems["ico_id"].tolist() == [1, 2, 3, 4]
    assert "problems: 4 unreadable values" in repr(tables)


@pytest.mark.parametrize("raw", ["60%", "60 %", "60", "60.0%", 60, 60.0, " 60% "])
def test_distribution_percent_forms(raw):
    tables = tidy([with_(clean_profile(), {"finance.distribution": {"Sale": raw}})])
    assert tables.distribution["percent"].tolist() == [60.0]
    assert tables.distribution["percent"].dtype == np.float64


def test_distribution_unreadable_percent_keeps_the_part():
    tables = tidy([with_(clean_profile(), {"finance.distribution": {"Sale": "most", "Team": ""}})])
    assert tables.distribution["part"].tolist() == ["Sale", "Team"]
    assert tables.distribution["percent"].isna().all()
    assert problems_of(tables) == {("distribution", "percent"): 1}


# --------------------------------------------------------------------------- booleans


@pytest.mark.parametrize(("raw", "expected", "problem"), [
    (True, True, False), (1, True, False), ("1", True, False), ("true", True, False),
    ("TRUE", True, False), ("yes", True, False), (" Yes ", True, False),
    (False, False, False), ("", False, False), (None, False, False), (0, False, False),
    ("false", False, False), ("no", False, False), ("TBA", False, False),
    ("maybe", False, True), (2, False, True), ({}, False, True),
])
def test_booleans_are_true_only_where_the_api_said_true(raw, expected, problem):
    tables = tidy([with_(clean_profile(), {"main.kyc": raw})])
    assert tables.icos["kyc"].dtype == np.bool_
    assert tables.icos.loc[0, "kyc"] is (np.True_ if expected else np.False_)
    assert problems_of(tables) == ({("icos", "kyc"): 1} if problem else {})


def test_missing_boolean_key_is_false():
    tables = tidy([with_(clean_profile(), {"main.mvp": DELETE, "dates.tba": DELETE})])
    assert not tables.icos.loc[0, "mvp"] and not tables.icos.loc[0, "tba"]


# --------------------------------------------------------------------------- dates


@pytest.mark.parametrize(("raw", "expected", "problem"), [
    ("01.03.2018 12:00:00", "2018-03-01 12:00:00", False),
    ("1.3.2018 1:2:3", "2018-03-01 01:02:03", False),
    (" 29.02.2020 00:00:00 ", "2020-02-29 00:00:00", False),
    ("01.03.2018", "2018-03-01", False),
    ("", None, False),
    ("TBA", None, False),
    (None, None, False),
    ("31.02.2018 00:00:00", None, True),
    ("00.00.0000 00:00:00", None, True),
    ("29.02.2019 00:00:00", None, True),
    ("01.01.2020 24:00:00", "2020-01-02 00:00:00", False),  # the end of the day
    ("soon", None, True),
    (1514764800, None, True),
])
def test_dates(raw, expected, problem):
    tables = tidy([with_(clean_profile(), {"dates.end_datetime": raw})])
    value = tables.icos.loc[0, "end_datetime"]
    assert tables.icos["end_datetime"].dtype == np.dtype("datetime64[ms]")
    if expected is None:
        assert pd.isna(value)
    else:
        assert value == pd.Timestamp(expected)
    assert problems_of(tables) == ({("icos", "end_datetime"): 1} if problem else {})


@pytest.mark.parametrize(("label", "expected"), [
    ("15-09-2018", "2018-09-15"),
    ("Q3 2018", "2018-07-01"),
    ("Q1 2019", "2019-01-01"),
    ("2019", "2019-01-01"),
    ("March 2019", "2019-03-01"),
    ("Sep 2019", "2019-09-01"),
    ("H2 2019", "2019-07-01"),
    ("2019-05-04", "2019-05-04"),
    ("31-02-2018", None),
    ("Phase 2", None),
    ("", None),
])
def test_roadmap_dates_are_best_effort(label, expected):
    tables = tidy([with_(clean_profile(), {"roadmap": {label: " Launch "}})])
    roadmap = tables.roadmap
    assert roadmap["label"].tolist() == [label]  # the key exactly as sent
    assert roadmap["description"].tolist() == ["Launch"]
    assert roadmap["date"].dtype == np.dtype("datetime64[ms]")
    if expected is None:
        assert pd.isna(roadmap.loc[0, "date"])
    else:
        assert roadmap.loc[0, "date"] == pd.Timestamp(expected)
    # the label is kept; a label naming no date is also reported (issue 20)
    expected_problems = [] if expected is not None else [label]
    assert tables.problems["value"].tolist() == expected_problems


# --------------------------------------------------------------------------- text and lists


def test_text_is_stripped_and_markers_are_missing():
    profile = with_(clean_profile(), {"main.platform": "Ethereum ", "main.category": "  ",
                                      "finance.ticker": 2018, "main.location": "Côte d'Ivoire",
                                      "main.type": "N/A", "main.name": ["Aqua"]})
    tables = tidy([profile, with_(clean_profile(2), {"main.platform": "Ethereum"})])
    icos = tables.icos
    assert icos["platform"].tolist() == ["Ethereum", "Ethereum"]
    assert icos["platform"].dtype == TEXT_DTYPE
    assert pd.isna(icos.loc[0, "category"]) and pd.isna(icos.loc[0, "type"])
    assert icos.loc[0, "ticker"] == "2018"
    assert icos.loc[0, "location"] == "Côte d'Ivoire"
    assert pd.isna(icos.loc[0, "name"])
    assert problems_of(tables) == {("icos", "name"): 1}


def test_location_unknown_is_a_value():
    assert icos_value(with_(clean_profile(), {"main.location": "Unknown"}), "location") == "Unknown"


@pytest.mark.parametrize(("raw", "expected"), [
    (["ETH", "BTC"], ["ETH", "BTC"]),
    ([" ETH ", "", "TBA"], ["ETH"]),
    ("", []),
    (None, []),
    ([], []),
    ("ETH", ["ETH"]),
    ("ETH, BTC", ["ETH", "BTC"]),  # a lone string of a list of names is split
    ({"0": "ETH", "2": "BTC"}, ["ETH", "BTC"]),
])
def test_list_columns(raw, expected):
    tables = tidy([with_(clean_profile(), {"finance.accepting": raw})])
    value = tables.icos.loc[0, "accepting"]
    assert type(value) is list and value == expected
    assert tables.problems.empty


def test_list_items_that_are_not_text_are_counted():
    tables = tidy([with_(clean_profile(), {"finance.markets": ["https://a.example", {"x": 1}, 7]})])
    assert tables.icos.loc[0, "markets"] == ["https://a.example", "7"]
    assert problems_of(tables) == {("icos", "markets"): 1}


def test_every_row_gets_its_own_list():
    tables = tidy([minimal_profile(1), minimal_profile(2)])
    first, second = tables.icos["markets"]
    first.append("x")
    assert second == []


# --------------------------------------------------------------------------- ids and statuses


def test_duplicate_ids_keep_the_last_occurrence_and_its_children():
    first = with_(clean_profile(7), {"main.name": "Old", "team": [{"name": "Old member"}]})
    other = clean_profile(8)
    last = with_(clean_profile("7"), {"main.name": "New", "team": [{"name": "New member"}]})
    tables = tidy([first, other, last])
    assert tables.icos["id"].tolist() == [8, 7]
    assert tables.icos["name"].tolist() == ["Aquaibit", "New"]
    assert tables.team.loc[tables.team["ico_id"] == 7, "name"].tolist() == ["New member"]
    assert (tables.distribution["ico_id"] == 7).sum() == 3  # not 6


@pytest.mark.parametrize("bad_id", ["abc", None, "", 1.5, True, [1], {"id": 1}, 2**64,
                                    0, -3, "0", "-3", "99999999999999999999", 2**63])
def test_profile_without_a_readable_id_is_skipped_and_counted(bad_id):
    tables = tidy([clean_profile(bad_id), clean_profile(5)])
    assert tables.icos["id"].tolist() == [5]
    assert set(tables.team["ico_id"]) == {5}
    assert problems_of(tables) == {("icos", "id"): 1}


@pytest.mark.parametrize(("raw", "expected"), [(" 42 ", 42), (42.0, 42), ("42", 42), (42, 42)])
def test_ids_from_numbers_and_numeric_strings(raw, expected):
    tables = tidy([clean_profile(raw)])
    assert tables.icos["id"].tolist() == [expected]
    assert tables.icos["id"].dtype == np.int64


def test_profiles_that_are_not_dicts_are_skipped_and_counted():
    tables = tidy([None, "profile", 42, clean_profile(3)])
    assert tables.icos["id"].tolist() == [3]
    assert problems_of(tables) == {("icos", "id"): 3}


def test_statuses_by_int_or_string_id():
    profiles = [clean_profile(1), clean_profile(2), clean_profile(3)]
    tables = tidy(profiles, statuses={1: "past", "2": " ongoing ", 99: "upcoming"})
    assert tables.icos["status"].iloc[:2].tolist() == ["past", "ongoing"]
    assert pd.isna(tables.icos.loc[2, "status"])
    assert tables.icos["status"].dtype == TEXT_DTYPE


def test_without_statuses_every_status_is_missing():
    assert tidy([clean_profile()]).icos["status"].isna().all()


# --------------------------------------------------------------------------- shapes


def test_empty_input_gives_empty_tables():
    for empty in ([], (), iter([])):
        tables = tidy(empty)
        assert_schema(tables)
        assert all(len(frame) == 0 for frame in tables.values())
        assert tables.problems.empty


def test_any_iterable_is_accepted():
    tables = tidy(clean_profile(i) for i in range(1, 4))
    assert tables.icos["id"].tolist() == [1, 2, 3]


def test_minimal_profile_is_a_row_of_missing_values():
    tables = tidy([minimal_profile(9)])
    assert_schema(tables)
    row = tables.icos.iloc[0]
    assert row["id"] == 9 and pd.isna(row["name"]) and math.isnan(row["raised"])
    assert row["markets"] == [] and not row["kyc"]
    assert all(len(frame) == 0 for name, frame in tables.items() if name != "icos")
    assert tables.problems.empty


def test_sparse_profile_with_empty_strings_everywhere():
    tables = tidy([sparse_profile(202)])
    assert_schema(tables)
    row = tables.icos.iloc[0]
    assert row["id"] == 202 and row["name"] == "Sparse" and row["tba"]
    assert row["restricted_areas"] == [] and row["accepting"] == [] and row["markets"] == []
    assert pd.isna(row["url"]) and math.isnan(row["raised"]) and pd.isna(row["start_datetime"])
    assert all(len(frame) == 0 for name, frame in tables.items() if name != "icos")
    assert tables.problems.empty  # '' and [] are how the API says "nothing"


def test_sections_of_the_wrong_shape_are_empty_and_counted():
    tables = tidy([wrong_sections_profile(303)])
    assert_schema(tables)
    assert tables.icos["id"].tolist() == [303]
    assert pd.isna(tables.icos.loc[0, "name"])
    assert problems_of(tables) == {("icos", "main"): 1, ("icos", "links"): 1,
                                   ("roadmap", "roadmap"): 1}
    # a lone person where a list was expected, and a PHP-style dict of people
    assert tables.team[["position", "name", "role"]].values.tolist() == [
        [0, "Solo Founder", "CEO"]]
    assert tables.advisors["name"].tolist() == ["Ad One", "Ad Three"]


def test_unknown_extra_keys_are_ignored():
    profile = with_(clean_profile(), {"updated_at": "2020-01-01", "main.rating_details": {"a": 1},
                                      "links.social": {"discord": "https://discord.example/x"}})
    tables = tidy([profile])
    assert tables.social["network"].tolist()[0] == "discord"
    assert "updated_at" not in tables.icos.columns
    assert tables.problems.empty


def test_people_entries_that_are_not_people_are_skipped_and_counted():
    tables = tidy([people_profile(404)])
    assert_schema(tables)
    # positions are the entries' places in the profile, so skipped ones leave gaps
    assert tables.team[["position", "name", "role"]].astype(object).where(
        tables.team[["position", "name", "role"]].notna(), None).values.tolist() == [
        [0, "Ann", "CEO"], [3, "Cy", None], [4, None, "Developer"], [5, "Di", None]]
    assert tables.advisors["name"].tolist() == ["Ed"]
    assert problems_of(tables) == {("team", "team"): 2, ("advisors", "advisors"): 1,
                                   ("social", "url"): 1, ("social", "team.social"): 1}


def test_social_links_without_url_are_not_rows():
    tables = tidy([people_profile(404)])
    social = tables.social
    assert social[["owner", "network", "url"]].values.tolist() == [
        ["ico", "twitter", "https://twitter.example/ico"],
        ["team", "twitter", "https://twitter.example/ann"],  # stripped
        ["advisor", "twitter", "https://twitter.example/ed"],
    ]
    assert social["position"].tolist() == [pd.NA, 0, 0]
    assert social["position"].dtype == pd.Int64Dtype()


def test_map_keys_are_kept_exactly_as_sent():
    profile = with_(clean_profile(), {"additional.bonuses": {" Early ": " 10% "},
                                      "links.social": {"Twitter ": "https://t.example"}})
    tables = tidy([profile])
    assert tables.bonuses[["name", "terms"]].values.tolist() == [[" Early ", "10%"]]
    assert tables.social["network"].tolist()[0] == "Twitter "


@pytest.mark.parametrize("empty", ["", [], None, {}])
def test_empty_maps_in_any_spelling(empty):
    profile = with_(clean_profile(), {"links.social": empty, "finance.distribution": empty,
                                      "additional.bonuses": empty, "roadmap": empty,
                                      "team": empty, "advisors": empty})
    tables = tidy([profile])
    # the long tables of the list columns hold the profile's markets etc., not maps
    assert all(len(frame) == 0 for name, frame in tables.items()
               if name not in ("icos", *LONG_LISTS))
    assert tables.problems.empty


def test_input_is_not_modified():
    profiles = [clean_profile(1), people_profile(2), wrong_sections_profile(3), sparse_profile(4)]
    before = copy.deepcopy(profiles)
    tidy(profiles, statuses={1: "past"})
    assert profiles == before


@pytest.mark.parametrize("enabled", [True, False])
def test_garbage_collector_state_is_restored(enabled):
    (gc.enable if enabled else gc.disable)()
    try:
        tidy([clean_profile()])
        assert gc.isenabled() is enabled
    finally:
        gc.enable()


# --------------------------------------------------------------------------- properties

_SCALARS = st.one_of(
    st.none(),
    st.just(""),
    st.booleans(),
    st.integers(min_value=-(10**25), max_value=10**25),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([
        *MARKERS, " 12 ", "1,500,000", "$2,000,000", "15M", "250K", "1.2B", "2000000 USD",
        "1.5e8", "1 BILL = 1 XLM", "60%", "60 %", "31.02.2018 00:00:00", "00.00.0000 00:00:00",
        "01.03.2018 12:00:00", "Q3 2018", "2019", "March 2019", "01-02-2018", "true", "yes",
        "0", "Ethereum ", "https://x.example",
    ]),
    st.text(max_size=6),
)
_VALUES = st.one_of(
    _SCALARS,
    st.lists(_SCALARS, max_size=3),
    st.dictionaries(st.text(max_size=3), _SCALARS, max_size=2),
)
_MAPS = st.one_of(
    st.sampled_from(["", [], None, {}]),
    st.dictionaries(st.one_of(st.text(max_size=5), st.sampled_from(["twitter", "Q3 2018"])),
                    _VALUES, max_size=3),
    _VALUES,
)
_PERSON = st.one_of(
    st.fixed_dictionaries({}, optional={"name": _VALUES, "role": _VALUES, "photo": _VALUES,
                                        "social": _MAPS, "extra": _VALUES}),
    _SCALARS,
)
_PEOPLE = st.one_of(
    st.sampled_from(["", [], None]),
    st.lists(_PERSON, max_size=3),
    st.dictionaries(st.text(max_size=2), _PERSON, max_size=2),
    _PERSON,
)
# The fields of spec 2.3, by section; map-valued fields get map-like values.
_SPEC_FIELDS = {
    "main": ["name", "description", "logo", "premium", "scam", "ico_score", "platform", "kyc",
             "whitelist", "category", "type", "mvp", "location", "kyc_passed"],
    "links": ["url", "website", "whitepaper", "video"],
    "finance": ["ticker", "tokens_for_sale", "token_price", "token_price_unit", "min_purchase",
                "max_purchase", "purchase_unit", "token_type", "soft_cap", "hard_cap",
                "caps_unit", "escrow", "markets", "restricted_areas", "accepting", "raised"],
    "dates": ["start_datetime", "end_datetime", "tba"],
    "additional": ["airdrop", "bounty"],
}
_SPEC_MAPS = {"links": "social", "finance": "distribution", "additional": "bonuses"}


def _section(name: str) -> st.SearchStrategy:
    optional = {field: _VALUES for field in _SPEC_FIELDS[name]} | {"junk": _VALUES}
    if name in _SPEC_MAPS:
        optional[_SPEC_MAPS[name]] = _MAPS
    return st.one_of(st.fixed_dictionaries({}, optional=optional), _VALUES)


_IDS = st.one_of(st.integers(0, 8), st.integers(0, 8).map(str), _SCALARS)
_PROFILE = st.one_of(
    st.fixed_dictionaries(
        {"id": _IDS},
        optional={**{name: _section(name) for name in _SPEC_FIELDS}, "roadmap": _MAPS,
                  "team": _PEOPLE, "advisors": _PEOPLE, "updated_at": _SCALARS},
    ),
    _SCALARS,
)
_STATUSES = st.one_of(st.none(), st.dictionaries(_IDS.filter(lambda v: v is not None and
                                                             not isinstance(v, float)),
                                                 st.sampled_from(["past", "ongoing", ""]),
                                                 max_size=4))


def _readable_id(value) -> int | None:
    """Independent reading of an id: int, integral float, or their decimal text."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"[+-]?\d+", text):
            value = int(text)
        else:
            try:
                value = float(text)
            except ValueError:
                return None
    if isinstance(value, float):
        value = int(value) if math.isfinite(value) and value.is_integer() else None
    if isinstance(value, int) and 0 < value < 2**63:  # ids are positive int64
        return value
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(profiles=st.lists(_PROFILE, max_size=5), statuses=_STATUSES)
def test_any_shape_gives_well_typed_related_tables(profiles, statuses):
    tables = tidy(profiles, statuses=statuses)
    assert_schema(tables)
    icos = tables.icos
    assert icos["id"].is_unique
    expected_ids = {_readable_id(p.get("id")) for p in profiles if isinstance(p, dict)} - {None}
    assert set(icos["id"]) == expected_ids
    ids = set(icos["id"])
    for name in TABLES:  # the schema's tables, without problems
        frame = tables[name]
        if name != "icos":
            assert set(frame["ico_id"]) <= ids, name
    for column in ("markets", "restricted_areas", "accepting"):
        for value in icos[column]:
            assert type(value) is list and all(type(s) is str and s for s in value)
    for column in [c.name for c in TABLES["icos"].columns if c.kind == "text"]:
        texts = icos[column].dropna()
        assert (texts == texts.str.strip()).all() and (texts != "").all()
    assert tables.social["url"].notna().all()
    assert (tables.team["position"] >= 0).all() and (tables.advisors["position"] >= 0).all()
    problems = tables.problem_summary()
    assert (problems["count"] > 0).all()
    assert not problems.duplicated(["table", "column"]).any()
    assert set(problems["table"]) <= set(TABLE_NAMES)
    # every problem of a profile with a readable id names it
    named = tables.problems[tables.problems["column"] != "id"]
    assert named["ico_id"].notna().all() and set(named["ico_id"]) <= ids


@settings(max_examples=40, deadline=None)
@given(profiles=st.lists(_PROFILE, max_size=5))
def test_tidy_is_deterministic(profiles):
    first, again = tidy(profiles), tidy(copy.deepcopy(profiles))
    for (name, frame), (_, other) in zip(first.items(), again.items(), strict=True):
        pd.testing.assert_frame_equal(frame, other, obj=name)
    pd.testing.assert_frame_equal(first.problems, again.problems)


# --------------------------------------------------------------------------- sandbox data

_MISSING = {"", "NA", "N/A", "—", "–", "-", "NOT SET", "PENDING", "TBA", "TBD", "NAN", "NONE",
            "NULL"}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]


def _ref_text(value):
    if isinstance(value, str):
        value = value.strip()
        return None if value.upper() in _MISSING else value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    assert value is None, f"no text expected from {value!r}"
    return None


def _ref_number(value, percent=False):
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    text = value.strip()
    if text.upper() in _MISSING:
        return None
    if percent:
        text = text.rstrip("%").strip()
    exponent = 0
    text = text.replace("$", "").replace(",", "")
    if text.endswith(" USD"):
        text = text[:-4]
    if text[-1:] in ("K", "M", "B"):
        exponent = {"K": 3, "M": 6, "B": 9}[text[-1]]
        text = text[:-1]
    try:
        number = float(text)
    except ValueError:
        return None
    # "8.3M" is exactly 8.3e6 (parser 26; 8.3 * 1e6 is 8300000.000000001)
    return float(Decimal(text.strip()).scaleb(exponent)) if exponent else number


_REF_EXCHANGE = re.compile(r"1 ([A-Z]+) = (\d+) [A-Z]+")


def _ref_price(value, unit):
    """token_price: ``'1 ETH = 3500 MTL'`` is 1/3500 when the unit is that currency."""
    match = _REF_EXCHANGE.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is None:
        return _ref_number(value)
    return 1 / float(match[2]) if match[1] == unit else None


def _ref_flag(value):
    return value is True or value == 1 or (isinstance(value, str) and
                                           value.strip().lower() in ("1", "true", "yes"))


def _ref_when(value):
    if not isinstance(value, str) or value.strip().upper() in _MISSING:
        return None
    try:
        return dt.datetime.strptime(value.strip(), "%d.%m.%Y %H:%M:%S")
    except ValueError:
        return None


def _ref_list(value):
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    return [t for t in (_ref_text(v) for v in value) if t is not None]


def _ref_label_date(label):
    """(date, precision) of the roadmap keys the sandbox writes."""
    try:
        return dt.datetime.strptime(label, "%d-%m-%Y"), "day"
    except ValueError:
        pass
    words = label.split()
    if len(words) == 2 and words[0][:1] == "Q" and words[1].isdigit():
        return dt.datetime(int(words[1]), 3 * int(words[0][1:]) - 2, 1), "quarter"
    if len(words) == 2 and words[0].lower() in _MONTHS and words[1].isdigit():
        return dt.datetime(int(words[1]), _MONTHS.index(words[0].lower()) + 1, 1), "month"
    if label.isdigit() and len(label) == 4:
        return dt.datetime(int(label), 1, 1), "year"
    return None, None


def _kind_reader(kind):
    return {"float": _ref_number, "bool": _ref_flag, "text": _ref_text, "datetime": _ref_when,
            "list": _ref_list}[kind]


def _expected_tables(profiles, statuses):
    """What every table must hold, computed one profile and one value at a time."""
    out = {name: [] for name in TABLE_NAMES}
    section_of = {field: section for section, fields in _SPEC_FIELDS.items() for field in fields}
    for profile in profiles:
        pid = int(profile["id"])
        # fetched_at: when the store fetched the profile, unknown to tidy; fetched_status:
        # the status it is tidied under, as status
        row = {"id": pid, "status": statuses.get(pid), "fetched_at": None,
               "fetched_status": statuses.get(pid)}
        for column in TABLES["icos"].columns:
            if column.source is None or column.name == "id":
                continue
            raw = profile[section_of[column.name]].get(column.name)
            row[column.name] = _kind_reader(column.kind)(raw)
        finance = profile["finance"]
        row["token_price"] = _ref_price(finance["token_price"], finance["token_price_unit"])
        out["icos"].append(row)
        for field in LONG_LISTS:
            out[field].extend({"ico_id": pid, "position": position, "value": value}
                              for position, value in enumerate(row[field]))
        own_links = profile["links"]["social"] or {}
        for network, url in own_links.items():
            if _ref_text(url) is not None:
                out["social"].append({"ico_id": pid, "owner": "ico", "position": None,
                                      "network": network, "url": _ref_text(url)})
        for key, owner in (("team", "team"), ("advisors", "advisor")):
            links = []
            for position, person in enumerate(profile[key] or []):
                fields = {f: _ref_text(person.get(f)) for f in ("name", "role", "photo")}
                out[key].append({"ico_id": pid, "position": position, **fields})
                for network, url in (person.get("social") or {}).items():
                    if _ref_text(url) is not None:
                        links.append({"ico_id": pid, "owner": owner, "position": position,
                                      "network": network, "url": _ref_text(url)})
            out["social"].extend(links)
        for part, percent in (profile["finance"]["distribution"] or {}).items():
            out["distribution"].append({"ico_id": pid, "part": part,
                                        "percent": _ref_number(percent, percent=True)})
        for name, terms in (profile["additional"]["bonuses"] or {}).items():
            out["bonuses"].append({"ico_id": pid, "name": name, "terms": _ref_text(terms)})
        for label, description in (profile["roadmap"] or {}).items():
            date, precision = _ref_label_date(label)
            out["roadmap"].append({"ico_id": pid, "label": label, "date": date,
                                   "precision": precision, "description": _ref_text(description)})
    return out


def _plain(value):
    """A frame cell as a plain Python value, None for every kind of missing."""
    if isinstance(value, list):
        return value
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    if isinstance(value, np.generic):
        return _plain(value.item())
    return value


@pytest.fixture(scope="module")
def sandbox_profiles():
    directory = pytest.importorskip("icoframes.sandbox.directory")
    generated = directory.generate_directory(400, seed=7)
    return generated, generated.profiles()


def test_sandbox_profiles_match_an_independent_reading_value_for_value(sandbox_profiles):
    directory, profiles = sandbox_profiles
    statuses = {record.id: record.status for record in directory.records()}
    tables = tidy(profiles, statuses=statuses)
    assert_schema(tables)
    expected = _expected_tables(profiles, statuses)
    for name in TABLES:  # the schema's tables, without problems
        frame = tables[name]
        got = [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict("records")]
        assert len(got) == len(expected[name]), name
        for index, (row, want) in enumerate(zip(got, expected[name], strict=True)):
            assert row == want, f"{name} row {index}"


def test_sandbox_profiles_match_the_generator_truth(sandbox_profiles):
    directory, profiles = sandbox_profiles
    tables = tidy(profiles, statuses={r.id: r.status for r in directory.records()})
    icos = tables.icos.set_index("id")
    for record in directory.records():
        row = icos.loc[record.id]
        assert row["status"] == record.status and row["name"] == record.name
        assert (row["kyc"], row["whitelist"], row["kyc_passed"]) == (
            record.kyc, record.whitelist, record.kyc_passed)
        assert (row["airdrop"], row["bounty"], row["tba"]) == (
            record.airdrop, record.bounty, record.tba)
        assert sorted(row["accepting"]) == sorted(record.accepting)
        assert sorted(row["restricted_areas"]) == sorted(record.restricted)
        for column, truth in (("ico_score", record.score), ("raised", record.raised)):
            assert (math.isnan(row[column]) if truth is None else row[column] == truth), column
        for column, truth in (("start_datetime", record.start), ("end_datetime", record.end)):
            assert (pd.isna(row[column]) if truth is None else row[column] == truth), column
    # the generator plants unreadable prices and impossible dates: they must be counted
    counted = problems_of(tables)
    assert counted.get(("icos", "token_price"), 0) > 0
    assert counted.get(("icos", "start_datetime"), 0) + counted.get(
        ("icos", "end_datetime"), 0) > 0


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1 000", 1000.0), ("1 000 000,5", 1_000_000.5), ("1,5", 1.5), ("-5", -5.0),
     ("1.2e-05", 1.2e-05), ("15 M", 15e6)],
)
def test_numbers_with_spaces_commas_and_signs(raw, expected):
    from icoframes.parse.columns import to_float

    values, bad = to_float([raw])
    assert values[0] == pytest.approx(expected) and bad.values == []


@pytest.mark.parametrize("raw", ["2 5", "0 5", "2018 2019", "1,000 000", "$5 10"])
def test_spaces_that_do_not_group_thousands_are_problems_not_numbers(raw):
    from icoframes.parse.columns import to_float

    values, bad = to_float([raw])
    assert np.isnan(values[0]) and bad == ([0], [raw], ["grouping"])


def test_year_zero_is_a_problem_not_a_date():
    from icoframes.parse.columns import to_datetime, to_label_date

    values, bad = to_datetime(["01.01.0000 00:00:00", "01.03.2018 12:00:00"])
    assert np.isnat(values[0]) and bad == ([0], ["01.01.0000 00:00:00"], ["date_out_of_range"])
    assert values[1] == np.datetime64("2018-03-01T12:00:00", "ms")
    dates, _, unread = to_label_date(["01-01-0000"])
    assert np.isnat(dates[0]) and unread.reasons == ["date_out_of_range"]


_NUMBERISH = st.text(alphabet="0123456789 ,.-+$eEkKmMbB%", max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_NUMBERISH, st.sampled_from(["NA", "TBA", "—", ""]),
                          st.floats(allow_nan=True), st.integers(), st.none()), max_size=20))
def test_a_number_that_comes_out_missing_was_missing_or_is_counted(values):
    from icoframes.parse.columns import to_datetime, to_float
    from icoframes.parse.rules import is_missing_marker

    out, bad = to_float(values)
    for value, number in zip(values, out, strict=True):
        if np.isnan(number):
            assert (value is None or (isinstance(value, float) and np.isnan(value))
                    or (isinstance(value, str) and is_missing_marker(value.strip()))
                    or value in bad.values), value
    assert [values[i] for i in bad.rows] == bad.values
    stamps, bad = to_datetime([v if isinstance(v, str) else None for v in values])
    for value, stamp in zip(values, stamps, strict=True):
        if np.isnat(stamp) and isinstance(value, str):
            assert is_missing_marker(value.strip()) or value in bad.values, value

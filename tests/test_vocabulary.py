"""The declared vocabulary (icoframes.vocabulary): words real directories write, read by meaning.

Every example of issue 20 part 1, and variants of each, on hand-built profiles
through ``tidy`` (and ``features`` for the platform, social and fiat words).
"""

from __future__ import annotations

import pandas as pd
import pytest
from messy_profiles import clean_profile, with_

from icoframes.features import compute_features as features
from icoframes.parse.problems import value_text
from icoframes.parse.profiles import tidy
from icoframes.tables import Tables
from icoframes.vocabulary import (
    DATA_UNIT_SPELLINGS,
    FALSE_WORDS,
    NONE_WORDS,
    PLATFORM_FAMILIES,
    SOCIAL_ALIASES,
    TRUE_WORDS,
    UNIT_ALIASES,
    UNKNOWN_WORDS,
)


def problem_values(tables: Tables, column: str) -> list[str]:
    frame = tables.problems
    return frame.loc[frame["column"] == column, "value"].tolist()


def problem_reasons(tables: Tables, column: str) -> list[tuple[str, str]]:
    """(value, reason) of each problem row of ``column``."""
    frame = tables.problems
    mine = frame[frame["column"] == column]
    return list(zip(mine["value"], mine["reason"], strict=True))


# --------------------------------------------------------------------------- flags


@pytest.mark.parametrize(("raw", "expected"), [
    ("Available", True), ("available", True), ("AVAILABLE", True), (" Yes ", True),
    ("yes", True), ("Y", True), ("✓", True), ("✔", True), ("✅", True), ("true", True),
    ("No", False), ("NO", False), ("n", False), ("Not available", False),
    ("not  available", False), ("Unavailable", False), ("✗", False), ("❌", False),
    ("N/A", False), ("Not set", False), ("TBA", False), ("Unknown", False), ("?", False),
    ("", False), (None, False), ("Yes\u200b", True), ("Ｙｅｓ", True),
])
def test_flag_words_read_without_problem(raw, expected):
    for column, path in (("mvp", "main.mvp"), ("bounty", "additional.bounty"),
                         ("whitelist", "main.whitelist")):
        tables = tidy([with_(clean_profile(), {path: raw})])
        assert bool(tables.icos.loc[0, column]) is expected, (column, raw)
        assert problem_values(tables, column) == [], (column, raw)


@pytest.mark.parametrize(("raw", "expected"), [
    ("YES (UNTIL 11 SEP)", True),
    ("Yes (until 11 Sep)", True),
    ("Available - beta only", True),
    ("Yes, from May", True),
    ("Available: Q3 2018", True),
    ("No (planned)", False),
    ("✓ [web version]", True),
])
def test_qualified_flags_read_as_their_word_and_keep_the_qualifier(raw, expected):
    tables = tidy([with_(clean_profile(), {"main.whitelist": raw})])
    assert bool(tables.icos.loc[0, "whitelist"]) is expected
    # the qualifier is not lost
    assert problem_reasons(tables, "whitelist") == [(raw, "qualified_flag")]


@pytest.mark.parametrize(("raw", "reason"), [
    ("maybe", "unknown_flag"), ("partly", "unknown_flag"), ("beta", "unknown_flag"),
    ("2", "unknown_flag"), ("Yes No", "unknown_flag"), ("-1", "unknown_flag"), (7, "unknown_flag"),
    (["yes"], "wrong_type"), ({"mvp": True}, "wrong_type"),
])
def test_other_flag_text_is_false_and_a_problem(raw, reason):
    tables = tidy([with_(clean_profile(), {"main.mvp": raw})])
    assert not tables.icos.loc[0, "mvp"]
    assert problem_reasons(tables, "mvp") == [(value_text(raw), reason)]


def test_flag_word_sets_do_not_overlap():
    assert not TRUE_WORDS & FALSE_WORDS
    assert not TRUE_WORDS & UNKNOWN_WORDS


# --------------------------------------------------------------------------- none in lists


@pytest.mark.parametrize("raw", [
    ["No"], ["no"], ["NO"], ["Not"], "No", "NO", "not", ["None"], ["-"], [""], [" "],
    "None", "-", " ", ["Nothing"], ["No restrictions"], ["N/A"],
])
def test_a_list_saying_none_is_empty(raw):
    tables = tidy([with_(clean_profile(), {"finance.restricted_areas": raw})])
    assert tables.icos.loc[0, "restricted_areas"] == []
    assert len(tables.restricted_areas) == 0
    assert problem_values(tables, "restricted_areas") == []


def test_none_words_inside_a_longer_list_are_kept():
    # NO is also Norway: only a lone "No" says "none"
    tables = tidy([with_(clean_profile(), {"finance.restricted_areas": ["US", "NO"]})])
    assert tables.icos.loc[0, "restricted_areas"] == ["US", "NO"]
    tables = tidy([with_(clean_profile(), {"finance.restricted_areas": ["US", "None", "-"]})])
    assert tables.icos.loc[0, "restricted_areas"] == ["US"]


@pytest.mark.parametrize("raw", [
    {"Bonus": "NO"}, {"Bonus": " "}, {"Bonus": "no"}, {"Bonus": "None"}, {"Bonus": "-"},
    {"Bonus": ""}, {"Bonus": "N/A"}, {"Bonus": "Not"}, "No", "None", "-", "NO",
])
def test_bonuses_saying_none_are_no_bonus(raw):
    tables = tidy([with_(clean_profile(), {"additional.bonuses": raw})])
    assert len(tables.bonuses) == 0
    assert tables.problems.empty
    assert not features(tables).loc[0, "has_bonus"]


def test_real_bonuses_beside_a_none_entry_stay():
    tables = tidy([with_(clean_profile(), {"additional.bonuses": {"Early": "20%", "Late": "No"}})])
    assert tables.bonuses["name"].tolist() == ["Early"]
    assert features(tables).loc[0, "has_bonus"]


def test_none_words_are_not_flag_true_words():
    assert not NONE_WORDS & TRUE_WORDS


# --------------------------------------------------------------------------- lists as text


@pytest.mark.parametrize(("raw", "expected", "fiat"), [
    ("BTC, ETH, and Fiat currency", ["BTC", "ETH", "Fiat currency"], True),
    ("BTC; ETH; & fiat", ["BTC", "ETH", "fiat"], True),
    ("Trinidad and Tobago", ["Trinidad and Tobago"], False),  # no split at a bare "and"
    ("ETH, BTC", ["ETH", "BTC"], False),
    (["ETH", "Fiat"], ["ETH", "Fiat"], True),
    (["ETH", "USD"], ["ETH", "USD"], True),
    ("ETH", ["ETH"], False),
])
def test_accepting_as_one_string_is_split_and_fiat_words_count(raw, expected, fiat):
    tables = tidy([with_(clean_profile(), {"finance.accepting": raw})])
    assert tables.icos.loc[0, "accepting"] == expected
    assert tables.accepting["value"].tolist() == expected
    assert bool(features(tables).loc[0, "accepts_fiat"]) is fiat


def test_restricted_areas_as_one_string_keep_country_names_whole():
    raw = "USA, China; Korea, Republic of, and Bahamas, The"
    tables = tidy([with_(clean_profile(), {"finance.restricted_areas": raw})])
    assert tables.icos.loc[0, "restricted_areas"] == [
        "USA", "China", "Korea, Republic of", "Bahamas, The"]


# --------------------------------------------------------------------------- units, platforms


@pytest.mark.parametrize(("raw", "code"), [
    ("Ethererum", "ETH"), ("Etherum", "ETH"), ("etherium", "ETH"), ("ЕТН", "ETH"),
    ("Е\u200bТН", "ETH"), ("ｅｔｈ", "ETH"), ("Bitcoin", "BTC"), ("US Dollar", "USD"),
])
def test_unit_aliases_misspellings_and_lookalikes(raw, code):
    tables = tidy([with_(clean_profile(), {"finance.caps_unit": raw})])
    assert tables.icos.loc[0, "caps_unit"] == code
    assert tables.icos.loc[0, "hard_cap"] == 15_000_000.0
    assert tables.problems.empty


def test_a_real_cyrillic_word_is_not_taken_for_a_ticker():
    tables = tidy([with_(clean_profile(), {"finance.caps_unit": "Рубль"})])
    assert tables.icos.loc[0, "caps_unit"] == "РУБЛЬ"


@pytest.mark.parametrize(("raw", "family"), [
    ("Ethererum", "Ethereum"), ("Etherum", "Ethereum"), ("ETHEREUM ", "Ethereum"),
    ("ERC-20", "Ethereum"), ("Etherium", "Ethereum"), ("Waves", "Waves"), ("Qtum", "Qtum"),
])
def test_platform_misspellings_get_their_family(raw, family):
    tables = tidy([with_(clean_profile(), {"main.platform": raw})])
    frame = features(tables)
    assert frame.loc[0, "platform_family"] == family
    assert bool(frame.loc[0, "is_ethereum"]) is (family == "Ethereum")


@pytest.mark.parametrize("key", ["btc", "BTC", "bitcointalk", "BitcoinTalk", "ann", "bct"])
def test_social_key_btc_is_bitcointalk(key):
    social = {key: "https://bitcointalk.example/t=1", "twitter": "https://twitter.example/x"}
    tables = tidy([with_(clean_profile(), {"links.social": social})])
    frame = features(tables)
    assert frame.loc[0, "has_bitcointalk"] and frame.loc[0, "has_twitter"]
    assert tables.social.loc[tables.social["owner"] == "ico", "network"].tolist()[0] == key


def test_alias_tables_name_each_spelling_once():
    units = [*UNIT_ALIASES.values(), *DATA_UNIT_SPELLINGS.values()]
    for names_of in (units, PLATFORM_FAMILIES.values(), SOCIAL_ALIASES.values()):
        spellings = [s.casefold() for names in names_of for s in names]
        assert len(spellings) == len(set(spellings))


def test_misspellings_are_read_in_data_but_not_accepted_as_arguments():
    assert "etherium" in DATA_UNIT_SPELLINGS["ETH"]
    assert "etherium" not in UNIT_ALIASES["ETH"]  # queries refuse it with "did you mean"


# --------------------------------------------------------------------------- lone surrogates


def test_lone_surrogates_become_replacement_characters_and_problems():
    profile = with_(clean_profile(), {
        "main.name": "Bad\ud800Name", "main.description": "\udfff",
        "finance.restricted_areas": ["US", "X\ud800"],
        "links.social": {"twi\ud800": "https://t.example/x"},
        "roadmap": {"Q3 2018\ud800": "x"},
        "main.ico_score": "3\ud800",
    })
    tables = tidy([profile])
    assert tables.icos.loc[0, "name"] == "Bad\ufffdName"
    assert tables.icos.loc[0, "description"] == "\ufffd"
    assert tables.icos.loc[0, "restricted_areas"] == ["US", "X\ufffd"]
    assert pd.isna(tables.icos.loc[0, "ico_score"])
    assert set(tables.problems["column"]) >= {"name", "description", "restricted_areas",
                                              "network", "ico_score"}
    reasons = dict(zip(tables.problems["column"], tables.problems["reason"], strict=True))
    assert {column: reasons[column] for column in ("name", "description", "restricted_areas",
                                                    "network", "label")} == dict.fromkeys(
        ("name", "description", "restricted_areas", "network", "label"), "surrogate")
    assert reasons["ico_score"] == "unreadable_number"  # '3\ufffd' is no number either
    assert all("\ud800" not in v and "\udfff" not in v for v in tables.problems["value"])
    # everything the parser returns can be written
    for frame in tables.values():  # the tables and problems
        frame.to_json(date_format="iso")
    features(tables)

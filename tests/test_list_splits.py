"""Lists written as one string: split into their items, never inside a name or brackets.

REV-RV H2-H5 and M1: at 9bc57721 "USA, The Netherlands" was one item, "Fiat (USD, EUR), BTC"
three ('Fiat (USD', 'EUR)', 'BTC', accepts_fiat False), "Virgin Islands, U.S." two (a false
US restriction), "BTC，ETH" one made-up ticker, "USA/China" and "BTC and ETH" one item, with no
row of problems.
"""

from __future__ import annotations

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from messy_profiles import clean_profile, with_

import icoframes
from icoframes.features import compute_features as features
from icoframes.parse.profiles import tidy


def _tidy(column: str, raw: object) -> icoframes.Tables:
    return tidy([with_(clean_profile(), {f"finance.{column}": raw})])


def _restricted(raw: object) -> tuple[list[str], list[list[object]]]:
    tables = _tidy("restricted_areas", raw)
    assert tables.restricted_areas["value"].tolist() == tables.icos.loc[0, "restricted_areas"]
    problems = tables.problems[["column", "value", "reason"]].values.tolist()
    return tables.icos.loc[0, "restricted_areas"], problems


# --------------------------------------------------------------------------- H2


@pytest.mark.parametrize(("raw", "expected"), [
    ("USA, The Netherlands", ["USA", "The Netherlands"]),
    ("USA, The Bahamas", ["USA", "The Bahamas"]),
    ("USA, Republic of Korea", ["USA", "Republic of Korea"]),
    ("USA, People's Republic of China", ["USA", "People's Republic of China"]),
    ("Canada, Democratic Republic of the Congo", ["Canada", "Democratic Republic of the Congo"]),
    ("China, Republic of Korea, Japan", ["China", "Republic of Korea", "Japan"]),
    # a trailing qualifier that names nothing by itself still ends the name before it
    ("Korea, Republic of", ["Korea, Republic of"]),
    ("Bahamas, The; USA", ["Bahamas, The", "USA"]),
    ("Hong Kong, SAR, China", ["Hong Kong, SAR", "China"]),
    ("Korea, South, Japan", ["Korea, South", "Japan"]),
])
def test_a_part_naming_a_country_is_an_item_of_its_own(raw, expected):
    # 9bc57721: "USA, The Netherlands" was ['USA, The Netherlands'], n_restricted_areas 1
    items, problems = _restricted(raw)
    assert items == expected
    assert problems == []


# --------------------------------------------------------------------------- H3


def test_commas_inside_brackets_never_split_an_accepting_list():
    # 9bc57721: ['Fiat (USD', 'EUR)', 'BTC'], accepts_fiat False
    tables = _tidy("accepting", "Fiat (USD, EUR), BTC")
    assert tables.icos.loc[0, "accepting"] == ["Fiat (USD, EUR)", "BTC"]
    assert tables.accepting["value"].tolist() == ["Fiat (USD, EUR)", "BTC"]
    out = features(tables)
    assert bool(out.loc[0, "accepts_fiat"]) is True
    assert out.loc[0, "n_accepted_currencies"] == 3  # USD, EUR, BTC: each named
    assert tables.problems.empty
    assert features(_tidy("accepting", ["ETH", "EUR (bank transfer)"])).loc[0, "accepts_fiat"]
    assert not features(_tidy("accepting", ["ETH (ERC20)"])).loc[0, "accepts_fiat"]


@pytest.mark.parametrize(("raw", "expected"), [
    ("Canada (Quebec, Ontario), USA", ["Canada (Quebec, Ontario)", "USA"]),
    ("USA (citizens, residents), China", ["USA (citizens, residents)", "China"]),
    ("USA [citizens; residents]; China", ["USA [citizens; residents]", "China"]),
    ("USA（citizens，residents），China", ["USA（citizens，residents）", "China"]),
])
def test_commas_inside_brackets_never_split_a_restricted_list(raw, expected):
    items, problems = _restricted(raw)
    assert items == expected
    assert problems == []


def test_a_bracket_left_open_keeps_the_text_whole_with_a_row():
    items, problems = _restricted("Canada (Quebec, Ontario, USA")
    assert items == ["Canada (Quebec, Ontario, USA"]
    assert problems == [["restricted_areas", "Canada (Quebec, Ontario, USA", "doubtful_split"]]


# --------------------------------------------------------------------------- H4

_ISO_COMMA_NAMES = [
    "Virgin Islands, U.S.", "Virgin Islands, British", "Micronesia, Federated States of",
    "Tanzania, United Republic of", "Bonaire, Sint Eustatius and Saba",
    "Congo, The Democratic Republic of the", "Iran, Islamic Republic of",
    "Korea, Democratic People's Republic of", "Korea, Democratic People’s Republic of",
    "Korea, Republic of", "Moldova, Republic of", "Palestine, State of",
    "Venezuela, Bolivarian Republic of", "Bolivia, Plurinational State of",
    "Taiwan, Province of China", "Saint Helena, Ascension and Tristan da Cunha",
    "Macedonia, the Former Yugoslav Republic of", "Hong Kong SAR, China",
]


@pytest.mark.parametrize("name", _ISO_COMMA_NAMES)
def test_an_iso_name_with_a_comma_is_one_area(name):
    # 9bc57721: "Virgin Islands, U.S." was ['Virgin Islands', 'U.S.'] (a false US restriction)
    assert _restricted(name) == ([name], [])
    assert _restricted(f"USA; {name}; China") == (["USA", name, "China"], [])


def test_a_qualifier_of_another_name_is_no_part_of_it():
    # "U.S." continues "Virgin Islands" only: after another country it is the US
    assert _restricted("China, U.S.") == (["China", "U.S."], [])
    assert _restricted("British Virgin Islands, U.S.") == (["British Virgin Islands", "U.S."],
                                                           [])


# --------------------------------------------------------------------------- H5


@pytest.mark.parametrize("sep", ["，", "、", "；", "﹐"])
def test_full_width_and_ideographic_separators_split(sep):
    # 9bc57721: "BTC，ETH" was the one ticker 'BTC,ETH'; "USA、China" one area
    tables = _tidy("accepting", f"BTC{sep}ETH")
    assert tables.icos.loc[0, "accepting"] == ["BTC", "ETH"]
    assert features(tables).loc[0, "n_accepted_currencies"] == 2
    assert _restricted(f"USA{sep}China") == (["USA", "China"], [])
    assert tables.problems.empty


# --------------------------------------------------------------------------- M1


@pytest.mark.parametrize("raw", ["USA/China", "USA | China", "USA and China", "USA & China",
                                 "USA\nChina", "USA • China", "USA / China", "USA\r\nChina"])
def test_other_separators_split_a_restricted_list(raw):
    assert _restricted(raw) == (["USA", "China"], [])


@pytest.mark.parametrize("raw", ["BTC/ETH", "BTC & ETH", "BTC and ETH", "BTC + ETH",
                                 "Bitcoin and Ether"])
def test_other_separators_split_an_accepting_list(raw):
    tables = _tidy("accepting", raw)
    assert len(tables.icos.loc[0, "accepting"]) == 2
    assert features(tables).loc[0, "n_accepted_currencies"] == 2
    assert tables.problems.empty


@pytest.mark.parametrize("name", [
    "Trinidad and Tobago", "Bosnia and Herzegovina", "Antigua and Barbuda",
    "Saint Kitts and Nevis", "St. Kitts & Nevis", "Heard Island and McDonald Islands",
    "South Georgia and the South Sandwich Islands", "Saint Vincent and the Grenadines",
    "São Tomé and Príncipe", "Turks and Caicos Islands", "Wallis and Futuna",
])
def test_a_name_holding_and_is_never_split(name):
    assert _restricted(name) == ([name], [])
    assert _restricted(f"USA and {name}") == (["USA", name], [])
    assert _restricted(f"{name}, USA & China") == ([name, "USA", "China"], [])


@pytest.mark.parametrize("raw", ["Bosnia/Herzegovina", "Saint Vincent and Grenadines",
                                 "Trinidad & USA", "US citizens and residents",
                                 "citizens/residents of the USA", "usa and china"])
def test_a_doubtful_split_keeps_one_item_and_a_row(raw):
    # half of a name of AND_NAMES would be left alone: never guessed
    assert _restricted(raw) == ([raw], [["restricted_areas", raw, "doubtful_split"]])


def test_an_accepting_and_of_no_currencies_stays_one_item_with_a_row():
    tables = _tidy("accepting", "ETH; Visa and Mastercard; BTC + 20% bonus; 1/2")
    assert tables.icos.loc[0, "accepting"] == ["ETH", "Visa and Mastercard", "BTC + 20% bonus",
                                               "1/2"]
    assert tables.problems[["column", "value", "reason"]].values.tolist() == [
        ["accepting", "Visa and Mastercard", "doubtful_split"],
        ["accepting", "BTC + 20% bonus", "doubtful_split"]]


def test_an_accepting_item_of_a_list_is_split_so_too():
    tables = _tidy("accepting", ["BTC/ETH", "LTC", "Fiat (USD, EUR)"])
    assert tables.icos.loc[0, "accepting"] == ["BTC", "ETH", "LTC", "Fiat (USD, EUR)"]
    assert tables.problems.empty


@pytest.mark.parametrize(("raw", "items", "doubts"), [
    ("ETH and try", ["ETH and try"], ["ETH and try"]),  # "try" is no lira, as the count says
    ("ETH and TRY", ["ETH", "TRY"], []), ("ETH and BTC only", ["ETH", "BTC only"], []),
    ("ETH/Fiat", ["ETH", "Fiat"], []), ("BTC and HASH", ["BTC and HASH"], ["BTC and HASH"])])
def test_accepting_splits_where_each_part_names_a_currency_as_the_count_reads_it(
        raw, items, doubts):
    tables = _tidy("accepting", raw)
    assert tables.icos.loc[0, "accepting"] == items
    assert tables.problems["value"].tolist() == doubts


@pytest.mark.parametrize("raw", ["N/A", "Thailand", "Poland", "Sandland"])
def test_markers_and_words_holding_and_are_no_lists(raw):
    items, problems = _restricted(raw)
    assert items == ([] if raw == "N/A" else [raw])
    assert problems == []


@pytest.mark.parametrize(("raw", "expected"), [
    ("https://a.example, https://b.example", ["https://a.example", "https://b.example"]),
    ("https://a.example https://b.example\nwww.c.example",
     ["https://a.example", "https://b.example", "www.c.example"]),
    ("https://a.example/t?x=1&y=2,3", ["https://a.example/t?x=1&y=2,3"]),
    ("Binance, Coinbase Pro", ["Binance", "Coinbase Pro"]),
    ("Coinbase Pro", ["Coinbase Pro"]),
    ("www.a.example www.b.example", ["www.a.example", "www.b.example"]),
    ("www.a.example  https://b.example ", ["www.a.example", "https://b.example"]),
])
def test_markets_written_as_one_string_are_split_between_urls(raw, expected):
    # 9bc57721: "https://a.example, https://b.example" was one "URL"
    tables = _tidy("markets", raw)
    assert tables.icos.loc[0, "markets"] == expected
    assert tables.markets["value"].tolist() == expected
    assert tables.problems.empty


# --------------------------------------------------------------------------- a load


def test_a_load_splits_lists_written_as_one_string(configure):
    finances = {
        1: {"restricted_areas": "USA, The Netherlands", "accepting": "BTC，ETH"},
        2: {"restricted_areas": "Canada (Quebec, Ontario), USA",
            "accepting": "Fiat (USD, EUR), BTC"},
        3: {"restricted_areas": "Virgin Islands, U.S.; Micronesia, Federated States of",
            "accepting": "BTC and ETH"},
        4: {"restricted_areas": "USA/China", "accepting": "ETH; Visa and Mastercard",
            "markets": "https://a.example, https://b.example"},
    }

    def profile(h):
        asked = int(h.request_json()["id"])
        data = with_(clean_profile(asked), {f"finance.{k}": v
                                            for k, v in finances[asked].items()})
        json_reply({"error": None, "data": data})(h)

    with HostileServer({LIST: paged_list(4), PROFILE: profile}) as srv:
        configure(srv, max_workers=1)
        tables = icoframes.load_tables(status="past", progress=False)
    assert srv.hits[PROFILE] == 4
    icos = tables.icos.set_index("id")
    assert icos["restricted_areas"].to_dict() == {
        1: ["USA", "The Netherlands"], 2: ["Canada (Quebec, Ontario)", "USA"],
        3: ["Virgin Islands, U.S.", "Micronesia, Federated States of"], 4: ["USA", "China"]}
    assert icos["accepting"].to_dict() == {
        1: ["BTC", "ETH"], 2: ["Fiat (USD, EUR)", "BTC"], 3: ["BTC", "ETH"],
        4: ["ETH", "Visa and Mastercard"]}
    assert icos.at[4, "markets"] == ["https://a.example", "https://b.example"]
    out = features(tables).set_index("ico_id")
    assert out["n_restricted_areas"].to_dict() == {1: 2, 2: 2, 3: 2, 4: 2}
    # "Fiat (USD, EUR)" names USD and EUR; "Visa and Mastercard" no currency
    assert out["n_accepted_currencies"].to_dict() == {1: 2, 2: 3, 3: 2, 4: 1}
    assert out["accepts_fiat"].to_dict() == {1: False, 2: True, 3: False, 4: False}
    assert str(out["n_restricted_areas"].dtype) == "int64"
    problems = tables.problems[["ico_id", "table", "column", "value", "reason"]]
    assert problems.values.tolist() == [
        [4, "icos", "accepting", "Visa and Mastercard", "doubtful_split"]]


# --------------------------------------------------------------------------- long values

# Each took the splitter minutes or more before it was made linear (a run of spaces before a
# separator, 100,000 "/" or "and", a name joined again and again): run in a child process, so
# that a regression fails at the hang guard instead of stalling the suite.
_LONG = 200_000
_CHILD = """
import json, sys
from icoframes.parse.splits import split_column
n = int(sys.argv[1])
values = ["A" + " " * n + "/B", "A" + " " * n + "andx", "A/" * (n // 2), "A" + ", the" * (n // 5),
          "A" + " " * n + ",", "A and " * (n // 6), "(" * n, "https://a " * (n // 10) + "x y"]
out = {column: [[len(items) if isinstance(items, list) else -1 for items in split_column(
    column, values)[0]], len(split_column(column, values)[1].rows)]
    for column in ("restricted_areas", "accepting", "markets")}
print(json.dumps(out))
"""


def test_long_hostile_lists_are_split_in_linear_time():
    import json
    import subprocess
    import sys

    from waiting import HANG_GUARD

    done = subprocess.run([sys.executable, "-c", _CHILD, str(_LONG)], capture_output=True,
                          text=True, timeout=HANG_GUARD, check=True)
    out = json.loads(done.stdout)
    n = _LONG
    # (no separator: "...andx" and "((((" stay as written; "A, the, the": "the" ends the name
    # before it once; "A" is no currency known: a doubtful split in accepting)
    assert out["restricted_areas"] == [[2, -1, n // 2, n // 10 + 1, 1, n // 6, -1, 1], 1]
    assert out["accepting"] == [[1, -1, 1, n // 10 + 1, 1, 1, -1, 1], 4]
    assert out["markets"] == [[1, -1, 1, n // 5 + 1, 1, 1, -1, 1], 0]

"""Parser defects found by the session of 2026-11-26 and left alone until parser version 18.

Each test failed before its fix: a value real directories write was lost, misread or
reported for the wrong reason, or an input fault was silent.
"""

from __future__ import annotations

import math

import pytest
from messy_profiles import clean_profile

from icoframes.errors import InvalidParameter
from icoframes.parse.profiles import tidy
from icoframes.parse.rules import Bad, parse_amount
from icoframes.parse.units import read_amount_group, read_price


def _rows(problems) -> list[list[object]]:
    return problems.astype(object).values.tolist()


# --------------------------------------------------------------------------- 1. one id twice


def test_a_copy_of_an_id_with_other_content_is_reported_and_the_last_is_kept():
    first = {"id": 7, "main": {"name": "Old"}}
    last = {"id": "7", "main": {"name": "New"}}
    tables = tidy([first, {"id": 8}, last])
    assert tables.icos["id"].tolist() == [8, 7]  # the order of each id's last copy
    assert tables.icos["name"].tolist()[1] == "New"
    assert _rows(tables.problems) == [
        [7, "icos", "id", '{"id": 7, "main": {"name": "Old"}}', "duplicate_id"]]


def test_every_dropped_copy_that_differs_is_a_row_in_the_order_of_the_input():
    profiles = [{"id": 2, "v": "a"}, {"id": 1, "v": "x"}, {"id": 2, "v": "b"},
                {"id": 1, "v": "y"}, {"id": 2, "v": "c"}]
    problems = tidy(profiles).problems
    assert problems["ico_id"].tolist() == [2, 2, 1]
    assert problems["value"].tolist() == ['{"id": 2, "v": "a"}', '{"id": 2, "v": "b"}',
                                          '{"id": 1, "v": "x"}']
    assert set(problems["reason"]) == {"duplicate_id"}


def test_copies_that_differ_only_in_how_the_id_is_written_lose_nothing():
    profile = clean_profile(7)
    tables = tidy([dict(profile), {**profile, "id": " 7 "}, {**profile, "id": 7.0}])
    assert tables.icos["id"].tolist() == [7]
    assert tables.problems.empty


def test_a_copy_as_another_mapping_is_compared_by_its_content():
    from types import MappingProxyType

    same = MappingProxyType({"id": 3, "main": {"name": "A"}})
    other = MappingProxyType({"id": 3, "main": {"name": "B"}})
    assert tidy([same, {"id": 3, "main": {"name": "A"}}]).problems.empty
    problems = tidy([other, {"id": 3, "main": {"name": "A"}}]).problems
    assert problems["ico_id"].tolist() == [3]
    assert problems["reason"].tolist() == ["duplicate_id"]


def test_duplicates_and_unreadable_ids_are_told_apart():
    # two unreadable records and one duplicate: the counts must not hide the copy
    tables = tidy([{"id": "x"}, {"id": 1, "v": 1}, None, {"id": 1, "v": 2}])
    assert tables.problems["reason"].tolist() == ["unreadable_id", "wrong_shape",
                                                  "duplicate_id"]
    assert tables.problems["ico_id"].tolist()[2] == 1


# --------------------------------------------------------------------------- 2. one profile


@pytest.mark.parametrize("one", [{"id": 1, "main": {"name": "A"}}, {}])
def test_one_profile_is_refused_with_did_you_mean(one):
    with pytest.raises(InvalidParameter,
                       match=r"^tidy\(\) takes an iterable of profiles, got one profile \(a "
                             r"dict\); did you mean tidy\(\[profile\]\)\?$"):
        tidy(one)


def test_one_profile_as_another_mapping_is_refused_naming_its_type():
    from types import MappingProxyType

    with pytest.raises(InvalidParameter, match=r"got one profile \(a mappingproxy\)"):
        tidy(MappingProxyType({"id": 1}))


@pytest.mark.parametrize(("text", "kind"), [('[{"id": 1}]', "str"), (b'[{"id": 1}]', "bytes"),
                                            (bytearray(b"[]"), "bytearray"), ("", "str")])
def test_text_is_refused_with_did_you_mean(text, kind):
    with pytest.raises(InvalidParameter,
                       match=rf"^tidy\(\) takes an iterable of profiles \(decoded JSON\), got "
                             rf"{kind}; did you mean tidy\(json\.loads\(text\)\)\?$"):
        tidy(text)


def test_a_list_of_one_profile_and_any_iterable_are_still_read():
    assert tidy([{"id": 1}]).icos["id"].tolist() == [1]
    assert tidy(iter([{"id": 2}])).icos["id"].tolist() == [2]
    assert tidy({"id": i} for i in (3, 4)).icos["id"].tolist() == [3, 4]


# --------------------------------------------------------------------------- 3. "5 mln."


def _group(values: list, unit: str = "", tickers: list | None = None):
    amounts, codes, bad = read_amount_group({"v": values}, [unit] * len(values),
                                            tickers=tickers)
    return amounts["v"].tolist(), codes.tolist(), list(zip(bad["v"].values, bad["v"].reasons,
                                                           strict=True))


@pytest.mark.parametrize(("value", "number", "code"), [
    ("$5 mln.", 5e6, "USD"), ("$5 mln", 5e6, "USD"), ("5 mln. USD", 5e6, "USD"),
    ("5 mln USD", 5e6, "USD"), ("$5 Mln.", 5e6, "USD"), ("5mlnUSD", 5e6, "USD"),
    ("USD 2.5 mln", 2.5e6, "USD"),
    # no unit written: the number, in the unit column's (here none); was 5 in "MLN"
    ("5 mln.", 5e6, None), ("5mln", 5e6, None), ("1,5 mln", 1.5e6, None),
    # in capitals it is a ticker (MLN is the token Melon), as before
    ("5 MLN", 5.0, "MLN"), ("5 MLN.", 5.0, "MLN"),
])
def test_mln_with_or_without_a_dot_is_a_million(value, number, code):
    # (MLN for the ICO of MLN: a ticker no list knows is no unit of another's, parser 34)
    assert _group([value], tickers=[code if code == "MLN" else None]) == ([number], [code], [])


def test_mln_agrees_with_a_unit_column_and_is_read_by_every_number_rule():
    assert _group(["$5 mln.", "3 mln"], "USD") == ([5e6, 3e6], ["USD", "USD"], [])
    assert parse_amount("5 mln.") == 5e6 and parse_amount("0.5Mln") == 5e5
    assert isinstance(parse_amount("5 MLN"), Bad)  # a ticker, not a number
    prices, codes, unread = read_price(["1 ABC = $0.5 mln", "1 mln ABC = 5 ETH"], ["", ""],
                                    tickers=["ABC", "ABC"])
    assert prices.tolist() == [5e5, 5e-6] and codes.tolist() == ["USD", "ETH"] and not unread.rows
    # glued to the ICO's own ticker in lowercase it multiplies it, like "5kKIN"
    assert _group(["5 mlnKIN", "5mlnKIN"], tickers=["KIN", "KIN"]) == ([5e6, 5e6],
                                                                       ["KIN", "KIN"], [])


# --------------------------------------------------------------------------- 4. "USD$"


@pytest.mark.parametrize(("value", "price"), [
    ("1 ABC = 0.1 USD$", 0.1), ("1 ABC = 0.1 usd$", 0.1), ("0.1 USD$ = 1 ABC", 0.1),
    ("1 ABC = 0.1 US$", 0.1), ("10 ABC = 1 USD$", 0.1),
    # a multiplier glued to it, as in an amount ("5MUSD$" is 5,000,000 USD)
    ("1 ABC = 5 MUSD$", 5e6), ("1 ABC = 5 KUS$", 5e3),
])
def test_usd_dollar_sign_in_an_exchange_is_usd(value, price):
    prices, codes, unread = read_price([value], [""], tickers=["ABC"])
    assert prices.tolist() == [pytest.approx(price)] and codes.tolist() == ["USD"]
    assert not unread.rows


@pytest.mark.parametrize("value", ["1 ABC = 0.1 EUR$", "1 ABC = 0.1 USDT$", "1 ABC = 0.1 ABC$",
                                   "1 ABC = 0.1 USD$$", "1 ABC$ = 0.1 USD"])
def test_a_symbol_after_what_is_no_currency_stays_unreadable(value):
    prices, codes, unread = read_price([value], [""], tickers=["ABC"])
    assert math.isnan(prices[0]) and codes.tolist() == [None] and unread.values == [value]
    assert unread.reasons == ["unreadable_price"]


def test_usd_dollar_sign_agrees_with_the_unit_column():
    prices, codes, unread = read_price(["1 ABC = 0.1 USD$", "1 ABC = 0.1 USD$"], ["USD", "ETH"],
                                       tickers=["ABC", "ABC"])
    assert prices.tolist()[0] == 0.1 and codes.tolist() == ["USD", "ETH"]
    assert unread.rows == [1] and unread.reasons == ["unit_conflict"]


# --------------------------------------------------------------------------- 5. "500 kUSD", KUSD


def test_kusd_of_an_ico_of_kusd_under_a_usd_column_is_a_conflict_that_keeps_its_value():
    # "kUSD" is the ICO's own token KUSD (never thousands of USD for it: parser 15/16), and
    # the column says USD: 500 KUSD or 500,000 USD? Either reading is a guess, 1000x apart.
    tables = tidy([{"id": 9, "finance": {"ticker": "KUSD", "caps_unit": "USD",
                                         "soft_cap": "$100", "hard_cap": "500 kUSD"}}])
    icos = tables.icos
    assert icos.loc[0, "soft_cap"] == 100.0 and math.isnan(icos.loc[0, "hard_cap"])
    assert icos.loc[0, "caps_unit"] == "USD"
    assert _rows(tables.problems) == [[9, "icos", "hard_cap", "500 kUSD", "unit_conflict"]]


def test_kusd_is_read_where_nothing_contradicts_it():
    # the same text without a column, or under the token's own unit: 500 KUSD
    assert _group(["500 kUSD"], "", ["KUSD"]) == ([500.0], ["KUSD"], [])
    assert _group(["500 kUSD"], "KUSD", ["KUSD"]) == ([500.0], ["KUSD"], [])
    # for another ICO it is Karura's kUSD, or thousands of USD? unreadable (parser 26)
    amounts, codes, unread = _group(["500 kUSD"], "USD", ["ABC"])
    assert math.isnan(amounts[0]) and codes == ["USD"]
    assert unread == [("500 kUSD", "unreadable_number")]


# --------------------------------------------------------------------------- 6. "min 5000", IN


@pytest.mark.parametrize("ticker", ["IN", "in", "XY", None])
@pytest.mark.parametrize(("value", "reason"), [
    ("min 5000", "vague"), ("Min 5000", "vague"), ("MIN 5000", "vague"), ("min. 5000", "vague"),
    ("5000 min", "unreadable_number"),
])
def test_min_is_a_word_whatever_the_ticker(ticker, value, reason):
    amounts, codes, unread = _group([value], "", [ticker])
    assert math.isnan(amounts[0]) and codes == [None] and unread == [(value, reason)]


@pytest.mark.parametrize("ticker", ["AX", "XY"])
def test_max_is_a_word_whatever_the_ticker(ticker):
    amounts, codes, unread = _group(["max 5000", "Max 0.5 ETH"], "", [ticker, ticker])
    assert all(map(math.isnan, amounts)) and codes == [None, None]
    assert unread == [("max 5000", "vague"), ("Max 0.5 ETH", "vague")]


def test_a_lone_m_glued_to_the_ticker_is_still_unreadable():
    # "mIN" is not the word min: milli or million IN? (parser 17), not vague
    assert _group(["mIN 5"], "", ["IN"])[2] == [("mIN 5", "unreadable_number")]
    assert _group(["5 mKIN"], "", ["KIN"])[2] == [("5 mKIN", "unreadable_number")]


# --------------------------------------------------------------------------- 8. unit columns


def test_a_unit_columns_text_is_read_once_per_distinct_unit():
    from icoframes.parse import unitcols

    # benchmarks/mutation.py drops the cache in its copy, so that mutmut mutates the body
    cached = hasattr(unitcols._column_unit, "cache_info")
    if cached:
        unitcols._column_unit.cache_clear()
    column = ["USD", " usd", "ETH", "K USD", "KKIN"] * 200
    tickers = ["KIN", "XYZ"] * 500
    amounts, codes, bad = read_amount_group({"v": ["2"] * 1000}, column, tickers=tickers)
    if cached:
        info = unitcols._column_unit.cache_info()
        assert (info.misses, info.hits) == (5, 995)
    # the same values as without the cache: currencies as written, K USD thousands of USD,
    # KKIN for KIN unreadable (another token, or thousands of KIN?), for XYZ a ticker
    assert codes.tolist()[:10] == ["USD", "USD", "ETH", "USD", None,
                                   "USD", "USD", "ETH", "USD", "KKIN"]
    first = amounts["v"][:10].tolist()
    assert math.isnan(first[4]) and first[:4] + first[5:] == [2.0, 2.0, 2.0, 2000.0,
                                                              2.0, 2.0, 2.0, 2000.0, 2.0]
    assert bad["v"].rows == list(range(4, 1000, 10))

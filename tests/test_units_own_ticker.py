"""Amounts read with the ICO's own ticker, a multiplier in the unit column, a final dot after a
written unit, a symbol after a glued currency (parser versions 16 and 17).

Each case was a wrong value given silently, or a value lost, before version 16:
``"1,000,000 kUSD"`` for an ICO of KUSD was 1e9 USD, ``"$1 = 5KKIN"`` for KIN 0.2 USD (1000x),
``"2 mKIN = $1"`` for KIN 0.5 USD, a unit column ``"kUSD"`` the token KUSD, ``"5 USD."`` and
``"5MUSD$"`` unreadable. A multiplier in capitals glued to the ICO's own ticker (``"5KKIN"``,
``"1 MOD = 0.5 USD"`` for OD, ``"5 MANA"`` for ANA) is unreadable since version 17: in 16 it
multiplied (``"1 MOD = 0.5 USD"`` was 5e-7 USD), and it may as well be another token's ticker.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from icoframes.parse.prices import split_multiplier
from icoframes.parse.units import read_amount_group, read_amounts, read_price


def _read(values: list, units: list, tickers: list | None = None):
    amounts, codes, bad = read_amount_group({"v": values}, units, tickers=tickers)
    return amounts["v"].tolist(), codes.tolist(), (bad["v"].values, bad["v"].reasons)


# --------------------------------------------------------------------------- the ICO's ticker

@pytest.mark.parametrize(("value", "unit", "ticker", "number", "code"), [
    # the ICO's own ticker is never a multiplier glued to a currency (was 1e9 USD)
    ("1,000,000 kUSD", "", "KUSD", 1e6, "KUSD"), ("1,000,000 kUSD", "KUSD", "KUSD", 1e6, "KUSD"),
    ("1,000,000 kUSD", "", " kusd ", 1e6, "KUSD"), ("2 Meur", "", "MEUR", 2.0, "MEUR"),
    # a lowercase multiplier glued to the ICO's own ticker multiplies it (was 5 KKIN)
    ("5kKIN", "", "KIN", 5e3, "KIN"), ("5 kKIN", "KIN", "KIN", 5e3, "KIN"),
    ("2mioKIN", "", "kin", 2e6, "KIN"), ("1.5bnKIN", "", "KIN", 1.5e9, "KIN"),
    ("5bKIN", "", "KIN", 5e9, "KIN"),
    # another ICO's ticker, or none: as before (all capitals is a ticker, "thousandUSD"
    # thousands of USD; "kUSD" is unreadable since parser 26, test_parse_v26; a ticker no
    # list knows is a unit in a value as the ICO's own only, since parser 34: below)
    ("1,000 thousandUSD", "", "XYZ", 1e6, "USD"), ("1,000 thousandUSD", "", None, 1e6, "USD"),
    ("5KKIN", "", "KKIN", 5.0, "KKIN"),
    # a known unit stays that unit, whatever the ICO's ticker ends with
    ("5 BTC", "", "TC", 5.0, "BTC"), ("5 BNB", "", "NB", 5.0, "BNB"), ("5 kBTC", "", "BTC", 5e3,
                                                                        "BTC"),
])
def test_an_amount_reads_the_icos_own_ticker(value, unit, ticker, number, code):
    assert _read([value], [unit], [ticker]) == ([number], [code], ([], []))


@pytest.mark.parametrize("ticker", ["XYZ", None])
def test_another_icos_ticker_that_no_list_knows_is_no_unit_in_a_value(ticker):
    # parser 34: "5KKIN" for XYZ or no ticker was 5 KKIN (a made-up unit as "5M required")
    amounts, codes, bad = _read(["5KKIN"], [""], [ticker])
    assert math.isnan(amounts[0]) and codes == [None]
    assert bad == (["5KKIN"], ["unknown_unit"])


@pytest.mark.parametrize(("value", "unit", "ticker", "written"), [
    ("5KKIN", "", "KIN", (5.0, "KKIN")), ("5 MKIN", "KIN", "KIN", None),
    ("1.5BKIN", "", "KIN", (1.5, "BKIN")), ("5 KBTC", "", "BTC", (5.0, "KBTC")),
    ("2MioKIN", "", "KIN", (2.0, "MIOKIN")), ("KKIN 5", "", "KIN", (5.0, "KKIN")),
    # in 16 a multiplier and the ticker: 5 million ANA, although MANA is a token of its own
    ("5 MANA", "", "ANA", (5.0, "MANA")), ("1 MOD", "", "OD", (1.0, "MOD")),
])
def test_a_capital_multiplier_glued_to_the_icos_own_ticker_is_unreadable(value, unit, ticker,
                                                                         written):
    amounts, codes, bad = _read([value], [unit], [ticker])
    assert math.isnan(amounts[0]) and codes == [unit or None]
    assert bad == ([value], ["unreadable_number"])
    if written is not None:  # the ticker as written is no multiple (capitals: a ticker)
        assert _read([value], [""], [written[1]]) == ([written[0]], [written[1]], ([], []))


def test_a_lone_lowercase_m_glued_to_the_icos_own_ticker_is_unreadable():
    # milli or million: never one of them silently (was 5 of a unit MKIN)
    amounts, codes, bad = _read(["5 mKIN", "5mKIN"], ["", "KIN"], ["KIN", "KIN"])
    assert math.isnan(amounts[0]) and math.isnan(amounts[1])
    assert bad == (["5 mKIN", "5mKIN"], ["unreadable_number", "unreadable_number"])
    assert codes == [None, "KIN"]
    # an ICO of that ticker: the unit written, as before
    assert _read(["5 mKIN"], [""], ["MKIN"]) == ([5.0], ["MKIN"], ([], []))


@pytest.mark.parametrize(("value", "ticker", "price", "code"), [
    ("$1 = 5kKIN", "KIN", 1 / 5e3, "USD"),  # was 0.2 USD: "KKIN" read as a token
    ("1 mioKIN = $100", "KIN", 100 / 1e6, "USD"), ("1bnKIN = 2 ETH", "KIN", 2 / 1e9, "ETH"),
    ("$1 = 5KKIN", None, 1 / 5, "USD"),  # no ticker: KKIN is the token side, as written
    ("1 MOD = 0.5 USD", None, 0.5, "USD"),  # (for XYZ: whose token? unreadable_price)
])
def test_a_lowercase_multiplier_glued_to_the_icos_own_ticker_in_an_exchange(value, ticker,
                                                                            price, code):
    prices, codes, bad = read_price([value], [""], tickers=[ticker])
    assert prices.tolist() == [pytest.approx(price)] and codes.tolist() == [code]
    assert bad.values == []


@pytest.mark.parametrize("value", ["$1 = 5KKIN", "1 MKIN = $100", "1BKIN = 2 ETH"])
def test_a_capital_multiplier_glued_to_the_icos_own_ticker_in_an_exchange_is_unreadable(value):
    # thousands of KIN, or a token KKIN? 16 multiplied ("1 MOD = 0.5 USD" for OD: 5e-7 USD)
    for ticker, written in (("KIN", value), ("OD", "1 MOD = 0.5 USD")):
        prices, codes, bad = read_price([written], [""], tickers=[ticker])
        assert np.isnan(prices).all() and codes.tolist() == [None]
        assert (bad.values, bad.reasons) == ([written], ["unreadable_price"])


def test_a_lone_lowercase_m_glued_to_the_icos_own_ticker_in_an_exchange_is_unreadable():
    prices, codes, bad = read_price(["2 mKIN = $1", "$1 = 2 mKIN"], ["", ""],
                                    tickers=["KIN", "KIN"])  # "2 mKIN = $1" was 0.5 USD
    assert np.isnan(prices).all() and codes.tolist() == [None, None]
    assert (bad.values, bad.reasons) == (["2 mKIN = $1", "$1 = 2 mKIN"],
                                         ["unreadable_price", "unreadable_price"])


def test_split_multiplier_of_the_icos_own_ticker():
    assert split_multiplier("kKIN", "KIN") == ("k", "KIN")
    assert split_multiplier("mioKIN", "KIN") == ("mio", "KIN")
    assert split_multiplier("bKIN", "KIN") == ("b", "KIN")
    for capital in ("KKIN", "MKIN", "BKIN", "MioKIN", "BNKIN", "kKIN".upper()):
        assert split_multiplier(capital, "KIN") is None  # cannot be told
    assert split_multiplier("KKIN", "XYZ") == ("", "KKIN")
    assert split_multiplier("KKIN", None) == ("", "KKIN")
    assert split_multiplier("KIN", "KIN") == ("", "KIN")
    # without a ticker nothing is ambiguous, not even a lone multiplier (its rest names no unit)
    assert split_multiplier("K", None) == ("", "K") and split_multiplier("MM", None) == ("", "MM")
    assert split_multiplier("mKIN", "KIN") is None  # milli or million: not a multiplier here
    assert split_multiplier("BTC", "TC") == ("", "BTC")
    assert split_multiplier("KKIN", "KKIN") == ("", "KKIN")


def test_tidy_reads_caps_with_the_icos_own_ticker():
    from icoframes import tidy

    tables = tidy([{"id": 1, "main": {"name": "K"},
                    "finance": {"ticker": "KUSD", "hard_cap": "1,000,000 kUSD", "caps_unit": "",
                                "min_purchase": "5kKUSD", "purchase_unit": "",
                                "max_purchase": "5KKUSD"}}])
    icos = tables.icos
    assert icos["hard_cap"].tolist() == [1e6] and icos["caps_unit"].tolist() == ["KUSD"]
    assert icos["min_purchase"].tolist() == [5e3] and icos["purchase_unit"].tolist() == ["KUSD"]
    assert icos["max_purchase"].isna().all()
    problems = tables.problems
    assert problems[["column", "value", "reason"]].values.tolist() == [
        ["max_purchase", "5KKUSD", "unreadable_number"]]


# --------------------------------------------------------------------------- the unit column

@pytest.mark.parametrize(("unit", "ticker", "numbers", "code"), [
    # ("kUSD", "mUSD": unreadable since parser 26, test_parse_v26)
    ("thousandUSD", None, [5e3, 7.0, 5e3], "USD"), (" K usd ", "XYZ", [5e3, 7.0, 5e3], "USD"),
    ("mlnUSD", None, [5e6, 7.0, 5e3], "USD"), ("bnUSD", None, [5e9, 7.0, 5e3], "USD"),
    ("thousand USD", None, [5e3, 7.0, 5e3], "USD"),
])
def test_a_multiplier_glued_to_the_unit_columns_currency_multiplies_plain_numbers(
        unit, ticker, numbers, code):
    # a value that writes its currency is read as written ("$7", "5k USD"); one that writes a
    # multiplier alone ("5k": 5,000 thousands, or 5 thousands?) is unreadable (parser 23)
    values = ["5", "$7", "5k USD", "5k"]
    amounts, codes, unread = _read(values, [unit] * 4, [ticker] * 4)
    assert amounts[:3] == numbers and math.isnan(amounts[3]) and codes == [code] * 4
    assert unread == (["5k"], ["unreadable_number"])


@pytest.mark.parametrize(("unit", "ticker", "number", "code"), [
    ("KUSD", None, 5.0, "KUSD"),  # all capitals: a ticker, as documented
    ("kUSD", "KUSD", 5.0, "KUSD"),  # the ICO's own token
    ("mETH", None, 5.0, "METH"),  # a lone m before a crypto code: milli, no multiplier
    ("kKIN", "KIN", 5e3, "KIN"),  # thousands of the ICO's own token
])
def test_a_unit_column_that_is_a_ticker_stays_one(unit, ticker, number, code):
    assert _read(["5"], [unit], [ticker]) == ([number], [code], ([], []))


def test_a_unit_columns_multiplier_beyond_a_float_is_infinite():
    big = "1" + "0" * 306  # 1e306 in digits ("1e306" writes an exponent: unreadable, parser 24)
    amounts, codes, bad = _read([1e306, big, 5], ["K USD"] * 3)
    assert math.isnan(amounts[0]) and math.isnan(amounts[1]) and amounts[2] == 5e3
    assert bad == ([1e306, big], ["infinite", "infinite"]) and codes == ["USD"] * 3


def test_a_unit_columns_multiplier_and_a_conflicting_value():
    amounts, codes, bad = _read(["5 ETH", "-5"], ["K USD", "K USD"])
    assert math.isnan(amounts[0]) and math.isnan(amounts[1]) and codes == ["USD", "USD"]
    assert bad == (["5 ETH", "-5"], ["unit_conflict", "negative"])


def test_tidy_reads_a_multiplier_in_the_unit_column():
    from icoframes import tidy

    tables = tidy([{"id": 1, "main": {"name": "K"},
                    "finance": {"ticker": "XYZ", "soft_cap": 500, "hard_cap": "2,000",
                                "caps_unit": "K USD", "token_price": "0.5",
                                "token_price_unit": "K USD"}},
                   {"id": 2, "main": {"name": "L"},
                    "finance": {"ticker": "KUSD", "hard_cap": 2000, "caps_unit": "kUSD"}}])
    icos = tables.icos.set_index("id")
    assert icos.loc[1, ["soft_cap", "hard_cap"]].tolist() == [5e5, 2e6]
    assert icos.loc[1, "caps_unit"] == "USD"
    assert icos.loc[2, "hard_cap"] == 2000.0 and icos.loc[2, "caps_unit"] == "KUSD"
    # no scale word scales a price (parser 23; it was 500 USD per token): no unit, a problem
    assert pd.isna(icos.loc[1, "token_price"]) and pd.isna(icos.loc[1, "token_price_unit"])
    assert tables.problems[["column", "value", "reason"]].values.tolist() == [
        ["token_price_unit", "K USD", "unreadable_unit"], ["token_price", "0.5", "unreadable_unit"]]


# --------------------------------------------------------------------------- written units

@pytest.mark.parametrize(("value", "number", "code"), [
    ("5 USD.", 5.0, "USD"), ("5USD.", 5.0, "USD"), ("5 Ether.", 5.0, "ETH"),
    ("$5 USD.", 5.0, "USD"), ("5k USD.", 5e3, "USD"), ("5bnUSD.", 5e9, "USD"),
    ("5 USD. ", 5.0, "USD"), ("2,000,000 XYZ.", 2e6, "XYZ"),
])
def test_a_final_dot_after_a_written_unit(value, number, code):
    assert _read([value], [""], ["XYZ"]) == ([number], [code], ([], []))


def test_a_final_dot_is_no_unit():
    amounts, codes, bad = _read(["5 USD..", "5 U.S.D.", "5 ."], [""] * 3)
    assert all(map(math.isnan, amounts)) and codes == [None] * 3
    assert bad[1] == ["unreadable_number", "unreadable_number", "grouping"]


@pytest.mark.parametrize(("value", "number"), [
    ("5MUSD$", 5e6), ("5 MUSD$", 5e6), ("5KUSD$", 5e3), ("5kUSD$", 5e3),
    # ("1.5BUSD$": the token BUSD and a dollar sign, or billions? unreadable since parser 26)
])
def test_a_capital_multiplier_glued_to_a_currency_ending_in_a_symbol(value, number):
    # "USD$" ends in a symbol: no ticker (was unreadable)
    assert _read([value], [""]) == ([number], ["USD"], ([], []))
    amounts, _codes, bad = _read([value], ["ETH"])  # never 5,000,000 ETH
    assert math.isnan(amounts[0]) and bad == ([value], ["unit_conflict"])


def test_read_amounts_without_tickers_is_unchanged_for_all_capitals():
    # tickers no list knows: no unit in a value without the ICO's ticker (parser 34)
    amounts, codes, bad = read_amounts(["5KKIN", "5MUSD"], ["", ""])
    assert np.isnan(amounts).all() and codes.tolist() == [None, None]
    assert bad.reasons == ["unknown_unit"] * 2
    assert _read(["5KKIN", "5MUSD"], ["", ""], ["KKIN", "MUSD"])[:2] == ([5.0, 5.0],
                                                                          ["KKIN", "MUSD"])


@pytest.mark.parametrize(("value", "unit", "ticker", "number", "code"), [
    # a multiplier glued to a currency written before the number (was 1,000 of a token KUSD)
    # ("kUSD 1,000" for another ICO: unreadable since parser 26, test_parse_v26)
    ("thousandUSD 1,000", "", None, 1e6, "USD"), ("bnUSD 1", "USD", "XYZ", 1e9, "USD"),
    ("-bnUSD 5", "", None, math.nan, "USD"), ("mioEUR 2", "", None, 2e6, "EUR"),
    ("M$ 5", "", None, 5e6, "USD"), ("thousandUSD 5 USD", "", None, 5e3, "USD"),
    # the ICO's own ticker, and all capitals, as after the number
    ("kUSD 1,000", "", "KUSD", 1e3, "KUSD"), ("kKIN 5", "", "KIN", 5e3, "KIN"),
    ("KUSD 5", "", "KUSD", 5.0, "KUSD"),
])
def test_a_multiplier_glued_to_a_currency_before_the_number(value, unit, ticker, number, code):
    amounts, codes, bad = _read([value], [unit], [ticker])
    assert amounts == [pytest.approx(number, nan_ok=True)] and codes == [code]
    assert bad == (([value], ["negative"]) if value.startswith("-") else ([], []))


def test_a_lone_lowercase_m_glued_to_the_icos_own_ticker_before_the_number_is_unreadable():
    amounts, codes, bad = _read(["mKIN 5"], [""], ["KIN"])
    assert math.isnan(amounts[0]) and codes == [None]
    assert bad == (["mKIN 5"], ["unreadable_number"])


@pytest.mark.parametrize("unit", ["KKIN", "mKIN", "MKIN", " kKIN".upper()])
def test_a_unit_column_whose_multiplier_cannot_be_told_leaves_its_numbers_unread(unit):
    # it was 5 of a unit KKIN or MKIN with no problem, while the value "5 KKIN" was refused
    amounts, codes, bad = _read(["5", "$7", "5 KIN", None], [unit] * 4, ["KIN"] * 4)
    assert math.isnan(amounts[0]) and amounts[1:3] == [7.0, 5.0] and math.isnan(amounts[3])
    assert codes == [None, "USD", "KIN", None]  # a value that writes its unit is read as written
    assert bad == (["5"], ["unreadable_unit"])
    # another ICO's ticker: the unit as written, as before
    assert _read(["5"], [unit.strip()], ["XYZ"]) == ([5.0], [unit.strip().upper()], ([], []))

"""Prices in every common form and amounts in any unit (issue 20 parts 3, 4), through tidy.

A value that stays unread is a row of ``problems`` with its reason: ``range``,
``vague``, ``unreadable_price``, ``unit_conflict``, ``unreadable_number``.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from messy_profiles import clean_profile, with_

from icoframes.parse.profiles import tidy
from icoframes.tables import Tables


def problem_values(tables: Tables, column: str) -> list[tuple[str, str]]:
    """(value, reason) of each problem row of ``column``."""
    frame = tables.problems
    mine = frame[frame["column"] == column]
    return list(zip(mine["value"], mine["reason"], strict=True))


def price_of(raw: object, ticker: object = "", unit: object = "") -> tuple[float, object, list]:
    tables = tidy([with_(clean_profile(), {"finance.token_price": raw, "finance.ticker": ticker,
                                           "finance.token_price_unit": unit})])
    row = tables.icos.iloc[0]
    return row["token_price"], row["token_price_unit"], problem_values(tables, "token_price")


@pytest.mark.parametrize(("raw", "ticker", "price", "unit"), [
    # ICObench's own form: the token on the left
    ("1 KBX = 0.00011 ETH", "KBX", 0.00011, "ETH"),
    ("1 HIX = 0.01 EUR", "HIX", 0.01, "EUR"),
    ("1 TNT = $0.071", "TNT", 0.071, "USD"),
    ("1 TNT = 0.071 USD", "TNT", 0.071, "USD"),
    ("1 UTRUST = $0,065", "UTRUST", 0.065, "USD"),  # decimal comma in a price
    # several tokens for an amount, the currency first, the dollar alone
    ("50 AIR = $1", "AIR", 0.02, "USD"),
    ("$1 = 6820 KIN", "KIN", 1 / 6820, "USD"),
    ("$1 = 6,820 KIN", "", 1 / 6820, "USD"),  # no ticker: KIN is no currency
    ("5 USD = 1 FIL", "FIL", 5.0, "USD"),
    ("1 ETH = 3,000 XYZ", "XYZ", 1 / 3000, "ETH"),
    ("1 ETH = 3000 XYZ", "", 1 / 3000, "ETH"),
    ("0.5 BTC = 1M XYZ", "XYZ", 0.5e-6, "BTC"),
    ("1 Ether = 500 ABC", "ABC", 1 / 500, "ETH"),
    ("1 ABC = 2 EOS", "ABC", 2.0, "EOS"),
    ("1 EOS = 0.01 ETH", "EOS", 0.01, "ETH"),  # the ticker decides between two currencies
    ("1 КВХ = 0.00011 ЕТН", "KBX", 0.00011, "ETH"),  # look-alike letters
    ("1 KBX = 0\u200b.00011 ETH", "KBX", 0.00011, "ETH"),
    ("1 KBX = 0.00011 ETH", "kbx", 0.00011, "ETH"),
    ("1PSTS = 20¢", "PSTS", 0.2, "USD"),
    ("1 MANA = 0.024 USD", "MANA", 0.024, "USD"),  # M is not a multiplier here
    ("1 = 0.5 ETH", "", 0.5, "ETH"),  # the side without a unit is the token
    ("1ETH=500", "", 1 / 500, "ETH"),
])
def test_exchange_prices(raw, ticker, price, unit):
    value, code, problems = price_of(raw, ticker)
    assert value == pytest.approx(price) and code == unit and problems == []


@pytest.mark.parametrize(("raw", "ticker", "unit", "reason"), [
    ("1 ETH = 3640-3367 IML", "IML", "", "range"),  # a range is not one price (was 1/3640)
    ("1 ETH = 725-800 BTT", "BTT", "", "range"),  # (was 1/725)
    ("1 ETH = 725 - 800 BTT", "BTT", "", "range"),
    ("1PSTS = 20¢ (25¢ AFTER SEPT 18)", "PSTS", "", "vague"),
    ("1 ETH = 1000 ABC (bonus 20%)", "ABC", "", "vague"),
    ("1 ETH = ~1000 ABC", "ABC", "", "vague"),
    ("1 ETH = 500 USD", "", "", "unreadable_price"),  # two currencies, no ticker naming either
    ("1 ABC = 2 XYZ", "", "", "unreadable_price"),  # neither is a currency and no ticker
    ("1 ETH = 0 XYZ", "XYZ", "", "unreadable_price"),
    ("1 ETH = $5 EUR", "", "", "unit_conflict"),
    ("1 KBX = 0.00011 ETH", "KBX", "USD", "unit_conflict"),  # the unit column says USD
    ("1 ETH = 2000 XYZ = 1 BTC", "XYZ", "", "range"),
    ("1 ETH = 3,000-4,000 XYZ", "XYZ", "", "range"),
    ("Dynamic, see whitepaper", "", "", "unreadable_number"),
    ("-0.5 USD", "", "", "negative"),
])
def test_exchange_prices_that_stay_problems(raw, ticker, unit, reason):
    value, _, problems = price_of(raw, ticker, unit)
    assert math.isnan(value) and problems == [(raw, reason)]


@pytest.mark.parametrize(("path", "unit_path", "column", "unit_column", "raw", "number", "code"), [
    ("finance.min_purchase", "finance.purchase_unit", "min_purchase", "purchase_unit",
     "500 BFC", 500.0, "BFC"),
    ("finance.hard_cap", "finance.caps_unit", "hard_cap", "caps_unit",
     "4,000,000 ICX", 4_000_000.0, "ICX"),
    ("finance.hard_cap", "finance.caps_unit", "hard_cap", "caps_unit",
     "6,535,424 TAY", 6_535_424.0, "TAY"),
    ("finance.hard_cap", "finance.caps_unit", "hard_cap", "caps_unit",
     "6,535,424 tay", 6_535_424.0, "TAY"),
    ("finance.max_purchase", "finance.purchase_unit", "max_purchase", "purchase_unit",
     "ICX 100", 100.0, "ICX"),
])
def test_amounts_in_any_unit_keep_their_unit(path, unit_path, column, unit_column, raw, number,
                                            code):
    # a token no list knows (BFC, TAY) is the unit of the ICO of that ticker (parser 34)
    tables = tidy([with_(clean_profile(), {path: raw, unit_path: "", "finance.ticker": code})])
    row = tables.icos.iloc[0]
    assert row[column] == number and row[unit_column] == code
    assert problem_values(tables, column) == []


@pytest.mark.parametrize("raw", ["500 BFC", "6,535,424 TAY", "6,535,424 tay", "BFC 100",
                                 "Price 0.1", "5M required"])
def test_a_word_naming_no_unit_known_is_no_unit_of_another_ico(raw):
    # parser 34: 500 BFC, 6535424 TAY for the ICO of AQB, and 0.1 PRICE, 5e6 REQUIRED: made-up
    # units a word and another ICO's ticker alike, no row
    tables = tidy([with_(clean_profile(), {"finance.hard_cap": raw, "finance.caps_unit": ""})])
    row = tables.icos.iloc[0]
    assert math.isnan(row["hard_cap"]) and pd.isna(row["caps_unit"])
    assert problem_values(tables, "hard_cap") == [(raw, "unknown_unit")]


@pytest.mark.parametrize("raw", ["500 tokens", "19 days", "100 per person", "500 BFC each"])
def test_words_that_are_no_unit_stay_problems(raw):
    tables = tidy([with_(clean_profile(), {"finance.min_purchase": raw,
                                           "finance.purchase_unit": ""})])
    assert math.isnan(tables.icos.loc[0, "min_purchase"])
    assert problem_values(tables, "min_purchase") == [(raw, "unreadable_number")]


def test_a_ticker_unit_that_contradicts_the_unit_column_is_a_problem():
    tables = tidy([with_(clean_profile(), {"finance.hard_cap": "4,000,000 ICX",
                                           "finance.caps_unit": "USD"})])
    assert math.isnan(tables.icos.loc[0, "hard_cap"])
    assert problem_values(tables, "hard_cap") == [("4,000,000 ICX", "unit_conflict")]


def test_caps_in_two_different_tickers_are_not_combined():
    tables = tidy([with_(clean_profile(), {"finance.soft_cap": "1,000 ICX",
                                           "finance.hard_cap": "500 BFC",
                                           "finance.caps_unit": "", "finance.ticker": "BFC"})])
    row = tables.icos.iloc[0]
    # the shared unit cannot be both: neither amount is kept, both are reported
    assert math.isnan(row["soft_cap"]) and math.isnan(row["hard_cap"])
    assert pd.isna(row["caps_unit"])  # NaN in pandas 3's str dtype, pd.NA in pandas 2.2's
    assert problem_values(tables, "soft_cap") == [("1,000 ICX", "unit_conflict")]
    assert problem_values(tables, "hard_cap") == [("500 BFC", "unit_conflict")]

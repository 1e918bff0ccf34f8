"""Multipliers glued to a currency (``"5kUSD"``, parser version 11): the rules mutants of
parse/units.py and parse/prices.py survived (`make mutate MODULE=parse:units+prices+rules`).

A multiplier written apart from the unit is the only multiplier: the unit after it is read
as written (``"5k kUSD"`` is 5,000 KUSD), in an amount as in either side of an exchange.
A multiplier in capitals glued to any currency symbol multiplies, ``Ξ`` too, though
``str.isalpha`` calls it a letter (``"5KΞ"`` is 5,000 ETH).
"""

from __future__ import annotations

import numpy as np
import pytest

from icoframes.parse.prices import split_multiplier
from icoframes.parse.units import read_amount_group, read_amounts, read_price


@pytest.mark.parametrize(("value", "number", "unit"), [
    ("5k kUSD", 5e3, "KUSD"), ("5 k kUSD", 5e3, "KUSD"), ("5 thousand kUSD", 5e3, "KUSD"),
    ("5 m kUSD", 5e6, "KUSD"), ("2M mioEUR", 2e6, "MIOEUR"),
])
def test_a_multiplier_written_apart_leaves_a_glued_looking_unit_as_written(value, number,
                                                                            unit):
    # (the ICO's own ticker: parser 34 reads no other ticker unknown to its lists in a value)
    amounts, units, bad = read_amount_group({"v": [value]}, [""], tickers=[unit])
    assert (amounts["v"].tolist(), units.tolist(), bad["v"].values) == ([number], [unit], [])


def test_a_multiplier_written_apart_in_an_exchange_leaves_the_unit_as_written():
    # a price in KUSD, never thousands of USD: a unit no list knows (parser 34: was KUSD)
    prices, units, bad = read_price(["5k kUSD = 1M XYZ", "1 XYZ = 5 k kUSD"], ["", ""],
                                    tickers=["XYZ", "XYZ"])
    assert np.isnan(prices).all() and units.tolist() == [None, None]
    assert bad.reasons == ["unknown_unit"] * 2


@pytest.mark.parametrize(("value", "number", "unit"), [
    # Ξ is a symbol, though a letter to str.isalpha: in capitals it multiplies as before $ or ₿
    ("5KΞ", 5e3, "ETH"), ("5kΞ", 5e3, "ETH"), ("1.5BNΞ", 1.5e9, "ETH"), ("5K₿", 5e3, "BTC"),
    ("5Kus$", 5e3, "USD"), ("1.5Bus$", 1.5e9, "USD"),
])
def test_a_multiplier_in_capitals_glued_to_any_currency_symbol_multiplies(value, number, unit):
    amounts, units, bad = read_amounts([value], [""])
    assert (amounts.tolist(), units.tolist(), bad.values) == ([number], [unit], [])


@pytest.mark.parametrize(("value", "ticker", "price", "unit"), [
    # a multiplier glued to the ICO's own ticker multiplies it ("5kKIN" was 5 'KKIN': 1000x)
    ("$1 = 5kKIN", "KIN", 1 / 5e3, "USD"), ("$1 = 5 kKIN", "KIN", 1 / 5e3, "USD"),
    ("2mioKIN = 1 ETH", "kin", 1 / 2e6, "ETH"), ("1 ETH = 1.5bnKIN", "KIN", 1 / 1.5e9, "ETH"),
    # the ICO's own ticker is never a multiplier glued to a currency ("kUSD" for KUSD)
    ("1 kUSD = 0.01 ETH", "KUSD", 0.01, "ETH"), ("1 Meur = 0.5 ETH", "MEUR", 0.5, "ETH"),
    ("1 kUSD = 0.01 ETH", " kusd ", 0.01, "ETH"),
    # any other ticker: as before ("5thousandUSD" is 5,000 USD, "5kUSD" unreadable since parser
    # 26; "5KKIN" all in capitals is a ticker)
    ("5thousandUSD = 1M XYZ", "XYZ", 5e3 / 1e6, "USD"), ("$1 = 5KKIN", "KKIN", 1 / 5, "USD"),
])
def test_the_icos_own_ticker_in_an_exchange_takes_a_glued_multiplier_and_is_never_one(
        value, ticker, price, unit):
    prices, units, bad = read_price([value], [""], tickers=[ticker])
    assert prices.tolist() == [pytest.approx(price)] and units.tolist() == [unit]
    assert bad.values == []


def test_without_the_icos_ticker_a_glued_looking_unit_is_read_as_before():
    prices, units, bad = read_price(["1 kUSD = 0.01 ETH", "$1 = 5kKIN"], ["", ""],
                                    tickers=[None, ""])
    assert prices.tolist()[1] == 1 / 5 and units.tolist() == [None, "USD"]
    assert (bad.values, bad.reasons) == (["1 kUSD = 0.01 ETH"], ["unreadable_price"])


@pytest.mark.parametrize("unit", ["kTBA", "k", "mn/a"])
@pytest.mark.parametrize("token", [None, "KIN"])
def test_a_multiplier_before_no_unit_at_all_is_no_glued_multiplier(unit, token):
    # the rest names no unit (a missing marker, nothing): no currency, and never "the token"
    assert split_multiplier(unit, token) == ("", unit)
    amounts, units, bad = read_amount_group({"v": ["5kTBA"]}, [""], tickers=["KTBA"])
    assert (amounts["v"].tolist(), units.tolist(), bad["v"].values) == ([5.0], ["KTBA"], [])
    amounts, units, bad = read_amounts(["5kTBA"], [""])  # another ICO's: no unit known
    assert np.isnan(amounts).all() and bad.reasons == ["unknown_unit"]

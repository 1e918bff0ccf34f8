"""Multipliers glued to a currency (``"5kUSD"``, parser version 11): the rules mutants of
parse/units.py and parse/prices.py survived (`make mutate MODULE=parse:units+prices+rules`).

A multiplier written apart from the unit is the only multiplier: the unit after it is read
as written (``"5k kUSD"`` is 5,000 KUSD), in an amount as in either side of an exchange.
A multiplier in capitals glued to any currency symbol multiplies, ``Ξ`` too, though
``str.isalpha`` calls it a letter (``"5KΞ"`` is 5,000 ETH).
"""

from __future__ import annotations

import pytest

from icoframes.parse.units import read_amounts, read_price


@pytest.mark.parametrize(("value", "number", "unit"), [
    ("5k kUSD", 5e3, "KUSD"), ("5 k kUSD", 5e3, "KUSD"), ("5 thousand kUSD", 5e3, "KUSD"),
    ("5 m kUSD", 5e6, "KUSD"), ("2M mioEUR", 2e6, "MIOEUR"),
])
def test_a_multiplier_written_apart_leaves_a_glued_looking_unit_as_written(value, number,
                                                                            unit):
    amounts, units, bad = read_amounts([value], [""])
    assert (amounts.tolist(), units.tolist(), bad.values) == ([number], [unit], [])


def test_a_multiplier_written_apart_in_an_exchange_leaves_the_unit_as_written():
    prices, units, bad = read_price(["5k kUSD = 1M XYZ", "1 XYZ = 5 k kUSD"], ["", ""],
                                    tickers=["XYZ", "XYZ"])
    assert prices.tolist() == [5e3 / 1e6, 5e3] and units.tolist() == ["KUSD", "KUSD"]
    assert bad.values == []


@pytest.mark.parametrize(("value", "number", "unit"), [
    # Ξ is a symbol, though a letter to str.isalpha: in capitals it multiplies as before $ or ₿
    ("5KΞ", 5e3, "ETH"), ("5kΞ", 5e3, "ETH"), ("1.5BNΞ", 1.5e9, "ETH"), ("5K₿", 5e3, "BTC"),
    ("5Kus$", 5e3, "USD"), ("1.5Bus$", 1.5e9, "USD"),
])
def test_a_multiplier_in_capitals_glued_to_any_currency_symbol_multiplies(value, number, unit):
    amounts, units, bad = read_amounts([value], [""])
    assert (amounts.tolist(), units.tolist(), bad.values) == ([number], [unit], [])

"""Parser 34 after its review: each test fails on the branch before these fixes (3d4c3f9).

- a scale letter glued before a dollar with a country's letters was read as a multiplier:
  ``"BR$0.5"`` 5e8 BRL, ``"BS$10"`` 1e10 SGD, ``"MA$10"`` 1e7 AUD (parser 33: unreadable);
- ``unknown_unit`` was claimed for a known code before a number whose tail breaks it
  (``"CHF 10.-"``, ``"EUR 10,-"``): the code is known, the number is unreadable;
- real currencies, tokens and currency words no list knew were ``unknown_unit``;
- a ticker written ``"$XYZ"`` was no ticker XYZ for its own prices.
"""

from __future__ import annotations

import math

import pytest

from icoframes.parse.units import read_price


def _price(value: str, ticker: str | None = "XYZ", unit: str = "") -> tuple[float, object, object]:
    numbers, units, problems = read_price([value], [unit], tickers=[ticker])
    return numbers[0], units[0], dict(zip(problems.rows, problems.reasons)).get(0)


@pytest.mark.parametrize("value", [
    "BR$0.5", "5 BR$", "5BR$", "BS$10", "MR$1", "kR$10", "0.5 mR$", "MA$10", "KA$10", "BA$10",
    "MC$10", "BC$1", "KS$5", "MHK$10", "MNZ$1", "MSG$1", "5 MA$"])
def test_a_scale_letter_before_a_dollar_with_country_letters_is_no_multiplier(value):
    number, unit, reason = _price(value)
    assert math.isnan(number) and unit is None and reason == "unreadable_number"


@pytest.mark.parametrize(("value", "number", "unit"), [
    ("M$10", 1e7, "USD"), ("KUS$10", 1e4, "USD"), ("A$10M", 1e7, "AUD"), ("R$5M", 5e6, "BRL"),
    ("K€5", 5e3, "EUR")])
def test_a_scale_before_a_letterless_symbol_or_after_any_still_multiplies(value, number, unit):
    assert _price(value)[:2] == (number, unit)


@pytest.mark.parametrize("value", ["CHF 10.-", "CHF 10.–", "EUR 10,-", "EUR 100,-", "ETH 0.1~",
                                   "USD 10 min", "XYZ 10.-"])
def test_a_known_code_is_not_the_unknown_word_when_the_tail_breaks_the_number(value):
    number, unit, reason = _price(value)
    assert math.isnan(number) and reason == "unreadable_number"


def test_an_unknown_word_before_a_broken_number_still_is_unknown_unit():
    assert _price("ABC 10.-")[2] == "unknown_unit"

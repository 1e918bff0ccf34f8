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

from icoframes.parse.units import read_price, written_amount


def _price(value: str, ticker: str | None = "XYZ", unit: str = "") -> tuple[float, object, object]:
    numbers, units, problems = read_price([value], [unit], tickers=[ticker])
    return numbers[0], units[0], dict(zip(problems.rows, problems.reasons, strict=True)).get(0)


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
    number, _unit, reason = _price(value)
    assert math.isnan(number) and reason == "unreadable_number"


def test_an_unknown_word_before_a_broken_number_still_is_unknown_unit():
    assert _price("ABC 10.-")[2] == "unknown_unit"


@pytest.mark.parametrize(("value", "number", "unit"), [
    ("5 INR", 5.0, "INR"), ("MXN 0.1", 0.1, "MXN"), ("5M SEK", 5e6, "SEK"), ("0.1 pln", 0.1, "PLN"),
    ("5 TRY", 5.0, "TRY"), ("10 TOP", 10.0, "TOP"), ("5 PEN", 5.0, "PEN"),
    ("100 rubles", 100.0, "RUB"), ("100 Roubles", 100.0, "RUB"), ("1000 руб", 1000.0, "RUB"),
    ("500 yen", 500.0, "JPY"), ("10 pounds sterling", 10.0, "GBP"),
    ("0.01 GAS", 0.01, "GAS"), ("5 NAS", 5.0, "NAS"), ("5 ONG", 5.0, "ONG"), ("5 ARK", 5.0, "ARK"),
    ("5 KIN", 5.0, "KIN"), ("5 VEN", 5.0, "VEN"), ("5 USDS", 5.0, "USDS"),
    ("5 Tron", 5.0, "TRX"), ("5 Cardano", 5.0, "ADA"), ("5 Monero", 5.0, "XMR"),
    ("5 Zcash", 5.0, "ZEC"), ("5 Lisk", 5.0, "LSK"), ("5 VeChain", 5.0, "VET")])
def test_iso_currencies_currency_words_ico_era_tickers_and_token_names_are_units(value, number,
                                                                                 unit):
    assert _price(value)[:2] == (number, unit)


def test_an_exchange_in_an_ico_era_token_reads():
    assert _price("1 XYZ = 0.01 GAS")[:2] == (0.01, "GAS")


@pytest.mark.parametrize(("value", "unit"), [("1 XYZ = 0.0001 ₿", "BTC"), ("0.0001 ₿", "BTC"),
                                             ("1 XYZ = 900 ₩", "KRW"), ("0.1 Ξ", "ETH")])
def test_every_currency_sign_reads_after_the_number(value, unit):
    # the unit after a number takes every sign SYMBOL_CHARS has (one list, not a copy)
    assert _price(value)[:2] == (float(value.split()[-2]), unit)


@pytest.mark.parametrize("value", ["5 try", "10 top", "5M mad", "5 pen", "0.1 gas", "5M kin"])
def test_english_words_among_the_codes_are_units_only_in_capitals(value):
    number, unit, reason = _price(value)
    assert math.isnan(number) and unit is None and reason == "unknown_unit"


@pytest.mark.parametrize(("value", "number", "unit"), [
    ("1 XYZ = 0.1 USD", 0.1, "USD"), ("5000 XYZ", 5000.0, "XYZ"), ("500M XYZ", 5e8, "XYZ")])
def test_a_ticker_written_as_a_cashtag_is_the_ticker(value, number, unit):
    if "=" in value:
        assert _price(value, ticker="$XYZ")[:2] == (number, unit)
    else:  # an amount of the token (a price in its own token is none: parser 36)
        assert written_amount(value, "$XYZ") == (number, unit)


@pytest.mark.parametrize(("value", "number"), [("5 millions$", 5e6), ("5 thousands$", 5e3)])
def test_a_plural_scale_word_before_a_dollar_still_multiplies(value, number):
    assert _price(value)[:2] == (number, "USD")

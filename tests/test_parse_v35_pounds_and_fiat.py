"""Parser 35 and the currencies around it: pounds, C$, fiat accepted, the symbol table.

Each test below that changes a reading fails on main (7759c04):

- ``accepts_fiat`` counted only the 14 codes of ``FIAT_CODES``: an ICO accepting ``INR``,
  ``PLN`` or ``TRY`` (ISO 4217 codes the parser reads beside a number) accepted no fiat
  (``ALL`` and ``TOP`` in an accepting list are words, no fiat, as on main);
- a bare ``"pounds"`` (``"2M pounds"``) was ``unknown_unit``, and a unit column ``"pounds"``
  the made-up unit ``POUNDS``;
- ``"5 k.₩"`` and ``"5 k.₽"`` were ``unreadable_number`` while ``"5 k.€"`` was 5,000 EUR: the
  signs after a dotted scale word were a hand copy of ``SYMBOL_CHARS`` that lacked ₩ and ₽.

``C$`` stays the Canadian dollar (it is also the Nicaraguan córdoba's sign, which ICO data
write by its code, NIO), and the symbols are the spellings of ``UNIT_ALIASES`` (one table).
"""

from __future__ import annotations

import math

import pytest
from messy_profiles import clean_profile, with_

from icoframes.features import compute_features
from icoframes.parse.profiles import tidy
from icoframes.parse.scales import SYMBOLS, canonical_unit, government_currency
from icoframes.parse.units import read_amounts, read_price, written_amount
from icoframes.vocabulary import (
    ACCEPTING_WORDS,
    CAPITALS_ONLY,
    ISO_CURRENCY_CODES,
    UNIT_ALIASES,
)


def _fiat(accepting: object) -> bool:
    tables = tidy([with_(clean_profile(), {"finance.accepting": accepting})])
    return bool(compute_features(tables).loc[0, "accepts_fiat"])


@pytest.mark.parametrize("accepting", ["ETH, INR", "PLN", ["BTC", "TRY"], "ETH; czk", "ISK"])
def test_an_ico_accepting_an_iso_currency_accepts_fiat(accepting):
    assert _fiat(accepting)


@pytest.mark.parametrize(("accepting", "fiat"), [
    ("EUR, CHF", True), ("AUD", True), ("euro", True), ("pounds", True), ("Fiat", True),
    ("ETH, try", False), ("ETH, All", False), ("ETH, top", False), ("ETH, BTC", False),
    ("ETH, LINK", False)])
def test_fiat_codes_still_count_and_codes_that_are_english_words_only_in_capitals(accepting,
                                                                                   fiat):
    # "try", "All", "top" are words; the codes TRY, ALL, TOP are read only in capitals, as a
    # value beside a number reads them ("5 TRY" is lira, "5 try" no unit)
    assert _fiat(accepting) is fiat


@pytest.mark.parametrize("accepting", [
    "ETH, BTC, ALL", "ALL", ["BTC", "ALL"], "ETH; TOP", "all", "TOP, LTC"])
def test_all_and_top_in_an_accepting_list_are_no_fiat(accepting):
    # "ALL" is all currencies, never the Albanian lek; "TOP" the token sooner than the
    # Tongan pa'anga: vocabulary.ACCEPTING_WORDS, in any case
    assert not _fiat(accepting)


def test_a_fiat_currency_beside_all_still_counts():
    assert _fiat("ETH, ALL, EUR") and _fiat(["ALL", "INR"])
    assert ACCEPTING_WORDS <= ISO_CURRENCY_CODES  # codes a value beside a number still reads
    assert written_amount("5 ALL", "XYZ") == (5.0, "ALL")


def test_every_iso_code_is_a_government_currency_written_as_its_code():
    assert all(government_currency(code) for code in ISO_CURRENCY_CODES)
    words = CAPITALS_ONLY & ISO_CURRENCY_CODES
    assert words and not any(government_currency(code.lower()) for code in words)


@pytest.mark.parametrize(("value", "number"), [
    ("2M pounds", 2e6), ("10 pounds", 10.0), ("1 pound", 1.0), ("Pounds 5,000", 5000.0),
    ("10 pounds sterling", 10.0), ("£2M", 2e6)])
def test_a_bare_pound_is_sterling(value, number):
    assert written_amount(value, "XYZ") == (number, "GBP")


def test_a_pound_of_another_country_is_no_sterling():
    number, unit = written_amount("2M Egyptian pounds", "XYZ")
    assert not isinstance(number, float) and unit is None


def test_a_unit_column_of_pounds_is_gbp_and_a_price_in_pounds_reads():
    amounts, units, bad = read_amounts(["2M", "5 pounds"], ["pounds", ""])
    assert amounts.tolist() == [2e6, 5.0] and units.tolist() == ["GBP", "GBP"]
    assert not bad.rows
    prices, units, bad = read_price(["1 XYZ = 0.5 pounds"], [""], tickers=["XYZ"])
    assert prices.tolist() == [0.5] and units.tolist() == ["GBP"] and not bad.rows


@pytest.mark.parametrize("value", ["C$5M", "5M C$", "CA$5M", "5M CAD"])
def test_c_dollar_is_the_canadian_dollar(value):
    # ICO data write the córdoba as NIO (an ISO code, read as such)
    assert written_amount(value, "XYZ") == (5e6, "CAD")
    assert written_amount("5M NIO", "XYZ") == (5e6, "NIO")


def test_the_symbols_are_the_alias_table_s_spellings():
    assert SYMBOLS == {"$": "USD", "US$": "USD", "€": "EUR", "£": "GBP", "Ξ": "ETH", "₿": "BTC",
                       "₩": "KRW", "₽": "RUB", "A$": "AUD", "AU$": "AUD", "C$": "CAD",
                       "CA$": "CAD", "HK$": "HKD", "S$": "SGD", "SG$": "SGD", "NZ$": "NZD",
                       "R$": "BRL"}
    for symbol, code in SYMBOLS.items():
        assert symbol.casefold() in UNIT_ALIASES[code] or symbol in UNIT_ALIASES[code]
        assert canonical_unit(symbol) == code


@pytest.mark.parametrize(("value", "unit"), [("5 k.₩", "KRW"), ("5 k.₽", "RUB"),
                                             ("5 k.€", "EUR"), ("5 k.Ξ", "ETH")])
def test_a_dotted_scale_word_before_every_sign_scales_it(value, unit):
    # the signs after "k." are SYMBOL_CHARS, not a hand copy that lacked ₩ and ₽
    assert written_amount(value, "XYZ") == (5000.0, unit)


def test_a_price_with_a_symbol_before_reads_by_the_alias_table():
    for value, unit in (("1 XYZ = C$0.5", "CAD"), ("1 XYZ = hk$0.5", "HKD"),
                        ("1 XYZ = Ξ0.5", "ETH")):
        prices, units, bad = read_price([value], [""], tickers=["XYZ"])
        assert prices.tolist() == [0.5] and units.tolist() == [unit], value
    prices, _, bad = read_price(["1 XYZ = BR$0.5"], [""], tickers=["XYZ"])
    assert math.isnan(prices[0]) and bad.reasons == ["unreadable_price"]

"""Parser defects left by parser 23 (parser 24), from a second review of it.

Each test of a reading failed on parser 23: a value applied a scale word that the one rule
(:func:`~icoframes.parse.prices.scaled_currency`) forbids (``"5 m ETH"`` was 5e6 ETH), a
number in scientific notation under a scaling unit column was multiplied twice (``"5e6"``
under ``"USD mln"`` was 5e12 USD), a currency glued to a scale word after it was a made-up
unit (``"USDmln"``), a price under a unit that is a token was kept, and a footnote digit in a
unit column became part of the unit (``"USD¹"`` was ``USD1``).
"""

from __future__ import annotations

import math
from datetime import datetime

import pandas as pd
import pytest
from parse_reading import group as _group
from parse_reading import reason as _reason

from icoframes.parse.base import Bad
from icoframes.parse.dates import parse_datetime, to_label_date
from icoframes.parse.prices import read_exchange, split_scale
from icoframes.parse.rules import parse_amount
from icoframes.parse.supply import read_tokens
from icoframes.parse.text import foreign_digits
from icoframes.parse.units import read_amount_group, read_price


def _unreadable(read: tuple, value: object, reason: str = "unreadable_number") -> None:
    amounts, codes, unread = read
    assert math.isnan(amounts[0]) and codes == [None] and unread == [(value, reason)]


# ------------------------------------------------- H1. a scale word the one rule forbids


@pytest.mark.parametrize("value", ["5 m ETH", "5m ETH", "ETH 5m", "ETH 5 m",
                                   "5 m USDT", "5 m BTC", "5 b ETH", "5 B USD", "5 b USD",
                                   "5 B EUR", "5b USD", "USD 5B"])
def test_a_value_with_a_scale_word_its_currency_forbids_is_unreadable(value):
    # parser 23: "5 m ETH" was 5e6 ETH (milli?), "5 B USD" 5e9 USD, as the unit columns
    # "m ETH" and "B USD" were already unreadable
    for unit in ("", "ETH" if "ETH" in value else "USD"):
        amounts, _, unread = _group([value], unit)
        assert math.isnan(amounts[0]) and unread == [(value, "unreadable_number")]


@pytest.mark.parametrize("value", ["5 m. ETH", "5 b. USD", "ETH 5 m."])
def test_a_forbidden_scale_word_with_a_final_dot_is_unreadable_too(value):
    amounts, _, unread = _group([value], "")
    assert math.isnan(amounts[0]) and unread == [(value, "unreadable_number")]


@pytest.mark.parametrize(("value", "number", "code"), [
    ("5 mln ETH", 5e6, "ETH"), ("5 k ETH", 5e3, "ETH"), ("ETH 5k", 5e3, "ETH"),
    ("5 M USD", 5e6, "USD"), ("5 m EUR", 5e6, "EUR"), ("$5M", 5e6, "USD"), ("$5B", 5e9, "USD"),
    ("5 B$", 5e9, "USD"), ("5 bn USD", 5e9, "USD"), ("USD 5M", 5e6, "USD"), ("5 ETH", 5, "ETH"),
    ("~5M", math.nan, None)])
def test_a_value_with_a_scale_word_its_currency_allows_is_still_read(value, number, code):
    amounts, codes, unread = _group([value], "")
    if math.isnan(number):
        assert math.isnan(amounts[0]) and unread == [(value, "vague")]
    else:
        assert amounts == [number] and codes == [code] and unread == []


# ------------------------------------------------- H2. an exponent under a scaling unit column


@pytest.mark.parametrize(("value", "unit"), [("5e6", "USD mln"), ("5e6", "$M"), ("5e6", "MM USD"),
                                             ("5E6", "kUSD"), ("5.0e6", "USD mln"),
                                             ("5e3", "USD k")])
def test_scientific_notation_under_a_scaling_unit_column_is_unreadable(value, unit):
    # parser 23: "5e6" under "USD mln" was 5e12 USD (5e6 of millions?), as "5 mln" there is
    amounts, _, unread = _group([value], unit)  # "kUSD" names no unit: Karura's kUSD?
    assert math.isnan(amounts[0]) and unread == [
        (value, "unreadable_unit" if unit == "kUSD" else "unreadable_number")]


def test_scientific_notation_elsewhere_is_still_read():
    assert _group(["5e6", "2000"], "USD mln")[0][1] == 2e9
    assert _group(["5e6", "5e2"], "USD")[0] == [5e6, 500.0]
    assert _group(["5e2"], "cents")[0] == [5.0]  # cents are a unit, not a scale
    assert _group(["$5e6"], "USD mln")[0] == [5e6]  # its currency written: read as written


# ------------------------------------------------- H3. a scale word glued after a currency


@pytest.mark.parametrize(("unit", "number", "code"), [
    ("USDmln", 5e6, "USD"), ("USDmillion", 5e6, "USD"),  # "USDk", "EURk": parser 25
    ("ETHmln", 5e6, "ETH"), ("USDMln", 5e6, "USD"), ("USDbn", 5e9, "USD")])
def test_a_currency_glued_to_a_scale_word_it_allows_scales_as_written_apart(unit, number, code):
    # parser 23: made-up units USDMLN, USDK, EURK, ETHMLN; "USD mln" apart was millions of USD
    assert _group([5], unit) == ([number], [code], [])
    assert _group([f"5{unit}"], "") == ([number], [code], [])


@pytest.mark.parametrize("unit", ["ETHm", "USDb", "USDcents", "EURcent"])
def test_a_currency_glued_to_a_scale_word_it_forbids_names_no_unit(unit):
    # parser 23: ETHM (milli or million?), USDB, USDCENTS; "ETH m", "USD cents" named no unit
    _unreadable(_group([5], unit), 5, "unreadable_unit")
    _unreadable(_group([f"5{unit}"], ""), f"5{unit}")


@pytest.mark.parametrize("unit", ["usdk", "Usdk", "usdm", "Usdm", "USDm", "ethk", "eurk", "bnbk",
                                  "usdmln", "Ethk", "EURm"])
def test_a_glued_scale_word_after_a_currency_not_in_capitals_or_a_lone_m_is_no_scale(unit):
    # USDK, USDM are real stablecoins: "usdk", "USDm" may be the token or thousands, millions
    # of USD (the tree before this fix read 5,000 and 5e6 USD; parser 23 the tokens): missing
    _unreadable(_group([5], unit), 5, "unreadable_unit")
    _unreadable(_group([f"5 {unit}"], ""), f"5 {unit}")
    prices, codes, unread = read_price([f"0.1 {unit}"], [""], tickers=["XYZ"])
    assert math.isnan(prices[0]) and codes.tolist() == [None]  # as "0.1 ETHm" is
    assert unread.reasons == ["unreadable_number"]


def test_a_glued_scale_word_that_is_the_ticker_or_a_ticker_in_capitals_is_no_scale():
    _unreadable(_group([5], "USDk", "K"), 5, "unreadable_unit")
    assert _group([5], "USDk", "USDK") == ([5.0], ["USDK"], [])  # the ICO's own token
    assert _group([5], "USDK") == ([5.0], ["USDK"], [])  # in capitals a ticker, as KUSD is
    assert _group([5], "Ethereum") == ([5.0], ["ETH"], [])


def test_a_price_unit_with_a_glued_scale_word_names_no_unit():
    # parser 23: 0.1 USDK
    prices, codes, unread = read_price([0.1], ["USDk"], tickers=["XYZ"])
    assert math.isnan(prices[0]) and codes.tolist() == [None]
    assert unread.reasons == ["unreadable_unit"]


# ------------------------------------------------- H4. a price in tokens


@pytest.mark.parametrize(("unit", "ticker"), [("tokens", "XYZ"), ("token", "XYZ"),
                                              ("Coins", "XYZ"), ("XYZ", "XYZ"), ("xyz", "XYZ"),
                                              ("tokens.", "XYZ")])  # a final dot too
@pytest.mark.parametrize("value", [0.1, "0.1", "0.1 per token"])
def test_a_price_whose_unit_column_is_a_token_is_unreadable(unit, ticker, value):
    # parser 23: 0.1 under "tokens" was 0.1 TOKENS, under the own ticker 0.1 XYZ
    prices, codes, unread = read_price([value], [unit], tickers=[ticker])
    assert math.isnan(prices[0]) and codes.tolist() == [None]
    assert unread.values == [value] and unread.reasons == [
        "unreadable_price" if value == "0.1 per token" else "unreadable_unit"]


def test_a_price_writing_its_currency_under_a_token_unit_column_is_read_as_written():
    prices, codes, unread = read_price(["$0.1", "1 XYZ = 0.001 ETH", 0.1], ["tokens", "XYZ", "ETH"],
                                       tickers=["XYZ", "XYZ", "XYZ"])
    assert prices.tolist() == [0.1, 0.001, 0.1] and codes.tolist() == ["USD", "ETH", "ETH"]
    assert unread.rows == []


def test_a_price_under_an_empty_unit_column_without_a_ticker_is_still_read():
    prices, codes, unread = read_price([0.1, 0.2], ["", "TBA"], tickers=[None, None])
    assert prices.tolist() == [0.1, 0.2] and codes.tolist() == [None, None] and unread.rows == []


def test_an_amount_under_a_token_unit_column_is_still_that_token():
    assert _group([5], "XYZ", "XYZ") == ([5.0], ["XYZ"], [])  # caps in tokens: a unit


# ------------------------------------------------- H5. a footnote digit in a unit column


@pytest.mark.parametrize("unit", ["USD¹", "kUSD²", "ETH①", "USD㎡", "USD ⁽¹⁾", "XYZ³"])
def test_a_unit_column_with_a_digit_nfkc_would_make_names_no_unit(unit):
    # parser 23: USD1, KUSD2 (5 USD2?), ETH1, USDM2: made-up units
    _unreadable(_group([5], unit), 5, "unreadable_unit")
    prices, codes, unread = read_price([0.1], [unit], tickers=["XYZ"])
    assert math.isnan(prices[0]) and codes.tolist() == [None]
    assert unread.reasons == ["unreadable_unit"]


def test_a_footnote_unit_column_leaves_the_next_rows_units_alone():
    amounts, codes, unread = read_amount_group({"v": [5, 5, 5]}, ["USD¹", "K USD", "tokens"],
                                               tickers=["XYZ"] * 3, exchange=("v",))
    assert codes.tolist() == [None, None, None]  # a price: no scale, no tokens
    assert unread["v"].reasons == ["unreadable_unit"] * 3
    amounts, codes, unread = read_amount_group({"v": [5, 5]}, ["ETH①", "K USD"])
    assert amounts["v"][1] == 5000 and codes.tolist() == [None, "USD"]


def test_a_unit_column_of_full_width_letters_or_digits_is_still_read():
    assert _group([5], "ＵＳＤ") == ([5.0], ["USD"], [])
    assert _group([5], "ＸＹＺ２") == ([5.0], ["XYZ2"], [])


@pytest.mark.parametrize("char", ["㋀", "㍘", "㏠", "㎡", "⁵"])
def test_a_character_whose_nfkc_form_holds_a_digit_is_a_foreign_digit(char):
    # parser 23: "㋀" (NFKC "1月"), "㏠" ("1日"), "㎡" ("m2") passed
    assert foreign_digits(f"5{char}") and not foreign_digits("１２ ｅｔｈ")
    assert _reason(parse_amount(f"5 {char}")) == "unreadable_number"


# ------------------------------------------------- MED. '¥ m'; a month with an apostrophe year


def test_a_unit_column_of_a_currency_symbol_and_a_scale_word_names_no_unit():
    # parser 23: the made-up unit "¥ M" (yen or yuan? and milli?)
    _unreadable(_group([5], "¥ m"), 5, "unreadable_unit")
    _unreadable(_group([5], "₹ k"), 5, "unreadable_unit")
    # the won is a known currency since parser 34: thousands of it, as "€ k"
    assert _group([5], "₩ k") == ([5000.0], ["KRW"], [])


@pytest.mark.parametrize(("key", "month"), [("Mar '18", 3), ("Sept '18", 9), ("Mar'18", 3),
                                            ("Sept. '19", 9), ("December '17", 12)])
def test_a_roadmap_month_with_an_apostrophe_year_is_read_as_a_quarter_is(key, month):
    # parser 23: short_year (parser 20 read them; "Q3'18" is 2018 too); "Mar 18" stays short_year
    dates, precisions, unread = to_label_date([key, "Mar 18"])
    assert dates[0] == datetime(2000 + int(key[-2:]), month, 1) and precisions[0] == "month"
    assert pd.isna(dates[1]) and unread.reasons == ["short_year"]
    read = parse_datetime(key)  # a start date names a day: still short_year
    assert isinstance(read, Bad) and read.reason == "short_year"


def test_a_symbol_glued_to_a_scale_word_in_lower_case_still_scales():
    # "ξ" is a letter: the capitals rule of "USDmln" is not for a symbol
    assert split_scale("ξb", None) == ("b", "ETH") and split_scale("ξk", None) == ("k", "ETH")
    assert split_scale("ξm", None) is None  # a lone m scales no ETH (milli or million?)


@pytest.mark.parametrize(("ticker", "value", "number"), [
    ("BNB", "200M BNB", 2e8), ("BNB", "200 M BNB", 2e8), ("BNB", "200m BNB", 2e8),
    ("EOS", "1B EOS", 1e9), ("EOS", "1b EOS", 1e9), ("NEO", "100M NEO", 1e8),
    ("NEO", "100 m NEO", 1e8), ("WAVES", "100M WAVES", 1e8), ("USDT", "5M USDT", 5e6),
    ("BNB", "BNB 200M", 2e8)])
def test_an_amount_of_the_icos_own_token_that_is_a_currency_is_read_as_written(ticker, value,
                                                                               number):
    # the tree before this fix: unreadable_number (the scale rule of currencies); parser 23 read
    assert _group([value], "", ticker) == ([number], [ticker], [])
    assert read_tokens([value], [ticker])[0].tolist() == [number]


def test_the_scale_rule_of_currencies_holds_for_another_icos_amount_of_them():
    _unreadable(_group(["200m BNB"], "", "XYZ"), "200m BNB")  # "200M BNB": millions (29)
    _unreadable(_group(["1B EOS"], "", "BNB"), "1B EOS")


@pytest.mark.parametrize("text", [
    "1 XYZ = 10 USDcents", "1 XYZ = 0.1 ETHm", "1 XYZ = 0.1 usdk", "1 XYZ = 0.1 USDm",
    "1 XYZ = 0.000001 m ETH", "1 XYZ = 0.001 B USD", "0.1 ETHm = 1 XYZ", "1 XYZ = Ξ0.1m",
    "1 XYZ = 0.1 USDk"])
def test_an_exchange_obeys_the_scale_rule_of_values(text):
    # parser 23 and the tree before this fix: 10 USDCENTS, 0.1 ETHM, 1 ETH, 1e6 USD...
    price, code = read_exchange(text, "K" if text.endswith("USDk") else "XYZ")
    assert price.reason == "unreadable_price" and code is None


@pytest.mark.parametrize(("text", "price"), [
    ("1 XYZ = 0.1 USDmln", (1e5, "USD")), ("1 XYZ = 5 EURmio", (5e6, "EUR")),
    ("1 XYZ = 0.1 m USD", (1e5, "USD")), ("1 XYZ = $0.001B", (1e6, "USD")),
    ("1 XYZ = 0.1 mln ETH", (1e5, "ETH")), ("1 XYZ = 0.1 k USD", (100.0, "USD")),
    ("1 BNB = 2M XYZ", (5e-7, "BNB")), ("1 XYZ = 5 bnUSD", (5e9, "USD")),
    ("1 XYZ = 10 cents", (0.1, "USD"))])
def test_an_exchange_scales_as_a_value_does(text, price):
    assert read_exchange(text, "XYZ") == pytest.approx(price)

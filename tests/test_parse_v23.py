"""Parser defects left by parser 22 (parser 23): values real directories write.

Each test of a reading failed on parser 22: NFKC made digits of superscripts and circled
numbers (``"12²"`` was 122), a price ``"0.1 per token"`` was read in a unit that is no
currency, a value writing its own multiplier under a scaling unit column was multiplied twice
(``"5 mln"`` under ``"USD mln"`` was 5e12 USD), ``"ETH m"`` was millions of ETH, full-width
roadmap keys were lost and start dates read other scripts' digits.
"""

from __future__ import annotations

import math

import pytest
from parse_reading import group as _group
from parse_reading import reason as _reason

from icoframes.parse.base import Bad
from icoframes.parse.dates import parse_datetime, to_label_date
from icoframes.parse.prices import scaled_currency, split_multiplier, split_scale
from icoframes.parse.rules import parse_amount, parse_count, parse_id
from icoframes.parse.supply import read_tokens
from icoframes.parse.units import read_amount_group, read_price

# --------------------------------------------------------------------------- H1. digits NFKC makes

_COMPAT = ["12²", "5¹", "1²3", "①②", "⑫", "²", "𝟏𝟐", "⒈5", "🄂5", "½"]


@pytest.mark.parametrize("value", _COMPAT)
def test_an_id_or_count_with_a_digit_nfkc_would_make_is_unreadable(value):
    # parser 22: "12²" was the id 122, "⑫" the id 12
    assert parse_id(value) is None and parse_count(value) is None


@pytest.mark.parametrize("value", [*_COMPAT, "$5²", "12³ USD", "6٣2"])
def test_an_amount_with_a_digit_nfkc_would_make_is_unreadable(value):
    # parser 22: "12²" was 122, "$5²" 52 USD, "⒈5" 1.5 ("6٣2" was a range)
    assert _reason(parse_amount(value)) == "unreadable_number"
    amounts, _, unread = _group([value], "USD")
    assert math.isnan(amounts[0]) and unread == [(value, "unreadable_number")]


def test_an_exchange_or_supply_with_a_digit_nfkc_would_make_is_unreadable():
    amounts, _, unread = read_amount_group({"p": ["1 XYZ = $0.5²"]}, ["USD"], exchange=("p",),
                                           tickers=["XYZ"])
    assert math.isnan(amounts["p"][0]) and list(unread["p"].reasons) == ["unreadable_number"]
    numbers, unread_tokens = read_tokens(["5²M tokens", "１２ tokens"], ["XYZ", "XYZ"])
    assert math.isnan(numbers[0]) and numbers[1] == 12
    assert unread_tokens.reasons == ["unreadable_number"]


def test_full_width_digits_are_still_read():
    assert parse_id("１２") == 12 and parse_amount("１,５") == 1.5
    assert _group(["１２ USD"], "") == ([12.0], ["USD"], [])


# --------------------------------------------------------------------------- M1/M2. dates


@pytest.mark.parametrize(("key", "day", "precision"), [
    ("１２-０３-２０１８", "2018-03-12", "day"), ("２０１８", "2018-01-01", "year"),
    ("Q1 １８", "2018-01-01", "quarter"), ("Ｑ1 2018", "2018-01-01", "quarter"),
])
def test_a_full_width_roadmap_key_is_read(key, day, precision):
    # parser 21/22: unreadable_date (parser 20 read them)
    dates, precisions, unread = to_label_date([key])
    assert str(dates[0])[:10] == day and precisions == [precision] and unread.rows == []


@pytest.mark.parametrize("key", ["٠١-٠٣-٢٠١٨", "2018²", "①-03-2018"])
def test_a_roadmap_key_with_other_digits_is_unreadable(key):
    dates, precisions, unread = to_label_date([key])
    assert str(dates[0]) == "NaT"
    assert unread.reasons == ["unreadable_date"] and precisions == [None]


@pytest.mark.parametrize("value", ["01.03.٢٠١٨ 12:00:00", "01.03.2018 12:00:0٠", "٢٠١٨-03-01",
                                   "01.03.2018 ١٢:00:00", "01.03.2018²", "①.03.2018"])
def test_a_start_date_with_other_digits_is_unreadable(value):
    # parser 22: strptime read "٢٠١٨" as 2018 (a roadmap key refused it)
    assert _reason(parse_datetime(value)) == "unreadable_date"


@pytest.mark.parametrize("value", ["０１.０３.２０１８ １２:００:００", "２０１８-０３-０１",
                                   "01.03.２０１８ 12:00:00"])
def test_a_full_width_start_date_is_read(value):
    # parser 22: the first two were unreadable_date, the third read: now all alike
    when = parse_datetime(value)
    assert when is not None and not isinstance(when, Bad)
    assert (when.year, when.month, when.day) == (2018, 3, 1)


# --------------------------------------------------------------------------- H2. price per token


def _price(values: list, unit: str, ticker: str | None = "XYZ"):
    prices, codes, bad = read_price(values, [unit] * len(values), tickers=[ticker] * len(values))
    return prices.tolist(), codes.tolist(), list(zip(bad.values, bad.reasons, strict=True))


@pytest.mark.parametrize("unit", ["XYZ", "tokens", "XYZ per token", "", "ABC"])
@pytest.mark.parametrize("value", ["0.1 per token", "0.1 / XYZ", "0.1 per XYZ."])
def test_a_price_per_token_writing_no_currency_needs_a_currency_unit_column(unit, value):
    # parser 22: 0.1 in XYZ (the ICO's own token), in "TOKENS", in "USD PER TOKEN" (since
    # parser 26 "USD per token" is USD: test_parse_v26)
    prices, _, unread = _price([value], unit)
    assert math.isnan(prices[0]) and unread == [(value, "unreadable_price")]


@pytest.mark.parametrize(("unit", "code", "price"), [("USD", "USD", 0.1), ("ether", "ETH", 0.1),
                                                     ("cents", "USD", 0.001),
                                                     ("USD per token", "USD", 0.1)])
def test_a_price_per_token_writing_no_currency_is_in_a_currency_unit_column(unit, code, price):
    assert _price(["0.1 per token", "0.1 / XYZ"], unit) == ([price, price], [code] * 2, [])


# --------------------------------------------------------------------------- H3. twice multiplied


@pytest.mark.parametrize("unit", ["USD mln", "$ mln", "mln USD", "kUSD", "USD k", "M$"])
def test_a_value_writing_a_multiplier_under_a_scaling_unit_column_is_unreadable(unit):
    # parser 22: "5 mln" under "USD mln" was 5e12 USD, "2.5k" 2.5e9 USD
    amounts, _, unread = _group(["5 mln", "2.5k", "5M", "5 mln."], unit)
    assert all(math.isnan(a) for a in amounts)  # "kUSD" names no unit: Karura's kUSD?
    assert [reason for _, reason in unread] == [
        "unreadable_unit" if unit == "kUSD" else "unreadable_number"] * 4


def test_a_value_writing_its_currency_or_no_multiplier_under_a_scaling_column_is_read():
    assert _group(["$5M", 5, "5", "1e3 USD"], "USD mln") == (  # "1e3" alone: parser 24
        [5e6, 5e6, 5e6, 1e3], ["USD"] * 4, [])


def test_a_multiplier_in_a_value_under_cents_multiplies_the_cents():
    # cents is a unit, not a scale: "5k" cents are 50 USD
    assert _group(["5k"], "cents") == ([50.0], ["USD"], [])


@pytest.mark.parametrize("unit", ["USD mln", "$ mln", "kUSD", "mln USD", "USD k"])
def test_no_scale_word_scales_a_price(unit):
    # parser 22: "0.1 per token" under "USD mln" was 100,000 USD per token, "0.1" too
    prices, codes, unread = _price(["0.1 per token", "0.1", 0.1], unit)
    assert all(math.isnan(p) for p in prices) and codes == [None] * 3
    assert [reason for _, reason in unread] == ["unreadable_price"] + ["unreadable_unit"] * 2


def test_a_price_writing_its_currency_under_a_scaled_price_column_is_read_as_written():
    assert _price(["$0.1 per token", "1 XYZ = 0.5 USD"], "USD mln") == (
        [0.1, 0.5], ["USD", "USD"], [])


# --------------------------------------------------------------------------- H4. m after a currency


@pytest.mark.parametrize("unit", ["ETH m", "BTC m", "m ETH", "USD b", "USD B"])
def test_a_lone_m_after_a_currency_that_is_no_fiat_names_no_unit(unit):
    # parser 22: "ETH m", "BTC m" were millions (mBTC is a milli-bitcoin); "ETH M" is millions
    # from parser 29 (SI's milli is lowercase only)
    amounts, codes, unread = _group([5], unit)
    assert math.isnan(amounts[0]) and codes == [None] and unread == [(5, "unreadable_unit")]


@pytest.mark.parametrize(("unit", "factor"), [("USD m", 1e6), ("EUR M", 1e6), ("ETH mln", 1e6),
                                              ("BTC mm", 1e6), ("$ b", 1e9), ("ETH k", 1e3)])
def test_a_scale_word_after_a_currency_that_may_scale_it_scales(unit, factor):
    amounts, _, unread = _group([5], unit)
    assert amounts == [5 * factor] and unread == []


@pytest.mark.parametrize(("mult", "currency", "code"), [
    ("m", "USD", "USD"), ("m", "ETH", None), ("m", "btc", None), ("mln", "ETH", "ETH"),
    ("b", "USD", None), ("b", "$", "USD"), ("bn", "USD", "USD"), ("k", "XYZ", None),
])
def test_scaled_currency_is_the_one_rule_of_which_word_scales_which_currency(mult, currency, code):
    assert scaled_currency(mult, currency) == code
    glued = split_multiplier(mult + currency)
    # a lone letter glued to a currency's letters is a ticker or unreadable ("mUSD": mStable's
    # token, or millions? parser 26), to a symbol a scale ("b$")
    lone = len(mult) == 1 and currency.isalpha()
    assert glued == (None if code and lone else (mult, code) if code else ("", mult + currency))


# --------------------------------------------------------------------------- M3/M4. unit columns


@pytest.mark.parametrize(("unit", "factor"), [("$M", 1e6), ("$mln", 1e6), ("$MM", 1e6),
                                              ("€k", 1e3), ("US$ M", 1e6), ("M$", 1e6)])
def test_a_symbol_then_a_glued_scale_word_scales_like_the_other_order(unit, factor):
    # parser 22: "$M", "$mln", "$MM" were made-up units while "M$" and "$ M" scaled
    amounts, codes, unread = _group([5], unit)
    assert amounts == [5 * factor] and codes == ["EUR" if "€" in unit else "USD"] and not unread


@pytest.mark.parametrize("unit", ["USD (mln)", "USD-mln", "USD/mln", "USD cents",
                                  "cents USD", "USD ¢", "USD '000", "000 USD", "USD e6",
                                  "USD MLN", "XYZ mln", "USD per token", "$XYZ"])
def test_a_unit_column_of_a_currency_and_text_not_understood_names_no_unit(unit):
    # parser 22: made-up units "USD (MLN)", "USD CENTS", "000 USD"... ("USD k.." reads as the
    # value "5 USD k.." does since parser 26: a final dot is no part of a unit column)
    amounts, codes, unread = _group([5, "$7"], unit)
    assert math.isnan(amounts[0]) and amounts[1] == 7.0 and codes == [None, "USD"]
    assert unread == [(5, "unreadable_unit")]


@pytest.mark.parametrize(("text", "factor"), [("K USD", 1e3), ("M USD", 1e6), ("k USD", 1e3),
                                              ("USD K", 1e3), ("USD mln", 1e6), ("USD k", 1e3)])
def test_a_scale_word_beside_a_currency_reads_alike_in_a_value_and_a_unit_column(text, factor):
    # parser 22: a column "K USD" named no unit while a value "5 K USD" was 5,000 USD, and a
    # value "5 USD mln" was unreadable while a column "USD mln" scaled
    assert _group([5], text) == ([5 * factor], ["USD"], [])
    assert _group([f"5 {text}"], "") == ([5 * factor], ["USD"], [])
    assert split_scale(text, None) == (text.split()[0 if text[0] != "U" else 1].lower(), "USD")


@pytest.mark.parametrize("text", ["USD mln", "USD k"])
def test_a_scale_word_written_last_that_is_the_own_ticker_is_unreadable_in_both(text):
    ticker = text.split()[1].upper()
    amounts, _, unread = _group([5, f"5 {text}"], text, ticker)
    assert all(math.isnan(a) for a in amounts) and [r for _, r in unread] == [
        "unreadable_unit", "unreadable_number"]
    assert split_scale(text, ticker) is None


# --------------------------------------------------------------------------- edges (mutation)


def test_a_scaling_unit_column_scales_each_column_of_its_group():
    # a column whose value is missing or writes its unit does not stop the next one's scaling
    amounts, codes, bad = read_amount_group({"soft_cap": [None, "$7"], "hard_cap": [5, 5]},
                                            ["K USD", "K USD"])
    assert amounts["hard_cap"].tolist() == [5e3, 5e3] and codes.tolist() == ["USD", "USD"]
    assert amounts["soft_cap"][1] == 7.0 and not bad["hard_cap"].rows


@pytest.mark.parametrize(("unit", "ticker", "split"), [
    ("K US DOLLAR", None, ("k", "USD")),  # a currency of two words after the scale word
    ("K USD", "K", ("k", "USD")),  # a scale word written first is one whatever the ticker
    ("$M", "M", None), ("$k", "K", None),  # written last (after a symbol), the own ticker
    ("$M", "XYZ", ("m", "USD")), ("Ξ b", None, ("b", "ETH")), ("Ξb", None, ("b", "ETH")),
])
def test_split_scale_at_its_edges(unit, ticker, split):
    assert split_scale(unit, ticker) == split


def test_a_lone_b_scales_a_currency_written_with_a_symbol_in_any_case():
    assert scaled_currency("b", "Ξ") == "ETH" and scaled_currency("b", "ξ") == "ETH"


@pytest.mark.parametrize(("unit", "ticker", "code"), [
    ("XYZ Token", None, "XYZ TOKEN"),  # no currency, no scale word: a unit as written
    ("XYZ cents", "CENTS", "XYZ CENTS"),  # the ICO's own token CENTS is no cents
])
def test_a_unit_column_of_several_words_without_a_currency_is_a_unit_as_written(unit, ticker,
                                                                                 code):
    assert _group([5], unit, ticker) == ([5.0], [code], [])


def test_column_multipliers_scales_when_not_told_it_is_a_price():
    import numpy as np

    from icoframes.parse.unitcols import column_multipliers

    codes = np.array([None], dtype=object)
    assert column_multipliers(["USD mln"], codes, None) == {0: 1e6} and codes[0] == "USD"

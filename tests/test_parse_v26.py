"""Parser defects left by parser 25 (parser 26), from a read-only review of it.

Each test of a reading failed on parser 25: a roadmap two-digit year '30-'89 was 2030-2089; a
lone scale letter glued to a currency's letters was a scale where a token is meant as well
(Karura's kUSD, mStable's mUSD) or milli; ``"$5B USD"`` was unreadable though the dollar sign
settles B; ``"5 BUSD$"`` was billions; a unit column's final dot made a made-up unit; a quarter
as a start date was ``short_year`` for some years only; a value's scale word escaped the rule
under a unit column's currency; a price unit ``"USD per token"`` named no unit; ``"$4.1B"``
was 4099999999.9999995.
"""

from __future__ import annotations

import math

import pytest
from parse_reading import group as _group
from parse_reading import reason as _reason

from icoframes.parse.columns import to_float
from icoframes.parse.dates import parse_datetime, read_label, to_label_date
from icoframes.parse.prices import read_exchange
from icoframes.parse.profiles import tidy
from icoframes.parse.rules import PARSER_VERSION, parse_amount
from icoframes.parse.units import read_price


def _unreadable(read: tuple, value: object, reason: str = "unreadable_number") -> None:
    amounts, codes, unread = read
    assert math.isnan(amounts[0]) and codes == [None] and unread == [(value, reason)]


def test_the_parser_version_is_26_or_later():
    assert PARSER_VERSION >= 26  # 27: test_parse_v27


# ------------------------------------------------------- 1. a roadmap's two-digit year


@pytest.mark.parametrize("key", ["Q4 '89", "Jan '89", "H1 '89", "Q3 '50", "Q1 '30", "Q4 '90",
                                 "H2 30"])
def test_a_roadmap_year_after_29_is_a_short_year(key):
    # parser 25: 2089, 2050, 2030 (whichever century fell within the years read)
    assert read_label(key) == (None, None)
    dates, precisions, unread = to_label_date([key])
    assert str(dates[0]) == "NaT" and precisions == [None] and unread.reasons == ["short_year"]


@pytest.mark.parametrize(("key", "when"), [("Q4 '29", (2029, 10)), ("Q1 '00", (2000, 1)),
                                           ("H2 18", (2018, 7)), ("Mar '21", (2021, 3)),
                                           ("Q4 1989", None), ("Q4 2089", (2089, 10))])
def test_a_roadmap_year_up_to_29_or_of_four_digits_is_read(key, when):
    day, _ = read_label(key)
    assert (day is None if when is None else (day.year, day.month) == when)


# ------------------------------------------------- 2. a lone scale letter glued to a currency


@pytest.mark.parametrize("value", ["5 mUSD", "5mUSD", "5 musd", "5 MUsd", "5kUSD", "5 kusd",
                                   "5 KUsd", "kUSD 5", "5 kETH"])
def test_a_lone_scale_letter_glued_to_a_currency_is_unreadable(value):
    # parser 25: 5e6 or 5,000 USD (mStable's mUSD, Karura's kUSD: or millions, milli?)
    _unreadable(_group([value], ""), value)
    assert _reason(parse_amount(value)) == "unreadable_number"
    numbers, unread = to_float([value])  # raised
    assert math.isnan(numbers[0]) and unread.reasons == ["unreadable_number"]


@pytest.mark.parametrize("unit", ["mUSD", "kUSD", "kusd", "KUsd", "Musd", "kUSD."])
def test_a_unit_column_of_a_lone_scale_letter_glued_to_a_currency_names_no_unit(unit):
    # parser 25: 5e6 or 5,000 USD
    _unreadable(_group([5], unit), 5, "unreadable_unit")


@pytest.mark.parametrize("unit", ["1 XYZ = 0.1 mUSD", "1 XYZ = 0.1 kusd", "1 XYZ = 0.1 KUsd",
                                  "0.1 kUSD = 1 XYZ"])
def test_an_exchange_with_a_lone_scale_letter_glued_to_a_currency_is_unreadable(unit):
    # parser 25: 1e5 USD
    assert _reason(read_exchange(unit, "XYZ")[0]) == "unreadable_price"


@pytest.mark.parametrize(("unit", "code"), [("KUSD", "KUSD"), ("MUSD", "MUSD"), ("BUSD", "BUSD"),
                                            ("USDK", "USDK"), ("bUSD", "BUSD")])
def test_a_capital_letter_glued_to_a_currency_stays_a_ticker(unit, code):
    assert _group([5], unit) == ([5.0], [code], [])
    # in a value, a ticker no list knows as the ICO's own (parser 34); BUSD is known
    assert _group([f"5 {unit}"], "", None if code == "BUSD" else code) == ([5.0], [code], [])


@pytest.mark.parametrize(("value", "ticker", "code"), [("5 mUSD", "MUSD", "MUSD"),
                                                       ("5kUSD", "KUSD", "KUSD")])
def test_the_icos_own_ticker_glued_so_is_its_token(value, ticker, code):
    assert _group([value], "", ticker) == ([5.0], [code], [])
    assert _group([5], value[-4:], ticker) == ([5.0], [code], [])
    assert read_exchange("$1 = 5 " + value[-4:], ticker) == (0.2, "USD")


@pytest.mark.parametrize(("value", "number"), [
    ("5k USD", 5e3), ("5 k USD", 5e3), ("$5k", 5e3), ("5 bn USD", 5e9), ("USD 5 mln", 5e6),
    ("5bnUSD", 5e9), ("5k$", 5e3), ("5 m USD", 5e6)])
def test_a_scale_apart_from_the_currency_stays_a_scale(value, number):
    assert _group([value], "") == ([number], ["USD"], [])
    assert parse_amount(value) == number


def test_raised_of_kusd_is_a_problem_not_five_thousand():
    tables = tidy([{"id": 1, "finance": {"raised": "5kUSD", "ticker": "XYZ"}},
                   {"id": 2, "finance": {"raised": "5k USD", "ticker": "XYZ"}}])
    assert math.isnan(tables.icos.loc[0, "raised"]) and tables.icos.loc[1, "raised"] == 5e3
    problems = tables.problems[tables.problems["column"] == "raised"]
    assert problems["value"].tolist() == ["5kUSD"]


# ------------------------------------------------------------- 3. a dollar sign settles B


@pytest.mark.parametrize(("value", "number"), [("$5B USD", 5e9), ("$5 B USD", 5e9),
                                               ("$ 5B USD", 5e9), ("$4.1B USD", 4.1e9)])
def test_a_dollar_sign_settles_b_as_billions(value, number):
    # parser 25: unreadable_number (24 read it)
    assert parse_amount(value) == number
    assert _group([value], "") == ([number], ["USD"], [])


@pytest.mark.parametrize("value", ["5 B USD", "USD 5B", "5 B USD$", "5 BUSD$", "5 bUSD$"])
def test_b_without_a_dollar_sign_alone_is_no_billions(value):
    # parser 25: "5 B USD$", "5 BUSD$" were 5e9 USD in a value
    _unreadable(_group([value], ""), value)
    assert _reason(parse_amount(value)) == "unreadable_number"


def test_an_exchange_of_busd_and_a_dollar_sign_is_unreadable():
    # parser 25: 1e8 USD
    assert _reason(read_exchange("1 XYZ = 0.1 BUSD$", "XYZ")[0]) == "unreadable_price"
    assert read_exchange("1 XYZ = 0.1B$", "XYZ") == (1e8, "USD")


# ------------------------------------------------------ 4. a unit column's final dot


@pytest.mark.parametrize(("unit", "code"), [("USD.", "USD"), ("usd.", "USD"), ("ETH.", "ETH"),
                                            ("$.", "USD"), ("XYZ.", "XYZ")])
def test_a_unit_columns_final_dot_is_no_part_of_its_unit(unit, code):
    # parser 25: the made-up units USD., ETH., $.
    assert _group([5], unit) == ([5.0], [code], [])
    assert _group([f"5 {unit}"], unit) == ([5.0], [code], [])


def test_a_price_unit_columns_final_dot_is_no_part_of_its_unit():
    prices, codes, _ = read_price([0.1], ["USD."], ["XYZ"])
    assert prices.tolist() == [0.1] and codes.tolist() == ["USD"]


# ---------------------------------------------------- 5. a quarter is no start date


@pytest.mark.parametrize("text", ["Q4 '99", "H1 99", "Q4 '89", "Q4 ’99", "Q4 1989"])
def test_a_quarter_or_half_as_a_start_date_is_unreadable_whatever_its_year(text):
    # parser 25: short_year for "Q4 '99", "H1 99" (unreadable_date for "Q4 '18")
    assert _reason(parse_datetime(text)) == "unreadable_date"
    assert _reason(parse_datetime("Q4 '18")) == "unreadable_date"


# ------------------------------------ 6. a value's scale word and the unit column's currency


@pytest.mark.parametrize(("value", "unit"), [("5m", "ETH"), ("5 m", "ETH"), ("5 m", "Ether")])
def test_a_scale_word_that_may_not_scale_the_unit_columns_currency_is_unreadable(value, unit):
    # parser 25: 5e6 ETH (while "5 m ETH" was unreadable). "5 B" under USD, "5B" under ETH are
    # billions again in parser 27 (26: unreadable): no token's letters are beside the B, and
    # raised, in USD, reads "5B" as billions
    amounts, _, unread = _group([value], unit)
    assert math.isnan(amounts[0]) and unread == [(value, "unreadable_number")]


@pytest.mark.parametrize(("value", "unit", "read"), [
    ("5B", "$", ([5e9], ["USD"], [])), ("5m", "USD", ([5e6], ["USD"], [])),
    ("5 mln", "ETH", ([5e6], ["ETH"], [])), ("5m", "XYZ", ([5e6], ["XYZ"], [])),
    ("5 B", "BNB", ([5e9], ["BNB"], [])),
    ("5 B", "USD", ([5e9], ["USD"], [])), ("5B", "ETH", ([5e9], ["ETH"], [])),  # parser 27
    ("5b", "usd.", ([5e9], ["USD"], []))])
def test_a_scale_word_that_may_scale_the_unit_columns_unit_does(value, unit, read):
    ticker = "BNB" if unit == "BNB" else None  # the own token is read as written
    assert _group([value], unit, ticker) == read


# --------------------------------------------------------- 9. price units per token


@pytest.mark.parametrize(("unit", "code"), [("USD per token", "USD"), ("USD/token", "USD"),
                                            ("$ per token", "USD"), ("ETH / tokens", "ETH"),
                                            ("(USD)", "USD"), ("USD:", "USD"), ("[ETH]", "ETH")])
def test_a_price_unit_of_a_currency_per_token_or_bracketed_is_that_currency(unit, code):
    # parser 25: no unit, the price lost
    prices, codes, unread = read_price([0.1, "0.2"], [unit] * 2, ["XYZ"] * 2)
    assert prices.tolist() == [0.1, 0.2] and codes.tolist() == [code] * 2 and unread.rows == []


@pytest.mark.parametrize("unit", ["(USD)", "USD:"])
def test_an_amount_unit_bracketed_or_before_a_colon_is_that_currency(unit):
    assert _group([5], unit) == ([5.0], ["USD"], [])


@pytest.mark.parametrize("unit", ["XYZ per token", "per token", "Huobi Token", "USDC coin"])
def test_a_price_unit_naming_no_currency_per_token_names_no_unit(unit):
    prices, codes, unread = read_price([0.1], [unit], ["XYZ"])
    assert math.isnan(prices[0]) and codes.tolist() == [None] and unread.rows == [0]


def test_an_amount_unit_per_token_names_no_unit():
    _unreadable(_group([5], "USD per token"), 5, "unreadable_unit")


# ------------------------------------------------------------- 11. an exact scale


@pytest.mark.parametrize(("value", "number"), [("$4.1B", 4.1e9), ("8.3M", 8.3e6),
                                               ("4.35 mln USD", 4.35e6), ("1.1e6", 1.1e6),
                                               ("0.7k", 700.0)])
def test_a_scaled_number_is_exact(value, number):
    # parser 25: "$4.1B" was 4099999999.9999995, "8.3M" 8300000.000000001
    assert parse_amount(value) == number
    assert _group([value], "")[0] == [number]


def test_cents_are_exact():
    # parser 25: 0.040999999999999995 USD
    assert _group(["4.1 cents"], "") == ([0.041], ["USD"], [])


@pytest.mark.parametrize(("value", "unit", "number"), [(4.1, "USD mln", 4.1e6),
                                                       ("4.1", "K USD", 4100.0),
                                                       (4.1, "cents", 0.041)])
def test_a_unit_columns_scale_is_exact(value, unit, number):
    assert _group([value], unit)[0] == [number]


def test_a_scale_beyond_a_float_is_infinite():
    amounts, _, unread = _group(["1" + "0" * 306], "USD bn")
    assert math.isnan(amounts[0]) and unread[0][1] == "infinite"


@pytest.mark.parametrize(("text", "price"), [("1 XYZ = 0.7 cents", 0.007),
                                             ("1 XYZ = 0.7¢", 0.007), ("1 XYZ = 4.1 cents", 0.041)])
def test_cents_on_an_exchange_side_scale_in_decimal_as_a_values(text, price):
    # 0.7 / 100 is 0.006999999999999999: a value's "0.7 cents" was already 0.007
    assert read_exchange(text, "XYZ") == (price, "USD")

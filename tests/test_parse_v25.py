"""Parser defects left by parser 24 (parser 25), from a third review of it.

Each test of a reading failed on parser 24: ``parse_amount`` (which reads ``raised``) read a
scale letter before a currency where the unit readers keep a ticker (``"5 BUSD"`` was 5e9), a
lone scale letter glued after a currency was thousands though ``USDK`` is a token while
``"USDm"`` was already unreadable, and a longer scale word in capitals was a made-up ticker
(``USDMLN``); a unit column with a footnote mark or naming tokens was a unit (``USD*``, ``XYZ
TOKENS``); ``"k.USD"`` read differently in a column and in a value; ``"MLN$"`` was millions
of USD and ``"$1 = 5 MLN"`` a price of another ICO's token; a roadmap ``"Q4 '99"`` was 2099
and ``"Q4 ’18"`` unreadable; Arabic number marks were a ``range``.
"""

from __future__ import annotations

import math

import pytest
from parse_reading import group as _group
from parse_reading import reason as _reason

from icoframes.parse.columns import to_float
from icoframes.parse.dates import date_reason, parse_datetime, read_label, to_label_date
from icoframes.parse.prices import read_exchange
from icoframes.parse.profiles import tidy
from icoframes.parse.rules import amount_reason, parse_amount
from icoframes.parse.units import read_price


def _unreadable(read: tuple, value: object, reason: str = "unreadable_number") -> None:
    amounts, codes, unread = read
    assert math.isnan(amounts[0]) and codes == [None] and unread == [(value, reason)]


# ------------------------------------------------- 1. a scale letter before a currency's letters


@pytest.mark.parametrize("value", ["5 BUSD", "5BUSD", "5 bUSD", "5 B USD", "5b USD", "USD 5B",
                                   "5KUSD", "5 MUSD", "5MMUSD", "$5 BUSD"])
def test_parse_amount_reads_no_scale_the_unit_readers_refuse(value):
    # parser 24: 5e9 (BUSD is a stablecoin; "B USD": billions?), 5,000 USD for the token KUSD
    assert _reason(parse_amount(value)) == "unreadable_number"
    numbers, unread = to_float([value])  # raised is read so
    assert math.isnan(numbers[0]) and unread.reasons == ["unreadable_number"]


@pytest.mark.parametrize(("value", "number"), [
    ("$5B", 5e9), ("5 B$", 5e9), ("US$ 5b", 5e9), ("5 bn USD", 5e9), ("5bnUSD", 5e9),
    ("5k USD", 5e3), ("5 M USD", 5e6), ("5M usd", 5e6), ("5 M.USD", 5e6), ("USD 5M", 5e6),
    ("1.2B", 1.2e9)])  # "5kUSD", "5Musd": unreadable since parser 26 (Karura's kUSD?)
def test_parse_amount_still_reads_the_scales_the_unit_readers_read(value, number):
    assert parse_amount(value) == number


def test_raised_of_busd_is_a_problem_not_five_billion():
    tables = tidy([{"id": 1, "finance": {"raised": "5 BUSD", "ticker": "XYZ"}},
                   {"id": 2, "finance": {"raised": "$5B", "ticker": "XYZ"}}])
    assert math.isnan(tables.icos.loc[0, "raised"]) and tables.icos.loc[1, "raised"] == 5e9
    problems = tables.problems[tables.problems["column"] == "raised"]
    assert problems["value"].tolist() == ["5 BUSD"]
    # parser 27: an amount of the token BUSD, not USD: a unit_conflict (was unreadable_number)
    assert problems["reason"].tolist() == ["unit_conflict"]


def test_busd_stays_the_token_in_an_amount_group():
    assert _group(["5 BUSD", "5bUSD"], "") == ([5.0, 5.0], ["BUSD", "BUSD"], [])


# ------------------------------------------------- 2. a scale word glued after a currency


@pytest.mark.parametrize("unit", ["USDk", "EURk", "USDMLN", "USDMM", "USDCENTS", "USDBN",
                                  "ETHMLN", "Usdk"])
def test_a_glued_scale_after_a_currency_that_may_be_a_token_names_no_unit(unit):
    # parser 24: "USDk" 5,000 USD though USDK is a token and "USDm" was already unreadable;
    # "USDMLN", "USDMM", "USDCENTS" made-up tickers ("USD MLN" apart names no unit)
    _unreadable(_group([5], unit), 5, "unreadable_unit")
    _unreadable(_group([f"5 {unit}"], ""), f"5 {unit}")
    prices, _, unread = read_price([0.1], [unit], tickers=["XYZ"])
    assert math.isnan(prices[0]) and unread.reasons == ["unreadable_unit"]


@pytest.mark.parametrize(("unit", "read"), [
    ("USDK", ([5.0], ["USDK"], [])), ("USDM", ([5.0], ["USDM"], [])),  # tickers, as KUSD is
    ("USDmln", ([5e6], ["USD"], [])), ("EURmio", ([5e6], ["EUR"], [])),  # words: scales
    ("USDMln", ([5e6], ["USD"], []))])
def test_a_ticker_in_capitals_and_a_lowercase_scale_word_are_still_read(unit, read):
    assert _group([5], unit) == read
    # in a value, a ticker no list knows as the ICO's own (parser 34): never a scale of USD
    assert _group([f"5 {unit}"], "", read[1][0]) == read


@pytest.mark.parametrize("unit", ["MMUSD", "BNUSD", "MLNUSD", "MIOEUR", "THOUSANDUSD"])
def test_a_scale_word_in_capitals_glued_before_a_currency_names_no_unit_as_after_it(unit):
    # parser 24: made-up tickers ("1.5BNUSD" was 1.5 BNUSD), as "USDMM" after was
    _unreadable(_group([5], unit), 5, "unreadable_unit")
    _unreadable(_group([f"5{unit}"], ""), f"5{unit}")


def test_the_icos_own_ticker_glued_so_is_still_its_token():
    assert _group([5], "USDk", "USDK") == ([5.0], ["USDK"], [])
    assert _group([5], "USDMLN", "USDMLN") == ([5.0], ["USDMLN"], [])
    assert _group([5], "MMUSD", "MMUSD") == ([5.0], ["MMUSD"], [])


# ------------------------------------------------- 3. units of tokens, footnotes, "k.USD"


@pytest.mark.parametrize("unit", ["XYZ tokens", "per token", "Tokens.", "ABC coins"])
def test_a_price_unit_naming_tokens_names_no_unit(unit):
    # parser 24: 0.1 in XYZ TOKENS, PER TOKEN (a price is never in tokens, "tokens" already)
    prices, codes, unread = read_price([0.1, "$0.2"], [unit] * 2, tickers=["XYZ"] * 2)
    assert math.isnan(prices[0]) and codes.tolist() == [None, "USD"]
    assert unread.reasons == ["unreadable_unit"] and prices[1] == 0.2  # written: as written


@pytest.mark.parametrize("unit", ["USD*", "USD†", "ETH‡", "*USD", "USD #"])
def test_a_unit_column_of_a_currency_and_a_footnote_mark_names_no_unit(unit):
    # parser 24: made-up units USD*, USD†; "5 USD*" in a value was already unreadable
    _unreadable(_group([5], unit), 5, "unreadable_unit")
    prices, _, unread = read_price([0.1], [unit], tickers=["XYZ"])
    assert math.isnan(prices[0]) and unread.reasons == ["unreadable_unit"]


def test_an_amount_unit_of_a_token_and_text_is_still_kept():
    assert _group([5], "XYZ tokens") == ([5.0], ["XYZ TOKENS"], [])  # left as it was
    assert _group([5], "XYZ*") == ([5.0], ["XYZ*"], [])


@pytest.mark.parametrize(("unit", "number"), [("k.USD", 5e3), ("K.USD", 5e3), ("m.USD", 5e6),
                                               ("mln.USD", 5e6)])
def test_a_scale_word_a_dot_and_a_currency_read_alike_in_a_column_and_a_value(unit, number):
    # parser 24: the column "k.USD" named no unit while the value "5 k.USD" was 5,000 USD
    assert _group([5], unit) == ([number], ["USD"], [])
    assert _group([f"5 {unit}"], "") == ([number], ["USD"], [])


@pytest.mark.parametrize("unit", ["B.USD", "m.ETH", "k.XYZ"])
def test_a_dotted_scale_word_its_currency_forbids_names_no_unit_in_both(unit):
    _unreadable(_group([5], unit), 5, "unreadable_unit")
    _unreadable(_group([f"5 {unit}"], ""), f"5 {unit}")


# ------------------------------------------------- 6. MLN in capitals


@pytest.mark.parametrize("ticker", ["XYZ", "MLN", None])
def test_mln_in_capitals_before_a_symbol_is_no_million(ticker):
    # parser 24: "MLN$" and "5 MLN$" were 5e6 USD, though "MLN" in capitals is a ticker
    _unreadable(_group([5], "MLN$", ticker), 5, "unreadable_unit")
    _unreadable(_group(["5 MLN$"], "", ticker), "5 MLN$")
    if ticker == "MLN":  # its own ticker glued to a symbol: 5 MLN and $, or millions of USD?
        _unreadable(_group(["5 mln$"], "", ticker), "5 mln$")  # (as "$5 mln"; 7ae5c53: 5e6 USD)
    else:
        assert _group(["5 mln$"], "", ticker) == ([5e6], ["USD"], [])  # in lower case: millions


@pytest.mark.parametrize("ticker", ["XYZ", None])
def test_an_exchange_for_mln_in_capitals_not_the_icos_ticker_is_unreadable(ticker):
    # parser 24: 0.2 USD, a price of the token MLN (another ICO's) or 5 million XYZ?
    for text in ("$1 = 5 MLN", "5 BLN = 1 ETH"):
        price, code = read_exchange(text, ticker)
        assert _reason(price) == "unreadable_price" and code is None


def test_an_exchange_for_mln_of_the_ico_mln_is_still_read():
    assert read_exchange("$1 = 5 MLN", "MLN") == (0.2, "USD")
    assert read_exchange("$1 = 5 ABC", None) == (0.2, "USD")  # another word: as before
    # (for XYZ, ABC is no token of its: unreadable_price since parser 34)
    assert _reason(read_exchange("$1 = 5 ABC", "XYZ")[0]) == "unreadable_price"


# ------------------------------------------------- 5. two-digit years of roadmap keys


@pytest.mark.parametrize("key", ["Q4 '99", "Mar '99", "H1 '99", "'99 Q4", "Q4 99", "H2 90",
                                 "Q1 ’95"])
def test_a_roadmap_year_of_two_centuries_is_a_short_year(key):
    # parser 24: 2099 (1999 or 2099? both within the years read, 1990-2100)
    assert read_label(key) == (None, None)
    dates, precisions, unread = to_label_date([key])
    assert precisions == [None]
    assert str(dates[0]) == "NaT" and unread.reasons == ["short_year"]


@pytest.mark.parametrize(("key", "when"), [
    ("Q4 ’18", (2018, 10)), ("Q4 ‘18", (2018, 10)), ("Mar ’18", (2018, 3)),
    ("H1 ʼ19", (2019, 1)), ("Q1 '00", (2000, 1)), ("Q4 1999", (1999, 10))])
# ("Q4 '89" was 2089 here: short_year since parser 26, '00-'29 only; test_parse_v26)
def test_a_roadmap_year_of_one_century_is_read_with_any_apostrophe(key, when):
    # parser 24: "Q4 ’18" was unreadable_date, "Mar ’18" no_year
    day, _ = read_label(key)
    assert day is not None and (day.year, day.month) == when


def test_a_curly_apostrophe_short_year_as_a_start_date_is_a_short_year():
    assert _reason(parse_datetime("01.03.’18")) == "short_year"
    assert date_reason("Q4 '18") == "unreadable_date"  # a quarter is no start date


# ------------------------------------------------- 7. Arabic number marks


@pytest.mark.parametrize("value", ["1٫5", "1٬000", "1٬000٫5", "5٫5 USD"])
def test_arabic_number_marks_are_one_unreadable_number_not_a_range(value):
    # parser 24: range (the mark read as text between two numbers)
    assert _reason(parse_amount(value)) == "unreadable_number"
    _unreadable(_group([value], ""), value)


def test_arabic_number_marks_in_a_range_are_still_a_range():
    assert amount_reason("1٬000-2٬000") == "range"
    assert _reason(parse_amount("1٬000 - 2٬000")) == "range"

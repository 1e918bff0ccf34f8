"""Amounts with units: the boundaries mutants of parse/ survived (`make mutate MODULE=parse`).

One written value a case, through :func:`read_amounts`, :func:`read_price` and
:func:`read_amount_group`: a percentage is not an amount, the sign of ``"-$5M"`` is
kept wherever it is written, a currency named at both ends must agree, each
multiplier word, the exchange form of a price, and a unit column filled from the
values only when they agree.
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest

from icoframes.parse.base import Unread, bad, is_missing_marker
from icoframes.parse.columns import (
    CONVERTERS,
    numbers_fast,
    to_bool,
    to_float,
    to_int,
    to_key_text,
    to_list,
    to_nullable_int,
    to_text,
)
from icoframes.parse.dates import (
    date_reason,
    parse_datetime,
    parse_label_date,
    read_label,
    to_datetime,
    to_label_date,
)
from icoframes.parse.items import with_latin_tickers
from icoframes.parse.names import COUNTRY_NAMES, PLATFORM_FAMILIES, same_name
from icoframes.parse.prices import read_exchange
from icoframes.parse.rules import (
    amount_reason,
    parse_amount,
    parse_count,
    parse_flag,
    parse_id,
    read_flag,
)
from icoframes.parse.splits import split_lone_strings
from icoframes.parse.text import clean_surrogates, has_surrogates, latin_ticker, normalize_text
from icoframes.parse.units import canonical_units, read_amount_group, read_amounts, read_price
from icoframes.schema import TEXT_DTYPE


def _one(value: object, unit: object = "") -> tuple[float | None, str | None, list[object]]:
    amounts, units, bad = read_amounts([value], [unit])
    number = amounts[0]
    return (None if math.isnan(number) else float(number)), units[0], bad.values


@pytest.mark.parametrize("value", ["60%", "60 %", "12.5%"])
@pytest.mark.parametrize("unit", ["", "USD"])
def test_a_percentage_is_not_a_plain_amount(value, unit):
    number, _, bad = _one(value, unit)
    assert number is None and bad == [value]


@pytest.mark.parametrize(("value", "number"), [("+$5M", 5e6), ("$5M", 5e6), ("+5M USD", 5e6)])
def test_the_sign_is_kept_before_or_after_the_currency(value, number):
    assert _one(value) == (number, "USD", [])


@pytest.mark.parametrize("value", ["-$5M", "$-5M", "- $5M", "-5M USD"])
def test_a_negative_amount_is_unreadable_whatever_the_place_of_its_sign(value):
    assert _one(value) == (None, "USD", [value])  # issue 20: an amount is never negative


@pytest.mark.parametrize(("value", "unit", "expected"), [
    ("$5 USD", "", (5.0, "USD", [])),              # both ends name one currency
    ("USD 5 USD", "", (5.0, "USD", [])),
    ("$ 5 ETH", "", (None, None, ["$ 5 ETH"])),    # both ends, two currencies
    ("10 ETH", "BTC", (None, "BTC", ["10 ETH"])),  # the unit column says otherwise
    ("10 ETH", "ether", (10.0, "ETH", [])),        # an alias of the unit column's
    ("5mln", "ETH", (5e6, "ETH", [])),              # no currency written: the column's
    ("5m", "ETH", (None, "ETH", ["5m"])),          # whose scale rule holds ("5m ETH": milli?)
])
def test_a_written_currency_must_agree(value, unit, expected):
    assert _one(value, unit) == expected


@pytest.mark.parametrize(("value", "number"), [
    ("2k", 2e3), ("5 k.", 5e3), ("5 thousand", 5e3), ("5M", 5e6), ("5m.", 5e6),
    ("5 mio", 5e6), ("5 mm", 5e6), ("5 mn", 5e6), ("5 million", 5e6), ("5 b", 5e9),
    ("5 bn", 5e9), ("1.5bn", 1.5e9), ("5 billion", 5e9),
])
def test_each_multiplier_word(value, number):
    assert _one(value) == (number, None, [])


def test_a_multiplier_word_before_a_currency_is_read_with_it():
    assert _one("3 million eth") == (3e6, "ETH", [])


@pytest.mark.parametrize("value", ["inf", "-inf", "1e999"])
def test_an_infinite_amount_is_unreadable(value):
    number, _, bad = _one(value)
    assert number is None and bad == [value]


@pytest.mark.parametrize("value", ["N/A", "TBA", "nan"])
def test_markers_of_nothing_are_missing_not_unreadable(value):
    assert _one(value) == (None, None, [])


# -- prices written as an exchange -------------------------------------------------------


@pytest.mark.parametrize(("value", "price"), [
    ("1 ETH = 3,000 XYZ", 1 / 3000), ("1 ETH = 2k XYZ", 1 / 2000),
    ("2 ETH = 1 million XYZ", 2e-6), ("1ETH=500", 1 / 500),
])
def test_an_exchange_is_the_price_of_one_token(value, price):
    prices, units, bad = read_price([value], [""])
    assert prices[0] == pytest.approx(price, rel=1e-12) and units[0] == "ETH" and bad.values == []


@pytest.mark.parametrize("value", ["1 ETH = 0 XYZ", "1 ETH = 3640-3367 XYZ", "ETH = 5",
                                   "1 = 500"])
def test_an_exchange_without_a_currency_or_tokens_is_unreadable(value):
    prices, units, bad = read_price([value], [""])
    assert math.isnan(prices[0]) and units[0] is None and bad.values == [value]


def test_an_exchange_is_read_only_as_a_price():
    number, _, bad = _one("1 ETH = 3,000 XYZ")
    assert number is None and bad == ["1 ETH = 3,000 XYZ"]


# -- a group of amounts sharing one unit column ------------------------------------------------


def test_an_empty_unit_column_takes_the_currency_the_values_agree_on():
    amounts, units, bad = read_amount_group(
        {"soft_cap": ["10 ETH", "5", "1 BTC"], "hard_cap": ["20 ether", "7 eth", "2 ETH"]},
        ["", "", ""])
    assert units.tolist() == ["ETH", "ETH", None]
    assert amounts["soft_cap"].tolist()[:2] == [10.0, 5.0] and math.isnan(amounts["soft_cap"][2])
    assert bad["soft_cap"].values == ["1 BTC"] and bad["hard_cap"].values == ["2 ETH"]
    assert bad["soft_cap"].rows == [2]


def test_a_group_refuses_columns_of_another_length():
    with pytest.raises(ValueError, match="soft_cap has 2 values for 1 units"):
        read_amount_group({"soft_cap": ["1", "2"]}, ["USD"])


def test_a_unit_that_is_a_list_is_no_unit():
    assert canonical_units([["ETH"], "eth", None, ""]).tolist() == [None, "ETH", None, None]


# -- units.py: survivors of `make mutate MODULE=parse:units` -----------------------------------


@pytest.mark.parametrize(("value", "reason"), [
    ("~0.1 ETH", "vague"),         # a sign of approximation, then a unit: why it is no amount
    ("about 5 ETH", "vague"),
    ("$5 tokens", "unreadable_number"),
    ("$5 LINK", "unit_conflict"),   # both ends units, two different ones
    ("$5 BFC", "unknown_unit"),     # a token no list knows, of no ICO named: no unit (34)
    ("ETH 5 $", "unit_conflict"),
    # "$5k.$" was here (unreadable): parser 26 reads "k.$" as a value "5 k.$" reads, 5,000
    # USD, as parse_amount does (test_parse_v26_units)
])
def test_disagreeing_ends_say_why_the_value_is_no_amount(value, reason):
    amounts, units, bad = read_amounts([value], [""])
    assert math.isnan(amounts[0]) and units[0] is None
    assert (bad.rows, bad.values, bad.reasons) == ([0], [value], [reason])


def test_the_ticker_names_the_token_side_of_a_price():
    prices, units, bad = read_price(["1 ABC = 2 LINK", "1 ABC = 2 LINK", "1 ABC = 2 XYZ"],
                                    ["", "", ""], tickers=["ABC", None, "ABC"])
    assert prices[0] == 2.0 and units[0] == "LINK"  # ABC is the ICO's token: 2 LINK each
    assert math.isnan(prices[1]) and units[1] is None  # no ticker: two tokens, no currency
    # a price in a token no list knows: no unit known (parser 34: was 2 XYZ)
    assert math.isnan(prices[2]) and units[2] is None
    assert (bad.rows, bad.reasons) == ([1, 2], ["unreadable_price", "unknown_unit"])


@pytest.mark.parametrize(("value", "number", "unit"), [
    ("$2,000,000.", 2e6, "USD"), ("USD 5.", 5.0, "USD"), ("€ 3.", 3.0, "EUR"),
    ("$5 k.", 5e3, "USD"), ("2,000,000.", 2e6, None),
])
def test_a_final_dot_is_no_unit(value, number, unit):
    # found by the units mutants: the dot was read as a unit written after the number
    assert _one(value) == (number, unit, [])


def test_an_empty_group_gives_empty_typed_columns():
    amounts, units, bad = read_amounts([], [])
    assert amounts.dtype == np.float64 and units.dtype == object and len(amounts) == 0
    assert bad == ([], [], [])


def test_a_price_that_overflows_is_infinite_not_inf():
    # each side is finite (1e300 ETH for 1e-300 tokens), their ratio is not
    value = "1" + "0" * 300 + " ETH = 0." + "0" * 299 + "1 XYZ"
    prices, units, bad = read_price([value], [""])
    assert math.isnan(prices[0]) and units[0] is None
    assert (bad.rows, bad.reasons) == ([0], ["infinite"])


def test_a_numpy_text_array_of_units_is_read_like_a_list():
    # list(array) would give numpy.str_ items, which are no unit text
    assert canonical_units(np.array(["usd", "Ether", ""])).tolist() == ["USD", "ETH", None]


# -- prices.py: survivors of `make mutate MODULE=parse:prices` ---------------------------------


@pytest.mark.parametrize(("value", "ticker", "price", "unit"), [
    ("1 ABC = us$0.5", "ABC", 0.5, "USD"),  # a lower-case "us$" is the dollar
    ("US$1 = 5 KIN", "", 0.2, "USD"),
    ("1 ETH = 500", "", 1 / 500, "ETH"),  # the side without a unit is the token
])
def test_an_exchange_names_its_currency_in_any_case(value, ticker, price, unit):
    prices, units, bad = read_price([value], [""], tickers=[ticker])
    assert prices[0] == pytest.approx(price, rel=1e-12) and units[0] == unit and bad.rows == []


@pytest.mark.parametrize(("value", "reason"), [
    ("1 ETH = lots", "unreadable_price"),        # a side with no amount: a price, not a number
    ("1 ETH = some XYZ", "unreadable_price"),
    ("1 ETH = 1,500,5 XYZ", "grouping"),         # a side's amount says why it is unreadable
    ("1 ABC = 500", "unreadable_price"),         # the unnamed side is the token only against
])                                               # a currency: ABC is none
def test_why_an_exchange_is_unreadable(value, reason):
    prices, units, bad = read_price([value], [""])
    assert math.isnan(prices[0]) and units[0] is None
    assert (bad.rows, bad.values, bad.reasons) == ([0], [value], [reason])


@pytest.mark.parametrize(("value", "unit"), [("1 ABC = 500", ""), ("1 ABC = 500", "ETH"),
                                             ("500 = 1 ABC", "USD")])
def test_a_price_naming_the_token_but_no_currency_is_unreadable(value, unit):
    # found by the prices mutants: it was read as 500 with the unit "" (no unit at all)
    prices, units, bad = read_price([value], [unit], tickers=["ABC"])
    assert math.isnan(prices[0]) and units[0] == (unit or None)
    assert (bad.rows, bad.reasons) == ([0], ["unreadable_price"])


def test_a_free_token_costs_nothing():
    prices, units, bad = read_price(["1 XYZ = 0 ETH"], [""])
    assert prices.tolist() == [0.0] and units.tolist() == ["ETH"] and bad.rows == []


@pytest.mark.parametrize(("text", "reason"), [("5 ETH", "unreadable_price"),
                                              ("1 ETH = 2 XYZ = 3 ABC", "range")])
def test_read_exchange_needs_exactly_one_equals_sign(text, reason):
    assert read_exchange(text, None) == (bad(reason), None)


# -- rules.py: the one number, id, count and flag reader, value by value ----------------------


@pytest.mark.parametrize(("value", "expected"), [
    (None, None), (math.nan, None), ("N/A", None), ("nan", None), (" TBA ", None),
    (5, 5.0), (2.5, 2.5), ("$2,000,000", 2e6), ("1.2B", 1.2e9), ("250K", 2.5e5),
    ("5 mio", 5e6), ("1.5 bn", 1.5e9), ("0,003", 0.003), ("1,5", 1.5), ("12,50", 12.5),
    ("0,065", 0.065), ("1,000", 1e3), ("1.500.000", 1.5e6), ("1.500,5", 1500.5),
    ("1,500.5", 1500.5), ("12.345.678,9", 12345678.9), ("1 000 000", 1e6),
    ("$ 1 000,5", 1000.5), ("$1.5e3", 1500.0), (".5", 0.5), ("$.5", 0.5), ("+5", 5.0),
    ("-$5", -5.0),  # read with its sign: the callers report a negative amount
])
def test_parse_amount_reads(value, expected):
    got = parse_amount(value)
    assert type(got) is (float if expected is not None else type(None)) and got == expected


@pytest.mark.parametrize(("value", "reason"), [
    (math.inf, "infinite"), ("inf", "infinite"), ("1e999", "infinite"), ("$1e400", "infinite"),
    (True, "wrong_type"), ([1], "wrong_type"), ("2 5", "grouping"), ("1,500,5", "grouping"),
    ("1.5.5", "grouping"), ("1 000 0", "grouping"), ("3640-3367", "range"),
    ("~3,500,000", "vague"), ("1 BILL = 1 XLM", "unreadable_number"), ("60%", "percent"),
])
def test_parse_amount_says_why(value, reason):
    assert parse_amount(value) is bad(reason)


@pytest.mark.parametrize(("text", "number"), [("60 %", 60.0), (" 12.5% ", 12.5), ("60", 60.0)])
def test_a_share_may_end_with_a_percent_sign(text, number):
    assert parse_amount(text, percent=True) == number


@pytest.mark.parametrize(("text", "reason"), [
    ("100-200", "range"), ("10M (stage 1), 20M", "range"), ("1M, 2M", "range"),
    ("~5M", "vague"), ("0.1 (0.5 later)", "vague"), ("5M or more", "vague"), ("5M+", "vague"),
    ("up to 5M", "vague"), ("60%", "percent"), ("5M (60%)", "vague"), ("lots", "unreadable_number"),
    ("1 ETH = 2 X", "unreadable_number"), ("500 tokens", "unreadable_number"),
])
def test_amount_reason_in_its_order(text, reason):
    assert amount_reason(text) == reason


@pytest.mark.parametrize(("value", "ident", "count"), [
    (" 42 ", 42, 42), (42.0, 42, 42), ("42.0", 42, 42), ("1e3", 1000, 1000), (0, None, 0),
    (-3, None, None), (1.5, None, None), ("2.5", None, None), ("x", None, None),
    (True, None, None), (False, None, None), (math.nan, None, None), ("inf", None, None),
    ("99999999999999999999", None, None), (2**63 - 1, 2**63 - 1, 2**63 - 1),
    (2**63, None, None), (-(2**63), None, None), ([1], None, None),
])
def test_ids_and_counts_are_int64(value, ident, count):
    assert parse_id(value) == ident and parse_count(value) == count
    assert type(parse_id(value)) is (int if ident is not None else type(None))


@pytest.mark.parametrize(("value", "expected"), [
    (True, (True, False)), (None, (False, False)), (False, (False, False)),
    (1, (True, False)), (1.0, (True, False)), (0, (False, False)), (0.0, (False, False)),
    (math.nan, (False, False)), (2, (None, False)), (-1, (None, False)), ([1], (None, False)),
    ("Yes", (True, False)), ("✓", (True, False)), ("", (False, False)), ("N/A", (False, False)),
    ("maybe", (None, False)), ("YES (UNTIL 11 SEP)", (True, True)),
    ("Available - beta only", (True, True)), ("No, later", (False, True)),
    ("yes: soon", (True, True)), ("yes [x]", (True, True)), ("no; x", (False, True)),
    ("sometimes (x)", (None, False)), ("no -x", (None, False)),
])
def test_read_flag(value, expected):
    flag, qualified = read_flag(value)
    assert (flag, qualified) == expected
    assert type(flag) is (bool if flag is not None else type(None))
    assert parse_flag(value) is expected[0]


# -- dates.py: one timestamp, one roadmap key, and the vectorised columns ----------------------


@pytest.mark.parametrize(("value", "expected"), [
    ("01.03.2018 12:00:00", dt.datetime(2018, 3, 1, 12)),
    ("01.03.2018 12:00", dt.datetime(2018, 3, 1, 12)),
    ("01.03.2018", dt.datetime(2018, 3, 1)), (" 01.03.2018 ", dt.datetime(2018, 3, 1)),
    ("1.3.2018 1:2:3", dt.datetime(2018, 3, 1, 1, 2, 3)),
    ("2018-03-01 12:00:00", dt.datetime(2018, 3, 1, 12)),
    ("2018-03-01T12:00:00", dt.datetime(2018, 3, 1, 12)), ("2018-03-01", dt.datetime(2018, 3, 1)),
    ("01.01.1990 00:00:00", dt.datetime(1990, 1, 1)),           # the first and last years kept
    ("31.12.2100 23:59:59", dt.datetime(2100, 12, 31, 23, 59, 59)),
    ("TBA", None), (None, None), (math.nan, None),
    ("31.02.2018 00:00:00", bad("impossible_date")),
    ("32.01.2018 00:00:00", bad("impossible_date")),
    ("01.01.2101 00:00:00", bad("date_out_of_range")),
    ("31.12.1989 23:59:59", bad("date_out_of_range")),
    ("01.13.2018", bad("us_order")), (5, bad("wrong_type")),
])
def test_parse_datetime(value, expected):
    assert parse_datetime(value) == expected


@pytest.mark.parametrize(("text", "reason"), [
    ("01.13.2018", "us_order"), ("01-13-2018", "us_order"),
    ("31.02.2018 00:00:00", "impossible_date"),
    ("00.00.0000 00:00:00", "impossible_date"), ("2018-13-01", "impossible_date"),
    ("2018-00-10", "impossible_date"), ("13.2018", "impossible_date"),
    ("13/01/2018 00:00:00", "unreadable_date"), ("01.01.2263", "date_out_of_range"),
    ("01.01.1989", "date_out_of_range"), ("Sep 2263", "date_out_of_range"),
    ("2263", "date_out_of_range"),
    ("20 Sep", "no_year"), ("since 18 Sep", "no_year"), ("15.03", "no_year"),
    ("19 days", "duration"), ("in 3 weeks", "duration"), ("2 hours ago", "duration"),
    ("soon", "unreadable_date"), ("later", "unreadable_date"),
])
def test_date_reason(text, reason):
    assert date_reason(text) == reason


@pytest.mark.parametrize(("label", "when", "precision"), [
    ("01-07-2018", (2018, 7, 1), "day"), ("1/7/2018", (2018, 7, 1), "day"),
    ("2018-07-01", (2018, 7, 1), "day"), ("Q3 2018", (2018, 7, 1), "quarter"),
    ("q1 2100", (2100, 1, 1), "quarter"), ("3Q 2018", (2018, 7, 1), "quarter"),
    ("2018 Q4", (2018, 10, 1), "quarter"), ("Q3'18", (2018, 7, 1), "quarter"),
    ("Q2 18", (2018, 4, 1), "quarter"), ("3rd quarter 2018", (2018, 7, 1), "quarter"),
    ("4th quarter of 2018", (2018, 10, 1), "quarter"), ("H2 2019", (2019, 7, 1), "half"),
    ("2019 H1", (2019, 1, 1), "half"), ("15 March 2019", (2019, 3, 15), "day"),
    ("1st Jan 2019", (2019, 1, 1), "day"), ("March 15, 2019", (2019, 3, 15), "day"),
    ("March 2019", (2019, 3, 1), "month"), ("Sept 2020", (2020, 9, 1), "month"),
    ("Dec. 2018", (2018, 12, 1), "month"), ("03.2018", (2018, 3, 1), "month"),
    ("2019-03", (2019, 3, 1), "month"), ("2019", (2019, 1, 1), "year"),
    (" 2019 ", (2019, 1, 1), "year"),
])
def test_read_label(label, when, precision):
    assert read_label(label) == (dt.datetime(*when), precision)
    assert parse_label_date(label) == dt.datetime(*when)


@pytest.mark.parametrize("label", ["31-02-2018", "01-13-2018", "2263", "later", "Foo 2019",
                                   "Q4 1989", "h1 2101", "13.2018", ""])
def test_a_label_naming_no_date(label):
    assert read_label(label) == (None, None) and parse_label_date(label) is None


def test_to_datetime_reads_a_column_and_says_why_not():
    values = ["01.03.2018 12:00:00", "", None, "29.02.2019 00:00:00", "01.01.2018 00:00:60",
              "01.01.2101 00:00:00", "2018-03-01", 5, "00.01.2018 00:00:00"]
    out, unread = to_datetime(values)
    assert out.dtype == np.dtype("datetime64[ms]")
    assert out.astype(str).tolist() == [
        "2018-03-01T12:00:00.000", "NaT", "NaT", "NaT", "NaT", "NaT", "2018-03-01T00:00:00.000",
        "NaT", "NaT"]
    assert unread == ([3, 4, 5, 7, 8], ["29.02.2019 00:00:00", "01.01.2018 00:00:60",
                                        "01.01.2101 00:00:00", 5, "00.01.2018 00:00:00"],
                      ["impossible_date", "unreadable_date", "date_out_of_range", "wrong_type",
                       "impossible_date"])  # second 60: a real day, in a form not read


def test_to_datetime_of_nothing_and_of_lone_surrogates():
    out, unread = to_datetime([])
    assert out.dtype == np.dtype("datetime64[ms]") and len(out) == 0 and unread == ([], [], [])
    out, unread = to_datetime(["01.03.2018 12:00:00", "\ud800"])
    assert out.astype(str).tolist() == ["2018-03-01T12:00:00.000", "NaT"]
    assert unread.rows == [1]


def test_to_label_date_reads_keys_with_their_precision():
    labels = ["01-07-2018", "Q3 2018", "soon", "31-02-2018", 5, "2019", "01-13-2018"]
    dates, precision, unread = to_label_date(labels)
    assert dates.dtype == np.dtype("datetime64[ms]")
    assert dates.astype(str).tolist() == [
        "2018-07-01T00:00:00.000", "2018-07-01T00:00:00.000", "NaT", "NaT", "NaT",
        "2019-01-01T00:00:00.000", "NaT"]
    assert precision == ["day", "quarter", None, None, None, "year", None]
    assert unread == ([2, 3, 4, 6], ["soon", "31-02-2018", 5, "01-13-2018"],
                      ["unreadable_date", "impossible_date", "wrong_type", "us_order"])
    dates, precision, unread = to_label_date([])
    assert dates.dtype == np.dtype("datetime64[ms]") and precision == [] and unread == ([], [], [])


# -- text.py ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("0\u200b.25 ETH", "0.25 ETH"), ("１,５ ｅｔｈ", "1,5 eth"), ("\u22125", "-5"),
    ("a\u00adb\ufeff\u200e", "ab"), ("a\ud800", "a\ufffd"), ("plain ASCII", "plain ASCII"),
])
def test_normalize_text(text, expected):
    assert normalize_text(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("ЕТН", "ETH"), ("еth", "eth"), ("BTC", "BTC"),
    ("Рубль", "Рубль"), ("ЕТН€", "ЕТН€"),  # a letter without a Latin twin: kept as it is
])
def test_latin_ticker(text, expected):
    assert latin_ticker(text) == expected


def test_lone_surrogates_become_the_replacement_character():
    assert has_surrogates("a\ud800") and not has_surrogates("aé")
    assert clean_surrogates("a\ud800b") == "a\ufffdb" and clean_surrogates("aé") == "aé"


# -- columns.py: the vectorised converters ------------------------------------------------------


def _nan_as_none(values):
    return [None if pd.isna(v) else v for v in values]


def test_to_float_reads_what_it_can_and_says_why_not():
    values = [1, "2.5", "", "15M", "1 BILL = 1 XLM", "100-200", None, True, False, "N/A", "1e999",
              math.inf]
    out, unread = to_float(values)
    assert out.dtype == np.float64
    assert _nan_as_none(out.tolist()) == [1.0, 2.5, None, 1.5e7] + [None] * 8
    assert unread == ([4, 5, 7, 8, 10, 11], ["1 BILL = 1 XLM", "100-200", True, False, "1e999",
                                             math.inf],
                      ["unreadable_number", "range", "wrong_type", "wrong_type", "infinite",
                       "infinite"])


def test_to_float_of_a_share_with_its_bounds():
    out, unread = to_float(["60%", " 12.5 % ", 40, "101", -1, 0, "100"], percent=True,
                           bounds=(0.0, 100.0))
    assert _nan_as_none(out.tolist()) == [60.0, 12.5, 40.0, None, None, 0.0, 100.0]
    assert unread == ([3, 4], ["101", -1], ["out_of_bounds", "negative"])
    out, unread = to_float([])
    assert out.dtype == np.float64 and len(out) == 0 and unread == ([], [], [])


def test_to_bool_is_true_only_for_true_words():
    values = [True, "", "Available", 0, "maybe", "YES (UNTIL 11 SEP)", [1], 1.0, None, 2, "no", {}]
    flags, unread = to_bool(values)
    assert flags.dtype == bool
    assert flags.tolist() == [True, False, True, False, False, True, False, True, False, False,
                              False, False]
    assert unread == ([4, 5, 6, 9, 11], ["maybe", "YES (UNTIL 11 SEP)", [1], 2, {}],
                      ["unknown_flag", "qualified_flag", "wrong_type", "unknown_flag",
                       "wrong_type"])
    flags, unread = to_bool([[1], "yes"])  # an unhashable first value: every value the slow way
    assert flags.tolist() == [False, True] and unread.rows == [0]
    flags, unread = to_bool([])
    assert flags.dtype == bool and len(flags) == 0 and unread == ([], [], [])


def test_to_text_strips_and_reports_what_is_no_text():
    values = [" Ethereum ", "TBA", None, 7, True, "a\ud800", 2.0, 2.5, math.nan, math.inf,
              {"a": 1}, "  ", "n/a"]
    texts, unread = to_text(values)
    assert pd.Series(texts).dtype == TEXT_DTYPE
    assert _nan_as_none(texts) == ["Ethereum", None, None, "7", None, "a\ufffd", "2", "2.5",
                                   None, None, None, None, None]
    assert unread == ([4, 5, 9, 10], [True, "a\ud800", math.inf, {"a": 1}],
                      ["wrong_type", "surrogate", "infinite", "wrong_type"])
    texts, unread = to_text(["a", " b "])
    assert list(texts) == ["a", "b"] and unread == ([], [], [])
    texts, unread = to_key_text(["Q3 2018 ", "", 5])
    assert list(texts) == ["Q3 2018 ", "", "5"] and unread == ([], [], [])


def test_to_int_and_to_nullable_int():
    out, unread = to_int([1, "2", 3.0])
    assert out.dtype == np.int64 and out.tolist() == [1, 2, 3] and unread == ([], [], [])
    with pytest.raises(ValueError, match=r"^not a non-negative integer: -1$"):
        to_int([1, -1])
    values = [1, None, "3", "x", True, math.nan, " TBA ", -1, [2], 2.0]
    out, unread = to_nullable_int(values)
    assert str(out.dtype) == "Int64"
    assert _nan_as_none(out.tolist()) == [1, None, 3, None, None, None, None, None, None, 2]
    assert unread == ([3, 4, 7, 8], ["x", True, -1, [2]],
                      ["unreadable_id", "wrong_type", "unreadable_id", "wrong_type"])


def test_numbers_fast_names_the_rows_it_cannot_vouch_for():
    out, suspect = numbers_fast([1, "x", True, False, 0, 1, "1", math.inf])
    assert _nan_as_none(out.tolist()) == [1.0, None, 1.0, 0.0, 0.0, 1.0, 1.0, math.inf]
    assert sorted(suspect) == [1, 2, 3, 7]  # not finite, or a boolean


def test_each_schema_kind_has_its_converter():
    assert {"int": to_int, "Int": to_nullable_int, "float": to_float,
                          "bool": to_bool, "text": to_text, "datetime": to_datetime,
                          "list": to_list} == CONVERTERS


# -- names.py and base.py -----------------------------------------------------------------------


def test_same_name_finds_other_spellings_in_their_order():
    assert same_name("ERC20", ["Ethereum", "Waves", "ethereum"], PLATFORM_FAMILIES) == [
        "Ethereum", "ethereum"]
    assert same_name(" United   Kingdom ", ["Singapore", "UK", "uk", "England"],
                     COUNTRY_NAMES) == ["UK", "uk", "England"]
    # the value's own spelling is no other spelling of it
    assert same_name("UK", ["United Kingdom", "UK", "gb"], COUNTRY_NAMES) == [
        "United Kingdom", "gb"]
    assert same_name("Mars", ["UK"], COUNTRY_NAMES) == []


def test_unread_values_carry_their_rows_and_reasons():
    assert Unread.at(["1", "x", "2", "y"], [1, 3], ["range", "vague"]) == (
        [1, 3], ["x", "y"], ["range", "vague"])
    assert Unread.at(["1", "x"], [1], "range") == ([1], ["x"], ["range"])
    assert Unread.none() == ([], [], [])
    with pytest.raises(ValueError, match=r"^2 reasons for 1 rows$"):
        Unread.at(["a"], [0], ["range", "vague"])
    assert is_missing_marker("tba") and is_missing_marker("") and not is_missing_marker("x")
    assert bad("range") is bad("range") and repr(bad("range")) == "Bad('range')"


# -- items.py: list columns --------------------------------------------------------------------


def test_to_list_cleans_items_and_reports_the_unreadable_at_their_row():
    values = [["ETH", " BTC", "TBA", ""], "", "ETH", None, ["NO"], "Not", ["US", "NO"],
              {"1": "A", "3": " B "}, ("x", 2, 2.5, math.nan, math.inf, None, True),
              ["a\ud800", "b"], "c\ud800", 7, ["ETH", True, ["x"]], [" no "], "N/A"]
    out, unread = to_list(values)
    assert out.dtype == object
    assert out.tolist() == [["ETH", "BTC"], [], ["ETH"], [], [], [], ["US", "NO"], ["A", "B"],
                            ["x", "2", "2.5"], ["a\ufffd", "b"], ["c\ufffd"], ["7"], ["ETH"],
                            [], []]
    assert unread == ([8, 8, 9, 10, 12, 12], [math.inf, True, "a\ud800", "c\ud800", True, ["x"]],
                      ["infinite", "wrong_type", "surrogate", "surrogate", "wrong_type",
                       "wrong_type"])


def test_split_lone_strings_splits_only_lone_strings():
    values = ["BTC, ETH, and Fiat currency", ["A, B"], "Korea, Republic of; US", "one", None,
              "a; & b;c ,"]
    assert split_lone_strings(values) == [["BTC", "ETH", "Fiat currency"], ["A, B"],
                                          ["Korea, Republic of", "US"], "one", None,
                                          ["a", "b", "c"]]
    assert values[0] == "BTC, ETH, and Fiat currency"  # the input is not changed
    plain = ["a", "b"]
    assert split_lone_strings(plain) is plain  # nothing to split: no copy
    assert split_lone_strings(("a, b",)) == [["a", "b"]]
    assert type(split_lone_strings(("a",))) is list  # a tuple with nothing to split: a list


def test_with_latin_tickers():
    values = ["ЕТН", ["BTC", "Е\u200bТН"], None, "ABC", ["A", "B"], ["A", 1]]
    assert with_latin_tickers(values) == ["ETH", ["BTC", "ETH"], None, "ABC", ["A", "B"],
                                          ["A", 1]]
    assert values[0] == "ЕТН"
    plain = ["ABC", ["A"]]
    assert with_latin_tickers(plain) is plain
    assert with_latin_tickers(("ЕТН",)) == ["ETH"]


@pytest.mark.parametrize(("text", "reason"), [
    ("00.13.2018", "impossible_date"),  # a day 0 is impossible before it is a US order
    ("1990-01-01T25:00", "unreadable_date"),  # the first and last years are in range
    ("2100-12-31T25:00", "unreadable_date"),
    ("05.12.2018 25:00", "unreadable_date"),  # month 12 is a month: no US order
    ("12.13.2018", "us_order"), ("13.13.2018", "impossible_date"),  # day 12 could be a month
    ("1.2018", "unreadable_date"), ("12.2018", "unreadable_date"),  # months 1 and 12 exist
    ("0.2018", "impossible_date"),
    ("Sep 1990", "unreadable_date"), ("Dec 2100", "unreadable_date"),  # years in range
    ("Sep '99", "short_year"),  # a two-digit year is never guessed (parser 23)
])
def test_date_reason_at_its_edges(text, reason):
    assert date_reason(text) == reason


def test_the_first_year_is_a_roadmap_year():
    assert read_label("1990") == (dt.datetime(1990, 1, 1), "year")


def test_with_latin_tickers_keeps_each_change_and_gives_a_list():
    assert with_latin_tickers(["ЕТН", "ВТС"]) == ["ETH", "BTC"]  # one copy keeps both
    assert with_latin_tickers([["ЕТН"], ["ВТС"]]) == [["ETH"], ["BTC"]]
    assert with_latin_tickers([["A"], "ЕТН"]) == [["A"], "ETH"]  # past a plain list
    assert with_latin_tickers(("ABC",)) == ["ABC"] and type(with_latin_tickers(("ABC",))) is list

"""Parser defects left by parser 19 (parser 20): values real directories write.

Each test failed on parser 19: a duplicate list item was dropped silently, a multiplier
word that is the ICO's own ticker was read as a multiple, a DataFrame was read as
profiles, or a unit column holding only a multiplier became a made-up currency.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from messy_profiles import clean_profile

from icoframes.errors import InvalidParameter
from icoframes.parse.lists import list_frame
from icoframes.parse.problems import Problems
from icoframes.parse.profiles import tidy
from icoframes.parse.units import read_amount_group, read_price


def _profile(ico_id: int, name: str = "Aquaibit", ticker: str = "AQB") -> dict:
    profile = clean_profile(ico_id)
    profile["main"]["name"], profile["finance"]["ticker"] = name, ticker
    return profile


def _group(values: list, unit: str = "", ticker: str | None = None):
    amounts, codes, bad = read_amount_group({"v": values}, [unit] * len(values),
                                            tickers=[ticker] * len(values))
    return amounts["v"].tolist(), codes.tolist(), list(zip(bad["v"].values, bad["v"].reasons,
                                                           strict=True))


# --------------------------------------------------------------------------- 1. list copies


def _item(ico_id: object, name: object, score: object = 3.5) -> dict:
    return {"id": ico_id, "main": {"name": name, "ico_score": score}}


def test_a_list_page_repeating_an_id_keeps_the_last_copy_and_reports_the_one_it_drops():
    problems = Problems()
    frame = list_frame([_item(7, "Old"), _item(8, "B"), _item("7", "New", 4.0)],
                       status="past", problems=problems)
    # the last copy is kept, at the place of its last occurrence (as tidy keeps profiles)
    assert frame[["id", "name", "ico_score"]].values.tolist() == [[8, "B", 3.5],
                                                                 [7, "New", 4.0]]
    assert problems.records() == [{
        "ico_id": 7, "table": "list", "column": "id",
        "value": '{"id": 7, "main": {"name": "Old", "ico_score": 3.5}}',
        "reason": "duplicate_id"}]


def test_every_dropped_copy_that_differs_is_reported_in_order_copies_alike_are_not():
    problems = Problems()
    items = [_item(1, "a"), _item(2, "x"), _item(1, "b"), _item(1, "c"), _item("1", "c"),
             _item(2, "x"), {"id": 3, "main": {"name": "n", "ico_score": math.nan}},
             {"id": 3.0, "main": {"ico_score": math.nan, "name": "n"}}]
    frame = list_frame(items, status=None, problems=problems)
    assert frame["id"].tolist() == [1, 2, 3]
    assert frame["name"].tolist() == ["c", "x", "n"]
    dropped = problems.frame()
    assert dropped["reason"].tolist() == ["duplicate_id"] * 2
    assert dropped["ico_id"].tolist() == [1, 1]
    assert [v.split('"name": ')[1][:3] for v in dropped["value"]] == ['"a"', '"b"']


def test_tidy_still_reports_its_dropped_copies_as_before():
    problems = tidy([_profile(5, name="First"), _profile(5, name="Second")]).problems
    assert problems["reason"].tolist() == ["duplicate_id"]
    assert problems["table"].tolist() == ["icos"] and '"First"' in problems["value"][0]


# --------------------------------------------------------------------------- 2. ticker words


@pytest.mark.parametrize(("ticker", "values"), [
    ("MN", ["5 MN", "5 mn", "5 Mn", "$5 mn.", "5mn"]),
    ("K", ["5 k", "5k", "5 K", "$5k"]),
    ("M", ["5 m", "5M", "$5 m."]),
    ("B", ["5 b", "5B"]),
    ("MIO", ["5 mio", "5 Mio."]),
    ("THOUSAND", ["5 thousand"]),
])
@pytest.mark.parametrize("unit", ["", "USD"])
def test_any_multiplier_word_that_is_the_icos_ticker_is_unreadable(ticker, values, unit):
    # parser 19: 5 million (or 5,000 for K): only a word of two letters or more was checked
    # and the lone letters k, m, b always multiplied
    amounts, codes, unread = _group(values, unit, ticker)
    assert all(math.isnan(a) for a in amounts) and codes == [unit or None] * len(values)
    assert unread == [(value, "unreadable_number") for value in values]


def test_a_multiplier_word_is_still_a_multiple_for_other_icos_or_before_a_currency():
    assert _group(["5 mn", "5k", "5 M"], ticker="KIN")[0] == [5e6, 5e3, 5e6]
    assert _group(["5 mn USD", "5k USD"], ticker="MN") == ([5e6, 5e3], ["USD", "USD"], [])
    assert _group(["5k USD"], ticker="K") == ([5e3], ["USD"], [])


def test_a_lone_letter_that_is_the_ticker_is_unreadable_in_an_exchange_too():
    prices, codes, unread = read_price(["$1 = 5k", "$1 = 5 M", "$1 = 5k"], ["", "", ""],
                                       tickers=["K", "M", "KIN"])
    assert math.isnan(prices[0]) and math.isnan(prices[1])
    assert prices[2] == pytest.approx(1 / 5e3) and codes.tolist() == [None, None, "USD"]
    assert unread.rows == [0, 1] and unread.reasons == ["unreadable_price"] * 2


@pytest.mark.parametrize("column", ["raised", "tokens_for_sale"])
def test_amounts_without_a_unit_column_read_the_ticker_word_as_unreadable_too(column):
    # parser 19 checked the ticker only where a unit column is: raised "5 mln" for MLN was
    # 5,000,000 USD
    profiles = [_profile(1, ticker="MLN"), _profile(2, ticker="MN"),
                _profile(3, ticker="KIN"), _profile(4, ticker="MLN")]
    for profile, value in zip(profiles, ["5 mln", "5 MN", "5 mln", "5 mln MLN"], strict=True):
        profile["finance"][column] = value
    tables = tidy(profiles)
    got = tables.icos[column].tolist()
    assert math.isnan(got[0]) and math.isnan(got[1]) and got[2] == 5e6
    problems = sorted(tables.problems[["ico_id", "table", "column", "value", "reason"]]
                      .values.tolist())
    assert problems[:2] == [[1, "icos", column, "5 mln", "unreadable_number"],
                           [2, "icos", column, "5 MN", "unreadable_number"]]
    if column == "tokens_for_sale":  # 5 million of its token, named
        assert got[3] == 5e6 and len(problems) == 2
    else:  # raised is in USD: an amount of a token is a unit_conflict (parser 27; was
        # unreadable_number)
        assert math.isnan(got[3]) and problems[2][3:] == ["5 mln MLN", "unit_conflict"]


def test_raised_in_us_dollars_with_a_ticker_word_before_usd_is_a_multiple():
    profile = _profile(1, ticker="MLN")
    profile["finance"]["raised"] = "$5 mln USD"
    assert tidy([profile]).icos["raised"].tolist() == [5e6]


@pytest.mark.parametrize(("value", "number"), [
    ("500,000,000 XYZ", 5e8), ("500M XYZ", 5e8), ("500,000,000 tokens", 5e8),
    ("500 million Tokens", 5e8), ("5kXYZ", 5e3), ("2,5 xyz", 2.5), (500, 500.0),
])
def test_tokens_for_sale_naming_the_token_are_read(value, number):
    # parser 19: unreadable_number ("500,000,000 XYZ" names the token the column counts)
    profile = _profile(1, ticker="XYZ")
    profile["finance"]["tokens_for_sale"] = value
    tables = tidy([profile])
    assert tables.icos["tokens_for_sale"].tolist() == [number] and tables.problems.empty


@pytest.mark.parametrize("value", ["$5M", "5 ETH", "5,000,000 USD", "500 BFC", "5 mln USD"])
@pytest.mark.parametrize("ticker", ["XYZ", None])
def test_tokens_for_sale_in_another_unit_are_no_supply_of_tokens(value, ticker):
    # parser 19: "$5M" was 5,000,000 tokens; the others unreadable_number
    profile = _profile(1, ticker="XYZ")
    profile["finance"]["ticker"] = ticker
    profile["finance"]["tokens_for_sale"] = value
    tables = tidy([profile])
    assert math.isnan(tables.icos["tokens_for_sale"][0])
    # (a token no list knows, of another ICO: no unit known since parser 34)
    assert tables.problems[["column", "value", "reason"]].values.tolist() == [
        ["tokens_for_sale", value, "unknown_unit" if value == "500 BFC" else "unit_conflict"]]


# --------------------------------------------------------------------------- 3. DataFrame


def test_tidy_refuses_a_dataframe_with_a_did_you_mean():
    profiles = [_profile(1, name="A"), _profile(2, name="B")]
    frame = pd.DataFrame(profiles)
    # parser 19: each column name was a profile that is no object (wrong_shape), no ICO
    with pytest.raises(InvalidParameter) as refused:
        tidy(frame)
    assert str(refused.value) == (
        "tidy() takes an iterable of profiles (decoded JSON), got a DataFrame; did you mean "
        "tidy(frame.to_dict('records')), one profile per row?")
    # what it suggests reads the profiles
    assert tidy(frame.to_dict("records")).icos["name"].tolist() == ["A", "B"]


def test_a_series_of_profiles_is_still_an_iterable_of_profiles():
    series = pd.Series([_profile(1, name="A"), _profile(2, name="B")])
    assert tidy(series).icos["id"].tolist() == [1, 2]


# --------------------------------------------------------------------------- 4. unit columns


@pytest.mark.parametrize("unit", ["mln", "Mln.", "K", "k", "mn", "bn", "M", "thousand",
                                  " million "])
def test_a_unit_column_holding_only_a_multiplier_is_no_currency(unit):
    # parser 19: 5 in a currency MLN (K, MN, ...) made up from the multiplier
    amounts, codes, unread = _group([5, "7", "5 USD", "$2", None], unit)
    assert math.isnan(amounts[0]) and math.isnan(amounts[1]) and math.isnan(amounts[4])
    assert amounts[2:4] == [5.0, 2.0]  # a value that writes its currency is read as written
    assert codes == [None, None, "USD", "USD", None]
    assert unread == [(5, "unreadable_unit"), ("7", "unreadable_unit")]  # parser 28: _number


def test_a_unit_column_of_a_multiplier_glued_to_a_currency_or_mln_in_capitals_is_kept():
    assert _group([5], "mln USD") == ([5e6], ["USD"], [])
    assert _group([5], "bnUSD") == ([5e9], ["USD"], [])  # "kUSD": unreadable, parser 26
    assert _group([5], "MLN") == ([5.0], ["MLN"], [])  # "5 MLN" is a ticker too


def test_a_unit_column_multiplier_that_is_the_ticker_cannot_be_told_either():
    # "MN" for MN: millions (of what?), or the token? never a guess
    amounts, codes, unread = _group([5], "MN", ticker="MN")
    assert math.isnan(amounts[0]) and codes == [None] and unread == [(5, "unreadable_unit")]


# --------------------------------------------------------------------------- 5. more values


@pytest.mark.parametrize(("value", "number"), [
    ("5 millions", 5e6), ("5 Millions", 5e6), ("2 thousands", 2e3), ("1.5 billions", 1.5e9),
    ("5 bln", 5e9), ("5 Bln.", 5e9), ("$5 millions", 5e6), ("5 millions USD", 5e6),
])
def test_plural_multipliers_and_bln_multiply(value, number):
    # parser 19: 5 in a made-up unit MILLIONS, THOUSANDS, BILLIONS or BLN
    amounts, codes, unread = _group([value], "USD")
    assert amounts == [number] and codes == ["USD"] and unread == []


def test_bln_in_capitals_is_a_ticker_as_mln_is():
    # (a ticker no list knows: the ICO's own, since parser 34)
    assert _group(["5 BLN"], ticker="BLN") == ([5.0], ["BLN"], [])


@pytest.mark.parametrize(("value", "number"), [
    ("1'000'000", 1e6), ("1’000’000", 1e6), ("$1'500'000.50", 1_500_000.5),
    ("2'500 USD", 2500.0),
])
def test_apostrophes_group_thousands(value, number):
    # parser 19: range ("1'000'000" read as several numbers)
    assert _group([value], "USD") == ([number], ["USD"], [])


def test_an_apostrophe_that_groups_no_thousands_is_no_number():
    assert _group(["1'5", "1'0000"], "USD")[2] == [("1'5", "grouping"),
                                                   ("1'0000", "grouping")]


def test_space_grouped_digits_before_a_word_are_one_number_not_a_range():
    # parser 19: "range"; the value is still unreadable (tokens is no unit)
    assert _group(["100 000 000 tokens"])[2] == [("100 000 000 tokens", "unreadable_number")]
    assert _group(["10 000 - 20 000 tokens"])[2] == [("10 000 - 20 000 tokens", "range")]


def test_an_approximation_sign_anywhere_is_vague():
    # parser 19: "range" (the two numbers of "1 XYZ ≈ 0.1 USD")
    _prices, _codes, unread = read_price(["1 XYZ ≈ 0.1 USD"], [""], tickers=["XYZ"])
    assert unread.reasons == ["vague"]


@pytest.mark.parametrize(("value", "number"), [
    ("10 cents", 0.1), ("10 Cents", 0.1), ("1 cent", 0.01), ("20¢", 0.2), ("20 ¢", 0.2),
])
def test_cents_are_hundredths_of_a_us_dollar(value, number):
    # parser 19: 10 in a made-up currency CENTS ("20¢" unreadable)
    amounts, codes, unread = _group([value])
    assert amounts == [pytest.approx(number)] and codes == ["USD"] and unread == []
    assert _group([value], "ETH")[2] == [(value, "unit_conflict")]


def test_a_price_in_cents_is_in_us_dollars():
    prices, codes, _ = read_price(["1 XYZ = 10 cents"], [""], tickers=["XYZ"])
    assert prices.tolist() == [pytest.approx(0.1)] and codes.tolist() == ["USD"]


@pytest.mark.parametrize(("value", "price", "unit"), [
    ("$0.1 per token", 0.1, "USD"), ("0.1 USD/token", 0.1, "USD"),
    ("0.1 USD / tokens", 0.1, "USD"), ("0.1 USD per XYZ", 0.1, "USD"),
    ("0.0001 ETH/xyz", 0.0001, "ETH"), ("10 cents per token", 0.1, "USD"),
    ("€0.5 per coin", 0.5, "EUR"),
])
def test_a_price_written_per_token_is_read(value, price, unit):
    # parser 19: unreadable_number
    prices, codes, unread = read_price([value], [""], tickers=["XYZ"])
    assert prices.tolist() == [pytest.approx(price)] and codes.tolist() == [unit]
    assert unread.rows == []


@pytest.mark.parametrize("value", ["$5/month", "0.1 USD/ETH", "0.1 USD per ABC",
                                   "$0.1 per token (presale)", "1 XYZ = 0.1 USD per token"])
def test_a_price_per_what_is_no_token_is_still_unreadable(value):
    prices, _codes, unread = read_price([value], [""], tickers=["XYZ"])
    assert math.isnan(prices[0]) and unread.rows == [0]


def test_per_token_is_read_only_in_prices():
    # a purchase limit "per token" is no amount
    assert _group(["$0.1 per token"])[2] == [("$0.1 per token", "unreadable_number")]


@pytest.mark.parametrize("value", ["5 mil", "5 Mill.", "5 bil", "5 Bio.", "5 kk", "5 tys.",
                                   "5 lakh", "5 crore", "5 Millionen", "1.5 Mrd",
                                   "2 milliards"])
def test_multipliers_of_other_readings_are_unreadable_not_a_made_up_unit(value):
    # parser 19: 5 in a unit MIL, BIL, BIO, KK... ("5 mil": 5,000 in Spanish, or 5 million?)
    amounts, codes, unread = _group([value])
    assert math.isnan(amounts[0]) and codes == [None]
    assert unread == [(value, "unreadable_number")]


def test_us_dollar_written_apart_from_its_symbol_is_usd():
    # parser 19: unreadable_number
    assert _group(["US $ 5", "5 US $"]) == ([5.0, 5.0], ["USD", "USD"], [])


def test_a_negative_amount_with_the_ticker_word_is_reported_once():
    profile = _profile(1, ticker="MLN")
    profile["finance"]["raised"] = "-5 mln"
    problems = tidy([profile]).problems
    assert problems[["column", "value", "reason"]].values.tolist() == [
        ["raised", "-5 mln", "negative"]]


# --------------------------------------------------------------------------- 6. long values

# Each value took the parser 19 hours or more (backtracking: O(n^2) to O(n^3) in its length;
# 500 spaces in an amount took 5 s): a hostile directory could stall every load that reads
# it. Run in a child process, so that a regression fails at the hang guard instead of
# stalling the suite; none of it reads the clock.
_LONG = 200_000
_LONG_VALUES = {
    "amount": ["1" + " " * _LONG + "x",  # _AMOUNT_RE: cubic
               "1." * _LONG + "x",  # amount_reason's two numbers: quadratic
               "1" + " " * _LONG + "USD" + " " * _LONG + "x",  # units._SUFFIX_RE: quadratic
               # units._PREFIX_RE: quadratic ("$" + 50,000 spaces took 121 s, parser 20)
               "$" + " " * _LONG + "x", "a" + " " * _LONG + "x", "or" + " " * _LONG + "x"],
    "price": ["1 = " + " " * _LONG + "x",  # prices._SIDE_RE: quadratic
              "1" + " " * _LONG + "/token",  # per_token
              "$" + " " * _LONG + "x", "a" + " " * _LONG + "x", "or" + " " * _LONG + "x"],
}
_CHILD = """
import json, sys
from icoframes.parse.units import read_amount_group, read_price
values = json.loads(sys.stdin.read())
_, _, amounts = read_amount_group({"v": values["amount"]}, [""] * 6)
_, _, prices = read_price(values["price"], [""] * 5, tickers=["XYZ"] * 5)
print(json.dumps([amounts["v"].reasons, prices.reasons]))
"""


def test_long_hostile_values_are_read_in_linear_time():
    import json
    import subprocess
    import sys

    from waiting import HANG_GUARD

    done = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(_LONG_VALUES),
                          capture_output=True, text=True, timeout=HANG_GUARD, check=True)
    # the per-token price "1 ... /token" writes no currency and its unit column is empty:
    # no price (parser 23; parser 21-22 read it as 1 with no unit)
    # ("1 ... x": a word beside one number, no unit known: parser 34)
    assert json.loads(done.stdout) == [["unknown_unit"] + ["unreadable_number"] * 5,
                                       ["unreadable_price"] * 2 + ["unreadable_number"] * 3]


def test_what_a_price_per_token_cannot_be_is_said():
    # a money side without a number, a per-token price inside an exchange, and a final dot
    prices, codes, unread = read_price(
        ["lots per token", "1 XYZ = 0.1 USD per token", "$0.1 per token.", "0.1 USD/ABX"],
        ["", "", "", ""], tickers=["XYZ", "XYZ", "XYZ", "ABX"])
    assert unread.rows == [0, 1] and unread.reasons == ["unreadable_number", "unreadable_price"]
    assert prices.tolist()[2:] == [0.1, 0.1] and codes.tolist()[2:] == ["USD", "USD"]


def test_cents_that_are_no_number_say_why():
    amounts, codes, unread = _group(["1,500,5 cents"])
    assert math.isnan(amounts[0]) and codes == [None]
    assert unread == [("1,500,5 cents", "grouping")]


def test_ticker_words_reads_every_row_and_a_zero_too():
    from icoframes.parse.amounts import ticker_words

    # a number before does not end the scan; "0 mln" is an amount like any (not negative)
    unread = ticker_words([5, "0 mln", 7.5, "5 mln", "-5 mln"], ["MLN"] * 5)
    assert unread.rows == [1, 3] and unread.values == ["0 mln", "5 mln"]
    with pytest.raises(ValueError, match="zip"):
        ticker_words(["5 mln"], [])  # one ticker per value


def test_the_icos_own_ticker_cent_is_its_token_not_a_hundredth_of_a_dollar():
    # the ICO's own ticker decides first, as everywhere
    assert _group(["500 CENT", "10 cents"], ticker="CENT") == ([500.0, 0.1], ["CENT", "USD"], [])
    prices, codes, _ = read_price(["1 CENT = 0.01 USD", "2 cents = 1 XYZ"], ["", ""],
                                  tickers=["CENT", "XYZ"])
    assert prices.tolist() == [0.01, pytest.approx(0.02)] and codes.tolist() == ["USD", "USD"]


# --------------------------------------------------------------------------- 7. review A

@pytest.mark.parametrize(("value", "number"), [
    ("5 millions$", 5e6), ("5 millionsUSD", 5e6), ("5millions$", 5e6), ("5 thousands$", 5e3),
    ("5 billionsUSD", 5e9), ("5 mln.$", 5e6), ("5 k.USD", 5e3),
])
def test_a_plural_multiplier_glued_to_a_currency_keeps_the_currency(value, number):
    # parser 20 before: 5e6 in the unit column's ETH (or with no unit), the dollar dropped,
    # while the singular "5 million$" was already unit_conflict
    assert _group([value], "ETH")[2] == [(value, "unit_conflict")]
    assert _group([value]) == ([number], ["USD"], [])
    prices, _codes, unread = read_price([value], ["ETH"])
    assert math.isnan(prices[0]) and unread.reasons == ["unit_conflict"]


@pytest.mark.parametrize("value", ["5' USD", "1'000' USD", "5'k", "5'", "5''", "0.1’ USD"])
def test_a_number_ending_in_an_apostrophe_is_no_number(value):
    # parser 20 before: 5 (1,000, 5,000, 0.1) in the unit column's ETH, the USD hidden
    assert _group([value], "ETH")[2] == [(value, "grouping")]
    assert _group([value])[2] == [(value, "grouping")]
    _prices, _codes, unread = read_price([value], ["ETH"])
    assert unread.reasons == ["grouping"]


@pytest.mark.parametrize(("value", "ticker"), [
    ("$1 = 5 mil", "XYZ"), ("$1 = 5 lakh", "XYZ"), ("$1 = 5 kk", "XYZ"), ("1 ETH = 2 Mrd", None),
    ("1 XYZ = 5 Mill.", "XYZ"), ("$1 = 5 days", "XYZ"),
])
def test_an_exchange_never_reads_a_word_that_is_no_unit_as_the_token(value, ticker):
    # parser 20 before: 0.2 USD (0.5 ETH), the multiplier word of another reading read as
    # the token's name, as parser 19 read "5 mil" as 5 MIL
    prices, codes, unread = read_price([value], [""], tickers=[ticker])
    assert math.isnan(prices[0]) and codes.tolist() == [None]
    assert unread.reasons == ["unreadable_price"]


@pytest.mark.parametrize("value", ["1 XYZ per token", "5 XYZ per coin",
                                   "0.00025 millions tokens = 1 XYZ"])
def test_a_price_is_never_in_tokens(value):
    # parser 20 before: 1.0 TOKEN, 0.2 COIN, 250 TOKENS (the money side named the token)
    prices, codes, unread = read_price([value], [""], tickers=["XYZ"])
    assert math.isnan(prices[0]) and codes.tolist() == [None]
    assert unread.reasons == ["unreadable_price"]
    # the token side may still be the word token
    assert read_price(["$1 = 5 tokens"], [""])[0].tolist() == [0.2]


def test_a_final_dot_after_the_unit_of_an_exchange_is_no_part_of_it():
    # parser 20 before: 10 CENTS. and 0.1 in a currency "USD."
    prices, codes, unread = read_price(["1 XYZ = 10 cents.", "1 XYZ = 0.1 USD."], ["", ""],
                                       tickers=["XYZ", "XYZ"])
    assert prices.tolist() == [pytest.approx(0.1), 0.1] and codes.tolist() == ["USD", "USD"]
    assert unread.rows == []


def test_written_currency_names_only_a_currency_the_text_writes():
    from icoframes.parse.rules import written_currency

    assert [written_currency(v) for v in ["5 mln.$", "US$ 5", " 5 k.USD ", "5 mln", "lots"]] == [
        "USD", "USD", "USD", None, None]


def test_an_exchange_keeps_a_currency_ending_in_x():
    # a final dot is dropped from a side's unit, nothing more
    prices, codes, _ = read_price(["1 XYZ = 5 TRX", "1 XYZ = 5 TRX."], ["", ""],
                                  tickers=["XYZ", "XYZ"])
    assert prices.tolist() == [5.0, 5.0] and codes.tolist() == ["TRX", "TRX"]


@pytest.mark.parametrize("unit", ["cents", "Cents", "¢", " cent "])
def test_a_unit_column_of_cents_is_hundredths_of_a_us_dollar(unit):
    # parser 20 before: 10 in a made-up currency CENTS (or ¢)
    assert _group(["10", 25, "$2", "10 cents"], unit) == (
        [pytest.approx(0.1), 0.25, 2.0, pytest.approx(0.1)], ["USD"] * 4, [])
    assert _group(["5 ETH"], unit)[2] == [("5 ETH", "unit_conflict")]
    prices, codes, _ = read_price(["10"], [unit], tickers=["XYZ"])
    assert prices.tolist() == [pytest.approx(0.1)] and codes.tolist() == ["USD"]


def test_a_unit_column_naming_the_icos_own_ticker_cent_is_its_token():
    assert _group(["10"], "cent", ticker="CENT") == ([10.0], ["CENT"], [])

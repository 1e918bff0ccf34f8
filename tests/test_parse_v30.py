"""Parser 30: four readings of parser 29 that gave a wrong value or the wrong reason.

Each test of a fix failed on a5ebd1c (parser 29): ``"1,500"`` beside ``"1.500.000"`` and a
refused ``"1,000,000 BTC"`` was 1.5 with no row; a distribution share ``"25% (vested)"`` gave
the reason ``percent``; ``"$3"`` under a unit column ``"Singapore dollars"`` was 3 USD; an
amount or price too small for a float (``"1e-400 ETH = 1 AQB"``) was 0.0.
"""

from __future__ import annotations

import math

import pytest

from icoframes.parse.profiles import tidy
from icoframes.reasons import REASONS


def _icos(finance: dict) -> tuple[dict, dict]:
    """One profile's finance read: its icos row, and (column -> (value, reason)) of problems."""
    tables = tidy([{"id": 1, "finance": {"ticker": "AQB", **finance}}])
    problems = {c: (v, r) for c, v, r in tables.problems[["column", "value", "reason"]]
                .itertuples(index=False)}
    return tables.icos.iloc[0].to_dict(), problems


# --- a refused value may make an ICO show both conventions, never decide one alone

def test_a_refused_value_of_the_other_convention_makes_the_ico_show_both():
    row, problems = _icos({"max_purchase": "1,000,000 BTC", "purchase_unit": "USD",
                           "hard_cap": "1.500.000", "caps_unit": "EUR",
                           "token_price": "1,500", "token_price_unit": "EUR"})
    assert math.isnan(row["token_price"]) and row["hard_cap"] == 1500000.0  # a5ebd1c: 1.5
    assert problems == {"max_purchase": ("1,000,000 BTC", "unit_conflict"),
                        "token_price": ("1,500", "ambiguous_separator")}
    # the mirror: English amounts read, a decimal comma refused: "12.500" is in doubt
    row, problems = _icos({"min_purchase": "0,1 ETH", "purchase_unit": "USD",
                           "hard_cap": "1,500,000", "caps_unit": "USD",
                           "soft_cap": "12.500", "raised": "$12.500"})
    assert math.isnan(row["soft_cap"]) and math.isnan(row["raised"])  # a5ebd1c: 12.5
    assert problems["soft_cap"] == ("12.500", "ambiguous_separator")


def test_a_refused_value_never_settles_a_doubt_alone_nor_beside_its_own_convention():
    # alone: no read amount shows a convention ("0,1 ETH" refused is no sign of German)
    row, problems = _icos({"min_purchase": "0,1 ETH", "purchase_unit": "USD",
                           "hard_cap": "12.500 ETH", "caps_unit": ""})
    assert math.isnan(row["hard_cap"])
    assert problems["hard_cap"] == ("12.500 ETH", "ambiguous_separator")
    # beside read amounts of its own convention it changes nothing
    row, problems = _icos({"max_purchase": "1.000.000 BTC", "purchase_unit": "USD",
                           "hard_cap": "1.500.000", "caps_unit": "EUR",
                           "soft_cap": "12.500", "token_price": "1,500",
                           "token_price_unit": "EUR"})
    assert (row["soft_cap"], row["token_price"]) == (12500.0, 1.5)
    assert problems == {"max_purchase": ("1.000.000 BTC", "unit_conflict")}


# --- a share qualified by words is vague, not a percent outside a share

@pytest.mark.parametrize(("share", "reason"), [
    ("25% (vested)", "vague"), ("25% (vested 2 years)", "vague"), ("25% vested", "vague"),
    ("25 percent (locked)", "vague"), ("20% + 5%", "range")])
def test_a_distribution_share_with_words_after_its_percent_says_what_is_wrong(share, reason):
    tables = tidy([{"id": 1, "finance": {"distribution": {"Team": share, "Sale": "60%"}}}])
    rows = tables.problems[["table", "column", "value", "reason"]].values.tolist()
    assert rows == [["distribution", "percent", share, reason]]  # a5ebd1c: percent
    # outside a share a % stays the reason: a hard cap is no share
    assert _icos({"hard_cap": share, "caps_unit": "USD"})[1]["hard_cap"][1] == "percent"


def test_the_reasons_a_share_gives_are_documented_for_shares():
    assert "share" in REASONS["percent"] and "``\"25% (vested)\"``" in REASONS["vague"]


# --- a dollar of no country under a unit column naming another dollar, which is unread

@pytest.mark.parametrize("unit", ["Singapore dollars", "Canadian dollar", "$ (SGD)"])
@pytest.mark.parametrize(("column", "group", "value"), [
    ("token_price", "token_price_unit", "$3"), ("token_price", "token_price_unit", "1 AQB = $3"),
    ("hard_cap", "caps_unit", "$3,000,000"), ("max_purchase", "purchase_unit", "3 dollars")])
def test_a_dollar_of_no_country_under_a_unit_column_naming_another_dollar_is_no_usd(
        unit, column, group, value):
    row, problems = _icos({column: value, group: unit})
    assert math.isnan(row[column]) and row[group] != row[group]  # a5ebd1c: 3 USD, unit USD
    assert problems == {group: (unit, "unreadable_unit"), column: (value, "unreadable_unit")}


def test_a_value_naming_the_us_dollar_is_read_and_a_known_other_dollar_conflicts():
    row, problems = _icos({"token_price": "US$3", "token_price_unit": "Singapore dollars",
                           "hard_cap": "3,000,000 USD", "caps_unit": "Singapore $"})
    assert (row["token_price"], row["token_price_unit"]) == (3.0, "USD")
    assert (row["hard_cap"], row["caps_unit"]) == (3000000.0, "USD")
    assert set(problems) == {"token_price_unit", "caps_unit"}
    for unit in ("USD", "US dollars", "dollars", ""):
        assert _icos({"token_price": "$3", "token_price_unit": unit})[0]["token_price"] == 3.0
    # a unit column naming no unit but no other dollar either: "$3" is read as written
    for unit in ("USD/ETH", "USD (mln)", "mln", "$XYZ", "tokens"):
        row, problems = _icos({"hard_cap": "$3", "caps_unit": unit})
        assert (row["hard_cap"], row["caps_unit"]) == (3.0, "USD")
        assert problems == {"caps_unit": (unit, "unreadable_unit")}
    row, problems = _icos({"token_price": "$3", "token_price_unit": "SGD"})
    assert problems == {"token_price": ("$3", "unit_conflict")}  # as before
    # a dollar sign with its country's letters is that dollar (parser 34; was no unit read)
    for unit, code in (("S$", "SGD"), ("HK$", "HKD"), ("NZ$", "NZD"), ("A$", "AUD")):
        for value in ("$3", "3,000,000 USD", "3 dollars"):
            row, problems = _icos({"hard_cap": value, "caps_unit": unit})
            assert math.isnan(row["hard_cap"]) and row["caps_unit"] == code
            assert problems == {"hard_cap": (value, "unit_conflict")}


# --- a number too small for a float is no 0

@pytest.mark.parametrize(("finance", "column"), [
    ({"token_price": "1e-400 ETH = 1 AQB", "token_price_unit": ""}, "token_price"),
    ({"token_price": "1 AQB = 1e-400 ETH", "token_price_unit": ""}, "token_price"),
    ({"token_price": "1e-300 ETH = 1e300 AQB", "token_price_unit": ""}, "token_price"),
    ({"token_price": "1e-400", "token_price_unit": "ETH"}, "token_price"),
    ({"hard_cap": "1e-400", "caps_unit": "ETH"}, "hard_cap"),
    ({"hard_cap": "$1e-400", "caps_unit": ""}, "hard_cap"),
    ({"raised": "1e-400"}, "raised"),
])
def test_a_number_that_underflows_is_refused_not_read_as_zero(finance, column):
    row, problems = _icos(finance)
    assert math.isnan(row[column])  # a5ebd1c: 0.0, no row
    assert problems == {column: (finance[column], "underflow")}


@pytest.mark.parametrize(("finance", "column"), [
    ({"token_price": "0 ETH = 1 AQB", "token_price_unit": ""}, "token_price"),
    ({"token_price": "0", "token_price_unit": "ETH"}, "token_price"),
    ({"hard_cap": "0.0e-400 ETH", "caps_unit": ""}, "hard_cap"),
    ({"hard_cap": 0, "caps_unit": "ETH"}, "hard_cap"),
    ({"hard_cap": "1e-300", "caps_unit": "ETH"}, "hard_cap")])
def test_a_written_zero_stays_zero_and_a_small_number_is_read(finance, column):
    row, problems = _icos(finance)
    assert row[column] == (1e-300 if finance[column] == "1e-300" else 0.0) and not problems


# --- only a unit column naming another dollar puts a dollar of no country in doubt

@pytest.mark.parametrize("unit", ["United States dollars", "dollars (US)", "$ mln", "mln $",
                                  "$ thousands", "thousand dollars", "dollars (mln)",
                                  "in dollars", "dollars or euros", "k$"])
@pytest.mark.parametrize("value", ["$3", "3 dollars"])
def test_a_dollar_of_no_country_under_a_column_naming_no_other_dollar_stays_usd(unit, value):
    row, problems = _icos({"token_price": value, "token_price_unit": unit})
    assert (row["token_price"], row["token_price_unit"]) == (3.0, "USD")  # 22e0385: missing
    # "in dollars" is the unit USD (parser 34: was a column naming no unit)
    assert problems == ({} if unit == "in dollars" else {
        "token_price_unit": (unit, "unreadable_unit")})


@pytest.mark.parametrize("unit", ["$NZD", "USD or SGD", "S$ / US$", "Mex$", "SGD$",
                                  "Singapore $", "Dollar (SGD)", "Taiwan dollar",
                                  "Australian dollars"])
def test_a_unit_column_naming_another_dollar_beside_the_us_one_leaves_it_in_doubt(unit):
    row, problems = _icos({"token_price": "$3", "token_price_unit": unit})
    assert math.isnan(row["token_price"])  # 22e0385 and a5ebd1c: 3 USD for the first three
    assert problems == {"token_price_unit": (unit, "unreadable_unit"),
                        "token_price": ("$3", "unreadable_unit")}


# --- a number of cents too small for a float in USD is no 0

@pytest.mark.parametrize(("finance", "column"), [
    ({"token_price": "1e-323", "token_price_unit": "cents"}, "token_price"),
    ({"hard_cap": "5e-324", "caps_unit": "cents"}, "hard_cap"),
    ({"hard_cap": 5e-324, "caps_unit": "¢"}, "hard_cap"),
    ({"token_price": "1e-323¢", "token_price_unit": ""}, "token_price"),
    ({"min_purchase": "1e-323 cents", "purchase_unit": ""}, "min_purchase"),
    ({"token_price": "1 AQB = 5e-324 cents", "token_price_unit": ""}, "token_price"),
    ({"token_price": "1e-323 cents = 1 AQB", "token_price_unit": ""}, "token_price"),
])
def test_a_number_of_cents_that_underflows_in_usd_is_refused(finance, column):
    row, problems = _icos(finance)
    assert math.isnan(row[column])  # 22e0385: 0.0 USD, no row
    assert problems == {column: (str(finance[column]), "underflow")}


def test_a_small_number_of_cents_and_a_zero_stay_read():
    for value, usd in (("1e-320", 1e-322), ("0", 0.0), ("0e-400", 0.0), ("5", 0.05)):
        row, problems = _icos({"hard_cap": value, "caps_unit": "cents"})
        assert (row["hard_cap"], row["caps_unit"], problems) == (usd, "USD", {})
    row, problems = _icos({"token_price": "1 AQB = 1e-320 cents", "token_price_unit": ""})
    assert (row["token_price"], problems) == (1e-322, {})

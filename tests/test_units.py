"""Units of amounts: canonical codes and amounts read together with their unit column."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from icoframes.parse.scales import KNOWN_UNITS
from icoframes.parse.units import (
    UNIT_ALIASES,
    canonical_unit,
    canonical_units,
    read_amount_group,
    read_amounts,
    read_price,
)
from icoframes.schema import TEXT_DTYPE
from icoframes.vocabulary import CAPITALS_ONLY


@pytest.mark.parametrize(("spelling", "code"), [
    ("usd", "USD"), (" US Dollar ", "USD"), ("$", "USD"), ("US$", "USD"), ("dollars", "USD"),
    ("Ether", "ETH"), ("eth", "ETH"), ("Ethereum", "ETH"), ("bitcoin", "BTC"), ("XBT", "BTC"),
    ("€", "EUR"), ("Euro", "EUR"), ("USDT", "USDT"), ("tether", "USDT"),
    (" xyz ", "XYZ"), ("Some  Coin", "SOME COIN"),
])
def test_canonical_unit_maps_every_spelling_and_keeps_unknown_units(spelling, code):
    assert canonical_unit(spelling) == code


@pytest.mark.parametrize("missing", [None, "", "  ", "TBA", "n/a", 5, ["ETH"]])
def test_canonical_unit_of_a_missing_unit_is_none(missing):
    assert canonical_unit(missing) is None


def test_every_alias_maps_back_to_its_code():
    for code, spellings in UNIT_ALIASES.items():
        assert canonical_unit(code) == code
        for spelling in spellings:
            assert canonical_unit(spelling.upper()) == code


def test_canonical_units_of_a_column_including_unhashable_values():
    assert canonical_units(["Ether", None, ["x"], "usd"]).tolist() == ["ETH", None, None, "USD"]


def test_currency_in_the_value_that_agrees_with_the_unit_column():
    amounts, units, bad = read_amounts(["$2,000,000", "50 USD", "30,000 ETH", "0.1 eth",
                                        "2M USD", "€5", "1,000 US Dollars"],
                                       ["USD", "US Dollar", "ETH", "Ether", "usd", "EUR", "$"])
    assert amounts.tolist() == [2e6, 50.0, 30000.0, 0.1, 2e6, 5.0, 1000.0]
    assert units.tolist() == ["USD", "USD", "ETH", "ETH", "USD", "EUR", "USD"]
    assert bad.values == []


def test_currency_in_the_value_fills_an_empty_unit_column():
    amounts, units, bad = read_amounts(["30,000 ETH", "$2,000,000", "ETH 3", "-$5"],
                                       ["", None, "TBA", ""])
    assert amounts.tolist()[:3] == [30000.0, 2e6, 3.0] and np.isnan(amounts[3])
    assert units.tolist() == ["ETH", "USD", "ETH", "USD"]
    assert bad.values == ["-$5"]  # an amount is never negative


def test_currency_in_the_value_that_disagrees_is_missing_and_a_problem():
    raw = ["$2,000,000", "50 USD", "30,000 ETH", "$5 ETH"]
    amounts, units, bad = read_amounts(raw, ["ETH", "eth", "BTC", ""])
    assert np.isnan(amounts).all()
    # the unit column keeps its own statement; a value never overrides it
    assert units.tolist() == ["ETH", "ETH", "BTC", None]
    assert bad.values == raw


def test_plain_numbers_take_the_unit_columns_code_and_unknown_units_are_kept():
    amounts, units, bad = read_amounts([7, "1.5e3", "15M", "250K", 2.5],
                                       ["xyz", " Abc ", "EUR", "usd", None])
    assert amounts.tolist() == [7.0, 1500.0, 15e6, 250e3, 2.5]
    assert units.tolist() == ["XYZ", "ABC", "EUR", "USD", None]
    assert bad.values == []


def test_missing_values_are_not_problems_and_unreadable_ones_are():
    amounts, units, bad = read_amounts(["N/A", "", None, "5 XYZ", "Dynamic", True, "inf"],
                                       ["ETH"] * 7)
    assert np.isnan(amounts).all()
    assert units.tolist() == ["ETH"] * 7
    assert bad == ([3, 4, 5, 6], ["5 XYZ", "Dynamic", True, "inf"],
                   ["unknown_unit", "unreadable_number", "wrong_type", "infinite"])


def test_numbers_are_read_by_the_one_number_reader():
    # space-grouped thousands and decimal commas: parse_amount's rules
    amounts, _, bad = read_amounts(["1 000 000 ETH", "2,5 BTC", "2 5 ETH"], ["ETH", "BTC", "ETH"])
    assert amounts[:2].tolist() == [1e6, 2.5] and math.isnan(amounts[2])
    assert bad.values == ["2 5 ETH"] and bad.reasons == ["grouping"]


def test_group_of_amounts_sharing_one_unit():
    amounts, units, bad = read_amount_group(
        {"soft_cap": ["500 ETH", "$1M", "10 ETH", 3], "hard_cap": ["2,000 ETH", "3M", "$5", 4]},
        ["", "", "ETH", ""])
    assert amounts["soft_cap"].tolist() == [500.0, 1e6, 10.0, 3.0]
    assert amounts["hard_cap"][:2].tolist() == [2000.0, 3e6]
    assert math.isnan(amounts["hard_cap"][2])
    assert units.tolist() == ["ETH", "USD", "ETH", None]
    # values at their rows, with their reasons
    assert bad == {"soft_cap": ([], [], []), "hard_cap": ([2], ["$5"], ["unit_conflict"])}


def test_group_whose_values_name_two_currencies_and_no_unit_column_loses_both():
    amounts, units, bad = read_amount_group({"soft_cap": ["$5"], "hard_cap": ["10 ETH"]}, [""])
    assert math.isnan(amounts["soft_cap"][0]) and math.isnan(amounts["hard_cap"][0])
    assert units.tolist() == [None]
    assert bad == {"soft_cap": ([0], ["$5"], ["unit_conflict"]),
                   "hard_cap": ([0], ["10 ETH"], ["unit_conflict"])}


def test_group_rejects_columns_of_another_length():
    with pytest.raises(ValueError, match="hard_cap has 1 values for 2 units"):
        read_amount_group({"hard_cap": [1]}, ["ETH", "USD"])


def test_exchange_style_price():
    raw = ["1 ETH = 3,000 XYZ", "1 eth = 4000 ABC", "1 ETH = 2000 XYZ", "1 BILL = 1 XLM",
           "0.5 BTC = 1M XYZ", "1 ETH = 0 XYZ", 0.25, "1 ETH = 3640-3367 XYZ"]
    prices, units, bad = read_price(raw, ["ETH", "", "USD", "", "bitcoin", "ETH", "usd", ""])
    assert prices[0] == pytest.approx(1 / 3000) and prices[1] == pytest.approx(1 / 4000)
    assert prices[4] == pytest.approx(0.5 / 1e6) and prices[6] == 0.25
    assert prices[3] == 1.0  # BILL is no currency: the token side; the price is 1 XLM
    assert np.isnan(prices[[2, 5, 7]]).all()
    assert units.tolist() == ["ETH", "ETH", "USD", "XLM", "BTC", "ETH", "USD", None]
    assert bad.values == ["1 ETH = 2000 XYZ", "1 ETH = 0 XYZ", "1 ETH = 3640-3367 XYZ"]
    assert bad.reasons == ["unit_conflict", "unreadable_price", "range"]


def test_an_exchange_is_not_an_amount():
    amounts, _, bad = read_amounts(["1 ETH = 3,000 XYZ"], ["ETH"])
    assert math.isnan(amounts[0]) and bad.values == ["1 ETH = 3,000 XYZ"]
    assert bad.reasons == ["unreadable_number"]


def test_empty_columns():
    amounts, units, bad = read_amounts([], [])
    assert amounts.dtype == np.float64 and len(amounts) == 0 and len(units) == 0
    assert bad == ([], [], [])


def test_a_ticker_starting_like_a_multiplier_is_not_one():
    # "MTL" is a ticker, not "M" (million) followed by "TL"
    prices, _, bad = read_price(["1 ETH = 3500 MTL", "1 ETH = 2 BNT", "1 ETH = 2 M KIN"],
                                    ["ETH", "ETH", "ETH"])
    assert prices.tolist() == [1 / 3500, 1 / 2, 1 / 2e6] and bad.values == []


# --------------------------------------------------------------------------- through tidy


def _profile(pid: int, **finance: object) -> dict:
    return {"id": pid, "main": {"name": f"ICO {pid}"}, "finance": finance}


def _tidy_units(*profiles: dict):
    from icoframes import tidy

    tables = tidy(list(profiles))
    problems = tables.problem_summary().set_index(["table", "column"])
    return tables.icos.set_index("id"), problems


def test_tidy_reads_caps_with_their_unit():
    icos, problems = _tidy_units(
        _profile(1, soft_cap="$2,000,000", hard_cap="3,000 ETH", caps_unit="ETH"),
        _profile(2, soft_cap=10, hard_cap="30,000 ETH", caps_unit=""),
        _profile(3, soft_cap="$1M", hard_cap=5_000_000, caps_unit="US Dollar"),
        _profile(4, soft_cap=1, hard_cap=2, caps_unit="xyz"),
    )
    assert np.isnan(icos.loc[1, "soft_cap"]) and icos.loc[1, "hard_cap"] == 3000.0
    assert icos.loc[2, ["soft_cap", "hard_cap"]].tolist() == [10.0, 30000.0]
    assert icos.loc[3, ["soft_cap", "hard_cap"]].tolist() == [1e6, 5e6]
    assert icos["caps_unit"].tolist() == ["ETH", "ETH", "USD", "XYZ"]
    assert icos["caps_unit"].dtype == TEXT_DTYPE  # (the pandas version's text: str on 3)
    assert problems.loc[("icos", "soft_cap"), "count"] == 1
    assert problems.loc[("icos", "soft_cap"), "examples"] == ["$2,000,000"]
    assert ("icos", "hard_cap") not in problems.index
    assert ("icos", "caps_unit") not in problems.index


def test_tidy_reads_purchase_limits_with_their_unit():
    icos, problems = _tidy_units(
        _profile(1, min_purchase="50 USD", max_purchase=10, purchase_unit="ETH"),
        _profile(2, min_purchase="0.1 eth", max_purchase="", purchase_unit=None),
    )
    assert np.isnan(icos.loc[1, "min_purchase"]) and icos.loc[1, "max_purchase"] == 10.0
    assert icos.loc[2, "min_purchase"] == 0.1 and np.isnan(icos.loc[2, "max_purchase"])
    assert icos["purchase_unit"].tolist() == ["ETH", "ETH"]
    assert problems.loc[("icos", "min_purchase"), "count"] == 1
    assert ("icos", "max_purchase") not in problems.index


def test_tidy_reads_exchange_style_prices():
    icos, problems = _tidy_units(
        _profile(1, token_price="1 ETH = 3,000 XYZ", token_price_unit=""),
        _profile(2, token_price="1 ETH = 3,000 XYZ", token_price_unit="usd"),
        _profile(3, token_price="0.25", token_price_unit="Dollars"),
    )
    assert icos.loc[1, "token_price"] == pytest.approx(1 / 3000)
    assert np.isnan(icos.loc[2, "token_price"]) and icos.loc[3, "token_price"] == 0.25
    assert icos["token_price_unit"].tolist() == ["ETH", "USD", "USD"]
    assert problems.loc[("icos", "token_price"), "count"] == 1


def test_tidy_counts_a_unit_that_is_not_text_as_a_problem_of_the_unit_column():
    icos, problems = _tidy_units(_profile(1, hard_cap=5, caps_unit=["ETH"]))
    assert icos.loc[1, "hard_cap"] == 5.0 and pd.isna(icos.loc[1, "caps_unit"])
    assert problems.loc[("icos", "caps_unit"), "count"] == 1


@pytest.mark.parametrize(("value", "number", "unit"), [
    # a multiplier glued to a currency's code, or to a spelling of one (a lone letter not in
    # capitals, "5kUSD", "5mUSD", "5Kusd", "5kETH": unreadable since parser 26, test_parse_v26)
    ("1.5bnUSD", 1.5e9, "USD"), ("2mioEUR", 2e6, "EUR"),
    ("5thousandUSD", 5e3, "USD"), ("5millionUSD", 5e6, "USD"), ("$5thousandUSD", 5e3, "USD"),
    ("$5kUS$", 5e3, "USD"),
    ("5mlnETH", 5e6, "ETH"), ("5thousandEther", 5e3, "ETH"), ("5mlnBTC", 5e6, "BTC"),
    ("5billionUSD", 5e9, "USD"), ("5mmUSD", 5e6, "USD"), ("5mnEUR", 5e6, "EUR"),
    ("5Mlnusd", 5e6, "USD"), ("5mmETH", 5e6, "ETH"),  # not all capitals; mm is no milli
    # a lone letter all in capitals makes a ticker, as written ("KUSD", "MUSD" are tokens;
    # "1.5BNUSD": parser 25, test_parse_v25)
    ("5KUSD", 5.0, "KUSD"), ("5 KUSD", 5.0, "KUSD"), ("5MUSD", 5.0, "MUSD"),
    ("5KETH", 5.0, "KETH"),
    # a lone m or b glued to a crypto code is no multiplier (mBTC is a milli-bitcoin; bUSD
    # is BUSD): kept as the ticker written, which no USD rate converts
    ("5mBTC", 5.0, "MBTC"), ("5bUSD", 5.0, "BUSD"),
    # tickers that begin like a multiplier, with no currency after it
    ("5KIN", 5.0, "KIN"), ("5 KNC", 5.0, "KNC"), ("5MTL", 5.0, "MTL"), ("5 MANA", 5.0, "MANA"),
    ("5 kin", 5.0, "KIN"), ("5 bnb", 5.0, "BNB"),
    ("5 BNB", 5.0, "BNB"),
])
def test_a_multiplier_glued_to_a_currency_multiplies_and_leaves_the_currency(value, number,
                                                                              unit):
    # a ticker no list knows is a unit in a value as the ICO's own ticker (parser 34)
    # ... and an English word among the codes ("5 kin") only in capitals or as the own ticker
    ticker = None if unit in KNOWN_UNITS and unit not in CAPITALS_ONLY else unit
    amounts, units, bad = read_amount_group({"v": [value]}, [""], tickers=[ticker])
    assert (amounts["v"].tolist(), units.tolist(), bad["v"].values) == ([number], [unit], [])


def test_a_glued_multiplier_agrees_with_the_unit_column():
    amounts, units, bad = read_amounts(["5thousandUSD", "1.5bnUSD", "5mlnETH"],
                                       ["USD", "usd", "ETH"])
    assert amounts.tolist() == [5e3, 1.5e9, 5e6] and bad.values == []
    assert units.tolist() == ["USD", "USD", "ETH"]


def test_a_glued_multiplier_in_an_exchange():
    prices, units, bad = read_price(["5thousandUSD = 1M XYZ", "1 ETH = 2 KIN"], ["", "ETH"],
                                    tickers=["XYZ", "KIN"])
    assert prices.tolist() == [5e3 / 1e6, 0.5] and units.tolist() == ["USD", "ETH"]
    assert bad.values == []


@pytest.mark.parametrize(("value", "number", "unit"), [
    # a multiplier glued to a currency SYMBOL, in capitals too: a symbol is no ticker's letter
    ("5M$", 5e6, "USD"), ("2.5M$", 2.5e6, "USD"), ("500K$", 5e5, "USD"), ("1.5B$", 1.5e9, "USD"),
    ("5MUS$", 5e6, "USD"), ("30M€", 3e7, "EUR"), ("500K€", 5e5, "EUR"), ("10M£", 1e7, "GBP"),
    ("5 M$", 5e6, "USD"), ("$5KUS$", 5e3, "USD"), ("5MM$", 5e6, "USD"),
])
def test_a_multiplier_in_capitals_glued_to_a_currency_symbol_keeps_the_symbol(value, number,
                                                                               unit):
    amounts, units, bad = read_amounts([value], [""])
    assert (amounts.tolist(), units.tolist(), bad.values) == ([number], [unit], [])
    # never an amount in another unit column's unit: "5M$" is no 5,000,000 ETH
    amounts, units, bad = read_amounts([value], ["ETH"])
    assert math.isnan(amounts[0]) and (bad.values, bad.reasons) == ([value], ["unit_conflict"])

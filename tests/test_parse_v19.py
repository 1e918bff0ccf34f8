"""Parser defects found in parser version 18 by the review of 2026-11-26 (parser 19).

Each test failed on parser 18: a value was misread as a guess, or the duplicate-id
report raised or called identical copies different.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from messy_profiles import clean_profile

from icoframes.parse.problems import canonical_text
from icoframes.parse.profiles import tidy
from icoframes.parse.units import read_amount_group, read_price


def _group(values: list, unit: str = "", ticker: str | None = "MLN"):
    amounts, codes, bad = read_amount_group({"v": values}, [unit] * len(values),
                                            tickers=[ticker] * len(values))
    return amounts["v"].tolist(), codes.tolist(), list(zip(bad["v"].values, bad["v"].reasons,
                                                           strict=True))


# --------------------------------------------------------------------------- 1. "mln" for MLN


@pytest.mark.parametrize("value", ["5 mln", "5 Mln", "5mln", "5 mln.", "5 Mln.", "$5 mln",
                                   "USD 2.5 mln"])
@pytest.mark.parametrize("unit", ["", "MLN", "USD"])
def test_mln_for_an_ico_of_mln_is_unreadable_never_a_guess(value, unit):
    # parser 18: 5,000,000 (no unit, or 5,000,000 MLN with the unit column MLN)
    amounts, codes, unread = _group([value], unit)
    assert math.isnan(amounts[0]) and codes == [unit or None]
    assert unread == [(value, "unreadable_number")]


def test_mln_followed_by_a_currency_or_for_another_ico_is_still_a_million():
    amounts, codes, unread = _group(["5 mln USD", "5mlnUSD"])
    assert (amounts, codes, unread) == ([5e6, 5e6], ["USD", "USD"], [])
    assert _group(["5 mln MLN"]) == ([5e6], ["MLN"], [])
    # for another ICO, MLN is a ticker no list knows: no unit known (parser 34: was 5 MLN)
    amounts, codes, unread = _group(["5 mln", "5 MLN"], ticker="ABC")
    assert amounts[0] == 5e6 and math.isnan(amounts[1]) and codes == [None, None]
    assert unread == [("5 MLN", "unknown_unit")]
    assert _group(["5 MLN"]) == ([5.0], ["MLN"], [])  # the ticker, as written


def test_an_exchange_with_mln_for_an_ico_of_mln_is_unreadable():
    prices, codes, unread = read_price(["$1 = 5 mln", "$1 = 5 MLN", "$1 = 5 mln MLN"],
                                       ["", "", ""], tickers=["MLN"] * 3)
    assert prices.tolist()[1:] == [0.2, pytest.approx(2e-7)]
    assert codes.tolist() == [None, "USD", "USD"]
    assert unread.rows == [0] and unread.reasons == ["unreadable_price"]


def test_a_multiplier_word_of_two_letters_may_be_the_ticker():
    # "bn" for BN: 5 billion, or 5 BN? (a lone "k" for K: parser 20, tests/test_parse_v20.py)
    assert _group(["5 bn", "5bn."], ticker="BN")[2] == [("5 bn", "unreadable_number"),
                                                       ("5bn.", "unreadable_number")]
    _prices, _codes, unread = read_price(["$1 = 5 bn"], [""], tickers=["BN"])
    assert unread.rows == [0] and unread.reasons == ["unreadable_price"]


def test_tidy_reports_the_raw_mln_value_of_an_ico_of_mln():
    profile = clean_profile(5)
    profile["finance"].update(ticker="MLN", soft_cap="5 mln", hard_cap="20 MLN", caps_unit="")
    tables = tidy([profile])
    assert tables.icos["soft_cap"].isna().tolist() == [True]
    assert tables.icos["hard_cap"].tolist() == [20.0]
    assert tables.icos["caps_unit"].tolist() == ["MLN"]
    rows = tables.problems.astype(object).values.tolist()
    assert [5, "icos", "soft_cap", "5 mln", "unreadable_number"] in rows


# --------------------------------------------------------------------------- 2. duplicate ids


def _duplicates(profiles: list) -> list[list[object]]:
    problems = tidy(profiles).problems
    return problems.loc[problems["reason"] == "duplicate_id",
                        ["ico_id", "value"]].astype(object).values.tolist()


def test_copies_of_an_id_holding_values_without_a_truth_value_are_compared_never_raise():
    # parser 18: ValueError (the truth value of a Series is ambiguous) out of tidy
    rows = _duplicates([{"id": 1, "whitepaper": pd.NA},
                        {"id": 1, "whitepaper": pd.Series([1, 2])}])
    assert rows == [[1, '{"id": 1, "whitepaper": "<NA>"}']]
    assert _duplicates([{"id": 2, "x": pd.Series([1, 2])},
                        {"id": 2, "x": pd.Series([1, 2])}]) == []


def test_identical_copies_holding_nan_are_no_other_content():
    # parser 18: two NaN objects are unequal, so the first copy was reported as other content
    assert _duplicates([{"id": 3, "finance": {"soft_cap": float("nan")}},
                        {"id": 3, "finance": {"soft_cap": float("nan")}}]) == []
    assert _duplicates([{"id": 4, "a": 1, "b": float("nan")},
                        {"id": 4, "b": float("nan"), "a": 1}]) == []  # key order is no content
    assert _duplicates([{"id": 8, "a": pd.NA, "b": 1},  # nor with what JSON cannot write
                        {"id": 8, "b": 1, "a": pd.NA}]) == []
    assert _duplicates([{"id": 5, "b": float("nan")}, {"id": 5, "b": 0.5}]) == [
        [5, '{"id": 5, "b": NaN}']]


def test_copies_with_keys_of_mixed_types_or_a_cycle_are_compared():
    assert _duplicates([{"id": 6, "m": {1: "a", "b": 2}}, {"id": 6, "m": {1: "a", "b": 2}}]) == []
    assert [row[0] for row in _duplicates([{"id": 6, "m": {1: "a"}},
                                           {"id": 6, "m": {1: "b"}}])] == [6]
    cycle: dict = {"name": "x"}
    cycle["self"] = cycle
    assert _duplicates([{"id": 7, "main": cycle}, {"id": 7, "main": cycle}]) == []


def test_canonical_text_never_raises():
    class NoText:
        def __repr__(self) -> str:
            raise RecursionError

    assert canonical_text([NoText()]).startswith("no text")
    assert canonical_text([NoText()]) != canonical_text([NoText()])


# --------------------------------------------------------------------------- 3. "minimum 5000"


@pytest.mark.parametrize("value", ["minimum 5000", "Minimum 5000", "MINIMUM 5000",
                                   "maximum 5000", "Maximum: 5000"])
@pytest.mark.parametrize("ticker", [None, "ABC", "IN"])
def test_minimum_and_maximum_are_vague_like_min_never_a_unit(value, ticker):
    # parser 18: 5000 in a unit "MINIMUM" (or "MAXIMUM"), no problem
    assert _group([value], ticker=ticker) == ([pytest.approx(math.nan, nan_ok=True)], [None],
                                              [(value, "vague")])
    assert _group(["5000 minimum"], ticker=ticker)[2] == [("5000 minimum", "unreadable_number")]

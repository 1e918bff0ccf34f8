"""Parser 29: the mirror of ``"12.500"`` (``"1,500"``), a scale word after a doubted group, and
which amounts decide an ICO's convention.

Each test failed on 12e427d: ``"1,500"`` beside ``"1.500.000"`` was 1,500 (German: 1.5) while
``"12.500"`` in the same row was read German; ``"$1.500M"`` beside ``"1.500.000"`` was 1.5
billion; a value itself refused (``"0,1 ETH"`` under USD) made the ICO German.
"""

from __future__ import annotations

import math

from icoframes.parse.lists import list_frame
from icoframes.parse.problems import Problems
from icoframes.parse.profiles import tidy
from icoframes.parse.separators import decimal_marks, settle


def _icos(finance: dict) -> tuple[dict, dict]:
    """One profile's finance read: its icos row, and (column -> (value, reason)) of problems."""
    tables = tidy([{"id": 1, "finance": {"ticker": "AQB", **finance}}])
    problems = {c: (v, r) for c, v, r in tables.problems[["column", "value", "reason"]]
                .itertuples(index=False)}
    return tables.icos.iloc[0].to_dict(), problems


def test_one_comma_and_three_digits_is_a_decimal_in_a_german_ico():
    row, problems = _icos({"hard_cap": "1.500.000", "soft_cap": "12.500", "caps_unit": "EUR",
                           "token_price": "1,500", "token_price_unit": "EUR",
                           "min_purchase": "1,250 ETH", "purchase_unit": ""})
    assert (row["soft_cap"], row["hard_cap"]) == (12500.0, 1500000.0)
    assert (row["token_price"], row["min_purchase"]) == (1.5, 1.25)
    assert problems == {}


def test_one_comma_and_three_digits_is_refused_when_the_ico_shows_both_conventions():
    row, problems = _icos({"hard_cap": "1.500.000", "soft_cap": "1,000,000", "caps_unit": "USD",
                           "token_price": "1,500", "token_price_unit": "USD"})
    assert math.isnan(row["token_price"])
    assert problems == {"token_price": ("1,500", "ambiguous_separator")}


def test_one_comma_and_three_digits_stays_english_alone_or_beside_english_amounts():
    alone, problems = _icos({"token_price": "1,500", "token_price_unit": "EUR"})
    english, more = _icos({"hard_cap": "1,500,000.5", "caps_unit": "USD", "soft_cap": "1,500",
                           "raised": "$1,500"})
    assert alone["token_price"] == 1500.0 and problems == {}
    assert (english["soft_cap"], english["raised"]) == (1500.0, 1500.0) and more == {}
    # a list summary has no context: English, as before
    frame = list_frame([{"id": 1, "finance": {"raised": "$512,500"}}], status="past",
                       problems=Problems())
    assert frame["raised"].tolist() == [512500.0]


def test_a_scale_word_after_a_dot_group_read_as_thousands_is_refused():
    german, problems = _icos({"hard_cap": "1.500.000", "caps_unit": "USD", "raised": "$1.500M",
                              "soft_cap": "2.500 Mio"})
    english, more = _icos({"hard_cap": "15,000,000", "caps_unit": "USD", "raised": "$1.500M"})
    assert math.isnan(german["raised"]) and math.isnan(german["soft_cap"])
    assert problems == {"raised": ("$1.500M", "ambiguous_separator"),
                        "soft_cap": ("2.500 Mio", "ambiguous_separator")}
    assert english["raised"] == 1.5e6 and more == {}
    # a dot group with a currency after it is no scale word: "12.500 MANA" is 12,500 MANA
    assert settle(["12.500 MANA", "12.500 BTC", "1.500 mln"], [","] * 3) == (
        ["12500 MANA", "12500 BTC", None], {2: "ambiguous_separator"})


def test_a_value_refused_shows_no_convention():
    row, problems = _icos({"min_purchase": "0,1 ETH", "purchase_unit": "USD",
                           "hard_cap": "12.500 ETH", "soft_cap": "2.500 ETH", "caps_unit": ""})
    assert math.isnan(row["hard_cap"]) and math.isnan(row["soft_cap"])
    assert problems == {"min_purchase": ("0,1 ETH", "unit_conflict"),
                        "hard_cap": ("12.500 ETH", "ambiguous_separator"),
                        "soft_cap": ("2.500 ETH", "ambiguous_separator")}
    # read, the same decimal comma decides: German
    row, problems = _icos({"min_purchase": "0,1 ETH", "purchase_unit": "",
                           "hard_cap": "12.500 ETH", "soft_cap": "2.500 ETH", "caps_unit": ""})
    assert (row["min_purchase"], row["hard_cap"], row["soft_cap"]) == (0.1, 12500.0, 2500.0)
    assert problems == {}


def test_a_comma_group_beside_english_grouping_and_a_decimal_comma_is_in_doubt():
    # the ICO writes a comma both ways: 30,000 or 30? (parser 30 read 30,000; parser 31)
    row, problems = _icos({"hard_cap": "30,000 ETH", "caps_unit": "", "raised": "$1,000,000",
                           "token_price": "0,05 USD", "token_price_unit": ""})
    assert math.isnan(row["hard_cap"]) and row["token_price"] == 0.05
    assert problems == {"hard_cap": ("30,000 ETH", "ambiguous_separator")}
    assert decimal_marks([["1,500", "1,500", "1,500", "1,500"],
                          ["1.500.000", "1,500,000", "x", "0,5"],
                          ["1,000.5", None, "0.15", None]]) == [",.", ".", None, ";"]

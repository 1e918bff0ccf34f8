"""Parser 31: an amount missing as an ``ambiguous_separator`` (``"1,500 USD"``: 1,500 or 1.5?)
still writes its unit plainly, and the unit column its group shares counts it.

Each test of a fix failed on 3ce41d3 (the first cut of parser 31), where such a value showed no
unit: ``"12.500 ETH"`` beside a refused ``"1,500 USD"`` lost its ``unit_conflict`` and was read
12,500 ETH with no row, and an empty unit column whose only unit was in the refused value was
missing with no row. The guards passed there too.
"""

from __future__ import annotations

import math

import pytest

from icoframes.parse.profiles import tidy


def _icos(finance: dict) -> tuple[dict, dict]:
    """One profile's finance read: its icos row, and (column -> (value, reason)) of problems."""
    tables = tidy([{"id": 1, "finance": {"ticker": "AQB", **finance}}])
    problems = {c: (v, r) for c, v, r in tables.problems[["column", "value", "reason"]]
                .itertuples(index=False)}
    return tables.icos.iloc[0].to_dict(), problems


# --- two units written in one group stay a conflict when one of the values is refused

@pytest.mark.parametrize(("refused", "sibling"), [
    ("1,500 USD", "12.500 ETH"),  # "12.500" beside a decimal comma alone: read German
    ("527,621 ETH", "€390.262"),  # (a mixed ICO: "€390.262" is 390.262 there)
    ("$1,500", "12.500 ETH")])
def test_a_refused_value_still_disagrees_with_its_siblings_unit(refused, sibling):
    row, problems = _icos({"token_price": "0,05 USD", "token_price_unit": "",
                           "min_purchase": refused, "max_purchase": sibling,
                           "purchase_unit": ""})
    assert math.isnan(row["min_purchase"])
    assert math.isnan(row["max_purchase"])  # 3ce41d3: 12500.0 / 390262.0, no problem row
    assert row["purchase_unit"] is None or math.isnan(row["purchase_unit"])  # 3ce41d3: ETH, EUR
    assert problems == {"min_purchase": (refused, "ambiguous_separator"),
                        "max_purchase": (sibling, "unit_conflict")}


# --- an empty unit column takes the unit only the refused value wrote

@pytest.mark.parametrize(("finance", "column", "unit"), [
    ({"hard_cap": "30,000 ETH", "soft_cap": "5000", "caps_unit": "", "token_price": "0,05",
      "token_price_unit": "USD"}, "caps_unit", "ETH"),
    ({"hard_cap": "12.500 ETH", "soft_cap": "5000", "caps_unit": ""}, "caps_unit", "ETH"),
    ({"token_price": "1 ETH = 3,000 AQB", "token_price_unit": "", "max_purchase": "40,8",
      "purchase_unit": "EUR"}, "token_price_unit", "ETH")])
def test_an_empty_unit_column_takes_the_unit_a_refused_value_wrote(finance, column, unit):
    row, problems = _icos(finance)
    assert row[column] == unit  # 3ce41d3: missing, with no row of the unit column
    assert [reason for _, reason in problems.values()] == ["ambiguous_separator"]
    if "soft_cap" in finance:  # the number beside it is read in that unit
        assert row["soft_cap"] == 5000.0


# --- guards: readings that do not change (they passed on 3ce41d3 too)

def test_a_refused_value_beside_its_own_unit_leaves_the_sibling_read():
    row, problems = _icos({"token_price": "0,05 USD", "token_price_unit": "",
                           "min_purchase": "1,500 ETH", "max_purchase": "12.500 ETH",
                           "purchase_unit": ""})
    assert (row["max_purchase"], row["purchase_unit"]) == (12500.0, "ETH")
    assert problems == {"min_purchase": ("1,500 ETH", "ambiguous_separator")}


def test_a_unit_column_still_decides_and_the_refused_value_keeps_its_reason():
    row, problems = _icos({"token_price": "0,05 USD", "token_price_unit": "",
                           "min_purchase": "1,500 USD", "max_purchase": "5",
                           "purchase_unit": "ETH"})
    assert (row["max_purchase"], row["purchase_unit"]) == (5.0, "ETH")
    assert problems == {"min_purchase": ("1,500 USD", "ambiguous_separator")}

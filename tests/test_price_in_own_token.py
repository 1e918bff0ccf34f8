"""A token price written in the ICO's own token is no price (parser 36).

On main (19e9694b) ``"2500 XYZ"`` as XYZ's ``token_price`` (no unit column, or a unit column
``XYZ``) was read as 2,500 XYZ per XYZ: a price in tokens, which a unit column ``XYZ`` alone
was refused for ("a price is never in tokens"). Such a value is the wrong way round (tokens
per USD? per ETH? it does not say): missing, ``unreadable_price``, never a direction guessed.
The same number as an exchange that names its currency reads, either way round.
"""

from __future__ import annotations

import math

import pytest
from messy_profiles import clean_profile, with_

from icoframes.parse.profiles import tidy
from icoframes.parse.units import read_price, written_amount
from icoframes.reasons import REASONS


@pytest.mark.parametrize(("value", "unit"), [
    ("2500 XYZ", ""), ("XYZ 2500", ""), ("2,500 xyz", ""), ("2500 XYZ tokens", ""),
    ("0.0004 XYZ", ""), ("5000 XYZ", "XYZ"), ("2500 XYZ", "ETH")])
def test_a_price_in_the_own_token_is_missing_and_said(value, unit):
    prices, units, bad = read_price([value], [unit], tickers=["XYZ"])
    assert math.isnan(prices[0]) and units[0] == (unit if unit == "ETH" else None)
    assert bad.rows == [0] and bad.reasons == ["unreadable_price"] and bad.values == [value]


@pytest.mark.parametrize(("value", "price", "unit"), [
    ("1 USD = 2,500 XYZ", 0.0004, "USD"), ("2500 XYZ = 1 USD", 0.0004, "USD"),
    ("1 ETH = 5000 XYZ", 0.0002, "ETH"), ("1 XYZ = 0.0004 USD", 0.0004, "USD"),
    ("0.0004 USD", 0.0004, "USD"), ("$0.1", 0.1, "USD")])
def test_an_exchange_or_a_currency_still_reads(value, price, unit):
    prices, units, bad = read_price([value], [""], tickers=["XYZ"])
    assert prices.tolist() == pytest.approx([price]) and units.tolist() == [unit]
    assert not bad.rows


def test_an_amount_of_the_own_token_still_reads():
    # tokens for sale, a cap in tokens: only a price cannot be in its own token
    assert written_amount("2500 XYZ", "XYZ") == (2500.0, "XYZ")


def test_a_profile_s_price_in_its_own_token_is_a_problem_row():
    tables = tidy([with_(clean_profile(), {"finance.ticker": "XYZ", "finance.token_price":
                                            "2500 XYZ", "finance.token_price_unit": ""})])
    assert math.isnan(tables.icos.loc[0, "token_price"])
    assert tables.icos["token_price_unit"].isna().all()
    rows = tables.problems[tables.problems["column"] == "token_price"]
    assert rows["reason"].tolist() == ["unreadable_price"]
    assert rows["value"].tolist() == ["2500 XYZ"]
    assert "own token" in REASONS["unreadable_price"]

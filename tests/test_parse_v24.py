"""Parser defects left by parser 23 (parser 24), from a second review of it.

Each test of a reading failed on parser 23: a value applied a scale word that the one rule
(:func:`~icoframes.parse.prices.scaled_currency`) forbids (``"5 m ETH"`` was 5e6 ETH), a
number in scientific notation under a scaling unit column was multiplied twice (``"5e6"``
under ``"USD mln"`` was 5e12 USD), a currency glued to a scale word after it was a made-up
unit (``"USDmln"``), a price under a unit that is a token was kept, and a footnote digit in a
unit column became part of the unit (``"USD¹"`` was ``USD1``).
"""

from __future__ import annotations

import math

import pytest

from icoframes.parse.units import read_amount_group


def _group(values: list, unit: str, ticker: str | None = None):
    amounts, codes, bad = read_amount_group({"v": values}, [unit] * len(values),
                                            tickers=[ticker] * len(values))
    return amounts["v"].tolist(), codes.tolist(), list(zip(bad["v"].values, bad["v"].reasons,
                                                           strict=True))


# ------------------------------------------------- H1. a scale word the one rule forbids


@pytest.mark.parametrize("value", ["5 m ETH", "5 M ETH", "5m ETH", "ETH 5m", "ETH 5 m",
                                   "5 m USDT", "5 m BTC", "5 b ETH", "5 B USD", "5 b USD",
                                   "5 B EUR", "5b USD", "USD 5B"])
def test_a_value_with_a_scale_word_its_currency_forbids_is_unreadable(value):
    # parser 23: "5 m ETH" was 5e6 ETH (milli?), "5 B USD" 5e9 USD, as the unit columns
    # "m ETH" and "B USD" were already unreadable
    for unit in ("", "ETH" if "ETH" in value else "USD"):
        amounts, _, unread = _group([value], unit)
        assert math.isnan(amounts[0]) and unread == [(value, "unreadable_number")]


@pytest.mark.parametrize(("value", "number", "code"), [
    ("5 mln ETH", 5e6, "ETH"), ("5 k ETH", 5e3, "ETH"), ("ETH 5k", 5e3, "ETH"),
    ("5 M USD", 5e6, "USD"), ("5 m EUR", 5e6, "EUR"), ("$5M", 5e6, "USD"), ("$5B", 5e9, "USD"),
    ("5 B$", 5e9, "USD"), ("5 bn USD", 5e9, "USD"), ("USD 5M", 5e6, "USD"), ("5 ETH", 5, "ETH"),
    ("~5M", math.nan, None)])
def test_a_value_with_a_scale_word_its_currency_allows_is_still_read(value, number, code):
    amounts, codes, unread = _group([value], "")
    if math.isnan(number):
        assert math.isnan(amounts[0]) and unread == [(value, "vague")]
    else:
        assert amounts == [number] and codes == [code] and unread == []

"""Parser 26's review M, folded into parser 26 (unreleased): percent phrases and lowercase tickers.

Each test below failed on ac2dcfb: a unit column ``"% of supply"``, ``"in %"``, ``"% share"``
was the made-up unit % OF SUPPLY (a price 0.1 % OF SUPPLY too) and ``"percent of tokens"``
a unit of amounts, none of prices; ``"5 link"``, ``"5 steem"``, ``"5 xem"`` (the tickers LINK,
STEEM, XEM in lowercase, 5 LINK... on 2ffb71f) were ``unreadable_number`` by 8de907b's rule of
case, while ``"5 mb"`` stayed 5 MB.
"""

from __future__ import annotations

import math

import pytest
from parse_reading import group as _group

from icoframes.parse.base import bad
from icoframes.parse.prices import read_exchange
from icoframes.parse.scales import KNOWN_UNITS
from icoframes.parse.units import read_price
from icoframes.vocabulary import CAPITALS_ONLY

_PERCENT_COLUMNS = ["% of supply", "% share", "in %", "% of total", "(% of supply)",
                    "percent of tokens", "Percent share", "pct of total", "‰", "‰ of supply",
                    "％ of supply", "share, %", "XYZ %", "% XYZ tokens", "USD (in %)"]


@pytest.mark.parametrize("ticker", [None, "XYZ"])
@pytest.mark.parametrize("unit", _PERCENT_COLUMNS)
def test_a_unit_column_with_a_percent_anywhere_names_no_unit_in_amounts_and_prices(unit,
                                                                                  ticker):
    amounts, codes, unread = _group([5, "5k"], unit, ticker)
    assert all(map(math.isnan, amounts)) and codes == [None, None]
    assert unread == [(5, "unreadable_unit"), ("5k", "unreadable_unit")]
    price, codes, unread = read_price([0.1, "0.1"], [unit] * 2, [ticker] * 2)
    assert all(map(math.isnan, price)) and codes.tolist() == [None, None]
    assert unread.rows == [0, 1] and unread.reasons == ["unreadable_unit"] * 2


@pytest.mark.parametrize(("unit", "code"), [("PCTX", "PCTX"), ("IMPCT", "IMPCT"), ("ETH", "ETH"),
                                            ("Percento", "PERCENTO")])
def test_a_percent_word_inside_a_word_is_no_percent(unit, code):
    # a percent word is a whole word: "PCTX" is a ticker
    assert _group([5], unit) == ([5.0], [code], [])


_TICKERS = ["link", "xem", "steem", "ark", "btm", "gem", "bank", "storm", "dock", "lsk", "daik",
            "xyzk", "xyzmln"]


@pytest.mark.parametrize("ticker", [None, "XYZ", "LINK", "own"])
@pytest.mark.parametrize("unit", _TICKERS)
def test_a_lowercase_ticker_ending_in_a_scale_letter_is_that_ticker(unit, ticker):
    # no currency's letters before the scale letter: the ticker in capitals, as "5 mb" is 5 MB
    # (8de907b: unreadable_number unless it was the ICO's own ticker); in a value, a ticker
    # that is no known code nor the ICO's own is no unit known (parser 34): never a scale
    code = unit.upper()
    ticker = code if ticker == "own" else ticker
    if ticker is not None and code != ticker and code.startswith(ticker):
        pytest.skip("the ICO's own letters before a scale: test_own_letters_and_a_scale...")
    assert _group([5], unit, ticker) == ([5.0], [code], [])
    # an English word among the codes (ARK) is a unit only in capitals, or as the own ticker
    if (code in KNOWN_UNITS and code not in CAPITALS_ONLY) or code == ticker:
        assert _group([f"5 {unit}", f"5{unit}"], "", ticker) == ([5.0, 5.0], [code, code], [])
    else:
        amounts, codes, unread = _group([f"5 {unit}", f"5{unit}"], "", ticker)
        assert all(map(math.isnan, amounts)) and codes == [None, None]
        assert unread == [(f"5 {unit}", "unknown_unit"), (f"5{unit}", "unknown_unit")]
    assert read_exchange(f"1 ABC = 0.1 {unit}", "ABC") == (
        (0.1, code) if code in KNOWN_UNITS else (bad("unknown_unit"), None))


@pytest.mark.parametrize(("unit", "ticker"), [
    ("xyzmln", "XYZ"), ("xyzk", "XYZ"), ("Xyzk", "XYZ"), ("XYZmln", "XYZ"), ("linkmln", "LINK"),
    ("linkk", "LINK"), ("Linkk", "LINK"), ("steemk", "STEEM")])
def test_own_letters_and_a_scale_glued_after_them_name_no_unit(unit, ticker):
    # thousands or millions of the ICO's own token, or the token XYZK? Refused as "usdk" is
    # (ff3cf55 read the made-up units XYZMLN, XYZK, LINKMLN for the ICO's own ticker)
    amounts, codes, unread = _group([f"5 {unit}", f"5{unit}"], "", ticker)
    assert all(map(math.isnan, amounts)) and codes == [None, None]
    assert [why for _, why in unread] == ["unreadable_number"] * 2
    assert _group([5], unit, ticker)[1] == [None]
    assert _group([f"5 mln {ticker.lower()}"], "", ticker) == ([5e6], [ticker], [])  # spaced


@pytest.mark.parametrize("unit", ["usdk", "usdck", "tusdk", "eurk", "ethk", "usdmln", "usdtm"])
def test_a_lowercase_scale_after_a_currencys_letters_stays_refused(unit):
    # usdk, usdck: thousands of USD(C), or the token USDK? (8de907b's decision, kept)
    amounts, codes, unread = _group([f"5 {unit}"], "")
    assert math.isnan(amounts[0]) and codes == [None]
    assert unread == [(f"5 {unit}", "unreadable_number")]

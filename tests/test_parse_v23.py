"""Parser defects left by parser 22 (parser 23): values real directories write.

Each test of a reading failed on parser 22: NFKC made digits of superscripts and circled
numbers (``"12²"`` was 122), a price ``"0.1 per token"`` was read in a unit that is no
currency, a value writing its own multiplier under a scaling unit column was multiplied twice
(``"5 mln"`` under ``"USD mln"`` was 5e12 USD), ``"ETH m"`` was millions of ETH, full-width
roadmap keys were lost and start dates read other scripts' digits.
"""

from __future__ import annotations

import math

import pytest

from icoframes.parse.base import Bad
from icoframes.parse.dates import parse_datetime, to_label_date
from icoframes.parse.rules import parse_amount, parse_count, parse_id
from icoframes.parse.supply import read_tokens
from icoframes.parse.units import read_amount_group


def _reason(read: object) -> str | None:
    return read.reason if isinstance(read, Bad) else None


def _group(values: list, unit: str, ticker: str | None = None):
    amounts, codes, bad = read_amount_group({"v": values}, [unit] * len(values),
                                            tickers=[ticker] * len(values))
    return amounts["v"].tolist(), codes.tolist(), list(zip(bad["v"].values, bad["v"].reasons,
                                                           strict=True))


# --------------------------------------------------------------------------- H1. digits NFKC makes

_COMPAT = ["12²", "5¹", "1²3", "①②", "⑫", "²", "𝟏𝟐", "⒈5", "🄂5", "½"]


@pytest.mark.parametrize("value", _COMPAT)
def test_an_id_or_count_with_a_digit_nfkc_would_make_is_unreadable(value):
    # parser 22: "12²" was the id 122, "⑫" the id 12
    assert parse_id(value) is None and parse_count(value) is None


@pytest.mark.parametrize("value", [*_COMPAT, "$5²", "12³ USD", "6٣2"])
def test_an_amount_with_a_digit_nfkc_would_make_is_unreadable(value):
    # parser 22: "12²" was 122, "$5²" 52 USD, "⒈5" 1.5 ("6٣2" was a range)
    assert _reason(parse_amount(value)) == "unreadable_number"
    amounts, _, unread = _group([value], "USD")
    assert math.isnan(amounts[0]) and unread == [(value, "unreadable_number")]


def test_an_exchange_or_supply_with_a_digit_nfkc_would_make_is_unreadable():
    amounts, _, unread = read_amount_group({"p": ["1 XYZ = $0.5²"]}, ["USD"], exchange=("p",),
                                           tickers=["XYZ"])
    assert math.isnan(amounts["p"][0]) and list(unread["p"].reasons) == ["unreadable_number"]
    numbers, unread_tokens = read_tokens(["5²M tokens", "１２ tokens"], ["XYZ", "XYZ"])
    assert math.isnan(numbers[0]) and numbers[1] == 12
    assert unread_tokens.reasons == ["unreadable_number"]


def test_full_width_digits_are_still_read():
    assert parse_id("１２") == 12 and parse_amount("１,５") == 1.5
    assert _group(["１２ USD"], "") == ([12.0], ["USD"], [])


# --------------------------------------------------------------------------- M1/M2. dates


@pytest.mark.parametrize(("key", "day", "precision"), [
    ("１２-０３-２０１８", "2018-03-12", "day"), ("２０１８", "2018-01-01", "year"),
    ("Q1 １８", "2018-01-01", "quarter"), ("Ｑ1 2018", "2018-01-01", "quarter"),
])
def test_a_full_width_roadmap_key_is_read(key, day, precision):
    # parser 21/22: unreadable_date (parser 20 read them)
    dates, precisions, unread = to_label_date([key])
    assert str(dates[0])[:10] == day and precisions == [precision] and unread.rows == []


@pytest.mark.parametrize("key", ["٠١-٠٣-٢٠١٨", "2018²", "①-03-2018"])
def test_a_roadmap_key_with_other_digits_is_unreadable(key):
    dates, precisions, unread = to_label_date([key])
    assert str(dates[0]) == "NaT"
    assert unread.reasons == ["unreadable_date"] and precisions == [None]


@pytest.mark.parametrize("value", ["01.03.٢٠١٨ 12:00:00", "01.03.2018 12:00:0٠", "٢٠١٨-03-01",
                                   "01.03.2018 ١٢:00:00", "01.03.2018²", "①.03.2018"])
def test_a_start_date_with_other_digits_is_unreadable(value):
    # parser 22: strptime read "٢٠١٨" as 2018 (a roadmap key refused it)
    assert _reason(parse_datetime(value)) == "unreadable_date"


@pytest.mark.parametrize("value", ["０１.０３.２０１８ １２:００:００", "２０１８-０３-０１",
                                   "01.03.２０１８ 12:00:00"])
def test_a_full_width_start_date_is_read(value):
    # parser 22: the first two were unreadable_date, the third read: now all alike
    when = parse_datetime(value)
    assert when is not None and not isinstance(when, Bad)
    assert (when.year, when.month, when.day) == (2018, 3, 1)

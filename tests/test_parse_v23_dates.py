"""Dates with a two-digit year (parser 23): start, end and roadmap keys agree.

Each test of a reading failed on parser 22: ``"01 Mar 18"`` was ``no_year`` as a start date
while the roadmap key ``"1 Mar 18"`` was read as 1 March 2018, ``"Mar 18"`` as March 2018 (or
18 March?), ``"01.03.'18"`` was ``unreadable_date``, and ``"00.00.00"`` a ``short_year``.
"""

from __future__ import annotations

import pytest

from icoframes.parse.base import Bad
from icoframes.parse.dates import date_reason, parse_datetime, read_label, to_label_date

_SHORT = ["01 Mar 18", "1st March 18", "1 Mar 18", "Mar 1, 18", "Mar 1 18", "Mar 18",
          "Sept. 18", "01.03.'18", "01.03.18,", "01-03-18.", "May 18"]  # "Sep '18": parser 24


@pytest.mark.parametrize("text", _SHORT)
def test_a_two_digit_year_is_a_short_year_as_a_start_date_and_a_roadmap_key(text):
    # parser 22: no_year or unreadable_date as a start date; read as 2018 as a roadmap key
    read = parse_datetime(text)
    assert isinstance(read, Bad) and read.reason == "short_year"
    dates, precisions, unread = to_label_date([text])
    assert str(dates[0]) == "NaT" and precisions == [None]
    assert unread.reasons == ["short_year"] and read_label(text) == (None, None)


@pytest.mark.parametrize(("key", "when"), [("Q3'18", (2018, 7, 1)), ("Q2 18", (2018, 4, 1)),
                                           ("H2 19", (2019, 7, 1)), ("2018 Q4", (2018, 10, 1))])
def test_a_quarter_or_half_with_a_two_digit_year_is_still_read(key, when):
    day, _ = read_label(key)
    assert day is not None and (day.year, day.month, day.day) == when


@pytest.mark.parametrize("text", ["00.00.00", "13.13.18", "00-03-18", "01.00.18", "0.0.00"])
def test_a_short_year_date_no_order_makes_a_day_is_impossible(text):
    # parser 22: short_year (parser 20: no_year)
    assert date_reason(text) == "impossible_date"


@pytest.mark.parametrize(("text", "reason"), [
    ("20 Sep", "no_year"), ("since 18 Sep", "no_year"), ("March 18th", "no_year"),
    ("Sep 2263", "date_out_of_range"), ("Sep 1990", "unreadable_date"),
    ("31.02.18", "short_year"),  # 31 February 2018 is no day, 2031-02-18 is
    ("early '18", "unreadable_date"),  # '18 is 2018, in range: a year, in a form not read
])
def test_other_dates_keep_their_reason(text, reason):
    assert date_reason(text) == reason

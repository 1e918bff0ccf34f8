"""Dates of parser 29: one set of forms for start, end and roadmap keys, explicit offsets
converted to UTC, and day/month order decided per profile.

Each test of a reading failed on parser 28 (the comment says what it gave).
"""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import pytest
from messy_profiles import clean_profile, with_

from icoframes import tidy
from icoframes.parse.base import bad
from icoframes.parse.dates import (
    date_reason,
    parse_datetime,
    read_label,
    to_datetime,
    to_label_date,
)


@pytest.mark.parametrize(("key", "when"), [("2H 2018", datetime(2018, 7, 1)),
                                           ("1H 2019", datetime(2019, 1, 1)),
                                           ("2h2018", datetime(2018, 7, 1)),
                                           ("1H'19", datetime(2019, 1, 1)),
                                           ("2H 18", datetime(2018, 7, 1))])
def test_a_half_written_number_first_is_read_as_h2_is(key, when):
    # parser 28: (None, None), unreadable_date, while "H2 2018" and "3Q 2018" were read
    assert read_label(key) == (when, "half")
    dates, precisions, unread = to_label_date([key])
    assert dates.astype("datetime64[ms]").tolist() == [when] and precisions == ["half"]
    assert unread.rows == []


def test_a_half_written_number_first_keeps_the_rules_of_halves():
    assert read_label("3H 2018") == (None, None)  # no third half
    assert date_reason("2H 99", label=True) == "short_year"  # 1999 or 2099?
    assert date_reason("2H 2018") == "unreadable_date"  # a period is no start date


@pytest.mark.parametrize(("text", "when"), [
    ("2018-03-01T12:00:00Z", datetime(2018, 3, 1, 12)),
    ("2018-03-01T12:00:00.123Z", datetime(2018, 3, 1, 12, 0, 0, 123000)),
    ("2018-03-01T12:00:00+08:00", datetime(2018, 3, 1, 4)),  # an offset: converted to UTC
    ("2018-03-01T12:00:00-05:30", datetime(2018, 3, 1, 17, 30)),
    ("2018-03-01T02:00+0800", datetime(2018, 2, 28, 18)),  # the day before, in UTC
    ("2018-03-01 12:00:00 UTC", datetime(2018, 3, 1, 12)),
    ("01.03.2018 12:00:00 UTC", datetime(2018, 3, 1, 12)),
    ("01.03.2018 12:00:00 +0800", datetime(2018, 3, 1, 4)),
    ("Thu, 01 Mar 2018 12:00:00 GMT", datetime(2018, 3, 1, 12)),
    ("31.03.2018 24:00:00", datetime(2018, 4, 1)),  # the end of the day
    ("31.12.2018 24:00", datetime(2019, 1, 1)),
    ("1 March 2018", datetime(2018, 3, 1)), ("March 1, 2018", datetime(2018, 3, 1)),
    ("2018/03/01", datetime(2018, 3, 1)), ("1st March 2018 18:30", datetime(2018, 3, 1, 18, 30)),
])
def test_a_start_date_in_a_clear_form_is_read(text, when):
    # parser 28: unreadable_date, although the roadmap read "1 March 2018" and "2018/03/01"
    assert parse_datetime(text) == when
    out, unread = to_datetime([text])
    assert out.tolist() == [when] and unread.rows == []


def test_a_start_date_and_a_roadmap_key_share_their_forms_of_a_day():
    for text in ("1 March 2018", "March 1, 2018", "2018/03/01", "01/03/2018", "Mar 01 2018"):
        assert parse_datetime(text) == read_label(text)[0] == datetime(2018, 3, 1), text


def test_a_javascript_date_is_read_by_its_offset():
    # parser 28: date_out_of_range (its "+0800" taken for the year 800)
    text = "Thu Mar 01 2018 12:00:00 GMT+0800 (China Standard Time)"
    assert parse_datetime(text) == datetime(2018, 3, 1, 4)
    assert parse_datetime(text.replace("Thu", "Fri")) == bad("impossible_date")  # not a Friday


@pytest.mark.parametrize(("text", "reason"), [
    ("2018-03-01 12:00:00 PST", "unreadable_date"),  # a zone name: which offset, in summer?
    ("01.03.2018 12:00 UTC+8", "unreadable_date"),  # a one-digit offset is no ISO offset
    ("2018-03-01T12:00:00+15:00", "unreadable_date"),  # no zone is 15 hours ahead
    ("2018-03-01T12:00:00+08:60", "unreadable_date"),
    ("31.03.2018 24:00:01", "unreadable_date"), ("2018-03-01T25:00:00Z", "unreadable_date"),
    ("31.02.2018 24:00:00", "impossible_date"), ("12/31/2018 12:00:00 UTC", "us_order"),
    ("31.12.2100 23:00:00 -05:00", "date_out_of_range"),  # 2101 in UTC
    ("March 2018", "unreadable_date"), ("Q1 2018 12:00", "unreadable_date"),  # no day
    ("01.03.18 12:00 UTC", "short_year"),
    ("Mar 01 2018 12:00:00 GMT+0800 (China)?", "unreadable_date"),  # parser 28: out of range
    ("01.03.2018 12:00:00 GMT+0800 " + "x" * 200, "unreadable_date"),
])
def test_a_start_date_not_read_says_why_and_is_never_shifted(text, reason):
    assert parse_datetime(text) == bad(reason)
    out, unread = to_datetime([text])
    assert str(out[0]) == "NaT" and unread.reasons == [reason]


def test_a_long_hostile_start_date_is_read_in_linear_time():
    text = "1 March 2018" + " " * 200_000 + "12:00"
    assert parse_datetime(text) == bad("unreadable_date")  # (quadratic: minutes)


def test_tidy_reads_clear_start_and_end_dates_and_keeps_the_others_as_problems():
    profile = with_(clean_profile(7), {"dates.start_datetime": "2018-03-01T12:00:00+08:00",
                                       "dates.end_datetime": "2018-03-31 12:00 PST"})
    tables = tidy([profile])
    row = tables.icos.iloc[0]
    assert row["start_datetime"] == pd.Timestamp("2018-03-01 04:00")
    assert pd.isna(row["end_datetime"])
    assert tables.problems[["column", "value", "reason"]].values.tolist() == [
        ["end_datetime", "2018-03-31 12:00 PST", "unreadable_date"]]

"""Dates of parser 29: one set of forms for start, end and roadmap keys, explicit offsets
converted to UTC, and day/month order decided per profile.

Each test of a reading failed on parser 28 (the comment says what it gave).
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
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
from icoframes.parse.dayorder import order_ids
from icoframes.parse.rules import PARSER_VERSION
from icoframes.reasons import REASONS


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
    for text in ("1 March 2018", "March 1, 2018", "2018/03/01", "Mar 01 2018"):
        assert parse_datetime(text) == read_label(text)[0] == datetime(2018, 3, 1), text
    # a slashed day whose order is open: read day first only where its profile writes so
    assert parse_datetime("01/03/2018", day_first=True) == read_label("01/03/2018")[0]
    assert parse_datetime("01/03/2018") == bad("ambiguous_order")


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


# --------------------------------------------------------------------------- day/month order


def _dated(ico_id, roadmap=None, start=None, end=None):
    changes = {"roadmap": roadmap or {"Q3 2018": "Mainnet"}}
    changes.update({"dates.start_datetime": start or "15.02.2018 00:00:00",
                    "dates.end_datetime": end or "28.02.2018 00:00:00"})
    return with_(clean_profile(ico_id), changes)


def _roadmap_of(tables, ico_id):
    rows = tables.roadmap[tables.roadmap["ico_id"] == ico_id]
    return {label: None if pd.isna(date) else date.to_pydatetime()
            for label, date in zip(rows["label"], rows["date"], strict=True)}


def _reasons_of(tables, ico_id):
    rows = tables.problems[tables.problems["ico_id"] == ico_id]
    return sorted(zip(rows["column"], rows["value"], rows["reason"], strict=True))


def test_a_roadmap_written_month_first_reads_no_day_whose_order_is_open():
    # parser 28: "03/04/2018" was 3 April and "12/01/2018" 12 January, silently
    month_first = _dated(1, {"01/15/2018": "Whitepaper", "03/04/2018": "Token sale",
                             "09/30/2018": "Mainnet", "12/01/2018": "Listing",
                             "03/03/2018": "Same day either way", "2018-05-06": "ISO",
                             "Q4 2018": "Quarter"})
    day_first = _dated(2, {"03/04/2018": "Token sale", "12/01/2018": "Listing"})
    tables = tidy([month_first, day_first])
    assert _roadmap_of(tables, 1) == {
        "01/15/2018": None, "03/04/2018": None, "09/30/2018": None, "12/01/2018": None,
        "03/03/2018": datetime(2018, 3, 3), "2018-05-06": datetime(2018, 5, 6),
        "Q4 2018": datetime(2018, 10, 1)}
    assert _reasons_of(tables, 1) == [("date", "01/15/2018", "us_order"),
                                      ("date", "03/04/2018", "ambiguous_order"),
                                      ("date", "09/30/2018", "us_order"),
                                      ("date", "12/01/2018", "ambiguous_order")]
    # another ICO of the same call shows no month-first date: day-first, as documented
    assert _roadmap_of(tables, 2) == {"03/04/2018": datetime(2018, 4, 3),
                                      "12/01/2018": datetime(2018, 1, 12)}
    assert _reasons_of(tables, 2) == []
    precision = tables.roadmap.set_index("label").loc["03/04/2018", "precision"]
    assert pd.isna(precision.iloc[0]) and precision.iloc[1] == "day"


def test_a_start_and_end_written_month_first_decide_for_the_whole_profile():
    # parser 28: start "03.04.2018" was 3 April beside an end "03.15.2018" (us_order)
    profile = _dated(3, {"12-01-2018": "Listing", "13-01-2018": "Day first"},
                     start="03.04.2018 00:00:00", end="03.15.2018 00:00:00")
    tables = tidy([profile])
    row = tables.icos.iloc[0]
    assert pd.isna(row["start_datetime"]) and pd.isna(row["end_datetime"])
    assert _roadmap_of(tables, 3) == {"12-01-2018": None, "13-01-2018": datetime(2018, 1, 13)}
    assert _reasons_of(tables, 3) == [("date", "12-01-2018", "ambiguous_order"),
                                      ("end_datetime", "03.15.2018 00:00:00", "us_order"),
                                      ("start_datetime", "03.04.2018 00:00:00", "ambiguous_order")]


@pytest.mark.parametrize("table", ["icos", "roadmap"])
def test_the_order_of_a_profile_is_the_same_whichever_tables_are_built(table):
    profiles = [_dated(4, {"01/15/2018": "a"}, start="03.04.2018 00:00:00"),
                _dated(5, {"03/04/2018": "b"}, end="02.13.2018 12:00:00"),
                _dated(6, {"03/04/2018": "c"}, start="03.04.2018 00:00:00")]
    whole, part = tidy(profiles), tidy(profiles, tables=[table])
    pd.testing.assert_frame_equal(part[table], whole[table])
    wanted = whole.problems[whole.problems["table"] == table].reset_index(drop=True)
    pd.testing.assert_frame_equal(part.problems.reset_index(drop=True), wanted)
    assert (whole.problems["reason"] == "ambiguous_order").sum() == 2  # 4's start, 5's key


def test_full_width_and_spaced_month_first_dates_count_as_evidence():
    profile = _dated(8, {"０１/１５/２０１８": "full width", "03/04/2018": "b"})
    assert ("date", "03/04/2018", "ambiguous_order") in _reasons_of(tidy([profile]), 8)
    profile = _dated(9, {"03/04/2018": "b"}, end=" 12.31.2018 ")
    assert _reasons_of(tidy([profile]), 9)[0] == ("date", "03/04/2018", "ambiguous_order")


def test_the_converters_refuse_an_open_order_only_where_told():
    labels = ["03-04-2018", "03-04-2018", "13-04-2018", "Q1 2018", "soon"]
    order = np.array([False, True, True, True, True])
    dates, precision, unread = to_label_date(labels, month_first=order)
    assert dates.astype(str).tolist()[:3] == ["2018-04-03T00:00:00.000", "NaT",
                                              "2018-04-13T00:00:00.000"]
    assert precision == ["day", None, "day", "quarter", None]
    assert unread.rows == [1, 4] and unread.reasons == ["ambiguous_order", "unreadable_date"]
    out, unread = to_datetime(["03.04.2018 00:00:00", "31.02.2018 00:00:00", "03.04.2018"],
                              month_first=np.array([True, True, False]))
    assert out.astype(str).tolist() == ["NaT", "NaT", "2018-04-03T00:00:00.000"]
    assert unread.rows == [0, 1] and unread.reasons == ["ambiguous_order", "impossible_date"]


# --------------------------------------------------------------------------- time ranges


@pytest.mark.parametrize("text", [
    "01.03.2018 10:00-12:00", "01.03.2018 12:00-14:00", "01.03.2018 12:00-13:30",
    "2018-03-01 09:00-11:00", "March 1, 2018 08:00-10:00", "1 March 2018 10:00+02",
    "01.03.2018 10:00 +12", "01.03.2018 10:00-1200", "Thu, 01 Mar 2018 10:00-12:00",
    "01.03.2018T10:00-12:00", "2018/03/01 10:00-11", "01.03.2018 10:00 -12:00",
])
def test_a_time_range_is_no_offset(text):
    # realdate a1a2a80: read as an offset ("10:00-12:00" as 22:00 UTC), silently
    assert parse_datetime(text) == bad("unreadable_date")
    tables = tidy([with_(clean_profile(7), {"dates.start_datetime": text})])
    assert pd.isna(tables.icos.iloc[0]["start_datetime"])
    assert _reasons_of(tables, 7) == [("start_datetime", text, "unreadable_date")]


@pytest.mark.parametrize(("text", "when"), [
    ("01.03.2018 12:00:00-05:00", datetime(2018, 3, 1, 17)),  # after seconds
    ("01.03.2018 12:00:00.5 +0800", datetime(2018, 3, 1, 4, 0, 0, 500000)),
    ("2018-03-01T12:00-05:00", datetime(2018, 3, 1, 17)),  # ISO 8601's T form
    ("01.03.2018 12:00 UTC-05:00", datetime(2018, 3, 1, 17)),  # after UTC or GMT
    ("01.03.2018 12:00 GMT+0800", datetime(2018, 3, 1, 4)),
])
def test_an_offset_that_cannot_end_a_time_range_is_read(text, when):
    assert parse_datetime(text) == when


# --------------------------------------------------------------------------- zone comments


@pytest.mark.parametrize("text", [
    "01.03.2018 12:00:00 UTC (CET)", "01.03.2018 12:00:00 +08:00 (PST)",
    "01.03.2018 12:00:00 -0800 (UTC)", "Thu Mar 01 2018 12:00:00 GMT+0800 (UTC)",
    "01.03.2018 12:00:00 Z (CET)", "2018-03-01T12:00:00+08:00 (Coordinated Universal Time)",
])
def test_a_zone_in_brackets_that_may_contradict_the_offset_is_refused(text):
    # realdate a1a2a80: the comment was ignored and the value read by its offset or as UTC
    assert parse_datetime(text) == bad("unreadable_date")


def test_javascripts_zone_comment_is_still_read():
    assert parse_datetime("Thu Mar 01 2018 12:00:00 GMT+0000 (Coordinated Universal Time)"
                          ) == datetime(2018, 3, 1, 12)
    assert parse_datetime("Thu Mar 01 2018 12:00:00 GMT-0500 (Eastern Standard Time)"
                          ) == datetime(2018, 3, 1, 17)


# --------------------------------------------------------------------------- slashed order


def _start_end(tables, ico_id):
    row = tables.icos.set_index("id").loc[ico_id]
    return [None if pd.isna(row[c]) else row[c].to_pydatetime()
            for c in ("start_datetime", "end_datetime")]


@pytest.mark.parametrize(("start", "end"), [("03/04/2018", "03/10/2018"),
                                            ("03/04/2018 10:00", "03/10/2018 18:00:00"),
                                            ("Sun 03/04/2018", "03/10/2018 18:00 UTC")])
def test_a_slashed_start_or_end_whose_order_is_open_is_refused(start, end):
    # realdate a1a2a80: 3 April and 3 October (a US sale of 4-10 March), silently
    tables = tidy([_dated(11, {"Q1 2018": "x"}, start=start, end=end)])
    assert _start_end(tables, 11) == [None, None]
    reasons = {(c, r) for c, v, r in _reasons_of(tables, 11)}
    assert ("end_datetime", "ambiguous_order") in reasons
    assert reasons <= {("start_datetime", "ambiguous_order"), ("end_datetime", "ambiguous_order"),
                       ("start_datetime", "impossible_date")}  # Sun: 4 March, not 3 April


@pytest.mark.parametrize("evidence", [{"roadmap": {"15/03/2018": "x"}},
                                      {"roadmap": {"Mon 19/03/2018": "x"}},
                                      {"dates.end_datetime": "13/03/2018 12:00"}])
def test_a_slashed_start_is_read_day_first_where_the_profile_writes_so(evidence):
    changes = {"dates.start_datetime": "03/04/2018", "dates.end_datetime": "10/04/2018"}
    tables = tidy([with_(clean_profile(12), changes | evidence)])
    assert _start_end(tables, 12)[0] == datetime(2018, 4, 3)
    assert all(r != "ambiguous_order" for _, _, r in _reasons_of(tables, 12))


def test_dotted_and_dashed_starts_stay_day_first_and_clear_slashes_are_read():
    profile = _dated(13, {"Q1 2018": "x"}, start="03.04.2018 10:00", end="03-10-2018")
    assert _start_end(tidy([profile]), 13) == [datetime(2018, 4, 3, 10), datetime(2018, 10, 3)]
    profile = _dated(14, {"Q1 2018": "x"}, start="03/03/2018", end="15/03/2018 12:00:00")
    assert _start_end(tidy([profile]), 14) == [datetime(2018, 3, 3), datetime(2018, 3, 15, 12)]


@pytest.mark.parametrize("evidence", [
    {"roadmap": {"Mon 01/15/2018": "x"}}, {"roadmap": {"Launch 01/15/2018, 12:00": "x"}},
    {"dates.end_datetime": "Thu 03/15/2018 12:00"}, {"dates.end_datetime": "03/15/2018, 12:00"},
    {"dates.end_datetime": "03/15/18"}, {"roadmap": {"１２.３１.２０１８": "x"}},
])
def test_a_month_first_date_anywhere_in_a_text_is_evidence(evidence):
    # realdate a1a2a80: only a month-first date at the start, then " " or "T", was evidence
    changes = {"dates.start_datetime": "03.04.2018 00:00:00", "dates.end_datetime": ""}
    tables = tidy([with_(clean_profile(15), changes | evidence)])
    assert _start_end(tables, 15)[0] is None
    assert ("start_datetime", "03.04.2018 00:00:00", "ambiguous_order") in _reasons_of(tables, 15)


def test_order_ids_find_the_evidence_of_each_profile():
    profiles = [{"roadmap": {"Mon 01/15/2018": "x", "21/01/2018": "y"}},
                {"dates": {"start_datetime": "x 03/15/18", "end_datetime": "2018-01-15 13:14"}},
                {"dates": {"end_datetime": "31/12/2018 12:00"}},
                {"roadmap": {"2018-01-15": "ISO", "15.03.2018": "dots", "v1.13": "no year"}}]
    month_first, day_first = order_ids(profiles, np.array([1, 2, 3, 4]))
    assert month_first.tolist() == [1, 2] and day_first.tolist() == [1, 3]


def test_the_parser_version_names_these_rules():
    assert PARSER_VERSION >= 29  # cached profiles are parsed again, with no request
    assert "ambiguous_order" in REASONS

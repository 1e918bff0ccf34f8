"""A date argument means one thing: ``compute_features(as_of=)`` and ``plot_timeline(now=)``
read a date value or an ISO date with a 4-digit year, and refuse the rest (review AE, M4:
``"١٢"``, ``"Jan"``, ``"May 5"``, ``"1/2"``, ``"T12"`` were silently dates of year 1 or of a
US order). Nothing here sends a request: both work on tables already in memory."""

from __future__ import annotations

import datetime as dt

import matplotlib
import numpy as np
import pandas as pd
import pytest

import icoframes
from icoframes.errors import InvalidParameter
from icoframes.moments import as_naive_utc
from icoframes.plotting import plot_timeline
from icoframes.quoting import quoted

matplotlib.use("Agg")

RULE = " (as text: an ISO date with a 4-digit year, 'YYYY-MM-DD' with an optional time)"


def _tables() -> icoframes.Tables:
    return icoframes.tidy([{"id": 1, "dates": {"start_datetime": "01.05.2018 00:00:00",
                                               "end_datetime": "01.06.2018 00:00:00"}}],
                          statuses={1: "past"})


# each was read as a date pandas guessed: 0001-01-12, 0001-01-01, 0001-05-05, 0001-01-02 ...
@pytest.mark.parametrize("text", ["١٢", "Jan", "May 5", "1/2", "T12", "01.06.2018", "1/2/2018",
                                  "2018-13-01", "2018-06-01 25:00", "12", "Jan 2018", "NaT",
                                  "2018-06-01x", "20181301", "2018061"])
def test_text_that_is_no_iso_date_is_refused_without_a_guess(text):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.compute_features(_tables(), as_of=text)
    assert str(caught.value) == f"as_of must be a date or datetime, got {text!r}{RULE}"
    with pytest.raises(InvalidParameter) as caught:
        plot_timeline(_tables().icos, now=text)
    assert str(caught.value) == f"now must be a date or datetime, got {text!r}{RULE}"


# a date said plainly another way (year first, or the month in words): the ISO date it means
@pytest.mark.parametrize(("text", "meant"), [
    ("2018/06/01", "2018-06-01"), ("June 1, 2018", "2018-06-01"), ("1 June 2018", "2018-06-01"),
    ("٢٠١٨-٠٦-٠١", "2018-06-01"), ("２０１８-06-01", "2018-06-01"), ("2018", "2018-01-01"),
    ("2018-06", "2018-06-01"), ("20180601", "2018-06-01"), ("２０１８0601", "2018-06-01"),
    ("2018/06/01 12:30", "2018-06-01 12:30:00")])
def test_a_date_written_otherwise_is_refused_with_the_iso_date_it_means(text, meant):
    with pytest.raises(InvalidParameter) as caught:
        icoframes.compute_features(_tables(), as_of=text)
    assert str(caught.value) == (f"as_of must be a date or datetime, got {text!r}{RULE}; "
                                 f"did you mean {meant!r}?")


@pytest.mark.parametrize(("value", "moment"), [
    ("2018-06-01", "2018-06-01"), (" 2018-06-01 12:00 ", "2018-06-01 12:00"),
    ("2018-06-01T12:00:30.5", "2018-06-01 12:00:30.5"),
    ("2018-06-01T12:00Z", "2018-06-01 12:00"), ("2018-06-01T12:00+02:00", "2018-06-01 10:00"),
    ("2018-06-01 12:00-0130", "2018-06-01 13:30"),
    (dt.date(2018, 6, 1), "2018-06-01"), (dt.datetime(2018, 6, 1, 12), "2018-06-01 12:00"),
    (dt.datetime(2018, 6, 1, 12, tzinfo=dt.timezone(dt.timedelta(hours=2))), "2018-06-01 10:00"),
    (pd.Timestamp("2018-06-01 12:00", tz="UTC"), "2018-06-01 12:00"),
    (np.datetime64("2018-06-01T12"), "2018-06-01 12:00")])
def test_dates_and_iso_text_are_read_naive_utc(value, moment):
    # aware: converted to UTC; naive: taken as UTC (the docs of as_of and now)
    assert as_naive_utc(value, "as_of") == pd.Timestamp(moment)
    assert as_naive_utc(value, "as_of").tz is None


def test_the_iso_date_decides_the_feature():
    # ended 2018-06-01: past at 2018-06-02 agrees, past at 2018-05-15 disagrees
    after = icoframes.compute_features(_tables(), as_of="2018-06-02")
    before = icoframes.compute_features(_tables(), as_of="2018-05-15 00:00")
    assert after["status_disagrees_with_dates"].tolist() == [False]
    assert before["status_disagrees_with_dates"].tolist() == [True]


@pytest.mark.parametrize("value", [np.datetime64("NaT"), pd.NaT, dt.timedelta(days=1),
                                   np.timedelta64(1, "D"), b"2018-06-01", 2018])
def test_other_values_are_refused_without_the_text_rule(value):
    with pytest.raises(InvalidParameter) as caught:
        as_naive_utc(value, "as_of")
    assert str(caught.value) == f"as_of must be a date or datetime, got {value!r}"


@pytest.mark.parametrize("value", ["0000-01-01", "0000-12-31T23:00",
                                   dt.datetime(1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=5)))])
def test_a_moment_outside_the_years_1_to_9999_is_refused_before_a_figure(value):
    # pandas reads year 0 (and 0001-01-01 at +05:00 is year 0 in UTC): plot_timeline made its
    # figure, then failed in strftime (NotImplementedError), the figure left open
    import matplotlib.pyplot as plt

    # pandas 3 reads year 0 and is refused by the range; pandas 2.2 reads text in nanoseconds
    # (no year before 1677), Python no year 0 (refused as no date); it crashed building a
    # suggestion for year 0
    refused = r"now must be a date (in the years 1 to 9999|or datetime)"
    with pytest.raises(InvalidParameter, match=refused) as caught:
        as_naive_utc(value, "now")
    assert "did you mean" not in str(caught.value)
    icos = icoframes.tidy([{"id": 1, "start_datetime": "2018-01-01", "end_datetime": "2018-02-01"}])
    figures = len(plt.get_fignums())
    with pytest.raises(InvalidParameter, match=refused):
        plot_timeline(icos.icos, now=value)
    assert len(plt.get_fignums()) == figures
    assert as_naive_utc("0001-01-01", "now") == pd.Timestamp(dt.datetime(1, 1, 1))  # the first day


# a zone written apart after the date: the same moment with the zone as an ISO offset
@pytest.mark.parametrize(("text", "meant", "moment"), [
    ("2018-06-01 12:00 UTC", "2018-06-01 12:00:00+00:00", "2018-06-01 12:00"),
    ("2018-06-01 12:00 utc", "2018-06-01 12:00:00+00:00", "2018-06-01 12:00"),
    ("2018-06-01T12:00 GMT", "2018-06-01 12:00:00+00:00", "2018-06-01 12:00"),
    ("2018-06-01 12:00 Z", "2018-06-01 12:00:00+00:00", "2018-06-01 12:00"),
    ("2018-06-01 12:00 +02:00", "2018-06-01 12:00:00+02:00", "2018-06-01 10:00"),
    ("2018-06-01 12:00  -0130", "2018-06-01 12:00:00-01:30", "2018-06-01 13:30"),
    ("2018-06-01 UTC", "2018-06-01", "2018-06-01"),
    ("2018/06/01 12:30 UTC", "2018-06-01 12:30:00+00:00", "2018-06-01 12:30")])
def test_a_zone_after_a_space_is_refused_with_the_moment_it_means(text, meant, moment):
    # was refused without a suggestion (a zone is no part of the text rule, and pandas' reading
    # with one was not trusted: it reads "UTC+2" as -02:00)
    with pytest.raises(InvalidParameter) as caught:
        icoframes.compute_features(_tables(), as_of=text)
    assert str(caught.value) == (f"as_of must be a date or datetime, got {text!r}{RULE}; "
                                 f"did you mean {meant!r}?")
    assert as_naive_utc(meant, "as_of") == pd.Timestamp(moment)  # the suggestion is read


# a zone pandas reads by the POSIX sign ("UTC+2" is -02:00), by a name it may not know, or an
# offset no clock has: no suggestion
@pytest.mark.parametrize("text", ["2018-06-01 12:00 UTC+2", "2018-06-01 12:00 GMT-5",
                                  "2018-06-01 12:00 UTC+02:00", "2018-06-01 12:00 CET",
                                  "2018-06-01 12:00 +25:00", "2018-06-01 12:00 +5",
                                  "12 UTC", "01.06.2018 12:00 UTC"])
def test_a_zone_that_is_no_plain_offset_gets_no_suggestion(text):
    with pytest.raises(InvalidParameter) as caught:
        as_naive_utc(text, "as_of")
    assert str(caught.value) == f"as_of must be a date or datetime, got {text!r}{RULE}"


@pytest.mark.parametrize("value", [20180601, np.int64(20180601), 20180601.0,
                                   np.float64(20180601), np.uint32(20180601)])
def test_a_number_writing_a_compact_date_is_refused_with_the_iso_date(value):
    # a spreadsheet's or read_csv's 20180601 had no hint, the text "20180601" had
    meant = "; did you mean '2018-06-01'?"
    with pytest.raises(InvalidParameter) as caught:
        icoframes.compute_features(_tables(), as_of=value)
    assert str(caught.value) == f"as_of must be a date or datetime, got {value!r}{meant}"
    with pytest.raises(InvalidParameter) as caught:
        plot_timeline(_tables().icos, now=value)
    assert str(caught.value) == f"now must be a date or datetime, got {value!r}{meant}"


@pytest.mark.parametrize("value", [20181301, 201806011, 2018061, -20180601, 20180601.5,
                                   float("nan"), 10**400, True],
                         ids=lambda v: repr(v)[:12])
def test_a_number_writing_no_compact_date_gets_no_guess(value):
    with pytest.raises(InvalidParameter) as caught:
        as_naive_utc(value, "as_of")
    assert str(caught.value) == f"as_of must be a date or datetime, got {quoted(value)}"


def test_a_snapshot_date_column_of_objects_holding_a_compact_number_says_the_date():
    frame = pd.DataFrame({"snapshot_date": pd.Series(["2026-11-01", 20261102], dtype=object),
                          "id": [1, 1], "status": ["past", "past"]})
    with pytest.raises(InvalidParameter, match=r"a snapshot_date must be a date or datetime, "
                                               r"got 20261102; did you mean '2026-11-02'\?$"):
        icoframes.changes(frame)

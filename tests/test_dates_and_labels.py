"""Roadmap keys with a precision, dates kept within 1990-2100 (issue 20 parts 5 and the edges).

Every key that names no date is kept as a label *and* reported with its reason
(``us_order``, ``impossible_date``, ``date_out_of_range``, ``no_year``,
``duration``, ``unreadable_date``); the dates the parser lets through are the
ones every function downstream can use.
"""

from __future__ import annotations

import datetime as dt
import math

import matplotlib
import pandas as pd
import pytest
from messy_profiles import clean_profile, with_

from icoframes.errors import IcoframesWarning
from icoframes.features import compute_features as features
from icoframes.money import to_usd
from icoframes.parse.profiles import tidy
from icoframes.plotting import plot_raised_vs_cap
from icoframes.tables import Tables

matplotlib.use("Agg")


def problem_values(tables: Tables, table: str, column: str) -> list[str]:
    frame = tables.problems
    keep = (frame["table"] == table) & (frame["column"] == column)
    return frame.loc[keep, "value"].tolist()


def problem_reasons(tables: Tables, table: str, column: str) -> list[tuple[str, str]]:
    """(value, reason) of each problem row of ``table.column``."""
    frame = tables.problems
    mine = frame[(frame["table"] == table) & (frame["column"] == column)]
    return list(zip(mine["value"], mine["reason"], strict=True))


@pytest.mark.parametrize(("label", "date", "precision"), [
    ("01-07-2018", dt.datetime(2018, 7, 1), "day"),
    ("15.09.2018", dt.datetime(2018, 9, 15), "day"),
    ("2018-09-15", dt.datetime(2018, 9, 15), "day"),
    ("15 March 2019", dt.datetime(2019, 3, 15), "day"),
    ("March 15, 2019", dt.datetime(2019, 3, 15), "day"),
    ("March 2018", dt.datetime(2018, 3, 1), "month"),
    ("Sep 2018", dt.datetime(2018, 9, 1), "month"),
    ("03.2018", dt.datetime(2018, 3, 1), "month"),
    ("2018-03", dt.datetime(2018, 3, 1), "month"),
    ("Q3 2018", dt.datetime(2018, 7, 1), "quarter"),
    ("3Q 2018", dt.datetime(2018, 7, 1), "quarter"),  # was neither a date nor a problem
    ("3q2018", dt.datetime(2018, 7, 1), "quarter"),
    ("2018 Q4", dt.datetime(2018, 10, 1), "quarter"),
    ("Q1'19", dt.datetime(2019, 1, 1), "quarter"),
    ("2nd quarter 2019", dt.datetime(2019, 4, 1), "quarter"),
    ("H2 2019", dt.datetime(2019, 7, 1), "half"),
    ("2019", dt.datetime(2019, 1, 1), "year"),
])
def test_roadmap_keys_give_the_start_of_their_period_and_a_precision(label, date, precision):
    tables = tidy([with_(clean_profile(), {"roadmap": {label: "Milestone"}})])
    row = tables.roadmap.iloc[0]
    assert row["label"] == label and row["date"] == pd.Timestamp(date)
    assert row["precision"] == precision
    assert tables.problems.empty


@pytest.mark.parametrize(("label", "reason"), [
    ("01-13-2018", "us_order"),  # US order: was neither a date nor a problem
    ("31-02-2018", "impossible_date"), ("soon", "unreadable_date"),
    ("Early 2018", "unreadable_date"), ("Phase 1", "unreadable_date"), ("", "unreadable_date"),
    ("2263", "date_out_of_range"), ("Q5 2018", "unreadable_date"),
    ("Q3 1850", "date_out_of_range"), ("20 Sep", "no_year"), ("13.2018", "impossible_date"),
    ("in 3 months", "duration"),
])
def test_roadmap_keys_naming_no_date_are_kept_and_reported(label, reason):
    tables = tidy([with_(clean_profile(), {"roadmap": {label: "Milestone", "2019": "x"}})])
    row = tables.roadmap.iloc[0]
    assert row["label"] == label and pd.isna(row["date"]) and pd.isna(row["precision"])
    assert row["description"] == "Milestone"
    assert problem_reasons(tables, "roadmap", "date") == [(label, reason)]
    assert tables.roadmap.iloc[1]["precision"] == "year"


@pytest.mark.parametrize(("raw", "reason"), [
    ("01.01.0001 00:00:00", "date_out_of_range"), ("01.01.2263 00:00:00", "date_out_of_range"),
    ("31.12.9999 23:59:59", "date_out_of_range"), ("01.01.1989 00:00:00", "date_out_of_range"),
    ("2263-01-01", "date_out_of_range"), ("0001-01-01", "date_out_of_range"),
    ("01.01.2101", "date_out_of_range"),
    # the stays-reported kinds
    ("20 Sep", "no_year"), ("19 days", "duration"), ("since 18 Sep", "no_year"),
    ("01.13.2018", "us_order"), ("13/01/2018 00h00", "unreadable_date"),
    ("31.02.2018 00:00:00", "impossible_date"), ("00.00.0000 00:00:00", "impossible_date"),
    ("next week", "unreadable_date"), (20180301, "wrong_type"),
])
def test_dates_outside_1990_2100_and_vague_dates_are_problems(raw, reason):
    tables = tidy([with_(clean_profile(), {"dates.start_datetime": raw})])
    assert pd.isna(tables.icos.loc[0, "start_datetime"])
    assert problem_reasons(tables, "icos", "start_datetime") == [(str(raw), reason)]


@pytest.mark.parametrize("raw", ["01.01.1990 00:00:00", "31.12.2100 23:59:59", "2100-12-31"])
def test_the_edges_of_the_range_are_dates(raw):
    tables = tidy([with_(clean_profile(), {"dates.start_datetime": raw})])
    assert not pd.isna(tables.icos.loc[0, "start_datetime"])
    assert tables.problems.empty


def test_everything_downstream_survives_what_the_parser_lets_through():
    profiles = [with_(clean_profile(i), {"dates.start_datetime": start,
                                         "dates.end_datetime": end, "finance.caps_unit": "ETH"})
                for i, (start, end) in enumerate([
                    ("01.01.0001 00:00:00", "31.12.9999 23:59:59"),
                    ("01.01.2263 00:00:00", "01.01.2018 00:00:00"),
                    ("01.03.2018 00:00:00", "01.01.0001 00:00:00"),
                    ("01.03.2018 00:00:00", "31.03.2018 00:00:00"),
                ], start=1)]
    profiles.append(with_(clean_profile(9), {"roadmap": {"9999": "far", "0001": "old"}}))
    tables = tidy(profiles)
    rates = pd.DataFrame({"date": ["2018-01-01"], "currency": ["ETH"], "usd": [800.0]})
    with pytest.warns(IcoframesWarning, match="without a USD value"):  # the dates left out
        money = to_usd(tables.icos, rates, columns=["hard_cap"], date="end_datetime")
    assert money["hard_cap_usd"].notna().sum() >= 1
    with pytest.warns(IcoframesWarning, match="without a USD value"):
        frame = features(tables, rates=rates)
    assert len(frame) == 5
    joined = frame.assign(raised=tables.icos["raised"].to_numpy())
    plot_raised_vs_cap(joined)
    assert set(problem_reasons(tables, "roadmap", "date")) == {("9999", "date_out_of_range"),
                                                              ("0001", "date_out_of_range")}
    assert len(problem_values(tables, "icos", "start_datetime")) == 2
    assert len(problem_values(tables, "icos", "end_datetime")) == 2
    assert not math.isnan(tables.icos.loc[3, "hard_cap"])

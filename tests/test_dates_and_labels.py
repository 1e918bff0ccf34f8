"""Roadmap keys with a precision, dates kept within 1990-2100 (issue 20 parts 5 and the edges).

Every key that names no date is kept as a label *and* reported; the dates the
parser lets through are the ones every function downstream can use.
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


@pytest.mark.parametrize("label", [
    "01-13-2018",  # US order: was neither a date nor a problem
    "31-02-2018", "soon", "Early 2018", "Phase 1", "", "2263", "Q5 2018", "Q3 1850",
    "20 Sep", "13.2018",
])
def test_roadmap_keys_naming_no_date_are_kept_and_reported(label):
    tables = tidy([with_(clean_profile(), {"roadmap": {label: "Milestone", "2019": "x"}})])
    row = tables.roadmap.iloc[0]
    assert row["label"] == label and pd.isna(row["date"]) and pd.isna(row["precision"])
    assert row["description"] == "Milestone"
    assert problem_values(tables, "roadmap", "date") == [label]
    assert tables.roadmap.iloc[1]["precision"] == "year"


@pytest.mark.parametrize("raw", [
    "01.01.0001 00:00:00", "01.01.2263 00:00:00", "31.12.9999 23:59:59", "01.01.1989 00:00:00",
    "2263-01-01", "0001-01-01", "01.01.2101",
    # the stays-reported kinds
    "20 Sep", "19 days", "since 18 Sep", "01.13.2018", "13/01/2018 00:00:00",
])
def test_dates_outside_1990_2100_and_vague_dates_are_problems(raw):
    tables = tidy([with_(clean_profile(), {"dates.start_datetime": raw})])
    assert pd.isna(tables.icos.loc[0, "start_datetime"])
    assert problem_values(tables, "icos", "start_datetime") == [raw]


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
    assert set(problem_values(tables, "roadmap", "date")) == {"9999", "0001"}
    assert len(problem_values(tables, "icos", "start_datetime")) == 2
    assert len(problem_values(tables, "icos", "end_datetime")) == 2
    assert not math.isnan(tables.icos.loc[3, "hard_cap"])

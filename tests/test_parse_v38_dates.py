"""Parser 38: a day written ``DD-Mon-YYYY`` or ``DD/Mon/YYYY`` (``"01-Mar-2018"``,
``"1-Mar-2018"``, ``"01/Mar/2018"``) is read, in start and end dates and roadmap keys: the month
is named, so no order of day and month is in doubt (REV-RV L). On 9bc57721 (parser 36) each was
``unreadable_date`` and failed there; the guards (a mixed separator, an impossible day) passed
there too.
"""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import pytest
from messy_profiles import clean_profile

import icoframes


def _read(text: str) -> tuple[object, list, list]:
    profile = clean_profile()
    profile["dates"]["start_datetime"] = text
    profile["roadmap"] = {text: "Token sale"}
    tables = icoframes.tidy([profile])
    return (tables.icos.loc[0, "start_datetime"],
            tables.roadmap[["date", "precision"]].values.tolist(),
            tables.problems[["column", "reason"]].values.tolist())


@pytest.mark.parametrize("text", ["01-Mar-2018", "1-Mar-2018", "01/Mar/2018", "01-MAR-2018",
                                  "1-March-2018", "01-Mar.-2018"])
def test_a_day_with_its_month_named_between_dashes_or_slashes_is_read(text):
    start, roadmap, problems = _read(text)
    assert start == pd.Timestamp(datetime(2018, 3, 1))  # 9bc57721: NaT, unreadable_date
    assert roadmap == [[pd.Timestamp(datetime(2018, 3, 1)), "day"]] and problems == []


def test_a_time_after_it_is_read_in_a_start_date():
    start, _, _ = _read("01-Mar-2018 12:00:00")
    assert start == pd.Timestamp(datetime(2018, 3, 1, 12))


@pytest.mark.parametrize(("text", "reason"), [("01-Mar/2018", "unreadable_date"),
                                              ("31-Feb-2018", "unreadable_date")])
def test_a_mixed_separator_or_an_impossible_day_stays_refused(text, reason):
    start, roadmap, problems = _read(text)
    assert pd.isna(start) and pd.isna(roadmap[0][0])
    assert problems == [["start_datetime", reason], ["date", reason]]

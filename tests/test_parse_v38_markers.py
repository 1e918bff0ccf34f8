"""Parser 38: ``"n.a."``, ``"N.A."``, ``"TBC"``, ``"--"``, ``"?"``, ``"#N/A"``, ``"not specified"``,
``"undefined"`` and a lone zero-width space are missing in every column, with no row, as
``"N/A"`` is (REV-RV M2). On 9bc57721 (parser 36) they were kept as real text in
``location``/``platform`` (a category in a groupby) and were ``unreadable_number`` /
``unreadable_date`` rows in number and date columns; each case failed there. ``"N/A"`` (the
guard) passed there too. ``"Unknown"`` stays a location: the service's filter set lists it.
"""

from __future__ import annotations

import pandas as pd
import pytest
from messy_profiles import clean_profile

import icoframes

MARKERS = ["n.a.", "N.A.", "N.A", "TBC", "tbc", "--", "?", "#N/A", "not specified",
           "Not Specified", "undefined", "\u200b", " \u200b ", "N/A\u200b"]


@pytest.mark.parametrize("marker", [*MARKERS, "N/A"])
def test_a_missing_marker_is_missing_everywhere_with_no_row(marker):
    profile = clean_profile()
    profile["main"].update(location=marker, platform=marker, category=marker)
    profile["finance"].update(soft_cap=marker, token_price=marker)
    profile["dates"]["start_datetime"] = marker
    tables = icoframes.tidy([profile])
    row = tables.icos.iloc[0]
    for column in ("location", "platform", "category", "soft_cap", "token_price",
                   "start_datetime"):
        assert pd.isna(row[column]), column  # 9bc57721: "n.a." kept, or a row
    assert tables.problems.empty
    assert row["hard_cap"] == 15_000_000.0


def test_unknown_stays_a_location_the_filter_set_names():
    profile = clean_profile()
    profile["main"]["location"] = "Unknown"
    assert icoframes.tidy([profile]).icos.loc[0, "location"] == "Unknown"


def test_a_zero_width_character_inside_text_is_kept():
    profile = clean_profile()
    profile["main"]["name"] = "Aqua\u200bbit"
    assert icoframes.tidy([profile]).icos.loc[0, "name"] == "Aqua\u200bbit"

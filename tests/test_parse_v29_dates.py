"""Dates of parser 29: one set of forms for start, end and roadmap keys, explicit offsets
converted to UTC, and day/month order decided per profile.

Each test of a reading failed on parser 28 (the comment says what it gave).
"""

from __future__ import annotations

from datetime import datetime

import pytest

from icoframes.parse.dates import date_reason, read_label, to_label_date


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

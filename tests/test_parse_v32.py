"""Parser 32: a date written "Jan 5,2018" in an amount shows no decimal comma.

Since parser 31 a decimal comma shown by a refused amount makes an ICO's ``"1,500"``
ambiguous_separator. A date in a free-text ``raised`` (``"$1,500,000 (Jan 5,2018)"``,
``vague``) counted as one by its ``"5,2018"``, so ``"1,500 ETH"`` in ``hard_cap`` was lost;
with the date written ``"Jan 5, 2018"`` it was read. Each date case failed on 484069b
(parser 31); the guard (a real decimal comma) passed there too.
"""

from __future__ import annotations

import math

import pytest

from icoframes.parse.profiles import tidy
from icoframes.parse.version import PARSER_VERSION


def _read(raised: str) -> tuple[dict, dict]:
    """``raised`` beside a hard_cap "1,500 ETH": the icos row, and column -> (value, reason)."""
    tables = tidy([{"id": 1, "finance": {"ticker": "AQB", "raised": raised,
                                         "hard_cap": "1,500 ETH", "caps_unit": ""}}])
    problems = {c: (v, r) for c, v, r in tables.problems[["column", "value", "reason"]]
                .itertuples(index=False)}
    return tables.icos.iloc[0].to_dict(), problems


@pytest.mark.parametrize("date", ["Jan 5,2018", "January 15,2019", "Sept. 3,2020"])
def test_a_dates_comma_in_a_refused_amount_is_no_decimal_comma(date):
    raised = f"$1,500,000 ({date})"
    row, problems = _read(raised)
    assert (row["hard_cap"], row["caps_unit"]) == (1500.0, "ETH")  # 484069b: NaN
    assert problems == {"raised": (raised, "vague")}
    assert PARSER_VERSION >= 32  # cached profiles are parsed again, with no request


def test_a_decimal_comma_in_a_refused_amount_still_leaves_a_comma_group_in_doubt():
    row, problems = _read("$1,500,000 (5,2018 ETH)")
    assert math.isnan(row["hard_cap"])
    assert problems["hard_cap"] == ("1,500 ETH", "ambiguous_separator")
    row, problems = _read("$1,500,000 (Jan 5, 2018)")  # (read as 1,500 in 31 too)
    assert row["hard_cap"] == 1500.0 and "hard_cap" not in problems

"""Parser 38: the shares of a distribution summing to over 100% (+1 for rounding) are no shares
of one whole: each is missing and a row ``share_total`` (REV-RV M3). On 9bc57721 (parser 36)
``{"Team": "90%", "Sale": "90%", "Res": "90%"}`` read 90 each, ``team_token_share`` and
``sale_token_share`` 90, with no row; each refusing case failed there, the guards (a whole of
100, rounding to 101, a partial list) passed there too.
"""

from __future__ import annotations

import math

import pytest
from messy_profiles import clean_profile

import icoframes


def _read(distribution: dict) -> tuple[list, list, dict]:
    profile = clean_profile()
    profile["finance"]["distribution"] = distribution
    tables = icoframes.tidy([profile])
    features = icoframes.compute_features(tables).iloc[0]
    shares = tables.distribution["percent"].tolist()
    rows = tables.problems[["column", "value", "reason"]].values.tolist()
    return shares, rows, {c: features[c] for c in ("team_token_share", "sale_token_share")}


def test_shares_over_100_in_all_are_missing_with_a_row():
    shares, rows, features = _read({"Team": "90%", "Sale": "90%", "Res": "90%"})
    assert all(math.isnan(s) for s in shares)  # 9bc57721: 90, 90, 90
    assert rows == [["percent", "90%", "share_total"]] * 3
    assert all(math.isnan(v) for v in features.values())  # 9bc57721: 90 and 90


def test_a_share_refused_as_over_100_counts_in_the_total():
    shares, rows, _ = _read({"Team": "25", "Sale": "60", "Res": "115"})
    assert all(math.isnan(s) for s in shares)  # 9bc57721: 25 and 60 kept (tokens?)
    assert sorted(map(tuple, rows)) == [("percent", "115", "out_of_bounds"),
                                        ("percent", "25", "share_total"),
                                        ("percent", "60", "share_total")]


@pytest.mark.parametrize("distribution", [
    {"Crowdsale": "60%", "Team": "25%", "Reserve": "15%"},
    {"A": "33.4%", "B": "33.4%", "C": "33.4%"},  # 100.2: rounding
    {"A": "50.5%", "B": "50.5%"},  # 101: the tolerance
    {"Sale": "60%", "Team": "20%"},  # a partial list
])
def test_shares_of_one_whole_are_kept(distribution):
    shares, rows, _ = _read(distribution)
    assert shares == [float(v.rstrip("%")) for v in distribution.values()] and rows == []


def test_shares_over_100_in_another_ico_leave_this_ones_shares():
    good, bad = clean_profile(1), clean_profile(2)
    bad["finance"]["distribution"] = {"Team": "90%", "Sale": "90%"}
    tables = icoframes.tidy([good, bad])
    kept = tables.distribution.dropna(subset=["percent"])
    assert kept["ico_id"].tolist() == [1, 1, 1]
    assert tables.problems["ico_id"].tolist() == [2, 2]

"""What an accepting list counts, and a token named beside its code.

Each test below fails on main (19e9694b):

- ``n_accepted_currencies`` counted ``ALL`` and ``TOP`` (``"ETH, BTC, ALL"``: 3) while
  ``accepts_fiat`` read them as words, no currency (``vocabulary.ACCEPTING_WORDS``): one
  rule now for both columns, in any case.
"""

from __future__ import annotations

import pytest
from messy_profiles import clean_profile, with_

from icoframes.features import compute_features
from icoframes.parse.profiles import tidy


def _features(accepting: object):
    tables = tidy([with_(clean_profile(), {"finance.accepting": accepting})])
    return compute_features(tables).loc[0]


@pytest.mark.parametrize(("accepting", "count"), [
    ("ETH, BTC, ALL", 2), ("ALL", 0), (["BTC", "all"], 1), ("ETH; TOP", 1), ("TOP, LTC, top", 1),
    ("ETH, ALL, EUR", 2), ("ETH, BTC", 2), ("ETH, Ether, Fiat", 2)])
def test_all_and_top_are_no_currency_counted(accepting, count):
    row = _features(accepting)
    assert row["n_accepted_currencies"] == count
    assert bool(row["accepts_fiat"]) is (accepting in ("ETH, ALL, EUR", "ETH, Ether, Fiat"))

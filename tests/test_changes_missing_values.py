"""A value that became unknown (or known) between two snapshots is a change, never a crash.

The yes-flags are ``boolean`` columns: a missing one is ``pd.NA``, and comparing two
days' values through numpy's object arrays asked ``bool(pd.NA)``, a ``TypeError`` from
``changes()`` (on pandas 2.2 for its text columns too, whose missing values are ``pd.NA``).
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import icoframes


@pytest.mark.parametrize("dtype", ["boolean", "string", "Int64"])
def test_a_value_that_became_unknown_or_known_is_a_change(dtype):
    values = {"boolean": [True, pd.NA, pd.NA, False], "string": ["yes", pd.NA, pd.NA, "no"],
              "Int64": [1, pd.NA, pd.NA, 0]}[dtype]
    frame = pd.DataFrame({
        "snapshot_date": pd.to_datetime(["2026-11-01", "2026-11-01", "2026-11-02",
                                         "2026-11-02"], format="%Y-%m-%d"),
        "id": [1, 2, 1, 2], "status": ["past"] * 4,
        "airdrop_program": pd.array(values, dtype=dtype)})
    with warnings.catch_warnings():  # (a frame built by hand: no snapshot manifests to read)
        warnings.simplefilter("ignore", icoframes.IcoframesWarning)
        events = icoframes.changes(frame, kinds=["airdrop_program"])
    assert events[["ico_id", "kind"]].values.tolist() == [[1, "airdrop_program"],
                                                          [2, "airdrop_program"]]
    assert events["old"].isna().tolist() == [False, True]
    assert events["new"].isna().tolist() == [True, False]

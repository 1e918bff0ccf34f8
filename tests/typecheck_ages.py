"""What a type checker sees of the age arguments: checked by mypy in ``make lint``, never run.

Every form the docs give an age (text with a unit, a timedelta, a pandas Timedelta, a NumPy
timedelta64, seconds) type-checks in every age argument, and :data:`icoframes.Age` annotates
a user's own variable. A line ending in ``# type: ignore[...]`` must be an error (mypy's
``warn_unused_ignores``).
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd

import icoframes


def a_user_gives_ages(icos: pd.DataFrame, rates: pd.DataFrame) -> None:
    icoframes.load_icos(status="past", max_age="12h")
    icoframes.load_icos(profile_max_age={"past": "30D"})
    icoframes.load_icos(max_age=np.timedelta64(1, "D"), profile_max_age=pd.Timedelta("7D"))
    icoframes.load_list(max_age=dt.timedelta(hours=12))
    icoframes.load_tables(max_age=3600, profile_max_age={"ongoing": np.timedelta64(2, "h")})
    icoframes.load_filters(max_age=np.int64(60))
    icoframes.export_tables("out", max_age="12h", profile_max_age={"past": 86400.0})
    icoframes.prune_cache("30D")
    icoframes.prune_cache(np.timedelta64(30, "D"))
    icoframes.to_usd(icos, rates, rate_max_age=dt.timedelta(days=7))
    icoframes.to_usd(icos, rates, rate_max_age="7D")
    icoframes.compute_features(icoframes.load_tables(), rate_max_age=np.timedelta64(7, "D"))
    age: icoframes.Age = "12h"
    icoframes.load_icos(max_age=age, profile_max_age={"past": age})
    icoframes.prune_cache(None)  # type: ignore[arg-type]  # older_than has no "any age"
    icoframes.load_icos(max_age=[3600])  # type: ignore[arg-type]  # no age

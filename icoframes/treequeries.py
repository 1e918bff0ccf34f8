"""A snapshot tree's queries checked by its days' manifests alone, before any day is read."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .dayfolder import check_one_query, held_queries
from .held import hold
from .snapshots import DATE_DTYPE

__all__ = ["one_query"]


def one_query(folders: pd.Series) -> None:
    """Refuse snapshots of different queries by their manifests alone, warning nothing: the
    days read are checked again (one replaced meanwhile), and that check warns."""
    held = pd.DataFrame({"snapshot_date": np.empty(0, DATE_DTYPE)})
    held.attrs["icoframes"] = {"snapshots": [
        {"snapshot_date": date.date().isoformat(), "queries": queries, "queries_given": given}
        for date, folder in zip(pd.DatetimeIndex(folders.index), folders, strict=True)
        for queries, given in [held_queries(Path(folder))]]}
    with hold(restated=lambda one: True):  # (dropped: never told)
        check_one_query(held, folders.index)

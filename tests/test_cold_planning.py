"""What a cold load plans with costs no pandas work for nothing (issue 18, the crawl at 0 ms):
the profile index of an empty cache is made once and handed out as a copy with the dtypes
of a full one; a list page's rows are planned once, those seen before left out."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from icoframes.fetch.planner import ProfilePlan
from icoframes.fetch.policy import ProfileIndex
from icoframes.parse.lists import list_frame, summary_keys
from icoframes.sandbox import generate_directory
from icoframes.store.cache import Cache, ProfileRecord

URL = "http://127.0.0.1:9"


def test_the_index_of_an_empty_cache_is_a_copy_typed_as_a_full_one(tmp_path: Path):
    empty = Cache(tmp_path / "a", URL).profile_index()
    empty["mine"] = 1  # a caller's change never reaches the next empty cache's index
    full_cache = Cache(tmp_path / "b", URL)
    full_cache.record(ProfileRecord(7, "past", "s", "{}"))
    full = full_cache.profile_index()
    again = Cache(tmp_path / "c", URL).profile_index()
    assert "mine" not in again and again.empty
    assert again.dtypes.to_dict() == full.dtypes.to_dict()
    assert again.index.dtype == full.index.dtype and again.index.name == full.index.name
    view = ProfileIndex(again)
    assert [len(a) for a in (view.ids, view.status, view.summary, view.state)] == [0] * 4
    assert view.status.dtype == object


def _rows(n: int) -> pd.DataFrame:
    directory = generate_directory(n, seed=3)
    return list_frame([directory.summary(i) for i in directory.ids()], status="past")


def test_rows_seen_before_are_not_planned_again_and_a_new_page_is_planned_whole(tmp_path: Path):
    plan = ProfilePlan(Cache(tmp_path, URL), lambda: None,  # type: ignore[arg-type,return-value]
                       ages=None, refresh_all=False, budget=None, batch=8)
    rows = _rows(6)
    assert plan.add(rows.iloc[:4], repaged=True) == 4
    assert plan.add(rows.iloc[2:], repaged=True) == 2  # ids 3 and 4 of the page were planned
    assert plan.add(rows.iloc[1:5], repaged=True) == 0
    assert plan.planned == 6


def test_summary_keys_read_a_missing_name_as_null():
    rows = _rows(3)
    rows.loc[1, "name"] = None
    keys = summary_keys(rows)
    assert keys[1].startswith("[null,") and not keys[0].startswith("[null,")

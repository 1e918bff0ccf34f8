"""A daily export is daily: each day's run holds that day's lists (issue 19 part 1)."""

from __future__ import annotations

import datetime as dt
import json

import pandas as pd
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.cli import main


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=60, seed=42) as server:
        yield server


def test_a_plain_export_at_a_fixed_hour_holds_each_days_data(tmp_path, monkeypatch):
    """Cron at 03:15 UTC on 4 days, two new past ICOs a day: each day's folder holds that
    day's list, although yesterday's cached list is a few seconds short of --max-age."""
    days = [dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC) + dt.timedelta(days=i)
            for i in range(4)]
    listed, manifests = [], []
    with sandbox.serve(n_icos=60, seed=41) as sb:
        for name, value in {**sb.settings(), "cache_dir": str(tmp_path / "cache")}.items():
            if value is not None:
                monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", value)
        icoframes.reset_configuration()
        try:
            for i, when in enumerate(days):
                if i:
                    sb.add_ico("past")
                    sb.add_ico("past")
                sb.reset_quota()
                listed.append(sorted(sb.directory.ids("past")))
                out = tmp_path / "srv" / when.date().isoformat()
                # tick=True: the run takes its few seconds, as cron's does
                with time_machine.travel(when, tick=True):
                    assert main(["export", "--out", str(out), "--status", "past"]) == 0
                manifests.append(json.loads((out / "manifest.json").read_text()))
        finally:
            icoframes.reset_configuration()
    assert len(set(map(tuple, listed))) == 4  # the service changed every day
    held = [sorted(pd.read_parquet(tmp_path / "srv" / d.date().isoformat() / "icos.parquet")
                   ["id"].tolist()) for d in days]
    assert held == listed
    for when, ids, manifest in zip(days, listed, manifests, strict=True):
        [query] = manifest["queries"]
        assert query["from_cache"] is False
        assert dt.datetime.fromisoformat(query["fetched_at"]).date() == when.date()
        assert manifest["lists_fetched"]["oldest"] == query["fetched_at"]
        midnight = when.replace(hour=0, minute=0)
        assert dt.datetime.fromisoformat(manifest["lists_fresh_after"]) == midnight
        assert manifest["requests_spent"]["icos"] == -(-len(ids) // 20)
        assert manifest["complete"] is True


def test_a_second_plain_export_the_same_day_uses_the_cached_list(cfg, tmp_path):
    morning = dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC)
    with time_machine.travel(morning, tick=True):
        first = icoframes.export_tables(tmp_path / "a", status="past", progress=False)
    with time_machine.travel(morning + dt.timedelta(hours=5), tick=True):
        second = icoframes.export_tables(tmp_path / "b", status="past", progress=False)
    assert first.manifest["queries"][0]["from_cache"] is False
    assert second.manifest["queries"][0]["from_cache"] is True
    assert second.requests_total == 0
    # the result is typed; reading it as the 0.1 dict warns (test_export)
    assert isinstance(second, icoframes.ExportResult)
    assert second.path == tmp_path / "b" and second.complete is True
    assert second.requests_total == 0 and second.rows == second.manifest["rows"]
    assert second.exported_at.tzinfo is not None and second.missing == []
    assert second.as_dict()["path"] == str(tmp_path / "b")
    assert second.manifest == json.loads((tmp_path / "b" / "manifest.json").read_text())
    fetched = dt.datetime.fromisoformat(second.manifest["lists_fetched"]["newest"])
    assert morning <= fetched < morning + dt.timedelta(hours=1)  # the morning's list


def test_a_snapshot_without_max_age_pages_its_days_lists_again(cfg, tmp_path):
    """``max_age=None`` means "any age" for a plain export; a snapshot is the day's service
    whatever its ``max_age``: day 2 pages the list again, never exports day 1's."""
    morning = dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC)
    with time_machine.travel(morning, tick=True):
        icoframes.export_tables(tmp_path / "srv", status="past", snapshot=True, progress=False)
    listed = sorted(cfg.directory.ids("past"))
    cfg.add_ico("past")
    with time_machine.travel(morning + dt.timedelta(days=1), tick=True):
        day2 = icoframes.export_tables(tmp_path / "srv", status="past", snapshot=True,
                                       max_age=None, progress=False)
    [query] = day2.manifest["queries"]
    assert query["from_cache"] is False and day2.requests_spent["icos"] > 0
    assert dt.datetime.fromisoformat(query["fetched_at"]).date() == dt.date(2026, 11, 21)
    assert day2.rows["icos"] == len(listed) + 1

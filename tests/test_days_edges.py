"""The edges of a cron job's days: a day's manifest says when its rows were listed, a day's
rows already exported are not lost, a tree holds one query.

Real hostile server or sandbox over loopback; the clock moved with time-machine (ticking).
Request counts are the server's own.
"""

from __future__ import annotations

import datetime as dt
import json

import pandas as pd
import pytest
from hostile import LIST, PROFILE, HostileServer
from test_days import _as_cron, _run
from test_days_same_day import _Paged

import icoframes
from icoframes.cli import EXIT_INCOMPLETE, EXIT_OK

MORNING = dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC)
NOON = MORNING + dt.timedelta(hours=6)


def _day(out, when):
    return out / f"snapshot_date={when.date().isoformat()}"


def _ids(folder) -> list[int]:
    return sorted(pd.read_parquet(folder / "icos.parquet")["id"].tolist())


def _queries(folder) -> dict[str, dict]:
    manifest = json.loads((folder / "manifest.json").read_text())
    return {q["params"]["status"]: q for q in manifest["queries"]}


@pytest.mark.filterwarnings("default::icoframes.IcoframesWarning")
def test_a_list_whose_kept_rows_all_moved_is_dated_by_its_paging(
        tmp_path, monkeypatch, quick_retries):
    """03:15 lists ongoing 1..25 (2 pages). By 09:15, 5 and 22..25 moved to past, and page 2
    of the ongoing list (now 26..30) is down: the re-run kept 5 and 22..25 from the morning,
    then dropped them all as listed now under past (listed_now_wins): the ongoing query kept
    nothing, yet its fetched_at stayed 03:15, older than any of its rows. It is now the
    paging's time (09:15), in the manifest and its lists_fetched. A third run at 12:15 (page
    still down, the past list reused from 09:15's cache) exported 5 and 22..25 as ongoing,
    the kept morning rows beating the past list because that came from the cache: a kept
    row gives way to the same ICO listed later by another query, cached or not."""
    svc = _Paged()
    moved = [5, 22, 23, 24, 25]
    svc.ids = {"ongoing": list(range(1, 26)), "upcoming": [40], "past": list(range(101, 106))}
    out = tmp_path / "srv"
    with HostileServer({LIST: svc.page, PROFILE: svc.profile}) as server:
        _as_cron(server, tmp_path, monkeypatch)
        try:
            assert _run(MORNING, "--out", str(out), "--snapshot") == EXIT_OK
            svc.ids = {"ongoing": [i for i in range(1, 31) if i not in moved], "upcoming": [40],
                       "past": [*moved, *range(101, 106)]}
            svc.down = {("ongoing", 2)}
            assert _run(NOON, "--out", str(out), "--snapshot", "--refresh", "changed") \
                == EXIT_INCOMPLETE
            day = _day(out, NOON)
            noon = _queries(day)
            manifest = json.loads((day / "manifest.json").read_text())
            svc.pages.clear()
            assert _run(NOON + dt.timedelta(hours=3), "--out", str(out), "--snapshot") \
                == EXIT_INCOMPLETE
        finally:
            icoframes.reset_configuration()
    ongoing = noon["ongoing"]
    assert "kept" not in ongoing and ongoing["complete"] is False
    paged = dt.datetime.fromisoformat(ongoing["fetched_at"])
    assert paged.date() == NOON.date() and paged >= NOON  # 09:15, not 03:15
    assert manifest["lists_fetched"]["oldest"] >= NOON.isoformat()
    # the third run paged only the ongoing list (partial), the past one came from the cache
    assert set(svc.pages) == {("ongoing", 1), ("ongoing", 2)}
    icos = pd.read_parquet(_day(out, NOON) / "icos.parquet").set_index("id")
    assert icos.loc[moved, "status"].tolist() == ["past"] * 5
    assert sorted(icos.index) == [*range(1, 26), 40, *range(101, 106)]  # 26..30: page 2
    third = _queries(_day(out, NOON))["ongoing"]
    assert "kept" not in third

"""A re-run the daily limit stops before it plans a profile still says which rows are stale.

A snapshot's lists are paged again (one was partial earlier that day, or ``refresh=True``)
and the limit refuses the first page: the service's probe after its 485, or the ledger
itself when ``quota_reset`` says the allowance is not back yet (nothing is sent). Its rows
are the cached ones, each older than ``profile_max_age``: the snapshot rewritten by that
run names every one in ``not_refreshed`` (reason "quota", the row's own fetch time),
``stopped.remaining`` counts them and the message says so (REVC M2: it said none, with no
row fetched again). The sandbox over loopback; the day moved with time-machine.
"""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest
import time_machine
from test_days import INCOMPLETE, QUOTA, STALE

import icoframes
from icoframes import sandbox
from icoframes.manifest import stop_said

DAY = dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC)
N = 60  # 7 ongoing, 5 upcoming, 48 past (seed 1): 5 list pages, then 60 profiles


@pytest.fixture
def settings_restored():
    yield
    icoframes.reset_configuration()


def _stale(result) -> list[int]:
    return [row["id"] for row in result.not_refreshed]


@INCOMPLETE
@QUOTA
@STALE
@pytest.mark.parametrize(("reset", "extra", "refresh"), [
    (None, 3, (True, False)),  # run 1 pages again, 485 mid-list; run 2 pages the partial one
    ("08:00", 8, (False, True))])  # run 2 refresh=True, the 485 of run 1 known until 08:00
def test_a_rerun_stopped_before_planning_names_every_stale_row(
        tmp_path, settings_restored, reset, extra, refresh):
    out = tmp_path / "out"
    with sandbox.serve(n_icos=N, seed=1, quota=5 + N + extra) as sb, \
            time_machine.travel(DAY) as clock:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", quota_reset=reset)
        first = icoframes.export_tables(out, snapshot=True, progress=False)
        assert first.complete and first.requests_total == 5 + N == sb.stats.requests.total()
        day = out / f"snapshot_date={DAY.date().isoformat()}"
        fetched = pd.read_parquet(day / "icos.parquet").set_index("id")["fetched_at"]
        runs = []
        for again in refresh:
            clock.shift(dt.timedelta(minutes=10))  # every row older than profile_max_age=0
            before = sb.stats.requests.total()
            runs.append(icoframes.export_tables(out, snapshot=True, progress=False,
                                                profile_max_age=0, refresh=again))
            assert runs[-1].requests_total == sb.stats.requests.total() - before
    one, two = runs
    ids = sorted(fetched.index)
    refetched = sorted(set(fetched.index) - set(_stale(one)))  # run 1's 8 profiles, if any
    assert not one.complete and one.stopped["reason"] == "quota"
    # run 2: the probe after the 485 alone, or nothing (the reset is known)
    assert two.requests_total == (1 if reset is None else 0)
    assert not two.complete and two.missing == []
    assert two.stopped["by"] == "service" and two.stopped["remaining"] == N
    assert f"This call fetched 0 profiles; {N} remain to fetch" in two.stopped["message"]
    assert stop_said(two.stopped).startswith(  # the command's log line
        f"the daily request limit stopped the load, {N} listed ICO(s) remain to fetch: ")
    assert _stale(two) == ids  # every row, none fetched again by run 2
    assert {row["reason"] for row in two.not_refreshed} == {"quota"}
    icos = pd.read_parquet(day / "icos.parquet").set_index("id")["fetched_at"]
    kept = {row["id"]: row["fetched_at"] for row in two.not_refreshed}
    assert {i: pd.Timestamp(kept[i]) for i in kept} == icos.to_dict()  # each row's own age
    # as run 0 fetched them (by id: the two files need not list the ICOs in one order)
    assert icos.drop(refetched).sort_index().equals(fetched.drop(refetched).sort_index())
    info = icoframes.history.snapshot_info(out)
    assert info["not_refreshed"].tolist() == [ids]
    # run 1 names its stale rows too: all that it did not fetch again, kept rows of the
    # day's partial list among them (it said 32: those of the pages it got)
    assert _stale(one) == sorted(set(ids) - set(refetched))
    assert one.stopped["remaining"] == len(_stale(one))

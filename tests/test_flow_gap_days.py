"""An ICO a gap of several snapshots lacks is counted ``unseen`` once, on the day it goes.

``changes()`` gives one ``unseen`` event when a known ICO goes missing from an incomplete
snapshot, and none on the next incomplete days that still lack it (no snapshot of it is
no event). ``plot_status_flow`` counted it again between every two such days. A real
cron tree: a loopback service whose ongoing list fails on two days in a row, exported by
``icoframes export --snapshot`` under a moved clock.
"""

from __future__ import annotations

import datetime as dt

import matplotlib
import pandas as pd
import time_machine
from hostile import LIST, PROFILE, HostileServer
from test_days import INCOMPLETE, _as_cron, _ByStatus

import icoframes
from icoframes.cli import EXIT_INCOMPLETE, EXIT_OK, main
from icoframes.plotting import plot_status_flow

matplotlib.use("Agg")

DAYS = [dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC) + dt.timedelta(days=i) for i in range(4)]


def _moves(frame: pd.DataFrame) -> list[str]:
    ax = plot_status_flow(frame)
    try:
        return [t.get_text() for t in ax.texts if t.get_gid() == "icoframes-moves"]
    finally:
        matplotlib.pyplot.close(ax.figure)


@INCOMPLETE
def test_a_list_down_two_days_in_a_row_is_one_unseen_in_the_plot_as_in_changes(
        tmp_path, monkeypatch, quick_retries):
    service = _ByStatus()
    out = tmp_path / "srv"
    with HostileServer({LIST: service.page, PROFILE: service.profile}) as srv:
        _as_cron(srv, tmp_path, monkeypatch)
        try:
            for day, down in zip(DAYS, [set(), {"ongoing"}, {"ongoing"}, set()], strict=True):
                service.down = down
                with time_machine.travel(day, tick=False):
                    code = main(["export", "--out", str(out), "--snapshot"])
                assert code == (EXIT_INCOMPLETE if down else EXIT_OK)
        finally:
            icoframes.reset_configuration()
    events = icoframes.changes(out)
    assert [(r.snapshot_date.day, r.ico_id, r.kind) for r in events.itertuples()] == [
        (21, 1, "unseen"), (21, 2, "unseen")]  # once, and no event when they come back
    assert _moves(icoframes.read_snapshots(out)) == ["2 unseen", "no change", "no change"]


def test_snapshots_without_a_row_on_two_gap_days_count_the_ico_unseen_once():
    days = ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"]
    frame = pd.DataFrame({
        "snapshot_date": pd.to_datetime([days[0]] * 2 + [days[3]] * 2).as_unit("ms"),
        "id": [1, 2, 1, 2], "status": ["past"] * 4})
    gap = {"complete": False, "rows": 0, "missing": [1, 2], "partial_lists": []}
    frame.attrs["icoframes"] = {"snapshots": [
        {"snapshot_date": days[0], "complete": True, "rows": 2},
        {"snapshot_date": days[1], **gap}, {"snapshot_date": days[2], **gap},
        {"snapshot_date": days[3], "complete": True, "rows": 2}]}
    assert icoframes.changes(frame)["kind"].tolist() == ["unseen", "unseen"]
    assert _moves(frame) == ["2 unseen", "no change", "no change"]

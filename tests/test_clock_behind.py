"""A machine clock set back never files the service of now under an earlier snapshot day.

Real sandbox over loopback, the command configured as cron's; the clock moved with
time-machine (ticking). Request counts are the server's own.
"""

from __future__ import annotations

import datetime as dt
import json
import logging

import pytest
import test_days
import time_machine
from test_days import _run

import icoframes
from icoframes.cli import EXIT_OK, EXIT_USAGE

sb = test_days.sb  # a sandbox reached as cron's runs reach it

D = dt.datetime(2026, 5, 10, 0, 3, tzinfo=dt.UTC)


def _day(out, when):
    return out / f"snapshot_date={when.date().isoformat()}"


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _move_on(sb):
    """The service between two runs: two ICOs move ongoing -> past, one is added."""
    for ico_id in sb.directory.ids("ongoing")[:2]:
        sb.update_ico(ico_id, status="past")
    sb.add_ico("upcoming")


@pytest.mark.parametrize("back", [dt.timedelta(minutes=5), dt.timedelta(hours=12)],
                         ids=["ntp-step-across-midnight", "a-day-behind"])
def test_a_clock_set_back_is_refused_and_leaves_both_days_as_they_were(sb, tmp_path, caplog,
                                                                       back):
    """D-1 03:15 and D 00:03 are exported; then the clock reads D-1 23:58 (an NTP step back of
    5 minutes across midnight) or D-1 12:03 (a VM restored from an image): the run would file
    D's service under D-1, replacing D-1's snapshot with later rows under an earlier date.
    It is refused before any request (exit 2, the clock named), and D-1 and D are untouched;
    once the clock is right again, the next day's run is an export as ever."""
    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "srv"
    yesterday = D - dt.timedelta(days=1) + dt.timedelta(hours=3)
    assert _run(yesterday, "--out", str(out), "--snapshot") == EXIT_OK
    _move_on(sb)
    assert _run(D, "--out", str(out), "--snapshot") == EXIT_OK
    held = {day.name: _files(day) for day in out.iterdir()}
    assert sorted(held) == ["snapshot_date=2026-05-09", "snapshot_date=2026-05-10"]
    _move_on(sb)
    sb.stats.reset()
    caplog.clear()
    assert _run(D - back, "--out", str(out), "--snapshot") == EXIT_USAGE
    assert dict(sb.stats.requests) == {}  # refused before any request
    assert {day.name: _files(day) for day in out.iterdir()} == held  # no staging left either
    said = caplog.text
    assert "snapshot_date=2026-05-10 was written at 2026-05-10T00:03" in said
    assert "the clock is behind" in said and "Nothing was sent or written" in said
    with pytest.raises(icoframes.ClockBehind, match="the clock is behind"), \
            time_machine.travel(D - back, tick=True):
        icoframes.export_tables(out, snapshot=True, progress=False)
    assert {day.name: _files(day) for day in out.iterdir()} == held
    # the clock right again: the next day is exported, the earlier days as they were
    assert _run(D + dt.timedelta(days=1), "--out", str(out), "--snapshot") == EXIT_OK
    assert {day.name: _files(day) for day in out.iterdir() if day.name in held} == held
    changes = icoframes.changes(out)
    assert set(changes["kind"]) <= {"new", "status", "raised"}  # nothing moved backwards
    assert not ((changes["kind"] == "status") & (changes["new"] == "ongoing")).any()


def test_a_later_run_the_same_day_and_a_host_a_few_seconds_behind_still_export(sb, tmp_path):
    """What is no clock set back: a second run later the same day replaces the day, as ever;
    and a second host whose clock is 30 seconds behind the one that wrote the day (two cron
    hosts sharing a tree are never exactly in step) replaces it too."""
    out = tmp_path / "srv"
    assert _run(D, "--out", str(out), "--snapshot") == EXIT_OK
    manifest = _day(out, D) / "manifest.json"
    first = json.loads(manifest.read_text())["exported_at"]
    assert _run(D + dt.timedelta(hours=9), "--out", str(out), "--snapshot") == EXIT_OK
    second = json.loads(manifest.read_text())["exported_at"]
    assert second > first
    assert _run(D + dt.timedelta(hours=9, seconds=-30), "--out", str(out),
                "--snapshot") == EXIT_OK
    assert json.loads(manifest.read_text())["exported_at"] < second

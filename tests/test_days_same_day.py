"""Runs of one UTC day into one snapshot tree: nothing of the day lost, nothing paid twice.

Real sandbox (or a hostile server) over loopback; the clock moved with time-machine
(ticking). Request counts are the server's own (``stats.requests``: ``icos`` list pages,
``ico`` profiles).
"""

from __future__ import annotations

import datetime as dt
import json
import logging

import pandas as pd
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_OK, EXIT_USAGE, main
from icoframes.config import SETTINGS

MORNING = dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC)


@pytest.fixture
def sb(tmp_path, monkeypatch, quick_retries):
    """A sandbox the command reaches through ICOFRAMES_* variables, as cron's does."""
    with sandbox.serve(n_icos=50, seed=7) as server:
        _as_cron(server, tmp_path, monkeypatch)
        yield server
    icoframes.reset_configuration()


def _as_cron(server, tmp_path, monkeypatch) -> None:
    icoframes.reset_configuration()
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    for name, value in {**server.settings(), "cache_dir": str(tmp_path / "cache")}.items():
        if value is not None:
            monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", value)


def _run(when: dt.datetime, *argv: str) -> int:
    with time_machine.travel(when, tick=True):
        return main(["export", *argv])


def _day(out, when):
    return out / f"snapshot_date={when.date().isoformat()}"


def _ids(folder) -> list[int]:
    return sorted(pd.read_parquet(folder / "icos.parquet")["id"].tolist())


def test_a_snapshot_of_another_query_the_same_day_is_refused_before_any_request(
        sb, tmp_path, caplog):
    """03:15 snapshots the past ICOs into /srv; at 09:15 another cron line snapshots the
    ongoing ones into the same --out: the day's folder was replaced, the past ICOs' rows
    of that day lost. The layout holds one export per day (one folder, no query in the
    path or the rows: read_snapshots and changes take it as the day's whole service), so
    the second is refused before any request (exit 2), naming the query the folder holds
    and another --out; the folder is as it was. The same query again (spelled otherwise),
    and the other query on the next day or into another --out, are exports as ever."""
    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "srv"
    assert _run(MORNING, "--out", str(out), "--status", "past", "--snapshot") == EXIT_OK
    day = _day(out, MORNING)
    written = {p.name: p.read_bytes() for p in day.iterdir()}
    past = _ids(day)
    assert past == sorted(sb.directory.ids("past"))
    sb.stats.reset()
    caplog.clear()
    later = MORNING + dt.timedelta(hours=6)
    assert _run(later, "--out", str(out), "--status", "ongoing", "--snapshot") == EXIT_USAGE
    assert dict(sb.stats.requests) == {}  # refused before any request
    message = caplog.text
    assert "status=past" in message and "status=ongoing" in message
    assert str(day) in message and "--out" in message and "ongoing" in message
    assert {p.name: p.read_bytes() for p in day.iterdir()} == written
    assert sorted(p.name for p in out.iterdir()) == [day.name]  # no staging folder left
    with pytest.raises(icoframes.InvalidParameter, match="status=past"), \
            time_machine.travel(later, tick=True):
        icoframes.export_tables(out, status="ongoing", snapshot=True, progress=False)
    assert dict(sb.stats.requests) == {}
    # the same query (the status in another case) replaces the day's snapshot, as before
    assert _run(later, "--out", str(out), "--status", "PAST", "--snapshot") == EXIT_OK
    assert _ids(day) == past
    # the other query: into another --out the same day, or into this one the next day
    other = tmp_path / "srv-ongoing"
    assert _run(later, "--out", str(other), "--status", "ongoing", "--snapshot") == EXIT_OK
    tomorrow = MORNING + dt.timedelta(days=1)
    assert _run(tomorrow, "--out", str(out), "--status", "ongoing", "--snapshot") == EXIT_OK
    assert _ids(day) == past
    manifest = json.loads((_day(out, tomorrow) / "manifest.json").read_text())
    assert [q["params"]["status"] for q in manifest["queries"]] == ["ongoing"]

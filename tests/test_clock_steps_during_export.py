"""A clock stepped back while a snapshot export runs is caught before its swap.

The check before any request reads the clock once; an NTP step back that comes while the
run pages and fetches would still file the run under a day it wrote later. The check is
made again under the swap lock. A hostile server on 127.0.0.1 serves 20 past ICOs, and its
first profile request of the run steps the run's clock (time-machine's traveller) back.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply

import icoframes
from icoframes.cli import EXIT_OK, EXIT_USAGE, main
from icoframes.config import SETTINGS

IDS = list(range(1, 21))
D = dt.datetime(2026, 5, 10, 0, 3, tzinfo=dt.UTC)


class Service:
    """20 past ICOs; with ``step`` and a run's ``clock``, the first profile asked moves the
    clock by ``step`` (once)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.clock = None
        self.step = dt.timedelta(0)

    def page(self, h):
        items = [{"id": i, "main": {"name": f"ICO {i}", "ico_score": "3.0"},
                  "finance": {"raised": str(1000.0 * i)}} for i in IDS]
        json_reply({"total_icos": len(items), "current_page": 1, "total_pages": 1,
                    "error": None, "data": items})(h)

    def profile(self, h):
        ico_id = h.request_json().get("id")
        with self.lock:
            if self.clock is not None:
                self.clock, clock = None, self.clock
                clock.shift(self.step)
        json_reply({"error": None, "data": {
            "id": ico_id, "main": {"name": f"ICO {ico_id}", "ico_score": "3.0"},
            "finance": {"raised": str(1000.0 * ico_id)}}})(h)


@pytest.fixture
def service(tmp_path, monkeypatch, quick_retries):
    state = Service()
    with HostileServer({LIST: state.page, PROFILE: state.profile}) as srv:
        icoframes.reset_configuration()
        for setting in SETTINGS:
            monkeypatch.delenv(setting.env, raising=False)
        for name, value in {**srv.settings(), "cache_dir": str(tmp_path / "cache")}.items():
            monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", value)
        yield state
    icoframes.reset_configuration()


def _run(service, when, out, *extra):
    with time_machine.travel(when, tick=True) as clock:
        service.clock = clock
        try:
            return main(["export", "--out", str(out), "--snapshot", "--status", "past", *extra])
        finally:
            service.clock = None


def test_a_clock_stepped_back_during_the_run_is_refused_at_the_swap(service, tmp_path, caplog):
    """D 00:03 exports the day. A run begun at D 00:06 passes the first check (the day was
    exported before now); while it fetches, the clock steps back 6 minutes (to D 00:00), so
    the day it holds was exported after the clock's now: refused before the swap (exit 2,
    "Nothing was written": its requests were sent), the day as the 00:03 run wrote it."""
    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "srv"
    assert _run(service, D, out) == EXIT_OK
    day = out / "snapshot_date=2026-05-10"
    held = {p.name: p.read_bytes() for p in sorted(day.iterdir())}
    service.step = -dt.timedelta(minutes=6)
    caplog.clear()
    assert _run(service, D + dt.timedelta(minutes=3), out, "--refresh", "all") == EXIT_USAGE
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(said) == 1 and said[0].startswith(f"{day} was exported at 2026-05-10T00:03")
    assert "Nothing was written (what was fetched is cached)" in said[0]
    assert {p.name: p.read_bytes() for p in sorted(day.iterdir())} == held
    assert sorted(p.name for p in out.iterdir()) == [day.name]  # no staging folder left
    assert json.loads(held["manifest.json"])["exported_at"].startswith("2026-05-10T00:03")

"""A day's manifest dated long after that day ended (``exported_at`` 9999-12-31) is a damaged
or edited manifest, not a clock to wait for: the refusal says to move the folder out or set
its manifest right (it advised waiting 2,912,111 days). Real sandbox over loopback, the
command configured as cron's; the clock set with time-machine."""

from __future__ import annotations

import datetime as dt
import json
import logging

import test_days
from test_days import _run

from icoframes.cli import EXIT_OK, EXIT_USAGE

sb = test_days.sb  # a sandbox reached as cron's runs reach it

D = dt.datetime(2026, 5, 10, 9, 30, tzinfo=dt.UTC)


def _refusal(sb, tmp_path, caplog, exported_at: str) -> str:
    """The one error of a second run the same day, once the first run's manifest says it was
    exported at ``exported_at``."""
    out = tmp_path / "srv"
    assert _run(D, "--out", str(out), "--snapshot") == EXIT_OK
    manifest = out / f"snapshot_date={D.date()}" / "manifest.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()),
                                    "exported_at": exported_at}))
    caplog.set_level(logging.INFO, logger="icoframes")
    caplog.clear()
    assert _run(D + dt.timedelta(hours=1), "--out", str(out), "--snapshot") == EXIT_USAGE
    (said,) = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    return said


def test_a_stamp_no_clock_writes_names_the_manifest_and_the_fix(sb, tmp_path, caplog):
    said = _refusal(sb, tmp_path, caplog, "9999-12-31T23:59:59+00:00")
    assert said.startswith(f"{tmp_path / 'srv'}/snapshot_date=2026-05-10 says in its manifest "
                           "it was exported at 9999-12-31T23:59:59+00:00")
    assert "that manifest is damaged or was edited" in said
    assert "Move the folder out of the tree (or set its manifest's exported_at right)" in said
    assert "once its time has passed" not in said


def test_a_stamp_hours_ahead_is_still_a_clock_to_wait_for(sb, tmp_path, caplog):
    """Later the same day (another host's clock ahead): the wait is still what is said."""
    said = _refusal(sb, tmp_path, caplog, "2026-05-10T18:00:00+00:00")
    assert "once its time has passed, in 7 h 30 min" in said and "damaged" not in said

"""A complete export of a day is not replaced by a later run of that day that met the daily
limit before it could fetch anything newer: the same rows, only marked stale.

Real sandbox (a daily limit of its own) over loopback, the command configured as cron's;
the clock moved with time-machine (ticking). Request counts are the server's own.
"""

from __future__ import annotations

import datetime as dt
import json
import logging

import pytest
import time_machine
from test_days import QUOTA, STALE, _as_cron, _run, logged

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_INCOMPLETE, EXIT_OK

MORNING = dt.datetime(2026, 5, 10, 3, 15, tzinfo=dt.UTC)
KEPT = pytest.mark.filterwarnings("default:the day's complete export:icoframes.IcoframesWarning")
LIMIT = pytest.mark.filterwarnings("default:incomplete result:icoframes.IncompleteWarning")


MORNING_COST = 106  # 100 ICOs: 6 list pages and 100 profiles


@pytest.fixture
def sb(request, tmp_path, monkeypatch, quick_retries):
    """100 ICOs and a daily limit the morning's export uses up (its list pages and one request
    per profile) plus ``request.param`` (0 by default): a later run that day may fetch that
    many profiles, then it is refused."""
    extra = getattr(request, "param", 0)
    with sandbox.serve(n_icos=100, seed=3, quota=MORNING_COST + extra) as server:
        _as_cron(server, tmp_path, monkeypatch)
        yield server
    icoframes.reset_configuration()


@KEPT
@QUOTA
@STALE
@LIMIT
@pytest.mark.parametrize("snapshot", [True, False], ids=["snapshot", "plain"])
def test_a_late_run_at_the_limit_that_fetched_nothing_keeps_the_complete_day(
        sb, tmp_path, caplog, snapshot):
    """03:15 exports the day (complete); at 22:00 the ongoing ICOs' profiles have fallen due,
    the service's limit refuses the first of them, and the run has nothing newer than the
    day holds (the lists of the morning, no profile fetched): the complete export is kept,
    byte for byte, a warning says why, exit 0. The same late run after a service change it
    can see (a list paged anew: a new ICO) replaces the day, incomplete (exit 5), as ever."""
    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "srv"
    argv = ["--out", str(out), *(["--snapshot"] if snapshot else [])]
    assert _run(MORNING, *argv) == EXIT_OK
    assert sum(sb.stats.requests.values()) == MORNING_COST  # the day's whole allowance
    folder = out / f"snapshot_date={MORNING.date().isoformat()}" if snapshot else out
    held = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
    assert json.loads(held["manifest.json"])["complete"] is True
    caplog.clear()
    late = MORNING + dt.timedelta(hours=18, minutes=45)
    assert _run(late, *argv) == EXIT_OK
    assert {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()} == held
    said = logged(caplog, "IcoframesWarning")
    assert len(said) == 1 and said[0].startswith(f"the day's complete export in {folder}")
    assert "the daily limit stopped it" in said[0] and "Nothing was written" in said[0]
    with time_machine.travel(late + dt.timedelta(minutes=5), tick=True), \
            pytest.warns(icoframes.IcoframesWarning, match="complete export"):
        result = icoframes.export_tables(out, snapshot=snapshot, progress=False)
    assert result.kept and result.complete and result.manifest == json.loads(
        held["manifest.json"])


@QUOTA
@STALE
@LIMIT
@pytest.mark.parametrize("sb", [2], indirect=True)
def test_a_late_run_at_the_limit_that_fetched_newer_profiles_replaces_the_day(sb, tmp_path):
    """The same late run, allowed 2 profiles before the limit: those 2 are newer than the day
    holds (the service of 22:00), so the day is replaced, marked incomplete by the rows the
    limit left as the morning fetched them (exit 5), as ever."""
    out = tmp_path / "srv"
    assert _run(MORNING, "--out", str(out), "--snapshot") == EXIT_OK
    late = MORNING + dt.timedelta(hours=18, minutes=45)
    assert _run(late, "--out", str(out), "--snapshot") == EXIT_INCOMPLETE
    manifest = json.loads((out / f"snapshot_date={MORNING.date().isoformat()}"
                           / "manifest.json").read_text())
    assert manifest["complete"] is False and manifest["stopped"]["reason"] == "quota"
    assert manifest["profiles_fetched"]["newest"] >= late.isoformat()  # fetched at 22:00


@KEPT
@QUOTA
@STALE
@LIMIT
@pytest.mark.filterwarnings("default:incomplete result:icoframes.IncompleteWarning")
@pytest.mark.parametrize("sb", [2], indirect=True)
def test_a_late_run_that_saw_icos_deleted_replaces_the_day(sb, tmp_path, caplog):
    """Before the 22:00 run the service deletes its ongoing ICOs; the run has the morning's
    lists, asks the profiles that fell due: the 2 allowed answer 482 (gone), then the limit.
    It fetched no profile, but it learned that those ICOs are gone: the day is replaced
    (exit 5), the gone ones out of its rows and in ``missing``, no "kept" warning."""
    caplog.set_level(logging.INFO, logger="icoframes")
    out = tmp_path / "srv"
    assert _run(MORNING, "--out", str(out), "--snapshot") == EXIT_OK
    deleted = set(sb.directory.ids("ongoing"))
    for ico_id in deleted:
        sb.remove_ico(ico_id)
    caplog.clear()
    late = MORNING + dt.timedelta(hours=18, minutes=45)
    assert _run(late, "--out", str(out), "--snapshot") == EXIT_INCOMPLETE
    assert not logged(caplog, "IcoframesWarning")  # not kept
    folder = out / f"snapshot_date={MORNING.date().isoformat()}"
    manifest = json.loads((folder / "manifest.json").read_text())
    gone = {m["id"] for m in manifest["missing"] if m["state"] == "gone"}
    assert len(gone) == 2 and gone <= deleted and manifest["complete"] is False
    ids = set(icoframes.read_export(folder).icos["id"])
    assert not gone & ids and len(ids) == 98

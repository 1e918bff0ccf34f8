"""A signal that stops an export (Ctrl-C, SIGTERM, SIGHUP) never cuts its swap in two.

The command's handlers raise between any two bytecodes: between a snapshot swap's two
renames the day was left renamed aside and the clean-up removed it (the day gone, exit
143); between a plain swap's renames ``out`` was left without its manifest. The signals are
real ones, sent by the child process to itself at the instant named (the rename it just
made), as a ``kill`` from cron or systemd arriving during that system call would be.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox, snapshots, staging
from icoframes.cli import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
)
from icoframes.errors import IcoframesWarning

ROOT = Path(__file__).resolve().parents[1]

# the child: `icoframes export ARGS`, sending itself SIG once os.replace has moved a path
# to one matching the pattern AFTER (a rename of the swap), once
_CHILD = """
import fnmatch, os, signal, sys
signal.signal(signal.SIGHUP, signal.SIG_DFL)  # as from a terminal: not nohup's, maybe inherited
real, sig, after = os.replace, int(os.environ["SIG"]), [os.environ["AFTER"]]
def replace(src, dst, *args, **kwargs):
    real(src, dst, *args, **kwargs)
    if after and after[0] and fnmatch.fnmatch(str(dst), after[0]):
        after.clear()
        os.kill(os.getpid(), sig)
os.replace = replace
import functools  # retries as often as by default, 1-2 ms apart (conftest's quick_retries):
from icoframes.api import client  # a failed export is tested here, not the backoff
client.RetryPolicy = functools.partial(client.RetryPolicy, backoff=0.001, max_backoff=0.002)
from icoframes.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=3) as server:
        yield server


def _export(sb: sandbox.Sandbox, tmp_path: Path, *args: str, sig: int = 0, after: str = ""
            ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
    env.update({f"ICOFRAMES_{k.upper()}": v for k, v in sb.settings().items()},
               ICOFRAMES_CACHE_DIR=str(tmp_path / "cache"), SIG=str(sig), AFTER=after,
               PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", _CHILD, "export", "--status", "past", *args],
                          env=env, capture_output=True, text=True, timeout=HANG_GUARD)


@pytest.mark.parametrize(("sig", "code", "said"), [
    (signal.SIGTERM, EXIT_TERMINATED, "terminated (SIGTERM)"),
    (signal.SIGINT, EXIT_INTERRUPTED, "interrupted"),
    (signal.SIGHUP, EXIT_TERMINATED, "terminated (SIGHUP)")])
def test_a_signal_between_a_snapshot_swaps_renames_keeps_the_day(sb, tmp_path, sig, code, said):
    out = tmp_path / "tree"
    first = _export(sb, tmp_path, "--out", str(out), "--snapshot")
    assert first.returncode == EXIT_OK, first.stderr
    (day,) = out.iterdir()
    morning = json.loads((day / "manifest.json").read_text())
    # the day renamed aside into the staging folder (previous-snapshot_date=...): the signal
    again = _export(sb, tmp_path, "--out", str(out), "--snapshot", "--refresh", "changed",
                    sig=sig, after=f"{out}/{staging.STAGING_PREFIX}*/previous-{day.name}")
    assert again.returncode == code, again.stderr
    assert said in again.stderr
    # held back until the swap was whole: the new day in place, nothing else left in out
    assert [p.name for p in out.iterdir()] == [day.name]
    now = json.loads((day / "manifest.json").read_text())
    assert now["exported_at"] > morning["exported_at"]
    assert now["rows"]["icos"] == morning["rows"]["icos"] == len(icoframes.read_export(day).icos)


def test_a_sigterm_between_a_plain_swaps_renames_leaves_the_manifest(sb, tmp_path):
    out = tmp_path / "plain"
    assert _export(sb, tmp_path, "--out", str(out)).returncode == EXIT_OK
    before = json.loads((out / "manifest.json").read_text())
    again = _export(sb, tmp_path, "--out", str(out), "--refresh", "changed",
                    sig=signal.SIGTERM, after=f"{out}/accepting.parquet")  # the 1st table in
    assert again.returncode == EXIT_TERMINATED, again.stderr
    assert "terminated (SIGTERM)" in again.stderr
    now = json.loads((out / "manifest.json").read_text())
    assert now["exported_at"] > before["exported_at"]
    assert len(icoframes.read_export(out).icos) == now["rows"]["icos"] == before["rows"]["icos"]
    assert not list(out.glob(staging.STAGING_PREFIX + "*"))


def test_a_swap_cut_after_its_first_rename_is_put_back_by_its_own_clean_up(
        sb, tmp_path, monkeypatch):
    """Whatever cuts a swap between its renames (an exception no signal deferral holds
    back), the export's clean-up puts its day back before removing its staging folder."""
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
    try:
        out = tmp_path / "tree"
        day = icoframes.export_tables(out, status="past", snapshot=True, progress=False).path
        written = (day / "manifest.json").read_bytes()
        real = os.replace

        def replace(src, dst, *args, **kwargs):
            real(src, dst, *args, **kwargs)
            if Path(dst).name == f"previous-{day.name}":
                raise MemoryError("cut between the renames")

        monkeypatch.setattr(staging.os, "replace", replace)
        with pytest.raises(MemoryError, match="cut between the renames"):
            icoframes.export_tables(out, status="past", snapshot=True, progress=False,
                                    refresh=True)
    finally:
        icoframes.reset_configuration()
    assert [p.name for p in out.iterdir()] == [day.name]
    assert (day / "manifest.json").read_bytes() == written


def test_readers_read_a_day_a_killed_export_left_set_aside(sb, tmp_path):
    """SIGKILL (nothing can hold it back) between a snapshot swap's two renames leaves the
    day in the killed export's staging folder until the next export puts it back; the
    readers left that day out without a word. They read it from there, and say so."""
    out = tmp_path / "tree"
    assert _export(sb, tmp_path, "--out", str(out), "--snapshot").returncode == EXIT_OK
    (day,) = out.iterdir()
    shutil.copytree(day, out / "snapshot_date=2026-01-02")  # an earlier day of the tree
    rows = json.loads((day / "manifest.json").read_text())["rows"]["icos"]
    killed = _export(sb, tmp_path, "--out", str(out), "--snapshot", "--refresh", "changed",
                     sig=signal.SIGKILL,
                     after=f"{out}/{staging.STAGING_PREFIX}*/previous-{day.name}")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert not day.exists()
    with pytest.warns(IcoframesWarning, match="an export killed while it swapped that day in"):
        frame = icoframes.read_snapshots(out)
    dates = [d.date().isoformat() for d in sorted(frame["snapshot_date"].unique())]
    assert dates == ["2026-01-02", day.name.removeprefix("snapshot_date=")]
    assert len(frame) == 2 * rows and frame["id"].dtype == "int64"
    with pytest.warns(IcoframesWarning, match=f"{day} is not there"):
        info = snapshots.snapshot_info(out)
    assert info["complete"].tolist() == [True, True]


# --- an export killed outright (SIGUSR1's default action, SIGKILL): the next export recovers --
# A library holds back Ctrl-C, SIGTERM and SIGHUP only; any other signal whose default is to
# terminate (SIGUSR1, SIGALRM, ...) ends the process at once, as SIGKILL does: no clean-up
# runs, its staging folder stays. The next export must put back what it set aside, finish
# or leave honestly what it cut, and remove that folder, never report success wrongly.


# SIGKILL between a snapshot swap's renames: tests/test_days.py; the plain one here
@pytest.mark.parametrize("sig", [signal.SIGUSR1])
def test_a_snapshot_export_killed_mid_swap_is_recovered_by_the_next_export(sb, tmp_path, sig):
    out = tmp_path / "tree"
    assert _export(sb, tmp_path, "--out", str(out), "--snapshot").returncode == EXIT_OK
    (day,) = out.iterdir()
    morning = (day / "manifest.json").read_bytes()
    killed = _export(sb, tmp_path, "--out", str(out), "--snapshot", "--refresh", "changed",
                     sig=sig, after=f"{out}/{staging.STAGING_PREFIX}*/previous-{day.name}")
    assert killed.returncode == -sig, killed.stderr
    (left,) = out.glob(staging.STAGING_PREFIX + "*")  # nothing of the export ran after it
    assert not day.exists() and (left / f"previous-{day.name}" / "manifest.json").is_file()
    sb.set_faults(1.0)  # the next export writes nothing: the day must be back all the same
    try:
        failed = _export(sb, tmp_path, "--out", str(out), "--snapshot", "--refresh", "changed")
    finally:
        sb.set_faults(0.0)
    assert failed.returncode == EXIT_ERROR, failed.stderr
    assert [p.name for p in out.iterdir()] == [day.name]  # put back; the staging removed
    assert (day / "manifest.json").read_bytes() == morning
    again = _export(sb, tmp_path, "--out", str(out), "--snapshot", "--refresh", "changed")
    assert again.returncode == EXIT_OK, again.stderr
    assert [p.name for p in out.iterdir()] == [day.name]
    now = json.loads((day / "manifest.json").read_text())
    assert now["exported_at"] > json.loads(morning)["exported_at"] and now["complete"] is True
    assert len(icoframes.read_export(day).icos) == now["rows"]["icos"]


# tests/test_export.py kills a plain swap by an exception: its clean-up ran, no folder was left
@pytest.mark.parametrize("sig", [signal.SIGKILL])
def test_a_plain_export_killed_mid_swap_is_never_read_whole_until_an_export_ends(
        sb, tmp_path, sig):
    out = tmp_path / "plain"
    assert _export(sb, tmp_path, "--out", str(out)).returncode == EXIT_OK
    before = json.loads((out / "manifest.json").read_text())
    killed = _export(sb, tmp_path, "--out", str(out), "--refresh", "changed",
                     sig=sig, after=f"{out}/accepting.parquet")  # the 1st table in
    assert killed.returncode == -sig, killed.stderr
    assert not (out / "manifest.json").exists()  # removed first: out says "incomplete"
    assert len(list(out.glob(staging.STAGING_PREFIX + "*"))) == 1
    with pytest.raises(FileNotFoundError, match="one was killed while swapping its tables in"):
        icoframes.read_export(out)
    sb.set_faults(1.0)
    try:
        failed = _export(sb, tmp_path, "--out", str(out), "--refresh", "changed")
    finally:
        sb.set_faults(0.0)
    # its only list failed: nothing is written (exit 1), out still has no manifest
    assert failed.returncode == EXIT_ERROR, failed.stderr
    assert "no list of this export could be paged" in failed.stderr
    assert not (out / "manifest.json").exists()
    again = _export(sb, tmp_path, "--out", str(out), "--refresh", "changed")
    assert again.returncode == EXIT_OK, again.stderr
    now = json.loads((out / "manifest.json").read_text())
    assert now["exported_at"] > before["exported_at"] and now["complete"] is True
    assert len(icoframes.read_export(out).icos) == now["rows"]["icos"] == before["rows"]["icos"]
    assert not list(out.glob(staging.STAGING_PREFIX + "*"))

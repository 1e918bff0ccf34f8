"""A full disk under ``--out`` is said in one line (exit 1), and nothing of the earlier export
is lost.

Real sandbox over loopback, the command configured as cron's; the clock moved with
time-machine. The full disk is injected at the write of the export's files (no small
filesystem can be mounted in a test): the write of the first file under ``--out`` writes a
few bytes, then fails with ENOSPC as the disk would; the cache's files are written as ever.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import logging
from pathlib import Path

import pytest
import test_days
import time_machine
from test_days import _run

import icoframes
from icoframes import files, staging
from icoframes.cli import EXIT_ERROR, EXIT_OK

sb = test_days.sb  # a sandbox reached as cron's runs reach it

MORNING = dt.datetime(2026, 5, 10, 3, 15, tzinfo=dt.UTC)


def _full_under(out: Path, monkeypatch) -> None:
    real = files._temporary

    @contextlib.contextmanager
    def temporary(path):
        with real(path) as fh:
            if out in Path(path).parents:
                fh.write(b"PAR1")
                raise OSError(errno.ENOSPC, "No space left on device")
            yield fh

    monkeypatch.setattr(files, "_temporary", temporary)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("snapshot", [True, False], ids=["snapshot", "plain"])
def test_a_full_disk_under_out_is_one_line_and_keeps_the_earlier_export(
        sb, tmp_path, caplog, monkeypatch, snapshot):
    """The morning's export is written; a second run that day finds the disk full while it
    writes its files: exit 1 with one ERROR line naming the folder and what to do (no
    traceback), the morning's export as it was, no staging folder left. Once there is room,
    the next run writes the day from the cache (no request)."""
    out = tmp_path / "srv"
    argv = ["--out", str(out), *(["--snapshot"] if snapshot else [])]
    assert _run(MORNING, *argv) == EXIT_OK
    before = _files(out)
    caplog.set_level(logging.INFO, logger="icoframes")
    caplog.clear()
    with monkeypatch.context() as patch:
        _full_under(out, patch)
        assert _run(MORNING + dt.timedelta(hours=6), *argv) == EXIT_ERROR
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is None  # one line, no traceback
    said = errors[0].getMessage()
    assert said.startswith(f"the disk holding {out} is full (No space left on device)")
    assert "Nothing was written" in said and "Free some space and export again" in said
    assert "Traceback" not in caplog.text
    assert _files(out) == before  # the earlier export whole, no staging folder left
    assert sorted(p.name for p in out.iterdir()) == sorted(
        {name.split("/")[0] for name in before})
    with pytest.raises(icoframes.DiskFull, match="is full"), monkeypatch.context() as patch:
        _full_under(out, patch)
        with time_machine.travel(MORNING + dt.timedelta(hours=7), tick=True):
            icoframes.export_tables(out, snapshot=snapshot, progress=False)
    assert _files(out) == before
    sb.stats.reset()
    assert _run(MORNING + dt.timedelta(hours=8), *argv) == EXIT_OK
    assert sb.stats.requests.get("ico", 0) == 0 and sb.stats.requests.get("icos", 0) == 0


def _errors(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize("snapshot", [True, False], ids=["snapshot", "plain"])
def test_a_disk_full_when_the_staging_folder_is_made_is_disk_full_too(
        sb, tmp_path, caplog, monkeypatch, snapshot):
    """The disk is full before the export writes a file: making its staging folder under
    ``--out`` fails with ENOSPC (a full ext4 or tmpfs fails mkdir so). That is the same full
    disk: DiskFull, exit 1, one line saying to free space; not exit 2 and advice to choose
    another --out, as for a folder the user cannot write."""
    out = tmp_path / "srv"
    argv = ["--out", str(out), *(["--snapshot"] if snapshot else [])]
    assert _run(MORNING, *argv) == EXIT_OK
    before = _files(out)
    real = staging.tempfile.mkdtemp

    def mkdtemp(*args, **kwargs):
        if Path(kwargs.get("dir") or "") == out:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)

    caplog.set_level(logging.INFO, logger="icoframes")
    caplog.clear()
    with monkeypatch.context() as patch:
        patch.setattr(staging.tempfile, "mkdtemp", mkdtemp)
        assert _run(MORNING + dt.timedelta(hours=6), *argv) == EXIT_ERROR
    (error,) = _errors(caplog)
    assert error.exc_info is None
    said = error.getMessage()
    assert said.startswith(f"the disk holding {out} is full (No space left on device)")
    assert "Free some space and export again" in said and "choose" not in said
    assert _files(out) == before


def test_a_disk_full_at_the_swap_is_one_line_and_the_day_is_put_back(
        sb, tmp_path, caplog, monkeypatch):
    """The day's folder cannot be renamed aside at the swap (ENOSPC: the folder's entry
    needs a block the disk has not): DiskFull, exit 1, one line and no traceback; the day is
    whole, and the next run swaps it in."""
    out = tmp_path / "srv"
    argv = ["--out", str(out), "--snapshot"]
    assert _run(MORNING, *argv) == EXIT_OK
    before = _files(out)
    day = out / f"snapshot_date={MORNING.date().isoformat()}"
    real = staging.os.replace

    def replace(src, dst, *args, **kwargs):
        if Path(src) == day:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(src, dst, *args, **kwargs)

    caplog.set_level(logging.INFO, logger="icoframes")
    caplog.clear()
    with monkeypatch.context() as patch:
        patch.setattr(staging.os, "replace", replace)
        assert _run(MORNING + dt.timedelta(hours=6), *argv) == EXIT_ERROR
    (error,) = _errors(caplog)
    assert error.exc_info is None and "Traceback" not in caplog.text
    assert error.getMessage().startswith(f"the disk holding {out} is full")
    assert _files(out) == before
    assert _run(MORNING + dt.timedelta(hours=7), *argv) == EXIT_OK
    assert _files(out) != before

"""A plain export re-run the same day over an ``--out`` whose manifest is damaged or written
by hand: a manifest names the day it was exported, or names none; it never sinks the run.

Real hostile server over loopback; the clock moved with time-machine (ticking), as in
tests/test_days_edges.py: 03:15 a complete export, then the cache is cleared and a daily
quota of 3 lets the 12:15 re-run page its lists but fetch no profile, so the morning's rows
are kept only when the manifest in ``--out`` says they are of that day.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from hostile import LIST, PROFILE, HostileServer
from test_days import INCOMPLETE, QUOTA, STALE, _as_cron, _run, logged
from test_days_edges import MORNING, NOON, _ids
from test_days_same_day import _Paged
from waiting import HANG_GUARD

import icoframes
from icoframes.cli import EXIT_INCOMPLETE, EXIT_OK, EXIT_USAGE
from icoframes.dayfolder import _oldest, utc_time
from icoframes.exported import read_manifest
from icoframes.snapshots import snapshot_info

# the noon re-run says the quota stops it and what it lacks; a time in the future is said too
FUTURE = pytest.mark.filterwarnings(
    r"default:.*manifest\.json says it was exported at .*, after this day"
    ":icoframes.IcoframesWarning")


def _rerun(tmp_path, monkeypatch, damage, *, child: bool = False
           ) -> tuple[int, bool, dict | None, list]:
    """The morning export, ``damage(manifest_path)``, the noon re-run (cache cleared, no
    profile allowed; in a child process bounded by HANG_GUARD when ``child``, where a
    regression would hang): its exit code, whether the morning's rows were kept, its
    manifest (None when ``--out`` holds no regular one), the ids ``--out`` holds after it."""
    svc = _Paged()
    svc.ids = {"ongoing": [1, 2], "upcoming": [3], "past": list(range(101, 111))}
    out = tmp_path / "plain"
    with HostileServer({LIST: svc.page, PROFILE: svc.profile}) as server:
        _as_cron(server, tmp_path, monkeypatch)
        try:
            assert _run(MORNING, "--out", str(out)) == EXIT_OK
            every = _ids(out)
            damage(out / "manifest.json")
            shutil.rmtree(tmp_path / "cache")
            monkeypatch.setenv("ICOFRAMES_DAILY_QUOTA", "3")  # the 3 list pages, no profile
            icoframes.reset_configuration()
            code = (_in_child(tmp_path, NOON, "--out", str(out)) if child
                    else _run(NOON, "--out", str(out)))
        finally:
            icoframes.reset_configuration()
    manifest = out / "manifest.json"
    return (code, _ids(out) == every, json.loads(manifest.read_text())
            if manifest.is_file() and not manifest.is_symlink() else None, _ids(out))


def _in_child(tmp_path, when, *argv: str) -> int:
    """``icoframes export *argv`` in a child process at ``when`` (ticking), bounded by
    HANG_GUARD: its exit code; it printed no traceback. (A script file, as cron's
    console script is one.)"""
    script = ("import sys, datetime as dt, time_machine\n"
              f"time_machine.travel(dt.datetime.fromisoformat({when.isoformat()!r}), "
              "tick=True).start()\n"
              "from icoframes.cli import main\n"
              f"sys.exit(main(['export', *{list(argv)!r}]))\n")
    (tmp_path / "rerun.py").write_text(script)
    done = subprocess.run([sys.executable, str(tmp_path / "rerun.py")], capture_output=True,
                          text=True, timeout=HANG_GUARD)  # a hang guard, not a measure
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode


def _exported_at(written: str):
    def damage(path):
        manifest = json.loads(path.read_text())
        manifest["exported_at"] = written
        path.write_text(json.dumps(manifest))
    return damage


@QUOTA
@INCOMPLETE
@pytest.mark.parametrize("written", [b"", b"{", b"[1]", b"5", b'"x"', b"null", b"truncated",
                                     b'{"exported_at": "2026-11-20T03:15:00", "q\xe9": 1}',
                                     b"[" * 200_000],
                         ids=["empty", "brace", "list", "number", "string", "null", "truncated",
                              "not-utf8", "nested-too-deep"])
def test_a_damaged_manifest_names_no_day_and_never_sinks_the_rerun(
        tmp_path, monkeypatch, quick_retries, caplog, capsys, written):
    """A manifest that is not JSON, not UTF-8 or not a JSON object made the same-day re-run
    die with a traceback (JSONDecodeError, AttributeError), exit 1 and nothing written. Now
    it names no day: the re-run writes what it has (partial, exit 5), a manifest again.
    JSON nested deeper than the parser recurses was a RecursionError traceback."""
    def damage(path):
        path.write_bytes(path.read_bytes()[:40] if written == b"truncated" else written)

    code, kept, manifest, _ = _rerun(tmp_path, monkeypatch, damage)
    assert "Traceback" not in caplog.text + capsys.readouterr().err
    assert code == EXIT_INCOMPLETE, caplog.text
    assert not kept and manifest["complete"] is False


def _fifo(path):
    path.unlink()
    os.mkfifo(path)


def _to_dev_zero(path):
    path.unlink()
    path.symlink_to("/dev/zero")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("damage", [_fifo, _to_dev_zero], ids=["fifo", "symlink-to-dev-zero"])
def test_a_manifest_that_never_ends_is_damaged_and_the_rerun_finishes(tmp_path, monkeypatch,
                                                                      damage):
    """A FIFO named manifest.json (no writer), or a symlink to /dev/zero, hung the same-day
    re-run forever (Path.read_bytes blocked on the FIFO's open, or read zeros without end)
    after the load had spent the day's quota. Now it is a damaged manifest like any other:
    the re-run writes what it has (partial, exit 5) and a manifest again. The re-run is a
    child bounded by HANG_GUARD, so a regression fails instead of hanging."""
    code, kept, manifest, _ = _rerun(tmp_path, monkeypatch, damage, child=True)
    assert code == EXIT_INCOMPLETE
    assert not kept and manifest is not None and manifest["complete"] is False


def test_a_folder_named_manifest_json_refuses_the_export_before_anything(tmp_path,
                                                                         monkeypatch, caplog):
    """A folder named manifest.json crashed every plain export (IsADirectoryError) after its
    Parquet files were swapped in: a half-written export, and each later run the same. Now
    the export is refused before any request (exit 2), naming the path; nothing written."""
    code, kept, manifest, _ = _rerun(tmp_path, monkeypatch, lambda m: (m.unlink(), m.mkdir()))
    assert code == EXIT_USAGE
    assert kept and manifest is None  # the morning's tables as they were, the folder too
    assert f"{tmp_path / 'plain' / 'manifest.json'} is a folder" in caplog.text
    assert "Nothing was sent or written" in caplog.text
    assert (tmp_path / "plain" / "manifest.json").is_dir()


_CHILD_READS = """
import json, sys
from icoframes.exported import read_manifest
said = {}
for folder in sys.argv[1:]:
    try:
        said[folder] = repr(read_manifest(folder))
    except ValueError as e:
        said[folder] = str(e)
print(json.dumps(said))
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_read_manifest_opens_only_a_regular_file(tmp_path):
    """read_manifest of a FIFO blocked forever, of a symlink to /dev/zero read forever; a
    folder was an IsADirectoryError. Each is damaged now, and so is any symlink (never
    followed): read in a child bounded by HANG_GUARD."""
    kinds = {"fifo": lambda m: os.mkfifo(m), "zero": lambda m: m.symlink_to("/dev/zero"),
             "folder": lambda m: m.mkdir(), "dangling": lambda m: m.symlink_to(tmp_path / "no"),
             "link": lambda m: m.symlink_to(tmp_path / "real.json")}
    (tmp_path / "real.json").write_text("{}")
    for kind, make in kinds.items():
        (tmp_path / kind).mkdir()
        make(tmp_path / kind / "manifest.json")
    done = subprocess.run([sys.executable, "-c", _CHILD_READS,
                           *(str(tmp_path / k) for k in kinds)],
                          capture_output=True, text=True, timeout=HANG_GUARD, check=True)
    said = json.loads(done.stdout)
    assert [said[str(tmp_path / k)] for k in kinds] == [
        f"{tmp_path / k / 'manifest.json'} is damaged ({why})" for k, why in [
            ("fifo", "a FIFO, not a regular file"), ("zero", "a symbolic link: never followed"),
            ("folder", "a folder, not a regular file"),
            ("dangling", "a symbolic link: never followed"),
            ("link", "a symbolic link: never followed")]]


_NO_FILES = {"link": ("a symbolic link", lambda m: m.symlink_to(m.parent.parent / "real.json")),
             "dangling": ("a symbolic link", lambda m: m.symlink_to(m.parent / "no.json")),
             "folder": ("a folder", lambda m: m.mkdir()),
             "fifo": ("a FIFO", lambda m: os.mkfifo(m))}


@pytest.mark.parametrize("kind", list(_NO_FILES))
def test_a_manifest_that_is_no_file_is_damage_for_a_snapshot_export_too(tmp_path, kind):
    """The readers call a manifest.json that is a symbolic link (or no regular file) damaged;
    check_layout(snapshot) took a link to a file for a plain export ("holds a plain export")
    and let a snapshot be written beside a dangling link, a folder or a FIFO. Each is now
    refused as damage, named; a plain export's swap replaces each but a folder, as before."""
    if kind == "fifo" and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    from icoframes.dayfolder import check_layout
    from icoframes.errors import InvalidParameter

    what, make = _NO_FILES[kind]
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "real.json").write_text("{}")
    make(out / "manifest.json")
    with pytest.raises(ValueError, match=r"manifest\.json is damaged"):
        read_manifest(out)
    with pytest.raises(InvalidParameter) as caught:
        check_layout(out, snapshot=True)
    assert str(caught.value).startswith(
        f"{out / 'manifest.json'} is {what}, not an export's manifest: {out} is damaged")
    assert "Nothing was sent or written" in str(caught.value)
    if kind != "folder":
        check_layout(out, snapshot=False)  # replaced by the swap, as a manifest not JSON is


def test_a_manifest_over_the_cap_is_damaged(tmp_path):
    from icoframes.files import read_record

    (tmp_path / "manifest.json").write_bytes(b"{}" + b" " * 9)
    assert read_record(tmp_path / "manifest.json", cap=11) == b"{}" + b" " * 9
    with pytest.raises(ValueError, match=r"manifest\.json is damaged \(over 10 bytes\)"):
        read_record(tmp_path / "manifest.json", cap=10)


@pytest.mark.parametrize("written", [b"", b"{", b"[1]", b"5", b"\xff\xfe\x00", b"[" * 200_000,
                                     b'{"a":' * 200_000])
def test_read_manifest_says_a_damaged_manifest_is_damaged(tmp_path, written):
    (tmp_path / "manifest.json").write_bytes(written)
    with pytest.raises(ValueError, match=r"manifest\.json is damaged"):
        read_manifest(tmp_path)


@QUOTA
@INCOMPLETE
@FUTURE
@pytest.mark.parametrize("written", ["2026-11-21T01:00:00", "9999-12-31T00:00:00+00:00",
                                     "2026-11-20T23:00:00-05:00"])
def test_an_export_time_in_the_future_names_no_day(tmp_path, monkeypatch, quick_retries, caplog,
                                                   written):
    """An exported_at of the next UTC day (a clock set wrong, a hand edit; 23:00-05:00 is
    04:00 UTC the next day) or of year 9999 made another day's rows stand in for this day's
    (kept). It is no day's now, and the log says the time is in the future."""
    code, kept, _, _ = _rerun(tmp_path, monkeypatch, _exported_at(written))
    assert code == EXIT_INCOMPLETE
    assert not kept
    assert "in the future" in caplog.text


@QUOTA
@INCOMPLETE
def test_the_rows_kept_are_of_the_manifest_read_with_them(tmp_path, monkeypatch, quick_retries):
    """The re-run read --out's manifest twice to judge it of this day and query, then the
    export a third time to keep its rows: an export of another day swapped in between (here
    at the moment the rows are read) had its rows kept as this day's. The day is now judged
    on the manifest read with the rows, once."""
    from icoframes import dayfolder

    real = dayfolder.read_export

    def yesterdays_swapped_in(path):
        _exported_at("2026-11-19T03:15:00+00:00")(path / "manifest.json")
        return real(path)

    monkeypatch.setattr(dayfolder, "read_export", yesterdays_swapped_in)
    code, kept, manifest, _ = _rerun(tmp_path, monkeypatch, lambda path: None)
    assert code == EXIT_INCOMPLETE
    assert not kept and manifest["complete"] is False


@QUOTA
@INCOMPLETE
@STALE
@pytest.mark.parametrize(("written", "same_day"), [("2026-11-19T22:00:00-05:00", True),
                                                   ("2026-11-20T01:00:00+05:00", False),
                                                   ("2026-11-20T03:15:00", True)])
def test_an_export_time_with_an_offset_is_read_in_utc(tmp_path, monkeypatch, quick_retries,
                                                      written, same_day):
    code, kept, _, _ = _rerun(tmp_path, monkeypatch, _exported_at(written))
    assert code == EXIT_INCOMPLETE
    assert kept is same_day


def test_a_time_written_with_an_offset_is_copied_in_utc():
    """utc_time kept a hand-written offset, and a kept list's fetched_at (the oldest of two
    times) was copied into the new manifest with it: every time a manifest writes is UTC."""
    assert utc_time("2026-11-20T01:00:00-05:00").isoformat() == "2026-11-20T06:00:00+00:00"
    assert _oldest("2026-11-20T01:00:00-05:00", "2026-11-20T09:15:00+00:00") \
        == "2026-11-20T06:00:00+00:00"
    # no UTC time: read as none, never an OverflowError
    assert utc_time("0001-01-01T00:00:00+01:00") is None
    assert utc_time("9999-12-31T23:59:59-01:00") is None


@QUOTA
@INCOMPLETE
@pytest.mark.parametrize("written", [b"", b"[1]", b"\xff"])
def test_a_snapshot_rerun_over_a_damaged_days_manifest_writes_the_day(tmp_path, monkeypatch,
                                                                      quick_retries, caplog,
                                                                      capsys, written):
    """Every reader of a manifest on the export's way (the tree's query, the day's rows to
    keep) takes a damaged one as saying nothing: the re-run replaces the day's folder; the
    readers a user calls (snapshot_info, read_export) say which file is damaged."""
    svc = _Paged()
    svc.ids = {"ongoing": [1, 2], "upcoming": [3], "past": list(range(101, 111))}
    out = tmp_path / "tree"
    day = out / f"snapshot_date={MORNING.date().isoformat()}"
    with HostileServer({LIST: svc.page, PROFILE: svc.profile}) as server:
        _as_cron(server, tmp_path, monkeypatch)
        try:
            assert _run(MORNING, "--out", str(out), "--snapshot") == EXIT_OK
            (day / "manifest.json").write_bytes(written)
            for reader in (snapshot_info, lambda _: icoframes.read_export(day)):
                with pytest.raises(ValueError, match=r"manifest\.json is damaged"):
                    reader(out)
            shutil.rmtree(tmp_path / "cache")
            monkeypatch.setenv("ICOFRAMES_DAILY_QUOTA", "3")
            icoframes.reset_configuration()
            code = _run(NOON, "--out", str(out), "--snapshot")
        finally:
            icoframes.reset_configuration()
    assert "Traceback" not in caplog.text + capsys.readouterr().err
    assert code == EXIT_INCOMPLETE, caplog.text
    assert read_manifest(day)["complete"] is False  # the day's folder holds this run's export


@INCOMPLETE
@QUOTA
@STALE
@pytest.mark.parametrize("written", ["2026-11-20T03:15:00", "2026-11-20 03:15:00.123456",
                                     "not a time", None])
def test_a_plain_exports_manifest_without_a_time_zone_is_read_as_utc(
        tmp_path, monkeypatch, quick_retries, caplog, written):
    """A manifest written by hand, or by an older version, says exported_at without a time
    zone: the same-day re-run compared it with the aware start of the UTC day and died of a
    TypeError (a traceback in the cron log, exit 1, nothing written). It is read as UTC: the
    morning's rows are kept; a time it cannot read (or none) names no day, so keeps nothing."""
    code, kept_all, _, left = _rerun(tmp_path, monkeypatch, _exported_at(written))
    assert code == EXIT_INCOMPLETE
    assert "Traceback" not in caplog.text
    kept = bool(written and written[0].isdigit())
    assert kept_all is kept and (kept or left == [])
    assert len(logged(caplog, "QuotaWarning")) == 1
    assert [m[:len("13 row(s) this export lacked are kept")] for m in logged(
        caplog, "StaleWarning")] == ["13 row(s) this export lacked are kept"] * kept
    assert [m.split("; first: ")[0] for m in logged(caplog, "IncompleteWarning")] == [
        "incomplete result: 13 listed ICO(s) have no row: 13 not_fetched"] * (not kept)

"""A plain export re-run the same day over an ``--out`` whose manifest is damaged or written
by hand: a manifest names the day it was exported, or names none; it never sinks the run.

Real hostile server over loopback; the clock moved with time-machine (ticking), as in
tests/test_days_edges.py: 03:15 a complete export, then the cache is cleared and a daily
quota of 3 lets the 12:15 re-run page its lists but fetch no profile, so the morning's rows
are kept only when the manifest in ``--out`` says they are of that day.
"""

from __future__ import annotations

import json
import shutil

import pytest
from hostile import LIST, PROFILE, HostileServer
from test_days import INCOMPLETE, QUOTA, STALE, _as_cron, _run, logged
from test_days_edges import MORNING, NOON, _ids
from test_days_same_day import _Paged

import icoframes
from icoframes.cli import EXIT_INCOMPLETE, EXIT_OK
from icoframes.dayfolder import _oldest, utc_time
from icoframes.exported import read_manifest, snapshot_info

# the noon re-run says the quota stops it and what it lacks; a time in the future is said too
FUTURE = pytest.mark.filterwarnings(
    r"default:.*manifest\.json says it was exported at .*, after this day"
    ":icoframes.IcoframesWarning")


def _rerun(tmp_path, monkeypatch, damage) -> tuple[int, bool, dict, list]:
    """The morning export, ``damage(manifest_path)``, the noon re-run (cache cleared, no
    profile allowed): its exit code, whether the morning's rows were kept, its manifest,
    the ids ``--out`` holds after it."""
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
            code = _run(NOON, "--out", str(out))
        finally:
            icoframes.reset_configuration()
    return (code, _ids(out) == every, json.loads((out / "manifest.json").read_text()),
            _ids(out))


def _exported_at(written: str):
    def damage(path):
        manifest = json.loads(path.read_text())
        manifest["exported_at"] = written
        path.write_text(json.dumps(manifest))
    return damage


@QUOTA
@INCOMPLETE
@pytest.mark.parametrize("written", [b"", b"{", b"[1]", b"5", b'"x"', b"null", b"truncated",
                                     b'{"exported_at": "2026-11-20T03:15:00", "q\xe9": 1}'],
                         ids=["empty", "brace", "list", "number", "string", "null", "truncated",
                              "not-utf8"])
def test_a_damaged_manifest_names_no_day_and_never_sinks_the_rerun(
        tmp_path, monkeypatch, quick_retries, caplog, capsys, written):
    """A manifest that is not JSON, not UTF-8 or not a JSON object made the same-day re-run
    die with a traceback (JSONDecodeError, AttributeError), exit 1 and nothing written. Now
    it names no day: the re-run writes what it has (partial, exit 5), a manifest again."""
    def damage(path):
        path.write_bytes(path.read_bytes()[:40] if written == b"truncated" else written)

    code, kept, manifest, _ = _rerun(tmp_path, monkeypatch, damage)
    assert "Traceback" not in caplog.text + capsys.readouterr().err
    assert code == EXIT_INCOMPLETE, caplog.text
    assert not kept and manifest["complete"] is False


@pytest.mark.parametrize("written", [b"", b"{", b"[1]", b"5", b"\xff\xfe\x00"])
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

"""An export that lists ICOs but fetches none of their profiles (``--budget 0`` with nothing
cached) is an incomplete export, written with the listed ICOs in ``missing`` (exit 5), as
the same day cut by the daily limit is: it exited 4 saying "no ICO matched the query"
though the query had listed them, and wrote nothing, so that day's listing was lost.

A real sandbox of 30 ICOs over HTTP, the command run in-process at a simulated noon
(time-machine), a fresh cache each time.
"""

from __future__ import annotations

import datetime as dt
import json
import warnings

import pytest
import time_machine
from test_export import _nothing_matches

import icoframes
from icoframes import sandbox
from icoframes.cli import EXIT_INCOMPLETE, main
from icoframes.config import SETTINGS
from icoframes.errors import EmptyResult, IcoframesWarning
from icoframes.history import read_snapshots

NOON = dt.datetime(2026, 11, 1, 12, tzinfo=dt.UTC)


@pytest.fixture
def served(tmp_path, monkeypatch):
    with sandbox.serve(n_icos=30, seed=3, quota=None) as sb:
        icoframes.reset_configuration()
        for setting in SETTINGS:
            monkeypatch.delenv(setting.env, raising=False)
        for name, value in {**sb.settings(), "cache_dir": str(tmp_path / "cache")}.items():
            monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", str(value))
        yield sb
    icoframes.reset_configuration()


@pytest.mark.parametrize("snapshot", [True, False], ids=["snapshot", "plain"])
def test_a_budget_of_0_with_nothing_cached_writes_the_listed_icos_as_missing(
        served, tmp_path, caplog, snapshot):
    out = tmp_path / "out"
    with time_machine.travel(NOON), warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # incomplete: the exit code says it
        code = main(["export", "--out", str(out), "--budget", "0", "--max-workers", "1",
                     *(["--snapshot"] if snapshot else [])])
    assert code == EXIT_INCOMPLETE
    assert "no ICO matched" not in caplog.text
    folder = out / "snapshot_date=2026-11-01" if snapshot else out
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["complete"] is False and manifest["rows"]["icos"] == 0
    listed = served.directory.ids()
    assert len(listed) == 30
    assert sorted(m["id"] for m in manifest["missing"]) == sorted(listed)
    assert {m["status"] for m in manifest["missing"]} <= {"upcoming", "ongoing", "past"}
    if snapshot:  # the day is a snapshot of the tree, its listed ICOs said in attrs
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IcoframesWarning)
            frame = read_snapshots(out)
        (info,) = frame.attrs["icoframes"]["snapshots"]
        assert info["complete"] is False and sorted(info["missing"]) == sorted(listed)


def test_the_api_returns_it_incomplete_and_a_query_of_no_ico_still_raises(served, tmp_path):
    with time_machine.travel(NOON), warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)
        result = icoframes.export_tables(tmp_path / "a", budget=0, progress=False)
        assert result.complete is False and result.rows["icos"] == 0
        assert len(result.missing) == 30
        with pytest.raises(EmptyResult, match="no ICO matched the query"):
            icoframes.export_tables(tmp_path / "b", budget=0, progress=False,
                                    **_nothing_matches(served.directory))
    assert not (tmp_path / "b").exists()

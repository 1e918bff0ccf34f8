"""snapshot_info says why a snapshot is incomplete when nothing is missing (rows kept by a
budget or a daily-limit stop), and read_snapshots names a day that lacks the table."""

from __future__ import annotations

import datetime as dt
import math
import os
import warnings

import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.history import read_snapshots, snapshot_info
from icoframes.schema import TEXT_DTYPE


def _export(out, when: int, **kwargs):
    with time_machine.travel(dt.datetime(2026, 11, when, 12, tzinfo=dt.UTC)), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", icoframes.IcoframesWarning)  # incomplete: said here
        return icoframes.export_tables(kwargs.pop("out", out), status="past", snapshot=True,
                                       progress=False, **kwargs)


def test_snapshot_info_gives_the_kept_rows_and_the_stop(tmp_path):
    """Day 2 re-fetches every profile under a budget (rows kept, nothing missing), day 3
    under a daily limit (the load stopped: 'quota'): each is complete=False, and says why."""
    out = tmp_path / "out"
    with sandbox.serve(n_icos=15, seed=7) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
        try:
            first = _export(out, 1)
            budgeted = _export(out, 2, refresh="all", budget=3)
            icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", daily_quota=4)
            limited = _export(out, 3, refresh="all")
        finally:
            icoframes.reset_configuration()
    assert (first.complete, budgeted.complete, limited.complete) == (True, False, False)
    assert budgeted.missing == [] == limited.missing and budgeted.stopped is None
    assert limited.stopped["reason"] == "quota"
    info = snapshot_info(out)
    assert info["complete"].tolist() == [True, False, False]
    assert info["missing"].tolist() == [[], [], []]
    kept = [sorted(r["id"] for r in done.not_refreshed) for done in (budgeted, limited)]
    assert all(kept) and info["not_refreshed"].tolist() == [[], *kept]
    # text at the schema's text dtype, as every frame's: NaN for missing, not pd.NA
    assert info["stopped"].isna().tolist() == [True, True, False]
    assert info["stopped"].iloc[2] == "quota" and math.isnan(info["stopped"].iloc[0])
    assert {info[c].dtype for c in ("path", "stopped", "exported_at")} == {TEXT_DTYPE}
    assert info["not_refreshed"].dtype == object
    # read_snapshots carries the same in attrs, as changes reads it
    infos = read_snapshots(out).attrs["icoframes"]["snapshots"]
    assert [(i["not_refreshed"], i["stopped"]) for i in infos] == [
        ([], None), (kept[0], None), (kept[1], "quota")]


def test_read_snapshots_names_the_day_lacking_the_table(tmp_path):
    out = tmp_path / "out"
    with sandbox.serve(n_icos=15, seed=7) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
        try:
            for when in (1, 2):
                _export(out, when)
        finally:
            icoframes.reset_configuration()
    folder = out / "snapshot_date=2026-11-01"
    os.remove(folder / "accepting.parquet")
    with pytest.raises(FileNotFoundError) as raised:
        read_snapshots(out, table="accepting")
    assert str(raised.value) == (
        f"{folder} is not an export of icoframes: missing accepting.parquet (the snapshot "
        "of 2026-11-01 has no accepting table to stack)")
    assert read_snapshots(out)["snapshot_date"].nunique() == 2  # the other tables read

"""Exports and snapshots written before the icos column ``fetched_status`` existed read
it as missing, and an export of a day such a snapshot holds keeps that day's rows."""
from __future__ import annotations

import datetime as dt
import warnings

import numpy as np
import pyarrow.parquet as pq
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.errors import IcoframesWarning, StaleWarning


@pytest.fixture
def sb():  # one per test: the second moves the ongoing sales to past
    with sandbox.serve(n_icos=60, seed=4) as server:
        yield server


def _at(hour: int, day: int = 1) -> time_machine.travel:
    return time_machine.travel(dt.datetime(2026, 11, day, hour, 15, tzinfo=dt.UTC), tick=False)


def _drop_column(path):
    """The file as icoframes wrote it before ``fetched_status``: the other columns alone."""
    table = pq.read_table(path)
    pq.write_table(table.drop(["fetched_status"]), path)


def _usd(icos):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IcoframesWarning)  # prices in no currency, no dates
        return icoframes.to_usd(icos, sandbox.rates(), columns=["token_price"])


def test_an_export_and_a_snapshot_written_before_fetched_status_read(sb, tmp_path):
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
    try:
        with _at(3):
            icoframes.export_tables(tmp_path / "plain", progress=False)
            icoframes.export_tables(tmp_path / "tree", snapshot=True, progress=False)
        with _at(3, day=2):
            icoframes.export_tables(tmp_path / "tree", snapshot=True, progress=False)
    finally:
        icoframes.reset_configuration()
    written = icoframes.read_export(tmp_path / "plain").icos
    assert (written["fetched_status"] == written["status"]).all()  # all fetched that day
    _drop_column(tmp_path / "plain" / "icos.parquet")
    _drop_column(tmp_path / "tree" / "snapshot_date=2026-11-01" / "icos.parquet")
    old = icoframes.read_export(tmp_path / "plain")
    assert old.icos["fetched_status"].isna().all() and len(old.icos) == 60
    assert old.icos["fetched_status"].dtype == written["fetched_status"].dtype
    snaps = icoframes.read_snapshots(tmp_path / "tree")
    day1 = snaps[snaps["snapshot_date"].dt.day == 1]
    assert day1["fetched_status"].isna().all() and snaps["fetched_status"].notna().sum() == 60
    icoframes.changes(snaps)  # the two days compare, the old one without the column
    # without it a price is read by its status, here the one it was fetched under
    np.testing.assert_array_equal(_usd(old.icos)["token_price_usd"].to_numpy(),
                                  _usd(written)["token_price_usd"].to_numpy())


def test_a_day_snapshotted_before_fetched_status_is_exported_again_keeping_its_rows(
        sb, tmp_path):
    """The day's snapshot was written before the column; later that day the sales running
    at its fetch are listed past, and an export with another cache and budget 0 keeps
    their rows: each keeps the status it was fetched under and its USD price."""
    out = tmp_path / "out"
    day = out / "snapshot_date=2026-11-01"
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache1")
    try:
        with _at(3):
            icoframes.export_tables(out, snapshot=True, progress=False)
    finally:
        icoframes.reset_configuration()
    _drop_column(day / "icos.parquet")
    before = icoframes.read_export(day).icos.set_index("id", drop=False)
    ongoing = sb.directory.ids("ongoing")
    assert len(ongoing) >= 3
    for ico_id in ongoing:
        sb.update_ico(ico_id, status="past")
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache2")
    try:
        with _at(5), pytest.warns(StaleWarning, match="kept from the day's snapshot"):
            icoframes.export_tables(out, snapshot=True, budget=0, progress=False)
    finally:
        icoframes.reset_configuration()
    after = icoframes.read_export(day).icos.set_index("id", drop=False)
    assert sorted(after["id"]) == sorted(before["id"])
    moved = after.loc[ongoing]
    assert (moved["status"] == "past").all() and (moved["fetched_status"] == "ongoing").all()
    # the same fetch: the same USD price as the day's snapshot gave it
    first = _usd(before.loc[ongoing].reset_index(drop=True))
    kept = _usd(moved.reset_index(drop=True))
    np.testing.assert_array_equal(kept["token_price_usd"].to_numpy(),
                                  first["token_price_usd"].to_numpy())
    assert first["token_price_usd"].notna().sum() >= 1

"""`icoframes export`: Parquet tables + manifest, hive snapshots, exit codes, read-back."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import shutil

import duckdb
import pandas as pd
import polars as pl
import pytest
import time_machine

import icoframes
from icoframes import sandbox
from icoframes.cli import main
from icoframes.config import SETTINGS
from icoframes.schema import TABLE_NAMES, TABLES


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=160, seed=21) as server:
        yield server


def test_export_writes_every_table_and_a_manifest(cfg, tmp_path):
    out = tmp_path / "out"
    assert main(["export", "--out", str(out), "--status", "past"]) == 0
    # every table, plus problems.parquet: the values that could not be read
    assert sorted(p.stem for p in out.glob("*.parquet")) == sorted([*TABLE_NAMES, "problems"])
    manifest = json.loads((out / "manifest.json").read_text())
    tables = icoframes.load_tables(status="past", progress=False)
    assert manifest["rows"] == {name: len(frame) for name, frame in tables}
    past = len(cfg.directory.ids("past"))
    assert manifest["requests_spent"] == {"filters": 0, "icos": -(-past // 20), "ico": past}
    assert manifest["arguments"]["status"] == "past"
    assert manifest["package_version"] == icoframes.__version__
    dt.datetime.fromisoformat(manifest["fetched_at"])
    for name, frame in tables:
        back = pd.read_parquet(out / f"{name}.parquet")
        assert list(back.columns) == TABLES[name].names
        assert len(back) == len(frame)


def test_types_survive_in_duckdb_and_polars(cfg, tmp_path):
    out = tmp_path / "out"
    assert main(["export", "--out", str(out), "--status", "past"]) == 0
    icos = icoframes.load_icos(status="past", progress=False)
    con = duckdb.connect()
    types = dict(con.execute(
        f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '{out}/icos.parquet')"
    ).fetchall())
    assert types["id"] == "BIGINT"
    assert types["ico_score"] == "DOUBLE" and types["raised"] == "DOUBLE"
    assert types["start_datetime"].startswith("TIMESTAMP")
    assert types["kyc"] == "BOOLEAN" and types["markets"] == "VARCHAR[]"
    assert types["name"] == "VARCHAR"
    total = con.execute(f"SELECT sum(raised) FROM '{out}/icos.parquet'").fetchone()[0]
    assert total == pytest.approx(icos["raised"].sum())
    frame = pl.read_parquet(out / "icos.parquet")
    assert frame.schema["id"] == pl.Int64 and frame.schema["tokens_for_sale"] == pl.Float64
    assert frame.schema["end_datetime"] == pl.Datetime("ms")
    assert frame.schema["accepting"] == pl.List(pl.String)
    assert frame.schema["escrow"] == pl.Boolean
    assert sorted(frame["id"].to_list()) == sorted(icos["id"].tolist())
    team = pl.read_parquet(out / "team.parquet")
    assert team.schema["ico_id"] == pl.Int64 and team.schema["position"] == pl.Int64


def test_snapshots_are_hive_partitions_replaced_on_the_same_day(cfg, tmp_path):
    out = tmp_path / "snap"
    assert main(["export", "--out", str(out), "--status", "ongoing", "--snapshot"]) == 0
    today = dt.datetime.now(dt.UTC).date().isoformat()
    day = out / f"snapshot_date={today}"
    assert (day / "icos.parquet").is_file() and (day / "manifest.json").is_file()
    first_manifest = json.loads((day / "manifest.json").read_text())
    # an older snapshot beside it, as a previous day's run would have left
    shutil.copytree(day, out / "snapshot_date=2026-01-01")
    assert main(["export", "--out", str(out), "--status", "ongoing", "--snapshot"]) == 0
    second_manifest = json.loads((day / "manifest.json").read_text())
    assert second_manifest["fetched_at"] >= first_manifest["fetched_at"]
    assert second_manifest["requests_spent"]["ico"] == 0  # from the cache
    assert sorted(p.name for p in out.iterdir()) == [
        "snapshot_date=2026-01-01", f"snapshot_date={today}"]
    # work folders live beside the dataset, never where a reader globs; old leftovers go
    work = tmp_path / ".snap.icoframes-work"
    stale = work / "killed-run"
    (stale / "x").mkdir(parents=True)
    os.utime(stale, (0, 0))
    assert main(["export", "--out", str(out), "--status", "ongoing", "--snapshot"]) == 0
    assert not stale.exists() and list(work.iterdir()) == []
    n = len(cfg.directory.ids("ongoing"))
    rows = duckdb.sql(
        f"SELECT snapshot_date, count(*) FROM read_parquet('{out}/*/icos.parquet', "
        "hive_partitioning=true) GROUP BY 1 ORDER BY 1").fetchall()
    assert [(str(d), c) for d, c in rows] == [("2026-01-01", n), (today, n)]
    lazy = pl.scan_parquet(f"{out}/*/icos.parquet", hive_partitioning=True).collect()
    assert lazy.height == 2 * n and "snapshot_date" in lazy.columns


def _use(monkeypatch, tmp_path, server=None, **settings: str) -> None:
    """Settings through ``ICOFRAMES_*`` variables only, as a cron job gives them."""
    icoframes.reset_configuration()
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    if server is not None:
        settings = {**server.settings(), "cache_dir": str(tmp_path / "c"), **settings}
    for name, value in settings.items():
        monkeypatch.setenv(f"ICOFRAMES_{name.upper()}", value)


def _cli(args, capsys, caplog) -> tuple[int, str, str]:
    """Run the command in-process: exit code, stdout, and stderr with the log."""
    caplog.clear()
    caplog.set_level(logging.INFO, logger="icoframes")
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err + caplog.text


def test_bad_arguments_exit_2_before_any_request(cfg, tmp_path, capsys, caplog):
    out = str(tmp_path / "out")
    code, _, err = _cli(["export", "--out", out, "--status", "finished"], capsys, caplog)
    assert code == 2 and "argument --status: invalid choice: 'finished'" in err
    code, _, err = _cli(["export", "--out", out, "--ico-score", "11"], capsys, caplog)
    assert code == 2 and "ico_score must be an integer from 1 to 10" in err
    code, _, err = _cli(["export", "--out", out, "--platform", "Etherium Classic Plus"],
                        capsys, caplog)
    assert code == 2 and "unknown platform name 'Etherium Classic Plus'" in err
    assert cfg.stats.requests.total() == 1  # the filter set, to check the name; no list page
    assert not (tmp_path / "out").exists()
    # a status in any case is the status
    code, _, err = _cli(["export", "--out", out, "--status", "Past"], capsys, caplog)
    assert code == 0, err
    assert len(pd.read_parquet(tmp_path / "out" / "icos.parquet")) == len(
        cfg.directory.ids("past"))


def test_missing_or_rejected_keys_and_an_unusable_cache_exit_2(sb, tmp_path, monkeypatch,
                                                                capsys, caplog):
    out = str(tmp_path / "out")
    _use(monkeypatch, tmp_path, cache_dir=str(tmp_path))
    code, _, err = _cli(["export", "--out", out], capsys, caplog)
    assert code == 2 and "ICOFRAMES_PUBLIC_KEY" in err and "icoframes sandbox" in err
    _use(monkeypatch, tmp_path, sb, private_key="nope")
    code, _, err = _cli(["export", "--out", out], capsys, caplog)
    assert code == 2 and "480" in err and "nope" not in err
    (tmp_path / "file").write_text("")
    _use(monkeypatch, tmp_path, sb, cache_dir=str(tmp_path / "file" / "c"))
    code, _, err = _cli(["export", "--out", out], capsys, caplog)
    assert code == 2 and "not writable" in err
    assert not (tmp_path / "out").exists()


def test_quota_exits_3_and_the_next_run_resumes(tmp_path, monkeypatch, capsys, caplog):
    from icoframes.sandbox.directory import generate_directory

    past = generate_directory(160, seed=22).ids("past")
    quota = -(-len(past) // 20) + 2 * len(past) // 3  # enough for two thirds of the profiles
    out = str(tmp_path / "out")
    day_one = dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC)
    with sandbox.serve(n_icos=160, seed=22, quota=quota) as small:
        _use(monkeypatch, tmp_path, small)
        with time_machine.travel(day_one):
            code, stdout, err = _cli(["export", "--out", out, "--status", "past"], capsys,
                                     caplog)
            assert code == 3, err
            assert "daily request limit (error 485)" in err and "remain" in err
            assert small.private_key not in err + stdout
            assert "%|" not in err  # no progress bars when not interactive
            assert not (tmp_path / "out" / "icos.parquet").exists()
            # the same day again: the ledger remembers the 485 and sends nothing
            sent = small.stats.requests.total()
            code, _, err = _cli(["export", "--out", out, "--status", "past"], capsys, caplog)
            assert code == 3 and "daily_quota" in err
            assert small.stats.requests.total() == sent
        with time_machine.travel(day_one + dt.timedelta(days=1)):  # the cron run next day
            small.reset_quota()
            code, _, err = _cli(["export", "--out", out, "--status", "past", "--max-age",
                                 str(3 * 86400)], capsys, caplog)
        assert code == 0, err
        assert f"wrote {out}" in err
        assert all(small.stats.profile_hits[i] == 1 for i in past)
        assert len(pd.read_parquet(tmp_path / "out" / "icos.parquet")) == len(past)


def test_an_unreachable_service_exits_1(tmp_path, monkeypatch, capsys, caplog):
    _use(monkeypatch, tmp_path, base_url="http://127.0.0.1:9", public_key="p",
         private_key="s3cret", cache_dir=str(tmp_path / "c"), timeout="1")
    code, stdout, err = _cli(["export", "--out", str(tmp_path / "out")], capsys, caplog)
    assert code == 1
    assert "attempts failed in a row" in err and "connection refused" in err
    assert "127.0.0.1:9" in err
    assert "s3cret" not in err + stdout

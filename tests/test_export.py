"""`icoframes export`: Parquet tables + manifest, hive snapshots, exit codes, read-back."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys

import duckdb
import pandas as pd
import polars as pl
import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import main
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


def _run(args, env_extra, **kwargs):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-m", "icoframes", *args], env=env,
                          capture_output=True, text=True, timeout=120, **kwargs)


def _env(server, cache_dir):
    return {"ICOFRAMES_BASE_URL": server.base_url, "ICOFRAMES_PUBLIC_KEY": server.public_key,
            "ICOFRAMES_PRIVATE_KEY": server.private_key, "ICOFRAMES_CACHE_DIR": str(cache_dir)}


def test_exit_codes(tmp_path):
    from icoframes.sandbox.directory import generate_directory

    past = generate_directory(160, seed=22).ids("past")
    quota = -(-len(past) // 20) + 2 * len(past) // 3  # enough for two thirds of the profiles
    with sandbox.serve(n_icos=160, seed=22, quota=quota) as small:
        env = _env(small, tmp_path / "c")
        out = str(tmp_path / "out")
        bad_choice = _run(["export", "--out", out, "--status", "finished"], env)
        assert bad_choice.returncode == 2
        bad_value = _run(["export", "--out", out, "--ico-score", "11"], env)
        assert bad_value.returncode == 2 and "ico_score" in bad_value.stderr
        assert small.stats.requests.total() == 0
        no_keys = _run(["export", "--out", out], {"ICOFRAMES_CACHE_DIR": str(tmp_path)})
        assert no_keys.returncode == 2 and "ICOFRAMES_PUBLIC_KEY" in no_keys.stderr
        wrong_key = _run(["export", "--out", out], {**env, "ICOFRAMES_PRIVATE_KEY": "nope"})
        assert wrong_key.returncode == 2 and "480" in wrong_key.stderr
        (tmp_path / "file").write_text("")
        unwritable = _run(["export", "--out", out],
                          {**env, "ICOFRAMES_CACHE_DIR": str(tmp_path / "file" / "c")})
        assert unwritable.returncode == 2 and "not writable" in unwritable.stderr
        limited = _run(["export", "--out", out, "--status", "past"], env)
        assert limited.returncode == 3, limited.stderr
        assert "remain" in limited.stderr
        assert small.private_key not in limited.stderr + limited.stdout
        assert "%|" not in limited.stderr  # no progress bars when not interactive
        assert not (tmp_path / "out" / "icos.parquet").exists()
        small.reset_quota()
        resumed = _run(["export", "--out", out, "--status", "past"], env)
        assert resumed.returncode == 0, resumed.stderr
        assert all(small.stats.profile_hits[i] == 1 for i in past)
        assert len(pd.read_parquet(tmp_path / "out" / "icos.parquet")) == len(past)
    unreachable = _run(["export", "--out", out], {
        **env, "ICOFRAMES_BASE_URL": "http://127.0.0.1:9", "ICOFRAMES_TIMEOUT": "1"})
    assert unreachable.returncode == 1

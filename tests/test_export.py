"""`icoframes export`: Parquet tables + manifest, hive snapshots, exit codes, read-back."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import re
import shutil
import subprocess
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pytest
import time_machine
from test_days import INCOMPLETE, logged

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
    # every table, plus the values that could not be read: one row each, and per column
    assert sorted(p.stem for p in out.glob("*.parquet")) == sorted(
        [*TABLE_NAMES, "problems", "problem_summary"])
    manifest = json.loads((out / "manifest.json").read_text())
    tables = icoframes.load_tables(status="past", progress=False)
    assert manifest["rows"] == {name: len(tables[name]) for name in TABLE_NAMES}
    past = len(cfg.directory.ids("past"))
    assert manifest["requests_spent"] == {"filters": 0, "icos": -(-past // 20), "ico": past}
    assert manifest["requests_total"] == -(-past // 20) + past == cfg.stats.requests.total()
    assert manifest["arguments"]["status"] == "past"
    assert manifest["package_version"] == icoframes.__version__
    assert "fetched_at" not in manifest  # the export time is exported_at, not a fetch time
    exported_at = dt.datetime.fromisoformat(manifest["exported_at"])
    [query] = manifest["queries"]
    assert query["params"] == {"status": "past"} and query["rows"] == past
    assert query["complete"] is True and query["from_cache"] is False and manifest["complete"]
    assert dt.timedelta(0) <= exported_at - dt.datetime.fromisoformat(query["fetched_at"]) \
        < dt.timedelta(minutes=5)
    problems = tables.problems
    assert manifest["problems"] == len(problems) > 0  # the sandbox's messy values
    assert problems["ico_id"].notna().all()  # each with the row it belongs to
    assert problems["ico_id"].isin(tables.icos["id"]).all()
    summary = pd.read_parquet(out / "problem_summary.parquet")
    assert summary["count"].sum() == len(problems)
    assert manifest["problems_by_column"] == {
        f"{t}.{c}": n for t, c, n in zip(summary["table"], summary["column"], summary["count"],
                                         strict=True)}
    assert set(manifest["profiles_fetched"]) == {"oldest", "newest"}
    # nothing is left of the staging, nor a lock file
    assert sorted(p.name for p in out.iterdir() if not p.name.endswith(".parquet")) == [
        "manifest.json"]
    for name in TABLES:  # the schema's tables, without problems
        frame = tables[name]
        back = pd.read_parquet(out / f"{name}.parquet")
        assert list(back.columns) == TABLES[name].names
        assert len(back) == len(frame)


def test_every_dict_style_read_of_an_export_result_warns_that_it_goes(cfg, tmp_path):
    # CHANGELOG: dict reading "still works in this version and goes in the next", as for
    # cache_info(): it said so nowhere a user would see it
    result = icoframes.export_tables(tmp_path / "out", status="past", progress=False)
    plain = result.as_dict()  # 0.1's dict, without a warning: the manifest plus the path
    assert plain == {**result.manifest, "path": str(tmp_path / "out")}
    reads = {"[]": lambda r: r["rows"], "in": lambda r: "rows" in r,
             "get": lambda r: r.get("rows"), "keys": lambda r: r.keys(),
             "items": lambda r: r.items(), "dict": lambda r: dict(r)}
    for name, read in reads.items():
        with pytest.warns(FutureWarning, match=r"^ExportResult.*reading it as a dict goes in "
                                               r"the next version; use its attributes") as got:
            value = read(result)
        assert {w.filename for w in got} == {__file__}, name  # the user's line, not ours
        assert value == {"[]": result.rows, "in": True, "get": result.rows,
                         "keys": list(plain), "items": list(plain.items()),
                         "dict": plain}[name]
    with pytest.warns(FutureWarning), pytest.raises(KeyError):
        result["no_such_key"]


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


@time_machine.travel(dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC))  # one day, whenever it runs
def test_snapshots_are_hive_partitions_replaced_on_the_same_day(cfg, tmp_path):
    out = tmp_path / "snap"
    assert main(["export", "--out", str(out), "--status", "ongoing", "--snapshot"]) == 0
    today = "2026-03-02"
    day = out / f"snapshot_date={today}"
    assert (day / "icos.parquet").is_file() and (day / "manifest.json").is_file()
    first_manifest = json.loads((day / "manifest.json").read_text())
    # an older snapshot beside it, as a previous day's run would have left
    shutil.copytree(day, out / "snapshot_date=2026-01-01")
    assert main(["export", "--out", str(out), "--status", "ongoing", "--snapshot"]) == 0
    second_manifest = json.loads((day / "manifest.json").read_text())
    assert second_manifest["exported_at"] >= first_manifest["exported_at"]
    # the day's list, paged minutes ago by the first run, is the day's: not paid again
    n = len(cfg.directory.ids("ongoing"))
    assert second_manifest["requests_spent"] == {"filters": 0, "icos": 0, "ico": 0}
    assert second_manifest["arguments"]["refresh"] is False
    assert [q["from_cache"] for q in second_manifest["queries"]] == [True]
    assert sorted(p.name for p in out.iterdir()) == [
        "snapshot_date=2026-01-01", f"snapshot_date={today}"]
    rows = duckdb.sql(
        f"SELECT snapshot_date, count(*) FROM read_parquet('{out}/*/icos.parquet', "
        "hive_partitioning=true) GROUP BY 1 ORDER BY 1").fetchall()
    assert [(str(d), c) for d, c in rows] == [("2026-01-01", n), (today, n)]
    lazy = pl.scan_parquet(f"{out}/*/icos.parquet", hive_partitioning=True).collect()
    assert lazy.height == 2 * n and "snapshot_date" in lazy.columns


def _leftover(out, name: str):
    """What an export killed while writing leaves: its staging folder, a lock nobody holds."""
    data = out / f".icoframes-staging-{name}" / "export" / "data"
    data.mkdir(parents=True)
    for path in next(out.glob("snapshot_date=*")).iterdir():
        shutil.copy(path, data / path.name)
    (out / f".icoframes-staging-{name}" / "running.lock").touch()
    return data


def test_staging_is_invisible_to_readers_and_a_killed_runs_staging_is_removed(cfg, tmp_path):
    import filelock

    out = tmp_path / "snap"
    icoframes.export_tables(out, status="ongoing", snapshot=True, progress=False)
    killed = _leftover(out, "killed")
    running = _leftover(out, "running")
    for pattern in ("*.parquet", "*/icos.parquet", "*/*.parquet"):  # what readers glob
        assert all(".icoframes-staging" not in str(p) for p in out.glob(pattern)), pattern
    assert len(list(out.glob("*/*/*/*.parquet"))) == 2 * len(TABLES) + 4  # down there
    n = len(cfg.directory.ids("ongoing"))
    assert duckdb.sql(f"SELECT count(*) FROM read_parquet('{out}/*/icos.parquet', "
                      "hive_partitioning=true)").fetchall() == [(n,)]
    assert icoframes.read_snapshots(out)["id"].is_unique
    # an export still running holds the lock on its folder (a killed one's died with it)
    with filelock.FileLock(running.parents[1] / "running.lock", thread_local=False,
                           is_singleton=False, timeout=0):
        icoframes.export_tables(out, status="ongoing", snapshot=True, progress=False)
        assert not killed.parents[1].exists()
        assert (running / "icos.parquet").is_file()
    icoframes.export_tables(out, status="ongoing", snapshot=True, progress=False)
    assert [p.name for p in out.iterdir()] == [next(out.glob("snapshot_date=*")).name]


class Killed(BaseException):
    """Stands for SIGKILL at one step of an export: nothing after it runs in the export."""


def _kill_at(monkeypatch, out, step: int) -> None:
    """Make the ``step``-th rename into ``out`` raise :class:`Killed`."""
    real, count = os.replace, [0]

    def replace(src, dst, **kwargs):
        if Path(dst).is_relative_to(out):
            count[0] += 1
            if count[0] == step:
                raise Killed
        return real(src, dst, **kwargs)

    monkeypatch.setattr(os, "replace", replace)


def _consistent(folder) -> dict[str, int] | None:
    """The row counts of the manifest in ``folder``, after checking every table against them."""
    manifest = folder / "manifest.json"
    if not manifest.exists():
        return None
    rows = json.loads(manifest.read_text())["rows"]
    for name, count in rows.items():
        assert len(pd.read_parquet(folder / f"{name}.parquet")) == count, (folder, name)
    return rows


# one day whenever it runs: a run crossing midnight UTC re-paged the day's list (a plain
# export uses a list cached that UTC day only) and its last assertion saw 1 request
@time_machine.travel(dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC), tick=True)
def test_a_plain_export_killed_at_any_step_never_shows_a_manifest_that_disagrees(
        cfg, tmp_path, monkeypatch):
    before = tmp_path / "before"
    old = icoframes.export_tables(before, status="past", progress=False).rows
    new = icoframes.load_tables(status="ongoing", progress=False)  # cached: the reruns are free
    assert old["icos"] != len(new.icos)
    cfg.stats.reset()
    seen, step = [], 0
    while True:
        step += 1
        out = tmp_path / f"out{step}"
        shutil.copytree(before, out)
        _kill_at(monkeypatch, out, step)
        try:
            icoframes.export_tables(out, status="ongoing", progress=False)
        except Killed:
            seen.append(_consistent(out))
            continue
        finally:
            monkeypatch.undo()
        assert _consistent(out)["icos"] == len(new.icos)
        break
    assert step > len(TABLES) + 2  # every table file, the manifest, and the swap were cut
    assert seen[0] == old and None in seen  # killed mid-swap: no manifest, never a wrong one
    assert all(rows in (old, None) for rows in seen)
    # the next run completes a folder killed mid-swap, and cleans its staging
    half = tmp_path / f"out{seen.index(None) + 1}"
    icoframes.export_tables(half, status="ongoing", progress=False)
    assert _consistent(half)["icos"] == len(new.icos)
    assert not [p.name for p in half.iterdir() if p.name.startswith(".")]
    assert cfg.stats.requests.total() == 0  # every rerun was served by the cache


# one day whenever it runs: a run crossing midnight UTC wrote its re-run into the next day
@time_machine.travel(dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC), tick=True)
def test_a_snapshot_killed_at_any_step_keeps_the_days_snapshot_whole(cfg, tmp_path,
                                                                      monkeypatch):
    before = tmp_path / "before"
    icoframes.export_tables(before, status="past", snapshot=True, progress=False)
    [day] = [p.name for p in before.glob("snapshot_date=*")]
    old = _consistent(before / day)
    step = 0
    while True:
        step += 1
        out = tmp_path / f"out{step}"
        shutil.copytree(before, out)
        _kill_at(monkeypatch, out, step)
        # a snapshot of another query is refused (icoframes.dayfolder): allowed
        # here, where it makes the new snapshot tell apart from the old one at every step
        monkeypatch.setattr(icoframes.export, "check_tree", lambda *a, **k: None)
        try:
            icoframes.export_tables(out, status="ongoing", snapshot=True, progress=False)
        except Killed:
            assert _consistent(out / day) == old  # the previous snapshot, put back
            continue
        finally:
            monkeypatch.undo()
        assert _consistent(out / day)["icos"] == len(cfg.directory.ids("ongoing"))
        assert [p.name for p in out.glob("snapshot_date=*")] == [day]
        break
    assert step > len(TABLES) + 2


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
    assert code == 2 and "argument --ico-score: must be an integer from 1 to 10, got '11'" in err
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
    assert code == 2 and "on its way is a file" in err
    assert not (tmp_path / "out").exists()


# the runs warn that the export is incomplete: in the command a log line (test_days.logged)
@INCOMPLETE
def test_quota_mid_export_exits_5_with_what_was_fetched_and_the_next_run_resumes(
        tmp_path, monkeypatch, capsys, caplog):
    from icoframes.sandbox.directory import generate_directory

    past = generate_directory(160, seed=22).ids("past")
    pages = -(-len(past) // 20)
    quota = pages + 2 * len(past) // 3  # enough for two thirds of the profiles
    out = str(tmp_path / "out")
    day_one = dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC)
    with sandbox.serve(n_icos=160, seed=22, quota=quota) as small:
        _use(monkeypatch, tmp_path, small)
        with time_machine.travel(day_one):
            code, stdout, err = _cli(["export", "--out", out, "--status", "past"], capsys,
                                     caplog)
            assert code == 5, err
            assert "error 485" in err and "remain to fetch" in err
            assert small.private_key not in err + stdout
            assert "%|" not in err  # no progress bars when not interactive
            fetched = quota - pages
            manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
            assert manifest["complete"] is False and manifest["rows"]["icos"] == fetched
            assert len(manifest["missing"]) == len(past) - fetched
            lacked = f"incomplete result: {len(manifest['missing'])} listed ICO(s) have no row: " \
                f"{len(manifest['missing'])} not_fetched"
            assert [m.split("; first: ")[0] for m in logged(caplog, "IncompleteWarning")] == [
                lacked]
            # the same day again: the 485 is on record, so one probe goes first, refused; the
            # list paged this morning is today's, so what is cached is written again
            sent = small.stats.requests.total()
            code, _, err = _cli(["export", "--out", out, "--status", "past"], capsys, caplog)
            assert code == 5 and "error 485" in err and "probe" in err
            assert small.stats.requests.total() == sent + 1
            assert [m.split("; first: ")[0] for m in logged(caplog, "IncompleteWarning")] == [
                lacked]
            assert json.loads((tmp_path / "out" / "manifest.json").read_text())[
                "rows"]["icos"] == fetched
        with time_machine.travel(day_one + dt.timedelta(days=1)):  # the cron run next day
            small.reset_quota()
            code, _, err = _cli(["export", "--out", out, "--status", "past", "--max-age",
                                 str(3 * 86400)], capsys, caplog)
        assert code == 0, err
        assert f"wrote {out}" in err and logged(caplog, "IncompleteWarning") == []
        assert all(small.stats.profile_hits[i] == 1 for i in past)
        assert len(pd.read_parquet(tmp_path / "out" / "icos.parquet")) == len(past)


def test_an_unreachable_service_exits_1(tmp_path, monkeypatch, capsys, caplog, quick_retries):
    _use(monkeypatch, tmp_path, base_url="http://127.0.0.1:9", public_key="p",
         private_key="s3cret", cache_dir=str(tmp_path / "c"), timeout="1")
    code, stdout, err = _cli(["export", "--out", str(tmp_path / "out")], capsys, caplog)
    assert code == 1
    # the breaker's stop, or a request given up early because the others failed too: either
    # says the service failed as a whole, and names it
    assert re.search(r"attempts failed in a row|given up early: the service at 127\.0\.0\.1:9 "
                     r"was failing other requests too", err), err
    assert "connection refused" in err and "127.0.0.1:9" in err
    assert "s3cret" not in err + stdout


# -- where an export may write --------------------------------------------------


def _mount_tmpfs(where, *options: str) -> None:
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(("size=64m", *options)),
                             "icoframes-test", str(where)], capture_output=True, text=True)
    if result.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {result.stderr.strip()}")


@contextlib.contextmanager
def _mounted(*points):
    try:
        yield
    finally:
        for point in reversed(points):  # a busy one (a file still closing) goes lazily:
            if subprocess.run(["umount", str(point)], capture_output=True).returncode:
                subprocess.run(["umount", "--lazy", str(point)], capture_output=True)


@pytest.fixture
def read_only(tmp_path):
    """An empty folder nobody can write: a read-only tmpfs as root, mode 0555 otherwise."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    with _mounted(folder):
        _mount_tmpfs(folder, "ro")
        yield folder


def test_an_unusable_out_is_a_config_error_before_any_request(cfg, tmp_path, read_only,
                                                              capsys, caplog):
    # (an out that is no folder, or under a file, is an InvalidParameter: test_arguments_folders)
    for out in (read_only, read_only / "new"):
        with pytest.raises(icoframes.ConfigError, match="cannot be written") as caught:
            icoframes.export_tables(out, status="past", snapshot=True, progress=False)
        assert str(out) in str(caught.value)
        code, _, err = _cli(["export", "--out", str(out), "--snapshot"], capsys, caplog)
        assert code == 2 and f"the export folder {out} cannot be written" in err
    assert cfg.stats.requests.total() == 0
    assert list(read_only.iterdir()) == []


@pytest.fixture
def mount_point(tmp_path):
    """``out`` is a tmpfs mount point and its parent a read-only tmpfs (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    parent = tmp_path / "srv"
    parent.mkdir()
    out = parent / "ico"
    with _mounted(parent, out):
        _mount_tmpfs(parent)
        out.mkdir()
        _mount_tmpfs(out)
        subprocess.run(["mount", "-o", "remount,ro", str(parent)], check=True)
        yield out


def test_snapshots_into_a_mount_point_whose_parent_is_read_only(cfg, mount_point):
    assert os.stat(mount_point).st_dev != os.stat(mount_point.parent).st_dev
    with pytest.raises(OSError):
        (mount_point.parent / "probe").touch()
    for _ in range(2):  # the second replaces the day's snapshot: a swap within the mount
        manifest = icoframes.export_tables(mount_point, status="ongoing", snapshot=True,
                                           progress=False)
        assert _consistent(manifest.path)["icos"] == len(cfg.directory.ids("ongoing"))
    [day] = mount_point.glob("snapshot_date=*")
    shutil.rmtree(day)  # a plain export is refused in a snapshot tree (one layout per out)
    manifest = icoframes.export_tables(mount_point, status="past", progress=False)
    assert _consistent(mount_point)["icos"] == len(cfg.directory.ids("past"))


# -- a query that matches nothing --------------------------------------------------


def _nothing_matches(directory) -> dict:
    """A status and minimum score no ICO of ``directory`` has."""
    for score in range(10, 0, -1):
        for status in ("upcoming", "ongoing", "past"):
            if not directory.query({"status": status, "ico_score": score}):
                return {"status": status, "ico_score": score}
    raise AssertionError("every query matches")


def test_an_empty_result_writes_nothing_and_exits_4_unless_allowed(cfg, tmp_path, capsys,
                                                                   caplog):
    query = _nothing_matches(cfg.directory)
    out = tmp_path / "out"
    with pytest.raises(icoframes.EmptyResult) as caught:
        icoframes.export_tables(out, progress=False, **query)
    assert (f"no ICO matched the query (status={query['status']}, "
            f"ico_score={query['ico_score']})") in str(caught.value)
    assert "allow_empty=True" in str(caught.value)
    assert not out.exists()
    args = ["export", "--out", str(out), "--status", query["status"], "--ico-score",
            str(query["ico_score"])]
    code, _, err = _cli(args, capsys, caplog)
    assert code == 4 and "no ICO matched the query" in err and "--allow-empty" in err
    assert not out.exists()
    # an earlier export in the folder is left as it was
    icoframes.export_tables(out, status="ongoing", progress=False)
    before = _consistent(out)
    code, _, err = _cli([*args, "--snapshot"], capsys, caplog)
    assert code == 2 and _consistent(out) == before  # a snapshot beside a plain export: refused
    assert list(out.glob("snapshot_date=*")) == []
    tree = tmp_path / "tree"
    code, _, err = _cli([*args[:2], str(tree), *args[3:], "--snapshot"], capsys, caplog)
    assert code == 4 and "no ICO matched the query" in err
    assert list(tree.glob("snapshot_date=*")) == []
    code, _, err = _cli([*args, "--allow-empty"], capsys, caplog)
    assert code == 0, err
    assert set(_consistent(out).values()) == {0}
    assert json.loads((out / "manifest.json").read_text())["arguments"]["allow_empty"] is True


# -- cron ------------------------------------------------------------------------------


def test_a_daily_cron_snapshot_states_what_it_spent_and_how_old_its_data_is(tmp_path):
    """Five daily runs at 03:15 UTC, the service changing between them (issue 11)."""
    days = [dt.datetime(2026, 11, 20, 3, 15, tzinfo=dt.UTC) + dt.timedelta(days=i)
            for i in range(5)]
    out = tmp_path / "srv"
    manifests, pages = [], []
    with sandbox.serve(n_icos=90, seed=31) as sb:
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
        try:
            moved = sb.directory.ids("ongoing")[0]
            ended_at = days[2] - dt.timedelta(hours=5)
            for i, when in enumerate(days):
                if i == 1:
                    sb.update_ico(moved, ico_score=9.7, raised=43_210_000)
                elif i == 2:  # it ended early: listed as past, with its new end date
                    sb.update_ico(moved, ico_score=9.8, status="past", end=ended_at)
                elif i == 3:
                    added = sb.add_ico("upcoming")
                elif i == 4:
                    sb.update_ico(moved, raised=50_000_000)
                sb.reset_quota()
                pages.append(sum(-(-len(sb.directory.ids(s)) // 20)
                                 for s in ("ongoing", "upcoming", "past")))
                with time_machine.travel(when, tick=True):  # the same hour, a day later
                    manifests.append(icoframes.export_tables(out, snapshot=True,
                                                             progress=False))
        finally:
            icoframes.reset_configuration()
    folders = icoframes.history.snapshot_folders(out)
    assert [d.date() for d in folders.index] == [d.date() for d in days]
    for when, manifest, n_pages in zip(days, manifests, pages, strict=True):
        assert manifest.path == out / f"snapshot_date={when.date().isoformat()}"
        assert json.loads((manifest.path / "manifest.json").read_text()) == manifest.manifest
        # every day re-pages every list: the cached ones are a second short of a day old
        assert manifest.requests_spent["icos"] >= n_pages > 0
        assert manifest.requests_total == sum(manifest.requests_spent.values())
        assert len(manifest.manifest["queries"]) == 3 and manifest.complete
        for query in manifest.manifest["queries"]:
            assert query["complete"] and not query["from_cache"]
            assert dt.datetime.fromisoformat(query["fetched_at"]).date() == when.date()
        assert manifest.exported_at.date() == when.date()
    assert manifests[0].requests_spent["ico"] == 90
    assert all(m.requests_spent["ico"] >= 1 for m in manifests[1:])  # what changed
    icos = icoframes.read_snapshots(out)
    row = icos[icos["id"] == moved].set_index("snapshot_date")
    assert row["ico_score"].tolist()[1:] == [9.7, 9.8, 9.8, 9.8]
    assert row["raised"].tolist()[1:] == [43_210_000, 43_210_000, 43_210_000, 50_000_000]
    assert row["status"].tolist() == ["ongoing", "ongoing", "past", "past", "past"]
    ended = pd.Timestamp(ended_at.replace(tzinfo=None)).as_unit("ms")
    assert (row["end_datetime"].iloc[2:] == ended).all()
    assert row["end_datetime"].iloc[0] != ended
    counts = icos.groupby("snapshot_date")["id"].apply(lambda ids: int((ids == added).sum()))
    assert counts.tolist() == [0, 0, 0, 1, 1]
    # how old each snapshot's profiles are: the fetch times of its own rows
    for when, manifest in zip(days, manifests, strict=True):
        fetched = pd.read_parquet(manifest.path / "icos.parquet")["fetched_at"]
        if fetched.dt.tz is None:  # naive times are UTC
            fetched = fetched.dt.tz_localize("UTC")
        oldest = dt.datetime.fromisoformat(manifest.manifest["profiles_fetched"]["oldest"])
        newest = dt.datetime.fromisoformat(manifest.manifest["profiles_fetched"]["newest"])
        assert oldest == fetched.min() and newest == fetched.max()
        assert days[0].date() <= oldest.date() <= newest.date() == when.date()

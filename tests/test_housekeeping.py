"""The cache dir as a whole: sandbox identity, clearing and pruning every service folder,
no folder for a service never reached, and a read-only cache dir serving warm loads."""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import json
import os
import shutil
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
import time_machine
from hostile import refusing_port
from waiting import HANG_GUARD, wait_until

import icoframes
from icoframes import sandbox
from icoframes.cachedir.housekeeping import LEDGER_FOLDER, LOCK_NAME, scan
from icoframes.files import locked
from icoframes.store.ledger import QuotaLedger

DAY = dt.timedelta(days=1)


@pytest.fixture(autouse=True)
def _fresh_configuration():
    icoframes.reset_configuration()
    yield
    icoframes.reset_configuration()


def _spent(sb) -> int:
    return sb.stats.requests.total()


def _services(root: Path) -> list[str]:
    return [folder.name for folder in scan(root)[0]]


def _load_past(sb, cache: Path) -> pd.DataFrame:
    icoframes.configure(**sb.settings(), cache_dir=cache)
    return icoframes.load_icos(status="past", progress=False)


def _make_old(folder: Path, age: dt.timedelta) -> None:
    """Set the times of ``folder`` and everything in it (links themselves) ``age`` back."""
    then = (dt.datetime.now(dt.UTC) - age).timestamp()
    for path in [folder, *folder.rglob("*")]:
        os.utime(path, (then, then), follow_symlinks=False)


# -- the sandbox's identity ----------------------------------------------------------


def test_a_sandbox_started_again_on_another_port_finds_its_cache(tmp_path, one_ledger_day):
    cache = tmp_path / "cache"
    with sandbox.serve(n_icos=60, seed=5) as first:
        cold = _load_past(first, cache)
        port, spent_cold = first.port, _spent(first)
        requests_today = icoframes.cache_info().requests_today
    assert spent_cold > len(cold) > 0 and requests_today == spent_cold
    with sandbox.serve(n_icos=60, seed=5) as again:
        assert again.port != port
        warm = _load_past(again, cache)
        assert _spent(again) == 0  # nothing fetched twice
        # the same ledger too: the requests of the first run still count today
        assert icoframes.cache_info().requests_today == spent_cold
    pd.testing.assert_frame_equal(warm, cold)
    assert _services(cache) == [again.service_name]
    with sandbox.serve(n_icos=60, seed=6) as other:  # other content: its own folder
        _load_past(other, cache)
        assert _spent(other) > 0
    assert sorted(_services(cache)) == sorted([again.service_name, other.service_name])


def test_a_new_address_drops_the_sandbox_name():
    with sandbox.serve(n_icos=5) as sb:
        icoframes.configure(**sb.settings())
        assert icoframes.get_settings().service_id == sb.service_name
        icoframes.configure(base_url="http://127.0.0.1:9")
    settings = icoframes.get_settings()
    assert settings.service_name is None and settings.service_id == "http://127.0.0.1:9"


@pytest.mark.parametrize("name", ["../elsewhere", "a/b", "", ".hidden", LEDGER_FOLDER])
def test_a_service_name_must_be_a_plain_folder_name(name):
    with pytest.raises(icoframes.InvalidParameter, match="invalid service_name"):
        icoframes.configure(service_name=name)


def test_the_ledger_folder_is_the_one_housekeeping_keeps(tmp_path):
    assert QuotaLedger(tmp_path, "key", service="x").path.parent == tmp_path / LEDGER_FOLDER


def _ledgers(cache: Path) -> int:
    """Keys with a request count in the cache dir's ledger database."""
    return QuotaLedger(cache, "any").count()


# -- clearing and pruning every service folder ---------------------------------------------


def _two_services_and_an_address(cache: Path) -> list[str]:
    """Folders of two sandboxes and of a plain address (a directory passed in: no name)."""
    for seed in (1, 2):
        with sandbox.serve(n_icos=30, seed=seed) as sb:
            _load_past(sb, cache)
    with sandbox.serve(directory=sandbox.generate_directory(30, seed=3)) as unnamed:
        assert unnamed.settings()["service_name"] is None
        _load_past(unnamed, cache)
    return _services(cache)


def test_clear_cache_all_reaches_every_service_folder_and_keeps_ledgers(tmp_path):
    cache = tmp_path / "cache"
    folders = _two_services_and_an_address(cache)
    assert len(folders) == 3 and any(name.startswith("127.0.0.1_") for name in folders)
    mine = cache / "my-notes"
    mine.mkdir()
    (mine / "keep.txt").write_text("not the cache's")
    icoframes.reset_configuration()
    icoframes.configure(cache_dir=cache)  # no service configured: not needed
    info = icoframes.cache_info(all=True)
    assert sorted(s.name for s in info.services) == sorted(folders)
    assert all(s.size_bytes > 0 and s.age >= dt.timedelta(0) for s in info.services)
    assert info.other == [str(mine)] and info.ledgers == 3
    report = icoframes.clear_cache(all=True)
    assert sorted(Path(p).name for p in report.removed) == sorted(folders)
    assert report.freed_bytes == sum(s.size_bytes for s in info.services)
    assert sorted(p.name for p in cache.iterdir()) == ["my-notes", LEDGER_FOLDER]
    assert (mine / "keep.txt").read_text() == "not the cache's"
    assert _ledgers(cache) == 3  # kept unless asked
    report = icoframes.clear_cache(all=True, ledgers=True)
    assert _ledgers(cache) == 0 and len(report.removed) == 3
    assert sorted(p.name for p in cache.iterdir()) == ["my-notes", LEDGER_FOLDER]


def test_clearing_never_follows_a_symlink_out_of_the_cache_dir(tmp_path):
    outside = tmp_path / "outside"
    (outside / "data").mkdir(parents=True)
    (outside / "data" / "precious.txt").write_text("keep me")
    (outside / "precious.parquet").write_text("keep me too")
    # a folder that looks like a service folder, outside the cache dir
    (outside / "elsewhere" / "lists").mkdir(parents=True)
    (outside / "elsewhere" / "lists" / "q.parquet").write_text("keep")
    cache = tmp_path / "cache"
    with sandbox.serve(n_icos=20, seed=1) as sb:
        _load_past(sb, cache)
        folder = cache / sb.service_name
    # named as the cache names its files there (a user's other names stay, reported)
    (folder / "tables" / "linked-folder.parquet").symlink_to(outside / "data")
    (folder / "tables" / "part-linked.parquet").symlink_to(outside / "precious.parquet")
    (cache / "linked-service").symlink_to(outside / "elsewhere")
    report = icoframes.clear_cache(all=True)
    assert not folder.exists()  # the links inside went with it, as links
    assert (outside / "data" / "precious.txt").read_text() == "keep me"
    assert (outside / "precious.parquet").read_text() == "keep me too"
    assert (outside / "elsewhere" / "lists" / "q.parquet").read_text() == "keep"
    assert (cache / "linked-service").is_symlink()  # left alone, and said so
    assert str(cache / "linked-service") in [s["path"] for s in report.skipped]


def test_clear_cache_of_a_service_whose_folder_is_a_symlink_keeps_the_target(tmp_path):
    target = tmp_path / "big-disk" / "sandbox-cache"
    target.parent.mkdir()
    cache = tmp_path / "cache"
    with sandbox.serve(n_icos=20, seed=1) as sb:
        _load_past(sb, cache)
        shutil.move(cache / sb.service_name, target)
        (cache / sb.service_name).symlink_to(target)
        before = sorted(p.relative_to(target) for p in target.rglob("*"))
        report = icoframes.clear_cache()
    assert sorted(p.relative_to(target) for p in target.rglob("*")) == before
    assert report.removed == [] and "symbolic link" in report.skipped[0]["reason"]


def test_prune_cache_deletes_what_was_not_used_for_longer_than_asked(tmp_path):
    cache = tmp_path / "cache"
    long_ago = dt.datetime.now(dt.UTC) - 40 * DAY
    with sandbox.serve(n_icos=30, seed=1) as old_sb, sandbox.serve(n_icos=30, seed=2) as used:
        with time_machine.travel(long_ago):  # one key sent its requests 40 days ago
            _load_past(old_sb, cache)
        _load_past(used, cache)
        with time_machine.travel(long_ago):  # a list fetched 40 days ago
            icoframes.load_list(status="ongoing", progress=False)
        old, live = cache / old_sb.service_name, cache / used.service_name
        _make_old(old, 40 * DAY)
        _make_old(live, 40 * DAY)
        # the live folder is read (not written) by a warm load: that counts as a use
        spent = _spent(used)
        icoframes.load_icos(status="past", progress=False)
        assert _spent(used) == spent
        assert _list_statuses(live) == ["ongoing", "past"]
        leftover_old = live / "tables" / ".icos.parquet.0123.tmp"
        leftover_new = live / "tables" / ".team.parquet.4567.tmp"
        for path in (leftover_old, leftover_new):
            path.write_bytes(b"partial")
        _make_old_file(leftover_old, 40 * DAY)
        assert _ledgers(cache) == 2

        report = icoframes.prune_cache(dt.timedelta(days=30))
        removed = set(report.removed)
        assert not old.exists() and str(old) in removed
        assert live.is_dir() and icoframes.cache_info().profiles > 0  # its profiles stay
        assert _list_statuses(live) == ["past"]  # the list fetched 40 days ago went
        assert not leftover_old.exists() and leftover_new.exists()  # a write may be under way
        assert _ledgers(cache) == 2  # kept unless asked
        icoframes.prune_cache(dt.timedelta(days=30), ledgers=True)
        assert _ledgers(cache) == 1  # the key that sent nothing for 40 days
        # the pruned list is re-paged by the next load; the cached profiles are not re-fetched
        spent = _spent(used)
        icoframes.load_icos(status="past", progress=False)
        assert _spent(used) == spent
        icoframes.load_list(status="ongoing", progress=False)
        ongoing = len(used.directory.ids("ongoing"))
        assert _spent(used) - spent == max(1, -(-ongoing // sandbox.PAGE_SIZE))


def _list_statuses(folder: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(folder / "cache.sqlite3")) as conn:
        return sorted(json.loads(params)["status"]
                      for (params,) in conn.execute("SELECT params FROM lists"))


def _make_old_file(path: Path, age: dt.timedelta) -> None:
    then = (dt.datetime.now(dt.UTC) - age).timestamp()
    os.utime(path, (then, then))


def test_prune_cache_rejects_a_negative_age(tmp_path):
    icoframes.configure(cache_dir=tmp_path)
    with pytest.raises(icoframes.InvalidParameter, match="older_than"):
        icoframes.prune_cache(-1)
    with pytest.raises(icoframes.InvalidParameter, match="older_than"):
        icoframes.prune_cache("1 month")  # "30 days" is a duration: taken


def test_a_folder_is_deleted_only_under_its_lock(tmp_path):
    cache = tmp_path / "cache"
    with sandbox.serve(n_icos=20, seed=1) as sb:
        _load_past(sb, cache)
        folder = cache / sb.service_name
    result: dict = {}
    with locked(folder / LOCK_NAME):  # a load of another process holds it
        worker = threading.Thread(
            target=lambda: result.update(removed=icoframes.clear_cache(all=True).removed))
        worker.start()
        worker.join(0.5)
        assert worker.is_alive() and (folder / "cache.sqlite3").is_file()
    worker.join(HANG_GUARD)
    assert not worker.is_alive() and not folder.exists()
    assert result["removed"] == [str(folder)]


# -- no folder for a service never reached ----------------------------------------------


def test_a_service_that_was_never_reached_gets_no_folder(tmp_path, quick_retries):
    cache = tmp_path / "cache"
    with refusing_port() as port:  # nobody listens there
        url = f"http://127.0.0.1:{port}"
        icoframes.configure(base_url=url, public_key="p", private_key="s", cache_dir=cache)
        with pytest.raises(icoframes.ServiceUnavailable, match="refused"):
            icoframes.load_icos(status="past", progress=False)
    with pytest.raises(icoframes.NotCached):
        icoframes.load_icos(status="past", progress=False, offline=True)
    assert _services(cache) == [] and not (cache / url.split("//")[1].replace(":", "_")).exists()
    # no response: nothing was spent
    assert QuotaLedger(cache, "p", service=url).state().sent == 0


# -- a read-only cache dir -------------------------------------------------------------


@contextlib.contextmanager
def _read_only(folder: Path) -> Iterator[None]:
    """``folder`` read-only: a read-only bind mount as root (root ignores permissions), else
    permissions taken away; skips when neither is possible."""
    if os.geteuid() == 0:
        mount = shutil.which("mount")
        done = mount and subprocess.run([mount, "--bind", folder, folder],
                                        capture_output=True).returncode == 0
        if not done:
            pytest.skip("running as root, and a read-only bind mount is not possible here")
        try:
            remounted = subprocess.run([mount, "-o", "remount,ro,bind", folder],
                                       capture_output=True)
            if remounted.returncode != 0:
                pytest.skip(f"cannot remount read-only: {remounted.stderr.decode().strip()}")
            yield
        finally:
            def unmounted() -> bool:
                nonlocal umounted
                gc.collect()  # a file object in a reference cycle holds the mount until then
                umounted = subprocess.run(["umount", folder], capture_output=True, text=True)
                return umounted.returncode == 0

            umounted = subprocess.run(["umount", folder], capture_output=True, text=True)
            if umounted.returncode != 0:  # a file closing in another thread: a few more tries
                wait_until(unmounted, timeout=HANG_GUARD, interval=0.5)
            if umounted.returncode != 0:  # busy: say which files of this process hold it
                held = []
                for fd in Path("/proc/self/fd").iterdir():
                    with contextlib.suppress(OSError):  # an fd closed meanwhile
                        if (target := os.readlink(fd)).startswith(str(folder)):
                            held.append(target)
                subprocess.run(["umount", "--lazy", folder])  # never leave the mount behind
                pytest.fail(f"umount {folder}: {umounted.stderr.strip()}; open here: {held}")
        return
    modes = {p: p.lstat().st_mode for p in [folder, *folder.rglob("*")]}
    for path in modes:
        if not path.is_symlink():
            path.chmod(modes[path] & ~0o222)
    try:
        yield
    finally:
        for path, mode in modes.items():
            if not path.is_symlink():
                path.chmod(mode)


def test_a_read_only_cache_dir_serves_warm_and_offline_loads(tmp_path):
    cache = tmp_path / "cache"
    with sandbox.serve(n_icos=60, seed=4) as sb:
        cold = _load_past(sb, cache)
        cold_tables = icoframes.load_tables(status="past", progress=False)
        spent = _spent(sb)
        with _read_only(cache):
            with pytest.raises(OSError):
                (cache / "probe").touch()
            warm = icoframes.load_icos(status="past", progress=False)
            offline = icoframes.load_icos(status="past", progress=False, offline=True)
            tables = icoframes.load_tables(status="past", progress=False, offline=True)
            assert icoframes.cache_info().profiles == len(cold)
            assert _spent(sb) == spent
            # a load that needs a request fails before sending it
            with pytest.raises(icoframes.ConfigError, match="not writable"):
                icoframes.load_icos(status="past", progress=False, refresh=True)
            assert _spent(sb) == spent
    pd.testing.assert_frame_equal(warm, cold)
    pd.testing.assert_frame_equal(offline, cold)
    pd.testing.assert_frame_equal(tables.team, cold_tables.team)

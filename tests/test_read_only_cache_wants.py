"""A read-only cache dir whose copies a load would fetch again: refused before any request.

docs/guide/cache.md: a read-only cache dir (a shared, pre-filled one) serves warm and
``offline=True`` loads, and a load that needs a request fails with ``ConfigError`` before
sending it. Where the list needed no paging but some of its profiles were wanted (one the
filler's budget left out, or an export holding today's list's copies to ``profile_max_age``),
the load claimed them first, a write, and failed with ``CacheError`` ("read-only here:
nothing can be kept"); a load that meets such a cache now fails as one that needs a list
does, with the ``ConfigError`` of :func:`icoframes.fetch.service.check_writable`, before any
request, naming ``offline=True`` (which serves what the cache holds, saying what it lacks).

The reader sees the filler's cache through a read-only bind mount at another path, as
another process would: the filler's own open database connection (which a read-only
remount of its path does not reach) plays no part.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import time_machine

import icoframes
from icoframes import sandbox

# noon UTC: the export's "list paged today" holds whatever the test's duration
NOON = dt.datetime(2026, 11, 2, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=60, seed=4) as server:
        yield server


@contextlib.contextmanager
def _read_only_view(cache: Path) -> Iterator[Path]:
    """``cache`` as another process meets it read-only: bind-mounted read-only at a new path
    (as root, whom permissions do not stop), else copied and its permissions taken away."""
    view = cache.with_name("view")
    if os.geteuid() != 0:
        shutil.copytree(cache, view, symlinks=True)
        paths = [view, *view.rglob("*")]
        for path in paths:
            path.chmod(path.stat().st_mode & ~0o222)
        try:
            yield view
        finally:
            for path in paths:
                path.chmod(path.stat().st_mode | 0o200)
        return
    view.mkdir(mode=0o700)
    if subprocess.run(["mount", "--bind", cache, view], capture_output=True).returncode:
        pytest.skip("running as root, and a bind mount is not possible here")
    try:
        remounted = subprocess.run(["mount", "-o", "remount,ro,bind", view], capture_output=True)
        if remounted.returncode:
            pytest.skip(f"cannot remount read-only: {remounted.stderr.decode().strip()}")
        with pytest.raises(OSError):
            (view / "probe").touch()
        yield view
    finally:
        gc.collect()  # a file object in a reference cycle holds the mount until then
        if subprocess.run(["umount", view], capture_output=True).returncode:
            subprocess.run(["umount", "--lazy", view], capture_output=True)


def _refused(sb, call) -> icoframes.ConfigError:
    sent = sb.stats.requests.total()
    with pytest.raises(icoframes.ConfigError) as refused:
        call()
    assert sb.stats.requests.total() == sent  # before any request
    message = str(refused.value)
    assert "is not writable: its file system is read-only" in message
    # REVL L1: fixu said "A load with offline=True uses what it holds" to export users too
    assert message.endswith("Set ICOFRAMES_CACHE_DIR or icoframes.configure(cache_dir=...) to "
                            "a folder of your own. A loader with offline=True uses what it "
                            "holds, as it is (an export has no offline mode).")
    return refused.value


def test_profiles_a_budget_left_out_are_refused_before_any_request_offline_says_them(
        cfg, tmp_path):
    cache = tmp_path / "cache"
    with pytest.warns(icoframes.IncompleteWarning, match="30 not_fetched"):
        filled = icoframes.load_icos(status="past", progress=False, budget=10)
    left_out = filled.attrs["icoframes"]["over_budget"]
    assert len(filled) == 10 and len(left_out) == 30
    with _read_only_view(cache) as view:
        icoframes.configure(**cfg.settings(), cache_dir=view)
        refused = _refused(cfg, lambda: icoframes.load_icos(status="past", progress=False))
        assert str(view) in str(refused)
        sent = cfg.stats.requests.total()
        with pytest.warns(icoframes.IncompleteWarning, match="30 listed ICO"):
            offline = icoframes.load_icos(status="past", progress=False, offline=True)
        assert cfg.stats.requests.total() == sent
    assert offline["id"].tolist() == filled["id"].tolist()
    assert str(offline["id"].dtype) == "int64"
    missing = offline.attrs["icoframes"]["missing"]
    assert sorted(m["id"] for m in missing) == sorted(left_out)
    assert {(m["state"], m["reason"]) for m in missing} == {
        ("not_fetched", "offline, and not in the cache")}
    assert offline.attrs["icoframes"]["complete"] is False


def test_an_export_holding_copies_to_profile_max_age_is_refused_before_any_request(
        cfg, tmp_path):
    cache = tmp_path / "cache"
    with time_machine.travel(NOON, tick=True):
        filled = icoframes.load_icos(status="past", progress=False)
        with _read_only_view(cache) as view:
            icoframes.configure(**cfg.settings(), cache_dir=view)
            # today's list, paged by the filler; its copies older than 0 s are wanted again
            _refused(cfg, lambda: icoframes.export_tables(
                tmp_path / "out", status="past", profile_max_age=0, progress=False))
            # the copies within their maximum age: served, nothing sent
            sent = cfg.stats.requests.total()
            exported = icoframes.export_tables(tmp_path / "out", status="past", progress=False)
            assert cfg.stats.requests.total() == sent
    assert exported.rows["icos"] == len(filled) == 40
    assert exported.complete is True and exported.requests_total == 0

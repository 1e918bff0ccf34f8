"""A cache dir that does not exist (a typo in ``cache_dir``) is said so, not shown as an
empty cache: ``cache_info`` (``cache_dir_exists``; ``exists`` with ``all=True``),
``clear_cache`` and ``prune_cache`` (``missing``),
and ``icoframes cache info|clear|prune --cache-dir`` (a line; exit 0: nothing is cached
there, nothing to do). Nothing is made, and no request is sent (a real sandbox counts 0).
"""

from __future__ import annotations

import datetime as dt

import pytest

import icoframes
from icoframes import sandbox
from icoframes.cli import main


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=10, seed=8) as server:
        yield server


def test_python_results_say_the_cache_dir_does_not_exist(cfg, tmp_path):
    typo = tmp_path / "cahce"
    info = icoframes.cache_info(cache_dir=typo)
    assert not info.cache_dir_exists and info.path.startswith(str(typo)) and info.profiles == 0
    assert not icoframes.cache_info(all=True, cache_dir=typo).exists
    for report in (icoframes.clear_cache(cache_dir=typo),
                   icoframes.clear_cache(all=True, cache_dir=typo),
                   icoframes.prune_cache(dt.timedelta(0), cache_dir=typo)):
        assert report.missing == str(typo) and not report.removed
        assert f"missing={str(typo)!r}" in repr(report)
    assert not typo.exists() and cfg.stats.requests.total() == 0


def test_a_cache_dir_without_this_service_is_an_empty_cache(cfg, tmp_path, capsys):
    root = tmp_path / "other"
    root.mkdir()
    assert icoframes.cache_info(cache_dir=root).cache_dir_exists
    assert icoframes.cache_info(all=True, cache_dir=root).exists
    assert icoframes.clear_cache(cache_dir=root).missing is None
    assert icoframes.prune_cache(0, cache_dir=root).missing is None
    assert main(["cache", "clear", "--cache-dir", str(root)]) == 0
    assert capsys.readouterr() == ("cache cleared: nothing was cached\n", "")


def test_an_existing_cache_has_nothing_missing(cfg):
    icoframes.load_list("past", progress=False)
    assert icoframes.cache_info().cache_dir_exists and icoframes.cache_info(all=True).exists
    assert icoframes.prune_cache(dt.timedelta(days=1)).missing is None
    assert icoframes.clear_cache().missing is None


@pytest.mark.parametrize("action", ["info", "clear", "prune"])
def test_the_command_says_so_and_exits_0(cfg, tmp_path, capsys, action):
    typo = tmp_path / "cahce"
    older = ["--older-than", "0"] if action == "prune" else []
    assert main(["cache", action, "--cache-dir", str(typo), *older]) == 0
    out, err = capsys.readouterr()
    if action == "info":
        assert '"cache_dir_exists": false' in out
        assert err.strip().endswith(f": the cache dir {typo} does not exist")
    else:
        did = "cleared" if action == "clear" else "pruned"
        assert out.strip() == f"cache not {did}: {typo} does not exist (nothing is cached there)"
    assert not typo.exists() and cfg.stats.requests.total() == 0

"""A relative cache dir names one folder for the process: an ``os.chdir`` (a notebook's
``%cd``) between two loads keeps the cache and its request ledger.

Kept relative, the path was resolved against the current folder at each call: the second
load paid every request again into a second cache with a second ledger, and the key sent
more than ``daily_quota``. The loads run against the sandbox over loopback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import icoframes
from icoframes import sandbox


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=30, seed=2) as server:
        yield server


@pytest.fixture
def two_folders(sb, tmp_path, monkeypatch, clean_settings, one_ledger_day):
    """Two empty current folders, the process in the first; the sandbox's counts reset."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    monkeypatch.chdir(first)
    sb.reset_quota()
    sb.stats.reset()
    return first, second


def _second_load_after_chdir(sb, first, second, monkeypatch):
    rows = len(icoframes.load_icos(status="past", progress=False))
    sent = sb.stats.requests.total()
    assert rows > 0 and sent > 0
    monkeypatch.chdir(second)
    sb.stats.reset()
    assert len(icoframes.load_icos(status="past", progress=False)) == rows
    assert sb.stats.requests.total() == 0  # everything from the first folder's cache
    info = icoframes.cache_info()
    assert info.requests_today == sent  # one ledger, its count whole
    assert Path(info.path).is_relative_to(first)
    assert list(second.iterdir()) == []  # no second cache, no second ledger


def test_a_relative_configured_cache_dir_survives_a_chdir(sb, two_folders, monkeypatch):
    first, second = two_folders
    icoframes.configure(**sb.settings(), cache_dir="mycache")
    _second_load_after_chdir(sb, first, second, monkeypatch)
    assert icoframes.get_settings().cache_dir == first / "mycache"


def test_a_relative_cache_dir_variable_names_the_folder_of_its_first_read(
        sb, two_folders, monkeypatch, tmp_path):
    first, second = two_folders
    # a name of this test's own (the variable's reading is kept until a reset)
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", f"env-{tmp_path.name}")
    icoframes.configure(**sb.settings())
    _second_load_after_chdir(sb, first, second, monkeypatch)
    assert icoframes.get_settings().cache_dir == first / f"env-{tmp_path.name}"


def test_reset_configuration_forgets_the_folder_a_relative_variable_named(
        clean_settings, places, tmp_path, monkeypatch):
    # a suite's fixture: the same variable, each test in a folder of its own, then a reset
    _, first = places
    second = tmp_path / "second"
    second.mkdir()
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", "cache")
    assert icoframes.get_settings().cache_dir == first / "cache"
    monkeypatch.chdir(second)
    assert icoframes.get_settings().cache_dir == first / "cache"  # kept after the chdir
    icoframes.reset_configuration()
    assert icoframes.get_settings().cache_dir == second / "cache"


def test_a_home_cache_dir_variable_follows_home_at_each_read(clean_settings, places, tmp_path,
                                                            monkeypatch):
    home, _ = places
    monkeypatch.setenv("ICOFRAMES_CACHE_DIR", "~/c")
    assert icoframes.get_settings().cache_dir == home / "c"
    monkeypatch.setenv("HOME", str(tmp_path / "other"))
    assert icoframes.get_settings().cache_dir == tmp_path / "other" / "c"  # not the first home


def test_a_pinned_folder_belongs_to_its_setting():
    """Two settings reading the same relative text keep what each read (one key per setting),
    and a reset forgets both."""
    from pathlib import Path

    from icoframes.paths import forget_pinned, pinned_folder

    forget_pinned()
    try:
        assert pinned_folder("cache_dir", "c", Path("/a/c")) == Path("/a/c")
        assert pinned_folder("other", "c", Path("c")) == Path("c")
        assert pinned_folder("cache_dir", "c", Path("/b/c")) == Path("/a/c")  # pinned
    finally:
        forget_pinned()
    assert pinned_folder("cache_dir", "c", Path("/b/c")) == Path("/b/c")
    forget_pinned()

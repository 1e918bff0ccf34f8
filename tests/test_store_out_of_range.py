"""A number no writer gives, or a table laid out otherwise, never wedges a load (issue 18
part 4): a list's time past what a datetime holds, a change counter at the integer limit or
below the stored versions, a copy's version at the limit, a column gone, a failed row's time
out of range, a full disk under an offline load.

Each case loads the sandbox's past ICOs into a fresh cache over loopback, damages the
database with ``sqlite3`` as another program would, and loads again (the sandbox counts the
requests).
"""

from __future__ import annotations

import shutil
import sqlite3
import warnings
from pathlib import Path

import pytest
from test_safety import _fill, _small_disk

import icoframes
from icoframes import sandbox
from icoframes.errors import CacheError, CacheWarning
from icoframes.store.connections import close_idle

LIMIT = 2**63 - 1  # the largest integer SQLite keeps


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=3) as server:
        yield server


def _filled(cache: Path) -> tuple[Path, list[int]]:
    """The database of a cache of every past ICO, and their ids."""
    ids = sorted(icoframes.load_icos(status="past", progress=False)["id"].tolist())
    [db] = cache.rglob("cache.sqlite3")
    assert len(ids) > 5
    return db, ids


def _damage(db: Path, sql: str) -> None:
    with sqlite3.connect(db) as conn:
        assert conn.execute(sql).rowcount >= 1
    close_idle(db.parent.parent, wait=True)  # opened again, as by the next process


def _load(sb, **kwargs) -> tuple[list[int], list[str], dict[str, int]]:
    """The ids a load returns, the CacheWarnings it gave, the requests it sent by kind; any
    other warning (a RuntimeWarning of pandas) fails the test."""
    before = dict(sb.stats.requests)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        ids = sorted(icoframes.load_icos(status="past", progress=False, **kwargs)["id"].tolist())
    assert all(issubclass(w.category, CacheWarning) for w in said), [str(w) for w in said]
    sent = {kind: sb.stats.requests.get(kind, 0) - before.get(kind, 0) for kind in ("icos", "ico")}
    return ids, [str(w.message) for w in said], sent


@pytest.mark.parametrize("column", ["fetched_at", "paged_at"])
@pytest.mark.parametrize("offline", [False, True], ids=["online", "offline"])
def test_a_list_dated_out_of_range_is_removed_and_paged_again(cfg, tmp_path, column, offline):
    db, ids = _filled(tmp_path / "cache")
    _damage(db, f"UPDATE lists SET {column} = {LIMIT} WHERE key != 'filters'")
    if offline:  # nothing to answer from: the list was removed, not read as another time
        with (pytest.warns(CacheWarning, match="removed and is fetched again"),
              pytest.raises(icoframes.NotCached)):
            icoframes.load_icos(status="past", progress=False, offline=True)
    else:
        got, said, sent = _load(cfg)
        assert got == ids and sent["icos"] > 0 and sent["ico"] == 0
        assert len(said) == 1 and "answer" in said[0] and "OverflowError" in said[0], said
    assert _load(cfg)[:2] == (ids, [])


@pytest.mark.parametrize("value", [LIMIT, 1 << 62, -5, 0,
                                   "(SELECT max(version) - 1 FROM profiles)"],
                         ids=["integer limit", "past the versions' limit", "negative", "0",
                              "below the top version"])
def test_a_counter_that_cannot_grow_or_is_below_a_version_is_repaired(cfg, tmp_path, value):
    db, ids = _filled(tmp_path / "cache")
    with sqlite3.connect(db) as conn:
        top = conn.execute("SELECT max(version) FROM profiles").fetchone()[0]
    _damage(db, f"UPDATE meta SET value = {value} WHERE key = 'version'")
    got, said, sent = _load(cfg, refresh="all")  # every copy fetched again, and kept
    assert got == ids and sent["ico"] == len(ids)
    assert len(said) == 1 and f"it was set to {top + 1} and the tables are rebuilt" in said[0]
    with sqlite3.connect(db) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        versions = conn.execute("SELECT min(version), max(version) FROM profiles").fetchone()
    assert versions == (top + 1 + 1, top + 1 + len(ids)) and meta["version"] == versions[1]
    _, said, sent = _load(cfg, refresh="all")  # it grows: the next refresh fetches them all
    assert said == [] and sent["ico"] == len(ids)


def test_a_copy_at_the_versions_limit_is_set_aside_and_fetched_again(cfg, tmp_path):
    db, ids = _filled(tmp_path / "cache")
    _damage(db, f"UPDATE profiles SET version = {LIMIT} WHERE id = {ids[0]}")
    got, said, sent = _load(cfg)
    assert got == ids and sent == {"icos": 0, "ico": 1}
    assert len(said) == 1 and f"ids [{ids[0]}]" in said[0], said
    _, said, sent = _load(cfg, refresh="all")
    assert said == [] and sent["ico"] == len(ids)


@pytest.mark.parametrize("sql", ["ALTER TABLE profiles DROP COLUMN failed_at",
                                 "ALTER TABLE lists DROP COLUMN problems"],
                         ids=["profiles", "lists"])
def test_a_table_missing_a_column_says_how_to_clear_the_cache(cfg, tmp_path, sql):
    db, _ = _filled(tmp_path / "cache")
    with sqlite3.connect(db) as conn:
        conn.execute(sql)
    close_idle(tmp_path / "cache", wait=True)
    with pytest.raises(CacheError) as caught:
        icoframes.load_icos(status="past", progress=False)
    assert f"the cache database {db} is not laid out as this version" in str(caught.value)
    assert "`icoframes cache clear`, or icoframes.clear_cache()" in str(caught.value)
    icoframes.clear_cache()
    close_idle(tmp_path / "cache", wait=True)
    assert len(_load(cfg)[0]) > 5


def test_a_failed_row_out_of_range_says_nothing_but_the_cache_warning(cfg, tmp_path):
    db, ids = _filled(tmp_path / "cache")
    _damage(db, f"UPDATE profiles SET state = 'failed', raw = NULL, version = NULL, reason = 'x',"
            f" attempts = -3, failed_at = {LIMIT} WHERE id = {ids[0]}")
    got, said, sent = _load(cfg)  # (a RuntimeWarning of pandas would fail in _load)
    assert got == ids and sent == {"icos": 0, "ico": 1}
    assert len(said) == 1 and f"ids [{ids[0]}]" in said[0], said


def test_a_rebuild_meeting_a_copy_that_does_not_decode_fetches_it_in_the_same_call(cfg,
                                                                                  tmp_path):
    db, ids = _filled(tmp_path / "cache")
    _damage(db, f"UPDATE profiles SET raw = '5' WHERE id = {ids[0]}")
    shutil.rmtree(db.parent / "tables")  # rebuilt (as after a new parser): every raw read
    got, said, sent = _load(cfg)
    assert got == ids and sent == {"icos": 0, "ico": 1}
    assert len(said) == 1 and f"ids [{ids[0]}]" in said[0], said
    assert _load(cfg)[1:] == ([], {"icos": 0, "ico": 0})


def test_an_offline_load_on_a_full_disk_is_answered_from_tables_built_in_memory(sb, tmp_path):
    with _small_disk(tmp_path / "disk", "8m") as disk:
        icoframes.configure(**sb.settings(), cache_dir=disk / "cache")
        sb.reset_quota()
        try:
            db, ids = _filled(disk / "cache")
            shutil.rmtree(db.parent / "tables")  # to be built again: no room to keep them
            close_idle(disk / "cache", wait=True)
            filler = _fill(disk, 0)
            got, said, sent = _load(sb, offline=True)
            assert got == ids and sent == {"icos": 0, "ico": 0}
            assert said and all("is full" in message and "built in memory" in message
                                for message in said), said
            with pytest.raises(CacheError, match="is full"):  # online: it must keep them
                icoframes.load_icos(status="past", progress=False)
            filler.unlink()
            assert _load(sb, offline=True)[1:] == ([], {"icos": 0, "ico": 0})
            assert (db.parent / "tables" / "icos.parquet").exists()
        finally:
            close_idle(disk / "cache", wait=True)
            icoframes.reset_configuration()

"""Quarantine removes only what is still damaged, and the change counter never counts back.

Removing an unreadable copy is a write of its own, after the read that found it: a copy
another process stored in between (the same id fetched again) is kept, as is a row another
process repaired; a copy kept after the counter was damaged gets a version past every
other (a version handed out twice would have a refresh take an old copy for a new one). A
time out of range (a damaged integer) is found by the scan like a field of the wrong type.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import warnings

import pytest

from icoframes.errors import CacheWarning
from icoframes.sandbox import generate_directory
from icoframes.store.cache import Cache, ProfileRecord
from icoframes.store.db import ms
from icoframes.store.derived import DerivedTables
from icoframes.store.rows import damaged_profiles

DIRECTORY = generate_directory(12, seed=5)
IDS = DIRECTORY.ids("past")[:4]


def _copy(ico_id: int, raw: str | None = None) -> ProfileRecord:
    return ProfileRecord(ico_id, "past", None,
                         json.dumps(DIRECTORY.profile(ico_id)) if raw is None else raw)


@pytest.fixture
def cache(tmp_path) -> Cache:
    cache = Cache(tmp_path / "cache", "http://127.0.0.1:9")
    cache.record(*(_copy(i) for i in IDS))
    return cache


def _sql(cache: Cache, sql: str, *args: object) -> list[tuple]:
    with sqlite3.connect(cache.path) as conn:
        return conn.execute(sql, args).fetchall()


def test_a_copy_stored_after_the_unreadable_one_was_read_is_kept(cache, recwarn):
    [bad] = cache.record(_copy(IDS[0], raw="{not json"))
    [good] = cache.record(_copy(IDS[0]))  # another process fetched it again meanwhile
    cache.quarantine({IDS[0]: bad}, "not JSON")
    assert _sql(cache, "SELECT version FROM profiles WHERE id = ?", IDS[0]) == [(good,)]
    assert not [w for w in recwarn if issubclass(w.category, CacheWarning)]
    cache.quarantine({IDS[0]: good}, "not JSON")  # the copy seen is the one kept: removed
    assert _sql(cache, "SELECT version FROM profiles WHERE id = ?", IDS[0]) == []


def test_a_row_repaired_since_the_scan_is_kept(cache):
    _sql(cache, "UPDATE profiles SET fetched_at = 'x' WHERE id = ?", IDS[1])
    with sqlite3.connect(cache.path) as conn:
        assert damaged_profiles(conn) == [IDS[1]]
    _sql(cache, "UPDATE profiles SET fetched_at = 1 WHERE id = ?", IDS[1])  # repaired since
    cache.quarantine({IDS[1]: None}, "a field not of its type")
    assert _sql(cache, "SELECT count(*) FROM profiles") == [(len(IDS),)]


@pytest.mark.parametrize("damage", ["UPDATE meta SET value = 'x' WHERE key = 'version'",
                                    "UPDATE meta SET value = 2.5 WHERE key = 'version'",
                                    "DELETE FROM meta WHERE key = 'version'"])
def test_a_copy_kept_after_the_counter_was_damaged_gets_a_version_past_every_other(cache,
                                                                                    damage):
    top = _sql(cache, "SELECT max(version) FROM profiles")[0][0]
    _sql(cache, damage)
    with pytest.warns(CacheWarning, match="change counter of .* was damaged"):
        [version] = cache.record(_copy(IDS[2]))
    assert version > top
    assert _sql(cache, "SELECT value FROM meta WHERE key = 'version'") == [(version,)]
    versions = [v for (v,) in _sql(cache, "SELECT version FROM profiles")]
    assert len(set(versions)) == len(versions)


@pytest.mark.parametrize("column", ["fetched_at", "failed_at"])
# (2300 reads on pandas 3, not as pandas 2.2's nanoseconds: out of range on both)
@pytest.mark.parametrize("value", [2 ** 62, -(2 ** 62), 10_413_792_000_000])
def test_a_time_out_of_range_is_quarantined_not_fatal(cache, column, value):
    _sql(cache, f"UPDATE profiles SET {column} = ? WHERE id = ?", value, IDS[3])
    with pytest.warns(CacheWarning, match=rf"not of its type or range.*ids \[{IDS[3]}\]"):
        index = cache.profile_index()
    assert sorted(index.index) == sorted(IDS[:3])


def test_a_time_out_of_range_met_by_the_tables_is_quarantined(cache):
    _sql(cache, "UPDATE profiles SET fetched_at = ? WHERE id = ?", 2 ** 62, IDS[3])
    with pytest.warns(CacheWarning, match=rf"ids \[{IDS[3]}\]"):
        icos = DerivedTables(cache).table("icos")
    assert sorted(icos["id"]) == sorted(IDS[:3])
    assert _sql(cache, "SELECT count(*) FROM profiles WHERE id = ?", IDS[3]) == [(0,)]


@pytest.mark.parametrize("when", ["1677-09-22", "1969-06-01", "1970-01-01", "2262-02-01",
                                  "2262-04-10"])
def test_a_time_pandas_can_read_is_no_damage(cache, recwarn, when):
    at = ms(dt.datetime.fromisoformat(when).replace(tzinfo=dt.UTC))
    _sql(cache, "UPDATE profiles SET fetched_at = ?, failed_at = ? WHERE id = ?", at, at, IDS[3])
    assert sorted(cache.profile_index().index) == sorted(IDS)
    assert sorted(DerivedTables(cache).table("icos")["id"]) == sorted(IDS)
    assert not [w for w in recwarn if issubclass(w.category, CacheWarning)]


def test_a_repair_said_as_an_error_is_kept_with_the_copy(cache):
    _sql(cache, "UPDATE meta SET value = 'x' WHERE key = 'version'")
    with warnings.catch_warnings():  # (a program that makes warnings errors)
        warnings.simplefilter("error", CacheWarning)
        with pytest.raises(CacheWarning, match="change counter"):
            cache.record(_copy(IDS[2]))
    [(version,)] = _sql(cache, "SELECT value FROM meta WHERE key = 'version'")
    assert _sql(cache, "SELECT version FROM profiles WHERE id = ?", IDS[2]) == [(version,)]
    assert cache.record(_copy(IDS[1])) == [version + 1]  # repaired once: no more warnings


def test_quarantine_gives_the_removal_mark_when_no_other_removal_came_between(cache):
    # (a reader that built its tables before the removal keeps their state with this mark;
    # another removal between could have taken rows its tables hold: no mark, rebuilt)
    with cache.snapshot() as snap:
        seen = snap.removed
    versions = cache.profile_index()["version"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CacheWarning)
        mark = cache.quarantine({IDS[0]: int(versions[IDS[0]])}, "not JSON", removed=seen)
        with cache.snapshot() as snap:
            assert mark == snap.removed == snap.version > seen
        assert cache.quarantine({IDS[1]: int(versions[IDS[1]])}, "not JSON",
                                removed=seen) is None  # (one came between)
        assert cache.quarantine({IDS[1]: 1}, "not JSON", removed=seen) == seen  # none removed

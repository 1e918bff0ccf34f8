"""One damaged field of one stored row never wedges a load (issue 18 part 4: "a corrupt or
unreadable record is quarantined and refetched, never fatal to other loads").

SQLite keeps whatever another program, or a damaged byte on disk, leaves in a column: text
in an INTEGER one, text that is not UTF-8 (Python's ``sqlite3`` refuses the whole
statement), a raw profile that is JSON but another record. Each case damages one field of
one row with ``sqlite3`` directly, then loads online, offline and with ``refresh=True``: the
other rows come back, a :class:`CacheWarning` names the damaged id, and the damaged one is
fetched again (the sandbox counts the requests): by the same load when the planner's index
or the tables' rebuild before planning meets it, by the next when the load was offline. A
damaged change counter is repaired.
"""

from __future__ import annotations

import shutil
import sqlite3
import warnings
from pathlib import Path

import pytest
from test_read_only_cache_wants import _read_only_view

import icoframes
from icoframes import sandbox
from icoframes.errors import CacheWarning

# each a statement on the row ``:id`` (the first past ICO); the copy it damages is read by
# the planner's index (``index``) or only when the tables are rebuilt from the raw text
# (before planning online; offline, the tables of the load)
ROWS = {
    "fetched_at as text": ("UPDATE profiles SET fetched_at = 'x' WHERE id = :id", "index"),
    "attempts as text": ("UPDATE profiles SET attempts = 'x' WHERE id = :id", "index"),
    "version as text": ("UPDATE profiles SET version = 'x' WHERE id = :id", "index"),
    "fetched_at out of range": ("UPDATE profiles SET fetched_at = 1 << 62 WHERE id = :id",
                                "index"),
    "summary not UTF-8": ("UPDATE profiles SET summary = CAST(x'7bc3' AS TEXT) WHERE id = :id",
                          "index"),
    "status a blob": ("UPDATE profiles SET status = x'ff00' WHERE id = :id", "index"),
    "raw not UTF-8": ("UPDATE profiles SET raw = CAST(CAST(raw AS BLOB) || x'c3' AS TEXT) "
                      "WHERE id = :id", "rebuild"),
    "raw another id's profile": ("UPDATE profiles SET raw = (SELECT raw FROM profiles WHERE "
                                 "id != :id AND state = 'fetched' ORDER BY id DESC LIMIT 1) "
                                 "WHERE id = :id", "rebuild"),
    "raw an empty object": ("UPDATE profiles SET raw = '{}' WHERE id = :id", "rebuild"),
    "raw a number": ("UPDATE profiles SET raw = '5' WHERE id = :id", "rebuild"),
}
MODES = {"online": {}, "offline": {"offline": True}, "refresh": {"refresh": True}}


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=40, seed=3) as server:
        yield server


def _database(cache: Path) -> Path:
    [db] = cache.rglob("cache.sqlite3")
    return db


def _filled(cfg, tmp_path: Path) -> tuple[Path, list[int], int]:
    """A cache of every past ICO; its database, the ids, the first (the one damaged)."""
    ids = sorted(icoframes.load_icos(status="past", progress=False)["id"].tolist())
    assert len(ids) > 5
    return _database(tmp_path / "cache"), ids, ids[0]


def _damage(db: Path, sql: str, ico_id: int) -> None:
    with sqlite3.connect(db) as conn:
        assert conn.execute(sql, {"id": ico_id}).rowcount == 1


def _load(sb, **kwargs) -> tuple[list[int], list[str], int]:
    """The ids a load returns, the CacheWarnings it gave, the profile requests it sent."""
    sent = sb.stats.requests.get("ico", 0)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        ids = sorted(icoframes.load_icos(status="past", progress=False, **kwargs)["id"].tolist())
    return (ids, [str(w.message) for w in said if issubclass(w.category, CacheWarning)],
            sb.stats.requests.get("ico", 0) - sent)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", ROWS)
def test_one_damaged_field_is_quarantined_and_fetched_again(cfg, tmp_path, case, mode):
    db, ids, damaged = _filled(cfg, tmp_path)
    sql, read_by = ROWS[case]
    _damage(db, sql, damaged)
    if read_by == "rebuild":  # (any change that rebuilds the tables reads every raw text)
        shutil.rmtree(db.parent / "tables")
    hits = cfg.stats.profile_hits[damaged]
    got, said, sent = _load(cfg, **MODES[mode])
    assert all(f"ids [{damaged}]" in message for message in said), said
    if mode != "offline":  # found while planning (or by the rebuild before it): fetched now
        assert got == ids and said and "removed and will be fetched again" in said[0]
        assert cfg.stats.profile_hits[damaged] == hits + 1
        assert sent == 1 or mode == "refresh"
        return
    if read_by == "index":  # offline: the rows come from the tables (built before the damage)
        assert got == ids and sent == 0
    else:  # found as the tables are built, offline: left out of this load, said
        assert got == [i for i in ids if i != damaged] and said and sent == 0
    again, more, sent = _load(cfg)  # the next load fetches it again
    assert again == ids and sent == 1 and cfg.stats.profile_hits[damaged] == hits + 1
    said += more
    assert len(said) == 1 and f"ids [{damaged}]" in said[0], said
    assert "removed and will be fetched again" in said[0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("value", ["'x'", "NULL", "2.5"])
def test_a_damaged_change_counter_is_repaired_and_the_tables_rebuilt(cfg, tmp_path, mode,
                                                                     value):
    db, ids, _ = _filled(cfg, tmp_path)
    with sqlite3.connect(db) as conn:
        if value == "NULL":  # (NOT NULL: the row gone)
            conn.execute("DELETE FROM meta WHERE key = 'version'")
        else:
            conn.execute(f"UPDATE meta SET value = {value} WHERE key = 'version'")
    got, said, sent = _load(cfg, **MODES[mode])
    assert got == ids
    assert len(said) == 1 and "the change counter" in said[0], said
    assert sent == (0 if mode != "refresh" else sent)
    with sqlite3.connect(db) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        top = conn.execute("SELECT max(version) FROM profiles").fetchone()[0]
    assert isinstance(meta["version"], int) and meta["version"] >= top
    # a copy kept after the repair reaches the tables (its version is past theirs)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE profiles SET fetched_at = 'x' WHERE id = ?", (ids[-1],))
    again, said, sent = _load(cfg)
    assert again == ids and sent == 1 and f"ids [{ids[-1]}]" in said[0]
    assert _load(cfg, offline=True)[:2] == (ids, [])


def test_a_read_only_cache_leaves_the_damaged_row_out_and_sends_nothing(cfg, tmp_path):
    db, ids, damaged = _filled(cfg, tmp_path)
    _damage(db, ROWS["raw not UTF-8"][0], damaged)
    shutil.rmtree(db.parent / "tables")  # rebuilt in memory: every raw text read
    with sqlite3.connect(db) as conn:  # (the filler's log folded in: readable without it)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with _read_only_view(tmp_path / "cache") as view:
        icoframes.configure(**cfg.settings(), cache_dir=view)
        got, said, sent = _load(cfg, offline=True)
        assert got == [i for i in ids if i != damaged] and sent == 0
        assert said and "read-only here" in said[0] and f"ids [{damaged}]" in said[0]
    with sqlite3.connect(db) as conn:  # nothing removed: it could not be
        assert conn.execute("SELECT count(*) FROM profiles WHERE id = ?",
                            (damaged,)).fetchone() == (1,)


def test_a_list_not_utf8_is_removed_and_paged_again(cfg, tmp_path):
    db, ids, _ = _filled(cfg, tmp_path)
    with sqlite3.connect(db) as conn:  # a byte of the past list's text damaged
        assert conn.execute("UPDATE lists SET raw = CAST(CAST(raw AS BLOB) || x'c3' AS TEXT) "
                            "WHERE key != 'filters'").rowcount == 1
    pages = cfg.stats.requests.get("icos", 0)
    got, said, sent = _load(cfg)
    assert got == ids and sent == 0 and cfg.stats.requests.get("icos", 0) > pages
    assert len(said) == 1 and "answer" in said[0] and "removed and is fetched again" in said[0]
    assert _load(cfg, offline=True)[:2] == (ids, [])


@pytest.mark.parametrize("at", [1 << 62, -(1 << 62)], ids=["after 2262", "before 1677"])
def test_a_time_out_of_range_met_by_the_tables_rebuild_is_left_out(cfg, tmp_path, at):
    """A ``fetched_at`` no clock gave (out of ``store.rows.TIME_RANGE``, pandas' nanosecond
    times) that the tables' rebuild meets first (offline: no profile index is read): the
    copies read for the tables leave its row out, said (a CacheWarning naming the id); the
    next load fetches it again."""
    db, ids, damaged = _filled(cfg, tmp_path)
    _damage(db, f"UPDATE profiles SET fetched_at = {at} WHERE id = :id", damaged)
    shutil.rmtree(db.parent / "tables")
    got, said, sent = _load(cfg, offline=True)
    assert got == [i for i in ids if i != damaged] and sent == 0
    assert len(said) == 1 and f"ids [{damaged}]" in said[0], said
    again, more, sent = _load(cfg)
    assert again == ids and sent == 1 and not more

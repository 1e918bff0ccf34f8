"""Database.sync (icoframes/store/db.py) writes only the file its connection has, and a read
of the derived tables (icoframes/store/derived.py) never fails because another process holds
the cache's write lock.

The sync is a commit on a connection of its own, and SQLite follows a link in a database's
name (``nofollow`` does not stop it): a link put in place of the cache's file, before the
sync or while it opens its file, would have it commit into the link's target, outside the
cache. A FIFO in place of the file is never opened. A writer stopped holding the write lock
(Ctrl-Z) made the sync wait a lease and then fail the read: the tables are returned, and
their state is left for the next read.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from icoframes.errors import CacheError
from icoframes.store.cache import Cache, ProfileRecord
from icoframes.store.db import Database, open_database
from icoframes.store.derived import DerivedTables

SCHEMA = "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT);"
URL = "http://127.0.0.1:9"


def _db(tmp_path: Path) -> Database:
    db = open_database(tmp_path, tmp_path / "folder" / "data.sqlite3", SCHEMA, write=True)
    assert db is not None
    db.rows("INSERT INTO t VALUES (1, 'a')", write=True)  # the connection is open
    return db


def _victim(tmp_path: Path) -> Path:
    """A database outside the cache (a file of the user's that a link points to)."""
    victim = tmp_path / "outside" / "victim.sqlite3"
    victim.parent.mkdir()
    conn = sqlite3.connect(victim)
    conn.executescript("CREATE TABLE mine (x); INSERT INTO mine VALUES (42);")
    conn.close()
    return victim


def _state(victim: Path) -> tuple[bytes, list[str]]:
    return victim.read_bytes(), sorted(os.listdir(victim.parent))


@pytest.mark.parametrize("planted", ["link", "fifo"])
def test_sync_refuses_what_was_put_in_place_of_the_database_and_writes_nothing(
        tmp_path, planted):
    db = _db(tmp_path)
    victim = _victim(tmp_path)
    before = _state(victim)
    os.replace(db.path, f"{db.path}.moved")  # the live file moved aside, something put in
    if planted == "link":
        os.symlink(victim, db.path)
    else:
        os.mkfifo(db.path)  # (opened, a read of it would wait for a writer)
    try:
        with pytest.raises(CacheError) as caught:
            db.sync()
    finally:
        db.close()
    assert str(caught.value) == f"the cache database {db.path} cannot be synced: it was replaced"
    assert _state(victim) == before


def test_sync_refuses_a_link_put_in_place_as_its_connection_opens_and_writes_nothing(
        tmp_path, monkeypatch):
    db = _db(tmp_path)
    victim = _victim(tmp_path)
    before = _state(victim)
    connect = sqlite3.connect
    swapped: list[str] = []

    def swapping_connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        # the file was a plain one, the main connection's, when the sync looked at it
        os.replace(db.path, f"{db.path}.moved")
        os.symlink(victim, db.path)
        swapped.append(str(args[0]))
        return connect(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite3, "connect", swapping_connect)
    try:
        with pytest.raises(CacheError) as caught:
            db.sync()
    finally:
        monkeypatch.setattr(sqlite3, "connect", connect)
        db.close()
    assert len(swapped) == 1
    assert str(caught.value) == f"the cache database {db.path} cannot be synced: it was replaced"
    assert _state(victim) == before


def test_sync_is_skipped_while_another_process_holds_the_write_lock(tmp_path):
    db = _db(tmp_path)
    other = sqlite3.connect(db.path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # a writer stopped (Ctrl-Z) in its transaction
        assert db.sync() is False
        other.execute("ROLLBACK")
        assert db.sync() is True
    finally:
        other.close()
        db.close()


def test_the_tables_are_read_while_another_process_holds_the_write_lock_their_state_left(
        tmp_path):
    cache = Cache(tmp_path / "cache", URL)
    cache.record(*(ProfileRecord(i, "past", f"s{i}", f'{{"id": {i}, "main": {{"name": "n{i}"}}}}')
                   for i in (1, 2, 3)))
    other = sqlite3.connect(cache.path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        derived = DerivedTables(cache)
        assert sorted(derived.table("icos")["id"].tolist()) == [1, 2, 3]
        assert not derived._state_path.exists()  # its commits could not be made durable
        other.execute("ROLLBACK")
        derived = DerivedTables(cache)
        assert sorted(derived.table("icos")["id"].tolist()) == [1, 2, 3]
        assert derived._state_path.exists()  # the next read brought it up to date
    finally:
        other.close()

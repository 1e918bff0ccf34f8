"""The derived tables' writes (icoframes/store/derived.py): the database is synced beside
the table files, not after them (each waits on its own fdatasync calls), and the state,
which writes down the versions the tables hold, only once both are done."""

from __future__ import annotations

import threading

from waiting import HANG_GUARD

from icoframes.store import derived as module
from icoframes.store.cache import Cache, ProfileRecord
from icoframes.store.db import Database
from icoframes.store.derived import DerivedTables

URL = "http://127.0.0.1:9"


def test_the_database_is_synced_beside_the_table_files_and_the_state_written_after_both(
        tmp_path, monkeypatch):
    cache = Cache(tmp_path / "cache", URL)
    cache.record(*(ProfileRecord(i, "past", f"s{i}", f'{{"id": {i}, "main": {{"name": "n{i}"}}}}')
                   for i in (1, 2, 3)))
    events: list[str] = []
    lock = threading.Lock()
    syncing = threading.Event()
    sync, write, state = Database.sync, DerivedTables._write, module.atomic_write_bytes

    def synced(self):
        with lock:
            events.append("sync started")
        syncing.set()
        done = sync(self)
        with lock:
            events.append("sync done")
        return done

    def written(self, name, rows, ids=None):
        assert syncing.wait(HANG_GUARD), "the sync waited for the table files"
        write(self, name, rows, ids)
        with lock:
            events.append(f"{name} written")

    def state_written(path, data):
        with lock:
            events.append(f"{path.name} written")
        state(path, data)

    monkeypatch.setattr(Database, "sync", synced)
    monkeypatch.setattr(DerivedTables, "_write", written)
    monkeypatch.setattr(module, "atomic_write_bytes", state_written)
    icos = DerivedTables(cache).table("icos")
    assert sorted(icos["id"].tolist()) == [1, 2, 3]
    assert events[0] == "sync started" and events[-1] == "_state.json written"
    assert set(events[1:-1]) == {"sync done", "icos written"}

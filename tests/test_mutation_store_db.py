"""The cache's SQLite files, directly on real files in ``tmp_path``: what mutants of
store/db.py survived (``make mutate MODULE=store:db``).

Stored times are whole milliseconds since the epoch; a cache dir or cache folder is
refused with a message saying why (not a folder, a link, another user's, writable by
others) and made 0700 when new; a link, a FIFO or a damaged file in place of a
database or its side files is set aside as ``*.corrupt`` with a warning; a database is
opened in WAL mode with the documented pragmas; a failing statement rolls its
transaction back and is a :class:`CacheError` naming the file.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sqlite3
import stat
import sys
import threading
import time
from pathlib import Path

import pytest
from waiting import HANG_GUARD

from icoframes.errors import CacheError, CacheWarning
from icoframes.store.connections import close_idle
from icoframes.store.db import (
    BUSY_SECONDS,
    LEASE,
    Database,
    disk_full,
    from_ms,
    ms,
    open_database,
)
from icoframes.store.folders import check_cache_dir

SCHEMA = "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT);"
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _db(tmp_path: Path, name: str = "data.sqlite3") -> Database:
    folder = tmp_path / "folder"
    db = open_database(tmp_path, folder / name, SCHEMA, write=True)
    assert db is not None
    db.rows("SELECT 1", write=True)  # the file, with the schema
    return db


def test_times_are_whole_milliseconds_since_the_epoch():
    when = dt.datetime(2030, 1, 1, 12, 0, 0, 1999, tzinfo=dt.UTC)
    assert ms(when) == 1893499200001
    assert ms(EPOCH - dt.timedelta(microseconds=1)) == -1  # floored, not truncated
    assert from_ms(1893499200001) == dt.datetime(2030, 1, 1, 12, 0, 0, 1000, tzinfo=dt.UTC)
    assert from_ms(0) == EPOCH and from_ms(None) is None
    assert LEASE == BUSY_SECONDS == 20.0


def test_a_full_disk_says_where_what_was_lost_and_what_to_do(tmp_path):
    assert str(disk_full(tmp_path)) == (
        f"the disk holding the cache {tmp_path} is full: nothing more can be kept. What was "
        "kept before is whole; free some space and call again to go on.")
    assert str(disk_full(tmp_path, "the tables were not written")).startswith(
        f"the disk holding the cache {tmp_path} is full: the tables were not written. What")


def test_a_missing_cache_dir_is_made_private_only_when_writing(tmp_path):
    root = tmp_path / "a" / "cache"
    assert check_cache_dir(root, create=False) is False and not root.exists()
    assert open_database(root, root / "svc" / "x.sqlite3", SCHEMA, write=False) is None
    assert not root.exists()
    assert check_cache_dir(root, create=True) is True
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    db = open_database(root, root / "svc" / "x.sqlite3", SCHEMA, write=True)
    assert isinstance(db, Database) and db.path == root / "svc" / "x.sqlite3"
    assert stat.S_IMODE((root / "svc").stat().st_mode) == 0o700
    assert open_database(root, root / "other" / "x.sqlite3", SCHEMA, write=False) is None
    assert not (root / "other").exists()


def test_a_cache_dir_may_be_a_link_but_a_cache_folder_never(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (real / "svc").mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    assert check_cache_dir(link, create=False) is True
    (real / "svc-link").symlink_to(real / "svc")
    with pytest.raises(CacheError) as caught:
        open_database(real, real / "svc-link" / "x.sqlite3", SCHEMA, write=True)
    assert str(caught.value) == (
        f"{real / 'svc-link'} is a symbolic link: a cache folder is never followed elsewhere. "
        "Move it away (or set cache_dir to where it points).")
    (real / "file").write_text("x")
    with pytest.raises(CacheError, match=r"file is not a folder: a cache folder is never"):
        open_database(real, real / "file" / "x.sqlite3", SCHEMA, write=False)
    with pytest.raises(CacheError) as caught:
        check_cache_dir(real / "file", create=True)
    assert str(caught.value) == (
        f"the cache dir {real / 'file'} is no folder: it is a file. Set ICOFRAMES_CACHE_DIR or "
        "icoframes.configure(cache_dir=...) to a folder of your own.")


def test_a_folder_others_may_write_to_is_refused_with_the_fix(tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    root.chmod(0o720)  # the group may write
    with pytest.raises(CacheError) as caught:
        check_cache_dir(root, create=False)
    assert str(caught.value) == (
        f"the cache dir {root} is refused: others may write to it (mode 720): they could plant "
        f"data you would load; `chmod go-w {root}` if it is yours alone. Set ICOFRAMES_CACHE_DIR"
        " or icoframes.configure(cache_dir=...) to a folder of your own.")
    root.chmod(0o702)
    with pytest.raises(CacheError, match=r"mode 702"):
        check_cache_dir(root, create=False)
    root.chmod(0o755)  # readable by all is fine
    assert check_cache_dir(root, create=False) is True
    (root / "svc").mkdir(mode=0o777)
    (root / "svc").chmod(0o777)
    with pytest.raises(CacheError) as caught:
        open_database(root, root / "svc" / "x.sqlite3", SCHEMA, write=False)
    assert str(caught.value) == (
        f"the cache folder {root / 'svc'} is refused: others may write to it (mode 777): they "
        f"could plant data you would load; `chmod go-w {root / 'svc'}` if it is yours alone")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="needs root: a folder owned by another user")
def test_a_folder_of_another_user_is_refused(tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    os.chown(root, 54321, -1)
    with pytest.raises(CacheError) as caught:
        check_cache_dir(root, create=False)
    assert str(caught.value) == (
        f"the cache dir {root} is refused: it belongs to another user (uid 54321; you are uid "
        f"{os.getuid()}): whoever owns it could plant data you would load. Set "
        "ICOFRAMES_CACHE_DIR or icoframes.configure(cache_dir=...) to a folder of your own.")


def test_a_database_is_opened_in_wal_mode_with_the_documented_pragmas(tmp_path):
    db = _db(tmp_path)
    assert db.rows("INSERT INTO t VALUES (1, 'a') RETURNING k", write=True) == [(1,)]
    with db.read() as conn:
        assert conn is not None
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1024
        assert conn.execute("PRAGMA journal_size_limit").fetchone()[0] == 4 << 20
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 20000
        assert conn.in_transaction  # one snapshot
    assert db.rows("SELECT k, v FROM t") == [(1, "a")]
    assert repr(db) == f"Database({str(db.path)!r}, read_only=False)"
    assert Database.at(db.path, SCHEMA) is db


def test_reading_a_database_not_yet_made_makes_nothing(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    db = Database(folder / "new.sqlite3", SCHEMA)
    with db.read() as conn:
        assert conn is None
    assert db.rows("SELECT k FROM t") == []
    assert list(folder.iterdir()) == []
    db.rows("INSERT INTO t VALUES (2, 'b')", write=True)
    assert db.rows("SELECT v FROM t") == [("b",)]


def test_a_failing_block_rolls_its_transaction_back(tmp_path):
    db = _db(tmp_path)
    with pytest.raises(KeyError), db.write() as conn:
        conn.execute("INSERT INTO t VALUES (1, 'a')")
        raise KeyError("stop")
    assert db.rows("SELECT count(*) FROM t") == [(0,)]
    with db.write() as conn:  # the connection is usable again
        conn.execute("INSERT INTO t VALUES (1, 'a')")
    assert db.rows("SELECT v FROM t") == [("a",)]


@pytest.mark.parametrize("name", ["cache.sqlite3", "ledger.sqlite3"])
def test_a_column_missing_says_the_layout_and_the_fix_for_that_file(tmp_path, name):
    db = _db(tmp_path, name)
    with pytest.raises(CacheError) as caught:
        db.rows("SELECT missing FROM t")
    assert str(caught.value).startswith(
        f"the cache database {db.path} is not laid out as this version of icoframes writes it "
        "(no such column: missing): another program changed it. ")
    assert str(caught.value).endswith("icoframes.clear_cache()); what it held is fetched again"
                                      if name == "cache.sqlite3" else ". Remove it")


def test_a_failing_statement_is_a_cache_error_naming_the_file(tmp_path):
    db = _db(tmp_path)
    with pytest.raises(CacheError) as caught:
        db.rows("SELECT missing()")  # (a column missing is another layout: said so)
    assert str(caught.value).startswith(f"the cache database {db.path} failed: no such function")
    with pytest.raises(CacheError, match="failed: UNIQUE constraint"):
        db.rows("INSERT INTO t VALUES (1, 'a'), (1, 'b')", write=True)
    assert db.rows("SELECT count(*) FROM t") == [(0,)]


def test_a_database_replaced_or_removed_is_opened_again(tmp_path):
    db = _db(tmp_path)
    db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    db.close()
    db.close()  # idempotent
    assert db.rows("SELECT v FROM t") == [("a",)]
    for side in ("", "-wal", "-shm"):
        Path(f"{db.path}{side}").unlink(missing_ok=True)
    assert db.rows("SELECT k FROM t", write=True) == []  # a new file, with the schema
    other = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(other)
    conn.executescript(SCHEMA + "INSERT INTO t VALUES (7, 'new');")
    conn.close()
    db.close()  # another process replaces the database (with no log left: journal mode delete)
    for side in ("-wal", "-shm"):
        Path(f"{db.path}{side}").unlink(missing_ok=True)
    os.replace(other, db.path)
    assert db.rows("SELECT k, v FROM t") == [(7, "new")]


def test_close_idle_waiting_closes_the_databases_in_a_folder_only(tmp_path):
    inside = Database.at(tmp_path / "a" / "x.sqlite3", SCHEMA)
    outside = Database.at(tmp_path / "b" / "x.sqlite3", SCHEMA)
    for db in (inside, outside):
        db.path.parent.mkdir()
        db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    close_idle(tmp_path / "a", wait=True)
    assert inside._conn is None and outside._conn is not None
    assert inside.rows("SELECT v FROM t") == [("a",)]


@pytest.mark.parametrize("side", ["", "-wal", "-shm", "-journal"])
def test_a_link_in_place_of_a_database_file_is_set_aside_never_followed(tmp_path, side):
    folder = tmp_path / "folder"
    folder.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_text("mine")
    planted = folder / f"data.sqlite3{side}"
    planted.symlink_to(victim)
    db = Database(folder / "data.sqlite3", SCHEMA)
    with pytest.warns(CacheWarning) as caught:
        db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    assert [str(w.message) for w in caught] == [
        f"icoframes cache file {planted} is a symbolic link; it was set aside as *.corrupt and "
        "what it held will be fetched again"]
    assert Path(f"{planted}.corrupt").is_symlink() and victim.read_text() == "mine"
    assert db.rows("SELECT v FROM t") == [("a",)]


def test_a_fifo_in_place_of_a_database_is_set_aside_unopened(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir(mode=0o700)
    os.mkfifo(folder / "data.sqlite3")
    db = Database(folder / "data.sqlite3", SCHEMA)
    with pytest.warns(CacheWarning, match=r"data.sqlite3 is not a plain file; it was set aside"), \
            db.read() as conn:
        assert conn is None  # set aside: no file left to read
    assert stat.S_ISFIFO((folder / "data.sqlite3.corrupt").lstat().st_mode)


def test_a_file_that_is_no_database_is_set_aside_and_made_again(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir(mode=0o700)
    (folder / "data.sqlite3").write_bytes(b"not a database at all, " * 100)
    db = Database(folder / "data.sqlite3", SCHEMA)
    with pytest.warns(CacheWarning, match=r"is not a readable database \(file is not a "
                                          r"database\); it was set aside as \*.corrupt"):
        db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    assert (folder / "data.sqlite3.corrupt").read_bytes().startswith(b"not a database")
    assert db.rows("SELECT v FROM t") == [("a",)] and not db.read_only


def test_a_database_damaged_while_open_is_set_aside_and_the_call_says_so(tmp_path):
    db = _db(tmp_path)
    db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    db.close()
    for side in ("-wal", "-shm"):
        Path(f"{db.path}{side}").unlink(missing_ok=True)
    page = db.rows("PRAGMA page_size")[0][0]
    with open(db.path, "r+b") as file:  # the table's page: the file opens, the table does not read
        file.seek(page)
        file.write(b"\xff" * page)
    with pytest.warns(CacheWarning, match="set aside"), pytest.raises(CacheError) as caught:
        db.rows("SELECT v FROM t")
    assert str(caught.value) == (f"the cache database {db.path} was damaged and set aside; call "
                                 "again: what it held will be fetched again")
    assert Path(f"{db.path}.corrupt").exists()
    assert db.rows("SELECT count(*) FROM t", write=True) == [(0,)]


def test_one_connection_serves_every_thread_of_the_process(tmp_path):
    db = _db(tmp_path)
    db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    found: list[object] = []
    worker = threading.Thread(target=lambda: found.append(db.rows("SELECT v FROM t")))
    worker.start()
    worker.join(60)  # a hang guard
    assert found == [[("a",)]]


def test_a_read_only_connection_serves_every_thread_of_the_process(tmp_path):
    # check_same_thread=False on the read-only connection too: opened by one thread (a
    # worker of a load), read by another. The failed writable attempt is no SQLITE_BUSY:
    # it is not retried (no pause: seen by a profiler of the worker), read-only at once
    from test_housekeeping import _read_only

    db = _db(tmp_path)
    db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    db.close()
    again = Database(db.path, SCHEMA)
    pauses: list[object] = []

    def profile(frame: object, event: str, arg: object) -> None:
        if event == "c_call" and arg is time.sleep:
            pauses.append(frame)

    def read() -> None:
        sys.setprofile(profile)
        try:
            found.append(again.rows("SELECT v FROM t"))
        finally:
            sys.setprofile(None)

    with _read_only(db.path.parent):
        try:
            found: list[object] = []
            worker = threading.Thread(target=read)
            worker.start()
            worker.join(HANG_GUARD)
            assert found == [[("a",)]] and again.read_only and pauses == []
            assert again.rows("SELECT v FROM t") == [("a",)]  # the connection the worker made
        finally:
            again.close()


def test_a_new_cache_waits_while_another_connection_holds_the_write_lock(tmp_path,
                                                                        write_lock_held):
    # SQLite answers a switch to WAL with SQLITE_BUSY at once, without its busy handler,
    # while another connection of a new (rollback journal) file holds the write lock, as
    # a process making the same cache at the same moment does: the opening retries, with
    # growing pauses, until the lock is released. No clock: the lock is released once the
    # opening thread has paused three times (seen by a profiler of that thread).
    folder = tmp_path / "folder"
    folder.mkdir(mode=0o700)
    path = folder / "data.sqlite3"
    let_go = write_lock_held(path)
    pauses: list[object] = []
    paused_or_done = threading.Event()
    outcome: list[object] = []

    def profile(frame: object, event: str, arg: object) -> None:
        if event == "c_call" and arg is time.sleep:
            pauses.append(frame)
            if len(pauses) >= 3:
                paused_or_done.set()

    db = Database(path, SCHEMA)

    def opening() -> None:
        sys.setprofile(profile)
        try:
            outcome.append(db.rows("SELECT v FROM t", write=True))
        except BaseException as exc:  # the test reports it
            outcome.append(exc)
        finally:
            sys.setprofile(None)
            paused_or_done.set()

    worker = threading.Thread(target=opening)
    worker.start()
    try:
        assert paused_or_done.wait(HANG_GUARD)
        assert outcome == [] and len(pauses) >= 3  # still waiting, not failed
    finally:
        let_go()
    worker.join(HANG_GUARD)
    db.close()
    assert outcome == [[("a",)]]
    check = sqlite3.connect(path)
    try:
        assert check.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        check.close()


def test_only_a_new_file_is_switched_to_wal_without_waiting_for_the_disk(tmp_path,
                                                                         monkeypatch):
    statements: list[str] = []
    connect = sqlite3.connect

    def traced(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)  # type: ignore[arg-type]
        conn.set_trace_callback(statements.append)
        return conn

    old = tmp_path / "old.sqlite3"  # rows kept by a rollback journal: their switch waits
    with contextlib.closing(connect(old, isolation_level=None)) as conn:
        conn.executescript(SCHEMA + "INSERT INTO t VALUES (1, 'a');")
    monkeypatch.setattr(sqlite3, "connect", traced)
    db = _db(tmp_path)  # a new file: nothing in it to lose
    assert (statements.index("PRAGMA synchronous=OFF")
            < statements.index("PRAGMA journal_mode=WAL"))
    with db.read() as conn:
        assert conn is not None
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL before any row
    db.close()
    statements.clear()
    again = Database(old, SCHEMA)
    assert again.rows("SELECT v FROM t") == [("a",)]
    assert "PRAGMA journal_mode=WAL" in statements
    assert "PRAGMA synchronous=OFF" not in statements
    with again.read() as conn:
        assert conn is not None
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1
    again.close()


@pytest.mark.parametrize("wal", [True, False])
def test_a_database_in_a_folder_that_cannot_be_written_is_read_and_never_written(tmp_path,
                                                                                 wal):
    from test_housekeeping import _read_only

    db = _db(tmp_path)
    db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    db.close()
    if not wal:  # the log folded in: no side file to share with writers
        conn = sqlite3.connect(db.path)
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.close()
    again = Database(db.path, SCHEMA)
    with _read_only(db.path.parent):
        try:
            assert again.rows("SELECT v FROM t") == [("a",)]
            assert again.read_only and repr(again).endswith("read_only=True)")
            with pytest.raises(CacheError) as caught:
                again.rows("INSERT INTO t VALUES (2, 'b')", write=True)
            assert str(caught.value) == (
                f"the cache {db.path.parent} is read-only here: nothing can be kept. Use "
                "offline=True, or a writable cache_dir.")
            assert again.rows("SELECT count(*) FROM t") == [(1,)]
        finally:
            again.close()  # (the mount is undone after)
    assert again.rows("SELECT count(*) FROM t", write=True) == [(1,)]  # writable again
    assert not again.read_only


def test_a_fifo_that_cannot_be_set_aside_is_an_error_saying_to_remove_it(tmp_path):
    from test_housekeeping import _read_only

    folder = tmp_path / "folder"
    folder.mkdir(mode=0o700)
    os.mkfifo(folder / "data.sqlite3")
    db = Database(folder / "data.sqlite3", SCHEMA)
    with _read_only(folder), pytest.raises(CacheError) as caught:
        db.rows("SELECT 1")
    assert str(caught.value).startswith(
        f"{folder / 'data.sqlite3'} is not a plain file and cannot be set aside (")
    assert str(caught.value).endswith("); remove it")
    assert stat.S_ISFIFO((folder / "data.sqlite3").lstat().st_mode)  # never opened


@pytest.mark.parametrize("new", [True, False])
def test_a_full_disk_is_said_as_such_and_what_was_kept_stays(tmp_path, new):
    from test_safety import _fill, _small_disk

    with _small_disk(tmp_path / "disk", "4m") as disk:
        root = disk / "cache"
        db = open_database(disk, root / "data.sqlite3", SCHEMA, write=True)
        assert db is not None
        if not new:
            db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
            db.close()
        filler = _fill(disk, 8 * 1024)
        try:
            with pytest.raises(CacheError) as caught:
                db.rows("INSERT INTO t VALUES (2, ?)", "b" * 200_000, write=True)
            assert str(caught.value) == str(disk_full(root))
        finally:
            filler.unlink()
            db.close()
        assert db.rows("SELECT k FROM t", write=True) == ([] if new else [(1,)])


def test_open_database_refuses_a_cache_dir_others_may_write_to_and_follows_its_link(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    db = open_database(link, link / "svc" / "x.sqlite3", SCHEMA, write=True)
    assert db is not None and (real / "svc").is_dir()
    real.chmod(0o770)
    with pytest.raises(CacheError, match=r"^the cache dir .*link is refused: others may write"):
        open_database(link, link / "svc" / "x.sqlite3", SCHEMA, write=False)


@pytest.mark.parametrize(("free", "full"), [(1536 * 1024, False), (512 * 1024, True)])
def test_any_error_with_less_than_a_mib_free_is_said_as_a_full_disk(tmp_path, free, full):
    from test_safety import _fill, _small_disk

    with _small_disk(tmp_path / "disk", "8m") as disk:
        db = open_database(disk, disk / "cache" / "data.sqlite3", SCHEMA, write=True)
        assert db is not None
        db.rows("SELECT 1", write=True)
        filler = _fill(disk, free)
        try:
            with pytest.raises(CacheError) as caught:
                db.rows("SELECT missing()")
        finally:
            filler.unlink()
            db.close()
    said = str(caught.value)
    assert said == str(disk_full(disk / "cache")) if full else "failed: no such function" in said


def test_sync_is_a_commit_under_full_on_a_connection_of_its_own_and_says_what_failed(
        tmp_path, monkeypatch):
    # a commit under synchronous=FULL syncs the whole log, others' commits too: it rewrites
    # user_version as it is, beside a read this connection holds (the tables are updated
    # under a snapshot), and this process opens no descriptor of the file itself
    db = _db(tmp_path)
    db.rows("PRAGMA user_version=7", write=True)
    traced: list[str] = []
    connect = sqlite3.connect

    def traced_connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)  # type: ignore[arg-type]
        conn.set_trace_callback(traced.append)
        return conn

    opened = _os_opens(monkeypatch)
    before = db.rows("PRAGMA data_version")
    with db.read() as conn:
        assert conn is not None and conn.in_transaction
        monkeypatch.setattr(sqlite3, "connect", traced_connect)
        db.sync()
        monkeypatch.setattr(sqlite3, "connect", connect)
    assert traced == ["PRAGMA synchronous=FULL", "BEGIN IMMEDIATE", "PRAGMA database_list",
                      "PRAGMA user_version", "PRAGMA user_version=7", "COMMIT"]
    assert db.rows("PRAGMA data_version") != before  # committed, as by another connection
    assert db.rows("PRAGMA user_version") == [(7,)] and opened == []
    db.close()  # the last connection: the log folded into the file and removed
    for side in ("", "-wal", "-shm"):
        Path(f"{db.path}{side}").unlink(missing_ok=True)
    db.sync()  # no file: nothing to sync, and none made
    assert not db.path.exists()
    db.path.mkdir()  # no database file: never opened
    with pytest.raises(CacheError) as caught:
        db.sync()
    assert str(caught.value) == f"the cache database {db.path} cannot be synced: it was replaced"
    db.path.rmdir()
    db.path.write_bytes(b"no database" * 100)  # SQLite's error, said
    with pytest.raises(CacheError) as caught:
        db.sync()
    assert str(caught.value) == (f"the cache database {db.path} cannot be synced: file is "
                                 "not a database")


def _os_opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths this process passes to ``os.open`` from now on (it still opens them)."""
    opened: list[str] = []
    real_open = os.open

    def spy(path: str, *args: object, **kwargs: object) -> int:
        opened.append(os.fspath(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", spy)
    return opened

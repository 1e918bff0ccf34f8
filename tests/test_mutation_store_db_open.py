"""How store/db.py opens a database, on real files in ``tmp_path`` (and real read-only bind
mounts and small tmpfs disks as root): what the full mutation run of db.py (``make mutate
MODULE=store:db``, 2026-11-26 11:40 UTC) found no test for.

A database not opened yet is not read-only; the data is in the file at the database's
path, and one connection serves every call while that file stays the same; an error
Python's sqlite3 raises before SQLite runs a statement is a :class:`CacheError` like
SQLite's own; a database not made yet in a folder that cannot be written cannot be opened
and says so; a file whose header reads but whose schema is damaged is set aside when it is
opened, and a new one made in the same call. In a folder this process may not write to, a
file is opened ``mode=ro`` (it follows a writer elsewhere, waiting for its lock like a
writable connection) and ``immutable=1`` only when that fails, and a damaged one there is
an error saying where to remove it. Without uids (Windows) a folder is not judged by its
mode bits, and without statvfs no error is taken for a full disk. A folder another process
makes at the moment this one makes it is used, and checked as what it then is (a link in
place of a cache folder is refused). Exactly a MiB free is not a full disk; a read on a
full disk says the disk is full (the database is not taken for a read-only one). No file
of a database is opened but by SQLite.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import pytest
from waiting import HANG_GUARD

from icoframes.errors import CacheError, CacheWarning
from icoframes.store.connections import close_idle
from icoframes.store.db import Database, disk_full, open_database
from icoframes.store.folders import check_cache_dir

SCHEMA = "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT);"


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "folder"
    folder.mkdir(mode=0o700)
    return folder


def test_the_data_is_in_the_file_at_the_databases_path(tmp_path):
    folder = _folder(tmp_path)
    db = Database(folder / "data.sqlite3", SCHEMA)
    assert db.read_only is False  # not opened yet: nothing says it cannot be written
    assert repr(db) == f"Database({str(db.path)!r}, read_only=False)"
    db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    db.close()
    assert sorted(os.listdir(folder)) == ["data.sqlite3"]  # the log folded in at the close
    plain = sqlite3.connect(f"file:{db.path}?mode=ro", uri=True)
    try:
        assert plain.execute("SELECT k, v FROM t").fetchall() == [(1, "a")]
    finally:
        plain.close()
    made = folder / "made.sqlite3"  # a file made elsewhere, read as it is
    plain = sqlite3.connect(made)
    plain.executescript(SCHEMA + "INSERT INTO t VALUES (2, 'b');")
    plain.close()
    other = Database(made, SCHEMA)
    try:
        assert other.rows("SELECT k, v FROM t") == [(2, "b")] and not other.read_only
    finally:
        other.close()


def test_an_error_python_raises_before_sqlite_runs_is_a_cache_error_too(tmp_path):
    # sqlite3.ProgrammingError carries no sqlite_errorname: it is still said as a failure
    # of the file, not an AttributeError
    folder = _folder(tmp_path)
    db = Database(folder / "data.sqlite3", SCHEMA)
    try:
        with pytest.raises(CacheError) as caught:
            db.rows("SELECT ?", write=True)
        assert str(caught.value).startswith(
            f"the cache database {db.path} failed: Incorrect number of bindings supplied.")
        assert isinstance(caught.value.__cause__, sqlite3.ProgrammingError)
        assert db.rows("SELECT ?", 7) == [(7,)]  # the connection is usable again
    finally:
        db.close()


def test_a_database_not_made_yet_in_a_read_only_folder_cannot_be_opened_and_says_so(
        tmp_path):
    # the writable opening cannot make the file, the folder is neither writable nor full:
    # both read-only openings are tried, and fail too (there is no file)
    from test_housekeeping import _read_only

    folder = _folder(tmp_path)
    db = Database(folder / "data.sqlite3", SCHEMA)
    with _read_only(folder):
        try:
            assert db.rows("SELECT 1") == []  # a read: no file, nothing to read
            with pytest.raises(CacheError) as caught:
                db.rows("SELECT 1", write=True)
        finally:
            db.close()
    assert str(caught.value) == (
        f"the cache database {db.path} cannot be opened, not even to read")
    assert os.listdir(folder) == []


def test_without_statvfs_an_error_is_never_taken_for_a_full_disk(tmp_path, monkeypatch):
    # Windows has no os.statvfs: how much is free is not known there, and a failing
    # statement is said as it is (the one thing taken away: no machine here is one)
    folder = _folder(tmp_path)
    db = Database(folder / "data.sqlite3", SCHEMA)
    try:
        db.rows("SELECT 1", write=True)
        monkeypatch.delattr(os, "statvfs")
        with pytest.raises(CacheError) as caught:
            db.rows("SELECT missing()")
        assert str(caught.value).startswith(
            f"the cache database {db.path} failed: no such function: missing")
    finally:
        db.close()


def test_a_read_only_view_follows_a_writer_elsewhere_and_waits_for_its_lock(tmp_path):
    # A file with a rollback journal in a folder this process may not write to is opened
    # mode=ro, which sees what a writer commits later (immutable=1 would keep reading what
    # it read first). The writer's connection is opened before the folder turns read-only
    # (a read-only bind mount over it): it writes through the folder's own mount, with its
    # journal in memory (no side file to make).
    from test_housekeeping import _read_only

    folder = _folder(tmp_path)
    path = folder / "data.sqlite3"
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("PRAGMA journal_mode=MEMORY")
        writer.executescript(SCHEMA + "INSERT INTO t VALUES (1, 'a');")
        with _read_only(folder):
            db = Database(path, SCHEMA)
            try:
                assert db.rows("SELECT k, v FROM t") == [(1, "a")] and db.read_only
                with db.read() as conn:
                    assert conn is not None
                    assert conn.execute("PRAGMA busy_timeout").fetchone() == (20000,)
                writer.execute("INSERT INTO t VALUES (2, 'b')")
                assert db.rows("SELECT k, v FROM t") == [(1, "a"), (2, "b")]
            finally:
                db.close()
    finally:
        writer.close()


def test_a_damaged_database_in_a_read_only_folder_says_where_to_remove_it(tmp_path):
    # A WAL file without its side files in a read-only folder: the writable and the mode=ro
    # openings cannot open the log; immutable=1 reads the file, and finds it damaged. It
    # cannot be set aside there: the error says so, and the file stays as it was.
    from test_housekeeping import _read_only

    folder = _folder(tmp_path)
    db = Database(folder / "data.sqlite3", SCHEMA)
    db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    db.close()
    damaged = bytearray(db.path.read_bytes())
    assert damaged[18:20] == b"\x02\x02" and sorted(os.listdir(folder)) == ["data.sqlite3"]
    damaged[100:4096] = b"\xff" * (4096 - 100)  # the schema's page, after the header
    db.path.write_bytes(bytes(damaged))
    with _read_only(folder):
        again = Database(db.path, SCHEMA)
        try:
            for write in (False, True):
                with pytest.raises(CacheError) as caught:
                    again.rows("SELECT v FROM t", write=write)
                assert str(caught.value) == (
                    f"the cache database {db.path} is damaged (database disk image is "
                    "malformed) and read-only here; remove it where it can be written")
        finally:
            again.close()
    assert sorted(os.listdir(folder)) == ["data.sqlite3"]
    assert db.path.read_bytes() == bytes(damaged)


def test_without_uids_a_folder_is_not_judged_by_its_mode_bits(tmp_path, monkeypatch):
    # Windows has no os.getuid (its ACLs are not modes): no machine here is one, so that
    # is the one thing taken away
    root = tmp_path / "cache"
    root.mkdir()
    root.chmod(0o777)
    with pytest.raises(CacheError, match="others may write to it"):
        check_cache_dir(root, create=False)
    monkeypatch.delattr(os, "getuid")
    assert check_cache_dir(root, create=False) is True
    assert stat.S_IMODE(root.stat().st_mode) == 0o777


@contextlib.contextmanager
def _made_meanwhile(path: Path, make: Callable[[], None]) -> Iterator[list[bool]]:
    """``make`` runs once, just as this thread makes the folder ``path`` (``Path.mkdir``
    for the cache dir, ``store.folders._make`` for a folder in it): another process making
    the same folder at that moment (seen by a profiler, no clock)."""
    made: list[bool] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if (event == "call" and not made and (
                (frame.f_code.co_name == "mkdir" and frame.f_locals.get("self") == path)
                or (frame.f_code.co_name == "_make" and frame.f_locals.get("path") == path))):
            made.append(True)
            make()

    sys.setprofile(profile)
    try:
        yield made
    finally:
        sys.setprofile(None)


def test_a_folder_another_process_makes_at_the_same_moment_is_used(tmp_path):
    root = tmp_path / "cache"
    with _made_meanwhile(root, lambda: root.mkdir(mode=0o700)) as made:
        assert check_cache_dir(root, create=True) is True
    assert made == [True]
    folder = root / "svc"
    with _made_meanwhile(folder, lambda: folder.mkdir(mode=0o700)) as made:
        db = open_database(root, folder / "x.sqlite3", SCHEMA, write=True)
    assert made == [True] and isinstance(db, Database) and db.path == folder / "x.sqlite3"


def test_a_link_made_at_that_moment_is_followed_for_the_cache_dir_only(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    root = tmp_path / "cache"
    with _made_meanwhile(root, lambda: root.symlink_to(elsewhere)) as made:
        assert check_cache_dir(root, create=True) is True  # the cache dir may be a link
    assert made == [True] and root.is_symlink()
    folder = root / "svc"
    with _made_meanwhile(folder, lambda: folder.symlink_to(elsewhere)) as made, \
            pytest.raises(CacheError) as caught:
        open_database(root, folder / "x.sqlite3", SCHEMA, write=True)
    assert made == [True]
    assert str(caught.value) == (
        f"{folder} is a symbolic link: a cache folder is never followed elsewhere. Move it "
        "away (or set cache_dir to where it points).")
    assert sorted(os.listdir(elsewhere)) == ["svc"]  # the link alone: nothing made through it


def test_exactly_a_mib_free_is_not_a_full_disk(tmp_path):
    from test_safety import _fill, _small_disk

    with _small_disk(tmp_path / "disk", "8m") as disk:
        db = open_database(disk, disk / "cache" / "data.sqlite3", SCHEMA, write=True)
        assert db is not None
        db.rows("SELECT 1", write=True)
        filler = _fill(disk, 1 << 20)
        try:
            usage = os.statvfs(disk)
            assert usage.f_bavail * usage.f_frsize == 1 << 20
            with pytest.raises(CacheError) as caught:
                db.rows("SELECT missing()")
        finally:
            filler.unlink()
            db.close()
    assert str(caught.value) != str(disk_full(disk / "cache"))
    assert str(caught.value).startswith(
        f"the cache database {disk / 'cache' / 'data.sqlite3'} failed: no such function")



def test_one_connection_serves_every_call_while_the_file_stays_the_same(tmp_path):
    folder = _folder(tmp_path)
    db = Database(folder / "data.sqlite3", SCHEMA)
    try:
        with db.write() as first:
            first.execute("INSERT INTO t VALUES (1, 'a')")
        with db.write() as second:
            pass
        with db.read() as third:
            pass
        assert second is first and third is first
        assert db.rows("SELECT v FROM t") == [("a",)] and db._conn is first
    finally:
        db.close()


def test_a_read_on_a_full_disk_reads_and_a_write_says_the_disk_is_full(tmp_path):
    # the log's side files cannot be made: the file is read as a read-only folder's is (what
    # is cached is served), a write says the disk, not the folder, is why it cannot be kept
    from test_safety import _fill, _small_disk

    with _small_disk(tmp_path / "disk", "4m") as disk:
        db = open_database(disk, disk / "cache" / "data.sqlite3", SCHEMA, write=True)
        assert db is not None
        db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
        db.close()
        assert sorted(os.listdir(disk / "cache")) == ["data.sqlite3"]
        filler = _fill(disk, 0)
        again = Database(db.path, SCHEMA)
        try:
            assert again.rows("SELECT v FROM t") == [("a",)] and again.read_only
            with pytest.raises(CacheError) as caught:
                again.rows("INSERT INTO t VALUES (2, 'b')", write=True)
            assert str(caught.value) == str(disk_full(disk / "cache"))
            filler.unlink()
            again.rows("INSERT INTO t VALUES (2, 'b')", write=True)
            assert again.rows("SELECT v FROM t") == [("a",), ("b",)] and not again.read_only
        finally:
            again.close()


def test_a_log_on_a_full_disk_that_only_its_index_could_show_says_the_disk_is_full(tmp_path):
    # commits in the log need its index (-shm), which a full disk cannot hold: not read as
    # if they were not there, and not taken for a read-only folder either
    from test_safety import _fill, _small_disk

    with _small_disk(tmp_path / "disk", "4m") as disk:
        (folder := disk / "cache").mkdir(mode=0o700)
        source = _folder(tmp_path) / "data.sqlite3"
        with contextlib.closing(sqlite3.connect(source)) as writer:
            writer.executescript("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;" + SCHEMA)
            writer.execute("INSERT INTO t VALUES (1, 'a')")
            writer.commit()
            for suffix in ("", "-wal"):  # as a process killed while open leaves them
                shutil.copyfile(f"{source}{suffix}", folder / f"data.sqlite3{suffix}")
        filler = _fill(disk, 0)
        db = Database(folder / "data.sqlite3", SCHEMA)
        try:
            with pytest.raises(CacheError) as caught:
                db.rows("SELECT v FROM t")
            assert str(caught.value) == str(disk_full(folder))
            filler.unlink()
            assert db.rows("SELECT v FROM t") == [("a",)]
        finally:
            db.close()


@pytest.mark.parametrize("write", [True, False])
def test_a_file_with_a_damaged_schema_is_set_aside_when_opened(tmp_path, write):
    # SQLITE_CORRUPT (the header reads, the schema's page does not), not SQLITE_NOTADB: set
    # aside at the opening like a file that is no database, and the call goes on
    folder = _folder(tmp_path)
    path = folder / "data.sqlite3"
    plain = sqlite3.connect(path)
    plain.executescript(SCHEMA + "INSERT INTO t VALUES (1, 'a');")
    plain.close()
    damaged = bytearray(path.read_bytes())
    damaged[100:4096] = b"\xff" * (4096 - 100)
    path.write_bytes(bytes(damaged))
    db = Database(path, SCHEMA)
    try:
        with pytest.warns(CacheWarning) as caught:
            assert db.rows("SELECT count(*) FROM t", write=write) == ([(0,)] if write else [])
        assert [str(w.message) for w in caught] == [
            f"icoframes cache file {path} is not a readable database (database disk image is "
            "malformed); it was set aside as *.corrupt and what it held will be fetched again"]
        assert Path(f"{path}.corrupt").read_bytes() == bytes(damaged)
    finally:
        db.close()


def test_no_file_of_a_database_is_opened_but_by_sqlite(tmp_path, monkeypatch):
    # closing any descriptor of a file drops every POSIX lock this process holds on it,
    # SQLite's included: then another process ending takes itself for the last user and
    # deletes the log this one writes to. Opening (the files checked for what they are and
    # whether they read), opening again, reading, writing, syncing: os.open is never called
    folder = _folder(tmp_path)
    db = Database(folder / "data.sqlite3", SCHEMA)
    opened: list[str] = []
    real_open = os.open

    def spy(path: str, *args: object, **kwargs: object) -> int:
        opened.append(os.fspath(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", spy)
    try:
        db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
        db.close()  # opened again, beside its log
        with db.write() as conn:
            conn.execute("INSERT INTO t VALUES (2, 'b')")
        with db.read() as conn:
            assert conn is not None
            assert conn.execute("SELECT k, v FROM t").fetchall() == [(1, "a"), (2, "b")]
        db.sync()
    finally:
        db.close()
    assert [path for path in opened if "data.sqlite3" in path] == []

def test_an_opening_waiting_for_another_writer_pauses_longer_each_time_up_to_50_ms(
        tmp_path, monkeypatch, write_lock_held):
    # the pauses of the opening thread, as asked of time.sleep (which still sleeps); the
    # other connection lets go once seven were asked (no clock)
    folder = _folder(tmp_path)
    path = folder / "data.sqlite3"
    let_go = write_lock_held(path)
    pauses: list[float] = []
    seven_or_done = threading.Event()
    outcome: list[object] = []
    real_sleep = time.sleep
    db = Database(path, SCHEMA)

    def sleep(seconds: float) -> None:
        if threading.current_thread() is worker:
            pauses.append(seconds)
            if len(pauses) >= 7:
                seven_or_done.set()
        real_sleep(seconds)

    def opening() -> None:
        try:
            outcome.append(db.rows("SELECT v FROM t", write=True))
        except BaseException as exc:  # the test reports it
            outcome.append(exc)
        finally:
            seven_or_done.set()

    worker = threading.Thread(target=opening)
    monkeypatch.setattr(time, "sleep", sleep)
    worker.start()
    try:
        assert seven_or_done.wait(HANG_GUARD)
    finally:
        let_go()
        worker.join(HANG_GUARD)
        db.close()
    assert outcome == [[("a",)]]
    assert pauses[:7] == pytest.approx([0.002, 0.004, 0.008, 0.016, 0.032, 0.05, 0.05])
    assert pauses[5:] == pytest.approx([0.05] * len(pauses[5:]))


def test_a_file_planted_again_once_set_aside_ends_in_an_error_saying_so(tmp_path):
    # another process puts a file that is no database back at once: the second one is set
    # aside too, and the opening gives up (it never loops): seen by a profiler of this
    # thread, at the end of the first rename
    folder = _folder(tmp_path)
    path = folder / "data.sqlite3"
    garbage = b"not a database at all, " * 100
    path.write_bytes(garbage)
    renames: list[bool] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "c_return" and arg is os.replace:
            renames.append(True)
            if len(renames) == 1:
                path.write_bytes(garbage)

    db = Database(path, SCHEMA)
    sys.setprofile(profile)
    try:
        with pytest.warns(CacheWarning) as warned, pytest.raises(CacheError) as caught:
            db.rows("SELECT 1", write=True)
    finally:
        sys.setprofile(None)
        db.close()
    assert str(caught.value) == f"the cache database {path} cannot be made"
    assert len(renames) == 2 and len(warned) == 2
    assert sorted(os.listdir(folder)) == ["data.sqlite3.corrupt"]


def test_a_folder_removed_under_a_database_is_made_again_by_the_next_write(tmp_path):
    root = tmp_path / "cache"
    db = open_database(root, root / "svc" / "data.sqlite3", SCHEMA, write=True)
    assert db is not None
    db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    close_idle(root / "svc", wait=True)
    shutil.rmtree(root / "svc")  # as clear_cache does
    try:
        assert db.rows("SELECT v FROM t") == []  # a read makes nothing
        assert not (root / "svc").exists()
        assert db.rows("INSERT INTO t VALUES (2, 'b') RETURNING k", write=True) == [(2,)]
        assert stat.S_IMODE((root / "svc").stat().st_mode) == 0o700
    finally:
        db.close()

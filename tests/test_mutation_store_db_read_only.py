"""What a cache database in a folder this process may not write to serves, and what a
database file that cannot be read as one says, on real files, real SQLite and real
read-only bind mounts (as root; permissions taken away otherwise).

In a read-only folder SQLite reads a WAL database ``mode=ro`` when its ``-shm`` index is
there (a process killed while writing leaves it); without it only ``immutable=1`` opens
the file, which ignores the log: commits still in ``-wal`` are never served silently
(an error says how to fold them into the file), and a file read that way is opened again
once it changes or a log appears (a writer elsewhere is seen at the next read). An empty
file is nothing cached yet; a file this process may not read says so, whatever the
opening; a file that is no database is set aside where it can be, and said where not.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest
from test_housekeeping import _read_only

import icoframes
from icoframes import sandbox
from icoframes.errors import CacheError, CacheWarning
from icoframes.store.connections import close_idle
from icoframes.store.db import Database

SCHEMA = "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT);"


def _folder(tmp_path: Path, name: str = "folder") -> Path:
    folder = tmp_path / name
    folder.mkdir(mode=0o700)
    return folder


def _rows(db: Database) -> list[tuple[int, str]]:
    return db.rows("SELECT k, v FROM t ORDER BY k")


@contextlib.contextmanager
def _writable_view(folder: Path, view: Path) -> Iterator[Path]:
    """``folder`` seen writable at ``view`` too (a bind mount made before ``folder`` turns
    read-only): another process's writable path to the same files."""
    if os.geteuid() != 0 or subprocess.run(["mount", "--bind", folder, view],
                                           capture_output=True).returncode != 0:
        pytest.skip("needs root and bind mounts: a writer elsewhere on the same files")
    try:
        yield view
    finally:
        subprocess.run(["umount", view], check=True)


def _assert_log_without_index_refused(folder: Path) -> None:
    """Reading ``folder``'s database, made read-only, with a log and no index is refused,
    with the words that say why and how to fold the log in."""
    db = Database(folder / "data.sqlite3", SCHEMA)
    with _read_only(folder):
        try:
            with pytest.raises(CacheError) as caught:
                _rows(db)
        finally:
            db.close()
    assert str(caught.value) == (
        f"the cache database {db.path} cannot be read here: its log {db.path}-wal may hold "
        "commits that are not in the file, and SQLite reads a log only with its index (-shm), "
        "which cannot be made in a folder that cannot be written. Open the cache once where "
        "it can be written (`icoframes cache info` there folds the log into the file)")


def test_commits_in_a_log_a_read_only_folder_cannot_read_are_never_served_as_missing(
        tmp_path):
    # A cache copied while a process had it open (10 rows committed, the last 5 still in
    # the log), without its -shm index: in a read-only folder only immutable=1 opens it,
    # and that reads the file alone (5 rows, no word of the other 5)
    live = _folder(tmp_path, "live")
    writer = sqlite3.connect(live / "data.sqlite3", isolation_level=None)
    try:
        writer.executescript("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;" + SCHEMA)
        writer.executemany("INSERT INTO t VALUES (?, 'in the file')", [(k,) for k in range(5)])
        writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        writer.executemany("INSERT INTO t VALUES (?, 'in the log')", [(k,) for k in range(5, 10)])
        copies = {}
        for name in ("with-index", "without-index"):
            copies[name] = _folder(tmp_path, name)
            for side in ("", "-wal", "-shm")[:3 if name == "with-index" else 2]:
                shutil.copy(live / f"data.sqlite3{side}", copies[name])
    finally:
        writer.close()
    assert (copies["without-index"] / "data.sqlite3-wal").stat().st_size > 32
    everything = [(k, "in the file") for k in range(5)] + [(k, "in the log") for k in range(5, 10)]
    with _read_only(copies["with-index"]):  # the index is there: SQLite reads the log
        # (mode=ro: a schema the file lacks, an index added since, cannot be made here)
        db = Database(copies["with-index"] / "data.sqlite3",
                      SCHEMA + "CREATE INDEX IF NOT EXISTS t_v ON t (v);")
        try:
            assert _rows(db) == everything and db.read_only
            # the connection is kept, and serves the load's other threads too
            read: list[list[tuple[int, str]]] = []
            thread = threading.Thread(target=lambda: read.append(_rows(db)))
            thread.start()
            thread.join()
            assert read == [everything]
        finally:
            db.close()
    folder = copies["without-index"]
    _assert_log_without_index_refused(folder)
    db = Database(folder / "data.sqlite3", SCHEMA)
    # opened once where it can be written (by a process that ends): the file holds all
    subprocess.run([sys.executable, "-c", "import sys; from icoframes.store.db import Database;"
                    f"Database(sys.argv[1], {SCHEMA!r}).rows('SELECT 1')", folder / "data.sqlite3"],
                   check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert sorted(os.listdir(folder)) == ["data.sqlite3"]
    (folder / "data.sqlite3-wal").touch()  # a log emptied by a checkpoint holds nothing
    with _read_only(folder):
        try:
            assert _rows(db) == everything and db.read_only
        finally:
            db.close()


def test_a_file_read_as_fixed_is_read_anew_by_each_transaction(tmp_path):
    # No log and no index in a read-only folder: the file is read immutable=1 (no locks,
    # no log), so the connection is not kept. A writer reaching the same files through a
    # writable path (another mount) that commits and closes (the log folded into the file
    # and removed) is seen by the next read; one that keeps its log open too (mode=ro).
    folder = _folder(tmp_path)
    made = Database(folder / "data.sqlite3", SCHEMA)
    made.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    made.close()
    assert os.listdir(folder) == ["data.sqlite3"]
    with _writable_view(folder, _folder(tmp_path, "view")) as view, _read_only(folder):
        db = Database(folder / "data.sqlite3", SCHEMA)
        writer = sqlite3.connect(view / "data.sqlite3", isolation_level=None)
        try:
            assert _rows(db) == [(1, "a")] and db.read_only
            writer.execute("INSERT INTO t VALUES (2, 'b')")
            writer.close()
            assert os.listdir(folder) == ["data.sqlite3"]
            assert _rows(db) == [(1, "a"), (2, "b")]
            writer = sqlite3.connect(view / "data.sqlite3", isolation_level=None)
            writer.execute("INSERT INTO t VALUES (3, 'c')")
            assert _rows(db) == [(1, "a"), (2, "b"), (3, "c")]
            writer.execute("INSERT INTO t VALUES (4, 'd')")
            assert _rows(db)[-1] == (4, "d")
        finally:
            writer.close()
            db.close()


@pytest.mark.parametrize("write", [False, True])
def test_an_empty_file_in_a_read_only_folder_is_nothing_cached_yet(tmp_path, write):
    folder = _folder(tmp_path)
    (folder / "data.sqlite3").write_bytes(b"")
    db = Database(folder / "data.sqlite3", SCHEMA)
    with _read_only(folder):
        try:
            if write:
                with pytest.raises(CacheError, match="is read-only here: nothing can be kept"):
                    db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
            else:
                assert _rows(db) == []
                with db.read() as conn:
                    assert conn is None
        finally:
            db.close()
    assert os.listdir(folder) == ["data.sqlite3"]
    assert (folder / "data.sqlite3").read_bytes() == b""


def test_an_empty_cache_file_in_a_read_only_cache_dir_is_an_empty_cache(tmp_path):
    cache = tmp_path / "cache"
    with sandbox.serve(n_icos=10, seed=4) as sb:
        icoframes.configure(**sb.settings(), cache_dir=cache)
        try:
            icoframes.load_icos(status="past", progress=False)
            folder = cache / sb.service_name
            close_idle(folder, wait=True)
            for side in ("-wal", "-shm"):
                (folder / f"cache.sqlite3{side}").unlink(missing_ok=True)
            (folder / "cache.sqlite3").write_bytes(b"")
            with _read_only(cache):
                try:
                    info = icoframes.cache_info()
                finally:
                    close_idle(cache, wait=True)
            assert (info.profiles, info.list_queries) == (0, 0)
        finally:
            icoframes.reset_configuration()


_UNREADABLE = """
import sys, warnings
from icoframes.errors import CacheError
from icoframes.store.db import Database
warnings.simplefilter("error")
for write in (False, True):
    try:
        Database(sys.argv[1], "CREATE TABLE IF NOT EXISTS t (k);").rows("SELECT 1", write=write)
    except CacheError as exc:
        print(exc)
"""


def test_a_file_this_process_may_not_read_says_so_whatever_the_opening(tmp_path):
    # mode 000: root reads it anyway, so the process is root without the capabilities
    # that override file modes (setpriv), or the user running the suite
    folder = _folder(tmp_path)
    path = folder / "data.sqlite3"
    made = Database(path, SCHEMA)
    made.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    made.close()
    path.chmod(0)
    command = [sys.executable, "-c", _UNREADABLE, str(path)]
    if os.geteuid() == 0:
        if (setpriv := shutil.which("setpriv")) is None:
            pytest.skip("running as root without setpriv: a file cannot be made unreadable")
        command = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *command]
    done = subprocess.run(command, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    said = (f"the cache database {path} cannot be read (Permission denied): give this user "
            "read and write access to it, or remove it (what it held is then fetched again)")
    assert done.stdout.splitlines() == [said, said]
    path.chmod(0o600)
    assert _rows(made) == [(1, "a")]
    made.close()


def test_a_link_put_in_place_of_the_file_as_it_is_opened_is_not_followed(tmp_path):
    # the folders and the files were checked; just then another process replaces the
    # database by a link to a database elsewhere (seen by a profiler, no clock)
    folder = _folder(tmp_path)
    path = folder / "data.sqlite3"
    elsewhere = Database(tmp_path / "elsewhere.sqlite3", SCHEMA)
    elsewhere.rows("INSERT INTO t VALUES (1, 'elsewhere')", write=True)
    elsewhere.close()
    Database(path, SCHEMA).rows("SELECT 1", write=True)
    planted: list[bool] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "c_call" and arg is os.access and not planted:
            planted.append(True)
            path.unlink()
            path.symlink_to(elsewhere.path)

    db = Database(path, SCHEMA)
    sys.setprofile(profile)
    try:
        with pytest.raises(CacheError) as caught:
            _rows(db)
    finally:
        sys.setprofile(None)
        db.close()
    assert planted == [True] and path.is_symlink()
    assert str(caught.value).startswith(
        f"the cache database {path} cannot be read (Too many levels of symbolic links): ")


@pytest.mark.parametrize("read_only", [False, True])
def test_a_file_that_is_no_database_is_set_aside_or_said_where_it_cannot_be(
        tmp_path, read_only):
    folder = _folder(tmp_path)
    path = folder / "data.sqlite3"
    path.write_bytes(b"not a database\n" * 300)
    db = Database(path, SCHEMA)
    try:
        if read_only:
            with _read_only(folder):
                with pytest.raises(CacheError) as caught:
                    _rows(db)
                assert str(caught.value).startswith(
                    f"{path} is not a readable database (file is not a database) and cannot "
                    "be set aside (")
            assert os.listdir(folder) == ["data.sqlite3"]
        else:
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always")
                assert _rows(db) == []
            assert [w.category for w in said] == [CacheWarning]
            assert os.listdir(folder) == ["data.sqlite3.corrupt"]
    finally:
        db.close()


@pytest.mark.parametrize(("side", "said"), [
    ("-wal", "the cache database's log {path}-wal cannot be read (Permission denied): give "
             "this user read and write access to it (it may hold commits not in the file "
             "yet: keep it)"),
    ("-shm", "the cache database's log index {path}-shm cannot be read (Permission denied): "
             "give this user read and write access to it")])
def test_an_unreadable_log_or_index_in_a_writable_folder_is_named_not_the_folder(
        tmp_path, side, said):
    # the messages blamed the folder ("a folder that cannot be written", "use a writable
    # cache_dir") for a log or an index this process may not read in a writable folder
    folder = _folder(tmp_path)
    path = folder / "data.sqlite3"
    made = sqlite3.connect(path, isolation_level=None)
    made.executescript("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;" + SCHEMA
                       + "INSERT INTO t VALUES (1, 'a');")
    command = [sys.executable, "-c", _UNREADABLE, str(path)]
    if os.geteuid() == 0:
        if (setpriv := shutil.which("setpriv")) is None:
            pytest.skip("running as root without setpriv: a file cannot be made unreadable")
        command = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *command]
    try:  # the writer still open: its log and index stay
        Path(f"{path}{side}").chmod(0)
        done = subprocess.run(command, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    finally:
        Path(f"{path}{side}").chmod(0o600)
        made.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [said.format(path=path)] * 2


def test_a_log_left_after_a_checkpoint_is_not_said_to_hold_commits_the_file_lacks(tmp_path):
    # every commit folded into the file, the log left full size (a checkpoint truncates
    # nothing), copied without its index into a read-only folder: only the index would tell
    # that the log holds nothing new, so the refusal says it may, not that it does
    live = _folder(tmp_path, "live")
    writer = sqlite3.connect(live / "data.sqlite3", isolation_level=None)
    try:
        writer.executescript("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;" + SCHEMA)
        writer.executemany("INSERT INTO t VALUES (?, 'a')", [(k,) for k in range(5)])
        busy, logged, folded = writer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        assert busy == 0 and logged == folded > 0  # every frame of the log is in the file
        folder = _folder(tmp_path)
        for side in ("", "-wal"):
            shutil.copy(live / f"data.sqlite3{side}", folder)
    finally:
        writer.close()
    assert (folder / "data.sqlite3-wal").stat().st_size > 32
    _assert_log_without_index_refused(folder)

"""A Ctrl-C (KeyboardInterrupt) that lands right after a transaction began leaves none open.

CPython raises a pending signal's exception right after a C call returns: a Ctrl-C pressed
while a write waits for another process's write lock lands just after ``BEGIN IMMEDIATE``
succeeds. A transaction left open on the process's one connection to the cache failed
every later call ("cannot start a transaction within a transaction") until the process
(a notebook kernel) was restarted, and kept the write lock from every other process.
"""

from __future__ import annotations

import signal
import sqlite3
import sys
import threading
from pathlib import Path

import pytest
from waiting import HANG_GUARD, wait_until

from icoframes.store.db import Database, open_database

SCHEMA = "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT);"


pytestmark = pytest.mark.usefixtures("ctrl_c_raises")


def _db(tmp_path: Path) -> Database:
    db = open_database(tmp_path, tmp_path / "folder" / "data.sqlite3", SCHEMA, write=True)
    assert db is not None
    db.rows("INSERT INTO t VALUES (1, 'a')", write=True)
    return db


def _others_can_write(path: Path) -> bool:
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        other.close()


def test_a_ctrl_c_while_a_write_waits_for_the_lock_leaves_no_transaction_open(tmp_path):
    db = _db(tmp_path)
    with db.read() as conn:  # the process's one connection
        assert conn is not None
    other = sqlite3.connect(db.path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process writing: the write lock is taken
    main = threading.main_thread().ident
    assert main == threading.get_ident()
    begun = threading.Event()
    conn.set_trace_callback(lambda sql: sql == "BEGIN IMMEDIATE" and begun.set())

    def blocked() -> bool:
        # the trace callback returned: the main thread waits in SQLite's busy handler (C),
        # where no Python code runs, so the signal is raised only once BEGIN returns
        frame = sys._current_frames().get(main)
        return frame is not None and frame.f_code.co_filename.endswith("db.py")

    def ctrl_c() -> None:
        try:
            assert begun.wait(HANG_GUARD) and wait_until(blocked)
            signal.pthread_kill(main, signal.SIGINT)  # Ctrl-C while the write waits
        finally:
            other.execute("COMMIT")  # the lock is free: BEGIN IMMEDIATE succeeds
            other.close()

    helper = threading.Thread(target=ctrl_c)
    helper.start()
    try:
        with pytest.raises(KeyboardInterrupt), db.write() as written:
            written.execute("INSERT INTO t VALUES (2, 'b')")
    finally:
        helper.join(HANG_GUARD)
        conn.set_trace_callback(None)
    assert not conn.in_transaction and _others_can_write(db.path)
    with db.write() as written:  # the next write works
        written.execute("INSERT INTO t VALUES (3, 'c')")
    assert db.rows("SELECT k FROM t ORDER BY k") == [(1,), (3,)]
    db.close()


def test_a_transaction_an_interrupted_call_left_open_is_rolled_back_by_the_next(tmp_path):
    # as a Ctrl-C between BEGIN and the block that ends it leaves the connection
    db = _db(tmp_path)
    for call in ("write", "read", "rows"):
        with db.read() as conn:
            assert conn is not None
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t VALUES (9, 'left')")
        if call == "write":
            with db.write() as written:
                written.execute("INSERT INTO t VALUES (2, 'b')")
        elif call == "read":
            with db.read() as read:
                assert read is not None
                assert read.execute("SELECT k FROM t ORDER BY k").fetchall() == [(1,), (2,)]
        else:
            db.rows("INSERT INTO t VALUES (3, 'c')", write=True)
        assert not conn.in_transaction and _others_can_write(db.path)
    assert db.rows("SELECT k FROM t ORDER BY k") == [(1,), (2,), (3,)]
    db.close()


def test_a_call_nested_in_a_transaction_fails_and_leaves_the_outer_one(tmp_path):
    db = _db(tmp_path)
    with db.write() as conn:
        conn.execute("INSERT INTO t VALUES (2, 'b')")
        assert db.rows("SELECT count(*) FROM t") == [(2,)]  # a statement inside it
        with pytest.raises(Exception, match="within a transaction"), db.read():
            pass
        conn.execute("INSERT INTO t VALUES (3, 'c')")
    assert db.rows("SELECT k FROM t ORDER BY k") == [(1,), (2,), (3,)]
    db.close()

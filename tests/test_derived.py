"""The derived tables follow the store table by table, tidying only the copies that changed;
an update cut by SIGKILL at any file leaves tables that the next read completes. Each result
is compared with a rebuild from scratch of the same stored copies.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pandas as pd
import pytest
from waiting import HANG_GUARD, wait_until

import icoframes
from icoframes import sandbox
from icoframes.errors import CacheWarning
from icoframes.files import locked
from icoframes.parse import profiles
from icoframes.schema import PROBLEMS, TABLES
from icoframes.store import derived
from icoframes.store.cache import Cache, ProfileRecord
from icoframes.store.derived import DerivedTables

ROOT = Path(__file__).resolve().parent.parent
URL = "http://127.0.0.1:9"  # never contacted: the store only names its folder after it
NAMES = (*TABLES, PROBLEMS.name)


class Tidied(list[int]):
    """How many profiles each call of the real tidy read; ``tables``: the tables each was
    asked for (None: all)."""

    tables: list[tuple[str, ...] | None]


@pytest.fixture
def tidied(monkeypatch) -> Tidied:
    """A spy of tidy (the real one runs): what each call read and was asked for."""
    calls = Tidied()
    calls.tables = []
    real = profiles.tidy

    def spy(raw, **kwargs):
        raw = list(raw)
        calls.append(len(raw))
        names = kwargs.get("tables")
        calls.tables.append(None if names is None else tuple(sorted(names)))
        return real(raw, **kwargs)

    monkeypatch.setattr(profiles, "tidy", spy)
    return calls


def record(cache: Cache, raws: list[dict]) -> None:
    cache.record(*(ProfileRecord(int(r["id"]), "past", "s", json.dumps(r)) for r in raws))


def renamed(raw: dict, name: str) -> dict:
    return {**raw, "main": {**raw["main"], "name": name}}


def rebuilt(cache: Cache, where: Path, url: str = URL) -> dict[str, pd.DataFrame]:
    """Every table tidied from scratch from the same stored copies, in another folder."""
    copy = where / "rebuilt"
    shutil.copytree(cache.dir, copy / cache.dir.name,
                    ignore=shutil.ignore_patterns("tables"))
    tables = DerivedTables(Cache(copy, url)).tables()
    return {name: tables[name] for name in NAMES}


def assert_same_tables(cache: Cache, where: Path, url: str = URL) -> None:
    tables = DerivedTables(cache).tables()
    for name, frame in rebuilt(cache, where, url).items():
        pd.testing.assert_frame_equal(tables[name], frame, obj=name)


@pytest.fixture
def cache(tmp_path) -> tuple[Cache, list[dict]]:
    raws = sandbox.generate_directory(120, seed=4).profiles()
    store = Cache(tmp_path / "cache", URL)
    record(store, raws)
    DerivedTables(store).tables()  # built once, in full
    return store, raws


def test_an_update_tidies_only_the_changed_copies_and_equals_a_rebuild(cache, tmp_path, tidied):
    store, raws = cache
    changed = [renamed(r, f"Renamed {i}") for i, r in enumerate(raws[:12])]
    record(store, changed)
    store.record(ProfileRecord(int(raws[20]["id"]), "past", "s", None, state="gone"))
    tables = DerivedTables(store).tables()
    assert sum(tidied) == 12  # the 12 changed; the gone one has no rows; 107 untouched
    names = dict(zip(tables.icos["id"], tables.icos["name"], strict=True))
    assert [names[int(r["id"])] for r in changed] == [f"Renamed {i}" for i in range(12)]
    assert int(raws[20]["id"]) not in names
    assert not tables.team["ico_id"].isin([int(raws[20]["id"])]).any()
    tidied.clear()
    assert_same_tables(store, tmp_path)
    assert sum(tidied) == len(raws) - 1  # the rebuild for the comparison tidied them all


def test_reading_one_table_updates_that_table_only(cache, tmp_path):
    store, raws = cache
    record(store, [renamed(raws[0], "Only icos")])
    icos = DerivedTables(store).table("icos")
    assert "Only icos" in set(icos["name"])
    state = json.loads((store.tables_dir / "_state.json").read_text())
    version = store.version()
    assert state["versions"]["icos"] == version
    assert all(state["versions"][name] < version for name in NAMES if name != "icos")
    assert_same_tables(store, tmp_path)  # the others catch up when read


def test_an_unreadable_copy_an_update_meets_is_quarantined_and_the_rest_kept(cache):
    store, raws = cache
    torn = int(raws[0]["id"])
    record(store, [renamed(raws[0], "Torn"), renamed(raws[1], "Whole")])
    with contextlib.closing(sqlite3.connect(store.path)) as conn, conn:
        conn.execute("UPDATE profiles SET raw = '{\"id\": 1, torn' WHERE id = ?", (torn,))
    with pytest.warns(CacheWarning, match="could not be read"):
        icos = DerivedTables(store).table("icos")
    assert torn not in set(icos["id"]) and "Whole" in set(icos["name"])
    assert len(icos) == len(raws) - 1 and torn not in store.profile_index().index


# a child that updates the tables and is killed after writing `writes` table files
_UPDATER = """
import sys
import icoframes.store.derived as derived
from icoframes.store.cache import Cache
real, written = derived.atomic_write_table, []
def write(table, path):
    real(table, path)
    written.append(path)
    if len(written) == {writes}:
        print('ready', flush=True)
        sys.stdin.read()
derived.atomic_write_table = write
derived.DerivedTables(Cache({cache_dir!r}, {url!r})).tables()
"""


@pytest.mark.parametrize("writes", [1, 6, len(NAMES)])
def test_an_update_killed_between_two_files_is_completed_by_the_next_read(cache, tmp_path,
                                                                          writes):
    store, raws = cache
    record(store, [renamed(r, f"Killed {i}") for i, r in enumerate(raws[30:40])])
    code = textwrap.dedent(_UPDATER.format(writes=writes, cache_dir=str(store.root), url=URL))
    child = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        assert line.strip() == "ready", child.stderr.read()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        for stream in (child.stdin, child.stdout, child.stderr):
            stream.close()
    assert child.returncode == -signal.SIGKILL
    assert_same_tables(store, tmp_path)
    names = set(DerivedTables(store).table("icos")["name"])
    assert {f"Killed {i}" for i in range(10)} <= names


def test_a_refresh_of_a_tenth_tidies_a_tenth(cfg, tidied):
    icoframes.load_icos(status="past", progress=False)
    past = cfg.directory.ids("past")
    for ico_id in past[::10]:
        cfg.update_ico(ico_id, raised=123_456_789)
    tidied.clear()
    icos = icoframes.load_icos(status="past", progress=False, refresh=True)
    assert sum(tidied) == len(past[::10])
    raised = dict(zip(icos["id"], icos["raised"], strict=True))
    assert {raised[i] for i in past[::10]} == {123_456_789.0}


def test_a_cold_load_icos_tidies_the_icos_table_alone(cfg, tidied, tmp_path):
    # the child tables are most of a tidy's time, and load_icos reads none of them
    icos = icoframes.load_icos(status="past", progress=False)
    assert sum(tidied) == len(cfg.directory.ids("past")) == len(icos)
    assert set(tidied.tables) == {("icos",)}
    settings = icoframes.get_settings()
    store = Cache(settings.cache_dir, settings.service_id or "")
    assert_same_tables(store, tmp_path, settings.service_id or "")  # the others: when read


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=200, seed=6) as server:
        yield server


def test_the_versions_written_down_are_durable_before_the_state_that_names_them(
        cache, fsynced, monkeypatch):
    """The database commits with synchronous=NORMAL (a power cut may take its last
    transactions); the tables' state names a version, so a commit under synchronous=FULL,
    which syncs the whole WAL (every commit before it, whoever made it), ends before the
    state is written, or after a cut the counter would give the same numbers to other
    copies and the tables would skip them."""
    store, raws = cache
    events = fsynced  # the files fsync'ed, and the statements of connections opened below
    DerivedTables(store).tables()  # a rebuild: every table and the state written
    record(store, [renamed(raws[0], "Renamed")])
    connect = sqlite3.connect

    def traced(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.set_trace_callback(lambda sql: events.append(f"sql: {sql}"))
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)
    events.clear()
    DerivedTables(store).table("icos")  # an update of one table
    state = [i for i, p in enumerate(events) if Path(p).name.startswith("._state.json.")]
    full = events.index("sql: PRAGMA synchronous=FULL")
    assert len(state) == 1
    assert full < events.index("sql: COMMIT", full) < state[0]


# -- the folder's lock: shared by readers of tables up to date, alone for an update -------


def _held_by(path: Path) -> int:
    """How many descriptors of this process are open on ``path`` (a lock being waited for)."""
    return sum(1 for fd in Path("/proc/self/fd").iterdir() if _points(fd, path))


def _points(fd: Path, path: Path) -> bool:
    try:
        return os.readlink(fd) == str(path)
    except OSError:
        return False


def test_tables_up_to_date_are_read_beside_another_reader(cache):
    store, raws = cache
    lock = store.dir / ".lock"
    got: dict[str, pd.DataFrame] = {}
    with locked(lock, shared=True):  # another process reading the tables
        probe = os.open(lock, os.O_RDONLY)
        try:  # a real flock that keeps writers out
            with pytest.raises(BlockingIOError):
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(probe)
        reader = threading.Thread(
            target=lambda: got.update(icos=DerivedTables(store).table("icos")))
        reader.start()
        reader.join(HANG_GUARD)  # a hang guard: an exclusive lock would wait for ours
        assert not reader.is_alive()
    assert len(got["icos"]) == len(raws)


def test_a_stale_table_is_updated_under_the_lock_alone(cache, monkeypatch):
    store, raws = cache
    taken: list[bool] = []
    real = derived.locked

    def spy(path: Path, *, shared: bool = False, **bounds):
        taken.append(shared)
        return real(path, shared=shared, **bounds)

    monkeypatch.setattr(derived, "locked", spy)
    DerivedTables(store).table("icos")
    assert taken == [True]  # up to date: read beside other readers
    record(store, [renamed(raws[0], "Stale")])
    taken.clear()
    assert "Stale" in set(DerivedTables(store).table("icos")["name"])
    assert taken == [True, False]  # found stale shared, then updated alone


def test_a_shared_waiter_whose_lock_file_is_removed_starts_over_on_a_new_one(tmp_path):
    lock = tmp_path / "folder" / ".lock"
    held: list[int] = []

    def reader() -> None:
        with locked(lock, shared=True):
            held.append(_held_by(lock))  # a descriptor open on the file at that path now

    with locked(lock):  # housekeeping, about to delete the folder's lock file
        waiter = threading.Thread(target=reader)
        waiter.start()
        assert wait_until(lambda: _held_by(lock) >= 2)  # the waiter has the file open
        lock.unlink()
    waiter.join(HANG_GUARD)
    assert not waiter.is_alive()
    assert held == [1] and lock.is_file()  # it held the new file, not the removed one


def test_a_shared_lock_whose_file_is_removed_at_every_take_is_an_error_never_an_unlocked_read(
        tmp_path, monkeypatch):
    # housekeeping removing the lock file each of the 20 times a reader took it: a race no
    # process can be made to win 20 times, so the take's outcome ("removed meanwhile") is set
    from icoframes import files

    monkeypatch.setattr(files, "_flock_shared", lambda path, wait=None: None)
    ran: list[bool] = []
    with (pytest.raises(FileNotFoundError, match="removed each of 20 times"),
          locked(tmp_path / ".lock", shared=True)):
        ran.append(True)
    assert ran == []

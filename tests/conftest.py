"""Fixtures shared by the end-to-end tests."""

from __future__ import annotations

import functools
import signal
import threading

import pytest
import tempdirs

import icoframes


@pytest.hookimpl(trylast=True)  # after pytest's tmpdir plugin has made tmp_path_factory
def pytest_configure(config: pytest.Config) -> None:
    """Point the temp dir of every process that runs tests at a folder of its own
    (tests/tempdirs.py): nothing a test run makes lands in the machine's /tmp."""
    if tempdirs.runs_tests(config):
        config.pluginmanager.register(tempdirs.SuiteTempDir(config), tempdirs.PLUGIN)


@pytest.fixture(scope="session", autouse=True)
def temp_dir_left_empty(pytestconfig):
    """Fails the session (an error at the last test's teardown) if its tests left anything
    in the temp dir. Set up before any other session fixture, so torn down after them all:
    what they make and remove in time is not counted."""
    suite = pytestconfig.pluginmanager.get_plugin(tempdirs.PLUGIN)
    yield
    if suite is not None:
        left = suite.leftovers()
        if left:
            pytest.fail(tempdirs.leftovers_message(suite.folder, left), pytrace=False)


@pytest.fixture
def cfg(sb, tmp_path):
    """The test module's ``sb`` sandbox, configured with a fresh cache dir, counters and quota."""
    icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
    sb.reset_quota()
    sb.stats.reset()
    yield sb
    icoframes.reset_configuration()


@pytest.fixture
def warm(cfg):
    """``cfg`` with the past list and the filter set cached, its counters reset."""
    icoframes.load_icos("past", progress=False)
    icoframes.load_filters()
    cfg.stats.reset()
    return cfg


@pytest.fixture
def places(tmp_path, monkeypatch):
    """An empty home folder ($HOME) and an empty current folder, both temporary."""
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    return home, cwd


@pytest.fixture
def configure(tmp_path):
    """Configure icoframes for a hostile test server: ``configure(srv, **settings)``."""
    def use(srv, **settings):
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache", **settings)
    yield use
    icoframes.reset_configuration()


@pytest.fixture
def clean_settings(monkeypatch):
    """No ICOFRAMES_* variable of the environment and no configuration, before and after."""
    from icoframes.config import SETTINGS
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    icoframes.reset_configuration()
    yield
    icoframes.reset_configuration()


@pytest.fixture
def quick_retries(monkeypatch):
    """Clients made by loads and the CLI retry as often as by default, after waits of 1-2 ms
    instead of 0.1-5 s: a test of what a failing request leads to, not of the backoff
    (tests/test_client.py tests that), waits for nothing. Only the policy's default is
    changed; the requests, their failures and their count are real."""
    from icoframes.api import client
    monkeypatch.setattr(client, "RetryPolicy",
                        functools.partial(client.RetryPolicy, backoff=0.001, max_backoff=0.002))


@pytest.fixture
def asks_outlasted(monkeypatch):
    """The clock of the breaker's asked-wait rule (``AskedRun.clock``, every load's) runs one
    ``ASK_FLOOR`` (1 s) per reading: a run of asks of 0 s has lasted its second by its next
    ask, as it does after the real backoff between them; a test of the count of asks and the
    attempts in flight, not of the seconds they span (an ask of N s still needs N readings)."""
    import itertools

    from icoframes.api.asked import ASK_FLOOR, AskedRun
    ticks = itertools.count(step=ASK_FLOOR)
    monkeypatch.setattr(AskedRun, "clock", staticmethod(lambda: float(next(ticks))))


@pytest.fixture
def fsynced(monkeypatch) -> list[str]:
    """The files ``os.fsync`` is called on, in order, as resolved paths (it still syncs)."""
    import os

    synced: list[str] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    return synced


@pytest.fixture
def write_lock_held():
    """``write_lock_held(path)``: another connection makes the new database file ``path`` and
    holds its write lock (one row, ``t(k=1, v='a')``, not yet committed), as a process making
    the same cache at the same moment does; returns the function that commits and lets go.
    The connection is closed after the test in any case."""
    import sqlite3

    held: list[sqlite3.Connection] = []

    def hold(path):
        other = sqlite3.connect(path, isolation_level=None)
        held.append(other)
        other.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
        other.execute("BEGIN IMMEDIATE")
        other.execute("INSERT INTO t VALUES (1, 'a')")

        def let_go() -> None:
            other.execute("COMMIT")
            other.close()
        return let_go

    yield hold
    for other in held:
        other.close()


@pytest.fixture
def ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt, as in a terminal, even when pytest started with it
    ignored (a non-interactive shell's background job: Python keeps SIG_IGN): for a test
    that sends itself a real Ctrl-C."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def one_ledger_day():
    """The test on a clock moved to a fixed noon UTC, ticking (``ledger_day.noon``): its
    requests, and its children's (started with ``ledger_day.on_this_clock``), are counted
    on one ledger day however long it runs and whenever."""
    from ledger_day import noon

    with noon():
        yield


@pytest.fixture
def stopping(monkeypatch):
    """Set once the load's pool begins to shut down (the load has stopped)."""
    from icoframes.fetch import pool

    event = threading.Event()
    real_shut_down = pool.RequestPool.shut_down

    def shut_down(self, **kwargs):
        event.set()
        return real_shut_down(self, **kwargs)

    monkeypatch.setattr(pool.RequestPool, "shut_down", shut_down)
    return event

"""Nothing on disk can wedge the cache, and no other user can reach through it (issue 18.4).

Real attacks on a real cache: a full disk (a small tmpfs), a damaged database, a writer
killed inside a transaction, FIFOs and symbolic links planted where the cache reads and
writes, a lone surrogate from the service, a peer stopped with SIGSTOP while it holds
claims, cache dirs of another user or open to others, and many processes at once.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, paged_list, profile_reply, raw_reply
from ledger_day import on_this_clock
from messy_profiles import clean_profile
from test_housekeeping import _read_only
from waiting import HANG_GUARD, run_together, wait_until

import icoframes
from icoframes import sandbox
from icoframes.errors import CacheError, CacheWarning, QuotaWarning
from icoframes.store.cache import DB_NAME, Cache
from icoframes.store.connections import close_idle
from icoframes.store.db import LEASE

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _fresh_configuration():
    icoframes.reset_configuration()
    yield
    icoframes.reset_configuration()


def _env(sb, cache_dir: Path, **settings: object) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICOFRAMES_")}
    values = {**sb.settings(), "cache_dir": cache_dir, **settings}
    env.update({f"ICOFRAMES_{k.upper()}": str(v) for k, v in values.items() if v is not None})
    return env


def _child(code: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _load(sb, cache: Path, **kwargs: object) -> pd.DataFrame:
    icoframes.configure(**sb.settings(), cache_dir=cache)
    return icoframes.load_icos(progress=False, **{"status": "past", **kwargs})


def _in_thread(call) -> dict:
    """Run ``call`` in a thread and wait for it with the hang guard (a hang fails the test)."""
    result: dict = {}

    def run() -> None:
        try:
            result["value"] = call()
        except BaseException as exc:  # handed to the test
            result["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    assert wait_until(lambda: not worker.is_alive()), "the call hung"
    if "error" in result:
        raise result["error"]
    return result


# -- text the service sends --------------------------------------------------------------


def test_a_lone_surrogate_in_a_profile_and_in_a_list_name_breaks_nothing(tmp_path):
    page = (b'{"total_icos": 2, "total_pages": 1, "current_page": 1, "error": null, "data": ['
            b'{"id": 1, "main": {"name": "One\\ud800"}}, {"id": 2, "main": {"name": "Two"}}]}')

    def profile(h):
        asked = h.request_json().get("id")
        h.send_bytes(200, b'{"error": null, "data": {"id": %d, "main": {"name": "P\\udc00%d",'
                     b' "description": "ok \\ud83d\\ude00"}}}' % (asked, asked))

    with HostileServer({LIST: raw_reply(page), PROFILE: profile}) as srv:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache")
        listing = icoframes.load_list(status="past", progress=False)
        cold = icoframes.load_tables(status="past", progress=False)
        warm = icoframes.load_tables(status="past", progress=False)
        offline = icoframes.load_icos(status="past", offline=True)
        assert srv.hits[PROFILE] == 2  # kept: not fetched again
    assert listing["name"].tolist() == ["One\ufffd", "Two"]
    assert sorted(cold.icos["name"]) == ["P\ufffd1", "P\ufffd2"]
    assert set(cold.icos["description"]) == {"ok \U0001f600"}  # a pair is one character
    pd.testing.assert_frame_equal(warm.icos, cold.icos)
    pd.testing.assert_frame_equal(offline, cold.icos)


# -- damaged and planted files ----------------------------------------------------------------


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=120, seed=51) as server:
        yield server


def test_a_damaged_database_is_set_aside_and_what_it_held_fetched_again(sb, tmp_path):
    cache = tmp_path / "cache"
    cold = _load(sb, cache)
    database = cache / sb.service_name / "cache.sqlite3"
    icoframes.reset_configuration()
    for side in ("-wal", "-shm"):
        Path(f"{database}{side}").unlink(missing_ok=True)
    damaged = database.with_name("damaged")
    damaged.write_bytes(b"\x00 torn by a dying disk " * 512)
    damaged.replace(database)
    before = sb.stats.requests.total()
    with pytest.warns(CacheWarning, match="not a readable database.*set aside"):
        again = _load(sb, cache)
    pd.testing.assert_frame_equal(again.drop(columns="fetched_at"),
                                  cold.drop(columns="fetched_at"))
    assert sb.stats.requests.total() - before == sum(
        1 for _ in cold["id"]) + -(-len(cold) // sandbox.PAGE_SIZE)
    assert (database.parent / "cache.sqlite3.corrupt").exists()


def test_a_writer_killed_inside_a_transaction_leaves_nothing_half_written(sb, tmp_path):
    cache = tmp_path / "cache"
    cold = _load(sb, cache)
    icoframes.reset_configuration()
    database = cache / sb.service_name / "cache.sqlite3"
    writer = _child(f"""
        import sqlite3
        conn = sqlite3.connect({str(database)!r}, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE profiles SET raw = '{{\\"torn' WHERE id % 2 = 0")
        conn.execute("DELETE FROM lists")
        print("ready", flush=True)
        import sys; sys.stdin = open(0); input()
    """, dict(os.environ))
    assert writer.stdout.readline().strip() == "ready", writer.stderr.read()
    writer.send_signal(signal.SIGKILL)  # inside the transaction, holding the write lock
    writer.communicate()
    before = sb.stats.requests.total()
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        again = _load(sb, cache)
    pd.testing.assert_frame_equal(again, cold)
    assert sb.stats.requests.total() == before  # nothing lost, nothing fetched again


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def test_fifos_and_symlinks_planted_in_the_cache_are_never_opened_or_followed(sb, tmp_path):
    cache = tmp_path / "cache"
    cold = _load(sb, cache)
    icoframes.reset_configuration()
    folder = cache / sb.service_name
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    os.utime(victim, (0, 0))
    _fifo(folder / "tables" / "icos.parquet")  # opening it to read would hang
    (folder / "tables" / "_state.json").unlink()
    (folder / "tables" / "_state.json").symlink_to(victim)
    _fifo(folder / ".lock")
    (folder / ".last_used").unlink(missing_ok=True)
    (folder / ".last_used").symlink_to(victim)
    before = sb.stats.requests.total()
    with pytest.warns(CacheWarning, match="not a plain file"):
        warm = _in_thread(lambda: _load(sb, cache))["value"]
    pd.testing.assert_frame_equal(warm, cold)
    assert sb.stats.requests.total() == before
    assert victim.read_text() == "mine" and victim.stat().st_mtime == 0  # not written through
    assert stat.S_ISREG((folder / "tables" / "icos.parquet").lstat().st_mode)

    # the database and its side files: a FIFO, then a link, each set aside, never opened
    icoframes.reset_configuration()
    for planted in ("cache.sqlite3", "cache.sqlite3-wal"):
        shutil.rmtree(folder)
        folder.mkdir(mode=0o700)
        _fifo(folder / planted)
        with pytest.warns(CacheWarning, match="not a plain file.*set aside"):
            fresh = _in_thread(lambda: _load(sb, cache))["value"]
        assert sorted(fresh["id"]) == sorted(cold["id"])
        icoframes.reset_configuration()
    shutil.rmtree(folder)
    folder.mkdir(mode=0o700)
    (folder / "cache.sqlite3").symlink_to(victim)
    with pytest.warns(CacheWarning, match="symbolic link.*set aside"):
        _load(sb, cache)
    assert victim.read_text() == "mine"
    # a link in place of the tables folder: removed, the tables are written in the cache
    icoframes.reset_configuration()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(folder / "tables")
    (folder / "tables").symlink_to(elsewhere)
    with pytest.warns(CacheWarning, match="tables"):
        _load(sb, cache)
    assert list(elsewhere.iterdir()) == [] and not (folder / "tables").is_symlink()


# -- other users -------------------------------------------------------------------------


OTHER_USER = "icoframes-other"


def _other_uid() -> int:
    if os.geteuid() != 0:
        pytest.skip("needs root: a folder owned by another user")
    import pwd

    try:
        return pwd.getpwnam(OTHER_USER).pw_uid
    except KeyError:
        done = subprocess.run(["useradd", "--system", "--no-create-home", OTHER_USER],
                              capture_output=True)
        if done.returncode not in (0, 9):  # 9: made meanwhile by another test process
            pytest.skip(f"cannot add a user: {done.stderr.decode().strip()}")
        return pwd.getpwnam(OTHER_USER).pw_uid


def test_a_cache_dir_of_another_user_or_open_to_others_is_refused(sb, tmp_path):
    uid = _other_uid()
    planted = tmp_path / "planted"
    planted.mkdir(mode=0o755)
    os.chown(planted, uid, -1)
    with pytest.raises(CacheError, match=f"belongs to another user \\(uid {uid}"):
        _load(sb, planted)
    open_to_all = tmp_path / "shared"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    with pytest.raises(CacheError, match=r"others may write to it \(mode 777"):
        _load(sb, open_to_all)
    # a service folder planted by another user inside one's own cache dir
    mine = tmp_path / "mine"
    folder = mine / sb.service_name
    folder.mkdir(parents=True, mode=0o700)
    mine.chmod(0o700)
    os.chown(folder, uid, -1)
    with pytest.raises(CacheError, match=r"cache folder .* refused: it belongs to another"):
        _load(sb, mine)
    # a new cache dir is made private
    fresh = tmp_path / "new" / "cache"
    _load(sb, fresh)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700
    assert stat.S_IMODE((fresh / sb.service_name).stat().st_mode) == 0o700


def test_a_folder_replaced_between_calls_of_one_cache_is_checked_again(tmp_path):
    # one Cache checks its folders once, and its database again whenever it opens its file:
    # a service folder removed and planted again by another user is refused at the next call
    uid = _other_uid()
    from icoframes.store.cache import ProfileRecord

    cache = Cache(tmp_path / "cache", "svc")
    assert cache.record(ProfileRecord(1, "past", "s", '{"id": 1}')) == [1]
    shutil.rmtree(cache.dir)  # removed between calls (clear_cache in another process)
    assert cache.version() == 0 and not cache.dir.exists()
    assert cache.record(ProfileRecord(2, "past", "s", '{"id": 2}')) == [1]  # made again, 0700
    assert stat.S_IMODE(cache.dir.stat().st_mode) == 0o700
    shutil.rmtree(cache.dir)
    cache.dir.mkdir(mode=0o755)
    os.chown(cache.dir, uid, -1)
    with pytest.raises(CacheError, match=r"cache folder .* refused: it belongs to another"):
        cache.version()
    with pytest.raises(CacheError, match=r"cache folder .* refused: it belongs to another"):
        cache.record(ProfileRecord(3, "past", "s", '{"id": 3}'))
    shutil.rmtree(cache.dir)
    cache.dir.mkdir(mode=0o700)
    cache.dir.chmod(0o777)  # one's own, open to others
    with pytest.raises(CacheError, match=r"others may write to it \(mode 777"):
        cache.record(ProfileRecord(3, "past", "s", '{"id": 3}'))


def test_a_read_only_cache_dir_serves_a_fresh_process(sb, tmp_path):
    cache = tmp_path / "cache"
    cold = _load(sb, cache)
    cold.to_parquet(tmp_path / "cold.parquet")
    icoframes.reset_configuration()
    code = f"""
        import icoframes, pandas as pd
        warm = icoframes.load_icos(status="past", progress=False)
        offline = icoframes.load_icos(status="past", offline=True)
        cold = pd.read_parquet({str(tmp_path / "cold.parquet")!r})
        pd.testing.assert_frame_equal(warm, cold)
        pd.testing.assert_frame_equal(offline, cold)
        print("served", icoframes.cache_info().profiles)
    """
    with _read_only(cache):
        out, err = _child(code, _env(sb, cache)).communicate()
    assert out.split() == ["served", str(len(cold))], err


# -- a full disk -------------------------------------------------------------------------


@contextlib.contextmanager
def _small_disk(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``path`` (root only; skips otherwise)."""
    path.mkdir(parents=True)
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("needs root to mount a small tmpfs")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs",
                           str(path)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def _fill(disk: Path, leave: int) -> Path:
    """A file taking all the free space of ``disk`` but ``leave`` bytes."""
    filler = disk / "filler"
    usage = os.statvfs(disk)
    size = max(0, usage.f_bavail * usage.f_frsize - leave)
    with open(filler, "wb") as fh:
        for _ in range(size >> 16):
            fh.write(b"\0" * 65536)
        fh.write(b"\0" * (size & 0xFFFF))
    return filler


def _remove(cache: Path) -> None:
    """The whole cache dir, ledgers included, and this process's connections to it."""
    icoframes.reset_configuration()
    shutil.rmtree(cache)
    close_idle(cache, wait=True)


def _where(exc: CacheError) -> str:
    """The folder a full-disk error names (the ledger's, the service's, the tables')."""
    assert "is full" in str(exc), exc
    return Path(str(exc).split(" is full")[0].split()[-1]).name


def _used(disk: Path) -> int:
    usage = os.statvfs(disk)
    return (usage.f_blocks - usage.f_bfree) * usage.f_frsize


def test_a_full_disk_at_any_write_is_a_cache_error_and_the_next_call_goes_on(tmp_path):
    failed_in: list[str] = []
    with sandbox.serve(n_icos=200, seed=52) as big, _small_disk(tmp_path / "disk", "6m") as disk:
        past = big.directory.ids("past")
        cache = disk / "cache"
        _load(big, cache)
        whole = _used(disk)  # what a complete cache of this query takes
        _remove(cache)
        # from no room at all to almost enough: the disk fills at another write each round
        for share in (0.0, 0.05, 0.2, 0.5, 0.8):
            filler = _fill(disk, int(share * whole))
            try:
                _load(big, cache)
            except CacheError as exc:  # never a bare OSError, never a wedged cache
                failed_in.append(_where(exc))
            filler.unlink()  # space returns: the next call goes on
            icos = _load(big, cache)
            assert sorted(icos["id"]) == sorted(past)
            assert icos.attrs["icoframes"]["complete"] is True
            if share < 0.8:
                _remove(cache)
        # a whole cache whose tables must be written again, with no room for them
        shutil.rmtree(cache / big.service_name / "tables")
        filler = _fill(disk, 0)
        with pytest.raises(CacheError) as no_room:
            _load(big, cache)
        failed_in.append(_where(no_room.value))
        filler.unlink()
        pd.testing.assert_frame_equal(_load(big, cache), icos)
        # the ledger or the raw store, whichever writes first, and the derived tables
        assert len(failed_in) >= 3 and failed_in[0] in ("quota", big.service_name), failed_in
        assert failed_in[-1] == "tables", failed_in
        # then a process killed mid-load on a nearly full disk; the cache still works
        filler = _fill(disk, whole // 2)
        child = _child("""
            import icoframes
            icoframes.load_icos(status="past", progress=False, max_workers=4)
        """, _env(big, cache))
        assert big.stats.wait_for(lambda s: child.poll() is not None
                                  or s.requests["ico"] >= 4 * len(past) // 5, timeout=HANG_GUARD)
        child.send_signal(signal.SIGKILL)
        child.communicate()
        filler.unlink()
        icos = _load(big, cache)
    assert sorted(icos["id"]) == sorted(past)
    assert icos.attrs["icoframes"]["complete"] is True


# -- peers -------------------------------------------------------------------------------


def test_a_peer_stopped_while_holding_claims_does_not_hold_up_another_load(tmp_path,
                                                                           monkeypatch):
    with sandbox.serve(n_icos=300, seed=53, latency=0.02) as shared:
        cache = tmp_path / "cache"
        past = shared.directory.ids("past")
        counted = shared.stats.record_request

        def record_request(endpoint: str) -> None:
            # every request from the 8th profile on held (paused in the serving thread, before
            # the request waits): however late this thread wakes on a loaded machine, the peer
            # cannot have fetched everything (~1.5 s) and ended meanwhile
            counted(endpoint)
            if endpoint == "ico" and shared.stats.requests["ico"] >= 8:
                shared.pause()

        monkeypatch.setattr(shared.stats, "record_request", record_request)
        peer = _child("""
            import icoframes.store.claims
            icoframes.store.claims.LEASE = 2.0  # this peer's claims lapse 2 s after its last word
            import icoframes
            icoframes.load_icos(status="past", progress=False, max_workers=4)
        """, _env(shared, cache))
        assert shared.stats.wait_for(lambda s: s.requests["ico"] >= 8, timeout=HANG_GUARD)
        monkeypatch.setattr(shared.stats, "record_request", counted)
        shared.pause()  # every request held: the peer waits on the network, it is not writing
        try:
            assert shared.stats.wait_for(lambda s: s.in_flight == 4, timeout=HANG_GUARD)
            peer.send_signal(signal.SIGSTOP)  # Ctrl-Z, a debugger, docker pause
        finally:
            shared.resume()
        try:
            icos = _in_thread(lambda: _load(shared, cache))["value"]
        finally:
            peer.send_signal(signal.SIGCONT)
            peer.kill()
            peer.communicate()
        assert sorted(icos["id"]) == sorted(past)
        assert icos.attrs["icoframes"]["complete"] is True
        assert max(shared.stats.profile_hits.values()) <= 2  # at most the ones held in flight


_LOAD = """
import json, sys, icoframes
query = json.loads(sys.argv[1])
icos = icoframes.load_icos(progress=False, max_workers=4, **query)
print(json.dumps(sorted(int(i) for i in icos["id"])))
"""


def test_processes_with_overlapping_and_different_queries_fetch_each_profile_once(tmp_path):
    queries = [{"status": "past"}, {"status": "past"}, {}, {"status": "ongoing"},
               {"status": "past", "ico_score": 3}, {"status": "upcoming"}]
    with sandbox.serve(n_icos=300, seed=54, latency=0.005) as shared:
        env = _env(shared, tmp_path / "cache")
        children = [subprocess.Popen([sys.executable, "-c", _LOAD, json.dumps(q)], env=env,
                                     cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True) for q in queries]
        results = []
        for child in children:
            out, err = child.communicate()
            assert child.returncode == 0, err
            results.append(json.loads(out))
        hits = shared.stats.profile_hits
        assert max(hits.values()) == 1, [i for i, n in hits.items() if n > 1]  # each once
        assert sorted(hits) == sorted(shared.directory.ids())
        for query, ids in zip(queries, results, strict=True):
            status = query.get("status")
            assert set(ids) <= set(shared.directory.ids(status))
        assert results[0] == results[1] == sorted(shared.directory.ids("past"))


def test_processes_racing_for_the_quota_never_send_one_request_over_it(tmp_path,
                                                                      one_ledger_day):
    cap = 90  # reached once a day: the test and its children count on one day
    with sandbox.serve(n_icos=400, seed=55, latency=0.005, quota=None) as shared:
        env = _env(shared, tmp_path / "cache", daily_quota=cap)
        children = [subprocess.Popen([sys.executable, "-c", on_this_clock(_LOAD), json.dumps(q)],
                                     env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
                    for q in ({"status": "past"}, {"status": "past"}, {}, {"status": "ongoing"})]
        errors = [child.communicate()[1] for child in children]
        assert sum("daily_quota setting (90 requests)" in e for e in errors) >= 1, errors
        assert shared.stats.requests.total() == cap  # every request booked, none over
        icoframes.configure(**shared.settings(), cache_dir=tmp_path / "cache")
        assert icoframes.cache_info().requests_today == cap


_MAKE_CACHES = """
import sys
from icoframes.store.cache import Cache
print("ready", flush=True)
sys.stdin.readline()  # all start together
for k in range(int(sys.argv[2])):
    with Cache(f"{sys.argv[1]}/{k}", "http://127.0.0.1:9").claims() as claims:
        claims.claim([k])
print("ok", flush=True)
"""


def test_processes_making_one_cache_at_the_same_moment_all_go_on(tmp_path):
    # SQLite answers a second switch to WAL mode with SQLITE_BUSY at once (no busy wait):
    # without waiting for it, one of several processes starting on a new cache failed
    for code, out, err in run_together(
            [[sys.executable, "-c", _MAKE_CACHES, str(tmp_path), "12"]] * 4, cwd=ROOT):
        assert (code, out.strip()) == (0, "ok"), err


def _holding_profile_1(stuck: threading.Event, let_go: threading.Event):
    """A profile handler answering at once, but profile 1 only once ``let_go`` is set
    (``stuck`` says it came)."""
    answer = profile_reply(clean_profile)

    def handler(h) -> None:
        if h.request_json().get("id") == 1:
            stuck.set()
            let_go.wait(HANG_GUARD)
        answer(h)

    return handler


def test_a_live_crawl_keeps_its_claims_while_a_request_hangs_longer_than_the_lease(tmp_path):
    """Leases lapse for a stopped owner only: a crawl waiting on a slow request renews them,
    so a peer does not fetch the same profile again meanwhile."""
    stuck, let_go = threading.Event(), threading.Event()
    slow_first = _holding_profile_1(stuck, let_go)

    start = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)
    with HostileServer({LIST: paged_list(1), PROFILE: slow_first}) as srv, \
            time_machine.travel(start, tick=False) as clock:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache", timeout=3600,
                            max_workers=2)
        loading = threading.Thread(target=icoframes.load_icos,
                                   kwargs={"status": "past", "progress": False}, daemon=True)
        loading.start()
        try:
            assert stuck.wait(HANG_GUARD), "the profile request never came"
            database = next((tmp_path / "cache").rglob(DB_NAME))

            def lease_of_1() -> float:
                with contextlib.closing(sqlite3.connect(database)) as conn:
                    row = conn.execute("SELECT expires FROM claims WHERE id = 1").fetchone()
                return 0.0 if row is None else float(row[0])

            lease = lease_of_1()
            assert lease > start.timestamp()  # claimed before it was asked for
            for _ in range(3):  # the request hangs on; the crawl is alive and waiting
                clock.shift(0.6 * LEASE)  # a lease would lapse in two of these
                assert wait_until(lambda last=lease: lease_of_1() > last, timeout=HANG_GUARD), \
                    "the crawl did not renew its claim while its request hung"
                lease = lease_of_1()
            peer = Cache(tmp_path / "cache", srv.base_url).claims()
            with peer:
                mine, taken, _ = peer.claim([1])
            assert (mine, taken) == ([], [1])
        finally:
            let_go.set()
            loading.join(HANG_GUARD)
            icoframes.reset_configuration()
    assert srv.hits[PROFILE] == 1


def test_ctrl_c_while_a_quota_stop_waits_for_paid_requests_still_releases_the_claims(
        tmp_path, monkeypatch, one_ledger_day):
    """A quota stop waits for the requests already sent (paid for) however long they take; a
    Ctrl-C then cuts them and still keeps what came and releases the load's claims.

    The SIGINT goes to another thread than the waiting one, as a terminal's Ctrl-C may (the
    kernel hands a process signal to any thread): the main thread's wait is then not woken,
    and must end on its own to run the handler. (A signal landing just as the main thread
    blocks is missed the same way, which is how this test failed under load.)"""
    from icoframes.fetch import pool

    stuck, let_go, waiting = threading.Event(), threading.Event(), threading.Event()
    slow_first = _holding_profile_1(stuck, let_go)

    real_wait = pool.RequestPool._ended

    def spy(self, timeout):
        if self._closed:
            waiting.set()  # the pool's wait for requests in flight (here: the quota stop's)
        return real_wait(self, timeout)

    def interrupt() -> None:
        if waiting.wait(HANG_GUARD):
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)

    monkeypatch.setattr(pool.RequestPool, "_ended", spy)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    with HostileServer({LIST: paged_list(5), PROFILE: slow_first}) as srv:
        icoframes.configure(**srv.settings(), cache_dir=tmp_path / "cache", timeout=3600,
                            max_workers=2, daily_quota=3)
        ctrl_c = threading.Thread(target=interrupt, daemon=True)
        ctrl_c.start()
        # Python runs a signal's handler in whatever Python code the main thread runs next;
        # in a garbage collector's callback (hypothesis installs one in this process when a
        # test of it ran first) the KeyboardInterrupt is printed as ignored and lost.
        collecting = gc.isenabled()
        gc.disable()
        try:
            with pytest.warns(QuotaWarning), pytest.raises(KeyboardInterrupt):
                icoframes.load_icos(status="past", progress=False)
        finally:
            signal.signal(signal.SIGINT, previous)
            if collecting:
                gc.enable()
            let_go.set()
            ctrl_c.join(HANG_GUARD)
            icoframes.reset_configuration()
    assert stuck.is_set() and waiting.is_set()
    database = next((tmp_path / "cache").rglob(DB_NAME))
    with contextlib.closing(sqlite3.connect(database)) as conn:
        assert conn.execute("SELECT count(*) FROM claims").fetchone()[0] == 0
        kept = [row[0] for row in conn.execute("SELECT id FROM profiles WHERE state = 'fetched'")]
    assert kept == [2]  # the one that came before the stop

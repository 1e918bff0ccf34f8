"""Claims and their leases, on a real ``cache.sqlite3`` in ``tmp_path`` at fixed simulated
times (time-machine, no clock read, no sleep): what mutants of store/claims.py survived
(``make mutate MODULE=store:claims``).

A claim is held until ``expires`` (``now + lease``, written with the process and host);
it lapses exactly then, at once when its process on this host is gone, and when it lies
more than two leases ahead (a clock stepped back); claims that lapsed a lease ago are
deleted; renewing extends only what this crawl still holds; a copy that arrived since
the plan is never claimed and drops a claim held on it.
"""

from __future__ import annotations

import datetime as dt
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import time_machine

from icoframes.store import claims as claims_module
from icoframes.store.cache import Cache, ProfileRecord
from icoframes.store.claims import LEASE, Claims

T0 = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)
HOST = socket.gethostname()


def _at(seconds: float) -> time_machine.travel:
    """Frozen at ``seconds`` after T0."""
    return time_machine.travel(T0 + dt.timedelta(seconds=seconds), tick=False)


def _dead_pid() -> int:
    """A pid no process can have: beyond the kernel's largest."""
    try:
        return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    except OSError:
        return 2 ** 22 + 1


@pytest.fixture(autouse=True)
def no_crawl_left_open() -> Iterator[None]:
    """Every crawl a test opens is closed by its end (after the fixtures' finalizers): a crawl
    of this process left open keeps its claims live for every later test in the worker (only
    a closed crawl's claims lapse at once), and shows in its open crawls."""
    before = set(claims_module._OPEN)
    yield
    left = claims_module._OPEN - before
    assert not left, f"crawls left open in this process: {sorted(left)}"


@pytest.fixture
def cache(tmp_path: Path) -> Cache:
    return Cache(tmp_path, "http://127.0.0.1:9")


@pytest.fixture
def crawl(cache: Cache) -> Iterator[Callable[..., Claims]]:
    """``crawl()``: a crawl's claims on ``cache`` (``cache.claims()``), closed when the test
    ends however it ended; a test still closes those whose close it tests."""
    opened: list[Claims] = []

    def open_crawl() -> Claims:
        opened.append(cache.claims())
        return opened[-1]

    yield open_crawl
    for claims in opened:
        claims.close()


def _rows(cache: Cache) -> list[tuple[int, str, int, str, float]]:
    with cache.write() as conn:
        return conn.execute("SELECT id, owner, pid, host, expires FROM claims ORDER BY id"
                            ).fetchall()


def _foreign(cache: Cache, ico_id: int, pid: int, host: str, expires: float,
             owner: str = "other") -> None:
    """A claim of another crawl, as its process would have written it."""
    with cache.write() as conn:
        conn.execute("INSERT INTO claims VALUES (?, ?, ?, ?, ?)", (ico_id, owner, pid, host,
                                                                 expires))


def _t(seconds: float) -> float:
    return (T0 + dt.timedelta(seconds=seconds)).timestamp()


def test_a_claim_is_written_with_its_owner_process_host_and_lease_end(cache, crawl):
    with _at(0):
        claims = crawl()
        assert claims.lease == LEASE == 20.0
        assert claims.claim([3, 1, 3, 2]) == ([3, 1, 2], [], [])
        assert claims.held == frozenset({1, 2, 3})
        assert repr(claims) == f"Claims({claims.token!r}, held=3)"
        assert len(claims.token) == 12
        other = crawl()
        assert other.lease == LEASE and other.token != claims.token
        assert other.claim(["7"]) == ([7], [], [])
    assert _rows(cache) == [(1, claims.token, os.getpid(), HOST, _t(LEASE)),
                            (2, claims.token, os.getpid(), HOST, _t(LEASE)),
                            (3, claims.token, os.getpid(), HOST, _t(LEASE)),
                            (7, other.token, os.getpid(), HOST, _t(LEASE))]


def test_a_lease_lapses_exactly_when_it_ends(cache, crawl):
    with _at(0):
        first = crawl()
        first.claim([1, 2])
    with _at(LEASE - 0.001):
        second = crawl()
        assert second.claim([2, 1, 3]) == ([3], [2, 1], [])
    with _at(LEASE):
        assert second.claim([2, 1, 3]) == ([2, 1, 3], [], [])
    assert {row[0]: row[1] for row in _rows(cache)} == dict.fromkeys((1, 2, 3), second.token)


@pytest.mark.parametrize(("ahead", "taken"), [(2 * LEASE, True), (2 * LEASE + 0.001, False)])
def test_a_claim_more_than_two_leases_ahead_lapsed_clock_stepped_back(cache, crawl, ahead, taken):
    _foreign(cache, 5, os.getpid(), HOST, _t(ahead), owner=crawl().token)  # open
    with _at(0):
        assert crawl().claim([5]) == (([], [5], []) if taken else ([5], [], []))


def test_a_claim_of_a_process_gone_lapses_at_once_but_not_on_another_host(cache, crawl):
    _foreign(cache, 1, _dead_pid(), HOST, _t(LEASE))
    _foreign(cache, 2, _dead_pid(), "another-host", _t(LEASE))
    live = crawl()  # this process, another crawl, still open
    _foreign(cache, 3, os.getpid(), HOST, _t(LEASE), owner=live.token)
    with _at(0):
        claims = crawl()
        assert claims.claim([1, 2, 3]) == ([1], [2, 3], [])
    assert [row[:2] for row in _rows(cache)] == [(1, claims.token), (2, "other"),
                                                 (3, live.token)]


def test_a_claim_left_by_a_closed_crawl_of_this_process_lapses_at_once(cache, crawl):
    # a full disk refused the release at close: its rows stay, its crawl is over; the next
    # call of this process waited out their lease (20 s a call in test_safety's full disk)
    ended, live = crawl(), crawl()
    ended.close()
    _foreign(cache, 1, os.getpid(), HOST, _t(LEASE), owner=ended.token)
    _foreign(cache, 3, os.getpid(), HOST, _t(LEASE), owner=live.token)
    with _at(0):
        claims = crawl()
        assert claims.claim([1, 3]) == ([1], [3], [])
        live.close()
        assert claims.claim([3]) == ([3], [], [])


def test_a_claim_with_this_pid_and_host_under_a_token_not_made_here_lives_its_lease(cache, crawl):
    # another process as PID 1 of its own PID namespace, in a container of this hostname,
    # sharing the cache dir (REVJ M1: it lapsed at once, so each load fetched every profile)
    _foreign(cache, 2, os.getpid(), HOST, _t(LEASE), owner="made-elsewhere")
    with _at(0):
        claims = crawl()
        assert claims.claim([2]) == ([], [2], [])
    with _at(LEASE):
        assert claims.claim([2]) == ([2], [], [])
    assert _rows(cache) == [(2, claims.token, os.getpid(), HOST, _t(2 * LEASE))]


def test_crawls_keep_nothing_per_crawl_and_a_forked_child_makes_tokens_of_its_own(cache):
    # 'made here' is a token's start, new in a forked child: nothing is kept per crawl
    # (REVO: a set of every token made grew ~169 B a load for the life of the process)
    import tracemalloc

    cache.claims().close()  # (the first crawl's one-off costs)
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        with cache.claims() as first:
            tokens = [first.token]
        for _ in range(2000):
            with cache.claims() as claims:
                pass
        grown = sum(d.size_diff for d in tracemalloc.take_snapshot().compare_to(before, "filename"))
    finally:
        tracemalloc.stop()
    tokens.append(claims.token)
    assert grown < 50 * 2000, f"{grown / 2000:.0f} B kept per crawl"
    assert len(set(tokens)) == 2 and tokens[0][:8] == tokens[1][:8]
    if not hasattr(os, "fork"):
        return
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its crawl's token, then the parent's closed crawl's leftover
        code = 1
        try:
            with _at(0):
                _foreign(cache, 4, os.getppid(), HOST, _t(LEASE), owner=tokens[0])
                with cache.claims() as child:
                    os.write(write, child.token.encode())
                    code = 0 if child.claim([4]) == ([], [4], []) else 2  # (parent alive)
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as pipe:
        made = pipe.read()
    assert os.waitpid(pid, 0)[1] == 0
    assert made and made[:8] != tokens[0][:8]


def test_claims_that_lapsed_a_lease_ago_are_deleted_when_a_crawl_starts(cache, crawl):
    _foreign(cache, 1, os.getpid(), HOST, _t(-LEASE - 0.001))
    _foreign(cache, 2, os.getpid(), HOST, _t(-LEASE))
    _foreign(cache, 3, os.getpid(), HOST, _t(0))
    with _at(0):
        crawl()
    assert [row[0] for row in _rows(cache)] == [2, 3]


def test_copies_arrived_since_the_plan_are_not_claimed_and_drop_a_claim_held(cache, crawl):
    planned = cache.version()
    with _at(0):
        claims = crawl()
        assert claims.claim([1, 2]) == ([1, 2], [], [])
        cache.record(ProfileRecord(2, "past", "s", "{}"), ProfileRecord(3, "past", "s", "{}"))
        version = cache.version()
        cache.record(ProfileRecord(4, "past", "s", "{}"))
        assert claims.claim([3, 2, 1, 4], arrived_since=planned) == ([1], [], [3, 2, 4])
        assert claims.held == frozenset({1})
        assert claims.claim([3, 4, 5], arrived_since=version) == ([3, 5], [], [4])
        cache.record(ProfileRecord(9, "past", "s", None, state="failed", reason="HTTP 500"))
        assert claims.claim([9], arrived_since=version) == ([9], [], [])  # a failure: no copy
    assert [row[0] for row in _rows(cache)] == [1, 3, 5, 9]


def test_renewing_extends_what_is_held_and_every_skips_a_recent_renewal(cache, crawl):
    with _at(0):
        claims = crawl()
        claims.claim([1])
    with _at(5 - 0.001):
        claims.renew(every=5)
    assert _rows(cache)[0][4] == _t(LEASE)
    with _at(5):
        claims.renew(every=5)
    assert _rows(cache)[0][4] == _t(5 + LEASE)
    with _at(9):
        claims.renew(every=5)  # 4 s after the last renewal
    assert _rows(cache)[0][4] == _t(5 + LEASE)
    with _at(9):
        claims.renew()
    assert _rows(cache)[0][4] == _t(9 + LEASE)


def test_a_claim_taken_by_another_crawl_after_it_lapsed_stays_its(cache, crawl):
    with _at(0):
        first = crawl()
        first.claim([1, 2])
    with _at(LEASE):
        second = crawl()
        assert second.claim([1]) == ([1], [], [])
        first.renew()
        assert first.held == frozenset({2})
        assert second.claim([1, 2]) == ([1], [2], [])
    assert [row[:2] for row in _rows(cache)] == [(1, second.token), (2, first.token)]


def test_renewing_nothing_held_or_after_close_writes_nothing(cache, crawl):
    with _at(0):
        idle = crawl()
        idle.renew()
        busy = crawl()
        busy.claim([1])
        busy.close()
        busy.renew()
    assert _rows(cache) == []
    with _at(4):
        idle.renew()  # nothing held: not a renewal
        idle.claim([1])
    with _at(3):  # ``every`` counts from the start, or the last renewal
        idle.renew(every=5)
    assert _rows(cache)[0][4] == _t(4 + LEASE)
    with _at(6):
        idle.renew(every=5)
    assert _rows(cache)[0][4] == _t(6 + LEASE)


def test_release_gives_up_only_what_this_crawl_holds(cache, crawl):
    _foreign(cache, 9, os.getpid(), HOST, _t(LEASE))
    with _at(0):
        claims = crawl()
        claims.claim([1, 2, 3])
        claims.release([2, "3", 9, 10])
        assert claims.held == frozenset({1})
        claims.release([])
    assert [row[:2] for row in _rows(cache)] == [(1, claims.token), (9, "other")]


def test_closing_releases_every_claim_and_ends_the_crawl(cache):
    _foreign(cache, 9, os.getpid(), HOST, _t(LEASE))
    with _at(0):
        with cache.claims() as claims:
            claims.claim([1, 2])
        assert claims.held == frozenset()
        assert [row[0] for row in _rows(cache)] == [9]
        claims.close()
        with pytest.raises(RuntimeError, match=r"^these claims were closed$"):
            claims.claim([3])
        empty = cache.claims()
        empty.close()
        with pytest.raises(RuntimeError, match="these claims were closed"):
            empty.claim([3])
    assert [row[0] for row in _rows(cache)] == [9]


def test_a_timed_claim_says_when_each_id_was_last_claimed_before_it(cache, crawl):
    """A list's claim (``timed``) keeps when it was taken, after its release too: a load
    without a status reads it (which cached lists are of that claim's moment), from the
    claim it makes itself too (the claim just released: that moment, not its own). The
    crawl that holds it keeps its moment when it claims again. An untimed claim (a
    profile's) keeps nothing."""
    with _at(0):
        first, second = crawl(), crawl()
        assert first.claim([-5], timed=True) == ([-5], [], []) and first.moments == {}
        assert first.claim([7]) == ([7], [], [])
    with _at(3):
        assert first.claim([-5], timed=True) == ([-5], [], [])  # held already: its moment
        assert second.claim([-5, 7], timed=True) == ([], [-5, 7], [])
        assert second.moments == {-5: _t(0)}
        first.release([-5])
    with _at(8):
        assert second.claim([-5], timed=True) == ([-5], [], [])
        assert second.moments == {-5: _t(0)}  # the last claim before this one
        assert second.claim([-5], timed=True) == ([-5], [], [])
        assert second.moments == {-5: _t(8)}
        second.release([-5])
    with _at(9):
        assert first.claim([-5], timed=True) == ([-5], [], []) and first.moments == {-5: _t(8)}


def test_a_lists_moment_goes_once_its_list_is_neither_cached_nor_claimed(cache, crawl):
    """A list's moment is kept after its claim's release while the list is cached, and goes
    (when a crawl starts) once neither its list nor a claim names it: the table does not
    grow by a row per list query ever paged."""
    from icoframes.fetch.sharedlists import list_claim_id
    from icoframes.parse.lists import list_frame

    kept, failed, live = ({"status": status} for status in ("past", "ongoing", "upcoming"))
    ids = {list_claim_id(params): name for params, name in
           ((kept, "kept"), (failed, "failed"), (live, "live"))}

    def moments() -> set[str]:
        with cache.write() as conn:
            return {ids[row[0]] for row in conn.execute("SELECT id FROM claimed")}

    with _at(0):
        first = crawl()
        assert first.claim(ids, timed=True)[0] == list(ids)
        cache.write_list(kept, [], list_frame([], status="past"), total_icos=0)
        first.release([list_claim_id(kept), list_claim_id(failed)])  # failed: paging failed
    with _at(1):
        crawl()
        assert moments() == {"kept", "live"}
        first.release([list_claim_id(live)])
        assert cache.drop_lists(fetched_before=T0 + dt.timedelta(days=1))
        crawl()
        assert moments() == set()

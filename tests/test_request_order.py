"""The order in which a load hands out its requests (icoframes/fetch/load.py, pool.py,
service.py): the pages a list page makes known go out before the load plans that page's
rows, so no worker waits for the planning; a pool that is shut down takes no more
requests; a first load makes the ledger's database while it claims its list (the cache's
database), side by side, and a ledger that cannot be made is said by the first booking."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from waiting import HANG_GUARD, wait_until

import icoframes
from icoframes import sandbox
from icoframes.errors import CacheError
from icoframes.fetch.load import Load
from icoframes.fetch.pool import RequestPool
from icoframes.fetch.service import Service
from icoframes.store.claims import Claims
from icoframes.store.ledger import LEDGER_FOLDER


@pytest.fixture(scope="module")
def sb():
    with sandbox.serve(n_icos=120, seed=3) as server:
        yield server


def test_the_pages_a_page_makes_known_go_out_before_its_rows_are_planned(cfg, monkeypatch):
    log: list[tuple[str, object]] = []
    submit, plan_rows = RequestPool.submit, Load._plan_rows

    def submitted(self, kind, info, fn, *args):
        log.append(("sent", info[1] if kind == "page" else "profile"))
        return submit(self, kind, info, fn, *args)

    def planned(self, query, frame, *, repaged, page=None):
        log.append(("planned", None if frame is None else len(frame)))
        return plan_rows(self, query, frame, repaged=repaged, page=page)

    monkeypatch.setattr(RequestPool, "submit", submitted)
    monkeypatch.setattr(Load, "_plan_rows", planned)
    pages = -(-len(cfg.directory.ids("past")) // 20)
    assert pages >= 4  # page 1, then more pages than the workers left over by it

    icos = icoframes.load_icos(status="past", progress=False, max_workers=3)

    assert len(icos) == len(cfg.directory.ids("past"))
    first_plan = log.index(("planned", 20))  # page 1's rows
    # page 1 went alone; once it was read, pages 2-4 (three workers) went out, then
    # page 1's rows were planned
    assert log[:first_plan + 1] == [("sent", 1), ("sent", 2), ("sent", 3), ("sent", 4),
                                    ("planned", 20)]
    assert sorted(n for what, n in log if what == "sent" and n != "profile") == list(
        range(1, pages + 1))  # each page asked once


def test_a_pool_shut_down_takes_no_more_requests():
    pool = RequestPool(2)
    started = threading.Event()
    pool.submit("profile", "a", started.set)
    assert started.wait(HANG_GUARD) and pool.free
    finished = pool.shut_down(grace=None, cancel=lambda: None)
    assert [(kind, info) for kind, info, _ in finished] == [("profile", "a")]
    assert not pool.free  # a page handed back at the shut-down sends nothing more
    assert RequestPool(2).free  # (a new pool is free before its first request)


def test_a_pool_shut_down_before_any_request_takes_none():
    pool = RequestPool(1)
    assert pool.shut_down(grace=0.0, cancel=lambda: None) == [] and not pool.free


def test_a_first_load_makes_its_ledger_while_it_claims_its_list(cfg, monkeypatch, tmp_path):
    log: list[tuple[object, ...]] = []
    made = threading.Event()
    open_ledger, claim, submit = Service._open_ledger, Claims.claim, RequestPool.submit

    def opening(self):
        open_ledger(self)
        log.append(("ledger made", threading.current_thread().name,
                    self.ledger.path.is_file()))
        made.set()

    def claiming(self, ids, **kwargs):
        ids = list(ids)
        if any(i < 0 for i in ids):  # a list's claim (a profile's comes after its page)
            log.append(("claim",))
            assert made.wait(HANG_GUARD)  # made meanwhile by another thread: side by side
        return claim(self, ids, **kwargs)

    def submitted(self, kind, info, fn, *args):
        log.append(("sent", kind))
        return submit(self, kind, info, fn, *args)

    monkeypatch.setattr(Service, "_open_ledger", opening)
    monkeypatch.setattr(Claims, "claim", claiming)
    monkeypatch.setattr(RequestPool, "submit", submitted)
    assert not (tmp_path / "cache" / LEDGER_FOLDER).exists()
    icos = icoframes.load_icos(status="past", progress=False)
    assert len(icos) == len(cfg.directory.ids("past"))
    # the thread may be done before the claim begins: the claim could wait for it (in the
    # same thread as before, the wait would never end), and both came before any request
    assert sorted(log[:2], key=str) == [("claim",), ("ledger made", "icoframes-ledger", True)]
    assert log[2] == ("sent", "page")
    assert [e for e in log if e[0] == "ledger made"] == [  # once per load
        ("ledger made", "icoframes-ledger", True)]
    made.clear()
    icoframes.load_icos(status="past", progress=False)  # warm: no claim, no ledger opened
    assert not made.is_set()


def test_a_ledger_that_cannot_be_made_is_said_by_the_first_booking(cfg, tmp_path):
    folder = tmp_path / "cache" / LEDGER_FOLDER
    folder.mkdir(parents=True)
    folder.chmod(0o777)  # refused: others could plant a ledger
    with pytest.raises(CacheError, match="others may write to it"):
        icoframes.load_icos(status="past", progress=False)
    assert cfg.stats.requests.get("icos", 0) == 0  # nothing sent


def test_a_ledger_another_process_holds_locked_is_waited_for_once_by_the_booking(
        cfg, monkeypatch, tmp_path):
    """The thread that opens the ledger does not wait for a write lock another process
    holds (the load, holding its list's claim, would wait for it there, unrenewed, and then
    again at the first booking: 40 s where the message says 20): the first request is
    booked while the lock is held, and goes out once it is released."""
    from icoframes.fetch.stops import Booking
    from icoframes.store import db
    from icoframes.store.connections import close_idle

    icoframes.load_list(status="past", progress=False)  # the ledger and the filter set made
    close_idle(tmp_path / "cache", wait=True)  # reopened with the wait below
    monkeypatch.setattr(db, "BUSY_SECONDS", 2 * HANG_GUARD)  # a wait outlasts the guard
    booking, held = threading.Event(), threading.Event()
    take = Booking.take

    def taking(self, endpoint):
        booking.set()
        return take(self, endpoint)

    monkeypatch.setattr(Booking, "take", taking)
    booked_while_held = []

    def hold():  # another process writing to the ledger, until the load books a request
        ledger = sqlite3.connect(tmp_path / "cache" / LEDGER_FOLDER / "ledger.sqlite3",
                                 isolation_level=None)
        ledger.execute("BEGIN IMMEDIATE")
        held.set()
        booked_while_held.append(booking.wait(HANG_GUARD))
        ledger.execute("ROLLBACK")
        ledger.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert held.wait(HANG_GUARD)
    sent = cfg.stats.requests.get("icos", 0)
    icoframes.load_icos(status="past", progress=False, refresh=True)
    holder.join()
    assert booked_while_held == [True]  # before: the ledger's thread waited for the lock
    assert cfg.stats.requests.get("icos", 0) > sent  # the list paged again once released


def test_a_finished_request_not_handed_out_yet_is_returned_by_the_shut_down():
    """The load handles a batch of finished requests one by one; one its handling stopped
    before (a CacheError of the one before) is still the pool's, and so still kept."""
    pool = RequestPool(3)
    for n in range(3):
        pool.submit("profile", n, lambda k: k, n)
    assert wait_until(lambda: pool._done.qsize() == 3)  # all three ended
    first = pool.next_done(timeout=HANG_GUARD)
    taken = next(iter(pool.finished()))  # the handling stops after the second
    assert first is not None and pool.busy == 1
    left = pool.shut_down(grace=0.0, cancel=lambda: None)
    assert [info for _, info, _ in left] == sorted({0, 1, 2} - {first[1], taken[1]})

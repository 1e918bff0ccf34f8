"""The daily limit is the stop even when a cache error came with it (several workers).

The service refuses (485) while other requests of the load are in flight, and a cache
error comes with it: the ledger's folder replaced by one icoframes refuses (so the next
booking of another worker fails), or the service's folder replaced (so what arrived cannot
be kept). Whichever the load meets first, the user gets QuotaExceeded with its wording, the
cache error said in it, and counts that are the server's: requests sent, profiles fetched.
"""

from __future__ import annotations

import datetime as dt
import itertools
import threading

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list, spoil_folder
from waiting import HANG_GUARD, wait_until

import icoframes
from icoframes.api.retry import ANSWERS_REFUSED
from icoframes.errors import CacheError, IncompleteWarning, QuotaExceeded
from icoframes.store.ledger import LEDGER_FOLDER

NOON = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)  # one ledger day, whenever it runs


@pytest.fixture
def configured():
    yield icoframes.configure
    icoframes.reset_configuration()


def _refused_after(answered, spoiled):
    """Profiles: the first ``answered`` received are answered; every later one is refused
    (485), the folder ``spoiled()`` names replaced before the first refusal leaves."""
    received = itertools.count(1)  # each request's own number (the handlers run together)
    lock = threading.Lock()

    def behaviour(h):
        asked = h.request_json().get("id")
        with lock:
            number = next(received)
        if number <= answered:
            json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)
            return
        spoil_folder(spoiled())
        json_reply({"error": 485})(h)
    return behaviour


def _quota_stop(srv, cache, configured, load, **query) -> QuotaExceeded:
    """The QuotaExceeded a noon load with 4 workers against ``srv`` stops with."""
    with time_machine.travel(NOON, tick=True):
        configured(**srv.settings(), cache_dir=cache, max_workers=4)
        with pytest.raises(QuotaExceeded) as info:
            load(progress=False, **query)
    return info.value


def test_a_485_is_the_stop_when_other_workers_then_meet_the_ledgers_error(tmp_path,
                                                                          configured):
    cache = tmp_path / "cache"
    with HostileServer({LIST: paged_list(60),
                        PROFILE: _refused_after(10, lambda: cache / LEDGER_FOLDER)}) as srv:
        stop = _quota_stop(srv, cache, configured, icoframes.load_icos, status="past")
    message = str(stop)
    assert stop.code == 485 and "error 485" in message and not isinstance(stop, CacheError)
    sent = sum(srv.hits.values())  # the server's count: each request in flight was waited for
    assert srv.hits[LIST] == 3 and srv.hits[PROFILE] >= 11
    assert f"after at least {sent} requests sent today" in message
    assert "This call fetched 10 profiles; 50 remain to fetch" in message
    assert f"{cache / LEDGER_FOLDER} is refused: others may write to it" in message
    assert "Everything fetched is cached" in message  # the service's folder was fine
    with pytest.warns(IncompleteWarning, match="50 listed ICO"):  # the 10 fetched, kept
        assert len(icoframes.load_icos(status="past", offline=True, progress=False)) == 10


def test_a_485_says_that_what_arrived_before_it_could_not_be_kept(tmp_path, configured):
    cache = tmp_path / "cache"

    def refuse(h):  # the service's folder replaced, then 485
        [folder] = [p for p in cache.iterdir() if p.is_dir() and p.name != LEDGER_FOLDER
                    and not p.name.endswith("-before")]
        spoil_folder(folder)
        json_reply({"error": 485})(h)

    first_page = paged_list(60)

    def listing(h):
        if h.request_json().get("page", 1) == 1:
            first_page(h)
        else:  # pages 2 and 3 both sent before either is refused
            assert wait_until(lambda: h.server.owner.hits[LIST] == 3)
            refuse(h)

    with HostileServer({LIST: listing}) as srv:  # pages 2 and 3 together, both refused
        stop = _quota_stop(srv, cache, configured, icoframes.load_list, status="past")
    message = str(stop)
    assert stop.code == 485 and "error 485" in message and not isinstance(stop, CacheError)
    assert srv.hits[LIST] == 3 == sum(srv.hits.values())
    assert "after 3 requests sent today" in message  # the ledger was fine: its count
    assert "(and a list was not complete, so possibly more)" in message
    # page 1, paid for, could not be kept: said, not "Everything fetched is cached"
    assert "Everything fetched is cached" not in message
    assert "Not everything fetched could be kept (the cache folder" in message
    assert "others may write to it" in message


def test_a_485_is_the_stop_when_a_page_that_came_with_it_finds_the_ledger_unreadable(
        tmp_path, configured):
    cache = tmp_path / "cache"
    refused = threading.Event()

    def refuse(h):  # once page 3 is sent too: the ledger's folder replaced, then 485
        assert wait_until(lambda: h.server.owner.hits[LIST] == 3)
        spoil_folder(cache / LEDGER_FOLDER)
        json_reply({"error": 485})(h)
        refused.set()

    pages = paged_list(60)

    def listing(h):
        page = h.request_json().get("page", 1)
        if page == 2:
            refuse(h)
        else:  # page 3 answers once page 2 is refused: its rows are planned after the 485
            assert page == 1 or refused.wait(HANG_GUARD)
            pages(h)

    with HostileServer({LIST: listing, PROFILE: refuse}) as srv:
        stop = _quota_stop(srv, cache, configured, icoframes.load_icos, status="past")
    message = str(stop)
    assert stop.code == 485 and "error 485" in message and not isinstance(stop, CacheError)
    assert srv.hits[LIST] == 3
    assert f"after at least {sum(srv.hits.values())} requests sent today" in message
    assert "This call fetched 0 profiles; 40 remain to fetch (and a list was not complete" \
        in message  # pages 1 and 3 planned, page 2 refused
    assert f"{cache / LEDGER_FOLDER} is refused: others may write to it" in message


def test_a_485_is_the_stop_when_the_cache_could_not_claim_profiles_before_it_came(
        tmp_path, configured, monkeypatch):
    from icoframes.fetch import inflight, pool

    cache = tmp_path / "cache"
    stopping = threading.Event()
    real_shut_down = pool.RequestPool.shut_down

    def shut_down(self, **kwargs):  # the load stopped (the claim's cache error)
        stopping.set()
        return real_shut_down(self, **kwargs)

    monkeypatch.setattr(pool.RequestPool, "shut_down", shut_down)
    monkeypatch.setattr(inflight, "GRACE", HANG_GUARD)  # the grace of that stop: ample here
    pages = paged_list(60)

    def service_folder():
        [folder] = [p for p in cache.iterdir() if p.is_dir() and p.name != LEDGER_FOLDER
                    and not p.name.endswith("-before")]
        return folder

    def listing(h):
        page = h.request_json().get("page", 1)
        if page == 2:  # refused once the load stopped: within the stop's grace
            assert stopping.wait(HANG_GUARD)
            json_reply({"error": 485})(h)
            return
        if page == 3:  # the service's folder replaced before its answer leaves: the claim
            assert wait_until(lambda: h.server.owner.hits[LIST] == 3)  # of its rows fails
            spoil_folder(service_folder())
        pages(h)

    with HostileServer({LIST: listing}) as srv, time_machine.travel(NOON, tick=True):
        configured(**srv.settings(), cache_dir=cache, max_workers=2)
        with pytest.raises(QuotaExceeded) as info:
            icoframes.load_icos(status="past", progress=False)
    stop, message = info.value, str(info.value)
    assert stop.code == 485 and "error 485" in message and not isinstance(stop, CacheError)
    assert srv.hits == {LIST: 3}  # no profile was claimed, so none was sent
    assert "after 3 requests sent today" in message  # the ledger was fine: its count
    assert "Not everything fetched could be kept (the cache folder" in message
    assert "others may write to it" in message


def test_a_485_stays_the_stop_when_a_list_answered_after_it_cannot_be_planned(
        tmp_path, configured, monkeypatch):
    """The 485 stops the load first; a page of another list, in flight, is waited for (paid
    for) and arrives once the service's folder was replaced: its rows, the first this load
    plans, cannot be planned. Before: that CacheError escaped the shutdown, over the 485."""
    from icoframes.fetch import pool

    cache = tmp_path / "cache"
    stopping = threading.Event()
    real_shut_down = pool.RequestPool.shut_down

    def shut_down(self, **kwargs):  # the load stopped (the 485)
        stopping.set()
        return real_shut_down(self, **kwargs)

    monkeypatch.setattr(pool.RequestPool, "shut_down", shut_down)
    pages = paged_list(5)

    def listing(h):
        if h.request_json().get("status") == "past":
            json_reply({"error": 485})(h)
            return
        assert stopping.wait(HANG_GUARD)  # the other lists' first pages: after the stop,
        [folder] = [p for p in cache.iterdir() if p.is_dir()  # the service's folder replaced
                    and p.name != LEDGER_FOLDER and not p.name.endswith("-before")]
        spoil_folder(folder)
        pages(h)

    with HostileServer({LIST: listing}) as srv:
        stop = _quota_stop(srv, cache, configured, icoframes.load_icos)
    message = str(stop)
    assert stop.code == 485 and not isinstance(stop, CacheError)
    assert srv.hits == {LIST: 3}  # one page of each list, nothing after the stop
    assert "Not everything fetched could be kept (the cache folder" in message


def _profiles_then_485(bad: dict, good: tuple[int, ...]):
    """A profile handler: the ids of ``bad`` get their answer, those of ``good`` a profile,
    any other id error 485 (the daily limit)."""
    def profiles(h):
        asked = h.request_json().get("id")
        if asked in bad:
            json_reply(bad[asked])(h)
        elif asked in good:
            json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)
        else:
            json_reply({"error": 485})(h)
    return profiles


def test_the_profiles_a_quota_stop_says_fetched_leave_out_those_gone(tmp_path, configured):
    # profile 1 is gone (error 482: kept as gone, not fetched), 2 and 3 answer, then 485
    profiles = _profiles_then_485({1: {"error": 482, "data": None}}, (2, 3))
    with HostileServer({LIST: paged_list(10), PROFILE: profiles}) as srv, \
            time_machine.travel(NOON, tick=True):
        configured(**srv.settings(), cache_dir=tmp_path / "c", max_workers=1)
        with pytest.raises(QuotaExceeded) as info:
            icoframes.load_icos(status="past", progress=False)
        assert srv.hits[PROFILE] == 4
    # (was "fetched 3 profiles": the gone one counted)
    assert "This call fetched 2 profiles; 7 remain to fetch" in str(info.value)


def test_a_quota_stop_counts_the_profiles_that_failed_among_those_left(tmp_path, configured):
    # profiles 1 and 2 are answered "data": null (failed: asked again by a later call), 3 and
    # 4 answer, then 485: the stop said "fetched 2 profiles; 6 remain" and .remaining 6,
    # though the next call must fetch 8
    null = {"error": None, "data": None}
    profiles = _profiles_then_485({1: null, 2: null}, (3, 4))
    with HostileServer({LIST: paged_list(10), PROFILE: profiles}) as srv, \
            time_machine.travel(NOON, tick=True):
        configured(**srv.settings(), cache_dir=tmp_path / "c", max_workers=1)
        with pytest.raises(QuotaExceeded) as info:
            icoframes.load_icos(status="past", progress=False)
        assert srv.hits[PROFILE] == 2 * ANSWERS_REFUSED + 3
    assert info.value.remaining == 8
    assert ("This call fetched 2 profiles; 8 remain to fetch; 2 of them failed in this call "
            "(in attrs['icoframes']['failed'] of the error's listing), asked again by a later "
            "one.") in str(info.value)
    assert sorted(info.value.listing.attrs["icoframes"]["failed"]) == [1, 2]

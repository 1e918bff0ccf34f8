"""A quota stop is never hidden by a ledger that cannot be read at that moment.

The service refuses (485) and, in the same instant, the cache folder of the ledger is replaced
by one that icoframes refuses to use (others may write to it; a ledger checks its folders
once, and again whenever its file is opened anew): recording the refusal and
reading the day's count then fail with a CacheError. The user still gets the quota stop,
QuotaExceeded with its wording (who refused, what was sent, what is left, what now), and
the ledger's error is said in it: the count is this call's own, "at least".
"""

from __future__ import annotations

import datetime as dt
import os
import threading

import pytest
import time_machine
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list, spoil_folder
from waiting import HANG_GUARD

import icoframes
from icoframes.errors import CacheError, QuotaExceeded
from icoframes.store.ledger import LEDGER_FOLDER


@pytest.fixture
def configured():
    yield icoframes.configure
    icoframes.reset_configuration()


def _refuse_and_spoil_the_ledger(cache, answered: int):
    """Profiles: the first ``answered`` answered; then 485, the ledger's folder replaced by a
    world-writable one before the answer leaves (so icoframes refuses to read it)."""
    def behaviour(h):
        asked = h.request_json().get("id")
        if h.server.owner.hits[PROFILE] <= answered:
            json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)
            return
        quota = cache / LEDGER_FOLDER
        if not quota.with_name("quota-before").exists():
            quota.rename(quota.with_name("quota-before"))
            quota.mkdir()
            os.chmod(quota, 0o777)
        json_reply({"error": 485})(h)
    return behaviour


def test_a_485_is_still_the_stop_when_the_ledger_cannot_be_read_after_it(tmp_path, configured):
    cache = tmp_path / "cache"
    noon = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)  # one ledger day, whenever it runs
    with HostileServer({LIST: paged_list(30),
                        PROFILE: _refuse_and_spoil_the_ledger(cache, 3)}) as srv, \
            time_machine.travel(noon, tick=True):
        # one worker: the 485 is the only request in flight when the ledger goes bad
        configured(**srv.settings(), cache_dir=cache, max_workers=1)
        with pytest.raises(QuotaExceeded) as info:
            icoframes.load_icos(status="past", progress=False)
    stop, message = info.value, str(info.value)
    assert stop.code == 485 and "error 485" in message
    assert srv.hits[PROFILE] == 4 and srv.hits[LIST] == 2
    # the count the ledger could not give: this call's 6 requests, said as a lower bound
    assert "after at least 6 requests sent today" in message
    assert "This call fetched 3 profiles; 27 remain to fetch" in message
    assert "offline=True" in message  # what now: not a probe, the refusal is not on record
    assert message.endswith(
        "The ledger could not record this refusal, so the next call may not know of it and "
        "send several requests (not one probe) before the service refuses again: call the "
        "same loader again later, once the ledger can be used, to fetch only the rest.")
    # the ledger's own error, said: which folder and why
    assert "the quota ledger could not be read" in message
    assert f"{cache / LEDGER_FOLDER} is refused: others may write to it" in message
    assert not isinstance(stop, CacheError)


def _spoil(cache):
    """The ledger's folder replaced by one open to all (icoframes refuses to use it)."""
    quota = cache / LEDGER_FOLDER
    quota.rename(quota.with_name("quota-before"))
    quota.mkdir()
    os.chmod(quota, 0o777)


def test_the_stop_keeps_the_count_read_at_the_refusal_when_the_ledger_goes_bad_after(tmp_path):
    from icoframes.api.control import LoadControl
    from icoframes.fetch.service import Service
    from icoframes.fetch.stops import quota_error
    from icoframes.store.cache import Cache

    settings = icoframes.config.get_settings(base_url="http://127.0.0.1:9", public_key="k",
                                             private_key="p", daily_quota=3,
                                             cache_dir=tmp_path)
    with time_machine.travel(dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC), tick=False):
        service = Service(settings, Cache(tmp_path, "s"), LoadControl(), offline=False)
        booking = service.client("the test") and service._booking
        for _ in range(3):
            booking.take("ico")
        with pytest.raises(QuotaExceeded) as refused:
            booking.take("ico")  # read whole: 3 sent today
        _spoil(tmp_path)
        state, began_again, unread, unrecorded, unanswered = service.quota_state()
        assert (state.sent, state.day, began_again, unrecorded, unanswered) == (
            3, "2026-03-02", False, False, False)
        assert "others may write to it" in str(unread)
        message = str(quota_error(refused.value, settings, state, began_again, unread,
                                  fetched=0, left=5, unlisted=False))
        assert message.startswith("the daily_quota setting (3 requests) is reached: at least 3 "
                                  "requests sent today (2026-03-02, UTC)")
        # a load that never read the ledger whole: its own requests (none sent here), at least
        fresh = Service(settings, Cache(tmp_path, "s"), LoadControl(), offline=False)
        state, began_again, unread, unrecorded, unanswered = fresh.quota_state()
        assert (state.sent, state.limit, began_again, unrecorded, unanswered) == (
            0, 3, False, False, False)
        assert "others may write to it" in str(unread)


# -- a probe's 485 the ledger cannot record ------------------------------------------------


def _probe_refused_and_the_ledger_spoiled(cache):
    """Profiles: 3 answered, then 485 (recorded: the next call probes); once ``probing`` is
    set, each is refused with the ledger's folder spoiled before the answer leaves."""
    probing = threading.Event()

    def behaviour(h):
        asked = h.request_json().get("id")
        if probing.is_set():
            spoil_folder(cache / LEDGER_FOLDER)
            json_reply({"error": 485})(h)
        elif h.server.owner.hits[PROFILE] <= 3:
            json_reply({"error": None, "data": {"id": asked, "main": {"name": f"P{asked}"}}})(h)
        else:
            json_reply({"error": 485})(h)
    return behaviour, probing


def test_a_probes_485_the_ledger_cannot_record_stops_the_waiting_workers_at_once(
        tmp_path, configured):
    # a worker waiting for the probe's answer that is not woken waits past the hang guard
    cache = tmp_path / "cache"
    behaviour, probing = _probe_refused_and_the_ledger_spoiled(cache)
    outcome: list[BaseException] = []
    ended = threading.Event()

    def second_call() -> None:
        try:
            icoframes.load_icos(status="past", progress=False)
        except BaseException as exc:
            outcome.append(exc)
        finally:
            ended.set()

    noon = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)  # one ledger day, whenever it runs
    with HostileServer({LIST: paged_list(30), PROFILE: behaviour}) as srv, \
            time_machine.travel(noon, tick=True):
        configured(**srv.settings(), cache_dir=cache, max_workers=1)
        with pytest.raises(QuotaExceeded):
            icoframes.load_icos(status="past", progress=False)  # the refusal, on record
        before = dict(srv.hits)
        assert before == {LIST: 2, PROFILE: 4}
        probing.set()
        configured(**srv.settings(), cache_dir=cache, max_workers=4)
        threading.Thread(target=second_call, daemon=True).start()
        assert ended.wait(HANG_GUARD)  # the waiting workers were woken by the probe's end
        after = dict(srv.hits)
    assert after == {LIST: 2, PROFILE: 5}  # the probe alone: no worker sent after it
    [stop] = outcome
    assert isinstance(stop, QuotaExceeded) and stop.code == 485, stop
    assert "the quota ledger could not be read" in str(stop)


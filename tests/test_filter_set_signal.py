"""A Ctrl-C while a load fetches the filter set is held as a Ctrl-C during its crawl.

A filter by name (``--category Finance``) needs the filter set's ids, fetched in one request
before any list on a cold cache. The first Ctrl-C (SIGTERM) lets that request end, keeps its
answer and then stops the command (130, 143); a second Ctrl-C cuts it at once (the next load
asks for it again). Here the service holds the filter set's answer until the test lets it go
or the client closes the connection, and says which came first; the command is a child
process sent real signals, and nothing waits on the clock.
"""

from __future__ import annotations

import logging
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading

import pytest
from hostile import FILTERS, LIST, PROFILE, HostileServer, json_reply, paged_list
from ledger_day import on_this_clock
from pressed_twice import press_ctrl_c_again
from waiting import HANG_GUARD

import icoframes
from icoframes.api.client import Client
from icoframes.fetch.inflight import FINISHING
from icoframes.fetch.pool import RequestPool
from icoframes.store.cache import Cache

pytestmark = pytest.mark.usefixtures("one_ledger_day")

FILTER_SET = {"error": None, "platform": [], "category": [{"id": 4, "name": "Finance"}],
              "type": [], "location": []}

_SCRIPT = """
import sys
from icoframes.cli import main
sys.exit(main(["export", "--out", sys.argv[1], "--status", "past", "--category", "Finance"]))
"""


class HeldFilterSet:
    """The filter set's first answer held until its connection closes ("cut") or
    :meth:`let_go` ("answered"), said in :attr:`end` once :attr:`ended` is set; any later
    request is answered at once."""

    def __init__(self) -> None:
        self.arrived, self.ended = threading.Event(), threading.Event()
        self.end = ""
        self._wake_r, self._wake_w = os.pipe()

    def __call__(self, h) -> None:
        h.request_json()
        if self.arrived.is_set():
            json_reply(FILTER_SET)(h)
            return
        self.arrived.set()
        with selectors.DefaultSelector() as waiting:
            waiting.register(h.connection, selectors.EVENT_READ)
            waiting.register(self._wake_r, selectors.EVENT_READ)
            ready = {key.fileobj for key, _ in waiting.select()}
        cut = h.connection in ready and not h.connection.recv(1)  # the client closed it
        self.end = "cut" if cut else "answered"
        self.ended.set()
        if not cut:
            json_reply(FILTER_SET)(h)

    def let_go(self) -> None:
        os.write(self._wake_w, b"x")

    def close(self) -> None:
        os.close(self._wake_r)
        os.close(self._wake_w)


@pytest.fixture
def service():
    """The service, its filter set's first answer held (closed after the test's loads)."""
    held = HeldFilterSet()
    with HostileServer({FILTERS: held, LIST: paged_list(3), PROFILE: _profile}) as srv:
        try:
            yield srv, held
        finally:
            held.let_go()
    held.close()


def _profile(h) -> None:
    ico_id = h.request_json()["id"]
    json_reply({"error": None, "data": {"id": ico_id, "main": {"name": f"P{ico_id}"}}})(h)


def _export_stopped(srv: HostileServer, held: HeldFilterSet, tmp_path, sig: int, *,
                    twice: bool) -> tuple[int, str]:
    """The export's exit code and stderr, ``sig`` sent as its filter-set request arrived,
    then a Ctrl-C (``twice``) once it says it is finishing, else the answer let go then."""
    env = {**os.environ, "ICOFRAMES_BASE_URL": srv.base_url,
           "ICOFRAMES_PUBLIC_KEY": "p", "ICOFRAMES_PRIVATE_KEY": "s",
           "ICOFRAMES_CACHE_DIR": str(tmp_path / "cache"), "ICOFRAMES_TIMEOUT": "3600"}
    proc = subprocess.Popen([sys.executable, "-c", on_this_clock(_SCRIPT),
                             str(tmp_path / "out")], env=env, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    head = ""
    try:
        assert held.arrived.wait(HANG_GUARD), "the filter set was never asked for"
        proc.send_signal(sig)
        if twice:
            head = press_ctrl_c_again(proc)  # (never answered: it cuts the request)
        else:
            for line in proc.stderr:  # answered once the command says it is finishing
                head += line
                if "finishing" in line:
                    held.let_go()
                    break
        rc = proc.wait(timeout=HANG_GUARD)  # a hang guard, not a measure
        assert held.ended.wait(HANG_GUARD)
    finally:
        proc.kill()
        err = head + proc.stderr.read()
        proc.stderr.close()
    return rc, err


def _configured(srv: HostileServer, tmp_path):
    return icoframes.configure(base_url=srv.base_url, public_key="p", private_key="s",
                               cache_dir=tmp_path / "cache", timeout=HANG_GUARD)


@pytest.mark.parametrize(("sig", "code", "said"), [(signal.SIGINT, 130, "interrupted (SIGINT)"),
                                                   (signal.SIGTERM, 143, "terminated (SIGTERM)")],
                         ids=["SIGINT", "SIGTERM"])
def test_a_first_signal_lets_the_filter_set_request_end_and_keeps_it(service, tmp_path, sig,
                                                                     code, said):
    srv, held = service
    rc, err = _export_stopped(srv, held, tmp_path, sig, twice=False)
    assert rc == code, err
    assert f"{said}: finishing 1 request already sent" in err
    assert held.end == "answered"
    assert srv.hits == {FILTERS: 1}  # nothing sent after the signal
    _configured(srv, tmp_path)
    try:
        assert icoframes.cache_info().requests_today == 1  # booked: paid for
        kept = icoframes.load_filters(offline=True)  # its answer kept
        assert kept.loc[kept["filter"] == "category", "name"].tolist() == ["Finance"]
        # nothing left held: the same load runs to its end, and asks no filter set again
        icos = icoframes.load_icos(status="past", category="Finance", progress=False)
        booked = icoframes.cache_info().requests_today
    finally:
        icoframes.reset_configuration()
    assert len(icos) == 3 and srv.hits[FILTERS] == 1
    assert booked == sum(srv.hits.values())


def test_a_second_ctrl_c_cuts_the_filter_set_request(service, tmp_path):
    srv, held = service
    rc, err = _export_stopped(srv, held, tmp_path, signal.SIGINT, twice=True)
    assert rc == 130, err
    assert "interrupted (SIGINT): finishing 1 request already sent" in err
    assert held.end == "cut"  # the command ended while the answer was held: it cut it
    assert srv.hits == {FILTERS: 1}
    _configured(srv, tmp_path)
    try:
        assert icoframes.cache_info().requests_today == 1  # the request cut is paid for
        with pytest.raises(icoframes.NotCached):
            icoframes.load_filters(offline=True)
        icos = icoframes.load_icos(status="past", category="Finance", progress=False)
        booked = icoframes.cache_info().requests_today
    finally:
        icoframes.reset_configuration()
    assert len(icos) == 3 and srv.hits[FILTERS] == 2  # asked again, answered
    assert booked == sum(srv.hits.values())


def test_a_ctrl_c_while_the_filter_set_is_written_keeps_it(tmp_path):
    """The answer came, and a Ctrl-C lands as it is being written: the write ends, then the
    Ctrl-C is raised (the answer is paid for: lost, the next load would ask again)."""
    fired: list[str] = []

    def ctrl_c_at_the_write(frame, event, arg) -> None:
        if event == "call" and frame.f_code is Cache.write_filters.__code__ and not fired:
            fired.append(frame.f_code.co_name)
            sys.setprofile(None)
            signal.raise_signal(signal.SIGINT)

    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    with HostileServer({FILTERS: json_reply(FILTER_SET)}) as srv:
        _configured(srv, tmp_path)
        try:
            sys.setprofile(ctrl_c_at_the_write)
            try:
                with pytest.raises(KeyboardInterrupt):
                    icoframes.load_filters()
            finally:
                sys.setprofile(None)
                signal.signal(signal.SIGINT, before)
            assert fired == ["write_filters"]
            assert icoframes.cache_info().requests_today == 1
            kept = icoframes.load_filters(offline=True)  # the paid answer is kept
        finally:
            icoframes.reset_configuration()
    assert srv.hits == {FILTERS: 1}
    assert kept.loc[kept["filter"] == "category", "name"].tolist() == ["Finance"]


def test_a_ctrl_c_before_the_request_left_says_no_request_is_finishing(tmp_path):
    """The Ctrl-C lands as the request is handed to its worker, which is held before it books
    or sends until the signal was caught: nothing leaves, so no line says "finishing 1
    request already sent" (the pool held one request, but it never left)."""
    caught, said = threading.Event(), []

    def ctrl_c_as_it_is_handed_over(frame, event, arg) -> None:  # the load's thread
        if event == "return" and frame.f_code is RequestPool.submit.__code__:
            sys.setprofile(None)
            signal.raise_signal(signal.SIGINT)  # held: its handler ran when this returns
            caught.set()

    def held_until_caught(frame, event, arg) -> None:  # the worker's thread
        if event == "call" and frame.f_code is Client._send_once.__code__:
            sys.setprofile(None)
            caught.wait(HANG_GUARD)

    class Told(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append(record.getMessage())

    logger, told = logging.getLogger("icoframes.fetch.inflight"), Told()
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    with HostileServer({FILTERS: json_reply(FILTER_SET)}) as srv:
        _configured(srv, tmp_path)
        logger.addHandler(told)
        try:
            threading.setprofile(held_until_caught)  # (threads made from now on: the worker)
            sys.setprofile(ctrl_c_as_it_is_handed_over)
            try:
                with pytest.raises(KeyboardInterrupt):
                    icoframes.load_filters()
            finally:
                sys.setprofile(None)
                threading.setprofile(None)  # type: ignore[arg-type]
                signal.signal(signal.SIGINT, before)
                logger.removeHandler(told)
            assert caught.is_set()
            assert icoframes.cache_info().requests_today == 0  # its booking handed back
        finally:
            icoframes.reset_configuration()
    assert srv.hits == {}  # it never left
    assert not [line for line in said if "finishing" in line], said


def test_a_ctrl_c_while_the_request_connects_counts_it(tmp_path):
    """The Ctrl-C lands once the request passed the last check, as its worker connects (held
    there until the finishing line is said): it may reach the service, so the line counts
    it, as "sent or connecting" (a connection that then fails would have sent nothing)."""
    told, said = threading.Event(), []

    def ctrl_c_as_it_connects(frame, event, arg) -> None:  # the worker's thread
        if event == "c_call" and getattr(arg, "__name__", "") == "connect" and isinstance(
                getattr(arg, "__self__", None), socket.socket):
            sys.setprofile(None)
            signal.raise_signal(signal.SIGINT)  # caught by the load's thread, which says it
            told.wait(HANG_GUARD)

    class Told(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append(record.getMessage())
            told.set()

    logger, handler = logging.getLogger("icoframes.fetch.inflight"), Told()
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    with HostileServer({FILTERS: json_reply(FILTER_SET)}) as srv:
        _configured(srv, tmp_path)
        logger.addHandler(handler)
        try:
            threading.setprofile(ctrl_c_as_it_connects)  # (threads made from now on)
            try:
                with pytest.raises(KeyboardInterrupt):
                    icoframes.load_filters()
            finally:
                threading.setprofile(None)  # type: ignore[arg-type]
                signal.signal(signal.SIGINT, before)
                logger.removeHandler(handler)
            assert icoframes.cache_info().requests_today == 1  # it left: paid for
        finally:
            icoframes.reset_configuration()
    assert srv.hits == {FILTERS: 1}
    assert [line for line in said if "finishing" in line] == [
        f"interrupted (SIGINT): finishing 1 request already sent or connecting (paid for once "
        f"sent: their answers are kept), for {FINISHING:g} s at most; press Ctrl-C again to "
        "stop now"], said

"""A second signal while a load finishes its requests in flight cuts them, whatever it raises.

The first Ctrl-C (SIGTERM, SIGHUP) of a load sends nothing more and waits for the requests
in flight (:mod:`icoframes.fetch.inflight`); a second one stops the load at once. Here the
service holds every profile request until the connection is closed (the load cut it) or the
test lets it go, and says which came first: a load that raised without cutting leaves its
workers reading, and the process cannot exit before their ``timeout``. The signals are real,
sent to the main thread; nothing waits on the clock.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import signal
import sys
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Iterator

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from waiting import HANG_GUARD

import icoframes
from icoframes.fetch import inflight, pool
from icoframes.fetch import load as load_module

pytestmark = pytest.mark.usefixtures("ctrl_c_raises", "one_ledger_day")

WORKERS = 4


class HeldProfiles:
    """Profile requests held until their connection closes ("cut") or :meth:`let_go`
    ("answered"), each said in :attr:`ends`."""

    def __init__(self) -> None:
        self.arrived = threading.Semaphore(0)
        self.ended = threading.Semaphore(0)
        self.ends: list[str] = []
        self._wake_r, self._wake_w = os.pipe()

    def __call__(self, h) -> None:
        ico_id = int(h.request_json()["id"])
        self.arrived.release()
        with selectors.DefaultSelector() as waiting:  # (not select(): a test worker's fds
            waiting.register(h.connection, selectors.EVENT_READ)  # may pass FD_SETSIZE)
            waiting.register(self._wake_r, selectors.EVENT_READ)
            ready = {key.fileobj for key, _ in waiting.select()}
        cut = h.connection in ready and not h.connection.recv(1)  # the client closed it
        self.ends.append("cut" if cut else "answered")
        self.ended.release()
        if not cut:
            json_reply({"error": None, "data": {"id": ico_id, "main": {"name": f"P{ico_id}"}}})(h)

    def wake(self) -> None:
        """Answer those still held (and any held later)."""
        os.write(self._wake_w, b"x")

    def let_go(self) -> list[str]:
        """Answer those still held; how each ended."""
        self.wake()
        for _ in range(WORKERS):
            assert self.ended.acquire(timeout=HANG_GUARD), "a held request never ended"
        return sorted(self.ends)

    def close(self) -> None:
        os.close(self._wake_r)
        os.close(self._wake_w)


@pytest.fixture
def held(tmp_path, monkeypatch) -> Iterator[tuple[HostileServer, HeldProfiles]]:
    """A service whose profile requests are held, a load set up for it whose requests
    would wait for their answers as long as the hang guard (only a cut ends them sooner)."""
    monkeypatch.setattr(inflight, "FINISHING", HANG_GUARD)
    profiles = HeldProfiles()
    with HostileServer({LIST: paged_list(30), PROFILE: profiles}) as srv, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        icoframes.configure(base_url=srv.base_url, public_key="p", private_key="s",
                            cache_dir=tmp_path / "cache", max_workers=WORKERS,
                            timeout=HANG_GUARD)
        try:
            yield srv, profiles
        finally:
            profiles.wake()
            icoframes.reset_configuration()
    profiles.close()


@pytest.fixture
def pool_waits(monkeypatch) -> threading.Event:
    """Set once the load's pool waits for its requests in flight (it shuts down)."""
    event, ended = threading.Event(), pool.RequestPool._ended

    def waiting(self, timeout):
        if self._closed:
            event.set()
        return ended(self, timeout)

    monkeypatch.setattr(pool.RequestPool, "_ended", waiting)
    return event


def _signal(sig: int) -> None:
    signal.pthread_kill(threading.main_thread().ident, sig)  # type: ignore[arg-type]


def _in_the_background(target) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def _load_cut_by_ctrl_c(profiles, as_finishing: Callable[[], object]) -> None:
    """A load of the held profiles, Ctrl-C once every one is in flight; ``as_finishing`` runs
    as the load says its finishing line (the pool's wait comes next). Raises nothing else."""

    class AsFinishing(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "finishing" in record.getMessage():
                as_finishing()

    def ctrl_c() -> None:
        if all(profiles.arrived.acquire(timeout=HANG_GUARD) for _ in range(WORKERS)):
            _signal(signal.SIGINT)

    logger, handler = logging.getLogger("icoframes.fetch.inflight"), AsFinishing()
    logger.addHandler(handler)
    try:
        helper = _in_the_background(ctrl_c)
        with pytest.raises(KeyboardInterrupt):
            icoframes.load_icos(status="past", progress=False)
        helper.join(HANG_GUARD)
    finally:
        sys.setprofile(None)
        logger.removeHandler(handler)


def _workers_left() -> list[str]:
    workers = [t for t in threading.enumerate() if t.name.startswith("icoframes_")]
    for worker in workers:
        worker.join(HANG_GUARD)
    return [w.name for w in workers if w.is_alive()]


def test_a_second_sigterm_whose_handler_exits_cuts_the_requests_in_flight(held, pool_waits):
    srv, profiles = held
    raised: list[SystemExit] = []

    def on_term(signum, frame):  # a service's: sys.exit on SIGTERM
        raised.append(SystemExit(0))
        raise raised[-1]

    def two_sigterms() -> None:
        if all(profiles.arrived.acquire(timeout=HANG_GUARD) for _ in range(WORKERS)):
            _signal(signal.SIGTERM)
            if pool_waits.wait(HANG_GUARD):  # the load waits for the requests it holds
                _signal(signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        helper = _in_the_background(two_sigterms)
        with pytest.raises(SystemExit) as got:
            icoframes.load_icos(status="past", progress=False)
        helper.join(HANG_GUARD)
        handler_after = signal.getsignal(signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, previous)
    ends = profiles.let_go()  # the load has raised: what it did not cut is answered now
    assert ends == ["cut"] * WORKERS
    assert got.value is raised[1] and len(raised) == 2  # the second one's, itself
    assert _workers_left() == [] and handler_after is on_term
    srv.stop()
    assert icoframes.cache_info().requests_today == sum(srv.hits.values())


def test_a_second_ctrl_c_as_the_finishing_line_is_said_cuts_the_requests_in_flight(held):
    srv, profiles = held

    # the second Ctrl-C as the finishing line is said, before the pool's wait begins
    _load_cut_by_ctrl_c(profiles, lambda: signal.raise_signal(signal.SIGINT))
    assert profiles.let_go() == ["cut"] * WORKERS
    assert _workers_left() == []
    assert icoframes.cache_info().list_queries == 1  # the list paged is kept
    srv.stop()
    assert icoframes.cache_info().requests_today == sum(srv.hits.values())


@pytest.mark.parametrize("call", range(1, 17))
def test_a_second_ctrl_c_at_any_call_of_the_pools_wait_lets_every_worker_end(held, call):
    """The second Ctrl-C lands as the ``call``-th C function the main thread calls in the
    pool's wait returns (right after a lock is taken, too): the workers it cuts all end, so
    a process can exit (it joins them). Raised in the wait, its exception could leave a
    request's lock held by the main thread, and the worker ending that request waited for
    it forever."""
    srv, profiles = held
    returned = Counter[str]()

    def at_each_return(frame, event, arg) -> None:  # (sys.setprofile: this thread only)
        if event == "call" and frame.f_code is pool.RequestPool.shut_down.__code__:
            returned["waiting"] = 1
        elif event == "c_return" and returned["waiting"]:
            returned["calls"] += 1
            if returned["calls"] == call:
                sys.setprofile(None)
                signal.raise_signal(signal.SIGINT)  # its KeyboardInterrupt: raised here

    _load_cut_by_ctrl_c(profiles, lambda: sys.setprofile(at_each_return))
    assert returned["calls"] == call  # the second Ctrl-C came in the wait
    assert _workers_left() == []
    assert profiles.let_go() == ["cut"] * WORKERS
    srv.stop()
    assert icoframes.cache_info().requests_today == sum(srv.hits.values())


@pytest.mark.parametrize("call", range(1, 13))
def test_a_third_ctrl_c_as_the_pool_cuts_lets_every_worker_end(held, call):
    """The second Ctrl-C lands as the ``call``-th C function the main thread calls in the
    pool's shut-down returns, the third as the next lock is taken after it (a request's:
    ``future.done()``, ``cancel()``): mashed Ctrl-C cuts every request too, and the workers
    all end. A third raised while a request's lock was held left a worker waiting forever."""
    srv, profiles = held
    returned = Counter[str]()

    def at_each_return(frame, event, arg) -> None:  # (sys.setprofile: this thread only)
        if event == "call" and frame.f_code is pool.RequestPool.shut_down.__code__:
            returned["waiting"] = 1
        elif event == "c_return" and returned["waiting"]:
            returned["calls"] += 1
            if returned["calls"] == call:
                signal.raise_signal(signal.SIGINT)  # the second
            elif returned["calls"] > call and getattr(arg, "__name__", "") == "__enter__" \
                    and type(getattr(arg, "__self__", None)).__name__ == "RLock":
                sys.setprofile(None)
                returned["third"] = 1
                signal.raise_signal(signal.SIGINT)  # the third, a lock just taken

    _load_cut_by_ctrl_c(profiles, lambda: sys.setprofile(at_each_return))
    assert returned["calls"] >= call
    workers = [t for t in threading.enumerate() if t.name.startswith("icoframes_")]
    profiles.wake()  # what was not cut is answered now: only a worker stuck on a lock is left
    for worker in workers:
        worker.join(HANG_GUARD)
    assert [w.name for w in workers if w.is_alive()] == []
    srv.stop()


def test_no_retry_leaves_after_the_first_ctrl_c(tmp_path, monkeypatch, quick_retries):
    """The requests in flight at the Ctrl-C are answered 503 (Retry-After: 0) once the
    handler ran; the load reaches its grace only once each has failed or been retried."""
    arrived, go, handled = threading.Semaphore(0), threading.Event(), threading.Event()
    fetched, asked, lock = threading.Semaphore(0), Counter(), threading.Lock()
    after: list[tuple[int, int]] = []

    def profile(h) -> None:
        ico_id = int(h.request_json()["id"])
        with lock:
            asked[ico_id] += 1
            attempt = asked[ico_id]
            if handled.is_set():
                after.append((ico_id, attempt))
        if attempt == 1 and not handled.is_set():
            arrived.release()
            go.wait(HANG_GUARD)
            h.send_bytes(503, b'{"error": "busy"}', {"Retry-After": "0"})
            return
        json_reply({"error": None, "data": {"id": ico_id, "main": {"name": f"P{ico_id}"}}})(h)

    def on_int(signum, frame):
        handled.set()
        raise KeyboardInterrupt

    def ctrl_c_then_503() -> None:
        if all(arrived.acquire(timeout=HANG_GUARD) for _ in range(WORKERS)):
            _signal(signal.SIGINT)
            handled.wait(HANG_GUARD)
        go.set()

    fetch, grace = load_module.fetch, load_module.grace

    def counted_fetch(*args):
        try:
            return fetch(*args)
        finally:
            fetched.release()

    def late_grace(*args, **kwargs):  # each request sent before the Ctrl-C has ended
        for _ in range(WORKERS):
            assert fetched.acquire(timeout=HANG_GUARD)
        return grace(*args, **kwargs)

    monkeypatch.setattr(load_module, "fetch", counted_fetch)
    monkeypatch.setattr(load_module, "grace", late_grace)
    previous = signal.signal(signal.SIGINT, on_int)
    with HostileServer({LIST: paged_list(30), PROFILE: profile}) as srv:
        icoframes.configure(base_url=srv.base_url, public_key="p", private_key="s",
                            cache_dir=tmp_path / "cache", max_workers=WORKERS,
                            timeout=HANG_GUARD)
        try:
            helper = _in_the_background(ctrl_c_then_503)
            with pytest.raises(KeyboardInterrupt):
                icoframes.load_icos(status="past", progress=False)
            helper.join(HANG_GUARD)
        finally:
            signal.signal(signal.SIGINT, previous)
            go.set()
            srv.stop()
            booked = icoframes.cache_info().requests_today
            icoframes.reset_configuration()
    assert after == []  # no attempt reached the service after the Ctrl-C
    assert sum(asked.values()) == WORKERS and booked == sum(srv.hits.values())


def test_the_handlers_are_set_back_when_a_signal_raises_while_they_are_set(monkeypatch):
    set_handler = signal.signal

    def on_term(signum, frame):
        raise SystemExit("terminated")

    def sigterm_between(sig, handler):  # a SIGTERM after SIGINT's is set, before SIGTERM's
        if sig == signal.SIGTERM and isinstance(getattr(handler, "__self__", None),
                                                inflight.FirstSignal):
            signal.raise_signal(signal.SIGTERM)
        return set_handler(sig, handler)

    previous = set_handler(signal.SIGTERM, on_term)
    try:
        monkeypatch.setattr(signal, "signal", sigterm_between)
        with pytest.raises(SystemExit, match="terminated"), inflight.FirstSignal():
            pass
        monkeypatch.setattr(signal, "signal", set_handler)
        handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
        with pytest.raises(KeyboardInterrupt):  # the next Ctrl-C is not swallowed
            signal.raise_signal(signal.SIGINT)
    finally:
        set_handler(signal.SIGTERM, previous)
    assert handlers == (signal.default_int_handler, on_term)


@pytest.mark.parametrize("call", range(1, 7))
def test_a_signal_while_the_handlers_are_set_back_is_not_an_error(call):
    """A SIGTERM lands as the ``call``-th C function returns while the first Ctrl-C's
    handlers are set back (its own handler still the hold's): what it raises is the
    handler's, never an error of the hold's own, and every handler is back after."""
    returned = Counter[str]()

    def on_term(signum, frame):
        raise SystemExit("terminated")

    def at_each_return(frame, event, arg) -> None:
        if event == "call" and frame.f_code is inflight.FirstSignal._restore.__code__:
            returned["restoring"] = 1
        elif event == "c_return" and returned["restoring"]:
            returned["calls"] += 1
            if returned["calls"] == call:
                sys.setprofile(None)
                signal.raise_signal(signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        with contextlib.suppress(SystemExit, KeyboardInterrupt), inflight.FirstSignal():
            sys.setprofile(at_each_return)
            signal.raise_signal(signal.SIGINT)
        sys.setprofile(None)
        handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    finally:
        sys.setprofile(None)
        signal.signal(signal.SIGTERM, previous)
    assert handlers == (signal.default_int_handler, on_term)



def _arm_third(frame, event, arg) -> None:
    """A profile function: a Ctrl-C as the next lock is taken (a request's: ``future.done()``)."""
    if event == "c_return" and getattr(arg, "__name__", "") == "__enter__" \
            and type(getattr(arg, "__self__", None)).__name__ == "RLock":
        sys.setprofile(None)
        signal.raise_signal(signal.SIGINT)


@pytest.mark.parametrize("line", range(1, 15))
def test_a_ctrl_c_as_the_pools_hold_sets_its_handlers_then_a_third_lets_every_worker_end(
        held, line):
    """The second Ctrl-C lands at the ``line``-th line the pool's hold runs as it sets its
    handlers (before SIGINT's is set, between two, after the last), the third as the next
    lock is taken after it: every request is cut and the workers all end. A second before
    the hold's SIGINT handler was set left the cut unheld, and a third in it a request's
    lock held by the main thread: the worker ending that request waited for it forever."""
    srv, profiles = held
    lines = Counter[str]()

    def in_the_hold(frame, event, arg):  # (sys.settrace: the hold's lines, and its calls')
        if event == "return" and frame.f_code is inflight.FirstSignal.__enter__.__code__:
            lines["setting"] = 0
        elif event == "line" and lines["setting"]:
            lines["lines"] += 1
            if lines["lines"] == line:
                lines["second"] = 1
                sys.setprofile(_arm_third)  # (a trace function's exception unsets it alone)
                signal.raise_signal(signal.SIGINT)  # its KeyboardInterrupt: raised here
        return in_the_hold

    def calls(frame, event, arg):
        if event == "call" and frame.f_code is inflight.FirstSignal.__enter__.__code__ \
                and frame.f_back.f_code is pool.RequestPool.shut_down.__code__:
            lines["setting"] = 1
        return in_the_hold if lines["setting"] else None

    tracing = sys.gettrace()
    try:
        _load_cut_by_ctrl_c(profiles, lambda: sys.settrace(calls))
    finally:
        sys.settrace(tracing)
    assert lines["second"]  # it came while the handlers were set
    workers = [t for t in threading.enumerate() if t.name.startswith("icoframes_")]
    profiles.wake()  # what was not cut is answered now: only a worker stuck on a lock is left
    for worker in workers:
        worker.join(HANG_GUARD)
    assert [w.name for w in workers if w.is_alive()] == []
    assert profiles.let_go() == ["cut"] * WORKERS
    srv.stop()
    assert icoframes.cache_info().requests_today == sum(srv.hits.values())

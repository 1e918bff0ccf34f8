"""A Ctrl-C (or SIGTERM) during a load keeps the answers of the requests already sent.

Every request counts against the day's quota once sent, answered or not. The first Ctrl-C
of a load hands out no more requests, waits for those in flight and keeps their answers,
then raises KeyboardInterrupt: the next load asks for the rest only, so every profile is
asked for once. A second Ctrl-C during that wait cuts them at once. The signals are real
(SIGINT sent to the main thread; SIGTERM to an export's process), and the service holds the
requests it received until the test lets them go: nothing here waits on the clock.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import warnings
from collections import Counter
from collections.abc import Iterator

import pytest
from hostile import LIST, PROFILE, HostileServer, json_reply, paged_list
from ledger_day import on_this_clock
from waiting import HANG_GUARD

import icoframes
from icoframes import sandbox
from icoframes.api.client import Client
from icoframes.config import get_settings
from icoframes.fetch import inflight
from icoframes.store.cache import Cache

pytestmark = pytest.mark.usefixtures("ctrl_c_raises", "one_ledger_day")

WORKERS = 4


@pytest.fixture
def patient(monkeypatch):
    """The requests in flight at a Ctrl-C are waited for as long as the hang guard, not
    FINISHING seconds: their answers come when the test lets them go, however loaded the
    machine."""
    monkeypatch.setattr(inflight, "FINISHING", HANG_GUARD)


@pytest.fixture
def said() -> Iterator[tuple[threading.Event, list[str]]]:
    """An event set once the load says it is finishing the requests in flight (a test sets
    it too once its load ended), and what it said."""
    event, lines = threading.Event(), []

    class Told(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "finishing" in record.getMessage():
                lines.append(record.getMessage())
                event.set()

    logger, handler = logging.getLogger("icoframes.fetch.inflight"), Told()
    logger.addHandler(handler)
    yield event, lines
    logger.removeHandler(handler)


def _ctrl_c() -> None:
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # type: ignore[arg-type]


def _claims_left() -> list[tuple[int]]:
    settings = get_settings()
    return Cache(settings.cache_dir, settings.service_id or "").database(  # type: ignore[union-attr]
        write=False).rows("SELECT count(*) FROM claims")


def _in_the_background(target) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def test_a_ctrl_c_keeps_the_answers_in_flight_and_each_profile_is_asked_once(
        tmp_path, patient, said):
    told, lines = said
    ended = threading.Event()
    with sandbox.serve(n_icos=60, seed=5, latency=0.0) as sb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", max_workers=WORKERS)
        try:
            listed = icoframes.load_list(status="past", progress=False)  # cached: profiles next
            assert len(listed) > 2 * WORKERS
            sb.pause()  # every request is held once the service counted it

            def ctrl_c_then_answer() -> None:
                try:  # every worker's request is with the service: Ctrl-C
                    if sb.stats.wait_for(lambda s: s.in_flight == WORKERS, timeout=HANG_GUARD):
                        _ctrl_c()
                        told.wait(HANG_GUARD)  # the load said it waits for them (or ended)
                finally:
                    sb.resume()  # their answers come now

            helper = _in_the_background(ctrl_c_then_answer)
            try:
                with pytest.raises(KeyboardInterrupt):
                    icoframes.load_icos(status="past", progress=False)
            finally:
                ended.set()
                told.set()
                helper.join(HANG_GUARD)
            kept = icoframes.cache_info().states["fetched"]
            claims = _claims_left()
            cut = dict(sb.stats.requests)
            icos = icoframes.load_icos(status="past", progress=False)  # the rest
            booked = icoframes.cache_info().requests_today
        finally:
            icoframes.reset_configuration()
        requests, served = sb.stats.requests, sb.stats.profile_hits
    assert icos.attrs["icoframes"]["complete"] is True and len(icos) == len(listed)
    # every profile asked for once (where a Ctrl-C cut them: the 4 in flight twice)
    assert requests["ico"] == len(listed) and set(served.values()) == {1}
    assert booked == sum(requests.values())  # the ledger counts what the service received
    assert cut["ico"] == WORKERS and kept == WORKERS and claims == [(0,)]
    assert lines == [f"interrupted (SIGINT): finishing {WORKERS} requests already sent or "
                     f"connecting (paid for once sent: their answers are kept), for "
                     f"{HANG_GUARD:g} s at most; press Ctrl-C again to stop now"]


def test_a_second_ctrl_c_while_the_load_finishes_cuts_the_requests_at_once(
        tmp_path, patient, said):
    told, lines = said
    ended = threading.Event()
    with sandbox.serve(n_icos=60, seed=5, latency=0.0) as sb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", max_workers=WORKERS)
        try:
            listed = icoframes.load_list(status="past", progress=False)
            icoframes.configure(timeout=HANG_GUARD)  # only a cut ends the held requests
            sb.pause()

            def two_ctrl_cs() -> None:
                if sb.stats.wait_for(lambda s: s.in_flight == WORKERS, timeout=HANG_GUARD):
                    _ctrl_c()
                    # the load waits for the answers the service holds: a second Ctrl-C (not
                    # once the load ended: the main thread would get it elsewhere)
                    if told.wait(HANG_GUARD) and not ended.is_set():
                        _ctrl_c()

            helper = _in_the_background(two_ctrl_cs)
            try:
                with pytest.raises(KeyboardInterrupt):
                    icoframes.load_icos(status="past", progress=False)
            finally:
                ended.set()  # (before told: the helper sends nothing more)
                told.set()
                helper.join(HANG_GUARD)
            workers = [t for t in threading.enumerate() if t.name.startswith("icoframes_")]
            for worker in workers:  # cut: they end while the service still holds them
                worker.join(HANG_GUARD)
            left = [w.name for w in workers if w.is_alive()]
            still_held = sb.stats.in_flight  # the load ended while the service held them
            kept = icoframes.cache_info().states["fetched"]
            claims = _claims_left()
            sb.resume()
            icos = icoframes.load_icos(status="past", progress=False)
            booked = icoframes.cache_info().requests_today
        finally:
            sb.resume()
            icoframes.reset_configuration()
        requests = sb.stats.requests
    assert left == [] and still_held == WORKERS and kept == 0 and claims == [(0,)]
    assert icos.attrs["icoframes"]["complete"] is True
    # the requests the second Ctrl-C cut are asked for again: the user chose to stop now
    assert requests["ico"] == len(listed) + WORKERS
    assert booked == sum(requests.values())
    assert len(lines) == 1  # the first Ctrl-C waited for them (where it cut: nothing said)


def test_the_finishing_line_counts_only_the_requests_that_left(tmp_path, patient, said):
    """A Ctrl-C while one worker has not sent its request yet (held before it books or
    sends, until the load said its line): "finishing 3 requests", the 3 the service holds,
    not the 4 handed to the pool; the fourth never leaves."""
    told, lines = said
    calls, parked, lock = [], threading.Event(), threading.Lock()

    def fourth_held(frame, event, arg) -> None:  # in every worker: its profile requests
        if event != "call" or frame.f_code is not Client._send_once.__code__:
            return
        with lock:
            calls.append(frame.f_locals["endpoint"])
            fourth = len(calls) == WORKERS
        if fourth:
            parked.set()
            told.wait(HANG_GUARD)  # the line is said, then it goes on: no longer sent

    with sandbox.serve(n_icos=60, seed=5, latency=0.0) as sb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", max_workers=WORKERS)
        try:
            icoframes.load_list(status="past", progress=False)  # cached: profiles next
            sb.pause()  # every request is held once the service counted it

            def ctrl_c_then_answer() -> None:
                try:  # three with the service, the fourth held before it left: Ctrl-C
                    if parked.wait(HANG_GUARD) and sb.stats.wait_for(
                            lambda s: s.in_flight == WORKERS - 1, timeout=HANG_GUARD):
                        _ctrl_c()
                        told.wait(HANG_GUARD)
                finally:
                    sb.resume()

            helper = _in_the_background(ctrl_c_then_answer)
            threading.setprofile(fourth_held)  # (threads made from now on: the workers)
            try:
                with pytest.raises(KeyboardInterrupt):
                    icoframes.load_icos(status="past", progress=False)
            finally:
                threading.setprofile(None)  # type: ignore[arg-type]
                told.set()
                helper.join(HANG_GUARD)
            kept = icoframes.cache_info().states["fetched"]
            booked = icoframes.cache_info().requests_today
        finally:
            icoframes.reset_configuration()
        requests = sb.stats.requests
    assert calls == ["ico"] * WORKERS
    assert requests["ico"] == WORKERS - 1 and kept == WORKERS - 1  # the fourth never left
    assert booked == sum(requests.values())  # its booking handed back
    assert lines == [f"interrupted (SIGINT): finishing {WORKERS - 1} requests already sent or "
                     f"connecting (paid for once sent: their answers are kept), for "
                     f"{HANG_GUARD:g} s at most; press Ctrl-C again to stop now"]


_SCRIPT = """
import sys
from icoframes.fetch import inflight
inflight.FINISHING = float(sys.argv[2])  # the held answers come when the test lets them go
from icoframes.cli import main
sys.exit(main(["export", "--out", sys.argv[1], "--status", "past"]))
"""


def test_a_sigterm_to_an_export_keeps_the_answers_in_flight(tmp_path):
    n, asked, lock = 30, Counter(), threading.Lock()
    holding, release, arrived = threading.Event(), threading.Event(), threading.Semaphore(0)

    def profile(h) -> None:
        ico_id = int(h.request_json()["id"])
        with lock:
            asked[ico_id] += 1
        if holding.is_set():
            arrived.release()
            release.wait(HANG_GUARD)
        json_reply({"error": None, "data": {"id": ico_id, "main": {"name": f"P{ico_id}"}}})(h)

    def export(out: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-c", on_this_clock(_SCRIPT), str(tmp_path / out), str(HANG_GUARD)],
            env=env, stderr=subprocess.PIPE, text=True)

    with HostileServer({LIST: paged_list(n), PROFILE: profile}) as srv:
        env = {**os.environ, "ICOFRAMES_BASE_URL": srv.base_url,
               "ICOFRAMES_PUBLIC_KEY": "p", "ICOFRAMES_PRIVATE_KEY": "s",
               "ICOFRAMES_CACHE_DIR": str(tmp_path / "cache"),
               "ICOFRAMES_TIMEOUT": str(HANG_GUARD), "ICOFRAMES_MAX_WORKERS": str(WORKERS)}
        holding.set()
        proc = export("first")
        try:
            for _ in range(WORKERS):  # every worker holds a request the server received
                assert arrived.acquire(timeout=HANG_GUARD), "the export never got stuck"
            proc.send_signal(signal.SIGTERM)
            assert proc.stderr is not None
            head = ""
            for line in proc.stderr:  # until the export says it waits (or it ended)
                head += line
                if "finishing" in line:
                    break
            holding.clear()
            release.set()
            _, rest = proc.communicate(timeout=HANG_GUARD)
        finally:
            release.set()
            proc.kill()
        first = Counter(asked)
        second = export("second")
        _, err = second.communicate(timeout=HANG_GUARD)
        srv.stop()  # every request sent has reached its handler
        received = sum(srv.hits.values())
    icoframes.configure(base_url=srv.base_url, public_key="p", private_key="s",
                        cache_dir=tmp_path / "cache")
    try:
        booked = icoframes.cache_info().requests_today
    finally:
        icoframes.reset_configuration()
    said = head + rest
    assert proc.returncode == 143 and second.returncode == 0, (said, err)
    assert sum(first.values()) == WORKERS
    # every profile asked for once (where SIGTERM cut them: the 4 in flight twice)
    assert len(asked) == n and sorted(Counter(asked.values()).items()) == [(1, n)]
    assert booked == received
    assert (f"terminated (SIGTERM): finishing {WORKERS} requests already sent" in said
            and "a Ctrl-C (SIGINT) stops it now" in said and "terminated (SIGTERM); " in said)

"""A second Ctrl-C during a load's clean-up still releases the load's claims.

A user presses Ctrl-C again while an interrupted load stops (it seems slow to). The claims
of its crawl were left in this process's open set: this process took them as live, and its
next load (a notebook kernel's) waited out their whole lease (20 s) for profiles nobody was
fetching. Each Ctrl-C here is a SIGINT sent to the main thread by the main thread, at a
chosen point: ``signal.pthread_kill`` raises the KeyboardInterrupt before it returns.
"""

from __future__ import annotations

import signal
import threading
import warnings

import pytest

import icoframes
from icoframes import sandbox
from icoframes.config import get_settings
from icoframes.fetch.load import Load
from icoframes.fetch.pool import RequestPool
from icoframes.fetch.service import Service
from icoframes.store import claims
from icoframes.store.cache import Cache

pytestmark = pytest.mark.usefixtures("ctrl_c_raises")


def _ctrl_c() -> None:
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # type: ignore[arg-type]


def test_a_second_ctrl_c_as_the_load_stops_releases_its_claims(tmp_path, monkeypatch):
    handle, shut_down = Load._handle, RequestPool.shut_down
    handled: list[int] = []

    def handled_then_ctrl_c(self, kind, info, future):  # the first: mid-crawl
        handle(self, kind, info, future)
        if kind == "profile":
            handled.append(info.id)
            if len(handled) == 20:
                _ctrl_c()

    def shut_down_then_ctrl_c(self, **kwargs):  # the second: the pool has stopped
        finished = shut_down(self, **kwargs)
        _ctrl_c()
        return finished

    open_before = set(claims._OPEN)  # (another test's crawl in this worker may still be open)
    monkeypatch.setattr(Load, "_handle", handled_then_ctrl_c)
    monkeypatch.setattr(RequestPool, "shut_down", shut_down_then_ctrl_c)
    with sandbox.serve(n_icos=300, seed=5, latency=0.0) as sb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache", max_workers=4)
        try:
            with pytest.raises(KeyboardInterrupt) as caught:
                icoframes.load_icos(progress=False)
            settings = get_settings()
            cache = Cache(settings.cache_dir, settings.service_id or "")
            left = cache.database(write=False).rows(  # type: ignore[union-attr]
                "SELECT count(*) FROM claims")
        finally:
            icoframes.reset_configuration()
    assert caught.traceback[-2].name == "shut_down_then_ctrl_c"  # the second Ctrl-C
    assert len(handled) >= 20 and left == [(0,)] and open_before >= claims._OPEN


def test_a_ctrl_c_while_the_lists_are_claimed_releases_their_claims(tmp_path, monkeypatch):
    # a load claims each list as it starts paging it, before its crawl loop: a Ctrl-C there
    # (the second list's client asked for) left the first list's claim live in this process,
    # and the next load in it waited a whole lease (20 s) for a list nobody was paging
    client, asked = Service.client, []

    def client_then_ctrl_c(self, what):
        asked.append(what)
        if len(asked) == 2:
            _ctrl_c()
        return client(self, what)

    open_before = set(claims._OPEN)
    with sandbox.serve(n_icos=120, seed=5, latency=0.0) as sb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        icoframes.configure(**sb.settings(), cache_dir=tmp_path / "cache")
        try:
            icoframes.load_icos("past", progress=False, budget=1)  # the cache exists
            monkeypatch.setattr(Service, "client", client_then_ctrl_c)
            with pytest.raises(KeyboardInterrupt):
                icoframes.load_icos(progress=False)
            settings = get_settings()
            left = Cache(settings.cache_dir, settings.service_id or "").database(
                write=False).rows("SELECT count(*) FROM claims")  # type: ignore[union-attr]
        finally:
            icoframes.reset_configuration()
    assert len(asked) == 2 and left == [(0,)] and open_before >= claims._OPEN

"""After a stop, no new attempt leaves: a request in flight may end (a 485 among them is
still the stop), but its retry is never sent, and a stop that is not the daily limit's
does not wait for a request that trickles in.

The stop here is the crawl loop's own cache error: page 3's answer arrives while the
service's folder is replaced by one icoframes refuses, so its rows cannot be claimed.
Page 2 is sent before that and answered only once the load shuts down (the real
:meth:`RequestPool.shut_down`, wrapped to tell the server when it begins): with a 503,
which a running load would retry, or with a body that trickles in for as long as the
client reads it. The server counts what arrives.
"""

from __future__ import annotations

import threading

import pytest
from hostile import LIST, HostileServer, json_reply, paged_list, spoil_folder
from waiting import HANG_GUARD, wait_until

import icoframes
from icoframes.errors import CacheError
from icoframes.store.ledger import LEDGER_FOLDER


@pytest.fixture
def configured():
    yield icoframes.configure
    icoframes.reset_configuration()


def _listing(cache, page_two):
    """Page 1 answered; page 3 answered once page 2 was sent too, the service's folder
    replaced before its answer leaves; page 2 answered by ``page_two``."""
    pages = paged_list(60)

    def listing(h):
        page = h.request_json().get("page", 1)
        if page == 2:
            page_two(h)
            return
        if page == 3:
            assert wait_until(lambda: h.server.owner.hits[LIST] >= 3)
            [folder] = [p for p in cache.iterdir() if p.is_dir() and p.name != LEDGER_FOLDER
                        and not p.name.endswith("-before")]
            spoil_folder(folder)
        pages(h)
    return listing


def test_a_request_in_flight_at_a_stop_is_not_retried(tmp_path, configured, stopping):
    cache = tmp_path / "cache"
    answered = threading.Event()

    def page_two(h):  # a 503 once the load stopped: a running load would try again
        assert stopping.wait(HANG_GUARD)
        json_reply({"error": "busy"}, status=503)(h)
        answered.set()

    with HostileServer({LIST: _listing(cache, page_two)}) as srv:
        configured(**srv.settings(), cache_dir=cache, max_workers=2)
        with pytest.raises(CacheError, match="refused: others may write to it"):
            icoframes.load_icos(status="past", progress=False)
        assert answered.wait(HANG_GUARD)  # (or cut, if the stop's grace ended first)
        assert srv.hits == {LIST: 3}  # before: page 2 retried 5 times after the stop


def test_a_stop_that_is_not_the_limits_cuts_a_request_that_trickles_in(
        tmp_path, configured, stopping):
    cache = tmp_path / "cache"
    cut, trickled = threading.Event(), threading.Event()
    body = b'{"error": null, "data": []}'.rjust(int(HANG_GUARD * 100))  # 1 byte per 10 ms

    def page_two(h):  # its answer trickles in for as long as the client reads it
        assert stopping.wait(HANG_GUARD)
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        try:
            for i in range(len(body)):
                h.wfile.write(body[i:i + 1])
                h.wfile.flush()
                if h.server.owner.stopping.wait(0.01):
                    break
        except OSError:
            cut.set()  # the client cut the read
            return
        trickled.set()

    with HostileServer({LIST: _listing(cache, page_two)}) as srv:
        # a deadline longer than the hang guard: only the stop can cut page 2 in time
        configured(**srv.settings(), cache_dir=cache, max_workers=2, timeout=2 * HANG_GUARD)
        with pytest.raises(CacheError, match="refused: others may write to it"):
            icoframes.load_icos(status="past", progress=False)
        assert cut.wait(HANG_GUARD)  # before: the load waited for the whole body
        assert not trickled.is_set()
        assert srv.hits == {LIST: 3}

"""The response gate against a hostile server over real loopback HTTP.

Each test names what a server did and asserts what the client made of it: the
error type and message, the requests the server counted, and (with generous
margins) how long it took.
"""

from __future__ import annotations

import logging
import tracemalloc
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest
import requests
from hostile import (
    ANSWER_ONE,
    FILTERS,
    LIST,
    PROFILE,
    HostileServer,
    encoded_reply,
    endless_body,
    gzip_bomb,
    html_reply,
    json_reply,
    profile_reply,
    raw_reply,
    redirect,
    refusing_port,
    trickle_body,
    trickle_headers,
)
from waiting import HANG_GUARD, wait_until

from icoframes.api import transport
from icoframes.api.client import BadResponse, Client, Redirected, RetryPolicy
from icoframes.errors import InvalidParameter, QuotaExceeded, ServiceUnavailable

TWO_TRIES = RetryPolicy(max_attempts=2, backoff=0.001, max_backoff=0.002, max_elapsed=30)
MiB = 1 << 20


def _client(srv: HostileServer, **kwargs) -> Client:
    kwargs.setdefault("retry", TWO_TRIES)
    return Client(**srv.settings(), **kwargs)


@contextmanager
def _against(behaviours: dict, **kwargs) -> Iterator[tuple[HostileServer, Client]]:
    """A hostile server with ``behaviours`` and a client of it."""
    with HostileServer(behaviours) as srv, _client(srv, **kwargs) as c:
        yield srv, c


def _page(total_icos, total_pages, data=None, current_page=1):
    return {"total_icos": total_icos, "total_pages": total_pages, "current_page": current_page,
            "error": None, "data": [{"id": 1}] if data is None else data}


# -- time -------------------------------------------------------------------------


# A byte every 50 ms never lets a per-read timeout fire, and the whole answer would take
# minutes: only a deadline on the whole request ends these before the hang guard.
# The deadline leaves a loaded machine's server thread ample time to send the status line
# (the first test counts the attempts that got one): 1 s was within reach of a stall.
DEADLINE = 5.0


def _profile_within_hang_guard(c: Client) -> None:
    with ThreadPoolExecutor(1) as pool:
        pool.submit(c.profile, 1).result(timeout=HANG_GUARD)


def test_a_trickled_body_fails_at_the_total_deadline():
    body = ANSWER_ONE + b" " * 6_000  # 5 minutes at a byte per 50 ms
    with HostileServer({PROFILE: trickle_body(body, 0.05)}) as srv, \
            _client(srv, timeout=DEADLINE) as c:
        with pytest.raises(ServiceUnavailable, match=r"deadline|timed out"):
            _profile_within_hang_guard(c)
        sent = srv.bytes_sent
    assert srv.hits[PROFILE] == 2  # both attempts got headers, both hit the deadline
    assert c.requests["ico"] == 2
    assert 0 < sent < len(body)  # the client read the trickle, and gave up on it


def test_trickled_headers_fail_at_the_total_deadline():
    slow_headers = trickle_headers(ANSWER_ONE, 0.05, padding=6_000)
    with HostileServer({PROFILE: slow_headers}) as srv, _client(srv, timeout=DEADLINE) as c, \
            pytest.raises(ServiceUnavailable, match="timed out"):
        _profile_within_hang_guard(c)
    assert srv.hits[PROFILE] == 2
    assert c.requests["ico"] == 0 and c.attempts["ico"] == 2  # no status line ever came


def test_a_deadline_earlier_than_the_one_the_watchdog_sleeps_for_wakes_it(monkeypatch):
    # the watchdog is woken only for a deadline earlier than the one it sleeps until: here
    # it sleeps until a far one, and a request with a shorter deadline is still cut at it
    monkeypatch.setattr(transport, "_WATCHDOG", watchdog := transport._Watchdog())
    slow_headers = trickle_headers(ANSWER_ONE, 0.05, padding=6_000)
    with transport.deadline(10 * HANG_GUARD), HostileServer({PROFILE: slow_headers}) as srv, \
            _client(srv, timeout=DEADLINE, retry=RetryPolicy(max_attempts=1)) as c, \
            pytest.raises(ServiceUnavailable, match="timed out"):
        assert wait_until(lambda: watchdog._wake._waiters)  # asleep until the far one
        _profile_within_hang_guard(c)
    assert srv.hits[PROFILE] == 1 and c.attempts["ico"] == 1


# -- size -------------------------------------------------------------------------


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_huge_body_is_cut_at_the_cap(chunked):
    with HostileServer({PROFILE: endless_body(512 * MiB, chunked=chunked)}) as srv, \
            _client(srv, max_response_bytes=1 * MiB) as c:
        with pytest.raises(BadResponse, match=r"1048576 bytes") as info:
            c.profile(1)
        assert "larger than" in info.value.reason or "announces" in info.value.reason
        assert srv.hits[PROFILE] == 2
    assert srv.bytes_sent < 64 * MiB  # the client hung up long before 512 MiB


def test_a_gzip_bomb_is_cut_at_the_cap_in_bounded_memory():
    bomb = gzip_bomb(64 * MiB)  # (256 MiB took seconds to compress; 64 is twice the bound)
    assert len(bomb) < 1 * MiB  # the raw body is well under the cap
    with HostileServer({PROFILE: raw_reply(bomb, headers={"Content-Encoding": "gzip"})}) as srv, \
            _client(srv, max_response_bytes=2 * MiB) as c:
        tracemalloc.start()
        try:
            with pytest.raises(BadResponse, match="inflates past 2097152 bytes"):
                c.profile(1)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert srv.hits[PROFILE] == 2
    assert peak < 32 * MiB  # not the 64 MiB the bomb inflates to


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_compressed_bodies_within_the_cap_are_read(encoding):
    data = {"id": 7, "main": {"name": "Zürich Café " * 50}}
    with HostileServer({PROFILE: encoded_reply({"error": None, "data": data}, encoding)}) \
            as srv, _client(srv) as c:
        assert c.profile(7) == data
    assert srv.hits[PROFILE] == 1


def test_a_corrupt_gzip_body_is_a_failed_attempt():
    corrupt = gzip_bomb(1 * MiB)[:10] + b"\xff" * 64
    with _against({PROFILE: raw_reply(corrupt, headers={"Content-Encoding": "gzip"})}) \
            as (srv, c), pytest.raises(BadResponse, match="gzip body is corrupt"):
        c.profile(1)
    assert srv.hits[PROFILE] == 2


# -- redirects -------------------------------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_redirects_are_refused_and_nothing_reaches_their_target(status):
    with HostileServer({}, default=raw_reply(ANSWER_ONE)) as target:
        location = target.base_url + PROFILE
        with HostileServer({PROFILE: redirect(status, location)}) as srv, _client(srv) as c, \
                pytest.raises(Redirected) as info:
            c.profile(1)
    message = str(info.value)
    assert f"HTTP {status}" in message and location in message
    assert not isinstance(info.value, InvalidParameter)  # never blamed on the user
    assert srv.hits[PROFILE] == 1  # not retried
    assert target.received == []  # no request, so no signed header, went elsewhere


def test_an_injected_session_still_refuses_redirects_and_is_left_open():
    with HostileServer({}, default=raw_reply(ANSWER_ONE)) as target, \
            HostileServer({PROFILE: redirect(307, target.base_url + PROFILE),
                           FILTERS: json_reply({"error": None, "platform": []})}) as srv:
        session = requests.Session()
        session.headers["User-Agent"] = "my-notebook"
        with _client(srv, session=session) as c:
            assert c.filters() == {"error": None, "platform": []}
            with pytest.raises(Redirected, match="307"):
                c.profile(1)
        assert target.received == []
        assert srv.received[0][2]["User-Agent"] == "my-notebook"
        assert session.get_adapter(srv.base_url + "/").poolmanager is not None
        session.close()


def _redirect_with_body(size: int) -> Any:
    """A 302 with a Location announcing a body of ``size`` bytes, written until the
    client goes away (the bytes written counted)."""
    def behaviour(handler: Any) -> None:
        handler.send_response(302)
        handler.send_header("Location", "/elsewhere/")
        handler.send_header("Content-Length", str(size))
        handler.end_headers()
        piece, sent = b" " * 65536, 0
        while sent < size and not handler.server.owner.stopping.is_set():
            handler.wfile.write(piece)
            sent += len(piece)
            handler.sent(len(piece))
    return behaviour


@pytest.mark.parametrize("own_session", [True, False])
def test_the_body_of_a_redirect_is_never_read(own_session):
    with HostileServer({PROFILE: _redirect_with_body(64 * MiB)}) as srv, \
            requests.Session() as session, \
            _client(srv, max_response_bytes=MiB, session=None if own_session else session) as c, \
            pytest.raises(Redirected, match="HTTP 302 redirecting to '/elsewhere/'"):
        c.profile(1)
    # requests' Session.send read all of it (to make response.next), not following it;
    # what the server wrote now is what the socket buffers took before the client closed
    assert srv.hits[PROFILE] == 1  # not retried
    assert srv.bytes_sent < 32 * MiB


# -- failures everywhere ------------------------------------------------------------


def test_html_500_everywhere_is_retried_within_the_policy_then_unavailable():
    policy = RetryPolicy(max_attempts=3, backoff=0.001, max_backoff=0.002, max_elapsed=30)
    with HostileServer({}, default=html_reply(500, "Internal Server Error")) as srv, \
            _client(srv, retry=policy) as c:
        for call in (c.filters, c.list_page, lambda: c.profile(3)):
            with pytest.raises(ServiceUnavailable) as info:
                call()
            assert not isinstance(info.value, BadResponse)
            assert info.value.last_failure == "HTTP 500"
    # each call its 3 attempts: a client's calls are not one load, the failures of calls that
    # ended give none up early
    assert srv.hits == {FILTERS: 3, LIST: 3, PROFILE: 3}
    assert c.total_requests == 9


def test_refused_connections_cost_no_requests_and_never_call_the_hook():
    seen: list[str] = []
    # bound, never listening, while the block runs (a port found free and closed again
    # could be another xdist worker's server by the time the request goes out)
    with refusing_port() as port, \
            Client(base_url=f"http://127.0.0.1:{port}", public_key="p", private_key="s",
                   retry=TWO_TRIES, on_request=seen.append) as c, \
            pytest.raises(ServiceUnavailable, match="connection refused") as info:
        c.profile(1)
    assert info.value.last_failure == "connection refused"
    assert c.attempts["ico"] == 2
    assert c.requests["ico"] == 0 and c.total_requests == 0 and seen == []


# -- text -------------------------------------------------------------------------


def test_text_html_without_charset_is_still_read_as_utf8():
    data = {"id": 4, "main": {"name": "Zürich Café", "location": "Côte d'Ivoire"}}
    with HostileServer({PROFILE: json_reply({"error": None, "data": data},
                                            content_type="text/html")}) as srv, \
            _client(srv) as c:
        assert c.profile(4)["main"] == {"name": "Zürich Café", "location": "Côte d'Ivoire"}


def test_malformed_utf8_is_a_failed_attempt():
    body = b'{"error":null,"data":{"id":1,"main":{"name":"Z\xfcrich"}}}'  # Latin-1 byte
    with _against({PROFILE: raw_reply(body)}) as (srv, c), \
            pytest.raises(BadResponse, match="not valid UTF-8"):
        c.profile(1)
    assert srv.hits[PROFILE] == 2


def test_a_raw_surrogate_in_the_body_never_reaches_the_json_decoder():
    # the bytes Python's "surrogatepass" writes for U+D800: UTF-8 forbids them, so the body
    # is refused before decoding; only an escape ("\\ud800") makes a lone surrogate, which the
    # parser reports (api.text.loads_text's docstring relies on this)
    body = b'{"error":null,"data":{"id":1,"main":{"name":"a\xed\xa0\x80b"}}}'
    assert "a\ud800b".encode("utf-8", "surrogatepass") in body
    with _against({PROFILE: raw_reply(body)}) as (srv, c), \
            pytest.raises(BadResponse, match=r"not valid UTF-8 \(byte 46\)"):
        c.profile(1)
    assert srv.hits[PROFILE] == 2


@pytest.mark.parametrize(("depth", "fragment"), [(100_000, "nested too deeply"),
                                                 (500, "deeper than 32")])
def test_deep_json_is_a_failed_attempt_not_a_crash(depth, fragment):
    body = b'{"error":null,"data":{"id":1,"x":' + b"[" * depth + b"]" * depth + b"}}"
    with _against({PROFILE: raw_reply(body)}) as (srv, c), \
            pytest.raises(BadResponse, match=fragment):
        c.profile(1)
    assert srv.hits[PROFILE] == 2


def test_a_body_that_is_not_json_is_a_failed_attempt():
    with HostileServer({FILTERS: raw_reply(b"<html>maintenance</html>",
                                           content_type="text/html")}) as srv, \
            _client(srv) as c, pytest.raises(BadResponse, match="not JSON"):
        c.filters()
    assert srv.hits[FILTERS] == 2


# -- the error field -----------------------------------------------------------------


@pytest.mark.parametrize("error", ["Out of API limits", {"code": 485}, [485], True, 4.5, "1e3"])
def test_an_error_field_that_is_not_a_code_is_a_failed_response(error):
    payload = {"error": error, "data": {"id": 1, "main": {"name": "A"}}}
    with _against({PROFILE: json_reply(payload)}) as (srv, c), \
            pytest.raises(BadResponse, match="the error field is"):
        c.profile(1)
    assert srv.hits[PROFILE] == 1  # an error the spec does not define: asked once (was 2)


def test_an_integral_string_error_code_is_read_as_the_code():
    with _against({PROFILE: json_reply({"error": "485", "data": None})}) as (srv, c), \
            pytest.raises(QuotaExceeded):
        c.profile(1)
    assert srv.hits[PROFILE] == 1


# -- profiles -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make_data", "fragment"),
    [
        (lambda asked: {"id": asked + 1, "main": {}}, "data.id is 6, not the 5 requested"),
        (lambda asked: {"main": {"name": "no id"}}, "data.id is missing, not the 5 requested"),
        (lambda asked: {"id": None}, "data.id is null, not the 5 requested"),
        (lambda asked: {"id": "5.0"}, "data.id is '5.0', not the 5 requested"),  # text as text
        (lambda asked: None, "data for id 5 is NoneType"),
        (lambda asked: [{"id": asked}], "data for id 5 is list"),
    ],
    ids=["mismatched", "id-missing", "id-null", "id-text", "null", "list"],
)
def test_a_profile_that_is_not_the_one_asked_for_is_refused(make_data, fragment):
    with _against({PROFILE: profile_reply(make_data)}) as (srv, c), \
            pytest.raises(BadResponse, match=fragment) as info:
        c.profile(5)
    assert info.value.endpoint == PROFILE
    assert srv.hits[PROFILE] == 2 == c.requests["ico"]


def test_a_profile_without_data_is_refused():
    with _against({PROFILE: json_reply({"error": None})}) as (srv, c), \
            pytest.raises(BadResponse, match="data for id 5 is missing"):
        c.profile(5)
    assert srv.hits[PROFILE] == 2


def test_a_profile_whose_id_is_a_digit_string_is_accepted():
    named = profile_reply(lambda asked: {"id": str(asked), "main": {"name": "A"}})
    with HostileServer({PROFILE: named}) as srv, \
            _client(srv) as c:
        assert c.profile(12) == {"id": "12", "main": {"name": "A"}}


# -- list pages -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "fragment"),
    [
        (_page("30", 10**9), "total_pages is 1000000000, above the 10000"),
        (_page(str(20 * 10**6), 10**6), "above the 10000 pages"),
        (_page("30", -1), "total_pages is -1, not a non-negative integer"),  # a number
        (_page("30", "1e9"), "total_pages is '1e9'"),
        (_page("30", "two"), "total_pages is 'two'"),
        (_page("1e9", 2), "total_icos is '1e9'"),
        (_page("30", 7), "total_pages is 7 but total_icos 30 makes 2 pages"),
        (_page("30", 2, data={"id": 1}), "data is dict, not a list"),
        (_page("30", 2, current_page=2), "current_page is 2, not the page 1"),
        ({"total_icos": "30", "error": None, "data": []}, "total_pages is missing, not"),
        (_page("30", None), "total_pages is null, not"),  # JSON's word, not Python's 'None'
        # in integers: the float division printed 49999999999999995716575428608 pages
        (_page(10**30, 2), f"total_pages is 2 but total_icos {10**30} makes {5 * 10**28} pages"),
    ],
    ids=["huge", "above-cap", "negative", "1e9", "text", "icos-1e9", "inconsistent",
         "data-object", "other-page", "missing", "null", "10**30"],
)
def test_a_list_page_with_bad_counts_is_refused(page, fragment):
    with _against({LIST: json_reply(page)}) as (srv, c), pytest.raises(BadResponse, match=fragment):
        c.list_page(status="past")
    assert srv.hits[LIST] == 2


def test_a_consistent_list_page_passes_and_odd_items_are_reported(caplog):
    page = _page("41", "3", data=[{"id": 1}, 7, "x"])
    with HostileServer({LIST: json_reply(page)}) as srv, _client(srv) as c:
        caplog.set_level(logging.WARNING, logger="icoframes.api.gate")
        assert c.list_page() == page
    assert "2 item(s) that are not objects" in caplog.text
    assert srv.hits[LIST] == 1

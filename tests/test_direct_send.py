"""The client's own session sends through its adapter's urllib3 pool directly
(icoframes.api.direct): never through ``requests.Session.send``, whose copies, lookups and
Response were a third of a request's CPU; its pool made again after ``close()``, a
redirect refused unread, a cookie kept, and a proxy of the environment still honoured
(those requests go through ``requests``)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import requests
from hostile import PROFILE, HostileServer, json_reply, redirect, refusing_port

from icoframes.api.client import Client, Redirected, RetryPolicy
from icoframes.errors import ServiceUnavailable

ONCE = RetryPolicy(max_attempts=1)


def _profile(handler: Any) -> None:
    reply = (b'{"error":null,"data":{"id":%d,"main":{"name":"A"}}}'
             % handler.request_json().get("id", 0))
    handler.send_bytes(200, reply)


@pytest.fixture
def sends(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URLs ``requests.Session.send`` sent, in order."""
    seen: list[str] = []
    send = requests.Session.send

    def counted(self: requests.Session, request: Any, **kwargs: Any) -> Any:
        seen.append(request.url)
        return send(self, request, **kwargs)

    monkeypatch.setattr(requests.Session, "send", counted)
    return seen


def test_the_own_sessions_requests_go_through_the_pool_not_session_send(sends):
    with HostileServer({}, default=_profile) as srv:
        with Client(**srv.settings(), retry=ONCE) as c:
            assert [c.profile(i)["id"] for i in (1, 2, 3)] == [1, 2, 3]
            c.close()  # its pool closed: made again for the next request, as requests would
            assert c.profile(4)["id"] == 4
            assert c.requests == {"filters": 0, "icos": 0, "ico": 4} and c.sent["ico"] == 4
        assert srv.hits[PROFILE] == 4
    assert sends == []


def test_concurrent_requests_share_the_pool_and_are_each_answered(sends):
    with HostileServer({}, default=_profile) as srv, \
            Client(**srv.settings(), retry=ONCE, pool_size=4) as c:
        got: list[int] = []
        lock = threading.Lock()

        def ask(first: int) -> None:
            for i in range(first, first + 10):
                answer = c.profile(i)["id"]
                with lock:
                    got.append(answer)

        threads = [threading.Thread(target=ask, args=(k * 100,)) for k in range(1, 5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(got) == sorted(k * 100 + i for k in range(1, 5) for i in range(10))
        assert srv.hits[PROFILE] == 40 and c.sent["ico"] == 40
    assert sends == []


def test_a_redirect_is_refused_and_the_next_request_goes_on_a_sound_connection(sends):
    state = {"n": 0}

    def first_redirects(handler: Any) -> None:
        state["n"] += 1
        if state["n"] == 1:
            redirect(302, "http://127.0.0.1:9/elsewhere")(handler)
        else:
            _profile(handler)

    with HostileServer({PROFILE: first_redirects}) as srv, \
            Client(**srv.settings(), retry=ONCE) as c:
        with pytest.raises(Redirected, match="302"):
            c.profile(1)
        assert c.profile(2)["id"] == 2
        assert srv.hits[PROFILE] == 2 and c.sent["ico"] == 2
    assert sends == []


def test_a_refused_connection_is_the_same_failure_as_through_requests(sends):
    with refusing_port() as port:
        settings = {"base_url": f"http://127.0.0.1:{port}", "public_key": "k",
                    "private_key": "s"}
        with Client(**settings, retry=ONCE) as c:
            with pytest.raises(ServiceUnavailable, match="connection refused"):
                c.profile(1)
            assert c.attempts["ico"] == 1 and c.sent["ico"] == 0  # never left: not counted
    assert sends == []


def test_a_proxy_of_the_environment_is_still_used(monkeypatch, sends):
    with HostileServer({}, default=json_reply(
            {"error": None, "data": {"id": 7, "main": {"name": "A"}}})) as proxy:
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url)
        with Client(base_url="http://icos.example:8000", public_key="k", private_key="s",
                    retry=ONCE) as c:
            assert c.profile(7)["id"] == 7
        # requests sent it, to the proxy, with the service's whole URL
        assert sends == ["http://icos.example:8000/api/v1/ico/"]
        assert proxy.received[-1][1] == "http://icos.example:8000/api/v1/ico/"

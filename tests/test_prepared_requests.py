"""The client's own session sends each request prepared once per URL (icoframes.api.prepared):
what reaches the service is what ``requests.Session.post`` sends, byte for byte in its
headers and body, cookies the service sets included."""

from __future__ import annotations

import json
from typing import Any

import requests
from hostile import FILTERS, LIST, PROFILE, HostileServer

from icoframes.api.auth import sign, url_and_auth
from icoframes.api.client import Client


def _recording(seen: list[tuple[str, list[tuple[str, str]], bytes]],
               cookie: str | None = None) -> Any:
    """A behaviour keeping each request's path, headers (in order) and body; it answers
    what each endpoint's gate accepts, setting ``cookie`` in its first answer when given."""
    def behaviour(handler: Any) -> None:
        path = handler.path.split("?")[0]
        seen.append((path, list(handler.headers.items()), handler.body))
        asked = handler.request_json()
        reply = (b'{"error":null,"platform":[],"category":[],"type":[],"location":[]}'
                 if path == FILTERS else
                 b'{"error":482,"message":"Projects not found","data":[]}' if path == LIST else
                 b'{"error":null,"data":{"id":%d,"main":{"name":"A"}}}' % asked.get("id", 0))
        first = len(seen) == 1
        handler.send_bytes(200, reply, {"Set-Cookie": cookie} if cookie and first else None)
    return behaviour


def _as_requests_sends(srv: HostileServer, base_url: str,
                       bodies: list[tuple[str, bytes]]) -> list[Any]:
    """What ``requests.Session.post`` sends for each (path, body), signed as the client
    signs, with the client's headers and auth (its session: no environment read)."""
    settings = srv.settings()
    origin, auth = url_and_auth(base_url)
    with requests.Session() as session:
        session.trust_env = False
        for path, body in bodies:
            headers = {"Content-Type": "application/json", "Accept-Encoding": "gzip, deflate",
                       "X-Service-Public-Key": settings["public_key"],
                       "X-Service-Access-Key": sign(body, settings["private_key"])}
            session.post(origin + path, data=body, headers=headers, auth=auth,
                         allow_redirects=False, timeout=10).close()
    return bodies


def _calls(c: Client) -> None:
    c.filters()
    c.list_page(1, status="past")
    c.list_page(2, status="past")
    for ico_id in (1, 2, 3):
        c.profile(ico_id)


def test_each_request_reaches_the_service_as_requests_sends_it():
    seen: list[Any] = []
    with HostileServer({}, default=_recording(seen)) as srv:
        base_url = srv.base_url.replace("http://", "http://analyst:pa%40ss@")
        with Client(**{**srv.settings(), "base_url": base_url}) as c:
            _calls(c)
        ours = list(seen)
        seen.clear()
        _as_requests_sends(srv, base_url, [(path, body) for path, _, body in ours])
        theirs = list(seen)
    assert [(path, json.loads(body)) for path, _, body in ours] == [
        (FILTERS, {}), (LIST, {"status": "past", "page": 1}), (LIST, {"status": "past", "page": 2}),
        (PROFILE, {"id": 1}), (PROFILE, {"id": 2}), (PROFILE, {"id": 3})]
    assert ours == theirs  # paths, headers (names, values, order) and bodies
    headers = dict(ours[-1][1])
    assert headers["Authorization"].startswith("Basic ")  # the address's user information
    assert headers["Content-Length"] == str(len(ours[-1][2]))


def test_a_cookie_the_service_sets_goes_back_with_every_later_request():
    seen: list[Any] = []
    with HostileServer({}, default=_recording(seen, cookie="affinity=node-7; Path=/")) as srv, \
            Client(**srv.settings()) as c:
        for ico_id in (1, 2, 3):  # the same URL before and after the cookie
            c.profile(ico_id)
        c.filters()
    cookies = [dict(headers).get("Cookie") for _, headers, _ in seen]
    assert cookies == [None] + ["affinity=node-7"] * 3  # as a requests session keeps it

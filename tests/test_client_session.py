"""The client's own session, as requests are prepared once per URL (icoframes.api.prepared):
a session a subclass puts in its place sends, the session's headers, params and hooks
changed after a first request reach the next one, and no template keeps base_url's Basic
credential."""

from __future__ import annotations

import base64
import gc
import types
from typing import Any

import requests
from hostile import PROFILE, HostileServer

from icoframes.api.client import Client, RetryPolicy
from icoframes.api.transport import GateAdapter
from icoframes.secret import Secret

ONCE = RetryPolicy(max_attempts=1)


def _recording(seen: list[tuple[str, dict[str, str]]]) -> Any:
    """A behaviour keeping each request's target (query included) and headers; it answers
    a profile of the id asked for."""
    def behaviour(handler: Any) -> None:
        seen.append((handler.path, dict(handler.headers.items())))
        asked = handler.request_json().get("id", 0)
        reply = b'{"error":null,"data":{"id":%d,"main":{"name":"A"}}}' % asked
        handler.send_bytes(200, reply)
    return behaviour


class _GatewayClient(Client):
    """A subclass sending through a session of its own (a gateway's header), put in place
    of the one the client made."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        session = requests.Session()
        session.trust_env = False
        session.headers["X-Gateway"] = "tenant-42"
        session.mount("http://", GateAdapter(max_retries=0))
        self._session.close()
        self._session = session


def test_a_session_a_subclass_puts_in_place_sends_every_request():
    seen: list[Any] = []
    with HostileServer({}, default=_recording(seen)) as srv, \
            _GatewayClient(**srv.settings(), retry=ONCE) as c:
        assert [c.profile(ico_id)["id"] for ico_id in (1, 2, 1)] == [1, 2, 1]
    # the client's first session prepared and sent them, without the header (and its pool
    # left open by close())
    assert [headers.get("X-Gateway") for _, headers in seen] == ["tenant-42"] * 3


def test_the_sessions_headers_params_and_hooks_changed_after_a_request_reach_the_next():
    seen: list[Any] = []
    answered: list[int] = []
    with HostileServer({}, default=_recording(seen)) as srv, \
            Client(**srv.settings(), retry=ONCE) as c:
        c.profile(1)
        c._session.headers["User-Agent"] = "gateway-tool/2.0"
        c.profile(2)
        c._session.headers["X-Trace"] = "abc"
        c._session.params = {"tenant": "t1"}
        c._session.hooks["response"].append(lambda r, **kw: answered.append(r.status_code))
        c.profile(3)
        del c._session.headers["X-Trace"]
        c._session.params["tenant"] = "t2"  # changed in place
        c.profile(4)
        c._session.params["tenant"] = ["t2"]
        c.profile(5)
        c._session.params["tenant"].append("t3")  # a list in it changed in place
        c.profile(6)
    assert [headers["User-Agent"] for _, headers in seen][1:] == ["gateway-tool/2.0"] * 5
    assert [headers.get("X-Trace") for _, headers in seen] == [None, None, "abc", None, None,
                                                               None]
    assert [target for target, _ in seen] == [
        PROFILE, PROFILE, PROFILE + "?tenant=t1", PROFILE + "?tenant=t2",
        PROFILE + "?tenant=t2", PROFILE + "?tenant=t2&tenant=t3"]
    assert answered == [200, 200, 200, 200]


def _strings(root: object) -> list[str]:
    """Every string and bytes object reachable from ``root`` (attributes, containers,
    slots), a :class:`Secret`'s own value left out: what a debugger, a pickle or a
    ``str()`` of a part of it can show."""
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
            types.CodeType, types.FrameType, Secret)
    found, seen, todo = [], set(), [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen.add(id(obj))
        if isinstance(obj, str | bytes):
            found.append(obj.decode("latin-1") if isinstance(obj, bytes) else str.__str__(obj))
            continue
        todo += gc.get_referents(obj)
    return found


def test_no_object_of_the_client_holds_the_basic_credential_of_base_url():
    seen: list[Any] = []
    credential = base64.b64encode(b"analyst:pa@ss").decode()
    with HostileServer({}, default=_recording(seen)) as srv:
        base_url = srv.base_url.replace("http://", "http://analyst:pa%40ss@")
        with Client(**{**srv.settings(), "base_url": base_url}, retry=ONCE) as c:
            c.profile(1)
            c.profile(2)
            strings = _strings(c)
    assert [headers["Authorization"] for _, headers in seen] == ["Basic " + credential] * 2
    # the walk reached the client and its prepared requests (their URL)
    assert "hostile-public" in strings and srv.base_url + PROFILE in strings
    # each template of the prepared requests kept the "Basic ..." header
    assert [s for s in strings if credential in s or "pa@ss" in s] == []

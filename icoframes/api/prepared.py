"""POST requests prepared once per URL by the client's own session: :class:`Prepared`.

``requests.Session.request`` builds every request anew: it merges the session's
headers, cookies, hooks and settings into the request's (seven merges, each checking
its argument against a runtime protocol) and prepares the URL, headers, body and auth
again, about a quarter of a request's CPU time in a worker, under the interpreter lock
the other workers wait for. For the session the client made itself nothing of that
depends on the request but its body: the session's own ``prepare_request`` makes one
request per URL (a template), and each request is a copy of it with its body, the two
headers that follow from the body (``Content-Length``, the signature) and the auth,
sent by the session's ``send`` with the session's own settings, as ``Session.request``
sends it. Every request is built by ``Session.request`` instead when the session is not
the one the client made (a subclass replaced it), holds a cookie the service set (the
headers then depend on the jar), has an auth of its own or reads the environment
(``trust_env``); the templates are made again when the session's headers, params or
hooks changed since they were. A copy is sent through the pool of the session's adapter
directly (:mod:`.direct`, not ``Session.send``) unless a proxy, a response hook or an
adapter of another kind stands in the way.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping
from typing import Any

import requests
from requests.adapters import BaseAdapter, HTTPAdapter
from requests.auth import AuthBase
from requests.structures import CaseInsensitiveDict
from requests.utils import select_proxy
from urllib3 import HTTPConnectionPool

from . import direct

__all__ = ["BODY_HEADERS", "Prepared"]

#: The headers a request's body decides: set on each copy of its URL's template.
BODY_HEADERS = ("Content-Length", "X-Service-Access-Key")

_Templates = dict[tuple[str, tuple[tuple[str, str], ...]], requests.PreparedRequest]


class _Headers:
    """What an auth sets a header on (``request.headers``), for a request sent directly."""

    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = headers


def _merged(session: requests.Session) -> tuple[Any, ...]:
    """What ``prepare_request`` merges from ``session`` into every request: the templates
    hold it (compared before each request: a few microseconds)."""
    return (list(session.headers.items()), session.params,
            {event: list(hooks) for event, hooks in session.hooks.items()})


class Prepared:
    """Sends POSTs with ``auth``; those of the session the client made (``own``) from
    a template per URL.

    Parameters
    ----------
    own : requests.Session or None
        The session the client made (``trust_env`` off), None when the caller gave one:
        only this session's requests are prepared once.
    auth : AuthBase, optional
        Sets headers that do not depend on the body (the Basic auth of ``base_url``):
        applied to each request, never kept in a template (it holds the credential).
    """

    def __init__(self, own: requests.Session | None, auth: AuthBase | None) -> None:
        self._own = own
        self._auth = auth
        # the session's merged settings the templates were made with, and the templates
        self._cache: tuple[tuple[Any, ...] | None, _Templates] = (None, {})
        self._lock = threading.Lock()
        # per template (by id, itself kept): its adapter, TLS settings, proxies and pool
        self._routes: dict[int, tuple[requests.PreparedRequest, BaseAdapter, Any,
                                      HTTPConnectionPool]] = {}

    def post(self, session: requests.Session, url: str, body: bytes,
             headers: Mapping[str, str], *, timeout: tuple[float, float]
             ) -> requests.Response | direct.Answer:
        """``session.post(url, data=body, headers=headers, stream=True,
        allow_redirects=False, auth=session.auth or auth, timeout=timeout)``, sent the same."""
        if (session is not self._own or session.cookies or session.auth is not None
                or session.trust_env):  # requests builds it: the jar, an auth, the environment
            return session.post(url, data=body, headers=headers, stream=True,
                                allow_redirects=False, timeout=timeout,
                                auth=session.auth or self._auth)
        template = self._template(session, url, headers)
        proxies = {k: v for k, v in session.proxies.items() if v is not None}
        adapter = session.get_adapter(url)
        if (pool := self._pool(session, template, adapter, proxies)) is not None:
            assert isinstance(adapter, HTTPAdapter)  # (checked by _pool)
            return self._direct(session, template, pool, adapter, body, headers, timeout)
        request = template.copy()
        request.body = body
        request.headers["Content-Length"] = str(len(body))
        request.headers["X-Service-Access-Key"] = headers["X-Service-Access-Key"]
        if self._auth is not None:  # last, as prepare_request places it
            request = self._auth(request)
        return session.send(request, stream=True, allow_redirects=False, timeout=timeout,
                            verify=session.verify, cert=session.cert, proxies=proxies)

    def _pool(self, session: requests.Session, template: requests.PreparedRequest,
              adapter: BaseAdapter, proxies: dict[str, str]) -> HTTPConnectionPool | None:
        """The pool the session's adapter sends ``template`` through, when no proxy, hook
        or other adapter stands in the way (:mod:`.direct`); None: ``Session.send`` sends it."""
        tls = (session.verify, session.cert)
        route = self._routes.get(id(template))
        if (route is not None and route[0] is template and route[1] is adapter
                and route[2] == (tls, proxies) and route[3].pool is not None):
            return route[3]  # (a pool Client.close closed is made again, as send makes it)
        if (not isinstance(adapter, HTTPAdapter) or not direct.plain(adapter)
                or template.hooks.get("response") or template.url is None
                or select_proxy(template.url, proxies) is not None):
            return None
        pool = direct.pool_for(adapter, template, *tls)
        with self._lock:
            self._routes[id(template)] = (template, adapter, (tls, dict(proxies)), pool)
        return pool

    def _direct(self, session: requests.Session, template: requests.PreparedRequest,
                pool: HTTPConnectionPool, adapter: HTTPAdapter, body: bytes,
                headers: Mapping[str, str], timeout: tuple[float, float]) -> direct.Answer:
        """Send the copy of ``template`` with ``body`` through ``pool`` (:func:`.direct.send`)."""
        sent = dict(template.headers)  # in its order: the two set below keep their places
        sent["Content-Length"] = str(len(body))
        sent["X-Service-Access-Key"] = headers["X-Service-Access-Key"]
        if self._auth is not None:  # last, as prepare_request places it
            self._auth(_Headers(sent))  # type: ignore[arg-type]
        adapter.cert_verify(pool, template.url or "", session.verify, session.cert)
        answer = direct.send(pool, adapter, template.path_url, body, sent, timeout=timeout)
        if "Set-Cookie" in answer.headers or "Set-Cookie2" in answer.headers:
            request = template.copy()  # the request Session.send reads the cookies against
            request.body, request.headers = body, CaseInsensitiveDict(sent)
            direct.keep_cookies(session, request, answer)
        return answer

    def _template(self, session: requests.Session, url: str,
                  headers: Mapping[str, str]) -> requests.PreparedRequest:
        """The request of ``url`` with ``headers`` but those of :data:`BODY_HEADERS`
        (their places kept), prepared by ``session`` (its headers, params, hooks merged)."""
        merged, templates = self._cache
        if (now := _merged(session)) != merged:  # the session changed: templates anew
            with self._lock:
                if self._cache[0] != now:  # params copied whole: a dict, or a list in it,
                    # changed in place shows (a shallow copy shared the list: a stale URL)
                    self._cache = ((now[0], copy.deepcopy(now[1]), now[2]), {})
                    self._routes = {}
                templates = self._cache[1]
        key = (url, tuple((k, v) for k, v in headers.items() if k not in BODY_HEADERS))
        if (template := templates.get(key)) is None:
            request = requests.Request("POST", url, data=b" ",  # a body: its headers placed
                                       headers=dict(headers))
            template = session.prepare_request(request)
            with self._lock:
                template = templates.setdefault(key, template)
        return template

    def close(self) -> None:
        """Close the pools it sent through: urllib3 (2.8) closes a pool its manager forgets
        only once nothing holds it, so their sockets stayed open until a garbage collection."""
        with self._lock:
            routes, self._routes = self._routes, {}
        for route in routes.values():
            route[3].close()

    def __repr__(self) -> str:
        return f"Prepared(urls={len(self._cache[1])})"

"""POST requests prepared once per URL by the client's own session: :class:`Prepared`.

``requests.Session.request`` builds every request anew: it merges the session's
headers, cookies, hooks and settings into the request's (seven merges, each checking
its argument against a runtime protocol) and prepares the URL, headers, body and auth
again, about a quarter of a request's CPU time in a worker, under the interpreter lock
the other workers wait for. For the session the client made itself nothing of that
depends on the request but its body: the session's own ``prepare_request`` makes one
request per URL (a template), and each request is a copy of it with its body and the
two headers that follow from the body (``Content-Length``, the signature), sent by the
session's ``send`` with the session's own settings, as ``Session.request`` sends it.
Once the service has set a cookie (the session keeps cookies as ``requests`` does) the
headers depend on the jar: every request is then built by ``Session.request``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

import requests
from requests.auth import AuthBase

__all__ = ["BODY_HEADERS", "Prepared"]

#: The headers a request's body decides: set on each copy of its URL's template.
BODY_HEADERS = ("Content-Length", "X-Service-Access-Key")


class Prepared:
    """Sends POSTs of ``session`` (made by the client: ``trust_env`` off, no hooks of
    anyone else) with ``auth``, each URL's request prepared once.

    Parameters
    ----------
    session : requests.Session
        The client's own session.
    auth : AuthBase, optional
        Sets headers that do not depend on the body (the Basic auth of ``base_url``).
    """

    def __init__(self, session: requests.Session, auth: AuthBase | None) -> None:
        self._session = session
        self._auth = auth
        self._templates: dict[tuple[str, tuple[tuple[str, str], ...]],
                              requests.PreparedRequest] = {}
        self._lock = threading.Lock()

    def post(self, url: str, body: bytes, headers: Mapping[str, str], *,
             timeout: tuple[float, float]) -> requests.Response:
        """``session.post(url, data=body, headers=headers, stream=True,
        allow_redirects=False, auth=auth, timeout=timeout)``, sent the same."""
        session = self._session
        if session.cookies or session.auth is not None:  # the jar or an auth of its own:
            return session.post(url, data=body, headers=headers, stream=True,  # as requests
                                allow_redirects=False, timeout=timeout,  # builds it
                                auth=session.auth or self._auth)
        request = self._template(url, headers).copy()
        request.body = body
        request.headers["Content-Length"] = str(len(body))
        request.headers["X-Service-Access-Key"] = headers["X-Service-Access-Key"]
        return session.send(request, stream=True, allow_redirects=False, timeout=timeout,
                            verify=session.verify, cert=session.cert,
                            proxies={k: v for k, v in session.proxies.items() if v is not None})

    def _template(self, url: str, headers: Mapping[str, str]) -> requests.PreparedRequest:
        """The request of ``url`` with ``headers`` but those of :data:`BODY_HEADERS`
        (their places kept), prepared by the session (headers merged, URL and auth)."""
        key = (url, tuple((k, v) for k, v in headers.items() if k not in BODY_HEADERS))
        if (template := self._templates.get(key)) is None:
            request = requests.Request("POST", url, data=b" ",  # a body: its headers placed
                                       headers=dict(headers), auth=self._auth)
            template = self._session.prepare_request(request)
            with self._lock:
                template = self._templates.setdefault(key, template)
        return template

    def __repr__(self) -> str:
        return f"Prepared(urls={len(self._templates)})"

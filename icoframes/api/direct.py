"""A prepared request sent through urllib3's pool directly, as ``requests`` would send it.

``requests.Session.send`` wraps every request in work the client's own session does not
need: it copies the prepared request (its cookie jar too), looks up the adapter and the
pool (two URL parses and a pool key), and builds a ``requests.Response`` (its headers
copied into a new mapping, cookies read twice, hooks called), about a third of a
request's CPU time in the client, under the interpreter lock every worker shares. For
the session the client made, sending to its own address without a proxy, this module
sends each request through the pool the session's adapter made for that address (the
same :class:`~icoframes.api.transport.GateAdapter` pool, so the deadline watchdog and
Ctrl-C cut it as before) with the arguments ``HTTPAdapter.send`` passes to it, and maps
urllib3's errors to the ``requests`` exceptions ``HTTPAdapter.send`` raises for them (the
client's retry rules read those). A cookie the service sets is kept in the session's jar
as ``Session.send`` keeps it (the next request is then built by ``requests``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import requests
import urllib3
from requests.adapters import HTTPAdapter
from requests.cookies import extract_cookies_to_jar
from urllib3.exceptions import (
    ClosedPoolError,
    ConnectTimeoutError,
    MaxRetryError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
    ResponseError,
)
from urllib3.exceptions import HTTPError as _HTTPError
from urllib3.exceptions import InvalidHeader as _InvalidHeader
from urllib3.exceptions import ProxyError as _ProxyError
from urllib3.exceptions import SSLError as _SSLError

__all__ = ["Answer", "keep_cookies", "plain", "pool_for", "send"]


class Answer:
    """What the client reads of a response: ``status_code``, ``headers`` (case-insensitive),
    ``raw`` (the streamed urllib3 response, unread) and :meth:`close`, as on a
    ``requests.Response`` sent with ``stream=True``."""

    __slots__ = ("headers", "raw", "status_code")

    def __init__(self, raw: urllib3.BaseHTTPResponse) -> None:
        self.raw, self.status_code, self.headers = raw, raw.status, raw.headers

    def close(self) -> None:
        """As ``requests.Response.close`` of an unread body: the connection is not reused."""
        self.raw.close()
        self.raw.release_conn()


def plain(adapter: HTTPAdapter) -> bool:
    """Whether ``adapter`` sends as ``HTTPAdapter.send`` does (which :func:`send` does in its
    place): it overrides none of what ``send`` calls but the making of its pools."""
    kind = type(adapter)
    return all(getattr(kind, name) is getattr(HTTPAdapter, name)
               for name in ("send", "request_url", "add_headers"))


def pool_for(adapter: HTTPAdapter, request: requests.PreparedRequest, verify: Any,
             cert: Any) -> urllib3.HTTPConnectionPool:
    """The pool ``adapter`` sends ``request`` through (no proxy), with its TLS settings
    set as ``HTTPAdapter.send`` sets them before each request."""
    pool = adapter.get_connection_with_tls_context(request, verify, None, cert)
    adapter.cert_verify(pool, request.url or "", verify, cert)
    return cast(urllib3.HTTPConnectionPool, pool)


def send(pool: urllib3.HTTPConnectionPool, adapter: HTTPAdapter, path: str, body: bytes,
         headers: Mapping[str, str], *, timeout: tuple[float, float]) -> Answer:
    """POST ``body`` with ``headers`` (every one, ``Content-Length`` among them) to ``path``
    on ``pool``; ``requests``' exception for a failure, as ``HTTPAdapter.send`` raises it
    (without the request: it holds the signature and any Basic credential)."""
    try:
        raw = pool.urlopen("POST", path, body=body, headers=headers, redirect=False,
                           assert_same_host=False, preload_content=False, decode_content=False,
                           retries=adapter.max_retries, chunked=False,
                           timeout=urllib3.Timeout(connect=timeout[0], read=timeout[1]))
    except (ProtocolError, OSError) as err:
        raise requests.ConnectionError(err) from err
    except MaxRetryError as exc:
        reason = exc.reason
        if isinstance(reason, ConnectTimeoutError) and not isinstance(reason, NewConnectionError):
            raise requests.ConnectTimeout(exc) from exc
        if isinstance(reason, ResponseError):
            raise requests.exceptions.RetryError(exc) from exc
        if isinstance(reason, _ProxyError):
            raise requests.exceptions.ProxyError(exc) from exc
        if isinstance(reason, _SSLError):
            raise requests.exceptions.SSLError(exc) from exc
        raise requests.ConnectionError(exc) from exc
    except ClosedPoolError as exc:
        raise requests.ConnectionError(exc) from exc
    except _ProxyError as exc:
        raise requests.exceptions.ProxyError(exc) from exc
    except _SSLError as exc:
        raise requests.exceptions.SSLError(exc) from exc
    except ReadTimeoutError as exc:
        raise requests.ReadTimeout(exc) from exc
    except _InvalidHeader as exc:
        raise requests.exceptions.InvalidHeader(exc) from exc
    except _HTTPError:
        raise
    return Answer(raw)


def keep_cookies(session: requests.Session, request: requests.PreparedRequest,
                 answer: Answer) -> None:
    """Keep the cookies ``answer`` sets in ``session``'s jar, as ``Session.send`` does."""
    extract_cookies_to_jar(session.cookies, request, answer.raw)

"""The total deadline of each request, kept by a watchdog on the path Ctrl-C takes.

urllib3's timeouts bound each read from the socket, so a server trickling its
headers or body a byte at a time never trips them. Here every request gets a
:class:`Deadline` (:func:`deadline`); the socket it reads is handed over the
moment its response starts, before the status line (through urllib3's
``response_class`` hook, :class:`GateAdapter`), and one daemon thread shuts
down the socket of a request still running at its deadline, as
:meth:`~icoframes.api.control.LoadControl.cancel` does on Ctrl-C: the blocked
read returns at once and the request fails, :attr:`Deadline.expired` saying why.

The same response class reads the head of an answer as RFC 9112 frames it, where
:mod:`http.client` does not: an interim answer (``103 Early Hints``, any 1xx but 101)
is skipped and the final one read (http.client took a 103 for the answer, its empty
body for the item's), and a head that breaks off before its blank line (a close in a
header, even in the status line) is a broken answer, :class:`HeadCut` (http.client
read it as a whole answer: a 200 with no body, the item's failure).
"""

from __future__ import annotations

import contextlib
import heapq
import http.client
import itertools
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import requests
from requests import Response
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from .control import LoadControl

__all__ = ["HEAD_CUT", "INTERIM_ANSWERS", "Deadline", "GateAdapter", "HeadCut", "deadline",
           "head_cut", "missing_tls_file"]

#: What a transport failure of an answer whose head broke off says (:class:`HeadCut`).
HEAD_CUT = "the answer broke off in its head (status line and headers)"
#: Interim answers (1xx) skipped before the final one, at most: more is a broken answer.
INTERIM_ANSWERS = 8


_local = threading.local()


class Deadline:
    """One request's total deadline (``until``, a :func:`time.monotonic` value) and
    whether the watchdog cut the request at it (``expired``)."""

    def __init__(self, until: float) -> None:
        self.until = until
        self.expired = False
        self._sock: socket.socket | None = None
        self._done = False
        self._lock = threading.Lock()

    def attach(self, sock: socket.socket) -> None:
        """The request now reads ``sock``: cut it at the deadline (at once when past)."""
        with self._lock:
            self._sock = sock
            cut = self.expired
        if cut:
            _shut(sock)

    def expire(self) -> None:
        """Called by the watchdog at the deadline: cut the socket of a request still running."""
        with self._lock:
            if self._done:
                return
            self.expired = True
            sock = self._sock
        if sock is not None:
            _shut(sock)

    def finish(self) -> None:
        """The request is over: never cut its socket (the connection may be reused)."""
        with self._lock:
            self._done, self._sock = True, None

    @property
    def done(self) -> bool:
        """Whether the request is over (:meth:`finish`): nothing left to cut."""
        return self._done


def _shut(sock: socket.socket) -> None:
    # shutdown (not close) makes a recv blocked in another thread return now, and
    # leaves closing the descriptor to its owner
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


class _Watchdog:
    """One daemon thread expiring the deadlines of every request of the process."""

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._heap: list[tuple[float, int, Deadline]] = []
        self._count = itertools.count()  # ties in time are broken by arrival
        self._thread: threading.Thread | None = None

    def watch(self, deadline: Deadline) -> None:
        with self._wake:
            # the thread sleeps until the earliest deadline: woken only for an earlier one
            # (a wake per request was two thread switches per request at 0 ms latency)
            earliest = not self._heap or deadline.until < self._heap[0][0]
            heapq.heappush(self._heap, (deadline.until, next(self._count), deadline))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="icoframes-deadlines",
                                                daemon=True)
                self._thread.start()
            elif earliest:
                self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while self._heap and self._heap[0][2].done:  # over: nothing to cut
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._wake.wait()
                    continue
                until, _, deadline = self._heap[0]
                left = until - time.monotonic()
                if left > 0:
                    self._wake.wait(left)
                    continue
                heapq.heappop(self._heap)
            deadline.expire()


_WATCHDOG = _Watchdog()


@contextmanager
def deadline(seconds: float, control: LoadControl | None = None) -> Iterator[Deadline]:
    """Give the request this thread sends inside the block a total deadline.

    Yields its :class:`Deadline`. With ``control``, the attempt is refused when the load is
    stopped (:class:`~icoframes.api.switch.Cancelled`, before the block), else counted in its
    :attr:`~icoframes.api.switch.StopSwitch.on_wire` until the block ends, and the socket of
    the response read inside the block is registered with it too, so that
    :meth:`~icoframes.api.control.LoadControl.cancel` cuts a read stuck mid-body.
    """
    current = Deadline(time.monotonic() + seconds)
    if control is not None:  # an attempt leaves (Cancelled once the load is stopped), counted
        control.sending()  # until it is over; a trip of asks to wait awaits its answer
    previous = getattr(_local, "deadline", None), getattr(_local, "control", None)
    try:  # (counted above: released below, whatever fails from here)
        _local.deadline, _local.control = current, control
        _WATCHDOG.watch(current)
        yield current
    finally:
        current.finish()
        _local.deadline, _local.control = previous
        if control is not None:
            control.release()


class HeadCut(http.client.HTTPException):
    """The head of an answer broke off (the connection closed before its blank line), or
    more than :data:`INTERIM_ANSWERS` interim answers came: no answer was read. urllib3
    wraps it as any failure of the connection (``ProtocolError``): retried as one."""


def head_cut(exc: BaseException) -> str | None:
    """What a :class:`HeadCut` that ``exc`` wraps says (``requests`` and urllib3 wrap it in
    their connection errors, as an argument), else None."""
    seen: list[object] = [exc]
    for _ in range(8):  # (a few links: requests' error, urllib3's ProtocolError, the cause)
        if not seen:
            break
        error = seen.pop(0)
        if isinstance(error, HeadCut):
            return str(error)
        if isinstance(error, BaseException):
            seen.extend((*error.args, error.__cause__))
    return None


class _Lines:
    """The response's file, remembering the last line read from it (the head's end)."""

    def __init__(self, fp: Any) -> None:
        self.fp, self.last = fp, b""

    def readline(self, limit: int = -1) -> bytes:
        self.last = self.fp.readline(limit)
        return self.last

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fp, name)


class _WatchedResponse(http.client.HTTPResponse):
    """A response whose socket is handed to the request's deadline and stop switch the
    moment it exists, before the status line is read (urllib3's ``response_class`` hook)."""

    def __init__(self, sock: socket.socket, *args: Any, **kwargs: Any):
        super().__init__(sock, *args, **kwargs)
        current: Deadline | None = getattr(_local, "deadline", None)
        control: LoadControl | None = getattr(_local, "control", None)
        if control is not None:
            control.register(sock)
        if current is not None:
            current.attach(sock)
        self._deadline = current

    def begin(self) -> None:
        # the head is read through _Lines: it ends with a blank line or it broke off (the
        # last readline got nothing: http.client takes that for the head's end)
        fp = self.fp
        self.fp = lines = _Lines(fp)  # type: ignore[assignment]
        try:
            super().begin()
            cut = lines.last not in (b"\r\n", b"\n")
        finally:
            self.fp = fp
        if cut:
            raise HeadCut(HEAD_CUT)

    def _read_status(self) -> tuple[str, int, str]:
        # an interim answer (1xx: 103 Early Hints) precedes the final one (RFC 9110 section
        # 15.2): its headers are skipped; http.client skips only 100 (begin's loop), and 101
        # (Switching Protocols, never asked for) stays a final answer, refused as such
        for _ in range(INTERIM_ANSWERS + 1):
            version, status, reason = super()._read_status()  # type: ignore[misc]
            if not 100 < status < 200 or status == 101:
                return version, status, reason
            http.client._read_headers(self.fp)  # type: ignore[attr-defined]
        raise HeadCut(f"more than {INTERIM_ANSWERS} interim answers (1xx) in a row")

    def _close_conn(self) -> None:
        # the body is read to its end: urllib3 hands the connection back to its pool now,
        # and another request may take it at once; this deadline must never cut it then
        if self._deadline is not None:
            self._deadline.finish()
        super()._close_conn()  # type: ignore[misc]


class _Connection(HTTPConnection):
    response_class = _WatchedResponse


class _TLSConnection(HTTPSConnection):
    response_class = _WatchedResponse


class _Pool(HTTPConnectionPool):
    ConnectionCls = _Connection


class _TLSPool(HTTPSConnectionPool):
    ConnectionCls = _TLSConnection


_POOLS = {"http": _Pool, "https": _TLSPool}

_CA_VARIABLES = ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")  # requests' order


def missing_tls_file(origin: str, session: requests.Session | None) -> str | None:
    """The CA bundle or client certificate a request to ``origin`` through ``session`` (None:
    the client's own, which reads :data:`_CA_VARIABLES` as ``requests`` does) would read
    that does not exist, named with where it was set; None when every one exists or the
    origin is no https one (``requests`` reads them for https only). ``requests`` checks
    them at each request and raises a bare ``OSError``, after the client booked it."""
    if not origin.lower().startswith("https://"):
        return None
    files: list[tuple[str, object]] = [("the session's verify", True), ("the session's cert", None)]
    if session is not None:
        files = [("the session's verify", session.verify),
                 *(("the session's cert", c) for c in (
                     session.cert if isinstance(session.cert, tuple) else (session.cert,)))]
    if files[0][1] is True and (session is None or session.trust_env):
        named = next((name for name in _CA_VARIABLES if os.environ.get(name)), None)
        if named is not None:
            files[0] = (named, os.environ[named])
    for named, path in files:
        if isinstance(path, str) and not os.path.exists(path):
            return f"{named} ({path!r})"
    return None


class GateAdapter(HTTPAdapter):
    """An HTTP adapter whose requests honour :func:`deadline`, headers and body alike.

    (Through a SOCKS proxy the pools are urllib3's own: only the per-chunk
    check of :func:`read_body` bounds the body there.)
    """

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_POOLS)

    def build_response(self, req: Any, resp: Any) -> Response:
        response = super().build_response(req, resp)
        if response.is_redirect:
            # the client refuses every redirect, yet Session.send, even told not to follow
            # it, reads the whole body (to make response.next): closed unread here, that
            # body is never read past max_response_bytes (status and headers stay)
            response.raw.close()
        return response

    def proxy_manager_for(self, proxy: str, **kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **kwargs)
        if not proxy.lower().startswith("socks"):
            manager.pool_classes_by_scheme = dict(_POOLS)
        return manager

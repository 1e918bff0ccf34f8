"""A hostile HTTP server on 127.0.0.1 for testing the response gate.

Each path is given a behaviour: a function that answers one request through
the handler (redirects, trickles, huge or compressed bodies, odd JSON). The
server counts the requests and headers it received per path, and it is
bounded: every behaviour stops when the server stops, and the server stops by
itself after ``lifetime`` seconds even when a test forgets it.

>>> with HostileServer({"/api/v1/filters/": json_reply({"error": None})}) as srv:
...     srv.hits["/api/v1/filters/"]
0
"""

from __future__ import annotations

import contextlib
import gzip
import http.server
import io
import json
import socket
import threading
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

Behaviour = Callable[["_Handler"], None]

_STOP_GUARD = 60.0  # seconds stop() waits for a handler; only a client that never reads needs it

PROFILE = "/api/v1/ico/"
LIST = "/api/v1/icos/"
FILTERS = "/api/v1/filters/"


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as the sandbox: headers and body are two writes, and Nagle held the body
    # until the client's delayed ACK of the headers (~40 ms a reply on loopback)
    disable_nagle_algorithm = True
    server: _Server

    def do_POST(self) -> None:
        self._serve()

    do_GET = do_PUT = do_HEAD = do_POST

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.body = self.rfile.read(length) if length else b""
        path = self.path.split("?")[0]
        srv = self.server.owner
        with srv.lock:
            srv.hits[path] += 1
            srv.received.append((self.command, path, dict(self.headers.items())))
        behaviour = srv.behaviours.get(path, srv.default)
        try:
            behaviour(self)
        except (TimeoutError, BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up: as it should

    def request_json(self) -> Any:
        try:
            return json.loads(self.body or b"{}")
        except ValueError:
            return {}

    def send_bytes(self, status: int, body: bytes, headers: dict[str, str] | None = None,
                   content_type: str = "application/json; charset=utf-8") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def sent(self, n: int) -> None:
        with self.server.owner.lock:
            self.server.owner.bytes_sent += n

    def log_message(self, *args: Any) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 128  # socketserver's 5 drops a load's 6th simultaneous connect
    owner: HostileServer

    def process_request(self, request: Any, client_address: Any) -> None:
        # like ThreadingMixIn, remembering each connection so that stop() can end it
        thread = threading.Thread(target=self._serve_connection, args=(request, client_address),
                                  daemon=True)
        with self.owner.lock:
            self.owner.connections[thread] = request
        thread.start()

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except OSError:
            pass  # the client went away, or stop() ended the connection
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            with self.owner.lock:
                self.owner.connections.pop(threading.current_thread(), None)


class HostileServer:
    """Serve ``behaviours`` (path -> behaviour) on 127.0.0.1 in a daemon thread.

    Parameters
    ----------
    behaviours : dict
        Path (e.g. ``"/api/v1/ico/"``) to behaviour; other paths get ``default``.
    default : behaviour, optional
        What every other path answers (404 HTML unless given).
    lifetime : float, default 600
        Seconds after which the server stops by itself (a guard for a test that forgets
        to stop it), beyond a test's hang guards: at 60 s, a child process slow to start
        under load found it stopped and never got stuck (a 300 s "the load never got
        stuck" in test_a_signal_stops_a_load_stuck_mid_body).

    Attributes
    ----------
    hits : Counter
        Requests received per path.
    received : list
        ``(method, path, headers)`` of every request, in order.
    bytes_sent : int
        Body bytes the streaming behaviours managed to write.
    stopping : threading.Event
        Set when the server stops; long behaviours end on it. :meth:`stop` returns once
        every handler has ended: ``hits`` then counts every request the server took.
    """

    def __init__(self, behaviours: dict[str, Behaviour], *, default: Behaviour | None = None,
                 lifetime: float = 600.0):
        self.behaviours = dict(behaviours)
        self.default = default or html_reply(404, "not here")
        self.hits: Counter[str] = Counter()
        self.received: list[tuple[str, str, dict[str, str]]] = []
        self.bytes_sent = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.connections: dict[threading.Thread, socket.socket] = {}
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def settings(self) -> dict[str, str]:
        """Client keyword arguments for this server (made-up keys)."""
        return {"base_url": self.base_url, "public_key": "hostile-public",
                "private_key": "hostile-private"}

    def __enter__(self) -> HostileServer:
        self._thread.start()
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self.stopping.is_set():
            return
        self.stopping.set()
        self._timer.cancel()
        self._server.shutdown()  # no new connection; every accepted one is in connections
        with self.lock:
            open_now = list(self.connections.items())
        for _, sock in open_now:  # an idle keep-alive handler sees the end; a busy one ends
            with contextlib.suppress(OSError):  # its reply, or its behaviour on `stopping`
                sock.shutdown(socket.SHUT_RD)
        for thread, sock in open_now:
            thread.join(_STOP_GUARD)
            if thread.is_alive():  # stuck writing to a client that does not read
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        self._server.server_close()


@contextlib.contextmanager
def refusing_port(port: int = 0) -> Iterator[int]:
    """A port of 127.0.0.1 that refuses every connection while the block runs: bound, never
    listening, so no server (another xdist worker's ``bind(0)``) can take it meanwhile.
    ``port``: one a server stopped just now (its closed connections may linger: reused)."""
    with socket.socket() as holder:
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        holder.bind(("127.0.0.1", port))
        yield holder.getsockname()[1]


# -- behaviours -----------------------------------------------------------------


def json_reply(payload: Any, status: int = 200,
               content_type: str = "application/json; charset=utf-8") -> Behaviour:
    """Answer ``payload`` as JSON (UTF-8), with the given status and Content-Type."""
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    return raw_reply(body, status, content_type=content_type)


def raw_reply(body: bytes, status: int = 200, *, headers: dict[str, str] | None = None,
              content_type: str = "application/json; charset=utf-8") -> Behaviour:
    """Answer exactly ``body``."""
    def behaviour(h: _Handler) -> None:
        h.send_bytes(status, body, headers, content_type)
    return behaviour


def html_reply(status: int, text: str) -> Behaviour:
    """An HTML error page, as proxies send them."""
    return raw_reply(f"<html><body><h1>{status} {text}</h1></body></html>".encode(), status,
                     content_type="text/html")


def profile_reply(make_data: Callable[[Any], Any], **extra: Any) -> Behaviour:
    """Answer a profile request with ``{"error": None, "data": make_data(requested_id)}``."""
    def behaviour(h: _Handler) -> None:
        payload = {"error": None, "data": make_data(h.request_json().get("id")), **extra}
        h.send_bytes(200, json.dumps(payload).encode())
    return behaviour


def limited_profiles(bad: set[int], wait: int = 0) -> Behaviour:
    """Profiles answered, but those of ``bad`` always refused: 429 asking a wait of ``wait``
    seconds (``Retry-After``; 0: under a second), as a rate limiter on those ids answers."""
    def behaviour(h: Any) -> None:
        ico = int(h.request_json()["id"])
        if ico in bad:
            return h.send_bytes(429, b"<html>slow down</html>", {"Retry-After": str(wait)},
                                "text/html")
        json_reply({"error": None, "data": {"id": ico, "main": {"name": f"P{ico}"}}})(h)
    return behaviour


#: A well-formed answer for profile 1: its id and a main section.
ANSWER_ONE = b'{"error":null,"data":{"id":1,"main":{"name":"A"}}}'


def redirect(status: int, location: str) -> Behaviour:
    """A 3xx to ``location`` (carrying a valid-looking JSON body)."""
    return raw_reply(ANSWER_ONE, status, headers={"Location": location})


def trickle_body(body: bytes, interval: float) -> Behaviour:
    """Announce ``body`` with its Content-Length, then send one byte per ``interval``."""
    def behaviour(h: _Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.flush()
        for i in range(len(body)):
            if h.server.owner.stopping.wait(interval):
                break
            h.wfile.write(body[i:i + 1])
            h.wfile.flush()
            h.sent(1)
    return behaviour


def trickle_headers(body: bytes, interval: float, *, padding: int = 200) -> Behaviour:
    """Send the status line and headers (``padding`` bytes more) one byte per ``interval``."""
    def behaviour(h: _Handler) -> None:
        head = (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                f"X-Padding: {'p' * padding}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        for i in range(len(head)):
            if h.server.owner.stopping.wait(interval):
                return
            h.wfile.write(head[i:i + 1])
            h.wfile.flush()
        h.wfile.write(body)
        h.close_connection = True
    return behaviour


def endless_body(limit: int, *, chunked: bool, piece: bytes = b" " * 65536) -> Behaviour:
    """Stream up to ``limit`` bytes of whitespace, announced or chunked, until the client quits."""
    def behaviour(h: _Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        if chunked:
            h.send_header("Transfer-Encoding", "chunked")
        else:
            h.send_header("Content-Length", str(limit))
        h.end_headers()
        sent = 0
        while sent < limit and not h.server.owner.stopping.is_set():
            chunk = piece[: limit - sent]
            h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
            sent += len(chunk)
            h.sent(len(chunk))
        if chunked:
            h.wfile.write(b"0\r\n\r\n")
    return behaviour


def gzip_bomb(inflated: int) -> bytes:
    """A gzip stream of ``inflated`` bytes of spaces, built in memory (about inflated/1000)."""
    out = io.BytesIO()
    block = b" " * (1 << 20)
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as gz:
        for _ in range(inflated // len(block)):
            gz.write(block)
    return out.getvalue()


def encoded_reply(payload: Any, encoding: str) -> Behaviour:
    """``payload`` as JSON, compressed with ``encoding`` ("gzip" or "deflate")."""
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    packed = gzip.compress(body) if encoding == "gzip" else zlib.compress(body)
    return raw_reply(packed, headers={"Content-Encoding": encoding})


def list_item(ico_id: int, name: str | None = None) -> dict[str, Any]:
    """A list summary of ICO ``ico_id`` as the service writes it."""
    return {"id": ico_id, "main": {"name": name or f"ICO {ico_id}", "ico_score": "3.0"},
            "finance": {"raised": "1000"}}


def list_page(ids: list[int], page: int) -> Behaviour:
    """Page ``page`` (20 a page) of a list of ``ids`` as the service answers it: error 482
    when no ICO matches (spec 4.2: never an empty page 1 without an error)."""
    if not ids:
        return json_reply({"error": 482, "message": "Projects not found", "data": []})
    return json_reply({"total_icos": len(ids), "current_page": page, "error": None,
                       "total_pages": -(-len(ids) // 20),
                       "data": [list_item(i) for i in ids[(page - 1) * 20:page * 20]]})


def paged_list(n: int, *, total_icos: int | None = None,
               total_pages: int | None = None) -> Behaviour:
    """A list of ``n`` ICOs (ids 1..n), 20 a page; ``total_icos``/``total_pages`` may lie."""
    items = [list_item(i) for i in range(1, n + 1)]

    def behaviour(h: _Handler) -> None:
        page = h.request_json().get("page", 1)
        claimed = n if total_icos is None else total_icos
        json_reply({"total_icos": claimed, "current_page": page, "error": None,
                    "total_pages": total_pages or -(-claimed // 20),
                    "data": items[(page - 1) * 20:page * 20]})(h)
    return behaviour


_SPOILING = threading.Lock()


def spoil_folder(folder: Any) -> None:
    """``folder`` (a cache folder) swapped in one step for an empty one open to all (mode
    777, which icoframes refuses to use); its content is kept beside it as
    ``<name>-before``. Once: later calls do nothing. One step (Linux ``renameat2`` with
    ``RENAME_EXCHANGE``), so a client working in it meanwhile never finds it missing (it
    would make a new one) or not yet open to all."""
    import ctypes
    import os
    from pathlib import Path

    folder = Path(folder)
    before = folder.with_name(folder.name + "-before")
    with _SPOILING:
        if before.exists():
            return
        before.mkdir()
        os.chmod(before, 0o777)
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.renameat2(-100, os.fsencode(folder), -100, os.fsencode(before), 2) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"renameat2(RENAME_EXCHANGE): {os.strerror(error)}")

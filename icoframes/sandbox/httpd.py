"""The sandbox's HTTP plumbing: a threaded keep-alive server on 127.0.0.1 around a Service.

Each connection gets its own thread, so slow requests overlap. A handler reads
the body (with a Content-Length, or chunked), asks :meth:`.Service.answer` and
writes the reply, or writes what an injected fault looks like on the wire.
The server remembers its open connections so that :meth:`HTTPServer.close_connections`
can wake handlers blocked on idle keep-alive sockets when the sandbox stops, and let
those answering a request write their whole reply first.
"""

from __future__ import annotations

import contextlib
import json
import socket
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .service import Fault, Reply, Service

__all__ = ["HOST", "STOP_GUARD", "HTTPServer"]

HOST = "127.0.0.1"
# Seconds stop() waits for a handler to finish the reply it is writing: only a guard against
# a client that never reads; a loaded machine must never reach it (a reply cut = a flaky test)
STOP_GUARD = 60.0
_REASONS = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
_JSON = "application/json; charset=utf-8"


class HTTPServer(ThreadingHTTPServer):
    """Serves ``service`` on 127.0.0.1:``port`` (0: a free port) once ``serve_forever`` runs."""

    daemon_threads = True
    # the listen backlog: socketserver's 5 is less than a load's 8 connections opened at
    # once; a connection beyond it has its SYN dropped and waits a second for the retry
    request_queue_size = 128

    def __init__(self, service: Service, port: int):
        self.service = service
        self._lock = threading.Lock()
        self._open: dict[threading.Thread, socket.socket] = {}
        super().__init__((HOST, port), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host name, which can stall without DNS
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = HOST, self.server_address[1]

    def process_request(self, request: Any, client_address: Any) -> None:
        # like ThreadingMixIn, but remembering each connection so stop() can close it
        thread = threading.Thread(target=self._serve_connection, args=(request, client_address),
                                  name=f"icoframes-sandbox-{self.server_port}-connection",
                                  daemon=True)
        with self._lock:
            self._open[thread] = request
        self.service.stats.connection_opened()
        thread.start()

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except OSError:
            pass  # the client went away, or stop() closed the socket
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            with self._lock:
                self._open.pop(threading.current_thread(), None)
            self.service.stats.connection_closed()

    def close_connections(self, timeout: float = STOP_GUARD) -> None:
        """End every connection: an idle keep-alive one at once, one answering a request once
        its whole reply is written; a handler still running after ``timeout`` seconds (stuck
        writing to a client that does not read) has its socket shut both ways."""
        with self._lock:
            open_now = list(self._open.items())
        for _, sock in open_now:
            with contextlib.suppress(OSError):
                # a blocked read sees the end of the stream; writing the reply goes on
                sock.shutdown(socket.SHUT_RD)
        deadline = time.monotonic() + timeout
        for thread, _ in open_now:
            thread.join(max(0.0, deadline - time.monotonic()))
        for thread, sock in open_now:
            if thread.is_alive():
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                thread.join(1.0)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # no 40 ms stalls on small writes
    server_version = "icoframes-sandbox"
    sys_version = ""
    server: HTTPServer
    _headers_buffer: list[bytes]  # (http.server's: what send_response and send_header buffer)
    _arrived = 0.0

    def do_POST(self) -> None:
        self._dispatch()

    do_GET = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_POST

    def log_message(self, format: str, *args: Any) -> None:
        pass  # tests start many sandboxes; access logs would drown their output

    def parse_request(self) -> bool:
        self._arrived = time.monotonic()  # its request line is read: the latency counts from here
        return super().parse_request()

    def _dispatch(self) -> None:
        body = self._read_body()
        stats = self.server.service.stats
        stats.request_started()
        try:
            # the reply's bytes are made with the answer, before its latency is waited out
            reply = self.server.service.answer(
                self.command, self.path, body,
                public_key=self.headers.get("X-Service-Public-Key"),
                access_key=self.headers.get("X-Service-Access-Key"), render=self._render,
                arrived=self._arrived)
            if reply:
                self.wfile.write(reply)  # status line, headers and body in one write
        finally:
            stats.request_finished()

    def _render(self, answer: Reply | Fault) -> bytes:
        """The bytes that answer on the wire (none for a dropped connection)."""
        if isinstance(answer, Reply):
            payload = json.dumps(answer.payload, ensure_ascii=False, separators=(",", ":"))
            return self._reply(answer.status, payload.encode(), _JSON)
        return self._inject(answer)

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked()
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        return self.rfile.read(length) if length > 0 else b""

    def _read_chunked(self) -> bytes:
        # clients streaming a body (e.g. from a generator) send it chunked, without a length
        chunks = []
        try:
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline().strip():
                pass  # trailer fields
        except ValueError:
            self.close_connection = True  # framing is lost; the next request cannot be found
        return b"".join(chunks)

    def _reply(self, status: int, body: bytes, content_type: str) -> bytes:
        """A whole reply, head and body, as bytes (written at once when its latency is up)."""
        self.send_response(status)  # (buffered: the head is written with the body)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if self.request_version == "HTTP/0.9":  # (no head: nothing was buffered)
            head = b""
        else:
            head, self._headers_buffer = b"".join([*self._headers_buffer, b"\r\n"]), []
        return head if self.command == "HEAD" else head + body

    def _inject(self, fault: Fault) -> bytes:
        if fault.kind == "drop":
            self.close_connection = True  # no status line at all: the client sees EOF
            return b""
        if fault.kind == "http5xx":
            reason = _REASONS[fault.status]
            html = (f"<html><head><title>{fault.status} {reason}</title></head><body>"
                    f"<center><h1>{fault.status} {reason}</h1></center><hr><center>nginx</center>"
                    "</body></html>\n")
            return self._reply(fault.status, html.encode(), "text/html")
        return self._reply(200, b'{"error":null,"total_icos":"', _JSON)

"""The sandbox HTTP server: the whole ICO directory API spec on 127.0.0.1.

Request handling, in order:

1. the path picks the endpoint (POST ``/api/v1/filters/``, ``/api/v1/icos/``,
   ``/api/v1/ico/``, trailing slash optional); the request is counted in
   ``stats.requests`` under ``filters``/``icos``/``ico``, anything else under ``other``;
2. ``latency`` seconds of sleep, in the handler thread, so concurrent requests overlap;
3. with probability ``fail_rate`` an injected fault (not counted against the quota):
   HTTP 500/502/503 with an HTML body, a dropped connection, or HTTP 200 with a
   truncated JSON body;
4. an unknown endpoint or a method other than POST: error 481;
5. keys and the HMAC-SHA256 signature of the exact body bytes: error 480;
6. the daily quota of the public key (UTC day): error 485; every request that
   gets past this point counts, whatever its answer;
7. the body must be a JSON object (an empty body counts as ``{}``): error 483;
8. the endpoint itself (482, 483, 484 or success).

Error bodies are ``{"error": code, "message": text}`` (plus ``"data": []`` on the
list endpoint) with HTTP status 403 for 480, 404 for 481, 429 for 485 and 200
for 482, 483 and 484; the spec leaves statuses open, so clients must read the
``error`` field.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import math
import random
import re
import socket
import socketserver
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from ..api.params import validate_list_params
from ..errors import InvalidParameter
from .directory import Directory, generate_directory

__all__ = ["PAGE_SIZE", "Sandbox", "SandboxStats", "serve", "start"]

PAGE_SIZE = 20
HOST = "127.0.0.1"
_ENDPOINTS = {"/api/v1/filters": "filters", "/api/v1/icos": "icos", "/api/v1/ico": "ico"}
_HTTP_STATUS = {480: 403, 481: 404, 485: 429}
_FAULTS = ("http5xx", "drop", "truncated")
_INTEGER = re.compile(r"\s*-?\d+\s*")
_REASONS = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}


class SandboxStats:
    """Thread-safe counters of one sandbox. Reading a counter returns a copy."""

    def __init__(self, quota: _Quota):
        self._lock = threading.Lock()
        self._quota = quota
        self._requests: Counter[str] = Counter()
        self._profile_hits: Counter[int] = Counter()
        self._faults = 0
        self._connections = 0

    @property
    def requests(self) -> Counter[str]:
        """Requests received, by endpoint: ``filters``, ``icos``, ``ico``, ``other``."""
        with self._lock:
            return Counter(self._requests)

    @property
    def profile_hits(self) -> Counter[int]:
        """ICO id -> times its profile was served successfully."""
        with self._lock:
            return Counter(self._profile_hits)

    @property
    def faults(self) -> int:
        """Injected faults so far."""
        with self._lock:
            return self._faults

    @property
    def connections(self) -> int:
        """TCP connections accepted (pooled clients keep this low)."""
        with self._lock:
            return self._connections

    def quota_used(self, public_key: str) -> int:
        """Requests counted today (UTC) against ``public_key``'s daily allowance."""
        return self._quota.used(public_key)

    def reset(self) -> None:
        """Zero every counter; the quota is left alone (see ``Sandbox.reset_quota``)."""
        with self._lock:
            self._requests.clear()
            self._profile_hits.clear()
            self._faults = 0
            self._connections = 0

    def _count(self, field: str, key: Any = None) -> None:
        with self._lock:
            if field == "requests":
                self._requests[key] += 1
            elif field == "profile_hits":
                self._profile_hits[key] += 1
            elif field == "faults":
                self._faults += 1
            else:
                self._connections += 1

    def __repr__(self) -> str:
        return (f"SandboxStats(requests={dict(self.requests)}, faults={self.faults}, "
                f"profiles_served={sum(self.profile_hits.values())})")


class _Quota:
    """Requests per public key per UTC day; ``limit=None`` means unlimited."""

    def __init__(self, limit: int | None):
        self.limit = limit
        self._lock = threading.Lock()
        self._used: dict[tuple[str, str], int] = {}

    @staticmethod
    def _today() -> str:
        return time.strftime("%Y-%m-%d", time.gmtime())

    def take(self, key: str) -> bool:
        slot = (key, self._today())
        with self._lock:
            used = self._used.get(slot, 0)
            if self.limit is not None and used >= self.limit:
                return False
            self._used[slot] = used + 1
            return True

    def used(self, key: str) -> int:
        with self._lock:
            return self._used.get((key, self._today()), 0)

    def reset(self) -> None:
        with self._lock:
            self._used.clear()


class _Faults:
    """Seeded, thread-safe fault draws."""

    def __init__(self, rate: float, seed: int):
        self.rate = rate
        self._rng = random.Random(seed * 7919 + 17)
        self._lock = threading.Lock()

    def draw(self) -> tuple[str, int] | None:
        with self._lock:
            if self.rate <= 0 or self._rng.random() >= self.rate:
                return None
            return self._rng.choice(_FAULTS), self._rng.choice((500, 502, 503))


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, sandbox: Sandbox, port: int):
        self.sandbox = sandbox
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
        self.sandbox.stats._count("connections")
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

    def close_connections(self, timeout: float = 5.0) -> None:
        """Wake every handler blocked on a keep-alive socket, then wait for it to end."""
        with self._lock:
            open_now = list(self._open.items())
        for _, sock in open_now:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + timeout
        for thread, _ in open_now:
            thread.join(max(0.0, deadline - time.monotonic()))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes; no 40 ms stalls
    server_version = "icoframes-sandbox"
    sys_version = ""
    server: _Server

    def do_POST(self) -> None:
        self._dispatch(post=True)

    def do_GET(self) -> None:
        self._dispatch(post=False)

    do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass  # tests start many sandboxes; access logs would drown their output

    def _dispatch(self, *, post: bool) -> None:
        body = self._read_body()
        sb = self.server.sandbox
        endpoint = _ENDPOINTS.get(urlsplit(self.path).path.rstrip("/")) if post else None
        sb.stats._count("requests", endpoint or "other")
        if sb.latency > 0:
            time.sleep(sb.latency)
        fault = sb._faults.draw()
        if fault is not None:
            sb.stats._count("faults")
            self._inject(*fault)
            return
        if endpoint is None:
            self._reply_error(481, endpoint, f"method {self.command} {self.path} does not exist")
            return
        if not self._authentic(body, sb):
            self._reply_error(480, endpoint, "public or private key is not valid")
            return
        if not sb._quota.take(sb.public_key):
            self._reply_error(485, endpoint, "the daily request allowance is exceeded")
            return
        try:
            params = _parse_object(body)
        except ValueError as exc:
            self._reply_error(483, endpoint, f"the body is not a JSON object: {exc}")
            return
        if endpoint == "filters":
            self._reply(200, {"error": None, **sb.directory.filters()})
        elif endpoint == "icos":
            self._list(params, sb)
        else:
            self._profile(params, sb)

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

    def _authentic(self, body: bytes, sb: Sandbox) -> bool:
        public = self.headers.get("X-Service-Public-Key")
        signature = self.headers.get("X-Service-Access-Key")
        if not public or not signature:
            return False
        expected = base64.b64encode(
            hmac.new(sb._private_key.encode(), body, hashlib.sha256).digest())
        key_ok = hmac.compare_digest(_bytes(public), sb.public_key.encode())
        return hmac.compare_digest(_bytes(signature.strip()), expected) and key_ok

    def _list(self, params: dict[str, Any], sb: Sandbox) -> None:
        try:
            wire = validate_list_params(params)
        except InvalidParameter as exc:
            self._reply_error(483, "icos", str(exc))
        else:
            page = wire.pop("page", 1)
            matches = sb.directory.query(wire)
            pages = math.ceil(len(matches) / PAGE_SIZE)
            if not matches:
                self._reply_error(482, "icos", "no ICO matches the parameters")
            elif page > pages:
                self._reply_error(482, "icos", f"page {page} is beyond the last page, {pages}")
            else:
                chunk = matches[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
                self._reply(200, {"total_icos": str(len(matches)), "total_pages": pages,
                                  "current_page": page, "error": None,
                                  "data": [r.summary for r in chunk]})
        sb._list_served()

    def _profile(self, params: dict[str, Any], sb: Sandbox) -> None:
        raw = params.get("id")
        if raw is None or raw == "":
            self._reply_error(484, "ico", "the required parameter id is missing")
            return
        if isinstance(raw, bool) or not (
                isinstance(raw, int) or (isinstance(raw, str) and _INTEGER.fullmatch(raw))):
            self._reply_error(483, "ico", f"id must be an integer, not {raw!r}")
            return
        ico_id = int(raw)
        try:
            profile = sb.directory.profile(ico_id)
        except KeyError:
            self._reply_error(482, "ico", f"no ICO has id {ico_id}")
            return
        sb.stats._count("profile_hits", ico_id)
        self._reply(200, {"error": None, "data": profile})

    def _reply_error(self, code: int, endpoint: str | None, message: str) -> None:
        payload: dict[str, Any] = {"error": code, "message": message}
        if endpoint == "icos":
            payload["data"] = []
        self._reply(_HTTP_STATUS.get(code, 200), payload)

    def _reply(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
        self._send(status, body, "application/json; charset=utf-8")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _inject(self, kind: str, status: int) -> None:
        if kind == "drop":
            self.close_connection = True  # no status line at all: the client sees EOF
        elif kind == "http5xx":
            reason = _REASONS[status]
            html = (f"<html><head><title>{status} {reason}</title></head><body>"
                    f"<center><h1>{status} {reason}</h1></center><hr><center>nginx</center>"
                    "</body></html>\n")
            self._send(status, html.encode(), "text/html")
        else:
            self._send(200, b'{"error":null,"total_icos":"', "application/json; charset=utf-8")


def _bytes(header: str) -> bytes:
    # header values arrive decoded as Latin-1; compare_digest needs bytes for non-ASCII input
    return header.encode("latin-1", "replace")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_object(body: bytes) -> dict[str, Any]:
    if not body.strip():
        return {}
    value = json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    if not isinstance(value, dict):
        raise ValueError(f"expected an object, got {type(value).__name__}")
    return value


class Sandbox:
    """A running (or ready to run) sandbox server; see :func:`start`.

    The private key never shows in ``repr``.
    """

    def __init__(self, *, n_icos: int = 1000, seed: int = 0, latency: float = 0.0,
                 quota: int | None = 5000, fail_rate: float = 0.0, port: int = 0,
                 public_key: str = "sandbox-public", private_key: str = "sandbox-private",
                 grow_every: int | None = None, directory: Directory | None = None):
        if not public_key or not private_key:
            raise ValueError("public_key and private_key must be non-empty strings")
        if quota is not None and quota < 0:
            raise ValueError("quota must be >= 0, or None for no limit")
        if grow_every is not None and grow_every < 1:
            raise ValueError("grow_every must be >= 1, or None")
        self.directory = directory if directory is not None else generate_directory(n_icos,
                                                                                    seed=seed)
        self.public_key = public_key
        self._private_key = private_key
        self._requested_port = port
        self._quota = _Quota(quota)
        self._faults = _Faults(0.0, seed)
        self.set_faults(fail_rate)
        self.latency = 0.0
        self.set_latency(latency)
        self.grow_every = grow_every
        self.stats = SandboxStats(self._quota)
        self._lists = 0
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def private_key(self) -> str:
        return self._private_key

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the sandbox is not running; call start() first")
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``, without the ``/api/v1`` suffix."""
        return f"http://{HOST}:{self.port}"

    def settings(self) -> dict[str, str]:
        """Keyword arguments for ``icoframes.configure(**sb.settings())``."""
        return {"base_url": self.base_url, "public_key": self.public_key,
                "private_key": self._private_key}

    def start(self) -> Sandbox:
        """Bind 127.0.0.1 and serve in a daemon thread; returns self. No-op when running."""
        with self._lock:
            if self._server is None:
                server = _Server(self, self._requested_port)
                self._thread = threading.Thread(target=server.serve_forever,
                                                kwargs={"poll_interval": 0.05},
                                                name=f"icoframes-sandbox-{server.server_port}",
                                                daemon=True)
                self._server = server
                self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close every connection and the listening socket. Idempotent."""
        with self._lock:
            server, thread = self._server, self._thread
            self._server = self._thread = None
        if server is None:
            return
        server.shutdown()
        server.close_connections()
        server.server_close()
        if thread is not None:
            thread.join(5.0)

    def wait(self) -> None:
        """Block until the sandbox stops (Ctrl-C interrupts it); for command-line use."""
        while (thread := self._thread) is not None and thread.is_alive():
            thread.join(0.5)

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.base_url if self._server is not None else "not running"
        return (f"Sandbox({where}, public_key={self.public_key!r}, "
                f"n_icos={len(self.directory)}, quota={self._quota.limit})")

    def reset_quota(self) -> None:
        """Simulate the daily reset: every key's count goes back to 0."""
        self._quota.reset()

    def set_faults(self, fail_rate: float) -> None:
        """Probability, 0 to 1, that a request meets an injected fault."""
        if not 0.0 <= fail_rate <= 1.0:
            raise ValueError("fail_rate must be between 0 and 1")
        self._faults.rate = float(fail_rate)

    def set_latency(self, latency: float) -> None:
        """Seconds each request waits before it is answered."""
        if latency < 0:
            raise ValueError("latency must be >= 0")
        self.latency = float(latency)

    def add_ico(self, status: str = "past") -> int:
        """Insert a new ICO with the highest id (it tops the default list order)."""
        return self.directory.add_ico(status)

    def update_ico(self, ico_id: int, *, name: str | None = None,
                   ico_score: float | None = None, raised: int | None = None) -> None:
        """Change values of an ICO, in its summary and its profile alike."""
        self.directory.update_ico(ico_id, name=name, ico_score=ico_score, raised=raised)

    def remove_ico(self, ico_id: int) -> None:
        """Delete an ICO from the directory."""
        self.directory.remove_ico(ico_id)

    def _list_served(self) -> None:
        with self._lock:
            self._lists += 1
            grow = self.grow_every is not None and self._lists % self.grow_every == 0
        if grow:
            self.directory.add_ico("past")


def start(**kwargs: Any) -> Sandbox:
    """Start a sandbox server on 127.0.0.1 in a daemon thread.

    Parameters
    ----------
    n_icos : int, default 1000
        Size of the generated directory.
    seed : int, default 0
        Seed of the directory and of the fault draws.
    latency : float, default 0.0
        Seconds each request waits before it is answered.
    quota : int or None, default 5000
        Requests per public key per UTC day; None for no limit.
    fail_rate : float, default 0.0
        Probability of an injected fault per request.
    port : int, default 0
        Port to bind; 0 picks a free one.
    public_key, private_key : str
        The only key pair the server accepts.
    grow_every : int or None
        Add a new past ICO after every this many list requests.
    directory : Directory, optional
        Serve this directory instead of generating one.

    Returns
    -------
    Sandbox
        Running; call ``stop()`` or use it as a context manager.

    Examples
    --------
    >>> from icoframes import sandbox
    >>> with sandbox.start(n_icos=20) as sb:
    ...     sb.base_url.startswith("http://127.0.0.1:")
    True
    """
    return Sandbox(**kwargs).start()


def serve(**kwargs: Any) -> Sandbox:
    """Same as :func:`start`, named for ``with sandbox.serve(...) as sb:`` blocks."""
    return start(**kwargs)

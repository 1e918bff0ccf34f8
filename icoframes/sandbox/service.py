"""The API's behaviour: what the sandbox answers to one request, without the HTTP plumbing.

:meth:`Service.answer` takes a request (method, path, body bytes and the two key
headers) and returns a :class:`Reply` or a :class:`Fault`, in this order:

1. the path picks the endpoint (POST ``/api/v1/filters/``, ``/api/v1/icos/``,
   ``/api/v1/ico/``, trailing slash optional); the request is counted in
   ``stats.requests`` under ``filters``/``icos``/``ico``, anything else under ``other``;
2. while the service is paused, the request waits here (see :meth:`Service.pause`);
3. ``latency`` seconds from the request's arrival (or from here, when it was held) to the
   answer, waited in the caller's thread (concurrent requests overlap); the answer (steps
   4-9, and the bytes ``render`` makes of it) is made first and held: what reading the
   request and making its answer take is part of the latency, not added to it;
4. with probability ``fail_rate`` an injected fault (not counted against the quota):
   HTTP 500/502/503 with an HTML body, a dropped connection, or HTTP 200 with a
   truncated JSON body (:mod:`.httpd` writes them);
5. an unknown endpoint or a method other than POST: error 481;
6. keys and the HMAC-SHA256 signature of the exact body bytes: error 480;
7. the daily quota of the public key (UTC day): error 485; every request that
   gets past this point counts, whatever its answer;
8. the body must be a JSON object (an empty body counts as ``{}``): error 483;
9. the endpoint itself (482, 483, 484 or success).

Error bodies are ``{"error": code, "message": text}`` (plus ``"data": []`` on the
list endpoint) with HTTP status 403 for 480, 404 for 481, 429 for 485 and 200
for 482, 483 and 484; the spec leaves statuses open, so clients must read the
``error`` field.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import random
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from ..api.auth import read_keys
from ..api.params import PAGE_SIZE, validate_list_params
from ..errors import InvalidParameter
from ..secret import Secret
from .catalog import filter_set
from .directory import Directory
from .stats import SandboxStats

__all__ = ["PAGE_SIZE", "Fault", "Reply", "Service", "check_keys"]

#: ICOs per list page (spec 4.2).
_ENDPOINTS = {"/api/v1/filters": "filters", "/api/v1/icos": "icos", "/api/v1/ico": "ico"}
_HTTP_STATUS = {480: 403, 481: 404, 485: 429}
_FAULT_KINDS = ("http5xx", "drop", "truncated")
_FAULT_STATUSES = (500, 502, 503)
_INTEGER = re.compile(r"\s*-?\d+\s*")
_Out = TypeVar("_Out")


@dataclass(frozen=True, slots=True)
class Reply:
    """A JSON answer: the HTTP status and the body's object."""

    status: int
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Fault:
    """An injected fault: ``kind`` is ``http5xx`` (with ``status``), ``drop`` or ``truncated``."""

    kind: str
    status: int


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

    def __init__(self, seed: int):
        self.rate = 0.0
        self._rng = random.Random(seed * 7919 + 17)
        self._lock = threading.Lock()

    def draw(self) -> Fault | None:
        with self._lock:
            if self.rate <= 0 or self._rng.random() >= self.rate:
                return None
            return Fault(self._rng.choice(_FAULT_KINDS), self._rng.choice(_FAULT_STATUSES))


def check_keys(public_key: str, private_key: str | Secret) -> tuple[str, str]:
    """The key pair as :func:`icoframes.configure` takes it (stripped), or its InvalidParameter.

    The private key is never in the message (``invalid private_key=<hidden>: ...``); one key
    given for both is refused too: the banner prints the public key.
    """
    if isinstance(read := read_keys(public_key, private_key), InvalidParameter):
        del public_key, private_key  # raised with no local holding a key's text
        raise read
    return read[0], read[1].reveal()  # as the rules keep them: stripped


class Service:
    """The API over a :class:`~.directory.Directory`, for one key pair, with its quota and faults.

    Parameters are those of :func:`~.server.start`; a bad value raises ValueError.
    """

    def __init__(self, directory: Directory, *, public_key: str, private_key: str | Secret,
                 quota: int | None, fail_rate: float, latency: float, grow_every: int | None,
                 seed: int):
        public_key, private_key = check_keys(public_key, private_key)
        if quota is not None and quota < 1:  # 0 is refused by start(), as by --quota
            raise ValueError("quota must be >= 1, or None for no limit")
        if grow_every is not None and grow_every < 1:
            raise ValueError("grow_every must be >= 1, or None")
        self.directory = directory
        self.public_key = public_key
        self._private_key = private_key
        self.grow_every = grow_every
        self.quota = _Quota(quota)
        self.stats = SandboxStats(self.quota.used)
        self._faults = _Faults(seed)
        self.set_faults(fail_rate)
        self.latency = 0.0
        self.set_latency(latency)
        self._running = threading.Event()  # cleared while paused
        self._running.set()
        self._lock = threading.Lock()
        self._lists = 0

    @property
    def private_key(self) -> str:
        return self._private_key

    def set_faults(self, fail_rate: float) -> None:
        """Probability, 0 to 1, that a request meets an injected fault."""
        if not 0.0 <= fail_rate <= 1.0:
            raise ValueError("fail_rate must be between 0 and 1")
        self._faults.rate = float(fail_rate)

    def set_latency(self, latency: float) -> None:
        """Seconds from a request's arrival to its answer (made meanwhile)."""
        if latency < 0:
            raise ValueError("latency must be >= 0")
        self.latency = float(latency)

    def pause(self) -> None:
        """Hold every request after it is counted, until :meth:`resume` (a stalled upstream)."""
        self._running.clear()

    def resume(self) -> None:
        """Let held requests, and those to come, through."""
        self._running.set()

    def answer(self, method: str, path: str, body: bytes, *, public_key: str | None,
               access_key: str | None, render: Callable[[Reply | Fault], _Out],
               arrived: float | None = None) -> _Out:
        """The answer to one request, ``render``-ed (by the HTTP server: its bytes), handed back
        ``latency`` seconds after the request ``arrived`` (``time.monotonic()``; None: now), or
        after it was let through when it was held; ``public_key``/``access_key`` are the spec's
        two headers."""
        endpoint = _ENDPOINTS.get(urlsplit(path).path.rstrip("/")) if method == "POST" else None
        self.stats.record_request(endpoint or "other")
        if arrived is None or not self._running.is_set():
            self._running.wait()
            arrived = time.monotonic()
        latency = self.latency
        # made, then held until its latency is up: a remote service's time to answer is its
        # latency; made after it, each answer came that much later, more when many requests
        # woke at once and made theirs one after the other (one interpreter lock)
        out = render(self._answer(endpoint, method, path, body, public_key, access_key))
        if latency > 0:
            time.sleep(max(0.0, latency - (time.monotonic() - arrived)))
            self.stats.record_delay(latency)
        return out

    def _answer(self, endpoint: str | None, method: str, path: str, body: bytes,
                public_key: str | None, access_key: str | None) -> Reply | Fault:
        """Steps 4-9 of the module's list."""
        fault = self._faults.draw()
        if fault is not None:
            self.stats.record_fault()
            return fault
        if endpoint is None:
            return _error(481, endpoint, f"method {method} {path} does not exist")
        if not self._authentic(body, public_key, access_key):
            return _error(480, endpoint, "public or private key is not valid")
        if not self.quota.take(self.public_key):
            return _error(485, endpoint, "the daily request allowance is exceeded")
        try:
            params = _parse_object(body)
        except ValueError as exc:
            return _error(483, endpoint, f"the body is not a JSON object: {exc}")
        if endpoint == "filters":
            return Reply(200, {"error": None, **filter_set()})
        if endpoint == "icos":
            reply = self._list(params)
            self._list_served()
            return reply
        return self._profile(params)

    def _authentic(self, body: bytes, public: str | None, signature: str | None) -> bool:
        if not public or not signature:
            return False
        expected = base64.b64encode(
            hmac.new(self._private_key.encode(), body, hashlib.sha256).digest())
        key_ok = hmac.compare_digest(_bytes(public), self.public_key.encode())
        return hmac.compare_digest(_bytes(signature.strip()), expected) and key_ok

    def _list(self, params: dict[str, Any]) -> Reply:
        try:
            wire = validate_list_params(params)
        except InvalidParameter as exc:
            return _error(483, "icos", str(exc))
        page = wire.pop("page", 1)
        matches = self.directory.query(wire)
        pages = math.ceil(len(matches) / PAGE_SIZE)
        if not matches:
            return _error(482, "icos", "no ICO matches the parameters")
        if page > pages:
            return _error(482, "icos", f"page {page} is beyond the last page, {pages}")
        chunk = matches[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
        return Reply(200, {"total_icos": str(len(matches)), "total_pages": pages,
                           "current_page": page, "error": None,
                           "data": [self.directory.summary(r.id) for r in chunk]})

    def _list_served(self) -> None:
        # every answered list request counts towards growing, whatever its answer
        with self._lock:
            self._lists += 1
            grow = self.grow_every is not None and self._lists % self.grow_every == 0
        if grow:
            self.directory.add_ico("past")

    def _profile(self, params: dict[str, Any]) -> Reply:
        raw = params.get("id")
        if raw is None or raw == "":
            return _error(484, "ico", "the required parameter id is missing")
        if isinstance(raw, bool) or not (
                isinstance(raw, int) or (isinstance(raw, str) and _INTEGER.fullmatch(raw))):
            return _error(483, "ico", f"id must be an integer, not {raw!r}")
        ico_id = int(raw)
        try:
            profile = self.directory.profile(ico_id)
        except KeyError:
            return _error(482, "ico", f"no ICO has id {ico_id}")
        self.stats.record_profile(ico_id)
        return Reply(200, {"error": None, "data": profile})


def _error(code: int, endpoint: str | None, message: str) -> Reply:
    payload: dict[str, Any] = {"error": code, "message": message}
    if endpoint == "icos":
        payload["data"] = []
    return Reply(_HTTP_STATUS.get(code, 200), payload)


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

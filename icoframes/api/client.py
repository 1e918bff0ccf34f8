"""Signed requests to the ICO directory API: one method per endpoint.

The client serialises each body once, signs those exact bytes and sends them
unchanged (spec section 5), to the configured host only (redirects are refused).
Every response passes the gate of :mod:`icoframes.api.gate` (bounded in bytes and time,
UTF-8 JSON, the shape of its endpoint) before anything trusts it. It reads the numeric
``error`` field of the body whatever the HTTP status, maps codes to :mod:`icoframes.errors`,
retries transient failures (a body cut in transit among them) with capped exponential
backoff and jitter, an answer the gate refuses (a body that is no JSON among them) once
(the item's; an error about it alone: :mod:`.blame`; whether and when a failed request is
sent again: :mod:`.attempts`), and counts, per endpoint, every attempt, the requests sent
(as the ledger books them) and those answered. Thread-safe.

The private key is used for signing only, and the user information of a ``base_url`` like
``http://user:pass@host`` only as each request's Basic auth (:mod:`icoframes.api.auth`): neither is
in a ``repr``, a log, an error message or a local of the frames a traceback with locals shows.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

import requests

from .. import readers
from ..config import Settings, check_setting, get_settings
from ..errors import APIError, ConfigError, InvalidParameter, NotFound, QuotaExceeded
from ..quoting import quoted
from ..secret import RedactedURL, Secret, redact_url
from .attempts import Attempts
from .auth import read_keys, sign, url_and_auth
from .blame import redirect_error, status_error
from .control import LoadControl, profile_item
from .counts import Budget, Counter
from .gate import (
    MAX_RESPONSE_BYTES,
    BadResponse,
    Redirected,
    Rejected,
    TooSlow,
    check_filters,
    check_list_page,
    check_profile,
    cut_short,
    decode_json,
    error_code,
    read_body,
    verdict,
)
from .params import read_ico_id, validate_list_params
from .prepared import Prepared
from .retry import (
    BROKEN_BODY,
    TRANSIENT_ERRORS,
    WAIT_STATUSES,
    RetryPolicy,
    Transient,
    broken_framing,
    never_sent,
    retry_after,
    retry_at,
    transport_reason,
)
from .transport import Deadline, GateAdapter, deadline, head_cut, missing_tls_file

__all__ = ["ENDPOINTS", "MAX_POOL_SIZE", "BadResponse", "Client", "Redirected", "RetryPolicy",
           "sign"]

log = logging.getLogger(__name__)

ENDPOINTS: dict[str, str] = {"filters": "/api/v1/filters/", "icos": "/api/v1/icos/",
                             "ico": "/api/v1/ico/"}

MAX_POOL_SIZE = 1024  #: The most connections ``pool_size`` keeps open (a typo's 10**9: refused)


class Client:
    """A thread-safe client of the three API endpoints.

    Every response passes the gate of :mod:`icoframes.api.gate` before anything
    trusts it: redirects are refused, bodies are bounded in bytes and time, read
    as UTF-8 JSON and checked for the shape of their endpoint.

    Parameters
    ----------
    base_url : str
        Service address without ``/api/v1``. User information in it
        (``http://user:pass@host``) goes as HTTP Basic auth (unless the session
        has its own ``auth``), never in a URL: ``base_url`` shows it as ``<hidden>``.
    public_key, private_key : str
        The key pair, read (stripped) and refused before any request as by ``configure``.
        The private key only signs and never shows (held as a :class:`~icoframes.secret.Secret`).
    timeout : float, default 30
        Total seconds (positive, at most a day) one request may take, from sending
        to the last byte of the body (the connect timeout is at most 5 s). A server
        trickling bytes cannot stretch it: every socket read waits only for the time left.
    pool_size : int, default 8
        Connections kept open, 1 to 1024 (:data:`MAX_POOL_SIZE`); size it to the number
        of threads sharing the client, which may be more than one loader's ``max_workers``.
    retry : RetryPolicy, optional
        How transient failures are retried.
    on_request : callable, optional
        Called with the endpoint name ("filters", "icos", "ico") each time an
        HTTP response (of any status) arrived, retries included.
    budget : Budget, optional
        The request ledger (the loaders book in their
        :class:`~icoframes.store.ledger.QuotaLedger`): ``take`` before every attempt
        (it may raise :class:`~icoframes.errors.QuotaExceeded`: the cap holds before
        sending), ``settle`` after (handed back only when it never left: :func:`never_sent`,
        or the ``control`` was halted while it waited for ``take``).
    max_response_bytes : int, default 4 MiB
        Largest body accepted (at least 1024), raw and inflated alike; larger: a failed attempt.
    session : requests.Session, optional
        A session to send with (proxies, CA bundle, headers of your own). The
        client mounts its adapter on it for ``base_url`` and never follows
        redirects. Closed by :meth:`close` only when the client made it. Without
        it, the client's own session reads the proxy variables (``HTTP_PROXY``,
        ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``) and the CA bundle
        (``REQUESTS_CA_BUNDLE``, else ``CURL_CA_BUNDLE``) of the environment once,
        here, and never reads ``.netrc``. A CA bundle or certificate file that does not
        exist (for an https ``base_url``) is a :class:`~icoframes.errors.ConfigError` here.

    Examples
    --------
    >>> from icoframes import sandbox
    >>> with sandbox.serve(n_icos=30) as sb, sb.client() as client:
    ...     page = client.list_page(status="past")
    ...     profile = client.profile(page["data"][0]["id"])
    ...     client.requests["icos"], client.sent["ico"], client.total_attempts
    (1, 1, 2)
    """

    def __init__(
        self,
        *,
        base_url: str,
        public_key: str,
        private_key: Secret | str,
        timeout: float = 30.0,
        pool_size: int = 8,
        retry: RetryPolicy | None = None,
        on_request: Callable[[str], None] | None = None,
        budget: Budget | None = None,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        session: requests.Session | None = None,
        control: LoadControl | None = None,
    ) -> None:
        # first, the key as a Secret and the address as a RedactedURL: no repr, traceback's
        # locals or pickle of the client shows either (nor a password in the address); each
        # key read as configure() reads it, before any request (a file's newline stripped)
        private_key = private_key if isinstance(private_key, Secret) else Secret(private_key)
        if isinstance(keys := read_keys(public_key, private_key), InvalidParameter):
            del public_key  # raised with no local holding the key's text
            raise keys
        public_key, private_key = keys
        # read as configure(base_url=) reads it (Client(base_url=<key>) was taken, repr shown)
        base_url = RedactedURL(check_setting("base_url", base_url))
        self.__private_key, self.base_url, self.public_key = private_key, base_url, public_key
        self.timeout = _read("timeout", readers.seconds, timeout)
        self.max_response_bytes = _read("max_response_bytes", readers.response_bytes,
                                        max_response_bytes)
        pool_size = _read("pool_size", readers.integer(1, MAX_POOL_SIZE), pool_size)
        self.retry = retry or RetryPolicy()
        self._on_request, self._budget = on_request, budget
        self.control = control if control is not None else LoadControl(per_call=True)
        self._attempts, self._sent, self._responses = (Counter(tuple(ENDPOINTS)) for _ in range(3))
        # requests never sees the user information: it is each request's auth (after the
        # fields repr reads: a refused one raises here)
        self._origin, self.__auth = url_and_auth(base_url)
        adapter = GateAdapter(pool_connections=1, pool_maxsize=max(1, pool_size), max_retries=0)
        if (missing := missing_tls_file(self._origin, session)) is not None:
            raise ConfigError(f"{missing} does not exist: no request to an https base_url "
                              "can be sent: fix the path, or unset it")
        self._own_session = session is None
        if session is None:
            session = requests.Session()
            # read once: requests re-reads proxies and CA of the environment per request (~0.6 ms)
            session.trust_env = False
            session.proxies.update(requests.utils.get_environ_proxies(self._origin))
            session.verify = (os.environ.get("REQUESTS_CA_BUNDLE")
                              or os.environ.get("CURL_CA_BUNDLE") or session.verify)
            session.mount("http://", adapter)
            session.mount("https://", adapter)
        else:  # the longest matching prefix wins: the caller's other mounts stay theirs
            session.mount(self._origin + "/", adapter)
        # the requests of the session the client made are prepared once per URL; those of
        # a caller's session, or of one a subclass put in its place, built by requests
        self._prepared = Prepared(session if self._own_session else None, self.__auth)
        self._session = session

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **kwargs: Any) -> Client:
        """Build a client from resolved settings (raises ConfigError when keys are missing)."""
        s = (settings or get_settings()).require_credentials()
        assert s.base_url and s.public_key and s.private_key  # require_credentials checked
        kwargs = {"pool_size": s.max_workers, "timeout": s.timeout,
                  "max_response_bytes": s.max_response_bytes, **kwargs}
        return cls(base_url=s.base_url, public_key=s.public_key, private_key=s.private_key,
                   **kwargs)

    def __repr__(self) -> str:
        if "_responses" not in vars(self):  # __init__ failed: a traceback's locals show self
            return "Client(<not made>)"
        return (f"Client(base_url={redact_url(self.base_url)!r}, public_key={self.public_key!r}, "
                f"requests={self.total_requests})")

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close pooled connections (and the session, when the client made it)."""
        self._prepared.close()  # (the pools it sends through: the session's close leaves them)
        own = self._session if self._own_session else self._session.get_adapter(self._origin + "/")
        own.close()

    @property
    def requests(self) -> dict[str, int]:
        """Requests answered per endpoint (an HTTP response came back), retries included;
        :attr:`sent` adds those sent and not answered, :attr:`attempts` every try."""
        return self._responses.snapshot()

    @property
    def total_requests(self) -> int:
        """Sum of :attr:`requests`."""
        return sum(self._responses.snapshot().values())

    @property
    def sent(self) -> dict[str, int]:
        """Requests that left per endpoint, answered or not, retries included: as booked."""
        return self._sent.snapshot()

    @property
    def attempts(self) -> dict[str, int]:
        """Every try per endpoint, including those that never got a response."""
        return self._attempts.snapshot()

    @property
    def total_attempts(self) -> int:
        """Sum of :attr:`attempts`."""
        return sum(self._attempts.snapshot().values())

    # -- endpoints ---------------------------------------------------------

    def filters(self) -> dict[str, Any]:
        """The filter set of spec 2.1 (keys platform, category, type, location)."""
        return self._call("filters", {}, check_filters)

    def list_page(self, page: int = 1, **params: Any) -> dict[str, Any]:
        """One page (at most 20 summaries) of the list operation, spec 4.2.

        Parameters are checked first (a bad one costs no request); error 482 is an empty page:
        ``{"total_icos": 0, "total_pages": 0, "current_page": page, "error": 482, "data": []}``.

        Raises
        ------
        InvalidParameter
            A parameter is not allowed by spec 4.2 (raised before sending).
        BadResponse
            Two answers (:data:`~icoframes.api.retry.ANSWERS_REFUSED`) were pages that
            failed the gate: ``data`` not a list, ``total_pages`` not a count, above 10,000
            or off ``total_icos``, not the page asked, or an empty page 1 without error 482.
        """
        return self.list_wire(validate_list_params({**params, "page": page}), by_count=False)

    def list_wire(self, body: Mapping[str, Any], *, by_count: bool = True) -> dict[str, Any]:
        """:meth:`list_page` of wire parameters (``validate_list_params``'s), not checked again,
        for a load's paging: ``by_count`` as :func:`~icoframes.api.gate.check_list_page`."""
        page = body["page"]
        try:
            return self._call("icos", body, lambda d: check_list_page(d, page, by_count=by_count))
        except NotFound:
            return dict(total_icos=0, total_pages=0, current_page=page, error=482, data=[])

    def profile(self, ico_id: int) -> dict[str, Any]:
        """The full profile (spec 2.3) of one ICO, as decoded JSON.

        Raises
        ------
        NotFound
            No ICO has this id (error 482).
        InvalidParameter
            ``ico_id`` is not a whole number from 1 to 2**63 - 1 (raised before sending).
        BadResponse
            Two answers (:data:`~icoframes.api.retry.ANSWERS_REFUSED`) held no profile of
            this id (no JSON, ``data`` missing, null, not an object, another ICO's, the id alone).
        """
        # one rule with a list's ids: ASCII digits as text ("٣": did you mean 3?), no bool,
        # at most an int64 (the id column's; 10**5000 was a bare ValueError of json)
        ico_id = read_ico_id(ico_id)
        try:
            return self._call("ico", {"id": ico_id}, lambda d: check_profile(d, ico_id))["data"]
        except NotFound as exc:
            raise NotFound(f"no ICO has id {ico_id} (error 482)", code=482,
                           endpoint=exc.endpoint) from None

    def _call(self, endpoint: str, payload: Mapping[str, Any],
              check: Callable[[dict[str, Any]], Any] = lambda decoded: None) -> dict[str, Any]:
        # Serialise once: the signature covers exactly these bytes.
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        headers = {
            "Content-Type": "application/json",
            "Accept-Encoding": "gzip, deflate",  # the encodings the gate can bound
            "X-Service-Public-Key": self.public_key,
            "X-Service-Access-Key": sign(body, self.__private_key),
        }
        path = ENDPOINTS[endpoint]
        # the item is the request (its retries are one item's), a profile named by its id
        item = profile_item(payload.get("id")) if endpoint == "ico" else (endpoint, body)
        url = self._origin + path
        with Attempts(self.retry, self.control, item, path, service=self._origin) as attempts:
            while True:
                attempts.begin()  # a stopped load sends nothing more
                try:
                    result = self._send_once(endpoint, url, body, headers, check)
                except APIError as exc:  # an answer that means something; a redirect, a wrong one
                    if isinstance(exc, Redirected):
                        self.control.refused(exc.reason, item=item)
                    else:
                        self.control.succeeded(item)
                    raise
                except Transient as exc:  # used after the handler: what is raised for it has
                    failure = exc  # no __context__ (a transport error's frames, its request)
                else:
                    self.control.succeeded(item)
                    return result
                delay = attempts.after(failure)  # the breaker told; raises when no retry follows
                log.info("%s: %s; retry %d in %.2f s", path, failure, attempts.count, delay)
                self.control.sleep(delay)  # raises Cancelled when the load stops meanwhile

    def _why(self, exc: BaseException | None, limit: Deadline) -> str:
        """A transport failure's short cause; the deadline's when the watchdog cut it."""
        if limit.expired or exc is None:
            return f"timed out: no whole response within the {self.timeout:g} s deadline"
        return head_cut(exc) or transport_reason(exc)  # (a head cut is no reset)

    def _send_once(self, endpoint: str, url: str, body: bytes, headers: dict[str, str],
                   check: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
        path = ENDPOINTS[endpoint]
        if self._budget is not None:
            self._budget.take(endpoint)  # QuotaExceeded here: nothing was sent
        outcome: str | int | None = "not_sent"  # until it leaves: then it may count
        try:  # (deadline: Cancelled when the load stopped while it waited for its booking)
            with deadline(self.timeout, self.control) as limit:
                self._attempts.add(endpoint)
                outcome = "no_answer"  # sent (maybe counted) unless it never left
                timeout = (min(5.0, self.timeout), self.timeout)
                # each failure is made in its handler, raised after it: raised in it, it would
                # keep the error it replaces as its __context__ (``from None`` only hides it),
                # http.client's frames holding the request's bytes, its Basic auth among them
                lost: Exception | None = None
                try:
                    response = self._prepared.post(self._session, url, body, headers,
                                                   timeout=timeout)
                except TRANSIENT_ERRORS as exc:
                    outcome = "not_sent" if never_sent(exc) else outcome
                    lost = Transient(self._why(exc, limit), sent=outcome != "not_sent")
                except (requests.RequestException, OSError) as exc:  # a bad URL, header or
                    # TLS file (a bare OSError of requests, set after init): never sent,
                    if (framing := broken_framing(exc)) is not None:  # unless it is about
                        lost = Transient(framing)  # the answer: sent, its failure retried
                    else:
                        outcome = "not_sent"
                        lost = APIError(f"{path}: the request could not be sent "
                                        f"({type(exc).__name__}: {exc})", endpoint=path)
                if lost is not None:
                    raise lost
                if limit.expired:  # cut while the status line and headers trickled in
                    response.close()
                    raise Transient(self._why(None, limit))
                # it reached the service: from here on it counts against the quota
                self._responses.add(endpoint)
                if self._on_request is not None:
                    self._on_request(endpoint)
                status = response.status_code
                raw_body: bytes | None = None
                try:
                    if 300 <= status < 400:
                        raise redirect_error(status, response.headers.get("Location"), path,
                                             redact_url(self.base_url))
                    try:
                        raw_body = read_body(response.raw, limit=self.max_response_bytes,
                                             until=limit.until)
                    except Rejected as exc:  # too large, an encoding unread: the item's
                        lost = Transient(f"HTTP {status}: {exc}", rejected=True,  # content
                                         answered=not isinstance(exc, TooSlow) and status < 500)
                    except BROKEN_BODY as exc:
                        lost = Transient(f"HTTP {status}: {self._why(exc, limit)} while "
                                          "reading the body")
                finally:
                    if raw_body is not None:
                        response.raw.release_conn()  # read to the end: reusable
                    else:
                        response.close()  # unread bytes would poison the next request
                if lost is not None:
                    raise lost
            decoded, refusal = verdict(decode_json, raw_body)
            code, malformed = verdict(error_code, decoded)
            if isinstance(decoded, dict) and (status < 500 or code is not None) and (
                    malformed is None):
                outcome = code  # the service's own answer
            elif status in WAIT_STATUSES and "Retry-After" in response.headers:
                outcome = "asked_wait"  # no code, but the service is up: it asks to wait
        finally:
            if outcome == "no_answer" and time.monotonic() >= limit.until:
                outcome = "timed_out"  # its whole timeout waited (a probe so ends the call)
            if outcome != "not_sent":
                self._sent.add(endpoint)
            if self._budget is not None:
                self._budget.settle(endpoint, outcome)
        failed = status_error(endpoint, path, status, code, decoded, malformed)
        if failed is not None:  # an error code or status: the service's, the key's, the item's
            if status in WAIT_STATUSES:  # busy, or out of quota: how long it asks to wait
                wait = retry_after(response.headers.get("Retry-After"))
                if isinstance(failed, Transient):
                    failed.retry_after, failed.limited = wait, status == 429
                elif isinstance(failed, QuotaExceeded) and wait is not None:
                    failed.retry_at = retry_at(wait)
            raise failed
        if refusal is not None:  # no JSON: the item's answer, unless it stops inside one (cut
            cut = cut_short(raw_body)  # in transit: retried; the same cut again: .attempts)
            lost = Transient(f"HTTP {status}: {refusal}", rejected=True, answered=not cut)
            lost.cut = raw_body if cut else None
            raise lost
        if not isinstance(decoded, dict):  # JSON, whole, not an object: answered wrongly
            raise Transient(f"HTTP {status}: the body is {type(decoded).__name__}, not a JSON "
                             "object", rejected=True, answered=True)
        # a JSON object answered with no error: the service is up, the answer is this item's
        refusal = verdict(check, decoded)[1]
        if refusal is not None:
            lost = Transient(f"HTTP {status}: {refusal}", rejected=True, answered=True)
            lost.enveloped = 200 <= status < 300 and {"error", "data"} <= decoded.keys()
            raise lost
        return decoded


def _read(name: str, read: Callable[[Any], Any], value: Any) -> Any:
    """``value`` of ``name`` as its setting reads it (timeout as ``configure(timeout=)``), else
    InvalidParameter before any request, the value quoted bounded (never if a key)."""
    try:
        return read(value)
    except (TypeError, ValueError) as exc:
        raise InvalidParameter(f"invalid {name}={quoted(value, keys=True)}: {exc}") from None

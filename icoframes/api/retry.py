"""What is worth another try, how long to wait, and a short name for a transport failure."""

from __future__ import annotations

import datetime as dt
import email.utils
import random
import time
from dataclasses import dataclass

import requests
import urllib3

from ..numerals import DIGITS, number_core

__all__ = ["ANSWERS_REFUSED", "BROKEN_BODY", "TRANSIENT_ERRORS", "WAIT_STATUSES", "RetryPolicy",
           "Transient", "broken_framing", "never_sent", "retry_after", "retry_at",
           "transport_reason"]

# Failures of the connection or of the response in transit: worth another try.
TRANSIENT_ERRORS = (
    requests.ConnectionError,
    requests.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
)

# The body broke off or timed out while streamed (urllib3 errors surface unwrapped there).
BROKEN_BODY = (urllib3.exceptions.HTTPError, requests.RequestException, OSError)


#: Answers of one request the gate refuses though the service answered it (another ICO's
#: profile, ``"data": null``, a body that is no JSON or too large) before it fails as a
#: :class:`BadResponse`: the item's failure, not the service's, so that a profile always
#: answered wrong costs two requests in its first load, not a retry policy's six, then one a
#: load (its failure again; one too while other items are answered wrongly:
#: :meth:`~icoframes.api.control.LoadControl.refused`).
ANSWERS_REFUSED = 2


class Transient(Exception):
    """A failure worth retrying; carries a short reason and whether the gate refused it."""

    def __init__(self, reason: str, *, rejected: bool = False, sent: bool = True,
                 answered: bool = False, final: bool = False, code: int | None = None):
        super().__init__(reason)
        # sent False: it never reached the service (refused, no connection); answered: the
        # service answered this item wrongly (the gate refused a whole body under 500, or an
        # error about the item: final, with its code; never asked again)
        self.rejected, self.sent, self.answered = rejected, sent, answered
        self.final, self.code = final, code
        self.retry_after: float | None = None  # seconds the service asked to wait (a header)
        self.limited = False  # a 429 (too many requests): its asked wait spends no attempt
        self.cut: bytes | None = None  # a body that stops inside a JSON text: its bytes
        # the service's envelope ({"error": null, "data": ...}, 2xx) around a wrong item: its
        # own answer about that item, not a proxy's or a portal's (LoadControl's probes)
        self.enveloped = False


@dataclass(frozen=True)
class RetryPolicy:
    """How transient failures are retried.

    A failure is transient when the connection fails or times out, or the HTTP
    status is 5xx or 429 without an error code of the spec's (480-485: a code of
    the service's own, ``{"error": 429}``, is no more than its status). A whole answer under 500
    the gate refuses (no JSON object, too large, one that fails the checks of its
    endpoint) is asked :data:`ANSWERS_REFUSED` times at most: the item's failure. Waits grow as
    ``backoff * 2**n`` capped at ``max_backoff``, each
    multiplied by a random factor in [0.5, 1] so that concurrent workers do not
    retry in lockstep; a 429 or 503 carrying ``Retry-After`` (:func:`retry_after`) waits
    at least what it asks, up to ``max_asked_wait`` seconds: a longer ask ends the
    request's retries at once, said in its error (a service that asks every request to
    wait a minute is down for this load: the breaker then stops it within its count of
    requests, not after each request waited). Retrying stops after ``max_attempts``
    tries or once the next wait would pass ``max_elapsed`` seconds since the first try; a
    429 whose ``Retry-After`` was honoured is no try of the item's (a rate limiter's turn:
    one refusing requests again and again spent their attempts, the rows lost), so under a
    rate limiter ``max_elapsed`` bounds the retries; ``max_attempts`` such turns in a row at
    most while no other request is answered (an id a limiter always refuses).
    """

    max_attempts: int = 6
    backoff: float = 0.2
    max_backoff: float = 5.0
    max_elapsed: float = 60.0
    max_asked_wait: float = 5.0

    def wait(self, retry_number: int) -> float:
        # (the exponent bounded: a rate limiter's turns, no attempts, may number thousands
        # under a tiny backoff, and 2.0**1100 is no float: OverflowError)
        cap = min(self.max_backoff, self.backoff * 2 ** min(retry_number, 64))
        return cap * random.uniform(0.5, 1.0)


#: The statuses whose ``Retry-After`` is read (RFC 9110 section 10.2.3, RFC 6585 section 4).
WAIT_STATUSES = frozenset({429, 503})


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """The seconds a ``Retry-After`` header ``value`` asks to wait: a number of seconds or an
    HTTP date (against ``now``, a :func:`time.time` value, this clock's by default; a date
    past: 0); None when absent or unreadable (the retry policy's wait then).

    Examples
    --------
    >>> retry_after("120"), retry_after(" 0 "), retry_after("soon"), retry_after("-5")
    (120.0, 0.0, None, None)
    >>> retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0)
    10.0
    """
    digits = number_core(value, DIGITS)  # ASCII digits (int() reads "٣" and "1_0" too)
    if digits is not None:
        return float(int(digits)) if len(digits) <= 12 else 1e12  # (ages, not a 4,300-digit int)
    text = (value or "").strip()
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000": UTC, the date's own zone unknown (RFC 5322)
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def retry_at(wait: float) -> dt.datetime | None:
    """When a wait of ``wait`` seconds asked now ends (UTC); None past the year 9999."""
    try:
        return dt.datetime.fromtimestamp(time.time() + wait, dt.UTC)
    except (OverflowError, OSError, ValueError):
        return None


def transport_reason(exc: BaseException) -> str:
    """A short cause for the log and the final error ("connection refused", "timed out")."""
    text = str(exc).lower()
    if isinstance(exc, requests.Timeout | urllib3.exceptions.TimeoutError) or "timed out" in text:
        return "timed out"
    if "refused" in text:
        return "connection refused"
    return type(exc).__name__


def broken_framing(exc: BaseException) -> str | None:
    """What a failure that is urllib3's refusal of an answer's framing says (two different
    ``Content-Length`` values: which body is the answer is unknown, RFC 9112 section 6.3),
    else None. ``requests`` raises it as an ``InvalidHeader``, as it raises a header of the
    request it refused (never sent): this one came with the answer, so the request was sent."""
    cause = exc.args[0] if exc.args else None
    if isinstance(exc, requests.exceptions.InvalidHeader) and isinstance(
            cause, urllib3.exceptions.InvalidHeader):
        return f"the answer's framing is broken: {cause}"
    return None


def never_sent(exc: BaseException) -> bool:
    """Whether a transport failure happened before the request could leave: the connection
    was refused, timed out or the name did not resolve. Anything later (a reset, a read
    timeout, a cut by Ctrl-C) may have reached the service, which then counted it."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    seen: object = exc
    for _ in range(6):  # requests wraps urllib3's MaxRetryError, which wraps the cause
        if isinstance(seen, urllib3.exceptions.NewConnectionError):
            return True
        if not isinstance(seen, BaseException):
            return False
        seen = getattr(seen, "reason", None) or (seen.args[0] if seen.args else None)
    return False

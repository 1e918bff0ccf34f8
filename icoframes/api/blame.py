"""Whose failure an error answer is: the request's own (one profile, one list page), or the
key's and the service's, which stops a load.

"Never trust a response; a bad item is that item's failure": a profile answered HTTP 404
without an error code, ``{"error": 999}``, an error field that is no code (``{"error": "Out
of API limits"}``: spec 7's codes are numbers) or ``{"error": 483}`` (its id is an integer the
client checked: nothing in it can be invalid) is that profile's failure, reported and
retried by a later load, as a list page answered so is that page's; one of them stopped
every load before (and the cache grew by a few profiles per load, forever). Such answers
count toward the breaker on the scale of wrong answers
(:meth:`~icoframes.api.control.LoadControl.refused`): every item answered so is a service
that is down.

What concerns every request of the key stops a load, per spec section 7: 480 (the keys),
481 (no such method: a wrong ``base_url``), 485 (the daily limit); 482 is an answer (no
such ICO, an empty list); 483 and 484 for a list are about the query's parameters, the
same on every page (the user's to change).
"""

from __future__ import annotations

from typing import Any

from ..errors import APIError, Redirected, error_for_code
from .retry import Transient

__all__ = ["FINAL_CODES", "KEY_CODES", "items_own", "redirect_error", "status_error",
           "with_detail"]

#: Codes that describe the request itself: sending it again cannot help.
FINAL_CODES = frozenset({480, 481, 482, 483, 484, 485})

#: Codes about the key or the service, whatever the request: they stop a load.
KEY_CODES = frozenset({480, 481, 485})

# the endpoints whose requests are the items of a load (the filter set is one request)
_ITEMS = frozenset({"ico", "icos"})


def items_own(endpoint: str, code: int | None) -> bool:
    """Whether an error answer (``code``; None: an HTTP 4xx without one) to a request of
    ``endpoint`` ("filters", "icos", "ico") is that request's own failure.

    Examples
    --------
    >>> [items_own("ico", c) for c in (None, 483, 484, 999, 480, 481, 482, 485)]
    [True, True, True, True, False, False, False, False]
    >>> items_own("icos", 483), items_own("icos", 999), items_own("filters", None)
    (False, True, False)
    """
    if endpoint not in _ITEMS or code in KEY_CODES or code == 482:
        return False
    return not (endpoint == "icos" and code in (483, 484))


def status_error(endpoint: str, path: str, status: int, code: int | None,
                 decoded: Any, malformed: str | None = None) -> Exception | None:
    """What an answer of HTTP ``status`` with error ``code`` (None: none) to a request of
    ``endpoint`` (at ``path``) raises; None when neither says it failed.

    A 5xx or a 429 (too many requests) is the service's, with no code or one that is not
    spec 7's (:class:`~icoframes.api.retry.Transient`: retried under the retry policy); an
    error about the request alone (:func:`items_own`) is the item's (a final Transient,
    answered: its failure, counted as a wrong answer); any other code or 4xx is raised as
    its :class:`~icoframes.errors.APIError`. ``malformed``: why the ``error`` field is no
    code (``"Out of API limits"``), an error the spec does not define, as an unknown code is.
    """
    # a rate limiter's or a proxy's code of its own ({"error": 429}) says no more than its
    # status: the same 429 as HTML was retried, with the code it was the item's failure
    busy = status >= 500 or status == 429
    if malformed is not None:  # spec 7: the codes are numbers; text says it failed, no more
        if busy:  # (nothing is read into it, 485's condition text neither: a guess)
            return Transient(f"HTTP {status}: {malformed}")
        if items_own(endpoint, None):
            return Transient(f"HTTP {status}: {malformed}", rejected=True, answered=True,
                             final=True)
        return APIError(f"{path}: HTTP {status}: {malformed}", endpoint=path)
    if code is not None:
        if code not in FINAL_CODES and busy:
            return Transient(f"HTTP {status} with error {code}")
        error = with_detail(error_for_code(code, endpoint=path), decoded)  # (a dict: a code)
        if items_own(endpoint, code):
            return Transient(f"HTTP {status}: {str(error).removeprefix(f'{path}: ')}",
                             rejected=True, answered=True, final=True, code=code)
        return error
    if busy:
        return Transient(f"HTTP {status}")
    if status >= 400:
        if items_own(endpoint, None):
            return Transient(f"HTTP {status} without an error code", rejected=True,
                             answered=True, final=True)
        return APIError(f"{path}: HTTP {status} without an error code", endpoint=path)
    return None


def redirect_error(status: int, location: str | None, endpoint: str, base_url: str) -> Redirected:
    """The error for a 3xx answer: it names the status and where it pointed."""
    where = repr(location[:200]) if location else "no Location"
    return Redirected(
        f"{endpoint}: the service answered HTTP {status} redirecting to {where}; redirects "
        f"are not followed (the signed headers go to {base_url} only). Check base_url.",
        endpoint=endpoint, reason=f"HTTP {status} redirect")


def with_detail(error: APIError, decoded: dict[str, Any]) -> APIError:
    """``error`` with the service's own ``message``: at most 300 characters, each one that
    does not print (a newline, an ANSI escape) written as an escape, so that a service
    cannot forge a line of a cron job's log; left out when it only repeats ``error``."""
    message = decoded.get("message")
    if not isinstance(message, str) or not message.strip() or (
            message.strip().casefold() in str(error).casefold()):
        return error
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message[:300])
    return type(error)(f"{error} ({shown})", code=error.code, endpoint=error.endpoint)

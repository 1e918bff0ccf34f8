"""The response gate: nothing the service sends is trusted before it passes here.

Three layers, in the order a response meets them:

1. **Transport bounds** (:mod:`icoframes.api.transport`). Every request has a
   total deadline: a watchdog thread shuts down the socket of a request still
   running at its deadline, so a server trickling its headers or body one byte
   at a time fails at the deadline instead of resetting a per-read timer forever.
2. **Body bounds.** :func:`read_body` streams the body with a cap on raw bytes
   and, for ``gzip``/``deflate``, lets urllib3 inflate it in bounded steps
   under the same cap on inflated bytes, so neither a huge body nor a
   compression bomb can exhaust memory.
3. **Content checks.** :func:`decode_json` reads the body as UTF-8 whatever the
   ``Content-Type`` says and rejects malformed text, unparseable JSON and
   pathologically nested JSON; :func:`error_code`, :func:`check_profile`,
   :func:`check_list_page` and :func:`check_filters` check the shape of the
   decoded body.

Every check raises :class:`Rejected` with a short reason; the client counts such
an attempt as failed and, when its retries run out, raises :class:`BadResponse`.
A body cut in transit (it stops inside a JSON text: :func:`cut_short`) is retried
within the retry policy (a failure toward the load's breaker); one whose ``error``
field is no code (``"Out of API limits"``) is an error the spec does not define, as
an unknown code is (:mod:`~icoframes.api.blame`); a whole answer that is no JSON (a
proxy's page, binary bytes) or fails the checks of its endpoint (another ICO's profile,
its id alone, ``"data": null``, a filter set without its lists, a JSON array, a body too
large: :class:`TooLarge`) shows the service up and the item bad: asked once more at most
(:data:`~icoframes.api.retry.ANSWERS_REFUSED`), counted toward the breaker on the scale
of wrong answers only (:meth:`~icoframes.api.control.LoadControl.refused`).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from urllib3.exceptions import DecodeError

from ..errors import BadResponse, Redirected
from ..numerals import DIGITS, number_core
from ..schema import PROFILE_SECTIONS
from .params import FILTER_KEYS, PAGE_SIZE
from .text import loads_text

__all__ = ["EMPTY_SECTION", "MAX_DEPTH", "MAX_PAGES", "MAX_RESPONSE_BYTES", "PAGE_SIZE",
           "BadResponse", "Redirected", "Rejected", "TooLarge", "TooSlow", "check_filters",
           "check_list_page", "check_profile", "cut_short", "decode_json", "error_code",
           "holds_a_section", "list_counts", "read_body", "verdict"]

log = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 4 * 1024 * 1024
"""Default cap on a response body, raw and inflated alike (bytes); profiles are a few KiB."""

MAX_PAGES = 10_000
"""Hard cap on ``total_pages``: 200,000 ICOs, far above any real directory."""

MAX_DEPTH = 32
"""Deepest JSON nesting accepted; a profile nests 4 levels (data > team > member > social)."""

_CHUNK = 64 * 1024

#: What a section holds when it holds nothing (the spec's samples write an empty one as "").
EMPTY_SECTION: tuple[Any, ...] = (None, "", [], {})


# -- errors ---------------------------------------------------------------------
# TODO(errors.py): both classes belong in icoframes/errors.py with the others.


class Rejected(Exception):
    """One response failed a check of the gate; the message is the reason."""


class TooLarge(Rejected):
    """The body is (or inflates to, or announces) more bytes than accepted: the item's
    content, not a failure in transit (a cut body is shorter), so asked again at most once."""


class TooSlow(Rejected):
    """The body did not arrive within the request's deadline: a failure in transit, retried
    (every other refusal of :func:`read_body` is of the answer's own bytes: its size or its
    ``Content-Encoding``, unknown or corrupt, so asked again at most once)."""


# -- body -----------------------------------------------------------------------


def read_body(raw: Any, *, limit: int, until: float) -> bytes:
    """The body of a streamed urllib3 response, bounded in bytes and time.

    urllib3 (2.6 and later) inflates ``gzip`` and ``deflate`` bodies in bounded
    steps: each chunk streamed holds at most ``_CHUNK`` inflated bytes, so a
    compression bomb is cut at ``limit`` having held about ``limit`` bytes.

    Parameters
    ----------
    raw : urllib3.response.HTTPResponse
        ``requests.Response.raw`` of a request sent with ``stream=True``.
    limit : int
        Most bytes accepted, raw and (for gzip or deflate) inflated alike.
    until : float
        The request's deadline, a :func:`time.monotonic` value.

    Raises
    ------
    Rejected
        Too large (:class:`TooLarge`), too slow (:class:`TooSlow`), an unknown or broken
        ``Content-Encoding``.
    """
    encoding = (raw.headers.get("Content-Encoding") or "identity").strip().lower()
    if encoding not in ("identity", "gzip", "deflate"):
        raise Rejected(f"unsupported Content-Encoding {encoding[:40]!r}")
    # ASCII digits, read as every number is (numerals.number_core): "²" (Latin-1, so a
    # header may hold it) is str.isdigit() but no number, "\x1c80" is 80; a length written
    # otherwise announces nothing (the body read is bounded all the same). Compared by its
    # digits first: int() refuses more than 4,300 of them (a ValueError, no refusal).
    digits = (number_core(raw.headers.get("Content-Length"), DIGITS) or "").lstrip("0")
    if len(digits) > len(str(limit)) or (digits and int(digits) > limit):
        shown = digits if len(digits) <= 20 else f"a {len(digits)}-digit number of"
        raise TooLarge(f"the body announces {shown} bytes, more than the {limit} "
                       "bytes accepted")
    parts: list[bytes] = []
    size = 0
    try:
        for chunk in raw.stream(_CHUNK, decode_content=True):
            size += len(chunk)
            if (size if encoding == "identity" else raw.tell()) > limit:  # off the wire
                raise TooLarge(f"the body is larger than the {limit} bytes accepted")
            if size > limit:
                raise TooLarge(f"the {encoding} body inflates past {limit} bytes")
            parts.append(chunk)
            if time.monotonic() > until:
                raise TooSlow("the response did not complete within the request deadline")
    except DecodeError as exc:
        raise Rejected(f"the {encoding} body is corrupt ({exc})") from None
    return b"".join(parts)


# -- content --------------------------------------------------------------------


def decode_json(body: bytes) -> Any:
    """Decode a body as UTF-8 JSON, whatever its ``Content-Type`` claims.

    Examples
    --------
    >>> decode_json('{"name": "Zürich Café"}'.encode())
    {'name': 'Zürich Café'}
    >>> decode_json(b"[" * 100_000)
    Traceback (most recent call last):
    ...
    icoframes.api.gate.Rejected: the body is not JSON: nested too deeply to parse
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Rejected(f"the body is not valid UTF-8 (byte {exc.start})") from None
    try:
        value = loads_text(text.removeprefix("\ufeff"), parse_constant=_no_constant)
    except RecursionError:
        raise Rejected("the body is not JSON: nested too deeply to parse") from None
    except ValueError as exc:
        raise Rejected(f"the body is not JSON ({_cut(str(exc), 80)})") from None
    _check_depth(value)
    return value


# what a JSON text cut inside a number or a literal (true, false, null) ends with
_FRAGMENT = re.compile(r"[-+.eE0-9]+|t|tr|tru|f|fa|fal|fals|n|nu|nul")


def cut_short(body: bytes | None) -> bool:
    """Whether ``body``, which :func:`decode_json` refused, stops inside a JSON text: more
    bytes could have made it whole, so it may be a cut in transit (a body that broke off
    mid-read fails before, in :func:`read_body`; this one ended where its framing said, so
    cut upstream, as the sandbox's faults are). An HTML page, binary bytes, text that is not
    UTF-8, JSON with more after it: no byte added would mend them, the answer itself.

    Examples
    --------
    >>> cut_short(b'{"error":null,"data":{"id":7,"main":{"na'), cut_short(b"<html>")
    (True, False)
    """
    if body is None:  # (no body read)
        return False
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:  # a character cut at the end: the text before it
        if exc.reason != "unexpected end of data" or exc.end != len(body):
            return False
        text = body[:exc.start].decode("utf-8")
    text = text.removeprefix("\ufeff").rstrip()
    try:
        loads_text(text)  # (as decode_json reads it: a long integer must not end the read)
    except json.JSONDecodeError as exc:
        if exc.msg.startswith("Unterminated string"):  # (json says so only at the end)
            return True
        rest = text[exc.pos:]
        return bool(text) and (not rest or _FRAGMENT.fullmatch(rest) is not None)
    except (ValueError, RecursionError):
        return False
    return False  # whole JSON: refused for something else (depth, a constant)


def _cut(text: str, most: int) -> str:
    """``text`` up to ``most`` characters, cut after a whole word ("..." saying so)."""
    return text if len(text) <= most else text[:most - 3].rsplit(" ", 1)[0] + "..."


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _check_depth(value: Any) -> None:
    # breadth-first, without recursion: a deep value that json could still parse must
    # not crash a recursive consumer later (json.dumps when caching, the parser).
    # Exact type checks: json.loads makes plain dicts and lists, and they are 3x faster.
    level = [value] if type(value) in _CONTAINERS else []
    depth = 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            raise Rejected(f"the JSON nests deeper than {MAX_DEPTH} levels")
        below: list[Any] = []
        push = below.append
        for item in level:
            for child in item.values() if type(item) is dict else item:
                if type(child) in _CONTAINERS:
                    push(child)
        level = below


_CONTAINERS = (dict, list)


def _shown(value: Any) -> str:
    """A JSON value as the service sent it, short: text quoted, null and true as JSON says."""
    if isinstance(value, str):
        return repr(value[:40])
    try:
        return json.dumps(value)[:40]
    except (TypeError, ValueError):  # an int past Python's digit limit
        return type(value).__name__


def _count(value: Any) -> int | None:
    """A non-negative integer count sent as a number or as a digit string; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    core = number_core(value, DIGITS)  # the parser's reading of the same text
    return int(core) if core is not None and len(core) <= 12 else None


def error_code(decoded: Any) -> int | None:
    """The ``error`` field as an int, None on success; :class:`Rejected` when malformed.

    ``error`` must be null (or absent, empty, zero) or an integral code, as a
    number or a digit string. Anything else ("Out of API limits", an object)
    is not a success: an error the spec does not define (the client reads it as an
    unknown code: :func:`~icoframes.api.blame.status_error`).

    Examples
    --------
    >>> error_code({"error": None}), error_code({"error": "485"}), error_code({"error": 482})
    (None, 485, 482)
    >>> error_code({"error": "Out of API limits"})
    Traceback (most recent call last):
    ...
    icoframes.api.gate.Rejected: the error field is 'Out of API limits' (str), not a code
    """
    if not isinstance(decoded, Mapping):
        return None
    raw = decoded.get("error")
    if raw is None or raw == "":
        return None
    code = _count(raw)
    if code is None:
        shown = repr(raw) if isinstance(raw, str | int | float) else "an object"
        raise Rejected(f"the error field is {shown[:60]} ({type(raw).__name__}), not a code")
    return code or None


def holds_a_section(data: Mapping[str, Any]) -> bool:
    """Whether a profile's ``data`` holds something of one of its :data:`PROFILE_SECTIONS`
    (a section sent empty, ``""``, ``[]``, ``{}`` or ``null``, holds nothing): one that does
    not is no profile (:func:`check_profile`), nor is such a copy an earlier version kept.

    >>> holds_a_section({"id": 5, "main": None, "team": ""})
    False
    >>> holds_a_section({"id": 5, "links": {"url": "u"}})
    True
    """
    return any(data.get(name) not in EMPTY_SECTION for name in PROFILE_SECTIONS)


def check_profile(decoded: Mapping[str, Any], ico_id: int) -> dict[str, Any]:
    """The ``data`` of a profile response; :class:`Rejected` unless it is the asked id's and
    holds something of at least one of its :data:`PROFILE_SECTIONS` (the id alone is no
    profile: the item's failure, its kept copy untouched; one section absent is a row of
    ``problems``, :func:`icoframes.parse.sections.absent_sections`).

    Examples
    --------
    >>> check_profile({"error": None, "data": {"id": 5}}, 6)
    Traceback (most recent call last):
    ...
    icoframes.api.gate.Rejected: data.id is 5, not the 6 requested
    >>> check_profile({"error": None, "data": {"id": 5, "main": None}}, 5)
    Traceback (most recent call last):
    ...
    icoframes.api.gate.Rejected: the profile data for id 5 holds none of its sections ...
    """
    data = decoded.get("data")
    if not isinstance(data, dict):
        what = "missing" if "data" not in decoded else f"{type(data).__name__}, not an object"
        raise Rejected(f"the profile data for id {ico_id} is {what}")
    got = data.get("id")
    if _count(got) != ico_id:
        raise Rejected(f"data.id is {_shown(got) if 'id' in data else 'missing'}, not the "
                       f"{ico_id} requested")
    if not holds_a_section(data):
        # an answer that is the id alone (a service under maintenance, a half-built response,
        # a proxy) would be kept as a profile of blanks, replacing a full copy: no profile
        raise Rejected(f"the profile data for id {ico_id} holds none of its sections "
                       f"({', '.join(PROFILE_SECTIONS)}): no profile")
    return data


def check_list_page(decoded: Mapping[str, Any], page: int, *, by_count: bool = False) -> None:
    """Check a list page: ``data`` a list, counts consistent and bounded, the page asked for;
    not an empty page 1 without error 482. ``by_count``: a ``total_pages`` that is no count,
    above :data:`MAX_PAGES` or off ``total_icos`` is not refused (:func:`list_counts` pages by
    ``total_icos``, a caller's own paging bounded by its count: the load's), unless the pages
    of ``total_icos`` are above :data:`MAX_PAGES` too.

    Examples
    --------
    >>> check_list_page({"total_icos": "41", "total_pages": 3, "current_page": 1,
    ...                  "error": None, "data": []}, 1)
    >>> check_list_page({"total_icos": "41", "total_pages": "1e9", "data": []}, 1)
    Traceback (most recent call last):
    ...
    icoframes.api.gate.Rejected: total_pages is '1e9', not a non-negative integer
    >>> check_list_page({"total_icos": "41", "total_pages": "1e9", "data": []}, 1, by_count=True)
    >>> check_list_page({"total_icos": 0, "total_pages": 0, "error": None, "data": []}, 1)
    Traceback (most recent call last):
    ...
    icoframes.api.gate.Rejected: page 1 is empty with no error, which the spec never answers: ...
    """
    data = decoded.get("data")
    if not isinstance(data, list):
        raise Rejected(f"the list data is {type(data).__name__ if 'data' in decoded else 'missing'}"
                       ", not a list")
    icos = _count(decoded.get("total_icos"))
    unread = _pages_unread(decoded, icos)
    if unread is not None and (not by_count or icos is None or _pages_of(icos) > MAX_PAGES):
        raise Rejected(unread)
    current = decoded.get("current_page")
    if current is not None and _count(current) != page:
        raise Rejected(f"current_page is {_shown(current)}, not the page {page} requested")
    if page == 1 and not data and not icos:  # (error 482 is raised before this check)
        # a glitch taken as "nothing matches" would write a complete empty day, every
        # ICO of the day before then removed
        raise Rejected("page 1 is empty with no error, which the spec never answers: no ICO "
                       "matching is error 482 (section 4.2)")
    odd = sum(not isinstance(item, dict) for item in data)
    if odd:  # left for the parser to count as problems; said here too
        log.warning("list page %d holds %d item(s) that are not objects", page, odd)


def list_counts(decoded: Mapping[str, Any]) -> tuple[int, int, str | None]:
    """``(total_icos, pages, unread)`` of a list page :func:`check_list_page` passed: its
    ``total_pages``, or when that is unread (``unread`` says why) the pages ``total_icos``
    makes, :data:`PAGE_SIZE` a page; the more of the two when both are read but disagree
    (which is wrong is unknown: paging ends at the first page listing none all the same).

    >>> list_counts({"total_icos": "41", "total_pages": None})
    (41, 3, 'total_pages is null, not a non-negative integer')
    >>> list_counts({"total_icos": 41, "total_pages": 7})[:2]
    (41, 7)
    """
    icos = _count(decoded.get("total_icos")) or 0
    unread, pages = _pages_unread(decoded, icos), _count(decoded.get("total_pages")) or 0
    if unread is not None:
        pages = max(pages if pages <= MAX_PAGES else 0, _pages_of(icos))
    return icos, pages, unread


def _pages_of(icos: int) -> int:
    return -(-icos // PAGE_SIZE)  # in integers: 10**30 ICOs, as a float, were garbled


def _pages_unread(decoded: Mapping[str, Any], icos: int | None) -> str | None:
    """Why the counts of a list page are refused (``icos``: its ``total_icos`` read, None:
    unread), ``total_icos`` first; None when both are read and agree."""
    for name in ("total_icos", "total_pages"):
        value = decoded.get(name)
        if _count(value) is None:
            return (f"{name} is {_shown(value) if name in decoded else 'missing'}, "
                    "not a non-negative integer")
    pages, expected = _count(decoded.get("total_pages")) or 0, _pages_of(icos or 0)
    if pages > MAX_PAGES:
        return f"total_pages is {pages}, above the {MAX_PAGES} pages accepted"
    if abs(pages - expected) > 1:
        return (f"total_pages is {pages} but total_icos {icos} makes {expected} pages "
                f"of {PAGE_SIZE}")
    return None


def check_filters(decoded: Mapping[str, Any]) -> None:
    """Check the filter set: it holds one of its ``FILTER_KEYS`` at least, each one a list
    (``{}`` or ``"data": null``, kept, were an empty set for a day: every name refused).

    >>> check_filters({"error": None, "data": None})
    Traceback (most recent call last):
    ...
    icoframes.api.gate.Rejected: the filter set holds none of its lists ...
    """
    if not any(name in decoded for name in FILTER_KEYS):
        raise Rejected(f"the filter set holds none of its lists ({', '.join(FILTER_KEYS)})")
    for name in FILTER_KEYS:
        if name in decoded and not isinstance(decoded[name], list):
            raise Rejected(f"the filter set's {name} is {type(decoded[name]).__name__}, "
                           "not a list")


def verdict(check: Callable[..., Any], *args: Any) -> tuple[Any, str | None]:
    """``check(*args)`` and None, or None and why the gate refused (:class:`Rejected`): a
    reason, not an exception raised in the handler (whose __context__ would keep this)."""
    try:
        return check(*args), None
    except Rejected as exc:  # a lone surrogate it quotes escaped: a reason every writer keeps
        return None, str(exc).encode("utf-8", "backslashreplace").decode("utf-8")

"""The reading rules: how one raw JSON value becomes a number, a date, a flag or an id.

This module is the readable specification of what icoframes accepts; the
vectorised converters of :mod:`icoframes.parse.columns` apply exactly these
rules to whole columns (they only take a faster path for the common shapes).

Missing, not a problem: ``None``, ``''``, float NaN and the missing markers
``NA``, ``N/A``, ``—``, ``–``, ``-``, ``NOT SET``, ``Pending``, ``TBA``, ``TBD``,
``NaN``, ``None``, ``null`` (case-insensitive, surrounding whitespace ignored).
A value that is neither readable nor missing is :data:`BAD`: callers leave it
missing and count it as a problem.

``PARSER_VERSION`` names this set of rules. The cache's derived tables are
fingerprinted with it (and with the source text of :mod:`icoframes.parse`), so
changing a rule rebuilds them from the cached raw profiles without a request.
"""

from __future__ import annotations

import itertools
import math
import re
from datetime import datetime
from functools import lru_cache
from typing import Final

__all__ = [
    "BAD",
    "DATETIME_FORMAT",
    "LABEL_FORMAT",
    "MARKER_SPELLINGS",
    "MISSING_MARKERS",
    "PARSER_VERSION",
    "is_missing_marker",
    "parse_amount",
    "parse_count",
    "parse_datetime",
    "parse_flag",
    "parse_id",
    "parse_label_date",
]

#: Bump when a rule changes meaning (the source hash catches edits too).
#: 6: problems are one row per value, with the ICO's id.
PARSER_VERSION: Final = 6

DATETIME_FORMAT: Final = "%d.%m.%Y %H:%M:%S"
LABEL_FORMAT: Final = "%d-%m-%Y"
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1

MISSING_MARKERS: Final = frozenset(
    {"NA", "N/A", "—", "–", "-", "NOT SET", "PENDING", "TBA", "TBD", "NAN", "NONE", "NULL"}
)


def _case_variants(word: str) -> set[str]:
    options = [(c.lower(), c.upper()) if c.isalpha() else (c,) for c in word]
    return {"".join(p) for p in itertools.product(*options)}


# Every upper/lower-case spelling of every marker, so that one exact-match hash
# lookup (also usable by Arrow's is_in kernel) is a case-insensitive test.
MARKER_SPELLINGS: Final = frozenset(
    s for m in MISSING_MARKERS for s in _case_variants(m)
) | {""}

_TRUE_STRINGS: Final = frozenset({"1", "true", "yes"})
_FALSE_STRINGS: Final = frozenset({"0", "false", "no"})



class _Bad:
    """Sentinel: the value could not be read."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "BAD"


BAD: Final = _Bad()


def is_missing_marker(text: str) -> bool:
    """True if ``text`` (already stripped) is empty or a missing marker such as ``'TBA'``."""
    return text in MARKER_SPELLINGS


# --------------------------------------------------------------------------- scalars


_CURRENCY = r"(?:US\$|USD|\$)"
_AMOUNT_RE: Final = re.compile(
    rf"""
    (?P<sign>[-+])?\s*{_CURRENCY}?\s*
    (?P<num>\d[\d,\s]*(?:\.\d*)?|\.\d+)
    (?:e(?P<exp>[-+]?\d+))?\s*
    (?P<mult>k|thousand|m|mm|mn|mio|million|b|bn|billion)?\.?\s*
    {_CURRENCY}?
    """,
    re.IGNORECASE | re.VERBOSE,
)
_MULTIPLIER: Final = {
    "k": 1e3, "thousand": 1e3,
    "m": 1e6, "mm": 1e6, "mn": 1e6, "mio": 1e6, "million": 1e6,
    "b": 1e9, "bn": 1e9, "billion": 1e9,
}
_THOUSANDS_RE: Final = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d*)?")
_DECIMAL_COMMA_RE: Final = re.compile(r"\d+,\d+")
_SPACE_GROUPS_RE: Final = re.compile(r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:[.,]\d+)?")


def parse_amount(value: object, *, percent: bool = False) -> float | _Bad | None:
    """Read one number leniently, the way a careful analyst would.

    Parameters
    ----------
    value : object
        A raw JSON value: number, string, ``None`` or anything else.
    percent : bool, default False
        Also accept a trailing ``%`` (``'60 %'`` gives 60.0).

    Returns
    -------
    float, None or BAD
        The number; None when the value says "missing" (``''``, ``None``,
        ``'TBA'`` ...); :data:`BAD` when it cannot be read (``'1 BILL = 1 XLM'``,
        booleans, containers, infinities).

    Examples
    --------
    >>> parse_amount("$2,000,000"), parse_amount("1.2B"), parse_amount("250K")
    (2000000.0, 1200000000.0, 250000.0)
    >>> parse_amount("N/A") is None, parse_amount("1 BILL = 1 XLM")
    (True, BAD)
    """
    kind = type(value)
    if value is None:
        return None
    if kind is float:
        if math.isnan(value):  # type: ignore[arg-type]
            return None
        return value if math.isfinite(value) else BAD  # type: ignore[return-value,arg-type]
    if kind is int:
        return float(value)  # type: ignore[arg-type]
    if kind is not str:
        # bool is a subclass of int but "true" is not an amount; containers are not either.
        return BAD
    text = value.strip()  # type: ignore[union-attr]
    if text in MARKER_SPELLINGS:
        return None
    if percent and text.endswith("%"):
        text = text[:-1].rstrip()
    try:
        number = float(text)
    except ValueError:
        return _parse_amount_text(text)
    if math.isnan(number):
        return None
    return number if math.isfinite(number) else BAD


def _parse_amount_text(text: str) -> float | _Bad:
    match = _AMOUNT_RE.fullmatch(text)
    if match is None:
        return BAD
    digits = match["num"].strip()
    if any(c.isspace() for c in digits):
        # a space only ever groups thousands ("1 000 000"); "2 5" is not 25
        if not _SPACE_GROUPS_RE.fullmatch(digits):
            return BAD
        digits = "".join(digits.split())
    if "," in digits:
        if _THOUSANDS_RE.fullmatch(digits):
            digits = digits.replace(",", "")
        elif _DECIMAL_COMMA_RE.fullmatch(digits):
            digits = digits.replace(",", ".")
        else:
            return BAD
    try:
        number = float(digits + (f"e{match['exp']}" if match["exp"] else ""))
    except ValueError:
        return BAD
    if match["mult"]:
        number *= _MULTIPLIER[match["mult"].lower()]
    if match["sign"] == "-":
        number = -number
    return number if math.isfinite(number) else BAD


def _integer(value: object) -> int | None:
    """An int64 from an int, an integral float or a numeric string; None otherwise.

    Booleans are not integers here (``True`` is not the id 1), nor are
    containers, non-integral or non-finite floats, or numbers outside int64.
    """
    kind = type(value)
    number: object = value
    if kind is str:
        text = value.strip()  # type: ignore[union-attr]
        try:
            number = int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                return None
    if type(number) is float:
        if not number.is_integer():  # type: ignore[union-attr]
            return None  # also NaN and infinities
        number = int(number)  # type: ignore[arg-type]
    if type(number) is not int or not _INT64_MIN <= number <= _INT64_MAX:  # type: ignore[operator]
        return None
    return number  # type: ignore[return-value]


def parse_id(value: object) -> int | None:
    """An ICO id: a positive int64; None if unreadable.

    Accepted: an int, an integral float or their decimal text, > 0 and within
    int64. Unreadable: 0, negatives, ``1.5``, booleans, containers, text that is
    not a number, and numbers beyond int64 (``'99999999999999999999'``). This is
    the only id rule: profiles, list items and statuses are all read by it.

    Examples
    --------
    >>> parse_id(" 42 "), parse_id(42.0), parse_id("x"), parse_id(True)
    (42, 42, None, None)
    >>> parse_id(0), parse_id(-3), parse_id("99999999999999999999")
    (None, None, None)
    """
    number = _integer(value)
    return number if number is not None and number > 0 else None


def parse_count(value: object) -> int | None:
    """A count or position: a non-negative int64 read like :func:`parse_id`; None if unreadable.

    Examples
    --------
    >>> parse_count("12"), parse_count(0), parse_count(-1), parse_count("2.5")
    (12, 0, None, None)
    """
    number = _integer(value)
    return number if number is not None and number >= 0 else None


_DATETIME_FIELDS: Final = re.compile(
    r"(?P<day>\d{1,2})\.(?P<month>\d{1,2})\.(?P<year>\d{4}) "
    r"(?P<hour>\d{1,2}):(?P<minute>\d{1,2}):(?P<second>\d{1,2})"
)


_FALLBACK_DATETIME_FORMATS: Final = (
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d",
)


def parse_datetime(value: object) -> datetime | _Bad | None:
    """Read one ``DD.MM.YYYY HH:MM:SS`` timestamp leniently.

    Also accepted: the same without seconds or without time, and ISO
    ``YYYY-MM-DD[ HH:MM:SS]``. Impossible dates (``31.02.2018 00:00:00``,
    ``00.00.0000 00:00:00``) are :data:`BAD`.

    Examples
    --------
    >>> parse_datetime("01.03.2018 12:00:00")
    datetime.datetime(2018, 3, 1, 12, 0)
    >>> parse_datetime("TBA") is None, parse_datetime("31.02.2018 00:00:00")
    (True, BAD)
    """
    if value is None or (type(value) is float and math.isnan(value)):  # type: ignore[arg-type]
        return None
    if type(value) is not str:
        return BAD
    text = value.strip()  # type: ignore[union-attr]
    if text in MARKER_SPELLINGS:
        return None
    # Text in the documented shape is read by that format alone: if it fails
    # (31.02.), no fallback format should rescue it.
    formats = (DATETIME_FORMAT,) if _DATETIME_FIELDS.fullmatch(text) else (
        DATETIME_FORMAT, *_FALLBACK_DATETIME_FORMATS)
    for fmt in formats:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return BAD


_MONTHS: Final = {
    name: number
    for number, names in enumerate(
        [
            ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
            ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
            ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>[a-z]+)\.?"
_YEAR = r"(?P<year>\d{4}|'?\d{2})"
_LABEL_PATTERNS: Final = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"(?P<day>\d{1,2})[-./](?P<mon>\d{1,2})[-./](?P<year>\d{4})",
        r"(?P<year>\d{4})[-./](?P<mon>\d{1,2})[-./](?P<day>\d{1,2})",
        rf"q(?P<quarter>[1-4])[\s,/-]*{_YEAR}",
        rf"{_YEAR}[\s,/-]*q(?P<quarter>[1-4])",
        rf"h(?P<half>[12])[\s,/-]*{_YEAR}",
        rf"{_YEAR}[\s,/-]*h(?P<half>[12])",
        rf"(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}[\s,]*{_YEAR}",
        rf"{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}",
        rf"{_MONTH}[\s,/-]*{_YEAR}",
        r"(?P<mon>\d{1,2})[-./](?P<year>\d{4})",
        r"(?P<year>\d{4})[-./](?P<mon>\d{1,2})",
        r"(?P<year>\d{4})",
    )
)


@lru_cache(maxsize=4096)
def parse_label_date(label: str) -> datetime | None:
    """Best-effort date of a roadmap key; None when it names no date.

    ``DD-MM-YYYY`` is the documented form; also understood: other day-first
    separators, ISO dates, quarters (``'Q3 2018'`` -> 1 July 2018), halves
    (``'H2 2019'``), ``'March 2019'``, ``'15 March 2019'``, ``'March 15, 2019'``,
    ``'03-2019'`` and a bare year (``'2019'`` -> 1 January 2019). Never raises.

    Examples
    --------
    >>> parse_label_date("Q3 2018"), parse_label_date("later")
    (datetime.datetime(2018, 7, 1, 0, 0), None)
    """
    text = label.strip()
    for pattern in _LABEL_PATTERNS:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        parts = match.groupdict()
        year_text = parts["year"].lstrip("'")
        year = int(year_text) + (2000 if len(year_text) == 2 else 0)
        if parts.get("quarter"):
            month = 3 * int(parts["quarter"]) - 2
        elif parts.get("half"):
            month = 6 * int(parts["half"]) - 5
        elif parts.get("month"):
            found = _MONTHS.get(parts["month"].lower())
            if found is None:
                return None
            month = found
        elif parts.get("mon"):
            month = int(parts["mon"])
        else:
            month = 1
        day = int(parts["day"]) if parts.get("day") else 1
        try:
            return datetime(year, month, day)
        except ValueError:
            return None
    return None


def parse_flag(value: object) -> bool | None:
    """The flag of one value; None when it is not a recognised spelling.

    True for ``true``, ``1``, ``"1"``, ``"true"``, ``"yes"`` (any case); False for
    ``false``, ``0``, ``"no"``, ``""``, ``None`` and the missing markers.

    Examples
    --------
    >>> parse_flag("Yes"), parse_flag(""), parse_flag("maybe")
    (True, False, None)
    """
    if value is True:
        return True
    if value is None or value is False:
        return False
    kind = type(value)
    if kind is int or kind is float:
        if value == 1:
            return True
        return False if value == 0 or value != value else None
    if kind is str:
        text = value.strip().lower()  # type: ignore[union-attr]
        if text in _TRUE_STRINGS:
            return True
        if text in _FALSE_STRINGS or text in MARKER_SPELLINGS:
            return False
        return None
    return None

"""Dates: the rules of one timestamp or roadmap key, and the vectorised converters.

``DD.MM.YYYY HH:MM:SS`` is the documented timestamp and ``DD-MM-YYYY`` the
documented roadmap key; :func:`parse_datetime` and :func:`parse_label_date`
say what else is understood. The vectorised :func:`to_datetime` and
:func:`to_label_date` read the documented shape of a whole column in one
Arrow call and apply these rules to the rest.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .base import MARKER_SPELLINGS, Reason, Unread, _Bad, bad
from .text import clean_surrogates, foreign_digits, normalize_text

__all__ = ["DATETIME_FORMAT", "LABEL_FORMAT", "PRECISIONS", "YEARS", "date_reason", "date_text",
           "parse_datetime", "parse_label_date", "read_label", "to_datetime", "to_label_date"]

DATETIME_FORMAT: Final = "%d.%m.%Y %H:%M:%S"
LABEL_FORMAT: Final = "%d-%m-%Y"
#: Dates outside these years are unreadable: no ICO happened then, and pandas'
#: nanosecond timestamps (which to_usd and the plots use) end in 2262.
YEARS: Final = (1990, 2100)
_MS: Final = np.dtype("datetime64[ms]")
_NAT_MS: Final = np.datetime64("NaT", "ms")


_DATETIME_FIELDS: Final = re.compile(
    r"(?P<day>[0-9]{1,2})\.(?P<month>[0-9]{1,2})\.(?P<year>[0-9]{4}) "
    r"(?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{1,2}):(?P<second>[0-9]{1,2})"
)


_FALLBACK_DATETIME_FORMATS: Final = (
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d",
)


def date_text(text: str) -> str | None:
    """A date or roadmap key as the date rules read it: NFKC (``"２０１８-０３-０１"`` is
    ``"2018-03-01"``), stripped; None when it holds a digit of another script or one NFKC would
    make (``"٢٠١٨"``, ``"2018²"``: :func:`~.text.foreign_digits`): such text is no date.

    Examples
    --------
    >>> date_text(" Ｑ1 ２０１８ "), date_text("٢٠١٨-03-01"), date_text("①-03-2018")
    ('Q1 2018', None, None)
    >>> date_text("Q4 ’18")  # a typographic apostrophe is one
    "Q4 '18"
    """
    return None if foreign_digits(text) else normalize_text(text).strip().translate(_APOSTROPHES)


# Apostrophes as typed or autocorrected: "Q4 ’18", "Mar ‘18" (a left quote), "Q4 ʼ18".
_APOSTROPHES: Final = str.maketrans(dict.fromkeys("’‘ʼ", "'"))


def parse_datetime(value: object) -> datetime | _Bad | None:
    """Read one ``DD.MM.YYYY HH:MM:SS`` timestamp leniently.

    Also accepted: the same without seconds or without time, and ISO
    ``YYYY-MM-DD[ HH:MM:SS]``. Impossible dates (``31.02.2018 00:00:00``,
    ``00.00.0000 00:00:00``) and dates outside the years :data:`YEARS`
    (``01.01.2263 00:00:00``) are a :class:`~icoframes.parse.base.Bad`; so are
    dates without a year (``20 Sep``), durations (``19 days``), US-order
    dates (``01.13.2018``) and two-digit years (``01.03.18``, ``01 Mar 18``: 1 March 2018, or
    18 March 2001?),
    each with its reason (:func:`date_reason`). Digits are ASCII ones.

    Examples
    --------
    >>> parse_datetime("01.03.2018 12:00:00")
    datetime.datetime(2018, 3, 1, 12, 0)
    >>> parse_datetime("TBA") is None, parse_datetime("31.02.2018 00:00:00")
    (True, Bad('impossible_date'))
    >>> parse_datetime("01.01.9999 00:00:00"), parse_datetime("01.13.2018")
    (Bad('date_out_of_range'), Bad('us_order'))
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if not isinstance(value, str):
        return bad("wrong_type")
    text = date_text(value)
    if text is None:
        return bad("unreadable_date")  # "٢٠١٨-03-01": strptime reads other scripts' digits
    if text in MARKER_SPELLINGS:
        return None
    if not text.isascii():
        return bad(date_reason(text))
    # Text in the documented shape is read by that format alone: if it fails
    # (31.02.), no fallback format should rescue it.
    formats = (DATETIME_FORMAT,) if _DATETIME_FIELDS.fullmatch(text) else (
        DATETIME_FORMAT, *_FALLBACK_DATETIME_FORMATS)
    for fmt in formats:
        try:
            when = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return when if YEARS[0] <= when.year <= YEARS[1] else bad("date_out_of_range")
    return bad(date_reason(text))


_NUMERIC_DATE_RE: Final = re.compile(
    r"(?:(?P<a>[0-9]{1,2})[-./](?P<b>[0-9]{1,2})[-./](?P<year>[0-9]{4})"
    r"|(?P<iso>[0-9]{4})[-./](?P<m>[0-9]{1,2})[-./](?P<d>[0-9]{1,2}))(?:[ T].*)?")
_DURATION_RE: Final = re.compile(
    r"(?:in\s+|for\s+)?[0-9]+\s*(?:d|h|days?|hours?|weeks?|months?|years?)(?:\s+(?:left|ago))?",
    re.IGNORECASE)
_MONTH_NAME_RE: Final = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b\.?", re.IGNORECASE)
_YEAR_RE: Final = re.compile(r"(?<![0-9])(?:[0-9]{4}|'[0-9]{2})(?![0-9])")
_DAY_MONTH_RE: Final = re.compile(r"(?<![0-9])[0-9]{1,2}[./-][0-9]{1,2}(?![./-]?[0-9])")
_MONTH_YEAR_RE: Final = re.compile(r"(?P<month>[0-9]{1,2})[-./](?P<year>[0-9]{4})")


def date_reason(text: str, *, label: bool = False) -> Reason:
    """Why ``text`` (stripped, not missing) is no date any rule reads; ``label``: as a roadmap
    key (:func:`read_label`), where a quarter, half or month (``"Mar '89"``) of a two-digit
    year after :data:`_LAST_SHORT_YEAR` is ``short_year`` (``"Q4 '99"``: 1999 or 2099?). As a
    timestamp (:func:`parse_datetime`) a quarter or half is no date whatever its year:
    ``unreadable_date``.

    Examples
    --------
    >>> [date_reason(t) for t in ["01.13.2018", "31.02.2018 00:00:00", "00.00.0000 00:00:00"]]
    ['us_order', 'impossible_date', 'impossible_date']
    >>> date_reason("13/01/2018 00:00:00"), date_reason("13.2018")  # a day-first form not read
    ('unreadable_date', 'impossible_date')
    >>> [date_reason(t) for t in ["01.01.2263", "20 Sep", "since 18 Sep", "19 days", "soon"]]
    ['date_out_of_range', 'no_year', 'no_year', 'duration', 'unreadable_date']
    >>> date_reason("01.03.18"), date_reason("01-03-18 12:00")  # day-month-year, or year first?
    ('short_year', 'short_year')
    >>> date_reason("Q4 '99", label=True), date_reason("H1 99", label=True)  # 1999 or 2099?
    ('short_year', 'short_year')
    >>> date_reason("Q4 '99"), date_reason("Q4 1989")  # no start or end date
    ('unreadable_date', 'unreadable_date')
    """
    numeric = _NUMERIC_DATE_RE.fullmatch(text)
    if numeric is not None:
        if numeric["iso"]:
            year, month, day = int(numeric["iso"]), int(numeric["m"]), int(numeric["d"])
        else:
            year, month, day = int(numeric["year"]), int(numeric["b"]), int(numeric["a"])
        if day == 0 or month == 0:
            return "impossible_date"
        if not YEARS[0] <= year <= YEARS[1]:
            return "date_out_of_range"
        if month > 12 and day <= 12 and not numeric["iso"]:
            return "us_order"
        try:
            datetime(year, month, day)
        except ValueError:
            return "impossible_date"
        return "unreadable_date"  # a real day, written in a form not read
    short = _SHORT_YEAR_RE.fullmatch(text)
    if short is not None and (short["month"] is None or short["month"].lower() in _MONTHS):
        numbers = (int(short["a"]), int(short["b"])) if short["a"] else None
        if numbers is not None and (0 in numbers or min(numbers) > 12):
            return "impossible_date"  # "00.00.00", "13.13.18": no order makes it a day
        return "short_year"
    if not label and any(pattern.fullmatch(text) for pattern, precision in _LABEL_PATTERNS
                         if precision in ("quarter", "half")):
        return "unreadable_date"  # "Q4 '99", "Q4 '18", "H1 2019": a period, no timestamp
    if any((match := pattern.fullmatch(text)) is not None and _year(match["year"]) is None
           for pattern, _ in _LABEL_PATTERNS):
        return "short_year"  # "Q4 '99", "H1 99": 1999 or 2099?
    month_year = _MONTH_YEAR_RE.fullmatch(text)
    if month_year is not None and not 1 <= int(month_year["month"]) <= 12:
        return "impossible_date"
    if _DURATION_RE.fullmatch(text):
        return "duration"
    years = _YEAR_RE.findall(text)
    if any(not YEARS[0] <= int(y.lstrip("'")) + (2000 if y[0] == "'" else 0) <= YEARS[1]
           for y in years):
        return "date_out_of_range"
    if not years and (_MONTH_NAME_RE.search(text) or _DAY_MONTH_RE.search(text)):
        return "no_year"
    return "unreadable_date"


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
_YEAR = r"(?P<year>[0-9]{4}|'?[0-9]{2})"  # two digits only in a quarter or half: "Q3'18"
_YEAR4 = r"(?P<year>[0-9]{4})"
_DAY = r"[0-9]{1,2}(?:st|nd|rd|th)?"
# A two-digit year: "01.03.18", "01.03.'18", "1 Mar 18", "Mar 1, 18", "Mar 18" (18 March?)
_SHORT_YEAR_RE: Final = re.compile(
    r"(?P<a>[0-9]{1,2})([-./])(?P<b>[0-9]{1,2})\2'?[0-9]{2}(?:[ T].*|[,;.])?"
    rf"|(?:{_DAY}\s+)?{_MONTH}(?:\s+{_DAY},?(?=[\s,/-]))?[\s,/-]*'?[0-9]{{2}}[,;.]?",
    re.IGNORECASE)
#: How much of a date a roadmap key gives; the date is the first day of that period.
PRECISIONS: Final = ("day", "month", "quarter", "half", "year")
_LABEL_PATTERNS: Final = tuple(
    (re.compile(p, re.IGNORECASE), precision)
    for p, precision in (
        (r"(?P<day>[0-9]{1,2})[-./](?P<mon>[0-9]{1,2})[-./](?P<year>[0-9]{4})", "day"),
        (r"(?P<year>[0-9]{4})[-./](?P<mon>[0-9]{1,2})[-./](?P<day>[0-9]{1,2})", "day"),
        (rf"q(?P<quarter>[1-4])[\s,/-]*{_YEAR}", "quarter"),
        (rf"(?P<quarter>[1-4])\s*q[\s,/-]*{_YEAR}", "quarter"),
        (rf"{_YEAR}[\s,/-]*q(?P<quarter>[1-4])", "quarter"),
        (rf"(?:(?P<quarter>[1-4])(?:st|nd|rd|th)\s+quarter)[\s,/-]*(?:of\s+)?{_YEAR}", "quarter"),
        (rf"h(?P<half>[12])[\s,/-]*{_YEAR}", "half"),
        (rf"{_YEAR}[\s,/-]*h(?P<half>[12])", "half"),
        (rf"(?P<day>[0-9]{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}[\s,]*{_YEAR4}", "day"),
        (rf"{_MONTH}\s+(?P<day>[0-9]{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR4}", "day"),
        (rf"{_MONTH}[\s,/-]*{_YEAR4}", "month"),
        (rf"{_MONTH}[\s,/-]*'(?P<year>[0-9]{{2}})", "month"),  # "Mar '18", as "Q3'18"
        (r"(?P<mon>[0-9]{1,2})[-./](?P<year>[0-9]{4})", "month"),
        (r"(?P<year>[0-9]{4})[-./](?P<mon>[0-9]{1,2})", "month"),
        (r"(?P<year>[0-9]{4})", "year"),
    )
)


# The last two-digit year read, as 20xx: "'00" to "'29" are 2000-2029, years an ICO's roadmap
# names (the first ICO was in 2013; plans reach a few years ahead). Any other two digits are
# short_year, never a guessed century: "'89" is no 2089 (no roadmap plans 60 years ahead) and
# 1989 is before any ICO; "'99" 1999 or 2099? Nor is a century chosen by YEARS (it let '30-'89
# be 2030-2089).
_LAST_SHORT_YEAR: Final = 29


def _year(text: str) -> int | None:
    """The year written ``text`` (``"2018"``, ``"'18"``, ``"18"``); None for two digits
    after :data:`_LAST_SHORT_YEAR` (``"'89"``, ``"'99"``: 1989 or 2089?), never guessed.

    Examples
    --------
    >>> _year("2018"), _year("'18"), _year("'29"), _year("89"), _year("'30"), _year("'99")
    (2018, 2018, 2029, None, None, None)
    """
    digits = text.lstrip("'")
    if len(digits) != 2:
        return int(digits)
    return 2000 + int(digits) if int(digits) <= _LAST_SHORT_YEAR else None


def parse_label_date(label: str) -> datetime | None:
    """Best-effort date of a roadmap key; None when it names no date (see :func:`read_label`).

    Examples
    --------
    >>> parse_label_date("Q3 2018"), parse_label_date("later")
    (datetime.datetime(2018, 7, 1, 0, 0), None)
    """
    return read_label(label)[0]


@lru_cache(maxsize=4096)
def read_label(label: str) -> tuple[datetime | None, str | None]:
    """The date a roadmap key names and its precision; ``(None, None)`` when it names none.

    ``DD-MM-YYYY`` is the documented form (precision ``day``); also understood:
    other day-first separators and ISO dates (``day``), ``'15 March 2019'`` and
    ``'March 15, 2019'`` (``day``), ``'March 2019'``, ``'03.2018'``, ``'2019-03'``
    (``month``), quarters ``'Q3 2018'``, ``'3Q 2018'``, ``'2018 Q3'``, ``"Q3'18"``,
    ``'3rd quarter 2018'`` (``quarter``), halves ``'H2 2019'`` (``half``) and a
    bare year ``'2019'`` (``year``). The date is the **first day of the
    period** (``Q3 2018`` is 1 July 2018). A key naming a day that does not
    exist (``31-02-2018``), a US-order date (``01-13-2018``), a year outside
    :data:`YEARS`, a two-digit year outside a quarter, half or month marked by an apostrophe
    (``"Mar '18"`` is March 2018, ``'Mar 18'``: March 2018, or 18 March? ``short_year``), or
    within them a two-digit year after :data:`_LAST_SHORT_YEAR` (``"Q4 '99"``: 1999 or 2099?) or
    anything else names none. Never raises.

    Examples
    --------
    >>> read_label("3Q 2018")
    (datetime.datetime(2018, 7, 1, 0, 0), 'quarter')
    >>> read_label("03.2018")
    (datetime.datetime(2018, 3, 1, 0, 0), 'month')
    >>> read_label("01-13-2018"), read_label("later"), read_label("2263")
    ((None, None), (None, None), (None, None))
    >>> date_reason("01-13-2018"), date_reason("later"), date_reason("2263")
    ('us_order', 'unreadable_date', 'date_out_of_range')
    """
    text = date_text(label)
    if text is None:
        return None, None
    for pattern, precision in _LABEL_PATTERNS:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        parts = match.groupdict()
        year = _year(parts["year"])
        if year is None:
            return None, None  # "Q4 '99": 1999 or 2099? short_year
        if parts.get("quarter"):
            month = 3 * int(parts["quarter"]) - 2
        elif parts.get("half"):
            month = 6 * int(parts["half"]) - 5
        elif parts.get("month"):
            found = _MONTHS.get(parts["month"].lower())
            if found is None:
                return None, None
            month = found
        elif parts.get("mon"):
            month = int(parts["mon"])
        else:
            month = 1
        day = int(parts["day"]) if parts.get("day") else 1
        if not YEARS[0] <= year <= YEARS[1]:
            return None, None
        try:
            return datetime(year, month, day), precision
        except ValueError:
            return None, None
    return None, None


def to_datetime(values: Sequence[object]) -> tuple[np.ndarray, Unread]:
    """A datetime64[ms] column from ``DD.MM.YYYY HH:MM:SS`` strings (see :func:`parse_datetime`).

    Examples
    --------
    >>> out, unread = to_datetime(["01.03.2018 12:00:00", "", "31.02.2018 00:00:00"])
    >>> out.astype(str).tolist(), unread.values, unread.reasons
    (['2018-03-01T12:00:00.000', 'NaT', 'NaT'], ['31.02.2018 00:00:00'], ['impossible_date'])
    """
    n = len(values)
    if n == 0:
        return np.empty(0, dtype=_MS), Unread.none()
    out = _strptime(values, DATETIME_FORMAT, _CANONICAL_DATETIME)
    rows: list[int] = []
    reasons: list[Reason] = []
    for i in np.flatnonzero(np.isnat(out)).tolist():
        value = parse_datetime(values[i])
        if isinstance(value, _Bad):
            rows.append(i)
            reasons.append(value.reason)
        elif isinstance(value, datetime):
            out[i] = np.datetime64(value, "ms")
    return out, Unread.at(values, rows, reasons)


# The documented shapes, zero-padded: only these take the vectorised path, and
# (start, stop, field) say where each checked field sits in the text.
_CANONICAL_DATETIME: Final = (r"^[0-9]{2}\.[0-9]{2}\.[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}$",
                              ((0, 2, "day"), (3, 5, "month"), (17, 19, "second")))
_CANONICAL_LABEL: Final = (r"^[0-9]{2}-[0-9]{2}-[0-9]{4}$", ((0, 2, "day"), (3, 5, "month")))


def _strptime(values: Sequence[object], fmt: str,
              canonical: tuple[str, tuple[tuple[int, int, str], ...]]) -> np.ndarray:
    """Vectorised strict strptime of zero-padded text; NaT for everything else.

    Arrow's strptime kernel is fast but rolls impossible dates over
    (31.02. becomes 03.03., second 60 the next minute), so the day, month and
    second it parsed are checked against the text. Values left NaT get the
    caller's exact per-value path.
    """
    try:
        text = pa.array(values, type=pa.string())
    except (pa.ArrowTypeError, pa.ArrowInvalid, UnicodeEncodeError):
        text = pa.array([clean_surrogates(v) if isinstance(v, str) else None
                         for v in values], type=pa.string())
    pattern, checks = canonical
    parsed: Any = pc.strptime(text, format=fmt, unit="ms", error_is_null=True)
    ok: Any = pc.fill_null(pc.and_(pc.match_substring_regex(text, pattern), pc.is_valid(parsed)),
                      False)
    if not pc.any(ok).as_py():
        return np.full(len(text), _NAT_MS)
    safe = pc.filter(text, ok)
    kept = pc.filter(parsed, ok)
    # only years in YEARS (Arrow also accepts year 0, which Python's datetime rejects)
    years = pc.year(kept)
    same: Any = pc.and_(pc.greater_equal(years, pa.scalar(YEARS[0])),
                        pc.less_equal(years, pa.scalar(YEARS[1])))
    for begin, stop, field in checks:
        sent = pc.cast(pc.utf8_slice_codeunits(safe, begin, stop), pa.int64())
        same = pc.and_(same, pc.equal(sent, getattr(pc, field)(kept)))
    out = np.full(len(text), _NAT_MS)
    index = np.flatnonzero(ok.to_numpy(zero_copy_only=False))
    good = same.to_numpy(zero_copy_only=False)
    out[index[good]] = kept.to_numpy(zero_copy_only=False).astype(_MS)[good]
    return out


def to_label_date(labels: Sequence[object]) -> tuple[np.ndarray, list[str | None], Unread]:
    """Dates and precisions of roadmap keys (see :func:`read_label`), and the keys naming none.

    Examples
    --------
    >>> dates, precision, unread = to_label_date(["01-07-2018", "Q3 2018", "soon"])
    >>> dates.astype(str).tolist(), precision
    (['2018-07-01T00:00:00.000', '2018-07-01T00:00:00.000', 'NaT'], ['day', 'quarter', None])
    >>> unread
    Unread(rows=[2], values=['soon'], reasons=['unreadable_date'])
    """
    n = len(labels)
    if n == 0:
        return np.empty(0, dtype=_MS), [], Unread.none()
    out = _strptime(labels, LABEL_FORMAT, _CANONICAL_LABEL)
    precision: list[str | None] = ["day"] * n
    rows: list[int] = []
    reasons: list[Reason] = []
    for i in np.flatnonzero(np.isnat(out)).tolist():
        label = labels[i]
        value, precision[i] = read_label(label) if isinstance(label, str) else (None, None)
        if value is None:
            rows.append(i)
            text = date_text(label) if isinstance(label, str) else None
            reasons.append("wrong_type" if not isinstance(label, str) else
                           "unreadable_date" if text is None else date_reason(text, label=True))
        else:
            out[i] = np.datetime64(value, "ms")
    return out, precision, Unread.at(labels, rows, reasons)

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
from typing import Any, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .base import MARKER_SPELLINGS, Reason, Unread, _Bad, bad
from .dateforms import (
    _LABEL_PATTERNS,
    _MONTHS,
    _SHORT_YEAR_RE,
    PRECISIONS,
    YEARS,
    _year,
    date_text,
    parse_label_date,
    read_label,
    read_stamp,
    swappable,
)
from .text import clean_surrogates

__all__ = ["DATETIME_FORMAT", "LABEL_FORMAT", "PRECISIONS", "YEARS", "date_reason", "date_text",
           "parse_datetime", "parse_label_date", "read_label", "to_datetime", "to_label_date"]

DATETIME_FORMAT: Final = "%d.%m.%Y %H:%M:%S"
LABEL_FORMAT: Final = "%d-%m-%Y"
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


def parse_datetime(value: object, *, day_first: bool = False) -> datetime | _Bad | None:
    """Read one ``DD.MM.YYYY HH:MM:SS`` timestamp leniently.

    Also accepted: the same without seconds or without time, ISO
    ``YYYY-MM-DD[ HH:MM:SS[.fff]]``, any day a roadmap key reads to the day (``"1 March 2018"``,
    ``"March 1, 2018"``, ``"2018/03/01"``, ``"13/03/2018"``: :func:`read_label`) with or without
    a time, ``24:00:00`` (the next day's 00:00), and a zone that states its offset (``Z``,
    ``UTC``, ``GMT``, ``+08:00``, ``+0800``, JavaScript's ``GMT+0800 (...)``): such a value is
    converted to UTC (:func:`~.dateforms.read_stamp`); one without a zone is kept as written.
    A zone name without an offset (``PST``, ``CET``), a one-digit offset (``UTC+8``), a bare
    offset that may end a time range (``"01.03.2018 10:00-12:00"``: read only after seconds,
    in ISO's ``T`` form or after ``UTC``/``GMT``) or a bracketed zone contradicting the offset
    (``"12:00:00 UTC (CET)"``) is ``unreadable_date``, never a guessed shift. A slashed day whose
    day and month could swap (``"03/04/2018"``, slashes being the month-first convention) is
    ``ambiguous_order`` unless ``day_first`` (its profile writes ``"15/03/2018"``). Impossible
    dates (``31.02.2018 00:00:00``, ``00.00.0000 00:00:00``) and dates outside the years
    :data:`YEARS` (``01.01.2263 00:00:00``) are a :class:`~icoframes.parse.base.Bad`; so are
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
    >>> parse_datetime("2018-03-01T12:00:00+08:00"), parse_datetime("2018-03-01 12:00 PST")
    (datetime.datetime(2018, 3, 1, 4, 0), Bad('unreadable_date'))
    >>> parse_datetime("03/04/2018"), parse_datetime("03/04/2018", day_first=True)
    (Bad('ambiguous_order'), datetime.datetime(2018, 4, 3, 0, 0))
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
    stamp = read_stamp(text, day_first=day_first) if len(text) <= _LONGEST_STAMP else None
    if isinstance(stamp, datetime):  # (an offset may move a day of 2100 into 2101)
        return stamp if YEARS[0] <= stamp.year <= YEARS[1] else bad("date_out_of_range")
    return bad(stamp or date_reason(text))


# Longer text is no timestamp (JavaScript's, with its zone's name, is about 70 characters):
# read_stamp's lazy date part would cost quadratic time on a long hostile value.
_LONGEST_STAMP: Final = 120


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
# A zone's offset after a time or a zone name ("12:00 +0800", "GMT-0500"): four digits, no year.
_OFFSET_RE: Final = re.compile(r"(?:(?<=[0-9]:[0-9]{2})|(?<=UTC)|(?<=GMT))\s*[+-][0-9]{2}:?[0-9]{2}"
                               r"(?![0-9])", re.IGNORECASE)
_MONTH_YEAR_RE: Final = re.compile(r"(?P<month>[0-9]{1,2})[-./](?P<year>[0-9]{4})")


def date_reason(text: str, *, label: bool = False) -> Reason:
    """Why ``text`` (stripped, not missing) is no date any rule reads; ``label``: as a roadmap
    key (:func:`read_label`), where a quarter, half or month (``"Mar '89"``) of a two-digit
    year after ``dateforms._LAST_SHORT_YEAR`` is ``short_year`` (``"Q4 '99"``: 1999 or 2099?).
    As a timestamp (:func:`parse_datetime`) a quarter or half is no date whatever its year:
    ``unreadable_date``.

    Examples
    --------
    >>> [date_reason(t) for t in ["01.13.2018", "31.02.2018 00:00:00", "00.00.0000 00:00:00"]]
    ['us_order', 'impossible_date', 'impossible_date']
    >>> date_reason("13/01/2018 00h00"), date_reason("13.2018")  # a real day, a form not read
    ('unreadable_date', 'impossible_date')
    >>> [date_reason(t) for t in ["01.01.2263", "20 Sep", "since 18 Sep", "19 days", "soon"]]
    ['date_out_of_range', 'no_year', 'no_year', 'duration', 'unreadable_date']
    >>> date_reason("Mar 01 2018 12:00:00 GMT+0800 (China)?")  # an offset is no year 800
    'unreadable_date'
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
    years = _YEAR_RE.findall(_OFFSET_RE.sub("", text))  # "GMT+0800" is no year 800
    if any(not YEARS[0] <= int(y.lstrip("'")) + (2000 if y[0] == "'" else 0) <= YEARS[1]
           for y in years):
        return "date_out_of_range"
    if not years and (_MONTH_NAME_RE.search(text) or _DAY_MONTH_RE.search(text)):
        return "no_year"
    return "unreadable_date"




def to_datetime(values: Sequence[object], *, month_first: np.ndarray | None = None,
                day_first: np.ndarray | None = None) -> tuple[np.ndarray, Unread]:
    """A datetime64[ms] column from ``DD.MM.YYYY HH:MM:SS`` strings (see :func:`parse_datetime`).

    ``month_first``: a bool per row, True where the row's profile writes a date month-first
    (:func:`icoframes.parse.dayorder.month_first_ids`); there a day whose day and month could
    swap (:func:`~.dateforms.swappable`) is not read day-first: NaT, ``ambiguous_order``.
    ``day_first``: a bool per row, True where the profile writes a slashed date day-first
    (:func:`icoframes.parse.dayorder.day_first_ids`): only there is a slashed day whose day and
    month could swap (``"03/04/2018"``) read, day first (:func:`parse_datetime`).

    Examples
    --------
    >>> out, unread = to_datetime(["01.03.2018 12:00:00", "", "31.02.2018 00:00:00"])
    >>> out.astype(str).tolist(), unread.values, unread.reasons
    (['2018-03-01T12:00:00.000', 'NaT', 'NaT'], ['31.02.2018 00:00:00'], ['impossible_date'])
    >>> to_datetime(["03.04.2018 00:00:00"], month_first=np.array([True]))[1].reasons
    ['ambiguous_order']
    """
    n = len(values)
    if n == 0:
        return np.empty(0, dtype=_MS), Unread.none()
    out = _strptime(values, DATETIME_FORMAT, _CANONICAL_DATETIME)
    rows: list[int] = []
    reasons: list[Reason] = []
    for i in np.flatnonzero(np.isnat(out)).tolist():
        value = parse_datetime(values[i], day_first=day_first is not None and bool(day_first[i]))
        if isinstance(value, _Bad):
            rows.append(i)
            reasons.append(value.reason)
        elif isinstance(value, datetime):
            out[i] = np.datetime64(value, "ms")
    if month_first is not None:
        rows, reasons = _refuse_swappable(values, out, month_first, rows, reasons)
    return out, Unread.at(values, rows, reasons)


def _refuse_swappable(values: Sequence[object], out: np.ndarray, month_first: np.ndarray,
                      rows: list[int], reasons: list[Reason],
                      precision: list[str | None] | None = None
                      ) -> tuple[list[int], list[Reason]]:
    """Make NaT the days read in rows of ``month_first`` whose day and month could swap, and
    add them to the unread ``rows`` (ascending) with the reason ``ambiguous_order``."""
    found = [i for i in np.flatnonzero(month_first & ~np.isnat(out)).tolist()
             if isinstance(value := values[i], str) and (text := date_text(value)) is not None
             and swappable(text)]
    if not found:
        return rows, reasons
    out[found] = _NAT_MS
    if precision is not None:
        for i in found:
            precision[i] = None
    why = dict(zip(rows, reasons, strict=True)) | dict.fromkeys(found, "ambiguous_order")
    merged = sorted(why)
    return merged, [why[i] for i in merged]


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


def to_label_date(labels: Sequence[object], *, month_first: np.ndarray | None = None
                  ) -> tuple[np.ndarray, list[str | None], Unread]:
    """Dates and precisions of roadmap keys (see :func:`read_label`), and the keys naming none.

    ``month_first`` as in :func:`to_datetime`: a key of a month-first profile whose day and
    month could swap names none (``ambiguous_order``).

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
    if month_first is not None:
        rows, reasons = _refuse_swappable(labels, out, month_first, rows, reasons, precision)
    return out, precision, Unread.at(labels, rows, reasons)

"""The moment a date argument names: ``compute_features(as_of=)``, ``plot_timeline(now=)``.

One reading for every such argument: a date value, or text that is an ISO date with a 4-digit
year; anything else is refused before anything is computed, with the ISO date a text most
likely means when it says one plainly.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
import warnings
from typing import Final

import numpy as np
import pandas as pd
from pandas.errors import OutOfBoundsDatetime

from .errors import InvalidParameter
from .quoting import quoted

__all__ = ["as_naive_utc"]

_NOW_WORDS: Final = frozenset({"now", "today"})
#: The one text a date argument reads: an ISO date with a 4-digit year in ASCII digits, with
#: an optional time and UTC offset ("2018-06-01", "2018-06-01 12:00", "2018-06-01T12:00Z").
#: pandas alone reads "12", "Jan" and "T12" as dates of year 1 and "1/2" by a US order.
_ISO_DATE: Final = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,9})?)?)?"
    r"(?:Z|[+-][0-9]{2}(?::?[0-9]{2})?)?", re.ASCII)
_DATE_TYPES: Final = (dt.date, np.datetime64)  # a datetime and a pd.Timestamp are dates
#: A zone written apart after a date's digits ("2018-06-01 12:00 UTC"): UTC, GMT, Z, or an
#: offset of hours and minutes. Read here, not by pandas, which reads "UTC+2" as -02:00 (the
#: POSIX sign): any other zone ("CET", "UTC+2") gets no suggestion.
_ZONE: Final = re.compile(r"(?<=[0-9])\s+(?:(?P<utc>UTC|GMT|Z)|(?P<sign>[+-])(?P<hours>[0-9]{2})"
                          r"(?::?(?P<minutes>[0-9]{2}))?)\Z", re.ASCII | re.IGNORECASE)


def as_naive_utc(value: object, name: str) -> pd.Timestamp:
    """The moment ``value`` names (argument ``name``) as a naive UTC timestamp: now when None,
    an aware one converted to UTC, a naive one as it is (``compute_features``' ``as_of``,
    ``plot_timeline``'s ``now``).

    A value is a ``datetime``, ``date``, :class:`pandas.Timestamp` or ``numpy.datetime64``,
    or text: an ISO date with a 4-digit year (``"2018-06-01"``, with an optional time and
    UTC offset: ``"2018-06-01 12:00"``, ``"2018-06-01T12:00+02:00"``). Anything else is
    :class:`InvalidParameter`, with the ISO date a text most likely means when it says one
    plainly (``"2018/06/01"``, ``"June 1, 2018"``, ``"20180601"``, and the number
    ``20180601``): a number (pandas would read ``2018`` as 2018 nanoseconds after 1970), and
    text pandas reads as year 1 (``"12"``,
    ``"Jan"``) or by one country's order (``"1/2/2018"``). ``"now"`` and ``"today"`` are this
    moment in UTC, as None is (pandas reads them on the local clock).
    """
    if value is None or (isinstance(value, str) and value.strip().casefold() in _NOW_WORDS):
        return pd.Timestamp.now(tz="UTC").tz_localize(None)
    when: object = None
    try:
        if isinstance(value, str) and _ISO_DATE.fullmatch(value.strip()):
            when = _iso_timestamp(value.strip())
        elif isinstance(value, _DATE_TYPES):
            when = pd.Timestamp(value)
    except (TypeError, ValueError):  # "2018-13-01", a date outside pandas' range
        when = None
    if not isinstance(when, pd.Timestamp):  # NaT too
        rule = (" (as text: an ISO date with a 4-digit year, 'YYYY-MM-DD' with an optional "
                "time)" if isinstance(value, str) else "")
        raise InvalidParameter(f"{name} must be a date or datetime, got {quoted(value)}"
                               f"{rule}{_meant_date(value)}")
    when = when.tz_convert(None) if when.tz is not None else when  # None: to UTC, then naive
    if not 1 <= when.year <= 9999:  # pandas has year 0 (and 1 +05:00 is year 0 in UTC); no
        # calendar a plot or strftime draws has: a crash after the figure was made
        raise InvalidParameter(f"{name} must be a date in the years 1 to 9999 (in UTC), got "
                               f"{quoted(value)}")
    return when


def _iso_timestamp(text: str) -> pd.Timestamp:
    """An ISO text (:data:`_ISO_DATE`) as a Timestamp: pandas reads it; one pandas 2 holds in
    no nanoseconds (years before 1677 or after 2262: pandas 3 reads text in finer units) is
    read by Python, whose datetime pandas 2 holds in microseconds (one date, one answer
    under both versions)."""
    try:
        return pd.to_datetime(text, format="ISO8601")
    except OutOfBoundsDatetime:
        return pd.Timestamp(dt.datetime.fromisoformat(text))


def _meant_date(value: object) -> str:
    """``"; did you mean '2018-06-01'?"`` for a text that writes a date another way with its
    year in 4 digits first (``"2018/06/01"``, ``"٢٠١٨-٠٦-٠١"``, ISO's basic ``"20180601"``)
    or its month in words (``"June 1, 2018"``), never one whose order of day and month is a
    guess (``"01.06.2018"``); a zone apart after it (``"2018-06-01 12:00 UTC"``,
    ``"... +02:00"``) is kept, as an offset. A whole number of 8 digits is read as ISO's
    basic form (``20180601``, as a spreadsheet or ``read_csv`` gives such a date); no other
    number says a date plainly (``2018`` is no day).

    Examples
    --------
    >>> _meant_date(20180601), _meant_date(np.float64(20180601.0)), _meant_date(2018)
    ("; did you mean '2018-06-01'?", "; did you mean '2018-06-01'?", '')
    """
    if isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool):
        number = value if isinstance(value, int | np.integer) else (  # NaN, inf: no whole
            int(value) if float(value).is_integer() else 0)
        if not 10**7 <= number < 10**8:  # 20180601, never 2018 or -20180601
            return ""
        value = str(int(number))
    if not isinstance(value, str):
        return ""
    text = "".join(str(unicodedata.decimal(c)) if unicodedata.decimal(c, None) is not None
                   else c for c in value.strip())
    zone = _ZONE.search(text)
    text = text[:zone.start()] if zone else text
    compact = re.fullmatch(r"([0-9]{4})([0-9]{2})([0-9]{2})", text, re.ASCII)
    if compact:  # ISO's basic form of a date ("20180601"), its year first: no guess
        text = "-".join(compact.groups())
    year = re.match(r"[0-9]{4}\b", text, re.ASCII)
    if not year and not (re.search(r"[A-Za-z]{3}", text) and len(re.findall(
            r"[0-9]+", text, re.ASCII)) == 2 and re.search(r"\b[0-9]{4}\b", text, re.ASCII)):
        return ""
    try:  # pandas 2.2 drops a zone it does not know ("CET") with a FutureWarning: refused
        with warnings.catch_warnings():
            warnings.simplefilter("error", FutureWarning)
            when = pd.Timestamp(text)
    except (TypeError, ValueError, FutureWarning):
        return ""
    if when is pd.NaT or when.tz is not None or f"{when.year:04d}" not in text:
        return ""
    try:  # pandas 2.2 holds no year before 1677 in text, and has no strftime for year 0
        if zone:  # its offset written ISO's way: "+00:00" for UTC (a date alone needs none)
            when = when.tz_localize(_offset(zone))
        meant = when.isoformat(sep=" ") if when != when.normalize() or (
            when.utcoffset()) else when.strftime("%Y-%m-%d")
        pd.to_datetime(meant, format="ISO8601")  # never a suggestion this pandas refuses
    except (ValueError, NotImplementedError, OverflowError):
        return ""
    return f"; did you mean {meant!r}?" if re.match(r"[0-9]{4}-", meant, re.ASCII) else ""


def _offset(zone: re.Match[str]) -> dt.timezone:
    """The offset a zone written apart names (:data:`_ZONE`); ValueError past 23:59."""
    if zone["utc"]:
        return dt.UTC
    minutes = int(zone["hours"]) * 60 + int(zone["minutes"] or 0)
    return dt.timezone(dt.timedelta(minutes=-minutes if zone["sign"] == "-" else minutes))

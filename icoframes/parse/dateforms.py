"""The forms a date is written in: month names, roadmap keys, two-digit years.

The patterns both readers of dates share: :func:`read_label` reads a roadmap key with them,
and :func:`icoframes.parse.dates.parse_datetime` reads the date of a start or end date with
the same ones (``"1 March 2018"``, ``"2018/03/01"``), so that one kind of text has one rule.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Final

from ..reasons import Reason
from .text import foreign_digits, normalize_text

__all__ = ["PRECISIONS", "YEARS", "date_text", "parse_label_date", "read_label", "read_stamp",
           "swappable"]

#: Dates outside these years are unreadable: no ICO happened then, and pandas'
#: nanosecond timestamps (which to_usd and the plots use) end in 2262.
YEARS: Final = (1990, 2100)


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
        (rf"(?P<half>[12])\s*h[\s,/-]*{_YEAR}", "half"),  # "2H 2018", as "3Q 2018"
        (rf"{_YEAR}[\s,/-]*h(?P<half>[12])", "half"),
        (rf"(?P<day>[0-9]{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}[\s,]*{_YEAR4}", "day"),
        # "01-Mar-2018", "1/Mar/2018": the month named, so no order in doubt
        (rf"(?P<day>[0-9]{{1,2}})(?P<sep>[-/]){_MONTH}(?P=sep){_YEAR4}", "day"),
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
    ``'3rd quarter 2018'`` (``quarter``), halves ``'H2 2019'``, ``'2H 2019'`` (``half``) and a
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

    Why a key names none is :func:`icoframes.parse.dates.date_reason`'s answer (``us_order``,
    ``unreadable_date``, ``date_out_of_range`` for these).
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


_WEEKDAYS: Final = {
    name: number
    for number, names in enumerate(
        [("mon", "monday"), ("tue", "tues", "tuesday"), ("wed", "wednesday"),
         ("thu", "thur", "thurs", "thursday"), ("fri", "friday"), ("sat", "saturday"),
         ("sun", "sunday")])
    for name in names
}
_WEEKDAY = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
# A day any form of read_label reads, then a time, then a zone that states its offset: "Z",
# "UTC", "GMT", an ISO 8601 offset (two-digit hours: "+08:00", "+0800", "+08"), after "UTC" or
# "GMT" or not. A weekday may come first ("Thu, 01 Mar 2018 12:00:00 GMT"), JavaScript's
# comment in brackets after "GMT+0800" ("(China Standard Time)"). A zone name without an
# offset ("PST", "CET": which offset, in summer?) or a one-digit one ("UTC+8") is no zone.
_STAMP_RE: Final = re.compile(
    rf"(?:(?P<weekday>{_WEEKDAY})\.?,?\s+)?(?P<date>.+?)"
    r"(?:(?P<sep>\s+|T)(?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{2})"
    r"(?::(?P<second>[0-9]{2})(?:\.(?P<fraction>[0-9]{1,6}))?)?"
    r"(?P<zone>\s*(?:Z|(?P<named>UTC|GMT)?\s*(?P<sign>[+-])(?P<zh>[0-9]{2})(?::?(?P<zm>[0-9]{2}))?"
    r"|UTC|GMT)(?:\s+\((?P<comment>[^()]*)\))?)?)?",
    re.IGNORECASE)
# A bare offset after "hh:mm" may be the end of a time range ("10:00-12:00", open 10 to 12):
# it is an offset only after seconds ("10:00:00-05:00"), in ISO 8601's "2018-03-01T10:00-05:00"
# or after "UTC"/"GMT"; otherwise the text is no timestamp.
_ISO_DAY_RE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# A comment naming UTC contradicts any offset but zero ("GMT+0800 (UTC)").
_UTC_NAME_RE: Final = re.compile(r"\b(?:UTC|GMT|Z|Universal|Greenwich)\b", re.IGNORECASE)
# Real offsets run from -12:00 to +14:00.
_MAX_OFFSET: Final = timedelta(hours=14)


def read_stamp(text: str, *, day_first: bool = False) -> datetime | Reason | None:
    """The moment ``text`` (as :func:`date_text` gives it) writes: a day :func:`read_label` reads
    to the day, then maybe a time and a zone; None when it is no such text.

    A value that states its offset (``Z``, ``UTC``, ``+08:00``) is converted to UTC: the
    offset is written, not guessed. One without keeps the time as written (no zone). A bare
    offset is read only where it cannot end a time range (``"10:00-12:00"``): after seconds,
    in ISO 8601's ``T`` form, or after ``UTC``/``GMT``. A comment in brackets is read only after
    ``GMT±hhmm`` (JavaScript's) and must not name UTC for another offset. ``24:00``
    is the end of the day (the next day's 00:00). A weekday that is not the date's is
    ``impossible_date``. A slashed day whose day and month could swap (``"03/04/2018"``: the
    month-first convention) is ``ambiguous_order`` unless ``day_first`` (its profile writes a
    slashed day first: ``"15/03/2018"``). The caller checks :data:`YEARS`.

    Examples
    --------
    >>> read_stamp("2018-03-01T12:00:00+08:00"), read_stamp("1 March 2018")
    (datetime.datetime(2018, 3, 1, 4, 0), datetime.datetime(2018, 3, 1, 0, 0))
    >>> read_stamp("Thu Mar 01 2018 12:00:00 GMT+0800 (China Standard Time)")
    datetime.datetime(2018, 3, 1, 4, 0)
    >>> read_stamp("31.03.2018 24:00:00"), read_stamp("Fri, 01 Mar 2018 12:00:00 GMT")
    (datetime.datetime(2018, 4, 1, 0, 0), 'impossible_date')
    >>> read_stamp("2018-03-01 12:00 PST"), read_stamp("Q3 2018"), read_stamp("01.03.2018 25:00")
    (None, None, None)
    >>> read_stamp("01.03.2018 10:00-12:00"), read_stamp("01.03.2018 12:00:00 UTC (CET)")
    (None, None)
    >>> read_stamp("03/04/2018"), read_stamp("03/04/2018", day_first=True)
    ('ambiguous_order', datetime.datetime(2018, 4, 3, 0, 0))
    """
    match = _STAMP_RE.fullmatch(text)
    if match is None:
        return None
    day, precision = read_label(match["date"])
    if day is None or precision != "day":
        return None
    if match["weekday"] and _WEEKDAYS[match["weekday"].lower()] != day.weekday():
        return "impossible_date"  # "Fri, 01 Mar 2018": which of the two is wrong?
    if not day_first and swappable(match["date"], slashed=True):
        return "ambiguous_order"  # "03/04/2018": slashes are the month-first convention
    if match["hour"] is None:
        return day
    hour, minute, second = int(match["hour"]), int(match["minute"]), int(match["second"] or 0)
    micro = int((match["fraction"] or "0").ljust(6, "0"))
    if hour == 24 and minute == second == micro == 0:
        hour, day = 0, day + timedelta(days=1)  # "24:00:00": the end of the day
    if hour > 23 or minute > 59 or second > 59:
        return None
    when = day.replace(hour=hour, minute=minute, second=second, microsecond=micro)
    named = (match["named"] or "").upper()
    if match["sign"] and not named and match["second"] is None and not (
            match["sep"] == "T" and _ISO_DAY_RE.fullmatch(match["date"])):
        return None  # "01.03.2018 10:00-12:00": a time range, or 10:00 at UTC-12?
    offset = timedelta(hours=int(match["zh"] or 0), minutes=int(match["zm"] or 0))
    if match["comment"] is not None and (named != "GMT" or not match["sign"] or (
            offset and _UTC_NAME_RE.search(match["comment"]))):
        return None  # "12:00 UTC (CET)", "+08:00 (PST)": which is right?
    if match["sign"]:
        if offset > _MAX_OFFSET or int(match["zm"] or 0) > 59:
            return None
        when -= offset if match["sign"] == "+" else -offset
    return when


# A day written number first: day, month, four-digit year (then maybe a time), as read_label's
# first pattern and parse_datetime's documented shape read it.
_DAY_FIRST_RE: Final = re.compile(
    r"(?P<a>[0-9]{1,2})(?P<s1>[-./])(?P<b>[0-9]{1,2})(?P<s2>[-./])[0-9]{4}(?![0-9])")


def swappable(text: str, *, slashed: bool = False) -> bool:
    """True when ``text`` (as :func:`date_text` gives it) starts with a day written number first
    whose day and month could swap: both 1-12 and not equal (``"03.04.2018"``; ``"03.03.2018"``
    is one day either way, ``"13.04.2018"`` one order only). ``slashed``: only such a day
    written with a slash (``"03/04/2018"``).

    Examples
    --------
    >>> swappable("03.04.2018 00:00:00"), swappable("03/03/2018"), swappable("13-04-2018")
    (True, False, False)
    >>> swappable("2018-03-04"), swappable("03.2018"), swappable("4 March 2018")
    (False, False, False)
    >>> swappable("03.04.2018", slashed=True), swappable("03/04/2018", slashed=True)
    (False, True)
    """
    match = _DAY_FIRST_RE.match(text)
    if match is None or (slashed and "/" not in match["s1"] + match["s2"]):
        return False
    a, b = int(match["a"]), int(match["b"])
    return a != b and 1 <= a <= 12 and 1 <= b <= 12

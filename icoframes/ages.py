"""An age argument (``max_age``, ``profile_max_age``, ``older_than``, ``rate_max_age``): one rule.

A timedelta, a pandas Timedelta, a NumPy timedelta64 with a unit, or a real number of
seconds (never a bool) that a timedelta holds. Text is read one way: text writing a number
is that number, so seconds, by the one rule of numbers as text
(:func:`~icoframes.numerals.number_text`: ``" 3 "`` is 3 seconds, as ``budget=" 3 "`` is 3
and ``--max-age 3`` 3 seconds); other text is a duration with its unit, as
:class:`pandas.Timedelta` reads it (``"7D"``, ``"12h"``, ``"90min"``, ``"1 day 6h"``,
``"P7D"``: :func:`duration_text`). Infinity, NaN, NaT and the negative are no age.
:func:`as_age` reads one, :func:`age_hint` says what a refused one most likely meant.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import numbers
import re
import warnings
from collections.abc import Callable
from typing import Any, Final, TypeAlias

import numpy as np
import pandas as pd

from .joinedlists import joined_parts
from .numerals import TOO_MANY_SECONDS, did_you_mean_number, meant_number, number_text
from .quoting import quoted

__all__ = ["AGE_FORMS", "LEAST_AGE", "Age", "age_hint", "age_option", "as_age", "days_meant",
           "duration_text", "durations_meant", "numpy_duration", "seconds_of", "seconds_option",
           "seconds_under_a_day"]

#: What an age argument takes, as its refusals say it.
AGE_FORMS: Final = "a timedelta, a duration such as '7D' or '12h', seconds"
#: The type of every age argument (``max_age``, ``profile_max_age``, ``older_than``,
#: ``rate_max_age``): a timedelta (a ``pd.Timedelta`` is one), a NumPy timedelta64 with
#: a unit, text (``"12h"``, ``"30D"``; a number written as text is seconds) or a real
#: number of seconds; ``None`` where the argument documents it (any age). The runtime
#: still refuses a negative or unreadable age, with a "did you mean".
Age: TypeAlias = str | dt.timedelta | np.timedelta64 | float | np.integer[Any] | np.floating[Any]


def numpy_duration(value: np.timedelta64) -> pd.Timedelta | None:
    """A NumPy timedelta64 as :class:`pandas.Timedelta` reads it, or None when it is no
    duration: NaT, a count without a unit (NumPy's generic unit: 7 nanoseconds to pandas,
    a week to a reader), years or months (of no fixed length), or beyond pandas' range.

    The one rule for a timedelta64 argument (``max_age``, ``rate_max_age``...).

    Examples
    --------
    >>> numpy_duration(np.timedelta64(7, "D")), numpy_duration(np.timedelta64(7))
    (Timedelta('7 days 00:00:00'), None)
    >>> numpy_duration(np.timedelta64(1, "Y")), numpy_duration(np.timedelta64(10**15, "D"))
    (None, None)
    """
    if np.isnat(value) or np.datetime_data(value.dtype)[0] == "generic":
        return None
    try:
        return pd.Timedelta(value)
    except (ValueError, OverflowError):  # a unit pandas refuses, or out of its bounds
        return None


#: The shortest age other than 0: a timedelta's resolution. A shorter positive one would be
#: held as 0 ("always stale"): refused, not read so (``--max-age 1e-400``, 1e-7 seconds).
LEAST_AGE = dt.timedelta(microseconds=1)


def duration_text(text: str) -> pd.Timedelta | None:
    """``text`` as a duration written with its unit, as :class:`pandas.Timedelta` reads it
    (``"7D"``, ``"12h"``, ``"1 day 6h"``, ``"00:30:00"``, ``"P7D"``), or None: for text
    writing a number alone (its unit is the argument's: seconds, :func:`as_age`; pandas
    would read nanoseconds), text pandas refuses (``"1 month"``: a month has no fixed length),
    NaT, an ISO duration of months or years (``"P1M"``, a month, is a minute to pandas),
    and text that means two things (:func:`_ambiguous`: ``"6m"``, minutes or months;
    ``"1D,7D"``, a list pandas would sum).

    Examples
    --------
    >>> duration_text("7D"), duration_text(" 12h "), duration_text("1 day 6h")
    (Timedelta('7 days 00:00:00'), Timedelta('0 days 12:00:00'), Timedelta('1 days 06:00:00'))
    >>> duration_text("7"), duration_text("1M"), duration_text("P1M"), duration_text("NaT")
    (None, None, None, None)
    >>> duration_text("6m"), duration_text("7D,12h"), duration_text("1 day, 6:00:00")
    (None, None, Timedelta('1 days 06:00:00'))
    """
    word = str(text).strip()  # str(): pandas 2.2's parser takes an exact str only
    if (not _UNIT.search(word) or _ISO_MONTHS.match(word) or _ambiguous(word)
            or _REMOVED_ALIAS.search(word)):
        return None
    try:
        with warnings.catch_warnings():  # "7d", "12H": pandas reads them, warning that a
            warnings.simplefilter("ignore")  # later pandas will not (age_hint's case then)
            duration = pd.Timedelta(word)
    except (ValueError, OverflowError):
        return None
    return None if pd.isna(duration) else duration


# a unit (a letter, or hh:mm:ss's colon): without one, text writes a number (numerals' rule)
_UNIT = re.compile(r"[A-Za-z:]")
_ISO_MONTHS = re.compile(r"[+-]?P[^T]*[YM]", re.IGNORECASE)
_ISO = re.compile(r"[+-]?P", re.IGNORECASE)
# pandas 3 reads none of its old one-letter aliases ("7T" minutes, "5L" milliseconds, "U",
# "N"); pandas 2.2 still does, warning: refused on both, so that a text means one thing
_REMOVED_ALIAS = re.compile(r"\d\s*[TLUN](?![A-Za-z])", re.IGNORECASE)
# a number with the bare unit m: minutes to pandas, months in a tenor ("6m", "1y")
_BARE_M = re.compile(r"\d\s*m(?![a-z])", re.IGNORECASE)
# str(timedelta)'s one duration with a comma: "1 day, 6:00:00", "2 days, 0:00:00.5" (other
# durations joined as a list, "1D,7D,90D", which pandas would sum, are refused: _joined)
_PYTHON_DAYS = re.compile(r"\d+ days?, \d{1,2}:\d\d:\d\d(\.\d+)?")


def _ambiguous(word: str) -> bool:
    """Whether ``word``, which pandas may read, means more than one thing: a number with
    the bare unit ``m`` (``"6m"``: six minutes to pandas, six months in a tenor; ISO's
    ``"PT6M"`` is minutes, its ``"P6M"`` months, which is refused anyway), or a list of
    durations joined by commas, semicolons or bars (pandas reads ``"7D,12h"`` as their
    sum), except the one duration ``str(timedelta)`` writes (``"1 day, 6:00:00"``).
    Groups joined by spaces (``"1 day 6h"``) are one duration, as one writes it."""
    return _joined(word) or _bare_m(word)


def _bare_m(word: str) -> bool:
    """Whether ``word`` writes a number with the bare unit ``m`` (not ISO's ``"PT6M"``)."""
    return not _ISO.match(word) and _BARE_M.search(word) is not None


def _joined(word: str) -> bool:
    """Whether ``word`` joins durations as a list (``"7D,12h"``), not as ``str(timedelta)``."""
    return bool(joined_parts(word, slashes=False)) and not _PYTHON_DAYS.fullmatch(word)


def as_age(value: object) -> dt.timedelta | None:
    """``value`` as an age of 0 or more, or None when it is none.

    A timedelta (a pandas Timedelta, a NumPy timedelta64 with a unit: see
    :func:`numpy_duration`), or a real number of seconds (a NumPy number or a
    Fraction too; never a bool) that a timedelta holds, or text: writing a number in
    ASCII digits, that many seconds (:func:`~icoframes.numerals.number_text`, as every
    number given as text), else a duration with its unit (:func:`duration_text`):
    infinity, NaN, NaT, the negative, and a positive age shorter than :data:`LEAST_AGE`
    (held as 0, it would mean "always stale") are no age.

    Examples
    --------
    >>> as_age(90), as_age(np.int64(90)), as_age(np.timedelta64(90, "s"))
    (datetime.timedelta(seconds=90), datetime.timedelta(seconds=90), datetime.timedelta(seconds=90))
    >>> as_age(" 90 "), as_age("+1.5e2"), as_age("\u0669\u0660"), as_age("-1"), as_age("-1D")
    (datetime.timedelta(seconds=90), datetime.timedelta(seconds=150), None, None, None)
    >>> as_age("90s"), as_age("7D"), as_age("1 day 6h")
    (Timedelta('0 days 00:01:30'), Timedelta('7 days 00:00:00'), Timedelta('1 days 06:00:00'))
    >>> as_age(True), as_age(float("inf")), as_age(-1), as_age(np.timedelta64(90))
    (None, None, None, None)
    >>> as_age(0), as_age(1e-7), as_age(np.timedelta64(1, "ns")), as_age(pd.Timedelta("1ns"))
    (datetime.timedelta(0), None, None, None)
    """
    if isinstance(value, str):  # " 3 ": 3 seconds, as budget=" 3 " is 3 (numerals' one rule)
        number = number_text(value)
        value = number if number is not None else duration_text(value)  # "7D": pandas'
    if _too_short(value):
        return None
    if isinstance(value, np.timedelta64):
        duration = numpy_duration(value)
        value = None if duration is None else duration.to_pytimedelta()
    if (seconds := seconds_of(value)) is not None:
        value = dt.timedelta(seconds=seconds) if 0 <= seconds < TOO_MANY_SECONDS else None
    if isinstance(value, dt.timedelta) and value >= dt.timedelta(0):
        return value
    return None


def _too_short(value: object) -> bool:
    """Whether ``value`` is a positive age shorter than :data:`LEAST_AGE` (1e-7 seconds,
    ``Fraction(1, 10**400)``, whose float is 0.0, a nanosecond): what an age would hold as 0."""
    if isinstance(value, np.timedelta64):
        value = numpy_duration(value)  # nanoseconds kept: pandas' resolution
    if isinstance(value, dt.timedelta):
        return dt.timedelta(0) < value < LEAST_AGE
    seconds = seconds_of(value)
    if seconds is None:
        return False
    try:  # underflowed: Fraction(1, 10**400) is no 0
        return 0 < seconds < 1e-6 or (seconds == 0 and bool(value > 0))  # type: ignore[operator]
    except Exception:  # a number that compares with nothing: no age either way, as_age says
        return False


def seconds_of(value: object) -> float | None:
    """``value`` as a number of seconds when it is one: a real number (an int, a float, a
    NumPy number, a Fraction), never a bool nor a timedelta64 (a NumPy integer with a unit);
    an int past float's range (10**400) is infinite; NaN stays NaN. Else None.

    Examples
    --------
    >>> from fractions import Fraction
    >>> seconds_of(90), seconds_of(Fraction(3, 2)), seconds_of(np.float32(0.5))
    (90.0, 1.5, 0.5)
    >>> seconds_of(True), seconds_of(np.timedelta64(90, "s")), seconds_of("90")
    (None, None, None)
    """
    if not isinstance(value, numbers.Real) or isinstance(value, bool | np.bool_ | np.timedelta64):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf


def seconds_under_a_day(value: object) -> float | None:
    """The seconds ``value`` gives when it is a count without a unit (a real number, never a
    bool; text writing one, or that most likely means one, ``"\u0663\u0660"``) of more than 0
    and less than a day, else None: where an age is one of days (``older_than``,
    ``rate_max_age``), such a count most likely means days (``icoframes cache prune
    --older-than 30``: 30 days), and is refused with :func:`days_meant`.

    Examples
    --------
    >>> seconds_under_a_day(30), seconds_under_a_day(" 30 "), seconds_under_a_day("\u0663\u0660")
    (30.0, 30.0, 30.0)
    >>> seconds_under_a_day(0), seconds_under_a_day(86400), seconds_under_a_day("30s")
    (None, None, None)
    >>> seconds_under_a_day(True), seconds_under_a_day(-1)
    (None, None)
    >>> seconds_under_a_day(np.timedelta64(30, "s")), seconds_under_a_day(dt.timedelta(seconds=30))
    (None, None)
    """
    number = (number_text(value) if number_text(value) is not None
              else meant_number(value, whole=False)) if isinstance(value, str) else value
    seconds = seconds_of(number)
    return seconds if seconds is not None and 0 < seconds < _DAY_SECONDS else None


_DAY_SECONDS: Final = 86_400


def days_meant(seconds: float) -> str:
    """The "did you mean" of a count of ``seconds`` under a day where ages are of days
    (:func:`seconds_under_a_day`): that many days, or past a year of days, seconds with
    their unit.

    Examples
    --------
    >>> days_meant(30), days_meant(3600)
    ("; did you mean '30D'?", "; did you mean '3600s'?")
    """
    return f"; did you mean '{seconds:g}{'D' if seconds <= 366 else 's'}'?"


def age_hint(value: object) -> str:
    """What to add to the refusal of an age :func:`as_age` refuses: the "did you mean" of one
    given as other text, ``"\u0669\u0660"`` or ``"9_0"`` (seconds: 90) or ``"1D"``
    (``pd.Timedelta('1D')``); why a finite number of seconds, or text writing one, is
    refused when a timedelta cannot hold it; else ``""``.

    Examples
    --------
    >>> age_hint("9_0"), age_hint("2 weeks"), age_hint("soon"), age_hint(90)
    ('; did you mean 90?', "; did you mean '2W'?", '', '')
    >>> for text in ("1 month", "P1Y", "6m", "7D,12h"):
    ...     print(age_hint(text).strip())
    (a month has no fixed length); did you mean '30D'?
    (a year has no fixed length); did you mean '365D'?
    (m: minutes or months?); did you mean '6min' or '180D'?
    (durations joined into one text, which would be read as their sum: an age is one duration)
    >>> age_hint(1e308) == age_hint("1e308"), age_hint(1e308), age_hint(float("inf"))
    (True, ' (more seconds than a timedelta holds: below 8.64e+13)', '')
    >>> age_hint("1ns"), age_hint("-1D")
    (' (a positive age shorter than a microsecond, which an age would hold as 0)', '')
    """
    if isinstance(value, str) and (seconds := number_text(value)) is not None:
        return age_hint(seconds)  # text read as its number: refused for that number's reason
    if isinstance(value, str) and (duration := duration_text(value)) is not None:
        return age_hint(duration)  # "1ns", "-1D": refused for that duration's reason
    if _too_short(value):
        return " (a positive age shorter than a microsecond, which an age would hold as 0)"
    if not isinstance(value, str):
        finite = seconds_of(value) is not None and value < math.inf  # type: ignore[operator]
        if finite and value >= TOO_MANY_SECONDS:  # type: ignore[operator]  # 10**400 too
            return f" (more seconds than a timedelta holds: below {TOO_MANY_SECONDS:.3g})"
        return ""
    word = value.strip()
    if _UNIT.search(word) and _joined(word):  # "7D,12h"; "1,000" is a number's
        return (" (durations joined into one text, which would be read as their sum: "
                "an age is one duration)")
    # "\u0663", "1_000": the number Python reads (ASCII digits only here), whole if it is one
    meant = did_you_mean_number(value, low=0, high=TOO_MANY_SECONDS - 1) or did_you_mean_number(
        value, whole=False, low=0, high=TOO_MANY_SECONDS - 1)
    return meant or _unit_hint(value)


#: Units pandas does not read, to the one it does (a week: "W"); months and years (of no
#: fixed length) to their days, the length a reader most likely means ("1 mo": "30D"; the
#: bare "m", minutes or months, is asked about: _unit_hint).
_UNIT_WORDS: Final = {"w": "W", "wk": "W", "wks": "W", "week": "W", "weeks": "W",
                      "hrs": "h", "hour": "h", "hours": "h", "mins": "min", "secs": "s",
                      "t": "min", "l": "ms", "u": "us", "n": "ns", "d": "D"}
_FIXED_DAYS: Final = {"month": 30, "year": 365}
_LONG_UNITS: Final = {"m": "month", "mo": "month", "mos": "month", "month": "month",
                      "months": "month", "y": "year", "yr": "year", "yrs": "year",
                      "year": "year", "years": "year"}
_NUMBER_UNIT = re.compile(r"\+?P?(\d+(?:\.\d+)?)\s*([A-Za-z]+)")


def durations_meant(text: str, *, months: bool = True) -> list[pd.Timedelta]:
    """The durations a text in a unit pandas does not read (or that means two things) most
    likely means, as its refusal suggests them (:func:`age_hint`): ``"6m"``, 6 minutes or
    180 days (not ``months``: 6 minutes only); ``"2 weeks"``, 14 days; ``"7T"``, 7 minutes;
    ``[]`` when it suggests none. A setting of seconds (``timeout``), which no one writes in
    months, suggests the seconds of those it takes.

    Examples
    --------
    >>> durations_meant("6m")
    [Timedelta('0 days 00:06:00'), Timedelta('180 days 00:00:00')]
    >>> durations_meant("0.001m", months=False)
    [Timedelta('0 days 00:00:00.060000')]
    >>> durations_meant("12 hrs"), durations_meant("7T"), durations_meant("soon")
    ([Timedelta('0 days 12:00:00')], [Timedelta('0 days 00:07:00')], [])
    """
    return [pd.Timedelta(meant) for meant in _unit_meant(text, months=months)[1]]


def _unit_hint(text: str) -> str:
    """The "did you mean" of a duration in a unit pandas does not read (:func:`_unit_meant`),
    after why it is refused when that is not the unit alone."""
    why, meant = _unit_meant(text)
    return why + (f"; did you mean {' or '.join(map(repr, meant))}?" if meant else "")


def _unit_meant(text: str, *, months: bool = True) -> tuple[str, list[str]]:
    """Why a duration in a unit pandas does not read is refused, when that is not the unit
    alone (``""``), and what it most likely means, as text an age takes (a hint never
    suggests a refused one, ``"9e9m"``'s days past a timedelta's): ``"2 weeks"``,
    ``"1 month"`` or ``"P1Y"`` (ISO, which pandas reads as a minute for "P1M"), ``"7T"``;
    or in a case a later pandas no longer reads (``"7d"``)."""
    word = text.strip()
    found = _NUMBER_UNIT.fullmatch(word)
    if found is None:  # "1m30s": which m, the text says no more
        return (" (m: minutes or months?)" if _bare_m(word) else ""), []
    number, unit = float(found[1]), found[2]
    if _bare_m(word):  # "6m": minutes to pandas
        return " (m: minutes or months?)", _taken(f"{number:g}min",
                                                  *([f"{number * 30:g}D"] if months else []))
    if (long := _LONG_UNITS.get(unit.casefold())) is not None:
        return f" (a {long} has no fixed length)", _taken(f"{number * _FIXED_DAYS[long]:g}D")
    for meant in (_UNIT_WORDS.get(unit.casefold()), unit.lower(), unit.upper()):
        if meant and _reads_cleanly(f"{number:g}{meant}"):
            return "", [f"{number:g}{meant}"]
    return "", []


def _taken(*texts: str) -> list[str]:
    """Those ``texts`` an age takes, written as pandas reads them without a warning."""
    return [text for text in texts if _reads_cleanly(text)]


def _reads_cleanly(text: str) -> bool:
    """Whether ``text`` is an age :func:`as_age` takes, written in a form pandas reads without
    a warning (``"3S"`` is read, but deprecated: ``"3s"``): what a hint may suggest."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            pd.Timedelta(text)
        except Exception:  # a warning raised, or pandas refuses it
            return False
    return as_age(text) is not None


#: The seconds of a count without a unit, per an age option's unit.
_OPTION_UNITS: Final = {"seconds": 1, "days": _DAY_SECONDS}
# one status's age given where the option is one age for all ("past=30D")
_STATUS_AGE = re.compile(r"\s*(?:ongoing|upcoming|past)\s*=\s*(.+)", re.IGNORECASE)


def age_option(unit: str) -> Callable[[str], dt.timedelta]:
    """The type of an age option of the command line (``export --max-age`` in ``"seconds"``,
    ``cache prune --older-than`` in ``"days"``): a duration with its unit read as
    :func:`as_age` reads it (``"12h"``, ``"30D"``), a number without one (ASCII digits, as
    every number the command reads) in ``unit``; anything else is refused by the parser
    (exit 2, naming the option) with what it most likely means (:func:`age_hint`).

    Examples
    --------
    >>> days = age_option("days")
    >>> days("30"), days("12h")
    (datetime.timedelta(days=30), Timedelta('0 days 12:00:00'))
    >>> try:
    ...     days("2 weeks")
    ... except argparse.ArgumentTypeError as exc:
    ...     print(str(exc).split(", got ")[1])
    '2 weeks'; did you mean '2W'?
    """
    scale = _OPTION_UNITS[unit]
    rule = (f"a duration such as 12h or 30D, or a finite number of {unit} >= 0 that a "
            f"timedelta holds (below {TOO_MANY_SECONDS / scale:.3g})")

    def convert(text: str) -> dt.timedelta:
        number = number_text(text)
        value: object = text if number is None else number * scale
        age = as_age(value)
        if age is not None:
            return age
        if number is not None:  # the rule says its range; a positive one held as 0, why
            hint = age_hint(value) if _too_short(value) else ""
        elif (status := _STATUS_AGE.fullmatch(text)) and _option_reads(status[1], scale):
            hint = f"; the option is one age for every status: did you mean {status[1]!r}?"
        else:
            hint = age_hint(text)
        # a text read as an age is no key: shown (hidden, the quotes of the hint would not pair)
        raise argparse.ArgumentTypeError(f"must be {rule}, got {quoted(text, keys=not hint)}"
                                         f"{hint}")
    convert.__name__ = f"age in {unit}"  # argparse names the type when a conversion fails
    return convert


def _option_reads(text: str, scale: int) -> bool:
    """Whether an age option whose count without a unit is of ``scale`` seconds takes
    ``text``."""
    number = number_text(text)
    return as_age(text if number is None else number * scale) is not None


_SECONDS_AGE: Final = age_option("seconds")


def seconds_option(text: str) -> float:
    """``export --max-age`` and ``--profile-max-age``: an age (:func:`age_option`, a number
    without a unit in seconds) as its seconds, as the export's manifest says them."""
    return _SECONDS_AGE(text).total_seconds()

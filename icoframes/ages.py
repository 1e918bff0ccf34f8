"""An age argument (``max_age``, ``profile_max_age``, ``older_than``, ``rate_max_age``): one rule.

A timedelta, a pandas Timedelta, a NumPy timedelta64 with a unit, or a real number of
seconds (never a bool) that a timedelta holds, written as text too by the one rule of
numbers as text (:func:`~icoframes.numerals.number_text`: ``" 3 "`` is 3 seconds, as
``budget=" 3 "`` is 3 and ``--max-age 3`` 3 seconds); infinity, NaN, NaT and the negative are
no age. :func:`as_age` reads one, :func:`age_hint` says what a refused one most likely
meant (moved here from :mod:`icoframes.files`, whose file primitives they are not).
"""

from __future__ import annotations

import datetime as dt
import math
import numbers

import numpy as np
import pandas as pd

from .numerals import TOO_MANY_SECONDS, did_you_mean_number, number_text

__all__ = ["LEAST_AGE", "age_hint", "as_age", "numpy_duration"]


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


def as_age(value: object) -> dt.timedelta | None:
    """``value`` as an age of 0 or more, or None when it is none.

    A timedelta (a pandas Timedelta, a NumPy timedelta64 with a unit: see
    :func:`numpy_duration`), or a real number of seconds (a NumPy number or a
    Fraction too; never a bool) that a timedelta holds, or text writing one in ASCII
    digits (:func:`~icoframes.numerals.number_text`, as every number given as text):
    infinity, NaN, NaT, the negative, and a positive age shorter than :data:`LEAST_AGE`
    (held as 0, it would mean "always stale") are no age.

    Examples
    --------
    >>> as_age(90), as_age(np.int64(90)), as_age(np.timedelta64(90, "s"))
    (datetime.timedelta(seconds=90), datetime.timedelta(seconds=90), datetime.timedelta(seconds=90))
    >>> as_age(" 90 "), as_age("+1.5e2"), as_age("\u0669\u0660"), as_age("90s"), as_age("-1")
    (datetime.timedelta(seconds=90), datetime.timedelta(seconds=150), None, None, None)
    >>> as_age(True), as_age(float("inf")), as_age(-1), as_age(np.timedelta64(90))
    (None, None, None, None)
    >>> as_age(0), as_age(1e-7), as_age(np.timedelta64(1, "ns")), as_age(pd.Timedelta("1ns"))
    (datetime.timedelta(0), None, None, None)
    """
    if isinstance(value, str):  # " 3 ": 3 seconds, as budget=" 3 " is 3 (numerals' one rule)
        value = number_text(value)
    if _too_short(value):
        return None
    if isinstance(value, np.timedelta64):
        duration = numpy_duration(value)
        value = None if duration is None else duration.to_pytimedelta()
    if (seconds := _seconds(value)) is not None:
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
    seconds = _seconds(value)
    if seconds is None:
        return False
    try:  # underflowed: Fraction(1, 10**400) is no 0
        return 0 < seconds < 1e-6 or (seconds == 0 and bool(value > 0))  # type: ignore[operator]
    except Exception:  # a number that compares with nothing: no age either way, as_age says
        return False


def _seconds(value: object) -> float | None:
    """``value`` as a number of seconds when it is one (a real number, never a bool nor a
    timedelta64): an int past float's range (10**400) is infinite; NaN stays NaN."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool | np.bool_ | np.timedelta64):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf


def age_hint(value: object) -> str:
    """What to add to the refusal of an age :func:`as_age` refuses: the "did you mean" of one
    given as other text, ``"\u0669\u0660"`` or ``"9_0"`` (seconds: 90) or ``"1D"``
    (``pd.Timedelta('1D')``); why a finite number of seconds, or text writing one, is
    refused when a timedelta cannot hold it; else ``""``.

    Examples
    --------
    >>> age_hint("9_0"), age_hint(" 1 day "), age_hint("soon"), age_hint("-1D"), age_hint(90)
    ('; did you mean 90?', "; did you mean pd.Timedelta('1 day')?", '', '', '')
    >>> age_hint(1e308) == age_hint("1e308"), age_hint(1e308), age_hint(float("inf"))
    (True, ' (more seconds than a timedelta holds: below 8.64e+13)', '')
    """
    if isinstance(value, str) and (seconds := number_text(value)) is not None:
        return age_hint(seconds)  # text read as its number: refused for that number's reason
    if _too_short(value):
        return " (a positive age shorter than a microsecond, which an age would hold as 0)"
    if not isinstance(value, str):
        finite = _seconds(value) is not None and value < math.inf  # type: ignore[operator]
        if finite and value >= TOO_MANY_SECONDS:  # type: ignore[operator]  # 10**400 too
            return f" (more seconds than a timedelta holds: below {TOO_MANY_SECONDS:.3g})"
        return ""
    # "\u0663", "1_000": the number Python reads (ASCII digits only here), whole if it is one
    meant = did_you_mean_number(value, low=0, high=TOO_MANY_SECONDS - 1) or did_you_mean_number(
        value, whole=False, low=0, high=TOO_MANY_SECONDS - 1)
    if meant:
        return meant
    try:  # str(): pandas 2.2's parser takes an exact str only
        age = pd.Timedelta(str(value).strip())
    except (ValueError, OverflowError):
        return ""
    return f"; did you mean pd.Timedelta({value.strip()!r})?" if age >= pd.Timedelta(0) else ""

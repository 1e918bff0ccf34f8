"""``rate_max_age``, the oldest rate :func:`~icoframes.money.to_usd` takes before a date,
read as every age argument is (``icoframes.ages``).

A duration (``"7D"``, ``"12h"``, a timedelta, a pandas Timedelta, a NumPy timedelta64 with
a unit) or a number of seconds, as text too. Rates are matched by day, so a number of
seconds under a day is refused: ``rate_max_age=7`` most likely means seven days (pandas
reads 7 nanoseconds), and the refusal says ``'7D'``. A duration under a day is taken as
written: its unit says it (any such age takes the date's own day's rate only), unless it is
shorter than a microsecond (``"1ns"``), which every age argument refuses.
"""

from __future__ import annotations

import datetime as dt
from typing import Final, TypeAlias

import numpy as np
import pandas as pd

from ..ages import (
    Age,
    age_hint,
    as_age,
    days_meant,
    duration_text,
    numpy_duration,
    seconds_of,
    seconds_under_a_day,
)
from ..errors import InvalidParameter, quoted
from ..numerals import number_text

__all__ = ["RateMaxAge", "rate_age"]

#: What ``rate_max_age`` takes (:func:`rate_age` reads it).
RateMaxAge: TypeAlias = Age | None

_DAY: Final = dt.timedelta(days=1)


def rate_age(rate_max_age: object, function: str) -> pd.Timedelta | None:
    """``rate_max_age`` as a positive Timedelta (None: any age), or InvalidParameter.

    Examples
    --------
    >>> rate_age("7D", "to_usd"), rate_age(604800, "to_usd"), rate_age("12h", "to_usd")
    (Timedelta('7 days 00:00:00'), Timedelta('7 days 00:00:00'), Timedelta('0 days 12:00:00'))
    >>> from fractions import Fraction
    >>> rate_age(Fraction(604800), "to_usd")  # a real number of seconds, as any age's
    Timedelta('7 days 00:00:00')
    >>> try:
    ...     rate_age("7", "to_usd")
    ... except InvalidParameter as exc:
    ...     print(str(exc).split("; got ")[1])
    '7' (seconds: under the day by which rates are matched); did you mean '7D'?
    """
    if rate_max_age is None:
        return None
    number = number_text(rate_max_age) if isinstance(rate_max_age, str) else rate_max_age
    under = seconds_under_a_day(rate_max_age)  # "7", 7 or "٣": most likely days here
    why = hint = ""
    if seconds_of(number) is not None:  # a count without a unit (a Fraction too):
        # seconds, as every age argument's (a timedelta64 has a unit: a duration)
        age = as_age(number)
        if age is not None and age >= _DAY:
            return pd.Timedelta(age)
        why, hint = (_under_a_day(under) if age and under is not None  # (not under a µs)
                     else ("", age_hint(number)))
    else:
        duration = (duration_text(rate_max_age) if isinstance(rate_max_age, str)
                    else numpy_duration(rate_max_age) if isinstance(rate_max_age, np.timedelta64)
                    else _timedelta(rate_max_age) if isinstance(rate_max_age, dt.timedelta)
                    else None)
        if duration is not None and duration > pd.Timedelta(0) and as_age(duration):
            return duration  # under a day: the date's own day; under a microsecond ("1ns")
            # refused, as by every age argument (an age would hold it as 0)
        why, hint = (_under_a_day(under) if under is not None
                     else (" (longer than a pandas Timedelta holds: about 106,751 days)", "")
                     if isinstance(rate_max_age, dt.timedelta) and duration is None
                     else ("", age_hint(rate_max_age)))
    raise InvalidParameter(
        f"{function}: rate_max_age must be a positive duration, such as '7D', '12h', "
        "pd.Timedelta(days=7) or np.timedelta64(7, 'D'), or seconds of a day or more "
        f"(None: any age); got {quoted(rate_max_age)}{why}{hint}")


def _under_a_day(seconds: float) -> tuple[str, str]:
    """Why a number of seconds under a day is refused, and the days (or, past a year of
    days, the seconds with their unit) it most likely means."""
    return " (seconds: under the day by which rates are matched)", days_meant(seconds)


def _timedelta(value: dt.timedelta) -> pd.Timedelta | None:
    """``value`` as a pandas Timedelta, or None past pandas' range (``timedelta.max``: about
    106,751 days; pandas' own OutOfBoundsTimedelta would say nothing of ``rate_max_age``)."""
    try:
        return pd.Timedelta(value)
    except (ValueError, OverflowError):  # OutOfBoundsTimedelta is a ValueError
        return None

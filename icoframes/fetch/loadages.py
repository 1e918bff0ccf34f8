"""A load's age arguments: ``max_age`` and ``profile_max_age``, read, and refused with
``offline=True`` when they ask the service again (:func:`load_ages`).

Each is read as every age argument is (:mod:`icoframes.ages`); ``profile_max_age`` by
status too, its defaults :data:`PROFILE_MAX_AGE`. A refusal shows an age given as text as
written, with the seconds read from it (``max_age='2D' (172800 seconds)``), and weighs
only the statuses the load asks for: ``profile_max_age="1D"`` on a ``status="past"``
load asks nothing of the ongoing and upcoming ICOs it does not load.
"""

from __future__ import annotations

import datetime as dt
import difflib
import math
from collections.abc import Iterable, Mapping
from typing import Any, Final

import numpy as np

from ..ages import AGE_FORMS, Age, age_hint, as_age, duration_text, numpy_duration, seconds_of
from ..api.params import STATUSES, read_status
from ..errors import InvalidParameter, quoted
from ..numerals import number_text

__all__ = ["DEFAULT_MAX_AGE", "PROFILE_MAX_AGE", "age_limit", "load_ages", "profile_max_age"]

# How old a profile may get before a re-paged list has it fetched again: ongoing ICOs
# change daily (raised, end date), upcoming ones weekly, past ones hardly (token price).
PROFILE_MAX_AGE: Mapping[str, dt.timedelta] = {
    "ongoing": dt.timedelta(days=1),
    "upcoming": dt.timedelta(days=7),
    "past": dt.timedelta(days=90),
}


#: The default ``max_age`` (a day): ``offline=True`` takes it, and any age equal to it (a day
#: written ``86400``: the same argument), refusing other ages (:func:`load_ages`).
DEFAULT_MAX_AGE: Final = dt.timedelta(days=1)


def age_limit(max_age: Age | None) -> dt.timedelta | None:
    """``max_age`` as a timedelta (None: never expires); InvalidParameter when unusable."""
    if max_age is None:
        return None
    return _age(max_age, f"max_age must be {AGE_FORMS} or None, got", never="None never expires")


def load_ages(max_age: Any, profile_ages: Any = None, *, refresh: Any = False,
              offline: bool = False, status: Any = None
              ) -> tuple[dt.timedelta | None, dict[str, dt.timedelta]]:
    """A load's ``max_age`` (:func:`age_limit`) and ``profile_max_age``
    (:func:`profile_max_age`), refused with ``offline=True`` when an argument asks the
    service again: ``refresh`` True or ``"all"``, a ``max_age`` given (not one equal to
    :data:`DEFAULT_MAX_AGE`, nor None: a cached list older than it is paged again)
    or a ``profile_max_age`` given (a profile older than it is fetched again; not for a
    status given its default, :data:`PROFILE_MAX_AGE`, however written, nor for one the
    load does not ask for: ``status``, None for all three). Offline winning
    over them silently would bring the cached rows back as if fetched again, said complete,
    ``max_age=1`` on rows of three days too."""
    limit, ages = age_limit(max_age), profile_max_age(profile_ages)
    asks = [f"refresh={refresh!r}" if isinstance(refresh, str) else "refresh=True"] * bool(
        refresh)
    ages_given = []  # an age given is a wish to ask the service for what is older: any age
    if limit is not None and limit != DEFAULT_MAX_AGE:  # a day, however written: the default
        ages_given.append(f"max_age={_as_written(max_age, limit)}")
    if profile_ages is not None:  # the statuses it names, by age ({} names none)
        written = ({str(key).strip().lower(): age for key, age in profile_ages.items()}
                   if isinstance(profile_ages, Mapping) else dict.fromkeys(STATUSES, profile_ages))
        # as max_age's day: a status given its default age, however written, asks nothing,
        # and one the load does not ask for asks nothing either
        named = [name for name in written if name in _asked(status)
                 and ages[name] != PROFILE_MAX_AGE[name]]
        for age in dict.fromkeys(ages[name] for name in named):
            statuses = [name for name in named if ages[name] == age]
            ages_given.append(f"profile_max_age={_as_written(written[statuses[0]], age)} "
                              f"(for {', '.join(statuses)})")
    asks += ages_given
    if offline and asks:
        without = " and ".join(dict.fromkeys(given.split("=")[0] for given in ages_given))
        raise InvalidParameter(
            f"offline=True uses the cache alone, but {' and '.join(asks)} "
            f"ask{'s' * (len(asks) == 1)} the service again: give one or the other "
            "(offline=True alone returns the cached rows as they are, however old, saying "
            "what is missing)" + (f"; did you mean offline=True without {without}?"
                                  if without else ""))
    return limit, ages


def _asked(status: Any) -> Iterable[str]:
    """The statuses a load of ``status`` asks for (None: all three); all three for a status
    that does not read (refused by the load, with what was meant, right after)."""
    try:
        return STATUSES if status is None else (read_status(status),)
    except InvalidParameter:
        return STATUSES


def _as_written(value: Any, age: dt.timedelta) -> str:
    """An age as a refusal names it: given as text, as written with the seconds read from
    it (``'2D' (172800 seconds)``); else its seconds (a timedelta's, a number's)."""
    seconds = f"{age.total_seconds():g}"
    return f"{quoted(value)} ({seconds} seconds)" if isinstance(value, str) else seconds


def profile_max_age(value: Any) -> dict[str, dt.timedelta]:
    """The maximum profile age per status from the ``profile_max_age`` argument.

    Parameters
    ----------
    value : None, timedelta, seconds or mapping
        ``None``: the defaults (:data:`PROFILE_MAX_AGE`); one age for every
        status; or a mapping by status, the statuses it leaves out keeping
        their default.

    Examples
    --------
    >>> ages = profile_max_age({"ongoing": dt.timedelta(hours=6)})
    >>> ages["ongoing"], ages["past"].days
    (datetime.timedelta(seconds=21600), 90)
    >>> try:
    ...     profile_max_age({"ongoin": 3600})
    ... except InvalidParameter as exc:
    ...     print(exc)
    profile_max_age: unknown status 'ongoin'; did you mean 'ongoing'?
    """
    ages = dict(PROFILE_MAX_AGE)
    if value is None:
        return ages
    if not isinstance(value, Mapping):
        return dict.fromkeys(STATUSES, _age(value))
    given: dict[str, object] = {}
    for status, age in value.items():
        key = str(status).strip().lower()
        if key not in ages:
            close = difflib.get_close_matches(key, list(STATUSES), n=1)
            hint = (f"; did you mean {close[0]!r}?" if close
                    else f"; statuses: {', '.join(STATUSES)}")
            raise InvalidParameter(f"profile_max_age: unknown status {quoted(status)}{hint}")
        if key in given:  # {'past': 3, 'Past': 4}: which one was meant is no one's guess
            raise InvalidParameter(
                f"profile_max_age: the status {key!r} is given twice ({quoted(given[key])} "
                f"and {quoted(status)}); give each status once")
        given[key] = status
        ages[key] = _age(age)
    return ages


def _age(value: Any, refusal: str = (f"profile_max_age must be {AGE_FORMS}, "
                                      "or a mapping of them by status; got"), *,
         never: str = "'3650D' for hardly ever") -> dt.timedelta:
    """An age of at least 0 (see :func:`~icoframes.ages.as_age`), or InvalidParameter, saying
    why a negative or infinite one is refused (``never``: what to give for "never").

    Infinity, NaN and the negative are refused rather than read as "never" or
    "always": ``timedelta(seconds=inf)`` raises OverflowError, and a negative age
    would make every copy stale.
    """
    age = as_age(value)
    if age is None:
        why = ""  # a count without a unit, or of years or months: no fixed length
        if (isinstance(value, np.timedelta64) and not np.isnat(value)
                and np.datetime_data(value.dtype)[0] in ("generic", "Y", "M")):
            why = " (a np.timedelta64 needs a unit other than years or months)"
        elif (seconds := _seconds(value)) is not None and seconds < 0:
            why = " (negative: an age is 0 or more)"
        elif seconds == math.inf and not age_hint(value):  # 10**400: "more seconds than ..."
            why = f" (infinite: an age is finite; {never})"
        raise InvalidParameter(f"{refusal} {quoted(value)}{why}{age_hint(value)}")  # "1D", "90"
    return age


def _seconds(value: Any) -> float | None:
    """The seconds ``value`` gives, of any sign, infinity too: a number (or text writing
    one), a duration (a timedelta, text with its unit, a timedelta64 with one); else None."""
    if isinstance(value, str):
        number = number_text(value)
        value = number if number is not None else duration_text(value)
    elif isinstance(value, np.timedelta64):
        value = numpy_duration(value)
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    return seconds_of(value)

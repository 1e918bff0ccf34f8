"""Day and month order, decided per profile: one ICO's dates are written by one writer.

``DD.MM.YYYY`` is the documented order, and a date that can only be month-first
(``"01.15.2018"``) is ``us_order``. Read one value at a time, a profile whose roadmap holds
``"01/15/2018"`` and ``"03/04/2018"`` would have the second read as 3 April, though its writer
shows it writes the month first (4 March?). So where any start date, end date or roadmap key
of a profile holds a month-first date (anywhere in the text: ``"Mon 01/15/2018"``,
``"03/15/18"``), its dates whose day and month could swap (:func:`~.dateforms.swappable`:
both 1-12, not equal) are not read: NaT, and a problem ``ambiguous_order``. Slashes are the
month-first convention, so a slashed start or end date whose order is open (``"03/04/2018"``)
is read only where the profile writes a slashed date day first (``"15/03/2018"``). The scope is
the whole profile (start, end and roadmap together), the same whichever tables
:func:`~icoframes.parse.profiles.tidy` builds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .text import clean_surrogates

__all__ = ["day_first_ids", "month_first_ids", "order_ids"]

# After NFKC, anywhere in the text (RE2: linear time): a month 1-12, a day 13-31, a year of
# two or four digits, each separated by "-", "." or "/" ("01/15/2018", "Thu 03.15.18 12:00").
_MONTH_FIRST: Final = (r"(?:^|[^0-9])(?:0?[1-9]|1[0-2])[-./](?:1[3-9]|2[0-9]|3[01])[-./]"
                       r"(?:[0-9]{4}|[0-9]{2})(?:[^0-9]|$)")
# A slashed day 13-31 before a month 1-12 ("15/03/2018"): the writer puts the day first.
_DAY_FIRST: Final = (r"(?:^|[^0-9])(?:1[3-9]|2[0-9]|3[01])/(?:0?[1-9]|1[0-2])/"
                     r"(?:[0-9]{4}|[0-9]{2})(?:[^0-9]|$)")
_DATE_FIELDS: Final = ("start_datetime", "end_datetime")


def month_first_ids(profiles: Sequence[Mapping[str, Any]], ids: np.ndarray) -> np.ndarray:
    """The ids (of ``ids``, one per profile) of the profiles that write a date month-first.

    Examples
    --------
    >>> profiles = [{"dates": {"start_datetime": "01.15.2018 00:00:00"}},
    ...             {"roadmap": {"03/04/2018": "Sale", "Mon 12/31/2018": "Listing"}},
    ...             {"dates": {"start_datetime": "03.04.2018"}, "roadmap": {"15-01-2018": "x"}}]
    >>> month_first_ids(profiles, np.array([7, 8, 9])).tolist()
    [7, 8]
    """
    return order_ids(profiles, ids)[0]


def day_first_ids(profiles: Sequence[Mapping[str, Any]], ids: np.ndarray) -> np.ndarray:
    """The ids of the profiles that write a slashed date day first (``"15/03/2018"``).

    Examples
    --------
    >>> profiles = [{"dates": {"end_datetime": "15/03/2018 12:00"}},
    ...             {"roadmap": {"15.03.2018": "Sale", "03/04/2018": "x"}}]
    >>> day_first_ids(profiles, np.array([7, 8])).tolist()
    [7]
    """
    return order_ids(profiles, ids)[1]


def order_ids(profiles: Sequence[Mapping[str, Any]], ids: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`month_first_ids` and :func:`day_first_ids` of the profiles, in one pass."""
    texts: list[Any] = []
    counts = np.zeros(len(profiles), dtype=np.int64)
    for i, profile in enumerate(profiles):
        dates, roadmap = profile.get("dates"), profile.get("roadmap")
        before = len(texts)
        # (type() first: the common dict skips isinstance against the Mapping ABC, a slow test)
        if type(dates) is dict or isinstance(dates, Mapping):
            texts.extend(map(dates.get, _DATE_FIELDS))
        if type(roadmap) is dict or isinstance(roadmap, Mapping):
            texts.extend(roadmap)
        counts[i] = len(texts) - before
    if not texts:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    owner = np.repeat(np.asarray(ids), counts)
    month, day = _matches(texts)
    return np.unique(owner[month]), np.unique(owner[day])


def _matches(texts: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Two bools per text: it holds a month-first date, a slashed day-first one (Arrow)."""
    strings = [t if type(t) is str else None for t in texts]
    try:
        array = pa.array(strings, type=pa.string())
    except (pa.ArrowTypeError, pa.ArrowInvalid, UnicodeEncodeError):  # a lone surrogate
        array = pa.array([None if t is None else clean_surrogates(t) for t in strings],
                         type=pa.string())
    # full-width digits, as date_text reads them (utf8_normalize is missing from the stubs)
    normal = cast(Any, pc).utf8_normalize(array, form="NFKC")
    month: Any = pc.fill_null(pc.match_substring_regex(normal, _MONTH_FIRST), False)
    day: Any = pc.fill_null(pc.match_substring_regex(normal, _DAY_FIRST), False)
    return (np.asarray(month.to_numpy(zero_copy_only=False), dtype=bool),
            np.asarray(day.to_numpy(zero_copy_only=False), dtype=bool))



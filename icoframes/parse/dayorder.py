"""Day and month order, decided per profile: one ICO's dates are written by one writer.

``DD.MM.YYYY`` is the documented order, and a date that can only be month-first
(``"01.15.2018"``) is ``us_order``. Read one value at a time, a profile whose roadmap holds
``"01/15/2018"`` and ``"03/04/2018"`` would have the second read as 3 April, though its writer
shows it writes the month first (4 March?). So where any start date, end date or roadmap key
of a profile is ``us_order``, its dates whose day and month could swap
(:func:`~.dateforms.swappable`: both 1-12, not equal) are not read: NaT, and a problem
``ambiguous_order``. The scope is the whole profile (start, end and roadmap together), the
same whichever tables :func:`~icoframes.parse.profiles.tidy` builds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .dates import date_reason, date_text
from .text import clean_surrogates

__all__ = ["month_first_ids"]

# What a month-first date may start with, after NFKC: a day of one or two digits, then a
# "month" of 13-99 (a superset of us_order, which date_reason then decides value by value).
_CANDIDATE: Final = r"^\s*[0-9]{1,2}[-./](?:1[3-9]|[2-9][0-9])[-./][0-9]{4}"
_DATE_FIELDS: Final = ("start_datetime", "end_datetime")


def month_first_ids(profiles: Sequence[Mapping[str, Any]], ids: np.ndarray) -> np.ndarray:
    """The ids (of ``ids``, one per profile) of the profiles that write a date month-first.

    Examples
    --------
    >>> profiles = [{"dates": {"start_datetime": "01.15.2018 00:00:00"}},
    ...             {"roadmap": {"03/04/2018": "Sale", "12/31/2018": "Listing"}},
    ...             {"dates": {"start_datetime": "03.04.2018"}, "roadmap": {"15-01-2018": "x"}}]
    >>> month_first_ids(profiles, np.array([7, 8, 9])).tolist()
    [7, 8]
    """
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
        return np.empty(0, dtype=np.int64)
    owner = np.repeat(np.asarray(ids), counts)
    candidates = np.flatnonzero(_candidates(texts)).tolist()
    found = {owner[i] for i in candidates
             if (text := date_text(texts[i])) is not None and date_reason(text) == "us_order"}
    return np.array(sorted(found), dtype=np.int64)


def _candidates(texts: list[Any]) -> np.ndarray:
    """A bool per text: it is text that may be a month-first date (one Arrow pass)."""
    strings = [t if type(t) is str else None for t in texts]
    try:
        array = pa.array(strings, type=pa.string())
    except (pa.ArrowTypeError, pa.ArrowInvalid, UnicodeEncodeError):  # a lone surrogate
        array = pa.array([None if t is None else clean_surrogates(t) for t in strings],
                         type=pa.string())
    # full-width digits, as date_text reads them (utf8_normalize is missing from the stubs)
    normal = cast(Any, pc).utf8_normalize(array, form="NFKC")
    found: Any = pc.fill_null(pc.match_substring_regex(normal, _CANDIDATE), False)
    return np.asarray(found.to_numpy(zero_copy_only=False), dtype=bool)



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

from .base import BAD, MARKER_SPELLINGS, Unread, _Bad
from .text import clean_surrogates

__all__ = ["DATETIME_FORMAT", "LABEL_FORMAT", "parse_datetime", "parse_label_date",
           "to_datetime", "to_label_date"]

DATETIME_FORMAT: Final = "%d.%m.%Y %H:%M:%S"
LABEL_FORMAT: Final = "%d-%m-%Y"
_MS: Final = np.dtype("datetime64[ms]")
_NAT_MS: Final = np.datetime64("NaT", "ms")


_DATETIME_FIELDS: Final = re.compile(
    r"(?P<day>\d{1,2})\.(?P<month>\d{1,2})\.(?P<year>\d{4}) "
    r"(?P<hour>\d{1,2}):(?P<minute>\d{1,2}):(?P<second>\d{1,2})"
)


_FALLBACK_DATETIME_FORMATS: Final = (
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d",
)


def parse_datetime(value: object) -> datetime | _Bad | None:
    """Read one ``DD.MM.YYYY HH:MM:SS`` timestamp leniently.

    Also accepted: the same without seconds or without time, and ISO
    ``YYYY-MM-DD[ HH:MM:SS]``. Impossible dates (``31.02.2018 00:00:00``,
    ``00.00.0000 00:00:00``) are :data:`BAD`.

    Examples
    --------
    >>> parse_datetime("01.03.2018 12:00:00")
    datetime.datetime(2018, 3, 1, 12, 0)
    >>> parse_datetime("TBA") is None, parse_datetime("31.02.2018 00:00:00")
    (True, BAD)
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if not isinstance(value, str):
        return BAD
    text = value.strip()
    if text in MARKER_SPELLINGS:
        return None
    # Text in the documented shape is read by that format alone: if it fails
    # (31.02.), no fallback format should rescue it.
    formats = (DATETIME_FORMAT,) if _DATETIME_FIELDS.fullmatch(text) else (
        DATETIME_FORMAT, *_FALLBACK_DATETIME_FORMATS)
    for fmt in formats:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return BAD


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
_YEAR = r"(?P<year>\d{4}|'?\d{2})"
_LABEL_PATTERNS: Final = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"(?P<day>\d{1,2})[-./](?P<mon>\d{1,2})[-./](?P<year>\d{4})",
        r"(?P<year>\d{4})[-./](?P<mon>\d{1,2})[-./](?P<day>\d{1,2})",
        rf"q(?P<quarter>[1-4])[\s,/-]*{_YEAR}",
        rf"{_YEAR}[\s,/-]*q(?P<quarter>[1-4])",
        rf"h(?P<half>[12])[\s,/-]*{_YEAR}",
        rf"{_YEAR}[\s,/-]*h(?P<half>[12])",
        rf"(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}[\s,]*{_YEAR}",
        rf"{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}",
        rf"{_MONTH}[\s,/-]*{_YEAR}",
        r"(?P<mon>\d{1,2})[-./](?P<year>\d{4})",
        r"(?P<year>\d{4})[-./](?P<mon>\d{1,2})",
        r"(?P<year>\d{4})",
    )
)


@lru_cache(maxsize=4096)
def parse_label_date(label: str) -> datetime | None:
    """Best-effort date of a roadmap key; None when it names no date.

    ``DD-MM-YYYY`` is the documented form; also understood: other day-first
    separators, ISO dates, quarters (``'Q3 2018'`` -> 1 July 2018), halves
    (``'H2 2019'``), ``'March 2019'``, ``'15 March 2019'``, ``'March 15, 2019'``,
    ``'03-2019'`` and a bare year (``'2019'`` -> 1 January 2019). Never raises.

    Examples
    --------
    >>> parse_label_date("Q3 2018"), parse_label_date("later")
    (datetime.datetime(2018, 7, 1, 0, 0), None)
    """
    text = label.strip()
    for pattern in _LABEL_PATTERNS:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        parts = match.groupdict()
        year_text = parts["year"].lstrip("'")
        year = int(year_text) + (2000 if len(year_text) == 2 else 0)
        if parts.get("quarter"):
            month = 3 * int(parts["quarter"]) - 2
        elif parts.get("half"):
            month = 6 * int(parts["half"]) - 5
        elif parts.get("month"):
            found = _MONTHS.get(parts["month"].lower())
            if found is None:
                return None
            month = found
        elif parts.get("mon"):
            month = int(parts["mon"])
        else:
            month = 1
        day = int(parts["day"]) if parts.get("day") else 1
        try:
            return datetime(year, month, day)
        except ValueError:
            return None
    return None


def to_datetime(values: Sequence[object]) -> tuple[np.ndarray, Unread]:
    """A datetime64[ms] column from ``DD.MM.YYYY HH:MM:SS`` strings (see :func:`parse_datetime`).

    Examples
    --------
    >>> out, bad = to_datetime(["01.03.2018 12:00:00", "", "31.02.2018 00:00:00"])
    >>> out.astype(str).tolist(), bad
    (['2018-03-01T12:00:00.000', 'NaT', 'NaT'], Unread(rows=[2], values=['31.02.2018 00:00:00']))
    """
    n = len(values)
    if n == 0:
        return np.empty(0, dtype=_MS), Unread.none()
    out = _strptime(values, DATETIME_FORMAT, _CANONICAL_DATETIME)
    rows = []
    for i in np.flatnonzero(np.isnat(out)).tolist():
        value = parse_datetime(values[i])
        if value is BAD:
            rows.append(i)
        elif isinstance(value, datetime):
            out[i] = np.datetime64(value, "ms")
    return out, Unread.at(values, rows)


# The documented shapes, zero-padded: only these take the vectorised path, and
# (start, stop, field) say where each checked field sits in the text.
_CANONICAL_DATETIME: Final = (r"^\d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d$",
                              ((0, 2, "day"), (3, 5, "month"), (17, 19, "second")))
_CANONICAL_LABEL: Final = (r"^\d\d-\d\d-\d{4}$", ((0, 2, "day"), (3, 5, "month")))


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
    # Arrow accepts year 0, which Python's datetime (and so the exact path) rejects
    same: Any = pc.greater(pc.year(kept), pa.scalar(0))
    for begin, stop, field in checks:
        sent = pc.cast(pc.utf8_slice_codeunits(safe, begin, stop), pa.int64())
        same = pc.and_(same, pc.equal(sent, getattr(pc, field)(kept)))
    out = np.full(len(text), _NAT_MS)
    index = np.flatnonzero(ok.to_numpy(zero_copy_only=False))
    good = same.to_numpy(zero_copy_only=False)
    out[index[good]] = kept.to_numpy(zero_copy_only=False).astype(_MS)[good]
    return out


def to_label_date(labels: Sequence[str]) -> np.ndarray:
    """Best-effort datetime64[ms] of roadmap keys (see :func:`parse_label_date`); never raises.

    Examples
    --------
    >>> to_label_date(["01-07-2018", "Q3 2018", "soon"]).astype(str).tolist()
    ['2018-07-01T00:00:00.000', '2018-07-01T00:00:00.000', 'NaT']
    """
    n = len(labels)
    if n == 0:
        return np.empty(0, dtype=_MS)
    out = _strptime(labels, LABEL_FORMAT, _CANONICAL_LABEL)
    for i in np.flatnonzero(np.isnat(out)).tolist():
        label = labels[i]
        value = parse_label_date(label) if type(label) is str else None
        if value is not None:
            out[i] = np.datetime64(value, "ms")
    return out

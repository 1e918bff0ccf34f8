"""Vectorised, lenient converters: the raw values of one column -> a typed array.

Every ``to_*`` function takes the raw values of one column (a list or tuple, in
row order, exactly as decoded from JSON) and returns ``(array, bad)``: the
typed array and an :class:`Unread`, the raw values that could not be read and
the row each came from (so that callers can name the ICO behind each). Callers
count ``bad`` as problems; a row in ``bad`` always comes out missing (or False
for booleans). :data:`CONVERTERS` maps each schema kind to its converter.

The common case is handled by one vectorised call per column (NumPy, pandas
or Arrow kernels); only the values that fail it take the per-value rules of
:mod:`icoframes.parse.rules`. So a clean column costs almost nothing per value
and a messy one costs in proportion to its mess.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import repeat
from typing import Final, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..schema import TEXT_DTYPE
from .rules import (
    BAD,
    DATETIME_FORMAT,
    LABEL_FORMAT,
    MARKER_SPELLINGS,
    parse_amount,
    parse_count,
    parse_datetime,
    parse_flag,
    parse_label_date,
)

__all__ = [
    "CONVERTERS",
    "Unread",
    "numbers_fast",
    "to_bool",
    "to_datetime",
    "to_float",
    "to_int",
    "to_key_text",
    "to_label_date",
    "to_list",
    "to_nullable_int",
    "to_text",
]

_MARKER_ARROW: Final = pa.array(sorted(MARKER_SPELLINGS), type=pa.string())
_MS: Final = np.dtype("datetime64[ms]")
_NAT_MS: Final = np.datetime64("NaT", "ms")
# True, 1 and 1.0 are one key; so are False, 0 and 0.0.
_BOOL_CODES: Final = {True: 1, False: 0, "": 0, None: 0}


class Unread(NamedTuple):
    """The raw values a converter could not read, and the row each came from.

    ``rows`` are positions in the converter's input, ascending; a row repeats
    when a list holds several unreadable items. ``values`` holds, per entry,
    the raw value (or list item) that was left missing.

    Examples
    --------
    >>> Unread.at(["1", "x", "2", "y"], [1, 3])
    Unread(rows=[1, 3], values=['x', 'y'])
    """

    rows: list[int]
    values: list

    @classmethod
    def at(cls, values: Sequence[object], rows: list[int]) -> Unread:
        """The values at ``rows`` (positions found by a vectorised mask) of ``values``."""
        return cls(rows, [values[i] for i in rows])

    @classmethod
    def none(cls) -> Unread:
        """Nothing unread."""
        return cls([], [])



def numbers_fast(values: Sequence[object]) -> tuple[np.ndarray, list[int]]:
    """Plain numbers and numeric strings in one vectorised call; the rows it cannot vouch for.

    Returns the float64 array (NaN where the fast path failed) and the positions
    that must take the per-value rules: non-finite results, and booleans, which
    pandas reads as 1.0 and 0.0 although ``true`` is not an amount.
    """
    try:
        numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce")
        out = numbers.to_numpy(dtype=np.float64, copy=True)
    except (TypeError, ValueError, OverflowError):
        out = np.full(len(values), np.nan)
    suspect = np.flatnonzero(~np.isfinite(out)).tolist()
    suspect += [i for i in np.flatnonzero((out == 0) | (out == 1)).tolist()
                if type(values[i]) is bool]
    return out, suspect


def to_float(values: Sequence[object], *, percent: bool = False) -> tuple[np.ndarray, Unread]:
    """A float64 column from raw values: numbers, numeric or decorated strings.

    Parameters
    ----------
    values : sequence
        Raw values of one column.
    percent : bool, default False
        Accept a trailing ``%`` sign.

    Returns
    -------
    numpy.ndarray of float64, Unread
        The numbers (NaN when missing or unreadable) and the unreadable raw values.

    Examples
    --------
    >>> numbers, bad = to_float([1, "2.5", "", "15M", "1 BILL = 1 XLM"])
    >>> numbers.tolist(), bad
    ([1.0, 2.5, nan, 15000000.0, nan], Unread(rows=[4], values=['1 BILL = 1 XLM']))
    """
    n = len(values)
    if n == 0:
        return np.empty(0, dtype=np.float64), Unread.none()
    prepared = values
    if percent:
        prepared = [v.strip().removesuffix("%") if type(v) is str else v for v in values]
    out, suspect = numbers_fast(prepared)
    rows = []
    for i in suspect:
        value = values[i]
        if value is None or value == "":
            continue  # already NaN
        number = parse_amount(value, percent=percent)
        if number is BAD:
            rows.append(i)
            out[i] = np.nan
        else:
            out[i] = np.nan if number is None else number
    rows.sort()  # suspects come as non-finite rows, then booleans
    return out, Unread.at(values, rows)


def to_bool(values: Sequence[object]) -> tuple[np.ndarray, Unread]:
    """A bool column: True only for ``true``, ``1``, ``"1"``, ``"true"``, ``"yes"``.

    The API writes ``''`` both for "does not hold" and for "unknown", so
    everything else is False. Values that are neither a recognised true nor a
    recognised false/missing spelling (``false``, ``0``, ``'no'``, ``''``,
    ``None``, missing markers) are also reported as unreadable.

    Examples
    --------
    >>> to_bool([True, "", "Yes", 0, "maybe"])
    (array([ True, False,  True, False, False]), Unread(rows=[4], values=['maybe']))
    """
    n = len(values)
    try:  # one C-level lookup per value for the usual true, false, '' and null
        codes = list(map(_BOOL_CODES.get, values, repeat(-1)))
    except TypeError:  # an unhashable value (list, dict): every value the slow way
        codes = [-1] * n
    out = np.array(codes, dtype=np.int8) if n else np.zeros(0, dtype=np.int8)
    rows = []
    for i in np.flatnonzero(out < 0).tolist():
        flag = parse_flag(values[i])
        if flag is None:
            rows.append(i)
        out[i] = flag is True
    return out.astype(bool), Unread.at(values, rows)


def _arrow_strings(values: Sequence[object]) -> tuple[pa.Array, Unread]:
    try:
        return pa.array(values, type=pa.string()), Unread.none()
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        pass
    rows: list[int] = []
    cleaned: list[str | None] = []
    for i, v in enumerate(values):
        kind = type(v)
        if kind is str or v is None:
            cleaned.append(v)  # type: ignore[arg-type]
        elif kind is int:
            cleaned.append(str(v))
        elif kind is float:
            if math.isnan(v):  # type: ignore[arg-type]
                cleaned.append(None)
            elif math.isfinite(v):  # type: ignore[arg-type]
                cleaned.append(str(int(v)) if v.is_integer() else repr(v))  # type: ignore[union-attr]
            else:
                cleaned.append(None)
                rows.append(i)
        else:
            cleaned.append(None)
            rows.append(i)
    return pa.array(cleaned, type=pa.string()), Unread.at(values, rows)


def _text_array(arr: pa.Array | pa.ChunkedArray) -> pd.api.extensions.ExtensionArray:
    return TEXT_DTYPE.__from_arrow__(arr)


def to_text(values: Sequence[object]) -> tuple[pd.api.extensions.ExtensionArray, Unread]:
    """A text column: strings stripped; ``''`` and missing markers become missing.

    Numbers become their decimal text (``2018`` -> ``'2018'``); booleans and
    containers are unreadable.

    Examples
    --------
    >>> texts, bad = to_text([" Ethereum ", "TBA", None, 7, True])
    >>> [None if pd.isna(t) else t for t in texts], bad
    (['Ethereum', None, None, '7', None], Unread(rows=[4], values=[True]))
    """
    arr, bad = _arrow_strings(values)
    if len(arr):
        arr = pc.utf8_trim_whitespace(arr)
        missing = pc.is_in(arr, value_set=_MARKER_ARROW)
        if pc.any(missing).as_py():
            arr = pc.if_else(missing, pa.scalar(None, pa.string()), arr)
    return _text_array(arr), bad


def to_key_text(values: Sequence[object]) -> tuple[pd.api.extensions.ExtensionArray,
                                                  Unread]:
    """A text column of map keys, kept exactly as sent (no stripping, ``''`` stays ``''``).

    Examples
    --------
    >>> to_key_text(["Q3 2018 ", ""])[0].tolist()
    ['Q3 2018 ', '']
    """
    arr, bad = _arrow_strings(values)
    return _text_array(arr), bad


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
        elif value is not None:
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
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        text = pa.array([v if type(v) is str else None for v in values], type=pa.string())
    pattern, checks = canonical
    parsed = pc.strptime(text, format=fmt, unit="ms", error_is_null=True)
    ok = pc.fill_null(pc.and_(pc.match_substring_regex(text, pattern), pc.is_valid(parsed)),
                      False)
    if not pc.any(ok).as_py():
        return np.full(len(text), _NAT_MS)
    safe = pc.filter(text, ok)
    kept = pc.filter(parsed, ok)
    # Arrow accepts year 0, which Python's datetime (and so the exact path) rejects
    same = pc.greater(pc.year(kept), 0)
    for begin, stop, field in checks:
        sent = pc.cast(pc.utf8_slice_codeunits(safe, begin, stop), pa.int64())
        same = pc.and_(same, pc.equal(sent, getattr(pc, field)(kept)))
    out = np.full(len(text), _NAT_MS)
    index = np.flatnonzero(ok.to_numpy(zero_copy_only=False))
    good = same.to_numpy(zero_copy_only=False)  # type: ignore[union-attr]
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


def _list_item(item: object, bad: list) -> str | None:
    kind = type(item)
    if kind is str:
        text = item.strip()  # type: ignore[union-attr]
        return None if text in MARKER_SPELLINGS else text
    if item is None:
        return None
    if kind is int or (kind is float and math.isfinite(item)):  # type: ignore[arg-type]
        return str(item)
    if kind is float and math.isnan(item):  # type: ignore[arg-type]
        return None
    bad.append(item)
    return None


def to_list(values: Sequence[object]) -> tuple[np.ndarray, Unread]:
    """An object column holding one ``list[str]`` per row, empty when none.

    A list gives its cleaned, non-empty items; ``''``, ``None`` and missing
    markers give ``[]``; a single string gives a one-item list; a dict (how PHP
    encodes a list with gaps) gives its values. An item that is not text or a
    number is left out and reported (the item, at its row).

    Examples
    --------
    >>> to_list([["ETH", " BTC"], "", "ETH", None])[0].tolist()
    [['ETH', 'BTC'], [], ['ETH'], []]
    >>> to_list([["ETH", True, ["x"]], "BTC"])[1]
    Unread(rows=[0, 0], values=[True, ['x']])
    """
    bad = Unread.none()
    items_bad = bad.values
    rows: list[list[str]] = []
    append = rows.append
    strip = str.strip
    for i, v in enumerate(values):
        kind = type(v)
        if kind is list:
            try:  # the common case: a list of strings
                append([s for s in map(strip, v) if s not in MARKER_SPELLINGS])
                continue
            except TypeError:
                pass
        elif v is None or v == "":
            append([])
            continue
        if kind is list or kind is tuple or kind is dict:
            items = v.values() if kind is dict else v  # type: ignore[union-attr]
            cleaned = (_list_item(x, items_bad) for x in items)  # type: ignore[union-attr]
            append([s for s in cleaned if s is not None])
        else:
            item = _list_item(v, items_bad)
            append([] if item is None else [item])
        # only rows off the fast path get here: each unreadable item at its row
        bad.rows.extend([i] * (len(items_bad) - len(bad.rows)))
    return np.fromiter(rows, dtype=object, count=len(rows)), bad


def to_int(values: Sequence[object]) -> tuple[np.ndarray, Unread]:
    """An int64 column of counts or positions that must all be readable (see :func:`parse_count`).

    Id columns arrive as arrays already read by :func:`parse_id` (rows without
    a readable id are left out before), so this only sees plain counts.

    Raises
    ------
    ValueError
        If a value is not a non-negative int64; callers filter those rows first.
    """
    out = np.empty(len(values), dtype=np.int64)
    for i, v in enumerate(values):
        number = parse_count(v)
        if number is None:
            raise ValueError(f"not a non-negative integer: {v!r}")
        out[i] = number
    return out, Unread.none()


def to_nullable_int(values: Sequence[object]) -> tuple[pd.api.extensions.ExtensionArray,
                                                      Unread]:
    """A nullable Int64 column of non-negative integers; unreadable values are missing and reported.

    Examples
    --------
    >>> to_nullable_int([1, None, "3", "x", True])
    (<IntegerArray>
    [1, <NA>, 3, <NA>, <NA>]
    Length: 5, dtype: Int64, Unread(rows=[3, 4], values=['x', True]))
    """
    data = np.zeros(len(values), dtype=np.int64)
    mask = np.zeros(len(values), dtype=bool)
    rows = []
    for i, v in enumerate(values):
        number = parse_count(v)
        if number is None:
            mask[i] = True
            if not (v is None or (type(v) is float and math.isnan(v))
                    or (type(v) is str and v.strip() in MARKER_SPELLINGS)):
                rows.append(i)
        else:
            data[i] = number
    return pd.arrays.IntegerArray(data, mask), Unread.at(values, rows)


#: The converter of each schema column kind (see :mod:`icoframes.schema`).
CONVERTERS: Final = {
    "int": to_int,
    "Int": to_nullable_int,
    "float": to_float,
    "bool": to_bool,
    "text": to_text,
    "datetime": to_datetime,
    "list": to_list,
}

"""Vectorised, lenient converters: the raw values of one column -> a typed array.

Every ``to_*`` function takes the raw values of one column (a list or tuple, in
row order, exactly as decoded from JSON) and returns ``(array, bad)``: the
typed array and an :class:`Unread`, the raw values that could not be read, the
row each came from (so that callers can name the ICO behind each) and why
(a code of :data:`icoframes.reasons.REASONS`). Callers report ``bad`` as
problems; a row in ``bad`` always comes out missing (or False for booleans).
:data:`CONVERTERS` maps each schema kind to its converter.

The common case is handled by one vectorised call per column (NumPy, pandas
or Arrow kernels); only the values that fail it take the per-value rules of
:mod:`icoframes.parse.rules`. So a clean column costs almost nothing per value
and a messy one costs in proportion to its mess.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from itertools import repeat
from typing import Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..textdtype import text_from_arrow
from .base import MARKER_SPELLINGS, MISSING_MARKERS, Reason, Unread, _Bad
from .dates import to_datetime, to_label_date
from .items import to_list
from .rules import parse_amount, parse_count, read_flag
from .splits import split_column
from .text import ZERO_WIDTH, clean_surrogates, has_surrogates

__all__ = [
    "CONVERTERS",
    "Unread",
    "numbers_fast",
    "split_column",
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

# The markers in capitals, matched against the text in ASCII capitals: the spellings
# MARKER_SPELLINGS holds, without an Arrow array of every case variant ("NOT SPECIFIED"
# alone has 4,096) made at import
_MARKER_ARROW: Final = pa.array(sorted({m.upper() for m in MISSING_MARKERS} | {""}),
                                type=pa.string())
# Characters that print as nothing: a text of them alone (or around a marker) is blank, as it
# is to the number readers (normalize_text drops them); kept text keeps them otherwise.
_ZERO_WIDTH_RE: Final = f"[{ZERO_WIDTH}]"
# True, 1 and 1.0 are one key; so are False, 0 and 0.0.
# A number over its scale ("4.5/5", "8/10", "4.5 out of 5"): one value on a scale the
# column does not state, no range of two
_OVER_SCALE_RE: Final = re.compile(r"\s*[0-9]+(?:[.,][0-9]+)?\s*(?:/|out\s+of)\s*[0-9]+\s*",
                                   re.IGNORECASE)
_BOOL_CODES: Final = {True: 1, False: 0, "": 0, None: 0}


def numbers_fast(values: Sequence[Any]) -> tuple[np.ndarray, list[int]]:
    """Plain numbers and numeric strings in one vectorised call; the rows it cannot vouch for.

    Returns the float64 array (NaN where the fast path failed) and the positions
    that must take the per-value rules: non-finite results, booleans, which
    pandas reads as 1.0 and 0.0 although ``true`` is not an amount, and text read as 0
    (``"1e-400"`` underflows: no 0).
    """
    try:
        numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce")
        out = numbers.to_numpy(dtype=np.float64, copy=True)
    except (TypeError, ValueError, OverflowError):
        out = np.full(len(values), np.nan)
    out += 0.0  # -0.0 + 0.0 is 0.0: "-0.0" is no negative zero in a frame or a file
    suspect = np.flatnonzero(~np.isfinite(out)).tolist()
    suspect += [i for i in np.flatnonzero((out == 0) | (out == 1)).tolist()  # "1e-400": 0?
                if type(values[i]) is bool or (out[i] == 0 and type(values[i]) is str)]
    return out, suspect


def to_float(values: Sequence[object], *, percent: bool = False,
             bounds: tuple[float, float] | None = None) -> tuple[np.ndarray, Unread]:
    """A float64 column from raw values: numbers, numeric or decorated strings.

    Parameters
    ----------
    values : sequence
        Raw values of one column.
    percent : bool, default False
        Accept a trailing ``%`` sign.
    bounds : (float, float), optional
        The values the column may hold (:attr:`icoframes.schema.Column.bounds`);
        a number outside is unreadable, and so is one written over a scale (``"4.5/5"``,
        ``"8 out of 10"``: ``unreadable_number``, no range).

    Returns
    -------
    numpy.ndarray of float64, Unread
        The numbers (NaN when missing or unreadable) and the unreadable raw values.

    Examples
    --------
    >>> numbers, bad = to_float([1, "2.5", "", "15M", "1 BILL = 1 XLM", "100-200"])
    >>> numbers.tolist(), bad.values, bad.reasons
    ([1.0, 2.5, nan, 15000000.0, nan, nan], ['1 BILL = 1 XLM', '100-200'], \
['unreadable_number', 'range'])
    >>> to_float([-5, 150, 50, "4.5/5", "8 out of 10"], bounds=(0.0, 10.0))[1].reasons
    ['negative', 'out_of_bounds', 'out_of_bounds', 'unreadable_number', 'unreadable_number']
    """
    prepared = values
    if percent:
        prepared = [v.strip().removesuffix("%") if type(v) is str else v for v in values]
    out, suspect = numbers_fast(prepared)
    why: dict[int, Reason] = {}
    for i in suspect:
        value = values[i]
        if value is None or value == "":
            continue  # already NaN
        number = parse_amount(value, percent=percent)
        if isinstance(number, _Bad):
            why[i] = ("unreadable_number" if bounds is not None and type(value) is str
                      and _OVER_SCALE_RE.fullmatch(value) else number.reason)
            out[i] = np.nan
        else:
            out[i] = np.nan if number is None else number
    if bounds is not None:
        with np.errstate(invalid="ignore"):
            below = np.flatnonzero(out < bounds[0]).tolist()
            above = np.flatnonzero(out > bounds[1]).tolist()
        outside: tuple[tuple[list[int], Reason], ...] = ((below, "negative"),
                                                         (above, "out_of_bounds"))
        for rows, reason in outside:
            out[rows] = np.nan
            why.update(dict.fromkeys(rows, reason))
    rows = sorted(why)  # suspects come as non-finite rows, then booleans, then out of bounds
    return out, Unread.at(values, rows, [why[i] for i in rows])


def to_bool(values: Sequence[object]) -> tuple[np.ndarray, Unread]:
    """A bool column: True only for ``true``, ``1`` and the true words (see :func:`read_flag`).

    The API writes ``''`` both for "does not hold" and for "unknown", so
    everything else is False. Values that are neither a recognised true nor a
    recognised false/unknown/missing spelling are False and reported as
    unreadable; a qualified flag (``'YES (UNTIL 11 SEP)'``) reads as its word
    and is reported too, so that its qualifier is kept.

    Examples
    --------
    >>> flags, bad = to_bool([True, "", "Available", 0, "maybe", "YES (UNTIL 11 SEP)", [1]])
    >>> flags.tolist(), bad.values
    ([True, False, True, False, False, True, False], ['maybe', 'YES (UNTIL 11 SEP)', [1]])
    >>> bad.reasons
    ['unknown_flag', 'qualified_flag', 'wrong_type']
    """
    n = len(values)
    try:  # one C-level lookup per value for the usual true, false, '' and null
        # n defaults, not an endless repeat: a map over the defaults alone must end (a
        # mutant that dropped `values` filled the memory of the machine running it)
        codes = list(map(_BOOL_CODES.get, values, repeat(-1, n)))
    except TypeError:  # an unhashable value (list, dict): every value the slow way
        codes = [-1] * n
    out = np.array(codes, dtype=np.int8)
    rows: list[int] = []
    reasons: list[Reason] = []
    for i in np.flatnonzero(out < 0).tolist():
        value = values[i]
        flag, qualified = read_flag(value)
        if flag is None or qualified:
            rows.append(i)
            reasons.append("qualified_flag" if qualified else
                           "unknown_flag" if type(value) in (str, int, float) else "wrong_type")
        out[i] = flag is True
    return out.astype(bool), Unread.at(values, rows, reasons)


def _arrow_strings(values: Sequence[object]) -> tuple[pa.Array, Unread]:
    """Arrow text of raw values; numbers as their text, other values and text with a lone
    surrogate (kept with U+FFFD in its place) reported."""
    try:
        return pa.array(values, type=pa.string()), Unread.none()
    except (pa.ArrowTypeError, pa.ArrowInvalid, UnicodeEncodeError):
        pass
    why: dict[int, Reason] = {}
    cleaned: list[str | None] = []
    for i, v in enumerate(values):
        if type(v) is str:
            if has_surrogates(v):
                why[i] = "surrogate"
                v = clean_surrogates(v)
            cleaned.append(v)
        elif v is None:
            cleaned.append(v)
        elif type(v) is int:
            cleaned.append(str(v))
        elif type(v) is float:
            if math.isnan(v):
                cleaned.append(None)
            elif math.isfinite(v):
                cleaned.append(str(int(v)) if v.is_integer() else repr(v))
            else:
                cleaned.append(None)
                why[i] = "infinite"
        else:
            cleaned.append(None)
            why[i] = "wrong_type"
    return pa.array(cleaned, type=pa.string()), Unread.at(values, list(why), list(why.values()))


def to_text(values: Sequence[object]) -> tuple[Any, Unread]:
    """A text column: strings stripped; ``''`` and missing markers become missing.

    Numbers become their decimal text (``2018`` -> ``'2018'``); booleans and
    containers are unreadable.

    Examples
    --------
    >>> texts, bad = to_text([" Ethereum ", "TBA", None, 7, True, "a\\ud800", "\\u200b"])
    >>> [None if pd.isna(t) else t for t in texts], bad.rows, bad.reasons
    (['Ethereum', None, None, '7', None, 'a�', None], [4, 5], ['wrong_type', 'surrogate'])
    """
    arr, bad = _arrow_strings(values)
    if len(arr):
        arr = pc.utf8_trim_whitespace(arr)
        bare = arr  # (a zero-width space alone is blank: "\u200b", "N/A\u200b")
        if pc.any(pc.match_substring_regex(arr, _ZERO_WIDTH_RE)).as_py():
            bare = pc.utf8_trim_whitespace(pc.replace_substring_regex(arr, _ZERO_WIDTH_RE, ""))
        missing = pc.is_in(pc.ascii_upper(bare), value_set=_MARKER_ARROW)
        if pc.any(missing).as_py():
            arr = pc.if_else(missing, None, arr)  # a null of arr's type
    return text_from_arrow(arr), bad


def to_key_text(values: Sequence[object]) -> tuple[Any, Unread]:
    """A text column of map keys, kept exactly as sent (no stripping, ``''`` stays ``''``).

    Examples
    --------
    >>> to_key_text(["Q3 2018 ", ""])[0].tolist()
    ['Q3 2018 ', '']
    """
    arr, bad = _arrow_strings(values)
    return text_from_arrow(arr), bad


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
    Length: 5, dtype: Int64, Unread(rows=[3, 4], values=['x', True], \
reasons=['unreadable_id', 'wrong_type']))
    """
    data = np.zeros(len(values), dtype=np.int64)
    mask = np.zeros(len(values), dtype=bool)
    rows: list[int] = []
    reasons: list[Reason] = []
    for i, v in enumerate(values):
        number = parse_count(v)
        if number is None:
            mask[i] = True
            if not (v is None or (type(v) is float and math.isnan(v))
                    or (type(v) is str and v.strip() in MARKER_SPELLINGS)):
                rows.append(i)
                reasons.append("unreadable_id" if type(v) in (str, int, float) else "wrong_type")
        else:
            data[i] = number
    return pd.arrays.IntegerArray(data, mask), Unread.at(values, rows, reasons)


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

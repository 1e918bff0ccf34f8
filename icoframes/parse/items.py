"""List columns: ``markets``, ``restricted_areas`` and ``accepting`` as lists of text.

:func:`to_list` is the converter of the schema's ``list`` kind; a list written as one
string is split before it (:mod:`icoframes.parse.splits`).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Sequence
from itertools import chain
from typing import Final, cast

import numpy as np

from ..vocabulary import NONE_WORDS, fold
from .base import MARKER_SPELLINGS, Reason, Unread
from .text import clean_surrogates, has_surrogates, latin_ticker, normalize_text

__all__ = ["holds_lone_surrogate", "says_none", "to_list", "with_latin_tickers"]

_SURROGATES: Final = re.compile("([\ud800-\udfff]+)")


def _list_item(item: object, bad: list[object], why: list[Reason]) -> str | None:
    kind = type(item)
    if kind is str:
        text = cast(str, item).strip()
        if has_surrogates(text):
            bad.append(item)  # kept with U+FFFD, and reported
            why.append("surrogate")
            text = clean_surrogates(text)
        return None if text in MARKER_SPELLINGS else text
    if item is None:
        return None
    if kind is int or (kind is float and math.isfinite(item)):  # type: ignore[arg-type]
        return str(item)
    if kind is float and math.isnan(item):  # type: ignore[arg-type]
        return None
    bad.append(item)
    why.append("infinite" if kind is float else "wrong_type")
    return None


def to_list(values: Sequence[object]) -> tuple[np.ndarray, Unread]:
    """An object column holding one ``list[str]`` per row, empty when none.

    A list gives its cleaned, non-empty items; ``''``, ``None`` and missing
    markers give ``[]``; a single string gives a one-item list; a dict (how PHP
    encodes a list with gaps) gives its values. A list whose only item is a
    none word (``'No'``, ``'Not'``: :data:`icoframes.vocabulary.NONE_WORDS`)
    is empty. An item that is not text or a number is left out and reported
    (the item, at its row); text with a lone surrogate is kept with U+FFFD in
    its place and reported.

    Examples
    --------
    >>> to_list([["ETH", " BTC"], "", "ETH", None, ["NO"], "Not", ["US", "NO"]])[0].tolist()
    [['ETH', 'BTC'], [], ['ETH'], [], [], [], ['US', 'NO']]
    >>> to_list([["ETH", True, ["x"]], "BTC"])[1]
    Unread(rows=[0, 0], values=[True, ['x']], reasons=['wrong_type', 'wrong_type'])
    """
    bad = Unread.none()
    items_bad, items_why = bad.values, bad.reasons
    rows: list[list[str]] = []
    append = rows.append
    strip = str.strip
    for i, v in enumerate(values):
        kind = type(v)
        if kind is list:
            try:  # the common case: a list of strings
                append([s for s in map(strip, cast(list, v)) if s not in MARKER_SPELLINGS])
                continue
            except TypeError:
                pass
        elif v is None or v == "":
            append([])
            continue
        if kind is list or kind is tuple or kind is dict:
            items = cast(dict, v).values() if kind is dict else cast(list, v)
            cleaned = (_list_item(x, items_bad, items_why) for x in items)
            append([s for s in cleaned if s is not None])
        else:
            item = _list_item(v, items_bad, items_why)
            append([] if item is None else [item])
        # only rows off the fast path get here: each unreadable item at its row
        bad.rows.extend([i] * (len(items_bad) - len(bad.rows)))
    for i, row in enumerate(rows):
        if len(row) == 1 and fold(row[0]) in NONE_WORDS:
            rows[i] = []
    try:  # one pass in C: a lone surrogate anywhere makes the text unwritable
        "".join(chain.from_iterable(rows)).encode("utf-8")
    except UnicodeEncodeError:
        _clean_rows(rows, bad)
    return np.fromiter(rows, dtype=object, count=len(rows)), bad


def _clean_rows(rows: list[list[str]], bad: Unread) -> None:
    """Items with a lone surrogate, from the fast path: kept with U+FFFD, and reported."""
    found = []
    for i, row in enumerate(rows):
        for j, item in enumerate(row):
            if has_surrogates(item):
                found.append((i, item))
                row[j] = clean_surrogates(item)
    for i, item in found:
        position = bisect_right(bad.rows, i)
        bad.rows.insert(position, i)
        bad.values.insert(position, item)
        bad.reasons.insert(position, "surrogate")


def with_latin_tickers(values: Sequence[object]) -> list[object]:
    """A column of tickers (or of lists of tickers) with look-alike letters and
    zero-width characters made plain (``'ЕТН'`` -> ``'ETH'``, ``'B\u200bTC'`` ->
    ``'BTC'``); ASCII values are left as they are. A lone surrogate is kept for the column's
    converter, which reports it and puts U+FFFD in its place; the text around it is made
    plain all the same.

    Examples
    --------
    >>> with_latin_tickers(["ЕТН", ["BTC", "Е\u200bТН"], None, "ABC"])
    ['ETH', ['BTC', 'ETH'], None, 'ABC']
    """
    out = values if isinstance(values, list) else list(values)
    copied = out is not values
    for i, value in enumerate(out):
        kind = type(value)
        if kind is str:
            if not cast(str, value).isascii():
                if not copied:
                    out, copied = list(values), True
                out[i] = _latin(cast(str, value))
        elif kind is list:
            try:
                if "".join(cast(list, value)).isascii():
                    continue
            except TypeError:
                pass
            if not copied:
                out, copied = list(values), True
            out[i] = [_latin(x) if type(x) is str else x for x in cast(list, value)]
    return out


def _latin(text: str) -> str:
    """``text`` made plain (:func:`with_latin_tickers`).

    >>> _latin("B\\u200bTC\\ud800") == "BTC\\ud800", _latin("\\uff25\\uff34\\uff28\\ud800\\u0415")
    (True, 'ETH\\ud800E')
    """
    if text.isascii():
        return text
    if not has_surrogates(text):
        return latin_ticker(normalize_text(text))
    # a lone surrogate is left for the column's converter, which reports it (normalising
    # it here would replace it by U+FFFD first, and the row of problems would never come):
    # the text between is made plain, the look-alikes when all of it has Latin twins
    parts = _SURROGATES.split(text)  # (the runs of surrogates at the odd places)
    parts[::2] = [normalize_text(part) for part in parts[::2]]
    rest = "".join(parts[::2])
    if latin_ticker(rest) != rest:
        parts[::2] = [latin_ticker(part) for part in parts[::2]]
    return "".join(parts)


def says_none(value: object) -> bool:
    """A map value that says "none": blank, a missing marker or a none word."""
    if value is None:
        return True
    if type(value) is not str:
        return False
    return value.strip() in MARKER_SPELLINGS or fold(value) in NONE_WORDS


def holds_lone_surrogate(values: Sequence[object]) -> bool:
    """Whether a text or a list item of ``values`` holds a lone surrogate."""
    return any(has_surrogates(v) if type(v) is str else type(v) is list and any(
        type(x) is str and has_surrogates(x) for x in v) for v in values)

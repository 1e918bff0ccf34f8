"""One dot and three digits in an amount (``"12.500"``): a decimal point, or thousands grouped?

``"1.500.000"`` and ``"1.500,50"`` group thousands with dots (German), ``"1,500,000"`` and
``"1,000.5"`` with commas (English); a lone ``"12.500"``, ``"$12.500"``, ``"150.000 tokens"``,
``"1 ETH = 1.000 AQB"`` is 12.5 in the one and 12,500 in the other, and nothing in the value
tells which. The parser never guesses: it reads such a value by the convention the rest of the
ICO's amounts show (:func:`decimal_marks`), and when they show none, or both, the value is
missing with the reason ``ambiguous_separator`` (:func:`settle`).

Only such a number is in doubt: an integer part of 1 to 3 digits that is not ``0`` (``"0.500"``
is a decimal), one dot, exactly three digits, no other mark around it (``"1,500.000"``,
``"1 500.000"``), no exponent after it (``"1.500e6"``). Only amounts are (money and tokens): a
score or a share is never in the thousands. A decimal point alone (``"0.15"``, ``"2.5"``)
shows no convention: prices are written so in either.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from .base import Reason
from .text import normalize_text

__all__ = ["decimal_marks", "settle"]

# The number in doubt, as a whole run of digits and marks (not "1,500.000", "1 500.000").
_DOUBT_RE: Final = re.compile(r"(?<![0-9.,'’])(?<![0-9]\s)([1-9][0-9]{0,2})\.([0-9]{3})"
                              r"(?![0-9.,'’]|\s[0-9]|[eE][-+]?[0-9])")
# A run of digits and marks, and the runs that show a convention by the mark of decimals:
# "," for dots that group ("1.500.000", "1.500,50", a decimal comma "1,5", "0,065"), "." for
# commas that group ("1,500,000", "1,000.5"). "1,500" shows none (1.5 in German).
_RUN_RE: Final = re.compile(r"[0-9][0-9.,]*[0-9]")
_MARKS: Final = (
    (re.compile(r"[0-9]{1,3}(?:\.[0-9]{3}){2,}(?:,[0-9]+)?|[0-9]{1,3}(?:\.[0-9]{3})+,[0-9]+"
                r"|(?![1-9][0-9]{0,2},[0-9]{3}$)[0-9]+,[0-9]+"), ","),
    (re.compile(r"[0-9]{1,3}(?:,[0-9]{3}){2,}(?:\.[0-9]+)?|[0-9]{1,3}(?:,[0-9]{3})+\.[0-9]+"),
     "."),
)


def _text(value: object) -> str | None:
    """The normalised text of a value that holds a dot; None for any other value."""
    if type(value) is not str:
        return None
    text = value if value.isascii() else normalize_text(value)  # "１２．５００"
    return text if "." in text else None


def _doubted(values: Sequence[object]) -> list[int]:
    """The rows of ``values`` holding a number in doubt."""
    search = _DOUBT_RE.search  # (one scan of a column: a load of clean amounts costs this)
    return [i for i, value in enumerate(values) if type(value) is str and (
        "." in value and search(value) if value.isascii() else search(normalize_text(value)))]


def decimal_marks(columns: Sequence[Sequence[object]]) -> list[str | None]:
    """The mark of decimals each row's amounts show (``columns``: the raw amounts of one ICO
    per row, column by column), where one of them is in doubt: ``","`` when they group
    thousands with dots, ``"."`` with commas, None when they show neither or both (or nothing
    is in doubt: only such a row is looked at, so a load of clean amounts costs one scan).

    Examples
    --------
    >>> decimal_marks([["12.500", "12.500", "12.500", "12.500", "12.500", "1.500.000"],
    ...                ["1.500.000", "1,000.5", "1,5", "1,500", "0.15", None],
    ...                ["", 3.5, None, "1,000,000", "$ 2.5", "1,000,000"]])
    [',', '.', ',', '.', None, None]
    """
    rows = len(columns[0]) if columns else 0
    marks: list[str | None] = [None] * rows
    for i in sorted({i for values in columns for i in _doubted(values)}):
        shown = {mark for values in columns if type(values[i]) is str
                 for run in _RUN_RE.findall(normalize_text(values[i]))  # type: ignore[arg-type]
                 for pattern, mark in _MARKS if pattern.fullmatch(run)}
        marks[i] = next(iter(shown)) if len(shown) == 1 else None
    return marks


def settle(values: Sequence[object], marks: Sequence[str | None] | None = None
           ) -> tuple[Sequence[object], dict[int, Reason]]:
    """``values`` with each number in doubt written as its row's mark of decimals reads it
    (``","``: ``"12.500"`` becomes ``"12500"``; ``"."``: ``"12.5000"``, a decimal), and the
    rows whose mark is None (or ``marks`` None: no context) as missing values, with their
    reason. ``values`` itself when nothing is in doubt.

    Examples
    --------
    >>> settle(["$12.500", "1 ETH = 1.000 AQB", "0.500", "12.5", "1.500.000"], [",", "."] * 3)
    (['$12500', '1 ETH = 1.0000 AQB', '0.500', '12.5', '1.500.000'], {})
    >>> settle(["150.000 tokens", 150.0, "1.500e6"])
    ([None, 150.0, '1.500e6'], {0: 'ambiguous_separator'})
    """
    doubted = _doubted(values)
    if not doubted:
        return values, {}
    out: list[object] = list(values)
    refused: dict[int, Reason] = {}
    for i in doubted:
        mark = None if marks is None else marks[i]
        if mark is None:
            refused[i], out[i] = "ambiguous_separator", None
        else:
            out[i] = _DOUBT_RE.sub(r"\1\2" if mark == "," else r"\1.\g<2>0",
                                   str(_text(values[i])))
    return out, refused

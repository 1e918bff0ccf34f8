"""One dot and three digits in an amount (``"12.500"``): a decimal point, or thousands grouped?

``"1.500.000"`` and ``"1.500,50"`` group thousands with dots (German), ``"1,500,000"`` and
``"1,000.5"`` with commas (English); a lone ``"12.500"``, ``"$12.500"``, ``"150.000 tokens"``,
``"1 ETH = 1.000 AQB"`` is 12.5 in the one and 12,500 in the other, and nothing in the value
tells which. The parser never guesses: it reads such a value by the convention the rest of the
ICO's amounts show (:func:`decimal_marks`), and when they show none, or both, the value is
missing with the reason ``ambiguous_separator`` (:func:`settle`).

Only such a number is in doubt: an integer part of 1 to 3 digits that is not ``0`` (``"0.500"``
is a decimal), one dot, exactly three digits, no other mark around it (``"1,500.000"`` is
English), no exponent after it (``"1.500e6"``). Groups of spaces or apostrophes before one
mark and three digits (``"1 500.000"``, ``"1'500,000"``) are in doubt too: a space groups
thousands in either convention, so it shows no decimal mark, and the ICO's convention reads
the mark after them (a dot as in ``"12.500"``, a comma as in ``"1,500"``, but with no English
default), else the value is missing. Only amounts are (money and tokens): a
score or a share is never in the thousands. A decimal point alone (``"0.15"``, ``"2.5"``)
shows no convention: prices are written so in either.

Its mirror ``"1,500"`` (one comma, three digits) is 1,500 in English and 1.5 in German, and
is read by the same context: 1.5 where the ICO's amounts show dots grouping, missing
(``ambiguous_separator``) where they show a comma written as a decimal mark (``"0,05"``)
without dots grouping, or both conventions. Without context, or beside commas grouping
alone, it stays 1,500, deliberately unlike ``"12.500"``: English grouping is the common case
(refusing every lone ``"1,500"`` would lose countless values read right), while a lone dot
and three digits is as often a decimal (a price ``"1.125"``) as a German thousand. A decimal
comma is no such default: it shows that this ICO writes a comma as a decimal mark, so a
comma before three digits may be one too (``"30,000 ETH"`` beside ``"0,05 USD"``: 30,000 or
30?), yet it is too common in English profiles' prices to make ``"1,500"`` 1.5 by itself.
A scale word after a dot group the context reads as thousands (``"1.500M"`` beside
``"1.500.000"``: 1,500 million?) is missing too: ``"1.500M"`` is mostly a decimal, and 1.5
billion is beyond almost any ICO.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from .base import Reason
from .text import normalize_text

__all__ = ["decimal_marks", "in_doubt", "settle"]

# The number in doubt, as a whole run of digits and marks (not "1,500.000"; "1 500.000" is
# _SPACED_RE's).
_DOUBT_RE: Final = re.compile(r"(?<![0-9.,'’])(?<![0-9]\s)([1-9][0-9]{0,2})\.([0-9]{3})"
                              r"(?![0-9.,'’]|\s[0-9]|[eE][-+]?[0-9])")
# Its mirror, one comma and three digits ("1,500": 1,500 in English, 1.5 in German).
_COMMA_RE: Final = re.compile(r"(?<![0-9.,'’])(?<![0-9]\s)([1-9][0-9]{0,2}),([0-9]{3})"
                              r"(?![0-9.,'’]|\s[0-9]|[eE][-+]?[0-9])")
# Digits grouped by spaces or apostrophes, then one mark and three digits ("1 500.000",
# "1'500,000", "12 500.000"): the groups show no decimal mark (a space groups thousands in
# either convention), so the mark is a decimal one (1,500) or a third kind of group
# (1,500,000), as in "12.500". The ICO's convention reads it (settle), else it is refused.
_SPACED_RE: Final = re.compile(r"(?<![0-9.,'’])(?<![0-9]\s)([1-9][0-9]{0,2}(?:[ '’\u00a0\u202f]"
                               r"[0-9]{3})+)([.,])([0-9]{3})(?![0-9.,'’]|\s[0-9]|[eE][-+]?[0-9])")
# A scale word after a number ("1.500M", "1.500 Mio"): a dot group read as thousands is refused.
_SCALE_RE: Final = re.compile(r"\s*(?:[kmb]|mm|bn|mln|mio|mil|mill?ions?|billions?|thousands?"
                              r"|mrd|tsd)(?![a-z])", re.IGNORECASE)
# A run of digits and marks, and the runs that show a convention, by a sign: "," for dots
# grouping thousands ("1.500.000", "1.500,50"), ";" for a decimal comma alone ("1,5",
# "0,065": common outside German too, and so is its mix with commas grouping), "." for commas
# grouping ("1,500,000", "1,000.5"). "1,500" shows none. A row's mark: the signs it shows.
_RUN_RE: Final = re.compile(r"[0-9][0-9.,]*[0-9]")
# A date in a free-text value ("$1,500,000 (Jan 5,2018)": refused, yet its marks are looked
# at): its "5,2018" is a day and a year, no decimal comma
_DATED_RE: Final = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?\s*[0-9]{1,2},"
    r"(?:19|20)[0-9]{2}(?![0-9])", re.IGNORECASE)
_MARKS: Final = (
    (re.compile(r"[0-9]{1,3}(?:\.[0-9]{3}){2,}(?:,[0-9]+)?|[0-9]{1,3}(?:\.[0-9]{3})+,[0-9]+"),
     ","),
    (re.compile(r"(?![1-9][0-9]{0,2},[0-9]{3}$)[0-9]+,[0-9]+"), ";"),
    (re.compile(r"[0-9]{1,3}(?:,[0-9]{3}){2,}(?:\.[0-9]+)?|[0-9]{1,3}(?:,[0-9]{3})+\.[0-9]+"),
     "."),
)


def _text(value: object) -> str:
    """The text of a string value, normalised where it is not ASCII (``"１２．５００"``)."""
    text = str(value)
    return text if text.isascii() else normalize_text(text)


def _doubted(values: Sequence[object], pattern: re.Pattern[str] = _DOUBT_RE,
             mark: str = ".") -> list[int]:
    """The rows of ``values`` holding a number in doubt (``pattern``, one of its ``mark``)."""
    search = pattern.search  # (one scan of a column: a load of clean amounts costs this)
    return [i for i, value in enumerate(values) if type(value) is str and (
        any(m in value for m in mark) and search(value) if value.isascii()
        else search(normalize_text(value)))]


def _all_doubted(values: Sequence[object]) -> set[int]:
    """The rows of ``values`` holding any number in doubt."""
    return {*_doubted(values), *_doubted(values, _COMMA_RE, ","),
            *_doubted(values, _SPACED_RE, ".,")}


def in_doubt(value: object) -> bool:
    """Whether ``value`` holds a number in doubt (``"12.500"``, ``"1,500"``).

    >>> in_doubt("$12.500"), in_doubt("1,500 EUR"), in_doubt("1.500.000"), in_doubt(12.5)
    (True, True, False, False)
    >>> in_doubt("1 500.000"), in_doubt("1'500,000"), in_doubt("1 500.50"), in_doubt("1,500.000")
    (True, True, False, False)
    """
    return bool(_all_doubted([value]))


def decimal_marks(columns: Sequence[Sequence[object]]) -> list[str | None]:
    """The signs of a convention each row's amounts show (``columns``: the raw amounts of one
    ICO per row, column by column), where one of them is in doubt (``"12.500"``,
    ``"1,500"``): a string of ``","`` (dots group thousands), ``";"`` (a decimal comma,
    nothing grouped), ``"."`` (commas group), sorted; None when they show none (or nothing
    is in doubt: only such a row is looked at, so a load of clean amounts costs one scan).

    Examples
    --------
    >>> decimal_marks([["12.500", "12.500", "12.500", "12.500", "12.500", "1.500.000", "1,500"],
    ...                ["1.500.000", "1,000.5", "1,5", "1,500", "0.15", "1,500", "1.500.000"],
    ...                ["", 3.5, None, "1,000,000", "$ 2.5", "1,000,000", "0,5"]])
    [',', '.', ';', '.', None, ',.', ',;']
    """
    rows = len(columns[0]) if columns else 0
    marks: list[str | None] = [None] * rows
    doubted = {i for values in columns for i in _all_doubted(values)}
    for i in sorted(doubted):
        shown = {mark for values in columns if type(values[i]) is str
                 for run in _RUN_RE.findall(_DATED_RE.sub(
                     " ", normalize_text(values[i])))  # type: ignore[arg-type]
                 for pattern, mark in _MARKS if pattern.fullmatch(run)}
        marks[i] = "".join(sorted(shown)) or None
    return marks


def settle(values: Sequence[object], marks: Sequence[str | None] | None = None
           ) -> tuple[Sequence[object], dict[int, Reason]]:
    """``values`` with each number in doubt written as its row's signs
    (:func:`decimal_marks`) read it, and the rows they cannot read as missing values, with
    their reason; ``values`` itself when nothing is in doubt. ``"12.500"``: German signs
    alone (``","``, ``";"``) make it ``"12500"`` (missing when a scale word follows:
    ``"1.500M"``), ``"."`` alone a decimal ``"12.5000"``; else (none, both, ``marks`` None:
    no context) it is missing. ``"1,500"``: dots grouping (``","``, with ``";"`` or not)
    make it a decimal ``"1.5000"``; a decimal comma without them (``";"``, ``".;"``) or
    both groupings make it missing; else (no signs, ``"."``) it stays (English grouping,
    the default).

    Examples
    --------
    >>> settle(["$12.500", "1 ETH = 1.000 AQB", "0.500", "12.5", "1.500.000", "1,500"],
    ...        [",", "."] * 3)
    (['$12500', '1 ETH = 1.0000 AQB', '0.500', '12.5', '1.500.000', '1,500'], {})
    >>> settle(["150.000 tokens", 150.0, "1.500e6", "1,500 EUR"])
    ([None, 150.0, '1.500e6', '1,500 EUR'], {0: 'ambiguous_separator'})
    >>> settle(["1,500 EUR", "$1.500M", "1,500", "1,500 EUR"], [",", ";", ",.", ",;"])
    (['1.5000 EUR', None, None, '1.5000 EUR'], {1: 'ambiguous_separator', 2: 'ambiguous_separator'})
    >>> settle(["30,000 ETH", "30,000 ETH", "30,000 ETH"], [";", ".;", "."])
    ([None, None, '30,000 ETH'], {0: 'ambiguous_separator', 1: 'ambiguous_separator'})
    """
    dots = set(_doubted(values))
    commas = {i for i in _doubted(values, _COMMA_RE, ",")  # (no signs, or "." alone: English)
              if marks is not None and (marks[i] or ".") != "."}
    spaced = set(_doubted(values, _SPACED_RE, ".,"))
    if not dots and not commas and not spaced:
        return values, {}
    out: list[object] = list(values)
    refused: dict[int, Reason] = {}
    for i in sorted(dots | commas | spaced):
        signs = "" if marks is None else marks[i] or ""
        text = _text(values[i])
        if i in spaced and (text := _spaced(text, signs)) is None:  # type: ignore[assignment]
            refused[i], out[i] = "ambiguous_separator", None  # "1 500.000": 1,500 or 1.5M?
            continue
        found = _DOUBT_RE.search(text) if i in dots else None
        german, english = bool(signs) and "." not in signs, signs == "."
        if (found and not (german or english)) or (i in commas and not (german and "," in signs)):
            # "12.500" beside none or both; "1,500" beside both, or a decimal comma alone
            refused[i], out[i] = "ambiguous_separator", None
        elif found and german and _SCALE_RE.match(text, found.end()):
            refused[i], out[i] = "ambiguous_separator", None  # "1.500M": 1,500 million?
        else:
            if found:
                text = _DOUBT_RE.sub(r"\1\2" if german else r"\1.\g<2>0", text)
            if i in commas:  # "1,500" where dots group: 1.5 (written so it is no doubt any more)
                text = _COMMA_RE.sub(r"\1.\g<2>0", text)
            out[i] = text
    return out, refused


def _spaced(text: str, signs: str) -> str | None:
    """``text`` with each number grouped by spaces or apostrophes before one mark and three
    digits (``"1 500.000"``, ``"1'500,000"``) written as ``signs`` read it, without its
    groups; None when they cannot. A dot is a group where the ICO groups with dots or writes
    a decimal comma (as in ``"12.500"``), a decimal point where it groups with commas; a
    comma a group where it groups with commas, a decimal comma where it groups with dots (as
    in ``"1,500"``). Else (no signs, both, a decimal comma alone before a comma) no reading,
    and none for a group before a scale word (``"1 500.000M"``).

    >>> [_spaced("1 500.000 EUR", s) for s in (",", ";", ".", "", ",.")]
    ['1500000 EUR', '1500000 EUR', '1500.0000 EUR', None, None]
    >>> [_spaced("1'500,000", s) for s in (",", ".", ";", ",;", ".;")]
    ['1500.0000', '1500000', None, '1500.0000', None]
    """
    german, english = bool(signs) and "." not in signs, signs == "."
    parts: list[str] = []
    end = 0
    for found in _SPACED_RE.finditer(text):
        head, mark, tail = found.groups()
        group = (german if mark == "." else english)
        if not (group or (english if mark == "." else german and "," in signs)) or (
                group and _SCALE_RE.match(text, found.end())):
            return None
        digits = "".join(c for c in head if c.isdigit())
        parts += [text[end:found.start()], f"{digits}{tail}" if group else f"{digits}.{tail}0"]
        end = found.end()
    return "".join(parts) + text[end:]

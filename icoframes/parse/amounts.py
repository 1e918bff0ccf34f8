"""The money and amount columns of ``icos`` (and of list summaries), each read by the rule of units.

Every amount is read by the value reader of :mod:`icoframes.parse.units` and the one rule of
scale words of :mod:`icoframes.parse.scales`, whichever column it is in: the caps, the purchase
limits and the price with the unit column they share (``caps_unit``...), ``tokens_for_sale``
in the ICO's own token (:mod:`icoframes.parse.supply`) and ``raised`` in USD, the one amount
whose unit is fixed (spec 2.2, 2.3): ``"1.2B"`` is 1.2 billion in each, ``"5000 ETH"`` a
``unit_conflict`` in ``raised`` as ``"$5M"`` is one in ``tokens_for_sale`` and under a
``caps_unit`` of ETH.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

from ..schema import ICOS
from .base import Reason, Unread, _Bad
from .columns import to_float, to_text
from .prices import own_ticker
from .problems import Problems
from .rules import parse_amount
from .separators import decimal_marks, in_doubt, settle
from .supply import read_tokens
from .unitcols import unread_units
from .units import read_amount_group, written_amount

__all__ = ["read_icos_amounts", "read_raised", "ticker_words"]

# Amounts of ``icos`` read together with the unit column they share (see parse.units):
# unit column -> (amount columns, those that are prices and may be written as an exchange).
_AMOUNT_GROUPS: Final[Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "caps_unit": (("soft_cap", "hard_cap"), ()),
    "purchase_unit": (("min_purchase", "max_purchase"), ()),
    "token_price_unit": (("token_price",), ("token_price",)),
}
#: ``raised`` holds USD (spec 2.2, 2.3): a value writing another unit contradicts it.
RAISED_UNIT: Final = "USD"
_RAISED_BOUNDS: Final = ICOS.column("raised").bounds
# Every amount of an ICO: the convention of marks they show reads each of them.
_AMOUNTS: Final = (*(name for names, _ in _AMOUNT_GROUPS.values() for name in names),
                   "tokens_for_sale", "raised")


def read_icos_amounts(data: dict[str, Any], ids: np.ndarray, log: Problems) -> None:
    """Replace the raw amounts of ``data`` (the ``icos`` columns of :func:`~icoframes.parse.
    profiles.tidy`, with ``ticker``) by float64 numbers, and their unit columns by canonical
    codes that agree; what cannot be read is missing and a problem of its column in ``log``."""
    # "12.500" by the convention the ICO's other amounts show ("1.500.000": 12,500); only
    # amounts that are read settle it ("0,1 ETH" refused under a unit column USD is no sign of
    # German): where a row is in doubt, a trial read finds them (doubted ones stay looked at)
    raw = [data[name] for name in _AMOUNTS]
    marks = decimal_marks(raw)
    if any(mark is not None for mark in marks):
        trial, found = dict(data), Problems()
        _read_all(trial, ids, found, marks)
        again = [_evidence(read, shown) for read, shown in zip(decimal_marks([
            [value if in_doubt(value) or not _lost(value, number) else None
             for value, number in zip(values, trial[name], strict=True)]
            for name, values in zip(_AMOUNTS, raw, strict=True)]), marks, strict=True)]
        if again == marks:  # (mostly: the trial was the read)
            data.update(trial)
            log.merge(found)
            return
        marks = again
    _read_all(data, ids, log, marks)


def _evidence(read: str | None, shown: str | None) -> str | None:
    """A row's marks of a convention (:func:`~icoframes.parse.separators.decimal_marks`):
    ``read``, those of its amounts that are read, and ``shown``, those of all of them. A
    value refused for another reason (``"1,000,000 BTC"`` under USD) still shows how the
    profile writes numbers, so beside read amounts of the other convention it makes the row
    show both (its doubted values are then refused); beside read amounts of its own
    convention it decides nothing: it was never read. Beside no read amount showing a
    convention, one writing dots grouping or a decimal comma (``"1.500,5 EUR"`` in
    ``raised``) stands against the English default by which ``"1,500"`` would be read: the
    row shows both (its ``"1,500"`` is refused, as its ``"12.500"`` already was); one
    writing commas grouping agrees with that default and changes nothing.

    >>> _evidence(",", ",."), _evidence(".", ".;"), _evidence(";", ",;"), _evidence(None, ".")
    (',.', '.;', ';', None)
    >>> _evidence(None, ","), _evidence(None, ";"), _evidence(None, ",."), _evidence(None, None)
    (',.', '.;', ',.', None)
    """
    if read is None:  # nothing read shows one: the English default stands, unless contradicted
        return None if shown is None or shown == "." else "".join(sorted({*shown, "."}))
    both = shown is not None and "." in shown and bool(set(shown) & set(",;"))
    return shown if both else read  # "." beside "," or ";": both


def _lost(value: object, number: float) -> bool:
    """A raw amount that was there and is not read (missing after reading)."""
    return value is not None and value != "" and math.isnan(number)


def _read_all(data: dict[str, Any], ids: np.ndarray, log: Problems,
              marks: Sequence[str | None]) -> None:
    """:func:`read_icos_amounts` by these marks."""
    for unit, (amounts, exchange) in _AMOUNT_GROUPS.items():
        _read_group(data, unit, amounts, exchange, ids, log, marks)
    # in the ICO's token: "500,000,000 KIN" is read, "$5M" is no supply of tokens
    data["tokens_for_sale"], unread = read_tokens(data["tokens_for_sale"], data["ticker"],
                                                  marks)
    log.add_unread("icos", "tokens_for_sale", unread, ids)
    data["raised"], unread = read_raised(data["raised"], data["ticker"], marks)
    log.add_unread("icos", "raised", unread, ids)


def _read_group(data: dict[str, Any], unit: str, amounts: Sequence[str],
                exchange: Sequence[str], ids: np.ndarray, log: Problems,
                marks: Sequence[str | None]) -> None:
    """Replace raw amounts and their unit by numbers and canonical codes that agree.

    A currency written inside a value must agree with the unit column (or fills
    it when empty); a value that contradicts it is missing and a problem of its
    column. The unit column is read as text first, so a unit that is not text
    (a list, a flag) is a problem of the unit column, as for any text column.
    """
    text, unread = to_text(data[unit])
    log.add_unread("icos", unit, unread, ids)
    units = text.to_numpy(dtype=object, na_value=None)
    # "Singapore dollars", "USD/ETH": the unit column's text is a row, its numbers' rows say so
    log.add_unread("icos", unit, unread_units(data[unit], units, data["ticker"],
                                              price=bool(exchange), reported=unread.rows), ids)
    numbers, codes, bad = read_amount_group(
        {name: data[name] for name in amounts}, units,
        exchange=exchange, tickers=data["ticker"], marks=marks)
    for name in amounts:
        data[name] = numbers[name]
        log.add_unread("icos", name, bad[name], ids)
    data[unit] = codes.tolist()


def read_raised(values: Sequence[object], tickers: Sequence[object] | None = None,
                marks: Sequence[str | None] | None = None) -> tuple[np.ndarray, Unread]:
    """``raised`` per row (float64 USD, NaN when missing or unreadable) and the raw values left
    unread, with their reasons; ``tickers``: the ICO's own ticker per row (profiles), None for
    list summaries, which have none; ``marks``: the mark of decimals each row's ICO shows
    (:func:`~icoframes.parse.separators.decimal_marks`), None for list summaries (one amount:
    ``"$12.500"`` is an ``ambiguous_separator`` there).

    Read as the amounts under a unit column ``USD`` are (:mod:`icoframes.parse.units`, the
    scale words alike: ``"1.2B"``, ``"$5M"``, ``"5 USD mln"``, ``"10 cents"`` is 0.1): by
    :func:`~icoframes.parse.rules.parse_amount`, then by the value reader for what it leaves. A
    value in another unit is a ``unit_conflict`` (``"5000 ETH"``, ``"$5 EUR"``; ``"500 BFC"``
    for another ICO than BFC's, a unit no list knows, ``unknown_unit``),
    and one whose multiplier word is the ICO's ticker is unreadable (:func:`ticker_words`).

    Examples
    --------
    >>> numbers, unread = read_raised(["1.2B", "5000 ETH", "$5 USD", "lots", "10 cents", "5 mln"],
    ...                               [None, None, None, None, None, "MLN"])
    >>> numbers.tolist()
    [1200000000.0, nan, 5.0, nan, 0.1, nan]
    >>> unread.values, unread.reasons
    (['5000 ETH', 'lots', '5 mln'], ['unit_conflict', 'unreadable_number', 'unreadable_number'])
    """
    settled, refused = settle(values, marks)  # "$12.500": 12.5, or 12,500?
    numbers, unread = to_float(settled, bounds=_RAISED_BOUNDS)  # as every other column's
    why: dict[int, Reason] = dict(zip(unread.rows, unread.reasons, strict=True))
    rows = _unread_text(settled, unread)
    if rows:  # what parse_amount leaves, the value reader reads under a unit column USD
        again, _, lost = read_amount_group(
            {"raised": [settled[i] for i in rows]}, [RAISED_UNIT] * len(rows),
            tickers=None if tickers is None else [tickers[i] for i in rows])
        numbers[rows] = again["raised"]  # "10 cents": 0.1 (USD)
        for i in rows:
            del why[i]
        why.update((rows[k], reason) for k, reason in zip(  # "5000 ETH": a unit_conflict
            lost["raised"].rows, lost["raised"].reasons, strict=True))
    if tickers is not None:
        words = ticker_words(settled, tickers)
        numbers[words.rows] = math.nan
        why.update(dict.fromkeys(words.rows, "unreadable_number"))
    why.update(refused)
    rows = sorted(why)
    return numbers, Unread.at(values, rows, [why[i] for i in rows])


# What parse_amount leaves that the value reader may read otherwise: a text it found no number
# in, or one naming a percent word ("5 PCT tokens" for PCT: its tokens, a unit_conflict, as
# "5 XYZ tokens" for XYZ; "5 PCT" alone stays a percent).
_READ_AGAIN: Final = frozenset({"unreadable_number", "percent"})


def _unread_text(values: Sequence[object], unread: Unread) -> list[int]:
    """The rows of text ``parse_amount`` left for the value reader to read again."""
    return [i for i, reason in zip(unread.rows, unread.reasons, strict=True)
            if reason in _READ_AGAIN and type(values[i]) is str]


def ticker_words(values: Sequence[object], tickers: Sequence[object]) -> Unread:
    """The values of an amount column without a unit column (``raised``) that
    :func:`~icoframes.parse.rules.parse_amount` reads but the value reader, which knows the
    row's own ticker written in them, leaves: a multiplier word that is the ticker, written
    last (``"5 mln"`` for MLN, ``"5 MN"`` for MN, ``"5k"``, ``"5 USD k"`` for K: a multiple,
    or an amount of the token?), or glued with a currency into it (``"5KUSD$"`` for KUSD).

    Examples
    --------
    >>> unread = ticker_words(["5 mln", "5 mln", "5 MN", "5 mln USD", "5 MLN", 5, "5 USD k",
    ...                        "5KUSD$", "5KUSD$"], ["MLN", "KIN", "mn", "MLN", "MLN", "MLN",
    ...                                              "K", "KUSD", "XYZ"])
    >>> unread.rows, unread.values
    ([0, 2, 6, 7], ['5 mln', '5 MN', '5 USD k', '5KUSD$'])
    """
    rows = []
    for i, (value, ticker) in enumerate(zip(values, tickers, strict=True)):
        if type(value) is not str or (own := own_ticker(ticker)) is None or (
                own.casefold() not in value.casefold()):
            continue  # (a number writes no ticker; nor do most texts: one reading each)
        number = parse_amount(value)  # (a negative one is reported as negative already)
        if isinstance(number, float) and number >= 0 and isinstance(
                written_amount(value, ticker)[0], _Bad):
            rows.append(i)
    return Unread.at(values, rows, "unreadable_number")

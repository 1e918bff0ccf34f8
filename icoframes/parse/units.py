"""Units of amounts: canonical currency codes, and amounts read together with their unit.

A number carries its unit. The API states a unit per group of amounts
(``caps_unit`` for ``soft_cap`` and ``hard_cap``, ``token_price_unit``,
``purchase_unit`` for the purchase limits) and sometimes also writes a currency
inside a value (``"$2,000,000"``, ``"50 USD"``, ``"30,000 ETH"``). This module
reads both and makes them agree:

==================================  =====================  ==============================
value                               unit column            result
==================================  =====================  ==============================
``2000000``, ``"15M"``              any                    the number, in the column's unit
``"$2,000,000"``, ``"50 USD"``      USD (any spelling)     the number, USD
``"5k USD"``, ``"1.5bnUSD"``        USD or empty           5,000 and 1.5 billion, USD
``"bnUSD 5"``                       USD or empty           5 billion, USD
``"5kUSD"``, ``"5 mUSD"``           any                    missing (kUSD, mUSD: tokens)
``"5KUSD"`` (all capitals), KUSD    empty                  5; the unit becomes KUSD
``"5 BUSD"`` (a known token)        empty                  5; the unit becomes BUSD
``"5 USDK"``, ``"Price 0.1"``, XYZ  empty or USD           missing (unknown_unit: no code)
``"5MMUSD"``, ``"5 USDk"``          any                    missing (millions? the token USDK?)
``"1,000 kUSD"``, ticker KUSD       empty                  1,000; the unit becomes KUSD
``"5kKIN"``, ticker KIN             empty                  5,000; the unit becomes KIN
``"5KKIN"``, ``"5 mKIN"``, KIN      any                    missing (KKIN? milli or million?)
``"5 mln"``, ticker MLN             any                    missing (5 million, or 5 MLN?)
``"5 MN"``, ``"5k"``, MN, K         any                    missing (the same, any multiplier)
``2000``                            ``mln``, ``K``         missing (millions of what?)
``2000``                            ``$k``, ``USD mln``    2,000,000 and 2 billion, USD
``"5k"``, ``"5 mln"``                ``$k``, ``USD mln``    missing (5,000 thousands?)
``"5m"``                            ``ETH``                missing (milli or million?)
``"5 B"``, ``"1.2B"``               ``USD``, ``ETH``       5 and 1.2 billion, USD or ETH
``"5 USD."``, ``"5MUSD$"``          USD or empty           5 and 5,000,000, USD
``"30,000 ETH"``                    empty                  the number; the unit becomes ETH
``"$2,000,000"``                    ETH                    missing, counted as a problem
``"4,000,000 ICX"``, ``"A$10M"``     empty                  the number; ICX, AUD
``"1 ETH = 3,000 XYZ"`` (price)     ETH or empty           1/3000, ETH
``"5000 XYZ per ETH"`` (price)      ETH or empty           1/5000, ETH
``"XYZ 0.0004 USD"`` (price, XYZ)   USD or empty           0.0004, USD
``"1 KBX = 0.00011 ETH"`` (price)   ETH or empty           0.00011, ETH
``"1 ETH = 3,000 XYZ"`` (price)     USD                    missing, counted as a problem
``"0.1 per token"`` (price)         USD; XYZ, tokens       0.1 USD; missing (no currency)
``"0.1"`` (price)                   ``$k``, ``USD mln``    missing (no scale for a price)
``"0.1"`` (price)                   ``USD per token``      0.1 USD
``"2500 XYZ"`` (price, for XYZ)     any                    missing (tokens per what?)
``"-5000"``                         any                    missing, counted as a problem
==================================  =====================  ==============================

The ICO's own ticker (``tickers``) is never a multiplier glued to a currency, and a
lowercase multiplier glued to it multiplies it; one in capitals is unreadable
(:func:`~icoframes.parse.prices.split_multiplier`). A unit column with a scale (``K USD``,
``bnUSD``) multiplies the numbers of its group that write no unit; a value that writes its
currency is read as written, and an empty unit column takes it (then the group's other values
obey it as a unit column: ``"1.5m"`` beside ``"3,000 ETH"`` is missing, milli or million?).

A unit column that scales its numbers (``K USD``, ``USD mln``, ``cents``) or names no unit
(``mln``, ``mil``, ``USD MLN``) is read by :mod:`icoframes.parse.unitcols`.

A word written in a value is a unit only when it is a known currency or token code, the
ICO's own ticker or its unit column's unit (:func:`~icoframes.parse.prices.unit_word`:
``"500 BFC"`` for BFC is 500 BFC, for XYZ ``unknown_unit``, as ``"Price 0.1"`` is). Prices
written as an exchange (``"$1 = 6820 KIN"``, ``"50 AIR = $1"``) are read by
:mod:`icoframes.parse.prices`. An amount is never negative.

Units are canonical upper-case codes (``USD``, ``ETH``, ``BTC``, ``EUR``...):
every spelling in :data:`icoframes.vocabulary.UNIT_ALIASES` maps to its code
(misspellings such as ``Etherum`` included, look-alike letters read as Latin); an
unknown unit is kept, stripped and upper-cased (``" xyz "`` -> ``XYZ``). The number itself is
read by :func:`icoframes.parse.rules.parse_amount`, the one number reader.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np
import pandas as pd

from ..vocabulary import FIAT_CODES, NOT_UNITS, UNIT_ALIASES, fold
from .base import Reason, _Bad, bad
from .columns import Unread, numbers_fast
from .pertoken import as_exchange, own_tokens
from .prices import (
    CURRENCIES,
    canonical_unit,
    cents,
    forbidden_scale,
    no_unit,
    own_ticker,
    read_exchange,
    split_scale,
    ticker_word,
    unit_word,
)
from .refusals import exchange_sign
from .rules import (
    MARKER_SPELLINGS,
    MULTIPLIER_PATTERN,
    parse_amount,
    written_currency,
    written_multiplier,
)
from .separators import settle
from .text import foreign_digits, normalize_text
from .unitcols import CENT, column_multipliers, column_text, dollar_in_doubt, scaled_number

__all__ = ["FIAT_CODES", "UNIT_ALIASES", "canonical_unit", "canonical_units",
           "read_amount_group", "read_amounts", "read_price", "written_amount"]


def canonical_units(values: Sequence[object] | np.ndarray | pd.Series) -> np.ndarray:
    """Canonical codes of a whole unit column: an object array of str or None.

    Examples
    --------
    >>> canonical_units(["usd", "Ether", None, "", "btc"]).tolist()
    ['USD', 'ETH', None, None, 'BTC']
    """
    items = values.tolist() if isinstance(values, pd.Series | np.ndarray) else list(values)
    codes: dict[object, str | None] = {}
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        try:
            code = codes[item]
        except KeyError:
            code = codes[item] = canonical_unit(item)
        except TypeError:  # unhashable (a list): not a unit
            code = None
        out[i] = code
    return out


# --------------------------------------------------------------------------- one value

# A currency written before the number ("$", "US$", "€", "ETH ") or after it
# ("USD", " eth", " Ether"); a multiplier word right after the digits is not one, nor is
# a final dot ("$2,000,000." is 2,000,000 USD).
# It ends where a number (or a dot) follows its spaces, never in a space: possessive runs
# (the lazy "[^\d+-]*?\s*" tried each run of spaces again: "$" + 50,000 spaces took 121 s).
_PREFIX_RE: Final = re.compile(r"^(?P<sign>[-+]?)\s*+(?P<cur>[^0-9\s.+-]"
                               r"(?:[^0-9\s.+-]|\s++(?=[^0-9\s.+-]))*+)\s*+(?=[-+]?[0-9.])")
# Possessive (*+) runs of spaces and an end without them (the text is stripped): the lazy
# currency tried "\s*$" over each run of spaces again, O(n^2) on long hostile text.
_SUFFIX_RE: Final = re.compile(
    rf"(?<=[0-9.])\s*+(?P<mult>{MULTIPLIER_PATTERN}\.?(?=\s|$))?"
    r"\s*+(?P<cur>[^0-9\s.][^0-9]*?)?\.?$",
    re.IGNORECASE,
)


def _read_text(text: str, exchange: bool, ticker: object, unit: str | None,
               column: object) -> tuple[float | _Bad | None, str | None]:
    """(number or None or Bad, canonical unit written in the text or None); ``unit``: the
    row's unit column's code (a price per token that writes no currency is in it, if a
    currency), ``column``: the raw unit column (a scale word in a value that writes no
    currency obeys its currency: "5m" under "ETH", milli?; "5B" under "USD" is billions, as in
    raised: no token's letters beside the B)."""
    own = own_ticker(ticker)
    if exchange:
        per = as_exchange(text, own)  # "$0.1 per token" is "1 token = $0.1", "5000 XYZ per ETH"
        if per != text and "=" not in per and unit not in CURRENCIES:
            return bad("unreadable_price"), None  # "0.1 per token" in XYZ, TOKENS: no price
        text = per
    if exchange and ("=" in text or exchange_sign(text)):  # "1 ETH : 1000 XYZ": unreadable_price
        return read_exchange(text, ticker)
    currency = None
    before = ""  # a multiplier glued to the currency before the number: "bnUSD 5" is 5 billion USD
    body = text
    prefix = _PREFIX_RE.match(body)
    if prefix is not None:
        split = _split(prefix["cur"], own)
        if split is None:
            return bad("unreadable_number"), None
        before, currency = split
        body = prefix["sign"] + body[prefix.end():]
    suffix = _SUFFIX_RE.search(body)
    if suffix is not None and suffix["mult"] and not suffix["cur"] and ticker_word(
            suffix["mult"], own):
        return bad("unreadable_number"), None  # "5 mln" for MLN: 5 million, or 5 MLN?
    scale, after = (suffix["mult"], (suffix["cur"] or "").rstrip()) if suffix else (None, "")
    if after.endswith("."):  # "5 $k..", "5 $ k. .": no unit, as "5 USD.." (the regex took one)
        return bad("unreadable_number"), None
    named = bool(after) and own_tokens(after, own)  # "5 XYZ tokens" for XYZ: XYZ, as are
    after = own if named else after  # "5 PCT tokens" for PCT (no percent: tokens of PCT)
    scaled = scale and (after or currency or column_text(column, exchange))  # "5m": of ETH?
    if scale and forbidden_scale(scale, scaled, own, beside=bool(after or currency)) and (
            canonical_unit(currency) != canonical_unit(scaled)  # "$5B USD": $ settles B
            or forbidden_scale(scale, currency, own)):
        return bad("unreadable_number"), None  # "5 m ETH", "ETH 5m": milli? "5 B USD"
    if suffix is not None and after:  # "bnUSD": billions of USD (split_multiplier); "kUSD": None
        split = ("", after) if scale else _split(after, own)
        if split is None:
            return bad("unreadable_number"), None
        mult, written = split
        # both ends may name one ("$ 5 USD" is fine, "$ 5 ETH" is not)
        if currency is not None and canonical_unit(currency) != canonical_unit(written):
            if unit_word(currency, own, unit) and (named or unit_word(written, own, unit)):
                return bad("unit_conflict"), None
            number = parse_amount(text)  # "~0.1 ETH": why the text is no amount
            if isinstance(number, float) and written_currency(text) == canonical_unit(currency):
                return number, "USD"  # "$5b.USD": as raised reads it, by the one rule of units
            return no_unit(number if isinstance(number, _Bad) else bad("unreadable_number"),
                           body[: suffix.start("cur")] + mult + before, currency, written,
                           own=own, column=unit), None
        currency = written
        body = body[: suffix.start("cur")] + mult
    if currency is None:
        return parse_amount(text), None
    code = canonical_unit(currency)
    if cents(currency, own):  # "10 cents": hundredths of a US dollar
        number = parse_amount(body.strip() + before)
        return (scaled_number(number, CENT) if isinstance(number, float) else number), "USD"
    if not named and not unit_word(currency, own, unit):  # "Price 0.1", "5M hard": no unit
        number = parse_amount(text)
        if isinstance(number, float):
            return number, written_currency(text)
        return no_unit(number, body.strip() + before, currency), None  # never a unit PRICE
    if exchange and code == own:  # "2500 XYZ" for XYZ: XYZ per XYZ is no price; tokens per
        return bad("unreadable_price"), None  # USD, per ETH? Never a direction guessed
    # the body has a digit or a dot next to the unit: never missing, a number or a Bad
    return parse_amount(body.strip() + before), code


def written_amount(value: str, ticker: object) -> tuple[float | _Bad | None, str | None]:
    """One text read as the unit readers read a value under no unit column: its number (None
    when missing, a ``Bad`` when unreadable) and the unit it writes (None when none), for
    the ICO of ``ticker``. ``raised``, in USD, reads it to tell a value in another unit
    (``"5000 ETH"``: a ``unit_conflict``) from text that names no amount.

    Examples
    --------
    >>> written_amount("5000 ETH", None), written_amount("$5M", None), written_amount("5", None)
    ((5000.0, 'ETH'), (5000000.0, 'USD'), (5.0, None))
    >>> written_amount("٣ ETH", None)
    (Bad('unreadable_number'), None)
    """
    if foreign_digits(value):  # "٣ ETH": no number, as the readers of columns say
        return bad("unreadable_number"), None
    return _read_text(normalize_text(value).strip(), False, ticker, None, None)


def _split(unit: str, own: str | None) -> tuple[str, str] | None:
    """``(multiplier, unit)`` of a unit written in a value: ``("bn", "USD")`` for ``"bnUSD"``
    (:func:`~icoframes.parse.prices.split_multiplier`), else ``("", unit)``; None when the
    multiplier cannot be told (``"mKIN"`` for KIN: milli or million? ``"KKIN"``: a token?).
    A word of :data:`~icoframes.vocabulary.NOT_UNITS` written as a word (``"min"``, ``"Min"``,
    ``"MIN"``) is that word whatever the ticker: ``"min 5000"`` for IN is vague, as for any
    ICO, not a lone ``m`` glued to IN (``"mIN"`` still is)."""
    if fold(unit) in NOT_UNITS and (unit.islower() or unit.isupper() or unit.istitle()):
        return "", unit
    return split_scale(unit, own)  # "bnUSD", "USD mln" ("5 USD mln" as under a column "USD mln")


# --------------------------------------------------------------------------- columns


def read_amount_group(columns: Mapping[str, Sequence[object]],
                      units: Sequence[object] | np.ndarray, *,
                      exchange: Sequence[str] = (), tickers: Sequence[object] | None = None,
                      marks: Sequence[str | None] | None = None
                      ) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, Unread]]:
    """Read amounts sharing one unit column (``soft_cap`` and ``hard_cap`` with ``caps_unit``).

    Parameters
    ----------
    columns : mapping of str to sequence
        Raw values per amount column, all of the same length as ``units``.
    units : sequence or numpy.ndarray
        The raw unit column.
    exchange : sequence of str, optional
        Columns that are prices and may be written as an exchange,
        ``"1 ETH = 3,000 XYZ"`` (read as 1/3000 ETH per token), in any of the
        forms of :mod:`icoframes.parse.prices`.
    tickers : sequence, optional
        The ICO's ticker per row: it names the token side of an exchange, and decides
        whether a multiplier glued to a unit multiplies (``"kUSD"`` for KUSD is the
        token; ``"5kKIN"`` for KIN is 5,000 KIN), in a value as in the unit column.
    marks : sequence, optional
        The mark of decimals the ICO's amounts show, per row
        (:func:`~icoframes.parse.separators.decimal_marks`), by which ``"12.500"`` is read;
        without it (or None on a row) such a value is missing, an ``ambiguous_separator``.

    Returns
    -------
    amounts : dict of str to numpy.ndarray
        float64 per column; NaN when missing, unreadable or in disagreement.
    units : numpy.ndarray of object
        The canonical unit per row: the unit column's, else the one currency
        the row's values wrote (when they all name the same one; one missing as an
        ``ambiguous_separator``, ``"1,500 USD"``, still names its unit), else None.
    bad : dict of str to Unread
        Per column, the raw values left missing, their rows and reasons:
        unreadable, ``negative``, ``ambiguous_separator``, or naming a currency other
        than the row's unit (``unit_conflict``).

    Examples
    --------
    >>> amounts, units, bad = read_amount_group(
    ...     {"soft_cap": ["500", "$1M", "10 ETH"], "hard_cap": [2000, "3M", "$5"]},
    ...     ["eth", "", "ETH"])
    >>> amounts["soft_cap"].tolist(), amounts["hard_cap"].tolist(), units.tolist()
    ([500.0, 1000000.0, 10.0], [2000.0, 3000000.0, nan], ['ETH', 'USD', 'ETH'])
    >>> bad["soft_cap"].rows, bad["hard_cap"]
    ([], Unread(rows=[2], values=['$5'], reasons=['unit_conflict']))
    """
    codes = canonical_units(units)
    factors = column_multipliers(units, codes, tickers, price=bool(exchange))
    n = len(codes)
    amounts: dict[str, np.ndarray] = {}
    written: dict[str, dict[int, str]] = {}
    shown: dict[str, dict[int, str]] = {}  # the units of values refused by settle
    unread: dict[str, dict[int, Reason]] = {}
    settled: dict[str, Sequence[object]] = {}
    for name, values in columns.items():
        if len(values) != n:
            raise ValueError(f"{name} has {len(values)} values for {n} units")
        settled[name], refused = settle(values, marks)  # "12.500": 12.5, or 12,500?
        amounts[name], written[name], unread[name] = _read_column(
            settled[name], name in exchange, tickers, codes, units)
        unread[name].update(refused)
        # "1,500 USD" refused (1,500 or 1.5?) still writes USD plainly: the row's values
        # disagree on their unit beside "12.500 ETH", and an empty unit column is USD beside "5"
        shown[name] = _read_column([values[i] if i in refused else None for i in range(n)],
                                   name in exchange, tickers, codes, units)[1] if refused else {}
    for i, factor in factors.items():  # "K USD": a number that writes no unit is in thousands
        for name, numbers in amounts.items():
            value = columns[name][i]  # "5 mln", "5e6" under "USD mln": 5e6 or 5e12?
            if math.isnan(factor) and dollar_in_doubt(value, units[i]):  # "$3" under
                written[name].pop(i, None)  # "Singapore dollars": whose dollar? Read as "3"
            if i in written[name] or math.isnan(numbers[i]):
                continue
            number = scaled_number(float(numbers[i]), factor)  # "4.1" under "USD mln": 4.1e6
            if math.isnan(factor):  # "Singapore dollars", "mln": the unit, not the number
                unread[name][i], number = "unreadable_unit", math.nan  # (unitcols.unread_units)
            elif factor != CENT and type(value) is str and written_multiplier(value):
                unread[name][i] = "unreadable_price" if name in exchange else "unreadable_number"
                number = math.nan
            elif isinstance(number, _Bad):  # "1e400" under "K USD"; "1e-323" under "cents"
                unread[name][i], number = number.reason, math.nan
            numbers[i] = number
    # A unit column left empty takes the currency the row's values wrote, if they agree.
    stated: dict[int, set[str]] = {}
    for found in (*written.values(), *shown.values()):
        for i, code in found.items():
            stated.setdefault(i, set()).add(code)
    for i, found_codes in stated.items():
        if codes[i] is None and len(found_codes) == 1:
            codes[i] = next(iter(found_codes))
            ticker = None if tickers is None else tickers[i]
            for name, values in settled.items():  # "1.5m" beside "3,000 ETH": milli? Its
                # values that wrote no unit obey the unit as under a unit column ETH
                text = None if i in written[name] or i in unread[name] else values[i]
                again = _read_text(normalize_text(text).strip(), name in exchange, ticker,
                                   codes[i], codes[i])[0] if type(text) is str else None
                if isinstance(again, _Bad):
                    unread[name][i], amounts[name][i] = again.reason, np.nan
    for name, found in written.items():
        for i, code in found.items():
            if codes[i] != code:
                unread[name][i], amounts[name][i] = "unit_conflict", np.nan
    for name, numbers in amounts.items():  # an amount is never negative
        with np.errstate(invalid="ignore"):
            for i in np.flatnonzero(numbers < 0).tolist():
                unread[name][i], numbers[i] = "negative", np.nan
    lost = {name: Unread.at(columns[name], sorted(why), [why[i] for i in sorted(why)])
            for name, why in unread.items()}
    return amounts, codes, lost


def _read_column(values: Sequence[object], exchange: bool, tickers: Sequence[object] | None,
                 units: np.ndarray, columns: Sequence[object] | np.ndarray
                 ) -> tuple[np.ndarray, dict[int, str], dict[int, Reason]]:
    """Numbers of one column, the currencies written inside values (by row), unreadable rows
    and their reasons. ``units``: the canonical unit column, ``columns`` the raw one."""
    out, suspect = numbers_fast(values)  # plain numbers and numeric strings, vectorised
    written: dict[int, str] = {}
    why: dict[int, Reason] = {}
    for i in suspect:
        value = values[i]
        if type(value) is str:
            text = normalize_text(value).strip()
            if text in MARKER_SPELLINGS:
                out[i] = np.nan
                continue
            number, code = (bad("unreadable_number"), None) if foreign_digits(value) else (
                _read_text(text, exchange, None if tickers is None else tickers[i],
                           units[i], columns[i]))  # "12²": no number
        else:
            number, code = parse_amount(value), None
        if isinstance(number, _Bad) or (type(number) is float and not math.isfinite(number)):
            why[i], out[i] = number.reason if isinstance(number, _Bad) else "infinite", np.nan
            continue
        out[i] = np.nan if number is None else number
        if code is not None:
            written[i] = code
    return out, written, why


def read_amounts(values: Sequence[object],
                 units: Sequence[object]) -> tuple[np.ndarray, np.ndarray, Unread]:
    """Read one amount column together with its unit column (see the module docs for the
    rules; :func:`read_amount_group` reads several amounts sharing one unit).

    Returns
    -------
    amounts : numpy.ndarray of float64
    units : numpy.ndarray of object
        Canonical codes (or None).
    bad : Unread
        Raw values left missing and their rows: unreadable, or naming a
        currency the unit column contradicts.

    Examples
    --------
    >>> amounts, units, bad = read_amounts(
    ...     ["$2,000,000", "50 USD", "30,000 ETH", "0.1 eth", 7, "N/A"],
    ...     ["ETH", "US Dollar", "", "ether", "xyz", "BTC"])
    >>> amounts.tolist(), bad.values, bad.reasons
    ([nan, 50.0, 30000.0, 0.1, 7.0, nan], ['$2,000,000'], ['unit_conflict'])
    >>> units.tolist()
    ['ETH', 'USD', 'ETH', 'ETH', 'XYZ', 'BTC']
    """
    amounts, codes, bad = read_amount_group({"value": values}, units)
    return amounts["value"], codes, bad["value"]


def read_price(values: Sequence[object], units: Sequence[object],
               tickers: Sequence[object] | None = None) -> tuple[np.ndarray, np.ndarray, Unread]:
    """Like :func:`read_amounts`, also reading an exchange ``"1 KBX = 0.00011 ETH"`` as a price.

    The token side is the one naming the row's ticker, else the one that is not a currency
    (:mod:`icoframes.parse.prices`); the other side's currency must agree with the unit column
    (or fills it when empty).

    Examples
    --------
    >>> prices, units, bad = read_price(
    ...     ["1 ETH = 3,000 XYZ", "1 KBX = 0.00011 ETH", "1 ETH = 2000 XYZ", "$1 = 6820 KIN",
    ...      "1 ETH = 3640-3367 IML"],
    ...     ["ETH", "", "USD", "", ""], tickers=["XYZ", "KBX", "XYZ", None, "IML"])
    >>> prices.round(6).tolist(), units.tolist()
    ([0.000333, 0.00011, nan, 0.000147, nan], ['ETH', 'ETH', 'USD', 'USD', None])
    >>> bad.rows, bad.reasons
    ([2, 4], ['unit_conflict', 'range'])
    """
    amounts, codes, bad = read_amount_group({"value": values}, units, exchange=("value",),
                                            tickers=tickers)
    return amounts["value"], codes, bad["value"]

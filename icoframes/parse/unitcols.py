"""Unit columns (``caps_unit``, ``token_price_unit``, ``purchase_unit``): a multiplier they put
on the numbers of their group, or why they name no unit.

A unit column usually names a currency (``USD``, ``ether``) or a token (``XYZ``): the numbers
of its group are in it, as written. Some columns also scale them:

=========================================  ===============================================
unit column                                the numbers of its group that write no unit
=========================================  ===============================================
``bnUSD``, ``thousand USD``, ``mln USD``   billions, thousands or millions of USD
``USD mln``, ``$ mln``, ``USD millions``   millions of USD (a currency, then a scale word)
``K USD``, ``$M``, ``$mln``, ``€k``        thousands or millions (:func:`~.prices.split_scale`)
``cents``, ``¢``                           hundredths of a USD
``mln``, ``K`` (a multiplier alone)        unreadable: millions of what?
``mil``, ``lakh``, ``crore``, ``USD Mrd``  unreadable: a scale word of another language
``USD MLN``, ``XYZ mln``                   unreadable: a ticker, or a multiple of what?
``USD (mln)``, ``USD cents``, ``000 USD``  unreadable: a currency and text not understood
``USD*``, ``USD†``, ``.USD``               unreadable: a currency and a footnote mark or a dot
``USDMLN``, ``USDk``, ``usdk``, ``USDm``   unreadable: a scale, or a token? (``USDmln``: millions)
``kUSD``, ``mUSD``, ``kusd``, ``KUsd``     unreadable: a scale, or a token? (``KUSD``: the token)
``USDCk``, ``DAIk``, ``XYZmln``            unreadable: a scale of a token, or a token? (``USDCK``)
``USD..``, ``USD. .``                      unreadable: a unit and dots (``USD.`` is USD)
``8.3M``, ``5M+``, ``%``, ``percent``       unreadable: a number, a sign or a percent is no unit
``% of supply``, ``in %``, ``‰``          unreadable: a percent sign or word anywhere
``XYZ tokens`` for XYZ (the own ticker)    XYZ: token words after the own ticker name it again
``per token``, ``tokens``, ``XYZ/token``   unreadable: no unit (``vocabulary.NOT_UNITS``), a rate
``k.USD``, ``k.$`` (any ticker)            thousands of USD: a dot ends a scale word as a space
``USD.``, ``(USD)``, ``USD:``              USD: a final dot, brackets, a colon are no unit
``USD ($)``, ``Ether (ETH)``, ``in USD``   USD, ETH: one currency named twice, or after in
``USD per token``, ``$/token`` (price)     USD: a price is per token (``XYZ per token``: none)
``USD mln`` for MLN, ``USD k`` for K       unreadable: a multiple, or the ICO's token?
``KKIN``, ``mKIN`` for KIN                 unreadable (:func:`~.prices.split_multiplier`)
``ETH m``, ``m ETH``, ``USD b``            unreadable: milli? (:func:`~.prices.scaled_currency`)
``USD¹``, ``ETH①``, ``USD㎡``              unreadable: a footnote (:func:`~.text.foreign_digits`)
=========================================  ===============================================

A value that writes its currency is read as written (``$7`` is 7 USD under ``USD mln``); one
that writes a multiplier but no unit (``5 mln``, ``2.5k`` under ``USD mln``: 5 million of
millions?) is unreadable, as is one whose scale word may not scale the column's currency
(``5m`` under ``ETH``: milli? ``5 B`` under ``USD``: billions? under ``$`` it is).
No scale word scales a price: in a price group, a unit column that
would scale (``K USD``, ``USD mln``) names no unit, as does a token word or the ICO's own
ticker (``tokens``, ``XYZ tokens``, ``per token``, ``XYZ`` for XYZ: a price is never in tokens);
``cents`` stays a unit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Final

import numpy as np

from ..vocabulary import FOREIGN_MULTIPLIERS, LABEL_WORDS, NOT_UNITS, TOKEN_WORDS, fold
from .base import Bad, Unread, bad
from .pertoken import own_tokens, unit_per_token
from .prices import (
    CURRENCIES,
    canonical_unit,
    cents,
    own_ticker,
    split_scale,
)
from .rules import MULTIPLIERS, multiplier_word, times
from .scales import percent_unit
from .text import foreign_digits, normalize_text

__all__ = ["CENT", "column_multipliers", "column_text", "dollar_in_doubt", "scaled_number",
           "unread_units"]

#: The factor of a unit column ``cents``: a unit (hundredths of a USD), not a scale.
CENT: Final = 0.01
#: The factor of a unit column that names no unit: its numbers are unreadable.
_NO_UNIT: Final = (None, math.nan)
# The words and symbols of a unit column: "USD (mln)" is USD and mln, "USD ¢" USD and ¢,
# "¥ m" ¥ and m (a symbol of no known currency: yen or yuan? and milli?).
_PARTS_RE: Final = re.compile(r"[^\W_]+|[$€£¢₿¥₩₽₹Ξ]")
# A rate: "per token", "XYZ/token", "USD/ETH".
_RATE_RE: Final = re.compile(r"/|\bper\b", re.IGNORECASE)
# A number: a digit that begins a word ("8.3M", "5M+", "1ST"; not "B2B", as a value's unit).
_NUMBER_RE: Final = re.compile(r"(?<![^\W_])[0-9]")
# A unit in brackets or before a colon: "(USD)", "[USD]", "USD:".
_BARE_RE: Final = re.compile(r"\(([^()]+)\)|\[([^\[\]]+)\]|([^:]+):")
# A dollar of no country ("$", "dollars"); one that says it is the US dollar ("USD", "US$",
# "U.S. dollar", "United States dollars", "dollars (US)").
_DOLLAR_RE: Final = re.compile(r"\$|\bdollars?\b", re.IGNORECASE)
_US_RE: Final = re.compile(r"(?<![a-z])(?:usd|u\.?s\.?\s*(?:\$|dollars?\b)|united\s+states)"
                           r"(?![a-z])|\bdollars?\s*\(\s*u\.?s\.?\s*\)", re.IGNORECASE)
# A dollar other than the US one that a unit column names: by the letters of its sign ("S$",
# "HK$", "Mex$"; not "US$", nor "k$": thousands), by its code ("SGD", "$NZD", "Dollar (SGD)"),
# or by its country beside a dollar ("Singapore dollars", "Canadian $"). A dollar alone ("$ mln",
# "in dollars") names none: it is the US dollar as in a value, so "$3" under it stays 3 USD.
_SIGN_RE: Final = re.compile(r"(?<![^\W\d_])([^\W\d_]+)\$")
_OTHER_SIGNS: Final = frozenset({
    "a", "au", "b", "bd", "bds", "bz", "c", "ca", "ci", "col", "ec", "fj", "g", "gy", "hk", "j",
    "l", "mex", "n", "nt", "nz", "r", "rd", "s", "sg", "si", "t", "tt", "z"})
_OTHER_CODE_RE: Final = re.compile(
    r"(?<![^\W\d_])(?:aud|bbd|bmd|bnd|bsd|bzd|cad|fjd|gyd|hkd|jmd|kyd|lrd|nad|nzd|sbd|sgd|srd|"
    r"ttd|twd|xcd|zwd|zwl)(?![^\W\d_])", re.IGNORECASE)
_COUNTRY_RE: Final = re.compile(
    r"\b(?:singapore(?:an)?|hong\s*kong|australian?|canad(?:a|ian)|new\s+zealand|taiwan(?:ese)?|"
    r"jamaican?|baham(?:as|ian)|barbad(?:os|ian)|belize(?:an)?|bermud(?:a|ian)|brunei|fiji(?:an)?|"
    r"guyan(?:a|ese)|liberian?|namibian?|solomon|surinam(?:e|ese)|trinidad(?:ian)?|caribbean|"
    r"zimbabwe(?:an)?|cayman)\b", re.IGNORECASE)


def dollar_in_doubt(value: object, unit: object) -> bool:
    """Whether ``value`` writes a dollar without saying whose (``"$3"``, ``"3 dollars"``,
    ``"1 AQB = $3"``; not ``"US$3"``, ``"3 USD"``) under a unit column ``unit`` that names a
    dollar other than the US one (``"Singapore dollars"``, ``"S$"``, ``"Canadian dollar"``),
    even beside the US one (``"S$ / US$"``, ``"USD or SGD"``): the US dollar where nothing says
    otherwise, the column's dollar here, maybe. A column of a dollar of no country or of the
    US one (``"$ mln"``, ``"in dollars"``, ``"dollars (US)"``) leaves it the US dollar. Meant
    for a unit column that names no unit read; a known code (``"SGD"``) makes it a conflict.

    Examples
    --------
    >>> [dollar_in_doubt(v, "Singapore dollars") for v in ("$3", "3 dollars", "US$3", "3 USD")]
    [True, True, False, False]
    >>> [dollar_in_doubt("$3", u) for u in ("S$", "$ (SGD)", "$NZD", "S$ / US$", "USD or SGD")]
    [True, True, True, True, True]
    >>> [dollar_in_doubt("$3", u) for u in ("$ mln", "k$", "dollars (US)", "$XYZ", "mln")]
    [False, False, False, False, False]
    """
    if type(value) is not str or type(unit) is not str:
        return False
    text, column = normalize_text(value), normalize_text(unit)
    return (_DOLLAR_RE.search(text) is not None and _US_RE.search(text) is None
            and _other_dollar(column))


def _other_dollar(column: str) -> bool:
    """Whether a unit column's text names a dollar other than the US one."""
    return (_OTHER_CODE_RE.search(column) is not None
            or any(fold(sign) in _OTHER_SIGNS for sign in _SIGN_RE.findall(column))
            or (_COUNTRY_RE.search(column) is not None and _DOLLAR_RE.search(column) is not None))


def scaled_number(number: float, factor: float) -> float | Bad:
    """``number`` times a unit column's ``factor`` (:func:`~.rules.times`), or why that is no
    amount: ``infinite`` when too big for a float, ``underflow`` when a number not 0 becomes 0
    (``"1e-323"`` cents is no 0 USD, as the text ``"1e-400"`` is none).

    Examples
    --------
    >>> scaled_number(4.1, 1e6), scaled_number(1e300, 1e9), scaled_number(1e-323, CENT)
    (4100000.0, Bad('infinite'), Bad('underflow'))
    >>> scaled_number(0.0, CENT), scaled_number(1e-320, CENT)
    (0.0, 1e-322)
    """
    product = times(number, factor)
    if math.isinf(product):
        return bad("infinite")
    return bad("underflow") if product == 0 != number else product


def column_multipliers(units: Sequence[object] | np.ndarray, codes: np.ndarray,
                       tickers: Sequence[object] | None, *, price: bool = False
                       ) -> dict[int, float]:
    """Rows whose unit column multiplies the numbers of its group (``"K USD"``, ``"USD mln"``,
    ``"cents"``): the multiplier by row, and their code in ``codes`` becomes the currency's.
    A unit column that names no unit (see the module's table) is NaN, its code None: its
    numbers are unreadable, as in a value. ``tickers``: the ICO's ticker per row, which decides
    whether a multiplier word is one (``"USD k"`` for K: thousands of USD, or USD and K?).
    ``price``: the group is a price, which no scale word scales (``"USD mln"``, ``"K USD"``
    name no unit there: a price in millions of USD per token is no price anyone writes), and
    nor does a token word or the ICO's own ticker (``"tokens"``, ``"XYZ"`` for XYZ: a price is
    never in tokens)."""
    factors: dict[int, float] = {}
    for i, unit in enumerate(units):
        if type(unit) is str:
            text, codes[i], currency = _column_unit(unit, price)
            if currency:  # no ticker makes a known currency anything else
                continue
            own = own_ticker(None if tickers is None else tickers[i])
            if not price and text is not None and own_tokens(text, own):
                codes[i] = own  # "XYZ tokens" for XYZ: the token XYZ, as the column "XYZ" is
                continue  # (622ad8d: the made-up unit XYZ TOKENS); "PCT tokens" for PCT too
            if text is None or percent_unit(text):  # "USD¹", "ETH①": a footnote, never part
                # of a unit; "% of supply", "in %", "percent of tokens": a share, no unit (were
                # the made-up units % OF SUPPLY, IN %), in amounts and prices alike
                codes[i], factors[i] = _NO_UNIT
                continue
            if price and (not TOKEN_WORDS.isdisjoint(map(fold, _PARTS_RE.findall(text))) or (
                    own is not None and canonical_unit(text) == own)):
                # "tokens", "XYZ tokens", "per token", the own ticker: a price never is
                codes[i], factors[i] = _NO_UNIT
                continue
            scaled = _scaled(text, own)
            if scaled is not None:
                codes[i], factors[i] = _NO_UNIT if price and scaled[1] != CENT else scaled
    return factors


def unread_units(raw: Sequence[object], units: Sequence[object] | np.ndarray,
                 tickers: Sequence[object] | None, *, price: bool = False,
                 reported: Sequence[int] = ()) -> Unread:
    """The rows of a unit column that names no unit (:func:`column_multipliers`), with their
    ``raw`` text: ``unreadable_unit``, so that the text is in a row of problems (its cell is
    empty, and its group's amounts are missing for it, not for their numbers). ``units``: the
    column as read (text stripped, missing markers None); ``reported``: rows already reported
    (a lone surrogate): one row per value.

    Examples
    --------
    >>> unread_units([" Singapore dollars", "USD", "USD/ETH", None, "mln"],
    ...              ["Singapore dollars", "USD", "USD/ETH", None, "mln"], None)
    Unread(rows=[0, 2, 4], values=[' Singapore dollars', 'USD/ETH', 'mln'], \
reasons=['unreadable_unit', 'unreadable_unit', 'unreadable_unit'])
    """
    factors = column_multipliers(units, np.empty(len(units), dtype=object), tickers,
                                 price=price)
    rows = sorted(i for i, factor in factors.items() if math.isnan(factor)
                  and i not in set(reported))
    return Unread.at(raw, rows, "unreadable_unit")


def _scaled(text: str, own: str | None) -> tuple[str | None, float] | None:
    """``(code, factor)`` of a unit column that scales or names no unit; None when it is the
    unit it writes (``"XYZ"``, ``"KUSD"``, ``"mBTC"``). ``own``: the ICO's own ticker."""
    if canonical_unit(text) not in (None, own) and (_NUMBER_RE.search(text) or not (
            _PARTS_RE.search(text))):
        return _NO_UNIT  # a number or a sign ("8.3M", "5M+", "%", "+": 7ae5c53 made them the
        # units 8.3M, %), but the ICO's own ticker ("1ST" for 1ST, as a value's "500 1ST" is not)
    if cents(text, own):  # hundredths of a US dollar
        return "USD", CENT
    words = text.split()
    if multiplier_word(text) or any(fold(word.rstrip(".")) in FOREIGN_MULTIPLIERS
                                    for word in words):
        return _NO_UNIT  # "mln": millions of what? "mil": thousands or millions?
    split = split_scale(text, own)  # "USD mln", "K USD", "$M", "bnUSD"; not "ETH m" (milli?)
    if split is None:
        return _NO_UNIT  # "KKIN" for KIN: thousands of KIN, or the token KKIN? "USD k" for K
    if split[0]:
        return split[1], MULTIPLIERS[split[0]]
    parts = _PARTS_RE.findall(text)
    if _RATE_RE.search(text) or (parts and all(fold(part) in NOT_UNITS for part in parts) and not (
            text == own and fold(text) in LABEL_WORDS)):  # "HARD" for HARD is its token
        return _NO_UNIT  # "per token", "tokens", "days", "XYZ/token": no unit, as "5 tokens" is
        # no amount; a rate is no amount's unit (a price's is its currency: unit_per_token)
    marks = _PARTS_RE.sub("", text).split()  # "USD*", "USD†": a footnote; ".USD" a dot
    if (len(parts) > 1 or marks) and any(multiplier_word(part.casefold()) or cents(part, own) or (
            canonical_unit(part) in CURRENCIES) for part in parts):
        return _NO_UNIT  # "USD MLN": USD, or the token MLN? "USD (mln)", "USD cents", "m ETH"
    return None


def column_text(unit: object, price: bool = False) -> str | None:
    """A unit column's text as it is read (:func:`column_multipliers`); None when it is no text
    or has a footnote digit (:func:`~.text.foreign_digits`: it names no unit). A final dot is
    no part of a unit, as after a value (``"USD."``, ``"$."``; ``"5 USD."`` is 5 USD); a known
    currency alone in brackets or before a colon is that currency (``"(USD)"``, ``"USD:"``); a
    price unit of a known currency per token is that currency (``"USD per token"``,
    ``"$/token"``: :func:`~.pertoken.unit_per_token`; a price is always per token).

    Examples
    --------
    >>> column_text(" usd. "), column_text("(USD)"), column_text("Ether:"), column_text("(XYZ)")
    ('usd', 'USD', 'Ether', '(XYZ)')
    >>> column_text("USD per token", price=True), column_text("USD per token"), column_text(5)
    ('USD', 'USD per token', None)
    """
    return _column_unit(unit, price)[0] if type(unit) is str else None


def _named_once(text: str) -> str:
    """A unit column naming one known currency twice, once in brackets (``"USD ($)"``, ``"Ether
    (ETH)"``, ``"Dollar (USD)"``), or after "in" (``"in USD"``): that currency's name; any other
    text as it is (``"USD (ETH)"``, ``"in %"``). Split by hand, no pattern: a lazy name before
    spaces was quadratic in a long run of them."""
    head, bracket, inner = text[:-1].rpartition("(") if text.endswith(")") else ("", "", "")
    if bracket and "(" not in head and ")" not in inner and head.strip() and (
            canonical_unit(head) == canonical_unit(inner) in CURRENCIES):
        return inner.strip()
    words = text.split(None, 1)
    if len(words) == 2 and words[0].casefold() == "in" and canonical_unit(words[1]) in CURRENCIES:
        return words[1]
    return text


@lru_cache(maxsize=1024)
def _column_unit(unit: str, price: bool) -> tuple[str | None, str | None, bool]:
    """A unit column's text as :func:`_scaled` reads it (:func:`column_text`), its code, and
    whether it is a known currency, which it then reads as written whatever the ticker.

    Cached: a column repeats a few units, while the tickers that the other units need
    differ per row (30,000 rows of 5 units: a tenth of the time for the whole column). All
    of a row's work that depends on its unit alone is here: a row of a known currency, most
    rows, costs one look-up (30,000 rows of currencies: 9 ms with the footnote test per row,
    3.5 ms). A (unit, ticker) cache would not help: each ICO has its own ticker.
    """
    if foreign_digits(unit):
        return None, None, False
    text = normalize_text(unit).strip()
    if canonical_unit(text) is None:
        return "", None, False  # "N/A", "-": no unit written, as "" (2ffb71f: "N/A" a rate)
    text = text[:-1].rstrip() if text.endswith(".") else text  # "USD.", "USD k."
    if text.endswith("."):
        return None, None, False  # "USD..", "USD. .": no unit, as the value "5 USD.." is none
    bare = _BARE_RE.fullmatch(text)
    inner = "".join(group for group in bare.groups() if group).strip() if bare else ""
    if canonical_unit(inner) in CURRENCIES:
        text = inner  # "(USD)", "USD:"
    text = _named_once(text)  # "USD ($)", "Ethereum (ETH)", "in USD"; not "USD (ETH)"
    per = unit_per_token(text) if price else None  # "USD per token"
    text = text if per is None else per
    code = canonical_unit(text)
    return text, code, code in CURRENCIES

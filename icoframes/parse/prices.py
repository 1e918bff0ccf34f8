"""Prices written as an exchange: ``1 KBX = 0.00011 ETH``, ``$1 = 6820 KIN``, in any order.

One side names the token, the other the currency the price is in. The token
side is the one naming the ICO's ticker; without a ticker (or when neither
side names it) it is the side whose unit is not a known currency
(:data:`icoframes.vocabulary.UNIT_ALIASES`, :data:`~icoframes.vocabulary.FIAT_CODES`).
The price is the currency amount divided by the token amount:

=============================  ==========  ====================
written                        ticker      price
=============================  ==========  ====================
``1 KBX = 0.00011 ETH``        KBX         0.00011 ETH
``1 TNT = $0.071``             TNT         0.071 USD
``50 AIR = $1``                AIR         0.02 USD
``$1 = 6820 KIN``              (none)      1/6820 USD
``5 USD = 1 FIL``              FIL         5 USD
``1 ETH = 3,000 XYZ``          (none)      1/3000 ETH
``1 UTRUST = $0,065``          UTRUST      0.065 USD
``1ETH=500``                   (any)       1/500 ETH
``5k USD = 1M XYZ``            XYZ         0.005 USD
``$1 = 5kKIN``                 KIN         1/5000 USD
``1 kUSD = 0.01 ETH``          KUSD        0.01 ETH
``1 ABC = 0.1 USD$``           ABC         0.1 USD
``1 ETH : 1000 XYZ``           (any)       1/1000 ETH
``1 ETH → 1000 XYZ``           (any)       1/1000 ETH
``1000 XYZ per 1 ETH``         (any)       1/1000 ETH
=============================  ==========  ====================

A colon, an arrow (``→``, ``⇒``, ``->``, ``=>``) or ``per`` between an amount and its unit and
another amount is the ``=`` of an exchange (:func:`~icoframes.parse.refusals.exchange_sign`).
The currency side names a known code (:func:`unit_word`: ``"1 XYZ = 5 BFC"`` is
``unknown_unit``), and for an ICO with a ticker the token side names it, a known code or a
token word (``"1 BILL = 1 XLM"`` for XYZ: whose token? ``unreadable_price``).

Unreadable (a :class:`~icoframes.parse.base.Bad`, so reported, with its
reason): a side with a range or several amounts (``1 ETH = 3640-3367 IML``:
``range``), a qualifier (``1PSTS = 20¢ (25¢ AFTER SEPT 18)``: ``vague``), and
a side without an amount or with a sign, both or neither side a currency when
the ticker decides nothing, a token amount of 0, or no currency on the side
that is not the token (``1 ABC = 500`` for ABC: ``unreadable_price``), a symbol after
what is no currency (``1 ABC = 0.1 EUR$``: ``unreadable_price``), and a lone
lowercase ``m`` glued to the ICO's ticker (``2 mKIN = $1`` for KIN, milli or million:
``unreadable_price``), or a multiplier word that is the ticker, in any case (``$1 = 5 mln`` for
MLN, ``$1 = 5 MN`` for MN, ``$1 = 5k`` for K), or a token side in capitals that is a multiplier
word and not the ticker (``$1 = 5 MLN`` for XYZ or no ticker: 5 million, or 5 MLN?).
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from ..vocabulary import CENTS, LABEL_WORDS, NOT_UNITS, TOKEN_WORDS, fold
from .base import Reason, _Bad, bad
from .refusals import EXCHANGE_SIGNS_RE, exchange_sign
from .rules import MULTIPLIER_PATTERN, MULTIPLIERS, amount_reason, parse_amount, times
from .scales import (
    CURRENCIES,
    KNOWN_UNITS,
    SYMBOL_CHARS,
    SYMBOL_PATTERN,
    canonical_unit,
    code_as_written,
    scaled_currency,
    split_multiplier,
    split_scale,
    ticker_word,
)
from .text import latin_ticker, normalize_text

__all__ = ["CURRENCIES", "canonical_unit", "cents", "forbidden_scale", "no_unit", "own_ticker",
           "read_exchange", "scaled_currency", "split_multiplier", "split_scale", "ticker_word",
           "unit_word", "without_token_words"]

_SIDE_RE: Final = re.compile(  # possessive runs of spaces (*+): no backtracking over them
    rf"""\s*+(?P<pre>{SYMBOL_PATTERN})?\s*+
    (?P<num>[0-9](?:[0-9,.\s'’]*[0-9])?(?:e[-+]?[0-9]+)?)\s*+  # "1e3", as an amount
    (?:(?P<mult>{MULTIPLIER_PATTERN})\b\.?)?\s*+
    (?P<unit>[^\W\d_][\w.]*[$€£]?|¢|{"|".join(map(re.escape, sorted(SYMBOL_CHARS)))})?\s*""",
    re.IGNORECASE | re.VERBOSE,
)


def forbidden_scale(mult: str, unit: str | None, own: str | None, *, beside: bool = True) -> bool:
    """The scale word ``mult`` written apart from the unit ``unit`` in a value (``"5 m ETH"``,
    ``"ETH 5m"``, ``"5 B USD"``, an exchange's side) may not scale it (:func:`scaled_currency`,
    as in a unit column): the value is unreadable. A token's amount is read as written
    (``"500M XYZ"``, and ``"200M BNB"`` for BNB, the ICO's own ticker ``own``): the rule is of
    known currencies. The one test of it, for amounts and exchanges alike; ``beside=False``
    when ``unit`` is the unit column's, the value writing none (``"5m"`` under ``ETH``:
    milli? ``"1.2B"`` under ``USD`` is billions, as in ``raised``).

    Examples
    --------
    >>> forbidden_scale("m", "ETH", None), forbidden_scale("M.", "USD", None)
    (True, False)
    >>> forbidden_scale("M", "ETH", None), forbidden_scale("m.", "BTC", None, beside=False)
    (False, True)
    >>> forbidden_scale("B", "USD", None), forbidden_scale("M", "BNB", "BNB")
    (True, False)
    >>> forbidden_scale("B", "USD", None, beside=False), forbidden_scale("m", "ETH", None,
    ...                                                                   beside=False)
    (False, True)
    """
    code = None if unit is None else canonical_unit(unit)
    return code in CURRENCIES and code != own and (scaled_currency(
        mult.rstrip("."), unit, beside=beside) is None)  # type: ignore[arg-type]




# A word, as unit_word tells a word that is no unit from other text ("A$", "Price:", "5M")
_WORD_RE: Final = re.compile(r"[^\W\d_]+")


def unit_word(text: str, own: str | None, column: str | None = None) -> bool:
    """Whether ``text``, written next to a number in a value, is a unit: a known currency or
    token code (:data:`~.scales.KNOWN_UNITS`), the ICO's own ticker ``own`` (any case; a word
    of :data:`~icoframes.vocabulary.NOT_UNITS` only written as the ticker: ``"500M HARD"`` for
    HARD), or the code of the row's unit column ``column`` (``"500 BFC"`` under ``BFC``). Any
    other word is no unit (``"Price 0.1"``, ``"5M required"``, ``"500 BFC"`` for XYZ: which
    unit? :func:`no_unit`), never a made-up unit: an English word of no list and another
    ICO's ticker look alike.

    Examples
    --------
    >>> [unit_word(t, "XYZ") for t in ("usd", "Ether", "link", "xyz", "BFC", "Price", "Аround")]
    [True, True, True, True, False, False, False]
    >>> unit_word("HARD", "HARD"), unit_word("hard", "HARD"), unit_word("BFC", None, "BFC")
    (True, False, True)
    >>> [unit_word(t, None) for t in ("INR", "TRY", "try", "Tron")]
    [True, True, False, True]
    """
    code = canonical_unit(text)
    if code is None:
        return False
    if code in KNOWN_UNITS and code_as_written(code, text):
        return True  # "5 TRY" is lira; "5M try" no unit, though "5 try" for TRY is its token
    word = fold(text) not in NOT_UNITS
    return (code == own and (word or (text == own and fold(text) in LABEL_WORDS))) or (
        code == column and word)


def no_unit(number: float | _Bad | None, rest: str, *texts: str, own: str | None = None,
            column: str | None = None) -> float | _Bad | None:
    """``number``, read from a value whose ``texts`` beside its number are no unit
    (:func:`unit_word`), with the reason ``unknown_unit`` where it says only that the value is
    no number, though the value without them (``rest``) is one amount, and one of them is a
    word no list knows (``"Price 0.1"``, ``"5M required"``); a word the refusals know keeps
    its reason (``"5M hard"``: ``vague``; ``"500 tokens"``), as does text that is no amount
    without the word (``"1 ETH = 3,000 XYZ"`` outside a price). Only the texts that are no
    unit (:func:`unit_word` of ``own`` and ``column``) count: in ``"CHF 10.-"`` the unit is
    known, and the tail is what makes it no number.

    Examples
    --------
    >>> no_unit(bad("unreadable_number"), "0.1", "Price"), no_unit(bad("vague"), "5M", "hard")
    (Bad('unknown_unit'), Bad('vague'))
    >>> no_unit(bad("unreadable_number"), "500", "tokens")
    Bad('unreadable_number')
    >>> no_unit(bad("unreadable_number"), "1 ETH = 3,000", "XYZ")
    Bad('unreadable_number')
    >>> no_unit(bad("unreadable_number"), "10", "CHF", "-")
    Bad('unreadable_number')
    """
    if number is bad("unreadable_number") and any(
            _WORD_RE.fullmatch(text) and fold(text) not in NOT_UNITS
            and not unit_word(text, own, column) for text in texts) and (
            isinstance(parse_amount(rest), float)):
        return bad("unknown_unit")
    return number


class _Side(NamedTuple):
    amount: float
    unit: str


def _side(text: str, token: str | None) -> _Side | Reason:
    """One side of the exchange: an amount and its unit; why not when it is not exactly that.
    ``token``: the ICO's own ticker, if known (see :func:`split_multiplier`)."""
    head, _, last = text.strip().rpartition(" ")
    if token is not None and token[0].isdigit() and last.upper() == token:
        # "1 2GT" for 2GT: the amount 1 of the token, never digits grouped by a space ("1 2")
        side = _side(head, None)
        return _Side(side.amount, token) if isinstance(side, _Side) and not side.unit else (
            "unreadable_price")
    match = _SIDE_RE.fullmatch(text)
    if match is None:
        reason = amount_reason(text.strip())
        return "unreadable_price" if reason == "unreadable_number" else reason
    mult, unit = match["mult"] or "", match["unit"] or ""
    if unit.endswith(".."):
        return "unreadable_price"  # "= 0.1 USD..": as a value "5 USD.." and a unit column
    unit = unit.removesuffix(".")  # "10 cents.", "USD."
    if not unit and ticker_word(mult, token):
        return "unreadable_price"  # "$1 = 5 mln" for MLN, "$1 = 5k" for K: a multiple?
    written = unit or match["pre"] or ""
    if not mult and unit:
        split = split_scale(unit, token)  # as in a value: "bnUSD", "USDmln"
        if split is None:  # "2 mKIN = $1" for KIN: milli or million? "USDcents", "ETHm"
            return "unreadable_price"
        mult, unit = split
    elif mult and forbidden_scale(mult, written, token):
        return "unreadable_price"  # "= 0.000001 m ETH": milli? "= 0.001 B USD", "Ξ0.1m"
    if fold(unit) in NOT_UNITS - TOKEN_WORDS and not (unit == token and fold(unit) in LABEL_WORDS):
        return "unreadable_price"  # "$1 = 5 mil": 5,000 or 5 million? "$1 = 5 days", "5 hard"
    if unit and unit[-1] in SYMBOL_CHARS and canonical_unit(unit) not in CURRENCIES:
        return "unreadable_price"  # "USD$" is USD, "EUR$" no currency
    amount = parse_amount(match["num"] + mult)
    if not isinstance(amount, float):
        return amount.reason if isinstance(amount, _Bad) else "unreadable_price"
    units: list[str | None] = []
    if match["pre"]:
        units.append(canonical_unit(match["pre"]))
    if unit and cents(unit, token):  # "20¢", "20 cents"
        units.append("USD")
        amount, counted = times(amount, 0.01), amount  # in decimal, as a value's
        if amount == 0 != counted:  # cents: 0.7 cents is 0.007, 5e-324 cents no 0
            return "underflow"
    elif unit:
        units.append(canonical_unit(unit))
    if None in units or (len(units) == 2 and units[0] != units[1]):
        return "unit_conflict"  # "$5 EUR"
    return _Side(amount, str(units[0]) if units else "")  # "" : the token, unnamed


def read_exchange(text: str, ticker: object) -> tuple[float | _Bad, str | None]:
    """``(price, currency)`` of an exchange written in ``text``, for an ICO of ``ticker``.

    Examples
    --------
    >>> read_exchange("1 KBX = 0.00011 ETH", "KBX"), read_exchange("$1 = 6820 KIN", None)
    ((0.00011, 'ETH'), (0.0001466275659824047, 'USD'))
    >>> read_exchange("50 AIR = $1", "AIR"), read_exchange("5 USD = 1 FIL", "FIL")
    ((0.02, 'USD'), (5.0, 'USD'))
    >>> read_exchange("1 ETH = 3640-3367 IML", "IML"), read_exchange("1 ETH = 1 BTC", None)
    ((Bad('range'), None), (Bad('unreadable_price'), None))
    """
    text = normalize_text(text)
    if exchange_sign(text) and "=" not in text.replace("=>", ""):  # "1 ETH : 1000 XYZ"
        text = EXCHANGE_SIGNS_RE.sub("=", text)
    if text.count("=") != 1:
        return bad("range" if text.count("=") > 1 else "unreadable_price"), None
    own = own_ticker(ticker)
    left_text, right_text = (without_token_words(side, own) for side in text.split("="))
    left, right = _side(left_text, own), _side(right_text, own)
    if isinstance(left, str):
        return bad(left), None
    if isinstance(right, str):
        return bad(right), None
    if left.unit == right.unit:
        return bad("unreadable_price"), None
    token = _token_side(left, right, own)
    if token is None or (token.unit != own and fold(token.unit) in MULTIPLIERS):
        # "$1 = 5 MLN" for XYZ: 5 million XYZ, or 5 of the token MLN (another ICO's)?
        return bad("unreadable_price"), None
    money = right if token is left else left
    # a side's amount is never negative (_SIDE_RE has no sign); a price names its currency,
    # never a token ("1 XYZ per token" is no price in TOKEN)
    if token.amount == 0 or not money.unit or fold(money.unit) in TOKEN_WORDS or (
            own is not None and token.unit not in ("", own) and not unit_word(token.unit, own)
            and fold(token.unit) not in TOKEN_WORDS):  # "1 BILL = 1 XLM" for XYZ: whose token?
        return bad("unreadable_price"), None
    if not unit_word(money.unit, own):  # "1 XYZ = 5 BFC": a price in no unit known
        return bad("unknown_unit"), None
    price = money.amount / token.amount
    if price == 0 < money.amount:  # "1e-300 ETH = 1e300 AQB": too small for a float, no 0
        return bad("underflow"), None
    return price, money.unit


# The last word of a side before its token words: a unit, glued to its amount or apart
# ("5000XYZ", "XYZ"); matched whole, from its start only (linear on long hostile text)
_UNIT_WORD_RE: Final = re.compile(r"(?:[0-9][0-9.,]*+)?(?P<unit>[^\W\d_]\w*+)")


def without_token_words(side: str, own: str | None) -> str:
    """One side of an exchange without the token words after the ICO's own ticker ``own``
    (``"5000 XYZ tokens"`` is ``"5000 XYZ"``: they name the token again); any other side as it
    is (``"5000 ABC tokens"`` for XYZ, and for no ticker: whose tokens?).

    Examples
    --------
    >>> without_token_words(" 5,000 XYZ Tokens ", "XYZ"), without_token_words("1 xyz coin.", "XYZ")
    (' 5,000 XYZ', '1 xyz')
    >>> without_token_words("5000 ABC tokens", "XYZ"), without_token_words("5000 tokens", "XYZ")
    ('5000 ABC tokens', '5000 tokens')
    >>> without_token_words("1 2GT tokens", "2GT")
    '1 2GT'
    """
    parts = side.rsplit(None, 1)
    if own is None or len(parts) != 2 or fold(parts[1].rstrip(".")) not in TOKEN_WORDS:
        return side
    word = parts[0].rsplit(None, 1)[-1]
    if canonical_unit(word) == own:  # the ticker whole first: "2GT" is 2GT, not 2 of GT
        return parts[0]
    match = _UNIT_WORD_RE.fullmatch(word)
    return parts[0] if match is not None and canonical_unit(match["unit"]) == own else side


def own_ticker(ticker: object) -> str | None:
    """The ICO's ticker as a unit names it (upper case); None when there is none.

    Examples
    --------
    >>> own_ticker(" kin "), own_ticker(""), own_ticker(None), own_ticker("$XYZ")
    ('KIN', None, None, 'XYZ')
    """
    if isinstance(ticker, str) and ticker.strip():
        # a cashtag ("$XYZ") names the ticker XYZ: values write the ticker without its "$"
        own = latin_ticker(normalize_text(ticker)).strip().removeprefix("$").strip()
        return own.upper() or None
    return None


def cents(unit: str, own: str | None) -> bool:
    """``unit`` (written after an amount, or a unit column) is hundredths of a US dollar
    (:data:`~icoframes.vocabulary.CENTS`: ``"cents"``, ``"¢"``), unless it is the ICO's own
    ticker ``own`` (``"500 CENT"`` for CENT is 500 of its token).

    Examples
    --------
    >>> cents("Cents", None), cents("¢", "XYZ"), cents("cent", "CENT"), cents("USD", None)
    (True, True, False, False)
    """
    return fold(unit) in CENTS and canonical_unit(unit) != own


def _token_side(left: _Side, right: _Side, own: str | None) -> _Side | None:
    if own is not None:
        named = [side for side in (left, right) if side.unit == own]
        if len(named) == 1:
            return named[0]
    unnamed = [side for side in (left, right) if not side.unit]
    if unnamed:  # "1 ETH = 500": the side without a unit is the token, the other a currency
        other = right if unnamed[0] is left else left
        return unnamed[0] if len(unnamed) == 1 and other.unit in CURRENCIES else None
    tokens = [side for side in (left, right) if side.unit not in CURRENCIES]
    return tokens[0] if len(tokens) == 1 else None

"""Prices written per token: a value ``"$0.1 per token"`` (the exchange ``"1 token = $0.1"``,
read by :mod:`icoframes.parse.prices`) and a price unit column ``"USD per token"`` (USD); and
the other forms of an exchange a price value is written in (:func:`as_exchange`): tokens per
currency (``"5000 XYZ per ETH"``, the exchange ``"1 ETH = 5000 XYZ"``) and the ICO's own ticker
before its price (``"XYZ 0.0004 USD"``, the exchange ``"1 XYZ = 0.0004 USD"``).

A price is always per token; writing so says nothing more, and the currency before ``per
token`` (or ``/token``) is the price's. What names no known currency before it (``"XYZ per
token"``, ``"Huobi Token"``, a currency's name with a token word in it) names no unit. The ICO's
own ticker then token words (``"XYZ tokens"`` for XYZ) name that token, in a value as in a unit
column (:func:`own_tokens`).
"""

from __future__ import annotations

import re
from typing import Final

from ..vocabulary import NOT_UNITS, TOKEN_WORDS, fold
from .prices import CURRENCIES, canonical_unit
from .rules import parse_amount, written_currency
from .scales import SYMBOL_CHARS

__all__ = ["as_exchange", "own_tokens", "per_token", "unit_per_token"]

# A price per token: "$0.1 per token", "0.1 USD/XYZ" (split in one linear pass: no backtracking
# over long hostile text)
_PER_RE: Final = re.compile(r"/|\bper\b", re.IGNORECASE)
_WORD_RE: Final = re.compile(r"[^\W\d_]\w*\.?")
_DIGIT_RE: Final = re.compile(r"[0-9]")
# A unit written (a letter or a currency's sign): "XYZ 10.-" writes none, and stays as it is
_UNIT_RE: Final = re.compile(rf"[^\W\d_]|[{''.join(sorted(SYMBOL_CHARS))}¢¥]")
# The word a part ends with after its amount: its unit ("250 BERRY", "5000 XYZ tokens")
_LAST_WORD_RE: Final = re.compile(r"(?<=[0-9.\s])[^\W\d_]\w*+\.?\s*+$")
# The words and symbols of a unit: "XYZ (tokens)" is XYZ and tokens.
_PARTS_RE: Final = re.compile(r"[^\W_]+|[$€£¢₿¥₩₽₹Ξ]")
_PERCENT_SIGN_RE: Final = re.compile(r"[%％‰]")  # a share's sign, which no unit's words hold
# A word first, then token words ("XYZ tokens"), then a colon, "=" or spaces, then the rest
# (the price): the ICO's ticker naming what the price is of. Possessive runs: linear.
_TOKEN_WORDS_RE: Final = "|".join(sorted(TOKEN_WORDS, key=len, reverse=True))
_LABEL_RE: Final = re.compile(
    rf"\s*+(?P<word>[^\W\d_]\w*+)(?:\s++(?i:{_TOKEN_WORDS_RE})\b)?+\s*+(?:[:=]|(?<=\s))\s*+"
    r"(?P<rest>\S.*)", re.DOTALL)


def per_token(text: str, own: str | None) -> str:
    """A price written per token (``"$0.1 per token"``, ``"0.1 USD/XYZ"`` for XYZ) as the
    exchange it is (``"1 token = $0.1"``), or as the number alone when it writes no currency
    (``"0.1 per token"`` is ``"0.1"``, in the unit column's unit, which must be a currency:
    :func:`~icoframes.parse.units.read_price`); any other text as it is
    (``"$5/month"``: per what is no token or the ICO's ticker ``own``).

    Examples
    --------
    >>> per_token("$0.1 per token", None), per_token("0.1 USD / xyz", "XYZ")
    ('1 token = $0.1', '1 xyz = 0.1 USD')
    >>> per_token("$5/month", "XYZ"), per_token("0.1 USD/ETH", "XYZ")
    ('$5/month', '0.1 USD/ETH')
    >>> per_token("0.1 per token", None)  # a number alone: in the unit column's currency
    '0.1'
    """
    parts = _PER_RE.split(text)
    if len(parts) != 2 or "=" in text or _DIGIT_RE.search(parts[0]) is None:
        return text
    money, token = (part.strip() for part in parts)
    if own is not None and own_tokens(token, own):  # "$0.1 per XYZ token": per the token XYZ
        token = own
    if not _WORD_RE.fullmatch(token):
        return text
    token = token.rstrip(".")
    if fold(token) not in TOKEN_WORDS and canonical_unit(token) != own:
        return text
    if isinstance(parse_amount(money), float) and written_currency(money) is None:
        return money  # "0.1 per token": 0.1 in the unit column's unit, as "0.1" is
    return f"1 {token} = {money}"


def unit_per_token(text: str) -> str | None:
    """The currency of a price unit column written per token (``"USD per token"``,
    ``"USD/token"``, ``"$ per token"``: USD); None when it writes no known currency before a
    token word (``"XYZ per token"``, ``"per token"``) or is no such text (``"USD"``).

    Examples
    --------
    >>> unit_per_token("USD per token"), unit_per_token("$/token"), unit_per_token("ETH / Tokens")
    ('USD', 'USD', 'ETH')
    >>> unit_per_token("XYZ per token"), unit_per_token("per token"), unit_per_token("USD")
    (None, None, None)
    """
    parts = _PER_RE.split(text)
    if len(parts) != 2 or fold(parts[1].strip()) not in TOKEN_WORDS:
        return None  # (a column's final dot is gone already: unitcols.column_text)
    code = canonical_unit(parts[0])
    return code if code in CURRENCIES else None


def own_tokens(unit: str, own: str | None) -> bool:
    """``unit`` (a unit column, or the unit written after a value's number) is the ICO's own
    ticker ``own`` then token words (``"XYZ tokens"``, ``"XYZ Coins"`` for XYZ): its amounts
    are in that token, the words name it again, as the unit ``"XYZ"`` does, whatever the
    ticker is (``"PCT tokens"`` for PCT: no percent word then). Not a rate (``"XYZ per
    token"``), nor a share (``"% XYZ tokens"``: a percent sign), nor another ICO's ticker
    (``"ABC tokens"`` for XYZ).

    Examples
    --------
    >>> own_tokens("XYZ tokens", "XYZ"), own_tokens("xyz Coins.", "XYZ"), own_tokens("XYZ", "XYZ")
    (True, True, False)
    >>> own_tokens("XYZ per token", "XYZ"), own_tokens("ABC tokens", "XYZ"), own_tokens("X", None)
    (False, False, False)
    >>> own_tokens("PCT tokens", "PCT"), own_tokens("% XYZ tokens", "XYZ")
    (True, False)
    """
    parts = _PARTS_RE.findall(unit)
    return own is not None and len(parts) > 1 and canonical_unit(parts[0]) == own and (
        not _PER_RE.search(unit)) and all(fold(part) in TOKEN_WORDS for part in parts[1:]) and (
        not _PERCENT_SIGN_RE.search(unit))


def as_exchange(text: str, own: str | None) -> str:
    """A price value written in any form of an exchange, as the exchange it is (read by
    :func:`~icoframes.parse.prices.read_exchange`, which judges it), for an ICO of ``own``:

    * per token (:func:`per_token`): ``"$0.1 per token"`` is ``"1 token = $0.1"``;
    * tokens per currency: ``"5000 XYZ per ETH"``, ``"5000 tokens/ETH"`` are ``"1 ETH =
      5000 XYZ"`` (0.0002 ETH a token: the currency after ``per`` is what the tokens cost),
      and ``"5000 XYZ tokens per 1 ETH"`` is ``"5000 XYZ tokens = 1 ETH"``;
    * the ICO's own ticker (then token words) before its price: ``"XYZ 0.0004 USD"``, ``"XYZ:
      $0.0004"``, ``"XYZ token = 0.0004 USD"`` are ``"1 XYZ = 0.0004 USD"``; ``"XYZ 2500"``
      writes no unit, and stays as it is (a price in tokens: unreadable).

    Any other text is returned as it is.

    Examples
    --------
    >>> as_exchange("5000 XYZ per ETH", "XYZ"), as_exchange("XYZ 0.0004 USD", "XYZ")
    ('1 ETH = 5000 XYZ', '1 XYZ = 0.0004 USD')
    >>> as_exchange("XYZ tokens: $0.0004", "XYZ"), as_exchange("ABC 0.0004 USD", "XYZ")
    ('1 XYZ = $0.0004', 'ABC 0.0004 USD')
    >>> as_exchange("$5/month", "XYZ"), as_exchange("XYZ 2500", "XYZ")
    ('$5/month', 'XYZ 2500')
    """
    per = per_token(text, own)
    if per != text:
        return per
    parts = _PER_RE.split(text)
    if len(parts) == 2 and "=" not in text and _DIGIT_RE.search(parts[0]) is not None:
        tokens, currency = (part.strip() for part in parts)
        code = canonical_unit(currency.rstrip("."))
        if _WORD_RE.fullmatch(currency) and code in CURRENCIES and code != own:
            return f"1 {currency.rstrip('.')} = {tokens}"  # "5000 XYZ per ETH"
        # "5000 XYZ tokens per 1 ETH", "0.1 ETH / 250 BERRY": "per" is the "=" of an exchange
        # between two units, one a currency; two amounts of one unit or none are two prices
        # ("$0.05 / $0.07", "$20M hard / $5M soft")
        words = [_LAST_WORD_RE.search(part) for part in (tokens, currency)]
        units = [canonical_unit(word[0]) for word in words if word is not None and (
            fold(word[0].strip().rstrip(".")) not in NOT_UNITS - TOKEN_WORDS)]  # "5M soft"
        if _DIGIT_RE.search(currency) and len(units) == 2 and units[0] != units[1] and (
                CURRENCIES.intersection(units)):
            return f"{tokens} = {currency}"
        return text
    label = _LABEL_RE.fullmatch(text) if own is not None else None
    if label is not None and "=" not in label["rest"] and _DIGIT_RE.search(label["rest"]) and (
            _UNIT_RE.search(label["rest"]) and canonical_unit(label["word"]) == own):
        return f"1 {own} = {label['rest']}"  # "XYZ 0.0004 USD", "XYZ tokens: $0.0004"
    return text

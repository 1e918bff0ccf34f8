"""The currencies an accepting list names: what ``n_accepted_currencies`` counts.

An item names a currency when it is a known currency or token code or a name of one
(:func:`~icoframes.parse.scales.canonical_unit`: ``"Ether"``, ``"Tron (TRX)"``), as written
(:func:`~icoframes.parse.scales.code_as_written`: ``"try"`` is no lira), or such an item with
a note in brackets (``"ETH (ERC20)"``, ``"EUR (bank transfer)"``: :func:`item_head`), or
known codes joined where :mod:`~icoframes.parse.splits` does not cut (``"ETH BTC"``,
``"ETH-BTC"``, ``"ETH and BTC only"``: each), all by :func:`currency_codes`, the one test of
a currency named that the splitting of ``accepting`` uses too. A word that may be a token's
ticker counts as well, alone or beside known codes (``"HASH"``, ``"USTD"``: a currency
misspelled is still one; ``"BTC and HASH"``). Free text names none: ``"and others"``, ``"any
ERC20 token"``, ``"Fiat currency"``, ``"credit card"``, ``"20+ cryptocurrencies"`` (words of
:data:`~icoframes.vocabulary.NOT_CURRENCY_WORDS`, declared once), nor do ``ALL`` and ``TOP``
in a list (:data:`~icoframes.vocabulary.ACCEPTING_WORDS`) or ``FIAT``, any government
currency (``accepts_fiat`` says it).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Final

from ..vocabulary import ACCEPTING_WORDS, FUNCTION_WORDS, NOT_CURRENCY_WORDS, fold
from .scales import KNOWN_UNITS, canonical_unit, code_as_written

__all__ = ["currency_codes", "item_head", "named_currencies"]

# Words of an item: runs of letters and digits ("ETH BTC", "ETH-BTC" are two)
_WORDS_RE: Final = re.compile(r"[^\W_]+")
# What no currency is: any government currency, and the words ALL and TOP of a list
_NO_CURRENCY: Final = ACCEPTING_WORDS | {"FIAT"}


def item_head(item: str) -> str:
    """The text of ``item`` before a note in brackets that ends it; ``item`` (stripped) when
    it has none.

    Examples
    --------
    >>> item_head("EUR (bank transfer)"), item_head(" Fiat (USD, EUR) "), item_head("ETH")
    ('EUR', 'Fiat', 'ETH')
    >>> item_head("(ERC20)"), item_head("ETH (ERC20) (x)")
    ('(ERC20)', 'ETH (ERC20) (x)')
    """
    stripped = item.strip()
    head, bracket, inner = stripped[:-1].rpartition("(")
    head = head.strip()
    if not stripped.endswith(")") or not bracket or not head or any(
            c in head or c in inner for c in "()"):
        return stripped
    return head


def _words(item: str) -> list[str]:
    return [word for word in _WORDS_RE.findall(item)
            if fold(word) not in FUNCTION_WORDS | NOT_CURRENCY_WORDS]


# (cached: the same few hundred spellings recur across thousands of ICOs)
@functools.lru_cache(maxsize=10_000)
def currency_codes(item: str) -> tuple[str, ...]:
    """The known currencies and tokens (canonical codes, sorted) ``item`` names as written;
    none for ``FIAT``, ``ALL``, ``TOP`` or free text.

    Examples
    --------
    >>> currency_codes("Tron (TRX)"), currency_codes("ETH (ERC20)"), currency_codes("try")
    (('TRX',), ('ETH',), ())
    >>> currency_codes("ETH BTC"), currency_codes("ETH and BTC only"), currency_codes("Fiat")
    (('BTC', 'ETH'), ('BTC', 'ETH'), ())
    >>> currency_codes("etc"), currency_codes("ETC"), currency_codes("Visa and Mastercard")
    ((), ('ETC',), ())
    >>> currency_codes("Fiat (USD, EUR)"), currency_codes("EUR (bank transfer)")
    (('EUR', 'USD'), ('EUR',))
    """
    code = canonical_unit(item)
    word = item.strip().rstrip(".")
    if code is None or code in _NO_CURRENCY or (
            fold(word) in NOT_CURRENCY_WORDS and not word.isupper()):
        return ()  # "etc", "Etc." are words; "ETC" in capitals is Ethereum Classic
    if code in KNOWN_UNITS:
        return (code,) if code_as_written(code, item) else ()  # "Ether", "US Dollar"
    head = item_head(item)
    if head != item.strip() and (named := currency_codes(head)):
        return named  # "ETH (ERC20)": the note is no currency
    words = _words(item)
    codes = [canonical_unit(word) for word in words]
    if words and all(code in KNOWN_UNITS and code_as_written(code, word)
                     for code, word in zip(codes, words, strict=True)):
        return tuple(sorted(set(map(str, codes)) - _NO_CURRENCY))  # "ETH BTC", "BTC only"
    return ()  # free text: "and others", "any ERC20 token", "credit card"


def _ticker(word: str, whole: bool) -> bool:
    # one word that may be a token's ticker: in any case alone ("Ustd"), in capitals beside
    # others ("BTC and HASH", never "Visa and Mastercard")
    return (not word.isdigit() and fold(word) not in NOT_CURRENCY_WORDS
            and canonical_unit(word) not in KNOWN_UNITS and (whole or word.isupper()))


@functools.lru_cache(maxsize=10_000)
def _item_codes(item: str) -> frozenset[str]:
    known = currency_codes(item)
    if known:
        return frozenset(known)
    if canonical_unit(item) in KNOWN_UNITS:
        return frozenset()  # "try", "Fiat": known, and no currency counted
    if (head := item_head(item)) != item.strip():
        return _item_codes(head)  # "HASH (ERC20)"
    words = _WORDS_RE.findall(item)
    if len(words) == 1 and words[0] == item.strip():
        return frozenset({words[0].upper()} if _ticker(words[0], whole=True) else ())
    words = _words(item)
    if len(words) > 1 and all(currency_codes(word) or _ticker(word, whole=False)
                              for word in words):
        return frozenset(code for word in words for code in (
            currency_codes(word) or (word.upper(),)))  # "BTC and HASH"
    return frozenset()


def named_currencies(items: Iterable[str]) -> frozenset[str]:
    """The distinct currencies (canonical codes) an ICO's accepting ``items`` name.

    Examples
    --------
    >>> sorted(named_currencies(["ETH", "Ether", "others", "any ERC20 token", "Fiat", "HASH"]))
    ['ETH', 'HASH']
    >>> sorted(named_currencies(["ETH (ERC20)", "Bitcoin Cash", "credit card", "ALL", "USTD"]))
    ['BCH', 'ETH', 'USTD']
    >>> sorted(named_currencies(["etc", "Etc.", "ETC", "try", "BTC and HASH"]))
    ['BTC', 'ETC', 'HASH']
    """
    return frozenset().union(*map(_item_codes, items))

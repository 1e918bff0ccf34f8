"""The currencies an accepting list names: what ``n_accepted_currencies`` counts.

An item names a currency when it is a known currency or token code or a name of one
(:func:`~icoframes.parse.scales.canonical_unit`: ``"Ether"``, ``"Tron (TRX)"``), or one word
that may be a token's ticker (``"HASH"``, ``"USTD"``: a currency misspelled is still one), or
known codes joined (``"ETH/BTC"``, ``"ETH and BTC"``: each). Free text names none: ``"and
others"``, ``"any ERC20 token"``, ``"Fiat currency"``, ``"credit card"``, ``"20+
cryptocurrencies"`` (words of :data:`~icoframes.vocabulary.NOT_CURRENCY_WORDS`, declared once),
nor do ``ALL`` and ``TOP`` in a list (:data:`~icoframes.vocabulary.ACCEPTING_WORDS`) or
``FIAT``, any government currency (``accepts_fiat`` says it).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Final

from ..vocabulary import ACCEPTING_WORDS, FUNCTION_WORDS, NOT_CURRENCY_WORDS, fold
from .scales import KNOWN_UNITS, canonical_unit, code_as_written

__all__ = ["named_currencies"]

# Words of an item: runs of letters and digits ("ETH/BTC", "BTC+ETH" are two)
_WORDS_RE: Final = re.compile(r"[^\W_]+")
# What no currency is: any government currency, and the words ALL and TOP of a list
_NO_CURRENCY: Final = ACCEPTING_WORDS | {"FIAT"}


@functools.lru_cache(maxsize=10_000)  # the same few hundred spellings recur across thousands
def _item_codes(item: str) -> frozenset[str]:
    code = canonical_unit(item)
    word = item.strip().rstrip(".")
    if code is None or code in _NO_CURRENCY or (
            fold(word) in NOT_CURRENCY_WORDS and not word.isupper()):
        return frozenset()  # "etc", "Etc." are words; "ETC" in capitals is Ethereum Classic
    if code in KNOWN_UNITS and code_as_written(code, item):
        return frozenset({code})  # "Ether", "Tron (TRX)", "US Dollar"
    words = _WORDS_RE.findall(item)
    if len(words) == 1 and words[0] == item.strip() and not words[0].isdigit() and (
            fold(words[0]) not in NOT_CURRENCY_WORDS):
        return frozenset({code})  # one word, a token's ticker: "HASH", "USTD"
    named = [word for word in words if fold(word) not in FUNCTION_WORDS]
    codes = [canonical_unit(word) for word in named]
    if len(named) > 1 and all(code in KNOWN_UNITS and code_as_written(code, word)
                              for code, word in zip(codes, named, strict=True)):
        return frozenset(map(str, codes)) - _NO_CURRENCY  # "ETH/BTC", "ETH and BTC"
    return frozenset()  # free text: "and others", "any ERC20 token", "credit card"


def named_currencies(items: Iterable[str]) -> frozenset[str]:
    """The distinct currencies (canonical codes) an ICO's accepting ``items`` name.

    Examples
    --------
    >>> sorted(named_currencies(["ETH", "Ether", "others", "any ERC20 token", "Fiat", "HASH"]))
    ['ETH', 'HASH']
    >>> sorted(named_currencies(["ETH/BTC", "Bitcoin Cash", "credit card", "ALL", "USTD"]))
    ['BCH', 'BTC', 'ETH', 'USTD']
    >>> sorted(named_currencies(["etc", "Etc.", "ETC"]))
    ['ETC']
    """
    return frozenset().union(*map(_item_codes, items))

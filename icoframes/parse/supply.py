"""The ICO's token supply for sale (``tokens_for_sale``): amounts in the ICO's own token.

Directories write the supply as a number (``500000000``, ``"500M"``) or with the token
named: its ticker (``"500,000,000 KIN"``, ``"5kKIN"``) or the word ``tokens``
(``"500,000,000 tokens"``). It is read like the amounts of :mod:`icoframes.parse.units`
whose unit is the ICO's ticker: a value naming any other unit is no supply of tokens
(``"$5M"``, ``"5 ETH"``: ``unit_conflict``; ``"500 BFC"`` for KIN, a ticker no list knows:
``unknown_unit``), and a multiplier word
that is the ticker is unreadable (``"5 mln"`` for MLN).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..vocabulary import TOKEN_WORDS, fold
from .base import Unread
from .pertoken import own_tokens
from .prices import own_ticker
from .units import read_amount_group

__all__ = ["read_tokens"]


def read_tokens(values: Sequence[object], tickers: Sequence[object],
                marks: Sequence[str | None] | None = None) -> tuple[np.ndarray, Unread]:
    """The supply of tokens per row (float64, NaN when missing or unreadable) and the raw
    values left unread, with their reasons. ``marks``: the mark of decimals each row's ICO
    shows (:func:`~icoframes.parse.separators.decimal_marks`: ``"150.000"``, 150 or 150,000?).

    Examples
    --------
    >>> numbers, unread = read_tokens(
    ...     [5e8, "500,000,000 KIN", "500M tokens", "$5M", "5 mln", "5 mln"],
    ...     ["KIN", "KIN", None, "KIN", "MLN", "KIN"])
    >>> numbers.tolist()
    [500000000.0, 500000000.0, 500000000.0, nan, nan, 5000000.0]
    >>> unread.values, unread.reasons
    (['$5M', '5 mln'], ['unit_conflict', 'unreadable_number'])
    """
    texts = [_without_token_word(value, own_ticker(ticker))
             for value, ticker in zip(values, tickers, strict=True)]
    amounts, codes, lost = read_amount_group({"v": texts}, [None] * len(texts),
                                             tickers=tickers, marks=marks)
    numbers = amounts["v"]
    why = dict(zip(lost["v"].rows, lost["v"].reasons, strict=True))
    for i, code in enumerate(codes.tolist()):
        if code is not None and code != own_ticker(tickers[i]):  # "$5M": no tokens
            why[i], numbers[i] = "unit_conflict", np.nan
    rows = sorted(why)
    return numbers, Unread.at(values, rows, [why[i] for i in rows])


def _without_token_word(value: object, own: str | None) -> object:
    """``"500,000,000 tokens"`` (a final dot too) -> ``"500,000,000"``; any other value as it
    is, and one naming the own ticker ``own`` before the word (``"500 XYZ tokens"``: read as
    the amounts' own tokens are, so that "500 PCT tokens" for PCT is no percent)."""
    if type(value) is str and len(words := value.rsplit(None, 1)) == 2 and (
            fold(words[1].removesuffix(".")) in TOKEN_WORDS) and not (
            own_tokens(" ".join(value.rsplit(None, 2)[-2:]), own)):
        return words[0]
    return value

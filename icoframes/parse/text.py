"""Text as people type it, made comparable before any rule reads it.

Every rule that reads a number, a unit, a flag or a ticker out of text first
takes it through :func:`normalize_text`: Unicode NFKC (full-width digits,
``'１２'``, and compatibility forms, ``'ｅｔｈ'``, become plain ones) and without
zero-width characters (``'0\\u200b.25'`` is ``'0.25'``). Text kept as data
(names, descriptions, URLs) is not normalised: it is kept as sent, except
that lone surrogates, which no file format can hold, become U+FFFD
(:func:`clean_surrogates`) and are reported.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from ..vocabulary import LOOKALIKES

__all__ = ["ZERO_WIDTH", "clean_surrogates", "foreign_digits", "has_surrogates", "latin_ticker",
           "normalize_text"]

#: Characters that print as nothing: zero-width space, (non-)joiners, word joiner,
#: byte-order mark, soft hyphen, and the directional marks pasted with them.
ZERO_WIDTH: Final = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
_DROP: Final = {**dict.fromkeys(map(ord, ZERO_WIDTH)), ord("\u2212"): "-"}  # minus sign
_LOOKALIKE_TABLE: Final = str.maketrans(dict(LOOKALIKES))
_NON_ASCII_LETTER: Final = re.compile(r"[^\x00-\x7f]")
_ASCII_DIGIT: Final = re.compile(r"[0-9]")


def normalize_text(text: str) -> str:
    """NFKC, then without zero-width characters, U+2212 as ``-``; ASCII text as it is (fast).

    Examples
    --------
    >>> normalize_text("0\\u200b.25 ETH"), normalize_text("１,５ ｅｔｈ")
    ('0.25 ETH', '1,5 eth')
    """
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", clean_surrogates(text)).translate(_DROP)


def foreign_digits(text: str) -> bool:
    """True if ``text`` holds a character with a numeric value other than an ASCII digit
    ``0``-``9`` or a full-width one ``０``-``９``: a superscript (``"12²"``), a circled or
    parenthesised number (``"①"``, ``"⑫"``, ``"⒈5"``), a digit of another script (``"٣"``),
    or one whose NFKC form holds an ASCII digit (``"㎡"``, ``"㋀"``, ``"㏠"``).
    NFKC would turn ``"12²"`` into ``"122"`` and ``"①②"`` into ``"12"``: text holding one is
    no number, id or date, whatever NFKC makes of it. Look at it before
    :func:`normalize_text`.

    Examples
    --------
    >>> foreign_digits("12²"), foreign_digits("⑫"), foreign_digits("٣"), foreign_digits("㎡")
    (True, True, True, True)
    >>> foreign_digits("１２"), foreign_digits("12 ETH"), foreign_digits("ｅｔｈ 5")
    (False, False, False)
    """
    return not text.isascii() and any(
        not "\uff10" <= char <= "\uff19" and (unicodedata.numeric(char, None) is not None or (
            _ASCII_DIGIT.search(unicodedata.normalize("NFKC", char)) is not None))
        for char in text if not char.isascii())


def latin_ticker(text: str) -> str:
    """``text`` with Cyrillic and Greek look-alike letters as their Latin twins, when every
    non-ASCII letter has one (``'ЕТН'`` -> ``'ETH'``); otherwise as it is (``'Рубль'``).

    Examples
    --------
    >>> latin_ticker("ЕТН"), latin_ticker("Рубль"), latin_ticker("BTC")
    ('ETH', 'Рубль', 'BTC')
    """
    if text.isascii():
        return text
    mapped = text.translate(_LOOKALIKE_TABLE)
    return mapped if _NON_ASCII_LETTER.search(mapped) is None else text


def has_surrogates(text: str) -> bool:
    """True if ``text`` holds a lone surrogate (``'\\ud800'``), which UTF-8 cannot encode."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def clean_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD.

    Examples
    --------
    >>> clean_surrogates("a\\ud800b")
    'a�b'
    """
    if not has_surrogates(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")

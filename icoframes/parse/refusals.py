"""Why text that is no amount is not one: the reason of each kind of loss
(:data:`icoframes.reasons.REASONS`) that :func:`~icoframes.parse.rules.parse_amount` and the
price reader give, told from the text alone.
"""

from __future__ import annotations

import re
from typing import Final

from ..vocabulary import PERCENT_WORDS
from .base import Reason

__all__ = ["PERCENT_WORDS_RE", "SPACE_GROUPS_RE", "amount_reason"]

#: A percent in words ("5 percent", "5 pct"), as a pattern: no amount, but a share's sign.
PERCENT_WORDS_RE: Final = "|".join(word.replace(" ", r"\s+") for word in sorted(PERCENT_WORDS))
_PERCENT_RE: Final = re.compile(rf"%|(?<![^\W\d_])(?:{PERCENT_WORDS_RE})\b", re.IGNORECASE)
# A share's own sign, after its number ("25%", "25 percent").
_SHARE_SIGN_RE: Final = re.compile(rf"(?<=[0-9])\s*(?:%|(?:{PERCENT_WORDS_RE})\b)", re.IGNORECASE)
#: Thousands grouped by spaces ("100 000 000"), one number.
SPACE_GROUPS_RE: Final = re.compile(r"[0-9]{1,3}(?:[ \u00a0\u202f][0-9]{3})+(?:[.,][0-9]+)?")

# Why text that is no amount is not one (see amount_reason).
_VAGUE_RE: Final = re.compile(
    r"^\s*(?:[~≈<>≤≥±]|ca\.?\s|circa|approx|about|around|almost|nearly|over|under|up\s+to|"
    r"at\s+least|at\s+most|more\s+than|less\s+than|min|max)|\+\s*$|\bor\s+more\b|≈",
    re.IGNORECASE)
_BRACKETS_RE: Final = re.compile(r"\([^)]*\)?|\[[^\]]*\]?")
# two numbers: digits apart by more than one comma or dot (not "0.1", but "1M, 2M"); each
# gap is scanned once (it was "\d[\d,.]*(?=...)\D+\d": O(n^2), 0.5 s for "1." * 2000)
_UNDERSCORE_RE: Final = re.compile(r"[0-9]_[0-9]")
_SEVERAL_RE: Final = re.compile(r"[0-9](?:[^0-9]{2,}|[^0-9,.])[0-9]")
# Arabic decimal and thousands marks between digits ("1٫5", "1٬000"): one number in a form not
# read, not two numbers
_ARABIC_MARK_RE: Final = re.compile(r"(?<=[0-9])[٫٬](?=[0-9])")
# a number in base 16, 8 or 2 ("0x10") or a power of ten written out ("1.5x10^7", "10**7"): one
# number in a form not read, not "0" and "10", "5" and "10" (a run of spaces is begun once)
_PREFIXED_RE: Final = re.compile(r"(?<![0-9a-z.])0[xob][0-9a-f]+\b|(?:(?<!\s)\s*+[x×*·]\s*+|"
                                 r"(?<![0-9]))10\s*+(?:\^|\*\*)\s*+[-+]?[0-9]+", re.IGNORECASE)


def amount_reason(text: str, *, share: bool = False) -> Reason:
    """Why ``text`` (stripped, normalised, and no amount) cannot be read as one amount; with
    ``share``, as one share, whose own ``%`` after its number is no percent outside a share: a
    share qualified by words is ``vague`` (``"25% (vested)"``, ``"25% vested"``), two are a
    ``range`` (``"20% + 5%"``).

    In this order: an exchange outside a price (``unreadable_number``), a ``%``
    outside brackets (``percent``), a word or sign of approximation (``vague``),
    two numbers outside brackets (``range``: ranges, stages, several amounts), a
    bracketed qualifier (``vague``), else ``unreadable_number``.

    Examples
    --------
    >>> [amount_reason(t) for t in ["100-200", "10M (stage 1), 20M", "~5M", "0.1 (0.5 later)"]]
    ['range', 'range', 'vague', 'vague']
    >>> [amount_reason(t) for t in ["60%", "lots", "1 ETH = 2 X", "500 tokens", "1M, 2M"]]
    ['percent', 'unreadable_number', 'unreadable_number', 'unreadable_number', 'range']
    >>> [amount_reason(t) for t in ["1٫5", "1٬000", "1٬000-2٬000", "1.5x10^7", "1.5 × 10^7"]]
    ['unreadable_number', 'unreadable_number', 'range', 'unreadable_number', 'unreadable_number']
    >>> [amount_reason(t, share=True) for t in ["25% (vested)", "25% vested", "20% + 5%", "lots"]]
    ['vague', 'vague', 'range', 'unreadable_number']
    """
    bare = _SHARE_SIGN_RE.sub("", text) if share else text
    if bare != text:  # (a share's own sign: what is left says what is wrong)
        reason = amount_reason(bare)
        return "vague" if reason == "unreadable_number" and "=" not in text else reason
    outside = _BRACKETS_RE.sub(" ", text)
    if "=" in text:
        return "unreadable_number"  # an exchange is a price, read only in price columns
    if _PERCENT_RE.search(outside):
        return "percent"  # "5 percent", as "5%"
    if _VAGUE_RE.search(text):
        return "vague"
    if _UNDERSCORE_RE.search(text):
        return "grouping"  # "1_000": Python's float() reads it, no one writes it
    # digits grouped by spaces are one number ("100 000 000 tokens" is no range)
    one = _PREFIXED_RE.sub("0", _ARABIC_MARK_RE.sub("", outside))
    if _SEVERAL_RE.search(SPACE_GROUPS_RE.sub(lambda m: "".join(m[0].split()), one)):
        return "range"
    return "vague" if outside != text else "unreadable_number"

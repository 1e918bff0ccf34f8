"""Why text that is no amount is not one: the reason of each kind of loss
(:data:`icoframes.reasons.REASONS`) that :func:`~icoframes.parse.rules.parse_amount` and the
price reader give, told from the text alone.
"""

from __future__ import annotations

import re
from typing import Final

from ..vocabulary import APPROXIMATION_WORDS, PERCENT_WORDS, QUALIFIER_WORDS
from .base import Reason

__all__ = ["EXCHANGE_SIGNS_RE", "PERCENT_WORDS_RE", "SPACE_GROUPS_RE", "amount_reason",
           "exchange_sign"]

#: A percent in words ("5 percent", "5 pct"), as a pattern: no amount, but a share's sign.
PERCENT_WORDS_RE: Final = "|".join(word.replace(" ", r"\s+") for word in sorted(PERCENT_WORDS))
_PERCENT_RE: Final = re.compile(rf"%|(?<![^\W\d_])(?:{PERCENT_WORDS_RE})\b", re.IGNORECASE)
# A share's own sign, after its number ("25%", "25 percent").
_SHARE_SIGN_RE: Final = re.compile(rf"(?<=[0-9])\s*(?:%|(?:{PERCENT_WORDS_RE})\b)", re.IGNORECASE)
#: Thousands grouped by spaces ("100 000 000"), one number.
SPACE_GROUPS_RE: Final = re.compile(r"[0-9]{1,3}(?:[ \u00a0\u202f][0-9]{3})+(?:[.,][0-9]+)?")

# Why text that is no amount is not one (see amount_reason). The words of approximation are
# declared once (vocabulary.APPROXIMATION_WORDS), where the unit readers find them too: a word
# that makes an amount vague is never its unit ("around 5M" is no 5M in AROUND).
_WORDS_RE: Final = "|".join(word.replace(" ", r"\s+")
                            for word in sorted(APPROXIMATION_WORDS - {"ca"}, reverse=True))
_VAGUE_RE: Final = re.compile(
    rf"^\s*(?:[~≈<>≤≥±]|ca\.?\s|(?:{_WORDS_RE})(?![^\W\d_])|approx|min|max)|\+\s*$"
    r"|\bor\s+more\b|≈", re.IGNORECASE)
# A word saying what an amount is, anywhere ("5M hard", "5M est.", "Presale 0.1"): qualified.
# Not "min"/"max" after the number ("5000 min": minutes?), which stays unreadable_number
# The runs of letters are found once and looked up ("up to" is two runs apart by spaces): one
# pattern of ~90 words tried at every place was 5-19 times slower on long text.
_LATE_WORDS: Final = (APPROXIMATION_WORDS - {"min", "max"}) | QUALIFIER_WORDS
_LETTERS_RE: Final = re.compile(r"[^\W\d_]+")
# Letters that matching in any case takes as i or s (a Turkish dotted or dotless i, a long s)
_CASELESS: Final = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})
# The signs of an exchange other than "=", declared once: an arrow ("→", "⇒", "->", "=>"), and
# a colon or "per" (a word apart), which only count after a unit (below).
_ARROWS: Final = "→|⇒|->|=>"
_AFTER_UNIT: Final = r":|(?<=\s)per(?=\s)"
#: Any sign of an exchange other than "=", where :func:`exchange_sign` found an exchange: the
#: price reader reads it as "=" (``"1 ETH : 1000 XYZ"`` as ``"1 ETH = 1000 XYZ"``).
EXCHANGE_SIGNS_RE: Final = re.compile(f"{_ARROWS}|{_AFTER_UNIT}", re.IGNORECASE)
# An exchange written with such a sign, a number (and a unit) on each side: "1 ETH : 1000 XYZ",
# "1 ETH → 1000 XYZ", "1000 tokens per 1 ETH" (one exchange, no two amounts). A colon or "per"
# needs a unit before it: a label's colon is no exchange ("Stage 1: 0.1, Stage 2: 0.2", "Soft
# cap: 5M, Hard cap: 20M" stay ranges). Possessive runs: linear on long text.
_EXCHANGE_SIGN_RE: Final = re.compile(
    rf"[0-9.]\s*+(?:[^\W\d_]++\s*+(?:{_AFTER_UNIT})|[^\W\d_]*+\s*+(?:{_ARROWS}))"
    r"\s*+[^\s0-9]?[0-9]", re.IGNORECASE)
# Thousands grouped by apostrophes ("1'000'000", Swiss), one number
_APOSTROPHE_GROUPS_RE: Final = re.compile(r"[0-9]{1,3}(?:['’][0-9]{3})+")
_BRACKETS_RE: Final = re.compile(r"\([^)]*\)?|\[[^\]]*\]?")
# two numbers: digits apart by more than one comma or dot (not "0.1", but "1M, 2M"); each
# gap is scanned once (it was "\d[\d,.]*(?=...)\D+\d": O(n^2), 0.5 s for "1." * 2000)
_DIGIT_RE: Final = re.compile(r"[0-9]")
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
    outside brackets (``percent``), a word or sign of approximation first (``vague``), an
    exchange written with another sign (``"1 ETH : 1000 XYZ"``, ``unreadable_number``), two
    numbers outside brackets (``range``: ranges, stages, several amounts; thousands grouped
    by apostrophes are one, ``"1'000'000.-"``), a bracketed qualifier or a word saying what
    the amount is (``"5M hard"``, ``"Presale 0.1"``: ``vague``), else ``unreadable_number``.

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
    >>> [amount_reason(t) for t in ["5M hard", "over 5M", "1 ETH → 1000 XYZ", "CHF 1'000'000.-"]]
    ['vague', 'vague', 'unreadable_number', 'unreadable_number']
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
    if exchange_sign(text):
        return "unreadable_number"  # as "=" (after a % or a word: "100 ETH: 20%" is percent)
    if _UNDERSCORE_RE.search(text):
        return "grouping"  # "1_000": Python's float() reads it, no one writes it
    # digits grouped by spaces are one number ("100 000 000 tokens" is no range)
    one = _PREFIXED_RE.sub("0", _ARABIC_MARK_RE.sub("", _APOSTROPHE_GROUPS_RE.sub("0", outside)))
    if _SEVERAL_RE.search(SPACE_GROUPS_RE.sub(lambda m: "".join(m[0].split()), one)):
        return "range"
    qualified = _qualified(text) and _DIGIT_RE.search(text)  # a number, and a word
    return "vague" if outside != text or qualified else "unreadable_number"


def _qualified(text: str) -> bool:
    """True when ``text`` holds a word saying what an amount is (``"5M hard"``, ``"up to 5M"``)."""
    before, end = "", -1
    for match in _LETTERS_RE.finditer(text):
        word = match[0].translate(_CASELESS).lower()
        if word in _LATE_WORDS or (
                before and text[end:match.start()].isspace() and f"{before} {word}" in _LATE_WORDS):
            return True
        before, end = word, match.end()
    return False


def exchange_sign(text: str) -> bool:
    """True when ``text`` writes an exchange with another sign than ``=`` (``"1 ETH : 1000
    XYZ"``, ``"1 ETH → 1000 XYZ"``, ``"1000 tokens per 1 ETH"``): a price in a form not read.

    Examples
    --------
    >>> [exchange_sign(t) for t in ["1 ETH : 1000 XYZ", "1 ETH → $0.5", "Soft cap: 5M, Hard: 20M"]]
    [True, True, False]
    """
    return _EXCHANGE_SIGN_RE.search(text) is not None

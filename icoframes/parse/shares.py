"""Shares written as fractions of 1, told apart from percents; bonus terms of 0%.

``distribution.percent`` holds percents (0-100), and a bare ``0.25`` is read as 0.25%.
A profile that writes every share of its distribution as a fraction (``0.6``, ``0.25``,
``0.15``) would so give 1% of the tokens in all, and a team share 100 times too small,
with no sign of it. When the evidence is all there (two or more shares, none with a
``%`` or a percent word, each within 0-1, summing to 1 +- :data:`FRACTION_SUM_TOLERANCE`)
those shares are refused (reason ``fraction``): the parser never multiplies a value the
profile did not write so, and the row keeps the raw value for a reader who wants it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

import numpy as np
import pandas as pd

from .base import Reason, Unread
from .columns import to_float
from .rules import parse_amount

__all__ = ["FRACTION_SUM_TOLERANCE", "TOTAL_TOLERANCE", "bonus_rows", "fraction_rows",
           "refused_shares", "total_rows", "zero_bonus"]

#: How far from 1 the fractions of one ICO may sum: shares rounded to two places
#: (``0.33``, ``0.33``, ``0.33``) sum to 0.99.
FRACTION_SUM_TOLERANCE: Final = 0.01
#: How far above 100 the percents of one ICO may sum (shares rounded: 33.4 x 3 is 100.2).
TOTAL_TOLERANCE: Final = 1.0


def refused_shares(raw: Sequence[object], percent: np.ndarray, ico_id: np.ndarray,
                   unread: Unread) -> list[tuple[np.ndarray, Reason]]:
    """The rows of shares read that are no share of one whole, with their reason: an ICO's
    bare fractions summing to 1 (:func:`fraction_rows`, ``fraction``), and the shares of an
    ICO summing to over 100% (:func:`total_rows`, ``share_total``)."""
    fractions = fraction_rows(raw, percent, ico_id)  # 0.6/0.25/0.15: not 1% in all
    return [(fractions, "fraction"), (total_rows(raw, percent, ico_id, unread), "share_total")]


def total_rows(raw: Sequence[object], percent: np.ndarray, ico_id: np.ndarray,
               unread: Unread) -> np.ndarray:
    """The rows of the shares read of each ICO whose shares sum to over 100% (+
    :data:`TOTAL_TOLERANCE`), a bare number refused as over 100 (``unread``'s
    ``out_of_bounds``) counted too: ``{"Team": "90%", "Sale": "90%", "Reserve": "90%"}`` or
    ``{"Team": "25", "Sale": "60", "Reserve": "115"}`` (millions of tokens?) are no shares of
    one whole, and which of them is right cannot be told. A share over 100 written as a
    percent (``"150%"``) is that share's error alone: the others stand.

    >>> raw = ["90%", "90%", "90%", "25", "60", "115", "60%", "30%", "150%"]
    >>> percent = np.array([90, 90, 90, 25, 60, np.nan, 60, 30, np.nan])
    >>> over = Unread.at(raw, [5, 8], "out_of_bounds")
    >>> total_rows(raw, percent, np.array([1, 1, 1, 2, 2, 2, 3, 3, 3]), over).tolist()
    [0, 1, 2, 3, 4]
    """
    known = ~np.isnan(percent)
    shares = np.where(known, percent, 0.0)
    for i, reason in zip(unread.rows, unread.reasons, strict=True):
        if reason == "out_of_bounds" and isinstance(number := parse_amount(raw[i]), float):
            shares[i] = number
    ids, inverse = np.unique(ico_id, return_inverse=True)
    totals = np.bincount(inverse, weights=shares, minlength=len(ids))
    return np.flatnonzero(known & (totals[inverse] > 100.0 + TOTAL_TOLERANCE))


def fraction_rows(raw: Sequence[object], percent: np.ndarray, ico_id: np.ndarray) -> np.ndarray:
    """The rows of the ICOs whose readable shares are all bare fractions summing to 1.

    Parameters
    ----------
    raw : sequence
        The distribution's raw values, one per row.
    percent : numpy.ndarray of float64
        The values as read into percents (NaN where unreadable or missing).
    ico_id : numpy.ndarray of int64
        The ICO of each row.

    Returns
    -------
    numpy.ndarray of int64
        The positions of those ICOs' readable shares, in order.

    Examples
    --------
    >>> raw = [0.6, "0.25", 0.15, "60%", "0.4", 0.5, 0.5]
    >>> ids = np.array([1, 1, 1, 2, 2, 3, 3])
    >>> fraction_rows(raw, to_float(raw, percent=True)[0], ids).tolist()
    [0, 1, 2, 5, 6]
    """
    known = ~np.isnan(percent)
    small = np.flatnonzero(known & (percent <= 1.0))
    if len(small) < 2:  # (one fraction alone is no evidence)
        return np.empty(0, dtype=np.int64)
    # without a %, a share written "0.25%" is no number: a percent the profile said it is
    bare = np.zeros(len(percent), dtype=bool)
    bare[small] = ~np.isnan(to_float([raw[i] for i in small.tolist()])[0])
    rows = pd.DataFrame({"ico": ico_id[known], "share": percent[known],
                         "fraction": bare[known]})
    per_ico = rows.groupby("ico", sort=False).agg(
        n=("share", "size"), total=("share", "sum"), fractions=("fraction", "all"))
    off = (per_ico["total"] - 1.0).abs().round(9)  # 0.33 x 3 is 1 - 0.010000000000000009
    found = per_ico.index[(per_ico["n"] >= 2) & per_ico["fractions"]
                          & (off <= FRACTION_SUM_TOLERANCE)]
    return np.flatnonzero(known & np.isin(ico_id, found.to_numpy()))


# "0% bonus", "0 % bonus tokens": the words a bonus's terms end in (the sandbox's too)
_BONUS_WORDS: Final = re.compile(r"\s+bonus(?:es)?(?:\s+tokens?)?\s*$", re.IGNORECASE)


def zero_bonus(terms: object) -> bool:
    """True for bonus terms that give nothing: a share of 0 in any form a share is read.

    Terms of 0 in another unit (``"0 ETH"``) or with conditions (``"0% until May"``) are
    not: they are kept as written. :func:`bonus_rows` decides which 0% terms are rows.

    Examples
    --------
    >>> [zero_bonus(t) for t in ("0%", "0,0 %", 0, "0% bonus tokens", "-0%", "5%", "0 ETH", True)]
    [True, True, True, True, True, False, False, False]
    """
    if type(terms) is str:
        terms = _BONUS_WORDS.sub("", terms.strip())
    elif type(terms) not in (int, float):  # (True is no share: a flag)
        return False
    value = parse_amount(terms, percent=True)
    return isinstance(value, float) and value == 0.0


def bonus_rows(raw: Sequence[object], ico_id: np.ndarray,
               says_none: Callable[[object], bool]) -> list[bool]:
    """Which bonus terms are rows of ``bonuses``: the one place that decides it.

    Terms that say none (``"NO"``, blank) are never rows. A 0% term is a row beside a
    term of the same ICO that gives something (``{"Week 1": "20%", "Week 4": "0%"}``:
    the last tier of a schedule, two rows); an ICO whose every term is 0% or none has no
    row, as ``{"Bonus": "0%"}`` gives nothing. ``has_bonus`` (any row) is so False exactly
    for an ICO whose terms give nothing.

    Examples
    --------
    >>> terms = ["20%", "0%", "0%", "NO", "0%", "5 ETH"]
    >>> bonus_rows(terms, np.array([1, 1, 2, 2, 3, 3]), lambda t: t == "NO")
    [True, True, False, False, True, True]
    """
    none = [says_none(terms) for terms in raw]
    zero = [not n and zero_bonus(terms) for terms, n in zip(raw, none, strict=True)]
    giving = {i for i, n, z in zip(ico_id.tolist(), none, zero, strict=True) if not (n or z)}
    return [not n and (not z or i in giving)
            for i, n, z in zip(ico_id.tolist(), none, zero, strict=True)]

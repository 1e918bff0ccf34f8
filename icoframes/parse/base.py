"""What every reading rule shares: the missing markers, unreadable values, unread values.

Missing, not a problem: ``None``, ``''``, float NaN and the missing markers of
:data:`icoframes.vocabulary.MISSING_MARKERS` (case-insensitive, surrounding
whitespace ignored). A value that is neither readable nor missing is a
:class:`Bad`, which says why (a code of :data:`icoframes.reasons.REASONS`):
callers leave it missing and report it as a problem with that reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from ..reasons import REASONS, Reason
from ..vocabulary import MISSING_MARKERS, case_variants

__all__ = ["MARKER_SPELLINGS", "MISSING_MARKERS", "Bad", "Reason", "Unread", "bad",
           "is_missing_marker"]

# Every upper/lower-case spelling of every marker, so that one exact-match hash
# lookup (also usable by Arrow's is_in kernel) is a case-insensitive test.
MARKER_SPELLINGS: Final = frozenset(
    s for m in MISSING_MARKERS for s in case_variants(m)
) | {""}


class Bad:
    """The value could not be read, and why: one instance per reason (:func:`bad`).

    Examples
    --------
    >>> bad("range"), bad("range") is bad("range"), bad("range").reason
    (Bad('range'), True, 'range')
    """

    __slots__ = ("reason",)

    def __init__(self, reason: Reason) -> None:
        self.reason: Reason = reason

    def __repr__(self) -> str:
        return f"Bad({self.reason!r})"


_Bad = Bad  # the name the rules' annotations use
_BAD: Final[dict[Reason, Bad]] = {reason: Bad(reason) for reason in REASONS}


def bad(reason: Reason) -> Bad:
    """The unreadable-value sentinel of ``reason`` (one shared instance per reason)."""
    return _BAD[reason]


def is_missing_marker(text: str) -> bool:
    """True if ``text`` (already stripped) is empty or a missing marker such as ``'TBA'``."""
    return text in MARKER_SPELLINGS


class Unread(NamedTuple):
    """The raw values a converter could not read, the row each came from, and why.

    ``rows`` are positions in the converter's input, ascending; a row repeats
    when a list holds several unreadable items. ``values`` holds, per entry,
    the raw value (or list item) that was left missing, ``reasons`` its
    reason code (:data:`icoframes.reasons.REASONS`).

    Examples
    --------
    >>> Unread.at(["1", "x", "2", "y"], [1, 3], "unreadable_number")
    Unread(rows=[1, 3], values=['x', 'y'], reasons=['unreadable_number', 'unreadable_number'])
    """

    rows: list[int]
    values: list[object]
    reasons: list[Reason]

    @classmethod
    def at(cls, values: Sequence[object], rows: list[int],
           reasons: Reason | Sequence[Reason]) -> Unread:
        """The values at ``rows`` (positions found by a vectorised mask) of ``values``, with
        one reason for all or one per row."""
        if isinstance(reasons, str):
            return cls(rows, [values[i] for i in rows], [reasons] * len(rows))
        if len(reasons) != len(rows):
            raise ValueError(f"{len(reasons)} reasons for {len(rows)} rows")
        return cls(rows, [values[i] for i in rows], list(reasons))

    @classmethod
    def none(cls) -> Unread:
        """Nothing unread."""
        return cls([], [], [])

"""What every reading rule shares: the missing markers, the unreadable sentinel, unread values.

Missing, not a problem: ``None``, ``''``, float NaN and the missing markers of
:data:`icoframes.vocabulary.MISSING_MARKERS` (case-insensitive, surrounding
whitespace ignored). A value that is neither readable nor missing is
:data:`BAD`: callers leave it missing and count it as a problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from ..vocabulary import MISSING_MARKERS, case_variants

__all__ = ["BAD", "MARKER_SPELLINGS", "MISSING_MARKERS", "Unread", "is_missing_marker"]

# Every upper/lower-case spelling of every marker, so that one exact-match hash
# lookup (also usable by Arrow's is_in kernel) is a case-insensitive test.
MARKER_SPELLINGS: Final = frozenset(
    s for m in MISSING_MARKERS for s in case_variants(m)
) | {""}


class _Bad:
    """Sentinel: the value could not be read."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "BAD"


BAD: Final = _Bad()


def is_missing_marker(text: str) -> bool:
    """True if ``text`` (already stripped) is empty or a missing marker such as ``'TBA'``."""
    return text in MARKER_SPELLINGS


class Unread(NamedTuple):
    """The raw values a converter could not read, and the row each came from.

    ``rows`` are positions in the converter's input, ascending; a row repeats
    when a list holds several unreadable items. ``values`` holds, per entry,
    the raw value (or list item) that was left missing.

    Examples
    --------
    >>> Unread.at(["1", "x", "2", "y"], [1, 3])
    Unread(rows=[1, 3], values=['x', 'y'])
    """

    rows: list[int]
    values: list

    @classmethod
    def at(cls, values: Sequence[object], rows: list[int]) -> Unread:
        """The values at ``rows`` (positions found by a vectorised mask) of ``values``."""
        return cls(rows, [values[i] for i in rows])

    @classmethod
    def none(cls) -> Unread:
        """Nothing unread."""
        return cls([], [])

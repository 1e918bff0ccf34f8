"""A list pasted as one value: the list form that a refusal of it suggests.

A CSV cell or a form field pasted into a list-valued filter is one text
(``location="Singapore, USA"``, ``accepted_currencies="ETH,BTC"`` or ``"ETH BTC"``,
``platform="1, 2"``), and so is a list written as prose writes alternatives
(``"Singapore/USA"``), which the service would read as one name. Such a text is refused
as every unknown value is; its "did you mean" is the list it most likely means, each part
read as it would be alone (``['Singapore', 'USA']``), when every part reads so: never a
part alone, which would drop the rest without a word.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

__all__ = ["joined_parts", "list_hint", "near_the_whole"]

# a comma, a semicolon or a bar: what a CSV cell or a form joins a list with
_SEPARATOR = r"\s*[,;|]\s*"
# a slash: what prose joins alternatives with ("Singapore/USA")
_SLASH = r"\s*/\s*"
# and, for values that hold no space (tickers, ids), a run of spaces
_SPACES = r"\s+"


def joined_parts(text: str, *, spaces: bool = False, slashes: bool = True) -> list[str]:
    """The parts of ``text`` joined by commas, semicolons, bars or slashes (``spaces``: or
    spaces; not ``slashes``: no slashes), when it holds two or more that are not empty;
    else ``[]``.

    ``spaces`` is for values that never hold one (a ticker, an id): a name may
    (``"United Kingdom"``, ``"Real Estate"``). ``slashes=False`` is for text a slash
    does not join as a list (an age: pandas sums ``"7D,12h"``, but reads no ``"7D/12h"``).
    Slashes between parts that hold no letter join none either: they write a date
    (``"2024/01/05"``) or a fraction (``"1/2"``), not ids.

    Examples
    --------
    >>> joined_parts("Singapore, USA"), joined_parts("ETH BTC", spaces=True)
    (['Singapore', 'USA'], ['ETH', 'BTC'])
    >>> joined_parts("Singapore/USA"), joined_parts("Singapore/USA", slashes=False)
    (['Singapore', 'USA'], [])
    >>> joined_parts("United Kingdom"), joined_parts("ETH,"), joined_parts("Singapore")
    ([], [], [])
    >>> joined_parts("2024/01/05"), joined_parts("1/2"), joined_parts("1, 2")
    ([], [], ['1', '2'])
    """
    if not isinstance(text, str):
        return []
    separators = [_SEPARATOR, *([_SLASH] if slashes else []), *([_SPACES] if spaces else [])]
    parts = [part for part in re.split("|".join(separators), text.strip()) if part]
    if slashes and "/" in text and not any(map(str.isalpha, "".join(parts))):
        return joined_parts(text, spaces=spaces, slashes=False)
    return parts if len(parts) >= 2 else []


def near_the_whole(text: str, name: str) -> bool:
    """Whether ``name``, a near spelling of ``text``, is one of the whole text, not of one
    of its parts (:func:`joined_parts`): a hint may suggest it (``"Bosnia/Herzegovina"``:
    ``'Bosnia and Herzegovina'``), never a part alone, which would drop the rest
    (``"Singapur/USA"``: no ``'Singapore'``). A name that is itself joined (``"Korea,
    Republic of"``) is one of the whole.

    Examples
    --------
    >>> near_the_whole("Bosnia/Herzegovina", "Bosnia and Herzegovina")
    True
    >>> near_the_whole("Singapur/USA", "Singapore"), near_the_whole("Singapur", "Singapore")
    (False, True)
    """
    parts = joined_parts(text)
    if not parts or joined_parts(name):
        return True
    folded = name.strip().casefold()
    whole = difflib.SequenceMatcher(None, text.strip().casefold(), folded).ratio()
    return all(difflib.SequenceMatcher(None, part.casefold(), folded).ratio() < whole
               for part in parts)


def list_hint(text: str, read: Callable[[str], object | None], *, spaces: bool = False,
              taken: Callable[[list[object]], bool] | None = None) -> str:
    """``"; did you mean ['Singapore', 'USA']?"`` for a list pasted as the one value ``text``
    (:func:`joined_parts`), each part as ``read`` reads it alone (None: it reads as
    nothing, and there is no hint), and the list as a whole ``taken`` (when given: a hint
    never suggests a list that would be refused); else ``""``.

    Examples
    --------
    >>> list_hint("eth,btc", str.upper), list_hint("1, 2", int), list_hint("ETH", str.upper)
    ("; did you mean ['ETH', 'BTC']?", '; did you mean [1, 2]?', '')
    >>> list_hint("eth/btc", str.upper)
    "; did you mean ['ETH', 'BTC']?"
    >>> list_hint("Singapore, Atlantis", {"singapore": "Singapore"}.get)
    ''
    >>> list_hint("1, 0", int), list_hint("1, 0", int, taken=lambda ids: min(ids) >= 1)
    ('; did you mean [1, 0]?', '')
    """
    meant = [read(part) for part in joined_parts(text, spaces=spaces)]
    if not meant or any(one is None for one in meant) or (taken and not taken(meant)):
        return ""
    return f"; did you mean {meant!r}?"

"""Lists written as one string: where a lone string of a list column splits into items.

A list column (``restricted_areas``, ``accepting``: :data:`icoframes.vocabulary.SPLIT_LISTS`)
sent as one string is split

- at a comma or a semicolon, ASCII, full-width or ideographic (``,;，、；﹐﹑﹔``), a bar, a
  bullet or a line break, never inside brackets (``"Fiat (USD, EUR), BTC"`` is two items);
  a leading ``and``/``&`` of a part is dropped. A part that names nothing by itself
  (:data:`~icoframes.placenames.CONTINUATIONS`: ``"Korea, Republic of"``) or that makes one
  name with the part before (:data:`~icoframes.placenames.COMMA_NAMES`: ``"Virgin Islands,
  U.S."``) stays joined to it;
- then at ``/``, ``+``, ``&`` and ``and`` where no name is cut: ``"USA and China"`` is two,
  ``"Trinidad and Tobago"`` one (:data:`~icoframes.placenames.AND_NAMES`). Where a split is
  doubtful (a half of such a name left alone, ``"Bosnia/Herzegovina"``; a part of
  ``restricted_areas`` not starting with a capital, ``"US citizens and residents"``; in
  ``accepting``, a part that is no currency or token known as
  :func:`~icoframes.parse.accepted.currency_codes` reads one, ``"Visa and Mastercard"``), the
  part stays one item and is a row of ``problems``, ``doubtful_split``. So is a string whose
  brackets do not close.

A list of URLs (``markets``: :data:`~icoframes.vocabulary.SPLIT_URLS`) sent as one string is
split between its URLs (at whitespace, commas, semicolons, bars) when every part is one;
else at commas, semicolons and bars followed by a space or a line break.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Final

from ..placenames import AND_NAMES, COMMA_NAMES, CONTINUATIONS
from ..vocabulary import ACCEPTING_WORDS, SPLIT_ITEMS, SPLIT_URLS, fold
from .accepted import currency_codes
from .base import MARKER_SPELLINGS, Unread
from .scales import canonical_unit

__all__ = ["known_currency", "split_column", "split_lone_strings"]

_OPEN: Final = "([（［"
_CLOSE: Final = ")]）］"
_HARD: Final = ",;，、；﹐﹑﹔|｜•"
# (?<!\s): a match starts where its spaces do, never inside them (linear in a long run of
# spaces: a hostile value must not stall the parser)
_HARD_RE: Final = re.compile(rf"(?<!\s)\s*(?:[{_HARD}]|\r?\n)\s*(?:(?:and|&|＆)\s+)?",
                             re.IGNORECASE)
_ANY_RE: Final = re.compile(rf"[{_HARD}\n/／+＋&＆]|\band\b", re.IGNORECASE)
# "and"/"&" may be part of a name; a slash or a plus never is
_AND_RE: Final = re.compile(r"\s+and\s+|\s*[&＆]\s*", re.IGNORECASE)
_SOFT_RE: Final = re.compile(r"(?<!\s)(?:\s+and\s+|\s*[&＆/／+＋]\s*)", re.IGNORECASE)
_URL_RE: Final = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_URL_GAPS_RE: Final = re.compile(rf"[\s{_HARD}]+")
_NAME_GAPS_RE: Final = re.compile(rf"(?<!\s)(?:\s*[{_HARD}](?=\s)\s*|\s*\n\s*)")
_SAINT_RE: Final = re.compile(r"\bst\b\.?\s*")
# words of a list of currencies that name none: a part of a list all the same
_LIST_WORDS: Final = ACCEPTING_WORDS | {"FIAT"}


def _key(text: str) -> str:
    """``text`` as the declared names are matched: casefolded, ``&`` as ``and``, ``St.`` as
    ``Saint``, accents and curly apostrophes made plain, spaces collapsed."""
    plain = unicodedata.normalize("NFKD", text.replace("’", "'").replace("＆", "&"))
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return _SAINT_RE.sub("saint ", fold(plain.replace("&", " and ")))


def _halves(names: frozenset[str]) -> frozenset[str]:
    """The first and last parts of each name at its ``and`` (``'trinidad'``, ``'tobago'``),
    with and without a leading ``the``."""
    halves: set[str] = set()
    for name in names:
        parts = name.rpartition(", ")[2].split(" and ")
        halves.update(part.removeprefix("the ") for part in (parts[0], parts[-1]))
        halves.update((parts[0], parts[-1]))
    return frozenset(halves)


_CONTINUES: Final = frozenset(CONTINUATIONS)
_HALVES: Final = _halves(AND_NAMES)
# the most pieces one name of AND_NAMES spans, and the longest name of COMMA_NAMES: no
# longer run is tried (a long hostile value is read in linear time)
_WIDEST: Final = max(name.count(" and ") for name in AND_NAMES)
_LONGEST: Final = max(map(len, COMMA_NAMES))


def _masked(text: str) -> str | None:
    """``text`` with every character inside brackets made ``x`` (so that no separator is
    found there); None when its brackets do not close."""
    depth, out = 0, []
    for char in text:
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
            if depth < 0:
                return None
        out.append("x" if depth and char not in _OPEN else char)
    return "".join(out) if depth == 0 else None


def _cut(text: str, masked: str, pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    """The parts of ``text`` between the matches of ``pattern`` in ``masked``, stripped,
    empty ones left out (each with its masked twin)."""
    parts, start = [], 0
    for found in pattern.finditer(masked):
        parts.append((text[start:found.start()], masked[start:found.start()]))
        start = found.end()
    parts.append((text[start:], masked[start:]))
    return [(part.strip(), twin.strip()) for part, twin in parts if part.strip()]


def _pieces(part: str, masked: str, known: Callable[[str], bool] | None) -> list[str] | None:
    """The items of one comma-free ``part`` split at ``/ + & and``; None when the split
    is doubtful (the part is then one item, and a row)."""
    if _key(part) in AND_NAMES or not _SOFT_RE.search(masked):
        return [part]
    # the pieces, each a span of the part; pieces joined by "and"/"&" that make a name of
    # AND_NAMES (the longest first) are one
    spans, start = [], 0
    joins: list[bool] = []
    for found in _SOFT_RE.finditer(masked):
        spans.append((start, found.start()))
        joins.append(_AND_RE.fullmatch(found.group()) is not None)
        start = found.end()
    spans.append((start, len(part)))
    pieces: list[str] = []
    i = 0
    while i < len(spans):
        j = i
        for end in range(min(len(spans) - 1, i + _WIDEST), i, -1):
            if all(joins[i:end]) and _key(part[spans[i][0]:spans[end][1]]) in AND_NAMES:
                j = end
                break
        pieces.append(part[spans[i][0]:spans[j][1]].strip())
        i = j + 1
    pieces = [piece for piece in pieces if piece]
    if len(pieces) < 2 or not all(any(map(str.isalpha, piece)) for piece in pieces):
        return [part]  # no list ("USA &"), or no names ("1/2")
    for piece in pieces:
        key = _key(piece)
        # a name starts with a capital: "US citizens and residents" is one area
        if key in _HALVES or (not known(piece) if known else not piece[0].isupper()):
            return None
    return pieces


def _split(text: str, known: Callable[[str], bool] | None,
           doubtful: list[str]) -> list[str]:
    """The items of the lone string ``text``; each part kept whole in doubt is added to
    ``doubtful``."""
    text = text.strip()
    masked = _masked(text)
    if masked is None:
        doubtful.append(text)
        return [text]
    items: list[str] = []
    joined = False  # whether the last item is joined already (a name takes one comma)
    for part, twin in _cut(text, masked, _HARD_RE):
        pieces = _pieces(part, twin, known)
        if pieces is None:
            doubtful.append(part)
            pieces = [part]
        first = pieces[0]
        if items and not joined and (_key(first) in _CONTINUES or (
                len(items[-1]) + len(first) <= _LONGEST
                and _key(f"{items[-1]}, {first}") in COMMA_NAMES)):
            items[-1] = f"{items[-1]}, {first}"
            pieces = pieces[1:]
        joined = not pieces
        items.extend(pieces)
    return items


def _split_urls(text: str) -> list[str]:
    """The items of a lone string of URLs: between its URLs when every part is one, else at
    a comma, semicolon or bar before a space, or at a line break (outside brackets)."""
    text = text.strip()
    parts = [part for part in _URL_GAPS_RE.split(text) if part]
    if len(parts) > 1 and all(_URL_RE.fullmatch(part) for part in parts):
        return parts
    masked = _masked(text)
    return [text] if masked is None else [part for part, _ in _cut(text, masked,
                                                                     _NAME_GAPS_RE)]


def known_currency(item: str) -> bool:
    """Whether ``item`` names a currency or token known
    (:func:`~icoframes.parse.accepted.currency_codes`), or is a word of a list of currencies
    (``'Fiat'``, ``'ALL'``, ``'TOP'``).

    Examples
    --------
    >>> known_currency("ETH"), known_currency("Fiat"), known_currency("try")
    (True, True, False)
    """
    return bool(currency_codes(item)) or canonical_unit(item) in _LIST_WORDS


def split_column(name: str, values: Sequence[object]) -> tuple[list[object], Unread]:
    """The list column ``name``'s lone strings split as its kind of list is
    (:data:`~icoframes.vocabulary.SPLIT_LISTS`, :data:`~icoframes.vocabulary.SPLIT_ITEMS`,
    :data:`~icoframes.vocabulary.SPLIT_URLS`), and each part kept whole in doubt."""
    tickers, doubts = name in SPLIT_ITEMS, Unread.none()
    return split_lone_strings(values, items=tickers, urls=name in SPLIT_URLS,
                              known=known_currency if tickers else None, doubts=doubts), doubts


def split_lone_strings(values: Sequence[object], *, items: bool = False, urls: bool = False,
                       known: Callable[[str], bool] | None = None,
                       doubts: Unread | None = None) -> list[object]:
    """Each lone string of a list column as its items (this module's rules).

    With ``items`` (a list of tickers, :data:`icoframes.vocabulary.SPLIT_ITEMS`), each
    string item of a list is split so too; otherwise lists and other values are returned
    as they are. With ``urls``, a lone string is split as a list of URLs. ``known`` says
    whether a piece cut at ``/ + & and`` names an item (for ``accepting``: a currency); a
    piece it refuses leaves the part whole, in doubt. Each part kept whole in doubt is
    added to ``doubts`` (its row, the part, ``doubtful_split``).

    Examples
    --------
    >>> split_lone_strings(["BTC, ETH, and Fiat currency", ["A, B"], "Korea, Republic of; US"])
    [['BTC', 'ETH', 'Fiat currency'], ['A, B'], ['Korea, Republic of', 'US']]
    >>> split_lone_strings([["BTC, ETH", "LTC"], ["BTC", 5]], items=True)
    [['BTC', 'ETH', 'LTC'], ['BTC', 5]]
    >>> split_lone_strings(["USA, The Netherlands", "Fiat (USD, EUR), BTC", "USA/China"])
    [['USA', 'The Netherlands'], ['Fiat (USD, EUR)', 'BTC'], ['USA', 'China']]
    >>> split_lone_strings(["Trinidad and Tobago", "Virgin Islands, U.S.", "N/A"])
    [['Trinidad and Tobago'], ['Virgin Islands, U.S.'], 'N/A']
    """
    out = values if isinstance(values, list) else list(values)
    copied = out is not values
    for i, value in enumerate(out):
        found: list[str] = []
        if type(value) is str:
            if value.strip() in MARKER_SPELLINGS or not (_ANY_RE.search(value) or (
                    urls and _URL_RE.match(value) and _URL_GAPS_RE.search(value.strip()))):
                continue
            split: object = _split_urls(value) if urls else _split(value, known, found)
        elif items and type(value) is list and _ANY_RE.search(
                "\0".join(item for item in value if type(item) is str)):
            split = [part for item in value for part in (
                _split(item, known, found) if type(item) is str else [item])]
        else:
            continue
        if not copied:
            out, copied = list(values), True
        out[i] = split
        if doubts is not None:
            doubts.rows.extend([i] * len(found))
            doubts.values.extend(found)
            doubts.reasons.extend(["doubtful_split"] * len(found))
    return out

"""``accepted_currencies`` as the tickers sent: a name of the unit alias table or of the
tokens' names becomes its ticker (``"Ether"`` -> ``ETH``, ``"Tron"`` -> ``TRX``), as the parser
reads it in data, a ticker is sent as given, anything else is refused with what it most likely
means (a near name's ticker, or the list a pasted ``"ETH,BTC"`` writes).
"""

from __future__ import annotations

import difflib
from typing import Any

from .api.params import NOTHING_WORDS, TICKER
from .errors import InvalidParameter, quoted
from .joinedlists import list_hint
from .vocabulary import TOKEN_NAMES, UNIT_ALIASES

__all__ = ["tickers"]

# every spelling of the unit alias table and of the tokens' names (and each code itself) -> the
# ticker sent; the misspellings the parser reads in data are not taken ("Etherium": a hint)
_CURRENCY = {spelling.casefold(): code for table in (UNIT_ALIASES, TOKEN_NAMES)
             for code, spellings in table.items() for spelling in (code, *spellings)}


def tickers(value: Any, items: list[Any]) -> Any:
    """Currencies (``value``, its ``items`` as a list) as the tickers sent: names through
    the unit alias table and the tokens' names, tickers as given.

    A value that is neither a ticker nor a known name, or a ticker-shaped word
    that is a misspelled name (``"Etherium"``), is refused with a suggestion: for
    tickers or names joined into one text, their list. Values that are not strings are
    left to :func:`~icoframes.api.params.validate_list_params`.

    Examples
    --------
    >>> tickers(["Ether", "Tron", "abc"], ["Ether", "Tron", "abc"])
    ['ETH', 'TRX', 'abc']
    >>> try:
    ...     tickers("ETH BTC", ["ETH BTC"])
    ... except InvalidParameter as exc:
    ...     print(str(exc).split("; ")[-1])
    did you mean ['ETH', 'BTC']?
    """
    if not items or not all(isinstance(item, str) and item.strip() for item in items):
        return value  # validate_list_params refuses it, as given
    out = []
    for item in items:
        folded = " ".join(item.split()).casefold()
        if folded in NOTHING_WORDS:  # str(None), str(NaN) of a config or a form: refused,
            # never sent as NONE, NAN
            raise InvalidParameter(
                f"invalid list parameter accepted_currencies={quoted(value)}: {quoted(item)} is "
                "no currency; " + ("did you mean None (no filter on currencies)?"
                                   if isinstance(value, str) else "leave it out"))
        code = _CURRENCY.get(folded)
        if code is not None:
            out.append(code)
            continue
        # a ticker-shaped word near a name is the name misspelled from 6 letters on, and,
        # shorter, when not written in capitals as tickers are ("Tronn", "Tezoz"; "TEZOZ"
        # may be a ticker): refused with the hint, not sent for an empty answer
        short = len(folded) < 6
        near = _near_currency(folded, shortest=4 if short else 5)
        if TICKER.fullmatch(item.strip()) and not (near and not (short and item.isupper())):
            out.append(item)
            continue
        # "ETH,BTC"; "ETH BTC" of codes only ("Tether USD" is one name, "Bit coin" Bitcoin)
        hint = (list_hint(item, _one_ticker, taken=_taken)
                or list_hint(item, _one_code, spaces=True, taken=_taken)
                or (f"; did you mean {near!r}?" if near else ""))
        raise InvalidParameter(
            f"invalid list parameter accepted_currencies={quoted(value)}: takes currency tickers "
            "(2 to 10 letters or digits, like 'ETH' or 'USDT') or the names of "
            "icoframes.vocabulary.UNIT_ALIASES and TOKEN_NAMES ('Ether', 'Bitcoin', 'Tron'); "
            f"{quoted(item)} is not one{hint}")
    return out


def _taken(meant: list[Any]) -> bool:
    """Whether :func:`tickers` takes the list ``meant`` that a hint would suggest
    (``"ETH,None"`` suggests no ``['ETH', 'NONE']``, which is refused)."""
    try:
        tickers(meant, meant)
    except InvalidParameter:
        return False
    return True


def _one_ticker(part: str) -> str | None:
    """The ticker a part of a pasted list sends: a name's, or a ticker's own in capitals."""
    code = _CURRENCY.get(part.casefold())
    return code if code is not None else part.upper() if TICKER.fullmatch(part) else None


def _one_code(part: str) -> str | None:
    """The code a part of a list pasted with spaces writes, if it is one of the alias
    table's codes (``"eth"``: ETH), not a name nor any ticker-shaped word."""
    return part.upper() if part.upper() in UNIT_ALIASES else None


def _near_currency(folded: str, shortest: int = 5) -> str | None:
    """The ticker of the currency name ``folded`` most likely misspells, if one of at least
    ``shortest`` characters is close."""
    scored = [(difflib.SequenceMatcher(None, folded, name).ratio(), name)
              for name in _CURRENCY if len(name) >= shortest]
    score, name = max(scored)
    return _CURRENCY[name] if score >= 0.8 else None

"""The rule of units: unit spellings, the scale words, and which scale word scales which currency.

Declared once here, below :mod:`icoframes.parse.rules` (whose :func:`~.rules.parse_amount`
reads ``"$5M"`` and ``"5bnUSD"`` by it) and :mod:`icoframes.parse.prices` (exchanges, unit
columns and values written with a unit, which re-exports these names): one reading of
``"5MUSD$"`` or ``"5 B USD"`` whichever reader meets it.
"""

from __future__ import annotations

import re
from typing import Final

from ..vocabulary import (
    CAPITALS_ONLY,
    DATA_UNIT_SPELLINGS,
    FIAT_CODES,
    ISO_CURRENCY_CODES,
    PERCENT_WORDS,
    TOKEN_CODES,
    TOKEN_NAMES,
    UNIT_ALIASES,
    fold,
)
from .base import MARKER_SPELLINGS
from .text import latin_ticker, normalize_text

__all__ = ["CURRENCIES", "GLUED", "KNOWN_UNITS", "MULTIPLIERS", "MULTIPLIER_PATTERN", "SYMBOLS",
           "SYMBOL_CHARS", "SYMBOL_PATTERN", "canonical_unit", "code_as_written",
           "government_currency", "multiplier_word", "percent_unit", "scaled_currency",
           "split_multiplier", "split_scale", "ticker_word"]

#: Multiplier words (lower case) and their factor: ``"5 mln"`` is 5,000,000.
MULTIPLIERS: Final = {
    "k": 1e3, "thousand": 1e3, "thousands": 1e3,
    "m": 1e6, "mm": 1e6, "mn": 1e6, "mio": 1e6, "mln": 1e6, "million": 1e6, "millions": 1e6,
    "b": 1e9, "bn": 1e9, "bln": 1e9, "billion": 1e9, "billions": 1e9,
}
# Read in lower case or with a capital only: ``MLN`` in capitals is a ticker (Melon).
_NOT_IN_CAPITALS: Final = frozenset({"mln", "bln"})
#: The words of :data:`MULTIPLIERS` as a regular expression (no group), longest first, any
#: case but ``mln``/``bln`` (``mln``, ``Mln``).
MULTIPLIER_PATTERN: Final = "(?:{})".format("|".join(
    f"(?-i:[{word[0]}{word[0].upper()}]{word[1:]})" if word in _NOT_IN_CAPITALS else word
    for word in sorted(MULTIPLIERS, key=lambda word: (-len(word), word))))
_MULTIPLIER_WORD_RE: Final = re.compile(rf"{MULTIPLIER_PATTERN}\.?", re.IGNORECASE)

#: The known currencies: every code of UNIT_ALIASES and FIAT_CODES (FIAT is one of these).
CURRENCIES: Final = frozenset(UNIT_ALIASES) | FIAT_CODES
#: The codes a word beside a number may be read as, besides the ICO's own ticker and the
#: row's unit column (:func:`~icoframes.parse.prices.unit_word`): the known currencies and
#: the common tokens' tickers (:data:`~icoframes.vocabulary.TOKEN_CODES`) and every ISO 4217
#: currency (:data:`~icoframes.vocabulary.ISO_CURRENCY_CODES`; English words of these only in
#: capitals, :data:`~icoframes.vocabulary.CAPITALS_ONLY`).
KNOWN_UNITS: Final = CURRENCIES | TOKEN_CODES | ISO_CURRENCY_CODES
#: A symbol is in no ticker ("USD$" ends in one); Ξ is one, though a letter to str.isalpha.
SYMBOL_CHARS: Final = frozenset("$€£Ξ₿₩₽")
#: Currency symbols (in capitals) and their codes, as :data:`~icoframes.vocabulary.UNIT_ALIASES`
#: spells them: a sign alone, or a dollar with the letters of its country ("A$", "HK$"), that
#: country's dollar, before a number as alone ("USD$", "US $" are a code and a sign).
SYMBOLS: Final = {spelling.upper(): code for code, spellings in UNIT_ALIASES.items()
                  for spelling in spellings if re.fullmatch(
                      "[a-z]{{0,2}}[{}]".format("".join(SYMBOL_CHARS)), spelling,
                      re.IGNORECASE)}
# The symbols with a country's letters ("A$", "BR" in "BR$"?): a scale letter glued before one
# may be a country's letter ("BS$" Bahamian, "MA$"), so none multiplies it; "US$" is USD's own.
_LETTERED: Final = frozenset(symbol for symbol in SYMBOLS if symbol != "US$" and any(
    char.isalpha() and char not in SYMBOL_CHARS for char in symbol))
#: The symbols as a regular expression (no group), longest first: "US$" before "$".
SYMBOL_PATTERN: Final = "(?:{})".format("|".join(
    re.escape(symbol) for symbol in sorted(SYMBOLS, key=len, reverse=True)))

# A percent sign or word anywhere in a unit: "% of supply", "in %", "percent of tokens", "‰".
_PERCENT_UNIT_RE: Final = re.compile(r"[%％‰]|\b(?:{})\b".format(
    "|".join(word.replace(" ", r"\s+") for word in sorted(PERCENT_WORDS))), re.IGNORECASE)

_SPELLINGS: Final = [(fold(spelling), code)
                     for table in (UNIT_ALIASES, TOKEN_NAMES, DATA_UNIT_SPELLINGS)
                     for code, spellings in table.items() for spelling in spellings]
_ALIAS: Final[dict[str, str]] = dict(_SPELLINGS)
if len(_ALIAS) != len(_SPELLINGS) or not set(TOKEN_NAMES) <= TOKEN_CODES:  # pragma: no cover
    raise ImportError("a spelling of UNIT_ALIASES, TOKEN_NAMES or DATA_UNIT_SPELLINGS names two "
                      "units, or a token's name no code of TOKEN_CODES")
#: Government currencies: an ICO accepting one accepts fiat (``FIAT``: "any fiat").
_GOVERNMENT: Final = FIAT_CODES | ISO_CURRENCY_CODES

#: Multipliers that may be glued to a currency ("1.5bnUSD", "2mioEUR", "5M$", "5k$",
# "5 millions$"): every word of MULTIPLIERS, longest first; a lone b only to a symbol ("1.5B$").
GLUED: Final = tuple(sorted(MULTIPLIERS, key=len, reverse=True))


def multiplier_word(text: str) -> bool:
    """True if ``text`` is one word of :data:`MULTIPLIERS` alone, with or without a final dot,
    as an amount reads it (``"mln"``, ``"K"``, ``"millions."``; ``"MLN"`` is a ticker).

    Examples
    --------
    >>> multiplier_word("mln."), multiplier_word("K"), multiplier_word("MLN"), multiplier_word("kk")
    (True, True, False, False)
    """
    return _MULTIPLIER_WORD_RE.fullmatch(text) is not None


def percent_unit(text: str) -> bool:
    """True if the unit ``text`` (a unit column, amount and price alike) writes a percent sign
    (``%``, ``％``, ``‰``) or a percent word (``percent``, ``pct``) anywhere: it names no
    unit (``"% of supply"``, ``"in %"``, ``"percent of tokens"``: a share, never the made-up
    unit % OF SUPPLY).

    Examples
    --------
    >>> percent_unit("% of supply"), percent_unit("Pct."), percent_unit("‰"), percent_unit("PCTX")
    (True, True, True, False)
    """
    return _PERCENT_UNIT_RE.search(text) is not None


def canonical_unit(text: object) -> str | None:
    """The canonical code of one unit spelling; None when the unit is missing.

    Examples
    --------
    >>> canonical_unit(" US Dollar "), canonical_unit("Ether"), canonical_unit("xbt")
    ('USD', 'ETH', 'BTC')
    >>> canonical_unit("Etherum"), canonical_unit("ЕТН"), canonical_unit("Fiat currency")
    ('ETH', 'ETH', 'FIAT')
    >>> canonical_unit(" xyz "), canonical_unit(""), canonical_unit("TBA"), canonical_unit(None)
    ('XYZ', None, None, None)

    A known unit named twice, once by its code in brackets, is that unit (``"Tron (TRX)"``,
    ``"TRX (Tron)"``, ``"Ethereum (ETH)"``); two units are not (``"USD (ETH)"`` as written).

    >>> canonical_unit("Tron (TRX)"), canonical_unit("ZEN (Horizen)"), canonical_unit("USD (ETH)")
    ('TRX', 'ZEN', 'USD (ETH)')
    """
    if type(text) is not str:
        return None
    stripped = " ".join(latin_ticker(normalize_text(text)).split())
    if stripped in MARKER_SPELLINGS:
        return None
    code = _ALIAS.get(stripped.casefold(), stripped.upper())
    return _named_twice(stripped) or code if stripped.endswith(")") else code


def _named_twice(text: str) -> str | None:
    """The known unit ``text`` names twice, once in brackets, written as its code in one of
    the two (``"Tron (TRX)"``: TRX; ``"Tron (Tron)"``, ``"zen (Horizen)"``: None)."""
    head, bracket, inner = text[:-1].rpartition("(")
    if not bracket or "(" in head or ")" in head or ")" in inner:
        return None
    head, inner = head.strip(), inner.strip()
    codes = {_ALIAS.get(part.casefold(), part.upper()) for part in (head, inner) if part}
    code = codes.pop() if len(codes) == 1 and head and inner else None
    return code if code in KNOWN_UNITS and code in (head, inner) else None


def code_as_written(code: str, text: str) -> bool:
    """The known code ``code``, which ``text`` spells, is read from it: a code that is an
    English word (:data:`~icoframes.vocabulary.CAPITALS_ONLY`) only when written in capitals
    (``"TRY"`` is the lira, ``"try"`` no code); any other always, as a name of one always
    (``"zencash"`` is ZEN, ``"zen"`` no code).

    Examples
    --------
    >>> code_as_written("TRY", " TRY "), code_as_written("TRY", "try")
    (True, False)
    >>> code_as_written("EUR", "euro"), code_as_written("ZEN", "zencash")
    (True, True)
    """
    written = text.strip()
    return code not in CAPITALS_ONLY or written == code or written.casefold() != code.casefold()


def government_currency(text: object) -> bool:
    """Whether ``text`` names a government currency: by any spelling :func:`canonical_unit`
    reads, a code of :data:`~icoframes.vocabulary.FIAT_CODES` or of
    :data:`~icoframes.vocabulary.ISO_CURRENCY_CODES` (:func:`code_as_written`).

    Examples
    --------
    >>> [government_currency(t) for t in ("Fiat", "euro", "INR", "TRY", "try", "ETH", None)]
    [True, True, True, True, False, False, False]
    """
    code = canonical_unit(text)
    return code in _GOVERNMENT and code_as_written(code, str(text))


def split_multiplier(unit: str, token: str | None = None) -> tuple[str, str] | None:
    """A unit written in a value or a unit column, split into ``(multiplier, unit)``:
    ``("bn", "USD")`` for a multiplier glued to a currency (``"bnUSD"``: billions of USD),
    ``("", unit)`` (as written) when none is glued, None when the multiplier cannot be told.

    ``token`` is the ICO's own ticker (upper case, :func:`~.prices.own_ticker`). It is never read as
    a multiplier glued to a currency (``"kUSD"`` for KUSD is the token), and a lowercase
    multiplier glued to it multiplies it (``"kKIN"``, ``"1.5bnKIN"`` for KIN: tickers are
    written in capitals) unless the whole unit is a known currency (``"BTC"`` for TC). A
    multiplier in capitals glued to it (``"KKIN"`` for KIN: thousands of KIN, or a token
    KKIN? ``"MOD"`` for OD: millions of OD, or the token MOD?), a lone lowercase ``m``
    (``"mKIN"``: milli or million) and the token glued to a symbol (``"KUSD$"`` for KUSD,
    ``"K$"`` for K: the token and a dollar sign, or thousands of USD?) cannot be told: None,
    the value is unreadable, never a guess.

    Any other currency: a lone letter written all in capitals before its letters makes a
    ticker, as written (``KUSD``, ``MUSD``), and one not (``kUSD``, ``mUSD``, ``KUsd``) cannot
    be told: Karura's kUSD, mStable's mUSD, or thousands, millions, milli? None. A longer scale
    word in capitals cannot be told either (``MMUSD``, ``BNUSD``: millions, or a token? None),
    nor can ``MLN`` or ``BLN`` in capitals, tickers (``MLN$``, ``MLNUSD``: None); a longer one
    not in capitals multiplies (``bnUSD``, ``mioEUR``). Before a symbol a scale word
    multiplies in any case (``M$``, ``KUS$``, ``MUSD$``, ``K€``: a symbol is in no ticker), but
    a symbol with a country's letters cannot be told (``BR$``, ``BS$``, ``MA$``: a real or
    Bahamian dollar, or billions and millions? None). A
    lone ``b`` is glued only to a symbol alone (``bUSD`` is BUSD, ``BUSD$`` no billions), and
    ``m`` never to a currency that is not fiat (``mBTC`` is a milli-bitcoin).

    Examples
    --------
    >>> split_multiplier("kUSD"), split_multiplier("bnEther"), split_multiplier("mioEUR")
    (None, ('bn', 'ETH'), ('mio', 'EUR'))
    >>> split_multiplier("M$"), split_multiplier("KUS$"), split_multiplier("MUSD$")
    (('m', 'USD'), ('k', 'USD'), ('m', 'USD'))
    >>> split_multiplier("KUSD"), split_multiplier("mBTC"), split_multiplier("kin")
    (('', 'KUSD'), ('', 'mBTC'), ('', 'kin'))
    >>> split_multiplier("kKIN", "KIN"), split_multiplier("kUSD", "KUSD")
    (('k', 'KIN'), ('', 'kUSD'))
    >>> split_multiplier("KKIN", "KIN"), split_multiplier("mKIN", "KIN")
    (None, None)
    >>> split_multiplier("KUSD$", "KUSD"), split_multiplier("KUSD$", "XYZ")
    (None, ('k', 'USD'))
    >>> split_multiplier("MMUSD"), split_multiplier("MLN$"), split_multiplier("MM$")
    (None, None, ('mm', 'USD'))
    >>> split_multiplier("BR$"), split_multiplier("BS$"), split_multiplier("kA$")
    (None, None, None)
    """
    whole = canonical_unit(unit)
    if whole == token or whole in CURRENCIES:
        return "", unit
    if token is not None and canonical_unit(unit.rstrip("".join(SYMBOL_CHARS))) == token:
        return None  # "KUSD$" for KUSD: its token and a dollar sign, or thousands of USD? (as
        # "5 USD k" for K; 7ae5c53: 5,000 USD)
    folded = unit.casefold()
    glued: tuple[str, str] | None = None  # the first multiplier that multiplies
    for mult in GLUED:
        if not folded.startswith(mult):
            continue
        rest = unit[len(mult):]
        code = canonical_unit(rest)
        if token is not None and code == token:  # the ICO's own ticker, any case
            if not _lowercase_multiplier(unit, mult):
                return None  # cannot be told, whichever multiplier came first
            glued = glued or (mult, code)
        elif glued is None and rest.strip().upper() in _LETTERED:
            return None  # "BR$0.5", "BS$10", "MA$10": a country's letters or a scale word?
        elif glued is None and scaled_currency(mult, rest) is not None:
            symbol = not SYMBOL_CHARS.isdisjoint(rest.upper())
            if not multiplier_word(unit[:len(mult)]) or (not symbol and (
                    len(mult) > 1) == unit.isupper()):
                return None  # "MLN$", "MLNUSD": MLN in capitals is a ticker (Melon), no
                # million; "MMUSD", "BNUSD": millions of USD, or a token? (as "USDMM" after);
                # "kUSD", "mUSD", "musd", "KUsd": thousands, millions, milli, or the token
                # (Karura's kUSD, mStable's mUSD)? (as "USDk" after; "KUSD" is a ticker)
            if symbol or not unit.isupper():
                glued = mult, str(code)
    return ("", unit) if glued is None else glued


def scaled_currency(mult: str, currency: str, *, beside: bool = True) -> str | None:
    """The code of the known currency ``currency`` that the multiplier word ``mult`` (a word of
    :data:`MULTIPLIERS` as written) scales, written beside it,
    glued or apart, in a value or a unit column; None when it is no known currency or ``mult``
    may not scale it: a lone lowercase ``m`` scales only a fiat currency (``mBTC``, ``ETH m``:
    milli or million? SI's milli is lowercase only: ``ETH M``, ``5M ETH`` are millions), a lone
    ``b`` only a currency written as a symbol alone (``bUSD`` is BUSD, ``B$``
    billions of USD; ``BUSD$``, ``B USD$``: the token BUSD and a dollar sign, or billions?).
    The rule of which scale word may scale which currency; :func:`~icoframes.parse.rules.
    parse_amount` reads by it too.

    ``beside=False``: the currency is not written beside the scale word but is the unit of
    the value's column (``"1.2B"`` under a ``caps_unit`` ``USD``, as ``raised``, in USD, reads
    ``"1.2B"``): a lone ``b`` scales any currency there, having no letters of a token's ticker
    beside it (BUSD, BETH); a lone ``m`` still only a fiat one (milli-ether?).

    Examples
    --------
    >>> scaled_currency("m", "USD"), scaled_currency("m", "ETH"), scaled_currency("mln", "ETH")
    ('USD', None, 'ETH')
    >>> scaled_currency("M", "ETH"), scaled_currency("M", "BTC", beside=False)
    ('ETH', 'BTC')
    >>> scaled_currency("b", "USD"), scaled_currency("b", "$"), scaled_currency("b", "USD$")
    (None, 'USD', None)
    >>> scaled_currency("b", "USD", beside=False), scaled_currency("m", "ETH", beside=False)
    ('USD', None)
    """
    code = canonical_unit(currency)
    if code not in CURRENCIES or (mult == "m" and code not in FIAT_CODES) or (
            mult.lower() == "b" and beside and currency.strip().upper() not in SYMBOLS):
        return None
    return code


def _lowercase_multiplier(unit: str, mult: str) -> bool:
    """The multiplier ``mult`` that begins ``unit`` is written in lowercase, not a lone m."""
    return unit[:len(mult)].islower() and mult != "m"


_SYMBOL_FIRST: Final = re.compile(rf"(?P<cur>{SYMBOL_PATTERN})(?P<mult>\w+\.?)")
# A currency, then a scale word (or cents) glued after it, in any case: "USDmln", "EURk", "ETHm",
# "USDcents", "USDMLN".
_SCALE_LAST: Final = re.compile("(?P<cur>[^\\W\\d_]+?)(?P<mult>{}|cents?)\\.?".format(
    "|".join(GLUED)), re.IGNORECASE)
# A scale word, a dot, a currency: "k.USD" as "k. USD" (as a value "5 k.USD" reads).
# "k.$", "k.₩" too (every sign of SYMBOL_CHARS), as a value "5 k.$" reads.
_SIGN_CLASS: Final = "[{}]".format(re.escape("".join(sorted(SYMBOL_CHARS))))
_DOTTED: Final = re.compile(
    rf"(?P<mult>{MULTIPLIER_PATTERN}\.)(?P<cur>(?:[^\W\d_]|US\$|{_SIGN_CLASS}).*)",
    re.IGNORECASE)


def split_scale(unit: str, own: str | None) -> tuple[str, str] | None:
    """A unit (a unit column, or the unit written before or after a value's number) split into
    ``(multiplier, currency)`` when it writes a scale word beside a currency that it may scale
    (:func:`scaled_currency`): apart from it, before or after (``"K USD"``, ``"mln USD"``,
    ``"USD mln"``, ``"US Dollar bn"``), glued after a symbol (``"$M"``, ``"$mln"``) or a currency
    in capitals, the scale word a word not in capitals (``"USDmln"``, ``"USDMln"``; a lone
    letter in capitals is a ticker, ``"USDK"``, ``"USDM"``; ``"ETHm"``, ``"USDcents"``, and
    ``"USDk"``, ``"usdk"``, ``"USDm"``: the token USDK or USDM, or a scale? ``"USDMLN"``,
    ``"USDMM"``: millions, or a token? None; after letters that are no known currency by the
    same rule of case, ``"USDCk"``, ``"usdck"``, ``"XYZMLN"``: None, ``"USDCK"`` a ticker,
    ``"Steem"`` a name; all in lowercase refused only after a currency's letters, ``"link"``,
    ``"steem"`` are tickers), dotted before a currency or the own ticker
    (``"k.USD"`` as ``"k. USD"``, ``"k.KIN"`` for KIN as ``"k KIN"``), or glued before a
    currency (:func:`split_multiplier`: ``"bnUSD"``, ``"M$"``; ``"kUSD"``: None, as
    ``"USDk"``). ``("", unit)`` when it
    writes none; None when it cannot be told: a scale word written last that is the ICO's own
    ticker ``own`` (``"USD mln"`` for MLN), or :func:`split_multiplier`'s cases (``"KKIN"``).
    The one reading of a scale word beside a currency, in values and unit columns alike.

    Examples
    --------
    >>> split_scale("K USD", None), split_scale("5 USD mln"[2:], None), split_scale("$M", None)
    (('k', 'USD'), ('mln', 'USD'), ('m', 'USD'))
    >>> split_scale("USD mln", "MLN"), split_scale("ETH m", None), split_scale("ETH M", None)
    (None, ('', 'ETH m'), ('m', 'ETH'))
    >>> split_scale("USDk", None), split_scale("USDMLN", None), split_scale("USDK", None)
    (None, None, ('', 'USDK'))
    >>> split_scale("USDmln", None), split_scale("k.USD", None), split_scale("USDCk", None)
    (('mln', 'USD'), ('k', 'USD'), None)
    >>> split_scale("usdck", None), split_scale("USDCK", None), split_scale("Steem", None)
    (None, ('', 'USDCK'), ('', 'Steem'))
    >>> split_scale("link", None), split_scale("tusdk", None), split_scale("xyzmln", None)
    (('', 'link'), None, ('', 'xyzmln'))
    """
    words = unit.split()
    glued = _SYMBOL_FIRST.fullmatch(unit)
    dotted = _DOTTED.fullmatch(unit) if glued is None and len(words) == 1 else None
    after = None if len(words) > 1 or canonical_unit(unit) in CURRENCIES or (
        canonical_unit(unit) == own) else _SCALE_LAST.fullmatch(unit)
    if after is not None and canonical_unit(after["cur"]) in CURRENCIES:
        word = after["mult"].lower()  # "USDmln" as "USD mln"; "ETHm", "USDcents": no unit
        symbol = not SYMBOL_CHARS.isdisjoint(after["cur"].upper())  # "Ξb": in no ticker
        if not (unit.isupper() and (symbol or len(word) == 1)):  # "USDK", "USDM": tickers
            # a longer scale word in capitals ("USDMLN", "USDMM": millions, or a token?) or a
            # lone letter not ("USDk", "usdk", "USDm": thousands, or the token USDK?): None
            plain = symbol or (after["cur"].isupper() and len(word) > 1 and not unit.isupper())
            code = scaled_currency(word, after["cur"]) if plain and word in MULTIPLIERS else None
            return None if code is None or ticker_word(word, own) else (word, code)
    elif after is not None and len(after["cur"]) > 1 and not (
            unit.istitle() and not _own_letters(after["cur"], own)) and not (
            unit.isupper() and len(after["mult"]) == 1) and not (
            unit.islower() and not (_currency_letters(after["cur"])
                                    or _own_letters(after["cur"], own))):
        return None  # "USDCk", "DAIk", "XYZmln", "usdck", "usdcK", "XYZMLN": a scale of a token
        # (USDC, DAI: no currency known here), or the tokens USDCK, DAIK? Never the made-up unit
        # USDCK, as "USDk", "usdk", "usdK", "USDMLN" ("USDCK", "USDK" are tickers, a lone letter
        # in capitals; "Steem", "Qtum": names, one capital first). All in lowercase only after a
        # currency's letters (_currency_letters: "usdck"); "link", "steem", "xem", "lsk" are the
        # tickers LINK, STEEM, XEM, LSK (8de907b refused them), as "mb" is MB; the ICO's own
        # ticker's letters in any case ("xyzmln", "Xyzk" for XYZ) as a currency's
    # (scale word, currency, written last)
    sides = [(words[-1], " ".join(words[:-1]), True), (words[0], " ".join(words[1:]), False)
             ] if len(words) > 1 else [(glued["mult"], glued["cur"], True)] if glued else [
        (dotted["mult"], dotted["cur"], False)] if dotted else []
    for mult, currency, last in sides:
        word = mult.rstrip(".").lower()  # "ETH M": millions; "ETH m": milli?
        code = scaled_currency(mult.rstrip("."), currency) if multiplier_word(mult) else None
        if code is None and dotted and own is not None and multiplier_word(mult) and (
                canonical_unit(currency) == own):
            code = own  # "k.KIN" for KIN as "k KIN", and "$1 = 5 k.KIN" (622ad8d: unreadable)
        if code is not None:  # written last, the own ticker: "USD k" for K (USD and K?)
            return None if last and ticker_word(mult, own) else (word, code)
    return split_multiplier(unit, own)


def _currency_letters(letters: str) -> bool:
    """The letters before a scale word glued after them, in lowercase, hold a known currency's
    code (``"usdc"``, ``"tusd"``, ``"eurs"``): a scale of a coin of that currency, or a token?
    (``"usdck"`` names no unit). Letters that hold none are a ticker's (``"link"``: LINK)."""
    folded = letters.upper()
    return any(code in folded for code in CURRENCIES)


def _own_letters(letters: str, own: str | None) -> bool:
    """The letters before a glued scale word are the ICO's own ticker (``"xyz"`` in
    ``"xyzmln"`` for XYZ): millions of the token, or the token XYZMLN? Never a made-up unit."""
    return own is not None and canonical_unit(letters) == own


def ticker_word(mult: str, own: str | None) -> bool:
    """The multiplier word ``mult`` (with or without a final dot), written with no currency
    after it, is the ICO's own ticker ``own``, in any case: ``"5 mln"`` for MLN, ``"$1 = 5k"``
    for K, a unit column ``"USD mln"`` for MLN: a multiple, or an amount of the token? Such a
    value is unreadable, in an amount, a price and a unit column alike. Followed by a
    currency it is a multiplier whatever the ticker (``"5 mln USD"``).

    Examples
    --------
    >>> ticker_word("mln.", "MLN"), ticker_word("MN", "MN"), ticker_word("mln", "KIN")
    (True, True, False)
    """
    return mult.rstrip(".").upper() == own

"""The reading rules: how one raw JSON value becomes a number, a date, a flag or an id.

This module is the readable specification of what icoframes accepts; the
vectorised converters of :mod:`icoframes.parse.columns` apply exactly these
rules to whole columns (they only take a faster path for the common shapes).

Missing markers, :class:`Bad` (an unreadable value and its reason) and the date rules live in
:mod:`icoframes.parse.base` and :mod:`icoframes.parse.dates` and are named here too.

``PARSER_VERSION`` names this set of rules (:mod:`icoframes.parse.version` lists what each
version reads differently). The cache's derived tables are fingerprinted with it (and with the
source text of :mod:`icoframes.parse`), so changing a rule rebuilds them from the cached raw
profiles without a request.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Final

from ..numerals import number_text, underflowed
from ..vocabulary import (
    FALSE_WORDS,
    MISSING_MARKERS,
    TRUE_WORDS,
    UNKNOWN_WORDS,
    fold,
)
from .base import MARKER_SPELLINGS, Bad, _Bad, bad, is_missing_marker
from .dates import DATETIME_FORMAT, LABEL_FORMAT, parse_datetime, parse_label_date
from .refusals import PERCENT_WORDS_RE, SPACE_GROUPS_RE, amount_reason
from .scales import (
    MULTIPLIER_PATTERN,
    MULTIPLIERS,
    multiplier_word,
    scaled_currency,
    split_multiplier,
    split_scale,
)
from .text import foreign_digits, normalize_text
from .version import PARSER_VERSION

__all__ = [
    "DATETIME_FORMAT",
    "LABEL_FORMAT",
    "MARKER_SPELLINGS",
    "MISSING_MARKERS",
    "MULTIPLIERS",
    "MULTIPLIER_PATTERN",
    "PARSER_VERSION",
    "Bad",
    "amount_reason",
    "bad",
    "is_missing_marker",
    "multiplier_word",
    "parse_amount",
    "parse_count",
    "parse_datetime",
    "parse_flag",
    "parse_id",
    "parse_label_date",
    "read_flag",
    "times",
    "written_currency",
    "written_multiplier",
]


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


_FLAG_WORDS: Final = {**dict.fromkeys(FALSE_WORDS | UNKNOWN_WORDS | {fold(m) for m in
                                                                     MISSING_MARKERS}, False),
                      **dict.fromkeys(TRUE_WORDS, True)}
# A flag word, then a qualifier: "YES (UNTIL 11 SEP)", "Available - beta", "No, later".
_QUALIFIED_RE: Final = re.compile(r"(?P<word>[^\s(\[,:;]+?)\s*(?:[(\[,:;]|\s[-–—]\s)\s*\S.*",
                                  re.DOTALL)


# --------------------------------------------------------------------------- scalars


_CURRENCY = r"(?:US\$|USD\$?|\$)"  # "USD$" as the value readers read it
# The power of ten of each multiplier word: an amount is scaled in its decimal text.
_EXPONENTS: Final = {word: round(math.log10(factor)) for word, factor in MULTIPLIERS.items()}
# Possessive (*+): what follows a run of spaces or digits never starts with one, so giving
# any back cannot help; without it "1" + 500 spaces + "x" took 5 s (backtracking, O(n^3)).
# Digits are ASCII ([0-9]): "٣" is no digit here (float() reads it as 3).
_AMOUNT_RE: Final = re.compile(
    rf"""
    (?P<sign>[-+])?\s*+(?P<pre>{_CURRENCY})?\s*+
    (?P<num>[0-9][0-9,.\s'’]*+|\.[0-9]++)
    (?:e(?P<exp>[-+]?[0-9]++))?\s*+
    (?P<mult>{MULTIPLIER_PATTERN})?\.?\s*+
    (?:(?P<post>{_CURRENCY})(?P<late>\s*+{MULTIPLIER_PATTERN})?(?:\s*+\.)?)?  # "5 USD mln ."
    """,
    re.IGNORECASE | re.VERBOSE,
)
_PERCENT_SIGN_RE: Final = re.compile(rf"\s*(?:%|(?<![^\W\d_])(?:{PERCENT_WORDS_RE}))$",
                                     re.IGNORECASE)  # "60percent" as "60%"; not "USDpct"
# Beyond the digits a response can hold (a few MiB), plus float's range: the same float.
_EXPONENT_BOUND: Final = 10**9
# Thousands groups: a first group of 1-3 digits that is not 0, then groups of 3.
_THOUSANDS_RE: Final = re.compile(r"[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]*)?")
_DOT_THOUSANDS_RE: Final = re.compile(r"[1-9][0-9]{0,2}(?:\.[0-9]{3}){2,}"
                                      r"|[1-9][0-9]{0,2}(?:\.[0-9]{3})+,[0-9]+")
_DECIMAL_COMMA_RE: Final = re.compile(r"[0-9]+,[0-9]+")


def parse_amount(value: object, *, percent: bool = False) -> float | _Bad | None:
    """Read one number leniently, the way a careful analyst would.

    Parameters
    ----------
    value : object
        A raw JSON value: number, string, ``None`` or anything else.
    percent : bool, default False
        Also accept a trailing ``%`` (``'60 %'`` gives 60.0).

    Returns
    -------
    float, None or Bad
        The number; None when the value says "missing" (``''``, ``None``,
        ``'TBA'`` ...); a :class:`Bad` with its reason when it cannot be read
        (``'1 BILL = 1 XLM'``, ``'100-200'``, booleans, containers, infinities).

    Examples
    --------
    >>> parse_amount("$2,000,000"), parse_amount("1.2B"), parse_amount("250K")
    (2000000.0, 1200000000.0, 250000.0)
    >>> parse_amount("N/A") is None, parse_amount("1 BILL = 1 XLM"), parse_amount(True)
    (True, Bad('unreadable_number'), Bad('wrong_type'))
    >>> parse_amount("0,003"), parse_amount("1,5"), parse_amount("1.500.000")
    (0.003, 1.5, 1500000.0)
    >>> parse_amount("0\u200b.25"), parse_amount("１２")
    (0.25, 12.0)
    >>> parse_amount("3640-3367"), parse_amount("60%"), parse_amount("1,500,5")
    (Bad('range'), Bad('percent'), Bad('grouping'))
    >>> parse_amount("~3,500,000"), parse_amount("1e999")
    (Bad('vague'), Bad('infinite'))
    """
    kind = type(value)
    if value is None:
        return None
    if kind is float:  # (-0.0 + 0.0 is 0.0: "-0.0" is no negative zero in a frame or a file)
        if math.isnan(value):  # type: ignore[arg-type]
            return None
        return value + 0.0 if math.isfinite(value) else bad("infinite")  # type: ignore[operator,arg-type]
    if kind is int:
        try:
            return float(value)  # type: ignore[arg-type]
        except OverflowError:  # a JSON integer of over 308 digits: beyond float64
            return bad("infinite")
    if kind is not str:
        # bool is a subclass of int but "true" is not an amount; containers are not either.
        return bad("wrong_type")
    if foreign_digits(value):  # type: ignore[arg-type]
        return bad("unreadable_number")  # "12²", "①②", "٣": NFKC would make them digits
    text = normalize_text(value).strip()  # type: ignore[arg-type]
    if text in MARKER_SPELLINGS:
        return None
    if percent:  # a share's own sign, or its word ("60 percent", as "60%")
        text = _PERCENT_SIGN_RE.sub("", text)
    if not text.isascii() or "_" in text:  # float() reads "٣" as 3, "1_000" as 1000: no amount
        return _parse_amount_text(text, percent)
    try:
        number = float(text)
    except ValueError:
        return _parse_amount_text(text, percent)
    if math.isnan(number):
        return None
    return _finite(number + 0.0, text)


def _finite(number: float, text: str) -> float | _Bad:
    """``number`` read from ``text``, unless a float cannot hold it: too big (``infinite``),
    or a 0 that ``text`` does not write (``"1e-400"``: ``underflow``, never a 0)."""
    if underflowed(text, number):
        return bad("underflow")
    return number if math.isfinite(number) else bad("infinite")


def written_currency(value: str) -> str | None:
    """``"USD"`` when :func:`parse_amount` reads ``value`` with a currency written in it
    (``"5 mln.$"``, ``"US$ 5"``), else None: whoever reads it as a number keeps it."""
    match = _AMOUNT_RE.fullmatch(normalize_text(value).strip())
    return "USD" if match is not None and (match["pre"] or match["post"]) else None


def written_multiplier(value: str) -> bool:
    """True when :func:`parse_amount` reads ``value`` with a multiplier or an exponent written
    in it (``"5 mln"``, ``"2.5k"``, ``"$5M"``, ``"5e6"``): under a unit column that scales
    (``"USD mln"``) it would be multiplied twice."""
    match = _AMOUNT_RE.fullmatch(normalize_text(value).strip())
    return match is not None and (match["mult"] or match["exp"] or match["late"]) is not None


def times(number: float, factor: float) -> float:
    """``number * factor`` as the decimal texts of both multiply (a unit column's scale, cents):
    ``times(4.1, 1e6)`` is 4100000.0 (``4.1 * 1e6`` is 4099999.9999999995); infinite when too
    big for a float.

    Examples
    --------
    >>> times(4.1, 1e6), times(4.1, 0.01), times(1e300, 1e9)
    (4100000.0, 0.041, inf)
    """
    return float(Decimal(repr(number)) * Decimal(repr(factor)))


def _parse_amount_text(text: str, percent: bool = False) -> float | _Bad:
    match = _AMOUNT_RE.fullmatch(text)
    if match is None or match["num"].rstrip()[-1] in "'’":  # "5' USD": "5, USD" is no number
        return bad("grouping" if match is not None else amount_reason(text, share=percent))
    digits = match["num"].replace("'", " ").replace("’", " ").strip()
    if any(c.isspace() for c in digits):
        # a space (or an apostrophe: "1'000'000") only ever groups thousands; "2 5" is not 25
        if not SPACE_GROUPS_RE.fullmatch(digits):
            return bad("grouping")
        digits = "".join(digits.split())
    if (read := _digits(digits)) is None:
        return bad("grouping")
    digits = read
    scale = match["mult"] or (match["late"] or "").strip()
    if scale and not _scales(match):
        return bad("unreadable_number")
    # the scale is a power of ten added to the exponent of the decimal text: "4.1B" is exactly
    # 4.1e9 (4.1 * 1e9 is 4099999999.9999995)
    exponent = _exponent(match["exp"]) + (_EXPONENTS[scale.lower()] if scale else 0)
    try:
        number = float(f"{digits}e{exponent}")
    except ValueError:
        return bad("unreadable_number")
    number = (-number if match["sign"] == "-" else number) + 0.0  # "-0.0": 0.0
    return _finite(number, digits)


def _exponent(text: str | None) -> int:
    """An amount's exponent: int() refuses text of over 4,300 digits, and any exponent past
    :data:`_EXPONENT_BOUND` reads as that bound, since a number of the digits one response
    can hold then overflows or underflows alike."""
    if not text:
        return 0
    digits = text.lstrip("+-").lstrip("0") or "0"
    size = min(int(digits) if len(digits) <= 10 else _EXPONENT_BOUND, _EXPONENT_BOUND)
    return -size if text.startswith("-") else size


def _scales(match: re.Match[str]) -> bool:
    """The scale word of an amount may scale the currency written beside it, by the rule of
    units (:mod:`~icoframes.parse.scales`, as every reader of units): glued before it, as
    :func:`~.scales.split_multiplier` splits it (``"5bnUSD"``, ``"5MUSD$"``; not ``"5KUSD"``,
    ``"5 BUSD"``, the tickers KUSD, BUSD, nor ``"5kUSD"``, ``"5 mUSD"``, ``"5 musd"``: Karura's
    kUSD, mStable's mUSD, or a scale? nor ``"5MMUSD"``), after it, as
    :func:`~.scales.split_scale` reads it (``"5 USD mln"``, ``"5 $k"``, ``"5 USDmm"``; not
    ``"5 USDk"``, ``"5 USD b"``), apart before it, as :func:`~.scales.scaled_currency` allows
    on either side (a lone ``b`` only where a dollar sign is written alone: ``"$5B"``,
    ``"$5B USD"``; ``"5 B USD"``, ``"USD 5B"``, ``"5 B USD$"``: billions?). Never two
    (``"5k USD mln"``). Such text is no amount of USD."""
    pre, post, mult, late = (match["pre"] or "", match["post"] or "", match["mult"],
                             match["late"])
    if not pre + post:
        return True  # "1.2B": a number alone
    if mult and late:
        return False  # "5k USD mln": thousands, or millions?
    if late:
        split = split_scale(post + late, None)
    elif match.end("mult") == match.start("post"):
        split = split_multiplier(mult + post)
    else:
        return any(scaled_currency(mult.lower(), currency) is not None
                   for currency in (pre, post) if currency)
    return split is not None and split[0] != ""


def _digits(digits: str) -> str | None:
    """Digits with grouping and decimal marks as Python reads them; None when ambiguous.

    ``1,500,000`` and ``1,500.5`` group thousands with commas (a first group of
    ``0`` cannot: ``0,003`` is 0.003); ``1.500.000`` and ``1.500,5`` with dots;
    a single comma that cannot group thousands is a decimal comma (``1,5``,
    ``0,065``, ``12,50``). Anything else with several marks is ambiguous.
    """
    commas, dots = digits.count(","), digits.count(".")
    if commas == 0 and dots <= 1:
        return digits
    if _THOUSANDS_RE.fullmatch(digits):
        return digits.replace(",", "")
    if _DOT_THOUSANDS_RE.fullmatch(digits):
        return digits.replace(".", "").replace(",", ".")
    if dots == 0 and _DECIMAL_COMMA_RE.fullmatch(digits):
        return digits.replace(",", ".")
    return None


def _integer(value: object) -> int | None:
    """An int64 from an int, an integral float or a numeric string; None otherwise.

    Booleans are not integers here (``True`` is not the id 1), nor are
    containers, non-integral or non-finite floats, numbers outside int64, or text of digits
    other than ASCII ones after NFKC (``"٣"``, ``"1_000"``), or with a character NFKC would
    make a digit (``"12²"``, ``"⑫"``: :func:`~.text.foreign_digits`).
    """
    number: object = value
    if type(value) is str:
        # ASCII digits only (after NFKC: "１２" is 12), as in an argument: not "٣" or "1_0",
        # nor "12²" or "⑫" (NFKC makes them 122 and 12)
        number = None if foreign_digits(value) else number_text(normalize_text(value))
    if type(number) is float:
        if not number.is_integer():
            return None  # also NaN and infinities
        number = int(number)
    if type(number) is not int or not _INT64_MIN <= number <= _INT64_MAX:
        return None
    return number


def parse_id(value: object) -> int | None:
    """An ICO id: a positive int64; None if unreadable.

    Accepted: an int, an integral float or their decimal text, > 0 and within
    int64. Unreadable: 0, negatives, ``1.5``, booleans, containers, text that is
    not a number, and numbers beyond int64 (``'99999999999999999999'``). This is
    the only id rule: profiles, list items and statuses are all read by it.

    Examples
    --------
    >>> parse_id(" 42 "), parse_id(42.0), parse_id("x"), parse_id(True)
    (42, 42, None, None)
    >>> parse_id(0), parse_id(-3), parse_id("99999999999999999999")
    (None, None, None)
    """
    number = _integer(value)
    return number if number is not None and number > 0 else None


def parse_count(value: object) -> int | None:
    """A count or position: a non-negative int64 read like :func:`parse_id`; None if unreadable.

    Examples
    --------
    >>> parse_count("12"), parse_count(0), parse_count(-1), parse_count("2.5")
    (12, 0, None, None)
    """
    number = _integer(value)
    return number if number is not None and number >= 0 else None


def parse_flag(value: object) -> bool | None:
    """The flag of one value; None when it is not a recognised spelling.

    True for ``true``, ``1`` and the words of
    :data:`icoframes.vocabulary.TRUE_WORDS` (``"yes"``, ``"Available"``, ``"✓"``,
    any case); False for ``false``, ``0``, ``""``, ``None``, the missing markers
    and the false and unknown words (``"no"``, ``"Not available"``, ``"N/A"``).
    A qualified flag reads as its word (see :func:`read_flag`).

    Examples
    --------
    >>> parse_flag("Yes"), parse_flag("Available"), parse_flag(""), parse_flag("maybe")
    (True, True, False, None)
    >>> parse_flag("YES (UNTIL 11 SEP)")
    True
    """
    return read_flag(value)[0]


def read_flag(value: object) -> tuple[bool | None, bool]:
    """``(flag, qualified)`` of one value: the flag (None if unreadable), and whether a
    qualifier followed the word, which callers report so that it is not lost.

    Examples
    --------
    >>> read_flag("YES (UNTIL 11 SEP)"), read_flag("✓"), read_flag("Not available")
    ((True, True), (True, False), (False, False))
    >>> read_flag("Available - beta only"), read_flag("sometimes")
    ((True, True), (None, False))
    """
    if value is True:
        return True, False
    if value is None or value is False:
        return False, False
    kind = type(value)
    if kind is int or kind is float:
        if value == 1:
            return True, False
        return (False if value == 0 or value != value else None), False
    if kind is not str:
        return None, False
    text = fold(normalize_text(value))  # type: ignore[arg-type]
    flag = _FLAG_WORDS.get(text)
    if flag is not None or text == "":
        return bool(flag), False
    match = _QUALIFIED_RE.fullmatch(text)
    if match is not None:
        flag = _FLAG_WORDS.get(match["word"])
        if flag is not None:
            return flag, True
    return None, False

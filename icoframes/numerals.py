"""Numbers written as text in an argument: one rule for the whole package.

A setting from the environment, an option on the command line, ``platform="7"``
in Python: each is text that may write a number. Python's ``int()`` and
``float()`` read more than a user writes by hand (``int("٣")`` is 3, ``"1_000"``
is 1000, ``float("١٠")`` is 10.0), and ``str.isdigit()`` is true for ``"²"``,
which ``int()`` then refuses. Here a number written as text is ASCII only:
an optional sign, the digits 0-9, for another number a decimal point and an
exponent. Whitespace around it is ignored, and whitespace is what ``str.strip()``
removes (every character ``str.isspace()`` calls so: the ASCII ones, U+001C-U+001F,
U+0085, U+00A0, U+2028, ...); nothing else is, neither inside the number nor around
it (a zero-width space, U+FEFF). :func:`number_core` is that reading, the only one:
whoever checks a text (the response gate) and whoever converts it (the parser) call
it, and the conversion reads only the ASCII text it returns, so no check can pass a
text its conversion refuses (``int()`` and ``float()`` read another set: they refuse
U+001C next to digits, which ``str.strip()`` removes, and read ``"1_0"``, which no
pattern here does). Everything else is no number, and
each caller says what it is instead (a name, or a refusal). A refusal says what a
value written otherwise most likely means: the number (:func:`did_you_mean_number`:
``"٣"``, ``3.0``: 3) or, for a flag, the bool (:func:`meant_flag`: ``"false"``, 0).

The command lines read their number options here too, ``icoframes export``, ``demo`` and
``sandbox`` alike (:func:`checked`, :func:`whole`, :data:`COUNT`, :data:`SECONDS`, ...).
"""

from __future__ import annotations

import argparse
import datetime as dt
import decimal
import math
import numbers
import operator
import re
import unicodedata
from collections.abc import Callable
from typing import Any, TypeGuard

from .quoting import quoted

__all__ = ["ANY_INTEGER", "AT_LEAST_ONE", "COUNT", "DIGITS", "INT64_MAX", "INTEGER", "NO_LIMIT",
           "NUMBER", "QUOTA", "SECONDS", "TOO_MANY_SECONDS",
           "as_integer", "bounds", "checked", "did_you_mean_flag", "did_you_mean_number",
           "integer_text", "is_integer",
           "meant_flag", "meant_number", "number_core", "number_text", "python_number",
           "underflowed", "whole", "within"]

#: ASCII digits, no sign: a count as a server writes it (``Content-Length``).
DIGITS = re.compile(r"[0-9]+")
#: An integer in ASCII digits, signed or not (``7``, ``-1``, ``+2``).
INTEGER = re.compile(r"[+-]?[0-9]+")
#: Any number in ASCII digits: an integer, or ``1.0``, ``1e3``, ``.5``, ``-2.5E-1``.
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def is_integer(value: object) -> TypeGuard[numbers.Integral]:
    """Whether ``value`` is an integer as an argument takes one: an ``int`` or a numpy
    integer, never a bool (nor ``np.bool_``) and never a numpy ``timedelta64``, which numpy
    registers as an integer (``np.timedelta64(5, 'ns')`` is no id 5, and int() of its NaT
    or of a day unit raises TypeError).

    Examples
    --------
    >>> import numpy as np
    >>> is_integer(5), is_integer(np.int64(5)), is_integer(True), is_integer(np.timedelta64(5))
    (True, True, False, False)
    """
    return (isinstance(value, numbers.Integral) and not isinstance(value, bool)
            and getattr(getattr(value, "dtype", None), "kind", "") not in ("b", "m", "M"))


def as_integer(value: object) -> int | None:
    """``value`` as a Python int when it is an integer as an argument takes one
    (:func:`is_integer`), or a str of ASCII digits (:func:`integer_text`: ``" 3 "``,
    ``"+3"``), else None: the one reading of every integer argument, in Python as in an
    environment variable or an option (``budget=" 3 "`` is 3 as ``max_workers=" 3 "``
    and ``--budget 3`` are; ``"٣"``, ``"1_000"``, ``"3.0"`` and ``3.0`` are refused
    with "did you mean 3?").

    Neither is an integer whose own ``__index__`` fails (raises anything, a RuntimeError
    too): its refusal is the argument's (InvalidParameter), never that error.

    Examples
    --------
    >>> import numpy as np
    >>> as_integer(np.int64(5)), as_integer(" 5 "), as_integer("٥"), as_integer(5.0)
    (5, 5, None, None)
    >>> class Broken:
    ...     def __index__(self):
    ...         raise RuntimeError("broken")
    >>> as_integer(Broken()), as_integer(True), as_integer(np.timedelta64(5))
    (None, None, None)
    """
    if isinstance(value, str):
        return integer_text(value)
    if not is_integer(value):
        return None
    try:
        return operator.index(value)
    except Exception:  # whatever a broken __index__ raises (RuntimeError too): no integer
        return None


def number_core(value: object, form: re.Pattern[str] = NUMBER) -> str | None:
    """The text of the number ``value`` writes in ``form`` (:data:`DIGITS`, :data:`INTEGER`
    or :data:`NUMBER`) without the whitespace around it, ASCII only; None when ``value`` is
    no str or writes no such number. The one reading of a number written as text (see the
    module's docstring): convert what it returns, never ``value`` itself.

    Examples
    --------
    >>> number_core(" 7\\n"), number_core("\\x1c7\\u2028"), number_core("\\xa0-1.5e3", NUMBER)
    ('7', '7', '-1.5e3')
    >>> number_core("-7", DIGITS), number_core("1 2"), number_core("\\u200b7"), number_core(7)
    (None, None, None, None)
    """
    if not isinstance(value, str):
        return None
    core = value.strip()
    return core if form.fullmatch(core) else None


def _whole(core: str | None) -> int | None:
    """``int(core)`` of a text :func:`number_core` returned; None for more digits than Python
    converts (``sys.get_int_max_str_digits()``, 4300 by default): no number to use."""
    if core is None:
        return None
    try:
        return int(core)
    except ValueError:
        return None


def integer_text(value: object) -> int | None:
    """The integer ``value`` writes if it is a str of ASCII digits (signed), else None.

    Examples
    --------
    >>> integer_text(" 7 "), integer_text("+2"), integer_text("-1"), integer_text("\\x1c7")
    (7, 2, -1, 7)
    >>> integer_text("٣"), integer_text("²"), integer_text("1_000"), integer_text("1.0")
    (None, None, None, None)
    """
    return _whole(number_core(value, INTEGER))


def number_text(value: object) -> int | float | None:
    """The number ``value`` writes if it is a str of ASCII digits: an integer as ``int``,
    another number (``1.0``, ``1e3``) as ``float``; None for anything else, and for a
    number too small for a float (``"1e-400"`` is no 0: ``--max-age 1e-400`` was 0 seconds).

    Examples
    --------
    >>> number_text("7"), number_text(" 1.0 "), number_text("1e3"), number_text(".5")
    (7, 1.0, 1000.0, 0.5)
    >>> number_text("nan"), number_text("٣"), number_text("1_0"), number_text("0x1")
    (None, None, None, None)
    >>> number_text("1e-400"), number_text("0e-400"), number_text("-0.0")
    (None, 0.0, -0.0)
    """
    integer = integer_text(value)
    if integer is not None:
        return integer
    core = number_core(value, NUMBER)
    if core is None:
        return None
    number = float(core)  # ASCII digits, a point, an exponent: float() reads every such text
    return None if underflowed(core, number) else number


def underflowed(text: str, number: float) -> bool:
    """Whether ``number``, read from ``text``, is a 0 that ``text`` does not write: a number
    too small for a float (``"1e-400"``), in any digits (``"١e-400"``).

    Examples
    --------
    >>> underflowed("1e-400", 0.0), underflowed("0e-400", 0.0), underflowed("1e-3", 0.001)
    (True, False, False)
    """
    return number == 0 and any(unicodedata.decimal(c, 0) for c in re.split("[eE]", text)[0])


def python_number(value: object) -> int | float | None:
    """What Python's ``int()``, else ``float()``, reads from text that is no number here
    (``"٣"``: 3, ``"1_000"``: 1000), finite: the "did you mean" of a refusal; else None.

    Examples
    --------
    >>> python_number("٣"), python_number("1_000"), python_number("２.５"), python_number("x")
    (3, 1000, 2.5, None)
    """
    if not isinstance(value, str):
        return None
    for read in (int, float):
        try:
            number = read(value)
        except ValueError:
            continue
        return number if number - number == 0 else None  # inf and nan: no suggestion
    return None


#: The first whole number past which a float holds only some whole numbers.
_EXACT = 2**53


def meant_number(value: object, *, whole: bool = True) -> int | float | None:
    """The number a value given in another form than an argument takes most likely means
    (``"٣"``, ``3.0`` or ``"3.0"`` for an integer: 3; ``"١٠"`` for seconds: 10.0), else None.

    Never for a bool (True is no 1), nor for an integer asked for and a fraction given, nor
    for what a float cannot say exactly: a text too small for one (``"1e-400"`` is no 0), a
    whole number past 2**53 (``"1e308"`` is no 1000000000000000010979...).

    Examples
    --------
    >>> meant_number("٣"), meant_number(4.0), meant_number("4.0"), meant_number("١٠", whole=False)
    (3, 4, 4, 10.0)
    >>> meant_number(2.5), meant_number(True), meant_number("nan"), meant_number("x")
    (None, None, None, None)
    >>> meant_number("1e-400"), meant_number("1e308"), meant_number(1e20), meant_number(2**60)
    (None, None, None, 1152921504606846976)
    """
    number: Any = python_number(value) if isinstance(value, str) else value
    if isinstance(number, bool) or type(number).__name__ == "bool_" or not isinstance(
            number, numbers.Real | decimal.Decimal) or getattr(  # Decimal("5"): 5, not Real
            getattr(number, "dtype", None), "kind", "") in ("m", "M"):  # 5 days is no 5
        return None
    try:
        real = float(number)
    except OverflowError:  # an int past float's range: still a whole number
        real = 1.0
    except Exception:  # a number whose own __float__ fails: none to suggest
        return None
    if not math.isfinite(real) or (whole and not real.is_integer()):
        return None
    if whole and isinstance(number, decimal.Decimal) and number != number.to_integral_value():
        return None  # Decimal("5.000000000000000001") is 5.0 as a float, no whole number
    if isinstance(value, str) and underflowed(value, real):  # "1e-400" is no 0
        return None
    if whole and isinstance(number, float) and abs(real) >= _EXACT:  # no exact whole number
        return None
    try:
        return int(number) if whole else real  # type: ignore[arg-type]  # a Real int()s
    except Exception:  # a number whose own __int__ fails: none to suggest
        return None


def did_you_mean_number(value: object, *, whole: bool = True, low: float | None = None,
                        high: float | None = None) -> str:
    """``"; did you mean 3?"`` for :func:`meant_number` of ``value`` from ``low`` to ``high``
    (``"-1.0"`` is no id -1), else ``""``.

    Examples
    --------
    >>> did_you_mean_number("٣"), did_you_mean_number(4.0), did_you_mean_number("١٠", whole=False)
    ('; did you mean 3?', '; did you mean 4?', '; did you mean 10.0?')
    >>> did_you_mean_number("-1.0", low=1), did_you_mean_number("٣", low=1, high=2)
    ('', '')
    """
    meant = meant_number(value, whole=whole)
    if meant is None or (low is not None and meant < low) or (high is not None and meant > high):
        return ""
    return f"; did you mean {meant!r}?"


#: What a flag given as a word or a number most likely means ("did you mean False?").
_FLAG_WORDS = {"true": True, "yes": True, "on": True, "1": True,
               "false": False, "no": False, "off": False, "0": False}


def meant_flag(value: object) -> bool | None:
    """The bool a word or number given for a flag most likely means, else None.

    Examples
    --------
    >>> meant_flag(" False"), meant_flag("YES"), meant_flag(0), meant_flag("maybe"), meant_flag(2)
    (False, True, False, None, None)

    Never for a duration or a date, which numpy registers as numbers
    (``np.timedelta64(1, 'ns')`` is no True):

    >>> import numpy as np
    >>> meant_flag(np.timedelta64(1, "ns")), meant_flag(np.timedelta64(0, "D"))
    (None, None)
    """
    if isinstance(value, str):
        return _FLAG_WORDS.get(value.strip().casefold())
    if getattr(getattr(value, "dtype", None), "kind", "") in ("m", "M"):
        return None
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and value in (0, 1):
        return bool(value)  # np.int64(1) too
    return None


def did_you_mean_flag(value: object) -> str:
    """``"; did you mean False?"`` for :func:`meant_flag` of ``value``, else ``""``: the hint
    of every refused flag (:func:`icoframes.errors.check_flags`, a yes-only list parameter).

    Examples
    --------
    >>> did_you_mean_flag(" No"), did_you_mean_flag(1.0), did_you_mean_flag("maybe")
    ('; did you mean False?', '; did you mean True?', '')
    """
    meant = meant_flag(value)
    return "" if meant is None else f"; did you mean {meant}?"


# -- the command lines' number options ------------------------------------------------------


def within(value: float, low: int | None, high: int | None = None) -> bool:
    """Whether ``value`` is in the range (None: unbounded on that side)."""
    return (low is None or value >= low) and (high is None or value <= high)


def bounds(low: int | None, high: int | None = None) -> str:
    """The range as said: `` from 0 to 65535``, `` >= 1``, or nothing when unbounded.

    The one rule and wording of a whole-number argument of :func:`icoframes.sandbox.start`
    and of a number option of ``icoframes export``, ``demo`` or ``sandbox`` (:func:`whole`).
    """
    return (f" from {low} to {high}" if high is not None
            else f" >= {low}" if low is not None else "")


def checked(read: Callable[[str], int | float | None], rule: str,
            ok: Callable[[float], bool], *,
            says: Callable[[str], str | None] | None = None) -> Callable[[str], int | float]:
    """An option's type: ``read`` of the text (ASCII digits only, never ``٣`` nor ``1_000``),
    refused by the parser (exit 2, naming the option) unless ``ok``, with the number a text
    written otherwise most likely means; ``says``: the hint for a text of another form the
    option's value has (an age with a unit), shown as no key is written.

    Examples
    --------
    >>> try:
    ...     COUNT("٣")
    ... except argparse.ArgumentTypeError as exc:
    ...     print(exc)
    must be a whole number from 0 to 9223372036854775807, got '٣'; did you mean 3?
    """
    whole_number = read is integer_text

    def convert(text: str) -> int | float:
        value = read(text)
        if value is None or not ok(value):
            meant = meant_number(text, whole=whole_number) if value is None else None  # "٣"
            hint = f"; did you mean {meant!r}?" if meant is not None and ok(meant) else ""
            other = says(text) if says is not None and value is None else None
            raise argparse.ArgumentTypeError(  # a key given to --seed by mistake: not shown
                f"must be {rule}, got {quoted(text, keys=other is None)}{other or hint}")
        return value
    return convert


def whole(what: str, low: int | None, high: int | None = None) -> Callable[[str], int | float]:
    """An option's whole number in a range (:func:`within`, said as :func:`bounds`)."""
    return checked(integer_text, what + bounds(low, high), lambda v: within(v, low, high))


#: The largest integer an int64 column or an SQLite integer holds: no id, count or quota
#: the package keeps is larger (``configure(daily_quota=)``, a list's ids, ``--quota``).
INT64_MAX = 2**63 - 1
#: A count option: ``export --budget``, as many requests as a quota (``budget=``'s range).
COUNT = whole("a whole number", 0, INT64_MAX)
#: A count of at least one: ``sandbox --grow-every`` (``start(grow_every=)``'s range).
AT_LEAST_ONE = whole("a whole number", 1, INT64_MAX)
#: What a quota of 0 most likely meant: no limit (``sandbox --quota 0`` was one).
NO_LIMIT = "no limit"
_QUOTA = checked(integer_text, f"a whole number{bounds(1, INT64_MAX)} or 'none' ({NO_LIMIT})",
                 lambda v: within(v, 1, INT64_MAX))


def QUOTA(text: str) -> int | None:  # an option's type, named as COUNT is
    """``sandbox --quota``: requests per key per day, from 1 to :data:`INT64_MAX` as a
    client's ``daily_quota``, or ``none`` for no limit (``start(quota=None)``); ``0`` is
    refused, as ``start(quota=0)`` is, with "did you mean 'none'": it was no limit here and
    no request at all in Python.

    Examples
    --------
    >>> QUOTA("5000"), QUOTA(" None ")
    (5000, None)
    >>> try:
    ...     QUOTA("0")
    ... except argparse.ArgumentTypeError as exc:
    ...     print(str(exc).split(", got ")[1])
    '0'; did you mean 'none'?
    """
    if text.strip().casefold() == "none":
        return None
    if integer_text(text) == 0:
        raise argparse.ArgumentTypeError(f"must be a whole number{bounds(1, INT64_MAX)} or "
                                         f"'none' ({NO_LIMIT}), got {quoted(text)}; did you "
                                         "mean 'none'?")
    return int(_QUOTA(text))


#: Any integer an int64 holds: a seed (``sandbox.start(seed=)``'s range: a longer one made a
#: service name longer than ``configure`` takes). An option with limits of its own reads
#: with them: ``--max-workers`` (``config.MAX_WORKERS``), a filter's number (its list
#: parameter's ``low`` and ``high``).
ANY_INTEGER = whole("an integer", -INT64_MAX - 1, INT64_MAX)
#: More seconds than a timedelta holds (its whole days): an age is fewer.
TOO_MANY_SECONDS = (dt.timedelta.max.days + 1) * 86_400
# an age with a unit ("1d", "12h", "90 min"), or one status's ("past=30d"): no key's form
_AGE_TEXT = re.compile(r"(?:(ongoing|upcoming|past)\s*=\s*)?([0-9]+(?:\.[0-9]+)?)\s*"
                       r"(s|sec|min|h|d|w)", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "sec": 1, "min": 60, "h": 3600, "d": 86_400, "w": 604_800}


def age_in_seconds(text: str) -> str | None:
    """The hint for an age written with a unit where seconds go (``--max-age 1d``): its
    seconds; None for any other text.

    Examples
    --------
    >>> age_in_seconds("1d"), age_in_seconds("abc")
    ('; did you mean 86400 (1d in seconds)?', None)
    >>> age_in_seconds("past=30d")
    '; the option is one age in seconds for every status (30d is 2592000)'
    """
    match = _AGE_TEXT.fullmatch(typed := text.strip())
    if match is None:
        return None
    seconds = float(match[2]) * _UNIT_SECONDS[match[3].lower()]
    said = typed[match.start(2):]  # the age as typed
    number = int(seconds) if seconds.is_integer() else seconds
    if match[1]:
        return f"; the option is one age in seconds for every status ({said} is {number})"
    return f"; did you mean {number} ({said} in seconds)?"


#: Seconds: ``export --max-age``, ``--profile-max-age``, ``sandbox --latency``.
SECONDS = checked(number_text, "a finite number of seconds >= 0 that a timedelta holds "
                  f"(below {TOO_MANY_SECONDS:.3g})", lambda v: 0 <= v < TOO_MANY_SECONDS,
                  says=age_in_seconds)

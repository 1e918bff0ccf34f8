"""What a refusal says back of the value it refused: bounded, never a key, and the name meant.

A refusal quotes the value given (``timeout must be a number of seconds, got 'abc'``),
so that the user sees what was taken. Quoted whole, a 10 MB string would be a 10 MB
message (in a log, a notebook's output), ``10**400`` a number of 401 digits, and an
integer of more than 4300 digits no text at all (``repr`` raises ``ValueError``).
:func:`quoted` keeps every quote short; where a key could have been given by mistake
(an argument of :class:`~icoframes.api.client.Client` beside the private key, a setting),
a text that may be a key is not quoted at all, only its length.

:func:`closest` and :func:`did_you_mean` find the name a misspelled one meant (the "did
you mean" of every refused name); a text too long to be a misspelling has none.
:func:`counted` says a count in a message ("1 request", "5,000 requests").
"""

from __future__ import annotations

import difflib
import math
import numbers
import operator
import re
import reprlib
from collections.abc import Iterable, Sequence
from typing import Final

__all__ = ["LIMIT", "closest", "closest_option", "counted", "did_you_mean", "may_be_key",
           "quoted", "rst_table"]

#: The most characters of a value a refusal quotes (then "…" and how long it was).
LIMIT: Final = 60
#: Longer text is no misspelled name: no "did you mean" is looked for (difflib would
#: compare every character of a 10 MB string with each name).
_NAME_LIMIT: Final = 200
# a text with no space in it, of at least 8 characters, no number: what a key looks like
_KEY_LIKE = re.compile(r"\S{8,}")
# the words of a repr a key may be: what quotes, brackets, commas and colons separate
_WORDS = re.compile(r"[^\s'\"()\[\]{},:=<>]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = LIMIT
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict, _REPR.maxset = 2, 4, 4, 4, 4


def may_be_key(value: object) -> bool:
    """Whether ``value`` is a text that may be a key: 8 or more characters without a space,
    with a letter, not a number (``'sandbox-private'``, a hex digest; not ``'abc'``,
    ``'30 s'``, ``'1e3'``, nor digits and signs: a time ``'06:00:00'``, an address
    ``'127.0.0.1:8000'``, a date: a key's random letters are in any it is issued).

    Examples
    --------
    >>> may_be_key("sandbox-private"), may_be_key("abc"), may_be_key("1e400000"), may_be_key(3)
    (True, False, False, False)
    >>> may_be_key("06:00:00"), may_be_key("127.0.0.1:8000"), may_be_key("0123abcd")
    (False, False, True)
    >>> may_be_key(b"sandbox-private"), may_be_key(["sandbox-private"])
    (True, False)
    """
    if isinstance(value, bytes | bytearray):  # a key read from a file in binary mode
        value = value.decode("latin-1")
    return (isinstance(value, str) and bool(_KEY_LIKE.fullmatch(value.strip()))
            and not _NUMBER.fullmatch(value.strip()) and any(c.isalpha() for c in value))


def quoted(value: object, *, keys: bool = False) -> str:
    """``value`` as a refusal quotes it: its ``repr``, cut at :data:`LIMIT` characters and
    saying how long it was; with ``keys`` (a key may have been given here by mistake) a
    text or bytes that :func:`may_be_key` only by its length, and a container (a list, a
    dict, a Series) whose repr shows a word that may be a key only by its type and length.

    Examples
    --------
    >>> quoted("abc"), quoted(2.5), quoted(10**400)
    ("'abc'", '2.5', '100000000000000000000000000000… (an integer of 401 digits)')
    >>> len(quoted("x" * 10_000_000)), quoted("x" * 10_000_000)[-24:]
    (84, 'x… (10000000 characters)')
    >>> quoted("sandbox-private", keys=True), quoted("abc", keys=True)
    ('a text of 15 characters (not shown: it may be a key)', "'abc'")
    >>> quoted(b"sandbox-private", keys=True)
    'a bytes value of 15 bytes (not shown: it may be a key)'
    >>> quoted(["sandbox-private"], keys=True)
    'a list of length 1 (not shown: it may hold a key)'
    """
    if keys and may_be_key(value):
        what = "text" if isinstance(value, str) else f"{type(value).__name__} value"
        unit = "characters" if isinstance(value, str) else "bytes"
        return f"a {what} of {len(value)} {unit} (not shown: it may be a key)"  # type: ignore[arg-type]
    if isinstance(value, str | bytes | bytearray):
        if len(value) <= LIMIT:
            return repr(value)
        unit = "characters" if isinstance(value, str) else "bytes"
        return f"{repr(value[:LIMIT])[:-1]}… ({len(value)} {unit})"
    number = _whole_number(value)
    if number is not None:
        if number.bit_length() <= 3 * LIMIT:  # at most about 54 digits: as it is
            try:  # an int subclass's own __repr__ may fail: the refusal must not
                return repr(value)
            except Exception:
                return f"a {type(value).__name__}"
        if number.bit_length() > 14_000:  # past the 4300 digits str() writes
            about = int(number.bit_length() * math.log10(2)) + 1
            return f"{'a negative' if number < 0 else 'an'} integer of about {about:,} digits"
        digits = str(abs(number))
        return f"{'-' if number < 0 else ''}{digits[:30]}… (an integer of {len(digits)} digits)"
    try:
        text = _REPR.repr(value)
    except Exception:  # a repr that fails: the type still says what it was
        return f"a {type(value).__name__}"
    if keys and hasattr(value, "__len__") and any(map(may_be_key, _WORDS.findall(text))):
        try:  # a container showing a key-like word: [key], {"k": key}, a Series of them
            size = f" of length {len(value)}"
        except Exception:  # a len() that fails: the type alone
            size = ""
        return f"a {type(value).__name__}{size} (not shown: it may hold a key)"
    return text if len(text) <= 2 * LIMIT else text[:2 * LIMIT - 1] + "…"


def _whole_number(value: object) -> int | None:
    """``value`` as an int if it is a whole number (a NumPy one too), else None: never a bool,
    nor a NumPy timedelta64 (an Integral to ``numbers``, whose NaT no int() reads)."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or type(
            value).__name__ == "timedelta64":
        return None
    try:
        return operator.index(value)
    except Exception:  # whatever a broken __index__ raises (RuntimeError too): the repr says it
        return None


def closest(word: str, choices: Iterable[str], *, cutoff: float = 0.6) -> list[str]:
    """The choices a misspelled ``word`` most likely meant: the best, and a second when as close
    (each at least ``cutoff`` alike, as difflib scores it).

    Examples
    --------
    >>> closest("ico_kyc", ["ico_kyc_passed", "investor_kyc", "status"]), closest("colour", ["x"])
    (['ico_kyc_passed', 'investor_kyc'], [])
    """
    if len(word) > _NAME_LIMIT:
        return []
    scored = sorted(((difflib.SequenceMatcher(None, word, c).ratio(), c) for c in choices),
                    reverse=True)
    if not scored:
        return []
    return [c for score, c in scored[:2] if score >= cutoff and score >= scored[0][0] - 0.1]


def closest_option(typed: str, options: Iterable[str]) -> list[str]:
    """The options (``--status``) a mistyped option most likely meant, as :func:`closest`
    finds them among names: by their names alone, as the dashes every option has made any
    word look closer (``--bogus`` was near enough to ``--verbose``, ``--sort-asc`` to
    ``--status``).

    Examples
    --------
    >>> closest_option("--stauts", ["--status", "--out"]), closest_option("--ot", ["--out"])
    (['--status'], ['--out'])
    >>> closest_option("--bogus", ["--verbose"]), closest_option("--sort-asc", ["--status"])
    ([], [])
    """
    by_name = {option.lstrip("-"): option for option in options}
    return [by_name[name] for name in closest(typed.lstrip("-"), by_name)]


def did_you_mean(value: object, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the choice closest to ``value`` in any case, else ``""``.

    Examples
    --------
    >>> did_you_mean("ICO", ["icos", "team"]), did_you_mean("zzz", ["icos"])
    ("; did you mean 'icos'?", '')
    """
    word = (value if isinstance(value, str) else quoted(value)).strip().casefold()
    if not word or len(word) > _NAME_LIMIT:
        return ""
    names = {str(c).casefold(): str(c) for c in choices}
    close = difflib.get_close_matches(word, names, n=1)
    return f"; did you mean {names[close[0]]!r}?" if close else ""


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless one: how a message says a count.

    Examples
    --------
    >>> counted(1, "request"), counted(0, "path"), counted(5000, "request")
    ('1 request', '0 paths', '5,000 requests')
    """
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def rst_table(rows: Sequence[Sequence[str]]) -> str:
    """``rows`` (the first one the header) as a reStructuredText simple table, for docstrings.

    Examples
    --------
    >>> print(rst_table([("name", "default"), ("timeout", "30")]))
    =======  =======
    name     default
    =======  =======
    timeout  30
    =======  =======
    """
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    rule = "  ".join("=" * w for w in widths)
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    return "\n".join([rule, lines[0], rule, *lines[1:], rule])

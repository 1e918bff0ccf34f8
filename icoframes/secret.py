"""Values that never show: the private key as a :class:`Secret`, and :func:`redact_url`.

A :class:`Secret` prints as ``<hidden>`` in every form Python has for showing a
value (``repr``, ``str``, f-strings, ``dataclasses.asdict``, ``vars``, the
locals of a traceback) and does not travel in a pickle. Its value is read with
:meth:`Secret.reveal`, which the package calls in one place: where a request
is signed (:func:`icoframes.api.client.sign`).

>>> key = Secret("s3cr3t")
>>> key, str(key), f"{key}", key.reveal()
(Secret('<hidden>'), '<hidden>', '<hidden>', 's3cr3t')
>>> redact_url("http://user:pass@example.org:8000/x")
'http://<hidden>@example.org:8000/x'
"""

from __future__ import annotations

import hmac
from typing import Any, NoReturn
from urllib.parse import urlsplit, urlunsplit

from .errors import ConfigError

__all__ = ["HIDDEN", "Secret", "redact_url"]

HIDDEN = "<hidden>"
"""What a secret, or the user information of an address, shows instead of itself."""


class Secret:
    """A value kept out of every repr, message, traceback and pickle.

    Parameters
    ----------
    value : str
        The secret (anything else is refused by the setting that reads it,
        without showing it).

    Notes
    -----
    Two secrets are equal when their values are (compared in constant time);
    a secret never equals a plain string. A pickled secret unpickles without
    its value: :meth:`reveal` then raises :class:`ConfigError` saying to
    configure the key in that process.
    """

    __slots__ = ("_value",)

    def __init__(self, value: object) -> None:
        self._value = value

    def reveal(self) -> str:
        """The value, for signing a request; nothing else in the package reads it."""
        if not isinstance(self._value, str):
            _lost()
        return self._value

    def problem(self) -> str | None:
        """What is wrong with the value as a key, or None; the value is never in the answer."""
        if not isinstance(self._value, str):
            return "must be a string"
        if not self._value.strip() or not self._value.strip().isprintable():
            return "must be a non-empty string without control characters"
        return None

    def stripped(self) -> Secret:
        """The secret without surrounding whitespace (a key read from a file keeps its newline)."""
        return Secret(self._value.strip() if isinstance(self._value, str) else self._value)

    def __repr__(self) -> str:
        return f"Secret({HIDDEN!r})"

    def __str__(self) -> str:
        return HIDDEN

    def __format__(self, spec: str) -> str:
        return format(HIDDEN, spec)

    def __bool__(self) -> bool:
        return bool(self._value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        mine, theirs = self._value, other._value
        if not (isinstance(mine, str) and isinstance(theirs, str)):
            return mine is theirs
        return hmac.compare_digest(mine.encode("utf-8", "surrogatepass"),
                                   theirs.encode("utf-8", "surrogatepass"))

    def __hash__(self) -> int:
        return hash((Secret, self._value))

    def __copy__(self) -> Secret:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Secret:
        return self  # immutable: dataclasses.asdict keeps the same hidden object

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (_unpickled, ())  # the value never travels


def _unpickled() -> Secret:
    return Secret(None)


def _lost() -> NoReturn:
    raise ConfigError("this private key has no value: a pickled key never carries it. "
                      "Configure the key in this process (ICOFRAMES_PRIVATE_KEY or "
                      "icoframes.configure(private_key=...))")


def redact_url(url: str) -> str:
    """``url`` with its user information (``user:password@``) replaced by ``<hidden>``.

    Examples
    --------
    >>> redact_url("https://api.example.org/v1"), redact_url("http://tok@[::1]:9/")
    ('https://api.example.org/v1', 'http://<hidden>@[::1]:9/')
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return HIDDEN if "@" in url else url
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=f"{HIDDEN}@{parts.netloc.rsplit('@', 1)[1]}"))

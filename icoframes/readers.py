"""How each setting's value is read and checked: one reader per kind of setting.

Each reader returns the value in its setting's type or raises ``ValueError`` saying
what is wrong (never quoting the value: :meth:`Setting.check` does, bounded, and never a
key). :data:`icoframes.config.SETTINGS` names a :class:`Setting` and its reader per setting;
:class:`~icoframes.api.client.Client` reads its own ``timeout``, ``pool_size`` and
``max_response_bytes`` with the same ones.
"""

from __future__ import annotations

import datetime
import difflib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .ages import duration_text, durations_meant
from .errors import ConfigError, InvalidParameter
from .numerals import INT64_MAX, as_integer, did_you_mean_number, number_text
from .quoting import may_be_key, quoted
from .secret import HIDDEN, RedactedURL, Secret, redact_address, redact_url

__all__ = ["ENV_PREFIX", "MAX_SECONDS", "Setting", "integer", "private_key", "public_key",
           "response_bytes", "same_key", "seconds", "service_name", "setting_meant", "shown",
           "time_of_day", "url"]


ENV_PREFIX = "ICOFRAMES_"  #: What the name of every environment variable read starts with


@dataclass(frozen=True)
class Setting:
    """One setting: its name, type, how a value is read and checked, its default and meaning.

    ``read`` turns a value (from Python or, as text, from the environment) into
    the setting's type and raises ``ValueError`` saying what is wrong; ``default``
    is a value, or a function of no arguments for a default computed per call;
    ``shown`` is the default as people read it (docs, ``help(configure)``).
    ``secret`` keeps the value out of reprs and error messages.
    """

    name: str
    type: str
    read: Callable[[Any], Any]
    default: Any
    shown: str
    doc: str
    secret: bool = False
    accepts: str = ""  # what configure() takes, when wider than ``type``

    @property
    def env(self) -> str:
        """The environment variable that sets it."""
        return ENV_PREFIX + self.name.upper()

    def check(self, value: Any, *, source: str | None = None) -> Any:
        """``value`` read and checked, or an error naming where it came from.

        A bad argument (``configure``, a loader's ``max_workers``) raises
        :class:`InvalidParameter`, as every bad argument does; a bad environment
        variable (``source``) raises :class:`ConfigError`. A secret setting's
        value must come wrapped (:func:`~icoframes.config.hide`), so that no frame of the error's
        traceback holds it in clear.
        """
        try:
            return self.read(value)
        except (TypeError, ValueError) as exc:
            # bounded; whatever may be a key (a mix-up of arguments: base_url=<key>) only by
            # its length, an address with its password hidden
            said = HIDDEN if self.secret else shown(value)
            error = ConfigError if source else InvalidParameter
            # a value not shown: no reason quoting parts of it ("writes $<part of a key>")
            withheld = said != quoted(value) and getattr(exc, "withheld", None)
            raise error(f"invalid {source or self.name}={said}: {withheld or exc}") from None

    def default_value(self) -> Any:
        """The default (computed now when it is a function)."""
        return self.default() if callable(self.default) else self.default


def url(value: Any) -> str:
    """A service address, without ``/api/v1``, as a :class:`~icoframes.secret.RedactedURL`."""
    text = str(value).strip().rstrip("/").removesuffix("/api/v1")
    scheme, sep, rest = text.partition("://")
    if sep and scheme.lower() in ("http", "https"):  # a scheme has no case (RFC 3986 3.1):
        text = scheme.lower() + sep + rest  # "HTTP://" is http://, one service and one cache
    if not text.startswith(("http://", "https://")):
        # a host without its scheme ("127.0.0.1:8000"), when it is shown (no key: no letter)
        host = not sep and not may_be_key(text) and bool(re.match(r"[\w.-]+[.:]", text))
        meant = f"; did you mean 'http://{text}'?" if host else ""
        raise ValueError(f"must start with http:// or https://{meant}")
    if any(c.isspace() or not c.isprintable() for c in text):  # no request could send it
        raise ValueError("holds a space or a control character (a space in a path is %20)")
    try:  # a port out of range or a broken IPv6 host fails here, not at the first request
        parts = urlsplit(text)
        usable = bool(parts.hostname) and parts.port != 0
    except ValueError:  # urlsplit's text quotes the port or host given: a key, maybe
        raise ValueError("is not a usable URL (a port that is no number from 0 to 65535, or "
                         "a broken IPv6 host)") from None
    # "?..." would come before the API's paths; an empty one too ("http://host/?": was
    # taken, and its first request, POST /?/api/v1/..., refused)
    if not usable or parts.query or parts.fragment or text.endswith(("?", "#")):
        raise ValueError("names no host, or port 0" if not usable else
                         "has a query or a fragment ('?', '#'): the API's paths go after it")
    return RedactedURL(text)


def shown(value: Any) -> str:
    """``value`` as a refused setting quotes it: an address (``http://...``) with its password,
    query and fragment hidden (:func:`~icoframes.secret.redact_address`), anything else with
    :func:`~icoframes.quoting.quoted`'s ``keys``: a key given for ``base_url``,
    ``quota_reset`` or ``timeout`` by mistake is not shown."""
    if isinstance(value, str) and (value.strip().lower().startswith(("http://", "https://"))
                                   or redact_url(value) != value):  # "user:pw@host"
        return quoted(redact_address(value))  # an address, its password, query hidden: no key
    return quoted(value, keys=True)


def public_key(value: Any) -> str:
    """A public key: printable ASCII text (it travels in an HTTP header), stripped."""
    if not isinstance(value, str):
        raise ValueError("must be a string")
    value = value.strip()  # keys read from a file keep their newline
    if not value or not value.isprintable():
        raise ValueError("must be a non-empty string without control characters")
    if not value.isascii():
        raise ValueError("must be ASCII (it travels in an HTTP header)")
    return value


def private_key(secret: Secret) -> Secret:
    """A private key, stripped, still a :class:`~icoframes.secret.Secret`."""
    # only a Secret comes here (see hide): no frame of a refusal holds the key in clear
    problem = secret.problem()
    if problem:
        raise ValueError(problem)
    return secret.stripped()  # keys read from a file keep their newline


def same_key(public: Any, private: Any, *, said: Sequence[str] = ("public_key", "private_key"),
             error: type[Exception] = InvalidParameter) -> Exception | None:
    """The ``error`` to raise when ``public`` (text or a :class:`Secret`) and ``private`` (a
    :class:`Secret`) are one key, said by the names in ``said``, never by their text; else
    ``None`` (``None`` for either: nothing to compare).

    Pasting the private key into both fields is an easy slip (two long random strings), and
    it would go unsigned in every request's public-key header and show in every repr.
    Returned, not raised: the caller drops the locals holding the key's text first, so that
    no frame of the traceback holds it (``capture_locals``, ``pytest --showlocals``)."""
    public = Secret(public) if isinstance(public, str) else public
    if not (isinstance(public, Secret) and isinstance(private, Secret)
            and public.stripped() == private.stripped()):
        return None
    return error(f"{said[0]} and {said[1]} are the same text (not shown): the private key "
                 "given as the public key too? The public key travels in clear in every "
                 "request's header and shows in reprs: give each the key the service issued "
                 "for it")


def integer(low: int, high: int) -> Callable[[Any], int]:
    """The reader of a whole number from ``low`` to ``high``: :func:`~icoframes.numerals.as_integer`
    reads it, as every integer argument (text: ASCII digits only, never "٣" nor "1_000";
    never True, 2.5, ``Decimal("2.5")`` nor a numpy timedelta64)."""
    def read(value: Any) -> int:
        number = as_integer(value)
        if number is None:
            grouped = _grouped(value)  # "5,000": 5000, its thousands separated
            hint = (f"; did you mean {grouped}?" if grouped is not None and low <= grouped <= high
                    else did_you_mean_number(value))
            raise ValueError("must be an integer" + hint)
        if not low <= number <= high:
            raise ValueError(f"must be between {low} and {high}")
        return number
    return read


#: A whole number written with its thousands separated ("5,000", "1 000 000", "5_000").
_GROUPED = re.compile(r"\s*\+?([0-9]{1,3}(?:([,_ \u00a0'])[0-9]{3})(?:\2[0-9]{3})*)\s*")


def _grouped(value: object) -> int | None:
    """The whole number a text with thousands separators writes, else None."""
    match = _GROUPED.fullmatch(value) if isinstance(value, str) else None
    return int(re.sub(r"[^0-9]", "", match[1])) if match else None


#: ``max_response_bytes`` (``configure``'s, a :class:`~icoframes.api.client.Client`'s): at
#: least 1 KiB, and no more than the int64 every count of the package is.
response_bytes = integer(1024, INT64_MAX)


#: The longest a request may take (``timeout``): a day. The watchdog that cuts a request
#: waits on a thread's timer, which cannot wait 1e10 s (a bare OverflowError each request).
MAX_SECONDS = 86_400.0


def seconds(value: Any) -> float:
    """A positive number of seconds up to :data:`MAX_SECONDS`, as a float."""
    number = number_text(value) if isinstance(value, str) else value  # "١٠" is no 10
    kind = getattr(getattr(value, "dtype", None), "kind", "")  # numpy's kind of value
    if hasattr(value, "total_seconds") or kind == "m":  # np.timedelta64(3, "ms") is no 3 s
        raise ValueError("must be a number of seconds, not a duration "
                         "(pd.Timedelta(d).total_seconds() is one)")
    # a Series or an array is no number, even of one element (pandas 2.2 reads float() of
    # one with a FutureWarning; pandas 3 refuses it)
    if number is None or isinstance(value, bool) or kind in ("b", "M") or (
            hasattr(value, "ndim") and value.ndim != 0):
        meant = _seconds_meant(value)
        if not meant:
            raise ValueError("must be a number of seconds" + did_you_mean_number(value,
                                                                                 whole=False))
        # suggested only when it is taken ("-1D", "2D": not; "6m": 6 minutes, never months)
        taken = [f"{one:g}" if float(f"{one:g}") == one else repr(one)  # never rounded
                 for one in meant if 0 < one <= MAX_SECONDS]
        raise ValueError("must be a number of seconds" + (
            f"; did you mean {' or '.join(taken)}?" if taken
            else f", positive and at most {MAX_SECONDS:,.0f} (a day)"))
    try:  # float()'s own error quotes the value whole (b"<key>", 10 MB of bytes): not said
        read = float(number)
    except OverflowError:  # an int past float's range (10**400): no finite float
        read = float("inf")
    except (TypeError, ValueError):
        raise ValueError("must be a number of seconds" + did_you_mean_number(
            value, whole=False)) from None
    if not 0 < read <= MAX_SECONDS:  # nan and inf too
        raise ValueError(f"must be positive and at most {MAX_SECONDS:,.0f} (a day)")
    return read


def _seconds_meant(value: Any) -> list[float]:
    """The seconds of the duration text writes, as an age argument reads it (``"30s"``: 30),
    else of those its refusal would suggest (``"6m"``: 360, never months; ``"12 hrs"``);
    ``[]`` when it writes none (not text, a number's text, or no duration)."""
    if not isinstance(value, str):
        return []
    duration = duration_text(value)
    # duration.value: nanoseconds (pandas 2.2's total_seconds() cuts them: "0.1234567s")
    return [one.value / 1e9 for one in ([duration] if duration is not None
                                        else durations_meant(value, months=False))]


# a service name becomes a folder of the cache dir: one plain path segment, never the
# request ledgers' folder ("quota", see icoframes.cachedir.housekeeping.LEDGER_FOLDER)
_SERVICE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_RESERVED_NAMES = frozenset({"quota"})


def service_name(value: Any) -> str:
    """A service's name: one plain folder name of the cache dir, stripped."""
    if not isinstance(value, str) or not _SERVICE_NAME.fullmatch(value.strip()):
        raise ValueError("must be 1 to 100 letters, digits, '.', '_' or '-', starting with a "
                         "letter or digit")
    if value.strip().lower() in _RESERVED_NAMES:
        raise ValueError("is reserved (the request ledgers' folder)")
    return value.strip()


def time_of_day(value: Any) -> datetime.time:
    """A UTC time of day to the minute, from ``'HH:MM'`` or a ``datetime.time``."""
    if isinstance(value, datetime.time):
        if value.tzinfo is not None and value.utcoffset() != datetime.timedelta(0):
            raise ValueError("must be a UTC time of day")
        return value.replace(tzinfo=None, second=0, microsecond=0)
    match = re.fullmatch(r"\s*([0-9]{1,2}):([0-9]{2})\s*(?:UTC|Z)?\s*", value, re.I) if \
        isinstance(value, str) else None  # str() of an int of 5000 digits would raise
    if match is None or int(match[1]) > 23 or int(match[2]) > 59:
        raise ValueError("must be a UTC time of day as 'HH:MM' (e.g. '06:00') or a datetime.time"
                         + _minute_meant(value))
    return datetime.time(int(match[1]), int(match[2]))


def _minute_meant(value: object) -> str:
    """``"; did you mean '06:00'?"`` for a time of day with seconds (``"06:00:00"``): the
    reset is to the minute, as a ``datetime.time``'s seconds are dropped; else ``""``."""
    match = re.fullmatch(r"\s*([0-9]{1,2}):([0-9]{2}):[0-9]{2}(?:\.[0-9]+)?\s*(?:UTC|Z)?\s*",
                         value, re.I) if isinstance(value, str) else None
    if match is None or int(match[1]) > 23 or int(match[2]) > 59:
        return ""
    return f"; did you mean '{int(match[1]):02d}:{match[2]}'?"


# names a user may type for a setting that no spelling is close to (``quota`` was offered
# ``quota_reset``, a time of day, for a count of requests)
_WORDS = {"quota": "daily_quota", "limit": "daily_quota", "daily_limit": "daily_quota",
          "request_limit": "daily_quota", "reset": "quota_reset", "url": "base_url", "api_url":
          "base_url", "endpoint": "base_url", "secret": "private_key", "secret_key":
          "private_key", "api_key": "public_key"}


def setting_meant(name: str, names: Iterable[str]) -> str | None:
    """The setting of ``names`` a misspelled ``name`` most likely means, or None."""
    word = _WORDS.get(name.strip().casefold())
    close = [word] if word else difflib.get_close_matches(name, list(names), 1, 0.6)
    return close[0] if close else None

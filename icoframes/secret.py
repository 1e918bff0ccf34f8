"""Values that never show: the private key as a :class:`Secret`, and :func:`redact_url`.

A :class:`Secret` prints as ``<hidden>`` in every form Python has for showing a
value (``repr``, ``str``, f-strings, ``dataclasses.asdict``, ``vars``, the
locals of a traceback) and does not travel in a pickle. Its value is read with
:meth:`Secret.reveal`, which the package calls in two places: where a request
is signed (:func:`icoframes.api.auth.sign`) and where the HTTP Basic header
made of ``base_url``'s user information is set on a request
(:class:`icoframes.api.auth.BasicFromURL`).

An address that may hold a password (``http://user:pass@host``) is a
:class:`RedactedURL`: a ``str`` whose ``repr``, as a traceback with locals shows
it, hides the user information; :func:`split_userinfo` takes that information
out of the address, so that no request ever carries it in its URL.

>>> key = Secret("s3cr3t")
>>> key, str(key), f"{key}", key.reveal()
(Secret('<hidden>'), '<hidden>', '<hidden>', 's3cr3t')
>>> redact_url("http://user:pass@example.org:8000/x")
'http://<hidden>@example.org:8000/x'
>>> RedactedURL("http://user:pass@example.org")
'http://<hidden>@example.org'
"""

from __future__ import annotations

import base64
import hmac
from collections.abc import Iterator
from typing import Any, NoReturn
from urllib.parse import unquote, urlsplit, urlunsplit

from .errors import ConfigError, checked_methods

__all__ = ["HIDDEN", "HiddenText", "RedactedURL", "Secret", "redact_address", "redact_url",
           "split_userinfo"]

HIDDEN = "<hidden>"
"""What a secret, or the user information of an address, shows instead of itself."""


@checked_methods
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
    its value: :meth:`reveal` then raises :class:`~icoframes.ConfigError` saying to
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
    if not parts.netloc and "@" in url:
        # no authority urlsplit can see (no or a mistyped scheme: "user:pw@host",
        # "http//user:pw@host"): whatever comes before the last @ may be a password
        return f"{HIDDEN}@{url.rsplit('@', 1)[1]}"
    if "@" not in parts.netloc:
        if "@" not in url:
            return url
        # an @ after the authority urlsplit saw: a password holding "/", "?" or "#"
        # ends that authority early ("http://user:pa/ss@host"); hide up to the last @
        return f"{parts.scheme}://{HIDDEN}@{url.rsplit('@', 1)[1]}"
    return urlunsplit(parts._replace(netloc=f"{HIDDEN}@{parts.netloc.rsplit('@', 1)[1]}"))


def redact_address(url: str) -> str:
    """``url`` as a refusal shows it: its user information hidden (:func:`redact_url`), and its
    query and fragment too (``?<hidden>``, ``#<hidden>``): a token may be in them
    (``?api_token=...``). An empty one stays (``?``: what was refused).

    Examples
    --------
    >>> redact_address("https://u:pw@api.example.com/?api_token=tok#k"), redact_address("http://h/?")
    ('https://<hidden>@api.example.com/?<hidden>#<hidden>', 'http://h/?')
    """
    head, hash_, fragment = redact_url(url).partition("#")
    head, mark, query = head.partition("?")
    return (head + (f"?{HIDDEN}" if query else mark)
            + (f"#{HIDDEN}" if fragment else hash_))


class RedactedURL(str):
    """An address, used as the ``str`` it is, whose ``repr`` hides its user information.

    A local or attribute holding it shows ``'http://<hidden>@host'`` in a
    traceback with locals; its value, ``str()`` and f-strings are the address
    as given, so it is equal to (and hashes as) the plain string. A copy is the
    same object; a pickle carries the address as its repr shows it, as a private
    key's pickle carries no key: unpickled, ``http://user:pw@host/p`` names the
    same host, port and path (the same cache folder), and a client made of it is
    refused (:func:`split_userinfo`) rather than sent without the password.

    Examples
    --------
    >>> url = RedactedURL("http://user:pw@example.org:8000")
    >>> url, url == "http://user:pw@example.org:8000", f"{url}"
    ('http://<hidden>@example.org:8000', True, 'http://user:pw@example.org:8000')
    >>> import pickle; str(pickle.loads(pickle.dumps(url)))
    'http://<hidden>@example.org:8000'
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(redact_url(str(self)))

    def __copy__(self) -> RedactedURL:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> RedactedURL:
        return self  # immutable: dataclasses.asdict(settings) keeps the address as it is

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (RedactedURL, (redact_url(str(self)),))  # the password never travels


class HiddenText(str):
    """Text sent as it is (an HTTP header value: http.client encodes it) that never shows.

    Its ``repr``, ``str``, ``format`` and ``%`` are ``'<hidden>'``; a slice, a
    concatenation or another text made of it (``upper``, ``split``...) is a
    :class:`HiddenText` too: rich's traceback with locals cuts a long string with
    ``obj[:80]`` before its ``repr``, and a plain ``str`` slice showed the Basic header.
    Its characters, iterated (``list``, ``sorted``), are each a :class:`HiddenText`.
    A copy is the same object; a pickle carries ``'<hidden>'`` instead of the text
    (an unpickled one sent as a header is no credential: the service refuses it).
    It compares, hashes and encodes as the text it holds.

    What it cannot hide: it is a ``str``, and what reads a ``str``'s characters in C
    without calling a method of the object gets them in clear: ``"".join([text])``,
    ``json.dumps``, ``re`` (``sub``, ``findall``...), ``io.StringIO``, ``bytes(text,
    "ascii")``, ``str.__str__(text)`` or ``str.__getitem__(text, ...)`` called on ``str``
    itself. ``encode`` stays the text's, as it must: http.client sends a header value
    as ``value.encode("latin-1")``. No path of the package shows the header so; these
    guard against a repr, a message or a traceback with locals, not against code that
    reads the text on purpose.

    >>> text = HiddenText("Basic dTpw")
    >>> text, str(text), f"{text:>9}", "%s" % text, text[:9], text == "Basic dTpw"
    ('<hidden>', '<hidden>', ' <hidden>', '<hidden>', '<hidden>', True)
    >>> text.encode("latin-1"), list(text)[:2]
    (b'Basic dTpw', ['<hidden>', '<hidden>'])
    """

    __slots__ = ()

    def __iter__(self) -> Iterator[str]:
        return (HiddenText(char) for char in str.__iter__(self))

    def __copy__(self) -> HiddenText:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> HiddenText:
        return self  # immutable: a deep copy of a request's headers sends the same header

    def __getnewargs__(self) -> tuple[str]:
        return (HIDDEN,)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (HiddenText, (HIDDEN,))  # the text never travels

    def __repr__(self) -> str:
        return repr(HIDDEN)

    def __str__(self) -> str:
        return HIDDEN

    def __format__(self, spec: str) -> str:
        return format(HIDDEN, spec)


def _hidden(value: Any) -> Any:
    """``value`` with every text in it a :class:`HiddenText` (a list or tuple of them too)."""
    if isinstance(value, str):
        return HiddenText(value)
    if isinstance(value, list | tuple):
        return type(value)(_hidden(part) for part in value)
    return value


def _kept_hidden(name: str) -> Any:
    method = getattr(str, name)

    def hidden(self: HiddenText, *args: Any, **kwargs: Any) -> Any:
        return _hidden(method(self, *args, **kwargs))

    hidden.__name__ = hidden.__qualname__ = name
    return hidden


# every str method whose result holds the text's characters (the operators too; __radd__:
# "x" + text, tried before str's own __add__ because HiddenText subclasses str)
for _name in ("__getitem__", "__add__", "__mul__", "__rmul__", "__mod__", "capitalize",
              "casefold", "center", "expandtabs", "format", "format_map", "join", "ljust",
              "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace",
              "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines", "strip",
              "swapcase", "title", "translate", "upper", "zfill"):
    setattr(HiddenText, _name, _kept_hidden(_name))
HiddenText.__radd__ = lambda self, other: HiddenText(str.__add__(other, self))  # type: ignore[attr-defined]
del _name


def split_userinfo(url: str) -> tuple[str, Secret | None]:
    """``url`` without its user information, and the HTTP Basic header value made of it.

    The header is the one requests makes of a URL's user information (the
    percent-decoded user and password, Latin-1, Base64): only when the address
    has a password (``user:pw@``, ``:pw@``, ``user:@``; not ``user@``) and
    they are not both empty. ``url`` is returned as it is when it has none.

    Raises
    ------
    ConfigError
        The address cannot be parsed, or its user information is not Latin-1
        (HTTP Basic cannot carry it); the message shows neither. Or the user
        information is ``<hidden>``: an unpickled :class:`RedactedURL`, whose
        password did not travel.

    Examples
    --------
    >>> plain, header = split_userinfo("http://us%40er:p%3Aw@example.org:8/x")
    >>> plain, header, header.reveal()
    ('http://example.org:8/x', Secret('<hidden>'), 'Basic dXNAZXI6cDp3')
    >>> split_userinfo("http://user@example.org"), split_userinfo("https://example.org/a@b")
    (('http://example.org', None), ('https://example.org/a@b', None))
    """
    if f"{HIDDEN}@" in url:  # "<" is no user information's: an address shown or unpickled
        raise ConfigError(f"base_url {redact_url(url)!r} has its user information hidden: a "
                          "pickled or shown address never carries its password. Configure "
                          "base_url in this process (ICOFRAMES_BASE_URL or "
                          "icoframes.configure(base_url=...))")
    split = _split_userinfo(url)  # its frame, holding the password in clear, is gone now
    if split is None:
        raise ConfigError(f"base_url {redact_url(url)!r}: its user information cannot be sent "
                          "(HTTP Basic auth needs a parseable address and Latin-1 text)")
    plain, header = split
    return plain, None if header is None else Secret(header)


def _split_userinfo(url: str) -> tuple[str, str | None] | None:
    # Locals here hold the password in clear: nothing in this frame raises (None instead).
    if "@" not in url:
        return url, None
    try:
        parts = urlsplit(url)
        if "@" not in parts.netloc:
            return url, None
        plain = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
        user, password = parts.username, parts.password
        if user is None or password is None:  # requests sends no auth without a password
            return plain, None
        user, password = unquote(user), unquote(password)
        if not (user or password):
            return plain, None
        token = base64.b64encode(f"{user}:{password}".encode("latin-1")).decode("ascii")
    except ValueError:  # unparseable, or not Latin-1 (UnicodeEncodeError)
        return None
    return plain, f"Basic {token}"

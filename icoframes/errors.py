"""Every exception and warning icoframes raises on purpose, in one place.

Every error the package raises on purpose derives from :class:`IcoframesError`; one that
was a builtin's is that builtin too (named on its line), so ``except OSError`` catches a
``CacheError`` and ``except FileNotFoundError`` an ``ExportNotFound``. Errors reported by
the API carry the numeric code of the response body in ``.code`` (spec section 7)::

    IcoframesError
    ├── ConfigError            settings missing or invalid (e.g. no keys)
    │   └── ClockBehind        the clock is before a snapshot tree's days: nothing written
    ├── CacheError             the cache cannot be used as it is (an OSError too)
    ├── DiskFull               an export filled its disk: nothing written (an OSError too)
    ├── NotCached              offline=True and the cache lacks it (a LookupError too)
    ├── EmptyResult            an export's query matched no ICO (allow_empty=False)
    ├── ExportReplaced         an export kept replacing the folder being read
    ├── ExportBusy             another export held the swap too long, or swapped in meanwhile
    ├── ExportNotFound         a reader found no export there (a FileNotFoundError too)
    ├── ExportMismatch         a reader's folder holds no exports it reads (a ValueError too)
    └── APIError(.code)        the service answered with an error, or never answered
        ├── AuthError          480: public or private key not valid
        ├── UnknownMethod      481: no such method, a wrong base_url (a ConfigError too)
        ├── InvalidParameter   483, 484 (not a profile's), arguments refused (a ValueError)
        │   ├── WrongType      an argument of the wrong kind (a TypeError too)
        │   └── UnknownName    a name that names nothing (a KeyError too)
        ├── NotFound           482 for a profile id (a LookupError too; a list's is no error)
        ├── QuotaExceeded      485: the daily request allowance is used up
        └── ServiceUnavailable transient failures persisted after every retry
            └── BadResponse    the gate refused the answer, or it is an error about that
                │              request alone (a profile's 404, 483, 999: ``.code``)
                └── Redirected a 3xx: redirects are never followed

``QuotaExceeded`` is never retried and never swallowed: loaders keep what they fetched,
then re-raise it.

Warnings say that a result is usable but not everything it could be; all of
them derive from :class:`~icoframes.IcoframesWarning` (a ``UserWarning``), so
``warnings.simplefilter("error", icoframes.IcoframesWarning)`` turns them all
into errors::

    IcoframesWarning
    ├── QuotaWarning           a load needs more requests than remain today
    ├── CacheWarning           a cache file was unreadable: set aside, rebuilt or re-fetched;
    │                          or a cached list dated after now (a clock stepped back): paged again
    ├── NoMatchWarning         a loader's query matched no ICO: the typed empty frame
    ├── IncompleteWarning      a result lacks rows: attrs["icoframes"] names them, and why
    │   └── MissingProfileWarning  only listed ICOs without a profile (error 482) left out
    └── StaleWarning           rows kept from an earlier fetch, out of date

Each is reported at the line of the caller's code that called into icoframes
(not inside the package), so the warning points at the notebook cell or
script line that caused it. A class of the package not drawn here (one module's own
refusal) is caught as the class it derives from.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import numpy as np

from .notices import (
    CacheWarning,
    IcoframesWarning,
    IncompleteWarning,
    MissingProfileWarning,
    NoMatchWarning,
    QuotaWarning,
    StaleWarning,
    warn,
)
from .numerals import did_you_mean_flag
from .quoting import closest, did_you_mean, quoted

if TYPE_CHECKING:
    import datetime as dt

    import pandas as pd

__all__ = ["APIError", "AuthError", "BadResponse", "CacheError", "CacheWarning", "ClockBehind",
           "ConfigError", "DiskFull", "EmptyResult", "ExportBusy", "ExportMismatch",
           "ExportNotFound", "ExportReplaced", "IcoframesError", "IcoframesWarning",
           "IncompleteWarning", "InvalidParameter", "MissingProfileWarning", "NoMatchWarning",
           "NotCached", "NotFound", "QuotaExceeded", "QuotaWarning", "Redirected",
           "ServiceUnavailable", "StaleWarning", "UnknownMethod", "UnknownName", "WrongType",
           "check_flags", "checked_keywords", "checked_methods", "closest", "did_you_mean",
           "error_for_code", "keywords_of", "quoted", "warn"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


class IcoframesError(Exception):
    """Base class of every error icoframes raises on purpose."""


class ConfigError(IcoframesError):
    """Settings are missing or invalid (no keys, no base URL, bad cache dir)."""


class ClockBehind(ConfigError):
    """The clock says an earlier moment than a snapshot tree holds (a day dated or written
    later than now): nothing is written; the command line exits 2, a setting to fix."""


class CacheError(IcoframesError, OSError):
    """The cache cannot be used as it is: its disk is full, its dir belongs to another user
    or others may write to it, or it is locked by a process that stopped.

    The message says which, and what to do. What the cache held before is kept:
    once the cause is gone (space freed, the folder fixed), the next call goes on.
    """


class DiskFull(IcoframesError, OSError):
    """The disk of an export's ``out`` filled up while it wrote: nothing written. Exit 1."""


class NotCached(IcoframesError, LookupError):
    """``offline=True`` was asked, but the cache does not hold what is needed."""


class EmptyResult(IcoframesError):
    """An export's query matched no ICO, so nothing was written (see ``allow_empty``); the
    message names the query that matched nothing, the command line exits 4."""


class ExportReplaced(IcoframesError):
    """An export kept replacing the folder while it was read (or held its swap too long):
    nothing mixed was returned. Raised by the readers (:func:`icoframes.read_export`,
    :func:`icoframes.read_snapshots`); read again once the running export is done."""


class ExportBusy(IcoframesError):
    """A process held the swap lock of an export's folder too long (an export stopped or hung,
    or any that may read it), or swapped in the day an incomplete export would replace: exit 1."""


class ExportNotFound(IcoframesError, FileNotFoundError):
    """A reader (:func:`icoframes.read_export`, :func:`icoframes.read_snapshots`,
    :func:`icoframes.changes`, :meth:`icoframes.Tables.read_parquet`) found nothing to read
    where it was pointed: no folder, or one holding no export of icoframes (its manifest or
    a table missing) or no tables. A ``FileNotFoundError`` too, as it was."""


class ExportMismatch(IcoframesError, ValueError):
    """A reader's folder does not hold exports as it reads them (no ``snapshot_date=``
    folder (:func:`icoframes.read_snapshots`, :func:`icoframes.changes`), snapshots where
    :func:`icoframes.read_export` reads one export, two folders of one day, snapshots of
    different queries compared), or a file of it is damaged (a table file that is a symbolic
    link or a FIFO, or whose columns differ from the schema; a ``manifest.json`` that is not
    a JSON object). A ``ValueError`` too, as it was."""


class APIError(IcoframesError):
    """The service reported an error, or could not be reached.

    Parameters
    ----------
    message : str
        Human-readable explanation.
    code : int or None
        The ``error`` field of the response body (480-485), or None when the
        error did not come with a code (local validation, network failure).
    endpoint : str or None
        The endpoint path the request went to, when there was one.
    """

    def __init__(self, message: str, *, code: int | None = None, endpoint: str | None = None):
        super().__init__(message)
        self.code = code
        self.endpoint = endpoint



class AuthError(APIError):
    """480: the public or private key is missing or not valid."""


class UnknownMethod(APIError, ConfigError):
    """481: the service has no such method (spec 7: a nonexistent endpoint was requested).

    The endpoints are the spec's, so it is the address that is wrong (``base_url`` with a
    path too many or too few, another service's): a setting, answered the same on every
    request and every day, so a :class:`ConfigError` too (the command exits 2), never
    retried; an ``except APIError`` still catches it.
    """


class InvalidParameter(APIError, ValueError):
    """483/484 from the service for a list (a profile's is its BadResponse), or a parameter
    rejected before any request was sent."""


class WrongType(InvalidParameter, TypeError):
    """An argument of the wrong kind (``compute_features(tables.icos)``, a plot's ``ax=3``):
    an :class:`InvalidParameter` as every refused argument, and a ``TypeError`` as it was."""


class UnknownName(InvalidParameter, KeyError):
    """A name that names nothing (a table, a kind of change), with a "did you mean": an
    :class:`InvalidParameter` like every refused argument, and a ``KeyError`` as it was.

    Its message reads as written (a plain ``KeyError`` shows it in quotes).
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class NotFound(APIError, LookupError):
    """482 for a profile: no ICO has this id."""


class QuotaExceeded(APIError):
    """485: the daily request allowance of this key is used up.

    Loaders keep everything fetched before this happened; calling the same
    loader again after the allowance resets fetches only what is missing.
    ``remaining`` is the number of profiles that were still to fetch, when known.
    ``listing`` is what the stopped load had listed (a list frame whose
    ``attrs["icoframes"]`` says what it lacks), or None when it stopped before
    a list: :func:`icoframes.export_tables` writes it as an incomplete export.
    ``retry_at`` is when the service asked to be called again (the ``Retry-After`` of its
    429 or 503 answer, an aware UTC datetime), or None when it did not say.
    """

    def __init__(self, message: str, *, code: int | None = 485, endpoint: str | None = None,
                 remaining: int | None = None):
        super().__init__(message, code=code, endpoint=endpoint)
        self.remaining = remaining
        self.listing: pd.DataFrame | None = None
        self.retry_at: dt.datetime | None = None


class ServiceUnavailable(APIError):
    """The service kept failing (network errors, 5xx, bad JSON) after every retry, or gave no
    answer to the probe sent after an error 485 on record (the refusal stays on record).

    ``last_failure`` names the last cause (``"connection refused"``, ``"HTTP 500"``,
    ``"not JSON"``...) when there was one.
    """

    last_failure: str | None = None


class BadResponse(ServiceUnavailable):
    """The service answered, but with something the gate refused, after every retry.

    ``reason`` says what was wrong with the last answer (``"not JSON"``,
    ``"data.id is 7, not the 5 requested"``, ...). Being a
    :class:`~icoframes.ServiceUnavailable`, it is never blamed on the
    caller's arguments.
    """

    def __init__(self, message: str, *, code: int | None = None, endpoint: str | None = None,
                 reason: str = ""):
        super().__init__(message, code=code, endpoint=endpoint)
        self.reason = reason


class Redirected(BadResponse):
    """The service answered with a redirect (3xx); redirects are never followed.

    Following one would send the signed headers to another address and trust
    whatever it answers; the error names the status and the ``Location``.
    """


_MESSAGES = {
    480: "the public or private key is not valid (error 480)",
    481: "the method does not exist (error 481): check base_url",
    482: "no ICO matches (error 482)",
    483: "the service rejected a parameter value as invalid (error 483)",
    484: "a required parameter is missing (error 484)",
    485: "the daily request allowance is exceeded (error 485)",
}

_CLASSES: dict[int, type[APIError]] = {
    480: AuthError,
    481: UnknownMethod,
    482: NotFound,
    483: InvalidParameter,
    484: InvalidParameter,
    485: QuotaExceeded,
}


def error_for_code(code: int, *, endpoint: str | None = None, detail: str = "") -> APIError:
    """Build the exception for an API error code (spec section 7)."""
    message = _MESSAGES.get(code, f"the service reported error {code}")
    if endpoint:
        message = f"{endpoint}: {message}"
    if detail:
        message = f"{message}: {detail}"
    return _CLASSES.get(code, APIError)(message, code=code, endpoint=endpoint)


def check_flags(*, none_means: str = "", **flags: Any) -> None:
    """Each flag is True or False (a numpy bool too), never another truthy value.

    ``rates="no"`` would be true, and ``None`` false, without saying so; a word or number
    that says a bool gets it as a "did you mean". ``none_means``: what None is, if a value.

    Examples
    --------
    >>> try:
    ...     check_flags(snapshot=True, rates="no")
    ... except InvalidParameter as exc:
    ...     print(exc)
    rates must be True or False, got 'no'; did you mean False?
    """
    allowed = "True or False" + (f" (or None: {none_means})" if none_means else "")
    for name, value in flags.items():
        if not (isinstance(value, bool | np.bool_) or (none_means and value is None)):
            raise InvalidParameter(f"{name} must be {allowed}, got {quoted(value)}"
                                   + did_you_mean_flag(value))


def keywords_of(function: Callable[..., Any]) -> tuple[str, ...]:
    """A function's own keyword arguments (its ``**kwargs`` and positional-only ones left out).

    Examples
    --------
    >>> keywords_of(lambda status=None, *, refresh=False, **filters: None)
    ('status', 'refresh')
    """
    return tuple(name for name, p in inspect.signature(function).parameters.items()
                 if p.kind not in (inspect.Parameter.VAR_KEYWORD,
                                   inspect.Parameter.POSITIONAL_ONLY))


def checked_keywords(function: Callable[_P, _R], *,
                     name: str | None = None) -> Callable[_P, _R]:
    """``function``, refusing a keyword it lacks with InvalidParameter and a "did you mean".

    ``name`` is the name an alias is called by (``serve = checked_keywords(start,
    name="serve")``): the refusal names the function the user called.

    Python's own TypeError ("unexpected keyword argument 'refesh'") suggests
    nothing; this says what a loader says of a filter it does not know, before
    the function runs, so before any request. Signature, docstring and type stay
    the function's. Declared here, at the bottom of the package, so that every
    public function of every layer can use it. An argument given twice (by position
    and by name: ``client.profile(1, ico_id=2)``) is refused so too, never Python's
    TypeError "got multiple values"; names of ``**kwargs`` are the function's.

    Examples
    --------
    >>> @checked_keywords
    ... def load(*, refresh=False): ...
    >>> try:
    ...     load(refesh=True)
    ... except InvalidParameter as exc:
    ...     print(exc)
    refesh is not a keyword of load(); did you mean 'refresh'?
    """
    parameters = inspect.signature(function).parameters
    first = next(iter(parameters), None)
    # a method's self (or cls) is no keyword to offer: "its keywords: directory"
    own = tuple(k for k in keywords_of(function) if not (k == first and k in ("self", "cls")))
    called = name or function.__name__
    # the arguments a call may give by position (self first); too many of them stay
    # Python's TypeError here (a plot refuses them itself, saying ax=), one given twice not
    positional = [k for k, p in parameters.items() if p.kind in (
        inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    shift = int(first in ("self", "cls"))
    # a function taking **kwargs checks their names by its own rules (a loader's filters)
    open_ended = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())

    def refusal(given: int, keys: list[str]) -> str:  # of `given` by position, and `keys`
        for key in keys:
            if key in own and key in positional[:given]:  # Python: "got multiple values"
                return (f"{key} is given twice to {called}(): as argument "
                        f"{positional.index(key) + 1 - shift} and as {key}=; give it once")
            if key not in own and not open_ended:
                close = closest(key, own)
                return f"{key} is not a keyword of {called}(); " + (
                    f"did you mean {' or '.join(map(repr, close))}?" if close
                    else f"its keywords: {', '.join(own) or 'none'}")
        return ""

    @functools.wraps(function)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            if refused := refusal(len(args), list(kwargs)):  # by names only, never a value
                raise InvalidParameter(refused)
            return function(*args, **kwargs)
        except BaseException:  # no frame of its traceback holds a value given: a key given
            del args, kwargs  # under a wrong name (sb.client(privat_key=...)), maybe
            raise
    if name:  # an alias; else wraps() kept the qualified name pickle looks up
        call.__name__ = call.__qualname__ = name
    return call


_C = TypeVar("_C", bound=type)


def checked_methods(cls: _C) -> _C:
    """``cls``, each public method of it (inherited ones too) refusing a keyword it lacks as
    :func:`checked_keywords` does: ``report.as_dict(deep=True)`` raises InvalidParameter
    with a "did you mean", never Python's bare TypeError.

    A method taking ``**kwargs`` checks their names by its own rules (an argument given
    twice is refused still), one already checked stays as it is, and methods of C (a
    ``dict``'s) are not Python functions and stay too.
    """
    for name in dir(cls):
        static = inspect.getattr_static(cls, name)
        wrapper = type(static) if isinstance(static, staticmethod | classmethod) else None
        function = static.__func__ if wrapper else static
        if name.startswith("_") or not inspect.isfunction(function) or hasattr(
                function, "__wrapped__"):
            continue
        checked = checked_keywords(function, name=name)
        # where pickle looks a function up: this class's attribute, whoever defined it
        checked.__module__, checked.__qualname__ = cls.__module__, f"{cls.__qualname__}.{name}"
        setattr(cls, name, wrapper(checked) if wrapper else checked)
    return cls

"""Settings: arguments to :func:`configure` > ``ICOFRAMES_*`` env vars > defaults.

Every setting is one row of :data:`SETTINGS`: its reader (the check), default, environment
variable and meaning. :class:`Settings` and :func:`configure` are written out, so type checkers
see them, and held to the rows when this module is imported (the same names, types and
defaults). To add a setting, add a row, a field and a parameter.

{table}

Any other ``ICOFRAMES_*`` variable (in any case: ``ICOFRAMES_DAILYQUOTA``) is refused
whenever settings are read (:class:`~icoframes.errors.ConfigError`, with the variable it
most likely means), before any request: ignored, a misspelled cap or cache dir would
silently not apply. :data:`ENV_VARIABLES` lists the variables read.

The private key is held in a :class:`~icoframes.secret.Secret` from the moment
it is read: it never shows in a repr, log line, error message, traceback's
locals or pickle. A public key that is the private key's text is refused, wherever each
was set, before any request (it would travel in clear, and show). A password in
``base_url`` shows as ``<hidden>``, and a pickle carries it so
(:class:`~icoframes.secret.RedactedURL`). Unpickled :class:`Settings` show the same,
name the same cache folder (its host, port and path), and make no request:
:meth:`~icoframes.api.client.Client.from_settings` raises
:class:`~icoframes.errors.ConfigError` (no key), as a client given their address
does (its password), saying to configure it in that process.
"""

from __future__ import annotations

import datetime
import inspect
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Never

import platformdirs

from . import readers
from .errors import ConfigError, InvalidParameter, checked_keywords, checked_methods
from .numerals import INT64_MAX
from .paths import absolute_folder, forget_pinned, pinned_folder
from .quoting import quoted, rst_table
from .readers import ENV_PREFIX, Setting
from .secret import RedactedURL, Secret, redact_url

__all__ = ["AT_RESET", "ENV_VARIABLES", "MAX_WORKERS", "OTHER_VARIABLES", "SETTINGS",
           "SET_CACHE_DIR", "Setting", "Settings", "check_setting", "checked_settings", "configure",
           "get_settings", "hide", "reset_configuration", "unchanged"]

MAX_WORKERS = 64  #: The most concurrent requests ``max_workers`` takes (1 to 64).
AT_RESET: list[Callable[[], object]] = []  #: Run by :func:`reset_configuration` too (by store)


class _Unchanged:
    """The default of every :func:`configure` parameter: leave that setting as it is."""

    def __repr__(self) -> str: return "unchanged"


unchanged: Any = _Unchanged()  #: Sentinel: a configure() argument left out keeps its value


def check_setting(name: str, value: Any) -> Any:
    """``value`` read as ``configure(name=value)`` reads it, or the same InvalidParameter
    (:class:`~icoframes.api.client.Client` reads its ``base_url`` here)."""
    return _BY_NAME[name].check(hide(name, value))


def hide(name: str, value: Any) -> Any:
    """``value`` of setting ``name``: a secret's as a :class:`Secret`, ``base_url`` as a
    :class:`RedactedURL` (a ``str`` whose repr hides a password in it)."""
    if value is None or value is unchanged or isinstance(value, Secret | RedactedURL):
        return value
    if _BY_NAME[name].secret:
        return Secret(value)
    return RedactedURL(value) if name == "base_url" and isinstance(value, str) else value


#: What to do about a refused cache dir: the last sentence of every refusal of one.
SET_CACHE_DIR = ("Set ICOFRAMES_CACHE_DIR or icoframes.configure(cache_dir=...) to a folder of "
                 "your own.")


def _user_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("icoframes"))


SETTINGS: tuple[Setting, ...] = (
    Setting("base_url", "str | None", readers.url, None, "none",
            'Service address without the ``/api/v1`` suffix, e.g. ``"http://127.0.0.1:8000"``.'),
    Setting("public_key", "str | None", readers.public_key, None, "none",
            "The public key issued by the service."),
    Setting("private_key", "Secret | None", readers.private_key, None, "none",
            "The private key issued by the service, held in a ``Secret``; it only signs "
            "requests.", secret=True, accepts="str | Secret"),
    Setting("cache_dir", "Path", absolute_folder, _user_cache_dir,
            "the platform's user cache dir for icoframes",
            "Where the cache lives (made absolute when read).", accepts="str | os.PathLike[str]"),
    Setting("service_name", "str | None", readers.service_name, None, "none",
            "A name for the service's cache folder and request ledger, used instead of its "
            "address; the sandbox sets one from its content, so that its random port does not "
            "matter. ``configure(base_url=...)`` without it drops it."),
    Setting("max_workers", "int", readers.integer(1, MAX_WORKERS), 8, "8",
            "Concurrent requests used by loaders (1 to 64)."),
    Setting("timeout", "float", readers.seconds, 30.0, "30",
            "Seconds one request may take in all, response body included (at most a day)."),
    Setting("daily_quota", "int", readers.integer(1, INT64_MAX), 5000, "5000",  # SQLite's
            "Requests allowed per key per UTC day (the service's limit is 5000); a hard "
            "cap: no request is sent beyond it."),
    Setting("quota_reset", "datetime.time | None", readers.time_of_day, None, "none (unknown)",
            "The UTC time of day at which the service's daily count resets, if you know it "
            "(``'HH:MM'``): the ``daily_quota`` count then starts again at that time, and "
            "after an error 485 no request is sent before it. Unknown (the spec does not say "
            "it): the count starts at 00:00 UTC, and after a 485 each call sends one probe "
            "request.", accepts="str | datetime.time"),
    Setting("max_response_bytes", "int", readers.response_bytes, 4 * 1024 * 1024,
            "4194304 (4 MiB)", "Largest response body accepted, raw and decompressed alike "
            "(bytes, at least 1024)."),
)
"""Every setting, once: the source of everything else in this module."""

_BY_NAME = {s.name: s for s in SETTINGS}

#: ``ICOFRAMES_*`` variables that are no setting (none: the sandbox command reads its keys
#: from the key settings' own). Every other ``ICOFRAMES_*`` name is refused when settings
#: are read: a misspelled one would be ignored, and a cron job sets everything by variables.
OTHER_VARIABLES: tuple[str, ...] = ()
#: Every ``ICOFRAMES_*`` environment variable icoframes reads.
ENV_VARIABLES: tuple[str, ...] = (*(s.env for s in SETTINGS), *OTHER_VARIABLES)
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _default(name: str) -> Any:
    """The dataclass field of setting ``name``: its default (or default factory) from SETTINGS."""
    setting, repr_ = _BY_NAME[name], not _BY_NAME[name].secret
    if callable(setting.default):
        return field(default_factory=setting.default, repr=repr_)
    return field(default=setting.default, repr=repr_)


@checked_methods
@dataclass(frozen=True, repr=False)
class Settings:
    """Resolved settings. Build with :func:`get_settings`; the private key never shows.

    Attributes
    ----------
    base_url : str or None
        Service address without the ``/api/v1`` suffix (a password in it shows
        as ``<hidden>`` in the repr, and a pickle carries it so).
    public_key : str or None
        The public key issued by the service.
    private_key : Secret or None
        The private key, as a :class:`~icoframes.secret.Secret`: it shows as
        ``<hidden>``, and only the request signer reads it.
    cache_dir : pathlib.Path
        Where the cache lives.
    service_name : str or None
        A name for the service's cache folder and ledger instead of its address.
    max_workers : int
        Concurrent requests used by loaders.
    timeout : float
        Seconds one request may take in all.
    daily_quota : int
        Requests allowed per key per UTC day.
    quota_reset : datetime.time or None
        The UTC time of day the service's daily count resets, when known.
    max_response_bytes : int
        Largest response body accepted (bytes).
    """

    base_url: str | None = _default("base_url")
    public_key: str | None = _default("public_key")
    private_key: Secret | None = _default("private_key")
    cache_dir: Path = _default("cache_dir")
    service_name: str | None = _default("service_name")
    max_workers: int = _default("max_workers")
    timeout: float = _default("timeout")
    daily_quota: int = _default("daily_quota")
    quota_reset: datetime.time | None = _default("quota_reset")
    max_response_bytes: int = _default("max_response_bytes")

    def __repr__(self) -> str:
        shown = (f"{f.name}={redact_url(v) if isinstance(v, str) else v!r}"
                 for f in fields(self) if f.repr for v in [getattr(self, f.name)])
        return f"Settings({', '.join(shown)})"

    def require_credentials(self) -> Settings:
        """Return self, or raise :class:`ConfigError` saying how to set what is missing."""
        return self._require("base_url", "public_key", "private_key")

    def require_base_url(self) -> Settings:
        """Return self, or raise :class:`ConfigError` saying how to set ``base_url``: what
        the cache functions need (the service's folder is named after it), no key."""
        return self._require("base_url")

    def _require(self, *needed: str) -> Settings:
        missing = [name for name in needed if not getattr(self, name)]
        if missing:
            env = ", ".join(_BY_NAME[name].env for name in missing)
            call = (", or call icoframes.configure(base_url=...)" if needed == ("base_url",) else
                    ", or call icoframes.configure(base_url=..., public_key=..., private_key=...)")
            raise ConfigError(
                f"icoframes is missing {', '.join(missing)}. Set {env} in the environment"
                f"{call}. "
                "To try the package without keys, run the bundled sandbox: "
                "`sb = icoframes.sandbox.start(); icoframes.configure(**sb.settings())` "
                "or, from a shell, `icoframes sandbox --port 8000`."
            )
        return self

    @property
    def service_id(self) -> str | None:
        """The service's identity in the cache dir: its ``service_name``, else its ``base_url``."""
        return self.service_name or self.base_url


_lock = threading.Lock()
_overrides: dict[str, Any] = {}


def configure(*, base_url: str | None = unchanged, public_key: str | None = unchanged,
              private_key: str | Secret | None = unchanged,
              cache_dir: str | os.PathLike[str] | None = unchanged,
              service_name: str | None = unchanged, max_workers: int | None = unchanged,
              timeout: float | None = unchanged, daily_quota: int | None = unchanged,
              quota_reset: str | datetime.time | None = unchanged,
              max_response_bytes: int | None = unchanged, **misspelled: Never) -> Settings:
    # (docstring made from SETTINGS below) first: no frame holds the key or a password in clear
    private_key, base_url = hide("private_key", private_key), hide("base_url", base_url)
    unknown = list(misspelled)  # names only: a misspelled private key stays out of locals
    del misspelled
    if unknown:
        raise _unknown(unknown[0])
    given = {"base_url": base_url, "public_key": public_key, "private_key": private_key,
             "cache_dir": cache_dir, "service_name": service_name, "max_workers": max_workers,
             "timeout": timeout, "daily_quota": daily_quota, "quota_reset": quota_reset,
             "max_response_bytes": max_response_bytes}
    changes = {k: v for k, v in given.items() if v is not unchanged}
    if "base_url" in changes and "service_name" not in changes:
        # a name belongs to the address it came with (a sandbox's): a new address
        # without one must not inherit it, or two services would share one cache
        changes["service_name"] = None
    checked, refusal = checked_settings({k: v for k, v in changes.items() if v is not None})
    with _lock:  # refused before any change: the configuration stays as it was
        kept = {k: v for k, v in _overrides.items() if k not in changes} | checked
        # a value, else a variable's name, else the pair (the variables': get_settings says so)
        refusal = refusal or _variables_refused(set(_overrides) - set(changes) | set(checked)) \
            or (set(_KEYS) & set(changes) and _same_key(kept, kept, InvalidParameter)) or None
        if refusal:
            del public_key, given, changes, checked, kept  # (a traceback's locals show them)
            raise refusal
        for name, value in changes.items():
            if value is None:
                _overrides.pop(name, None)
        _overrides.update(checked)
    return get_settings()


configure.__doc__ = """Set package-wide settings for this process; they beat environment variables.

Only the arguments given change (the rest are ``unchanged``); pass ``None`` to
drop an override and fall back to the environment variable or default again.

Parameters
----------
{parameters}
Returns
-------
Settings
    The settings now in force.

Raises
------
InvalidParameter
    If a value has the wrong type or range, or a setting name is unknown
    (with a suggestion). A bad environment variable raises ConfigError.

Examples
--------
>>> import icoframes
>>> icoframes.configure(max_workers=4).max_workers
4
>>> _ = icoframes.configure(max_workers=None)
""".format(parameters="".join(
    f"{s.name} : {s.accepts or s.type}, optional\n    {s.doc} Environment: ``{s.env}``; "
    f"default: {s.shown}.\n" for s in SETTINGS))


@checked_keywords
def reset_configuration() -> None:
    """Forget the :func:`configure` overrides and the folder a relative cache dir variable
    named; close the cache's idle databases (``AT_RESET``)."""
    with _lock:
        _overrides.clear()
        forget_pinned()
    for run in AT_RESET:
        run()


def get_settings(**overrides: Any) -> Settings:
    """Resolve settings: keyword overrides > :func:`configure` > env vars > defaults.

    Examples
    --------
    >>> get_settings(max_workers=2).max_workers
    2
    """
    # first: the private key wrapped, and a misspelled name's value out of this frame
    overrides = {k: hide(k, v) if k in _BY_NAME else None for k, v in overrides.items()}
    if unknown := [name for name in overrides if name not in _BY_NAME]:
        raise _unknown(unknown[0])
    values, refusal = _environment()
    with _lock:  # an empty variable is refused where it decides: no override gives its setting
        configured = {*_overrides, *(k for k, v in overrides.items() if v is not None)}
        refusal = refusal or _variables_refused(configured)
        values.update(_overrides)
    read, refused = checked_settings({k: v for k, v in overrides.items() if v is not None})
    values.update(read)
    if refusal := refusal or refused or _same_key(
            values, configured, InvalidParameter if configured >= {*_KEYS} else ConfigError):
        del values, overrides, read  # a key's text: in no local of the traceback
        raise refusal
    return replace(Settings(), **values)


def _environment() -> tuple[dict[str, Any], Exception | None]:
    """The settings the environment variables set, checked (:func:`checked_settings`)."""
    given = {s.name: hide(s.name, env) for s in SETTINGS
             if (env := os.environ.get(s.env))}  # set empty: given, or refused
    values, refusal = checked_settings(given, variables=True)
    return {k: pinned_folder(k, given[k], v) for k, v in values.items()}, refusal


def checked_settings(values: dict[str, Any], *, variables: bool = False,
                     ) -> tuple[dict[str, Any], Exception | None]:
    """``values`` read, each by its setting's :meth:`~icoframes.readers.Setting.check`
    (``variables``: as read from their ``ICOFRAMES_*`` variables), and None; else those read
    before the first refused, and its refusal.

    The refusal is returned, not raised, as :func:`readers.same_key`'s is, and without the
    frames that held the value (the check's, its reader's, the error it replaced): its caller
    raises it once no local of its own holds the value either (a traceback's locals:
    ``capture_locals``, ``pytest --showlocals``). A public key refused may be the private
    key's text."""
    read: dict[str, Any] = {}
    for name, value in values.items():
        try:
            read[name] = _BY_NAME[name].check(value, source=_BY_NAME[name].env if variables
                                              else None)
        except (ConfigError, InvalidParameter) as exc:
            if exc.__suppress_context__:  # (from None: never shown, yet a traceback walks it)
                exc.__context__ = None
            return read, exc.with_traceback(None)
    return read, None


_KEYS = ("public_key", "private_key")


def _same_key(values: dict[str, Any], configured: set[str] | dict[str, Any],
              error: type[Exception]) -> Exception | None:
    """``error`` when the public key is the private key's text (:func:`readers.same_key`),
    before any request: each from ``values``, else its variable, named by where it came from."""
    pair = [values[k] if k in values else hide(k, os.environ.get(_BY_NAME[k].env)) for k in _KEYS]
    return readers.same_key(*pair, said=[k if k in configured else _BY_NAME[k].env
                                         for k in _KEYS], error=error)


def _unknown(name: str) -> InvalidParameter:
    meant = readers.setting_meant(name, _BY_NAME)
    hint = f"; did you mean {meant!r}?" if meant else f"; settings: {', '.join(_BY_NAME)}"
    return InvalidParameter(f"unknown setting {name!r}{hint}")


def _variables_refused(given: set[str]) -> ConfigError | None:
    """The ConfigError naming each ``ICOFRAMES_*`` variable of the environment (in any case) that
    is not in :data:`ENV_VARIABLES`, with the one it most likely means; names only, never a
    value (``ICOFRAMES_PRIVATEKEY`` holds a key). Or one set empty, its setting not ``given``
    (by configure(), the call): cron's ``export ICOFRAMES_CACHE_DIR=$DIR``, DIR unset."""
    if empty := [s for s in SETTINGS if os.environ.get(s.env) == "" and s.name not in given]:
        env, was = empty[0].env, ("unset" if empty[0].default is None else empty[0].shown)
        return ConfigError(f"{env} is set but empty: refused, not taken for unset ({empty[0].name}"
                           f" would be {was}, without a word). Give it a value, or unset it (`unset"
                           f" {env}` in the shell or cron's file; `del os.environ[{env!r}]`).")
    unknown = sorted(name for name in os.environ
                     if name.upper().startswith(ENV_PREFIX) and name not in ENV_VARIABLES)
    if not unknown:
        return None
    said = []
    for name in unknown:
        meant = readers.setting_meant(name.upper().removeprefix(ENV_PREFIX).lower(),
                                      _BY_NAME)
        shown = name if _PLAIN_NAME.fullmatch(name) else quoted(name)
        said.append(f"{shown} (did you mean {_BY_NAME[meant].env}?)" if meant else shown)
    first = unknown[0] if _PLAIN_NAME.fullmatch(unknown[0]) else "NAME"
    return ConfigError(
        f"unknown environment variable{'s' * (len(unknown) > 1)} {', '.join(said)}: icoframes "
        "reads no such variable, so its value would be ignored. Rename or unset each "
        f"(`unset {first}` in the shell or the file cron reads; `del os.environ[{first!r}]` "
        f"in Python). icoframes reads {', '.join(ENV_VARIABLES)}.")


__doc__ = __doc__.format(table=rst_table([("setting", "environment variable", "default"),
                                          *((s.name, s.env, s.shown) for s in SETTINGS)]))


def _check_declarations() -> None:
    """Settings and configure() written out agree with SETTINGS: names, types and defaults."""
    names = [s.name for s in SETTINGS]
    params = inspect.signature(configure).parameters
    wrong = [s.name for s, f in zip(SETTINGS, fields(Settings), strict=False)
             if f.name != s.name or f.type != s.type]
    if [f.name for f in fields(Settings)] != names or wrong:  # pragma: no cover
        raise ImportError(f"Settings fields differ from SETTINGS: {wrong or names}")
    if [p for p in params if params[p].kind is inspect.Parameter.KEYWORD_ONLY] != names:
        raise ImportError("configure() parameters differ from SETTINGS")  # pragma: no cover
    if wrong := [s.name for s in SETTINGS  # pragma: no cover
                 if params[s.name].annotation != (s.accepts or s.type).removesuffix(" | None")
                 + " | None" or params[s.name].default is not unchanged]:
        raise ImportError(f"configure() annotations differ from SETTINGS: {wrong}")


_check_declarations()

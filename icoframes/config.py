"""Settings: arguments to :func:`configure` > ``ICOFRAMES_*`` env vars > defaults.

Every setting is one row of :data:`SETTINGS`; the :class:`Settings` fields,
:func:`configure`'s parameters, the environment variables read, the checks and
the table below are all made from those rows. To add a setting, add a row.

{table}

The private key is kept out of every repr, log line and error message.
"""

from __future__ import annotations

import datetime as dt
import difflib
import inspect
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, make_dataclass, replace
from pathlib import Path
from typing import Any

import platformdirs

from .errors import ConfigError, InvalidParameter

__all__ = ["SETTINGS", "Setting", "Settings", "configure", "get_settings",
           "reset_configuration", "unchanged"]

_ENV_PREFIX = "ICOFRAMES_"
_HIDDEN = "<hidden>"


class _Unchanged:
    """The default of every :func:`configure` parameter: leave that setting as it is."""

    def __repr__(self) -> str:
        return "unchanged"


unchanged: Any = _Unchanged()
"""Sentinel: a :func:`configure` argument left out keeps its current value."""


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
        return _ENV_PREFIX + self.name.upper()

    def check(self, value: Any, *, source: str | None = None) -> Any:
        """``value`` read and checked, or an error naming where it came from.

        A bad argument (``configure``, a loader's ``max_workers``) raises
        :class:`InvalidParameter`, as every bad argument does; a bad environment
        variable (``source``) raises :class:`ConfigError`.
        """
        try:
            return self.read(value)
        except (TypeError, ValueError) as exc:
            shown = _HIDDEN if self.secret else repr(value)
            error = ConfigError if source else InvalidParameter
            raise error(f"invalid {source or self.name}={shown}: {exc}") from None


# readers: each returns the value in the setting's type or raises ValueError ----

def _url(value: Any) -> str:
    url = str(value).strip().rstrip("/")
    url = url.removesuffix("/api/v1")
    if not url.startswith(("http://", "https://")):
        raise ValueError("must start with http:// or https://")
    return url


def _key(*, ascii_only: bool) -> Callable[[Any], str]:
    def read(value: Any) -> str:
        if not isinstance(value, str):
            raise ValueError("must be a string")
        value = value.strip()  # keys read from a file keep their newline
        if not value or not value.isprintable():
            raise ValueError("must be a non-empty string without control characters")
        if ascii_only and not value.isascii():
            raise ValueError("must be ASCII (it travels in an HTTP header)")
        return value
    return read


def _path(value: Any) -> Path:
    return Path(value).expanduser()


def _int(low: int, high: int | None = None) -> Callable[[Any], int]:
    def read(value: Any) -> int:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError("must be an integer")
        number = int(value)
        if number < low or (high is not None and number > high):
            raise ValueError(f"must be between {low} and {high}" if high is not None
                             else "must be a positive integer")
        return number
    return read


def _seconds(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("must be a number of seconds")
    seconds = float(value)
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError("must be positive and finite")
    return seconds


# a service name becomes a folder of the cache dir: one plain path segment, never the
# request ledgers' folder ("quota", see icoframes.store.housekeeping.LEDGER_FOLDER)
_SERVICE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_RESERVED_NAMES = frozenset({"quota"})


def _service_name(value: Any) -> str:
    if not isinstance(value, str) or not _SERVICE_NAME.fullmatch(value.strip()):
        raise ValueError("must be 1 to 100 letters, digits, '.', '_' or '-', starting with a "
                         "letter or digit")
    if value.strip().lower() in _RESERVED_NAMES:
        raise ValueError("is reserved (the request ledgers' folder)")
    return value.strip()


def _time_of_day(value: Any) -> dt.time:
    if isinstance(value, dt.time):
        if value.tzinfo is not None and value.utcoffset() != dt.timedelta(0):
            raise ValueError("must be a UTC time of day")
        return value.replace(tzinfo=None, second=0, microsecond=0)
    match = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*(?:UTC|Z)?\s*", str(value), re.IGNORECASE)
    if match is None or int(match[1]) > 23 or int(match[2]) > 59:
        raise ValueError("must be a UTC time of day as 'HH:MM' (e.g. '06:00') or a datetime.time")
    return dt.time(int(match[1]), int(match[2]))


def _user_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("icoframes"))


SETTINGS: tuple[Setting, ...] = (
    Setting("base_url", "str | None", _url, None, "none",
            'Service address without the ``/api/v1`` suffix, e.g. ``"http://127.0.0.1:8000"``.'),
    Setting("public_key", "str | None", _key(ascii_only=True), None, "none",
            "The public key issued by the service."),
    Setting("private_key", "str | None", _key(ascii_only=False), None, "none",
            "The private key issued by the service; it only signs requests.", secret=True),
    Setting("cache_dir", "Path", _path, _user_cache_dir,
            "the platform's user cache dir for icoframes",
            "Where the Parquet cache lives.", accepts="str | os.PathLike[str]"),
    Setting("service_name", "str | None", _service_name, None, "none",
            "A name for the service's cache folder and request ledger, used instead of its "
            "address; the sandbox sets one from its content, so that its random port does not "
            "matter. ``configure(base_url=...)`` without it drops it."),
    Setting("max_workers", "int", _int(1, 64), 8, "8",
            "Concurrent requests used by loaders (1 to 64)."),
    Setting("timeout", "float", _seconds, 30.0, "30",
            "Seconds one request may take in all, response body included."),
    Setting("daily_quota", "int", _int(1), 5000, "5000",
            "Requests allowed per key per UTC day (the service's limit is 5000); a hard "
            "cap: no request is sent beyond it."),
    Setting("quota_reset", "datetime.time | None", _time_of_day, None, "none (unknown)",
            "The UTC time of day at which the service's daily count resets, if you know it "
            "(``'HH:MM'``): the ``daily_quota`` count then starts again at that time, and "
            "after an error 485 no request is sent before it. Unknown (the spec does not say "
            "it): the count starts at 00:00 UTC, and after a 485 each call sends one probe "
            "request.", accepts="str | datetime.time"),
    Setting("max_response_bytes", "int", _int(1024), 4 * 1024 * 1024, "4194304 (4 MiB)",
            "Largest response body accepted, raw and decompressed alike (bytes)."),
)
"""Every setting, once: the source of everything else in this module."""

_BY_NAME = {s.name: s for s in SETTINGS}


def _require_credentials(self: Any) -> Any:
    """Return self, or raise :class:`ConfigError` saying how to set what is missing."""
    missing = [name for name in ("base_url", "public_key", "private_key")
               if not getattr(self, name)]
    if missing:
        env = ", ".join(_BY_NAME[name].env for name in missing)
        raise ConfigError(
            f"icoframes is missing {', '.join(missing)}. Set {env} in the environment, "
            "or call icoframes.configure(base_url=..., public_key=..., private_key=...). "
            "To try the package without keys, run the bundled sandbox: "
            "`sb = icoframes.sandbox.start(); icoframes.configure(**sb.settings())` "
            "or, from a shell, `icoframes sandbox --port 8000`."
        )
    return self


def _service_id(self: Any) -> str | None:
    """The service's identity in the cache dir: its ``service_name``, else its ``base_url``."""
    return self.service_name or self.base_url


def _field(setting: Setting) -> Any:
    if callable(setting.default):
        return field(default_factory=setting.default, repr=not setting.secret)
    return field(default=setting.default, repr=not setting.secret)


Settings = make_dataclass(
    "Settings",
    [(s.name, s.type, _field(s)) for s in SETTINGS],
    namespace={"require_credentials": _require_credentials,
               "service_id": property(_service_id)},
    frozen=True,
)
Settings.__module__ = __name__  # make_dataclass(module=) needs Python 3.12
Settings.__doc__ = (
    "Resolved settings. Build with :func:`get_settings`; the private key never shows in repr.\n\n"
    "Attributes\n----------\n"
    + "".join(f"{s.name} : {s.type}\n    {s.doc}\n" for s in SETTINGS)
)

_lock = threading.Lock()
_overrides: dict[str, Any] = {}


def configure(**changes: Any) -> Any:
    # the signature and docstring are made from SETTINGS just below
    unknown = [name for name in changes if name not in _BY_NAME]
    if unknown:
        raise _unknown(unknown[0])
    changes = {k: v for k, v in changes.items() if v is not unchanged}
    if "base_url" in changes and "service_name" not in changes:
        # a name belongs to the address it came with (a sandbox's): a new address
        # without one must not inherit it, or two services would share one cache
        changes["service_name"] = None
    checked = {k: _BY_NAME[k].check(v) for k, v in changes.items() if v is not None}
    with _lock:
        for name, value in changes.items():
            if value is None:
                _overrides.pop(name, None)
        _overrides.update(checked)
    return get_settings()


configure.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter(s.name, inspect.Parameter.KEYWORD_ONLY, default=unchanged,
                       annotation=(s.accepts or s.type).removesuffix(" | None") + " | None")
     for s in SETTINGS],
    return_annotation="Settings",
)
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
>>> s = icoframes.configure(max_workers=4)
>>> s.max_workers
4
>>> _ = icoframes.configure(max_workers=None)
""".format(parameters="".join(
    f"{s.name} : {s.accepts or s.type}, optional\n    {s.doc} Environment: ``{s.env}``; "
    f"default: {s.shown}.\n" for s in SETTINGS))


def reset_configuration() -> None:
    """Forget every :func:`configure` override (env vars and defaults apply again)."""
    with _lock:
        _overrides.clear()


def get_settings(**overrides: Any) -> Any:
    """Resolve settings: keyword overrides > :func:`configure` > env vars > defaults.

    Examples
    --------
    >>> get_settings(max_workers=2).max_workers
    2
    """
    unknown = [name for name in overrides if name not in _BY_NAME]
    if unknown:
        raise _unknown(unknown[0])
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        env = os.environ.get(setting.env)
        if env not in (None, ""):
            values[setting.name] = setting.check(env, source=setting.env)
    with _lock:
        values.update(_overrides)
    values.update({k: _BY_NAME[k].check(v) for k, v in overrides.items() if v is not None})
    return replace(Settings(), **values)


def _unknown(name: str) -> InvalidParameter:
    close = difflib.get_close_matches(name, list(_BY_NAME), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else f"; settings: {', '.join(_BY_NAME)}"
    return InvalidParameter(f"unknown setting {name!r}{hint}")


def _rst_table() -> str:
    rows = [("setting", "environment variable", "default")]
    rows += [(s.name, s.env, s.shown) for s in SETTINGS]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    rule = "  ".join("=" * w for w in widths)
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    return "\n".join([rule, lines[0], rule, *lines[1:], rule])


__doc__ = __doc__.format(table=_rst_table())

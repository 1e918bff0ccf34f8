"""Settings: arguments to :func:`configure` > ``ICOFRAMES_*`` env vars > defaults.

=================  ========================  ==========================================
setting            environment variable      default
=================  ========================  ==========================================
base_url           ICOFRAMES_BASE_URL        none (start the sandbox, or set it)
public_key         ICOFRAMES_PUBLIC_KEY      none
private_key        ICOFRAMES_PRIVATE_KEY     none
cache_dir          ICOFRAMES_CACHE_DIR       platformdirs user cache dir of ``icoframes``
max_workers        ICOFRAMES_MAX_WORKERS     8
timeout            ICOFRAMES_TIMEOUT         30 (seconds per request)
daily_quota        ICOFRAMES_DAILY_QUOTA     5000 (requests per key per UTC day)
=================  ========================  ==========================================

The private key is kept out of every repr, log line and error message.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import platformdirs

from .errors import ConfigError

__all__ = ["Settings", "configure", "get_settings", "reset_configuration"]

_ENV_PREFIX = "ICOFRAMES_"
_UNSET: Any = object()


@dataclass(frozen=True)
class Settings:
    """Resolved settings. Build with :func:`get_settings`; the private key never shows in repr."""

    base_url: str | None = None
    public_key: str | None = None
    private_key: str | None = field(default=None, repr=False)
    cache_dir: Path = field(default_factory=lambda: Path(platformdirs.user_cache_dir("icoframes")))
    max_workers: int = 8
    timeout: float = 30.0
    daily_quota: int = 5000

    def require_credentials(self) -> Settings:
        """Return self, or raise :class:`ConfigError` saying how to set what is missing."""
        missing = [
            name
            for name in ("base_url", "public_key", "private_key")
            if not getattr(self, name)
        ]
        if missing:
            env = ", ".join(_ENV_PREFIX + name.upper() for name in missing)
            raise ConfigError(
                f"icoframes is missing {', '.join(missing)}. Set {env} in the environment, "
                "or call icoframes.configure(base_url=..., public_key=..., private_key=...). "
                "To try the package without keys, run the bundled sandbox: "
                "`sb = icoframes.sandbox.start(); icoframes.configure(**sb.settings())` "
                "or, from a shell, `icoframes sandbox --port 8000`."
            )
        return self


_lock = threading.Lock()
_overrides: dict[str, Any] = {}


def configure(
    *,
    base_url: str | None = _UNSET,
    public_key: str | None = _UNSET,
    private_key: str | None = _UNSET,
    cache_dir: str | os.PathLike[str] | None = _UNSET,
    max_workers: int | None = _UNSET,
    timeout: float | None = _UNSET,
    daily_quota: int | None = _UNSET,
) -> Settings:
    """Set package-wide settings for this process; they beat environment variables.

    Only the arguments given change; pass ``None`` to drop an override and fall
    back to the environment variable or default again.

    Parameters
    ----------
    base_url : str, optional
        Service address without the ``/api/v1`` suffix, e.g. ``"http://127.0.0.1:8000"``.
    public_key, private_key : str, optional
        The key pair issued by the service.
    cache_dir : path-like, optional
        Where the Parquet cache lives.
    max_workers : int, optional
        Concurrent requests used by loaders.
    timeout : float, optional
        Seconds to wait for one response.
    daily_quota : int, optional
        Requests allowed per key per UTC day (the service's limit is 5000).

    Returns
    -------
    Settings
        The settings now in force.

    Raises
    ------
    ConfigError
        If a value has the wrong type or range.

    Examples
    --------
    >>> import icoframes
    >>> s = icoframes.configure(max_workers=4)
    >>> s.max_workers
    4
    >>> _ = icoframes.configure(max_workers=None)
    """
    given = {
        "base_url": base_url,
        "public_key": public_key,
        "private_key": private_key,
        "cache_dir": cache_dir,
        "max_workers": max_workers,
        "timeout": timeout,
        "daily_quota": daily_quota,
    }
    checked = {k: _check(k, v) for k, v in given.items() if v is not _UNSET and v is not None}
    with _lock:
        for key, value in given.items():
            if value is None:
                _overrides.pop(key, None)
        _overrides.update(checked)
    return get_settings()


def reset_configuration() -> None:
    """Forget every :func:`configure` override (env vars and defaults apply again)."""
    with _lock:
        _overrides.clear()


def get_settings(**overrides: Any) -> Settings:
    """Resolve settings: keyword overrides > :func:`configure` > env vars > defaults."""
    values: dict[str, Any] = {}
    for f in fields(Settings):
        env = os.environ.get(_ENV_PREFIX + f.name.upper())
        if env not in (None, ""):
            values[f.name] = _check(f.name, env, source=_ENV_PREFIX + f.name.upper())
    with _lock:
        values.update(_overrides)
    values.update({k: _check(k, v) for k, v in overrides.items() if v is not None})
    return replace(Settings(), **values)


def _check(name: str, value: Any, *, source: str | None = None) -> Any:
    where = source or name
    try:
        if name == "base_url":
            value = str(value).strip().rstrip("/")
            if value.endswith("/api/v1"):
                value = value[: -len("/api/v1")]
            if not value.startswith(("http://", "https://")):
                raise ValueError("must start with http:// or https://")
            return value
        if name in ("public_key", "private_key"):
            if not isinstance(value, str):
                raise ValueError("must be a string")
            value = value.strip()  # keys read from a file keep their newline
            if not value or not value.isprintable():
                raise ValueError("must be a non-empty string without control characters")
            if name == "public_key" and not value.isascii():
                raise ValueError("must be ASCII (it travels in an HTTP header)")
            return value
        if name == "cache_dir":
            return Path(value).expanduser()
        if name == "max_workers":
            number = int(value)
            if number < 1 or number > 64:
                raise ValueError("must be between 1 and 64")
            return number
        if name == "daily_quota":
            number = int(value)
            if number < 1:
                raise ValueError("must be a positive integer")
            return number
        if name == "timeout":
            seconds = float(value)
            if not seconds > 0:
                raise ValueError("must be positive")
            return seconds
    except (TypeError, ValueError) as exc:
        shown = "<hidden>" if name == "private_key" else repr(value)
        raise ConfigError(f"invalid {where}={shown}: {exc}") from None
    raise ConfigError(f"unknown setting {name!r}")

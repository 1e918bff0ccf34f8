"""icoframes: an ICO directory API as clean, typed pandas DataFrames."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from .config import Settings, configure, get_settings, reset_configuration
from .errors import (
    APIError,
    AuthError,
    ConfigError,
    IcoframesError,
    InvalidParameter,
    NotCached,
    NotFound,
    QuotaExceeded,
    ServiceUnavailable,
)

try:
    __version__ = version("icoframes")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"

__all__ = [
    "APIError",
    "AuthError",
    "ConfigError",
    "IcoframesError",
    "InvalidParameter",
    "NotCached",
    "NotFound",
    "QuotaExceeded",
    "ServiceUnavailable",
    "Settings",
    "__version__",
    "configure",
    "get_settings",
    "reset_configuration",
]

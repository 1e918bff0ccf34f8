"""icoframes: an ICO directory API as clean, typed pandas DataFrames and Parquet exports.

>>> import icoframes
>>> sb = icoframes.sandbox.start(n_icos=50)          # or real keys via ICOFRAMES_* env vars
>>> _ = icoframes.configure(**sb.settings(), cache_dir=__import__("tempfile").mkdtemp())
>>> icos = icoframes.load_icos(status="past", progress=False)
>>> int(icos["id"].is_unique)
1
>>> sb.stop(); icoframes.reset_configuration()
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from . import sandbox
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
from .export import export_tables
from .loaders import (
    QuotaWarning,
    cache_info,
    clear_cache,
    load_filters,
    load_icos,
    load_list,
    load_tables,
)
from .plots import format_usd, plot_raised, plot_scores, plot_timeline
from .tables import Tables
from .tidy import tidy

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
    "QuotaWarning",
    "ServiceUnavailable",
    "Settings",
    "Tables",
    "__version__",
    "cache_info",
    "clear_cache",
    "configure",
    "export_tables",
    "format_usd",
    "get_settings",
    "load_filters",
    "load_icos",
    "load_list",
    "load_tables",
    "plot_raised",
    "plot_scores",
    "plot_timeline",
    "reset_configuration",
    "sandbox",
    "tidy",
]

"""icoframes: an ICO directory API as clean, typed pandas DataFrames and Parquet exports.

>>> import icoframes
>>> sb = icoframes.sandbox.start(n_icos=50)          # or real keys via ICOFRAMES_* env vars
>>> _ = icoframes.configure(**sb.settings(), cache_dir=__import__("tempfile").mkdtemp())
>>> icos = icoframes.load_icos(status="past", progress=False)
>>> int(icos["id"].is_unique)
1
>>> sb.stop(); icoframes.reset_configuration()

Only the public API is here. The sandbox (an HTTP server) and the plot helpers
(matplotlib) are imported on first use, so ``import icoframes`` stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import features
from ._version import __version__
from .ages import Age
from .api.params import ListFilters, SortKey, Status
from .cachedir.housekeeping import CacheDirInfo, CacheInfo, CacheReport
from .config import Settings, configure, get_settings, reset_configuration
from .errors import (
    APIError,
    AuthError,
    BadResponse,
    CacheError,
    CacheWarning,
    ClockBehind,
    ConfigError,
    DiskFull,
    EmptyResult,
    ExportBusy,
    ExportMismatch,
    ExportNotFound,
    ExportReplaced,
    IcoframesError,
    IcoframesWarning,
    IncompleteWarning,
    InvalidParameter,
    MissingProfileWarning,
    NoMatchWarning,
    NotCached,
    NotFound,
    QuotaExceeded,
    QuotaWarning,
    Redirected,
    ServiceUnavailable,
    StaleWarning,
    UnknownMethod,
    UnknownName,
    WrongType,
)
from .export import ExportResult, export_tables
from .features import compute_features, describe_features
from .frozen import thawed
from .history import changes, read_export, read_snapshots
from .loaders import (
    cache_info,
    clear_cache,
    load_filters,
    load_icos,
    load_list,
    load_tables,
    prune_cache,
)
from .money import to_usd
from .parse.profiles import tidy
from .reporting import LoadReport, report
from .schema import describe
from .tables import Tables

if TYPE_CHECKING:  # a type checker reads what __getattr__ returns from here (else: Any)
    from . import sandbox
    from .plotting import (
        format_usd,
        plot_raised,
        plot_raised_vs_cap,
        plot_scores,
        plot_status_flow,
        plot_timeline,
    )

# name -> module that defines it, imported on first access (PEP 562)
_LAZY = {
    "sandbox": "icoframes.sandbox",
    "format_usd": "icoframes.plotting",
    "plot_raised": "icoframes.plotting",
    "plot_raised_vs_cap": "icoframes.plotting",
    "plot_scores": "icoframes.plotting",
    "plot_status_flow": "icoframes.plotting",
    "plot_timeline": "icoframes.plotting",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'icoframes' has no attribute {name!r}")
    module = importlib.import_module(module_name)
    value = module if module_name.endswith(name) else getattr(module, name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "APIError",
    "Age",
    "AuthError",
    "BadResponse",
    "CacheDirInfo",
    "CacheError",
    "CacheInfo",
    "CacheReport",
    "CacheWarning",
    "ClockBehind",
    "ConfigError",
    "DiskFull",
    "EmptyResult",
    "ExportBusy",
    "ExportMismatch",
    "ExportNotFound",
    "ExportReplaced",
    "ExportResult",
    "IcoframesError",
    "IcoframesWarning",
    "IncompleteWarning",
    "InvalidParameter",
    "ListFilters",
    "LoadReport",
    "MissingProfileWarning",
    "NoMatchWarning",
    "NotCached",
    "NotFound",
    "QuotaExceeded",
    "QuotaWarning",
    "Redirected",
    "ServiceUnavailable",
    "Settings",
    "SortKey",
    "StaleWarning",
    "Status",
    "Tables",
    "UnknownMethod",
    "UnknownName",
    "WrongType",
    "__version__",
    "cache_info",
    "changes",
    "clear_cache",
    "compute_features",
    "configure",
    "describe",
    "describe_features",
    "export_tables",
    "features",
    "format_usd",
    "get_settings",
    "load_filters",
    "load_icos",
    "load_list",
    "load_tables",
    "plot_raised",
    "plot_raised_vs_cap",
    "plot_scores",
    "plot_status_flow",
    "plot_timeline",
    "prune_cache",
    "read_export",
    "read_snapshots",
    "report",
    "reset_configuration",
    "sandbox",
    "thawed",
    "tidy",
    "to_usd",
]

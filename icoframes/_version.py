"""The installed version of icoframes (read from the package metadata once)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:
    __version__ = version("icoframes")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"

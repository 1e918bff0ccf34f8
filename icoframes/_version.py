"""The version of icoframes, declared once.

pyproject.toml reads it (``dynamic = ["version"]``), so the wheel's metadata,
``icoframes.__version__``, ``icoframes --version`` and an export manifest's
``package_version`` all say the same.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"

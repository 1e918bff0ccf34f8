"""A local ICO directory server that speaks the whole API spec, over seeded synthetic data.

>>> from icoframes import sandbox
>>> with sandbox.serve(n_icos=200, seed=0) as sb:
...     settings = sb.settings()     # icoframes.configure(**settings) points the client here
...     sorted(settings)
['base_url', 'private_key', 'public_key']

See :mod:`icoframes.sandbox.server` for the request handling,
:mod:`icoframes.sandbox.directory` for the data (its modules are listed there) and
:mod:`icoframes.sandbox.render` for its messy value shapes.
"""

from __future__ import annotations

from .directory import REFERENCE_DATE, Directory, Record, generate_directory
from .rates import rates  # synthetic daily USD rates matching the directory's amounts
from .server import PAGE_SIZE, Sandbox, SandboxStats, serve, start

__all__ = [
    "PAGE_SIZE",
    "REFERENCE_DATE",
    "Directory",
    "Record",
    "Sandbox",
    "SandboxStats",
    "generate_directory",
    "rates",
    "serve",
    "start",
]

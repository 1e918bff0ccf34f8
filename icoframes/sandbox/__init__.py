"""A local ICO directory server that speaks the whole API spec, over seeded synthetic data.

>>> from icoframes import sandbox
>>> with sandbox.serve(n_icos=200, seed=0) as sb:
...     settings = sb.settings()     # icoframes.configure(**settings) points the client here
...     sorted(settings)
['base_url', 'private_key', 'public_key', 'service_name']

Its modules, each importing only those below it:

- :mod:`.command`: the ``icoframes sandbox`` command line;
- :mod:`.server`: :func:`start` / :func:`serve` and the :class:`Sandbox` they return;
- :mod:`.httpd`: the threaded keep-alive HTTP server, body reading, faults on the wire;
- :mod:`.service`: the API's behaviour: keys and signature, quota, endpoints, error replies;
- :mod:`.directory`: the thread-safe :class:`Directory` and :func:`generate_directory`;
  :mod:`.stats`: the counters of :class:`SandboxStats`;
- :mod:`.query` (filter and sort), :mod:`.render` (a record's messy raw JSON, with
  the table of its value shapes), :mod:`.generate` (seeded realistic records);
- :mod:`.record`: the :class:`Record` dataclass, one ICO's clean truth;
- :mod:`.catalog` (vocabularies, reference date) and :mod:`.draws` (fast seeded draws).
"""

from __future__ import annotations

from .catalog import REFERENCE_DATE
from .directory import Directory, generate_directory
from .rates import rates  # synthetic daily USD rates matching the directory's amounts
from .record import Record
from .server import Sandbox, serve, start
from .service import PAGE_SIZE
from .stats import SandboxStats

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

"""A seeded synthetic ICO directory: clean typed truth plus the messy JSON the API sends.

This module only gathers the public names; each job lives in its own module:

- :mod:`.records`: :class:`Record` (one ICO's clean truth) and the thread-safe
  :class:`Directory` of them;
- :mod:`.generate`: :func:`generate_directory`, the seeded realistic records;
- :mod:`.render`: a record's raw profile (spec 2.3) and list summary (spec 2.2),
  with the table of the messy value shapes they carry;
- :mod:`.query`: filtering and sorting by the list parameters (spec 4.2);
- :mod:`.catalog`: platforms, categories, types, countries, currencies and the
  reference date;
- :mod:`.draws`: the fast seeded draws generation and rendering share.

>>> d = generate_directory(20, seed=3)
>>> isinstance(d, Directory), all(isinstance(r, Record) for r in d)
(True, True)
"""

from __future__ import annotations

from .catalog import CATEGORIES, COUNTRIES, CURRENCIES, PLATFORMS, REFERENCE_DATE, TYPES
from .generate import generate_directory
from .records import Directory, Record

__all__ = [
    "CATEGORIES",
    "COUNTRIES",
    "CURRENCIES",
    "PLATFORMS",
    "REFERENCE_DATE",
    "TYPES",
    "Directory",
    "Record",
    "generate_directory",
]

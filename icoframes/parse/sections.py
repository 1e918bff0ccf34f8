"""The sections a profile answer left out: each a row of ``problems``.

A profile (spec 2.3) is its ``id`` and eight sections (:data:`~icoframes.schema.PROFILE_SECTIONS`).
A section sent empty (``""``, ``[]``, ``null``) is the service saying it holds nothing; a
section whose key is absent was not sent at all (a half-built answer, a proxy cutting it),
so its columns are missing without the service having said so: :func:`absent_sections`
reports each, and a load adds them to the problems of the profiles it kept (an answer that
holds none of the sections is refused before: the response gate). :func:`~.profiles.tidy`
does not: profiles gathered by hand often hold only the sections wanted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from ..schema import PROFILE_SECTIONS
from .problems import Problems
from .rules import parse_id

__all__ = ["absent_sections"]

# The table a section's values go to (its wrong_shape row names the same).
_TABLE: Final = {"roadmap": "roadmap", "team": "team", "advisors": "advisors"}


def absent_sections(profiles: Iterable[Mapping[str, Any]], problems: Problems) -> None:
    """Add to ``problems`` a row per section absent from each profile (its ``table``, the
    section as its ``column``, ``value`` missing, reason ``absent_section``).

    Examples
    --------
    >>> log = Problems()
    >>> absent_sections([{"id": 5, "main": {"name": "A"}, "links": "", "finance": None,
    ...                   "dates": {}, "additional": {}, "roadmap": [], "team": ""}], log)
    >>> log.records()  # doctest: +NORMALIZE_WHITESPACE
    [{'ico_id': 5, 'table': 'advisors', 'column': 'advisors', 'value': None,
      'reason': 'absent_section'}]
    """
    for profile in profiles:
        if not isinstance(profile, Mapping):
            continue  # (no record: tidy reports it)
        ico_id = parse_id(profile.get("id"))
        problems.extend({"ico_id": ico_id, "table": _TABLE.get(name, "icos"), "column": name,
                         "value": None, "reason": "absent_section"}
                        for name in PROFILE_SECTIONS if name not in profile)

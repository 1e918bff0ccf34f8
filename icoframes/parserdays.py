"""Which values :func:`icoframes.changes` compares were read by two parser versions.

Each snapshot's manifest names the parser that read its tables (``parser_version`` and
``parser_fingerprint``: :func:`icoframes.manifest.code_identity`). After an upgrade of
icoframes whose parser reads a value otherwise, the row of a profile fetched again (or of a
list paged again) on the first day the new parser wrote differs from the day before's,
though the service wrote the same text both days. Such an event is no sure change at the
service, nor sure to be none (the service may have changed the value that day too): it is
kept and marked (``parser_changed``), and :func:`warn_parser_changed` names the days and
versions. The same copy read by two parsers is no event at all (:func:`same_copy`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .errors import warn
from .eventvalues import same_values

__all__ = ["PARSER", "parser_of", "parser_said", "same_copy", "two_parsers",
           "warn_parser_changed"]

#: The column each day's rows carry into the comparison: the parser that read them.
PARSER = "_parser"


def parser_of(info: Mapping[str, Any]) -> str | None:
    """The parser that read a snapshot's tables, from its row of ``attrs`` (its manifest's
    ``parser_version`` and ``parser_fingerprint``); None when its manifest does not say.

    Examples
    --------
    >>> parser_of({"parser_version": 31, "parser_fingerprint": "ab12"})
    '31 ab12'
    >>> parser_of({}) is None
    True
    """
    version, fingerprint = info.get("parser_version"), info.get("parser_fingerprint")
    return None if version is None and fingerprint is None else f"{version} {fingerprint}"


def parser_said(parser: str | None, other: str | None) -> str:
    """A :func:`parser_of` as a warning names it beside ``other``: ``parser 31``, with its
    fingerprint when both are of one version (a build whose parser source differs).

    Examples
    --------
    >>> parser_said("31 ab12", "30 cd34"), parser_said("31 ab12", "31 cd34")
    ('parser 31', 'parser 31 ab12')
    """
    if parser is None:
        return "parser not said"
    version, _, fingerprint = parser.partition(" ")
    same = other is not None and other.partition(" ")[0] == version
    return f"parser {version} {fingerprint[:12]}" if same else f"parser {version}"


def same_copy(known: pd.DataFrame, after: pd.DataFrame, ids: pd.Index) -> np.ndarray:
    """Whether each of ``ids`` has the same copy of its profile on both sides (the same
    ``fetched_at``): its values can differ only by the parser that read them."""
    if "fetched_at" not in known.columns or "fetched_at" not in after.columns:
        return np.zeros(len(ids), dtype=bool)
    old, new = known.loc[ids, "fetched_at"], after.loc[ids, "fetched_at"]
    return same_values(old, new) & old.notna().to_numpy()


def two_parsers(known: pd.DataFrame, after: pd.DataFrame, ids: pd.Index) -> np.ndarray:
    """Whether each of ``ids`` was read by two parsers on the two sides (:data:`PARSER`;
    a side whose manifest does not say is not taken for another)."""
    if PARSER not in known.columns or PARSER not in after.columns:
        return np.zeros(len(ids), dtype=bool)
    old, new = known.loc[ids, PARSER], after.loc[ids, PARSER]
    return ~same_values(old, new) & old.notna().to_numpy() & new.notna().to_numpy()


def warn_parser_changed(events: pd.DataFrame, parsers: Mapping[pd.Timestamp, str | None]
                        ) -> None:
    """Warn of the events ``parser_changed`` marks, naming each pair of days and the parser
    of each (``parsers``: by snapshot date)."""
    marked = events[events["parser_changed"]]
    if marked.empty:
        return
    pairs = marked.groupby(["previous_date", "snapshot_date"]).size()
    said = "; ".join(
        f"{n} on {after:%Y-%m-%d} ({parser_said(parsers.get(after), parsers.get(before))}) "
        f"against {before:%Y-%m-%d} ({parser_said(parsers.get(before), parsers.get(after))})"
        for (before, after), n in zip(pairs.index.tolist(), pairs.tolist(), strict=True))
    warn(f"changes: {len(marked)} event(s) compare values read by two parser versions ({said}): "
         "a value the newer parser reads otherwise shows as a change the service did not make "
         "(the service may have changed it too). They are marked in parser_changed; "
         "events[~events['parser_changed']] leaves them out")

"""Warnings of a :func:`~icoframes.read_snapshots` frame whose rows were cut: by a filter of
its rows (:func:`warn_cut_rows`) or by the query its snapshots were exported with
(:func:`query_cut`, :func:`warn_query_cut`): an ICO leaving or entering the rows kept reads
as removed or new, the events of an ICO the service deleted or added.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from .api.params import PARAMS, STATUSES
from .errors import warn
from .quoting import counted
from .snapshotdays import day_infos

__all__ = ["query_cut", "warn_cut_rows", "warn_query_cut"]


def warn_cut_rows(frame: pd.DataFrame, who: str, fix: str, *, undated: int = 0) -> bool:
    """Warn (:class:`~icoframes.errors.IcoframesWarning`) when ``frame`` (its days read by
    :func:`dated_rows`) holds fewer rows of a day than that day's snapshot did (``rows`` in
    ``attrs``): rows cut by a filter, so an ICO leaving or entering the rows kept (its status
    moved, its value crossed the filter's bound) reads as removed or new; ``fix`` says what
    to do instead. A day without a row is :func:`warn_uncounted`'s; rows the frame holds
    without a date (``undated``, left out by :func:`dated_rows`) may be any day's missing
    rows, so only more missing rows than those are a cut. Returns whether it warned."""
    held = frame.groupby("snapshot_date", observed=True).size()
    cut, missing = [], 0
    for info in day_infos(frame):
        rows, day = info.get("rows"), info.get("snapshot_date")
        kept = int(held.get(pd.Timestamp(str(day)), 0)) if day is not None else 0
        if isinstance(rows, int) and 0 < kept < rows:
            cut.append(f"{day}: {kept} of {rows}")
            missing += rows - kept
    if missing > undated:
        warn(f"{who}: the frame holds fewer rows than {counted(len(cut), 'snapshot')} "
             f"held ({', '.join(cut[:3])}{', ...' if len(cut) > 3 else ''}): an ICO that left "
             f"or entered the rows kept (a filter by status or by a value) reads as removed or "
             f"new; {fix}")
    return missing > undated


#: List parameters that select ICOs by a value an ICO may change while listed (not status:
#: it is judged with the statuses the snapshots hold together).
_SELECTING = tuple(p.name for p in PARAMS if p.filter and p.name != "status")


def query_cut(frame: pd.DataFrame, days: Iterable[Any]) -> str | None:
    """The query of the snapshots of ``frame`` of the ``days`` compared (each day's manifest,
    in its ``attrs``), shown, when it selects ICOs that an ICO can leave or enter while the
    service still lists it: a status (or two) of the three, or a filter by a value (score,
    category, a flag...); None when their queries select every ICO (no filter, every status)
    or none is said. A frame cut to some days keeps every day's manifest in ``attrs``: the
    other days' queries say nothing of the events between the days compared."""
    compared = {pd.Timestamp(d).date().isoformat() for d in days}
    queries = {str(q): q for info in day_infos(frame) for q in info.get("queries") or ()
               if isinstance(q, dict) and str(info.get("snapshot_date")) in compared}
    statuses = {q.get("status") for q in queries.values()}
    if not queries or (not any(k in q for q in queries.values() for k in _SELECTING)
                       and (None in statuses or statuses >= set(STATUSES))):
        return None
    return ", ".join(queries)


def warn_query_cut(query: str | None, who: str, kinds: Iterable[str]) -> None:
    """Warn when snapshots of a query that selects ICOs (:func:`query_cut`) give ``new`` or
    ``removed`` events, or ``first_seen`` or ``unseen`` (``kinds``: the kinds of events, as
    :func:`icoframes.changes` names them): an ICO that left the query (a sale that ended,
    among the ongoing) reads as one the service deleted, one that entered it as one it added;
    next to an incomplete snapshot, as the gap's events, never followed by the one that tells."""
    if query is None or not {"new", "removed", "first_seen", "unseen"} & set(kinds):
        return
    warn(f"{who}: the snapshots are of a query that selects ICOs ({query}): an ICO that left it "
         "while the service still lists it (its status moved: a sale that ended leaves the "
         "ongoing ICOs, enters the past ones; a value crossed a filter) reads as removed, one "
         "that entered it as new: the same events as an ICO the service deleted or added "
         "(next to an incomplete snapshot: unseen, first_seen). A "
         "tree exported without that filter (every status) tells them apart")

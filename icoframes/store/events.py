"""What a sequence of fetch events says: the copy of each profile in use and its fetch state.

Pure functions of an Arrow table of events (:data:`icoframes.store.journal.EVENT_SCHEMA`)
given in **append order**: parts in the order of their numbers, then journals in
the order they were started, rows in order within each. Order alone decides
which copy is the latest, never the ``fetched_at`` time, so a clock stepped back
or forward cannot pin an old copy.

Rules:

* A copy is an event in state ``fetched`` or ``gone``; the latest copy of an id
  is the one used for the tables, whatever came after it.
* A ``failed`` event never replaces a copy. An id's fetch state is the state of
  its latest copy; it is ``failed`` only when no copy exists. ``attempts``
  counts the failures after the latest copy (all of them when there is none),
  ``reason`` is the text of the last of those (missing when there are none).
* The same event read twice (a fold stopped between writing its part and
  removing its journal, a compaction stopped while removing the parts it
  merged) counts once, at its first place.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..schema import TEXT_DTYPE
from .journal import EVENT_SCHEMA

__all__ = [
    "INDEX_COLUMNS",
    "distinct_events",
    "events_table",
    "fetch_state",
    "latest_copies",
    "reduce_events",
]

#: The columns of :func:`fetch_state`, indexed by id.
INDEX_COLUMNS = ("status", "summary", "fetched_at", "state", "reason", "attempts")


def distinct_events(tables: list[pa.Table]) -> pa.Table:
    """The events of ``tables`` (in order) with each event kept at its first place only.

    Examples
    --------
    >>> import datetime as dt
    >>> from icoframes.store.events import events_table
    >>> at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    >>> row = {"id": 7, "fetched_at": at, "state": "failed", "event": "a:0"}
    >>> distinct_events([events_table([row]), events_table([row])]).num_rows
    1
    """
    filled = [t for t in tables if t.num_rows]
    if not filled:
        return tables[0] if tables else EVENT_SCHEMA.empty_table()
    tables = filled
    table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    repeated = table.column("event").to_pandas().duplicated(keep="first").to_numpy()
    if repeated.any():
        table = table.filter(pa.array(~repeated))
    return table


def _is_copy(table: pa.Table) -> np.ndarray:
    return pc.not_equal(table.column("state"), "failed").to_numpy(zero_copy_only=False)


def latest_copies(events: pa.Table) -> pa.Table:
    """The latest copy (fetched or gone) of each id, in the order those copies were appended."""
    copies = events.filter(pa.array(_is_copy(events)))
    if copies.num_rows == 0:
        return copies
    return copies.take(pa.array(_last_positions(copies.column("id").to_numpy())))


def reduce_events(events: pa.Table) -> pa.Table:
    """Only what :func:`latest_copies` and :func:`fetch_state` need, in the same order.

    Per id: its latest copy and the failures after it (every failure when it
    has no copy). Compaction writes this, so merging parts changes no answer.
    """
    if events.num_rows == 0:
        return events
    ids = events.column("id").to_numpy()
    positions = np.arange(len(ids))
    copy = _is_copy(events)
    last_copy = pd.Series(positions[copy], index=ids[copy]).groupby(level=0).max()
    since = pd.Series(ids).map(last_copy).fillna(-1).to_numpy()
    return events.filter(pa.array(positions >= since))


def fetch_state(events: pa.Table) -> pd.DataFrame:
    """One row per id: its copy in use and what happened since (see the module rules).

    Columns ``status``, ``summary`` (of the copy in use; missing when there is
    none), ``fetched_at`` (when that copy was recorded; NaT when there is
    none), ``state`` (``fetched``, ``gone`` or ``failed``), ``reason`` and
    ``attempts``; indexed by ``id``, sorted.

    Examples
    --------
    >>> import datetime as dt
    >>> from icoframes.store.events import events_table
    >>> at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    >>> events = events_table([
    ...     {"id": 1, "summary": "a", "fetched_at": at, "state": "fetched", "event": "w:0"},
    ...     {"id": 1, "fetched_at": at, "state": "failed", "reason": "HTTP 500", "event": "w:1"},
    ...     {"id": 2, "fetched_at": at, "state": "failed", "reason": "not JSON", "event": "w:2"}])
    >>> fetch_state(events)[["state", "reason", "attempts"]].values.tolist()
    [['fetched', 'HTTP 500', 1], ['failed', 'not JSON', 1]]
    >>> fetch_state(events)["summary"].notna().tolist()  # no copy of 2: no summary
    [True, False]
    """
    frame = events.select(["id", "status", "summary", "fetched_at", "state",
                           "reason"]).to_pandas()
    if frame.empty:
        return _empty_state()
    copy = (frame["state"] != "failed").to_numpy()
    latest = frame[copy].drop_duplicates("id", keep="last")
    last_copy = pd.Series(latest.index.to_numpy(), index=latest["id"].to_numpy())
    failures = frame[~copy]
    later = failures[failures.index.to_numpy()
                     > failures["id"].map(last_copy).fillna(-1).to_numpy()]
    uncopied = later[~later["id"].isin(last_copy.index)].drop_duplicates("id", keep="last")
    uncopied = uncopied.assign(summary=None, fetched_at=pd.NaT)
    state = pd.concat([latest, uncopied]).set_index("id").sort_index()
    last_failure = later.drop_duplicates("id", keep="last").set_index("id")["reason"]
    state["reason"] = last_failure.reindex(state.index)
    state["attempts"] = later.groupby("id").size().reindex(state.index).fillna(0).astype("int64")
    return _typed(state[list(INDEX_COLUMNS)])


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.astype({"status": TEXT_DTYPE, "summary": TEXT_DTYPE, "state": TEXT_DTYPE,
                          "reason": TEXT_DTYPE, "attempts": "int64",
                          "fetched_at": "datetime64[ms, UTC]"})
    frame.index = frame.index.astype("int64")
    frame.index.name = "id"
    return frame


def _empty_state() -> pd.DataFrame:
    return _typed(pd.DataFrame({name: pd.Series([], dtype=object) for name in INDEX_COLUMNS},
                               index=pd.Index([], dtype="int64")))


def _last_positions(ids: np.ndarray) -> np.ndarray:
    """Positions of the last occurrence of every id, in order."""
    _, first_in_reversed = np.unique(ids[::-1], return_index=True)
    return np.sort(len(ids) - 1 - first_in_reversed)


def events_table(records: Iterable[dict[str, Any]]) -> pa.Table:
    """Events from dicts with the fields of :data:`EVENT_SCHEMA` (used by tests and tools)."""
    return pa.Table.from_pylist(list(records), schema=EVENT_SCHEMA)

"""What :func:`icoframes.changes` compares: the kinds of change and the ``icos`` column of
each, the events it gives by itself, and the check of a ``kinds`` argument against the
columns a frame holds (an amount only with its unit column).
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from .errors import InvalidParameter, UnknownName, closest, did_you_mean, quoted
from .schema import ICOS

__all__ = ["CHANGE_KINDS", "EVENT_ORDER", "GAP_KINDS", "PROFILE_COLUMNS", "UNITS",
           "columns_compared"]

#: What :func:`~icoframes.changes` compares by default: event kind -> ``icos`` column.
CHANGE_KINDS: dict[str, str] = {
    "status": "status",
    "name": "name",
    "score": "ico_score",
    "raised": "raised",
    "start": "start_datetime",
    "end": "end_datetime",
}
#: The events :func:`~icoframes.changes` gives for what an incomplete snapshot could not tell.
GAP_KINDS = ("unseen", "first_seen")
#: The ``icos`` columns read from the profile: unchanged at the service while its copy is.
PROFILE_COLUMNS = frozenset(c.name for c in ICOS.columns if c.source is not None)
#: An amount -> the ``icos`` column holding its unit, as the schema declares it (``caps_unit``;
#: ``token_price_unit per token``): 100 ETH and 100 USD are two values, compared as such.
UNITS: dict[str, str] = {c.name: c.unit.partition(" ")[0] for c in ICOS.columns
                          if c.kind == "float" and c.unit.partition(" ")[0] in ICOS.names}
#: The ``icos`` columns of icoframes' own fetches, not compared: a refetch moves them.
_OWN = ("id", "fetched_at", "fetched_status")
EVENT_ORDER = {"new": 0, "removed": 1, "unseen": 0, "first_seen": 0}  # then compared kinds


def columns_compared(kinds: Iterable[str] | None, frame: pd.DataFrame) -> dict[str, str]:
    """Each kind to compare -> its column; a column named twice (an alias and its column:
    ``score`` and ``ico_score``) is compared once, under the first name given."""
    wanted: dict[str, str] = {}
    if kinds is None:
        wanted = {k: c for k, c in CHANGE_KINDS.items() if c in frame.columns}
        if len(wanted) < len(CHANGE_KINDS) and "status" not in wanted:
            raise InvalidParameter("changes needs the icos snapshots (no 'status' column)")
        return wanted
    if isinstance(kinds, str):
        kinds = [kinds]
    elif isinstance(kinds, bytes | bytearray | memoryview) or not isinstance(kinds, Iterable):
        raise InvalidParameter(f"kinds must be a name or names (str) of what to compare, got "
                               f"{quoted(kinds)}{did_you_mean(_meant(kinds), CHANGE_KINDS)}")
    present = [*(k for k, c in CHANGE_KINDS.items() if c in frame.columns),
               *(c for c in ICOS.names if c in frame.columns and c not in _OWN)]
    # an amount whose unit column is absent is refused: never offered as a "did you mean"
    usable = [k for k in present if _lacked_unit(k, frame) is None]
    for kind in kinds:
        if not isinstance(kind, str):
            raise UnknownName(f"cannot compare {quoted(kind)}: a kind is a name (str), of a "
                              f"kind of change or a column{did_you_mean(_meant(kind), usable)}")
        column = CHANGE_KINDS.get(kind, kind)
        if kind in EVENT_ORDER:
            raise UnknownName(f"cannot compare {quoted(kind)}: an event changes() gives by itself "
                              "(new and removed ICOs always, unseen and first_seen with "
                              "gaps='mark'), not a value to compare")
        if column in ("id", "snapshot_date"):
            raise UnknownName(f"cannot compare {quoted(kind)}: the column telling the "
                              f"{'ICOs' if column == 'id' else 'snapshots'} apart, not a "
                              "value that changes")
        if column == "fetched_at":  # a change is one at the service, not icoframes' own
            raise UnknownName(f"cannot compare {quoted(kind)}: when icoframes fetched the "
                              "profile (each refetch moves it), not a value the service changed")
        if column == "fetched_status":
            raise UnknownName(f"cannot compare {quoted(kind)}: the status icoframes fetched "
                              "the profile under (a refetch moves it), not a value the service "
                              "changed; compare 'status'")
        if column not in frame.columns:  # never itself as its "did you mean"
            why = (f"the snapshots have no column {column!r}" if column in ICOS.names
                   else "not a kind of change or a column")
            near = closest(kind.strip().casefold(), [k for k in present if k != kind])[:1]
            lacked = _lacked_unit(near[0], frame) if near else None
            raise UnknownName(f"cannot compare {quoted(kind)}: {why}" + (
                f" (the closest, {near[0]!r}, cannot be compared without its unit: the"
                f" snapshots have no column {lacked!r})" if lacked is not None
                else did_you_mean(kind, [u for u in usable if u != kind])))
        unit = _lacked_unit(column, frame)
        if unit is not None:  # 100 of what: never a bare number
            raise UnknownName(f"cannot compare {quoted(kind)} without its unit: the snapshots "
                              f"have no column {unit!r}")
        if column not in wanted.values():
            wanted[kind] = column
    return wanted


def _lacked_unit(kind: str, frame: pd.DataFrame) -> str | None:
    """The unit column of an amount ``kind`` when ``frame`` lacks it, else None."""
    unit = UNITS.get(CHANGE_KINDS.get(kind, kind))
    return unit if unit is not None and unit not in frame.columns else None


def _meant(value: object) -> str:
    """A kind given as bytes, or as a list of one name, as the text it likely means."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "replace")
    return str(next(iter(value), "")) if isinstance(value, list | tuple) and len(value) == 1 \
        else str(value)

"""The snapshot folder of an export's day: one query's export, never replaced by another's.

``out/snapshot_date=YYYY-MM-DD/`` holds one export per UTC day: its rows carry no
query, and :func:`icoframes.read_snapshots` and :func:`icoframes.changes` take the
folder as what the service listed that day. So a snapshot of another query the same
day cannot be kept beside it, and swapping it in would lose the first query's rows:
:func:`check_same_query` refuses it before any list or profile request.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .errors import InvalidParameter
from .exported import read_manifest

__all__ = ["check_same_query", "query_key"]

# the order rows are listed in: the same rows, whichever of them is asked
_SORTS = ("sort_asc", "sort_desc")


def query_key(params: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """What a snapshot's list queries select (their wire parameters, sorts and unset ones
    left out), comparable with another snapshot's.

    Examples
    --------
    >>> query_key([{"status": "past", "sort_asc": "id", "platform": None}]) == \\
    ...     query_key([{"status": "past"}])
    True
    """
    return frozenset(json.dumps({k: v for k, v in p.items() if v is not None and k not in _SORTS},
                                sort_keys=True, default=str) for p in params)


def check_same_query(folder: Path, asked: list[dict[str, Any]], out: Path, *,
                     sent: bool = False) -> None:
    """InvalidParameter when ``folder`` (the day's snapshot) holds an export of another
    query than ``asked`` (this export's wire parameters, one dict per list query).

    Checked before any request, and again before the swap (``sent``: another export
    of another query swapped its folder in meanwhile; what this one fetched is cached).

    A folder without a manifest, or whose manifest names no query (written by an
    older version), says nothing of its query: it is replaced, as ever.
    """
    manifest = read_manifest(folder) if folder.is_dir() else None
    queries = (manifest or {}).get("queries")
    if not isinstance(queries, list) or not queries:
        return
    held = [p for q in queries if isinstance(q, dict) and isinstance(p := q.get("params"), dict)]
    if len(held) != len(queries):
        return
    if query_key(held) == query_key(asked):
        return
    statuses = sorted({str(p.get("status")) for p in asked})
    other = out.parent / f"{out.name}-{'-'.join(statuses) if len(statuses) == 1 else 'other'}"
    raise InvalidParameter(
        f"{folder} holds this day's snapshot of another query ({_shown(held)}); this export "
        f"asks for {_shown(asked)}, and the folder holds one export a day: replacing it would "
        f"lose that query's rows of the day. "
        f"{'Nothing was written (what was fetched is cached)' if sent else 'Nothing was sent'}"
        f". Export this query into another "
        f"folder (--out {other}), or move that snapshot folder away first to replace it.")


def _shown(params: list[dict[str, Any]]) -> str:
    return "; ".join(", ".join(f"{k}={v}" for k, v in sorted(
        p.items(), key=lambda kv: kv[0] != "status") if v is not None) for p in params)

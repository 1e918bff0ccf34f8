"""A snapshot tree holds one query: a day's folder is never replaced by another query's,
and a tree's days are never of two queries.

``out/snapshot_date=YYYY-MM-DD/`` holds one export per UTC day: its rows carry no
query, and :func:`icoframes.read_snapshots` and :func:`icoframes.changes` take the
folder as what the service listed that day, and consecutive folders as one query's
days. So a snapshot of another query the same day cannot be kept beside it (swapping
it in would lose the first query's rows), and one of another query on another day
would read as every ICO of the one query removed and the other's new:
:func:`check_tree` refuses either before any list or profile request.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .errors import InvalidParameter
from .exported import SNAPSHOT_PREFIX, read_manifest

__all__ = ["check_same_query", "check_tree", "held_query", "query_key"]

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


def held_query(folder: Path) -> list[dict[str, Any]] | None:
    """The wire parameters of the list queries of the export in ``folder`` (one dict per
    query), or None when it says none: no manifest, or one of an older version."""
    manifest = read_manifest(folder) if folder.is_dir() else None
    queries = (manifest or {}).get("queries")
    if not isinstance(queries, list) or not queries:
        return None
    held = [p for q in queries if isinstance(q, dict) and isinstance(p := q.get("params"), dict)]
    return held if len(held) == len(queries) else None


def check_same_query(folder: Path, asked: list[dict[str, Any]], out: Path, *,
                     sent: bool = False) -> None:
    """InvalidParameter when ``folder`` (the day's snapshot) holds an export of another
    query than ``asked`` (this export's wire parameters, one dict per list query).

    A folder without a manifest, or whose manifest names no query (written by an
    older version), says nothing of its query: it is replaced, as ever.
    """
    held = held_query(folder)
    if held is None or query_key(held) == query_key(asked):
        return
    raise InvalidParameter(
        f"{folder} holds this day's snapshot of another query ({_shown(held)}); this export "
        f"asks for {_shown(asked)}, and the folder holds one export a day: replacing it would "
        f"lose that query's rows of the day. {_nothing(sent)}. Export this query into another "
        f"folder (--out {_other(out, asked)}), or move that snapshot folder away first to "
        "replace it.")


def check_tree(out: Path, day: Path, asked: list[dict[str, Any]], *,
               sent: bool = False) -> None:
    """InvalidParameter when the snapshot tree ``out`` holds an export of another query than
    ``asked``: the day's folder (:func:`check_same_query`), or another day's.

    Checked before any request, and again before the swap (``sent``: an export of another
    query swapped its folder in meanwhile; what this one fetched is cached). Folders whose
    manifest names no query (older versions) say nothing: they are no other query.
    """
    check_same_query(day, asked, out, sent=sent)
    mine = query_key(asked)
    others: dict[frozenset[str], tuple[list[dict[str, Any]], list[str]]] = {}
    for child in sorted(out.iterdir()) if out.is_dir() else []:
        if (not child.name.startswith(SNAPSHOT_PREFIX) or child == day or child.is_symlink()
                or (held := held_query(child)) is None or query_key(held) == mine):
            continue
        others.setdefault(query_key(held), (held, []))[1].append(
            child.name.removeprefix(SNAPSHOT_PREFIX))
    if not others:
        return
    shown = "; and ".join(f"{_shown(held)} ({_days(dates)})" for held, dates in others.values())
    raise InvalidParameter(
        f"{out} is a snapshot tree of another query: {shown}; this export asks for "
        f"{_shown(asked)}. A tree holds one query: read_snapshots and changes compare its days "
        "as one query's, so every ICO of the one would read as removed and the other's as "
        f"new. {_nothing(sent)}. Start a new tree for this query (--out "
        f"{_other(out, asked)}), or move {out}'s snapshot_date= folders away first.")


def _days(dates: list[str]) -> str:
    return (f"the snapshot of {dates[0]}" if len(dates) == 1
            else f"{len(dates)} snapshots, {dates[0]} to {dates[-1]}")


def _nothing(sent: bool) -> str:
    return "Nothing was written (what was fetched is cached)" if sent else "Nothing was sent"


def _other(out: Path, asked: list[dict[str, Any]]) -> Path:
    statuses = sorted({str(p.get("status")) for p in asked})
    return out.parent / f"{out.name}-{'-'.join(statuses) if len(statuses) == 1 else 'other'}"


def _shown(params: list[dict[str, Any]]) -> str:
    return "; ".join(", ".join(f"{k}={v}" for k, v in sorted(
        p.items(), key=lambda kv: kv[0] != "status") if v is not None) for p in params)
